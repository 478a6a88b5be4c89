//! The simulation world: bodies plus the Stewart–Trinkle velocity-level time stepper.
//!
//! Owns: [`GenericWorld`] (bodies, step size, contact model, friction, solver choice) and
//! [`GenericWorld::step`] (one stage function per step stage, written once for every
//! dimension, see `stepper`); the [`Space`] trait with the 2D space [`Planar`] (`planar`,
//! [`World`] = `GenericWorld<Planar, 3>`) and the 3D space [`Spatial`] (`spatial`, [`World3`] =
//! `GenericWorld<Spatial, 6>`, bodies [`PolyBody`]); and [`StepReport`] (what every step
//! did and how long each stage took). A hard step never panics: a failed solve falls back to
//! the mixed form, and if that fails too the step is reported as failed and continues from the
//! least-residual attempt (`WorldParams::keep_best_on_failure`, default true) or from the
//! free-flight velocities. The penalty stepper for rigid triangle-mesh bodies (CPF, no complementarity
//! solve) is the separate module [`penalty`].
//! Does not own: contact models or formulations (`signorini-contact`), solvers
//! (`signorini-complementarity`), scenes and experiments (`signorini-experiments`).
//!
//! Runnable programs: `cargo run --example stack2d`, `--example pile3d` (this crate) and
//! `-p signorini-scene --example control` (a scene file stepped with a control input).
//!
//! # Which parameters: [`WorldParams::signorini`] or [`WorldParams::paper`]
//!
//! - [`WorldParams::signorini`] is **the default**: what `signorini run` and every experiment
//!   use (for PEG: 8 gap corrections, the split impulse, a per-solve work budget).
//! - [`WorldParams::paper`] is the paper's stepper, every project addition off (the CLI's
//!   `--paper`).
//! - [`WorldParams::new`] is the bare stepper both start from; it is neither of them.
//!
//! The table at [`WorldParams`]'s constructors lists what differs.
//!
//! # Gravity and control inputs
//!
//! Gravity is a per-body constant external force, given as an acceleration vector:
//! `with_gravity(Vec2::new(0.0, -9.81))` in 2D, `with_gravity(Vec3::new(0.0, 0.0, -9.81))` in
//! 3D ([`PolyBody::with_gravity`], `RigidBody2::with_gravity`, [`penalty::MeshBody::with_gravity`];
//! deformables carry their own `gravity`, default `(0, 0, −9.81)`). Between steps, a control
//! input is [`GenericWorld::set_velocity`] or [`GenericWorld::apply_wrench`] (the wrench acts
//! during the next step), [`penalty::PenaltyWorld::apply_wrench`] and
//! [`penalty::DeformableWorld::apply_vertex_force`] for the penalty worlds.
//!
//! # Example: a box comes to rest on the ground (2D, [`World`])
//!
//! ```
//! use signorini_dynamics::RigidBody2;
//! use signorini_geometry::dim2::ConvexPolygon;
//! use signorini_math::Vec2;
//! use signorini_world::{ContactModel, World, WorldParams};
//!
//! let mut world = World::new(WorldParams::signorini(ContactModel::Peg, 0.005))?;
//! world.add_body(RigidBody2::fixed(ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0)?))?;
//! let square = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1)?;
//! let id = world.add_body(
//!     RigidBody2::from_density(&square, 100.0)?
//!         .with_pose(Vec2::new(0.0, 0.5), 0.3)
//!         .with_gravity(Vec2::new(0.0, -9.81)),
//! )?;
//! let mut contacts = 0;
//! for _ in 0..400 {
//!     let report = world.step(); // never panics: failures are in the report
//!     assert!(!report.failed, "{:?}", report.failure);
//!     contacts = report.counts.contacts;
//! }
//! let b = &world.bodies[id];
//! // At rest on a face: centre 0.1 m above the ground, angle a multiple of π/2.
//! let quarter = b.angle / std::f64::consts::FRAC_PI_2;
//! assert!(contacts > 0 && b.velocity.norm() < 1e-6, "settled: {:?}", b.velocity);
//! assert!((b.position.y - 0.1).abs() < 1e-4, "y = {}", b.position.y);
//! assert!((quarter - quarter.round()).abs() < 1e-4, "angle = {}", b.angle);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example: a cube dropped on a floor (3D, [`World3`])
//!
//! ```
//! use signorini_geometry::dim3::ConvexPolyhedron;
//! use signorini_math::{Quat, Vec3};
//! use signorini_world::{ContactModel, PolyBody, World3, WorldParams};
//!
//! let mut world = World3::new(WorldParams::signorini(ContactModel::Peg, 0.01))?;
//! let slab = ConvexPolyhedron::cuboid(Vec3::new(2.0, 2.0, 0.5))?;
//! world.add_body(PolyBody::fixed(slab).with_pose(Vec3::new(0.0, 0.0, -0.5), Quat::identity()))?;
//! let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.1))?;
//! let body = PolyBody::from_density(&cube, 1000.0)?
//!     .with_pose(Vec3::new(0.0, 0.0, 0.3), Quat::identity())
//!     .with_gravity(Vec3::new(0.0, 0.0, -9.81));
//! let id = world.add_body(body)?;
//! for _ in 0..100 {
//!     let report = world.step();
//!     assert!(!report.failed);
//! }
//! // After 1 s the cube rests on the floor: centre at z = 0.1, no penetration.
//! let z = world.bodies[id].state.position.z;
//! assert!((z - 0.1).abs() < 1e-6, "z = {z}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example: a mesh cube on a mesh floor under penalty forces ([`penalty::PenaltyWorld`])
//!
//! CPF: no complementarity solve, a penalty stiffness `k` per feature pair, so a resting body
//! sinks until its pairs carry its weight (here 6 pairs, about `m g / (6 k)` ≈ 0.13 mm);
//! friction damps the bounce.
//!
//! ```
//! use signorini_geometry::mesh::shapes;
//! use signorini_math::Vec3;
//! use signorini_penalty::ForceModel;
//! use signorini_world::penalty::{MeshBody, PenaltyParams, PenaltyWorld};
//!
//! let slab = shapes::cuboid(Vec3::new(1.0, 1.0, 0.5))?;
//! let floor = MeshBody::fixed(slab.map(|p| p - Vec3::new(0.0, 0.0, 0.5))?); // top at z = 0
//! let box_mesh = shapes::cuboid(Vec3::repeat(0.1))?;
//! let cube = MeshBody::dynamic(&box_mesh, 1000.0, Vec3::new(0.0, 0.0, 0.12))?
//!     .with_gravity(Vec3::new(0.0, 0.0, -9.81));
//! let mut params = PenaltyParams::new(ForceModel::Cpf, 1e-3, 1e5);
//! params.friction.mu = 0.5;
//! let mut world = PenaltyWorld::new(vec![floor, cube], params)?;
//! let mut report = world.step();
//! for _ in 0..1500 {
//!     report = world.step();
//!     assert!(!report.diverged);
//! }
//! let s = &world.bodies[1].state; // pose: s.position, s.orientation
//! let weight = s.mass * 9.81;
//! assert!(report.pairs > 0 && (report.contact_force - weight).abs() < 1e-3 * weight);
//! assert!(s.linear_velocity.norm() < 1e-6, "at rest");
//! assert!(s.position.z < 0.1 && s.position.z > 0.0998, "z = {}", s.position.z);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example: a cloth falls onto a sphere ([`penalty::DeformableWorld`])
//!
//! ```
//! use signorini_deformable::{Deformable, Material};
//! use signorini_geometry::mesh::shapes;
//! use signorini_math::Vec3;
//! use signorini_penalty::ForceModel;
//! use signorini_world::penalty::{DeformableWorld, Obstacle, PenaltyParams};
//!
//! let sheet = shapes::grid(0.8, 0.8, 10, 10)?.map(|p| p + Vec3::new(0.0, 0.0, 0.35))?;
//! let material = Material { damping: 0.2, drag: 2.0, ..Material::CLOTH };
//! let cloth = Deformable::new(sheet, material)?.with_gravity(Vec3::new(0.0, 0.0, -9.81));
//! let ball = Obstacle::with_offset(&shapes::sphere(0.3, 16, 12)?, 3e-3)?;
//! let mut params = PenaltyParams::new(ForceModel::Cpf, 5e-4, 500.0);
//! params.friction.mu = 0.5;
//! let mut world = DeformableWorld::new(vec![cloth], vec![ball], params)?;
//! let mut touched = false;
//! for _ in 0..800 {
//!     let report = world.step();
//!     assert!(!report.diverged);
//!     touched |= report.pairs > 0;
//! }
//! let x = &world.deformables[0].x; // vertex positions
//! let centre = x[x.len() / 2];
//! // The cloth's centre lies on top of the sphere (radius 0.3 + 3 mm offset); its edges hang.
//! assert!(touched && (centre.z - 0.303).abs() < 5e-3, "centre {centre:?}");
//! assert!(x.iter().all(|p| p.norm() > 0.29));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod basis;
mod checkpoint;
mod islands;
pub mod penalty;
mod planar;
mod pool;
mod reduced_cache;
mod report;
mod spatial;
mod stepper;

pub use checkpoint::{BodyState, Checkpoint, SolverMemory};
pub use planar::{Planar, World};
pub use pool::ContactPool;
pub use report::{RoundReport, StageTimes, StepReport};
pub use signorini_contact::ContactModel;
pub use signorini_contact::dim3::VertexVertex;
pub use signorini_contact::{PegForm, XImpulse};
pub use signorini_dynamics::Gyroscopic;
pub use spatial::{ContactKey3, Geometry3, PolyBody, Spatial, TRIAL_OVERLAP_TOLERANCE, World3};
pub use stepper::{
    APPROXIMATE_TOLERANCE, CORRECTION_TOLERANCE, ContactKey, DEFAULT_DENSE_LIMIT,
    DEFAULT_FRICTION_DENSE_LIMIT, DEFAULT_GAP_CORRECTIONS, DEFAULT_SHORT_LEMKE_FROM,
    DEFAULT_SPARSE_LEMKE_FROM, DEFAULT_SPARSE_WARM_FROM, DENSE_FALLBACK_LIMIT, FLOOR_PIVOTS,
    GenericWorld, PEG_SOLVE_WORK_LIMIT, RUNAWAY_TURN, Space, WorldError, WorldParams,
};
