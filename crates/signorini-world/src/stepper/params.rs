//! The stepper's settings: [`WorldParams`] with its presets (`new`, `paper`, `signorini`,
//! `signorini_uniform`) and the default limits that route a problem to a solver by its size
//! (`DEFAULT_*_LIMIT`, `DEFAULT_*_FROM`) with the measurements behind each value.
//! Does not own: what the stepper does with them (the sibling files).

use signorini_complementarity::SolverKind;
use signorini_contact::dim3::VertexVertex;
use signorini_contact::{ContactModel, DEFAULT_FRICTION_DIRECTIONS, PegForm, XImpulse};
use signorini_dynamics::Gyroscopic;
use signorini_math::Real;
use std::fmt::Debug;

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
    /// already violated by more than [`CORRECTION_TOLERANCE`](crate::CORRECTION_TOLERANCE) at the current configuration
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
    /// feasible ([`LemkeFactor::resolve`](signorini_complementarity::LemkeFactor::resolve), O(n·k) instead of a Lemke run), each answer
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
