//! Geometry for contact simulation.
//!
//! Owns: shapes (validated convex polygons, compounds of them), exact intersection areas,
//! separating-axis queries, axis-aligned bounding boxes with a sweep-and-prune broad phase, and
//! point–segment distance queries. Everything 2D lives in [`dim2`]; convex polyhedra (hull,
//! adjacency, mass properties, exact intersection volume, compounds, 3D broad phase and feature
//! distances) live in [`dim3`]. Triangle meshes (indexed, validated; OBJ/STL; procedural shapes;
//! mass properties of closed meshes) live in [`mesh`].
//! Axis-aligned boxes and sweep-and-prune are written once for both dimensions in [`aabb`].
//! Does not own: bodies, masses, velocities (`signorini-dynamics`) or contact constraints
//! (`signorini-contact`).

#![warn(missing_docs)]

pub mod aabb;
pub mod dim2;
pub mod dim3;
pub mod mesh;
