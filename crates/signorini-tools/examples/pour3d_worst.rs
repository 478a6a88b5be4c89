//! Print the steps of one pour3d run with the largest overlap volume, with what the stepper
//! reported there (diagnostics for docs/peg3d.md).
//!
//! ```sh
//! cargo run --release -p signorini-experiments --example pour3d_worst -- random 5 0.008 peg
//! ```

use signorini_experiments::pour3d::{self};
use signorini_harness::polyhedra::Bodies;
use signorini_harness::presets::{experiment_params, step_count};
use signorini_math::{Quat, Vec3};
use signorini_world::{ContactModel, World3};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        return Err("usage: pour3d_worst icosahedra|random CONFIG H MODEL".into());
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/peg3d");
    let bodies = if a[0] == "icosahedra" {
        Bodies::Icosahedra
    } else {
        Bodies::read("random", &data.join("random_polyhedra.json"))?
    };
    let (config, h): (usize, f64) = (a[1].parse()?, a[2].parse()?);
    let model = ContactModel::parse(&a[3]).ok_or("unknown model")?;
    let supply = bodies.config(config)?;
    let mut w = World3::new(experiment_params(model, h, 8))?;
    let walls = w
        .add_static_compound(&pour3d::open_box3(), Vec3::zeros(), Quat::identity())
        .len();
    let (n, every) = (step_count(5.0, h), pour3d::drop_interval3(h));
    let mut dropped = 0;
    let mut rows = Vec::new();
    for s in 1..=n {
        if (s - 1) % every == 0 && (a[0] == "icosahedra" || dropped < supply.len()) {
            w.add_body(signorini_harness::polyhedra::dropped(
                &supply[dropped.min(supply.len() - 1)],
            ))?;
            dropped += 1;
        }
        let r = w.step();
        let o = signorini_harness::overlap::total_overlap3(&w.bodies);
        rows.push((o, s, r));
    }
    rows.sort_by(|x, y| y.0.total_cmp(&x.0));
    for (o, s, r) in rows.iter().take(6) {
        println!(
            "step {s}: overlap {o:e}; contacts {} U {} I {} X {}; corrections {}; failed {} kept_best {:?}; fallbacks {:?}",
            r.counts.contacts,
            r.counts.unilateral,
            r.counts.inter,
            r.counts.cross,
            r.corrections,
            r.failed,
            r.kept_best,
            r.fallbacks
        );
    }
    let _ = walls;
    Ok(())
}
