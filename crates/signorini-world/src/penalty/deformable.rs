//! The penalty time step for deformable meshes against static meshes and each other, with
//! cloth self-collision (CPF paper §3.3 and §4; impulses on the vertices, Eqs. 13 and 17).
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
//!    surface point `q` (Eq. 3); open meshes (cloth) have no inside, so `Dpf` has no cloth
//!    self-collision — as in the paper, where discrete forces need a proximity tolerance.
//! 4. **Correct and move**: `v = v* + M⁻¹ Σ I`, `x ← x + h v`.
//! 5. **Track**: a pair stays while its depth at the new positions is positive.
//!
//! Collision tolerance: an [`Obstacle`] may be built with an offset ([`Obstacle::with_offset`]),
//! its vertices moved out along their area-weighted normals, so that the resting penalty
//! penetration `≈ m g / k` of a vertex stays outside the true surface (our reading of the
//! paper's "collision tolerance", `docs/deformable.md`).

use super::collide::{self, Object};
use super::{PenaltyError, PenaltyParams, PenaltyReport, query};
use signorini_deformable::Deformable;
use signorini_geometry::mesh::TriMesh;
use signorini_math::{Real, Vec3};
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
}

impl Obstacle {
    /// A static obstacle.
    pub fn new(mesh: TriMesh) -> Self {
        let edges = mesh.edges();
        Obstacle { mesh, edges }
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

/// Deformable meshes and static obstacles under penalty contact.
#[derive(Clone, Debug)]
pub struct DeformableWorld {
    /// The deformables (object ids `0 … n−1`).
    pub deformables: Vec<Deformable>,
    /// The static obstacles (object ids `n …`).
    pub obstacles: Vec<Obstacle>,
    /// Deformables collide with themselves (cloth folding on itself).
    pub self_collision: bool,
    params: PenaltyParams,
    tracker: Tracker,
    time: Real,
    edges: Vec<Vec<[u32; 2]>>,
}

/// Start and end vertex positions of every object.
struct Sweep {
    x0: Vec<Vec<Vec3>>,
    x1: Vec<Vec<Vec3>>,
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
            obstacles,
            self_collision: true,
            params,
            tracker: Tracker::new(),
            time: 0.0,
            edges,
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

    /// Number of triangles of all deformables and obstacles.
    pub fn triangle_count(&self) -> usize {
        let d: usize = self.deformables.iter().map(|d| d.triangles().len()).sum();
        let o: usize = self
            .obstacles
            .iter()
            .map(|o| o.mesh.triangles().len())
            .sum();
        d + o
    }

    /// Advance one step (see the module docs).
    pub fn step(&mut self) -> PenaltyReport {
        let h = self.params.h;
        let mut report = PenaltyReport::default();
        // Block 1: predicted velocities and the linear vertex sweep.
        let mut v: Vec<Vec<Vec3>> = self
            .deformables
            .iter()
            .map(|d| d.free_velocities(h))
            .collect();
        let sweep = self.sweep(&v);
        let objs = self.objects(&sweep);
        // Blocks 2–3: pairs and vertex impulses.
        let mut imp: Vec<Vec<Vec3>> = v.iter().map(|vi| vec![Vec3::zeros(); vi.len()]).collect();
        let active = match self.params.model {
            ForceModel::Dpf => {
                self.discrete_impulses(&objs, &mut imp, &mut report);
                BTreeMap::new()
            }
            _ => {
                let active =
                    collide::gather(&objs, &self.tracker, self.params.thickness, &mut report);
                self.continuous_impulses(&objs, &active, &v, &mut imp, &mut report);
                active
            }
        };
        report.pairs = report.pairs.max(active.len());
        // Block 4: v = v* + M⁻¹ ΣI, x ← x + h v.
        for ((d, vd), id) in self.deformables.iter_mut().zip(&mut v).zip(&imp) {
            for ((vi, ii), w) in vd.iter_mut().zip(id).zip(d.inverse_masses()) {
                *vi += *w * ii;
            }
            d.set_velocities_and_move(std::mem::take(vd), h);
        }
        // Block 5: keep the pairs still penetrating at the new positions.
        self.update_tracker(active, &mut report);
        self.time += h;
        report
    }

    fn sweep(&self, v: &[Vec<Vec3>]) -> Sweep {
        let h = self.params.h;
        let mut x0: Vec<Vec<Vec3>> = self.deformables.iter().map(|d| d.x.clone()).collect();
        let mut x1: Vec<Vec<Vec3>> = self
            .deformables
            .iter()
            .zip(v)
            .map(|(d, v)| d.x.iter().zip(v).map(|(x, v)| x + h * v).collect())
            .collect();
        for o in &self.obstacles {
            x0.push(o.mesh.vertices().to_vec());
            x1.push(o.mesh.vertices().to_vec());
        }
        Sweep { x0, x1 }
    }

    fn objects<'a>(&'a self, sw: &'a Sweep) -> Vec<Object<'a>> {
        let nd = self.deformables.len();
        (0..sw.x0.len())
            .map(|i| {
                let (triangles, edges, closed) = if i < nd {
                    let d = &self.deformables[i];
                    (d.triangles(), &self.edges[i][..], d.mesh().is_closed())
                } else {
                    let o = &self.obstacles[i - nd];
                    (o.mesh.triangles(), &o.edges[..], o.mesh.is_closed())
                };
                Object {
                    x0: &sw.x0[i],
                    x1: &sw.x1[i],
                    triangles,
                    edges,
                    sharp: None,
                    closed,
                    is_static: i >= nd,
                    self_collide: i < nd && self.self_collision,
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

    /// Inverse mass of a vertex (0 for obstacles and pinned vertices).
    fn inv_mass(&self, (o, v): (usize, usize)) -> Real {
        self.deformables
            .get(o)
            .map_or(0.0, |d| d.inverse_masses()[v])
    }

    fn continuous_impulses(
        &self,
        objs: &[Object<'_>],
        active: &BTreeMap<PairKey, Tracked>,
        v: &[Vec<Vec3>],
        imp: &mut [Vec<Vec3>],
        report: &mut PenaltyReport,
    ) {
        let (k, h) = (self.params.stiffness, self.params.h);
        for (key, tr) in active {
            let traj = collide::trajectory(objs, key);
            let d = self.params.thickness;
            let (pi, _) = tracked_impulse_thick(self.params.model, &traj, tr, k, h, d);
            if pi.j == Vec3::zeros() {
                continue;
            }
            let ids = self.vertex_ids(objs, key);
            let c = tr.coeffs;
            // Friction on the collision point P (and −F on Q): relative velocity s' = Σ cᵢ vᵢ*,
            // effective mass 1 / Σ cᵢ² wᵢ (never reverses the sliding).
            let vel = |(o, i): (usize, usize)| v.get(o).map_or(Vec3::zeros(), |vo| vo[i]);
            let v_rel: Vec3 = (0..4).map(|n| c[n] * vel(ids[n])).sum();
            let inv: Real = (0..4).map(|n| c[n] * c[n] * self.inv_mass(ids[n])).sum();
            let m_eff = if inv > 0.0 { 1.0 / inv } else { Real::INFINITY };
            let f = friction_impulse(&self.params.friction, &pi.j, &v_rel, h, m_eff);
            for n in 0..4 {
                let (o, i) = ids[n];
                if o < imp.len() {
                    imp[o][i] += c[n] * (pi.j + f);
                }
            }
            report.contact_force += pi.j.norm() / h;
        }
    }

    /// Discrete penalty (Eq. 3) at the current positions: deformable vertices inside closed
    /// obstacles or closed deformables are pushed towards the closest surface point.
    fn discrete_impulses(
        &self,
        objs: &[Object<'_>],
        imp: &mut [Vec<Vec3>],
        rep: &mut PenaltyReport,
    ) {
        let (k, h) = (self.params.stiffness, self.params.h);
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
                    imp[a][vi] += jv;
                    if b < imp.len() {
                        let tri = ob.triangles[t];
                        for (n, &corner) in tri.iter().enumerate() {
                            imp[b][corner as usize] -= w[n] * jv;
                        }
                    }
                    rep.pairs += 1;
                    rep.penetrating_pairs += 1;
                    rep.max_depth = rep.max_depth.max(d);
                    rep.contact_force += jv.norm() / h;
                }
            }
        }
    }

    fn update_tracker(&mut self, active: BTreeMap<PairKey, Tracked>, report: &mut PenaltyReport) {
        let x: Vec<Vec<Vec3>> = self
            .deformables
            .iter()
            .map(|d| d.x.clone())
            .chain(self.obstacles.iter().map(|o| o.mesh.vertices().to_vec()))
            .collect();
        let now = Sweep {
            x0: x.clone(),
            x1: x,
        };
        let d = self.params.thickness;
        self.tracker = collide::retain(&self.objects(&now), active, d, report);
    }
}
