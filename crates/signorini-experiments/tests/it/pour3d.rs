//! The 3D pouring experiment: scene facts from docs/formulation-notes.md §9, random bodies, a few
//! steps of every model, deterministic outputs, failed runs recorded by the sweep.

use crate::tmp;
use signorini_experiments::ExperimentError;
use signorini_experiments::pour3d::{self, Pour3Config, RunSpec3};
use signorini_experiments::{RunResult, run_parallel};
use signorini_harness::polyhedra::Bodies;
use signorini_harness::trajectory_header3;
use signorini_math::Vec3;
use signorini_world::ContactModel;
use std::path::PathBuf;
use std::sync::Arc;

fn data3() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/peg3d")
}

#[test]
fn scene_matches_the_stored_experiment() {
    // round(0.5/h), halves away from zero: 0.5/0.008 = 62.5 → 63 (docs/formulation-notes.md §9).
    assert_eq!(pour3d::drop_interval3(0.008), 63);
    assert_eq!(pour3d::drop_interval3(0.001), 500);
    let ico = signorini_harness::polyhedra::icosahedron_body();
    assert_eq!(ico.state.mass, 0.5);
    assert!((ico.state.inertia[(0, 0)] - 0.1309).abs() < 1e-4);
    assert!((ico.shape.circumradius() - 0.5).abs() < 1e-12);
    // Box: floor 10.25 × 4.25 × 0.25, two walls 0.25 × 4.25 × 4, two 10.25 × 0.25 × 4.
    let vol = 10.25 * 4.25 * 0.25 + 2.0 * 0.25 * 4.25 * 4.0 + 2.0 * 10.25 * 0.25 * 4.0;
    assert!((pour3d::open_box3().volume() - vol).abs() < 1e-9);
    let q = signorini_harness::polyhedra::drop_orientation();
    assert!((q.angle() - 0.2).abs() < 1e-15);
    let axis = q.axis().unwrap();
    assert!((axis.into_inner() - Vec3::new(1.0, 2.0, 3.0).normalize()).norm() < 1e-12);
}

#[test]
fn the_icosahedron_is_the_authors_scaled_to_circumradius_half() {
    // data/peg3d/icosahedron.json: vertices_unit (exact), vertex order and faces as there.
    let text = std::fs::read_to_string(data3().join("icosahedron.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let unit: Vec<Vec3> = json["vertices_unit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let c: Vec<f64> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            Vec3::new(c[0], c[1], c[2])
        })
        .collect();
    let faces: Vec<Vec<usize>> = json["faces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f.as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap() as usize)
                .collect()
        })
        .collect();
    assert_eq!((unit.len(), faces.len()), (12, 20));
    let ico = signorini_harness::polyhedra::icosahedron_body();
    let scaled: Vec<Vec3> = unit.iter().map(|v| v * 0.5).collect();
    // Bit for bit: scaling by 0.5 is exact.
    assert_eq!(ico.shape.vertices(), &scaled[..]);
    let ours: Vec<Vec<usize>> = ico
        .shape
        .faces()
        .iter()
        .map(|f| f.vertices.to_vec())
        .collect();
    assert_eq!(ours, faces);
    assert_eq!(
        ico.shape.vertices()[0],
        Vec3::new(0.0, 0.0, 0.5),
        "vertex 0 on +z"
    );
    // Not the golden-ratio icosahedron (vertices on the coordinate planes).
    let golden = signorini_geometry::dim3::ConvexPolyhedron::icosahedron(0.5).unwrap();
    assert!(!golden.vertices().contains(&Vec3::new(0.0, 0.0, 0.5)));
}

#[test]
fn random_bodies_are_centred_scaled_hulls_of_mass_half() {
    let bodies = Bodies::read("random", &data3().join("random_polyhedra.json")).unwrap();
    let config = bodies.config(9).unwrap();
    assert_eq!(config.len(), 11);
    for b in &config {
        assert!((b.shape.circumradius() - 0.5).abs() < 1e-12);
        assert_eq!(b.state.mass, 0.5);
        let mp = b.shape.mass_properties(0.5 / b.shape.volume());
        assert!(mp.centroid.norm() < 1e-12, "not centred: {:?}", mp.centroid);
        assert!((mp.inertia - b.state.inertia).amax() < 1e-15);
        assert!(b.state.inertia.cholesky().is_some());
    }
    assert!(matches!(
        bodies.config(45),
        Err(ExperimentError::Argument(_))
    ));
}

