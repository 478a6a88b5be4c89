//! The geometric tests of paper §4 (Eqs. 29–34) with the authors' relaxation values
//! (docs/formulation-notes.md §5.1–§5.2): vertex–face and edge–edge applicability, edge orientation, vertex–face
//! and edge–edge feasibility.
//!
//! Owns: the tests and the named relaxation constants. All inputs are world-frame polyhedra.
//! Does not own: which feature pairs are tested (`potential`, `peg`, `standard`).

use signorini_geometry::dim3::{
    ConvexPolyhedron, closest_on_polygon, closest_on_segment, closest_segment_segment,
};
use signorini_math::{Real, Vec3};

/// Relaxed vertex–face applicability for a lone vertex–face contact: `APPL_vf > −0.3`
/// (reference `conf_vertex_faces.m`, docs/formulation-notes.md §5.1 table).
pub const APPL_VF_LONE: Real = -0.3;
/// Relaxed applicability of vertex–vertex potential contacts: `APPL > −0.4`
/// (reference `conf_make_vertex_vertex.m`); also used for the primary choice in I-constraints.
pub const APPL_VV: Real = -0.4;
/// Relaxed edge–edge applicability of an edge–edge U-contact: `APPL_ee > −0.4`
/// (reference `conf_make_edge_edge.m`).
pub const APPL_EE: Real = -0.4;
/// Relaxed edge–edge applicability of the edges incident to v_a in the vertex–edge case:
/// `APPL_ee > −0.1` (reference `conf_make_vertex_edge.m`).
pub const APPL_VE_EDGES: Real = -0.1;
/// Vertex–face feasibility angle φ = 0.4 rad (22.9°; reference `feasibility_vf.m`,
/// `epsilon_theta`).
pub const FEASIBILITY_ANGLE: Real = 0.4;
/// Vertex–face feasibility depth δ = 0.0025 m (reference `feasibility_vf.m`,
/// `epsilon_small`): a vertex over the face deeper than δ is infeasible for that face.
pub const FEASIBILITY_DEPTH: Real = 0.0025;
/// Two edges whose directions have `|ê_a × ê_b| ≤ 1e-6` count as parallel: no edge–edge normal
/// (the reference's `applicability_ee.m` returns −1 for parallel edges).
pub const PARALLEL_SINE: Real = 1e-6;
/// Two faces at an edge with `n̂₁·n̂₂ > 0.995` count as coplanar (reference
/// `conf_make_vertex_edge.m`; the standard detector skips such edges).
pub const COPLANAR_DOT: Real = 0.995;

/// Vertex–face applicability (paper Eq. 31, docs/formulation-notes.md §5.1):
/// `min_{v ∈ ω(v_a)} η̂_b · (v − v_a)/|v − v_a|`, ω(v_a) the vertices joined to v_a by an edge,
/// η̂_b the outward unit normal of B's face. ≥ 0 is classical applicability.
pub fn applicability_vf(pa: &ConvexPolyhedron, vertex: usize, outward: &Vec3) -> Real {
    let va = pa.vertices()[vertex];
    pa.vertex_edges(vertex)
        .iter()
        .map(|&e| {
            let d = pa.vertices()[pa.other_end(e, vertex)] - va;
            outward.dot(&d) / d.norm().max(Real::MIN_POSITIVE)
        })
        .fold(Real::INFINITY, Real::min)
}

/// Edge–edge applicability (paper Eq. 32, docs/formulation-notes.md §5.1): `n̂ = (e_a × e_b)/|…|`,
/// `a_i = n̂·t_{a,i}`, `b_i = −n̂·t_{b,i}`,
/// `APPL_ee = max(min(a₁, a₂, b₁, b₂), min(−a₁, −a₂, −b₁, −b₂))`; −1 for parallel edges.
pub fn applicability_ee(
    pa: &ConvexPolyhedron,
    edge_a: usize,
    pb: &ConvexPolyhedron,
    edge_b: usize,
) -> Real {
    let (ea, eb) = (&pa.edges()[edge_a], &pb.edges()[edge_b]);
    let da = (pa.vertices()[ea.head] - pa.vertices()[ea.tail]).normalize();
    let db = (pb.vertices()[eb.head] - pb.vertices()[eb.tail]).normalize();
    let cross = da.cross(&db);
    if cross.norm() <= PARALLEL_SINE {
        return -1.0;
    }
    let n = cross.normalize();
    let (a1, a2) = (n.dot(&ea.t[0]), n.dot(&ea.t[1]));
    let (b1, b2) = (-n.dot(&eb.t[0]), -n.dot(&eb.t[1]));
    let pos = a1.min(a2).min(b1).min(b2);
    let neg = (-a1).min(-a2).min(-b1).min(-b2);
    pos.max(neg)
}

