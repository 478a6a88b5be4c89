//! The penalty time step for deformable meshes against rigid meshes, static meshes and each
//! other, with cloth self-collision (CPF paper §3.3 and §4; impulses on the vertices, Eqs. 13
//! and 17).
//!
//! Owns: [`DeformableWorld`], [`Obstacle`]. Shares with the rigid stepper the collision stage
//! ([`super::collide`]), the parameters and the report.
//!
//! One step of length `h`:
//! 1. **Predict**: `v* = v + h M⁻¹ f(x, v)` per deformable (springs, damping, pressure,
//!    gravity; pinned vertices held), vertices sweep linearly from `x` to `x + h v*`.
//! 2. **Pairs**: the shared collision stage (tracked pairs, CCD on BVH candidates, self-collision
//!    of deformables with adjacent features skipped, initial penetrations in closed meshes).
//! 3. **Impulses**: per pair the model's impulse `J` and the vertex impulses `Iᵢ = cᵢ J`
//!    (Eqs. 13, 17), plus friction `F` distributed the same way (`cᵢ F`) with the pair's
//!    effective mass `1 / Σ cᵢ² wᵢ` along the sliding direction. Discrete penalty (`Dpf`):
//!    every deformable vertex inside a closed obstacle gets `h k (q − p)` towards its closest
//!    surface point `q` (Eq. 3); open meshes (cloth) have no inside, so with a contact
//!    thickness `d > 0` a vertex within `d` of an open mesh's triangle gets the proximity
//!    penalty `h k (d − dist)` along the closest-point direction (the paper's discrete forces
//!    with a collision tolerance); with `d = 0` `Dpf` ignores open meshes.
//! 4. **Correct and move**: `v = v* + M⁻¹ Σ I`, `x ← x + h v`. A rigid body ([`MeshBody`],
//!    added with [`DeformableWorld::with_rigid`]) sweeps its vertices linearly from its pose to
//!    its free-flight pose (as in the rigid stepper); its vertex impulses sum to the body's
//!    linear impulse `Σ Iᵢ` and angular impulse `Σ (xᵢ − c) × Iᵢ` about its centre of mass `c`
//!    (the CPF paper's rigid bodies, §3.3: "the impulse is applied to the rigid body").
//! 5. **Track**: a pair stays while its depth at the new positions is positive.
//!
//! Collision tolerance: an [`Obstacle`] may be built with an offset ([`Obstacle::with_offset`]),
//! its vertices moved out along their area-weighted normals, so that the resting penalty
//! penetration `≈ m g / k` of a vertex stays outside the true surface (our reading of the
//! paper's "collision tolerance", `docs/deformable.md`).

use super::collide::{self, Object};
use super::implicit::{self, PairContact};
use super::{MeshBody, PenaltyError, PenaltyParams, PenaltyReport};
use rayon::prelude::*;
use signorini_ccd::bvh::{MeshBvh, mesh_pairs, self_pairs};
use signorini_deformable::Deformable;
use signorini_geometry::mesh::TriMesh;
use signorini_geometry::mesh::query;
use signorini_geometry::mesh::query::closest_on_triangle;
use signorini_math::{Real, Vec3, Vec6};
use signorini_penalty::pair::Kind;
use signorini_penalty::{
    ForceModel, PairKey, Tracked, Tracker, friction_impulse, tracked_impulse_thick,
};
use std::collections::BTreeMap;

/// A static triangle mesh (floor, sphere, bucket, pins).
#[derive(Clone, Debug)]
pub struct Obstacle {
    mesh: TriMesh,
    edges: Vec<[u32; 2]>,
    normals: Option<Vec<Vec3>>,
}

impl Obstacle {
    /// A static obstacle.
    pub fn new(mesh: TriMesh) -> Self {
        let edges = mesh.edges();
        let normals = mesh
            .is_closed()
            .then(|| collide::edge_normals(mesh.vertices(), mesh.triangles(), &edges));
        Obstacle {
            mesh,
            edges,
            normals,
        }
    }

    /// A static obstacle whose collision surface is `mesh` moved out by `offset` (m) along the
    /// area-weighted vertex normals.
    ///
    /// # Errors
    /// [`PenaltyError::Mesh`] if the offset mesh is invalid (offset too large for the mesh).
    pub fn with_offset(mesh: &TriMesh, offset: Real) -> Result<Self, PenaltyError> {
        let mut n = vec![Vec3::zeros(); mesh.vertices().len()];
        for t in 0..mesh.triangles().len() {
            let [a, b, c] = mesh.corners(t);
            let area_normal = (b - a).cross(&(c - a));
            for &i in &mesh.triangles()[t] {
                n[i as usize] += area_normal;
            }
        }
        let moved: Vec<Vec3> = mesh
            .vertices()
            .iter()
            .zip(&n)
            .map(|(p, n)| p + offset * n.normalize())
            .collect();
        Ok(Self::new(TriMesh::new(moved, mesh.triangles().to_vec())?))
    }

    /// The collision mesh.
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }
}

/// A refused vertex control input.
fn vertex_refused(index: usize, reason: &'static str) -> PenaltyError {
    PenaltyError::Control {
        what: "vertex",
        index,
        reason,
    }
}

