//! The Rings benchmark (CPF paper Figs. 1b, 15, 16): stiff rings fall on a static base with
//! thin vertical pins; contact force under a sweep of stiffness (Fig. 15, Δt = 1/30 s) and of
//! the step (Fig. 16).
//!
//! Owns: [`RingsParams`] ([`RingsParams::small`], [`RingsParams::full`]), [`build`], [`run`]
//! and the sweep rows `SweepRow`. The rings are stiff pressurised shells (tori) whose springs
//! are sub-stepped; base and pins are static obstacles. Scaling (docs/deformable.md,
//! "Experiments"): the paper's Δt is kept; gravity is 0.981 mm/s² with the rings thrown down
//! at 2 cm/s (the resting depth of a penalty contact is `m g / (k q)` for `q` pairs per vertex:
//! it must stay inside the 2 mm tolerance). The paper gives no masses, so only `k Δt² / m`
//! carries over: the default 512 000 N/m per pair on ≈ 410 kg ring vertices puts it at ≈ 1.4
//! per pair, as the cloth-and-tori's default, the regime where discrete forces chatter at this
//! step as in the paper's figures (`--stiffness-factors` sweeps it; docs/deformable.md,
//! "Jitter against stiffness"). It was 8000 N/m (the paper's Fig. 16 value, ≈ 0.02 per pair)
//! before the per-vertex stiffness limit kept CPF stable at any stiffness, and 256 000 N/m
//! (≈ 0.7) from 25 to 26 Nov, where discrete forces with friction sink but do not chatter.

use crate::ExperimentError;
use rayon::prelude::*;
use signorini_deformable::Material;
use signorini_geometry::mesh::{mass::mass_properties, shapes};
use signorini_harness::deform_build::{
    DeformSpec, PenaltyKnobs, RigidSpec, WorldSpec, build_world, place, surface_area,
};
use signorini_harness::deform_run::{
    DeformSummary, Extra, simulate_world, write_comparison, write_outputs,
};
use signorini_harness::penalty_out::{plot, write_csv};
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::DeformableWorld;
use std::path::Path;

/// Parameters of the rings scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RingsParams {
    /// The penalty knobs (model, step, stiffness, tolerance, friction, the stepper's
    /// switches).
    pub penalty: PenaltyKnobs,
    /// Simulated time (s).
    pub duration: Real,
    /// Pins (and rings) per side of the square grid.
    pub per_side: usize,
    /// Ring resolution: segments around and around the tube.
    pub ring_segments: (usize, usize),
    /// Gravity (m/s², downwards).
    pub gravity: Real,
    /// Sub-steps of the ring springs per contact step.
    pub substeps: usize,
    /// Run the stiffness and step sweep (Figs. 15–16) besides the main run.
    pub sweep: bool,
    /// Initial downward speed of the rings (m/s).
    pub drop_speed: Real,
    /// Rigid rings (`MeshBody`s of the shell's mass, no air drag) instead of stiff shells.
    pub rigid: bool,
}

impl RingsParams {
    /// Small default: 2 × 2 pins and rings of 384 triangles (1676 triangles), 10 s, with sweep.
    pub fn small(model: ForceModel) -> Self {
        RingsParams {
            penalty: PenaltyKnobs::new(
                model,
                1.0 / 30.0, // step (s)
                512_000.0,  // stiffness (N/m)
                2e-3,       // tolerance (m)
                Friction {
                    mu: 0.5,
                    viscous: 0.0,
                },
            ),
            duration: 10.0,
            per_side: 2,
            ring_segments: (24, 8),
            gravity: 9.81e-4,
            substeps: 12,
            sweep: true,
            drop_speed: 0.02,
            rigid: false,
        }
    }

    /// Full size: 4 × 4 pins and rings of 384 triangles (6668 triangles; the paper: 7.4k).
    pub fn full(model: ForceModel) -> Self {
        RingsParams {
            per_side: 4,
            ..Self::small(model)
        }
    }
}

/// Ring shell: stiff springs and pressure; ≈ 410 kg per vertex (see the module docs).
pub(crate) const RING: Material = Material {
    areal_density: 4e6,
    stretch: 4e6,
    shear: 1.2e6,
    bend: 6e5,
    damping: 4000.0,
    pressure: 1.2e8,
    drag: 0.1,
};

fn arg(e: &dyn std::fmt::Display) -> ExperimentError {
    ExperimentError::Argument(e.to_string())
}

