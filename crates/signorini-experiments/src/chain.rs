//! The Chain benchmark (CPF paper Figs. 1a and 8): a chain of interlocked rings hangs from a
//! fixed point, is released at an angle, swings down under gravity and strikes a static box
//! beside its lowest position, against which it comes to lean. The paper plots the contact
//! force between the chain and the box (Fig. 8) and shows DPF's sticking and leaking links
//! (Fig. 1a); here the force on the box is the trace's `obstacle_force`, and whether the
//! links stay interlocked is measured by their centre distances ([`link_gaps`]).
//!
//! Owns: [`ChainParams`] ([`ChainParams::small`], [`ChainParams::full`]), [`spec`] (the world
//! as a [`WorldSpec`], shared with `scenes/chain.toml`), [`build`], [`link_gaps`],
//! [`ChainFigures`], `simulate`, [`run`] and `compare`.
//!
//! The links are stiff pressurised shells (the rings' torus, R = 5 cm, r = 1 cm), centres
//! 1.5 R apart, alternately in and across the swing plane; the first link is pinned whole (the
//! fixed point). Settings (docs/deformable.md, "Chain"): the paper's Δt = 0.02 s and
//! k = 10 N/m per pair are kept; tolerance 2 mm (the paper's 0.4 mm), Coulomb 0.3. The paper
//! gives no masses; a link vertex weighs 5 g (`k Δt²/m = 0.8` per pair, near the
//! cloth-and-tori and rings defaults' 1.4), the link's springs, damping and pressure scaled
//! with the mass so that a link deforms as before. **Gravity is 9.81 mm/s², g/1000**, the
//! largest of the values tried under which CPF's chain ends intact and without crossings:
//! each link hangs on its contact pairs with the link above, which carry the weight of the
//! whole chain below, and the explicit stepper bounds both what holds it (the contact:
//! `k Δt²/m` below CPF's stability bound; a pair sinks `m g / k` per unit of load) and the
//! links' own stiffness (the springs' explicit sub-steps). At real gravity the links are
//! pulled through each other in the first steps and the chain falls apart; at g/500 CPF ends
//! with crossings and a link pulled past a ring's diameter from its neighbour (measured with
//! `signorini-tools`' `chain_gravity` example, docs/deformable.md).

use crate::ExperimentError;
use signorini_deformable::Material;
use signorini_geometry::mesh::{TriMesh, shapes};
use signorini_harness::deform_build::{DeformSpec, PenaltyKnobs, WorldSpec, build_world, place};
use signorini_harness::deform_run::{
    DeformSummary, DeformTrace, Extra, Tracer, compare_models, summarize, write_outputs,
};
use signorini_harness::penalty_out::write_csv;
use signorini_harness::{cancel, progress};
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::DeformableWorld;
use std::cell::RefCell;
use std::path::Path;

/// Parameters of the chain scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainParams {
    /// The penalty knobs (model, step, stiffness, tolerance, friction, the stepper's
    /// switches).
    pub penalty: PenaltyKnobs,
    /// Simulated time (s).
    pub duration: Real,
    /// Number of links (the first is pinned).
    pub links: usize,
    /// Link resolution: segments around and around the tube.
    pub link_segments: (usize, usize),
    /// Mass of the links relative to [`LINK`] (≈ 80 g per vertex): the areal density,
    /// springs, damping and pressure are all multiplied by it, so a link moves as before
    /// while the contact (`k Δt²/m` per pair = 0.05 / factor) and gravity act on a lighter
    /// link. A power of two keeps the scene file's numbers exact.
    pub mass_factor: Real,
    /// Gravity (m/s², downwards).
    pub gravity: Real,
    /// Sub-steps of the link springs per contact step.
    pub substeps: usize,
    /// The straight chain's angle from the downward vertical at release (rad), on the −x
    /// side, away from the box.
    pub release_angle: Real,
}

