//! The 3D and penalty scenes give the same results as the experiment code: byte-identical
//! pour3d trajectories, and box-on-plane / stick traces byte-identical to the experiments'
//! `box_<model>.csv` / `stick_<model>.csv`, for every model.

use crate::{repo, run_steps, tmp};
use signorini_experiments::box_on_plane::{self, BoxConfig, MODELS};
use signorini_experiments::pour3d::{RunSpec3, run_pour3d};
use signorini_experiments::stick::{self, StickConfig};
use signorini_harness::penalty_trace::{trace, write_trace};
use signorini_harness::polyhedra::Bodies;
use signorini_scene::{Model, RunOptions, SceneKind, load_scene, run};
use signorini_world::ContactModel;
use std::path::Path;
use std::sync::Arc;

fn overlap_column(dir: &Path) -> Vec<f64> {
    std::fs::read_to_string(dir.join("steps.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(14).unwrap().parse().unwrap())
        .collect()
}

/// Run a pour3d scene for `n` steps and the experiment for the same steps; compare.
fn pour3d_matches(scene: &str, bodies: Bodies, n: usize) {
    let s = load_scene(&repo().join("scenes").join(scene)).unwrap();
    assert_eq!(s.kind(), SceneKind::Polyhedra);
    let dir = tmp(scene);
    run_steps(&s, None, n, Some(&dir));
    let spec = RunSpec3 {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        model: ContactModel::Peg,
        bodies: Arc::new(bodies),
        config: 0,
        h: s.h,
        duration: (n as f64 + 0.5) * s.h,
        stepper: signorini_harness::presets::Stepper::DEFAULT,
        timing: None,
        gyroscopic: signorini_world::Gyroscopic::default(),
        vertex_vertex: signorini_world::VertexVertex::default(),
    };
    let r = run_pour3d(&spec, Some(&dir.join("exp"))).unwrap();
    assert_eq!(r.n_steps, n);
    let theirs = dir.join(format!("exp/trajectories/{}.csv", spec.stem()));
    let ours = std::fs::read(dir.join("trajectories.csv")).unwrap();
    assert_eq!(ours, std::fs::read(theirs).unwrap(), "{scene}");
    assert_eq!(overlap_column(&dir), r.overlap, "{scene}: overlap volumes");
}

#[test]
fn pour3d_icosahedra_scene_trajectory_is_identical_to_the_experiment() {
    // Drops at steps 1 and 51: two icosahedra, the first one landing.
    pour3d_matches("pour3d_icosahedra_h010.toml", Bodies::Icosahedra, 70);
}

#[test]
fn pour3d_random_scene_trajectory_is_identical_to_the_experiment() {
    let file = repo().join("data/peg3d/random_polyhedra.json");
    let bodies = Bodies::read("random", &file).unwrap();
    pour3d_matches("pour3d_random_c0_h010.toml", bodies, 70);
}

fn scene_trace(scene: &str, model: Model, n: usize, dir: &Path) -> Vec<u8> {
    let s = load_scene(&repo().join("scenes").join(scene)).unwrap();
    assert_eq!(s.kind(), SceneKind::Meshes);
    let o = run_steps(&s, Some(model), n, Some(dir));
    assert_eq!(o.summary.steps, n);
    assert!(o.world.meshes().is_some());
    std::fs::read(dir.join("trace.csv")).unwrap()
}

fn scene_model(fm: signorini_penalty::ForceModel) -> Model {
    Model::parse(fm.name()).unwrap()
}

#[test]
fn box_on_plane_scene_trace_is_identical_to_the_experiment() {
    let n = 400; // lands at ~0.1 s, then contact
    let c = BoxConfig::default();
    for fm in MODELS {
        let dir = tmp(&format!("box-{}", fm.name()));
        let ours = scene_trace("box_on_plane.toml", scene_model(fm), n, &dir);
        let mut w = box_on_plane::world(&c, fm).unwrap();
        let initial = w.bodies[1].state.clone();
        let tr = trace(&mut w, n, 1);
        assert!(tr.force.iter().any(|&f| f > 0.0), "the box must land");
        write_trace(&dir.join("exp.csv"), &tr).unwrap();
        assert_eq!(
            ours,
            std::fs::read(dir.join("exp.csv")).unwrap(),
            "{}",
            fm.name()
        );
        let s = load_scene(&repo().join("scenes/box_on_plane.toml")).unwrap();
        assert_eq!(s.bodies.meshes()[1].build().unwrap().state, initial);
    }
}

#[test]
fn stick_scene_trace_is_identical_to_the_experiment() {
    let c = StickConfig::default();
    let n = (c.duration / c.h).round() as usize;
    for fm in MODELS {
        let dir = tmp(&format!("stick-{}", fm.name()));
        let ours = scene_trace("stick.toml", scene_model(fm), n, &dir);
        let mut w = stick::world(&c, fm, c.h).unwrap();
        let tr = trace(&mut w, n, 1);
        write_trace(&dir.join("exp.csv"), &tr).unwrap();
        assert_eq!(
            ours,
            std::fs::read(dir.join("exp.csv")).unwrap(),
            "{}",
            fm.name()
        );
    }
}

#[test]
fn models_of_the_other_family_are_refused() {
    let s = load_scene(&repo().join("scenes/stick.toml")).unwrap();
    let e = run(
        &s,
        RunOptions {
            model: Some(Model::Peg),
            max_steps: Some(1),
            ..Default::default()
        },
    )
    .err()
    .expect("peg on meshes");
    assert!(e.to_string().contains("triangle meshes"), "{e}");
    let s = load_scene(&repo().join("scenes/pour3d_icosahedra_h010.toml")).unwrap();
    let e = run(
        &s,
        RunOptions {
            model: Some(Model::Cpf),
            max_steps: Some(1),
            ..Default::default()
        },
    )
    .err()
    .expect("cpf on polyhedra");
    assert!(e.to_string().contains("convex polyhedra"), "{e}");
}

#[test]
fn particle1d_scenes_follow_the_1d_drops_to_round_off() {
    use signorini_experiments::particle1d::{DropConfig, Method, drop_trajectory};
    // Through the first contact (from step ≈ 70) past the deepest point (step ≈ 80) and the
    // lift-off: under `cpf` the 1D CPF rule, under `dpf` (closest-point penalty at the current
    // configuration) the 1D symplectic-Euler rule.
    // `particle1d_perturbed`: the same with k (1 + 0.25 sin 2π 30 t), the study's figure.
    let n = 120;
    for (scene, amp, model, method, deepest_1d) in [
        ("particle1d_cpf", 0.0, Model::Cpf, Method::Cpf, -0.013_739),
        (
            "particle1d_cpf",
            0.0,
            Model::Dpf,
            Method::SymplecticEuler,
            -0.015_065,
        ),
        (
            "particle1d_perturbed",
            0.25,
            Model::Cpf,
            Method::Cpf,
            -0.013_548,
        ),
        (
            "particle1d_perturbed",
            0.25,
            Model::Dpf,
            Method::SymplecticEuler,
            -0.015_167,
        ),
    ] {
        let dir = tmp(&format!("{scene}-{}", model.name()));
        let text = scene_trace(&format!("{scene}.toml"), model, n, &dir);
        let c = DropConfig {
            duration: n as f64 * 2e-3,
            ..DropConfig::default()
        };
        let x = drop_trajectory(method, &c, amp);
        assert_eq!(x.len(), n + 1);
        let rows: Vec<Vec<f64>> = String::from_utf8(text)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect();
        assert_eq!(rows.len(), n);
        let mut deepest: f64 = 0.0;
        for (i, r) in rows.iter().enumerate() {
            // `z` is the cube's centre; its bottom face is 5 cm below.
            let bottom = r[1] - 0.05;
            assert!(
                (bottom - x[i + 1]).abs() < 1e-12,
                "{scene} {method:?} step {}: scene {bottom} vs 1D {}",
                i + 1,
                x[i + 1]
            );
            deepest = deepest.min(bottom);
        }
        let x_min = x.iter().copied().fold(f64::INFINITY, f64::min);
        assert!((deepest - x_min).abs() < 1e-12, "{scene} {method:?}");
        assert!(
            (deepest - deepest_1d).abs() < 1e-6,
            "{scene} {method:?}: {deepest}"
        );
    }
}
