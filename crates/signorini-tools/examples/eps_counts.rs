//! Mean I-constraints (incl. X) per step of PEG pouring runs for several detection distances ε,
//! against the authors' stored counts (`reference_constraint_counts.csv`,
//! docs/formulation-notes.md §8), on the same body sets (trials) the authors stored for each h.
//!
//! ```sh
//! cargo run --release -p signorini-experiments --example eps_counts            # h = .002,.005,.010
//! cargo run --release -p signorini-experiments --example eps_counts -- 0.004 0.008
//! ```
//! ε = max(0.5h, 0.0008) is the committed value of the reference code
//! (docs/formulation-notes.md §5.3) and our default; the authors' count runs do not record theirs.
//! The runs use the pour2d settings (8 gap corrections, 5 s) and the counts after the last
//! re-solve, as `pour2d` reports them.

use rayon::prelude::*;
use signorini_contact::peg_detection_distance;
use signorini_experiments::{pour2d, reference};
use signorini_harness::bodyset;
use signorini_world::{ContactModel, World};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// ε as a function of h.
type EpsOfH = fn(f64) -> f64;
/// The stored (trial, mean_I) rows per h key.
type Stored = BTreeMap<i64, Vec<(String, f64)>>;

/// ε choices: a label and ε(h).
const EPS: [(&str, EpsOfH); 3] = [
    ("max(h/2,.0008)", peg_detection_distance),
    ("h", |h| h),
    ("2h", |h| 2.0 * h),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut hs: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    if hs.is_empty() {
        hs = vec![0.002, 0.005, 0.010];
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/peg2d");
    let refs = read_reference(&data.join("reference_constraint_counts.csv"))?;
    let mut jobs = Vec::new();
    for &h in &hs {
        let key = reference::h_key(h);
        let trials = refs
            .get(&key)
            .ok_or(format!("no stored counts at h = {h}"))?;
        for (trial, _) in trials {
            for k in 0..EPS.len() {
                jobs.push((h, trial.clone(), k));
            }
        }
    }
    let results: Vec<((i64, usize), f64)> = jobs
        .par_iter()
        .map(|(h, trial, k)| {
            let (label, path) = bodyset::resolve_set(trial, &data);
            let set = bodyset::load_body_set(&label, &path).map_err(|e| e.to_string())?;
            let mean = mean_inter(&set, *h, EPS[*k].1(*h)).map_err(|e| e.to_string())?;
            Ok(((reference::h_key(*h), *k), mean))
        })
        .collect::<Result<_, String>>()?;
    println!("mean I+X per step over the authors' stored trials (same body sets)");
    print!("{:>6} {:>7} {:>9}", "h", "trials", "authors");
    for (label, _) in EPS {
        print!(" {:>15}", format!("eps={label}"));
    }
    println!();
    for &h in &hs {
        let key = reference::h_key(h);
        let trials = &refs[&key];
        let authors = trials.iter().map(|t| t.1).sum::<f64>() / trials.len() as f64;
        print!("{h:>6} {:>7} {authors:>9.3}", trials.len());
        for k in 0..EPS.len() {
            let v: Vec<f64> = results
                .iter()
                .filter(|(id, _)| *id == (key, k))
                .map(|r| r.1)
                .collect();
            print!(" {:>15.3}", v.iter().sum::<f64>() / v.len() as f64);
        }
        println!();
    }
    Ok(())
}

/// Per h (key): the stored (trial, mean_I) rows.
fn read_reference(path: &std::path::Path) -> Result<Stored, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Stored::new();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().ok_or("empty file")?.split(',').collect();
    let col = |n: &str| {
        head.iter()
            .position(|c| *c == n)
            .ok_or(format!("no column {n}"))
    };
    let (ch, ct, ci) = (col("h")?, col("trial")?, col("mean_I")?);
    for l in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = l.split(',').collect();
        let h: f64 = f[ch].parse()?;
        out.entry(reference::h_key(h))
            .or_default()
            .push((f[ct].to_string(), f[ci].parse()?));
    }
    Ok(out)
}

/// One PEG pouring run (pour2d scene and schedule) with detection distance `eps`: mean
/// I + X constraints per step.
fn mean_inter(
    set: &bodyset::BodySet,
    h: f64,
    eps: f64,
) -> Result<f64, Box<dyn std::error::Error + Send + Sync>> {
    let mut params = signorini_harness::presets::experiment_params(ContactModel::Peg, h, 8);
    params.peg_distance = Some(eps);
    let mut world = World::new(params)?;
    world.add_static_compound(&pour2d::open_box(), signorini_math::Vec2::zeros(), 0.0);
    let (n, every) = (
        signorini_harness::presets::step_count(5.0, h),
        pour2d::drop_interval(h),
    );
    let (mut dropped, mut total) = (0, 0);
    for s in 1..=n {
        if (s - 1) % every == 0 && dropped < set.bodies.len() {
            world.add_body(set.bodies[dropped].body.clone())?;
            dropped += 1;
        }
        let c = world.step().counts;
        total += c.inter + c.cross;
    }
    Ok(total as f64 / n as f64)
}