/// Deformable meshes, rigid meshes and static obstacles under penalty contact.
#[derive(Clone, Debug)]
pub struct DeformableWorld {
    /// The deformables (object ids `0 … n−1`).
    pub deformables: Vec<Deformable>,
    /// Dynamic rigid meshes (object ids `n … n+r−1`), added with [`DeformableWorld::with_rigid`].
    pub rigid: Vec<MeshBody>,
    /// The static obstacles (object ids `n+r …`).
    pub obstacles: Vec<Obstacle>,
    /// Deformables collide with themselves (cloth folding on itself).
    pub self_collision: bool,
    /// Sub-steps of the internal forces per contact step (≥ 1; 1 = plain symplectic Euler):
    /// see [`Deformable::free_motion`].
    pub substeps: usize,
    params: PenaltyParams,
    tracker: Tracker,
    time: Real,
    edges: Vec<Vec<[u32; 2]>>,
    bvh_cache: collide::BvhCache,
    /// Diagnostics: record every tracked pair's impulse of the last step (off by default).
    record_pairs: bool,
    last_pairs: Vec<PairRecord>,
}

/// One tracked pair's contact impulse in the last step (diagnostics,
/// [`DeformableWorld::set_record_pairs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairRecord {
    /// The pair's key (kind and features).
    pub key: PairKey,
    /// Its four `(object, vertex)` ids, in the order of its trajectory.
    pub ids: [(usize, usize); 4],
    /// Its separation coefficients `cᵢ`.
    pub coeffs: [Real; 4],
    /// The model's contact impulse `J` on the first collision point, before any scale.
    pub j: Vec3,
    /// The stiffness-limit scale applied to it, times its coincident share (1 without a
    /// limit and a share).
    pub scale: Real,
    /// The same pair's impulse under the exact-normal quadrature (`ForceModel::CpfExact`),
    /// for measuring the closed form's `L_k` error along a run.
    pub j_exact: Vec3,
    /// Fraction of the step in contact.
    pub tau: Real,
    /// A distance pair ([`Tracked::distance`]).
    pub distance: bool,
}

/// A discrete vertex–face contact: `((vertex object, vertex), (triangle object, triangle),
/// barycentric weights of the closest point)`.
type VertexFace = ((usize, usize), (usize, usize), [Real; 3]);

/// A discrete contact as applied: its four `(object, vertex)` ids, their weights and the
/// impulse on the vertex.
type Discrete = ([(usize, usize); 4], [Real; 4], Vec3);

/// One pair's contact impulse as the stepper applies it: its vertices and separation
/// coefficients, the contact impulse `j` on the first collision point, the stiffness-limit
/// scale `s` and the fraction `tau` of the step in contact.
#[derive(Clone, Copy)]
struct Applied<'a> {
    ids: &'a [(usize, usize); 4],
    c: &'a [Real; 4],
    j: Vec3,
    s: Real,
    tau: Real,
}

/// Vertex–triangle candidates `(vertex object, triangle object, [(vertex, triangle)])`.
type Candidates = (usize, usize, Vec<(u32, u32)>);

/// Start and end vertex positions of every object.
struct Sweep {
    x0: Vec<Vec<Vec3>>,
    x1: Vec<Vec<Vec3>>,
    /// Outward edge normals at `x0` of the closed deformables.
    normals: Vec<Option<Vec<Vec3>>>,
}

impl Sweep {
    fn new(w: &DeformableWorld, x0: Vec<Vec<Vec3>>, x1: Vec<Vec<Vec3>>) -> Self {
        let normals = (0..x0.len())
            .into_par_iter()
            .map(|i| {
                let d = w.deformables.get(i)?;
                d.mesh()
                    .is_closed()
                    .then(|| collide::edge_normals(&x0[i], d.triangles(), &w.edges[i]))
            })
            .collect();
        Sweep { x0, x1, normals }
    }
}

impl DeformableWorld {
    /// A world; `params` as for the rigid stepper (`measure_penetration` is ignored).
    ///
    /// # Errors
    /// [`PenaltyError::Param`] unless `h` and the stiffness are finite and positive.
    pub fn new(
        deformables: Vec<Deformable>,
        obstacles: Vec<Obstacle>,
        params: PenaltyParams,
    ) -> Result<Self, PenaltyError> {
        super::check_params(&params)?;
        let edges = deformables.iter().map(|d| d.mesh().edges()).collect();
        Ok(DeformableWorld {
            deformables,
            rigid: Vec::new(),
            obstacles,
            self_collision: true,
            substeps: 1,
            params,
            tracker: Tracker::new(),
            time: 0.0,
            edges,
            bvh_cache: collide::BvhCache::default(),
            record_pairs: false,
            last_pairs: Vec::new(),
        })
    }

    /// The world with dynamic rigid meshes added (closed meshes; they collide with the
    /// deformables, the obstacles and each other).
    ///
    /// # Errors
    /// [`PenaltyError::Rigid`] for a static body (use an [`Obstacle`]) or an open mesh.
    pub fn with_rigid(mut self, bodies: Vec<MeshBody>) -> Result<Self, PenaltyError> {
        for (index, b) in bodies.iter().enumerate() {
            let reason = if b.state.is_static {
                "static: give static meshes as obstacles"
            } else if !b.mesh().is_closed() {
                "the mesh is not closed"
            } else {
                continue;
            };
            return Err(PenaltyError::Rigid { index, reason });
        }
        self.rigid.extend(bodies);
        Ok(self)
    }