/// Orientation of edge e_a with respect to edge e_b (paper Eq. 30, docs/formulation-notes.md §5.1, reference
/// `orientation_ee.m`): `e_a · O_b` with `O_b = e_b × (−(n̂_{b,1} + n̂_{b,2}))` (not
/// normalised). Since `e_a·(e_b × w) = (e_a × e_b)·w`, it is positive exactly when
/// `e_a × e_b` points against B's outward normals at e_b, i.e. from A into B.
pub fn edge_orientation(
    pa: &ConvexPolyhedron,
    edge_a: usize,
    pb: &ConvexPolyhedron,
    edge_b: usize,
) -> Real {
    let ea = &pa.edges()[edge_a];
    let e_a = pa.vertices()[ea.head] - pa.vertices()[ea.tail];
    e_a.dot(&orientation_vector(pb, edge_b))
}

/// `O_e = e × (−(n̂₁ + n̂₂))` of an edge (paper Eq. 30): perpendicular to the edge, pointing
/// from f2's side toward f1's side.
pub fn orientation_vector(p: &ConvexPolyhedron, edge: usize) -> Vec3 {
    let e = &p.edges()[edge];
    let d = p.vertices()[e.head] - p.vertices()[e.tail];
    let (n1, n2) = (p.faces()[e.faces[0]].normal, p.faces()[e.faces[1]].normal);
    d.cross(&(-(n1 + n2)))
}

/// Vertex–face feasibility (paper Eq. 33, docs/formulation-notes.md §5.2, reference `feasibility_vf.m`):
/// infeasible if the plane gap |ψ| > ε or the vertex is farther than ε from the face polygon;
/// over the face, feasible iff ψ ≥ −δ; beyond the face's nearest edge (at distance D),
/// feasible iff `asin(ψ/D) ≥ −φ` (the vertex is not too far below the face's plane for its
/// distance from the edge).
pub fn feasibility_vf(
    v: &Vec3,
    pb: &ConvexPolyhedron,
    face: usize,
    eps: Real,
    angle: Real,
    depth: Real,
) -> bool {
    let f = &pb.faces()[face];
    let psi = f.normal.dot(v) - f.offset;
    if psi.abs() > eps {
        return false;
    }
    let poly = pb.face_points(face);
    let (closest, over) = closest_on_polygon(v, &poly, &f.normal);
    if (closest - v).norm() > eps {
        return false;
    }
    if over {
        return psi >= -depth;
    }
    // Beyond the face: the nearest edge of the face and the distance D to it.
    let m = poly.len();
    let d = (0..m)
        .map(|k| (closest_on_segment(v, &poly[k], &poly[(k + 1) % m]).0 - v).norm())
        .fold(Real::INFINITY, Real::min);
    if d <= Real::MIN_POSITIVE {
        return true;
    }
    (psi / d).clamp(-1.0, 1.0).asin() >= -angle
}

/// Edge–edge feasibility (paper Eq. 34, docs/formulation-notes.md §5.2): the segments come within ε.
pub fn feasibility_ee(
    pa: &ConvexPolyhedron,
    edge_a: usize,
    pb: &ConvexPolyhedron,
    edge_b: usize,
    eps: Real,
) -> bool {
    segment_distance(pa, edge_a, pb, edge_b) <= eps
}

/// Distance between edge segments of two polyhedra.
pub fn segment_distance(
    pa: &ConvexPolyhedron,
    edge_a: usize,
    pb: &ConvexPolyhedron,
    edge_b: usize,
) -> Real {
    let (_, _, p, q) = closest_on_edges(pa, edge_a, pb, edge_b);
    (p - q).norm()
}

/// [`closest_segment_segment`] of edge `edge_a` of `pa` and edge `edge_b` of `pb`: the
/// parameters along each edge (tail 0, head 1) and the closest points on each.
pub fn closest_on_edges(
    pa: &ConvexPolyhedron,
    edge_a: usize,
    pb: &ConvexPolyhedron,
    edge_b: usize,
) -> (Real, Real, Vec3, Vec3) {
    let (ea, eb) = (&pa.edges()[edge_a], &pb.edges()[edge_b]);
    closest_segment_segment(
        &pa.vertices()[ea.tail],
        &pa.vertices()[ea.head],
        &pb.vertices()[eb.tail],
        &pb.vertices()[eb.head],
    )
}
