//! Issue #20, item 4: SIGINT and SIGTERM during `signorini run` and during a sweep
//! (`experiment pour2d`) stop the command cleanly: exit 130 / 143, every file complete and
//! marked interrupted, no temporary `.tmp` file left.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    files(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".tmp"))
        .collect()
}

/// Start `signorini args…` and wait until it is inside its step loop (a temporary output file
/// exists under `out`), then a little longer.
fn start(args: &[&str], out: &Path) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(args)
        .env_remove("SIGNORINI_MEMORY_LIMIT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start signorini");
    let t0 = Instant::now();
    while temp_files(out).is_empty() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("signorini ended before the signal: {status}");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no output file after 20 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child
}

/// Send `signal` (`INT`, `TERM`) and wait for the exit: (code, stdout, stderr).
fn signal_and_wait(child: Child, signal: &str) -> (i32, String, String) {
    let ok = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("run kill")
        .success();
    assert!(ok, "kill -{signal} failed");
    let t0 = Instant::now();
    let out = child.wait_with_output().expect("wait for signorini");
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "took {:?} to stop",
        t0.elapsed()
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A CSV file is complete: every data line has the header's field count, and it ends with
/// `# interrupted: SIG<signal>` and a newline. Returns the data lines.
fn complete_marked_csv(path: &Path, signal: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.ends_with('\n'),
        "{} does not end with a newline",
        path.display()
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.last().copied(),
        Some(format!("# interrupted: SIG{signal}").as_str()),
        "{}",
        path.display()
    );
    let fields = lines[0].split(',').count();
    let data: Vec<String> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| l.to_string())
        .collect();
    for l in &data {
        assert_eq!(
            l.split(',').count(),
            fields,
            "{}: incomplete line {l:?}",
            path.display()
        );
    }
    data
}

fn run_is_stopped_by(signal: &str, code: i32) {
    let dir = tempfile::Builder::new()
        .prefix("signorini-signal-run-")
        .tempdir()
        .unwrap();
    let out = dir.path().join("out");
    // 50,000 steps: far longer than the test waits.
    let child = start(
        &[
            "run",
            "pour2d_a_h010",
            "--dt",
            "0.0001",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        &out,
    );
    let (got, _stdout, stderr) = signal_and_wait(child, signal);
    assert_eq!(got, code, "exit code; stderr: {stderr}");
    assert!(
        temp_files(&out).is_empty(),
        "temporary files left: {:?}",
        temp_files(&out)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
            .expect("summary.json is complete JSON");
    let steps = summary["steps"].as_u64().unwrap();
    assert!((1..50_000).contains(&steps), "steps = {steps}");
    assert_eq!(
        summary["interrupted"],
        format!("SIG{signal} at step {steps}"),
        "{summary}"
    );
    assert_eq!(summary["all_checks_pass"], false);
    let rows = complete_marked_csv(&out.join("steps.csv"), signal);
    assert_eq!(rows.len() as u64, steps, "one steps.csv row per step taken");
    let last: u64 = rows
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(last, steps);
    complete_marked_csv(&out.join("trajectories.csv"), signal);
    for f in ["bodies.json", "scene.toml"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert!(
        stderr.contains(&format!("interrupted by SIG{signal}"))
            && stderr.contains(out.to_str().unwrap()),
        "{stderr}"
    );
}

#[test]
fn sigterm_stops_a_run_with_complete_marked_files_and_exit_143() {
    run_is_stopped_by("TERM", 143);
}

#[test]
fn sigint_stops_a_run_with_complete_marked_files_and_exit_130() {
    run_is_stopped_by("INT", 130);
}

fn sweep_is_stopped_by(signal: &str, code: i32) {
    let dir = tempfile::Builder::new()
        .prefix("signorini-signal-sweep-")
        .tempdir()
        .unwrap();
    let out = dir.path().join("out");
    // 8 runs of 5 s at h = 1 ms and 2 ms: several seconds each, more than the test waits.
    let child = start(
        &[
            "experiment",
            "--quiet",
            "pour2d",
            "--sets",
            "a,b",
            "--h",
            "0.001,0.002",
            "--models",
            "peg,corrective",
            "--out",
            out.to_str().unwrap(),
        ],
        &out,
    );
    let (got, stdout, stderr) = signal_and_wait(child, signal);
    assert_eq!(got, code, "exit code; stderr: {stderr}");
    assert!(
        temp_files(&out).is_empty(),
        "temporary files left: {:?}",
        temp_files(&out)
    );
    // summary.csv: one complete row per run, marked.
    let rows = complete_marked_csv(&out.join("summary.csv"), signal);
    assert_eq!(rows.len(), 8, "{rows:?}");
    // failures.csv names every run that was cut short or never started.
    let failures = complete_marked_csv(&out.join("failures.csv"), signal);
    let cut = failures
        .iter()
        .filter(|l| l.contains(&format!("interrupted: SIG{signal} at step")))
        .count();
    let not_started = failures
        .iter()
        .filter(|l| l.contains(&format!("SIG{signal} before the run started")))
        .count();
    assert!(cut >= 1, "no run in progress was cut short: {failures:?}");
    assert!(not_started >= 1, "every run started: {failures:?}");
    assert_eq!(cut + not_started, failures.len(), "{failures:?}");
    // Runs stopped at their next step: their files are complete and hold the steps taken.
    let steps = files(&out.join("steps"));
    assert!(!steps.is_empty());
    for f in &steps {
        complete_marked_csv(f, signal);
    }
    complete_marked_csv(&out.join("pooled.csv"), signal);
    let report = std::fs::read_to_string(out.join("report.txt")).unwrap();
    assert!(
        report.starts_with(&format!("interrupted: SIG{signal}")),
        "{report}"
    );
    assert!(
        stdout.starts_with(&format!("interrupted: SIG{signal}")),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!("interrupted by SIG{signal}"))
            && stderr.contains(out.to_str().unwrap()),
        "{stderr}"
    );
}

#[test]
fn sigint_stops_a_sweep_no_new_run_starts_and_exit_is_130() {
    sweep_is_stopped_by("INT", 130);
}

#[test]
fn sigterm_stops_a_sweep_no_new_run_starts_and_exit_is_143() {
    sweep_is_stopped_by("TERM", 143);
}
