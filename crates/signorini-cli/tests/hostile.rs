//! Issue #20 through the binary: every crash of the hostile-input survey is now exit 2 with a
//! located message and nothing written; names cannot escape `out/`; a non-finite run exits
//! 1; a reused `--out` needs `--force`; trailing LCP data is rejected; a broken pipe ends
//! quietly; OS errors are printed once.

mod common;

use common::{signorini_in, tmp};
use std::path::Path;
use std::process::{Command, Stdio};

const M3: &str =
    "dimension = 3\n[step]\nh = 0.001\nsteps = 10\n[contact]\nmodel = \"cpf\"\nstiffness = 1e5\n";

fn primitive(p: &str) -> String {
    format!(
        "{M3}[[body]]\nshape = {{ type = \"primitive\", radius = 1.0, {p} }}\ndensity = 1000.0\n"
    )
}

fn cloth(n: usize) -> String {
    format!(
        "{M3}[[deformable]]\nshape = {{ type = \"grid\", size = [1.0, 1.0], cells = [{n}, {n}] }}\nmaterial = {{ areal_density = 0.2, stretch = 2000.0 }}\n"
    )
}

const BOX2: &str =
    "[[body]]\nshape = { type = \"box\", size = [0.2, 0.2] }\nmass = 1.0\nposition = [0.0, 0.5]\n";

/// The crashes of the survey: (file name, text, field, what the message must say).
fn crashes() -> Vec<(&'static str, String, &'static str, &'static str)> {
    let step = "[step]\nh = 0.01\nsteps = 10\n";
    vec![
        (
            "cube_sphere.toml",
            primitive("kind = \"cube_sphere\", segments = 1000000000"),
            "body[0].shape.segments",
            "1000000000 is above the limit of 4096 segments",
        ),
        (
            "torus.toml",
            primitive("kind = \"torus\", tube_radius = 0.2, segments = 18446744073709551615"),
            "body[0].shape.segments",
            "18446744073709551615 is above the limit of 4096 segments",
        ),
        (
            "sphere.toml",
            primitive("kind = \"sphere\", segments = 100000, rings = 100000"),
            "body[0].shape.segments",
            "100000 is above the limit of 4096 segments",
        ),
        (
            "copies.toml",
            format!("{step}{BOX2}copies = 1000000000000000000\ninterval = 0.1\n"),
            "body[0].copies",
            "1000000000000000000 is above the limit of 100000 bodies",
        ),
        (
            "polygon.toml",
            format!(
                "{step}[[body]]\nshape = {{ type = \"regular_polygon\", sides = 1000000000000, radius = 1.0 }}\nmass = 1.0\n"
            ),
            "body[0].shape.sides",
            "1000000000000 is above the limit of 1024 sides",
        ),
        (
            "cloth.toml",
            cloth(100_000),
            "deformable[0].shape.cells[0]",
            "100000 is above the limit of 1000 cells per side",
        ),
        (
            "cloth3000.toml",
            cloth(3000),
            "deformable[0].shape.cells[0]",
            "3000 is above the limit of 1000 cells per side",
        ),
        (
            "duration.toml",
            format!("[step]\nh = 0.01\nduration = 1e300\n{BOX2}"),
            "step.duration",
            "above the limit of 100000000 steps",
        ),
    ]
}

#[test]
fn every_crash_is_exit_2_with_a_located_message_and_nothing_written() {
    let dir = tmp("crashes");
    for (file, text, field, what) in crashes() {
        std::fs::write(dir.join(file), &text).unwrap();
        for args in [vec!["validate", file], vec!["run", file, "--out", "o"]] {
            let cmd = args[0];
            let (code, out, err) = signorini_in(&dir, &args);
            let err = err.trim();
            assert_eq!(code, 2, "{cmd} {file}: {out}{err}");
            // file:line:column: field `…`: value and limit.
            let at = format!("error: {file}:");
            assert!(err.starts_with(&at), "{cmd} {file}: {err}");
            let loc: Vec<&str> = err[at.len()..].splitn(3, ':').collect();
            assert!(
                loc[0].parse::<usize>().is_ok() && loc[1].parse::<usize>().is_ok(),
                "{cmd} {file}: no line:column in {err}"
            );
            assert!(err.contains(&format!("field `{field}`")), "{cmd}: {err}");
            assert!(err.contains(what), "{cmd} {file}: {err}");
            assert!(!err.contains("panicked"), "{err}");
            assert!(
                !dir.join("o").exists(),
                "{cmd} {file} wrote its output folder"
            );
        }
    }
    assert!(!dir.join("out").exists());
}

#[test]
fn a_scene_name_cannot_escape_out() {
    let dir = tmp("escape");
    let inner = dir.join("a/b");
    std::fs::create_dir_all(&inner).unwrap();
    for name in ["../../escaped", "/tmp/signorini-escaped-x", "..", "a\\\\b"] {
        let text = format!("name = \"{name}\"\n[step]\nh = 0.01\nsteps = 2\n{BOX2}");
        std::fs::write(inner.join("s.toml"), text).unwrap();
        for cmd in ["validate", "run"] {
            let (code, _, err) = signorini_in(&inner, &[cmd, "s.toml"]);
            assert_eq!(code, 2, "{name}: {err}");
            assert!(err.contains("s.toml:1:8: field `name`"), "{err}");
        }
    }
    assert!(!dir.join("escaped").exists() && !inner.join("out").exists());
    assert!(!Path::new("/tmp/signorini-escaped-x").exists());
}

