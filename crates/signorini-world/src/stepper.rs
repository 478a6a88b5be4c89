//! The Stewart–Trinkle velocity-level stepper with ψ/h stabilisation (paper Eqs. 8–9 for the
//! standard model, Eqs. 48–49 for PEG; docs/formulation-notes.md §3–§4), written once for 2D and 3D.
//!
//! Data flow of one step (one function per stage):
//! ```text
//! bodies ──predict_and_broad_phase──▶ (geometry now and at pose + hν, ν*, pairs)
//!        ──detect──────────────────▶ ConstraintSet (contacts; U/I/X by model)
//!        ──formulate───────────────▶ Formulation (unknowns, rows; reduced LCP or mixed LCP)
//!        ──solve───────────────────▶ ν^{ℓ+1} (reduced LCP; fallback mixed LCP; else ν*)
//!        ──correct_gaps────────────▶ ν^{ℓ+1} re-solved with corrected ψ (optional)
//!        ──integrate───────────────▶ x ← x + h v, orientation ← orientation ⊕ h ω
//! ```
//! [`GenericWorld`] owns the stage order, the solver fallbacks, the gap-correction loop and the
//! report; a [`Space`] supplies what depends on the dimension: body and contact types,
//! world-frame geometry at a configuration, the broad phase, detection per contact model,
//! re-measuring a contact's gap, and the position update. [`crate::World`] is the 2D
//! instance ([`crate::Planar`], 3 velocity components per body) and [`crate::World3`] the 3D
//! one ([`crate::Spatial`], 6 components).
//! Owns: [`GenericWorld`], [`Space`], [`WorldParams`]. Does not own: the contact models
//! themselves.

use crate::basis::{
    KeyedUnknown, Signature, StoredBasis, basic_unknowns, embedding, flags_by_key, keyed_unknowns,
};
use crate::pool::ContactPool;
use crate::reduced_cache::ReducedCache;
use crate::report::{RoundReport, StageTimes, StepReport};
use nalgebra::{DVector, SVector};
use signorini_complementarity::{
    CscMatrix, FACTOR_RESTART_FROM, Lcp, LemkeFactor, ProximalLemkeParams, SolveError, SolveParams,
    SolverKind, SparseLemkeMatrix, SparseMcp, lcp_natural_residual, lemke_proximal,
    polish_small_lcp, solve_mcp, solve_sparse, work_estimate,
};
use signorini_contact::dim3::VertexVertex;
use signorini_contact::{
    BlockGsParams, ConstraintSet, ContactModel, ContactRow, DEFAULT_FRICTION_DIRECTIONS, DofBody,
    Formulation, FormulationError, PegForm, XImpulse,
};
use signorini_dynamics::{BodyError, Gyroscopic};
use signorini_math::Real;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

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

/// Stepper settings.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldParams {
    /// Step size h (s).
    pub h: Real,
    /// Contact model.
    pub model: ContactModel,
    /// Friction coefficient μ (0 = frictionless, the pouring experiments).
    pub mu: Real,
    /// Solver for the reduced LCP (`Auto` runs the complementarity crate's fallback chain).
    /// The rescues after it fails use `Auto` whatever this says: the mixed-form retry and
    /// the position projection of a failed step.
    pub solver: SolverKind,
    /// PEG potential-contact distance; `None` = ε(h) = max(0.5h, 0.0008) (docs/formulation-notes.md §5.3).
    pub peg_distance: Option<Real>,
    /// Standard-model detection distance; `None` = the dimension's reference value (2D
    /// 0.07 m, 3D 0.1 m; docs/formulation-notes.md §5.6).
    pub standard_distance: Option<Real>,
    /// Retry a failed reduced LCP in the mixed (MCP) form. Both forms have the same solutions,
    /// so this only helps when the failure was numerical; it roughly doubles the cost of a
    /// step whose problem has no solution (standard-model traps). Default true.
    pub mixed_fallback: bool,
    /// Gap-correction re-solves per step (0 = none; the paper's stepper with every addition off
    /// is [`WorldParams::paper`]). Ours, not in the paper
    /// or the reference code: after a solve, every contact's gap is re-measured at the
    /// resulting configuration; if a constraint is violated there (the linearised gap of
    /// paper Eq. 8/48 missed a second-order term, e.g. rotation × translation), each contact's
    /// ψ is lowered by its observed linearisation error and the same subproblem is solved
    /// again. Same constraints, same stepper; only the ψ/h constants change.
    pub gap_corrections: usize,
    /// When every solve of a step fails, continue from the least-residual attempt (the best
    /// iterate a failed solver returns) instead of the free-flight velocities ν*. Ours, not in
    /// the paper or the reference code (PATH's failures there end the run). Default **true**:
    /// on a step with contacts, ν* ignores every constraint, so the bodies sink by about
    /// h·|v| + h²g into each other and the next step's ψ/h term turns that depth into an
    /// ejection; a best iterate approximately satisfies the complementarity conditions and
    /// is never further from a solution than ν* (the iterate z = 0 *is* ν*). Safeguard: the
    /// kept velocities must not have more than twice the kinetic energy of ν* (+1 nJ), else
    /// ν* is kept. Either way the step is still counted as failed (`StepReport::failed`);
    /// `StepReport::kept_best` says which velocities were used. The ε-distance standard
    /// model's unsolvable steps (two colluding SM traps: a PSD reduced LCP on which Lemke
    /// ends on a ray) are what this is for; see docs/peg2d.md.
    pub keep_best_on_failure: bool,
    /// Friction-pyramid directions per contact in 3D (default 8); 2D always uses ±t̂.
    pub friction_directions: usize,
    /// Split impulse for penetration present at the start of a step. Ours, not in the paper
    /// or the reference code (default false, as the paper). When a constraint is
    /// already violated by more than [`CORRECTION_TOLERANCE`] at the current configuration
    /// (e.g. a body dropped into another), the ψ/h term of paper Eqs. 8/48 needs velocities
    /// of depth/h to remove it in one step (6 cm in 3 ms: 20 m/s), and the stepper would keep
    /// them as physical velocities. With this on, the positions are still updated with those
    /// velocities (the penetration is removed within the step), but the velocities carried
    /// to the next step come from a second solve of the same constraints with every gap
    /// clamped to ψ⁺ = max(ψ, 0): the velocity problem without the position error, whose
    /// impulses can only remove kinetic energy from free flight (split impulse, as in
    /// post-stabilisation: Cline & Pai, ICRA 2003). Reported in `StepReport::split`. With
    /// this on, a step whose gap corrections end still interpenetrating, or whose solve
    /// failed, is also followed by the position projection (`project_positions`;
    /// `StepReport::projections`).
    pub split_penetration: bool,
    /// Deterministic work budget of each complementarity solve of a step
    /// (`SolveParams::work_limit`, multiply–adds; `None` = unlimited, the default), raised for
    /// a problem of n unknowns to at least [`FLOOR_PIVOTS`]·n Lemke pivots (3n³ as
    /// `work_estimate` counts them), so that a large island is cut short only when it is
    /// unsolvable, not because it is large. A step
    /// makes at most 2 (reduced, mixed) × (1 + `gap_corrections` + 1 split) solves and a
    /// failed solve ends the corrections, so this bounds the work of a step; a solve cut short
    /// by it fails like any other (best iterate, `StepReport::budget_exhausted`).
    pub solve_work_limit: Option<Real>,
    /// Split each step into contact islands (connected components of the dynamic bodies under
    /// the broad phase's pairs; static bodies join none) and solve them independently, in
    /// parallel, merged in a fixed order (bit-identical whatever the thread count). Default
    /// true. False solves the whole world as one problem (the same solution up to the
    /// solver's tolerance, at the cost of one problem of every contact in the world).
    pub islands: bool,
    /// Start each step's first solve from the previous step's normal impulses of the same
    /// feature pairs (0 for new pairs), and each gap-correction re-solve from the solve
    /// before it. Default **false**: measured on the 27-body pile, Lemke takes fewer pivots
    /// from a warm start but turns it into a basis by an O(n³) factorisation, which cost more
    /// than the pivots saved (84 against 32 ms/step); and on resting stacks the sparse Newton
    /// method took more iterations from the warm start than from a cold one (redundant
    /// coplanar contacts make the previous answer a degenerate point of the Fischer–Burmeister
    /// function). The solution is the same (to the solver's tolerance); only the work changes.
    pub warm_start: bool,
    /// Problems (islands) with more unknowns than this are assembled sparse and solved by the
    /// sparse semismooth Newton method; smaller ones densely by the `auto` chain (Lemke
    /// first). Default [`DEFAULT_DENSE_LIMIT`]. With friction (μ > 0) the limit is the
    /// smaller of this and [`WorldParams::friction_dense_limit`].
    pub dense_limit: usize,
    /// The dense limit of problems with friction (μ > 0): islands with more unknowns go to
    /// the sparse solver. Default [`DEFAULT_FRICTION_DENSE_LIMIT`].
    pub friction_dense_limit: usize,
    /// Problems (islands) with at least this many unknowns are first solved by the sparse
    /// Lemke (`lemke_sparse`: the reduced LCP kept sparse, the basis factored by faer's sparse
    /// LU), warm-started from the last basis, whichever route their size gives them
    /// ([`WorldParams::dense_limit`]); that route's solvers run only if it fails (the rescue
    /// first, from where it stopped). Default [`DEFAULT_SPARSE_LEMKE_FROM`]; `usize::MAX`
    /// turns it off, on every island (the band of [`WorldParams::sparse_warm_from`] too).
    pub sparse_lemke_from: usize,
    /// Problems (islands) with at least this many unknowns, but fewer than
    /// [`WorldParams::sparse_lemke_from`], are first solved by the sparse Lemke when it can
    /// start warm — from the last basis of this island (matched by key when the set
    /// changed since) — and no factored basis of the same unknowns is at hand (which the
    /// dense route re-solves in O(n·k), as on a resting stack); otherwise by the dense chain,
    /// cold. Default [`DEFAULT_SPARSE_WARM_FROM`]; `usize::MAX` turns it off, and so does
    /// `sparse_lemke_from = usize::MAX` (the sparse Lemke off altogether).
    pub sparse_warm_from: usize,
    /// Problems (islands) with at least this many unknowns give the sparse Lemke one run,
    /// from its warm start, of at most n pivots (smaller ones: 10 n, then a cold run of as
    /// many), and go to the proximal stage as soon as it fails, before the rescue. Default
    /// [`DEFAULT_SHORT_LEMKE_FROM`]; `usize::MAX` turns it off.
    pub short_lemke_from: usize,
    /// Answer a step's re-solves (gap corrections, split impulse), whose problems differ from
    /// the solve before them only in q, from that solve's final Lemke basis when it is still
    /// feasible ([`LemkeFactor::resolve`], O(n·k) instead of a Lemke run), each answer
    /// certified by its residual. Default true. The answer is a solution of the same problem
    /// to the same tolerance; on degenerate problems it may be another solution than a cold
    /// Lemke run would find. Counted in `StepReport::basis_reuses`.
    pub reuse_basis: bool,
    /// Detect PEG contacts with the rules of the paper and the authors' reference code only,
    /// without the project's detection additions: in 2D no edge-crossing test, no deep-vertex
    /// pairing and no applicability at the predicted orientation
    /// (`signorini_contact::PotentialRules::PAPER`); in 3D no crossing safety net and no
    /// deep-vertex U-constraint (`Peg3Params::crossing_net`, `Peg3Params::deep_vertices`).
    /// Default **false** (the additions on). Set by [`WorldParams::paper`].
    pub paper_detection: bool,
    /// 3D only (2D has no gyroscopic torque): how the free-flight velocity carries the
    /// gyroscopic torque −ω × Jω ([`Gyroscopic`]; scene files `[step] gyroscopic`, the CLI's
    /// `--gyroscopic`). Default [`Gyroscopic::Midpoint`] (the body-frame implicit midpoint
    /// rule: a free body keeps |L| and its kinetic energy to round-off);
    /// [`Gyroscopic::Implicit`] is Catto's one-Newton-step implicit update (stable,
    /// dissipative); [`Gyroscopic::Off`] drops the term (the authors' code, and this project
    /// before issue 22). Every preset, [`WorldParams::paper`] included, uses the default: the
    /// paper's Newton–Euler equation (Eq. 7) has the velocity-product forces, only the
    /// authors' code drops them.
    pub gyroscopic: Gyroscopic,
    /// 3D PEG only: how a vertex near a vertex of the other body is constrained
    /// ([`VertexVertex`]; scene files `[contact] vertex_vertex`). Default
    /// [`VertexVertex::Cone`], in every preset: the paper's Eq. 38 is lost from its text and
    /// the authors' code leaves the case unfinished, so every form is ours; the cone form is
    /// the one exact against the brute-force test (docs/peg3d.md).
    pub vertex_vertex: VertexVertex,
    /// PEG only: the I-constraint form ([`PegForm`]; scene files `[contact] peg_form`, the
    /// CLI's `--peg-form`). Default [`PegForm::SinglePrimary`] (paper Eq. 24, as the paper's
    /// experiments), in every preset; [`PegForm::General`] is the general form with |C_ι| > 1
    /// (paper Eqs. 20–23, our reconstruction; `Formulation`). Measured against each other on
    /// pour2d and pour3d in docs/peg2d.md ("General form and paper-form X").
    pub peg_form: PegForm,
    /// PEG only: whether an X-constraint's primary carries an impulse ([`XImpulse`]; scene
    /// files `[contact] x_impulse`, the CLI's `--x-impulse`). Default [`XImpulse::Primary`]
    /// (the authors' code), in every preset; [`XImpulse::Paper`] is the paper's form (no
    /// impulse).
    pub x_impulse: XImpulse,
}

