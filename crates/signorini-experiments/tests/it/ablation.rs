//! The ablation (`signorini experiment ablation`): its Signorini stepper applies PEG's
//! additions to every model, and a cell is the pouring experiment's own run pooled.

use crate::{data, tmp};
use signorini_experiments::ablation::{self, AblationConfig, Scene3};
use signorini_experiments::{pour2d, pour3d};
use signorini_harness::bodyset;
use signorini_harness::polyhedra::Bodies;
use signorini_harness::presets::Stepper;
use signorini_harness::stats::summarize;
use signorini_world::{ContactModel, Gyroscopic, VertexVertex, WorldParams};
use std::sync::Arc;

const MODELS: [ContactModel; 3] = [
    ContactModel::Peg,
    ContactModel::Standard,
    ContactModel::Corrective,
];

/// The Signorini stepper of the ablation is PEG's default stepper with only the model
/// changed: for PEG the pouring experiments' default, for the baselines the gap corrections,
/// split impulse and solve budget the default withholds (which stays withheld).
#[test]
fn the_signorini_stepper_gives_every_model_pegs_additions() {
    let uniform = Stepper::Uniform { gap_corrections: 8 };
    let peg = Stepper::DEFAULT.params(ContactModel::Peg, 0.01);
    assert_eq!(uniform.params(ContactModel::Peg, 0.01), peg);
    for m in MODELS {
        let p = uniform.params(m, 0.01);
        assert_eq!(p.model, m);
        // Only the model differs, and the mixed-form retry (no addition: the paper's stepper
        // has it; the baselines keep the default's off).
        assert_eq!(p.mixed_fallback, m == ContactModel::Peg);
        assert_eq!(
            WorldParams {
                model: ContactModel::Peg,
                mixed_fallback: true,
                ..p.clone()
            },
            peg
        );
        assert!(p.gap_corrections == 8 && p.split_penetration && p.solve_work_limit.is_some());
        assert!(p.keep_best_on_failure && p.islands && p.reuse_basis && !p.paper_detection);
        assert_eq!(p, WorldParams::signorini_uniform(m, 0.01, 8));
    }
    // The defaults are untouched: the baselines still run without the corrections there.
    let std = Stepper::DEFAULT.params(ContactModel::Standard, 0.01);
    assert!(std.gap_corrections == 0 && !std.split_penetration && !std.mixed_fallback);
    assert_eq!(ablation::stepper_label(Stepper::Paper), "paper");
    assert_eq!(ablation::stepper_label(uniform), "signorini");
}

/// A tiny ablation (pour2d set a and pour3d icosahedra, two models): each cell equals the
/// pouring experiment's own run of that model, set and h under the same stepper (PEG under
/// the Signorini stepper = `pour2d` / `pour3d` by default; every model under the paper's =
/// `--paper`), and the table, CSV and figure are written.
#[test]
fn ablation_cells_are_the_pouring_runs_under_each_stepper() {
    let out = tmp("ablation");
    let (label, path) = bodyset::resolve_set("a", &data());
    let set = Arc::new(bodyset::load_body_set(&label, &path).unwrap());
    let models = vec![ContactModel::Peg, ContactModel::Corrective];
    let cfg = AblationConfig {
        sets: vec![set.clone()],
        hs2: vec![0.01],
        scenes3: vec![Scene3 {
            bodies: Arc::new(Bodies::Icosahedra),
            configs: vec![0],
        }],
        hs3: vec![0.016],
        models: models.clone(),
        duration: 0.6,
        gap_corrections: 8,
        out: out.to_path_buf(),
    };
    let r = ablation::run_ablation(&cfg).unwrap();
    // 2 scenes × 1 h × 2 models × 2 steppers, one run each.
    assert_eq!((r.runs.len(), r.cells.len()), (8, 8));
    for c in &r.cells {
        let stepper = if c.stepper == "paper" {
            Stepper::Paper
        } else {
            Stepper::DEFAULT
        };
        if c.stepper == "signorini" && c.model != ContactModel::Peg {
            continue; // the default stepper differs for the baselines: that is the point
        }
        let own = if c.scene == "pour2d" {
            let spec = pour2d::RunSpec {
                peg_form: Default::default(),
                x_impulse: Default::default(),
                model: c.model,
                set: set.clone(),
                h: 0.01,
                duration: 0.6,
                stepper,
                timing: None,
            };
            pour2d::run_pour(&spec, None).unwrap()
        } else {
            assert_eq!(c.scene, "pour3d-icosahedra");
            let spec = pour3d::RunSpec3 {
                peg_form: Default::default(),
                x_impulse: Default::default(),
                model: c.model,
                bodies: Arc::new(Bodies::Icosahedra),
                config: 0,
                h: 0.016,
                duration: 0.6,
                stepper,
                timing: None,
                gyroscopic: Gyroscopic::default(),
                vertex_vertex: VertexVertex::default(),
            };
            pour3d::run_pour3d(&spec, None).unwrap()
        };
        let s = summarize(&own.overlap);
        assert_eq!(
            (c.runs, c.steps, c.median, c.max, c.failed_steps),
            (1, own.n_steps, s.median, s.max, own.failed_steps),
            "{c:?}"
        );
    }
    let csv = std::fs::read_to_string(out.join("ablation.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("scene,h,model,stepper,runs,failed_runs,steps,median,max,failed_steps,ms_per_step")
    );
    assert_eq!(lines.count(), 8);
    assert!(csv.contains("pour2d,0.01,peg,signorini,1,0,"), "{csv}");
    let md = std::fs::read_to_string(out.join("ablation.md")).unwrap();
    assert_eq!(md, r.report);
    assert!(
        md.contains("| pour3d-icosahedra | 16 | corrective | 1 |"),
        "{md}"
    );
    assert!(md.contains("| pour2d | 10 | signorini |"), "{md}");
    let svg = std::fs::read_to_string(out.join("ablation.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("peg / signorini"));
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 8);
}
