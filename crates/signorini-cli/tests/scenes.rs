//! End-to-end checks of `signorini run | list | validate | report`, including the HTML report
//! opened in a real headless browser (Debian's chromium; required when CI=true).

mod common;

use common::tmp;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn signorini(args: &[&str]) -> (i32, String, String) {
    common::signorini_in(&repo(), args)
}

#[test]
fn run_writes_outputs_and_a_json_summary() {
    let dir = tmp("run");
    let (code, out, err) = signorini(&[
        "run",
        "scenes/demo.toml",
        "--steps",
        "40",
        "--out",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON summary");
    assert_eq!(v["steps"], 40);
    assert_eq!(v["model"], "peg");
    assert_eq!(v["failed_steps"], 0);
    for f in [
        "trajectories.csv",
        "steps.csv",
        "contacts.csv",
        "bodies.json",
        "summary.json",
        "scene.toml",
    ] {
        assert!(dir.join(f).is_file(), "missing {f}");
    }
    // A built-in scene by name, with overrides.
    let (code, out, err) = signorini(&[
        "run",
        "triangle_drop",
        "--model",
        "standard",
        "--dt",
        "0.02",
        "--steps",
        "5",
        "--out",
        dir.join("tri").to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    assert!(out.is_empty(), "--quiet prints nothing: {out}");
    let s = std::fs::read_to_string(dir.join("tri/summary.json")).unwrap();
    assert!(
        s.contains("\"model\": \"standard\"") && s.contains("\"h\": 0.02"),
        "{s}"
    );
}

#[test]
fn list_names_every_scene_and_experiment() {
    let (code, out, _) = signorini(&["list"]);
    assert_eq!(code, 0);
    for name in [
        "demo",
        "pour2d_a_h010",
        "triangle_drop",
        "wedge",
        "pour2d",
        "triangle-drop",
        "cloth-tori",
        "rings",
        "chain",
        "pour3d_icosahedra_h010",
        "pour3d_random_c0_h010",
        "box_on_plane",
        "stick",
        "particle1d_cpf",
        "particle1d_perturbed",
        "cloth_tori",
        "bucket",
        "octopus",
        "cube_on_cloth",
    ] {
        assert!(out.contains(name), "{name} not listed:\n{out}");
    }
}

#[test]
fn bad_scenes_exit_2_naming_file_line_and_field() {
    let dir = tmp("bad");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[step]\nh = 0.01\nsteps = 10\n\n[[body]]\nshape = { type = \"box\", size = [1.0, 1.0] }\nmass = -2.0\n").unwrap();
    let (code, _, err) = signorini(&["validate", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.toml:7:") && err.contains("body[0].mass"),
        "{err}"
    );
    let (code, _, err) = signorini(&["run", bad.to_str().unwrap(), "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    std::fs::write(
        &bad,
        "dimension = 3\n[step]\nh = 0.01\nsteps = 10\n[contact]\nmodel = \"cpf\"\nstiffness = 1e4\n\
         [materials.soft]\nstiffness = 1e3\n[[body]]\nmaterial = \"soft\"\n\
         shape = { type = \"primitive\", kind = \"sphere\", radius = 0.1 }\ndensity = 1.0\n",
    )
    .unwrap();
    let (code, _, err) = signorini(&["validate", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not yet supported")
            && err.contains("bad.toml:9:")
            && err.contains("materials.soft.stiffness"),
        "{err}"
    );
    let (code, _, err) = signorini(&["run", "stick", "--model", "peg", "--steps", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("triangle meshes"), "{err}");
    let (code, _, err) = signorini(&["run", "demo", "--model", "bogus"]);
    assert_eq!(code, 2);
    assert!(err.contains("bogus"), "{err}");
    let (code, _, _) = signorini(&["run", "no-such-scene"]);
    assert_eq!(code, 2);
    let (code, out, _) = signorini(&["validate", "scenes/pour2d_a_h010.toml"]);
    assert_eq!(code, 0);
    assert!(out.contains("valid (28 bodies, 25 dynamic"), "{out}");
}

#[test]
fn a_failed_check_exits_1() {
    let dir = tmp("check");
    let scene = dir.join("overlap.toml");
    std::fs::write(
        &scene,
        "allow_initial_overlap = true\n[step]\nh = 0.01\nsteps = 2\n[contact]\nmodel = \"corrective\"\n[checks]\nmax_overlap = 0.0\n\
         [[body]]\nstatic = true\nshape = { type = \"rectangle\", min = [-1.0, -0.1], max = [1.0, 0.0] }\n\
         [[body]]\nshape = { type = \"box\", size = [0.2, 0.2] }\nmass = 1.0\nposition = [0.0, 0.05]\n",
    )
    .unwrap();
    let (code, out, err) = signorini(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("check max_overlap: FAIL"), "{out}");
}

fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Distinct RGB colours in a PNG.
fn distinct_colours(path: &Path) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let mut seen = std::collections::BTreeSet::new();
    for p in buf[..info.buffer_size()].chunks(px) {
        seen.insert((p[0], p.get(1).copied(), p.get(2).copied()));
    }
    seen.len()
}

/// Open `dir/report.html` in headless chromium; the DOM after the scripts ran and the number of
/// distinct colours of the screenshot, or `None` if chromium is missing (an error under CI).
fn open_in_chromium(dir: &Path) -> Option<(String, usize)> {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but chromium is missing: .ci/run must install it"
        );
        eprintln!("chromium not installed: skipping the browser check");
        return None;
    };
    let shot = dir.join("shot.png");
    let profile = dir.join("chromium-profile");
    let url = format!(
        "file://{}",
        dir.join("report.html").canonicalize().unwrap().display()
    );
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1300,1100",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("start chromium");
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        dom.contains("data-status=\"ready\""),
        "the page's script did not finish: {}\n{}",
        dom.lines()
            .find(|l| l.contains("<body"))
            .unwrap_or("no <body>"),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(dom.contains("<canvas id=\"replay\""));
    Some((dom, distinct_colours(&shot)))
}

#[test]
fn report_opens_in_headless_chromium() {
    let dir = tmp("report");
    let (code, _, err) = signorini(&[
        "run",
        "demo",
        "--steps",
        "200",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = signorini(&["report", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 7, "report.html + 6 SVGs: {out}");
    let Some((dom, colours)) = open_in_chromium(&dir) else {
        return;
    };
    assert_eq!(dom.matches("<svg").count(), 6, "six inline plots");
    assert!(
        dom.contains("t = 1.000 s (step 200)"),
        "the replay drew the last frame"
    );
    assert!(colours > 50, "screenshot looks blank: {colours} colours");
}

#[test]
fn report_of_a_3d_run_opens_in_headless_chromium() {
    for (scene, steps, plots, clock) in [
        ("pour3d_icosahedra_h010", "120", 6, "t = 1.200 s (step 120)"),
        ("stick", "75", 5, "t = 0.300 s (step 75)"),
        ("chain", "30", 5, "t = 0.600 s (step 30)"),
    ] {
        let dir = tmp(&format!("report3-{scene}"));
        let (code, _, err) = signorini(&[
            "run",
            scene,
            "--steps",
            steps,
            "--out",
            dir.to_str().unwrap(),
            "--quiet",
        ]);
        assert_eq!(code, 0, "{scene}: {err}");
        let (code, out, err) = signorini(&["report", dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.lines().count(), 1 + plots, "{scene}: {out}");
        let Some((dom, colours)) = open_in_chromium(&dir) else {
            return;
        };
        assert_eq!(dom.matches("<svg").count(), plots, "{scene}: inline plots");
        assert!(
            dom.contains(clock),
            "{scene}: the replay drew the last frame"
        );
        assert!(
            dom.contains("drag on the picture to rotate"),
            "{scene}: the 3D view"
        );
        assert!(
            colours > 50,
            "{scene}: screenshot looks blank: {colours} colours"
        );
        if scene == "chain" {
            // Deformables: the replay moves their recorded vertices (step 0 and steps 1–30).
            assert!(
                dom.contains(
                    "6 deformables drawn from their recorded vertex positions (31 frames)"
                ),
                "chain: the deformable replay"
            );
        }
    }
}

#[test]
fn bench_prints_finite_positive_ratios_as_json() {
    for (scene, models, baseline) in [
        ("demo", "peg,standard", "standard"),
        ("box_on_plane", "cpf,dpf", "dpf"),
    ] {
        let (code, out, err) = signorini(&[
            "bench", scene, "--models", models, "--steps", "5", "--format", "json",
        ]);
        assert_eq!(code, 0, "{scene}: stderr: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
        assert_eq!(v["scene"], scene);
        assert_eq!(v["baseline"], baseline);
        let rows = v["models"].as_array().expect("models array");
        let names: Vec<&str> = rows.iter().map(|m| m["model"].as_str().unwrap()).collect();
        assert_eq!(names.join(","), models);
        for m in rows {
            assert_eq!(m["steps"], 5, "{m}");
            let ms = m["ms_per_step"].as_f64().expect("ms_per_step");
            let ratio = m["ratio"].as_f64().expect("ratio");
            assert!(ms.is_finite() && ms > 0.0, "{m}");
            assert!(ratio.is_finite() && ratio > 0.0, "{m}");
        }
        let base = rows.iter().find(|m| m["model"] == baseline).unwrap();
        assert_eq!(base["ratio"].as_f64(), Some(1.0));
    }
    // Same states: every model timed on clones of the first model's run.
    let (code, out, err) = signorini(&[
        "bench",
        "demo",
        "--models",
        "peg,corrective",
        "--steps",
        "6",
        "--same-states",
        "--every",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
    assert_eq!(v["mode"], "same-states");
    assert_eq!(v["trajectory"], "peg");
    assert_eq!(v["baseline"], "corrective");
    for m in v["models"].as_array().unwrap() {
        assert_eq!(m["steps"], 3, "states 2, 4, 6: {m}");
        let ratio = m["ratio"].as_f64().expect("ratio");
        assert!(ratio.is_finite() && ratio > 0.0, "{m}");
    }
    // Bad input: a model of the other family, a baseline not timed, no such scene.
    for args in [
        &["bench", "demo", "--models", "peg,cpf"][..],
        &["bench", "demo", "--models", "peg", "--baseline", "standard"][..],
        &["bench", "no_such_scene"][..],
        &["bench", "box_on_plane", "--same-states"][..],
        &["bench", "demo", "--same-states", "--every", "0"][..],
    ] {
        let (code, _, err) = signorini(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}
