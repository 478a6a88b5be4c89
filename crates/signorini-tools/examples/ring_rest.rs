//! One ring of the `rings` scene dropped on the base alone (no pin): its kinetic energy and
//! lowest vertex every 2 s, and with `CONTACTLOG=1` its energy (kinetic + springs + pressure +
//! gravity, the penalty energy excluded) at the first step of each contact episode and at the
//! first step after it with no contact pair. Shows that the rings do not come to rest within a run (the
//! penalty contact is nearly elastic at `k Δt²/m ≈ 0.02`, gravity is 0.981 mm/s²): see the
//! `rings --full` analysis in docs/deformable.md.
//!
//! ```sh
//! cargo run --release -p signorini-experiments --example ring_rest -- 80
//! # environment overrides: LIMIT, MU, TOL (m), K (N/m), DT (s), SUB, DROP (m/s), DRAG (1/s),
//! # SX, SY (shift the ring, m; SX=0.07 SY=-0.07 keeps it off the base top's diagonal edge),
//! # RIGID=1 (a rigid ring of the same mass, no drag), CONTACTLOG=1
//! ```
//! Argument: simulated seconds (default 60).

use signorini_experiments::rings::{RingsParams, spec};
use signorini_harness::deform_build::build_world;
use signorini_math::Vec3;
use signorini_penalty::ForceModel;
use signorini_world::penalty::DeformableWorld;

fn env(key: &str) -> Option<f64> {
    std::env::var(key).ok().and_then(|s| s.parse().ok())
}

fn params() -> RingsParams {
    let mut p = RingsParams::small(ForceModel::Cpf);
    p.per_side = 1;
    p.rigid = env("RIGID").is_some();
    for (key, field) in [
        ("LIMIT", &mut p.penalty.vertex_stiffness_limit),
        ("MU", &mut p.penalty.friction.mu),
        ("TOL", &mut p.penalty.tolerance),
        ("K", &mut p.penalty.stiffness),
        ("DT", &mut p.penalty.dt),
        ("DROP", &mut p.drop_speed),
    ] {
        if let Some(x) = env(key) {
            *field = x;
        }
    }
    if let Some(x) = env("SUB") {
        p.substeps = x as usize;
    }
    p
}

/// Kinetic energy, energy (with gravity) and lowest vertex height of the ring.
fn state(w: &DeformableWorld, g: f64) -> (f64, f64, f64) {
    if let Some(b) = w.rigid.first() {
        let ke = b.state.kinetic_energy();
        let zmin = b
            .world_vertices()
            .iter()
            .map(|p| p.z)
            .fold(f64::INFINITY, f64::min);
        return (ke, ke + b.state.mass * g * b.state.position.z, zmin);
    }
    let d = &w.deformables[0];
    let ke: f64 =
        d.v.iter()
            .zip(d.masses())
            .map(|(v, m)| 0.5 * m * v.norm_squared())
            .sum();
    let zmin = d.x.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
    (ke, d.energy(), zmin)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let secs: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(60.0);
    let p = params();
    let mut sp = spec(&p)?;
    sp.obstacles.truncate(1);
    let shift = Vec3::new(env("SX").unwrap_or(0.0), env("SY").unwrap_or(0.0), 0.0);
    for b in &mut sp.bodies {
        b.mesh = b.mesh.map(|v| v + shift)?;
        if let Some(x) = env("DRAG") {
            b.material.drag = x;
        }
    }
    for r in &mut sp.rigid {
        r.position += shift;
    }
    let mut w = build_world(&sp)?;
    let log = env("CONTACTLOG").is_some();
    let steps = (secs / p.penalty.dt).round() as usize;
    let every = (2.0 / p.penalty.dt).round().max(1.0) as usize;
    let (mut ke_max, mut z_low, mut prev_pairs, mut e_before) = (0.0f64, f64::INFINITY, 0, 0.0);
    for n in 0..steps {
        let pairs = w.step().pairs;
        let (ke, e, zmin) = state(&w, p.gravity);
        if log && prev_pairs == 0 && pairs > 0 {
            e_before = e;
        }
        if log && prev_pairs > 0 && pairs == 0 {
            let t = w.time();
            println!(
                "  contact ended at t = {t:.2} s: E {e_before:.4} -> {e:.4} J ({:+.4})",
                e - e_before
            );
        }
        prev_pairs = pairs;
        ke_max = ke_max.max(ke);
        z_low = z_low.min(zmin);
        if (n + 1) % every == 0 {
            println!(
                "t = {:5.1} s: peak KE {ke_max:.4} J, lowest vertex {:+.2} mm, E {e:.4} J, {pairs} contact pairs",
                w.time(),
                z_low * 1e3
            );
            (ke_max, z_low) = (0.0, f64::INFINITY);
        }
    }
    Ok(())
}
