//! The world itself: [`GenericWorld`] (bodies, settings, the solvers' memory between steps),
//! building it, control inputs between steps, kinetic energy and the position update (stage
//! 5), and the constraint measures the stages share (`start_violation`, `unseen_pairs`,
//! `constraint_gaps`) with their tolerances.
//! Does not own: the stages before integration (`mod.rs` and the files it names).

use super::params::WorldParams;
use super::space::Space;
use crate::basis::{KeyedUnknown, StoredBasis};
use nalgebra::SVector;
use signorini_contact::{ConstraintSet, ContactModel, ContactRow, DofBody};
use signorini_dynamics::BodyError;
use signorini_math::Real;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::marker::PhantomData;

/// Why a world could not be built or stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// The step size must be finite and positive.
    #[error("step size h must be finite and > 0, got {0}")]
    StepSize(Real),
    /// The friction coefficient must be finite and ≥ 0.
    #[error("friction coefficient must be finite and >= 0, got {0}")]
    Friction(Real),
    /// A body is invalid.
    #[error("body {index}: {source}")]
    Body {
        /// Body index.
        index: usize,
        /// Why.
        source: BodyError,
    },
    /// A [`crate::Checkpoint`] does not fit this world.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    /// A control input ([`GenericWorld::set_velocity`], [`GenericWorld::apply_wrench`]) was
    /// refused: no such body, a static body, or a non-finite value.
    #[error("control of body {index}: {reason}")]
    Control {
        /// Body index.
        index: usize,
        /// Why.
        reason: &'static str,
    },
}

/// Bodies and the stepper, for any [`Space`].
#[derive(Debug, Clone)]
pub struct GenericWorld<S: Space<D>, const D: usize> {
    /// All bodies (static and dynamic), in insertion order.
    pub bodies: Vec<S::Body>,
    /// Settings.
    pub params: WorldParams,
    /// Steps taken so far.
    pub steps: usize,
    /// Warm starts: the normal impulse (N·s) of each feature pair at the last step's accepted
    /// solve, keyed by feature pair with world body indices ([`WorldParams::warm_start`]).
    pub(crate) warm: BTreeMap<S::Key, Real>,
    /// The Lemke basis of the last step's last solve, with the constraint set it solved
    /// ([`WorldParams::reuse_basis`]; islands keep one per island, see `islands.rs`).
    pub(crate) basis: Option<StoredBasis<S::Key>>,
    /// The same per island, keyed by the island's members (world indices, static ones
    /// included).
    pub(crate) island_bases: BTreeMap<Vec<usize>, StoredBasis<S::Key>>,
    /// The unknowns basic in the last step's bases (world body indices), for a sparse Lemke
    /// warm start when a problem's set changed (`basis::flags_by_key`); empty unless a problem
    /// reached [`WorldParams::sparse_lemke_from`].
    pub(crate) basic: BTreeSet<KeyedUnknown<S::Key>>,
    pub(crate) space: PhantomData<S>,
}

/// A refused control input.
fn control(index: usize, reason: &'static str) -> WorldError {
    WorldError::Control { index, reason }
}

/// Stage 1 output.
pub(super) struct Predicted<G, const D: usize> {
    pub(super) now: G,
    pub(super) next: G,
    pub(super) free: Vec<SVector<Real, D>>,
    pub(super) pairs: Vec<(usize, usize)>,
}

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// An empty world.
    pub fn new(params: WorldParams) -> Result<Self, WorldError> {
        if !(params.h.is_finite() && params.h > 0.0) {
            return Err(WorldError::StepSize(params.h));
        }
        if !(params.mu.is_finite() && params.mu >= 0.0) {
            return Err(WorldError::Friction(params.mu));
        }
        Ok(GenericWorld {
            bodies: Vec::new(),
            params,
            steps: 0,
            warm: BTreeMap::new(),
            basis: None,
            island_bases: BTreeMap::new(),
            basic: BTreeSet::new(),
            space: PhantomData,
        })
    }

    /// Add a body after validating its state; returns its index.
    pub fn add_body(&mut self, body: S::Body) -> Result<usize, WorldError> {
        let index = self.bodies.len();
        S::validate(&body).map_err(|source| WorldError::Body { index, source })?;
        self.bodies.push(body);
        Ok(index)
    }

    /// The generalized velocity ν of body `id` (2D `(vx, vy, ω)`; 3D `(v, ω)`, world frame),
    /// `None` if there is no such body.
    pub fn velocity(&self, id: usize) -> Option<SVector<Real, D>> {
        self.bodies.get(id).map(S::velocity)
    }

    /// Control input: set the generalized velocity of dynamic body `id` (layout as in
    /// [`GenericWorld::velocity`]) before the next step.
    ///
    /// # Errors
    /// [`WorldError::Control`] for no such body, a static body or a non-finite velocity.
    pub fn set_velocity(&mut self, id: usize, v: SVector<Real, D>) -> Result<(), WorldError> {
        if !v.iter().all(|x| x.is_finite()) {
            return Err(control(id, "non-finite velocity"));
        }
        let body = self.dynamic_body_mut(id)?;
        S::set_velocity(body, &v);
        Ok(())
    }

    /// Control input: apply the wrench `w` (2D `(fx, fy, τ)`; 3D `(f, τ)`: N and N·m, world
    /// frame, about the centre of mass) to dynamic body `id` during the next step, on top of
    /// its constant external force (e.g. gravity). Applied now as the impulse `h w`:
    /// `ν ← ν + h M⁻¹ w`, which is what the next step's free flight `ν + h M⁻¹ (F_ext + w)`
    /// would add (up to rounding). Call it before every step the wrench should act.
    ///
    /// # Errors
    /// [`WorldError::Control`] for no such body, a static body or a non-finite wrench.
    pub fn apply_wrench(&mut self, id: usize, w: SVector<Real, D>) -> Result<(), WorldError> {
        if !w.iter().all(|x| x.is_finite()) {
            return Err(control(id, "non-finite wrench"));
        }
        let h = self.params.h;
        let body = self.dynamic_body_mut(id)?;
        let v = S::velocity(body) + body.inverse_mass_block().mul(&w) * h;
        S::set_velocity(body, &v);
        Ok(())
    }

    /// Body `id` if it exists and is dynamic.
    fn dynamic_body_mut(&mut self, id: usize) -> Result<&mut S::Body, WorldError> {
        match self.bodies.get_mut(id) {
            None => Err(control(id, "no such body")),
            Some(b) if b.is_static() => Err(control(id, "static body")),
            Some(b) => Ok(b),
        }
    }

    pub(super) fn kinetic_energy(&self, velocities: &[SVector<Real, D>]) -> Real {
        self.bodies
            .iter()
            .zip(velocities)
            .filter(|(b, _)| !b.is_static())
            .map(|(b, v)| S::kinetic_energy(b, v))
            .sum()
    }

    /// Stage 5: accept the velocities (non-finite ones are replaced by ν* and the step is
    /// marked failed by the caller's report only if a solve failed) and update positions.
    pub(super) fn integrate(&mut self, velocities: &[SVector<Real, D>]) {
        let h = self.params.h;
        for (b, v) in self.bodies.iter_mut().zip(velocities) {
            if b.is_static() {
                continue;
            }
            S::integrate(b, v, h);
        }
    }
}

