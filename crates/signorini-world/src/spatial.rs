//! The 3D space: rigid convex polyhedra with ν = [v; ω] (6 components per body, ω in the world
//! frame).
//!
//! Owns: [`PolyBody`] (a [`RigidBody3`] paired with its [`ConvexPolyhedron`] in the body frame,
//! origin = centre of mass), [`Spatial`] (the [`Space`] of [`World3`]): world-frame polyhedra at
//! a configuration, the AABB sweep-and-prune broad phase, detection per contact model (the 3D
//! detectors of `signorini-contact`), gap re-measurement and the 3D refresh of the gap
//! correction, and the update `x ← x + h v`, `q ← exp(h ω / 2) ⊗ q` renormalised
//! (docs/formulation-notes.md §2); and [`World3::add_static_compound`].
//! The mass matrix is `diag(m I₃, R J Rᵀ)`; the free-flight velocity carries the gyroscopic
//! torque −ω × Jω by the update of `WorldParams::gyroscopic` (default the body-frame implicit
//! midpoint rule, which keeps a free body's |L| and kinetic energy to round-off;
//! `Gyroscopic::Off` is the reference code's and this project's behaviour before issue 22:
//! ω constant in the world frame in free flight, which conserves angular momentum only for
//! rotation about a principal axis or an isotropic inertia).
//! Does not own: the stage order, solves and the correction loop (`stepper`).

use crate::pool::ContactPool;
use crate::stepper::{CORRECTION_TOLERANCE, GenericWorld, Space, WorldParams, unseen_pairs};
use rustc_hash::FxHashSet;
use signorini_contact::dim3::{
    Contact3, Features3, Peg3Params, SM3_DETECTION_DISTANCE, corrective_contacts3,
    peg_constraints3, peg3_detection_distance, standard_contacts3, vertex_face_contact,
};
use signorini_contact::{ConstraintSet, ContactModel, DofBody, MassBlock};
use signorini_dynamics::{BodyError, RigidBody3};
use signorini_geometry::dim3::{
    Aabb3, Compound3, ConvexPolyhedron, intersection_volume, intersection_volume_bound, separated,
    sweep_and_prune3,
};
use signorini_math::{Mat3, Quat, Real, Vec3, Vec6};

pub use signorini_math::tolerance::TRIAL_OVERLAP_VOLUME_TOL as TRIAL_OVERLAP_TOLERANCE;

/// Whether the exact intersection volume of `a` and `b` exceeds [`TRIAL_OVERLAP_TOLERANCE`].
/// The clipping is skipped when the cheap upper bound is at most half the tolerance (bodies
/// resting on each other, whose bound is at round-off level): then the volume is below the
/// tolerance by a margin no rounding of the clipping could cross, and the answer is the
/// same. The clipping was 14 % of the 27-body pile's run (`perf`, session 19). It is also
/// skipped for a pair that GJK shows disjoint ([`separated`]: a pair that only an edge–edge
/// axis separates, 73 % of the clippings left on the 125-body pile in session 29): its volume
/// is 0, and again the answer is the same.
fn overlaps_beyond_tolerance(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    intersection_volume_bound(a, b) > 0.5 * TRIAL_OVERLAP_TOLERANCE
        && !separated(a, b)
        && intersection_volume(a, b) > TRIAL_OVERLAP_TOLERANCE
}

/// Identity of a 3D contact: (body a, body b, feature pair). The 3D detectors create each
/// feature pair once (an edge–edge pair from the lower body index), so keys are unique.
pub type ContactKey3 = (usize, usize, Features3);

/// The 3D space (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Spatial;

/// The 3D world: rigid convex polyhedra, the stepper of [`GenericWorld`].
pub type World3 = GenericWorld<Spatial, 6>;

/// A rigid convex polyhedron: 6-dof state and shape (body frame, origin = centre of mass).
#[derive(Debug, Clone, PartialEq)]
pub struct PolyBody {
    /// Pose, velocity, mass properties, external wrench.
    pub state: RigidBody3,
    /// Shape in the body frame.
    pub shape: ConvexPolyhedron,
}

