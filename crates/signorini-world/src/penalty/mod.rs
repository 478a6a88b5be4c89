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
//!    **Corrective passes** ([`CORRECTIVE_PASSES`]): after the impulses of step 3, the collision
//!    stage runs again on the sweep to the pose the corrected velocities reach; pairs that only
//!    the impulses brought into contact (a torus pushed into the floor by the torus landing on
//!    it) get their impulses on that sweep, until a pass finds nothing new.
//! 3. **Impulses**: per pair, the model's impulse `J` (continuous, Eq. 8; or the discrete
//!    variants: closest point at the current positions, i.e. symplectic Euler; CCD-tracked at
//!    `t = 1`, Fig. 8b) plus friction (§3.6). For a rigid body the vertex impulses `cᵢ J` gather into a
//!    force and a torque about the centre of mass; we apply `J` and `−J` at one common point
//!    (the midpoint of the collision points at the middle of the penetration time), which
//!    leaves the pair's net force unchanged and conserves angular momentum exactly.
//! 4. **Correct** momenta (`ν = ν* + M⁻¹ Σ I`) and integrate the pose.
//! 5. **Track**: a pair stays colliding while its depth at the new positions is positive.

mod body;
pub mod collide;
pub mod deformable;
mod implicit;

pub use body::MeshBody;
pub use deformable::{DeformableWorld, Obstacle, PairRecord};

use collide::Object;
use signorini_contact::DofBody;
use signorini_dynamics::{BodyError, Gyroscopic, RigidBody3};
use signorini_geometry::mesh::{MeshError, mass::MassError, query};
use signorini_math::{Real, Vec3, Vec6};
use signorini_penalty::{
    ForceModel, Friction, PairKey, Tracked, Tracker, friction_impulse, tracked_impulse_thick,
};
use std::collections::BTreeMap;

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
    /// A control input (`set_velocity`, `apply_wrench`, `set_vertex_velocity`,
    /// `apply_vertex_force`) was refused.
    #[error("control of {what} {index}: {reason}")]
    Control {
        /// `body`, `rigid body`, `deformable` or `vertex`.
        what: &'static str,
        /// Its index.
        index: usize,
        /// Why: no such object, static or pinned, or a non-finite value.
        reason: &'static str,
    },
    /// A rigid body given to `DeformableWorld::with_rigid` is not usable there.
    #[error("rigid body {index}: {reason}")]
    Rigid {
        /// Its index in the list given.
        index: usize,
        /// Why.
        reason: &'static str,
    },
}

/// The state of dynamic body `id` of `bodies` (`what` names it in errors).
fn dynamic_state<'a>(
    bodies: &'a mut [MeshBody],
    what: &'static str,
    index: usize,
) -> Result<&'a mut RigidBody3, PenaltyError> {
    let refuse = |reason| PenaltyError::Control {
        what,
        index,
        reason,
    };
    match bodies.get_mut(index) {
        None => Err(refuse("no such body")),
        Some(b) if b.state.is_static => Err(refuse("static body")),
        Some(b) => Ok(&mut b.state),
    }
}

/// Set a dynamic rigid body's velocity if finite.
fn set_rigid_velocity(
    s: &mut RigidBody3,
    what: &'static str,
    index: usize,
    linear: Vec3,
    angular: Vec3,
) -> Result<(), PenaltyError> {
    if !linear.iter().chain(angular.iter()).all(|x| x.is_finite()) {
        return Err(PenaltyError::Control {
            what,
            index,
            reason: "non-finite velocity",
        });
    }
    s.linear_velocity = linear;
    s.angular_velocity = angular;
    Ok(())
}

