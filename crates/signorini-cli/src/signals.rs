//! SIGINT, SIGTERM (and SIGHUP, SIGQUIT) during `run`, `experiment`, `bench` and the default
//! job: stop cleanly.
//!
//! The first signal sets the library's cancellation flag (`signorini_harness::cancel`):
//! step loops stop after their current step, sweeps start no new run, every file open is
//! completed and marked interrupted (`"interrupted": "SIGINT at step k"` in `summary.json`, a
//! last line `# interrupted: SIGINT` in CSV files), and the command exits with 128 + the
//! signal number (130 for SIGINT, 143 for SIGTERM) after saying so on stderr ([`finish`]).
//! A second signal does not wait: it exits at once with the same convention. The step rows
//! of a run in progress that were checkpointed (`Csv::checkpoint`) are kept, marked
//! interrupted; every other temporary file of a write in progress is removed. Either way no
//! `.name.tmp-PID-n` file is left.
//!
//! Handlers come from `signal-hook` (see the workspace Cargo.toml for why not `ctrlc`): its
//! iterator receives the signals on an ordinary thread, so nothing here runs inside a signal
//! handler. Other subcommands (`lcp`, `ccd`, `validate`, …) keep the default behaviour: they
//! write no files and end at once.

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;
use signorini_harness::cancel;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The output folder of the running command, for the closing message.
static OUTPUT: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Catch SIGINT, SIGTERM, SIGHUP and SIGQUIT from here on (see the module docs). If the
/// handlers cannot be installed the default behaviour stays (the process ends at once).
pub fn install() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT]) else {
        return;
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                let name = cancel::signal_name(sig);
                if cancel::request(sig) {
                    eprintln!(
                        "signorini: {name}: stopping after the current step and completing the \
                         files written so far ({name} again to stop at once)"
                    );
                } else {
                    eprintln!(
                        "signorini: {name} again: stopping now; the step rows written so far are \
                         kept, other files still being written are removed"
                    );
                    cancel::remove_temp_files_and_exit(i32::from(cancel::exit_status(sig)));
                }
            }
        });
    drop(spawned);
}

/// Remember the command's output folder (named in the message of [`finish`]).
pub fn note_output(dir: &Path) {
    if let Ok(mut o) = OUTPUT.lock() {
        *o = Some(dir.to_path_buf());
    }
}

/// If a signal stopped the command: say so on stderr (and where the partial files are) and
/// return the exit status 128 + signal.
pub fn finish() -> Option<u8> {
    let sig = cancel::requested()?;
    let name = cancel::signal_name(sig);
    let out = OUTPUT.lock().ok().and_then(|o| o.clone());
    if let Some(at) = cancel::stopped() {
        eprintln!("signorini: stopped: {at}");
    }
    match out {
        Some(dir) => eprintln!(
            "signorini: interrupted by {name}: no new run was started and runs in progress \
             stopped after their current step; the files in {} are complete up to there and \
             marked interrupted (\"interrupted\" in summary.json, a last line \
             `# interrupted: {name}` in CSV files)",
            dir.display()
        ),
        None => eprintln!("signorini: interrupted by {name}"),
    }
    Some(cancel::exit_status(sig))
}