impl PolyBody {
    /// A dynamic body at rest at the origin with explicit mass and body-frame inertia about
    /// the shape's frame origin (which must be the centre of mass).
    pub fn dynamic(shape: ConvexPolyhedron, mass: Real, inertia: Mat3) -> Result<Self, BodyError> {
        Ok(PolyBody {
            state: RigidBody3::dynamic(mass, inertia)?,
            shape,
        })
    }

    /// A dynamic body of uniform density (kg/m³) with exact polyhedral mass properties; the
    /// shape is re-centred so that its centroid is the body origin.
    pub fn from_density(shape: &ConvexPolyhedron, density: Real) -> Result<Self, BodyError> {
        if !(density.is_finite() && density > 0.0) {
            return Err(BodyError::Density(density));
        }
        let (centred, _) = shape.centred();
        let mp = centred.mass_properties(density);
        PolyBody::dynamic(centred, mp.mass, mp.inertia)
    }

    /// A static body (its shape is placed with [`PolyBody::with_pose`]).
    pub fn fixed(shape: ConvexPolyhedron) -> Self {
        PolyBody {
            state: RigidBody3::fixed(),
            shape,
        }
    }

    /// Builder: set the pose (centre of mass, orientation).
    pub fn with_pose(mut self, position: Vec3, orientation: Quat) -> Self {
        self.state = self.state.with_pose(position, orientation);
        self
    }

    /// Builder: set the linear and angular (world-frame) velocity.
    pub fn with_velocity(mut self, linear: Vec3, angular: Vec3) -> Self {
        self.state = self.state.with_velocity(linear, angular);
        self
    }

    /// Builder: add the weight `m g` of the gravitational acceleration `g` (m/s², a vector:
    /// `Vec3::new(0.0, 0.0, -9.81)` along −z) to the external force (no-op for static bodies).
    pub fn with_gravity(mut self, g: Vec3) -> Self {
        self.state = self.state.with_gravity(g);
        self
    }

    /// The shape in the world frame.
    pub fn world_shape(&self) -> ConvexPolyhedron {
        self.shape
            .transformed(&self.state.position, &self.state.orientation)
    }
}

impl DofBody<6> for PolyBody {
    fn is_static(&self) -> bool {
        self.state.is_static
    }
    fn mass_block(&self) -> MassBlock<6> {
        self.state.mass_block()
    }
    fn inverse_mass_block(&self) -> MassBlock<6> {
        self.state.inverse_mass_block()
    }
}

impl World3 {
    /// Add every convex part of a static compound (e.g. the open box of the 3D pouring scene)
    /// as its own static body at the given pose; returns their indices.
    pub fn add_static_compound(
        &mut self,
        compound: &Compound3,
        position: Vec3,
        orientation: Quat,
    ) -> Vec<usize> {
        compound
            .parts()
            .iter()
            .map(|part| {
                self.bodies
                    .push(PolyBody::fixed(part.clone()).with_pose(position, orientation));
                self.bodies.len() - 1
            })
            .collect()
    }

    /// Total kinetic energy of the dynamic bodies (J).
    pub fn total_kinetic_energy(&self) -> Real {
        self.bodies.iter().map(|b| b.state.kinetic_energy()).sum()
    }
}

/// The pose reached from `body`'s pose with velocity `v` after `h` (the update of
/// [`RigidBody3::integrate_position`], so that a predicted or trial configuration is exactly
/// where the step will put the body).
fn advanced(body: &RigidBody3, v: &Vec6, h: Real) -> RigidBody3 {
    let mut s = body.clone();
    if !s.is_static {
        s.set_velocity(v);
        s.integrate_position(h);
    }
    s
}

/// World-frame polyhedra of `bodies` with the given states.
fn placed<'a>(bodies: &[PolyBody], states: impl Iterator<Item = &'a RigidBody3>) -> Geometry3 {
    Geometry3 {
        shapes: bodies
            .iter()
            .zip(states)
            .map(|(b, s)| b.shape.transformed(&s.position, &s.orientation))
            .collect(),
    }
}

/// World-frame polyhedra of all bodies at one configuration.
#[derive(Debug, Clone)]
pub struct Geometry3 {
    /// One polyhedron per body, in the world frame.
    pub shapes: Vec<ConvexPolyhedron>,
}