/// `ν ← ν + h M⁻¹ (f, τ)` of a dynamic rigid body, if the wrench is finite.
fn push_rigid(
    s: &mut RigidBody3,
    what: &'static str,
    index: usize,
    force: Vec3,
    torque: Vec3,
    h: Real,
) -> Result<(), PenaltyError> {
    if !force.iter().chain(torque.iter()).all(|x| x.is_finite()) {
        return Err(PenaltyError::Control {
            what,
            index,
            reason: "non-finite wrench",
        });
    }
    let w = Vec6::new(force.x, force.y, force.z, torque.x, torque.y, torque.z);
    let v = s.velocity() + s.inverse_mass_block().mul(&w) * h;
    s.set_velocity(&v);
    Ok(())
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
    /// Contact thickness (collision tolerance) `d` (m): a pair is in contact while its depth
    /// `d − σ m̂·s` is positive, so forces start `d` before the features meet. 0 = the paper's
    /// plain CPF. Pairs count as penetrating in the report only when the features really
    /// interpenetrate (`−σ m̂·s > 0`).
    pub thickness: Real,
    /// Also measure the model-independent penetration (deepest vertex inside another closed
    /// body, by closest point) after every step; costs `O(V·F)` per body pair.
    pub measure_penetration: bool,
    /// Per-vertex stability limit `a_max` of the contact stiffness (deformables only; default
    /// [`DEFAULT_VERTEX_STIFFNESS_LIMIT`]; 0 = off, the paper's plain accumulation of Eqs. 13
    /// and 17). CPF's 1D stability condition
    /// (supplementary §C) is `k Δt² / m < 2`; a vertex touched by `q` pairs feels
    /// `aᵢ = Σ_pairs k cᵢ² Δt² wᵢ`, which on a thick contact skin reaches 2–9 (up to 49 pairs
    /// on one vertex in the cloth-tori scene) and makes the force chatter at period two. With a
    /// limit, each pair's impulse (and friction) is scaled by `min(1, a_max / aᵢ)` over its
    /// vertices — the same factor on both sides, so momentum is conserved. This is the
    /// penalty analogue of mass splitting (Tonge, Benevolenski, Voroshilov 2012) and a
    /// departure from the paper; see docs/deformable.md.
    pub vertex_stiffness_limit: Real,
    /// Deformable stepper, tracked-pair models (CPF, DPF-CCD): correct the pair impulses for
    /// the contact stiffness over the step, linearly implicitly (`implicit::solve`), instead
    /// of limiting the per-vertex stiffness (the limit then scales only friction). The discrete
    /// closest-point model (`Dpf`) stays explicit, as it has no limit either. Default `false`
    /// (explicit, the paper's scheme plus the limit). A departure from the paper, which
    /// integrates explicitly; see docs/deformable.md.
    pub implicit_contact: bool,
    /// Deformable stepper, tracked-pair models: pairs whose collision points coincide share
    /// one contact's impulse (see [`coincident_shares`](deformable::coincident_shares)). A
    /// vertex–vertex or vertex–edge contact is found as many vertex–face and edge–edge pairs
    /// (up to 49 in the cloth-and-tori scene: 6 + 6 vertex–face pairs and 36 edge–edge pairs
    /// of the two vertices' edges), all with the same collision points, normal and depth;
    /// summed, they make that one contact up to 49 times as stiff as a pair, far past CPF's
    /// explicit bound, and plain CPF diverged there (docs/deformable.md, "Why plain CPF
    /// diverged"). With this on, each pair's impulse is divided by the number of pairs whose
    /// collision points on both sides lie within the contact thickness of its own (the same
    /// factor on both sides, so momentum is conserved; a pair with no such neighbour is
    /// exactly the paper's). Default `false`: the paper's plain sum over pairs (with the
    /// per-vertex limit on, sharing made the default runs rougher; see the docs).
    pub share_coincident_pairs: bool,
    /// Deformable stepper: apply [`Self::vertex_stiffness_limit`] to the discrete
    /// closest-point model (`Dpf`) too, with its contacts' weights (`1` on the vertex,
    /// `−wₙ` on the triangle's corners) in `aᵢ`. Default `false`: the paper's discrete
    /// baseline has no limit.
    pub dpf_vertex_stiffness_limit: bool,
    /// How the rigid bodies' free-flight velocity carries the gyroscopic torque −ω × Jω
    /// (`signorini_dynamics::Gyroscopic`; default the body-frame implicit midpoint rule, as
    /// `WorldParams::gyroscopic`).
    pub gyroscopic: Gyroscopic,
}

impl PenaltyParams {
    /// Parameters with no friction and no penetration measurement.
    pub fn new(model: ForceModel, h: Real, stiffness: Real) -> Self {
        PenaltyParams {
            h,
            stiffness,
            model,
            friction: Friction::NONE,
            thickness: 0.0,
            measure_penetration: false,
            vertex_stiffness_limit: DEFAULT_VERTEX_STIFFNESS_LIMIT,
            implicit_contact: false,
            share_coincident_pairs: false,
            dpf_vertex_stiffness_limit: false,
            gyroscopic: Gyroscopic::default(),
        }
    }
}

