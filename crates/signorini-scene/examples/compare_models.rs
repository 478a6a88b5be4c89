//! Run one scene with each contact model through the library API and compare.
//!
//! ```sh
//! cargo run --release -p signorini-scene --example compare_models -- scenes/triangle_drop.toml
//! ```
//! Writes `out/compare/<model>/` (with a report each) and prints one line per model.

use signorini_scene::{Model, RunOptions, load_scene, report::write_report, run};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "scenes/triangle_drop.toml".into());
    let scene = load_scene(path.as_ref())?;
    println!(
        "{:<11} {:>6} {:>7} {:>12} {:>10} {:>10}",
        "model", "steps", "failed", "max overlap", "final x", "final y"
    );
    for model in [Model::Peg, Model::Standard, Model::Corrective] {
        let out = PathBuf::from("out/compare").join(model.name());
        let o = run(
            &scene,
            RunOptions {
                model: Some(model),
                out: Some(out.clone()),
                ..Default::default()
            },
        )?;
        write_report(&out)?;
        // The last dynamic body's final position.
        let last = o
            .world
            .planar()
            .expect("a 2D scene")
            .bodies
            .iter()
            .rev()
            .find(|b| !b.is_static);
        let (x, y) = last.map_or((f64::NAN, f64::NAN), |b| (b.position.x, b.position.y));
        let s = &o.summary;
        println!(
            "{:<11} {:>6} {:>7} {:>12.3e} {:>10.4} {:>10.4}",
            s.model, s.steps, s.failed_steps, s.max_overlap, x, y
        );
    }
    println!("reports: out/compare/<model>/report.html");
    Ok(())
}
