//! Process-wide cancellation: a signal (SIGINT, SIGTERM, …) asked the running command to stop.
//!
//! Owns: the flag (the number of the first signal received, 0 for none), what step loops and
//! sweeps read from it, the wording of the `interrupted` marks in output files, and the set of
//! temporary files of [`crate::AtomicFile`]s still being written (so that a forced exit can
//! remove them, keeping the checkpointed rows of step files). Does not own: signal handlers.
//! The library never installs one; the `signorini` binary does and calls [`request`] (see
//! `crates/signorini-cli/src/signals.rs`).
//!
//! Contract of the loops that read the flag: a step loop checks [`requested`] once before each
//! step and, when set, stops, completes its files (they hold the steps taken) and records
//! [`at_step`] in its summary; a sweep starts no new run once the flag is set. Every CSV file
//! completed while the flag is set ends with the line `# interrupted: <SIGNAL>` (see
//! [`crate::Csv::finish`]).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

/// The first signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Temporary files of atomic writes in progress, each with what a forced exit keeps of it:
/// `Some((target, len))` for a file whose first `len` bytes are whole rows
/// ([`crate::Csv::checkpoint`]), `None` for one that is removed.
static TEMP_FILES: Mutex<BTreeMap<PathBuf, Option<(PathBuf, u64)>>> = Mutex::new(BTreeMap::new());