impl ChainParams {
    /// Small default: 6 links of 384 triangles and the box (2316 triangles), 40 s.
    pub fn small(model: ForceModel) -> Self {
        ChainParams {
            penalty: PenaltyKnobs::new(
                model,
                0.02, // step (s)
                10.0, // stiffness (N/m)
                2e-3, // tolerance (m)
                Friction {
                    mu: 0.3,
                    viscous: 0.0,
                },
            ),
            duration: 40.0,
            links: 6,
            link_segments: (24, 8),
            mass_factor: 1.0 / 16.0,
            gravity: 9.81e-3, // g / 1000
            substeps: 12,
            release_angle: std::f64::consts::FRAC_PI_3,
        }
    }

    /// Full size: 37 links (14 220 triangles; the paper: 14.3k).
    pub fn full(model: ForceModel) -> Self {
        ChainParams {
            links: 37,
            ..Self::small(model)
        }
    }
}

/// Ring radius and tube radius of a link (m).
pub const LINK_SIZE: (Real, Real) = (0.05, 0.01);
/// Centre distance of consecutive links at the start (m): 1.5 ring radii.
pub const PITCH: Real = 0.075;
/// Centre distance of two interlocked links pulled taut (m): rigid tori with ring radius R
/// and tube radius r are at most `2R − 2r` = 8 cm apart without their tubes overlapping. A
/// hanging chain exceeds it by its links' stretch and their sinking into each other.
pub const TAUT: Real = 2.0 * (LINK_SIZE.0 - LINK_SIZE.1);
/// Centre distance beyond which two consecutive links count as pulled through each other (m):
/// a ring's diameter `2R`, i.e. 2 cm past [`TAUT`], a whole tube diameter of overlap.
pub const UNLINKED: Real = 2.0 * LINK_SIZE.0;
/// The box's left face, as a fraction of the chain's [`reach`] on the −x side of the pinned
/// link's centre: the chain released from the −x side strikes the face and its top corner
/// with its lower links on the way down and then drags them across the top.
pub const BOX_FACE: Real = 0.45;

/// Depth of the box's top below the pinned link's centre, as a fraction of the chain's
/// [`reach`]: the lowest links of the hanging chain lie on it.
pub const BOX_TOP: Real = 0.6;

/// Link shell at `mass_factor` 1: ≈ 80 g per vertex (`k Δt²/m ≈ 0.05` per pair at 10 N/m),
/// stiff springs.
pub const LINK: Material = Material {
    areal_density: 780.0,
    stretch: 780.0,
    shear: 234.0,
    bend: 117.0,
    damping: 0.78,
    pressure: 2.3e4,
    drag: 0.1,
};

/// [`LINK`] with its mass and all its internal forces multiplied by `factor` (the same
/// motion on its own; air drag is per unit mass and unchanged).
pub fn link_material(factor: Real) -> Material {
    Material {
        areal_density: LINK.areal_density * factor,
        stretch: LINK.stretch * factor,
        shear: LINK.shear * factor,
        bend: LINK.bend * factor,
        damping: LINK.damping * factor,
        pressure: LINK.pressure * factor,
        drag: LINK.drag,
    }
}

fn arg(e: &dyn std::fmt::Display) -> ExperimentError {
    ExperimentError::Argument(e.to_string())
}

/// The chain's reach from the pinned link's centre to the far edge of the last link (m).
pub fn reach(links: usize) -> Real {
    PITCH * links.saturating_sub(1) as Real + LINK_SIZE.0 + LINK_SIZE.1
}

/// Link `i`'s centre and orientation at release, the chain at `angle` from the downward
/// vertical on the −x side: centre `i ·` [`PITCH`] `· (−sin angle, 0, −cos angle)`; the
/// torus (in the x–y plane) turned about y by `π/2 + angle` (its x axis onto the chain),
/// odd links first turned upright about x (into the swing plane), i.e. the Euler angles
/// `(0 or π/2, π/2 + angle, 0)` of `Quat::from_euler_angles` (as `scenes/chain.toml`
/// states them).
pub fn link_pose(i: usize, angle: Real) -> (Vec3, Quat) {
    use std::f64::consts::FRAC_PI_2;
    let d = PITCH * i as Real;
    let centre = Vec3::new(-angle.sin() * d, 0.0, -angle.cos() * d);
    let roll = if i % 2 == 1 { FRAC_PI_2 } else { 0.0 };
    (
        centre,
        Quat::from_euler_angles(roll, FRAC_PI_2 + angle, 0.0),
    )
}

