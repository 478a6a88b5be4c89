//! The standard-model ε-distance detector (docs/formulation-notes.md §5.6, reference code `collision_detection.m`):
//! every vertex of A near an edge of B becomes a unilateral contact. Enforcing all of them is
//! what produces standard-model traps (paper Fig. 2–3).
//!
//! Owns: the detector and its distance. Does not own: the constraint set (all U).

use super::contact::{Contact, vertex_edge_contact};
use signorini_dynamics::RigidBody2;
use signorini_math::{Real, Vec2};

/// ε_ve = 0.07 m of the reference code's 2D detector (docs/formulation-notes.md §5.6).
pub const SM_DETECTION_DISTANCE: Real = 0.07;

/// Vertex–edge contacts with |ψ| < ε whose vertex projects onto the edge extended by ε at both
/// ends, for both orderings of every candidate pair.
pub fn standard_contacts(
    bodies: &[RigidBody2],
    verts: &[Vec<Vec2>],
    pairs: &[(usize, usize)],
    eps: Real,
) -> Vec<Contact> {
    let mut out = Vec::new();
    for &(i, j) in pairs {
        for (a, b) in [(i, j), (j, i)] {
            let (va, vb) = (&verts[a], &verts[b]);
            let nb = vb.len();
            for vertex in 0..va.len() {
                for edge in 0..nb {
                    let (t0, t1) = (vb[edge], vb[(edge + 1) % nb]);
                    let e = t1 - t0;
                    let len = e.norm();
                    let along = (va[vertex] - t0).dot(&e) / len;
                    if along < -eps || along > len + eps {
                        continue;
                    }
                    let c = vertex_edge_contact(
                        (a, b),
                        va,
                        vb,
                        vertex,
                        edge,
                        (bodies[a].position, bodies[b].position),
                        (bodies[a].is_static, bodies[b].is_static),
                    );
                    if c.gap.abs() < eps {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}
