//! The penalty time step for rigid triangle-mesh bodies (CPF paper §3.3, Eq. 7).
//!
//! Owns: [`PenaltyWorld`] (mesh bodies, parameters, the feature-pair tracker), [`PenaltyParams`],
//! [`PenaltyReport`] and the step. Separate from the Stewart–Trinkle `World` on purpose: penalty
//! contact needs no complementarity solve. Does not own: the impulse formulas
//! (`signorini-penalty`), CCD (`signorini-ccd`), meshes (`signorini-geometry::mesh`).
//!
//! One step of length `h`:
//! 1. **Predict** (Eq. 7): apply the other forces, `ν* = ν + h M⁻¹ F_ext`; move every vertex
//!    linearly from its current world position to its position at the pose reached with `ν*`.
//! 2. **Pairs**: tracked pairs are kept (§3.2); the swept-AABB BVH of `signorini-ccd` gives
//!    candidate vertex–face and edge–edge pairs between bodies (edge–edge pairs skip flat
//!    interior edges, [`MeshBody::edge_is_sharp`]), and the certified CCD finds the
//!    new ones, their collision weights fixed at the first time of contact. A vertex already
//!    inside another closed body at `t = 0` and not tracked against it (initial penetration,
//!    or a tracked pair that slid off its face) is attached to the closest face of that body.
//! 3. **Impulses**: per pair, the model's impulse `J` (continuous, Eq. 8; or the discrete
//!    variants: closest point at the current positions, i.e. symplectic Euler; CCD-tracked at
//!    `t = 1`, Fig. 8b) plus friction (§3.6). For a rigid body the vertex impulses `cᵢ J` gather into a
//!    force and a torque about the centre of mass; we apply `J` and `−J` at one common point
//!    (the midpoint of the collision points at the middle of the penetration time), which
//!    leaves the pair's net force unchanged and conserves angular momentum exactly.
//! 4. **Correct** momenta (`ν = ν* + M⁻¹ Σ I`) and integrate the pose.
//! 5. **Track**: a pair stays colliding while its depth at the new positions is positive.

mod body;
pub mod query;

pub use body::MeshBody;

use signorini_ccd::bvh::{MeshBvh, mesh_pairs};
use signorini_dynamics::{BodyError, RigidBody3};
use signorini_geometry::mesh::{MeshError, mass::MassError};
use signorini_math::{Real, Vec3, Vec6};
use signorini_penalty::pair::{Kind, Trajectory, separation_coeffs};
use signorini_penalty::{
    ForceModel, Friction, PairKey, Tracked, Tracker, depth_at, detect, friction_impulse,
    tracked_impulse,
};
use std::collections::{BTreeMap, BTreeSet};

/// Why a penalty world or body cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PenaltyError {
    /// Mass properties failed (open mesh, bad density).
    #[error("mass properties: {0}")]
    Mass(#[from] MassError),
    /// The mesh is invalid.
    #[error("mesh: {0}")]
    Mesh(#[from] MeshError),
    /// The rigid body is invalid.
    #[error("body: {0}")]
    Body(#[from] BodyError),
    /// A parameter is out of range.
    #[error("parameter `{field}` = {value}: {reason}")]
    Param {
        /// Parameter name.
        field: &'static str,
        /// Its value.
        value: Real,
        /// What is required.
        reason: &'static str,
    },
}

/// Parameters of the penalty step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PenaltyParams {
    /// Step size (s).
    pub h: Real,
    /// Penalty stiffness `k` per feature pair (N/m).
    pub stiffness: Real,
    /// Force model.
    pub model: ForceModel,
    /// Friction coefficients.
    pub friction: Friction,
    /// Also measure the model-independent penetration (deepest vertex inside another closed
    /// body, by closest point) after every step; costs `O(V·F)` per body pair.
    pub measure_penetration: bool,
}

impl PenaltyParams {
    /// Parameters with no friction and no penetration measurement.
    pub fn new(model: ForceModel, h: Real, stiffness: Real) -> Self {
        PenaltyParams {
            h,
            stiffness,
            model,
            friction: Friction::NONE,
            measure_penetration: false,
        }
    }
}

/// What one step did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PenaltyReport {
    /// Feature pairs that received an impulse evaluation (tracked plus new; DPF: penetrating
    /// vertices).
    pub pairs: usize,
    /// Pairs that started being tracked this step (CCD contacts and initial penetrations).
    pub new_pairs: usize,
    /// Pairs still penetrating at the end of the step (tracked on).
    pub penetrating_pairs: usize,
    /// Largest depth of those pairs at the end of the step (m).
    pub max_depth: Real,
    /// Deepest vertex inside another closed body after the step (m), if measured.
    pub max_penetration: Real,
    /// Sum over dynamic bodies of the magnitude of their net contact force (N).
    pub contact_force: Real,
}

