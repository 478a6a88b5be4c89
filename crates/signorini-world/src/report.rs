//! Per-step reports.
//!
//! Owns: [`StepReport`] and [`StageTimes`]. Does not own: aggregation over runs (experiments).

use signorini_complementarity::SolverKind;
use signorini_contact::ConstraintCounts;

/// Wall time of each stage of one step (seconds). Never used in results files that must be
/// deterministic.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct StageTimes {
    /// Predicted configuration and broad phase.
    pub broad_phase: f64,
    /// Contact detection and constraint building.
    pub detection: f64,
    /// Assembly of the complementarity problem.
    pub formulation: f64,
    /// The first solve of the step, including its fallbacks (all islands).
    pub solve: f64,
    /// Gap-correction re-solves, the split-impulse solve and position projection.
    pub gap_corrections: f64,
    /// Velocity and position update.
    pub integration: f64,
}

impl StageTimes {
    /// Sum of all stages.
    pub fn total(&self) -> f64 {
        self.broad_phase
            + self.detection
            + self.formulation
            + self.solve
            + self.gap_corrections
            + self.integration
    }
}

/// What the step's first solve (round 0) or one gap-correction re-solve did (see
/// [`StepReport::rounds`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RoundReport {
    /// The island (0 without `WorldParams::islands`; set when the islands' reports merge).
    pub island: usize,
    /// The round: 0 for the step's first solve, then the gap-correction re-solves from 1.
    pub round: usize,
    /// Unknowns of the re-solved problem.
    pub unknowns: usize,
    /// The deepest violation that asked for the round: minus the least re-measured gap of
    /// the set at the trial pose of the velocities before it (m; 0 if none was negative, and
    /// for round 0).
    pub depth: f64,
    /// Whether the model also found violations the set did not hold (`refresh`: rotation
    /// within the step, pairs that only came near at the trial pose).
    pub unseen: bool,
    /// What answered it: `basis` (an earlier solve's Lemke basis, see
    /// [`StepReport::basis_reuses`]), `proximal` (the proximal-point stage), a solver's name
    /// (`lemke`, `sparsenewton`, `pgs`, …), or `failed` (every stage failed; the step keeps
    /// the velocities before the round).
    pub answer: String,
    /// Pivots or iterations of the accepted answer.
    pub iterations: usize,
    /// Natural-map residual of the accepted answer (of the best attempt if it failed).
    pub residual: f64,
    /// Wall time of the re-solve (seconds; with islands, of the thread that ran it). Never
    /// used in results files that must be deterministic.
    pub seconds: f64,
}

impl std::fmt::Display for RoundReport {
    /// `i0.r2 d=3.1e-4 proximal n=7042 it=1234 res=1.6e-7 t=12.3s` (`d=…+` when `unseen`): no
    /// commas or quotes, so that a list of them is one plain CSV field.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "i{}.r{} d={:.2e}{} {} n={} it={} res={:.2e} t={:.3}s",
            self.island,
            self.round,
            self.depth,
            if self.unseen { "+" } else { "" },
            self.answer,
            self.unknowns,
            self.iterations,
            self.residual,
            self.seconds
        )
    }
}

