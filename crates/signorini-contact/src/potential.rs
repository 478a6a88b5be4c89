//! PEG potential contacts: vertex–edge pairs within ε at the current or the predicted
//! configuration (notes §5.3, reference code `get_all_contacts_2d.m`; paper §4, Eqs. 28–30).
//!
//! Owns: the detection distance ε(h), the relaxed applicability constant, and the search.
//! Does not own: which contacts become which constraint (`peg`).

use crate::contact::{Contact, vertex_edge_contact};
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::point_segment_sq_distance;
use signorini_math::{Real, Vec2};

/// Relaxed applicability threshold ε_θ: a vertex–edge contact is considered when
/// `APPL_ve > −0.2` (reference code `PEG2_dynamics` → `PEG_constraints_from_contacts(sim, −0.2)`;
/// the paper's relaxed Eq. 28 allows rotation within a step; notes §5.1 table).
pub const PEG_APPLICABILITY_RELAXATION: Real = -0.2;

/// Detection distance ε = max(0.5 h, 0.0008) m (the committed value in the reference code's
/// `get_all_contacts_2d.m`; notes §5.3).
pub fn peg_detection_distance(h: Real) -> Real {
    (0.5 * h).max(0.0008)
}

/// All vertex–edge feature pairs of the candidate body `pairs`, both orderings (A→B then B→A),
/// whose vertex–segment distance is ≤ `eps` at the current configuration (`verts`) or at the
/// predicted one (`predicted`, pose + h ν), or whose vertex crosses the edge between the two
/// (see [`crosses_edge`]). Contacts are measured at the current configuration and come out
/// grouped by (A, B, vertex) with edges in index order.
///
/// Deviation from the reference code: the crossing test is ours. With the committed
/// ε = max(0.5h, 0.0008) alone, a vertex faster than 2ε/h (1 m/s) can jump from one side of an
/// edge to the other without ever being within ε of it at the two sampled configurations; in
/// the triangle-drop test that makes PEG fall through the static triangle for most h.
pub fn potential_contacts(
    bodies: &[RigidBody2],
    verts: &[Vec<Vec2>],
    predicted: &[Vec<Vec2>],
    pairs: &[(usize, usize)],
    eps: Real,
) -> Vec<Contact> {
    let eps2 = eps * eps;
    let mut out = Vec::new();
    for &(i, j) in pairs {
        for (a, b) in [(i, j), (j, i)] {
            let (va, vb) = (&verts[a], &verts[b]);
            let (pa, pb) = (&predicted[a], &predicted[b]);
            let nb = vb.len();
            for vertex in 0..va.len() {
                for edge in 0..nb {
                    let now =
                        point_segment_sq_distance(&va[vertex], &vb[edge], &vb[(edge + 1) % nb]).0;
                    let e1 = (edge + 1) % nb;
                    let near = now <= eps2
                        || point_segment_sq_distance(&pa[vertex], &pb[edge], &pb[e1]).0 <= eps2
                        || crosses_edge((&va[vertex], &pa[vertex]), (&vb[edge], &vb[e1]), (&pb[edge], &pb[e1]), eps);
                    if near {
                        out.push(vertex_edge_contact(
                            (a, b),
                            va,
                            vb,
                            vertex,
                            edge,
                            (bodies[a].position, bodies[b].position),
                            (bodies[a].is_static, bodies[b].is_static),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// True if a vertex moving from `v.0` (current) to `v.1` (predicted) goes from the outer to the
/// inner side of the moving edge (`now` → `next`) and, at the crossing (linear interpolation of
/// the signed distances), lies over the edge extended by `eps` at both ends.
pub fn crosses_edge(v: (&Vec2, &Vec2), now: (&Vec2, &Vec2), next: (&Vec2, &Vec2), eps: Real) -> bool {
    let side = |p: &Vec2, (a, b): (&Vec2, &Vec2)| {
        let e = b - a;
        let len = e.norm();
        let n_in = Vec2::new(-e.y, e.x) / len;
        // (signed gap ψ = n̂_in·(a − p), position along the edge in units of its length, margin)
        (n_in.dot(&(a - p)), (p - a).dot(&e) / (len * len), eps / len)
    };
    let (g0, s0, m0) = side(v.0, now);
    let (g1, s1, _) = side(v.1, next);
    if !(g0 > 0.0 && g1 < 0.0) {
        return false;
    }
    let t = g0 / (g0 - g1);
    let s = s0 + t * (s1 - s0);
    (-m0..=1.0 + m0).contains(&s)
}