/// The box: a static cuboid whose left face is [`BOX_FACE`] · [`reach`] to the −x side of the
/// pinned link's centre and whose top is [`BOX_TOP`] · [`reach`] below it, 0.7 reach wide
/// and deep and 0.4 m across the swing plane: the hanging chain's lowest links lie on its top.
pub fn box_mesh(links: usize) -> Result<TriMesh, ExperimentError> {
    let l = reach(links);
    let half = Vec3::new(0.35 * l, 0.2, 0.35 * l);
    let at = Vec3::new(-BOX_FACE * l + half.x, 0.0, -BOX_TOP * l - half.z);
    shapes::cuboid(half)
        .and_then(|m| m.map(|v| v + at))
        .map_err(|e| arg(&e))
}

/// The world's description: link 0 pinned whole at the origin, the straight chain hanging
/// from it at `release_angle` from the vertical on the −x side, at rest ([`link_pose`]: odd
/// links in the swing plane x–z, even ones across it); the static box of [`box_mesh`] (built by [`build`]; `scenes/chain.toml` states the
/// same).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn spec(p: &ChainParams) -> Result<WorldSpec, ExperimentError> {
    if p.links < 2 {
        return Err(ExperimentError::Argument("a chain needs ≥ 2 links".into()));
    }
    if !(p.mass_factor.is_finite() && p.mass_factor > 0.0) {
        return Err(ExperimentError::Argument(format!(
            "mass_factor must be finite and > 0, got {}",
            p.mass_factor
        )));
    }
    if !(p.release_angle.is_finite() && p.release_angle.abs() <= std::f64::consts::PI) {
        return Err(ExperimentError::Argument(format!(
            "release_angle must be within ±π rad, got {}",
            p.release_angle
        )));
    }
    let (big, small) = LINK_SIZE;
    let ring =
        shapes::torus(big, small, p.link_segments.0, p.link_segments.1).map_err(|e| arg(&e))?;
    let material = link_material(p.mass_factor);
    let mut links = Vec::with_capacity(p.links);
    for i in 0..p.links {
        let (c, turn) = link_pose(i, p.release_angle);
        let mesh = place(&ring, Some(turn), c).map_err(|e| arg(&e))?;
        links.push(DeformSpec {
            pins: if i == 0 {
                (0..mesh.vertices().len()).collect()
            } else {
                Vec::new()
            },
            mesh,
            material,
            gravity: Vec3::new(0.0, 0.0, -p.gravity),
            velocity: None,
            velocity_gradient: None,
        });
    }
    Ok(WorldSpec {
        bodies: links,
        rigid: Vec::new(),
        obstacles: vec![box_mesh(p.links)?],
        penalty: p.penalty,
        substeps: p.substeps,
        self_collision: true,
    })
}

/// The world of [`spec`].
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn build(p: &ChainParams) -> Result<DeformableWorld, ExperimentError> {
    build_world(&spec(p)?).map_err(|e| arg(&e))
}

/// Distances between the centres (vertex means) of consecutive links (m). Hanging links are a
/// little past [`TAUT`]; past [`UNLINKED`] a link has been pulled through its neighbour.
pub fn link_gaps(w: &DeformableWorld) -> Vec<Real> {
    let centre = |x: &[Vec3]| x.iter().sum::<Vec3>() / x.len().max(1) as Real;
    let c: Vec<Vec3> = w.deformables.iter().map(|d| centre(&d.x)).collect();
    c.windows(2).map(|p| (p[1] - p[0]).norm()).collect()
}

/// The chain's own figures of a run, besides the shared trace.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainFigures {
    /// Largest centre distance of consecutive links at the end of any step (m).
    pub peak_gap: Real,
    /// Largest centre distance of consecutive links at the end (m).
    pub end_gap: Real,
    /// Largest displacement of a vertex of the pinned link from its start (m; 0 unless the
    /// pin fails).
    pub pin_moved: Real,
    /// Per step: the largest centre distance of consecutive links (m).
    pub gaps: Vec<Real>,
}