/// What one step did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct StepReport {
    /// Step index (0-based; the step that produced this report).
    pub step: usize,
    /// Candidate body pairs from the broad phase.
    pub pairs: usize,
    /// Contacts and U/I/X constraint counts.
    pub counts: ConstraintCounts,
    /// Number of complementarity unknowns, summed over the islands (0 if nothing was solved).
    pub unknowns: usize,
    /// Unknowns of the largest island's problem (the largest problem solved this step).
    pub largest_unknowns: usize,
    /// Contact islands solved (0 if nothing was solved; 1 without `WorldParams::islands`).
    pub islands: usize,
    /// Dynamic bodies in the largest island (all dynamic bodies without islands).
    pub largest_island: usize,
    /// Times the islands were stepped again with pairs they had missed (bodies of two islands,
    /// or a body and a static body its island did not hold, penetrating where they ended).
    pub island_merges: usize,
    /// Islands whose every solve failed (`failed` is true if any did).
    pub failed_islands: usize,
    /// Solver that produced the accepted answer (`None` if nothing was solved or all failed).
    pub solver: Option<SolverKind>,
    /// Fallbacks taken before the accepted answer (solver or form, and why).
    pub fallbacks: Vec<String>,
    /// Pivots or iterations of the accepted solve.
    pub iterations: usize,
    /// Natural-map residual of the accepted solve.
    pub residual: f64,
    /// Sum of the normal impulses (U-constraints and I/X primaries), N·s.
    pub normal_impulse: f64,
    /// Gap-correction re-solves performed (see `WorldParams::gap_corrections`).
    pub corrections: usize,
    /// The first solve (round 0) and each gap-correction re-solve, answered or failed, in the
    /// order run: what answered it, its size, pivots, residual and time (a step of the 2D pile
    /// of 2,500 spent 1,079 s in its eight rounds, with nothing else in its report to say
    /// where). No round 0 where the step had nothing to solve.
    pub rounds: Vec<RoundReport>,
    /// Solves of this step answered by an earlier solve's Lemke basis instead of a new
    /// solve (the re-solve changed only q and the basis stayed feasible; see
    /// `signorini_complementarity::LemkeFactor`), each certified by its residual.
    pub basis_reuses: usize,
    /// Solves of this step answered by the proximal-point stage (`lemke_proximal`, after the
    /// sparse Lemke failed; docs/peg3d.md items 29 and 30).
    pub proximal_answers: usize,
    /// ε (absolute) of the regularised run whose basis gave the last proximal answer of this
    /// step (`ProximalLemkeInfo::basis_epsilon`), where a gap-correction re-solve's proximal
    /// stage starts (`None`: no proximal answer; with islands, the largest over them).
    pub proximal_epsilon: Option<f64>,
    /// Whether that answer's first path at ε = 1e-4 · max|M_ii| was cut and made again at the
    /// larger ε (`ProximalLemkeInfo::first_path_cut`): on the largest islands a
    /// gap-correction re-solve then starts its schedule at the larger ε (with islands: true
    /// if it was on any island).
    pub proximal_first_path_cut: bool,
    /// True if every solve failed (the velocities are then the free-flight ones, or the best
    /// attempt's, see `kept_best`).
    pub failed: bool,
    /// If the step failed and `WorldParams::keep_best_on_failure` continued from the
    /// least-residual attempt instead of free flight: that attempt's residual.
    pub kept_best: Option<f64>,
    /// If the split impulse was applied (`WorldParams::split_penetration`): the penetration
    /// depth at the start of the step (m) whose ψ/h velocities were not carried on.
    pub split: Option<f64>,
    /// Position-projection passes after a split step (`WorldParams::split_penetration`).
    pub projections: usize,
    /// Unknowns of the largest position-projection solve (0 if none; normal rows only,
    /// the projection is frictionless).
    pub projection_unknowns: usize,
    /// True if a solve of this step stopped because its work budget
    /// (`WorldParams::solve_work_limit`) was spent.
    pub budget_exhausted: bool,
    /// Why the step failed (if it did).
    pub failure: Option<String>,
    /// Time per stage.
    pub times: StageTimes,
}

impl StepReport {
    /// What answered the solve this report describes, as a round of
    /// [`StepReport::rounds`] names it ([`RoundReport::answer`]).
    pub(crate) fn round_answer(&self) -> String {
        if self.failed {
            "failed".into()
        } else if self.basis_reuses > 0 {
            "basis".into()
        } else if self.proximal_answers > 0 {
            "proximal".into()
        } else {
            self.solver
                .map_or_else(|| "none".into(), |k| format!("{k:?}").to_lowercase())
        }
    }
}