pub use signorini_math::tolerance::APPROXIMATE_RESIDUAL_TOL as APPROXIMATE_TOLERANCE;

/// The most negative constraint value of a set at the current configuration: a U-constraint's
/// gap, an I/X-constraint's largest gap over its primary and secondaries (paper Eqs. 11, 15,
/// 16: the constraint holds iff that value is ≥ 0). +∞ for an empty set.
pub(crate) fn start_violation<C: ContactRow<D>, const D: usize>(set: &ConstraintSet<C>) -> Real {
    constraint_gaps(set).fold(Real::INFINITY, |m, (_, gap)| m.min(gap))
}

/// Each constraint's gap with its (primary) contact's index: a U-constraint's ψ, an I- or
/// X-constraint's largest member ψ (the constraint holds when any member does).
/// The body pairs (lower index first) of `set` with a constraint violated beyond
/// [`CORRECTION_TOLERANCE`] (a member of an I- or X-constraint may read negative while the
/// constraint holds): the pairs that [`Space::unseen`] leaves to the constraints.
fn violated_pairs<S: Space<D>, const D: usize>(
    set: &ConstraintSet<S::Contact>,
) -> std::collections::BTreeSet<(usize, usize)> {
    constraint_gaps(set)
        .filter(|&(_, gap)| gap < -CORRECTION_TOLERANCE)
        .map(|(k, _)| {
            let (a, b) = S::key_bodies(&S::key(&set.contacts[k]));
            (a.min(b), a.max(b))
        })
        .collect()
}

/// PEG's candidate pairs that interpenetrate (`overlaps(i, j)`, each dimension's exact
/// measure) while no constraint of `set` between them is violated: the pairs that
/// [`Space::unseen`] gives the corrective detector's contacts (both dimensions; none for the
/// other models, which detect by distance or overlap already).
pub(crate) fn unseen_pairs<S: Space<D>, const D: usize>(
    params: &WorldParams,
    bodies: &[S::Body],
    geometry: &S::Geometry,
    set: &ConstraintSet<S::Contact>,
    overlaps: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    if params.model != ContactModel::Peg {
        return Vec::new();
    }
    let seen = violated_pairs::<S, D>(set);
    let eps = S::detection_distance(params);
    S::candidate_pairs(bodies, geometry, geometry, eps)
        .into_iter()
        .filter(|&(i, j)| !seen.contains(&(i.min(j), i.max(j))) && overlaps(i, j))
        .collect()
}

pub(crate) fn constraint_gaps<C: ContactRow<D>, const D: usize>(
    set: &ConstraintSet<C>,
) -> impl Iterator<Item = (usize, Real)> + '_ {
    let unilateral = set.unilateral.iter().map(|&k| (k, set.contacts[k].gap()));
    let pairs = set.inter.iter().chain(set.cross.iter()).map(|p| {
        let gap = p
            .secondaries
            .iter()
            .fold(set.contacts[p.primary].gap(), |m, &s| {
                m.max(set.contacts[s].gap())
            });
        (p.primary, gap)
    });
    unilateral.chain(pairs)
}

pub use signorini_math::tolerance::GAP_CORRECTION_TOL as CORRECTION_TOLERANCE;
