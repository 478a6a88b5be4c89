//! Broad phase: bounding-volume hierarchies over swept axis-aligned boxes of mesh features.
//!
//! Owns: the binary [`Bvh`] (median split, refit), [`MeshBvh`] (one BVH each over the
//! swept boxes of the vertices, the edges and the triangles of a [`SweptMesh`]), candidate-pair
//! finding within one mesh ([`self_pairs`], skipping features that share a vertex) and between
//! two meshes ([`mesh_pairs`]) by simultaneous tree–tree traversal (`traverse.rs`: the edge tree
//! against itself, the vertex tree against the triangle tree), parallel with rayon, and
//! brute-force references. Does not own: the narrow phase (`toi`).
//!
//! Boxes are built from the coordinates by `min`/`max` only (no arithmetic), so a feature's box
//! contains its whole linear sweep exactly; an optional `margin` inflates it (rounded outward).
//! Output is deterministic: pairs sorted by (first, second) index.

mod traverse;

use crate::error::MeshError;
use crate::mesh::SweptMesh;
use rayon::prelude::*;
use signorini_math::Vec3;

/// The boxes of the BVH: `signorini-geometry`'s 3D axis-aligned box (one box type for the
/// whole workspace).
pub use signorini_geometry::dim3::Aabb3 as Aabb;

/// Swept box of vertices `ids` from `x0` to `x1`, inflated by `margin` (rounded outward).
pub fn swept_box(x0: &[Vec3], x1: &[Vec3], ids: &[u32], margin: f64) -> Aabb {
    let mut b = Aabb::empty();
    for &i in ids {
        b.add_point(&x0[i as usize]);
        b.add_point(&x1[i as usize]);
    }
    if margin > 0.0 {
        for k in 0..3 {
            b.min[k] = (b.min[k] - margin).next_down();
            b.max[k] = (b.max[k] + margin).next_up();
        }
    }
    b
}

/// The centre of a box along axis `k`.
fn centroid(b: &Aabb, k: usize) -> f64 {
    0.5 * (b.min[k] + b.max[k])
}

/// Largest number of primitives in a leaf.
const LEAF_SIZE: usize = 4;

/// One node: a leaf (`count > 0`, primitives `order[start..start+count]`) or an inner node with
/// children `left` and `right` (indices always greater than its own).
#[derive(Clone, Copy, Debug)]
struct Node {
    aabb: Aabb,
    start: u32,
    count: u32,
    left: u32,
    right: u32,
}

/// A binary BVH over a fixed set of boxes (primitives `0..n`).
#[derive(Clone, Debug)]
pub struct Bvh {
    nodes: Vec<Node>,
    order: Vec<u32>,
    boxes: Vec<Aabb>,
}

