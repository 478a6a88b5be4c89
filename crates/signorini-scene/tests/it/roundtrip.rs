//! Every built-in scene parses; the paper experiments' scenes give the same result as the
//! experiment code for a few steps (byte-identical trajectories).

use crate::{repo, run_steps, tmp};
use signorini_experiments::pour2d::{RunSpec, run_pour};
use signorini_experiments::triangle_drop::{run_triangle, scene as triangle_scene};
use signorini_harness::bodyset::load_body_set;
use signorini_scene::{Model, builtin, load_scene, load_str};
use signorini_world::ContactModel;
use std::sync::Arc;

#[test]
fn every_builtin_scene_parses_and_matches_its_file() {
    assert!(builtin::SCENES.len() >= 4);
    for b in builtin::SCENES {
        let s = load_str(&b.path(), b.text).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        assert_eq!(s.name, b.name, "scene name must equal the file stem");
        assert!(!b.description().is_empty(), "{} has no description", b.name);
        let from_file = load_scene(&b.path()).unwrap();
        assert_eq!(from_file, s);
    }
}

#[test]
fn every_builtin_scene_runs_a_few_steps_without_failure() {
    for b in builtin::SCENES {
        let s = load_str(&b.path(), b.text).unwrap();
        let o = run_steps(&s, None, 5, None);
        assert_eq!(o.summary.steps, 5, "{}", b.name);
        assert_eq!(o.summary.failed_steps, 0, "{}", b.name);
    }
}

#[test]
fn triangle_scene_builds_exactly_the_experiment_bodies() {
    let s = load_scene(&repo().join("scenes/triangle_drop.toml")).unwrap();
    let bodies: Vec<_> = s.bodies.planar().iter().map(|b| b.body.clone()).collect();
    assert_eq!(bodies, triangle_scene());
}

#[test]
fn triangle_scene_trajectory_is_identical_to_the_experiment() {
    let s = load_scene(&repo().join("scenes/triangle_drop.toml")).unwrap();
    let n = 40;
    for model in [Model::Peg, Model::Standard] {
        let dir = tmp(&format!("tri-{}", model.name()));
        let o = run_steps(&s, Some(model), n, Some(&dir));
        let cm = model.contact_model().unwrap();
        let expected = dir.join("experiment.csv");
        let e = run_triangle(
            cm,
            s.h,
            signorini_harness::presets::Stepper::DEFAULT,
            Some(n),
            Some(&expected),
        )
        .unwrap();
        let b = &o.world.planar().unwrap().bodies[1];
        assert_eq!(
            (b.position, b.angle, b.velocity),
            (e.position, e.angle, e.velocity)
        );
        let ours = std::fs::read(dir.join("trajectories.csv")).unwrap();
        assert_eq!(ours, std::fs::read(&expected).unwrap(), "{}", model.name());
    }
}

#[test]
fn pour2d_scene_trajectory_is_identical_to_the_experiment() {
    let s = load_scene(&repo().join("scenes/pour2d_a_h010.toml")).unwrap();
    let n = 30; // two drops (steps 1 and 26)
    let dir = tmp("pour");
    run_steps(&s, None, n, Some(&dir));
    let set = load_body_set("a", &repo().join("data/peg2d/body_sets/set_a.json")).unwrap();
    let spec = RunSpec {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        model: ContactModel::Peg,
        set: Arc::new(set),
        h: s.h,
        duration: (n as f64 + 0.5) * s.h,
        stepper: signorini_harness::presets::Stepper::DEFAULT,
        timing: None,
    };
    let r = run_pour(&spec, Some(&dir.join("exp"))).unwrap();
    assert_eq!(r.n_steps, n);
    let theirs = std::fs::read(dir.join("exp/trajectories/peg_seta_h010.csv")).unwrap();
    let ours = std::fs::read(dir.join("trajectories.csv")).unwrap();
    assert_eq!(ours, theirs);
    // Overlap column of steps.csv equals the experiment's per-step overlap.
    let steps = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    let overlap: Vec<f64> = steps
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(14).unwrap().parse().unwrap())
        .collect();
    assert_eq!(overlap, r.overlap);
}
