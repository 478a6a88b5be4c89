//! A chain of linked rings, its first link pinned, swings down from horizontal against a static
//! box: after the CPF paper's Chain benchmark (Figs. 1a and 8), which it does **not**
//! reproduce. The paper's chain hangs and swings under gravity; with the gravity used here
//! (0.981 mm/s², see below) this one is a slack-free rod of links that bounces off the box and
//! swings back up. It measures contact leaking between links and against the box.
//!
//! Owns: [`ChainParams`] ([`ChainParams::small`], [`ChainParams::full`]), [`spec`] (the world
//! as a [`WorldSpec`], shared with `scenes/chain.toml`), `swing_field`, [`build`], [`run`].
//! The links are stiff pressurised shells (the rings of [`crate::rings`]), interlocked
//! (alternately in the x–y and x–z planes, centres 1.5 ring radii apart), the first one pinned.
//! Settings: the paper's Δt = 0.02 s and k = 10 N/m per pair are kept; vertex masses follow
//! from `k Δt²/m ≈ 0.05` per pair; gravity is 0.981 mm/s² because a link carries the weight of
//! every link below it on a few pairs and must rest inside the tolerance, which is 2 mm (the
//! paper's 0.4 mm is below our resting depth) — see docs/deformable.md.

use crate::ExperimentError;
use signorini_deformable::Material;
use signorini_geometry::mesh::shapes;
use signorini_harness::deform_build::{
    DeformSpec, VelocityGradient, WorldSpec, build_world, place,
};
use signorini_harness::deform_run::{DeformSummary, Extra, simulate_world, write_outputs};
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::{DEFAULT_VERTEX_STIFFNESS_LIMIT, DeformableWorld};
use std::path::Path;

/// Parameters of the chain scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainParams {
    /// Force model.
    pub model: ForceModel,
    /// Step (s).
    pub dt: Real,
    /// Penalty stiffness per pair (N/m).
    pub stiffness: Real,
    /// Contact thickness (collision tolerance) (m).
    pub tolerance: Real,
    /// Per-vertex contact-stiffness limit (`PenaltyParams::vertex_stiffness_limit`; 0 = off,
    /// the paper's plain accumulation).
    pub vertex_stiffness_limit: Real,
    /// Linearly implicit contact correction instead of the stiffness limit
    /// (`PenaltyParams::implicit_contact`; default off).
    pub implicit_contact: bool,
    /// Apply the per-vertex stiffness limit to the discrete model too
    /// (`PenaltyParams::dpf_vertex_stiffness_limit`; default off).
    pub dpf_vertex_stiffness_limit: bool,
    /// Pairs with coincident collision points share one contact's impulse
    /// (`PenaltyParams::share_coincident_pairs`; default off: the paper's plain sum).
    pub share_coincident_pairs: bool,
    /// Friction.
    pub friction: Friction,
    /// Simulated time (s).
    pub duration: Real,
    /// Number of links (the first is pinned).
    pub links: usize,
    /// Link resolution: segments around and around the tube.
    pub link_segments: (usize, usize),
    /// Gravity (m/s², downwards).
    pub gravity: Real,
    /// Sub-steps of the link springs per contact step.
    pub substeps: usize,
    /// Initial angular speed of the swing about the pinned link (rad/s).
    pub swing: Real,
}