    /// Set how the rigid bodies' free-flight velocity carries the gyroscopic torque
    /// ([`PenaltyParams::gyroscopic`]).
    pub fn set_gyroscopic(&mut self, gyroscopic: signorini_dynamics::Gyroscopic) {
        self.params.gyroscopic = gyroscopic;
    }

    /// Parameters.
    pub fn params(&self) -> &PenaltyParams {
        &self.params
    }

    /// Control input: set the velocity (m/s) of vertex `vertex` of deformable `deformable`
    /// before the next step.
    ///
    /// # Errors
    /// [`PenaltyError::Control`] for no such deformable or vertex, a pinned vertex or a
    /// non-finite velocity.
    pub fn set_vertex_velocity(
        &mut self,
        deformable: usize,
        vertex: usize,
        v: Vec3,
    ) -> Result<(), PenaltyError> {
        if !v.iter().all(|x| x.is_finite()) {
            return Err(vertex_refused(vertex, "non-finite velocity"));
        }
        let d = self.free_vertex(deformable, vertex)?;
        d.v[vertex] = v;
        Ok(())
    }

    /// Control input: apply the force `f` (N) to vertex `vertex` of deformable `deformable`
    /// during the next step, on top of gravity and the internal forces. Applied now as the
    /// impulse `h f`: `v ← v + h f / m`. Call it before every step the force should act.
    ///
    /// # Errors
    /// [`PenaltyError::Control`] for no such deformable or vertex, a pinned vertex or a
    /// non-finite force.
    pub fn apply_vertex_force(
        &mut self,
        deformable: usize,
        vertex: usize,
        f: Vec3,
    ) -> Result<(), PenaltyError> {
        if !f.iter().all(|x| x.is_finite()) {
            return Err(vertex_refused(vertex, "non-finite force"));
        }
        let h = self.params.h;
        let d = self.free_vertex(deformable, vertex)?;
        let w = d.inverse_masses()[vertex];
        d.v[vertex] += f * (h * w);
        Ok(())
    }

    /// Control input: set the linear and angular velocity of rigid body `id` (index in
    /// [`DeformableWorld::rigid`]) before the next step.
    ///
    /// # Errors
    /// [`PenaltyError::Control`] for no such body or a non-finite velocity.
    pub fn set_rigid_velocity(
        &mut self,
        id: usize,
        linear: Vec3,
        angular: Vec3,
    ) -> Result<(), PenaltyError> {
        let b = super::dynamic_state(&mut self.rigid, "rigid body", id)?;
        super::set_rigid_velocity(b, "rigid body", id, linear, angular)
    }

    /// Control input: apply `force` and `torque` to rigid body `id` during the next step, as
    /// [`super::PenaltyWorld::apply_wrench`].
    ///
    /// # Errors
    /// [`PenaltyError::Control`] for no such body or a non-finite wrench.
    pub fn apply_rigid_wrench(
        &mut self,
        id: usize,
        force: Vec3,
        torque: Vec3,
    ) -> Result<(), PenaltyError> {
        let h = self.params.h;
        let b = super::dynamic_state(&mut self.rigid, "rigid body", id)?;
        super::push_rigid(b, "rigid body", id, force, torque, h)
    }

    /// Deformable `deformable` if vertex `vertex` exists there and is not pinned.
    fn free_vertex(
        &mut self,
        deformable: usize,
        vertex: usize,
    ) -> Result<&mut Deformable, PenaltyError> {
        let Some(d) = self.deformables.get_mut(deformable) else {
            return Err(PenaltyError::Control {
                what: "deformable",
                index: deformable,
                reason: "no such deformable",
            });
        };
        if vertex >= d.x.len() {
            return Err(vertex_refused(vertex, "no such vertex"));
        }
        if d.is_pinned(vertex) {
            return Err(vertex_refused(vertex, "pinned vertex"));
        }
        Ok(d)
    }

    /// Diagnostics: record the impulse of every tracked pair in each following step
    /// ([`Self::last_pairs`]); costs one copy per pair. Does not change the simulation.
    pub fn set_record_pairs(&mut self, on: bool) {
        self.record_pairs = on;
        self.last_pairs.clear();
    }

    /// The tracked pairs' impulses of the last step, if recording
    /// ([`Self::set_record_pairs`]); empty otherwise, and for the discrete model.
    pub fn last_pairs(&self) -> &[PairRecord] {
        &self.last_pairs
    }

    /// The pairs tracked into the next step (diagnostics).
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// Simulated time (s).
    pub fn time(&self) -> Real {
        self.time
    }

    /// Number of triangles of all deformables, rigid bodies and obstacles.
    pub fn triangle_count(&self) -> usize {
        let d: usize = self.deformables.iter().map(|d| d.triangles().len()).sum();
        let r: usize = self.rigid.iter().map(|b| b.mesh().triangles().len()).sum();
        let o: usize = self
            .obstacles
            .iter()
            .map(|o| o.mesh.triangles().len())
            .sum();
        d + r + o
    }