impl ChainFigures {
    /// Every link still interlocked with its neighbours at the end of every step.
    pub fn linked(&self) -> bool {
        self.peak_gap < UNLINKED
    }
}

/// One run: trace, summary, extra figures and the chain's own.
type Simulated = (DeformTrace, DeformSummary, Extra, ChainFigures);

/// Run the scene (no files written).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub(crate) fn simulate(p: &ChainParams) -> Result<Simulated, ExperimentError> {
    let mut w = build(p)?;
    let pin0 = w.deformables[0].x.clone();
    let steps = (p.duration / p.penalty.dt).round().max(1.0) as usize;
    let bar = progress::bar(steps, "steps");
    let mut tracer = Tracer::default();
    let mut gaps = Vec::with_capacity(steps);
    for n in 0..steps {
        if let Some(why) = cancel::stop_at(n, "") {
            tracer.trace.interrupted = Some(why);
            break;
        }
        let rep = tracer.step(&mut w, n, steps, 1);
        gaps.push(link_gaps(&w).into_iter().fold(0.0, Real::max));
        if rep.diverged {
            break;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let tr = tracer.finish();
    let (s, e) = summarize(
        &tr,
        p.penalty.model.name(),
        p.penalty.dt,
        w.triangle_count(),
    );
    let pin_moved = (w.deformables[0].x.iter().zip(&pin0))
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, Real::max);
    let fig = ChainFigures {
        peak_gap: gaps.iter().copied().fold(0.0, Real::max),
        end_gap: gaps.last().copied().unwrap_or(0.0),
        pin_moved,
        gaps,
    };
    Ok((tr, s, e, fig))
}

/// `DIR/links.csv` (per step: time and the largest centre distance of consecutive links) and
/// `DIR/links_summary.csv`.
fn write_links(
    out: &Path,
    model: ForceModel,
    tr: &DeformTrace,
    f: &ChainFigures,
) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(out).map_err(|err| ExperimentError::io(out, err))?;
    write_csv(
        &out.join("links.csv"),
        "t,max_link_gap",
        tr.t.iter().zip(&f.gaps).map(|(t, g)| format!("{t},{g}")),
    )?;
    write_csv(
        &out.join("links_summary.csv"),
        "model,peak_link_gap,end_link_gap,taut,unlinked_above,pin_moved",
        [format!(
            "{},{},{},{TAUT},{UNLINKED},{:e}",
            model.name(),
            f.peak_gap,
            f.end_gap,
            f.pin_moved
        )],
    )
}

/// Run the scene and write the outputs (`chain_<model>.csv` with the force on the box in its
/// `obstacle_force` column, plots, `summary.json`, `links.csv`, `links_summary.csv`).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(
    p: &ChainParams,
    out: &Path,
) -> Result<(DeformSummary, Extra, ChainFigures), ExperimentError> {
    let (tr, s, e, f) = simulate(p)?;
    write_outputs(out, "chain", &tr, &s, &e)?;
    write_links(out, p.penalty.model, &tr, &f)?;
    Ok((s, e, f))
}

/// Run `p` under each of `models` into `DIR/<model>/` and plot them together in `DIR`
/// (`compare_models`: the force on the box of every model in `obstacle_force_compare.svg`).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub(crate) fn compare(
    p: &ChainParams,
    models: &[ForceModel],
    out: &Path,
) -> Result<Vec<(DeformSummary, Extra, ChainFigures)>, ExperimentError> {
    let figs = RefCell::new(Vec::new());
    let runs = compare_models(out, "chain", models, |model| {
        let (tr, s, e, f) = simulate(&ChainParams {
            penalty: PenaltyKnobs { model, ..p.penalty },
            ..*p
        })?;
        write_links(&out.join(model.name()), model, &tr, &f)?;
        figs.borrow_mut().push(f);
        Ok((tr, s, e))
    })?;
    Ok((runs.into_iter().zip(figs.into_inner()))
        .map(|((s, e), f)| (s, e, f))
        .collect())
}
