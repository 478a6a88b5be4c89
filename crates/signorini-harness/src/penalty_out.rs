//! Output helpers shared by the penalty experiments: CSV rows, JSON summaries, line plots, and
//! the jitter figure.

use crate::ExperimentError;
use crate::svg::{Plot, Series};
use crate::writer::Csv;
use std::path::Path;

/// Write a CSV file with a header and rows.
pub fn write_csv(
    path: &Path,
    header: &str,
    rows: impl IntoIterator<Item = String>,
) -> Result<(), ExperimentError> {
    let mut csv = Csv::create(path, header)?;
    for r in rows {
        csv.line(&r)?;
    }
    csv.finish()
}

/// Write a value as pretty JSON, atomically. Written while a signal asks to stop
/// ([`crate::cancel`]), an object gets the field `"interrupted": "SIGINT at step k of <what>"`
/// (where the first loop stopped; the signal's name alone if none did) unless it has one.
pub fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<(), ExperimentError> {
    let parse = |e: serde_json::Error| ExperimentError::Parse {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let mut value = serde_json::to_value(v).map_err(parse)?;
    if let (Some(s), serde_json::Value::Object(map)) = (crate::cancel::requested(), &mut value)
        && !map.contains_key("interrupted")
    {
        let mark = crate::cancel::stopped().unwrap_or_else(|| crate::cancel::signal_name(s));
        map.insert("interrupted".into(), mark.into());
    }
    let text = serde_json::to_string_pretty(&value).map_err(parse)?;
    crate::writer::write_atomic(path, (text + "\n").as_bytes())
}

const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// A line plot of several `(name, x, y)` series (decimated to at most 2000 points each).
pub fn plot(
    path: &Path,
    title: &str,
    xl: &str,
    yl: &str,
    series: &[(&str, &[f64], &[f64])],
) -> Result<(), ExperimentError> {
    plot_scaled(path, title, xl, yl, false, series)
}

/// As [`plot`], optionally with a log y axis. Written atomically ([`crate::write_atomic`]).
pub fn plot_scaled(
    path: &Path,
    title: &str,
    xl: &str,
    yl: &str,
    log_y: bool,
    series: &[(&str, &[f64], &[f64])],
) -> Result<(), ExperimentError> {
    let mut p = Plot::new(title, xl, yl, log_y);
    for (i, (name, x, y)) in series.iter().enumerate() {
        let stride = (x.len() / 2000).max(1);
        p.add(Series {
            name: name.to_string(),
            color: COLORS[i % COLORS.len()].into(),
            dashed: false,
            points: x
                .iter()
                .zip(y.iter())
                .step_by(stride)
                .map(|(&a, &b)| (a, b, b, b))
                .collect(),
        });
    }
    crate::writer::write_atomic(path, p.to_svg().as_bytes())
}

/// Jitter figure of a contact-force series: the mean absolute step-to-step change divided by
/// the mean (0 for an all-zero series).
pub fn jitter(force: &[f64]) -> f64 {
    if force.len() < 2 {
        return 0.0;
    }
    let mean = force.iter().sum::<f64>() / force.len() as f64;
    if mean == 0.0 {
        return 0.0;
    }
    let change =
        force.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / (force.len() - 1) as f64;
    change / mean
}

/// Window (steps) of [`jitter_high_pass`]'s centred moving average.
pub(crate) const HIGH_PASS_WINDOW: usize = 9;

/// High-pass jitter of a contact-force series: the mean absolute residual from the centred
/// moving average over `window` steps (odd), divided by the mean force (0 for an all-zero
/// series or one shorter than the window). Unlike [`jitter`], a force that changes linearly
/// over the window — bodies still settling or sliding — gives 0: it measures step-to-step
/// noise, not slow motion. An alternating `m ± a` series gives `a (1 − 1/window) / m`.
pub fn jitter_high_pass(force: &[f64], window: usize) -> f64 {
    let w = window.max(1) | 1;
    if force.len() < w {
        return 0.0;
    }
    let mean = force.iter().sum::<f64>() / force.len() as f64;
    if mean == 0.0 {
        return 0.0;
    }
    let residual = force
        .windows(w)
        .map(|win| (win[w / 2] - win.iter().sum::<f64>() / w as f64).abs())
        .sum::<f64>()
        / (force.len() - w + 1) as f64;
    residual / mean
}
