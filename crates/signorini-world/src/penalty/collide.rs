//! The collision stage of the penalty steppers, shared by rigid and deformable meshes
//! (CPF paper §3.2): tracked pairs are kept, the swept-AABB BVH of `signorini-ccd` gives
//! candidate vertex–face and edge–edge pairs between objects (and within one object that
//! self-collides, skipping adjacent features), the certified CCD finds the new ones with their
//! collision weights fixed at the first time of contact, and a vertex already inside another
//! closed object at `t = 0` without a pair against it is attached to that object's closest face.
//!
//! Owns: [`Object`] (one mesh's vertex sweep over the step, as the stage sees it), [`gather`]
//! and [`trajectory`]. Does not own: impulses, integration (the steppers).

use super::PenaltyReport;
use rayon::prelude::*;
use signorini_ccd::bvh::{MeshBvh, mesh_pairs, self_pairs};
use signorini_geometry::mesh::query;
use signorini_math::Vec3;
use signorini_penalty::pair::{Kind, Trajectory, separation_coeffs};
use signorini_penalty::track::weights_at;
use signorini_penalty::{Contact, PairKey, Tracked, Tracker, detect, distance, tracked_depth};
use std::collections::{BTreeMap, BTreeSet};

/// One mesh as the collision stage sees it: vertices moving linearly from `x0` to `x1`.
#[derive(Clone, Copy, Debug)]
pub struct Object<'a> {
    /// Vertex positions at the start of the step.
    pub x0: &'a [Vec3],
    /// Vertex positions at the end of the (predicted) step.
    pub x1: &'a [Vec3],
    /// Triangles.
    pub triangles: &'a [[u32; 3]],
    /// Unique edges `[a, b]`, `a < b`, sorted (the order of `signorini-ccd`'s `TriMesh`).
    pub edges: &'a [[u32; 2]],
    /// Edges that take part in edge–edge pairs (`None`: all). Rigid bodies skip flat interior
    /// edges, whose contacts the faces on both sides already handle.
    pub sharp: Option<&'a [bool]>,
    /// Closed, outward mesh: "inside" is defined (initial-penetration test, outside sign).
    pub closed: bool,
    /// Never moves and receives no impulse.
    pub is_static: bool,
    /// Collides with itself (cloth).
    pub self_collide: bool,
    /// Outward normals of a closed mesh's edges at `t = 0` ([`edge_normals`]): they give an
    /// edge–edge pair against this mesh its outside (the other edge belongs outside), which the
    /// CCD direction alone gets wrong when an edge slides across another one from a crossed
    /// state. `None`: edge–edge outsides from the CCD direction (rigid bodies).
    pub edge_normals: Option<&'a [Vec3]>,
    /// Rest positions of a self-colliding object: self pairs whose features are closer than
    /// [`SELF_REST_EXCLUSION`] times the thickness at rest are not contacts.
    pub rest: Option<&'a [Vec3]>,
}

/// Outward normal of every edge of a closed mesh: the sum of the area normals of the
/// triangles adjacent to it (`edges` sorted as [`Object::edges`]).
pub fn edge_normals(x: &[Vec3], triangles: &[[u32; 3]], edges: &[[u32; 2]]) -> Vec<Vec3> {
    let mut n = vec![Vec3::zeros(); edges.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| x[i as usize]);
        let area = (b - a).cross(&(c - a));
        for k in 0..3 {
            let (u, v) = (t[k], t[(k + 1) % 3]);
            if let Ok(e) = edges.binary_search(&[u.min(v), u.max(v)]) {
                n[e] += area;
            }
        }
    }
    n
}

