//! What the stepper needs from a dimension: the [`Space`] trait (bodies, contacts and their
//! keys, geometry at a configuration, broad phase, detection, re-measuring a gap, the position
//! update) and [`ContactKey`]. Implemented by `planar.rs` (2D) and `spatial.rs` (3D).
//! Does not own: the stage order (`mod.rs`).

use super::params::WorldParams;
use crate::pool::ContactPool;
use nalgebra::SVector;
use signorini_contact::{ConstraintSet, ContactRow, DofBody};
use signorini_dynamics::BodyError;
use signorini_math::Real;
use std::fmt::Debug;

/// A contact-feature key: identifies the same feature pair across re-detections.
pub trait ContactKey:
    Ord + std::hash::Hash + Clone + Debug + Send + Sync + serde::Serialize + serde::de::DeserializeOwned
{
}
impl<T> ContactKey for T where
    T: Ord
        + std::hash::Hash
        + Clone
        + Debug
        + Send
        + Sync
        + serde::Serialize
        + serde::de::DeserializeOwned
{
}

/// What the stepper needs from a dimension (2D: [`crate::Planar`], 3D: [`crate::Spatial`]).
/// `D` is the number of velocity components per body. All functions are pure; the stepper
/// calls them in the order of the module docs.
pub trait Space<const D: usize>: Sized + Send + Sync {
    /// A body (state, shape, mass).
    type Body: DofBody<D> + Clone + Debug + Send + Sync;
    /// A contact with its gap-rate Jacobian.
    type Contact: ContactRow<D> + Clone + Debug + Send + Sync;
    /// Identity of a contact's feature pair.
    type Key: ContactKey;
    /// World-frame features of all bodies at one configuration.
    type Geometry;

    /// Check a body before it is added.
    fn validate(body: &Self::Body) -> Result<(), BodyError>;
    /// Current generalized velocity ν.
    fn velocity(body: &Self::Body) -> SVector<Real, D>;
    /// Free-flight velocity ν* = ν + h M⁻¹ F_ext of a dynamic body (in 3D with the
    /// gyroscopic update of [`WorldParams::gyroscopic`]).
    fn free_velocity(body: &Self::Body, h: Real, params: &WorldParams) -> SVector<Real, D>;
    /// Geometry at the current configuration.
    fn geometry(bodies: &[Self::Body]) -> Self::Geometry;
    /// Geometry at the configuration reached with `velocities` after `h` (static bodies stay).
    fn moved(bodies: &[Self::Body], velocities: &[SVector<Real, D>], h: Real) -> Self::Geometry;
    /// Candidate pairs (i < j): bodies whose boxes over the two configurations, inflated by
    /// `margin`, overlap; static–static pairs skipped.
    fn candidate_pairs(
        bodies: &[Self::Body],
        a: &Self::Geometry,
        b: &Self::Geometry,
        margin: Real,
    ) -> Vec<(usize, usize)>;
    /// Detection distance of the configured contact model.
    fn detection_distance(params: &WorldParams) -> Real;
    /// Contacts and constraints of the configured model for the candidate pairs.
    fn detect(
        params: &WorldParams,
        bodies: &[Self::Body],
        now: &Self::Geometry,
        next: &Self::Geometry,
        pairs: &[(usize, usize)],
    ) -> ConstraintSet<Self::Contact>;
    /// Gap correction: the constraint set to re-solve, from the last set and the contact pool
    /// (every contact of the last set, with its ψ lowered, plus the contacts
    /// [`Space::refresh`] added). 2D rebuilds the model's constraints over the pool; 3D keeps
    /// the set's structure and adds new contacts as U-constraints.
    fn rebuild(
        params: &WorldParams,
        bodies: &[Self::Body],
        set: &ConstraintSet<Self::Contact>,
        pool: &ContactPool<Self::Key, Self::Contact>,
    ) -> ConstraintSet<Self::Contact>;
    /// Feature-pair identity of a contact.
    fn key(contact: &Self::Contact) -> Self::Key;
    /// The same feature pair with its body indices mapped by `map` (islands step local worlds
    /// whose body indices differ from the world's; warm starts are kept with world indices).
    fn map_key(key: &Self::Key, map: &dyn Fn(usize) -> usize) -> Self::Key;
    /// The two bodies a key names.
    fn key_bodies(key: &Self::Key) -> (usize, usize);
    /// The contact's gap ψ, to be lowered by a gap correction.
    fn gap_mut(contact: &mut Self::Contact) -> &mut Real;
    /// The contact's gap re-measured at `trial` (`None`: not re-measurable, e.g. corrective).
    fn remeasure(contact: &Self::Contact, trial: &Self::Geometry) -> Option<Real>;
    /// Gap correction, model-specific part: update the pool's contacts at the trial
    /// configuration (e.g. applicability) and add feature pairs that only come near there
    /// (PEG). `trial` is where `velocities` lead. Returns true if the trial configuration
    /// interpenetrates beyond
    /// [`CORRECTION_TOLERANCE`](crate::CORRECTION_TOLERANCE) in a way the constraint set does not see.
    fn refresh(
        params: &WorldParams,
        bodies: &[Self::Body],
        now: &Self::Geometry,
        trial: &Self::Geometry,
        velocities: &[SVector<Real, D>],
        pool: &mut ContactPool<Self::Key, Self::Contact>,
    ) -> bool;
    /// Position projection's safety net: contacts for the interpenetration at `geometry`
    /// that `set` (detected there) does not see — pairs whose overlap the model's constraints
    /// show no violation of. Empty where the model's detection sees every interpenetration.
    fn unseen(
        params: &WorldParams,
        bodies: &[Self::Body],
        geometry: &Self::Geometry,
        set: &ConstraintSet<Self::Contact>,
    ) -> Vec<Self::Contact>;
    /// Kinetic energy ½ νᵀ M ν of a dynamic body for velocity `v` (J).
    fn kinetic_energy(body: &Self::Body, v: &SVector<Real, D>) -> Real;
    /// Angular speed |ω| (rad/s) of a generalized velocity.
    fn turn_rate(v: &SVector<Real, D>) -> Real;
    /// Accept the new velocity (if finite) and update the pose of a dynamic body.
    fn integrate(body: &mut Self::Body, v: &SVector<Real, D>, h: Real);
    /// Set the velocity of a dynamic body without moving it (the split impulse's carried
    /// velocity, [`WorldParams::split_penetration`]).
    fn set_velocity(body: &mut Self::Body, v: &SVector<Real, D>);
    /// Pose and velocity of a body as numbers, for a [`crate::Checkpoint`] (2D
    /// `[x, y, θ, vx, vy, ω]`; 3D `[x, y, z, qw, qx, qy, qz, vx, vy, vz, ωx, ωy, ωz]`).
    fn kinematic_state(body: &Self::Body) -> Vec<Real>;
    /// Set what [`Space::kinematic_state`] returned, bit for bit; refuses a wrong length, a
    /// non-finite number or (3D) a quaternion whose norm is not 1 to 1e-12.
    fn set_kinematic_state(body: &mut Self::Body, state: &[Real]) -> Result<(), &'static str>;
}