impl ChainParams {
    /// Small default: 6 links of 384 triangles and the box (2316 triangles), 20 s.
    pub fn small(model: ForceModel) -> Self {
        ChainParams {
            model,
            dt: 0.02,
            stiffness: 10.0,
            tolerance: 2e-3,
            vertex_stiffness_limit: DEFAULT_VERTEX_STIFFNESS_LIMIT,
            implicit_contact: false,
            dpf_vertex_stiffness_limit: false,
            share_coincident_pairs: false,
            friction: Friction {
                mu: 0.3,
                viscous: 0.0,
            },
            duration: 20.0,
            links: 6,
            link_segments: (24, 8),
            gravity: 9.81e-4,
            substeps: 12,
            swing: 0.2,
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

/// Link shell: ≈ 80 g per vertex (`k Δt²/m ≈ 0.05` per pair at 10 N/m), stiff springs.
pub(crate) const LINK: Material = Material {
    areal_density: 780.0,
    stretch: 780.0,
    shear: 234.0,
    bend: 117.0,
    damping: 0.78,
    pressure: 2.3e4,
    drag: 0.1,
};

fn arg(e: &dyn std::fmt::Display) -> ExperimentError {
    ExperimentError::Argument(e.to_string())
}

/// The swing of the links: vertical velocity `−swing · x` (the z component of a rotation at
/// `swing` rad/s about the y axis through the pinned link's centre; the horizontal component
/// `swing · z`, at most 1 % of it here, is left out), as a [`VelocityGradient`].
pub(crate) fn swing_field(swing: Real) -> VelocityGradient {
    let mut gradient = Mat3::zeros();
    gradient[(2, 0)] = -swing;
    VelocityGradient {
        gradient,
        origin: Vec3::zeros(),
    }
}

/// The world's description: links along +x from the origin at z = 0 (link 0 pinned) swinging
/// down at `swing` rad/s (`swing_field`), a static box whose top is 6 cm below the chain, from
/// under the third link on (built by [`build`]; `scenes/chain.toml` states the same).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn spec(p: &ChainParams) -> Result<WorldSpec, ExperimentError> {
    if p.links < 2 {
        return Err(ExperimentError::Argument("a chain needs ≥ 2 links".into()));
    }
    let (big, small) = (0.05, 0.01);
    let pitch = 1.5 * big;
    let ring =
        shapes::torus(big, small, p.link_segments.0, p.link_segments.1).map_err(|e| arg(&e))?;
    let upright = Quat::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0);
    let mut links = Vec::with_capacity(p.links);
    for i in 0..p.links {
        let c = Vec3::new(pitch * i as Real, 0.0, 0.0);
        let turn = (i % 2 == 1).then_some(upright);
        let mesh = place(&ring, turn, c).map_err(|e| arg(&e))?;
        let first = i == 0;
        links.push(DeformSpec {
            pins: if first {
                (0..mesh.vertices().len()).collect()
            } else {
                Vec::new()
            },
            mesh,
            material: LINK,
            gravity: Vec3::new(0.0, 0.0, -p.gravity),
            velocity: None,
            velocity_gradient: (!first).then(|| swing_field(p.swing)),
        });
    }
    let len = pitch * p.links as Real;
    let half = Vec3::new(0.25 * len, 0.2, 0.1);
    let at = Vec3::new(2.5 * pitch + half.x, 0.0, -0.06 - small - half.z);
    let block = shapes::cuboid(half)
        .and_then(|m| m.map(|v| v + at))
        .map_err(|e| arg(&e))?;
    Ok(WorldSpec {
        bodies: links,
        rigid: Vec::new(),
        obstacles: vec![block],
        model: p.model,
        dt: p.dt,
        stiffness: p.stiffness,
        thickness: p.tolerance,
        friction: p.friction,
        substeps: p.substeps,
        self_collision: true,
        vertex_stiffness_limit: p.vertex_stiffness_limit,
        implicit_contact: p.implicit_contact,
        dpf_vertex_stiffness_limit: p.dpf_vertex_stiffness_limit,
        share_coincident_pairs: p.share_coincident_pairs,
    })
}

/// The world of [`spec`].
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn build(p: &ChainParams) -> Result<DeformableWorld, ExperimentError> {
    build_world(&spec(p)?).map_err(|e| arg(&e))
}

/// Run the scene and write the outputs (`chain_<model>.csv`, plots, `summary.json`).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(p: &ChainParams, out: &Path) -> Result<(DeformSummary, Extra), ExperimentError> {
    let mut w = build(p)?;
    let (tr, s, e) = simulate_world(&mut w, p.model, p.dt, p.duration, 1);
    write_outputs(out, "chain", &tr, &s, &e)?;
    Ok((s, e))
}
