//! The 3D standard-model ε-distance detector (docs/formulation-notes.md §5.6, reference `collision_detection.m` +
//! `cd_vertex_face.m`, `cd_edge_edge.m`): every near vertex–face and edge–edge pair becomes a
//! unilateral contact. Enforcing all of them is what produces standard-model traps.
//!
//! Owns: the detector and its constants. Does not own: the constraint set (all U).

use super::contact::{Contact3, edge_edge_contact, vertex_face_contact};
use super::geometric::{COPLANAR_DOT, applicability_ee};
use signorini_dynamics::RigidBody3;
use signorini_geometry::dim3::{ConvexPolyhedron, closest_on_polygon, closest_segment_segment};
use signorini_math::Real;

/// ε_vf = ε_ee = 0.1 m of the reference 3D detector (docs/formulation-notes.md §5.6).
pub const SM3_DETECTION_DISTANCE: Real = 0.1;
/// Angular tolerance ε_θ = 0.15 of the reference detector: a vertex–face pair needs
/// `APPL_vf ≥ −0.15`, an edge–edge pair `APPL_ee ≥ −0.15` (our reading of its direction test).
pub const SM3_ANGLE_TOLERANCE: Real = 0.15;
/// Vertex–face contacts need ψ > −0.005 m (reference `cd_vertex_face.m`).
pub const SM3_MIN_GAP_VF: Real = -0.005;
/// Edge–edge contacts need ψ > −0.05 m (reference `cd_edge_edge.m`).
pub const SM3_MIN_GAP_EE: Real = -0.05;

/// Vertex–face contacts (both orderings of every pair): the vertex projects inside the face,
/// lies within `eps` of it, ψ > −0.005 and `APPL_vf ≥ −0.15`. Edge–edge contacts: neither edge
/// between nearly coplanar faces, closest points interior to both segments, distance < `eps`,
/// ψ > −0.05 and `APPL_ee ≥ −0.15`.
pub fn standard_contacts3(
    bodies: &[RigidBody3],
    now: &[ConvexPolyhedron],
    pairs: &[(usize, usize)],
    eps: Real,
) -> Vec<Contact3> {
    let mut out = Vec::new();
    for &(i, j) in pairs {
        for (a, b) in [(i, j), (j, i)] {
            let (pa, pb) = (&now[a], &now[b]);
            for v in 0..pa.vertices().len() {
                let p = pa.vertices()[v];
                for (f, face) in pb.faces().iter().enumerate() {
                    let (c, over) = closest_on_polygon(&p, &pb.face_points(f), &face.normal);
                    if !over || (c - p).norm() >= eps {
                        continue;
                    }
                    let contact = vertex_face_contact((a, b), (pa, pb), (v, f), bodies);
                    if contact.gap > SM3_MIN_GAP_VF && contact.applicability >= -SM3_ANGLE_TOLERANCE
                    {
                        out.push(contact);
                    }
                }
            }
        }
        let (pa, pb) = (&now[i], &now[j]);
        let coplanar = |p: &ConvexPolyhedron, e: usize| {
            let [f1, f2] = p.edges()[e].faces;
            p.faces()[f1].normal.dot(&p.faces()[f2].normal) > COPLANAR_DOT
        };
        for (ka, ea) in pa.edges().iter().enumerate() {
            if coplanar(pa, ka) {
                continue;
            }
            for (kb, eb) in pb.edges().iter().enumerate() {
                if coplanar(pb, kb) {
                    continue;
                }
                let (s, t, p, q) = closest_segment_segment(
                    &pa.vertices()[ea.tail],
                    &pa.vertices()[ea.head],
                    &pb.vertices()[eb.tail],
                    &pb.vertices()[eb.head],
                );
                let interior = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
                if !interior
                    || (p - q).norm() >= eps
                    || applicability_ee(pa, ka, pb, kb) < -SM3_ANGLE_TOLERANCE
                {
                    continue;
                }
                if let Some(c) = edge_edge_contact((i, j), (pa, pb), (ka, kb), bodies)
                    && c.gap > SM3_MIN_GAP_EE
                {
                    out.push(c);
                }
            }
        }
    }
    out
}
