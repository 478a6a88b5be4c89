//! Rigid-body state and mass properties.
//!
//! Owns: 2D rigid bodies ([`RigidBody2`]: pose x, y, θ; generalized velocity ν = [vx, vy, ω];
//! mass, polar inertia, constant external force; dynamic or static), mass properties from a
//! density, and the free-flight update. Does not own: contacts or constraint forces
//! (`signorini-contact`), time-stepping (`signorini-world`).

mod body2;

pub use body2::{BodyError, RigidBody2, mass_properties_from_density};