    /// Advance one step (see the module docs).
    pub fn step(&mut self) -> PenaltyReport {
        let h = self.params.h;
        let mut report = PenaltyReport::default();
        // Block 1: predicted (mean and end) velocities and the linear vertex sweep.
        // Each deformable's predictor is independent: in parallel, collected in order
        // (deterministic).
        let (mut v, mut v_end): (Vec<Vec<Vec3>>, Vec<Vec<Vec3>>) = self
            .deformables
            .par_iter()
            .map(|d| d.free_motion(h, self.substeps))
            .unzip();
        let free: Vec<Vec6> = self
            .rigid
            .iter()
            .map(|b| b.state.free_velocity(h, self.params.gyroscopic))
            .collect();
        if self.runaway(&v, &free) {
            report.diverged = true;
            return report;
        }
        let sweep = self.sweep(&v, &free);
        let mut bvh_cache = std::mem::take(&mut self.bvh_cache);
        let objs = self.objects(&sweep);
        // Blocks 2–3: pairs and vertex impulses (deformable vertices, then rigid-body vertices).
        let mut imp: Vec<Vec<Vec3>> = v
            .iter()
            .map(|vi| vec![Vec3::zeros(); vi.len()])
            .chain(
                self.rigid
                    .iter()
                    .map(|b| vec![Vec3::zeros(); b.mesh().vertices().len()]),
            )
            // The obstacles' entries only collect their reactions (`obstacle_force`); nothing
            // moves them.
            .chain(
                self.obstacles
                    .iter()
                    .map(|o| vec![Vec3::zeros(); o.mesh.vertices().len()]),
            )
            .collect();
        // Vertex velocities for friction: the rigid bodies' at their free velocity.
        let mut vel = std::borrow::Cow::Borrowed(&v[..]);
        if !self.rigid.is_empty() {
            let rigid_v = self
                .rigid
                .iter()
                .zip(&free)
                .enumerate()
                .map(|(r, (b, nu))| {
                    let mut s = b.state.clone();
                    s.set_velocity(nu);
                    let x0 = &sweep.x0[self.deformables.len() + r];
                    x0.iter()
                        .map(|p| s.point_velocity(p))
                        .collect::<Vec<Vec3>>()
                });
            vel.to_mut().extend(rigid_v);
        }
        // With the implicit correction the pairs are gathered first and solved together. Like
        // the stiffness limit it replaces, it is for the tracked-pair models: the discrete
        // closest-point baseline stays the paper's explicit one.
        let implicit = self.params.implicit_contact && self.params.model != ForceModel::Dpf;
        let mut contacts = implicit.then(Vec::new);
        let active = match self.params.model {
            ForceModel::Dpf => {
                self.discrete_impulses(&objs, &vel, &mut imp, &mut report);
                BTreeMap::new()
            }
            _ => {
                let thickness = self.params.thickness;
                let active =
                    collide::gather(&objs, &self.tracker, thickness, &mut bvh_cache, &mut report);
                let mut rec = self.record_pairs.then(Vec::new);
                self.continuous_impulses(&objs, &active, &vel, &mut imp, &mut contacts, &mut rec);
                self.last_pairs = rec.unwrap_or_default();
                active
            }
        };
        if let Some(c) = contacts {
            let inv = |id| self.inv_mass(id);
            report.contact_residual = implicit::solve(&c, inv, self.deformables.len(), &mut imp);
        }
        report.pairs = report.pairs.max(active.len());
        drop(vel);
        // Net contact force per deformable and rigid body (self-contact cancels), summed in
        // magnitude; the same for the obstacles' reactions, which then leave `imp`.
        let net = |id: &Vec<Vec3>| id.iter().sum::<Vec3>().norm() / h;
        let on_obstacles = imp.split_off(self.deformables.len() + self.rigid.len());
        report.obstacle_force = on_obstacles.iter().map(net).sum();
        report.contact_force = imp.iter().map(net).sum();
        // Block 4: v = v* + M⁻¹ ΣI, x ← x + h v̄ (v̄ = v with one sub-step).
        for (((d, vd), ve), id) in self
            .deformables
            .iter_mut()
            .zip(&mut v)
            .zip(&mut v_end)
            .zip(&imp)
        {
            for (((vi, vj), ii), w) in vd
                .iter_mut()
                .zip(ve.iter_mut())
                .zip(id)
                .zip(d.inverse_masses())
            {
                *vi += *w * ii;
                *vj += *w * ii;
            }
            d.finish_step(std::mem::take(ve), vd, h);
        }
        let nd = self.deformables.len();
        for (r, (b, nu)) in self.rigid.iter_mut().zip(&free).enumerate() {
            let (c, x0) = (b.state.position, &sweep.x0[nd + r]);
            let lin: Vec3 = imp[nd + r].iter().sum();
            let ang: Vec3 = imp[nd + r]
                .iter()
                .zip(x0)
                .map(|(i, x)| (x - c).cross(i))
                .sum();
            b.state.set_velocity(nu);
            b.state.apply_impulse(&lin, &ang);
            b.state.integrate_position(h);
        }
        // Block 5: keep the pairs still penetrating at the new positions.
        self.bvh_cache = bvh_cache;
        self.update_tracker(active, &mut report);
        self.time += h;
        report.diverged = !self.deformables.iter().all(|d| {
            d.x.iter()
                .chain(&d.v)
                .all(|p| p.iter().all(|c| c.is_finite()))
        }) || !self.rigid.iter().all(|b| b.state.validate().is_ok());
        report
    }

