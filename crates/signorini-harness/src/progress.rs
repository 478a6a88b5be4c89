//! Progress of long experiment runs on stderr: a bar on a terminal; when stderr is not a
//! terminal (a batch job under `nohup`, a log file), one plain line at most every
//! [`LOG_INTERVAL`] instead, so that a run whose steps take minutes still says where it is.
//! Nothing is printed after `--quiet` ([`set_quiet`]). Progress never touches the outputs.
//!
//! Owns: [`set_quiet`], [`bar`], [`Progress`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Shortest time between two progress lines when stderr is not a terminal.
pub const LOG_INTERVAL: Duration = Duration::from_secs(60);

/// Hide (or show again) every progress bar made by [`bar`] from now on.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Progress of `len` units: an indicatif bar on a terminal, else rate-limited log lines.
pub struct Progress {
    bar: ProgressBar,
    unit: String,
    label: Option<String>,
    /// Some(time of the last line) when logging lines (stderr not a terminal, not quiet).
    log: Option<Mutex<Instant>>,
}

/// Progress of `len` units named `unit` (`"runs"`, `"steps"`): a bar on a terminal, a line
/// every [`LOG_INTERVAL`] otherwise, nothing when quiet.
pub fn bar(len: usize, unit: &str) -> Progress {
    let bar = ProgressBar::new(len as u64);
    let quiet = QUIET.load(Ordering::Relaxed);
    let terminal = std::io::stderr().is_terminal();
    if quiet || !terminal {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed_precise}} eta {{eta}}");
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Progress {
        bar,
        unit: unit.to_string(),
        label: None,
        log: (!quiet && !terminal).then(|| Mutex::new(Instant::now())),
    }
}

impl Progress {
    /// Name the run in the log lines (e.g. `peg_3d_random_n125`).
    pub fn labelled(mut self, label: &str) -> Progress {
        self.label = Some(label.to_string());
        self
    }

    /// Count `n` more units done; print a log line if one is due.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        let Some(last) = &self.log else { return };
        let now = Instant::now();
        // A poisoned lock only means another thread panicked while printing: keep going.
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if now.duration_since(*last) >= LOG_INTERVAL {
            *last = now;
            eprintln!("{}", self.line());
        }
    }

    /// Change the total (a pour run learns its length while it runs).
    pub fn set_length(&self, len: u64) {
        self.bar.set_length(len);
    }

    /// Remove the bar (no final log line: the command's own report follows).
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }

    fn line(&self) -> String {
        log_line(
            self.label.as_deref(),
            &self.unit,
            self.bar.position(),
            self.bar.length().unwrap_or(0),
            self.bar.elapsed(),
        )
    }
}

/// `"<label>: <pos>/<len> <unit> (<p> %), <elapsed> elapsed, <per unit> per <unit>, eta <eta>"`
/// (the eta from the mean time per unit so far).
fn log_line(label: Option<&str>, unit: &str, pos: u64, len: u64, elapsed: Duration) -> String {
    let label = label.map(|l| format!("{l}: ")).unwrap_or_default();
    let percent = if len > 0 {
        100.0 * pos as f64 / len as f64
    } else {
        0.0
    };
    let per = if pos > 0 {
        elapsed.as_secs_f64() / pos as f64
    } else {
        0.0
    };
    let eta = per * len.saturating_sub(pos) as f64;
    format!(
        "{label}{pos}/{len} {unit} ({percent:.0} %), {} elapsed, {} per {}, eta {}",
        clock(elapsed.as_secs_f64()),
        clock(per),
        unit.trim_end_matches('s'),
        clock(eta)
    )
}

/// `1h02m03s`, `2m03s`, `3.4s` or `25ms`.
fn clock(seconds: f64) -> String {
    if seconds < 1.0 {
        return format!("{:.0}ms", 1e3 * seconds);
    }
    if seconds < 60.0 {
        return format!("{seconds:.1}s");
    }
    let s = seconds.round() as u64;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else {
        format!("{m}m{s:02}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_says_where_the_run_is_and_how_long_the_rest_takes() {
        let line = log_line(
            Some("peg_3d_random_n125"),
            "steps",
            50,
            200,
            Duration::from_secs(100),
        );
        assert_eq!(
            line,
            "peg_3d_random_n125: 50/200 steps (25 %), 1m40s elapsed, 2.0s per step, eta 5m00s"
        );
        let line = log_line(None, "runs", 0, 0, Duration::from_millis(20));
        assert_eq!(line, "0/0 runs (0 %), 20ms elapsed, 0ms per run, eta 0ms");
    }

    #[test]
    fn clock_formats_each_range() {
        assert_eq!(clock(0.0254), "25ms");
        assert_eq!(clock(3.44), "3.4s");
        assert_eq!(clock(123.0), "2m03s");
        assert_eq!(clock(3723.0), "1h02m03s");
    }

    #[test]
    fn a_quiet_progress_prints_no_line() {
        set_quiet(true);
        let p = bar(10, "steps");
        assert!(p.log.is_none());
        p.inc(10);
        set_quiet(false);
    }
}
