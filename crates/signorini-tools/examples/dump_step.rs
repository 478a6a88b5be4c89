//! Dump the world state of a pour2d run just before a given step, as a body-set JSON file
//! (the `body_sets/*.json` format plus `set`, `h`, `model`, `step` fields), so that a single
//! step can be replayed in a test (see `tests/it/regression.rs`).
//!
//! ```sh
//! cargo run --release -p signorini-experiments --example dump_step -- h 0.013 peg 199 out.json
//! # without STEP/OUT: print the five steps with the largest overlap
//! cargo run --release -p signorini-experiments --example dump_step -- h 0.013 peg
//! ```
//! The dumped bodies are the dropped ones, in drop order; the open box is implied. Floats
//! are written by serde_json (shortest round-trip form) and read back exactly with the
//! workspace's `float_roundtrip` feature, so the replay is bit-identical.

use signorini_experiments::pour2d;
use signorini_harness::bodyset;
use signorini_world::{ContactModel, World};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err("usage: dump_step SET H MODEL [STEP OUT.json]".into());
    }
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/peg2d");
    let (label, path) = bodyset::resolve_set(&args[0], &data);
    let set = bodyset::load_body_set(&label, &path)?;
    let h: f64 = args[1].parse()?;
    let model = ContactModel::parse(&args[2]).ok_or("unknown model")?;
    let stop: Option<usize> = args.get(3).map(|s| s.parse()).transpose()?;

    let mut world = World::new(signorini_harness::presets::experiment_params(model, h, 8))?;
    let n_walls = world
        .add_static_compound(&pour2d::open_box(), signorini_math::Vec2::zeros(), 0.0)
        .len();
    let (n, every) = (
        signorini_harness::presets::step_count(5.0, h),
        pour2d::drop_interval(h),
    );
    let mut dropped = 0;
    let mut overlaps = Vec::new();
    for s in 1..=n {
        if (s - 1) % every == 0 && dropped < set.bodies.len() {
            world.add_body(set.bodies[dropped].body.clone())?;
            dropped += 1;
        }
        if Some(s) == stop {
            let out = PathBuf::from(args.get(4).ok_or("missing OUT.json")?);
            let json = dump(&world, n_walls, &label, h, &args[2], s);
            std::fs::write(&out, serde_json::to_string_pretty(&json)? + "\n")?;
            println!(
                "state before step {s} ({dropped} bodies) -> {}",
                out.display()
            );
            return Ok(());
        }
        let rep = world.step();
        overlaps.push((
            signorini_harness::overlap::total_overlap(&world.bodies),
            s,
            rep.failed,
        ));
    }
    let failed: Vec<usize> = overlaps.iter().filter(|o| o.2).map(|o| o.1).collect();
    println!(
        "{} failed steps, first: {:?}",
        failed.len(),
        &failed[..failed.len().min(10)]
    );
    overlaps.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (o, s, failed) in overlaps.iter().take(5) {
        println!("step {s}: overlap {o:e} m^2 (failed: {failed})");
    }
    Ok(())
}

/// The dynamic bodies (after the walls) in the body-set JSON format.
fn dump(
    world: &World,
    n_walls: usize,
    set: &str,
    h: f64,
    model: &str,
    step: usize,
) -> serde_json::Value {
    let bodies: Vec<serde_json::Value> = world.bodies[n_walls..]
        .iter()
        .map(|b| {
            let v: Vec<[f64; 2]> = b.shape.vertices().iter().map(|p| [p.x, p.y]).collect();
            serde_json::json!({
                "vertices_local": v,
                "position": [b.position.x, b.position.y],
                "angle": b.angle,
                "velocity": [b.velocity.x, b.velocity.y, b.velocity.z],
                "mass": b.mass,
                "inertia": b.inertia,
                "external_force": [b.external_force.x, b.external_force.y, b.external_force.z],
            })
        })
        .collect();
    serde_json::json!({
        "set": set,
        "h": h,
        "model": model,
        "step": step,
        "note": "pour2d state just before `step` (1-based); open box implied; bodies in drop order",
        "bodies": bodies,
    })
}