/// Rigid mesh bodies under penalty contact.
#[derive(Clone, Debug)]
pub struct PenaltyWorld {
    /// The bodies.
    pub bodies: Vec<MeshBody>,
    params: PenaltyParams,
    tracker: Tracker,
    time: Real,
}

/// World positions of every body at the start and end of the step.
struct Sweep {
    x0: Vec<Vec<Vec3>>,
    x1: Vec<Vec<Vec3>>,
}

/// One pair's impulse `J` on body `a` (and `−J` on body `b`) at the point `at`.
struct Hit {
    a: usize,
    b: usize,
    j: Vec3,
    at: Vec3,
}

/// Per-body accumulated linear and angular impulse.
type Acc = Vec<(Vec3, Vec3)>;

impl PenaltyWorld {
    /// A world with the given bodies.
    ///
    /// # Errors
    /// [`PenaltyError::Param`] unless `h` and the stiffness are finite and positive and the
    /// friction coefficients finite and non-negative.
    pub fn new(bodies: Vec<MeshBody>, params: PenaltyParams) -> Result<Self, PenaltyError> {
        let check = |field, value: Real, pos: bool| {
            let ok = value.is_finite() && if pos { value > 0.0 } else { value >= 0.0 };
            if ok {
                Ok(())
            } else {
                Err(PenaltyError::Param {
                    field,
                    value,
                    reason: if pos {
                        "must be finite and > 0"
                    } else {
                        "must be finite and ≥ 0"
                    },
                })
            }
        };
        check("h", params.h, true)?;
        check("stiffness", params.stiffness, true)?;
        check("friction.mu", params.friction.mu, false)?;
        check("friction.viscous", params.friction.viscous, false)?;
        Ok(PenaltyWorld {
            bodies,
            params,
            tracker: Tracker::new(),
            time: 0.0,
        })
    }

    /// Parameters.
    pub fn params(&self) -> &PenaltyParams {
        &self.params
    }

    /// Simulated time (s).
    pub fn time(&self) -> Real {
        self.time
    }

    /// Number of tracked (colliding) pairs.
    pub fn tracked_pairs(&self) -> usize {
        self.tracker.len()
    }

    /// Total linear momentum of the dynamic bodies.
    pub fn linear_momentum(&self) -> Vec3 {
        self.bodies
            .iter()
            .filter(|b| !b.state.is_static)
            .map(|b| b.state.mass * b.state.linear_velocity)
            .sum()
    }

    /// Total angular momentum of the dynamic bodies about the origin.
    pub fn angular_momentum(&self) -> Vec3 {
        self.bodies
            .iter()
            .filter(|b| !b.state.is_static)
            .map(|b| {
                let s = &b.state;
                s.position.cross(&(s.mass * s.linear_velocity))
                    + s.world_inertia() * s.angular_velocity
            })
            .sum()
    }

    /// Advance one step (see the module docs).
    pub fn step(&mut self) -> PenaltyReport {
        let h = self.params.h;
        let mut report = PenaltyReport::default();
        // Block 1: predicted velocities and the linear vertex sweep.
        let free: Vec<Vec6> = self
            .bodies
            .iter()
            .map(|b| b.state.free_velocity(h))
            .collect();
        let sweep = self.sweep(&free);
        // Blocks 2–3: pairs and impulses.
        let mut acc: Acc = vec![(Vec3::zeros(), Vec3::zeros()); self.bodies.len()];
        let active = match self.params.model {
            ForceModel::Dpf => {
                self.discrete_impulses(&sweep, &free, &mut acc, &mut report);
                BTreeMap::new()
            }
            _ => {
                let active = self.gather_pairs(&sweep, &mut report);
                self.continuous_impulses(&active, &sweep, &free, &mut acc);
                active
            }
        };
        report.pairs = report.pairs.max(active.len());
        // Block 4: momentum correction and pose update.
        for (b, (nu, (lin, ang))) in self.bodies.iter_mut().zip(free.iter().zip(&acc)) {
            if b.state.is_static {
                continue;
            }
            report.contact_force += lin.norm() / h;
            b.state.set_velocity(nu);
            b.state.apply_impulse(lin, ang);
            b.state.integrate_position(h);
        }
        // Block 5: keep the pairs still penetrating at the new positions.
        self.update_tracker(active, &mut report);
        if self.params.measure_penetration {
            report.max_penetration = self.penetration();
        }
        self.time += h;
        report
    }