/// The 6-dof states of the bodies (what the 3D contact constructors take).
fn states(bodies: &[PolyBody]) -> Vec<RigidBody3> {
    bodies.iter().map(|b| b.state.clone()).collect()
}

impl Spatial {
    fn boxes(a: &Geometry3, b: &Geometry3, margin: Real) -> Vec<Aabb3> {
        a.shapes
            .iter()
            .zip(&b.shapes)
            .map(|(p, q)| {
                Aabb3::from_points(p.vertices())
                    .union(&Aabb3::from_points(q.vertices()))
                    .inflated(margin)
            })
            .collect()
    }
}

impl Space<6> for Spatial {
    type Body = PolyBody;
    type Contact = Contact3;
    type Key = ContactKey3;
    type Geometry = Geometry3;

    fn validate(body: &PolyBody) -> Result<(), BodyError> {
        body.state.validate()
    }

    fn velocity(body: &PolyBody) -> Vec6 {
        body.state.velocity()
    }

    fn free_velocity(body: &PolyBody, h: Real, params: &WorldParams) -> Vec6 {
        body.state.free_velocity(h, params.gyroscopic)
    }

    fn geometry(bodies: &[PolyBody]) -> Geometry3 {
        placed(bodies, bodies.iter().map(|b| &b.state))
    }

    fn moved(bodies: &[PolyBody], velocities: &[Vec6], h: Real) -> Geometry3 {
        let states: Vec<RigidBody3> = bodies
            .iter()
            .zip(velocities)
            .map(|(b, v)| advanced(&b.state, v, h))
            .collect();
        placed(bodies, states.iter())
    }

    fn candidate_pairs(
        bodies: &[PolyBody],
        a: &Geometry3,
        b: &Geometry3,
        margin: Real,
    ) -> Vec<(usize, usize)> {
        sweep_and_prune3(&Self::boxes(a, b, margin))
            .into_iter()
            .filter(|&(i, j)| !(bodies[i].state.is_static && bodies[j].state.is_static))
            .collect()
    }

    fn detection_distance(params: &WorldParams) -> Real {
        match params.model {
            ContactModel::Peg => params
                .peg_distance
                .unwrap_or_else(|| peg3_detection_distance(params.h)),
            ContactModel::Standard => params.standard_distance.unwrap_or(SM3_DETECTION_DISTANCE),
            ContactModel::Corrective => 0.0,
        }
    }

    fn detect(
        params: &WorldParams,
        bodies: &[PolyBody],
        now: &Geometry3,
        next: &Geometry3,
        pairs: &[(usize, usize)],
    ) -> ConstraintSet<Contact3> {
        let eps = Self::detection_distance(params);
        let states = states(bodies);
        match params.model {
            ContactModel::Standard => {
                ConstraintSet::all_unilateral(standard_contacts3(&states, &now.shapes, pairs, eps))
            }
            ContactModel::Corrective => {
                ConstraintSet::all_unilateral(corrective_contacts3(&states, &now.shapes, pairs))
            }
            ContactModel::Peg => {
                let p = Peg3Params {
                    eps,
                    crossing_net: !params.paper_detection,
                    deep_vertices: !params.paper_detection,
                    form: params.peg_form,
                    x_impulse: params.x_impulse,
                    ..Peg3Params::for_step(params.h).with_vertex_vertex(params.vertex_vertex)
                };
                peg_constraints3(&states, &now.shapes, &next.shapes, pairs, &p)
            }
        }
    }

    /// The last set's constraints over the pool's (lowered) gaps, plus every pool contact the
    /// set does not have (added by [`Space::refresh`]) as a U-constraint.
    fn rebuild(
        _params: &WorldParams,
        _bodies: &[PolyBody],
        set: &ConstraintSet<Contact3>,
        pool: &ContactPool<ContactKey3, Contact3>,
    ) -> ConstraintSet<Contact3> {
        let mut out = set.clone();
        let mut have = FxHashSet::default();
        for c in &mut out.contacts {
            let key = Self::key(c);
            if let Some(p) = pool.get(&key) {
                c.gap = p.gap;
            }
            have.insert(key);
        }
        for (key, c) in pool.sorted() {
            if !have.contains(key) {
                out.unilateral.push(out.contacts.len());
                out.contacts.push(c.clone());
            }
        }
        out
    }