impl Bvh {
    /// Build by recursive median split on the axis of largest centroid extent (ties broken by
    /// primitive index, so the tree is deterministic).
    pub fn build(boxes: &[Aabb]) -> Bvh {
        let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len() / LEAF_SIZE + 1);
        let centroids: Vec<[f64; 3]> = boxes
            .iter()
            .map(|b| [centroid(b, 0), centroid(b, 1), centroid(b, 2)])
            .collect();
        if !boxes.is_empty() {
            build_node(&centroids, &mut order, 0, &mut nodes);
        }
        let mut bvh = Bvh {
            nodes,
            order,
            boxes: Vec::new(),
        };
        // Node boxes bottom-up (O(n)) rather than merging every primitive at every level.
        bvh.fit(boxes);
        bvh
    }

    /// Recompute node boxes for moved primitives (same count and tree topology).
    ///
    /// # Errors
    /// [`MeshError::TopologyMismatch`] if `boxes` has a different length than at build time.
    pub fn refit(&mut self, boxes: &[Aabb]) -> Result<(), MeshError> {
        if boxes.len() != self.order.len() {
            return Err(MeshError::TopologyMismatch {
                expected: self.order.len(),
                found: boxes.len(),
            });
        }
        self.fit(boxes);
        Ok(())
    }

    /// Node boxes from the primitive boxes (children always have larger indices than their
    /// parent, so in reverse order); keeps a copy of `boxes`.
    fn fit(&mut self, boxes: &[Aabb]) {
        for i in (0..self.nodes.len()).rev() {
            let n = self.nodes[i];
            let mut b = Aabb::empty();
            if n.count > 0 {
                for &p in &self.order[n.start as usize..(n.start + n.count) as usize] {
                    b.merge(&boxes[p as usize]);
                }
            } else {
                b = self.nodes[n.left as usize].aabb;
                b.merge(&self.nodes[n.right as usize].aabb);
            }
            self.nodes[i].aabb = b;
        }
        self.boxes.clear();
        self.boxes.extend_from_slice(boxes);
    }

    /// Call `f` for every primitive whose box overlaps `q`.
    pub fn query(&self, q: &Aabb, mut f: impl FnMut(u32)) {
        if self.nodes.is_empty() {
            return;
        }
        // Median splits give depth ≤ log2(n) + 1 ≤ 64, and the stack never holds more than
        // depth + 1 entries; the fixed array avoids an allocation per query.
        let mut stack = [0u32; 128];
        let mut top = 1usize;
        while top > 0 {
            top -= 1;
            let i = stack[top];
            let n = &self.nodes[i as usize];
            if !n.aabb.overlaps(q) {
                continue;
            }
            if n.count > 0 {
                for &p in &self.order[n.start as usize..(n.start + n.count) as usize] {
                    if self.boxes[p as usize].overlaps(q) {
                        f(p);
                    }
                }
            } else {
                stack[top] = n.right;
                stack[top + 1] = n.left;
                top += 2;
            }
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

/// Build the topology of the subtree over `order[..]` (which starts at `offset` in the full
/// order array); `cent` holds the box centroids. Node boxes are filled in afterwards.
fn build_node(cent: &[[f64; 3]], order: &mut [u32], offset: u32, nodes: &mut Vec<Node>) -> u32 {
    let idx = nodes.len() as u32;
    nodes.push(Node {
        aabb: Aabb::empty(),
        start: offset,
        count: order.len() as u32,
        left: 0,
        right: 0,
    });
    if order.len() <= LEAF_SIZE {
        return idx;
    }
    // Block: split at the median centroid along the widest centroid axis.
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for &p in order.iter() {
        for k in 0..3 {
            let c = cent[p as usize][k];
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
        }
    }
    let axis = (0..3)
        .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
        .unwrap_or(0);
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |&a, &b| {
        cent[a as usize][axis]
            .total_cmp(&cent[b as usize][axis])
            .then(a.cmp(&b))
    });
    let (l, r) = order.split_at_mut(mid);
    let left = build_node(cent, l, offset, nodes);
    let right = build_node(cent, r, offset + mid as u32, nodes);
    let n = &mut nodes[idx as usize];
    n.count = 0;
    n.left = left;
    n.right = right;
    idx
}

/// BVHs over the swept boxes of one mesh's vertices, edges and triangles.
#[derive(Clone, Debug)]
pub struct MeshBvh {
    margin: f64,
    vertices: Bvh,
    edges: Bvh,
    triangles: Bvh,
}

/// Candidate vertex–face and edge–edge pairs, each list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CandidatePairs {
    /// `(vertex, triangle)` pairs.
    pub vertex_face: Vec<(u32, u32)>,
    /// `(edge, edge)` pairs (indices into [`SweptMesh::edges`]).
    pub edge_edge: Vec<(u32, u32)>,
}

/// Candidate pairs between two meshes `a` and `b`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeshPairs {
    /// `(vertex of a, triangle of b)`.
    pub vertex_face_ab: Vec<(u32, u32)>,
    /// `(vertex of b, triangle of a)`.
    pub vertex_face_ba: Vec<(u32, u32)>,
    /// `(edge of a, edge of b)`.
    pub edge_edge: Vec<(u32, u32)>,
}

impl MeshBvh {
    /// Build the BVHs for the mesh's current sweep, boxes inflated by `margin ≥ 0`.
    pub fn build(mesh: &SweptMesh, margin: f64) -> MeshBvh {
        let (v, e, t) = feature_boxes(mesh, margin);
        MeshBvh {
            margin,
            vertices: Bvh::build(&v),
            edges: Bvh::build(&e),
            triangles: Bvh::build(&t),
        }
    }

    /// Recompute boxes for the mesh's new sweep and refit the trees (same topology).
    ///
    /// # Errors
    /// [`MeshError::TopologyMismatch`] if `mesh` has other vertex, edge or triangle counts than
    /// the mesh the BVH was built for (nothing is changed then).
    pub fn refit(&mut self, mesh: &SweptMesh) -> Result<(), MeshError> {
        let (v, e, t) = feature_boxes(mesh, self.margin);
        let before = (
            self.vertices.order.len(),
            self.edges.order.len(),
            self.triangles.order.len(),
        );
        if (v.len(), e.len(), t.len()) != before {
            return Err(MeshError::TopologyMismatch {
                expected: before.0 + before.1 + before.2,
                found: v.len() + e.len() + t.len(),
            });
        }
        self.vertices.refit(&v)?;
        self.edges.refit(&e)?;
        self.triangles.refit(&t)?;
        Ok(())
    }
}