impl Object<'_> {
    fn edge_counts(&self, e: u32) -> bool {
        self.sharp.is_none_or(|s| s[e as usize])
    }

    fn bounds(&self) -> (Vec3, Vec3) {
        let (a, b) = (query::bounds(self.x0), query::bounds(self.x1));
        (a.0.inf(&b.0), a.1.sup(&b.1))
    }

    /// The sweep as a CCD mesh, and the BVH in `slot` made current for it: refitted (same
    /// topology, boxes of this sweep) if there is one, left as it is for a static object (its
    /// boxes never change), built otherwise. The candidate lists of `signorini-ccd` are sorted,
    /// so they do not depend on the tree's topology, only on the boxes.
    fn bvh(&self, margin: f64, slot: &mut Option<MeshBvh>) -> Option<signorini_ccd::SweptMesh> {
        let m = signorini_ccd::SweptMesh::new(
            self.x0.to_vec(),
            self.x1.to_vec(),
            self.triangles.to_vec(),
        )
        .ok()?;
        let current = match slot.take() {
            Some(b) if self.is_static => Some(b),
            Some(mut b) => b.refit(&m).is_ok().then_some(b),
            None => None,
        };
        *slot = Some(current.unwrap_or_else(|| MeshBvh::build(&m, margin)));
        Some(m)
    }
}

/// The BVHs of a world's objects kept from step to step (one per object, built on first use,
/// then refitted): rebuilding every tree in every step took a fifth of the full cloth-and-tori
/// step. Cleared when the object count or the margin (the contact thickness) changes.
#[derive(Clone, Debug, Default)]
pub struct BvhCache {
    trees: Vec<Option<MeshBvh>>,
    margin: f64,
}

impl BvhCache {
    fn prepare(&mut self, objects: usize, margin: f64) {
        if self.trees.len() != objects || self.margin != margin {
            self.trees = vec![None; objects];
            self.margin = margin;
        }
    }
}

