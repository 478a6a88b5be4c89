//! Deformable built-in scenes against the deformable experiments: the scene describes the very
//! world the experiment builds (equal `WorldSpec`s), and a few steps of the scene's run write
//! the experiment's per-step CSV byte for byte.

use crate::{repo, tmp};
use signorini_experiments::cloth_tori::{ClothToriParams, simulate, spec};
use signorini_experiments::deform_run::write_trace;
use signorini_penalty::ForceModel;
use signorini_scene::validate::Length;
use signorini_scene::{Model, RunOptions, SceneKind, load_scene, run};

#[test]
fn cloth_tori_scene_is_the_small_experiment_and_traces_identically() {
    let s = load_scene(&repo().join("scenes/cloth_tori.toml")).unwrap();
    assert_eq!(s.kind, SceneKind::Deformables);
    let d = s.deformables.as_ref().unwrap();
    let small = ClothToriParams::small(ForceModel::Cpf);
    assert_eq!(d.spec, spec(&small).unwrap(), "same world description");
    assert_eq!(s.length, Length::Steps(360), "12 s as the small variant");
    for (model, fm, n) in [
        (Model::Cpf, ForceModel::Cpf, 6),
        (Model::Dpf, ForceModel::Dpf, 3),
    ] {
        let dir = tmp(&format!("cloth-tori-{}", model.name()));
        let o = run(
            &s,
            RunOptions {
                model: Some(model),
                max_steps: Some(n),
                out: Some(dir.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(o.summary.steps, n);
        let p = ClothToriParams {
            duration: n as f64 * small.dt,
            ..ClothToriParams::small(fm)
        };
        let (tr, ..) = simulate(&p).unwrap();
        assert_eq!(tr.t.len(), n);
        write_trace(&dir.join("experiment.csv"), &tr).unwrap();
        let ours = std::fs::read(dir.join("trace.csv")).unwrap();
        assert_eq!(ours, std::fs::read(dir.join("experiment.csv")).unwrap());
        assert_eq!(o.world.deformables().unwrap().deformables.len(), 9);
    }
}

#[test]
fn rings_scene_is_the_small_experiment_and_traces_identically() {
    use signorini_experiments::deform_run::trace;
    use signorini_experiments::rings::{RingsParams, build, spec as rings_spec};
    let s = load_scene(&repo().join("scenes/rings.toml")).unwrap();
    let small = RingsParams::small(ForceModel::Cpf);
    assert_eq!(
        s.deformables.as_ref().unwrap().spec,
        rings_spec(&small).unwrap(),
        "same world description"
    );
    assert_eq!(s.length, Length::Steps(300), "10 s as the small variant");
    let n = 4;
    let dir = tmp("rings-scene");
    run(
        &s,
        RunOptions {
            max_steps: Some(n),
            out: Some(dir.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let mut w = build(&small).unwrap();
    write_trace(&dir.join("experiment.csv"), &trace(&mut w, n, 1)).unwrap();
    let ours = std::fs::read(dir.join("trace.csv")).unwrap();
    assert_eq!(ours, std::fs::read(dir.join("experiment.csv")).unwrap());
}

/// `scene` describes `spec` and runs `n` steps writing the trace `build` gives over `n` steps.
fn traces_as_experiment(
    name: &str,
    spec: signorini_experiments::deform_build::WorldSpec,
    steps: usize,
    mut world: signorini_world::penalty::DeformableWorld,
    n: usize,
) {
    use signorini_experiments::deform_run::trace;
    let s = load_scene(&repo().join(format!("scenes/{name}.toml"))).unwrap();
    assert_eq!(s.kind, SceneKind::Deformables);
    assert_eq!(
        s.deformables.as_ref().unwrap().spec,
        spec,
        "same world description"
    );
    assert_eq!(
        s.length,
        Length::Steps(steps),
        "the small variant's duration"
    );
    let dir = tmp(&format!("{name}-scene"));
    let o = run(
        &s,
        RunOptions {
            max_steps: Some(n),
            out: Some(dir.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(o.summary.steps, n);
    write_trace(&dir.join("experiment.csv"), &trace(&mut world, n, 1)).unwrap();
    let ours = std::fs::read(dir.join("trace.csv")).unwrap();
    assert_eq!(ours, std::fs::read(dir.join("experiment.csv")).unwrap());
}

#[test]
fn chain_scene_is_the_small_experiment_and_traces_identically() {
    use signorini_experiments::chain::{ChainParams, build, spec};
    let small = ChainParams::small(ForceModel::Cpf);
    let s = spec(&small).unwrap();
    // The swing: links 1… start with v = (0, 0, −0.2 x), link 0 is pinned whole.
    let w = build(&small).unwrap();
    let link = &w.deformables[3];
    for (v, x) in link.v.iter().zip(&link.x) {
        assert_eq!(*v, signorini_math::Vec3::new(0.0, 0.0, -0.2 * x.x));
    }
    assert!(w.deformables[0].v.iter().all(|v| v.norm() == 0.0));
    traces_as_experiment("chain", s, 1000, w, 4);
}

#[test]
fn bucket_scene_is_the_small_experiment_and_traces_identically() {
    use signorini_experiments::bucket::{BucketParams, build, spec};
    let small = BucketParams::small(ForceModel::Cpf);
    traces_as_experiment(
        "bucket",
        spec(&small).unwrap(),
        900,
        build(&small).unwrap(),
        3,
    );
}

/// A scene whose explicit integration diverges (spring damping far past the explicit limit)
/// stops at the first non-finite step, counts it as failed and fails the run's checks, instead
/// of running on NaN positions.
#[test]
fn a_diverging_deformable_run_stops_and_fails() {
    let path = repo().join("scenes/cloth_tori.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("damping = 0.1, pressure", "damping = 1.0, pressure");
    let s = signorini_scene::load_str(&path, &text).unwrap();
    let o = run(
        &s,
        RunOptions {
            max_steps: Some(40),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(o.summary.failed_steps, 1, "{:?}", o.summary);
    assert!(
        o.summary.steps < 40,
        "ran on after diverging: {:?}",
        o.summary
    );
    assert!(!o.summary.all_checks_pass);
    let w = o.world.deformables().unwrap();
    assert!(
        w.deformables
            .iter()
            .any(|d| d.x.iter().any(|p| !p.iter().all(|c| c.is_finite())))
    );
}
