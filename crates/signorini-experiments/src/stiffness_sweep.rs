//! Jitter and penetration against the contact stiffness at a fixed step, for every force model:
//! the stiffness axis of CPF Figs. 15–16 run as a model comparison.
//!
//! Owns: [`SweepPoint`], [`stiffness_sweep`] (one model comparison per stiffness factor, each
//! in `DIR/k_x<factor>/`) and [`write_stiffness_sweep`] (`DIR/stiffness_sweep.csv` and
//! `DIR/jitter_vs_stiffness.svg`). Does not own: the scenes or the comparison itself (each
//! experiment's `compare`).
//!
//! Why this exists: the paper's stiffness in N/m does not fix the dimensionless per-pair ratio
//! `k Δt² / m` of our scaled scenes (docs/deformable.md, "Why the paper's settings are scaled"),
//! and the difference between continuous and discrete forces grows with that ratio. In 1D
//! (supplementary §C) the CPF impulse over a step spent in contact is `−k h (x + v* h/2)`
//! against the discrete `−k h x`: the extra `−k h² v*/2` damps the contact oscillation by a
//! factor `1 − k h²/(2m)` per step, which discrete forces lack. So the comparison is reported as
//! a function of the stiffness rather than at one chosen value.

use crate::ExperimentError;
use signorini_harness::deform_run::{DeformSummary, Extra};
use signorini_harness::penalty_out::{plot_scaled, write_csv};
use signorini_math::Real;
use std::path::{Path, PathBuf};

/// The model comparison at one stiffness.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    /// Multiple of the experiment's stiffness.
    pub(crate) factor: Real,
    /// Stiffness per pair (N/m).
    pub stiffness: Real,
    /// One run per model, in the order the comparison ran them.
    pub(crate) runs: Vec<(DeformSummary, Extra)>,
}

/// The folder of factor `f` inside `out`: `k_x<f>` (`k_x0.5`, `k_x4`).
pub(crate) fn factor_dir(out: &Path, f: Real) -> PathBuf {
    out.join(format!("k_x{f}"))
}

/// Run `compare(p with stiffness k·f, DIR/k_x<f>/)` for each factor `f` (in the given order)
/// and write the sweep's table and plot (`write_stiffness_sweep`). `stiffness` reads and
/// writes the parameters' stiffness.
///
/// # Errors
/// [`ExperimentError::Argument`] for an empty or non-positive factor list; the first
/// error of `compare`; or an unwritable file.
pub fn stiffness_sweep<P: Clone>(
    p: &P,
    factors: &[Real],
    name: &str,
    out: &Path,
    stiffness: fn(&mut P) -> &mut Real,
    compare: impl Fn(&P, &Path) -> Result<Vec<(DeformSummary, Extra)>, ExperimentError>,
) -> Result<Vec<SweepPoint>, ExperimentError> {
    if factors.is_empty() || factors.iter().any(|f| !(f.is_finite() && *f > 0.0)) {
        return Err(ExperimentError::Argument(format!(
            "stiffness factors must be finite and > 0, got {factors:?}"
        )));
    }
    let mut q = p.clone();
    let k0 = *stiffness(&mut q);
    let mut points = Vec::with_capacity(factors.len());
    // No new run once a signal asked to stop.
    for &f in factors
        .iter()
        .take_while(|_| signorini_harness::cancel::requested().is_none())
    {
        *stiffness(&mut q) = k0 * f;
        let runs = compare(&q, &factor_dir(out, f))?;
        points.push(SweepPoint {
            factor: f,
            stiffness: k0 * f,
            runs,
        });
    }
    write_stiffness_sweep(out, name, &points)?;
    Ok(points)
}

/// `DIR/stiffness_sweep.csv` (one row per factor and model) and `DIR/jitter_vs_stiffness.svg`
/// (final-half jitter per model, log scale, against `log₂` of the factor).
///
/// # Errors
/// [`ExperimentError`] if a file cannot be written.
pub(crate) fn write_stiffness_sweep(
    out: &Path,
    name: &str,
    points: &[SweepPoint],
) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(out).map_err(|err| ExperimentError::io(out, err))?;
    write_csv(
        &out.join("stiffness_sweep.csv"),
        "factor,stiffness,model,dt,jitter,jitter_high_pass,pairs_penetrating_at_end,max_depth,peak_pairs,peak_depth,diverged",
        points.iter().flat_map(|pt| {
            pt.runs.iter().map(move |(s, e)| {
                format!(
                    "{},{},{},{},{:e},{:e},{},{:e},{},{:e},{}",
                    pt.factor,
                    pt.stiffness,
                    s.model,
                    s.dt,
                    s.jitter,
                    e.jitter_high_pass,
                    s.pairs_penetrating_at_end,
                    s.max_depth,
                    e.peak_pairs,
                    e.peak_depth,
                    e.diverged_at.is_some()
                )
            })
        }),
    )?;
    let models: Vec<String> = points
        .first()
        .map(|pt| pt.runs.iter().map(|(s, _)| s.model.clone()).collect())
        .unwrap_or_default();
    // Per model, (log₂ factor, jitter) over the factors that ran it.
    let xy: Vec<(Vec<Real>, Vec<Real>)> = models
        .iter()
        .map(|m| {
            points
                .iter()
                .filter_map(|pt| {
                    let (s, _) = pt.runs.iter().find(|(s, _)| &s.model == m)?;
                    Some((pt.factor.log2(), s.jitter))
                })
                .unzip()
        })
        .collect();
    let series: Vec<(&str, &[Real], &[Real])> = models
        .iter()
        .zip(&xy)
        .map(|(m, (x, y))| (m.as_str(), x.as_slice(), y.as_slice()))
        .collect();
    plot_scaled(
        &out.join("jitter_vs_stiffness.svg"),
        &format!("{name}: final-half jitter against contact stiffness"),
        "log2(stiffness / experiment's stiffness)",
        "jitter (mean |dF| / mean F)",
        true,
        &series,
    )
}