    fn key(c: &Contact3) -> ContactKey3 {
        (c.a, c.b, c.features)
    }

    fn map_key(k: &ContactKey3, map: &dyn Fn(usize) -> usize) -> ContactKey3 {
        (map(k.0), map(k.1), k.2)
    }

    fn key_bodies(k: &ContactKey3) -> (usize, usize) {
        (k.0, k.1)
    }

    fn gap_mut(c: &mut Contact3) -> &mut Real {
        &mut c.gap
    }

    /// Vertex–face: the plane distance at the trial pose (exact). Edge–edge: the distance
    /// between the edge lines along their common normal at the trial pose, oriented like the
    /// contact's normal (`None` if the edges became parallel). Corrective: `None`.
    fn remeasure(c: &Contact3, trial: &Geometry3) -> Option<Real> {
        let (pa, pb) = (&trial.shapes[c.a], &trial.shapes[c.b]);
        match c.features {
            Features3::VertexFace { vertex, face } => {
                let f = &pb.faces()[face];
                Some(f.normal.dot(&pa.vertices()[vertex]) - f.offset)
            }
            Features3::EdgeEdge { edge_a, edge_b } => {
                let (ea, eb) = (&pa.edges()[edge_a], &pb.edges()[edge_b]);
                let a0 = pa.vertices()[ea.tail];
                let b0 = pb.vertices()[eb.tail];
                let da = pa.vertices()[ea.head] - a0;
                let db = pb.vertices()[eb.head] - b0;
                let n = da.cross(&db);
                let len = n.norm();
                if len <= 1e-6 * da.norm() * db.norm() {
                    return None;
                }
                let n = if n.dot(&c.normal) >= 0.0 { n } else { -n } / len;
                Some(n.dot(&(b0 - a0)))
            }
            Features3::Bodies => None,
        }
    }

    /// A vertex of one body inside another at the trial pose (deeper than
    /// [`CORRECTION_TOLERANCE`] under every face plane) is a violation; for PEG its
    /// vertex–face contact with the face it is least deep under joins the pool (measured at
    /// the current configuration, so the next round re-measures and corrects it).
    /// For PEG also any pair whose exact intersection volume at the trial pose exceeds
    /// [`TRIAL_OVERLAP_TOLERANCE`] (e.g. crossing edges with no vertex inside, which the
    /// vertex test cannot see) is a violation and gets one whole-body contact (the corrective
    /// detector's, measured at the trial pose) whose gap is shifted by `−h Gᵀν` so that its
    /// linearisation is taken about the trial pose: the re-solve then asks
    /// `ψ_trial + h Gᵀ(ν_new − ν) ≥ 0`. A pair that already has its cut keeps it (same point,
    /// normal and Jacobian) and its gap is lowered by the cut's linearisation error, the depth
    /// measured at this trial pose less `ψ + h Gᵀν`. (Until 28 Nov each round replaced the
    /// cut by one measured at its own trial pose, but the rebuilt set took only the new gap:
    /// the new cut's gap on the first cut's Jacobian, a constraint of neither pose. Pairs of the
    /// 3D pile of 125 bodies kept the same overlap, 6.4e-8 m³, through all eight rounds.)
    fn refresh(
        params: &WorldParams,
        bodies: &[PolyBody],
        now: &Geometry3,
        trial: &Geometry3,
        velocities: &[Vec6],
        pool: &mut ContactPool<ContactKey3, Contact3>,
    ) -> bool {
        let eps = Self::detection_distance(params);
        let peg = params.model == ContactModel::Peg;
        let states = states(bodies);
        let mut violated = false;
        for (i, j) in Self::candidate_pairs(bodies, now, trial, eps) {
            for (a, b) in [(i, j), (j, i)] {
                let (ta, tb) = (&trial.shapes[a], &trial.shapes[b]);
                for (v, p) in ta.vertices().iter().enumerate() {
                    let (face, depth) = tb.max_face_distance(p);
                    if depth >= -CORRECTION_TOLERANCE {
                        continue;
                    }
                    violated = true;
                    let key = (a, b, Features3::VertexFace { vertex: v, face });
                    if peg && !pool.contains_key(&key) {
                        let c = vertex_face_contact(
                            (a, b),
                            (&now.shapes[a], &now.shapes[b]),
                            (v, face),
                            &states,
                        );
                        pool.insert(key, c);
                    }
                }
            }
            if !peg || !overlaps_beyond_tolerance(&trial.shapes[i], &trial.shapes[j]) {
                continue;
            }
            violated = true;
            let h = params.h;
            for mut c in corrective_contacts3(&states, &trial.shapes, &[(i, j)]) {
                if let Some(cut) = pool.get_mut(&Self::key(&c)) {
                    // The pair has its cut: keep its normal and Jacobian and lower its gap by
                    // its linearisation error, the depth measured now less the depth the cut
                    // predicted (as every feature contact's gap is lowered).
                    let linear = cut.gap + h * cut.jacobian.dot_velocity(|k| velocities[k]);
                    cut.gap += (c.gap - linear).min(0.0);
                    continue;
                }
                c.gap -= h * c.jacobian.dot_velocity(|k| velocities[k]);
                pool.insert(Self::key(&c), c);
            }
        }
        violated
    }

