//! How much gravity the hanging chain of `signorini experiment chain` carries: one run of the
//! small chain per gravity value, printing whether the links stay interlocked (largest
//! centre distance of neighbours against `chain::UNLINKED`), the crossings at the end and at
//! the peak, whether the run diverged, and the force on the box. Used for the gravity
//! scaling in docs/deformable.md ("chain").
//!
//! ```sh
//! cargo run --release -p signorini-tools --example chain_gravity -- 9.81 0.981 0.0981
//! # environment overrides: MODEL=cpf|cpf-exact|dpf|dpf-ccd, MASS (mass_factor, default
//! # the experiment's), DURATION (s), LINKS, ANGLE (release angle, rad)
//! STRETCH=1 cargo run --release -p signorini-tools --example chain_gravity -- 0.00491
//! ```
//! With `STRETCH=1`, after DURATION of the experiment's swing, each link's largest
//! diameter (farthest pair of its vertices) beyond its rest value `2 (R + r)` is printed with
//! the neighbours' centre distances beyond 8 cm: how much of a gap is the links' own stretch.

use signorini_experiments::chain::{self, ChainParams};
use signorini_penalty::ForceModel;

fn env(name: &str) -> Option<f64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}: not a number: {v}"))
    })
}

fn main() {
    let model = match std::env::var("MODEL").as_deref() {
        Ok("dpf") => ForceModel::Dpf,
        Ok("dpf-ccd") => ForceModel::DpfCcd,
        Ok("cpf-exact") => ForceModel::CpfExact,
        Ok("cpf") | Err(_) => ForceModel::Cpf,
        Ok(other) => panic!("MODEL: unknown model {other}"),
    };
    let mut base = ChainParams::small(model);
    if let Some(m) = env("MASS") {
        base.mass_factor = m;
    }
    if let Some(d) = env("DURATION") {
        base.duration = d;
    }
    if let Some(n) = env("LINKS") {
        base.links = n as usize;
    }
    if let Some(a) = env("ANGLE") {
        base.release_angle = a;
    }
    let gravities: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("gravity (m/s²)"))
        .collect();
    println!(
        "model {}, mass factor {} (k dt^2/m = {:.3} per pair), {} s, {} links",
        model.name(),
        base.mass_factor,
        0.05 / base.mass_factor,
        base.duration,
        base.links
    );
    println!(
        "g (m/s2) | linked (< 2R) | peak gap (m) | end gap (m) | crossings end (depth) | peak | diverged | box peak (N) | box jitter | ms/step"
    );
    if std::env::var("STRETCH").is_ok() {
        for g in gravities {
            stretch(&ChainParams { gravity: g, ..base });
        }
        return;
    }
    for g in gravities {
        let p = ChainParams { gravity: g, ..base };
        let out = std::env::temp_dir().join(format!("chain_gravity_{}_{g}", model.name()));
        let (s, e, f) = chain::run(&p, &out).expect("run");
        println!(
            "{g} | {} | {:.4} | {:.4} | {} ({:.2e}) | {} | {} | {:.3e} | {:.4} | {:.1}",
            f.linked(),
            f.peak_gap,
            f.end_gap,
            s.pairs_penetrating_at_end,
            s.max_depth,
            e.peak_pairs,
            e.diverged_at
                .map_or("no".to_string(), |n| format!("step {}", n + 1)),
            e.peak_obstacle_force,
            e.obstacle_jitter,
            s.ms_per_step
        );
    }
}

/// Run the chain for `p.duration` and print each link's stretch (largest diameter).
fn stretch(p: &ChainParams) {
    let mut w = chain::build(p).expect("world");
    let steps = (p.duration / p.penalty.dt).round() as usize;
    for _ in 0..steps {
        assert!(!w.step().diverged, "diverged");
    }
    let (r_big, r_small) = chain::LINK_SIZE;
    let rest = 2.0 * (r_big + r_small);
    let stretch: Vec<String> = (w.deformables.iter().skip(1))
        .map(|d| {
            let diameter = (d.x.iter())
                .flat_map(|a| d.x.iter().map(move |b| (a - b).norm()))
                .fold(0.0, f64::max);
            format!("{:.2}", (diameter - rest) * 1e3)
        })
        .collect();
    let gaps: Vec<String> = chain::link_gaps(&w)
        .iter()
        .map(|g| format!("{:.2}", (g - chain::TAUT) * 1e3))
        .collect();
    println!(
        "g {} m/s2, after {} s: link stretch (mm, links 1..) [{}]; centre distance beyond 8 cm (mm) [{}]",
        p.gravity,
        p.duration,
        stretch.join(", "),
        gaps.join(", ")
    );
}
