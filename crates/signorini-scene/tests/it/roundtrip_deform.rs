//! Deformable built-in scenes against the deformable experiments: the scene describes the very
//! world the experiment builds (equal `WorldSpec`s), and a few steps of the scene's run write
//! the experiment's per-step CSV byte for byte.

use crate::{repo, run_steps, tmp};
use signorini_experiments::cloth_tori::{ClothToriParams, simulate, spec};
use signorini_harness::deform_run::write_trace;
use signorini_penalty::ForceModel;
use signorini_scene::validate::Length;
use signorini_scene::{Model, SceneKind, load_scene};

#[test]
fn cloth_tori_scene_is_the_small_experiment_and_traces_identically() {
    let s = load_scene(&repo().join("scenes/cloth_tori.toml")).unwrap();
    assert_eq!(s.kind(), SceneKind::Deformables);
    let d = s.bodies.deformables().unwrap();
    let small = ClothToriParams::small(ForceModel::Cpf);
    assert_eq!(d.spec, spec(&small).unwrap(), "same world description");
    assert_eq!(s.length, Length::Steps(360), "12 s as the small variant");
    for (model, fm, n) in [
        (Model::Cpf, ForceModel::Cpf, 6),
        (Model::Dpf, ForceModel::Dpf, 3),
    ] {
        let dir = tmp(&format!("cloth-tori-{}", model.name()));
        let o = run_steps(&s, Some(model), n, Some(&dir));
        assert_eq!(o.summary.steps, n);
        let p = ClothToriParams {
            duration: n as f64 * small.penalty.dt,
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

/// `contact.implicit_contact = true` in the cloth-and-tori scene is the experiment with
/// `--implicit-contact` (the same world description).
#[test]
fn the_implicit_contact_field_reaches_the_world_description() {
    let text = std::fs::read_to_string(repo().join("scenes/cloth_tori.toml")).unwrap();
    let text = text.replace("[contact]\n", "[contact]\nimplicit_contact = true\n");
    let dir = tmp("implicit-field");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    let s = load_scene(&path).unwrap();
    let mut want = ClothToriParams::small(ForceModel::Cpf);
    want.penalty.implicit_contact = true;
    assert_eq!(s.bodies.deformables().unwrap().spec, spec(&want).unwrap());
}

#[test]
fn rings_scene_is_the_small_experiment_and_traces_identically() {
    use signorini_experiments::rings::{RingsParams, build, spec as rings_spec};
    use signorini_harness::deform_run::trace;
    let s = load_scene(&repo().join("scenes/rings.toml")).unwrap();
    let small = RingsParams::small(ForceModel::Cpf);
    assert_eq!(
        s.bodies.deformables().unwrap().spec,
        rings_spec(&small).unwrap(),
        "same world description"
    );
    assert_eq!(s.length, Length::Steps(300), "10 s as the small variant");
    let n = 4;
    let dir = tmp("rings-scene");
    run_steps(&s, None, n, Some(&dir));
    let mut w = build(&small).unwrap();
    write_trace(&dir.join("experiment.csv"), &trace(&mut w, n, 1)).unwrap();
    let ours = std::fs::read(dir.join("trace.csv")).unwrap();
    assert_eq!(ours, std::fs::read(dir.join("experiment.csv")).unwrap());
}

/// `scene` describes `spec` and runs `n` steps writing the trace `build` gives over `n` steps.
fn traces_as_experiment(
    name: &str,
    spec: signorini_harness::deform_build::WorldSpec,
    steps: usize,
    mut world: signorini_world::penalty::DeformableWorld,
    n: usize,
) {
    use signorini_harness::deform_run::trace;
    let s = load_scene(&repo().join(format!("scenes/{name}.toml"))).unwrap();
    assert_eq!(s.kind(), SceneKind::Deformables);
    assert_eq!(
        s.bodies.deformables().unwrap().spec,
        spec,
        "same world description"
    );
    assert_eq!(
        s.length,
        Length::Steps(steps),
        "the small variant's duration"
    );
    let dir = tmp(&format!("{name}-scene"));
    let o = run_steps(&s, None, n, Some(&dir));
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
    // Released at rest; link 0 is pinned whole.
    let w = build(&small).unwrap();
    assert!(
        w.deformables
            .iter()
            .all(|d| d.v.iter().all(|v| v.norm() == 0.0))
    );
    assert!((0..w.deformables[0].x.len()).all(|i| w.deformables[0].is_pinned(i)));
    traces_as_experiment("chain", s, 2000, w, 4);
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

#[test]
fn octopus_scene_is_the_small_experiment_and_traces_identically() {
    use signorini_experiments::octopus::{OctopusParams, build, spec};
    let small = OctopusParams::small(ForceModel::Cpf);
    traces_as_experiment(
        "octopus",
        spec(&small).unwrap(),
        600,
        build(&small).unwrap(),
        3,
    );
}

#[test]
fn a_deformable_run_records_its_vertex_track_and_the_report_replays_it() {
    use signorini_scene::{MAX_FRAMES, MAX_VERTEX_NUMBERS, VertexTrack};
    // The stride keeps the track within its budgets (cloth_tori: 1465 vertices, 360 steps).
    for (steps, vertices) in [
        (360, 1465),
        (1000, 1152),
        (5, 10),
        (100_000, 3),
        (7, 200_000),
    ] {
        let t = VertexTrack::new(steps, vertices, 1);
        let frames = steps / t.every + 2;
        assert!(frames <= MAX_FRAMES + 2, "{steps} {vertices}: {frames}");
        assert!(
            frames * 3 * vertices <= MAX_VERTEX_NUMBERS + 2 * 3 * vertices || frames <= 3,
            "{steps} {vertices}: {frames} frames"
        );
    }
    assert_eq!(VertexTrack::new(360, 1465, 1).every, 6);
    assert_eq!(
        VertexTrack::new(10, 100, 4).every,
        4,
        "[record] every is kept"
    );

    let s = load_scene(&repo().join("scenes/chain.toml")).unwrap();
    let dir = tmp("chain-vertices");
    let n = 9;
    let o = run_steps(&s, None, n, Some(&dir));
    assert!(o.summary.files.contains(&"vertices.json".to_string()));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vertices.json")).unwrap()).unwrap();
    // The stride is planned for the steps run: 9 steps of 6 × 192 vertices fit, every step.
    assert_eq!(v["every"], 1);
    let frames = v["frames"].as_array().unwrap();
    let steps: Vec<u64> = frames.iter().map(|f| f["s"].as_u64().unwrap()).collect();
    assert_eq!(
        steps,
        (0..=9).collect::<Vec<u64>>(),
        "step 0 and every step"
    );
    let spec = &s.bodies.deformables().unwrap().spec;
    let w = o.world.deformables().unwrap();
    let flat = |f: &serde_json::Value, k: usize| -> Vec<f64> {
        f["x"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    for k in 0..6 {
        let (first, last) = (flat(&frames[0], k), flat(&frames[n], k));
        let x0 = spec.bodies[k].mesh.vertices();
        let x1 = &w.deformables[k].x;
        assert_eq!(first.len(), 3 * x0.len());
        for i in 0..x0.len() {
            for c in 0..3 {
                assert!(
                    (first[3 * i + c] - x0[i][c]).abs() <= 5e-7,
                    "initial, link {k}"
                );
                assert!(
                    (last[3 * i + c] - x1[i][c]).abs() <= 5e-7,
                    "final, link {k}"
                );
            }
        }
        // The pinned link stays, the others fall (the slack of their links; free fall under
        // g/1000 for 0.18 s is 0.16 mm).
        let drop = (0..x0.len())
            .map(|i| first[3 * i + 2] - last[3 * i + 2])
            .fold(f64::NEG_INFINITY, f64::max);
        if k == 0 {
            assert_eq!(first, last, "the pinned link moved");
        } else {
            assert!(drop > 5e-5, "link {k} did not fall: {drop}");
        }
    }
    let files = signorini_scene::report::write_report(&dir).unwrap();
    let html = std::fs::read_to_string(files.html).unwrap();
    assert!(
        html.contains("\"deformable_index\":5"),
        "deformables in the replay"
    );
    assert_eq!(
        html.matches("\"v\":[[").count(),
        10,
        "ten frames of vertices"
    );
}

/// A scene whose explicit integration diverges (spring damping far past the explicit limit)
/// stops at the first diverged step (`PenaltyReport::diverged`), counts it as failed and fails the run's checks, instead
/// of running on NaN positions or colliding a runaway sweep.
#[test]
fn a_diverging_deformable_run_stops_and_fails() {
    let path = repo().join("scenes/cloth_tori.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("damping = 0.1, pressure", "damping = 1.0, pressure");
    let s = signorini_scene::load_str(&path, &text).unwrap();
    let o = run_steps(&s, None, 40, None);
    assert_eq!(o.summary.failed_steps, 1, "{:?}", o.summary);
    assert!(
        o.summary.steps < 40,
        "ran on after diverging: {:?}",
        o.summary
    );
    assert!(!o.summary.all_checks_pass);
    let why = format!("non-finite state at step {}", o.summary.steps);
    assert_eq!(o.summary.failed.as_deref(), Some(why.as_str()));
}

/// `cube_on_cloth.toml` (a dynamic `[[body]]` in a deformable scene) is the world of the
/// signorini-world test `a_rigid_cube_dropped_on_a_pinned_cloth_stays_on_it_without_gaining_energy`
/// built by hand with `DeformableWorld::with_rigid`: after 400 steps (0.2 s; the cube lands at
/// ≈ 50) both end bit-identical. Over the scene's run no edge passes through a triangle
/// (`crossing_pairs`, which counts the rigid cube's mesh), the cube touches the cloth, and the
/// energy of `steps.csv` (cloth and cube) never rises above its start. The replay files carry
/// the cube: its vertex list in `vertices.json` follows it down.
#[test]
fn cube_on_cloth_scene_is_the_world_tests_cube_and_stays_on_the_cloth() {
    use signorini_deformable::{Deformable, Material};
    use signorini_geometry::mesh::shapes;
    use signorini_math::Vec3;
    use signorini_penalty::Friction;
    use signorini_world::penalty::{DeformableWorld, MeshBody, PenaltyParams};

    let s = load_scene(&repo().join("scenes/cube_on_cloth.toml")).unwrap();
    assert_eq!(s.kind(), SceneKind::Deformables);
    let d = s.bodies.deformables().unwrap();
    assert_eq!(d.rigid_names, ["cube"]);
    assert_eq!(d.spec.rigid[0].density, 20.0);
    assert_eq!(s.body_counts(), (2, 2));
    let n = 400;
    let dir = tmp("cube-on-cloth");
    let o = run_steps(&s, None, n, Some(&dir));
    assert_eq!((o.summary.steps, o.summary.failed_steps), (n, 0));
    assert_eq!(o.summary.dynamic_bodies, 2);

    // The world test's world.
    let taut = Material {
        stretch: 2000.0,
        shear: 500.0,
        damping: 0.5,
        drag: 2.0,
        ..Material::CLOTH
    };
    let mut cloth = Deformable::new(shapes::grid(0.8, 0.8, 12, 12).unwrap(), taut).unwrap();
    cloth.pin(&[0, 12, 13 * 12, 13 * 13 - 1]).unwrap();
    cloth.gravity = Vec3::new(0.0, 0.0, -9.81);
    let cube_mesh = shapes::cuboid(Vec3::repeat(0.06)).unwrap();
    let mut cube = MeshBody::dynamic(&cube_mesh, 20.0, Vec3::new(0.0, 0.0, 0.065)).unwrap();
    cube.state.external_force = Vec3::new(0.0, 0.0, -9.81 * cube.state.mass);
    let mut p = PenaltyParams::new(ForceModel::Cpf, 5e-4, 500.0);
    p.friction = Friction {
        mu: 0.5,
        viscous: 0.0,
    };
    p.thickness = 2e-3;
    let mut w = DeformableWorld::new(vec![cloth], Vec::new(), p)
        .unwrap()
        .with_rigid(vec![cube])
        .unwrap();
    w.substeps = 8;
    for _ in 0..n {
        w.step();
    }
    let ours = o.world.deformables().unwrap();
    assert_eq!(ours.deformables[0].x, w.deformables[0].x, "cloth");
    let (a, b) = (&ours.rigid[0].state, &w.rigid[0].state);
    assert_eq!(
        (
            a.position,
            a.orientation,
            a.linear_velocity,
            a.angular_velocity
        ),
        (
            b.position,
            b.orientation,
            b.linear_velocity,
            b.angular_velocity
        ),
        "cube"
    );

    // steps.csv: no crossing, contact, energy never above its start (0.0220 J).
    let steps = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    let e0 = o.summary.energy_initial;
    assert!((e0 - 0.0220).abs() < 1e-4, "initial energy {e0}");
    let mut touched = false;
    for line in steps.lines().skip(1) {
        let c: Vec<f64> = line.split(',').map(|v| v.parse().unwrap()).collect();
        assert_eq!(c[2], 2.0, "bodies column: cloth and cube");
        assert_eq!(c[6], 0.0, "step {}: an edge through a triangle", c[0]);
        touched |= c[8] > 0.0;
        assert!(c[12] <= e0 + 1e-9, "step {}: energy {} > {e0}", c[0], c[12]);
    }
    assert!(touched, "the cube never reached the cloth");
    assert!(o.summary.energy_final < e0, "{}", o.summary.energy_final);
    assert!(o.summary.all_checks_pass, "{:?}", o.summary.checks);
    assert_eq!(o.summary.checks[0].name, "max_penetration");

    // Replay: bodies.json names the cube's vertex list; vertices.json moves it down.
    let bodies: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bodies.json")).unwrap()).unwrap();
    let cube_json = &bodies["bodies"][1];
    assert_eq!(cube_json["name"], "cube");
    assert_eq!(cube_json["rigid_index"], 0);
    assert_eq!(cube_json["vertex_track"], 1);
    assert_eq!(cube_json["is_static"], false);
    let z0 = cube_json["vertices"][0][2].as_f64().unwrap();
    assert!(
        (z0 - 0.005).abs() < 1e-12,
        "initial pose: the cube's bottom at 5 mm, {z0}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vertices.json")).unwrap()).unwrap();
    let frames = v["frames"].as_array().unwrap();
    let low = |f: &serde_json::Value| -> f64 {
        let x = f["x"][1].as_array().unwrap();
        assert_eq!(x.len(), 24, "the cube's 8 vertices");
        (0..8)
            .map(|i| x[3 * i + 2].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    assert_eq!(low(&frames[0]), 0.005);
    let last = low(frames.last().unwrap());
    let expect = w.rigid[0]
        .world_vertices()
        .iter()
        .map(|p| p.z)
        .fold(f64::INFINITY, f64::min);
    assert!(
        (last - expect).abs() <= 5e-7 && last < 0.0,
        "{last} vs {expect}"
    );
    let files = signorini_scene::report::write_report(&dir).unwrap();
    let html = std::fs::read_to_string(files.html).unwrap();
    assert!(
        html.contains("\"rigid_index\":0") && html.contains("\"vertex_track\":1"),
        "the cube in the replay"
    );
}

/// `contact.dpf_vertex_stiffness_limit` and `contact.share_coincident_pairs` in the
/// cloth-and-tori scene are the experiment's options (the same world description), and
/// `model = "cpf-exact"` selects the exact-normal quadrature.
#[test]
fn the_dpf_limit_and_sharing_fields_and_cpf_exact_reach_the_world_description() {
    let text = std::fs::read_to_string(repo().join("scenes/cloth_tori.toml")).unwrap();
    let text = text.replace(
        "[contact]\n",
        "[contact]\ndpf_vertex_stiffness_limit = true\nshare_coincident_pairs = true\n",
    );
    let dir = tmp("dpf-limit-field");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).unwrap();
    let s = load_scene(&path).unwrap();
    let mut want = ClothToriParams::small(ForceModel::Cpf);
    want.penalty.dpf_vertex_stiffness_limit = true;
    want.penalty.share_coincident_pairs = true;
    assert_eq!(s.bodies.deformables().unwrap().spec, spec(&want).unwrap());
    assert_eq!(Model::parse("cpf-exact"), Some(Model::CpfExact));
    assert_eq!(Model::CpfExact.force_model(), Some(ForceModel::CpfExact));
    assert_eq!(Model::parse(Model::CpfExact.name()), Some(Model::CpfExact));
}
