//! `signorini experiment particle1d | box-on-plane | stick`: the CPF paper's experiments
//! (`signorini-experiments::{particle1d, box_on_plane, stick}`). Each writes CSV, SVG and
//! `DIR/summary.json` and prints the must-show figures. Exit code 1 if a check fails
//! (particle1d limits off by more than 1 %, box not at rest under CPF), 2 on bad input.

use crate::exit::{BadInput, Outcome};
use anyhow::bail;
use clap::Args;
use signorini_experiments::{box_on_plane, particle1d, stick};
use std::path::PathBuf;

/// `particle1d` options.
#[derive(Args, Debug)]
pub struct Particle1dArgs {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Frequency of the sinusoidal stiffness perturbation (Hz).
    #[arg(long, default_value_t = 30.0)]
    perturbation_hz: f64,
}

/// `box-on-plane` options.
#[derive(Args, Debug)]
pub struct BoxArgs {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Step (s).
    #[arg(long, default_value_t = 1e-3)]
    h: f64,
    /// Simulated time (s).
    #[arg(long, default_value_t = 3.0)]
    duration: f64,
}

/// `stick` options.
#[derive(Args, Debug)]
pub struct StickArgs {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Step (s); the reference is analytic (the elastic reflection off the stick's side).
    #[arg(long, default_value_t = 4e-3)]
    h: f64,
    /// Ball speed (m/s).
    #[arg(long, default_value_t = 4.0)]
    speed: f64,
}

fn positive(name: &str, v: f64) -> anyhow::Result<()> {
    if !(v.is_finite() && v > 0.0) {
        bail!("--{name} must be finite and > 0, got {v}");
    }
    Ok(())
}

/// Run `particle1d`.
pub fn particle1d(a: Particle1dArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    positive("perturbation-hz", a.perturbation_hz)?;
    let c = particle1d::DropConfig {
        hz: a.perturbation_hz,
        ..Default::default()
    };
    let s = particle1d::run(&c, &a.out).map_err(anyhow::Error::from)?;
    let rel = |x: f64, y: f64| (x - y).abs() / y;
    outln!("particle1d (m = 1 kg, k = 10 kN/m):");
    outln!(
        "  SE  limit: analytic {:.6e} s, eigenvalues {:.6e} s, simulated penalty stepper (dpf) {:.6e} s ({:.2e} rel. to eigenvalues)",
        s.se_analytic_limit_s,
        s.se_eigen_limit_s,
        s.se_stability_limit_s,
        rel(s.se_stability_limit_s, s.se_eigen_limit_s)
    );
    outln!(
        "  CPF limit: analytic {:.6e} s, eigenvalues {:.6e} s, simulated penalty stepper (cpf) {:.6e} s ({:.2e} rel. to eigenvalues)",
        s.cpf_analytic_limit_s,
        s.cpf_eigen_limit_s,
        s.cpf_stability_limit_s,
        rel(s.cpf_stability_limit_s, s.cpf_eigen_limit_s)
    );
    outln!(
        "  (simulated: PenaltyWorld, a 1 kg cube held between two walls by 8 vertex-face pairs of k/8, no gravity; bisection on the step for a 100-fold growth of a small displacement)"
    );
    outln!(
        "  largest surviving stiffness perturbation at {} Hz, Δt = 2 ms: SE {:.0} %, CPF {:.0} % (paper: 15 %, 70 %)",
        s.perturbation_hz,
        100.0 * s.se_max_perturbation,
        100.0 * s.cpf_max_perturbation
    );
    if let Some(why) = &s.interrupted {
        outln!("  interrupted: {why} (the figures not reached are NaN)");
    }
    outln!("outputs in {}", a.out.display());
    let ok = [
        (s.se_stability_limit_s, s.se_eigen_limit_s),
        (s.cpf_stability_limit_s, s.cpf_eigen_limit_s),
        (s.se_eigen_limit_s, s.se_analytic_limit_s),
        (s.cpf_eigen_limit_s, s.cpf_analytic_limit_s),
    ]
    .iter()
    .all(|(x, y)| rel(*x, *y) < 0.01);
    Ok(if ok {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// Run `box-on-plane`.
pub fn box_on_plane(a: BoxArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    positive("h", a.h)?;
    positive("duration", a.duration)?;
    if a.duration < 1.0 {
        return Err(anyhow::anyhow!(
            "--duration must be at least 1 s (the final second is measured)"
        )
        .into());
    }
    let c = box_on_plane::BoxConfig {
        h: a.h,
        duration: a.duration,
        ..Default::default()
    };
    let s = box_on_plane::run(&c, &a.out).map_err(anyhow::Error::from)?;
    outln!("box-on-plane (h = {} s, {} s):", c.h, c.duration);
    for (name, m) in &s {
        outln!(
            "  {name:8} final-second max vertex speed {:.3e} m/s, max penetration {:.3e} m, jitter {:.4e} (final second {:.3e}), {:.3} ms/step",
            m.final_speed,
            m.max_penetration,
            m.jitter,
            m.final_second_jitter,
            m.ms_per_step
        );
    }
    let (cpf, dpf) = (&s["cpf"], &s["dpf"]);
    outln!(
        "  jitter DPF / CPF = {:.3} (final second: {:.3e})",
        dpf.jitter / cpf.jitter,
        dpf.final_second_jitter / cpf.final_second_jitter
    );
    outln!("outputs in {}", a.out.display());
    Ok(if cpf.final_speed < 1e-4 {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// Run `stick`.
pub fn stick(a: StickArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    positive("h", a.h)?;
    positive("speed", a.speed)?;
    let c = stick::StickConfig {
        h: a.h,
        speed: a.speed,
        ..Default::default()
    };
    let s = stick::run(&c, &a.out).map_err(anyhow::Error::from)?;
    outln!(
        "stick (h = {} s, ball speed {} m/s, reference: the analytic elastic reflection off the stick's side):",
        c.h,
        c.speed
    );
    for (name, m) in &s {
        let d = m.rebound_direction;
        outln!(
            "  {name:8} rebound ({:+.3}, {:+.3}, {:+.3}), {:.1}° from the reference, max penetration {:.3e} m, {:.3} ms/step",
            d[0],
            d[1],
            d[2],
            m.angle_to_reference_deg,
            m.common.max_penetration,
            m.common.ms_per_step
        );
    }
    if let Some(m) = s.values().next() {
        let d = m.reference_rebound_direction;
        outln!(
            "  reference rebound ({:+.3}, {:+.3}, {:+.3}) (analytic); dpf at h/100: {:.1}° from it",
            d[0],
            d[1],
            d[2],
            m.fine_discrete_angle_deg
        );
    }
    outln!("outputs in {}", a.out.display());
    Ok(Outcome::Success)
}
