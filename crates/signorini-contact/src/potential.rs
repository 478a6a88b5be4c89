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
/// predicted one (`predicted`, pose + h ν). Contacts are measured at the current configuration
/// and come out grouped by (A, B, vertex) with edges in index order.
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
                    let near = now <= eps2
                        || point_segment_sq_distance(&pa[vertex], &pb[edge], &pb[(edge + 1) % nb])
                            .0
                            <= eps2;
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
