//! The world settings every run shares: the project's stepper ([`Stepper::Project`],
//! [`experiment_params`]), the paper's ([`Stepper::Paper`]) or the project's applied alike to
//! every model ([`Stepper::Uniform`], the ablation's), the PEG solve budget, and the step
//! count of a duration.
//!
//! Owns: presets. Does not own: `WorldParams` itself (`signorini-world`).

use signorini_world::{ContactModel, WorldParams};

/// Number of steps: `floor(duration/h)` evaluated in floating point as the reference code does.
pub fn step_count(duration: f64, h: f64) -> usize {
    (duration / h).floor().max(0.0) as usize
}

/// Which stepper an experiment runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stepper {
    /// The project's stepper ([`experiment_params`]): for PEG `gap_corrections` re-solves per
    /// step (the CLI's default 8), the split impulse and position projection whenever
    /// `gap_corrections > 0`, the solve budget; the project's detection additions,
    /// keep-best-on-failure, islands and basis reuse for every model.
    Project {
        /// Gap-correction re-solves per PEG step (`WorldParams::gap_corrections`).
        gap_corrections: usize,
    },
    /// The paper's stepper with every project addition off ([`WorldParams::paper`]; the CLI's
    /// `--paper`).
    Paper,
    /// The project's stepper with every addition applied to every model where it applies,
    /// PEG's settings for all three ([`WorldParams::signorini_uniform`]): the ablation's
    /// Signorini stepper (`signorini experiment ablation`). For PEG the same as
    /// [`Stepper::Project`] with the same count.
    Uniform {
        /// Gap-correction re-solves per step, every model.
        gap_corrections: usize,
    },
}

impl Stepper {
    /// The project's stepper with the experiments' 8 gap corrections (the default).
    pub const DEFAULT: Stepper = Stepper::Project { gap_corrections: 8 };

    /// World settings for `model` at step `h`.
    pub fn params(self, model: ContactModel, h: f64) -> WorldParams {
        match self {
            Stepper::Project { gap_corrections } => experiment_params(model, h, gap_corrections),
            Stepper::Paper => WorldParams::paper(model, h),
            Stepper::Uniform { gap_corrections } => {
                WorldParams::signorini_uniform(model, h, gap_corrections)
            }
        }
    }

    /// `project`, `paper` or `uniform` (reports).
    pub fn name(self) -> &'static str {
        match self {
            Stepper::Project { .. } => "project",
            Stepper::Paper => "paper",
            Stepper::Uniform { .. } => "uniform",
        }
    }
}

/// `Stepper::Project` with that many gap corrections.
impl From<usize> for Stepper {
    fn from(gap_corrections: usize) -> Stepper {
        Stepper::Project { gap_corrections }
    }
}

/// World settings of the experiments: the project's defaults,
/// [`WorldParams::signorini_with_corrections`] (PEG with `gap_corrections`; the baselines
/// without the mixed-form retry).
pub fn experiment_params(model: ContactModel, h: f64, gap_corrections: usize) -> WorldParams {
    WorldParams::signorini_with_corrections(model, h, gap_corrections)
}
