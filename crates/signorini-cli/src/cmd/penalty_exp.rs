//! `signorini experiment particle1d | box-on-plane | stick`: the CPF paper's experiments
//! (`signorini-experiments::{particle1d, box_on_plane, stick}`). Each writes CSV, SVG and
//! `DIR/summary.json` and prints the must-show figures. Exit code 1 if a check fails
//! (particle1d limits off by more than 1 %, box not at rest under CPF), 2 on bad input.

use crate::exit::{BadInput, Outcome};
use anyhow::bail;
use clap::Args;
use signorini_experiments::InFolder;
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
    positive("perturbation-hz", a.perturbation_hz)?;
    let c = particle1d::DropConfig {
        hz: a.perturbation_hz,
        ..Default::default()
    };
    super::finish::finish(&InFolder {
        params: c,
        out: a.out,
    })
}

/// Run `box-on-plane`.
pub fn box_on_plane(a: BoxArgs) -> Result<Outcome, BadInput> {
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
    super::finish::finish(&InFolder {
        params: c,
        out: a.out,
    })
}

/// Run `stick`.
pub fn stick(a: StickArgs) -> Result<Outcome, BadInput> {
    positive("h", a.h)?;
    positive("speed", a.speed)?;
    let c = stick::StickConfig {
        h: a.h,
        speed: a.speed,
        ..Default::default()
    };
    super::finish::finish(&InFolder {
        params: c,
        out: a.out,
    })
}
