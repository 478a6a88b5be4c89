//! Progress bars of long experiment runs on stderr: hidden when stderr is not a terminal or
//! when the command line asked for `--quiet` ([`set_quiet`]).
//!
//! Owns: [`set_quiet`], [`bar`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Hide (or show again) every progress bar made by [`bar`] from now on.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// A progress bar of `len` units named `unit` (`"runs"`, `"steps"`), hidden when quiet or when
/// stderr is not a terminal.
pub fn bar(len: usize, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if QUIET.load(Ordering::Relaxed) || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed_precise}} eta {{eta}}");
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