/// Default [`PenaltyParams::vertex_stiffness_limit`]: half of CPF's 1D stability bound
/// `k Δt²/m < 2`. Measured on `signorini experiment cloth-tori` (small, CPF, Δt = 1/30 s):
/// jitter 0.118 without a limit, 0.040 / 0.0157 / 0.0152 / 0.0121 with 1.5 / 1 / 0.5 / 0.25,
/// and 0, 0, 0, 37 edge–triangle pairs crossing at the end (a low limit softens the contact).
pub const DEFAULT_VERTEX_STIFFNESS_LIMIT: Real = 1.0;

/// A predicted vertex displacement above this many times the diagonal of the world's bounding
/// box in one step counts as divergence ([`PenaltyReport::diverged`]).
pub const DIVERGENCE_FACTOR: Real = 1000.0;

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
    /// `DeformableWorld` only: sum over the static obstacles of the magnitude of the net
    /// contact force on each (N): the reaction of the impulses the moving objects received
    /// from pairs with it, friction included (0 for `PenaltyWorld`).
    pub obstacle_force: Real,
    /// The explicit integration diverged: a deformable's or rigid body's state became NaN or
    /// infinite in this step, or (`DeformableWorld`) the predicted motion would carry a vertex
    /// farther than
    /// [`DIVERGENCE_FACTOR`] times the world's size in one step (the step is then not taken:
    /// colliding such a sweep would cost `O(n²)` pairs). Reduce `h` or the stiffness, or raise
    /// the sub-steps. Drivers stop the run and report it.
    pub diverged: bool,
    /// Relative residual `|b − A Δv| / |b|` of the implicit contact correction
    /// ([`PenaltyParams::implicit_contact`]; 0 when it is off or had nothing to solve).
    pub contact_residual: Real,
}

