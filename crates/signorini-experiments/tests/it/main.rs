//! Integration tests of the experiments: body sets, drop schedule, triangle drop against the
//! authors' references, determinism of trajectory files.

mod ablation;
mod pile;
mod pour3d;
mod regression;

mod bucket;
mod deformable;
mod octopus;
mod penalty;

use signorini_experiments::{pour2d, reference, triangle_drop};
use signorini_harness::{bodyset, stats};
use signorini_world::ContactModel;
use std::path::PathBuf;
use std::sync::Arc;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/peg2d")
}

pub use signorini_harness::test_support::Tmp;

/// A deformable run's summary without its wall-clock timing (what must repeat bit for bit).
pub fn strip(
    s: &signorini_harness::deform_run::DeformSummary,
) -> signorini_harness::deform_run::DeformSummary {
    signorini_harness::deform_run::DeformSummary {
        ms_per_step: 0.0,
        ..s.clone()
    }
}

/// Of the last `n` steps of a deformable run's per-step CSV, those with a contact force.
pub fn steps_touching(csv: &std::path::Path, n: usize) -> usize {
    let text = std::fs::read_to_string(csv).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    rows[rows.len() - n..]
        .iter()
        .filter(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap() > 0.0)
        .count()
}

/// A fresh temporary folder for one test (see [`Tmp`]).
pub fn tmp(name: &str) -> Tmp {
    Tmp::new("exp", name)
}

#[test]
fn body_sets_load_and_match_the_documented_scene() {
    for l in ["a", "j"] {
        let (label, path) = bodyset::resolve_set(l, &data());
        let set = bodyset::load_body_set(&label, &path).unwrap();
        assert_eq!(set.bodies.len(), 25);
        for b in &set.bodies {
            assert_eq!((b.body.mass, b.body.inertia), (0.25, 0.003));
            assert!((b.body.external_force.y + 2.45).abs() < 1e-12);
            assert!((3..=8).contains(&b.body.shape.len()));
        }
    }
}