#[test]
fn a_non_finite_run_exits_1_naming_the_step() {
    let dir = tmp("nan");
    let text = format!("gravity = [0.0, -1e300]\n[step]\nh = 0.01\nsteps = 20\n{BOX2}");
    std::fs::write(dir.join("g.toml"), text).unwrap();
    let (code, _, err) = signorini_in(&dir, &["run", "g.toml", "--quiet"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("non-finite state at step 1"), "{err}");
    let s = std::fs::read_to_string(dir.join("out/g/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["failed"], "non-finite state at step 1");
    assert_eq!(v["all_checks_pass"], false);
}

#[test]
fn a_reused_out_folder_needs_force_which_removes_only_run_files() {
    let dir = tmp("reuse");
    std::fs::write(
        dir.join("s.toml"),
        format!("[step]\nh = 0.01\nsteps = 2\n{BOX2}"),
    )
    .unwrap();
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--out", "o", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    // A stale file of another kind of run, and a file that is not ours.
    std::fs::write(dir.join("o/trace.csv"), "stale").unwrap();
    std::fs::write(dir.join("o/notes.txt"), "mine").unwrap();
    let before = std::fs::read_to_string(dir.join("o/summary.json")).unwrap();
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--out", "o", "--quiet"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not empty") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("o/summary.json")).unwrap(),
        before,
        "a refused run leaves the folder alone"
    );
    // The default folder out/<name> too.
    let (code, _, _) = signorini_in(&dir, &["run", "s.toml", "--quiet"]);
    assert_eq!(code, 0);
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--quiet"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--out", "o", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !dir.join("o/trace.csv").exists(),
        "the stale run file is gone"
    );
    assert!(dir.join("o/notes.txt").exists(), "other files are kept");
    assert!(dir.join("o/summary.json").exists());
}

#[test]
fn zero_steps_and_the_memory_limit_refuse_a_run() {
    let dir = tmp("refuse");
    std::fs::write(
        dir.join("s.toml"),
        format!("[step]\nh = 0.01\nsteps = 2\n{BOX2}"),
    )
    .unwrap();
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--steps", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("must be >= 1"), "{err}");
    // Negative numbers reach our checks instead of being taken by clap for a flag.
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--steps", "-1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected a whole number >= 1"), "{err}");
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--dt", "-0.01"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("step size -0.01 must be in (0, 1] s"), "{err}");
    let (code, _, err) = signorini_in(&dir, &["run", "s.toml", "--memory-limit", "1M"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the run needs an estimated")
            && err.contains("more than the memory limit of 1 MB"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(["validate", "s.toml"])
        .current_dir(&dir)
        .env("SIGNORINI_MEMORY_LIMIT", "1M")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.join("out").exists(), "nothing written");
    let (code, out, err) = signorini_in(&dir, &["validate", "s.toml", "--memory-limit", "none"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("a run needs about"), "{out}");
}

#[test]
fn lcp_trailing_data_is_rejected_wherever_the_file_lies() {
    let dir = tmp("lcp");
    // The header says n = 2; the data is 3 × 3.
    let text = "2\n0\n2\n2\n2 2\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n";
    for folder in ["LCP", "Relay", "."] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        let f = dir.join(folder).join("lcp_x.dat");
        std::fs::write(&f, text).unwrap();
        let (code, out, err) = signorini_in(&dir, &["lcp", "solve", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{folder}: {out}{err}");
        assert!(err.contains("line 8: trailing data '0'"), "{err}");
    }
}

#[test]
fn ccd_check_names_a_missing_file_and_ends_quietly_on_a_broken_pipe() {
    let (code, _, err) = signorini_in(Path::new("."), &["ccd", "check", "/nonexistent.csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent.csv: no such file"), "{err}");
    let dir = tmp("pipe");
    let q = dir.join("q_vf.csv");
    std::fs::write(&q, "0,1,0,1,0,1,1\n".repeat(8)).unwrap();
    // `| head -1` closes the pipe; here the reader is closed before the child starts, so its
    // first write fails whatever the timing (closing it after the spawn raced with a child
    // that had already written everything into the pipe's buffer).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(["ccd", "check", q.to_str().unwrap(), "--kind", "vf"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "quiet, no panic: {err}");
    assert_eq!(out.status.code(), Some(141));
}

#[test]
fn os_errors_are_printed_once() {
    let (code, _, err) = signorini_in(Path::new("."), &["report", "/nonexistent/run"]);
    assert_eq!(code, 2);
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

/// The memory estimate applies to experiments that build worlds of the user's size: a pile of
/// 20,000 bodies, a tower run for 1e7 s, the full cloth-tori world above a small limit (flag or
/// SIGNORINI_MEMORY_LIMIT) are refused before anything runs or is written.
#[test]
fn experiments_refuse_a_world_above_the_memory_limit() {
    let dir = tmp("exp-memory");
    let cases: [(&[&str], &str); 4] = [
        (
            &["pile", "--bodies", "27,20000", "--memory-limit", "1G"],
            "--bodies 20000: the run needs an estimated",
        ),
        (
            &[
                "pile",
                "--dimension",
                "2",
                "--bodies",
                "20000",
                "--memory-limit",
                "1G",
            ],
            "--bodies 20000: the run needs an estimated",
        ),
        (
            &["tower", "--duration", "1e7", "--memory-limit", "1G"],
            "--duration: the run needs an estimated 128.4 GB",
        ),
        (
            &["cloth-tori", "--full", "--memory-limit", "50M"],
            "--full: the run needs an estimated",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["experiment"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", "o"]);
        let (code, _, err) = signorini_in(&dir, &all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(says) && err.contains("more than the memory limit of"),
            "{args:?}: {err}"
        );
        assert!(!dir.join("o").exists(), "{args:?}: nothing written");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(["experiment", "tower", "--out", "o"])
        .current_dir(&dir)
        .env("SIGNORINI_MEMORY_LIMIT", "1M")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than the memory limit of 1 MB"));
    assert!(!dir.join("o").exists());
}
