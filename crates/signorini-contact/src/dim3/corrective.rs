//! The 3D "corrective" baseline detector of the authors' stored data (docs/formulation-notes.md §5.6, reference
//! `penalty_cd.m`): one contact per *already overlapping* pair.
//!
//! Owns: [`corrective_contacts3`]. Does not own: the constraint set (all U).

use super::contact::{Contact3, Features3};
use signorini_dynamics::RigidBody3;
use signorini_geometry::dim3::{ConvexPolyhedron, clip_by_halfspaces};
use signorini_math::{Real, Vec3};

/// For every candidate pair whose intersection has positive volume: P = mean of the distinct
/// corners of the intersection polytope (the reference's "centroid of the overlap point set"); the face of B whose plane P is least deep under gives ψ_B (normal
/// its inward normal), the face of A likewise gives ψ_A (normal its outward normal); the
/// larger of the two, doubled (P sits mid-way in the overlap), is the gap. The contact point
/// on A is `P − (ψ/2) n̂`, so the two contact points straddle P.
pub fn corrective_contacts3(
    bodies: &[RigidBody3],
    now: &[ConvexPolyhedron],
    pairs: &[(usize, usize)],
) -> Vec<Contact3> {
    let mut out = Vec::new();
    for &(a, b) in pairs {
        let (pa, pb) = (&now[a], &now[b]);
        let planes: Vec<(Vec3, Real)> = pb.faces().iter().map(|f| (f.normal, f.offset)).collect();
        let polys = clip_by_halfspaces(pa, &planes);
        let count: usize = polys.iter().map(Vec::len).sum();
        if polys.len() < 4 || count == 0 {
            continue;
        }
        let volume = signorini_geometry::dim3::polytope_volume(&polys);
        if volume <= 0.0 {
            continue;
        }
        // The overlap point set: the distinct corners of the intersection polytope.
        let mut points: Vec<Vec3> = Vec::new();
        for q in polys.iter().flatten() {
            if !points.iter().any(|p| (p - q).norm() <= 1e-12) {
                points.push(*q);
            }
        }
        let p: Vec3 = points.iter().sum::<Vec3>() / points.len() as Real;
        let (fb, db) = pb.max_face_distance(&p);
        let (fa, da) = pa.max_face_distance(&p);
        let (normal, gap) = if db >= da {
            (-pb.faces()[fb].normal, 2.0 * db)
        } else {
            (pa.faces()[fa].normal, 2.0 * da)
        };
        out.push(Contact3::new(
            (a, b),
            Features3::Bodies,
            (p - normal * (gap / 2.0), normal, gap),
            1.0,
            bodies,
        ));
    }
    out
}