    /// PEG: every candidate pair whose exact intersection volume exceeds
    /// [`TRIAL_OVERLAP_TOLERANCE`] while none of the set's constraints between the two bodies
    /// is violated beyond [`CORRECTION_TOLERANCE`] gets the corrective detector's whole-body
    /// contacts, measured at `geometry`. PEG's constraints are built for configurations that
    /// do not interpenetrate: once two bodies do (crossed edges with no vertex inside, whose
    /// edge–edge gap reads positive once the edges have passed each other, or an I- or
    /// X-constraint one of whose members still reads positive), they may all read satisfied
    /// (3D pile of 64 bodies, step 96: 9.1e-6 m³ with every constraint at ≥ −7e-14 m).
    /// Other models detect by overlap already.
    fn unseen(
        params: &WorldParams,
        bodies: &[PolyBody],
        geometry: &Geometry3,
        set: &ConstraintSet<Contact3>,
    ) -> Vec<Contact3> {
        let missed = unseen_pairs::<Self, 6>(params, bodies, geometry, set, |i, j| {
            overlaps_beyond_tolerance(&geometry.shapes[i], &geometry.shapes[j])
        });
        if missed.is_empty() {
            return Vec::new();
        }
        corrective_contacts3(&states(bodies), &geometry.shapes, &missed)
    }

    fn kinetic_energy(b: &PolyBody, v: &Vec6) -> Real {
        let lin = v.fixed_rows::<3>(0);
        let ang = v.fixed_rows::<3>(3).into_owned();
        0.5 * b.state.mass * lin.norm_squared() + 0.5 * ang.dot(&(b.state.world_inertia() * ang))
    }

    fn turn_rate(v: &Vec6) -> Real {
        v.fixed_rows::<3>(3).norm()
    }

    fn integrate(b: &mut PolyBody, v: &Vec6, h: Real) {
        if v.iter().all(|x| x.is_finite()) {
            b.state.set_velocity(v);
        }
        b.state.integrate_position(h);
    }

    fn set_velocity(b: &mut PolyBody, v: &Vec6) {
        b.state.set_velocity(v);
    }

    fn kinematic_state(b: &PolyBody) -> Vec<Real> {
        let s = &b.state;
        let q = s.orientation.quaternion();
        let mut out = vec![s.position.x, s.position.y, s.position.z, q.w, q.i, q.j, q.k];
        out.extend(s.linear_velocity.iter().chain(s.angular_velocity.iter()));
        out
    }

    fn set_kinematic_state(b: &mut PolyBody, s: &[Real]) -> Result<(), &'static str> {
        if s.len() != 13 {
            return Err("a 3D body's state has 13 numbers [x, y, z, qw, qx, qy, qz, v, omega]");
        }
        if !s.iter().all(|x| x.is_finite()) {
            return Err("a number is not finite");
        }
        let q = nalgebra::Quaternion::new(s[3], s[4], s[5], s[6]);
        if (q.norm() - 1.0).abs() > 1e-12 {
            return Err("the orientation quaternion is not of norm 1");
        }
        let st = &mut b.state;
        st.position = Vec3::new(s[0], s[1], s[2]);
        // The stored quaternion is the body's own (norm 1 to round-off): kept bit for bit.
        st.orientation = Quat::new_unchecked(q);
        st.linear_velocity = Vec3::new(s[7], s[8], s[9]);
        st.angular_velocity = Vec3::new(s[10], s[11], s[12]);
        Ok(())
    }
}