/// Ask everything running to stop because of signal `signal` (a positive signal number).
/// The first request wins; later ones are ignored. Returns true for the first request.
pub fn request(signal: i32) -> bool {
    SIGNAL
        .compare_exchange(0, signal.max(1), Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

/// The signal that asked to stop, if any.
pub fn requested() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// The conventional name of a signal number ("SIGINT", "SIGTERM", …, else "signal N").
pub fn signal_name(signal: i32) -> String {
    match signal {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        3 => "SIGQUIT".into(),
        15 => "SIGTERM".into(),
        s => format!("signal {s}"),
    }
}

/// The exit status of a command stopped by `signal`: 128 + the signal number (130 for SIGINT,
/// 143 for SIGTERM), what a shell reports for a process killed by it.
pub fn exit_status(signal: i32) -> u8 {
    (128 + signal).clamp(0, 255) as u8
}

/// `"SIGINT at step k"` if a signal stopped a loop that had completed `step` steps.
pub fn at_step(step: usize) -> Option<String> {
    requested().map(|s| format!("{} at step {step}", signal_name(s)))
}

/// Where the first loop stopped for a signal (see [`stop_at`]).
static STOPPED: Mutex<Option<String>> = Mutex::new(None);

/// A loop that completed `step` steps of `what` (a model, a run, a trial; empty for the only
/// loop) stops for a signal: `"SIGINT at step k of <what>"`, also recorded as where the command
/// stopped ([`stopped`]; the first loop to stop wins). `None` if no signal asked to stop.
pub fn stop_at(step: usize, what: &str) -> Option<String> {
    let mark = at_step(step)?;
    let mark = if what.is_empty() {
        mark
    } else {
        format!("{mark} of {what}")
    };
    if let Ok(mut s) = STOPPED.lock() {
        s.get_or_insert_with(|| mark.clone());
    }
    Some(mark)
}

/// Where the first loop stopped for a signal (`"SIGINT at step k of <what>"`), if one did.
pub fn stopped() -> Option<String> {
    STOPPED.lock().ok().and_then(|s| s.clone())
}

/// `"SIGINT before the run started"`: a sweep's run that a signal kept from starting.
pub fn not_started() -> Option<String> {
    requested().map(|s| format!("{} before the run started", signal_name(s)))
}

/// The comment line that ends a CSV file completed after a signal: `# interrupted: SIGINT`.
pub(crate) fn csv_mark() -> Option<String> {
    requested().map(|s| format!("# interrupted: {}", signal_name(s)))
}

/// `report` with a first line `interrupted: SIGINT (…)` if a signal asked to stop (the text
/// reports of the experiments, `report.txt`).
pub fn mark_report(report: String) -> String {
    match requested() {
        Some(s) => format!(
            "interrupted: {}; the figures below cover only the steps and runs done before it\n{report}",
            stopped().unwrap_or_else(|| signal_name(s))
        ),
        None => report,
    }
}

/// Register a temporary file of an atomic write in progress.
pub(crate) fn track_temp(path: &Path) {
    if let Ok(mut set) = TEMP_FILES.lock() {
        set.insert(path.to_path_buf(), None);
    }
}

/// For each (tmp, target, len): the first `len` bytes of the temporary file `tmp` (to become
/// `target`) are whole rows, which a forced exit keeps in `target`
/// ([`remove_temp_files_and_exit`]). All are marked under one lock, so that a forced exit
/// sees files checkpointed together at the same row.
pub(crate) fn mark_salvageable(marks: &[(&Path, &Path, u64)]) {
    if let Ok(mut set) = TEMP_FILES.lock() {
        for &(tmp, target, len) in marks {
            if let Some(entry) = set.get_mut(tmp) {
                *entry = Some((target.to_path_buf(), len));
            }
        }
    }
}

/// The temporary file was renamed or removed.
pub(crate) fn untrack_temp(path: &Path) {
    if let Ok(mut set) = TEMP_FILES.lock() {
        set.remove(path);
    }
}

/// End the process at once with `status` (no destructor runs), for exits that cannot wait for
/// the writers: a second signal, a broken pipe on standard output.
///
/// Each temporary file of an atomic write still in progress is removed. One that holds whole
/// rows ([`crate::Csv::checkpoint`]: the step rows of a long run) first has those rows written
/// to its target, ending with the line `# interrupted: <SIGNAL>`: a run whose
/// step takes minutes keeps the steps it took. The registry stays locked until the process
/// ends, so no writer can start a new temporary file in between.
pub fn remove_temp_files_and_exit(status: i32) -> ! {
    let guard = TEMP_FILES.lock();
    if let Ok(set) = &guard {
        let mark = csv_mark().unwrap_or_else(|| "# interrupted: stopped at once".into());
        for (tmp, keep) in set.iter() {
            if let Some((target, len)) = keep {
                let _ = salvage(tmp, target, *len, &mark);
            }
            let _ = std::fs::remove_file(tmp);
        }
    }
    std::process::exit(status)
}

/// Write the first `len` bytes of `tmp` and the line `mark` to `target`, through a second
/// temporary file renamed into place. `tmp` is only read: a writer still appending to it
/// cannot interleave with the copy. A `tmp` already renamed (its writer completed it) is an
/// error and leaves `target` as that writer left it.
pub(crate) fn salvage(tmp: &Path, target: &Path, len: u64, mark: &str) -> std::io::Result<()> {
    let mut rows = Vec::new();
    std::fs::File::open(tmp)?.take(len).read_to_end(&mut rows)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let part = dir.join(format!(".{name}.salvage-{}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&part)?;
        f.write_all(&rows)?;
        writeln!(f, "{mark}")?;
        f.sync_all()?;
        std::fs::rename(&part, target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_statuses() {
        assert_eq!(signal_name(2), "SIGINT");
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(10), "signal 10");
        assert_eq!(exit_status(2), 130);
        assert_eq!(exit_status(15), 143);
    }

    /// A forced exit keeps the whole rows of a checkpointed file: the bytes written after the
    /// checkpoint (a half-written row) are dropped, the mark ends the file, and no second
    /// temporary file is left.
    #[test]
    fn salvage_keeps_the_checkpointed_rows_and_marks_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join(".steps.csv.tmp-1-0");
        let target = dir.path().join("steps.csv");
        let rows = "step,t\n1,0.01\n2,0.02\n";
        std::fs::write(&tmp, format!("{rows}3,0.0")).unwrap();
        salvage(&tmp, &target, rows.len() as u64, "# interrupted: SIGINT").unwrap();
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            format!("{rows}# interrupted: SIGINT\n")
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        // A temporary file already renamed by its writer: nothing is written.
        let gone = dir.path().join(".gone.csv.tmp-1-1");
        assert!(salvage(&gone, &dir.path().join("gone.csv"), 3, "#").is_err());
        assert!(!dir.path().join("gone.csv").exists());
    }
}
