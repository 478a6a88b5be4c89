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
    DENSE_FALLBACK_LIMIT, GenericWorld, Space, WorldError, WorldParams,
};