#[cfg(test)]
mod unseen_tests {
    use super::*;
    use signorini_contact::PairConstraint;

    fn cube_at(z: Real) -> PolyBody {
        let shape = ConvexPolyhedron::cuboid(Vec3::new(0.5, 0.5, 0.5)).unwrap();
        PolyBody::dynamic(shape, 1.0, Mat3::identity() / 6.0)
            .unwrap()
            .with_pose(Vec3::new(0.0, 0.0, z), Quat::identity())
    }

    /// The position projection's safety net (`Space::unseen`): an overlap gets corrective
    /// contacts unless one of the set's constraints on the pair is violated; an I-constraint
    /// with one negative member but a non-negative largest member does not count as violated.
    #[test]
    fn overlaps_no_constraint_reports_get_corrective_contacts() {
        let params = WorldParams::new(ContactModel::Peg, 0.01);
        let bodies = vec![cube_at(0.0), cube_at(0.9)]; // 0.1 m³ of overlap
        let g = Spatial::geometry(&bodies);
        let empty = ConstraintSet::<Contact3>::default();
        let extra = Spatial::unseen(&params, &bodies, &g, &empty);
        assert!(!extra.is_empty());
        assert!(extra.iter().all(|c| c.gap < -CORRECTION_TOLERANCE));
        assert!(extra.iter().all(|c| (c.a.min(c.b), c.a.max(c.b)) == (0, 1)));

        // The same contacts as one I-constraint whose largest member reads +0.1 m: unseen.
        let mut member = extra[0].clone();
        member.gap = 0.1;
        let grouped = ConstraintSet::<Contact3> {
            contacts: vec![extra[0].clone(), member],
            inter: vec![PairConstraint {
                primary: 0,
                secondaries: vec![1],
                co_primaries: Vec::new(),
            }],
            ..Default::default()
        };
        assert!(!Spatial::unseen(&params, &bodies, &g, &grouped).is_empty());
        // As a U-constraint it is violated: seen, nothing added.
        let violated = ConstraintSet::<Contact3> {
            contacts: vec![extra[0].clone()],
            unilateral: vec![0],
            ..Default::default()
        };
        assert!(Spatial::unseen(&params, &bodies, &g, &violated).is_empty());

        // Apart: nothing; another model: nothing.
        let apart = vec![cube_at(0.0), cube_at(1.2)];
        let ga = Spatial::geometry(&apart);
        assert!(Spatial::unseen(&params, &apart, &ga, &empty).is_empty());
        let standard = WorldParams::new(ContactModel::Standard, 0.01);
        assert!(Spatial::unseen(&standard, &bodies, &g, &empty).is_empty());
    }

    /// A gap-correction round at a trial pose where a pair with a whole-body cut still
    /// overlaps keeps that cut (normal, point, Jacobian) and lowers its gap by its
    /// linearisation error; a pair without one gets a cut measured at the trial pose.
    #[test]
    fn a_whole_body_cut_keeps_its_jacobian_and_is_lowered_by_its_error() {
        let params = WorldParams::new(ContactModel::Peg, 0.01);
        let bodies = vec![cube_at(0.0), cube_at(0.9)]; // 0.1 m deep along z
        let g = Spatial::geometry(&bodies);
        let v = vec![Vec6::zeros(); 2];
        // No cut yet: one is measured at the trial pose (ν = 0: its gap is the depth there).
        let mut pool = ContactPool::new();
        assert!(Spatial::refresh(&params, &bodies, &g, &g, &v, &mut pool));
        let fresh: Vec<&Contact3> = pool
            .sorted()
            .map(|(_, c)| c)
            .filter(|c| matches!(c.features, Features3::Bodies))
            .collect();
        assert_eq!(fresh.len(), 1);
        let depth = fresh[0].gap;
        assert!(depth < -CORRECTION_TOLERANCE);
        // The pair's cut from an earlier round, along x, satisfied to the letter (ψ = 0).
        let earlier = Contact3::new(
            (fresh[0].a, fresh[0].b),
            Features3::Bodies,
            (fresh[0].point, Vec3::new(1.0, 0.0, 0.0), 0.0),
            1.0,
            &states(&bodies),
        );
        let mut pool = ContactPool::new();
        pool.insert(Spatial::key(&earlier), earlier.clone());
        assert!(Spatial::refresh(&params, &bodies, &g, &g, &v, &mut pool));
        let kept = pool
            .get(&Spatial::key(&earlier))
            .expect("the earlier contact is kept");
        assert_eq!(kept.normal, earlier.normal);
        assert_eq!(kept.point, earlier.point);
        assert_eq!(kept.jacobian, earlier.jacobian);
        assert_eq!(kept.gap, depth);
    }

