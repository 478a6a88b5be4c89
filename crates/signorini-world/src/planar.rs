//! The 2D space: rigid convex polygons with ν = [vx, vy, ω] (3 components per body).
//!
//! Owns: [`Planar`] (the [`Space`] of [`World`]): world vertices at a configuration, the
//! sweep-and-prune broad phase, the three contact models' detectors (PEG potential contacts →
//! U/I/X; the standard ε-distance detector; the corrective separating-axis detector), the
//! vertex–edge gap re-measurement and PEG refresh of the gap correction, and the update
//! `x ← x + h v`, `θ ← θ + h ω`; and [`World::add_static_compound`].
//! Does not own: the stage order, solves and the correction loop (`stepper`).

use crate::pool::ContactPool;
use crate::stepper::{CORRECTION_TOLERANCE, GenericWorld, Space, WorldParams, unseen_pairs};
use signorini_contact::{
    ConstraintSet, Contact, ContactModel, PEG_APPLICABILITY_RELAXATION, PotentialRules,
    SM_DETECTION_DISTANCE, applicability, corrective_contacts, peg::build_peg_constraints_with,
    peg_detection_distance, potential_contacts_with, standard_contacts,
};
use signorini_dynamics::{BodyError, RigidBody2};
use signorini_geometry::dim2::{Aabb, Compound, intersection_area, sweep_and_prune};
use signorini_math::tolerance::UNSEEN_OVERLAP_AREA_TOL;
use signorini_math::{Real, Vec2, Vec3};

/// The 2D space (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Planar;

/// The 2D world: rigid convex polygons, the stepper of [`GenericWorld`].
pub type World = GenericWorld<Planar, 3>;

impl World {
    /// Add every convex part of a static compound (e.g. an open box) as its own static body
    /// at the given pose; returns their indices.
    pub fn add_static_compound(
        &mut self,
        compound: &Compound,
        position: Vec2,
        angle: Real,
    ) -> Vec<usize> {
        compound
            .parts()
            .iter()
            .map(|part| {
                self.bodies
                    .push(RigidBody2::fixed(part.clone()).with_pose(position, angle));
                self.bodies.len() - 1
            })
            .collect()
    }
}

/// Number of vertices (= edges) of every body.
fn vertex_counts(bodies: &[RigidBody2]) -> Vec<usize> {
    bodies.iter().map(|b| b.shape.len()).collect()
}

impl Space<3> for Planar {
    type Body = RigidBody2;
    type Contact = Contact;
    type Key = (usize, usize, usize, usize);
    type Geometry = Vec<Vec<Vec2>>;

    fn validate(body: &RigidBody2) -> Result<(), BodyError> {
        body.validate()
    }

    fn velocity(body: &RigidBody2) -> Vec3 {
        body.velocity
    }

    fn free_velocity(body: &RigidBody2, h: Real, _params: &WorldParams) -> Vec3 {
        body.free_velocity(h)
    }

    fn geometry(bodies: &[RigidBody2]) -> Vec<Vec<Vec2>> {
        bodies.iter().map(|b| b.world_vertices()).collect()
    }

    fn moved(bodies: &[RigidBody2], velocities: &[Vec3], h: Real) -> Vec<Vec<Vec2>> {
        bodies
            .iter()
            .zip(velocities)
            .map(|(b, v)| {
                if b.is_static {
                    b.world_vertices()
                } else {
                    b.shape
                        .placed(&(b.position + Vec2::new(v.x, v.y) * h), b.angle + h * v.z)
                }
            })
            .collect()
    }

    fn candidate_pairs(
        bodies: &[RigidBody2],
        a: &Vec<Vec<Vec2>>,
        b: &Vec<Vec<Vec2>>,
        margin: Real,
    ) -> Vec<(usize, usize)> {
        let boxes: Vec<Aabb> = a
            .iter()
            .zip(b)
            .map(|(v, p)| {
                Aabb::from_points(v.iter())
                    .union(&Aabb::from_points(p.iter()))
                    .inflated(margin)
            })
            .collect();
        sweep_and_prune(&boxes)
            .into_iter()
            .filter(|&(i, j)| !(bodies[i].is_static && bodies[j].is_static))
            .collect()
    }