    fn sweep(&self, free: &[Vec6]) -> Sweep {
        let h = self.params.h;
        let mut x0 = Vec::with_capacity(self.bodies.len());
        let mut x1 = Vec::with_capacity(self.bodies.len());
        for (b, nu) in self.bodies.iter().zip(free) {
            let mut s: RigidBody3 = b.state.clone();
            s.set_velocity(nu);
            s.integrate_position(h);
            x0.push(b.world_vertices());
            x1.push(b.vertices_at(&s));
        }
        Sweep { x0, x1 }
    }

    /// Body index pairs `(i, j)`, `i < j`, not both static, whose swept bounds overlap.
    fn body_pairs(&self, sw: &Sweep) -> Vec<(usize, usize)> {
        let bounds: Vec<_> = (0..self.bodies.len())
            .map(|i| {
                let (a, b) = (query::bounds(&sw.x0[i]), query::bounds(&sw.x1[i]));
                (a.0.inf(&b.0), a.1.sup(&b.1))
            })
            .collect();
        let mut out = Vec::new();
        for i in 0..self.bodies.len() {
            for j in i + 1..self.bodies.len() {
                let both_static = self.bodies[i].state.is_static && self.bodies[j].state.is_static;
                let (a, b) = (&bounds[i], &bounds[j]);
                let overlap = (0..3).all(|k| a.0[k] <= b.1[k] && b.0[k] <= a.1[k]);
                if overlap && !both_static {
                    out.push((i, j));
                }
            }
        }
        out
    }

    /// The four vertex trajectories of a pair.
    fn trajectory(&self, key: &PairKey, sw: &Sweep) -> Trajectory {
        let ((ba, fa), (bb, fb)) = (key.first, key.second);
        let (ba, bb) = (ba as usize, bb as usize);
        let ids: [(usize, u32); 4] = match key.kind {
            Kind::VertexFace => {
                let t = self.bodies[bb].mesh().triangles()[fb as usize];
                [(ba, fa), (bb, t[0]), (bb, t[1]), (bb, t[2])]
            }
            Kind::EdgeEdge => {
                let e = self.bodies[ba].edges()[fa as usize];
                let f = self.bodies[bb].edges()[fb as usize];
                [(ba, e[0]), (ba, e[1]), (bb, f[0]), (bb, f[1])]
            }
        };
        Trajectory {
            kind: key.kind,
            x0: ids.map(|(b, v)| sw.x0[b][v as usize]),
            x1: ids.map(|(b, v)| sw.x1[b][v as usize]),
        }
    }

    /// Tracked pairs plus the new ones found by CCD and by the initial-penetration test.
    fn gather_pairs(&self, sw: &Sweep, report: &mut PenaltyReport) -> BTreeMap<PairKey, Tracked> {
        let mut active: BTreeMap<PairKey, Tracked> =
            self.tracker.iter().map(|(k, t)| (*k, *t)).collect();
        let mut claimed: BTreeSet<((u32, u32), u32)> = active
            .keys()
            .filter(|k| k.kind == Kind::VertexFace)
            .map(|k| (k.first, k.second.0))
            .collect();
        for (i, j) in self.body_pairs(sw) {
            let bvh = |b: usize| {
                let m = &self.bodies[b];
                signorini_ccd::TriMesh::new(
                    sw.x0[b].clone(),
                    sw.x1[b].clone(),
                    m.mesh().triangles().to_vec(),
                )
                .map(|cm| MeshBvh::build(&cm, 0.0))
            };
            let (Ok(bi), Ok(bj)) = (bvh(i), bvh(j)) else {
                continue;
            };
            let cand = mesh_pairs(&bi, &bj);
            let (iu, ju) = (i as u32, j as u32);
            let mut consider = |key: PairKey, outside: Option<i8>| {
                if active.contains_key(&key) {
                    return;
                }
                if let Some(c) = detect(&self.trajectory(&key, sw), outside) {
                    active.insert(key, c.tracked);
                    if key.kind == Kind::VertexFace {
                        claimed.insert((key.first, key.second.0));
                    }
                    report.new_pairs += 1;
                }
            };
            let out_of = |b: usize| self.bodies[b].mesh().is_closed().then_some(1);
            for &(v, t) in &cand.vertex_face_ab {
                let key = vf_key(iu, v, ju, t);
                consider(key, out_of(j));
            }
            for &(v, t) in &cand.vertex_face_ba {
                consider(vf_key(ju, v, iu, t), out_of(i));
            }
            for &(e, f) in &cand.edge_edge {
                if !self.bodies[i].edge_is_sharp(e as usize)
                    || !self.bodies[j].edge_is_sharp(f as usize)
                {
                    continue;
                }
                let key = PairKey {
                    kind: Kind::EdgeEdge,
                    first: (iu, e),
                    second: (ju, f),
                };
                consider(key, None);
            }
            for (a, b) in [(i, j), (j, i)] {
                self.initial_penetrations(a, b, sw, &mut claimed, &mut active, report);
            }
        }
        active
    }