/// A solve budget ([`WorldParams::solve_work_limit`]) is raised for a problem of n unknowns to
/// at least this many times n Lemke pivots. 3, because the landing steps of the 2D pile of 400
/// bodies need 1.6–1.8 n pivots (1,504 for 851 unknowns): with a floor of n pivots, steps
/// 201–325 of that pile from rest had 7 failed steps against 2 in 201–344 with 3n, at 11.5
/// against 9.1 s/step (single runs beside the same other jobs; docs/peg3d.md, item 21). With
/// PEG's budget of 1e9 it
/// acts only from 694 unknowns on, so no problem of the pour experiments is affected.
pub const FLOOR_PIVOTS: usize = 3;

/// Gap-correction re-solves per PEG step in [`WorldParams::signorini`] (the CLI's default).
pub const DEFAULT_GAP_CORRECTIONS: usize = 8;

/// Work budget of each PEG solve in [`WorldParams::signorini`]
/// ([`WorldParams::solve_work_limit`], multiply–adds): about 0.2–1 s, Lemke gets ≥ 3n pivots
/// up to n ≈ 700 unknowns (above, [`FLOOR_PIVOTS`] raises it to 3n) and the whole default
/// chain below n ≈ 150, so only very large unsolvable subproblems are cut short (a pour3d step
/// with 667 unknowns once took 61 s).
pub const PEG_SOLVE_WORK_LIMIT: Real = 1e9;

/// Three presets, from the most to the least faithful to the paper:
///
/// | constructor | what it is | PEG gap corrections | split impulse | solve budget | mixed-form retry (baselines) | islands, basis reuse, keep-best, detection additions |
/// |---|---|---|---|---|---|---|
/// | [`WorldParams::paper`] | the paper's stepper (CLI `--paper`) | 0 | off | none | on | off |
/// | [`WorldParams::new`] | the bare stepper: the paper's formulation with the project's solver-side additions | 0 | off | none | on | on |
/// | [`WorldParams::signorini`] | **the default**: what `signorini run` and every experiment use | 8 | on | [`PEG_SOLVE_WORK_LIMIT`] | off | on |
/// | [`WorldParams::signorini_uniform`] | the ablation's Signorini stepper: PEG's settings of the default for every model | 8 (every model) | on (every model) | [`PEG_SOLVE_WORK_LIMIT`] (every model) | off | on |
///
/// Use [`WorldParams::signorini`] unless you are reproducing the paper; the fields can be
/// changed after construction.
impl WorldParams {
    /// The bare stepper for a model and step size: the paper's formulation (no gap
    /// corrections, no split impulse, no solve budget) with the project's solver-side
    /// additions on (islands, basis reuse, keep-best-on-failure, the detection additions,
    /// the mixed-form retry). Neither the paper's stepper ([`WorldParams::paper`]) nor the
    /// CLI's defaults ([`WorldParams::signorini`]), which both start from it.
    pub fn new(model: ContactModel, h: Real) -> Self {
        WorldParams {
            h,
            model,
            mu: 0.0,
            solver: SolverKind::Auto,
            peg_distance: None,
            standard_distance: None,
            mixed_fallback: true,
            gap_corrections: 0,
            keep_best_on_failure: true,
            friction_directions: DEFAULT_FRICTION_DIRECTIONS,
            split_penetration: false,
            solve_work_limit: None,
            islands: true,
            warm_start: false,
            dense_limit: DEFAULT_DENSE_LIMIT,
            friction_dense_limit: DEFAULT_FRICTION_DENSE_LIMIT,
            sparse_lemke_from: DEFAULT_SPARSE_LEMKE_FROM,
            sparse_warm_from: DEFAULT_SPARSE_WARM_FROM,
            short_lemke_from: DEFAULT_SHORT_LEMKE_FROM,
            reuse_basis: true,
            paper_detection: false,
            gyroscopic: Gyroscopic::default(),
            vertex_vertex: VertexVertex::default(),
            peg_form: PegForm::default(),
            x_impulse: XImpulse::default(),
        }
    }

    /// The paper's stepper with every project addition off (`--paper`): Stewart–Trinkle with
    /// the model's constraints and ψ/h (paper Eqs. 8–9 / 48–49), one solve per step, nothing
    /// re-measured. Against [`WorldParams::new`] it sets `gap_corrections = 0`,
    /// `split_penetration = false` (and with it the position projection, which runs only
    /// when it is on), `keep_best_on_failure = false` (a step whose solves all fail keeps the
    /// free-flight velocities), `reuse_basis = false`, `warm_start = false`, `islands = false`
    /// (one problem per step, as the paper), `solve_work_limit = None` and
    /// `paper_detection = true`. What stays ours because the paper has no alternative that
    /// runs: the solver (Lemke on the reduced LCP, then the `auto` chain and the mixed LCP as
    /// fallbacks — the paper hands the mixed LCP to PATH) and, in 3D, our construction of the
    /// constraints from the faces within ε_pair (docs/peg3d.md).
    pub fn paper(model: ContactModel, h: Real) -> Self {
        WorldParams {
            gap_corrections: 0,
            split_penetration: false,
            keep_best_on_failure: false,
            reuse_basis: false,
            warm_start: false,
            islands: false,
            solve_work_limit: None,
            mixed_fallback: true,
            paper_detection: true,
            ..WorldParams::new(model, h)
        }
    }

    /// The project's defaults, what `signorini run` and every experiment use (the preset
    /// `signorini_harness::presets::experiment_params` calls): [`WorldParams::new`] plus,
    /// for PEG, [`DEFAULT_GAP_CORRECTIONS`] gap corrections, the split impulse and position
    /// projection, and the solve budget [`PEG_SOLVE_WORK_LIMIT`]; for the baselines (standard,
    /// corrective) the paper's solve without the mixed-form retry (it has the same solutions
    /// as the reduced LCP and only doubles the cost of the many unsolvable standard-model
    /// steps). See [`WorldParams::signorini_with_corrections`] for another count.
    pub fn signorini(model: ContactModel, h: Real) -> Self {
        Self::signorini_with_corrections(model, h, DEFAULT_GAP_CORRECTIONS)
    }

    /// [`WorldParams::signorini`] with `gap_corrections` re-solves per PEG step instead of
    /// [`DEFAULT_GAP_CORRECTIONS`] (the split impulse is on only when `gap_corrections > 0`);
    /// the baselines ignore the count.
    pub fn signorini_with_corrections(
        model: ContactModel,
        h: Real,
        gap_corrections: usize,
    ) -> Self {
        let mut p = WorldParams::new(model, h);
        if model == ContactModel::Peg {
            p.gap_corrections = gap_corrections;
            p.split_penetration = gap_corrections > 0;
            p.solve_work_limit = Some(PEG_SOLVE_WORK_LIMIT);
        } else {
            p.mixed_fallback = false;
        }
        p
    }

    /// The project's stepper with every addition applied to every model where it applies:
    /// PEG's settings of [`WorldParams::signorini_with_corrections`] whatever the model, so the
    /// standard and corrective models get the same stepper as PEG. This is the ablation's
    /// "Signorini stepper" (`signorini experiment ablation`, docs/peg2d.md); the defaults
    /// ([`WorldParams::signorini`]) keep the baselines without the gap corrections, the split
    /// impulse and the solve budget. For PEG the result equals
    /// [`WorldParams::signorini_with_corrections`]; for the baselines it adds
    /// `gap_corrections` re-solves, the split impulse with the position projection and the
    /// solve budget [`PEG_SOLVE_WORK_LIMIT`]. Besides `model`, one field differs from PEG's:
    /// the baselines keep the default's `mixed_fallback = false`, the retry of a failed
    /// reduced LCP in the mixed form, which is no addition (the paper's stepper has it) and
    /// has the same solutions as the reduced LCP; with it the standard model's many unsolvable
    /// steps cost about twice as much. Where an addition cannot act:
    /// the detection additions (`paper_detection = false`) are rules of PEG's detection and
    /// change nothing for the baselines; a gap correction re-measures feature pairs, which the
    /// corrective model's whole-body contacts do not have, so for corrective it can only
    /// re-solve the same subproblem (2D: never triggered; 3D: when a vertex is found inside
    /// another body at the trial pose), and only PEG adds the feature pairs found at the trial
    /// pose to the re-solve.
    pub fn signorini_uniform(model: ContactModel, h: Real, gap_corrections: usize) -> Self {
        WorldParams {
            model,
            mixed_fallback: model == ContactModel::Peg,
            ..Self::signorini_with_corrections(ContactModel::Peg, h, gap_corrections)
        }
    }

    /// True if every project addition is off (the preset [`WorldParams::paper`] whatever the
    /// model, step, friction, solver and distances).
    pub fn is_paper(&self) -> bool {
        self.gap_corrections == 0
            && !self.split_penetration
            && !self.keep_best_on_failure
            && !self.reuse_basis
            && !self.warm_start
            && !self.islands
            && self.solve_work_limit.is_none()
            && self.paper_detection
    }
}

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
    /// [`CORRECTION_TOLERANCE`] in a way the constraint set does not see.
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
struct Predicted<G, const D: usize> {
    now: G,
    next: G,
    free: Vec<SVector<Real, D>>,
    pairs: Vec<(usize, usize)>,
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

    /// Advance one step of size h; never panics, failures are recorded in the report.
    /// With [`WorldParams::islands`] (the default) the step is split into contact islands
    /// solved in parallel (`islands.rs`); otherwise the whole world is one problem.
    pub fn step(&mut self) -> StepReport {
        if self.params.islands {
            self.step_islands()
        } else {
            self.step_whole()
        }
    }

