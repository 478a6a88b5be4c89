//! Order statistics of per-step series.
//!
//! Owns: [`Summary`] (median, quartiles, max, mean). Quantiles use linear interpolation between
//! order statistics (type 7); NaN entries count as 0, as in the authors' plotting
//! (docs/formulation-notes.md §7).

/// Median, quartiles, maximum and mean of a series.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Maximum.
    pub max: f64,
    /// Mean.
    pub mean: f64,
}

/// Quantile `p ∈ [0, 1]` of sorted values (linear interpolation); NaN if empty.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let x = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x - x.floor());
    let j = (i + 1).min(sorted.len() - 1);
    sorted[i] + (sorted[j] - sorted[i]) * f
}

/// Summarise a series (NaN → 0).
pub fn summarize(values: &[f64]) -> Summary {
    let mut v: Vec<f64> = values
        .iter()
        .map(|x| if x.is_nan() { 0.0 } else { *x })
        .collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Summary {
        n,
        median: quantile_sorted(&v, 0.5),
        q1: quantile_sorted(&v, 0.25),
        q3: quantile_sorted(&v, 0.75),
        max: v.last().copied().unwrap_or(f64::NAN),
        mean: if n == 0 {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / n as f64
        },
    }
}