/// Swept boxes of vertices, edges and triangles (in parallel). Edge and triangle boxes are
/// merges of their (inflated) vertex boxes: `min`/`max`, the subtraction of the margin and the
/// outward rounding are all monotone, so this equals inflating the box of all the feature's
/// positions ([`swept_box`]) exactly, at a third of the cost.
fn feature_boxes(m: &SweptMesh, margin: f64) -> (Vec<Aabb>, Vec<Aabb>, Vec<Aabb>) {
    let (x0, x1) = (m.start(), m.end());
    let v: Vec<Aabb> = (0..m.vertex_count() as u32)
        .into_par_iter()
        .map(|i| swept_box(x0, x1, &[i], margin))
        .collect();
    let merged = |ids: &[u32]| {
        let mut b = Aabb::empty();
        for &i in ids {
            b.merge(&v[i as usize]);
        }
        b
    };
    let e = m.edges().par_iter().map(|e| merged(e)).collect();
    let t = m.triangles().par_iter().map(|t| merged(t)).collect();
    (v, e, t)
}

fn shares_vertex(a: &[u32], b: &[u32]) -> bool {
    a.iter().any(|x| b.contains(x))
}

/// Self-collision candidates of one mesh: vertex–triangle pairs where the vertex is not a corner
/// of the triangle, and edge pairs `(i, j)`, `i < j`, sharing no vertex; boxes must overlap.
pub fn self_pairs(mesh: &SweptMesh, bvh: &MeshBvh) -> CandidatePairs {
    let tris = mesh.triangles();
    let edges = mesh.edges();
    CandidatePairs {
        vertex_face: traverse::overlapping_pairs(&bvh.vertices, &bvh.triangles, false, |v, t| {
            !tris[t as usize].contains(&v)
        }),
        edge_edge: traverse::overlapping_pairs(&bvh.edges, &bvh.edges, true, |i, j| {
            !shares_vertex(&edges[i as usize], &edges[j as usize])
        }),
    }
}

/// Candidates between two different meshes (no adjacency to skip).
pub fn mesh_pairs(a_bvh: &MeshBvh, b_bvh: &MeshBvh) -> MeshPairs {
    let all = |x: &Bvh, y: &Bvh| traverse::overlapping_pairs(x, y, false, |_, _| true);
    MeshPairs {
        vertex_face_ab: all(&a_bvh.vertices, &b_bvh.triangles),
        vertex_face_ba: all(&b_bvh.vertices, &a_bvh.triangles),
        edge_edge: all(&a_bvh.edges, &b_bvh.edges),
    }
}

/// Brute-force reference for [`self_pairs`] (O(n²); tests only).
pub fn brute_force_self_pairs(mesh: &SweptMesh, margin: f64) -> CandidatePairs {
    let (v, e, t) = feature_boxes(mesh, margin);
    let tris = mesh.triangles();
    let edges = mesh.edges();
    let mut out = CandidatePairs::default();
    for (i, vb) in v.iter().enumerate() {
        for (j, tb) in t.iter().enumerate() {
            if vb.overlaps(tb) && !tris[j].contains(&(i as u32)) {
                out.vertex_face.push((i as u32, j as u32));
            }
        }
    }
    for i in 0..e.len() {
        for j in i + 1..e.len() {
            if e[i].overlaps(&e[j]) && !shares_vertex(&edges[i], &edges[j]) {
                out.edge_edge.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// Brute-force reference for [`mesh_pairs`] (O(n²); tests only).
pub fn brute_force_mesh_pairs(a: &SweptMesh, b: &SweptMesh, margin: f64) -> MeshPairs {
    let (va, ea, ta) = feature_boxes(a, margin);
    let (vb, eb, tb) = feature_boxes(b, margin);
    let all = |p: &[Aabb], q: &[Aabb]| -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (i, x) in p.iter().enumerate() {
            for (j, y) in q.iter().enumerate() {
                if x.overlaps(y) {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    };
    MeshPairs {
        vertex_face_ab: all(&va, &tb),
        vertex_face_ba: all(&vb, &ta),
        edge_edge: all(&ea, &eb),
    }
}