    /// One step of the whole world as one complementarity problem (also the step of each
    /// island, on a world holding only the island's bodies).
    pub(crate) fn step_whole(&mut self) -> StepReport {
        let mut report = StepReport {
            step: self.steps,
            ..Default::default()
        };
        let mut times = StageTimes::default();
        let t = Instant::now();
        let pred = self.predict_and_broad_phase();
        times.broad_phase = t.elapsed().as_secs_f64();
        report.pairs = pred.pairs.len();

        let t = Instant::now();
        let set = S::detect(
            &self.params,
            &self.bodies,
            &pred.now,
            &pred.next,
            &pred.pairs,
        );
        times.detection = t.elapsed().as_secs_f64();
        report.counts = set.counts();

        let t = Instant::now();
        let form = (!set.is_empty()).then(|| self.formulate(&set));
        times.formulation = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut solved = BTreeMap::new();
        let mut factor = None;
        // The last step's basis, if this step's set has the same unknowns (a pile at rest).
        let signature = Signature::of(&set, S::key);
        let previous = self
            .basis
            .take()
            .filter(|b| self.params.reuse_basis && b.signature == signature)
            .map(|b| b.factor);
        // Another set than the last step's: the sparse Lemke may still start from the last
        // step's basis, matched by what each unknown stands for.
        // (The keyed unknowns are computed once: the stored basis below needs them too.)
        let mut keyed = None;
        // The sparse reduced matrix, shared by this step's solves of one configuration.
        let mut reduced = ReducedCache::default();
        let key_flags = form.as_ref().and_then(|f| {
            (previous.is_none() && !self.basic.is_empty() && f.dim() >= self.sparse_from())
                .then(|| flags_by_key(&self.basic, keyed.insert(keyed_unknowns(f, &set, S::key))))
        });
        let mut velocities = match &form {
            None => pred.free.clone(),
            Some(f) => {
                let warm = Warm {
                    from: &self.warm,
                    to: &mut solved,
                    basis: previous,
                    basis_map: None,
                    key_flags,
                    rescue_first: false,
                    proximal_first: false,
                    centre: false,
                    resume_epsilon: None,
                    basis_to: self.params.reuse_basis.then_some(&mut factor),
                    reduced: Some(&mut reduced),
                };
                self.solve(f, &set, &pred.free, warm, &mut report)
            }
        };
        times.solve = t.elapsed().as_secs_f64();
        if let Some(f) = &form {
            // Round 0: the step's first solve, reported as the rounds after it are (on the
            // 1,000-body pile it can take minutes with nothing else to say which method ran).
            report.rounds.push(RoundReport {
                island: 0,
                round: 0,
                unknowns: f.dim(),
                depth: 0.0,
                unseen: false,
                answer: round_answer(&report),
                iterations: report.iterations,
                residual: report
                    .kept_best
                    .filter(|_| report.failed)
                    .unwrap_or(report.residual),
                seconds: times.solve,
            });
        }

        let t = Instant::now();
        let (mut carried, mut still_violated) = (None, false);
        let mut last = factor.zip(form.as_ref()).map(|(factor, f)| StoredBasis {
            signature,
            unknowns: keyed
                .take()
                .unwrap_or_else(|| keyed_unknowns(f, &set, S::key)),
            factor,
        });
        if form.is_some() && !report.failed {
            let first = last.as_ref().map(|b| b.factor.clone());
            carried = self.split_velocities(
                &set,
                &pred.free,
                (&solved, &first),
                &mut reduced,
                &mut report,
            );
            (velocities, still_violated) = self.correct_gaps(
                set,
                velocities,
                &pred,
                (&mut solved, &mut last),
                &mut reduced,
                &mut report,
            );
        }
        self.basis = last.filter(|_| !report.failed);
        self.basic = self
            .basis
            .as_ref()
            .filter(|b| b.factor.dim() >= self.sparse_from())
            .map(basic_unknowns)
            .unwrap_or_default();
        self.warm = solved;
        times.gap_corrections = t.elapsed().as_secs_f64();

        let (t, mut projection) = (Instant::now(), 0.0);
        self.integrate(&velocities);
        if let Some(carried) = carried {
            for (b, v) in self.bodies.iter_mut().zip(&carried) {
                if !b.is_static() && v.iter().all(|x| x.is_finite()) {
                    S::set_velocity(b, v);
                }
            }
            let tp = Instant::now();
            self.project_positions(&mut report);
            projection = tp.elapsed().as_secs_f64();
        } else if (still_violated || report.failed) && self.params.split_penetration {
            // The gap corrections ended with the step still interpenetrating (their rounds
            // ran out, a re-solve failed, or one injected energy and was undone), or the
            // step's solve failed and no correction ran: project the positions out now
            // rather than let the next step's split remove it. (A failed step that skipped
            // this let the 2D pile of 400 bodies sink into itself: 31 failed steps and
            // 4.7e-2 m² of overlap by step 284.)
            let tp = Instant::now();
            self.project_positions(&mut report);
            projection = tp.elapsed().as_secs_f64();
        }
        times.integration = t.elapsed().as_secs_f64() - projection;
        times.gap_corrections += projection;
        report.times = times;
        report.largest_unknowns = report.unknowns;
        report.islands = usize::from(report.unknowns > 0);
        report.largest_island = self.bodies.iter().filter(|b| !b.is_static()).count();
        report.failed_islands = usize::from(report.failed);
        self.steps += 1;
        report
    }

    /// Stage 1: geometry now and at the predicted pose (pose + hν), free-flight velocities
    /// ν* = ν + hM⁻¹F, and candidate pairs (boxes of the current ∪ predicted geometry inflated
    /// by the detection distance; static–static pairs skipped).
    fn predict_and_broad_phase(&self) -> Predicted<S::Geometry, D> {
        let h = self.params.h;
        let now = S::geometry(&self.bodies);
        let current: Vec<SVector<Real, D>> = self.bodies.iter().map(S::velocity).collect();
        let next = S::moved(&self.bodies, &current, h);
        let free = self
            .bodies
            .iter()
            .map(|b| {
                if b.is_static() {
                    SVector::zeros()
                } else {
                    S::free_velocity(b, h, &self.params)
                }
            })
            .collect();
        let margin = S::detection_distance(&self.params);
        let pairs = S::candidate_pairs(&self.bodies, &now, &next, margin);
        Predicted {
            now,
            next,
            free,
            pairs,
        }
    }

    /// Stage 3: the complementarity subproblem of a constraint set.
    fn formulate(&self, set: &ConstraintSet<S::Contact>) -> Formulation<D> {
        Formulation::build_with_directions(
            set,
            self.params.h,
            self.params.mu,
            self.params.friction_directions,
        )
    }

    /// Stage 4a (optional, [`WorldParams::split_penetration`]): if the set is violated at the
    /// current configuration by more than [`CORRECTION_TOLERANCE`], the velocities to carry to
    /// the next step, solved with every gap clamped to ψ⁺ = max(ψ, 0). `None` if not needed
    /// or if that solve fails (then the step behaves as without the split).
    fn split_velocities(
        &self,
        set: &ConstraintSet<S::Contact>,
        free: &[SVector<Real, D>],
        (first, factor): (&BTreeMap<S::Key, Real>, &Option<Arc<LemkeFactor>>),
        reduced: &mut ReducedCache<D>,
        report: &mut StepReport,
    ) -> Option<Vec<SVector<Real, D>>> {
        let depth = -start_violation(set);
        if !self.params.split_penetration || depth <= CORRECTION_TOLERANCE {
            return None;
        }
        let mut clamped = set.clone();
        for c in &mut clamped.contacts {
            let g = S::gap_mut(c);
            *g = g.max(0.0);
        }
        let mut sub = StepReport::default();
        let warm = Warm {
            from: first,
            to: &mut BTreeMap::new(),
            basis: factor.clone(),
            basis_map: None,
            key_flags: None,
            rescue_first: false,
            proximal_first: false,
            centre: false,
            resume_epsilon: None,
            basis_to: None,
            reduced: Some(reduced),
        };
        let v = self.solve(&self.formulate(&clamped), &clamped, free, warm, &mut sub);
        report.budget_exhausted |= sub.budget_exhausted;
        report.basis_reuses += sub.basis_reuses;
        if sub.failed {
            report
                .fallbacks
                .push(format!("split impulse skipped: {:?}", sub.failure));
            return None;
        }
        report.split = Some(depth);
        report.iterations += sub.iterations;
        Some(v)
    }

    /// Stage 5b (split steps, and steps whose gap corrections ended still interpenetrating,
    /// both only with `split_penetration`): position projection. If the configuration reached still
    /// violates the model's constraints by more than [`CORRECTION_TOLERANCE`] (the first
    /// solve's linearisation about the start configuration does not hold for the
    /// centimetre-scale motion that removes a deep penetration), detect the constraints again
    /// *at that configuration*, solve the same subproblem for pseudo-velocities with zero free
    /// velocity (ψ/h only) and move the bodies by h times them, keeping their velocities; at
    /// most `gap_corrections` times. Post-stabilisation (Cline & Pai, ICRA 2003), each pass
    /// re-linearised where the last one ended. Counted in `StepReport::projections`.
    ///
    /// Also run, with the same safeguards, after a step without a split whose gap corrections
    /// ended still interpenetrating, and after a step whose solve failed. The energy reference is the larger of the split depth
    /// and the depth found at the first pass: the projection must remove what it finds, and a
    /// landing step's corrections can end deeper than the step began (3D pile of 27 bodies,
    /// step 69: split depth ≪ 1.6e-3 m found, the projection stopped as "too energetic" and
    /// left 9.4e-7 m³).
    fn project_positions(&mut self, report: &mut StepReport) {
        let h = self.params.h;
        let margin = S::detection_distance(&self.params);
        let zeros = vec![SVector::<Real, D>::zeros(); self.bodies.len()];
        let mut reference = report.split;
        // After a failed step the configured solver has just failed on this configuration:
        // the projection's solves use the Auto chain, as the mixed-form retry does.
        let configured = (self.params.solver, self.params.mu);
        if report.failed {
            self.params.solver = SolverKind::Auto;
        }
        // The projection moves bodies out of each other along the constraint normals only
        // (Cline & Pai 2003 project the non-penetration constraints): friction rows would
        // make its subproblem (2 + directions)× larger and, with zero free velocity, only
        // resist the tangential part of the pseudo-velocity. So its solves are frictionless
        // (and take the frictionless dense limit).
        self.params.mu = 0.0;
        for _ in 0..self.params.gap_corrections {
            let now = S::geometry(&self.bodies);
            let pairs = S::candidate_pairs(&self.bodies, &now, &now, margin);
            let mut set = S::detect(&self.params, &self.bodies, &now, &now, &pairs);
            // Interpenetration the detection at this configuration does not see (3D PEG:
            // edges that crossed during the step, no vertex inside) is projected out too.
            for c in S::unseen(&self.params, &self.bodies, &now, &set) {
                set.unilateral.push(set.contacts.len());
                set.contacts.push(c);
            }
            let depth = -start_violation(&set);
            if depth <= CORRECTION_TOLERANCE {
                break;
            }
            let reference = *reference.insert(reference.map_or(depth, |r: Real| r.max(depth)));
            let mut sub = StepReport::default();
            let warm = Warm {
                from: &BTreeMap::new(),
                to: &mut BTreeMap::new(),
                basis: None,
                basis_map: None,
                key_flags: None,
                rescue_first: false,
                proximal_first: false,
                centre: false,
                resume_epsilon: None,
                basis_to: None,
                reduced: None,
            };
            let v = self.solve(&self.formulate(&set), &set, &zeros, warm, &mut sub);
            report.budget_exhausted |= sub.budget_exhausted;
            report.projection_unknowns = report.projection_unknowns.max(sub.unknowns);
            let (energy, limit) = (
                self.kinetic_energy(&v),
                2.0 * self.penetration_energy(Some(reference)) + 1e-9,
            );
            if sub.failed || energy > limit {
                // Why, with what the pass's solve said (a step of the 2D pile of 2,500 ended
                // with 4e-2 m² of overlap after this line alone; session 36).
                let why = if sub.failed {
                    format!(
                        "its solve failed: {}",
                        sub.failure.as_deref().unwrap_or("no reason given")
                    )
                } else {
                    format!("too energetic: {energy:e} J > {limit:e} J")
                };
                report.fallbacks.push(format!(
                    "position projection stopped at pass {} ({} unknowns, depth {depth:e}): {why}",
                    report.projections + 1,
                    sub.unknowns
                ));
                report.fallbacks.extend(
                    sub.fallbacks
                        .iter()
                        .map(|f| format!("projection pass {}: {f}", report.projections + 1)),
                );
                break;
            }
            for (b, dv) in self.bodies.iter_mut().zip(&v) {
                if !b.is_static() && dv.iter().all(|x| x.is_finite()) {
                    let keep = S::velocity(b);
                    S::integrate(b, dv, h);
                    S::set_velocity(b, &keep);
                }
            }
            report.projections += 1;
        }
        (self.params.solver, self.params.mu) = configured;
    }

