//! Model-independent interpenetration of triangle meshes at one instant: the (edge, triangle)
//! pairs where an edge passes through a triangle of another mesh (or of the same deformable,
//! skipping the triangles the edge touches), and how deep.
//!
//! Owns: [`MeshView`], [`crossings`]. Used by the deformable experiments for the per-step
//! penetration statistics, so that continuous and discrete penalty forces are measured the same
//! way (the steppers' own reports count only their own tracked pairs).
//!
//! Depth of a crossing: the smaller of (a) the shorter of the two pieces into which the
//! triangle's plane cuts the edge, measured along the plane normal (`min(|n̂·(p − a)|,
//! |n̂·(q − a)|)`: how far the edge's nearer end must move back through the plane) and (b) the
//! distance from where the edge meets the plane to the triangle's boundary (how far the edge
//! must slide to leave the triangle). (b) keeps a long static edge lying in a slightly dipping
//! triangle's plane from reporting its half-length as a depth.

use rayon::prelude::*;
use signorini_ccd::bvh::{Aabb, Bvh, swept_box};
use signorini_math::{Real, Vec3};

/// One mesh at one instant.
#[derive(Clone, Copy, Debug)]
pub struct MeshView<'a> {
    /// Vertex positions.
    pub x: &'a [Vec3],
    /// Triangles.
    pub triangles: &'a [[u32; 3]],
    /// Unique edges.
    pub edges: &'a [[u32; 2]],
    /// Check its own edges against its own triangles (deformables).
    pub self_check: bool,
    /// Static: static–static pairs are not checked.
    pub is_static: bool,
}

/// Count and deepest of the edge–triangle crossings.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Crossings {
    /// Number of (edge, triangle) pairs that cross.
    pub pairs: usize,
    /// Largest crossing depth (m); 0 if none.
    pub max_depth: Real,
}

fn orient(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> Real {
    (b - a).cross(&(c - a)).dot(&(d - a))
}

/// Depth of the crossing of segment `pq` through triangle `abc`, if they cross (strictly: a
/// segment ending on the plane or passing along an edge of the triangle is not counted).
pub fn segment_triangle(p: &Vec3, q: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> Option<Real> {
    let (sp, sq) = (orient(a, b, c, p), orient(a, b, c, q));
    if sp * sq >= 0.0 {
        return None;
    }
    let (s1, s2, s3) = (orient(p, q, a, b), orient(p, q, b, c), orient(p, q, c, a));
    let same = (s1 > 0.0 && s2 > 0.0 && s3 > 0.0) || (s1 < 0.0 && s2 < 0.0 && s3 < 0.0);
    if !same {
        return None;
    }
    let n = (b - a).cross(&(c - a));
    let len = n.norm();
    if len == 0.0 {
        return None;
    }
    // Where the edge meets the plane, and how far inside the triangle that is.
    let x = p + (sp / (sp - sq)) * (q - p);
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| (v - u).cross(&(x - u)).norm() / (v - u).norm())
        .fold(Real::INFINITY, Real::min);
    Some((sp.abs().min(sq.abs()) / len).min(inside))
}

fn boxes_tri(m: &MeshView<'_>) -> Vec<Aabb> {
    m.triangles
        .iter()
        .map(|t| swept_box(m.x, m.x, t, 0.0))
        .collect()
}

fn bounds(m: &MeshView<'_>) -> Aabb {
    let mut b = Aabb::empty();
    for p in m.x {
        b.add_point(p);
    }
    b
}

/// All crossings among `meshes`: edges of `i` against triangles of `j` for every ordered pair
/// `i ≠ j` (not both static) with overlapping bounds, and of `i` against itself when
/// `self_check` (triangles containing an end of the edge skipped). Deterministic.
pub fn crossings(meshes: &[MeshView<'_>]) -> Crossings {
    let bvhs: Vec<Bvh> = meshes.iter().map(|m| Bvh::build(&boxes_tri(m))).collect();
    let bounds: Vec<Aabb> = meshes.iter().map(bounds).collect();
    let mut jobs = Vec::new();
    for i in 0..meshes.len() {
        for j in 0..meshes.len() {
            let both_static = meshes[i].is_static && meshes[j].is_static;
            let ok = if i == j {
                meshes[i].self_check
            } else {
                !both_static && bounds[i].overlaps(&bounds[j])
            };
            if ok {
                jobs.push((i, j));
            }
        }
    }
    let per: Vec<Crossings> = jobs
        .par_iter()
        .map(|&(i, j)| edge_vs_triangles(&meshes[i], &meshes[j], &bvhs[j], i == j))
        .collect();
    per.iter().fold(Crossings::default(), |a, c| Crossings {
        pairs: a.pairs + c.pairs,
        max_depth: a.max_depth.max(c.max_depth),
    })
}

fn edge_vs_triangles(e: &MeshView<'_>, t: &MeshView<'_>, bvh: &Bvh, same: bool) -> Crossings {
    let mut out = Crossings::default();
    for ed in e.edges {
        let (p, q) = (e.x[ed[0] as usize], e.x[ed[1] as usize]);
        let bx = swept_box(e.x, e.x, ed, 0.0);
        bvh.query(&bx, |ti| {
            let tri = t.triangles[ti as usize];
            if same && (tri.contains(&ed[0]) || tri.contains(&ed[1])) {
                return;
            }
            let [a, b, c] = tri.map(|k| t.x[k as usize]);
            if let Some(d) = segment_triangle(&p, &q, &a, &b, &c) {
                out.pairs += 1;
                out.max_depth = out.max_depth.max(d);
            }
        });
    }
    out
}