    /// A gap-correction round that appends contacts as U-constraints grows the problem; the
    /// stored basis's unknowns are found in it (`basis::embedding`): the grown reduced LCP
    /// restricted to them is the old one, entry for entry, frictionless and with friction.
    #[test]
    fn a_grown_sets_unknowns_embed_the_old_ones() {
        use crate::basis::{embedding, keyed_unknowns};
        use signorini_contact::Formulation;
        let bodies = vec![cube_at(0.0), cube_at(0.999)];
        let g = Spatial::geometry(&bodies);
        let st = states(&bodies);
        let vf = |v: usize, f: usize| {
            vertex_face_contact((1, 0), (&g.shapes[1], &g.shapes[0]), (v, f), &st)
        };
        // Old set: two U's and one I-constraint with one secondary.
        let old = ConstraintSet::<Contact3> {
            contacts: vec![vf(0, 0), vf(1, 0), vf(2, 0), vf(3, 0)],
            unilateral: vec![0, 1],
            inter: vec![PairConstraint {
                primary: 2,
                secondaries: vec![3],
                co_primaries: Vec::new(),
            }],
            ..Default::default()
        };
        let mut pool: ContactPool<ContactKey3, Contact3> = old
            .contacts
            .iter()
            .map(|c| (Spatial::key(c), c.clone()))
            .collect();
        for c in [vf(4, 0), vf(5, 0)] {
            pool.insert(Spatial::key(&c), c);
        }
        let params = WorldParams::new(ContactModel::Peg, 0.01);
        let new = Spatial::rebuild(&params, &bodies, &old, &pool);
        assert_eq!(new.contacts.len(), 6);
        let free = vec![Vec6::zeros(); 2];
        for (mu, directions) in [(0.0, 8), (0.5, 8), (0.5, 4)] {
            let fo = Formulation::build_with_directions(&old, 0.01, mu, directions);
            let fn_ = Formulation::build_with_directions(&new, 0.01, mu, directions);
            let (uo, un) = (
                keyed_unknowns(&fo, &old, Spatial::key),
                keyed_unknowns(&fn_, &new, Spatial::key),
            );
            let map = embedding(&uo, &un).unwrap();
            let (lo, ln) = (
                fo.reduced_lcp(&bodies, &free).unwrap(),
                fn_.reduced_lcp(&bodies, &free).unwrap(),
            );
            for i in 0..fo.dim() {
                for j in 0..fo.dim() {
                    assert_eq!(lo.m[(i, j)], ln.m[(map[i], map[j])], "mu {mu}: ({i}, {j})");
                }
            }
            // Nothing embeds in a smaller problem.
            assert!(embedding(&un, &uo).is_none());
        }
        let regrouped = ConstraintSet::<Contact3> {
            unilateral: vec![0, 1, 2, 3, 4, 5],
            inter: Vec::new(),
            ..new.clone()
        };
        let fo = Formulation::build_with_directions(&old, 0.01, 0.0, 8);
        let fr = Formulation::build_with_directions(&regrouped, 0.01, 0.0, 8);
        let (uo, ur) = (
            keyed_unknowns(&fo, &old, Spatial::key),
            keyed_unknowns(&fr, &regrouped, Spatial::key),
        );
        assert!(embedding(&uo, &ur).is_none());
    }
}
