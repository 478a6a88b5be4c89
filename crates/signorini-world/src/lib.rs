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
//! # Example: a cube dropped on a floor (3D, PEG)
//!
//! [`WorldParams::new`] is the paper's stepper. The command-line tool's experiments add eight
//! gap corrections, the split impulse and a per-solve work budget for PEG
//! (`signorini_experiments::pour2d::experiment_params`); set the first two as below to get
//! the same accuracy. Gravity is added per body, as a vector: `with_gravity(Vec3::new(0.0, 0.0, -9.81))`.
//!
//! ```
//! use signorini_geometry::dim3::ConvexPolyhedron;
//! use signorini_math::{Quat, Vec3};
//! use signorini_world::{ContactModel, PolyBody, World3, WorldParams};
//!
//! let mut params = WorldParams::new(ContactModel::Peg, 0.01);
//! params.gap_corrections = 8;
//! params.split_penetration = true;
//! let mut world = World3::new(params)?;
//! let slab = ConvexPolyhedron::cuboid(Vec3::new(2.0, 2.0, 0.5))?;
//! world.add_body(PolyBody::fixed(slab).with_pose(Vec3::new(0.0, 0.0, -0.5), Quat::identity()))?;
//! let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.1))?;
//! let body = PolyBody::from_density(&cube, 1000.0)?
//!     .with_pose(Vec3::new(0.0, 0.0, 0.3), Quat::identity())
//!     .with_gravity(Vec3::new(0.0, 0.0, -9.81));
//! let id = world.add_body(body)?;
//! for _ in 0..100 {
//!     let report = world.step(); // never panics: failures are in the report
//!     assert!(!report.failed);
//! }
//! // After 1 s the cube rests on the floor: centre at z = 0.1, no penetration.
//! let z = world.bodies[id].state.position.z;
//! assert!((z - 0.1).abs() < 1e-6, "z = {z}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example: a box on the ground (2D)
//!
//! ```
//! use signorini_dynamics::RigidBody2;
//! use signorini_geometry::dim2::ConvexPolygon;
//! use signorini_math::Vec2;
//! use signorini_world::{ContactModel, World, WorldParams};
//!
//! let mut world = World::new(WorldParams::new(ContactModel::Peg, 0.005))?;
//! world.add_body(RigidBody2::fixed(ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0)?))?;
//! let square = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1)?;
//! let id = world.add_body(
//!     RigidBody2::from_density(&square, 100.0)?
//!         .with_pose(Vec2::new(0.0, 0.5), 0.3)
//!         .with_gravity(Vec2::new(0.0, -9.81)),
//! )?;
//! let mut contacts = 0;
//! for _ in 0..400 {
//!     let report = world.step();
//!     assert!(!report.failed);
//!     contacts = report.counts.contacts;
//! }
//! let b = &world.bodies[id];
//! assert!(contacts > 0 && b.velocity.norm() < 1e-6, "settled: {:?}", b.velocity);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod basis;
mod islands;
pub mod penalty;
mod planar;
mod report;
mod spatial;
mod stepper;

pub use planar::{Planar, World};
pub use report::{StageTimes, StepReport};
pub use signorini_contact::ContactModel;
pub use spatial::{ContactKey3, Geometry3, PolyBody, Spatial, TRIAL_OVERLAP_TOLERANCE, World3};
pub use stepper::{
    APPROXIMATE_TOLERANCE, CORRECTION_TOLERANCE, ContactKey, DEFAULT_DENSE_LIMIT,
    DEFAULT_GAP_CORRECTIONS, DENSE_FALLBACK_LIMIT, GenericWorld, PEG_SOLVE_WORK_LIMIT, Space,
    WorldError, WorldParams,
};