    /// Would the predicted motion carry a vertex (or a rigid body's centre) farther than
    /// [`DIVERGENCE_FACTOR`](super::DIVERGENCE_FACTOR) times the world's bounding-box diagonal,
    /// or is it not finite?
    fn runaway(&self, v: &[Vec<Vec3>], free: &[Vec6]) -> bool {
        let h = self.params.h;
        let points = self
            .deformables
            .iter()
            .flat_map(|d| d.x.iter().copied())
            .chain(self.rigid.iter().map(|b| b.state.position))
            .chain(
                self.obstacles
                    .iter()
                    .flat_map(|o| o.mesh.vertices().iter().copied()),
            );
        let (mut lo, mut hi) = (
            Vec3::repeat(Real::INFINITY),
            Vec3::repeat(Real::NEG_INFINITY),
        );
        for p in points {
            lo = lo.inf(&p);
            hi = hi.sup(&p);
        }
        let size = (hi - lo).norm();
        let fastest = v
            .iter()
            .flatten()
            .map(|v| v.norm())
            .chain(free.iter().map(|nu| nu.fixed_rows::<3>(0).norm()))
            .fold(0.0, Real::max);
        let step = h * fastest;
        !(step.is_finite() && size.is_finite()) || step > super::DIVERGENCE_FACTOR * size
    }

    fn sweep(&self, v: &[Vec<Vec3>], free: &[Vec6]) -> Sweep {
        let h = self.params.h;
        let mut x0: Vec<Vec<Vec3>> = self.deformables.iter().map(|d| d.x.clone()).collect();
        let mut x1: Vec<Vec<Vec3>> = self
            .deformables
            .iter()
            .zip(v)
            .map(|(d, v)| d.x.iter().zip(v).map(|(x, v)| x + h * v).collect())
            .collect();
        for (b, nu) in self.rigid.iter().zip(free) {
            let mut s = b.state.clone();
            s.set_velocity(nu);
            s.integrate_position(h);
            x0.push(b.world_vertices());
            x1.push(b.vertices_at(&s));
        }
        for o in &self.obstacles {
            x0.push(o.mesh.vertices().to_vec());
            x1.push(o.mesh.vertices().to_vec());
        }
        Sweep::new(self, x0, x1)
    }

    fn objects<'a>(&'a self, sw: &'a Sweep) -> Vec<Object<'a>> {
        let (nd, nr) = (self.deformables.len(), self.rigid.len());
        (0..sw.x0.len())
            .map(|i| {
                let (triangles, edges, closed, normals, sharp) = if i < nd {
                    let d = &self.deformables[i];
                    let n = sw.normals[i].as_deref();
                    (
                        d.triangles(),
                        &self.edges[i][..],
                        d.mesh().is_closed(),
                        n,
                        None,
                    )
                } else if i < nd + nr {
                    // Rigid: flat interior edges skipped, outsides from the CCD direction (as
                    // in the rigid stepper).
                    let b = &self.rigid[i - nd];
                    let t = b.mesh().triangles();
                    (t, b.edges(), true, None, Some(b.sharp_edges()))
                } else {
                    let o = &self.obstacles[i - nd - nr];
                    let n = o.normals.as_deref();
                    (
                        o.mesh.triangles(),
                        &o.edges[..],
                        o.mesh.is_closed(),
                        n,
                        None,
                    )
                };
                Object {
                    x0: &sw.x0[i],
                    x1: &sw.x1[i],
                    triangles,
                    edges,
                    sharp,
                    closed,
                    is_static: i >= nd + nr,
                    self_collide: i < nd && self.self_collision,
                    edge_normals: normals,
                    rest: (i < nd && self.self_collision)
                        .then(|| self.deformables[i].mesh().vertices()),
                }
            })
            .collect()
    }