    /// Stage 4: reduced LCP with the configured solver; on failure the mixed LCP (Auto); if
    /// that fails too, keep ν* and mark the step failed.
    fn solve(
        &self,
        form: &Formulation<D>,
        set: &ConstraintSet<S::Contact>,
        free: &[SVector<Real, D>],
        warm: Warm<'_, S::Key, D>,
        report: &mut StepReport,
    ) -> Vec<SVector<Real, D>> {
        report.unknowns = form.dim();
        let mut best = BestAttempt::default();
        let mut params = SolveParams::default();
        params.solver = self.params.solver;
        params.work_limit = self
            .params
            .solve_work_limit
            .map(|w| solve_budget(w, form.dim()));
        let keys: Vec<S::Key> = form
            .normal_contacts()
            .iter()
            .map(|&c| S::key(&set.contacts[c]))
            .collect();
        // The reduced form's unknowns with the normal impulses of `from` by contact key (0
        // for a contact it does not have, and for every other unknown).
        let by_key = |from: &BTreeMap<S::Key, Real>| {
            let mut z0 = DVector::zeros(form.dim());
            for (k, key) in keys.iter().enumerate() {
                z0[k] = from.get(key).copied().unwrap_or(0.0);
            }
            z0
        };
        if self.params.warm_start && !warm.from.is_empty() {
            params.warm_start = Some(by_key(warm.from));
        }
        let reduced_warm = params.warm_start.clone();
        let Warm {
            from: warm_from,
            to: warm_to,
            basis: reuse,
            basis_map,
            key_flags,
            rescue_first,
            proximal_first,
            centre,
            resume_epsilon,
            basis_to,
            reduced,
        } = warm;
        let mut keep = |z: &[Real]| {
            warm_to.clear();
            warm_to.extend(keys.iter().cloned().zip(z.iter().copied()));
        };
        // The sparse Lemke first (item 25), on the dense route and the large one alike: the
        // same pivoting rules as the dense Lemke without its n × k inverse, from the last
        // basis of this island (grown to new contacts by `basis_map`, or matched by key to
        // the last step's: `key_flags`), which answers with no pivot while it still fits.
        // A frictional re-solve on the sparse route after a rescued solve goes to the rescue
        // first, from that answer's impulses (`needed_rescue`).
        let sparse_rescue_first =
            rescue_first && self.params.mu > 0.0 && form.dim() > self.dense_limit();
        let mut basis_to = basis_to;
        // An answer of a factored basis of these unknowns (`resolve_factored`): its normal
        // impulses kept for the next solve, the basis for the next re-solve.
        macro_rules! reused {
            ($z:expr, $factor:expr) => {{
                let z: DVector<Real> = $z;
                keep(&z.as_slice()[..form.n_normal]);
                if let Some(to) = basis_to.as_deref_mut() {
                    *to = Some($factor.clone());
                }
                return form.velocities_from_lcp(&self.bodies, free, &z);
            }};
        }
        // From `sparse_lemke_from` on, always; from `sparse_warm_from` (the band below it),
        // when it starts warm. A factored basis of these unknowns (a resting stack, a
        // gap-correction re-solve) answers first in the band, as on the dense route, in
        // O(n·k); the sparse Lemke starts from it only when it cannot.
        let band = (self.sparse_from()..self.params.sparse_lemke_from).contains(&form.dim());
        let mut early_lcp = None;
        if let Some(f) = reuse
            .as_ref()
            .filter(|f| band && f.has_inverse() && f.dim() == form.dim())
        {
            let lcp = form.reduced_lcp(&self.bodies, free);
            if let Ok(lcp) = &lcp
                && let Some(z) = resolve_factored(lcp, f, form.n_normal, report)
            {
                reused!(z, f);
            }
            early_lcp = Some(lcp);
        }
        // Its warm start: the basis of this island's last solve (of the same set, or grown
        // to new contacts), else the last step's basic unknowns matched by key.
        let flags = (form.dim() >= self.sparse_from())
            .then(|| {
                reuse
                    .as_ref()
                    .and_then(|f| match &basis_map {
                        Some(map) => grown_flags(f, map, form.dim()),
                        None => (f.dim() == form.dim()).then(|| f.z_basic()),
                    })
                    .or(key_flags)
            })
            .flatten();
        let sparse_lemke = form.dim() >= self.params.sparse_lemke_from || (band && flags.is_some());
        let mut lemke_best = None;
        let mut reduced = reduced;
        // A pivoting answer (the sparse Lemke's or the proximal iteration's): its normal
        // impulses kept for the next solve, its basis for the next warm start.
        macro_rules! answer {
            ($z:expr, $basis:expr) => {{
                let z: DVector<Real> = $z;
                report.normal_impulse = z.iter().take(form.n_normal).sum();
                keep(&z.as_slice()[..form.n_normal]);
                if let Some(to) = basis_to.as_deref_mut() {
                    *to = Some(Arc::new(LemkeFactor::basis_only(&$basis)));
                }
                return form.velocities_from_lcp(&self.bodies, free, &z);
            }};
        }
        // The proximal-point stage (items 29, 30), warm from `flags`: its answer, else on.
        // Run once per solve: a second run would repeat the first, pivot for pivot (same
        // matrix, q and start), as a failed gap-correction re-solve of the 2D pile of 2,500
        // did (`proximal_first`, then again after the rescue: 2 × 109,469 pivots).
        let mut proximal_tried = false;
        // The proximal stage's first centre in a gap-correction re-solve: the previous
        // round's normal impulses by key, whatever `warm_start` says.
        let prox_start = (centre && !warm_from.is_empty()).then(|| by_key(warm_from));
        macro_rules! try_proximal {
            () => {
                if !std::mem::replace(&mut proximal_tried, true) {
                    let cache = reduced.as_deref_mut();
                    let from = (flags.as_deref(), prox_start.as_ref(), resume_epsilon);
                    if let Some((z, basis)) =
                        self.solve_proximal(form, free, from, cache, &mut best, report)
                    {
                        answer!(z, basis);
                    }
                }
            };
        }
        if sparse_lemke {
            // A gap-correction re-solve after a proximal answer: the problem differs in q
            // (and in the contacts that joined) from one on which the sparse Lemke and the
            // rescue failed, and the proximal stage starts from that answer's basis; the
            // sparse Lemke and the rescue, whose runs on it cost minutes on the μ = 0.5
            // pile, only if it fails (docs/peg3d.md, item 30).
            if proximal_first {
                try_proximal!();
                report
                    .fallbacks
                    .push("proximal stage first failed: the sparse Lemke".into());
            }
            let cache = reduced.as_deref_mut();
            if !sparse_rescue_first {
                let short = form.dim() >= self.params.short_lemke_from;
                match self.solve_sparse_lemke(form, free, flags.as_deref(), cache, short, report) {
                    Ok((z, basis)) => answer!(z, basis),
                    Err((e, z)) => {
                        report.fallbacks.push(format!("sparse Lemke: {e}"));
                        lemke_best = z.filter(|_| form.dim() >= GS_RESCUE_MIN);
                        if short {
                            // The largest islands: the proximal stage before the rescue.
                            try_proximal!();
                        }
                    }
                }
            }
        }
        // Where Lemke stopped is the rescue's first start: a long path that ends inaccurate
        // has usually found the active set and lost the answer to rounding (items 21, 22).
        let lemke_start: Vec<DVector<Real>> = lemke_best.into_iter().collect();
        let from_lemke = (&lemke_start[..], "the sparse Lemke");
        if form.dim() > self.dense_limit() {
            let mut p = params.clone();
            p.warm_start = if sparse_rescue_first {
                report
                    .fallbacks
                    .push("the last solve needed the rescue: the rescue first".into());
                Some(by_key(warm_from))
            } else {
                reduced_warm.clone()
            };
            if let Some((v, normals)) =
                self.solve_large(form, free, &p, from_lemke, &mut best, report)
            {
                keep(&normals);
                return v;
            }
            if sparse_lemke {
                try_proximal!();
            }
            if form.dim() > DENSE_FALLBACK_LIMIT {
                let why = format!(
                    "sparse solve failed; {} unknowns is beyond the dense fallback's {DENSE_FALLBACK_LIMIT}",
                    form.dim()
                );
                return self.give_up(best, free, why, report);
            }
            report
                .fallbacks
                .push("sparse solve failed: dense chain (reduced, then mixed LCP)".into());
        } else if !lemke_start.is_empty() {
            // The rescue from where the sparse Lemke stopped, before the dense chain (whose
            // runs cost O(n³): 60–80 s at 4,000 unknowns on the 2D pile of 2,500).
            let p = self.rescue_params(&params, reduced_warm.clone());
            if let Some((v, normals)) =
                self.solve_large(form, free, &p, from_lemke, &mut best, report)
            {
                keep(&normals);
                return v;
            }
            try_proximal!();
            report
                .fallbacks
                .push("sparse Lemke failed: dense chain".into());
        } else if rescue_first && form.dim() >= GS_RESCUE_MIN && !sparse_lemke {
            // The last solve of this island in this step defeated the dense chain (Lemke to
            // its pivot limit in both forms, 9 s each at 2,700 unknowns on the 2D pile of
            // 2,500) and the rescue answered it; a gap-correction re-solve is nearly the same
            // problem: the rescue first, from that answer's normal impulses. (Not where the
            // sparse Lemke applies: it fails in milliseconds where the dense chain took
            // seconds, and goes to the rescue itself then.)
            let mut p = params.clone();
            p.warm_start = Some(by_key(warm_from));
            if let Some((v, normals)) =
                self.solve_large(form, free, &p, (&[], ""), &mut best, report)
            {
                keep(&normals);
                return v;
            }
            report
                .fallbacks
                .push("rescue first failed: dense chain (reduced, then mixed LCP)".into());
        }
        // The dense chain's best iterates (of the reduced and of the mixed form), in the
        // reduced form's unknowns: where every dense solve fails, the rescue starts the sparse
        // Newton method from them first, the least residual first (items 21 and 22).
        let mut dense_best: Vec<(DVector<Real>, Real)> = Vec::new();
        // (Built before the sparse Lemke where a factored basis was tried first: that basis
        // could not answer, so it is not tried again below.)
        let resolved = early_lcp.is_some();
        let lcp = match early_lcp.unwrap_or_else(|| form.reduced_lcp(&self.bodies, free)) {
            Ok(l) => Some(l),
            Err(e) => {
                report.fallbacks.push(format!("reduced LCP: {e}"));
                None
            }
        };
        let reuse = match (reuse, &basis_map, &lcp) {
            (Some(f), Some(map), Some(lcp)) => f.embedded(&lcp.m, map).map(Arc::new).or(Some(f)),
            (reuse, _, _) => reuse,
        };
        if let (Some(lcp), Some(f), false) = (&lcp, &reuse, resolved)
            && let Some(z) = resolve_factored(lcp, f, form.n_normal, report)
        {
            reused!(z, f);
        }
        // The basis could not answer this q (it left its invariance region) or is not of
        // this matrix: Lemke restarts from it instead of from scratch (large problems only,
        // `SolveParams::warm_factor`; the pivots repair what changed).
        params.warm_factor = reuse.clone();
        if let Some(lcp) = lcp {
            // PATH's scale of the tolerance, taken before M and q move into the MCP (moved,
            // not copied: `solve_lcp` would copy the dense matrix).
            let scale = lcp.q.amax().max(1.0);
            match solve_mcp(&lcp.into_mcp(), &params) {
                Ok(info) => {
                    record(report, &info);
                    if let Some(to) = basis_to {
                        *to = info.factor.clone();
                    }
                    report.normal_impulse = info.z.iter().take(form.n_normal).sum();
                    keep(&info.z.as_slice()[..form.n_normal]);
                    return form.velocities_from_lcp(&self.bodies, free, &info.z);
                }
                Err(e) => {
                    report.budget_exhausted |= e.spent_budget();
                    report.fallbacks.push(format!("reduced LCP: {e}"));
                    // PATH's default tolerance (1e-6, docs/formulation-notes.md §6) is what the reference runs
                    // accepted; our solvers aim at 1e-8. Accept a best iterate in between.
                    if let Some((z, r)) = best_iterate(&e) {
                        dense_best.push((z.clone(), r));
                        let impulse = z.iter().take(form.n_normal).sum();
                        let v = form.velocities_from_lcp(&self.bodies, free, &z);
                        if r <= APPROXIMATE_TOLERANCE * scale {
                            report.residual = r;
                            report
                                .fallbacks
                                .push(format!("accepted best iterate (residual {r:e})"));
                            report.normal_impulse = impulse;
                            keep(&z.as_slice()[..form.n_normal]);
                            return v;
                        }
                        best.consider(v, r, impulse, "reduced LCP");
                    }
                }
            }
        }
        if !self.params.mixed_fallback {
            return self.give_up(best, free, "reduced LCP failed".into(), report);
        }
        params.solver = SolverKind::Auto;
        let (mcp, dynamic) = match form.mixed_mcp(&self.bodies, free) {
            Ok(m) => m,
            Err(e) => {
                report.fallbacks.push(format!("mixed LCP: {e}"));
                return self.give_up(best, free, format!("mixed LCP: {e}"), report);
            }
        };
        let nv = D * dynamic.len();
        if let Some(z0) = params.warm_start.take() {
            params.warm_start = Some(self.mixed_warm(form, free, &dynamic, &z0));
        }
        match solve_mcp(&mcp, &params) {
            Ok(info) => {
                record(report, &info);
                report.normal_impulse = info.z.iter().skip(nv).take(form.n_normal).sum();
                keep(&info.z.as_slice()[nv..nv + form.n_normal]);
                form.velocities_from_mcp(self.bodies.len(), &dynamic, &info.z)
            }
            Err(e) => {
                report.budget_exhausted |= e.spent_budget();
                report.fallbacks.push(format!("mixed LCP: {e}"));
                if let Some((z, r)) = best_iterate(&e) {
                    let impulse = z.iter().skip(nv).take(form.n_normal).sum();
                    let v = form.velocities_from_mcp(self.bodies.len(), &dynamic, &z);
                    best.consider(v, r, impulse, "mixed LCP");
                    dense_best.push((z.rows(nv, z.len() - nv).into_owned(), r));
                }
                if form.dim() >= GS_RESCUE_MIN {
                    // The rescue (`solve_large`): first the sparse Newton method from the
                    // dense chain's best iterate, where Lemke often found the active set and
                    // lost the answer to rounding, or stopped at its budget near the end
                    // (docs/peg3d.md, item 21). Then the sparse Newton method from the last
                    // step's impulses; with friction with a larger iteration limit
                    // (`FRICTION_RESCUE_ITERATIONS`): these dense failures are rank-deficient
                    // Stewart–Trinkle blocks on which pivoting loses its path (item 19).
                    // (Without friction since item 22: on the 2D pile of 400 bodies' step 293
                    // it reached 2.4e-7 in 100 iterations, where every other stage stopped at
                    // 4e-6 or above.) Then block Gauss–Seidel and Newton from its answer.
                    let p = self.rescue_params(&params, reduced_warm);
                    // Stable: the reduced form's iterate first on a tie.
                    dense_best.sort_by(|a, b| a.1.total_cmp(&b.1));
                    let starts: Vec<DVector<Real>> =
                        dense_best.into_iter().map(|(z, _)| z).collect();
                    if let Some((v, normals)) = self.solve_large(
                        form,
                        free,
                        &p,
                        (&starts, "the dense chain"),
                        &mut best,
                        report,
                    ) {
                        keep(&normals);
                        return v;
                    }
                }
                self.give_up(best, free, format!("all solves failed ({e})"), report)
            }
        }
    }

