//! Rigid-body state and mass properties.
//!
//! Owns: 2D rigid bodies ([`RigidBody2`]: pose x, y, θ; generalized velocity ν = [vx, vy, ω];
//! mass, polar inertia, constant external force; dynamic or static), 3D rigid bodies
//! ([`RigidBody3`]: centre of mass, unit quaternion, ν = [v; ω] with ω in the world frame, mass,
//! body-frame inertia tensor; shape-free so polyhedra and triangle meshes share it), mass
//! properties of a polygon from a density, and the free-flight updates. Does not own: contacts or constraint forces
//! (`signorini-contact`), time-stepping (`signorini-world`).

#![warn(missing_docs)]

mod body2;
mod body3;

pub use body2::{BodyError, RigidBody2, mass_properties_from_density};
pub use body3::{GYRO_MIDPOINT_ITERATIONS, Gyroscopic, RigidBody3};
