//! Overlap measures of a configuration: the total exact intersection area (2D) or volume (3D)
//! over body pairs whose boxes overlap, static–static pairs excluded. The metric of the PEG
//! paper's Figs. 21 and 24, used by the experiments and scene runs alike.

use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::{Aabb, intersection_area, sweep_and_prune};
use signorini_geometry::dim3::{Aabb3, ConvexPolyhedron, intersection_volume, sweep_and_prune3};
use signorini_world::PolyBody;

/// Total intersection area over overlapping-box pairs, static–static pairs excluded.
pub fn total_overlap(bodies: &[RigidBody2]) -> f64 {
    let verts: Vec<_> = bodies.iter().map(|b| b.world_vertices()).collect();
    let boxes: Vec<Aabb> = verts.iter().map(|v| Aabb::from_points(v.iter())).collect();
    sweep_and_prune(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(bodies[i].is_static && bodies[j].is_static))
        .map(|(i, j)| intersection_area(&verts[i], &verts[j]))
        .sum::<f64>()
        + 0.0 // an empty f64 sum is −0.0; `+ 0.0` makes it +0 in the CSV files
}

/// Total exact intersection volume over box-overlapping pairs, static–static pairs excluded.
pub fn total_overlap3(bodies: &[PolyBody]) -> f64 {
    let shapes: Vec<ConvexPolyhedron> = bodies.iter().map(|b| b.world_shape()).collect();
    let boxes: Vec<Aabb3> = shapes
        .iter()
        .map(|s| Aabb3::from_points(s.vertices()))
        .collect();
    sweep_and_prune3(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(bodies[i].state.is_static && bodies[j].state.is_static))
        .map(|(i, j)| intersection_volume(&shapes[i], &shapes[j]))
        .sum::<f64>()
        + 0.0 // an empty sum is −0.0
}
