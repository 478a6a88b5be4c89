//! Runs of small scenes: analytic free fall, timed drops, stop requests leave complete files,
//! determinism, JSON = TOML, the report.

use crate::tmp;
use signorini_scene::{RunOptions, load_str, report::write_report, run};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const FALL: &str = r#"
gravity = [0.0, -10.0]
[step]
h = 0.01
steps = 50
[[body]]
name = "floor"
static = true
shape = { type = "rectangle", min = [-1.0, -10.0], max = [1.0, -9.0] }
[[body]]
shape = { type = "box", size = [0.2, 0.2] }
mass = 2.0
inertia = 0.1
position = [0.0, 1.0]
[[body]]
shape = { type = "regular_polygon", sides = 5, radius = 0.1 }
density = 100.0
position = [0.5, 2.0]
drop_time = 0.1
"#;

fn rows(path: &Path) -> Vec<Vec<f64>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

#[test]
fn free_fall_follows_semi_implicit_euler_and_drops_on_time() {
    let s = load_str(Path::new("fall.toml"), FALL).unwrap();
    let dir = tmp("fall");
    run(
        &s,
        RunOptions {
            out: Some(dir.to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let t = rows(&dir.join("trajectories.csv"));
    // v_n = -g h n, y_n = y_0 - g h² n(n+1)/2 (velocity updated before position).
    let (g, h) = (10.0, 0.01);
    for r in t.iter().filter(|r| r[1] == 0.0) {
        let n = r[0];
        let y = 1.0 - g * h * h * n * (n + 1.0) / 2.0;
        assert!((r[3] - y).abs() < 1e-12, "step {n}: {} vs {y}", r[3]);
    }
    // The pentagon enters after round(0.1/0.01) = 10 steps: first row at step 11.
    let first = t.iter().find(|r| r[1] == 1.0).unwrap();
    assert_eq!(first[0], 11.0);
    assert_eq!(t.iter().filter(|r| r[1] == 1.0).count(), 40);
    // No contact anywhere: the statistics say so.
    let steps = rows_of_steps(&dir);
    assert_eq!(steps.len(), 50);
    assert!(steps.iter().all(|r| r[4] == 0.0 && r[13] == 0.0));
}

fn rows_of_steps(dir: &Path) -> Vec<Vec<f64>> {
    std::fs::read_to_string(dir.join("steps.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|v| v.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect()
}

#[test]
fn a_stop_request_leaves_complete_files_and_no_temporaries() {
    let s = load_str(Path::new("fall.toml"), FALL).unwrap();
    let dir = tmp("stop");
    let o = run(
        &s,
        RunOptions {
            out: Some(dir.to_path_buf()),
            stop: Some(Arc::new(AtomicBool::new(true))),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        o.summary.interrupted.as_deref(),
        Some("stop request at step 1")
    );
    assert!(!o.summary.all_checks_pass);
    assert_eq!(o.summary.steps, 1);
    assert_eq!(rows(&dir.join("trajectories.csv")).len(), 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["interrupted"], "stop request at step 1");
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "temporary file left: {name}");
    }
}

#[test]
fn same_scene_same_bytes_and_json_equals_toml() {
    let toml = load_str(Path::new("fall.toml"), FALL).unwrap();
    let json_text = r#"{
      "gravity": [0.0, -10.0],
      "step": { "h": 0.01, "steps": 50 },
      "body": [
        { "name": "floor", "static": true,
          "shape": { "type": "rectangle", "min": [-1.0, -10.0], "max": [1.0, -9.0] } },
        { "shape": { "type": "box", "size": [0.2, 0.2] }, "mass": 2.0, "inertia": 0.1,
          "position": [0.0, 1.0] },
        { "shape": { "type": "regular_polygon", "sides": 5, "radius": 0.1 },
          "density": 100.0, "position": [0.5, 2.0], "drop_time": 0.1 }
      ]
    }"#;
    let json = load_str(Path::new("fall.json"), json_text).unwrap();
    assert_eq!(json.bodies, toml.bodies);
    assert_eq!((json.h, json.length), (toml.h, toml.length));
    let (a, b) = (tmp("det-a"), tmp("det-b"));
    for d in [&a, &b] {
        let scene = if std::ptr::eq(d, &a) { &toml } else { &json };
        run(
            scene,
            RunOptions {
                out: Some(d.to_path_buf()),
                ..Default::default()
            },
        )
        .unwrap();
    }
    for f in [
        "trajectories.csv",
        "steps.csv",
        "contacts.csv",
        "bodies.json",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn checks_fail_when_bodies_start_overlapping() {
    let text = r#"
allow_initial_overlap = true
[step]
h = 0.01
steps = 3
[contact]
model = "corrective"
[checks]
max_overlap = 0.0
max_failed_steps = 0
[[body]]
static = true
shape = { type = "rectangle", min = [-1.0, -0.1], max = [1.0, 0.0] }
[[body]]
shape = { type = "box", size = [0.2, 0.2] }
mass = 1.0
position = [0.0, 0.05]
"#;
    let s = load_str(Path::new("overlap.toml"), text).unwrap();
    let o = run(&s, RunOptions::default()).unwrap();
    let c = &o.summary.checks;
    assert_eq!(c.len(), 2);
    assert!(!c[0].pass && c[0].value > 0.0, "{c:?}");
    assert!(!o.summary.all_checks_pass);
    // The penetration depth of a polygon pair is measured (the box starts 5 cm deep).
    let d = o.summary.max_penetration;
    assert!(d > 0.0 && d <= 0.05 + 1e-12, "max_penetration {d}");
}

#[test]
fn report_has_the_replay_data_and_one_svg_per_plot() {
    let s = load_str(Path::new("fall.toml"), FALL).unwrap();
    let dir = tmp("report");
    run(
        &s,
        RunOptions {
            out: Some(dir.to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let files = write_report(&dir).unwrap();
    assert_eq!(files.svgs.len(), 6);
    let html = std::fs::read_to_string(&files.html).unwrap();
    for needle in [
        "<canvas id=\"replay\"",
        "id=\"scrub\"",
        "id=\"play\"",
        "<svg",
        "data-status",
    ] {
        assert!(html.contains(needle), "missing {needle}");
    }
    assert!(
        !html.contains("src=\"http"),
        "the page must not load anything"
    );
    let start = html.find("id=\"replay-data\">").unwrap() + "id=\"replay-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let data: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
    assert_eq!(data["frames"].as_array().unwrap().len(), 50);
    assert_eq!(data["bodies"].as_array().unwrap().len(), 3);
    for svg in &files.svgs {
        let t = std::fs::read_to_string(svg).unwrap();
        assert!(t.starts_with("<svg") && t.trim_end().ends_with("</svg>"));
    }
}

#[test]
fn contact_settings_reach_the_world_parameters() {
    use signorini_scene::{Model, world_params};
    let text = FALL.replace(
        "[step]",
        "[contact]\nmodel = \"standard\"\nkeep_best_on_failure = false\nstandard_distance = 0.02\nfriction = 0.3\nsolver = \"lemke\"\n[step]",
    );
    let s = load_str(Path::new("fall.toml"), &text).unwrap();
    let p = world_params(&s, Model::Standard, 0.01).unwrap();
    assert!(!p.keep_best_on_failure && !p.mixed_fallback);
    assert_eq!((p.standard_distance, p.mu), (Some(0.02), 0.3));
    assert_eq!(p.solver, signorini_complementarity::SolverKind::Lemke);
    // Defaults are the experiments' (PEG: 8 gap corrections, mixed retry on).
    let s = load_str(Path::new("fall.toml"), FALL).unwrap();
    let p = world_params(&s, Model::Peg, 0.01).unwrap();
    assert!(p.keep_best_on_failure && p.mixed_fallback);
    assert_eq!(p.gap_corrections, 8);
    assert_eq!(p.vertex_vertex, signorini_world::VertexVertex::Cone);
    assert!(world_params(&s, Model::Dpf, 0.01).is_err());
    // 3D PEG: the vertex–vertex form.
    let text = "dimension = 3\n[step]\nh = 0.01\nsteps = 2\n[contact]\nvertex_vertex = \"face-pairs\"\n[[body]]\nshape = { type = \"box\", size = [1.0, 1.0, 1.0] }\nmass = 1.0\n";
    let s = load_str(Path::new("vv.toml"), text).unwrap();
    let p = world_params(&s, Model::Peg, 0.01).unwrap();
    assert_eq!(p.vertex_vertex, signorini_world::VertexVertex::FacePairs);
}

/// `[contact] paper = true` and `--paper` (`Scene::use_paper_stepper`) give
/// `WorldParams::paper` for every complementarity model, with the scene's physical settings.
#[test]
fn the_paper_stepper_turns_every_addition_off() {
    use signorini_scene::{Model, world_params};
    let text = FALL.replace("[step]", "[contact]\npaper = true\nfriction = 0.3\n[step]");
    let s = load_str(Path::new("fall.toml"), &text).unwrap();
    for m in [Model::Peg, Model::Standard, Model::Corrective] {
        let p = world_params(&s, m, 0.01).unwrap();
        assert!(p.is_paper(), "{m:?}: {p:?}");
        assert_eq!(p.mu, 0.3);
    }
    let text = FALL.replace("[step]", "[contact]\ngap_corrections = 3\n[step]");
    let mut s = load_str(Path::new("fall.toml"), &text).unwrap();
    assert!(!world_params(&s, Model::Peg, 0.01).unwrap().is_paper());
    s.use_paper_stepper().unwrap();
    let p = world_params(&s, Model::Peg, 0.01).unwrap();
    assert!(p.is_paper() && p.gap_corrections == 0, "{p:?}");
}

/// The `before_step` hook gets the world mutably: a wrench that cancels gravity, applied to
/// every dynamic body before every step, keeps the falling bodies of `FALL` where they were
/// dropped (the pentagon from its drop step on), and the hook sees every step.
#[test]
fn the_before_step_hook_applies_control_inputs() {
    use signorini_math::Vec3;
    use signorini_scene::StepState;
    use std::cell::Cell;
    use std::rc::Rc;
    let scene = load_str(Path::new("fall.toml"), FALL).unwrap();
    let calls = Rc::new(Cell::new(0));
    let seen = calls.clone();
    let opts = RunOptions {
        before_step: Some(Box::new(move |s, state| {
            seen.set(seen.get() + 1);
            assert_eq!(s, seen.get());
            let StepState::Planar(world) = state else {
                panic!("a 2D scene")
            };
            for id in 0..world.bodies.len() {
                let b = &world.bodies[id];
                if !b.is_static {
                    let lift = -b.external_force;
                    world.apply_wrench(id, lift).unwrap();
                }
            }
            assert!(
                world.apply_wrench(0, Vec3::x()).is_err(),
                "the floor is static"
            );
        })),
        ..Default::default()
    };
    let o = run(&scene, opts).unwrap();
    assert_eq!(calls.get(), 50);
    let w = o.world.planar().unwrap();
    assert_eq!(w.bodies.len(), 3);
    for (b, y) in w.bodies[1..].iter().zip([1.0, 2.0]) {
        assert!(b.velocity.norm() < 1e-12, "{}", b.velocity);
        assert!((b.position.y - y).abs() < 1e-12, "{}", b.position);
    }
}