    fn detection_distance(params: &WorldParams) -> Real {
        match params.model {
            ContactModel::Peg => params
                .peg_distance
                .unwrap_or_else(|| peg_detection_distance(params.h)),
            ContactModel::Standard => params.standard_distance.unwrap_or(SM_DETECTION_DISTANCE),
            ContactModel::Corrective => 0.0,
        }
    }

    fn detect(
        params: &WorldParams,
        bodies: &[RigidBody2],
        now: &Vec<Vec<Vec2>>,
        next: &Vec<Vec<Vec2>>,
        pairs: &[(usize, usize)],
    ) -> ConstraintSet {
        let eps = Self::detection_distance(params);
        match params.model {
            ContactModel::Standard => {
                ConstraintSet::all_unilateral(standard_contacts(bodies, now, pairs, eps))
            }
            ContactModel::Corrective => {
                ConstraintSet::all_unilateral(corrective_contacts(bodies, now, pairs))
            }
            ContactModel::Peg => {
                let contacts =
                    potential_contacts_with(bodies, now, next, pairs, eps, rules(params));
                build_peg_constraints_with(
                    contacts,
                    &vertex_counts(bodies),
                    PEG_APPLICABILITY_RELAXATION,
                    params.peg_form,
                    params.x_impulse,
                )
            }
        }
    }

    /// The model's constraints rebuilt over the whole pool.
    fn rebuild(
        params: &WorldParams,
        bodies: &[RigidBody2],
        _set: &ConstraintSet,
        pool: &ContactPool<(usize, usize, usize, usize), Contact>,
    ) -> ConstraintSet {
        let contacts: Vec<Contact> = pool.sorted().map(|(_, c)| c.clone()).collect();
        if params.model == ContactModel::Peg {
            build_peg_constraints_with(
                contacts,
                &vertex_counts(bodies),
                PEG_APPLICABILITY_RELAXATION,
                params.peg_form,
                params.x_impulse,
            )
        } else {
            ConstraintSet::all_unilateral(contacts)
        }
    }

    fn key(contact: &Contact) -> (usize, usize, usize, usize) {
        contact.key()
    }

    /// (vertex body, vertex, edge body, edge).
    fn map_key(k: &Self::Key, map: &dyn Fn(usize) -> usize) -> Self::Key {
        (map(k.0), k.1, map(k.2), k.3)
    }

    fn key_bodies(k: &Self::Key) -> (usize, usize) {
        (k.0, k.2)
    }

    fn gap_mut(contact: &mut Contact) -> &mut Real {
        &mut contact.gap
    }

    fn remeasure(c: &Contact, trial: &Vec<Vec<Vec2>>) -> Option<Real> {
        (c.vertex != usize::MAX).then(|| edge_gap(&trial[c.a][c.vertex], &trial[c.b], c.edge))
    }

    /// Re-tests applicability at the trial orientation (rotation within the step) and treats a
    /// vertex inside the other body there as a violation even if unconstrained; for PEG,
    /// vertex–edge pairs near at the trial configuration join the pool.
    fn refresh(
        params: &WorldParams,
        bodies: &[RigidBody2],
        now: &Vec<Vec<Vec2>>,
        trial: &Vec<Vec<Vec2>>,
        _velocities: &[Vec3],
        pool: &mut ContactPool<(usize, usize, usize, usize), Contact>,
    ) -> bool {
        let mut violated = false;
        for c in pool.values_mut().filter(|c| c.vertex != usize::MAX) {
            let tb = &trial[c.b];
            let e = tb[(c.edge + 1) % tb.len()] - tb[c.edge];
            let outward = Vec2::new(e.y, -e.x) / e.norm();
            c.applicability = c
                .applicability
                .max(applicability(&trial[c.a], c.vertex, &outward));
            let p = &trial[c.a][c.vertex];
            violated |= (0..tb.len()).all(|k| edge_gap(p, tb, k) < -CORRECTION_TOLERANCE);
        }
        if params.model == ContactModel::Peg {
            let eps = Self::detection_distance(params);
            let pairs = Self::candidate_pairs(bodies, now, trial, eps);
            for c in potential_contacts_with(bodies, now, trial, &pairs, eps, rules(params)) {
                if pool.contains_key(&c.key()) {
                    continue;
                }
                violated |=
                    edge_gap(&trial[c.a][c.vertex], &trial[c.b], c.edge) < -CORRECTION_TOLERANCE;
                pool.insert(c.key(), c);
            }
        }
        violated
    }