    /// Vertices of body `a` inside closed body `b` at `t = 0` with no VF pair against `b`:
    /// attach each to the closest face of `b` (collision point = closest point, outside = +1).
    fn initial_penetrations(
        &self,
        a: usize,
        b: usize,
        sw: &Sweep,
        claimed: &mut BTreeSet<((u32, u32), u32)>,
        active: &mut BTreeMap<PairKey, Tracked>,
        report: &mut PenaltyReport,
    ) {
        let mesh_b = self.bodies[b].mesh();
        if !mesh_b.is_closed() {
            return;
        }
        let tris = mesh_b.triangles();
        let bbox = query::bounds(&sw.x0[b]);
        for (v, p) in sw.x0[a].iter().enumerate() {
            let id = (a as u32, v as u32);
            if claimed.contains(&(id, b as u32))
                || !query::in_box(p, &bbox)
                || !query::inside(p, &sw.x0[b], tris)
            {
                continue;
            }
            let (t, w, _, _) = query::closest_point(p, &sw.x0[b], tris);
            let key = vf_key(a as u32, v as u32, b as u32, t as u32);
            let tracked = Tracked {
                coeffs: separation_coeffs(Kind::VertexFace, &w),
                outside: 1,
            };
            active.insert(key, tracked);
            claimed.insert((id, b as u32));
            report.new_pairs += 1;
        }
    }

    fn continuous_impulses(
        &self,
        active: &BTreeMap<PairKey, Tracked>,
        sw: &Sweep,
        free: &[Vec6],
        acc: &mut Acc,
    ) {
        let (k, h) = (self.params.stiffness, self.params.h);
        let mut hits = Vec::new();
        for (key, tr) in active {
            let traj = self.trajectory(key, sw);
            let (imp, iv) = tracked_impulse(self.params.model, &traj, tr, k, h);
            if imp.j == Vec3::zeros() {
                continue;
            }
            let t_mid = match (self.params.model, iv.as_slice().first()) {
                (ForceModel::DpfCcd, _) | (_, None) => 1.0,
                (_, Some(first)) => 0.5 * (first[0] + iv.as_slice().last().unwrap_or(first)[1]),
            };
            let (p, q) = traj.points(&tr.coeffs, t_mid);
            hits.push(Hit {
                a: key.first.0 as usize,
                b: key.second.0 as usize,
                j: imp.j,
                at: 0.5 * (p + q),
            });
        }
        self.apply_hits(&hits, free, acc);
    }

    /// Discrete penalty (Eq. 3) at the end positions of the previous step (the current
    /// configuration, `t = 0` of this step): every vertex of a body inside another closed body
    /// gets `h k (q − p)` towards its closest surface point `q`. With the momentum update this
    /// is the explicit penalty method, symplectic Euler in CPF supplementary §C.
    fn discrete_impulses(&self, sw: &Sweep, free: &[Vec6], acc: &mut Acc, rep: &mut PenaltyReport) {
        let (k, h) = (self.params.stiffness, self.params.h);
        let mut hits = Vec::new();
        for (i, j) in self.body_pairs(sw) {
            for (a, b) in [(i, j), (j, i)] {
                let mesh_b = self.bodies[b].mesh();
                if !mesh_b.is_closed() {
                    continue;
                }
                let bbox = query::bounds(&sw.x0[b]);
                for p in &sw.x0[a] {
                    if !query::in_box(p, &bbox) || !query::inside(p, &sw.x0[b], mesh_b.triangles())
                    {
                        continue;
                    }
                    let (_, _, q, d) = query::closest_point(p, &sw.x0[b], mesh_b.triangles());
                    let j = signorini_penalty::discrete::closest_point_impulse(p, &q, k, h);
                    hits.push(Hit {
                        a,
                        b,
                        j,
                        at: 0.5 * (p + q),
                    });
                    rep.pairs += 1;
                    rep.penetrating_pairs += 1;
                    rep.max_depth = rep.max_depth.max(d);
                }
            }
        }
        self.apply_hits(&hits, free, acc);
    }