    /// The sparse Lemke on the reduced LCP assembled sparse, from the complementary basis
    /// `flags` if given; its answer (z, final basis) if it is within the solver tolerance
    /// (the natural residual, as every dense answer is judged), else the reason and the
    /// iterate it stopped at, if any. Records the solver, pivots and residual in `report`.
    fn solve_sparse_lemke(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        flags: Option<&[bool]>,
        reduced: Option<&mut ReducedCache<D>>,
        short: bool,
        report: &mut StepReport,
    ) -> Result<(DVector<Real>, Vec<bool>), SparseLemkeFailure> {
        let failure = |e: FormulationError| (e.to_string(), None);
        // The matrix of the solve before this one when only the gaps changed (the same bits:
        // `reduced_cache.rs`), with the factors of that solve's answer for a warm start from
        // its basis; else built and kept for the next.
        let mut owned;
        let (lm, q) = match reduced {
            Some(cache) => {
                let lm = cache
                    .matrix(form, || {
                        form.reduced_csc(&self.bodies, free).map(|(m, _)| m)
                    })
                    .map_err(failure)?;
                (lm, form.reduced_lcp_q(&self.bodies, free).map_err(failure)?)
            }
            None => {
                let (m, q) = form.reduced_csc(&self.bodies, free).map_err(failure)?;
                owned = SparseLemkeMatrix::new(m);
                (&mut owned, q)
            }
        };
        let n = q.len();
        let limit = self
            .params
            .solve_work_limit
            .map(|w| sparse_lemke_budget(w, n));
        // `short` (`WorldParams::short_lemke_from`): the warm run alone, n pivots.
        let info = if short {
            lm.solve_warm_only(&q, flags, n, limit)
        } else {
            lm.solve(&q, flags, SPARSE_LEMKE_PIVOTS * n, limit)
        };
        let info = info.map_err(|e| {
            report.budget_exhausted |= e.spent_budget();
            let best = e.best().cloned();
            (e.to_string(), best)
        })?;
        let m = lm.matrix();
        let r = lcp_natural_residual(m, &q, &info.z);
        let tol = SolveParams::default().tolerance * q.amax().max(1.0);
        if r > tol {
            let why = format!("residual {r:e} above {tol:e} after {} pivots", info.pivots);
            return Err((why, Some(info.z)));
        }
        report.solver = Some(SolverKind::Lemke);
        report.iterations = info.pivots;
        report.residual = r;
        if info.pivots == 0 && flags.is_some() {
            report.basis_reuses += 1;
        }
        Ok((info.z, info.basis))
    }

    /// The proximal-point iteration on the reduced LCP ([`lemke_proximal`], docs/peg3d.md
    /// item 29), where the sparse Lemke and the rescue after it failed: Lemke on M + εI,
    /// then rounds on q − ε z_k, each warm from the last basis. Its least-residual iterate is
    /// the answer if within [`APPROXIMATE_TOLERANCE`] × max(1, ‖q‖∞), the acceptance of the
    /// rescue's own iterates. Returns that answer and its basis; an iterate above it goes to
    /// `best`, which a failed step continues from (`give_up`).
    fn solve_proximal(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        (flags, start, resume): (Option<&[bool]>, Option<&DVector<Real>>, Option<Real>),
        reduced: Option<&mut ReducedCache<D>>,
        best: &mut BestAttempt<D>,
        report: &mut StepReport,
    ) -> Option<(DVector<Real>, Vec<bool>)> {
        // The matrix of the failed sparse Lemke run (the cache holds it: borrowed, not
        // copied), else built.
        let build = || form.reduced_csc(&self.bodies, free).map(|(m, _)| m);
        let mut built: Option<CscMatrix> = None;
        let matrix = match reduced {
            Some(cache) => cache.matrix(form, build).map(|held| held.matrix()),
            None => build().map(|m| &*built.insert(m)),
        };
        let (m, q) = match matrix.and_then(|m| Ok((m, form.reduced_lcp_q(&self.bodies, free)?))) {
            Ok(x) => x,
            Err(e) => {
                report.fallbacks.push(format!("proximal Lemke: {e}"));
                return None;
            }
        };
        let n = q.len();
        let scale = q.amax().max(1.0);
        let mut p = ProximalLemkeParams::new(n, SolveParams::default().tolerance * scale);
        // A gap-correction re-solve starts where the previous round's answer was: its
        // impulses as the first centre and, if the proximal stage gave it, that run's ε
        // (docs/peg3d.md, item 38: on step 373 of the 2D pile of 2,500 its rounds 4–8 went
        // from 25,000 pivots each to 5–16).
        p.start = start.cloned();
        p.start_epsilon = resume;
        p.max_pivots = SPARSE_LEMKE_PIVOTS * n;
        p.work_limit = self
            .params
            .solve_work_limit
            .map(|w| sparse_lemke_budget(w, n));
        let mut info = match lemke_proximal(m, &q, flags, &p) {
            Ok(info) => info,
            Err(e) => {
                report.budget_exhausted |= e.spent_budget();
                report.fallbacks.push(format!("proximal Lemke: {e}"));
                return None;
            }
        };
        // The cut first path (docs/peg3d.md, item 33) is a shortcut: its larger ε starts
        // farther from the answer, and on step 361 of the 2D pile of 2,500 its rounds ended
        // at 3.3e-5 against an acceptance of 1.7e-5, where the uncut path reached 1.0e-8
        // (item 35). An answer above the acceptance after a cut is made again without it,
        // and the lesser residual kept.
        let accept = APPROXIMATE_TOLERANCE * scale;
        let left = p.work_limit.map(|w| w - info.work);
        if info.residual > accept && info.first_path_cut && left.is_none_or(|w| w > 0.0) {
            report.fallbacks.push(format!(
                "proximal Lemke after a cut first path (ε = {:e}, {} rounds, {} pivots): residual {:e} above {accept:e}; again without the cut",
                info.epsilon, info.rounds, info.pivots, info.residual
            ));
            let mut uncut = p.clone();
            uncut.long_path_regularisation = uncut.regularisation;
            uncut.work_limit = left;
            match lemke_proximal(m, &q, flags, &uncut) {
                Ok(again) if again.residual < info.residual => info = again,
                Ok(_) => {}
                Err(e) => {
                    report.budget_exhausted |= e.spent_budget();
                    report
                        .fallbacks
                        .push(format!("proximal Lemke without the cut: {e}"));
                }
            }
        }
        let line = format!(
            "proximal Lemke (ε = {:e} … {:e}, {} rounds, {} breaks, {} pivots): residual {:e}",
            info.epsilon, info.last_epsilon, info.rounds, info.breaks, info.pivots, info.residual
        );
        if info.residual > accept {
            report.fallbacks.push(format!("{line} above {accept:e}"));
            // Not accepted, but often the least residual of every stage (5.2e-5 on the 2D
            // pile of 2,500's step 332, where the rescue's best was 2.6e-3): a failed step
            // continues from it.
            let impulse = info.z.iter().take(form.n_normal).sum();
            let v = form.velocities_from_lcp(&self.bodies, free, &info.z);
            best.consider(v, info.residual, impulse, "proximal Lemke");
            return None;
        }
        report.fallbacks.push(format!("accepted {line}"));
        report.proximal_answers += 1;
        report.proximal_epsilon = Some(info.basis_epsilon);
        report.solver = Some(SolverKind::Lemke);
        report.iterations = info.pivots;
        report.residual = info.residual;
        Some((info.z, info.basis))
    }

    /// The rescue's parameters after a failed pivoting solve: started from `warm` (the last
    /// step's impulses in the reduced form), and with friction allowed
    /// [`FRICTION_RESCUE_ITERATIONS`] Newton iterations.
    fn rescue_params(&self, params: &SolveParams, warm: Option<DVector<Real>>) -> SolveParams {
        let mut p = params.clone();
        p.warm_start = warm;
        if self.params.mu > 0.0 {
            p.max_iterations = Some(FRICTION_RESCUE_ITERATIONS);
        }
        p
    }

    /// The size from which the sparse Lemke may run ([`WorldParams::sparse_warm_from`] or
    /// [`WorldParams::sparse_lemke_from`], the smaller), and from which the last basis's
    /// basic unknowns are kept for its warm start.
    fn sparse_from(&self) -> usize {
        if self.params.sparse_lemke_from == usize::MAX {
            return usize::MAX; // the sparse Lemke off, its warm band with it
        }
        self.params
            .sparse_warm_from
            .min(self.params.sparse_lemke_from)
    }

    /// Islands with more unknowns than this are solved sparse ([`WorldParams::dense_limit`],
    /// lowered to [`WorldParams::friction_dense_limit`] when μ > 0).
    fn dense_limit(&self) -> usize {
        if self.params.mu > 0.0 {
            self.params
                .dense_limit
                .min(self.params.friction_dense_limit)
        } else {
            self.params.dense_limit
        }
    }

    /// A warm start of the mixed form from one of the reduced form: the velocities
    /// `ν* + M⁻¹ Σ_j c_j z_j` of the dynamic bodies, then `z`.
    fn mixed_warm(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        dynamic: &[usize],
        z0: &DVector<Real>,
    ) -> DVector<Real> {
        let v = form.velocities_from_lcp(&self.bodies, free, z0);
        let nv = D * dynamic.len();
        let mut z = DVector::zeros(nv + z0.len());
        for (k, &b) in dynamic.iter().enumerate() {
            z.rows_mut(D * k, D).copy_from(&v[b]);
        }
        z.rows_mut(nv, z0.len()).copy_from(z0);
        z
    }