    /// PEG: every candidate pair whose exact overlap area exceeds
    /// [`signorini_math::tolerance::UNSEEN_OVERLAP_AREA_TOL`] while none of the set's
    /// constraints between the two bodies is violated beyond [`CORRECTION_TOLERANCE`] gets the
    /// corrective detector's whole-body contact (as in 3D, [`crate::Spatial`]). Not every
    /// interpenetration of convex polygons has a vertex strictly inside the other: two bars
    /// crossing like a plus sign, or two polygons whose facing edges nearly coincide and cross
    /// with each one's vertices on the other's edge lines (gaps of ±1e-12 m, which the
    /// deep-vertex rule reads as outside). The 2D pile of 400 polygons grew such an overlap
    /// from 2.9e-4 to 1.3e-2 m² after a failed step, every constraint reading satisfied
    /// (docs/peg3d.md, "What the step does at scale", item 18). Other models detect by
    /// distance or overlap already.
    fn unseen(
        params: &WorldParams,
        bodies: &[RigidBody2],
        geometry: &Vec<Vec<Vec2>>,
        set: &ConstraintSet<Contact>,
    ) -> Vec<Contact> {
        let missed = unseen_pairs::<Self, 3>(params, bodies, geometry, set, |i, j| {
            intersection_area(&geometry[i], &geometry[j]) > UNSEEN_OVERLAP_AREA_TOL
        });
        if missed.is_empty() {
            return Vec::new();
        }
        corrective_contacts(bodies, geometry, &missed)
    }

    fn kinetic_energy(b: &RigidBody2, v: &Vec3) -> Real {
        0.5 * (b.mass * (v.x * v.x + v.y * v.y) + b.inertia * v.z * v.z)
    }

    fn turn_rate(v: &Vec3) -> Real {
        v.z.abs()
    }

    fn integrate(b: &mut RigidBody2, v: &Vec3, h: Real) {
        if v.iter().all(|x| x.is_finite()) {
            b.velocity = *v;
        }
        b.integrate_position(h);
    }

    fn set_velocity(b: &mut RigidBody2, v: &Vec3) {
        b.velocity = *v;
    }

    fn kinematic_state(b: &RigidBody2) -> Vec<Real> {
        let (p, v) = (b.position, b.velocity);
        vec![p.x, p.y, b.angle, v.x, v.y, v.z]
    }

    fn set_kinematic_state(b: &mut RigidBody2, s: &[Real]) -> Result<(), &'static str> {
        if s.len() != 6 {
            return Err("a 2D body's state has 6 numbers [x, y, angle, vx, vy, omega]");
        }
        if !s.iter().all(|x| x.is_finite()) {
            return Err("a number is not finite");
        }
        b.position = Vec2::new(s[0], s[1]);
        b.angle = s[2];
        b.velocity = Vec3::new(s[3], s[4], s[5]);
        Ok(())
    }
}

/// The 2D detection rules of `params` ([`WorldParams::paper_detection`]).
fn rules(params: &WorldParams) -> PotentialRules {
    if params.paper_detection {
        PotentialRules::PAPER
    } else {
        PotentialRules::PROJECT
    }
}

/// Signed gap of vertex `p` to edge `edge` of a counter-clockwise polygon
/// (docs/formulation-notes.md §2).
fn edge_gap(p: &Vec2, poly: &[Vec2], edge: usize) -> Real {
    let t = poly[edge];
    let e = poly[(edge + 1) % poly.len()] - t;
    Vec2::new(-e.y, e.x).dot(&(t - p)) / e.norm()
}
