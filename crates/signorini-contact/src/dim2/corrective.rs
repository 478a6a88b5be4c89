//! The "corrective" baseline detector used for the authors' stored standard-model data
//! (docs/formulation-notes.md §5.6, reference code `penaltyCD.m` → `PolygonCollision.m`): one contact per
//! *already overlapping* pair, from the separating-axis test.
//!
//! Owns: the detector. Does not own: the constraint set (all U).

use super::contact::Contact;
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::min_overlap_axis;
use signorini_math::Vec2;

/// For every candidate pair that overlaps: normal = axis of minimum overlap oriented from A to
/// B, ψ = −depth, point = centroid of the intersection polygon.
pub fn corrective_contacts(
    bodies: &[RigidBody2],
    verts: &[Vec<Vec2>],
    pairs: &[(usize, usize)],
) -> Vec<Contact> {
    let mut out = Vec::new();
    for &(a, b) in pairs {
        if let Some(s) = min_overlap_axis(&verts[a], &verts[b]) {
            out.push(Contact::from_point_normal(
                (a, b),
                (usize::MAX, usize::MAX),
                s.point,
                s.normal,
                -s.depth,
                1.0,
                (bodies[a].position, bodies[b].position),
                (bodies[a].is_static, bodies[b].is_static),
            ));
        }
    }
    out
}