    /// The four (object, vertex) ids of a pair, in the order of its trajectory.
    fn vertex_ids(&self, objs: &[Object<'_>], key: &PairKey) -> [(usize, usize); 4] {
        let ((a, fa), (b, fb)) = (key.first, key.second);
        let (a, b) = (a as usize, b as usize);
        match key.kind {
            Kind::VertexFace => {
                let t = objs[b].triangles[fb as usize];
                [
                    (a, fa as usize),
                    (b, t[0] as usize),
                    (b, t[1] as usize),
                    (b, t[2] as usize),
                ]
            }
            Kind::EdgeEdge => {
                let (e, f) = (objs[a].edges[fa as usize], objs[b].edges[fb as usize]);
                [
                    (a, e[0] as usize),
                    (a, e[1] as usize),
                    (b, f[0] as usize),
                    (b, f[1] as usize),
                ]
            }
        }
    }

    /// Inverse mass of a vertex (0 for obstacles and pinned vertices; a rigid body's `1/m`,
    /// its translational part, for friction's effective mass and the stiffness limit).
    fn inv_mass(&self, (o, v): (usize, usize)) -> Real {
        let nd = self.deformables.len();
        match self.deformables.get(o) {
            Some(d) => d.inverse_masses()[v],
            None => self.rigid.get(o - nd).map_or(0.0, |b| 1.0 / b.state.mass),
        }
    }

    fn continuous_impulses(
        &self,
        objs: &[Object<'_>],
        active: &BTreeMap<PairKey, Tracked>,
        v: &[Vec<Vec3>],
        imp: &mut [Vec<Vec3>],
        contacts: &mut Option<Vec<PairContact>>,
        record: &mut Option<Vec<PairRecord>>,
    ) {
        let (k, h) = (self.params.stiffness, self.params.h);
        let ids: Vec<[(usize, usize); 4]> = active
            .keys()
            .map(|key| self.vertex_ids(objs, key))
            .collect();
        let share = if self.params.share_coincident_pairs {
            coincident_shares(objs, &ids, active, self.params.thickness)
        } else {
            vec![1.0; ids.len()]
        };
        let scale = self.stability_scales(&ids, active, &share);
        for ((((key, tr), s), ids), sh) in active.iter().zip(scale).zip(&ids).zip(&share) {
            let s = s * sh;
            let traj = collide::trajectory(objs, key);
            let d = self.params.thickness;
            let (pi, iv) = tracked_impulse_thick(self.params.model, &traj, tr, k, h, d);
            if pi.j == Vec3::zeros() {
                continue;
            }
            // In contact: the penetration intervals (CPF), the whole step (force at t = 1).
            let tau = match self.params.model {
                ForceModel::DpfCcd => 1.0,
                _ => iv.measure(),
            };
            if let Some(r) = record {
                r.push(PairRecord {
                    key: *key,
                    ids: *ids,
                    coeffs: tr.coeffs,
                    j: pi.j,
                    scale: s,
                    j_exact: tracked_impulse_thick(ForceModel::CpfExact, &traj, tr, k, h, d)
                        .0
                        .j,
                    tau,
                    distance: tr.distance,
                });
            }
            // The implicit correction scales only friction by `s` (the limit's role); the
            // coincident share also divides its normal impulse and contact stiffness.
            let (j, tau) = match contacts {
                Some(_) => (pi.j * *sh, tau * *sh),
                None => (pi.j, tau),
            };
            let pair = Applied {
                ids,
                c: &tr.coeffs,
                j,
                s,
                tau,
            };
            self.apply_pair(&pair, v, imp, contacts);
        }
    }

    /// Add a pair's contact impulse `j` (on its first collision point `P`; `−j` on `Q`) and its
    /// friction to the vertex impulses `imp`, as `cᵢ s (j + F)` (Eqs. 13, 17), `s` the
    /// stiffness-limit scale: friction `F` (§3.6) on the relative velocity `s' = Σ cᵢ vᵢ*` with
    /// the pair's effective mass `1 / Σ cᵢ² wᵢ` (never reverses the sliding). Shared by every
    /// force model, so the discrete baselines get the same friction as CPF. With the implicit
    /// correction on, the pair goes to `contacts` instead, to be solved with the others.
    fn apply_pair(
        &self,
        pair: &Applied<'_>,
        v: &[Vec<Vec3>],
        imp: &mut [Vec<Vec3>],
        contacts: &mut Option<Vec<PairContact>>,
    ) {
        let Applied { ids, c, j, s, tau } = *pair;
        let h = self.params.h;
        let vel = |(o, i): (usize, usize)| v.get(o).map_or(Vec3::zeros(), |vo| vo[i]);
        let v_rel: Vec3 = (0..4).map(|n| c[n] * vel(ids[n])).sum();
        let inv: Real = (0..4).map(|n| c[n] * c[n] * self.inv_mass(ids[n])).sum();
        let m_eff = if inv > 0.0 { 1.0 / inv } else { Real::INFINITY };
        let f = friction_impulse(&self.params.friction, &j, &v_rel, h, m_eff);
        if let Some(list) = contacts {
            list.push(PairContact {
                ids: *ids,
                c: *c,
                impulse: j + s * f,
                normal: j.normalize(),
                kappa: self.params.stiffness * h * h * tau,
            });
            return;
        }
        for n in 0..4 {
            let (o, i) = ids[n];
            if o < imp.len() {
                imp[o][i] += c[n] * s * (j + f);
            }
        }
    }

    /// Per-pair impulse scale of [`PenaltyParams::vertex_stiffness_limit`]: 1 when off;
    /// otherwise `min(1, a_max / aᵢ)` over the pair's vertices, `aᵢ = Σ_pairs σₚ k cᵢ² Δt² wᵢ`
    /// (`σₚ` the pair's coincident share, [`coincident_shares`])
    /// (the vertex's contact stiffness relative to CPF's stability bound, supplementary §C).
    /// `ids` are the pairs' vertices ([`Self::vertex_ids`]), in the order of `active`.
    fn stability_scales(
        &self,
        ids: &[[(usize, usize); 4]],
        active: &BTreeMap<PairKey, Tracked>,
        share: &[Real],
    ) -> Vec<Real> {
        let coeffs: Vec<[Real; 4]> = active.values().map(|t| t.coeffs).collect();
        self.limit_scales(ids, &coeffs, share)
    }

    /// [`Self::stability_scales`] for contacts given by their vertices, weights and shares.
    fn limit_scales(
        &self,
        ids: &[[(usize, usize); 4]],
        coeffs: &[[Real; 4]],
        share: &[Real],
    ) -> Vec<Real> {
        let limit = self.params.vertex_stiffness_limit;
        if limit <= 0.0 {
            return vec![1.0; ids.len()];
        }
        let kh2 = self.params.stiffness * self.params.h * self.params.h;
        let mut a: Vec<Vec<Real>> = self
            .deformables
            .iter()
            .map(|d| vec![0.0; d.x.len()])
            .chain(
                self.rigid
                    .iter()
                    .map(|b| vec![0.0; b.mesh().vertices().len()]),
            )
            .collect();
        for ((id, cs), sh) in ids.iter().zip(coeffs).zip(share) {
            for (&(o, i), &c) in id.iter().zip(cs) {
                if o < a.len() {
                    a[o][i] += sh * kh2 * c * c * self.inv_mass((o, i));
                }
            }
        }
        ids.iter()
            .map(|id| {
                id.iter()
                    .filter(|(o, _)| *o < a.len())
                    .map(|&(o, i)| {
                        if a[o][i] > limit {
                            limit / a[o][i]
                        } else {
                            1.0
                        }
                    })
                    .fold(1.0, Real::min)
            })
            .collect()
    }

    /// Discrete penalty (Eq. 3) at the current positions: deformable vertices inside closed
    /// obstacles or closed deformables are pushed towards the closest surface point.
    fn discrete_impulses(
        &self,
        objs: &[Object<'_>],
        v: &[Vec<Vec3>],
        imp: &mut [Vec<Vec3>],
        rep: &mut PenaltyReport,
    ) {
        let (k, h) = (self.params.stiffness, self.params.h);
        let mut list: Vec<Discrete> = Vec::new();
        if self.params.thickness > 0.0 {
            self.proximity_impulses(objs, &mut list, rep);
        }
        for (i, j) in collide::object_pairs(objs) {
            for (a, b) in [(i, j), (j, i)] {
                let (oa, ob) = (&objs[a], &objs[b]);
                if oa.is_static || !ob.closed {
                    continue;
                }
                let bbox = query::bounds(ob.x0);
                for (vi, p) in oa.x0.iter().enumerate() {
                    if !query::in_box(p, &bbox) || !query::inside(p, ob.x0, ob.triangles) {
                        continue;
                    }
                    let (t, w, q, d) = query::closest_point(p, ob.x0, ob.triangles);
                    let jv = signorini_penalty::discrete::closest_point_impulse(p, &q, k, h);
                    let vf = ((a, vi), (b, t), w);
                    list.push(vertex_face(objs, vf, jv));
                    rep.pairs += 1;
                    rep.penetrating_pairs += 1;
                    rep.max_depth = rep.max_depth.max(d);
                }
            }
        }
        // The limit, if asked for (off by default: the paper's baseline has none), from the
        // contacts' weights as for the tracked pairs; then each contact with its friction.
        let scales = if self.params.dpf_vertex_stiffness_limit {
            let ids: Vec<[(usize, usize); 4]> = list.iter().map(|c| c.0).collect();
            let coeffs: Vec<[Real; 4]> = list.iter().map(|c| c.1).collect();
            self.limit_scales(&ids, &coeffs, &vec![1.0; list.len()])
        } else {
            vec![1.0; list.len()]
        };
        for ((ids, c, jv), s) in list.iter().zip(scales) {
            let pair = Applied {
                ids,
                c,
                j: *jv,
                s,
                tau: 1.0,
            };
            // Always explicit: the discrete model has no implicit correction.
            self.apply_pair(&pair, v, imp, &mut None);
        }
    }

    /// Discrete proximity penalty for open meshes (cloth), which have no inside: a vertex
    /// within the contact thickness `d` of a triangle of an open object (another object, or the
    /// same deformable, corners of the triangle excluded) at the current positions gets
    /// `h k (d − |p − q|) (p − q)/|p − q|` (Eq. 3 with the depth measured from the thickness
    /// skin, as proximity-based penalty codes do), `−wᵢ` of it on the triangle's corners.
    fn proximity_impulses(
        &self,
        objs: &[Object<'_>],
        out: &mut Vec<Discrete>,
        rep: &mut PenaltyReport,
    ) {
        let (k, h, d) = (self.params.stiffness, self.params.h, self.params.thickness);
        let bvhs: Vec<Option<(signorini_ccd::SweptMesh, MeshBvh)>> = objs
            .iter()
            .map(|o| {
                let m = signorini_ccd::SweptMesh::new(
                    o.x0.to_vec(),
                    o.x0.to_vec(),
                    o.triangles.to_vec(),
                )
                .ok()?;
                let b = MeshBvh::build(&m, d);
                Some((m, b))
            })
            .collect();
        let mut cands: Vec<Candidates> = Vec::new();
        for (i, o) in objs.iter().enumerate() {
            if let (true, Some((m, b))) = (o.self_collide && !o.is_static && !o.closed, &bvhs[i]) {
                cands.push((i, i, self_pairs(m, b).vertex_face));
            }
        }
        for (i, j) in collide::object_pairs(objs) {
            if let (Some((_, bi)), Some((_, bj))) = (&bvhs[i], &bvhs[j]) {
                let p = mesh_pairs(bi, bj);
                cands.push((i, j, p.vertex_face_ab));
                cands.push((j, i, p.vertex_face_ba));
            }
        }
        for (a, b, list) in cands {
            let (oa, ob) = (&objs[a], &objs[b]);
            if oa.is_static || ob.closed {
                continue;
            }
            for (v, t) in list {
                let p = oa.x0[v as usize];
                let tri = ob.triangles[t as usize];
                let [x, y, z] = tri.map(|c| ob.x0[c as usize]);
                let w = closest_on_triangle(&p, &x, &y, &z);
                let q = w[0] * x + w[1] * y + w[2] * z;
                let dist = (p - q).norm();
                if dist >= d || dist == 0.0 {
                    continue;
                }
                let jv = (h * k * (d - dist) / dist) * (p - q);
                let vf = ((a, v as usize), (b, t as usize), w);
                out.push(vertex_face(objs, vf, jv));
                rep.pairs += 1;
            }
        }
    }

    fn update_tracker(&mut self, active: BTreeMap<PairKey, Tracked>, report: &mut PenaltyReport) {
        let x: Vec<Vec<Vec3>> = self
            .deformables
            .iter()
            .map(|d| d.x.clone())
            .chain(self.rigid.iter().map(|b| b.world_vertices()))
            .chain(self.obstacles.iter().map(|o| o.mesh.vertices().to_vec()))
            .collect();
        let now = Sweep::new(self, x.clone(), x);
        let d = self.params.thickness;
        self.tracker = collide::retain(&self.objects(&now), active, d, report);
    }
}

/// Collision points of a pair at the step's start, oriented so that the first belongs to the
/// object with the smaller id: `(object, P, object, Q)` with `P = Σ_first cᵢ xᵢ` and
/// `Q = −Σ_second cᵢ xᵢ` (VF: the vertex and the point on the triangle; EE: the points on the
/// two edges).
fn collision_points(
    objs: &[Object<'_>],
    ids: &[(usize, usize); 4],
    c: &[Real; 4],
    kind: Kind,
) -> (usize, Vec3, usize, Vec3) {
    let first = match kind {
        Kind::VertexFace => 1,
        Kind::EdgeEdge => 2,
    };
    let x = |n: usize| objs[ids[n].0].x0[ids[n].1];
    let p: Vec3 = (0..first).map(|n| c[n] * x(n)).sum();
    let q: Vec3 = (first..4).map(|n| -c[n] * x(n)).sum();
    let (a, b) = (ids[0].0, ids[3].0);
    let key = |v: &Vec3| [v.x, v.y, v.z];
    let swap = a > b
        || (a == b
            && key(&q)
                .iter()
                .zip(key(&p))
                .map(|(x, y)| x.total_cmp(&y))
                .find(|o| o.is_ne())
                == Some(std::cmp::Ordering::Less));
    if swap { (b, q, a, p) } else { (a, p, b, q) }
}

/// The share `1/nₚ` of each pair's impulse when pairs with coincident collision points count
/// as one contact ([`PenaltyParams::share_coincident_pairs`]): `nₚ` is the number of active
/// pairs (itself included) between the same two objects whose collision points at the step's
/// start are each within `radius` of this pair's (the contact thickness; `1e-9` of the pair's
/// size without one; a self pair's points are ordered lexicographically). CCD and proximity report a
/// vertex–vertex contact as every vertex–face and edge–edge pair of the two vertices'
/// features, and a vertex–edge contact as the vertex against both faces of the edge plus
/// its edges against that edge, all with the same collision points: without the share, such
/// a contact is `nₚ` times as stiff as a contact inside a face. `ids` are the pairs' vertices
/// in the order of `active`. Deterministic (sorted sweep); `O(n log n)` plus the matches.
pub fn coincident_shares(
    objs: &[Object<'_>],
    ids: &[[(usize, usize); 4]],
    active: &BTreeMap<PairKey, Tracked>,
    thickness: Real,
) -> Vec<Real> {
    let pts: Vec<(usize, Vec3, usize, Vec3)> = ids
        .iter()
        .zip(active.iter())
        .map(|(id, (key, tr))| collision_points(objs, id, &tr.coeffs, key.kind))
        .collect();
    // Sort by (object pair, P.x); sweep a window of width `r` in x.
    let mut order: Vec<usize> = (0..pts.len()).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (&pts[i], &pts[j]);
        (a.0, a.2)
            .cmp(&(b.0, b.2))
            .then(a.1.x.total_cmp(&b.1.x))
            .then(i.cmp(&j))
    });
    let radius = |p: &(usize, Vec3, usize, Vec3)| {
        if thickness > 0.0 {
            thickness
        } else {
            1e-9 * (p.1 - p.3).norm().max(p.1.norm()).max(Real::MIN_POSITIVE)
        }
    };
    let mut count = vec![1usize; pts.len()];
    for (n, &i) in order.iter().enumerate() {
        let pi = &pts[i];
        let r = radius(pi);
        for &j in &order[n + 1..] {
            let pj = &pts[j];
            if (pj.0, pj.2) != (pi.0, pi.2) || pj.1.x - pi.1.x > r {
                break;
            }
            let same = (pi.1 - pj.1).norm() <= r && (pi.3 - pj.3).norm() <= r;
            if same {
                count[i] += 1;
                count[j] += 1;
            }
        }
    }
    count.iter().map(|&n| 1.0 / n as Real).collect()
}

/// A discrete vertex–face contact as applied: impulse `jv` on vertex `(a, vi)`, `−wₙ jv` on
/// the corners of triangle `t` of object `b` (barycentric weights `w` of the closest point).
fn vertex_face(objs: &[Object<'_>], ((a, vi), (b, t), w): VertexFace, jv: Vec3) -> Discrete {
    let tri = objs[b].triangles[t].map(|c| (b, c as usize));
    (
        [(a, vi), tri[0], tri[1], tri[2]],
        [1.0, -w[0], -w[1], -w[2]],
        jv,
    )
}
