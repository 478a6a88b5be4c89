//! Geometry for contact simulation.
//!
//! Owns: shapes (validated convex polygons, compounds of them), exact intersection areas,
//! separating-axis queries, axis-aligned bounding boxes with a sweep-and-prune broad phase, and
//! point–segment distance queries. Everything 2D lives in [`dim2`] (3D polyhedra will live in a
//! `dim3` module).
//! Triangle meshes (3D, indexed, validated; OBJ/STL; procedural shapes; mass properties) live in
//! [`mesh`].
//! Does not own: bodies, masses, velocities (`signorini-dynamics`) or contact constraints
//! (`signorini-contact`).

pub mod dim2;
pub mod mesh;