    /// Stage 4, large problems (more than [`WorldParams::dense_limit`] unknowns; with friction
    /// more than [`WorldParams::friction_dense_limit`] if that is smaller): the mixed
    /// LCP assembled sparse ([`Formulation::mixed_triplets`], O(bodies + contacts) entries,
    /// never a dense matrix) and solved by the sparse semismooth Newton method
    /// ([`solve_sparse`], faer's sparse LU). Returns the velocities and normal impulses, or
    /// `None` (the reason in the report's fallbacks, a best iterate offered to `best`).
    /// Order: a sparse Newton run from each of `starts` (reduced-form unknowns: the rescue's
    /// dense iterates, items 21 and 22, or the sparse Lemke's, item 25; with the name of what
    /// they come from, for the report), one from `params.warm_start` (the last step's
    /// impulses), block Gauss–Seidel and a run from its answer.
    fn solve_large(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        params: &SolveParams,
        starts: (&[DVector<Real>], &str),
        best: &mut BestAttempt<D>,
        report: &mut StepReport,
    ) -> Option<(Vec<SVector<Real, D>>, Vec<Real>)> {
        let assembled = form.mixed_triplets(&self.bodies, free).and_then(|t| {
            let m = CscMatrix::from_triplets(t.n, t.n, &t.triplets)?;
            Ok((SparseMcp::mixed(m, t.q.clone(), t.n_free)?, t))
        });
        let (mcp, t) = match assembled {
            Ok(x) => x,
            Err(e) => {
                report.fallbacks.push(format!("sparse mixed LCP: {e}"));
                return None;
            }
        };
        let mut params = params.clone();
        params.solver = SolverKind::SparseNewton;
        // The proximal continuation only with friction, where it was shown to help; on a
        // frictionless stack it moved one step's answer by 4.5e-4 m/s from the dense
        // chain's (docs/peg3d.md, item 20).
        params.proximal = self.params.mu > 0.0;
        let reduced_start = params.warm_start.take();
        if let Some(z0) = &reduced_start {
            params.warm_start = Some(self.mixed_warm(form, free, &t.dynamic, z0));
        }
        let scale = mcp.q.amax().max(1.0);
        let (nv, nn) = (t.n_free, form.n_normal);
        let read = |z: &DVector<Real>| {
            let normals = z.as_slice()[nv..nv + nn].to_vec();
            let v = form.velocities_from_mcp(self.bodies.len(), &t.dynamic, z);
            (v, normals)
        };
        // One sparse Newton run: its velocities and normal impulses (noted in the fallbacks as
        // `done`, if given), or its error (noted after `failed`).
        let newton =
            |p: &SolveParams, report: &mut StepReport, done: Option<&str>, failed: &str| {
                match solve_sparse(&mcp, p) {
                    Ok(info) => {
                        record(report, &info);
                        if let Some(done) = done {
                            report.fallbacks.push(done.into());
                        }
                        let (v, normals) = read(&info.z);
                        report.normal_impulse = normals.iter().sum();
                        Ok((v, normals))
                    }
                    Err(e) => {
                        report.budget_exhausted |= e.spent_budget();
                        report.fallbacks.push(format!("{failed}: {e}"));
                        Err(e)
                    }
                }
            };
        // From the dense chain's iterates, the best first. The second is the other form's:
        // on the 2D pile of 400 bodies (step 219) Lemke cycled to its pivot limit in both
        // forms, and Newton failed from the reduced form's iterate (residual 2.0e-2) but
        // solved from the mixed form's (6.0e-2) in 17 iterations (docs/peg3d.md, item 22).
        let mut from_dense = Vec::new();
        let (starts, origin) = starts;
        for (k, z0) in starts.iter().enumerate() {
            let mut p = params.clone();
            p.warm_start = Some(self.mixed_warm(form, free, &t.dynamic, z0));
            let which = if k == 0 { "best" } else { "next" };
            let done = format!("sparse Newton from {origin}'s {which} iterate");
            let failed = format!("sparse mixed LCP from {origin}'s {which} iterate");
            match newton(&p, report, Some(&done), &failed) {
                Ok(answer) => return Some(answer),
                Err(e) => from_dense.push(e),
            }
        }
        let first_error = match newton(&params, report, None, "sparse mixed LCP") {
            Ok(answer) => return Some(answer),
            Err(e) => e,
        };
        // Block Gauss–Seidel finds the active set; the sparse Newton method, started there,
        // finishes it to full accuracy.
        let gs = form.solve_block_gs(
            &self.bodies,
            free,
            reduced_start.as_ref(),
            &BlockGsParams {
                tolerance: params.tolerance * scale,
                max_sweeps: BLOCK_GS_SWEEPS,
            },
        );
        report.fallbacks.push(format!(
            "block Gauss–Seidel: {} sweeps, residual {:e}, {} failed blocks",
            gs.sweeps, gs.residual, gs.failed_blocks
        ));
        params.warm_start = Some(self.mixed_warm(form, free, &t.dynamic, &gs.z));
        let done = "sparse Newton from the block Gauss–Seidel answer";
        let failed = "sparse mixed LCP after block Gauss–Seidel";
        let after_gs = match newton(&params, report, Some(done), failed) {
            Ok(answer) => return Some(answer),
            Err(e) => e,
        };
        let v = form.velocities_from_lcp(&self.bodies, free, &gs.z);
        let normals = gs.z.as_slice()[..form.n_normal].to_vec();
        let impulse = normals.iter().sum();
        if gs.residual <= APPROXIMATE_TOLERANCE * scale {
            report.residual = gs.residual;
            report.iterations = gs.sweeps;
            report.solver = Some(SolverKind::Pgs);
            report.normal_impulse = impulse;
            report.fallbacks.push(format!(
                "accepted the block Gauss–Seidel answer (residual {:e})",
                gs.residual
            ));
            return Some((v, normals));
        }
        best.consider(v, gs.residual, impulse, "block Gauss–Seidel");
        // The sparse Newton iterates, the one from the block Gauss–Seidel answer included:
        // on the 2D pile of 400 bodies it stopped at 1.5e-6 where the Gauss–Seidel answer it
        // started from had 2.2e-2, and the step went on from the latter.
        let (z, r) = from_dense
            .iter()
            .chain([&first_error, &after_gs])
            .filter_map(best_iterate)
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        let (v, normals) = read(&z);
        let impulse = normals.iter().sum();
        if r <= APPROXIMATE_TOLERANCE * scale {
            report.residual = r;
            report.solver = Some(SolverKind::SparseNewton);
            report
                .fallbacks
                .push(format!("accepted best sparse iterate (residual {r:e})"));
            report.normal_impulse = impulse;
            return Some((v, normals));
        }
        best.consider(v, r, impulse, "sparse mixed LCP");
        None
    }

    /// Every solve failed: mark the step failed and continue from the least-residual attempt
    /// (`keep_best_on_failure`, guarded by kinetic energy) or from free flight ν*.
    fn give_up(
        &self,
        best: BestAttempt<D>,
        free: &[SVector<Real, D>],
        why: String,
        report: &mut StepReport,
    ) -> Vec<SVector<Real, D>> {
        report.failed = true;
        if self.params.keep_best_on_failure
            && let Some((v, r, impulse, form)) = best.0
        {
            let (kept, limit) = (
                self.kinetic_energy(&v),
                2.0 * self.kinetic_energy(free) + 1e-9,
            );
            if kept <= limit && v.iter().all(|x| x.iter().all(|c| c.is_finite())) {
                report.kept_best = Some(r);
                report.residual = r;
                report.normal_impulse = impulse;
                report.failure = Some(format!(
                    "{why}; continued from the best {form} iterate (residual {r:e})"
                ));
                return v;
            }
            report.fallbacks.push(format!(
                "best {form} iterate rejected (kinetic energy {kept:e} J > {limit:e} J)"
            ));
        }
        report.failure = Some(format!("{why}; kept free-flight velocities"));
        free.to_vec()
    }

