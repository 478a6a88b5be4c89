//! End-to-end checks of the `signorini` binary: exit codes 0 / 1 / 2 and JSON fields.

mod common;

use common::signorini;
use std::path::PathBuf;
use std::process::Command;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn lcp_file(name: &str) -> String {
    data()
        .join("lcp/siconos/LCP/test/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn lemke_solves_tobenna_and_reports_json() {
    let (code, out, err) = signorini(&[
        "lcp",
        "solve",
        &lcp_file("lcp_tobenna.dat"),
        "--solver",
        "lemke",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON output");
    assert_eq!(v["status"], "solved");
    assert_eq!(v["solver"], "lemke");
    assert!(v["residual"].as_f64().unwrap() <= 1e-8);
    assert_eq!(v["z"].as_array().unwrap().len(), 40);
}

#[test]
fn unsolvable_problem_exits_1() {
    let (code, out, _) = signorini(&[
        "lcp",
        "solve",
        &lcp_file("lcp_Pang_isolated_sol_perturbed.dat"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON output");
    assert_ne!(v["status"], "solved");
}

#[test]
fn malformed_file_exits_2_naming_the_line() {
    let root = tmp("lcp");
    let dir = root.path();
    let bad = dir.join("lcp_bad.dat");
    std::fs::write(&bad, "2\n0\n2\n2\n2 2\n1 0\n0 x\n-1 -1\n").unwrap();
    let (code, _, err) = signorini(&["lcp", "solve", bad.to_str().unwrap(), "--kind", "lcp"]);
    assert_eq!(code, 2, "stderr: {err}");
    assert!(err.contains("line"), "error should name the line: {err}");
    let (code, _, _) = signorini(&["lcp", "solve", "/nonexistent/lcp.dat"]);
    assert_eq!(code, 2);
}

#[test]
fn ccd_check_has_no_false_negatives_on_handcrafted_vf() {
    let dir = data().join("ccd/handcrafted");
    let (code, out, err) = signorini(&[
        "ccd",
        "check",
        dir.to_str().unwrap(),
        "--kind",
        "vf",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON output");
    assert_eq!(v["false_negatives"], 0);
    assert!(v["queries"].as_u64().unwrap() > 3000);
    assert!(v["false_positives"].as_u64().unwrap() <= 85);
}

#[test]
fn unknown_model_is_bad_input() {
    let (code, _, err) = signorini(&[
        "experiment",
        "triangle-drop",
        "--models",
        "bogus",
        "--data",
        data().join("peg2d").to_str().unwrap(),
        "--out",
        tmp("tri").path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("bogus"), "{err}");
}

#[test]
fn help_names_each_experiments_data_default() {
    let (code, out, _) = signorini(&["experiment", "pour3d", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("default: the repository's data/peg3d)"),
        "{out}"
    );
    assert!(!out.contains("data/peg2d"), "{out}");
    let (_, out, _) = signorini(&["experiment", "pour2d", "--help"]);
    assert!(
        out.contains("default: the repository's data/peg2d)"),
        "{out}"
    );
    let (_, out, _) = signorini(&["--help"]);
    assert!(out.contains("pour3d") && out.contains("bench"), "{out}");
}

#[test]
fn experiments_find_the_repository_data_from_any_working_directory() {
    // No --data, run from a folder outside the repository: the default resolves to the
    // repository's data/ (triangle-drop reads data/peg2d/triangle_drop/).
    let root = tmp("cwd");
    let dir = root.path();
    let out = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(["experiment", "triangle-drop", "--quiet", "--h", "0.016"])
        .args(["--models", "peg", "--out", "tri"])
        .current_dir(dir)
        .output()
        .expect("run signorini");
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The check against the authors' ground truth appears only when the reference file
    // (data/peg2d/triangle_drop/reference_final_states.csv) was found.
    assert!(stdout.contains("rel.err"), "{stdout}");
    assert!(dir.join("tri/final_states.csv").is_file(), "{err}");
}

#[test]
fn a_missing_data_folder_is_named() {
    let root = tmp("missing");
    let missing = root.path().join("signorini-no-such-data");
    let (code, _, err) = signorini(&[
        "experiment",
        "triangle-drop",
        "--data",
        missing.to_str().unwrap(),
        "--out",
        root.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let want = format!(
        "data file not found: {}",
        missing.join("body_sets").display()
    );
    assert!(err.contains(&want), "{err}");
    assert!(err.contains("pass --data"), "{err}");
}

/// `--quiet` is accepted by every experiment, before or after its name; a diverging deformable
/// run exits 1 and says so.
#[test]
fn experiments_take_quiet_and_a_diverged_run_exits_1() {
    let root = tmp("quiet");
    let out = root.path().join("out");
    let o = out.to_str().unwrap();
    let (code, text, _) = signorini(&[
        "experiment",
        "--quiet",
        "cloth-tori",
        "--duration",
        "0.1",
        "--out",
        o,
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("cloth-tori (cpf"), "{text}");
    let (code, text, _) = signorini(&[
        "experiment",
        "cloth-tori",
        "--quiet",
        "--duration",
        "2",
        "--dt",
        "0.5",
        "--out",
        o,
    ]);
    assert_eq!(code, 1, "a step of 0.5 s should diverge: {text}");
    assert!(text.contains("DIVERGED"), "{text}");
}

/// `--stiffness-factors` repeats the comparison per factor and prints the table; it needs
/// `--compare` and positive factors (exit 2 otherwise).
#[test]
fn the_stiffness_sweep_prints_one_row_per_factor_and_rejects_bad_factors() {
    let root = tmp("ksweep");
    let out = root.path().join("out");
    let o = out.to_str().unwrap();
    let base = ["experiment", "cloth-tori", "--quiet", "--duration", "0.1"];
    let run = |extra: &[&str]| signorini(&[&base[..], extra, &["--out", o]].concat());
    let (code, text, _) = run(&["--compare", "--stiffness-factors", "1,2"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("k ×1 ") && text.contains("k ×2 "), "{text}");
    assert!(out.join("k_x2/dpf_ccd/summary.json").is_file());
    assert!(out.join("jitter_vs_stiffness.svg").is_file());
    let (code, _, err) = run(&["--compare", "--stiffness-factors", "1,-2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("stiffness factors"), "{err}");
    let (code, _, err) = run(&["--stiffness-factors", "1,2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--compare"), "{err}");
}

/// `--model cpf-exact` runs a deformable experiment (the exact-normal quadrature), and
/// `--dpf-vertex-stiffness-limit` and `--share-coincident-pairs` are accepted; an unknown
/// model is refused with exit code 2 and the list of models.
#[test]
fn deformable_experiments_take_cpf_exact_and_the_new_switches() {
    let root = tmp("cpf-exact");
    let out = root.path().join("out");
    let o = out.to_str().unwrap();
    let base = ["experiment", "cloth-tori", "--quiet", "--duration", "0.1"];
    let run = |extra: &[&str]| signorini(&[&base[..], extra, &["--out", o]].concat());
    let (code, text, err) = run(&["--model", "cpf-exact"]);
    assert_eq!(code, 0, "{text} {err}");
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"cpf_exact\""), "{summary}");
    let (code, text, err) = run(&[
        "--model",
        "dpf",
        "--dpf-vertex-stiffness-limit",
        "--share-coincident-pairs",
    ]);
    assert_eq!(code, 0, "{text} {err}");
    let (code, _, err) = run(&["--model", "cpf-exactly"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cpf-exact"), "{err}");
}

/// A temporary folder `<temp dir>/signorini-cli-<name>-XXXXXX`, removed when dropped (at the
/// end of the test, pass or fail).
fn tmp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("signorini-cli-{name}-"))
        .tempdir()
        .expect("temporary folder")
}

/// A folder for a pile run's outputs (inside `root`, not yet created).
fn pile_out(root: &tempfile::TempDir) -> PathBuf {
    root.path().join("out")
}

#[test]
fn pile_runs_and_writes_summary_and_scaling_plot() {
    let root = tmp("pile-ok");
    let out = pile_out(&root);
    let data = data();
    let (code, stdout, err) = signorini(&[
        "experiment",
        "pile",
        "--bodies",
        "2",
        "--duration",
        "0.05",
        "--quiet",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stderr: {err}\nstdout: {stdout}");
    assert!(stdout.contains("PEG targets"), "{stdout}");
    assert!(out.join("summary.csv").is_file());
    assert!(out.join("scaling.svg").is_file());
    assert!(out.join("overlap.svg").is_file());
    assert!(out.join("report.txt").is_file());
}

#[test]
fn pile_rejects_bad_arguments_with_exit_2() {
    let root = tmp("pile-bad");
    let out = pile_out(&root);
    let o = out.to_str().unwrap();
    for (args, says) in [
        (vec!["--bodies", "0"], "--bodies"),
        (vec!["--dimension", "4"], "--dimension"),
        (vec!["--shape", "foo"], "--shape"),
    ] {
        let mut all = vec!["experiment", "pile"];
        all.extend(args.iter().copied());
        all.extend(["--quiet", "--out", o]);
        let (code, _, err) = signorini(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// `experiment ablation` runs the requested cells (here one pour2d set and the icosahedra,
/// PEG only, a fraction of a second each) and writes its table and figure; a bad
/// configuration number is bad input (exit 2).
#[test]
fn ablation_runs_a_small_case_and_rejects_bad_configurations() {
    let root = tmp("ablation");
    let out = root.path().join("out");
    let o = out.to_str().unwrap();
    let small = [
        "experiment",
        "ablation",
        "--quiet",
        "--sets",
        "a",
        "--h",
        "0.016",
        "--h3",
        "0.016",
        "--models",
        "peg",
        "--duration",
        "0.3",
        "--out",
    ];
    let (code, text, err) = signorini(&[&small[..], &[o]].concat());
    assert_eq!(code, 0, "stderr: {err}\nstdout: {text}");
    assert!(text.contains("| pour2d | 16 | peg | 1 |"), "{text}");
    assert!(
        text.contains("| pour3d-icosahedra | 16 | peg | 1 |"),
        "{text}"
    );
    for f in ["ablation.csv", "runs.csv", "ablation.md", "ablation.svg"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let (code, _, err) = signorini(&[&small[..], &[o, "--random-configs", "x"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--random-configs"), "{err}");
}