/// Most collision passes on the corrected sweep per step (after the pass on the predicted
/// sweep). A pair's impulse pushes its bodies along a path the predicted sweep never saw: a
/// torus resting on the floor and hit by a second one is pushed into the floor, but its floor
/// pairs were computed (or found absent) on the motion without that push. Unseen, such a
/// penetration is found only at the next step, up to `|Δv| h` deep, and its push back drives
/// the torus into the upper one again, each step deeper (stacked tori: energy 1.8 J → 4e6 J
/// with one pass, 0.77 J with corrective passes). Each corrective pass finds the pairs that
/// the impulses so far bring into contact; a step with no such pair does one extra collision
/// pass and changes nothing (box-on-plane and stick outputs are byte-identical).
pub const CORRECTIVE_PASSES: usize = 4;

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
        check_params(&params)?;
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

    /// Change the penalty stiffness per pair for the next steps (e.g. a stiffness that varies
    /// in time, CPF supplementary §C / paper §3.6); tracked pairs are kept.
    ///
    /// # Errors
    /// [`PenaltyError::Param`] unless `k` is finite and positive (the world is unchanged).
    pub fn set_stiffness(&mut self, k: Real) -> Result<(), PenaltyError> {
        check_params(&PenaltyParams {
            stiffness: k,
            ..self.params
        })?;
        self.params.stiffness = k;
        Ok(())
    }

    /// Simulated time (s).
    pub fn time(&self) -> Real {
        self.time
    }

    /// Control input: set the linear and angular (world-frame) velocity of dynamic body `id`
    /// before the next step.
    ///
    /// # Errors
    /// [`PenaltyError::Control`] for no such body, a static body or a non-finite velocity.
    pub fn set_velocity(
        &mut self,
        id: usize,
        linear: Vec3,
        angular: Vec3,
    ) -> Result<(), PenaltyError> {
        let b = dynamic_state(&mut self.bodies, "body", id)?;
        set_rigid_velocity(b, "body", id, linear, angular)
    }

    /// Control input: apply `force` (N, through the centre of mass) and `torque` (N·m, world
    /// frame) to dynamic body `id` during the next step, on top of its constant external force.
    /// Applied now as the impulse `h (f, τ)`: `ν ← ν + h M⁻¹ (f, τ)`, what the next step's
    /// prediction `ν + h M⁻¹ (F_ext + (f, τ))` would add (up to rounding). Call it before every
    /// step the wrench should act.
    ///
    /// # Errors
    /// [`PenaltyError::Control`] for no such body, a static body or a non-finite wrench.
    pub fn apply_wrench(
        &mut self,
        id: usize,
        force: Vec3,
        torque: Vec3,
    ) -> Result<(), PenaltyError> {
        let h = self.params.h;
        let b = dynamic_state(&mut self.bodies, "body", id)?;
        push_rigid(b, "body", id, force, torque, h)
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
            .map(|b| b.state.free_velocity(h, self.params.gyroscopic))
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
                let objs = self.objects(&sweep);
                let mut active = collide::gather(
                    &objs,
                    &self.tracker,
                    self.params.thickness,
                    &mut collide::BvhCache::default(),
                    &mut report,
                );
                self.continuous_impulses(&active, &sweep, &free, &mut acc);
                self.corrective_passes(&mut active, &free, &mut acc, &mut report);
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
        // `RigidBody3::validate`: every state field finite (pose, velocity, wrench).
        report.diverged = !self.bodies.iter().all(|b| b.state.validate().is_ok());
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

    /// Contacts caused by this step's own impulses (see [`CORRECTIVE_PASSES`]): the collision
    /// stage runs again on the corrected sweep (to the pose reached with `ν* + M⁻¹ ΣI`); the
    /// pairs it finds that are not active yet get their impulses on that sweep and join the
    /// active set. Stops when a pass finds nothing new.
    fn corrective_passes(
        &self,
        active: &mut BTreeMap<PairKey, Tracked>,
        free: &[Vec6],
        acc: &mut Acc,
        report: &mut PenaltyReport,
    ) {
        let d = self.params.thickness;
        for _ in 0..CORRECTIVE_PASSES {
            let sweep = self.corrected_sweep(free, acc);
            let mut known = Tracker::new();
            for (k, t) in active.iter() {
                known.insert(*k, *t);
            }
            let mut cache = collide::BvhCache::default();
            let found = collide::gather(&self.objects(&sweep), &known, d, &mut cache, report);
            let fresh: BTreeMap<PairKey, Tracked> = found
                .into_iter()
                .filter(|(k, _)| !active.contains_key(k))
                .collect();
            if fresh.is_empty() {
                return;
            }
            self.continuous_impulses(&fresh, &sweep, free, acc);
            active.extend(fresh);
        }
    }

    /// The linear vertex sweep from the current pose to the pose reached with the predicted
    /// velocities corrected by the impulses gathered so far.
    fn corrected_sweep(&self, free: &[Vec6], acc: &Acc) -> Sweep {
        let h = self.params.h;
        let mut x0 = Vec::with_capacity(self.bodies.len());
        let mut x1 = Vec::with_capacity(self.bodies.len());
        for ((b, nu), (lin, ang)) in self.bodies.iter().zip(free).zip(acc) {
            let mut s: RigidBody3 = b.state.clone();
            if !s.is_static {
                s.set_velocity(nu);
                s.apply_impulse(lin, ang);
                s.integrate_position(h);
            }
            x0.push(b.world_vertices());
            x1.push(b.vertices_at(&s));
        }
        Sweep { x0, x1 }
    }

    /// The bodies as the shared collision stage sees them.
    fn objects<'a>(&'a self, sw: &'a Sweep) -> Vec<Object<'a>> {
        self.bodies
            .iter()
            .enumerate()
            .map(|(i, b)| Object {
                x0: &sw.x0[i],
                x1: &sw.x1[i],
                triangles: b.mesh().triangles(),
                edges: b.edges(),
                sharp: Some(b.sharp_edges()),
                closed: b.mesh().is_closed(),
                is_static: b.state.is_static,
                self_collide: false,
                edge_normals: None,
                rest: None,
            })
            .collect()
    }

    fn continuous_impulses(
        &self,
        active: &BTreeMap<PairKey, Tracked>,
        sw: &Sweep,
        free: &[Vec6],
        acc: &mut Acc,
    ) {
        let (k, h) = (self.params.stiffness, self.params.h);
        let objs = self.objects(sw);
        let mut hits = Vec::new();
        for (key, tr) in active {
            let traj = collide::trajectory(&objs, key);
            let d = self.params.thickness;
            let (imp, iv) = tracked_impulse_thick(self.params.model, &traj, tr, k, h, d);
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
        for (i, j) in collide::object_pairs(&self.objects(sw)) {
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
        let d = self.params.thickness;
        self.tracker = collide::retain(&self.objects(&now), active, d, report);
    }

    /// Deepest vertex of any body inside another closed body (closest-point distance).
    fn penetration(&self) -> Real {
        let x: Vec<Vec<Vec3>> = self.bodies.iter().map(|b| b.world_vertices()).collect();
        let sw = Sweep {
            x0: x.clone(),
            x1: x,
        };
        let mut worst: Real = 0.0;
        for (i, j) in collide::object_pairs(&self.objects(&sw)) {
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

/// `h` and the stiffness finite and positive, the friction coefficients finite and ≥ 0.
fn check_params(params: &PenaltyParams) -> Result<(), PenaltyError> {
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
    check("thickness", params.thickness, false)?;
    Ok(())
}