/// The world: a 0.2 m × 0.2 m per pin base slab (top at z = 0) with pins of radius 4 mm and
/// height 6 cm; one ring (centre-line radius 5 cm, tube radius 1 cm) per pin, starting 2 cm
/// (plus 1 cm per ring) above the pin tops, tilted, every other one offset so that its tube
/// lands on the pin.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn spec(p: &RingsParams) -> Result<WorldSpec, ExperimentError> {
    let n = p.per_side.max(1);
    let pitch = 0.2;
    let half = 0.5 * pitch * n as Real + 0.05;
    let base = shapes::cuboid(Vec3::new(half, half, 0.02))
        .and_then(|m| m.map(|v| v + Vec3::new(0.0, 0.0, -0.02)))
        .map_err(|e| arg(&e))?;
    let mut obstacles = vec![base];
    let (pin_len, big, small) = (0.06, 0.05, 0.01);
    let pin = shapes::cylinder(0.004, pin_len, 8).map_err(|e| arg(&e))?;
    let ring =
        shapes::torus(big, small, p.ring_segments.0, p.ring_segments.1).map_err(|e| arg(&e))?;
    let mut rings = Vec::new();
    let mut rigid = Vec::new();
    // A rigid ring weighs what the shell does: areal density × area, spread over the volume.
    let density = RING.areal_density * surface_area(&ring)
        / mass_properties(&ring, 1.0).map_err(|e| arg(&e))?.volume;
    for i in 0..n {
        for j in 0..n {
            let k = i * n + j;
            let c = Vec3::new(
                pitch * (i as Real - 0.5 * (n - 1) as Real),
                pitch * (j as Real - 0.5 * (n - 1) as Real),
                0.0,
            );
            let m = pin
                .map(|v| v + c + Vec3::new(0.0, 0.0, 0.5 * pin_len))
                .map_err(|e| arg(&e))?;
            obstacles.push(m);
            let tilt = Quat::from_euler_angles(0.25 * (k % 3) as Real, 0.15, 0.0);
            let off = if k % 2 == 1 { 0.9 * big } else { 0.1 * big };
            let at = c + Vec3::new(off, 0.0, pin_len + 0.02 + 0.01 * k as Real);
            if p.rigid {
                rigid.push(RigidSpec {
                    mesh: ring.clone(),
                    density,
                    position: at,
                    orientation: Some(tilt),
                    velocity: Vec3::new(0.0, 0.0, -p.drop_speed),
                    angular_velocity: Vec3::zeros(),
                    external_force: Vec3::zeros(),
                    gravity: Vec3::new(0.0, 0.0, -p.gravity),
                });
                continue;
            }
            rings.push(DeformSpec {
                mesh: place(&ring, Some(tilt), at).map_err(|e| arg(&e))?,
                material: RING,
                gravity: Vec3::new(0.0, 0.0, -p.gravity),
                pins: vec![],
                velocity: Some(Vec3::new(0.0, 0.0, -p.drop_speed)),
                velocity_gradient: None,
            });
        }
    }
    Ok(WorldSpec {
        bodies: rings,
        rigid,
        obstacles,
        penalty: p.penalty,
        substeps: p.substeps,
        self_collision: true,
    })
}

/// The world of [`spec`].
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn build(p: &RingsParams) -> Result<DeformableWorld, ExperimentError> {
    build_world(&spec(p)?).map_err(|e| arg(&e))
}

/// One run of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SweepRow {
    /// Stiffness (N/m).
    pub(crate) stiffness: Real,
    /// Step (s).
    pub(crate) dt: Real,
    /// Its summary.
    pub(crate) summary: DeformSummary,
    /// Its extra figures.
    pub(crate) extra: Extra,
}

/// Run `p` (without its sweep) under each of `models`, each into `DIR/<model>/`, and write
/// the comparison plots into `DIR` ([`write_comparison`]).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub(crate) fn compare(
    p: &RingsParams,
    models: &[ForceModel],
    out: &Path,
) -> Result<Vec<(DeformSummary, Extra)>, ExperimentError> {
    let mut runs = Vec::new();
    // No new run once a signal asked to stop.
    for &model in models
        .iter()
        .take_while(|_| signorini_harness::cancel::requested().is_none())
    {
        let q = RingsParams {
            penalty: PenaltyKnobs { model, ..p.penalty },
            sweep: false,
            ..*p
        };
        let (tr, s, e) = one(&q)?;
        write_outputs(&out.join(model.name()), "rings", &tr, &s, &e)?;
        runs.push((tr, s, e));
    }
    write_comparison(out, "rings", &runs)?;
    Ok(runs.into_iter().map(|(_, s, e)| (s, e)).collect())
}