fn spec(model: ContactModel, bodies: Arc<Bodies>) -> RunSpec3 {
    // 60 steps at h = 0.01: bodies dropped at steps 1 and 51.
    RunSpec3 {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        model,
        bodies,
        config: 0,
        h: 0.01,
        duration: 0.6,
        stepper: signorini_harness::presets::Stepper::DEFAULT,
        timing: None,
        gyroscopic: signorini_world::Gyroscopic::default(),
        vertex_vertex: signorini_world::VertexVertex::default(),
    }
}

#[test]
fn a_few_steps_of_pour3d_for_every_model_are_deterministic() {
    let random = Arc::new(Bodies::read("random", &data3().join("random_polyhedra.json")).unwrap());
    for bodies in [Arc::new(Bodies::Icosahedra), random] {
        for model in [
            ContactModel::Peg,
            ContactModel::Standard,
            ContactModel::Corrective,
        ] {
            let s = spec(model, bodies.clone());
            let (d1, d2) = (tmp("det1"), tmp("det2"));
            let r = pour3d::run_pour3d(&s, Some(&d1)).unwrap();
            pour3d::run_pour3d(&s, Some(&d2)).unwrap();
            assert_eq!(r.n_steps, 60);
            assert_eq!(r.overlap.len(), 60);
            assert_eq!(r.failed_steps, 0, "{model:?}");
            let name = format!("trajectories/{}.csv", s.stem());
            let t1 = std::fs::read_to_string(d1.join(&name)).unwrap();
            assert_eq!(t1, std::fs::read_to_string(d2.join(&name)).unwrap());
            let mut lines = t1.lines();
            assert_eq!(lines.next(), Some(trajectory_header3()));
            // One row per dropped body per step: 50 steps with one body, 10 with two.
            assert_eq!(lines.count(), 50 + 2 * 10);
            if model == ContactModel::Peg {
                let max = r.overlap.iter().copied().fold(0.0, f64::max);
                assert!(max <= 1e-6, "{}: PEG overlap {max:e}", s.stem());
            }
            let _ = std::fs::remove_dir_all(&d1);
            let _ = std::fs::remove_dir_all(&d2);
        }
    }
}

#[test]
fn sweep_writes_the_summary_and_a_failed_run_does_not_stop_it() {
    let out = tmp("sweep");
    let cfg = Pour3Config {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        bodies: Arc::new(Bodies::Icosahedra),
        configs: vec![0],
        hs: vec![0.016],
        models: vec![ContactModel::Peg, ContactModel::Standard],
        duration: 0.2,
        out: out.to_path_buf(),
        data_dir: data3(),
        stepper: signorini_harness::presets::Stepper::DEFAULT,
        timing: Some(signorini_experiments::TimingSpec {
            every: 5,
            repeats: 1,
        }),
        gyroscopic: signorini_world::Gyroscopic::default(),
        vertex_vertex: signorini_world::VertexVertex::default(),
    };
    let r = pour3d::run_sweep3(&cfg).unwrap();
    assert_eq!(r.runs.len(), 2);
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut lines = summary.lines();
    assert_eq!(
        lines.next(),
        Some("model,bodies,config,h,n_steps,median,q1,q3,max,mean,ms_per_step,failed_steps")
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("peg,icosahedra,0,0.016,12,")
    );
    assert!(out.join("fig24_overlap_icosahedra.svg").exists());
    assert!(r.report.contains("authors med"));
    // PEG vs standard timing on the PEG run's states: steps 5 and 10 of 12.
    let timing = std::fs::read_to_string(out.join("timing.csv")).unwrap();
    assert_eq!(timing.lines().count(), 1 + 2);
    // The parallel runner records a run that errors or panics and finishes the others.
    let runs = run_parallel(
        &[0, 1, 2],
        |&k| match k {
            1 => Err(ExperimentError::Argument("bad".into())),
            2 => panic!("boom"),
            _ => Ok(RunResult::default()),
        },
        |&k, e| RunResult {
            set: k.to_string(),
            error: Some(e),
            ..Default::default()
        },
    );
    assert!(runs[0].error.is_none());
    assert_eq!(runs[1].error.as_deref(), Some("invalid argument: bad"));
    assert_eq!(runs[2].error.as_deref(), Some("panic during the run"));
    let _ = std::fs::remove_dir_all(&out);
}
