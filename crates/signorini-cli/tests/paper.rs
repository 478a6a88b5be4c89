//! `--paper`: the paper's stepper with every project addition off, end to end.

mod common;

use common::{signorini, tmp};

/// Without the edge-crossing test (a project addition) PEG's triangle tunnels through the
/// static triangle at h = 0.01 s; with the default stepper it slides off within 3 %.
#[test]
fn the_paper_preset_changes_the_triangle_drop() {
    let dir = tmp("paper-tri");
    let out = dir.join("o");
    let o = out.to_string_lossy().into_owned();
    let args = [
        "experiment",
        "--quiet",
        "triangle-drop",
        "--models",
        "peg",
        "--h",
        "0.01",
    ];
    let (code, stdout, stderr) = signorini(&[&args[..], &["--out", &o]].concat());
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, stderr) = signorini(&[&args[..], &["--paper", "--out", &o]].concat());
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("78.197%"), "{stdout}");
}

#[test]
fn the_paper_preset_is_refused_where_it_makes_no_sense() {
    // Penalty scenes have no such preset.
    let (code, _, stderr) = signorini(&["run", "box_on_plane", "--paper", "--steps", "1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("only for polygon and polyhedron scenes"),
        "{stderr}"
    );
    // `--paper` fixes the gap corrections.
    let dir = tmp("paper-conflict");
    let out = dir.join("o");
    let (code, _, stderr) = signorini(&[
        "experiment",
        "pour2d",
        "--paper",
        "--gap-corrections",
        "3",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!out.exists());
}

#[test]
fn bench_runs_with_the_paper_preset() {
    let (code, stdout, stderr) = signorini(&[
        "bench",
        "pour2d_a_h010",
        "--models",
        "peg,standard",
        "--steps",
        "30",
        "--paper",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("\"ms_per_step\""), "{stdout}");
}