    /// Stage 4b (optional, `gap_corrections`): move to the configuration the velocities lead
    /// to and re-measure. A constraint violated there by more than [`CORRECTION_TOLERANCE`]
    /// triggers a re-solve in which each contact's ψ is lowered by its linearisation error
    /// (actual − linear, when negative); the space's [`Space::refresh`] updates the contact
    /// pool at that configuration (for PEG, feature pairs that only come near there, missed by
    /// the one-step prediction, join the potential contacts) and the constraints are rebuilt.
    /// Keeps the last successful velocities; also says whether the configuration they lead
    /// to still violates a constraint.
    fn correct_gaps(
        &self,
        set: ConstraintSet<S::Contact>,
        mut velocities: Vec<SVector<Real, D>>,
        pred: &Predicted<S::Geometry, D>,
        (solved, last): Solved<'_, S::Key>,
        reduced: &mut ReducedCache<D>,
        report: &mut StepReport,
    ) -> (Vec<SVector<Real, D>>, bool) {
        let h = self.params.h;
        let mut set = set;
        let mut pool: ContactPool<S::Key, S::Contact> = set
            .contacts
            .iter()
            .map(|c| (S::key(c), c.clone()))
            .collect();
        // Velocities before the last re-solve and the penetration depth they led to.
        let mut previous: Option<(Vec<SVector<Real, D>>, Real)> = None;
        // Velocities before the last re-solve.
        let mut before_round: Option<Vec<SVector<Real, D>>> = None;
        // Whether the last solve of this island needed the rescue (its dense chain failed).
        let mut rescued = self.needed_rescue(report);
        // Whether the last solve of this island in this step was answered by the proximal
        // stage: the re-solve then starts there (`Warm::proximal_first`).
        let mut proximal = report.proximal_answers > 0;
        let mut proximal_epsilon = report.proximal_epsilon;
        // Whether the configuration the returned velocities lead to was found violated.
        let mut still_violated = false;
        // The deepest violation at the trial pose of the last velocities checked.
        let mut last_depth: Option<Real> = None;
        for round in 0..=self.params.gap_corrections {
            let trial = S::moved(&self.bodies, &velocities, h);
            let mut actual = vec![Real::INFINITY; set.contacts.len()];
            for (k, c) in set.contacts.iter().enumerate() {
                let Some(gap) = S::remeasure(c, &trial) else {
                    continue; // e.g. corrective contacts have no feature pair to re-measure
                };
                actual[k] = gap;
                let linear = c.gap() + h * c.jacobian().dot_velocity(|b| velocities[b]);
                if let Some(p) = pool.get_mut(&S::key(c)) {
                    *S::gap_mut(p) += (actual[k] - linear).min(0.0);
                }
            }
            // Model-specific: rotation within the step, interpenetration the set does not
            // see, feature pairs that only come near at the trial configuration.
            let unseen = S::refresh(
                &self.params,
                &self.bodies,
                &pred.now,
                &trial,
                &velocities,
                &mut pool,
            );
            // The deepest violation of the set at the trial pose: a U-constraint's gap, or
            // an I/X group's largest (the group is violated only if every member is).
            let deepest = set
                .unilateral
                .iter()
                .map(|&k| actual[k])
                .chain(set.inter.iter().chain(set.cross.iter()).map(|p| {
                    p.secondaries
                        .iter()
                        .fold(actual[p.primary], |m, &s| m.max(actual[s]))
                }))
                .fold(Real::INFINITY, Real::min);
            let violated = unseen || deepest < -CORRECTION_TOLERANCE;
            let depth = (-deepest).max(0.0);
            // Safeguard: a re-solve must not inject energy, else it is undone. Its kinetic
            // energy is compared with the larger of the first solution's and free flight's
            // (ν*): contact impulses at non-negative gaps only remove energy from ν*, so a
            // re-solve may legitimately keep more of it than the first solution did (e.g. a
            // vertex that the first solve stopped at an edge's line now slips past the corner:
            // pour2d set g, h = 0.014 s, step 199); only the ψ/h term of deep penetrations
            // can add energy. With the split impulse these velocities only move the bodies
            // (their energy is not carried on), and removing a start-of-step penetration of
            // depth d needs speeds of order d/h: the reference is then at least the energy of
            // every dynamic body moving at d/h.
            if let Some((v, e)) = previous.take() {
                let now = self.kinetic_energy(&velocities);
                let reference = e
                    .max(self.kinetic_energy(&pred.free))
                    .max(self.penetration_energy(report.split));
                if now > 2.0 * reference + 1e-9 {
                    report.fallbacks.push(format!(
                        "gap correction undone (kinetic energy {now:e} J > 2 x {reference:e} J)"
                    ));
                    return (v, true);
                }
                // The same rule body by body: the rounds are a chord iteration, which
                // diverges where a body turns fast, and one body's runaway hides in a large
                // island's total (docs/peg3d.md, item 29: on the 125-body pile the rounds of
                // one step sped a body up from 27 to 133 rad/s and deepened the violation
                // they were removing from 0.18 to 0.91 m, while the island's energy stayed
                // under twice its reference).
                // A divergence deepens the violation; a round that made it shallower is
                // converging, and a body may have to move fast to get out: removing a
                // violation of depth d in one step takes speeds of d/h (5 m/s for the 2.5 cm
                // of step 389 of the 2D pile of 2,500, h = 5 ms). Undoing such rounds there
                // went back to velocities known to violate by 1–2.5 cm, which the position
                // projection did not clear: 1.5e-3 and 4.0e-2 m² of overlap (docs/peg3d.md,
                // item 39). So the rule undoes only a round that did not lower the depth.
                if let Some((b, now, reference)) =
                    self.runaway_body(&velocities, &v, &pred.free, report.split)
                {
                    if undo_runaway(last_depth, depth) {
                        report.fallbacks.push(format!(
                            "gap correction undone (body {b}: kinetic energy {now:e} J > 2 x {reference:e} J)"
                        ));
                        // Back to the round before this one (it passed both rules).
                        return (before_round.take().unwrap_or(v), true);
                    }
                    report.fallbacks.push(format!(
                        "gap correction kept (body {b}: kinetic energy {now:e} J > 2 x {reference:e} J, but the violation went from {:e} to {depth:e} m)",
                        last_depth.unwrap_or(0.0)
                    ));
                }
                previous = Some((v, e));
            }
            last_depth = Some(depth);
            still_violated = violated;
            if !violated || round == self.params.gap_corrections {
                break;
            }
            set = S::rebuild(&self.params, &self.bodies, &set, &pool);
            let form = self.formulate(&set);
            let signature = Signature::of(&set, S::key);
            let unknowns = keyed_unknowns(&form, &set, S::key);
            let mut sub = StepReport::default();
            let mut next = BTreeMap::new();
            let mut next_factor = None;
            // Contacts that joined at the trial pose: the last basis grows with them (on
            // problems where Lemke restarts from a basis; smaller ones solve cold, as the
            // pour figures were measured).
            let basis_map = last
                .as_ref()
                .filter(|b| b.signature != signature && form.dim() >= FACTOR_RESTART_FROM)
                .and_then(|b| embedding(&b.unknowns, &unknowns));
            // Where the grown basis cannot be formed (a 2D rebuild regrouped a constraint),
            // the sparse Lemke starts from the last basis matched by key.
            let key_flags = last
                .as_ref()
                .filter(|b| {
                    basis_map.is_none()
                        && b.signature != signature
                        && form.dim() >= self.sparse_from()
                })
                .map(|b| flags_by_key(&basic_unknowns(b), &unknowns));
            let warm = Warm {
                from: solved,
                to: &mut next,
                basis: last.as_ref().map(|b| b.factor.clone()),
                basis_map,
                key_flags,
                rescue_first: rescued,
                proximal_first: proximal,
                centre: true,
                resume_epsilon: proximal_epsilon,
                basis_to: self.params.reuse_basis.then_some(&mut next_factor),
                reduced: Some(&mut *reduced),
            };
            let t = Instant::now();
            let v = self.solve(&form, &set, &pred.free, warm, &mut sub);
            report.rounds.push(RoundReport {
                island: 0,
                round: round + 1,
                unknowns: sub.unknowns,
                depth,
                unseen,
                answer: round_answer(&sub),
                iterations: sub.iterations,
                residual: sub.kept_best.filter(|_| sub.failed).unwrap_or(sub.residual),
                seconds: t.elapsed().as_secs_f64(),
            });
            rescued = self.needed_rescue(&sub);
            proximal = sub.proximal_answers > 0;
            proximal_epsilon = sub.proximal_epsilon;
            report.proximal_answers += sub.proximal_answers;
            report.budget_exhausted |= sub.budget_exhausted;
            report.basis_reuses += sub.basis_reuses;
            if sub.failed {
                // Reported, with what each method of the re-solve said: the step keeps the
                // last solved velocities and the projection takes over (a 1,000-body pile
                // step spent 594 s here with nothing in its report; session 29).
                report.fallbacks.push(format!(
                    "gap-correction round {} failed ({} unknowns): {}; the last solved velocities kept",
                    round + 1,
                    sub.unknowns,
                    sub.failure.as_deref().unwrap_or("no reason given")
                ));
                report.fallbacks.extend(
                    sub.fallbacks
                        .iter()
                        .map(|f| format!("gap-correction round {}: {f}", round + 1)),
                );
                break;
            }
            *solved = next;
            *last = next_factor.map(|factor| StoredBasis {
                signature,
                unknowns,
                factor,
            });
            if previous.is_none() {
                previous = Some((velocities.clone(), self.kinetic_energy(&velocities)));
            }
            report.corrections += 1;
            report.counts = set.counts();
            report.unknowns = sub.unknowns;
            report.residual = sub.residual;
            report.iterations += sub.iterations;
            report.normal_impulse = sub.normal_impulse;
            before_round = Some(std::mem::replace(&mut velocities, v));
        }
        (velocities, still_violated)
    }

    /// Whether the solve `report` describes answered a dense-route problem (of at least
    /// [`FACTOR_RESTART_FROM`] unknowns; smaller ones as the pours were measured) only by the
    /// rescue: the dense chain failed and `solve_large`'s sparse Newton method or block
    /// Gauss–Seidel gave the answer.
    fn needed_rescue(&self, report: &StepReport) -> bool {
        let rescued = matches!(
            report.solver,
            Some(SolverKind::SparseNewton | SolverKind::Pgs)
        );
        // Dense-route islands; and frictional islands on the sparse route, whose sparse
        // Lemke runs end on rays after thousands of pivots (minutes on the μ = 0.5 pile)
        // before the rescue that answered the last solve (docs/peg3d.md, item 30 (e)).
        rescued
            && ((FACTOR_RESTART_FROM..=self.dense_limit()).contains(&report.unknowns)
                || (self.params.mu > 0.0 && report.unknowns > self.dense_limit()))
    }

    /// ½ Σ m (d/h)² over the dynamic bodies for a split start-of-step penetration of depth d
    /// (0 without a split): the scale of the energy the ψ/h term needs to remove it.
    fn penetration_energy(&self, split: Option<Real>) -> Real {
        let Some(depth) = split else {
            return 0.0;
        };
        let mut v = SVector::<Real, D>::zeros();
        v[0] = depth / self.params.h;
        self.bodies
            .iter()
            .filter(|b| !b.is_static())
            .map(|b| S::kinetic_energy(b, &v))
            .sum()
    }

    /// Kinetic energy ½ Σ νᵀ M ν of the dynamic bodies for the given velocities (J).
    /// The first dynamic body that turns by more than [`RUNAWAY_TURN`] in the step under `now`
    /// and whose kinetic energy there is more than twice (+1 nJ) its reference, the larger of
    /// its energy under `first` (the first solution), under `free` (ν*) and of the split
    /// penetration's d/h ([`Self::penetration_energy`] for one body): its index, energy and
    /// reference.
    fn runaway_body(
        &self,
        now: &[SVector<Real, D>],
        first: &[SVector<Real, D>],
        free: &[SVector<Real, D>],
        split: Option<Real>,
    ) -> Option<(usize, Real, Real)> {
        let mut depth = SVector::<Real, D>::zeros();
        depth[0] = split.unwrap_or(0.0) / self.params.h;
        self.bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_static())
            .find_map(|(k, b)| {
                let e = S::kinetic_energy(b, &now[k]);
                let reference = S::kinetic_energy(b, &first[k])
                    .max(S::kinetic_energy(b, &free[k]))
                    .max(S::kinetic_energy(b, &depth));
                let turning = S::turn_rate(&now[k]) * self.params.h > RUNAWAY_TURN;
                (turning && e > 2.0 * reference + 1e-9).then_some((k, e, reference))
            })
    }

    fn kinetic_energy(&self, velocities: &[SVector<Real, D>]) -> Real {
        self.bodies
            .iter()
            .zip(velocities)
            .filter(|(b, _)| !b.is_static())
            .map(|(b, v)| S::kinetic_energy(b, v))
            .sum()
    }

    /// Stage 5: accept the velocities (non-finite ones are replaced by ν* and the step is
    /// marked failed by the caller's report only if a solve failed) and update positions.
    fn integrate(&mut self, velocities: &[SVector<Real, D>]) {
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

/// The best iterate a failed solve carries, with its residual.
fn best_iterate(e: &SolveError) -> Option<(nalgebra::DVector<Real>, Real)> {
    Some((e.best()?.clone(), e.residual()?))
}

/// What a solve leaves for the next: the normal impulses by key and the stored basis.
type Solved<'a, K> = (&'a mut BTreeMap<K, Real>, &'a mut Option<StoredBasis<K>>);

/// Warm start of one solve: the normal impulses to start from and where the solve's own go
/// (both keyed by feature pair; see [`WorldParams::warm_start`]).
struct Warm<'a, K, const D: usize> {
    from: &'a BTreeMap<K, Real>,
    to: &'a mut BTreeMap<K, Real>,
    /// The Lemke basis of an earlier solve of this step whose problem differs from this one
    /// only in q (the gap-correction and split re-solves): tried first (O(n·k)), and kept
    /// only if its answer's residual is within tolerance.
    basis: Option<Arc<LemkeFactor>>,
    /// Where `basis`'s unknowns sit in this problem when it has more
    /// (`basis::embedding`): the basis is then grown to it
    /// ([`LemkeFactor::embedded`], the new unknowns' w basic) once its matrix is formed.
    basis_map: Option<Vec<usize>>,
    /// A complementary basis for the sparse Lemke when `basis` is of another set (the last
    /// step's, matched by key: `basis::flags_by_key`).
    key_flags: Option<Vec<bool>>,
    /// The solve before this one, on this island within this step, needed the rescue
    /// (`solve_large` after the dense chain failed): start with the rescue, from that solve's
    /// normal impulses (`from`).
    rescue_first: bool,
    /// The solve before this one, on this island within this step, was answered by the
    /// proximal stage (the sparse Lemke and the rescue had failed): where the sparse Lemke
    /// applies, start with the proximal stage, warm from that answer's basis.
    proximal_first: bool,
    /// The proximal stage's iteration starts from `from` (`ProximalLemkeParams::start`): the
    /// gap-correction re-solves, whose previous round's answer is near theirs.
    centre: bool,
    /// ε of the run whose basis answered the solve before this one by the proximal stage
    /// (`StepReport::proximal_epsilon`): the stage's first run here is tried at it
    /// (`ProximalLemkeParams::start_epsilon`).
    resume_epsilon: Option<Real>,
    /// Where the basis of this solve's answer goes (`None` if it was not a plain Lemke
    /// solve).
    basis_to: Option<&'a mut Option<Arc<LemkeFactor>>>,
    /// The step's sparse reduced matrix, reused by a solve that formulates the same one and
    /// replaced by one that does not (`reduced_cache.rs`; `None`: build it).
    reduced: Option<&'a mut ReducedCache<D>>,
}