/// What [`run`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct RingsResult {
    /// The main run (`summary.json`).
    pub summary: DeformSummary,
    /// Its extra figures.
    pub extra: Extra,
    /// The sweep (empty unless [`RingsParams::sweep`]).
    pub(crate) sweep: Vec<SweepRow>,
}

fn one(
    p: &RingsParams,
) -> Result<
    (
        signorini_harness::deform_run::DeformTrace,
        DeformSummary,
        Extra,
    ),
    ExperimentError,
> {
    let mut w = build(p)?;
    Ok(simulate_world(
        &mut w,
        p.penalty.model,
        p.penalty.dt,
        p.duration,
        1,
    ))
}

/// Run the main scene (outputs as every deformable experiment) and, if asked, the sweep:
/// stiffness ×¼, ×1, ×4 at the main step (`force_stiffness.svg`) and steps ×1, ×⅓, ×⅒ at the
/// main stiffness (`force_dt.svg`), rows in `sweep.csv`. Sweep runs go in parallel (their
/// `ms_per_step` is not a clean timing; the main run's is).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(p: &RingsParams, out: &Path) -> Result<RingsResult, ExperimentError> {
    let (tr, s, e) = one(p)?;
    write_outputs(out, "rings", &tr, &s, &e)?;
    if !p.sweep {
        return Ok(RingsResult {
            summary: s,
            extra: e,
            sweep: vec![],
        });
    }
    let variants: Vec<RingsParams> = [(0.25, 1.0), (4.0, 1.0), (1.0, 1.0 / 3.0), (1.0, 0.1)]
        .iter()
        .map(|&(ks, hs)| RingsParams {
            penalty: PenaltyKnobs {
                stiffness: p.penalty.stiffness * ks,
                dt: p.penalty.dt * hs,
                ..p.penalty
            },
            ..*p
        })
        .collect();
    let runs: Vec<_> = variants
        .par_iter()
        .map(one)
        .collect::<Result<Vec<_>, _>>()?;
    let mut all = vec![(*p, tr, s.clone(), e)];
    all.extend(
        variants
            .into_iter()
            .zip(runs)
            .map(|(v, (t, s, e))| (v, t, s, e)),
    );
    let label = |v: &RingsParams| {
        format!(
            "k = {} N/m, Δt = {:.5} s",
            v.penalty.stiffness, v.penalty.dt
        )
    };
    let pick = |f: &dyn Fn(&RingsParams) -> bool| -> Vec<(String, &[Real], &[Real])> {
        let mut v: Vec<_> = all
            .iter()
            .filter(|(q, ..)| f(q))
            .map(|(q, t, ..)| (label(q), t.t.as_slice(), t.force.as_slice()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let by_k = pick(&|q| q.penalty.dt == p.penalty.dt);
    let by_dt = pick(&|q| q.penalty.stiffness == p.penalty.stiffness);
    let refs = |v: &[(String, &[Real], &[Real])]| -> Vec<(String, Vec<Real>, Vec<Real>)> {
        v.iter()
            .map(|(n, x, y)| (n.clone(), x.to_vec(), y.to_vec()))
            .collect()
    };
    for (file, title, series) in [
        (
            "force_stiffness.svg",
            "contact force vs stiffness (Fig. 15)",
            refs(&by_k),
        ),
        (
            "force_dt.svg",
            "contact force vs step (Fig. 16)",
            refs(&by_dt),
        ),
    ] {
        let s: Vec<(&str, &[Real], &[Real])> = series
            .iter()
            .map(|(n, x, y)| (n.as_str(), x.as_slice(), y.as_slice()))
            .collect();
        plot(
            &out.join(file),
            &format!("rings ({}): {title}", p.penalty.model.name()),
            "t (s)",
            "force (N)",
            &s,
        )?;
    }
    let sweep: Vec<SweepRow> = all
        .into_iter()
        .map(|(q, _, s, e)| SweepRow {
            stiffness: q.penalty.stiffness,
            dt: q.penalty.dt,
            summary: s,
            extra: e,
        })
        .collect();
    write_csv(
        &out.join("sweep.csv"),
        "model,stiffness,dt,steps,jitter,pairs_penetrating_at_end,max_depth,peak_pairs,peak_depth",
        sweep.iter().map(|r| {
            format!(
                "{},{},{},{},{:e},{},{:e},{},{:e}",
                r.summary.model,
                r.stiffness,
                r.dt,
                r.summary.steps,
                r.summary.jitter,
                r.summary.pairs_penetrating_at_end,
                r.summary.max_depth,
                r.extra.peak_pairs,
                r.extra.peak_depth
            )
        }),
    )?;
    Ok(RingsResult {
        summary: s,
        extra: e,
        sweep,
    })
}