    /// Apply every pair impulse; friction of the `n` pairs between two bodies is shared
    /// (each capped at `1/n` of what stops the sliding) so together they never reverse it.
    fn apply_hits(&self, hits: &[Hit], free: &[Vec6], acc: &mut Acc) {
        let mut count: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for hit in hits {
            *count
                .entry((hit.a.min(hit.b), hit.a.max(hit.b)))
                .or_default() += 1;
        }
        for hit in hits {
            let n = count[&(hit.a.min(hit.b), hit.a.max(hit.b))];
            self.apply_pair(hit, n as Real, free, acc);
        }
    }

    /// `J` (plus friction) on body `a` at `at`, the opposite on body `b`. The friction cap uses
    /// the effective mass of the contact point along the sliding direction (translation and
    /// rotation of both bodies), divided by the number `n` of pairs sharing it.
    fn apply_pair(&self, hit: &Hit, n: Real, free: &[Vec6], acc: &mut Acc) {
        let (a, b, j, at) = (hit.a, hit.b, hit.j, hit.at);
        let (sa, sb) = (&self.bodies[a].state, &self.bodies[b].state);
        let vel = |s: &RigidBody3, nu: &Vec6| {
            let v = Vec3::new(nu[0], nu[1], nu[2]);
            let w = Vec3::new(nu[3], nu[4], nu[5]);
            v + w.cross(&(at - s.position))
        };
        let v_rel = vel(sa, &free[a]) - vel(sb, &free[b]);
        let n_hat = j.normalize();
        let vt = v_rel - n_hat * n_hat.dot(&v_rel);
        let m_eff = if vt.norm() > 0.0 {
            let t = vt.normalize();
            let inv = |s: &RigidBody3| {
                if s.is_static {
                    return 0.0;
                }
                let r = at - s.position;
                let rt = r.cross(&t);
                1.0 / s.mass + rt.dot(&(s.world_inverse_inertia() * rt))
            };
            let sum = inv(sa) + inv(sb);
            if sum > 0.0 {
                1.0 / (n * sum)
            } else {
                Real::INFINITY
            }
        } else {
            Real::INFINITY
        };
        let total = j + friction_impulse(&self.params.friction, &j, &v_rel, self.params.h, m_eff);
        for (body, sign) in [(a, 1.0), (b, -1.0)] {
            let s = &self.bodies[body].state;
            acc[body].0 += sign * total;
            acc[body].1 += (at - s.position).cross(&(sign * total));
        }
    }

    fn update_tracker(&mut self, active: BTreeMap<PairKey, Tracked>, report: &mut PenaltyReport) {
        let x: Vec<Vec<Vec3>> = self.bodies.iter().map(|b| b.world_vertices()).collect();
        let now = Sweep {
            x0: x.clone(),
            x1: x,
        };
        let mut tracker = Tracker::new();
        for (key, tr) in active {
            let depth = depth_at(&self.trajectory(&key, &now), &tr.coeffs, tr.outside, 0.0);
            if depth > 0.0 {
                report.penetrating_pairs += 1;
                report.max_depth = report.max_depth.max(depth);
                tracker.insert(key, tr);
            }
        }
        self.tracker = tracker;
    }

    /// Deepest vertex of any body inside another closed body (closest-point distance).
    fn penetration(&self) -> Real {
        let x: Vec<Vec<Vec3>> = self.bodies.iter().map(|b| b.world_vertices()).collect();
        let sw = Sweep {
            x0: x.clone(),
            x1: x,
        };
        let mut worst: Real = 0.0;
        for (i, j) in self.body_pairs(&sw) {
            for (a, b) in [(i, j), (j, i)] {
                let mesh_b = self.bodies[b].mesh();
                if !mesh_b.is_closed() {
                    continue;
                }
                let bbox = query::bounds(&sw.x0[b]);
                for p in &sw.x0[a] {
                    if query::in_box(p, &bbox) && query::inside(p, &sw.x0[b], mesh_b.triangles()) {
                        worst = worst.max(query::closest_point(p, &sw.x0[b], mesh_b.triangles()).3);
                    }
                }
            }
        }
        worst
    }
}

fn vf_key(body_v: u32, v: u32, body_t: u32, t: u32) -> PairKey {
    PairKey {
        kind: Kind::VertexFace,
        first: (body_v, v),
        second: (body_t, t),
    }
}