/// Object index pairs `(i, j)`, `i < j`, not both static, whose swept bounds overlap.
pub fn object_pairs(objs: &[Object<'_>]) -> Vec<(usize, usize)> {
    object_pairs_within(objs, 0.0)
}

/// Object index pairs `(i, j)`, `i < j`, not both static, whose swept bounds are at most
/// `margin` apart along every axis. The collision stage passes the contact thickness: two
/// objects whose bounds do not overlap can still have features within the thickness (a body
/// hovering less than `d` above a slab whose top is its bounding box's top), and skipping them
/// delays every such contact until the surfaces cross, while a tracked pair is kept until it
/// leaves the thickness — a hysteresis that adds `k d²/2` of energy per pair and contact.
pub fn object_pairs_within(objs: &[Object<'_>], margin: f64) -> Vec<(usize, usize)> {
    let bounds: Vec<_> = objs.iter().map(Object::bounds).collect();
    let mut out = Vec::new();
    for i in 0..objs.len() {
        for j in i + 1..objs.len() {
            let (a, b) = (&bounds[i], &bounds[j]);
            let overlap = (0..3).all(|k| a.0[k] <= b.1[k] + margin && b.0[k] <= a.1[k] + margin);
            if overlap && !(objs[i].is_static && objs[j].is_static) {
                out.push((i, j));
            }
        }
    }
    out
}

/// The four vertex trajectories of a pair.
pub fn trajectory(objs: &[Object<'_>], key: &PairKey) -> Trajectory {
    let ((ba, fa), (bb, fb)) = (key.first, key.second);
    let (oa, ob) = (&objs[ba as usize], &objs[bb as usize]);
    let ids: [(&Object<'_>, u32); 4] = match key.kind {
        Kind::VertexFace => {
            let t = ob.triangles[fb as usize];
            [(oa, fa), (ob, t[0]), (ob, t[1]), (ob, t[2])]
        }
        Kind::EdgeEdge => {
            let (e, f) = (oa.edges[fa as usize], ob.edges[fb as usize]);
            [(oa, e[0]), (oa, e[1]), (ob, f[0]), (ob, f[1])]
        }
    };
    Trajectory {
        kind: key.kind,
        x0: ids.map(|(o, v)| o.x0[v as usize]),
        x1: ids.map(|(o, v)| o.x1[v as usize]),
    }
}

/// Tracked pairs plus the new ones found by CCD, by proximity within the contact `thickness`
/// (at the start or the end of the step; only when `thickness > 0`) and by the
/// initial-penetration test.
pub fn gather(
    objs: &[Object<'_>],
    tracker: &Tracker,
    thickness: f64,
    cache: &mut BvhCache,
    report: &mut PenaltyReport,
) -> BTreeMap<PairKey, Tracked> {
    let pairs = object_pairs_within(objs, thickness);
    let mut needed = vec![false; objs.len()];
    for &(i, j) in &pairs {
        needed[i] = true;
        needed[j] = true;
    }
    for (i, o) in objs.iter().enumerate() {
        needed[i] |= o.self_collide && !o.is_static;
    }
    // One BVH per object, made current for this step in parallel, shared by all its pairs.
    cache.prepare(objs.len(), thickness);
    let meshes: Vec<Option<signorini_ccd::SweptMesh>> = objs
        .par_iter()
        .zip(needed.par_iter())
        .zip(cache.trees.par_iter_mut())
        .map(|((o, &n), slot)| if n { o.bvh(thickness, slot) } else { None })
        .collect();
    let bvhs: Vec<Option<(&signorini_ccd::SweptMesh, &MeshBvh)>> = meshes
        .iter()
        .zip(&cache.trees)
        .map(|(m, b)| m.as_ref().zip(b.as_ref()))
        .collect();
    let mut st = Gather {
        objs,
        bvhs: &bvhs,
        thickness,
        active: tracker.iter().map(|(k, t)| (*k, *t)).collect(),
        claimed: BTreeSet::new(),
        new_pairs: 0,
    };
    st.claimed = st
        .active
        .keys()
        .filter(|k| k.kind == Kind::VertexFace)
        .map(|k| (k.first, k.second.0))
        .collect();
    for (i, o) in objs.iter().enumerate() {
        if o.self_collide && !o.is_static {
            st.self_collisions(i);
        }
    }
    for (i, j) in pairs {
        st.between(i, j);
    }
    report.new_pairs += st.new_pairs;
    st.active
}

struct Gather<'a, 'o> {
    objs: &'a [Object<'o>],
    bvhs: &'a [Option<(&'a signorini_ccd::SweptMesh, &'a MeshBvh)>],
    thickness: f64,
    active: BTreeMap<PairKey, Tracked>,
    claimed: BTreeSet<((u32, u32), u32)>,
    new_pairs: usize,
}

impl Gather<'_, '_> {
    fn consider(&mut self, key: PairKey, outside: Option<i8>) {
        // A tracked pair stays as it is; a distance pair gives way to a CCD hit of its features
        // (they touch during the step: the paper's tracked pair then holds the crossing).
        let upgrade = match self.active.get(&key) {
            Some(t) if t.distance => true,
            Some(_) => return,
            None => false,
        };
        let traj = trajectory(self.objs, &key);
        if !upgrade && stays_apart(&traj, self.thickness) {
            return;
        }
        let o = &self.objs[key.first.0 as usize];
        if !upgrade && key.first.0 == key.second.0 && rest_near(o, &key, self.thickness) {
            return;
        }
        let outside = outside.or_else(|| self.edge_outside(&key, &traj));
        let hit = detect(&traj, outside).filter(|c| touching(&traj, c));
        if upgrade {
            if let Some(c) = hit {
                self.active.insert(key, c.tracked);
            }
            return;
        }
        if let Some(c) = hit.or_else(|| self.near(&traj, outside)) {
            self.active.insert(key, c.tracked);
            if key.kind == Kind::VertexFace {
                self.claimed.insert((key.first, key.second.0));
            }
            self.new_pairs += 1;
        }
    }

    /// Proximity within the thickness at `t = 0` or `t = 1` (collision weights at the closer
    /// of the two); the outside is the side the first feature is on at `t = 0`. An edge–edge
    /// pair whose closest point is an end of an edge becomes a distance pair
    /// ([`signorini_penalty::distance`]): its edge–edge normal does not measure that distance.
    fn near(&self, traj: &Trajectory, outside: Option<i8>) -> Option<Contact> {
        if self.thickness <= 0.0 || nearly_parallel(traj) {
            return None;
        }
        let dist = |t: f64| {
            let c = weights_at(traj, t);
            let (p, q) = traj.points(&c, t);
            ((p - q).norm(), c)
        };
        let ((d0, c0), (d1, c1)) = (dist(0.0), dist(1.0));
        let (toi, coeffs) = if d0 <= d1 { (0.0, c0) } else { (1.0, c1) };
        if d0.min(d1) >= self.thickness {
            return None;
        }
        if distance::is_edge_end(traj.kind, &coeffs) {
            return Some(Contact {
                toi,
                tracked: distance::refresh(traj),
            });
        }
        let side = || {
            let (p, q) = traj.points(&coeffs, 0.0);
            let g = traj.normal_at(0.0).dot(&(p - q));
            (g != 0.0).then(|| g.signum() as i8)
        };
        let outside = outside.or_else(side)?;
        Some(Contact {
            toi,
            tracked: Tracked {
                coeffs,
                outside,
                distance: false,
            },
        })
    }

    /// Outside sign of an edge–edge pair from the outward edge normal of a closed mesh: the
    /// first edge belongs outside the second's mesh (`σ = sign(m·n_b)`), or the second outside
    /// the first's (`σ = −sign(m·n_a)`); `None` if neither is known or `m` is nearly tangent
    /// (`|m̂·n̂| < 0.1`).
    fn edge_outside(&self, key: &PairKey, traj: &Trajectory) -> Option<i8> {
        if key.kind != Kind::EdgeEdge {
            return None;
        }
        let m = traj.normal_at(0.0);
        let ((a, fa), (b, fb)) = (key.first, key.second);
        let pick = |o: usize, f: u32, sign: f64| {
            let n = self.objs[o].edge_normals?[f as usize];
            let c = m.dot(&n);
            (c.abs() > 0.1 * m.norm() * n.norm()).then(|| (sign * c).signum() as i8)
        };
        pick(b as usize, fb, 1.0).or_else(|| pick(a as usize, fa, -1.0))
    }

    fn outside_of(&self, b: usize) -> Option<i8> {
        self.objs[b].closed.then_some(1)
    }

    /// Pairs within one object (adjacent features are skipped by `self_pairs`).
    fn self_collisions(&mut self, i: usize) {
        let bvhs = self.bvhs;
        let Some((m, bvh)) = bvhs[i] else {
            return;
        };
        let cand = self_pairs(m, bvh);
        let iu = i as u32;
        let out = self.outside_of(i);
        for &(v, t) in &cand.vertex_face {
            self.consider(vf_key(iu, v, iu, t), out);
        }
        for &(e, f) in &cand.edge_edge {
            if self.objs[i].edge_counts(e) && self.objs[i].edge_counts(f) {
                self.consider(ee_key(iu, e, iu, f), None);
            }
        }
    }

    /// Pairs between two objects, then their initial penetrations.
    fn between(&mut self, i: usize, j: usize) {
        let bvhs = self.bvhs;
        let (Some((_, bi)), Some((_, bj))) = (bvhs[i], bvhs[j]) else {
            return;
        };
        let cand = mesh_pairs(bi, bj);
        let (iu, ju) = (i as u32, j as u32);
        for &(v, t) in &cand.vertex_face_ab {
            self.consider(vf_key(iu, v, ju, t), self.outside_of(j));
        }
        for &(v, t) in &cand.vertex_face_ba {
            self.consider(vf_key(ju, v, iu, t), self.outside_of(i));
        }
        for &(e, f) in &cand.edge_edge {
            if self.objs[i].edge_counts(e) && self.objs[j].edge_counts(f) {
                self.consider(ee_key(iu, e, ju, f), None);
            }
        }
        for (a, b) in [(i, j), (j, i)] {
            self.initial_penetrations(a, b);
        }
    }

    /// Vertices of object `a` inside closed object `b` at `t = 0` with no VF pair against `b`:
    /// attach each to the closest face of `b` (collision point = closest point, outside = +1).
    fn initial_penetrations(&mut self, a: usize, b: usize) {
        let (oa, ob) = (self.objs[a], self.objs[b]);
        if !ob.closed {
            return;
        }
        let bbox = query::bounds(ob.x0);
        for (v, p) in oa.x0.iter().enumerate() {
            let id = (a as u32, v as u32);
            if self.claimed.contains(&(id, b as u32))
                || !query::in_box(p, &bbox)
                || !query::inside(p, ob.x0, ob.triangles)
            {
                continue;
            }
            let (t, w, _, _) = query::closest_point(p, ob.x0, ob.triangles);
            let tracked = Tracked {
                coeffs: separation_coeffs(Kind::VertexFace, &w),
                outside: 1,
                distance: false,
            };
            self.active
                .insert(vf_key(a as u32, v as u32, b as u32, t as u32), tracked);
            self.claimed.insert((id, b as u32));
            self.new_pairs += 1;
        }
    }
}

/// The pairs to carry to the next step: those still within the contact thickness at the new
/// positions `objs` (`x0` = `x1`), i.e. with `d − σ m̂·s > 0` (distance pairs: with their
/// collision points moved to the closest points there, `d − dist > 0`). Those that really interpenetrate
/// (`−σ m̂·s > 0`) are counted in the report with their largest depth.
pub fn retain(
    objs: &[Object<'_>],
    active: BTreeMap<PairKey, Tracked>,
    thickness: f64,
    report: &mut PenaltyReport,
) -> Tracker {
    let mut tracker = Tracker::new();
    for (key, mut tr) in active {
        let traj = trajectory(objs, &key);
        if tr.distance {
            tr = distance::refresh(&traj);
        }
        let depth = tracked_depth(&traj, &tr, 0.0);
        if depth > 0.0 {
            report.penetrating_pairs += 1;
            report.max_depth = report.max_depth.max(depth);
        }
        if depth + thickness > 0.0 {
            tracker.insert(key, tr);
        }
    }
    tracker
}

/// Relative distance of the collision points at the time of impact below which a CCD hit is a
/// contact: `|P − Q| ≤ 1e-3 ×` the pair's largest feature size at that time. The certified CCD
/// is conservative and reports (near-)coplanar features as hits (a flat cloth's vertex and a
/// triangle beside it in the same plane); their closest points are a whole feature apart, and
/// tracking them would measure a "depth" to the triangle's plane far outside the triangle.
pub const CONTACT_DISTANCE_REL: f64 = 1e-3;

/// `true` if the collision points of a CCD hit are within [`CONTACT_DISTANCE_REL`].
fn touching(traj: &Trajectory, c: &signorini_penalty::Contact) -> bool {
    let (p, q) = traj.points(&c.tracked.coeffs, c.toi);
    let x = traj.positions(c.toi);
    let size = match traj.kind {
        Kind::VertexFace => [(x[1], x[2]), (x[2], x[3]), (x[3], x[1])],
        Kind::EdgeEdge => [(x[0], x[1]), (x[2], x[3]), (x[2], x[3])],
    }
    .iter()
    .map(|(a, b)| (a - b).norm())
    .fold(0.0, f64::max);
    (p - q).norm() <= CONTACT_DISTANCE_REL * size
}

/// Self pairs whose features are closer than this many contact thicknesses in the object's
/// rest configuration are never contacts.
///
/// Features that are neighbours on the surface without sharing a vertex (the pole fan of a
/// fine UV sphere: 52 triangles meeting at one vertex, ≈ 1 mm apart at a 7.5 cm radius) are
/// within the 2 mm thickness at rest. As self pairs they push against each other forever — on a
/// convex patch every vertex lies behind its neighbours' face planes, so they even count as
/// penetrating — and they fill the per-vertex stiffness budget
/// ([`PenaltyParams::vertex_stiffness_limit`](super::PenaltyParams::vertex_stiffness_limit)):
/// measured on one 52-segment sphere resting in the bucket, ≈ 80 pairs' worth of stiffness on
/// the vertices next to the pole, so their pairs with the bucket were scaled down ≈ 88×. That
/// sphere had 2080 self pairs in its first step, floating; with this rule it has none. Cloth
/// codes exclude rest-state neighbours the same way. Twice the thickness: a pair that starts
/// farther apart can still close in under deformation, but only by squeezing the surface to
/// half its rest spacing. No feature pair of the coarser meshes (cloth, tori, rings, chain
/// links, the small bucket's bodies) is that close at rest: their runs are unchanged.
pub const SELF_REST_EXCLUSION: f64 = 2.0;

/// `true` if the features of self pair `key` of object `o` are within
/// [`SELF_REST_EXCLUSION`] `× thickness` of each other at rest (`false` without rest
/// positions).
fn rest_near(o: &Object<'_>, key: &PairKey, thickness: f64) -> bool {
    let Some(rest) = o.rest else {
        return false;
    };
    let still = [Object {
        x0: rest,
        x1: rest,
        ..*o
    }];
    let local = PairKey {
        first: (0, key.first.1),
        second: (0, key.second.1),
        ..*key
    };
    let traj = trajectory(&still, &local);
    let (p, q) = traj.points(&weights_at(&traj, 0.0), 0.0);
    (p - q).norm() < SELF_REST_EXCLUSION * thickness
}

/// Sine of the angle between two edges below which an edge–edge pair is not made a contact
/// by proximity: the edge–edge normal `e₁ × e₂` of (nearly) parallel edges is ill-defined and
/// flips from step to step (CPF §5.4: "edge-edge collisions corresponding to parallel edges may
/// require special treatment"); such edges touch through their end vertices' vertex–face pairs.
pub const PARALLEL_EDGE_SIN: f64 = 0.1;

/// `true` for an edge–edge trajectory whose edges are nearly parallel at `t = 0` or `t = 1`.
fn nearly_parallel(traj: &Trajectory) -> bool {
    if traj.kind != Kind::EdgeEdge {
        return false;
    }
    [0.0, 1.0].iter().any(|&t| {
        let x = traj.positions(t);
        let (a, b) = (x[1] - x[0], x[3] - x[2]);
        a.cross(&b).norm() < PARALLEL_EDGE_SIN * a.norm() * b.norm()
    })
}

/// `true` if the pair provably stays farther apart than the thickness (plus the CCD contact
/// distance) during the whole step, so CCD need not run: the distance of the closest points at
/// `t = 0` minus the largest possible approach, `max |Δx|` over the first feature's vertices
/// plus the same over the second's (every point of a feature is a convex combination of its
/// vertices, so no pair of points closes in faster). A cheap exact exclusion that skips the
/// many far, nearly coplanar pairs of a flat cloth whose certified CCD is expensive.
fn stays_apart(traj: &Trajectory, thickness: f64) -> bool {
    let c = weights_at(traj, 0.0);
    let (p, q) = traj.points(&c, 0.0);
    let mv = |i: usize| (traj.x1[i] - traj.x0[i]).norm();
    let (a, b) = match traj.kind {
        Kind::VertexFace => (mv(0), mv(1).max(mv(2)).max(mv(3))),
        Kind::EdgeEdge => (mv(0).max(mv(1)), mv(2).max(mv(3))),
    };
    let x = &traj.x0;
    let size = match traj.kind {
        Kind::VertexFace => (x[1] - x[2])
            .norm()
            .max((x[2] - x[3]).norm())
            .max((x[3] - x[1]).norm()),
        Kind::EdgeEdge => (x[0] - x[1]).norm().max((x[2] - x[3]).norm()),
    } + a
        + b;
    (p - q).norm() - (a + b) > thickness + 2.0 * CONTACT_DISTANCE_REL * size
}

/// Key of vertex `v` of object `body_v` against triangle `t` of object `body_t`.
pub fn vf_key(body_v: u32, v: u32, body_t: u32, t: u32) -> PairKey {
    PairKey {
        kind: Kind::VertexFace,
        first: (body_v, v),
        second: (body_t, t),
    }
}

fn ee_key(a: u32, e: u32, b: u32, f: u32) -> PairKey {
    PairKey {
        kind: Kind::EdgeEdge,
        first: (a, e),
        second: (b, f),
    }
}