/// The least-residual failed attempt of a step: (velocities, residual, Σ normal impulses,
/// which form).
struct BestAttempt<const D: usize>(Option<(Vec<SVector<Real, D>>, Real, Real, &'static str)>);

impl<const D: usize> Default for BestAttempt<D> {
    fn default() -> Self {
        BestAttempt(None)
    }
}

impl<const D: usize> BestAttempt<D> {
    fn consider(
        &mut self,
        v: Vec<SVector<Real, D>>,
        residual: Real,
        impulse: Real,
        form: &'static str,
    ) {
        if residual.is_finite() && self.0.as_ref().is_none_or(|b| residual < b.1) {
            self.0 = Some((v, residual, impulse, form));
        }
    }
}

/// Rotation in one step (rad) above which a gap-correction round that doubled a body's kinetic
/// energy is taken for the chord iteration's divergence and undone ([`GenericWorld`]'s
/// `runaway_body`). The rounds correct ψ with start-of-step Jacobians, whose error grows with
/// the square of the turn; in the runaways seen (docs/peg3d.md, item 29) the bodies turned by
/// 0.12–0.48 rad per step, while the same doubling on the pours (bodies turning by 0.004 rad,
/// legitimate corrections of bodies nearly at rest) must not be undone.
pub const RUNAWAY_TURN: Real = 0.1;

/// A problem of at least this many unknowns on which every dense solve failed gets the large
/// problems' rescue (block Gauss–Seidel, then the sparse Newton method from its answer) before
/// the step is given up.
pub const GS_RESCUE_MIN: usize = 100;

/// Iteration limit of the sparse Newton method when it rescues a frictional problem on which
/// every dense solve failed (it goes first there, before block Gauss–Seidel). Such problems
/// are no larger than the friction dense limit ([`DEFAULT_FRICTION_DENSE_LIMIT`] = 1000
/// unknowns by default), so an iteration is cheap; on
/// their degenerate solutions the method converges slowly (residual 1e-4 … 1e-6 after the
/// large islands' 100 iterations). Two columns of three tilted cubes, μ = 0.5, 100 steps
/// (docs/peg3d.md, item 19): five layouts failed 31 steps in all with the old rescue (block
/// Gauss–Seidel first, 100 iterations), 5 with the sparse Newton method first at 100
/// iterations and 2 at 1000; the five runs took 100, 105 and 308 s.
pub const FRICTION_RESCUE_ITERATIONS: usize = 1000;

/// Sweeps of the block Gauss–Seidel fallback of a large island (`solve_large`).
pub const BLOCK_GS_SWEEPS: usize = 200;

/// Default [`WorldParams::dense_limit`]: problems of more unknowns are solved sparse. 4000,
/// because PEG's islands of 2,000–4,000 unknowns are solved exactly by dense Lemke (whose
/// basis then answers the gap corrections, [`WorldParams::reuse_basis`]) and not by the
/// sparse semismooth Newton method: the 64-body pile took 1.5 s/step with 4000 against
/// 8.8 s/step with 2000 (a build without the later, smaller assembly speedup), and the
/// 8-cube tower 95 against 340 ms/step (docs/peg3d.md, "Scaling"). A dense matrix of 4000² f64 is 128 MB.
pub const DEFAULT_DENSE_LIMIT: usize = 4000;

/// Default [`WorldParams::sparse_lemke_from`]: dense-route problems of at least this many
/// unknowns try the sparse Lemke first.
pub const DEFAULT_SPARSE_LEMKE_FROM: usize = 400;

/// Default [`WorldParams::sparse_warm_from`]. 150: above every PEG problem of the pour
/// experiments, whose figures were measured with cold dense solves (largest: 136 unknowns in
/// pour2d's 160 PEG runs, 110 in pour3d random's 160, 80 in the icosahedra's 16; docs/peg3d.md
/// item 31), and below the islands of the settling 3D pile of 27 bodies (200–400 unknowns),
/// whose sets change every step so that the dense route solved each of them cold. Warm from
/// the last step's basis matched by key, that pile takes 0.61 of the time (item 31).
pub const DEFAULT_SPARSE_WARM_FROM: usize = 150;

/// Default [`WorldParams::short_lemke_from`]. On the 1,000-body pile's island of
/// 31,000–33,000 unknowns (docs/peg3d.md, item 42) the sparse Lemke went to its 10 n limit
/// at step 134 (then the rescue failed: 727 s before the proximal stage answered), and at
/// step 136 its warm start ended on a ray at the first pivot and the cold run after it took
/// 3 n pivots (330 s); with this rule the proximal stage answered step 136's first solve in
/// 78 s with the same overlap. Where the warm run answers (step 137, 0.54 n pivots) nothing
/// changes. 20,000 because that is the only scene measured: the largest islands of the 2D
/// pile of 2,500 (≤ 10,200 unknowns) and of the 3D pile of 125 with μ = 0.5 (≤ 7,400) keep
/// the long runs, and their figures are unchanged.
pub const DEFAULT_SHORT_LEMKE_FROM: usize = 20_000;

/// The answer of a factored basis ([`LemkeFactor::resolve`]) to this LCP, polished like the
/// Auto chain's own small answers so that a reused answer is as exact as the Lemke run it
/// replaces, and recorded in `report` (a basis reuse); `None` where the basis cannot answer
/// this q (it left its invariance region) or is not of this matrix. (Skipping the polish when
/// the answer is already within 1e-14 made the resting tower's step 40 % cheaper, but doubled
/// pour3d's round-off-level medians, 2.4e-18 -> 4.3e-18 m³ at h = 0.014: kept.)
fn resolve_factored(
    lcp: &Lcp,
    f: &LemkeFactor,
    n_normal: usize,
    report: &mut StepReport,
) -> Option<DVector<Real>> {
    let z = f.resolve(&lcp.m, &lcp.q, BASIS_REFINEMENTS)?;
    let (z, r) = polish_small_lcp(lcp, z);
    if r > REUSE_TOLERANCE * lcp.q.amax().max(1.0) {
        return None;
    }
    report.solver = Some(SolverKind::Lemke);
    report.iterations = 0;
    report.residual = r;
    report.basis_reuses += 1;
    report.normal_impulse = z.iter().take(n_normal).sum();
    Some(z)
}

/// Why the world's sparse Lemke gave no answer, and the iterate it stopped at (if any): the
/// rescue's first start.
type SparseLemkeFailure = (String, Option<DVector<Real>>);

/// The sparse Lemke's pivot limit, per unknown. 3 until session 29 (what the dense chain's
/// work budget pays for in dense pivots); but a sparse pivot on a 2D island of 4,300 unknowns
/// costs milliseconds, and step 280 of the 2D pile of 2,500 (resumed from the state after
/// step 275) needed more than 3n: at 3n it failed after 717 s of rescues, at 10n the sparse
/// Lemke answered in 92 s. The pivot cap (twice this per call) and the work budget
/// ([`sparse_lemke_budget`]) grow with it.
const SPARSE_LEMKE_PIVOTS: usize = 10;

/// The sparse Lemke's work per pivot on a problem of n unknowns, in its units (stored entries
/// touched, `lemke_sparse`'s docs), as a multiple of n: measured 39 n on the 1,000-body pile's
/// step 101 (13,860 unknowns, 4,140 pivots: 2.2e9), where every eta is dense, and 475 n on
/// the 125-body pile with μ = 0.5 (step 167 of session 28's run, 6,972 unknowns: a budget of
/// 40 n per pivot stopped it after 3,498 pivots, half a run); the frictional figure, so that
/// the budget stops only calls far beyond their pivot limit's usual cost.
const SPARSE_LEMKE_WORK_PER_PIVOT: Real = 500.0;

/// The work budget of one sparse Lemke call on n unknowns under
/// [`WorldParams::solve_work_limit`] = `limit`: at least what two runs of
/// `SPARSE_LEMKE_PIVOTS`·n pivots cost at `SPARSE_LEMKE_WORK_PER_PIVOT` (a failed warm run and
/// the cold run after it; `lemke_sparse` also caps the pivots of all its runs at twice the
/// limit: warm, cold and repair runs each had the whole limit before, more than 10 minutes per
/// call at 25,000 unknowns). A backstop for pivots far dearer than usual (long lexicographic
/// ties); the pivot cap is what bounds a call in practice.
fn sparse_lemke_budget(limit: Real, n: usize) -> Real {
    let n = n as Real;
    let pivots = SPARSE_LEMKE_PIVOTS as Real * n;
    limit.max(2.0 * pivots * SPARSE_LEMKE_WORK_PER_PIVOT * n)
}

/// The complementary basis of factor `f` grown into a problem of `n` unknowns by `map` (where
/// each old unknown sits now; the new unknowns' w basic), as z-basic flags.
fn grown_flags(f: &LemkeFactor, map: &[usize], n: usize) -> Option<Vec<bool>> {
    let old = f.z_basic();
    if old.len() != map.len() || map.iter().any(|&i| i >= n) {
        return None;
    }
    let mut flags = vec![false; n];
    for (j, &i) in map.iter().enumerate() {
        flags[i] = old[j];
    }
    Some(flags)
}

/// Default [`WorldParams::friction_dense_limit`]: problems with friction and more unknowns
/// are solved sparse. 1000, because on frictional islands of 1,000–3,000 unknowns dense Lemke
/// often ends on a ray (PEG's slack rows and the friction pyramid make M neither PSD nor
/// copositive-plus) and the dense fallbacks behind it (a Fischer–Burmeister Newton method
/// with a dense LU per iteration, the mixed form) then take minutes: on the 3D pile of 125
/// random polyhedra with μ = 0.5 (`experiment pile --friction 0.5`), steps 72–77 took 2,970 s
/// in all with the limit at 4000 and 401 s at 1000 (the same overlaps, no failed step;
/// docs/peg3d.md, "Figures after session 18"). Where Lemke does end it costs a little: the
/// 64-body pile with μ = 0.5 ran 6 % slower over its first 86 steps (4× less peak memory).
/// Frictionless islands keep [`DEFAULT_DENSE_LIMIT`]: there Lemke ends and the sparse method
/// was slower.
pub const DEFAULT_FRICTION_DENSE_LIMIT: usize = 1000;

/// A large problem whose sparse solve failed is retried by the dense chain only up to this
/// many unknowns (a dense matrix of 6000² f64 is 288 MB and Lemke's O(n³) work is tens of
/// seconds); beyond it the step fails and continues from the best iterate.
pub const DENSE_FALLBACK_LIMIT: usize = 6000;

/// At most this many iterative-refinement steps when an earlier solve's Lemke basis answers
/// a solve ([`LemkeFactor::resolve`], which stops as soon as the residual is at rounding
/// level): for a re-solve within a step the matrix is the same and one step restores full
/// accuracy; one step later, the old inverse of a pile at rest is a good preconditioner of
/// the new basis matrix and a few steps converge.
const BASIS_REFINEMENTS: usize = 8;

use signorini_math::tolerance::BASIS_REUSE_RESIDUAL_TOL as REUSE_TOLERANCE;

pub use signorini_math::tolerance::GAP_CORRECTION_TOL as CORRECTION_TOLERANCE;

/// The work budget of one solve of `n` unknowns under [`WorldParams::solve_work_limit`] =
/// `limit`: at least [`FLOOR_PIVOTS`]·n Lemke pivots.
fn solve_budget(limit: Real, n: usize) -> Real {
    limit.max(work_estimate(n, FLOOR_PIVOTS * n, 0))
}

/// Whether a gap-correction round whose body sped up past the runaway rule
/// ([`RUNAWAY_TURN`]) is undone, given the deepest violation before it (`None`: unknown) and
/// at its own trial pose: only if it did not make the violation shallower (a diverging chord
/// iteration deepens it; docs/peg3d.md, items 29 and 39).
fn undo_runaway(before: Option<Real>, after: Real) -> bool {
    !before.is_some_and(|d| after < d)
}

/// What answered the re-solve `sub` reports ([`RoundReport::answer`]).
fn round_answer(sub: &StepReport) -> String {
    if sub.failed {
        "failed".into()
    } else if sub.basis_reuses > 0 {
        "basis".into()
    } else if sub.proximal_answers > 0 {
        "proximal".into()
    } else {
        sub.solver
            .map_or_else(|| "none".into(), |k| format!("{k:?}").to_lowercase())
    }
}

fn record(report: &mut StepReport, info: &signorini_complementarity::SolveInfo) {
    report.solver = Some(info.solver);
    report.iterations = info.iterations;
    report.residual = info.residual;
    report.fallbacks.extend(
        info.fallbacks
            .iter()
            .map(|(k, why)| format!("{k:?}: {why}")),
    );
}

#[cfg(test)]
#[path = "stepper_rescue_tests.rs"]
mod rescue_tests;