#[test]
fn invalid_body_set_names_the_body_and_field() {
    let dir = tmp("badset");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.json");
    let body = |verts: &str| {
        format!(
            r#"{{"vertices_local": {verts}, "position": [0,0], "angle": 0, "velocity": [0,0,0], "mass": 1, "inertia": 1, "external_force": [0,-9.8,0]}}"#
        )
    };
    let good = body("[[0,0],[1,0],[0,1]]");
    let cw = body("[[0,0],[0,1],[1,0]]");
    std::fs::write(&p, format!(r#"{{"bodies": [{good}, {cw}]}}"#)).unwrap();
    let err = bodyset::load_body_set("bad", &p).unwrap_err().to_string();
    assert!(
        err.contains("body 1") && err.contains("vertices_local") && err.contains("clockwise"),
        "{err}"
    );
    let err = bodyset::load_body_set("x", &dir.join("missing.json"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing.json"), "{err}");
}

#[test]
fn drop_schedule_and_step_counts_follow_the_reference_code() {
    // round(0.25/h) with halves away from zero; 20 or 21 bodies (docs/formulation-notes.md §7).
    assert_eq!(pour2d::drop_interval(0.004), 63);
    assert_eq!(pour2d::drop_interval(0.003), 83);
    for (h, bodies) in [
        (0.001, 20),
        (0.003, 21),
        (0.004, 20),
        (0.008, 21),
        (0.013, 21),
        (0.016, 20),
    ] {
        let n = signorini_harness::presets::step_count(5.0, h);
        let k = pour2d::drop_interval(h);
        assert_eq!(n.div_ceil(k), bodies, "h = {h}");
    }
    // Reference step counts of the triangle drop (floor(1.5/h)).
    let refs =
        reference::triangle_references(&data().join("triangle_drop/reference_final_states.csv"))
            .unwrap();
    for r in refs.iter().filter(|r| r.model == "PEG" && r.h != 0.01) {
        assert_eq!(
            signorini_harness::presets::step_count(1.5, r.h),
            r.n_steps,
            "h = {}",
            r.h
        );
    }
}

#[test]
fn triangle_drop_standard_model_is_trapped_and_peg_slides_off() {
    let refs =
        reference::triangle_references(&data().join("triangle_drop/reference_final_states.csv"))
            .unwrap();
    let truth = refs.iter().find(|r| r.model == "peg_ground_truth").unwrap();
    let st = triangle_drop::run_triangle(
        ContactModel::Standard,
        0.01,
        signorini_harness::presets::Stepper::Project { gap_corrections: 0 },
        None,
        None,
    )
    .unwrap();
    let st_ref = refs
        .iter()
        .find(|r| r.model == "ST" && (r.h - 0.01).abs() < 1e-9)
        .unwrap();
    assert!(
        (st.position.x - st_ref.x).abs() < 1e-6 && (st.position.y - st_ref.y).abs() < 1e-6,
        "{:?}",
        st.position
    );
    assert!(st.velocity.norm() < 1e-9);
    let peg = triangle_drop::run_triangle(
        ContactModel::Peg,
        0.01,
        signorini_harness::presets::Stepper::DEFAULT,
        None,
        None,
    )
    .unwrap();
    let e = triangle_drop::relative_error(&peg.position, truth.x, truth.y);
    assert!(
        e < 0.03,
        "PEG at h = 0.01: {:?}, rel. error {e}",
        peg.position
    );
    assert_eq!(peg.failed_steps, 0);
}

#[test]
fn pouring_run_is_deterministic_and_keeps_peg_overlap_tiny() {
    let (label, path) = bodyset::resolve_set("a", &data());
    let set = Arc::new(bodyset::load_body_set(&label, &path).unwrap());
    let spec = pour2d::RunSpec {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        model: ContactModel::Peg,
        set,
        h: 0.01,
        duration: 0.8,
        stepper: signorini_harness::presets::Stepper::DEFAULT,
        timing: None,
    };
    let (d1, d2) = (tmp("det1"), tmp("det2"));
    let r1 = pour2d::run_pour(&spec, Some(&d1)).unwrap();
    // The second run also times PEG vs standard steps on its states: must not change it.
    let timed = pour2d::RunSpec {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        timing: Some(signorini_experiments::TimingSpec {
            every: 10,
            repeats: 2,
        }),
        ..spec.clone()
    };
    let r2 = pour2d::run_pour(&timed, Some(&d2)).unwrap();
    assert!(r1.timing.is_empty());
    let steps: Vec<usize> = r2.timing.iter().map(|t| t.step).collect();
    assert_eq!(steps, vec![10, 20, 30, 40, 50, 60, 70, 80]);
    assert!(
        r2.timing
            .iter()
            .all(|t| t.peg_us > 0.0 && t.standard_us > 0.0)
    );
    let f = "trajectories/peg_seta_h010.csv";
    let (a, b) = (
        std::fs::read(d1.join(f)).unwrap(),
        std::fs::read(d2.join(f)).unwrap(),
    );
    assert!(a.len() > 1000);
    assert_eq!(a, b, "trajectory files differ");
    assert_eq!(
        std::fs::read(d1.join("steps/peg_seta_h010.csv")).unwrap(),
        std::fs::read(d2.join("steps/peg_seta_h010.csv")).unwrap()
    );
    assert!(
        String::from_utf8(a)
            .unwrap()
            .starts_with("step,body,x,y,angle\n")
    );
    assert_eq!(r1.n_steps, 80);
    assert_eq!(r1.overlap, r2.overlap);
    let s = stats::summarize(&r1.overlap);
    assert!(s.max <= 1e-6 && r1.failed_steps == 0, "{s:?}");
    // Four bodies dropped by t = 0.8 s (every 25 steps).
    assert!(r1.contacts_total > 0);
    let _ = (std::fs::remove_dir_all(d1), std::fs::remove_dir_all(d2));
}

#[test]
fn quantiles_use_linear_interpolation() {
    let s = stats::summarize(&[4.0, 1.0, 3.0, 2.0, f64::NAN]);
    assert_eq!((s.n, s.median, s.q1, s.q3, s.max), (5, 2.0, 1.0, 3.0, 4.0));
    assert!((s.mean - 2.0).abs() < 1e-15);
}

#[test]
fn body_set_numbers_are_parsed_exactly() {
    // serde_json's default float parser is off by 1 ulp for about 1 in 13 numbers of these
    // files (e.g. 1.0471975511965979); the workspace enables `float_roundtrip`, which must
    // agree bit for bit with the standard library's correctly rounded `str::parse`.
    let mut checked = 0;
    for l in "abcdefghij".chars() {
        let (_, path) = bodyset::resolve_set(&l.to_string(), &data());
        let text = std::fs::read_to_string(&path).unwrap();
        let numbers = text
            .split(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+')))
            .filter(|t| t.contains('.') && t.chars().next().is_some_and(|c| c != 'e'));
        for t in numbers {
            let Ok(exact) = t.parse::<f64>() else {
                continue; // a fragment of the `note` text
            };
            let json: f64 = serde_json::from_str(t).unwrap();
            assert_eq!(json.to_bits(), exact.to_bits(), "{t} in {}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 5000, "only {checked} numbers found");
    let json: f64 = serde_json::from_str("1.0471975511965979").unwrap();
    assert_eq!(json, "1.0471975511965979".parse::<f64>().unwrap());
}

/// `--paper` (`Stepper::Paper`) is `WorldParams::paper` for every model; the default stepper
/// is the experiments' (PEG with 8 gap corrections and the split impulse).
#[test]
fn the_paper_stepper_of_the_experiments_turns_every_addition_off() {
    use signorini_harness::presets::{Stepper, experiment_params};
    for m in [
        ContactModel::Peg,
        ContactModel::Standard,
        ContactModel::Corrective,
    ] {
        assert!(Stepper::Paper.params(m, 0.01).is_paper());
        assert!(!Stepper::DEFAULT.params(m, 0.01).is_paper());
        assert_eq!(
            Stepper::DEFAULT.params(m, 0.01),
            experiment_params(m, 0.01, 8)
        );
    }
    let p = Stepper::DEFAULT.params(ContactModel::Peg, 0.01);
    assert!(p.gap_corrections == 8 && p.split_penetration && p.keep_best_on_failure);
}

#[test]
fn fig22_trap_fractions_are_written_beside_the_authors() {
    // The authors' fraction of steps with an I-constraint, per h, from their stored counts.
    let refs = reference::reference_trap_fraction(&data().join("reference_constraint_counts.csv"))
        .unwrap();
    assert_eq!(refs.len(), 10, "stored for h = 1 … 10 ms");
    let r10 = refs.iter().find(|r| (r.h - 0.010).abs() < 1e-9).unwrap();
    assert_eq!(r10.trials, 5);
    assert!(r10.min <= r10.mean && r10.mean <= r10.max && r10.max <= 1.0);
    // A short PEG sweep writes ours beside theirs.
    let out = tmp("fig22");
    let (label, path) = bodyset::resolve_set("a", &data());
    let set = Arc::new(bodyset::load_body_set(&label, &path).unwrap());
    let cfg = pour2d::PourConfig {
        peg_form: Default::default(),
        x_impulse: Default::default(),
        sets: vec![set],
        hs: vec![0.01],
        models: vec![ContactModel::Peg],
        duration: 1.0,
        out: out.to_path_buf(),
        data_dir: data(),
        stepper: signorini_harness::presets::Stepper::DEFAULT,
        timing: None,
    };
    let r = pour2d::run_sweep(&cfg).unwrap();
    let run = &r.runs[0];
    assert!(run.trap_steps <= run.n_steps);
    let csv = std::fs::read_to_string(out.join("fig22_trap_fraction.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "h,runs,steps,peg_trap_step_fraction,authors_trials,authors_mean,authors_min,authors_max"
        )
    );
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(row[0], "0.01");
    let ours: f64 = row[3].parse().unwrap();
    assert!(
        (ours - run.trap_steps as f64 / run.n_steps as f64).abs() < 1e-4,
        "{ours}"
    );
    assert_eq!(row[4], "5");
    assert_eq!(row[5], format!("{:.4}", r10.mean));
    assert!(out.join("fig22_trap_fraction.svg").exists());
    let pooled = std::fs::read_to_string(out.join("pooled.csv")).unwrap();
    assert!(
        pooled
            .lines()
            .next()
            .unwrap()
            .ends_with(",trap_step_fraction")
    );
}
