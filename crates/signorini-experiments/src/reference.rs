//! The authors' stored results (docs/formulation-notes.md §7, §8, §10): `reference_overlap.csv`,
//! `reference_constraint_counts.csv`, `triangle_drop/reference_final_states.csv`.
//!
//! Owns: parsing these CSVs (by header name) and per-h aggregates used for comparison.

use crate::ExperimentError;
use signorini_harness::stats::quantile_sorted;
use std::collections::BTreeMap;
use std::path::Path;

/// A CSV as rows of named string fields.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Read a comma-separated file with a header line.
    pub(crate) fn read(path: &Path) -> Result<Table, ExperimentError> {
        let text = std::fs::read_to_string(path).map_err(|e| ExperimentError::io(path, e))?;
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<String> = lines
            .next()
            .ok_or_else(|| ExperimentError::Parse {
                path: path.to_path_buf(),
                reason: "empty file".into(),
            })?
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        let rows = lines
            .map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
            .collect();
        Ok(Table { header, rows })
    }

    /// Column `name` of every row (empty string if missing).
    pub(crate) fn column(&self, name: &str) -> Vec<String> {
        let i = self.header.iter().position(|h| h == name);
        self.rows
            .iter()
            .map(|r| i.and_then(|i| r.get(i).cloned()).unwrap_or_default())
            .collect()
    }

    /// Column `name` parsed as numbers (NaN if unparsable).
    pub(crate) fn numbers(&self, name: &str) -> Vec<f64> {
        self.column(name)
            .iter()
            .map(|s| s.parse().unwrap_or(f64::NAN))
            .collect()
    }
}

/// Key for grouping by step size: h in microseconds.
pub fn h_key(h: f64) -> i64 {
    (h * 1e6).round() as i64
}

/// Authors' per-h overlap aggregates for one stored model (`peg` or `corrective_standard`):
/// median over trials of the per-trial median, Q1 and Q3, and the largest per-trial maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ReferenceOverlap {
    /// Step size.
    pub(crate) h: f64,
    /// Number of stored trials.
    pub(crate) trials: usize,
    /// Median of per-trial medians.
    pub(crate) median: f64,
    /// Median of per-trial Q1.
    pub(crate) q1: f64,
    /// Median of per-trial Q3.
    pub(crate) q3: f64,
    /// Largest per-trial maximum.
    pub(crate) max: f64,
}

/// Read `reference_overlap.csv` and aggregate per h for `model`.
pub(crate) fn reference_overlap(
    path: &Path,
    model: &str,
) -> Result<Vec<ReferenceOverlap>, ExperimentError> {
    let t = Table::read(path)?;
    let (models, hs) = (t.column("model"), t.numbers("h"));
    let (med, q1, q3, max) = (
        t.numbers("median"),
        t.numbers("q1"),
        t.numbers("q3"),
        t.numbers("max"),
    );
    let mut by_h: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, m) in models.iter().enumerate() {
        if m == model && hs[i].is_finite() {
            by_h.entry(h_key(hs[i])).or_default().push(i);
        }
    }
    let agg = |idx: &[usize], col: &[f64]| {
        let mut v: Vec<f64> = idx
            .iter()
            .map(|&i| col[i])
            .filter(|x| x.is_finite())
            .collect();
        v.sort_by(f64::total_cmp);
        quantile_sorted(&v, 0.5)
    };
    Ok(by_h
        .into_iter()
        .map(|(k, idx)| ReferenceOverlap {
            h: k as f64 * 1e-6,
            trials: idx.len(),
            median: agg(&idx, &med),
            q1: agg(&idx, &q1),
            q3: agg(&idx, &q3),
            max: idx
                .iter()
                .map(|&i| max[i])
                .filter(|x| x.is_finite())
                .fold(f64::NAN, f64::max),
        })
        .collect())
}

/// Authors' mean number of I-constraints per step (including X's converted to I;
/// docs/formulation-notes.md §8), averaged over stored trials, per h.
pub(crate) fn reference_mean_inter(path: &Path) -> Result<Vec<(f64, f64)>, ExperimentError> {
    let t = Table::read(path)?;
    let (hs, i) = (t.numbers("h"), t.numbers("mean_I"));
    let mut by_h: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for (h, v) in hs.iter().zip(&i) {
        if h.is_finite() && v.is_finite() {
            by_h.entry(h_key(*h)).or_default().push(*v);
        }
    }
    Ok(by_h
        .into_iter()
        .map(|(k, v)| (k as f64 * 1e-6, v.iter().sum::<f64>() / v.len() as f64))
        .collect())
}

/// The authors' fraction of steps with at least one I-constraint (X's converted to I's
/// included; `fraction_of_steps_with_I` of `reference_constraint_counts.csv`,
/// docs/formulation-notes.md §8) at one h, over the stored trials.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceTrapFraction {
    /// Step size (s).
    pub h: f64,
    /// Stored trials (body sets) at this h.
    pub trials: usize,
    /// Mean over the trials.
    pub mean: f64,
    /// Smallest trial's fraction.
    pub min: f64,
    /// Largest trial's fraction.
    pub max: f64,
}

/// Read the authors' per-trial `fraction_of_steps_with_I`, aggregated per h.
pub fn reference_trap_fraction(path: &Path) -> Result<Vec<ReferenceTrapFraction>, ExperimentError> {
    let t = Table::read(path)?;
    let (hs, f) = (t.numbers("h"), t.numbers("fraction_of_steps_with_I"));
    let mut by_h: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for (h, v) in hs.iter().zip(&f) {
        if h.is_finite() && v.is_finite() {
            by_h.entry(h_key(*h)).or_default().push(*v);
        }
    }
    Ok(by_h
        .into_iter()
        .map(|(k, v)| ReferenceTrapFraction {
            h: k as f64 * 1e-6,
            trials: v.len(),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
        .collect())
}

/// One row of the triangle-drop reference: model (`PEG`, `ST`, `pen`, `peg_ground_truth`), h,
/// steps, final x, y, θ.
#[derive(Debug, Clone, PartialEq)]
pub struct TriangleReference {
    /// Model label as stored.
    pub model: String,
    /// Step size.
    pub h: f64,
    /// Number of steps.
    pub n_steps: usize,
    /// Final x.
    pub x: f64,
    /// Final y.
    pub y: f64,
    /// Final θ.
    pub(crate) theta: f64,
}

/// Read `triangle_drop/reference_final_states.csv`.
pub fn triangle_references(path: &Path) -> Result<Vec<TriangleReference>, ExperimentError> {
    let t = Table::read(path)?;
    let models = t.column("model");
    let (h, n, x, y, th) = (
        t.numbers("h"),
        t.numbers("n_steps"),
        t.numbers("final_x"),
        t.numbers("final_y"),
        t.numbers("final_theta"),
    );
    Ok((0..models.len())
        .map(|i| TriangleReference {
            model: models[i].clone(),
            h: h[i],
            n_steps: n[i] as usize,
            x: x[i],
            y: y[i],
            theta: th[i],
        })
        .collect())
}
