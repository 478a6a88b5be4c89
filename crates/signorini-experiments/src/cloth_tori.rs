//! The Cloth benchmark (CPF paper Figs. 12–13, §4): soft tori fall on a cloth pinned at its
//! corners, with torus–cloth, torus–torus and cloth self-collisions.
//!
//! Owns: [`ClothToriParams`] (with [`ClothToriParams::small`] and [`ClothToriParams::full`]),
//! [`spec`] (the world as a [`WorldSpec`], shared with scene files), [`build`] and [`run`]. Settings and why they are scaled: `docs/deformable.md`
//! ("Experiments"). In short: the paper's Δt = 1/30 s, tolerance 0.2 mm, Coulomb 0.8 and
//! viscous friction 0.005 are kept; gravity is 9.81 mm/s² (the scene is read in millimetre
//! units), because an explicit penalty contact at step `h` rests at a depth of at least
//! `g h² / 2` per vertex (5.4 mm at 1/30 s with g = 9.81 m/s², 27× the tolerance); the cloth's
//! springs are sub-stepped. The contact stiffness is 16 N/m per pair, 8× the paper's 2 N/m:
//! the paper gives no masses, so only `k h² / m` carries over, and 16 N/m puts it at ≈ 1.4 per
//! pair (cloth vertices of 12.5 g), the regime where discrete forces jitter at this step as in
//! the paper's figures (`--stiffness-factors` sweeps it; docs/deformable.md, "Jitter against
//! stiffness"). Equivalently: the paper's 2 N/m on bodies 8× lighter.

use crate::ExperimentError;
use signorini_deformable::Material;
use signorini_geometry::mesh::shapes;
use signorini_harness::deform_build::{
    DeformSpec, PenaltyKnobs, WorldSpec, build_world, grid_corners, place,
};
use signorini_harness::deform_run::{
    DeformSummary, DeformTrace, Extra, compare_models, simulate_world, write_outputs,
};
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::DeformableWorld;
use std::path::Path;

/// Parameters of the cloth-and-tori scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClothToriParams {
    /// The penalty knobs (model, step, stiffness, tolerance, friction, the stepper's
    /// switches).
    pub penalty: PenaltyKnobs,
    /// Simulated time (s).
    pub duration: Real,
    /// Cloth cells per side.
    pub cloth_cells: usize,
    /// Cloth cell size (m).
    pub cell: Real,
    /// Tori per side of the square grid in each layer.
    pub tori_per_side: usize,
    /// Layers of tori (each layer 0.1 m above the previous one, shifted and tilted).
    pub layers: usize,
    /// Torus resolution: segments around the centre line and around the tube.
    pub torus_segments: (usize, usize),
    /// Gravity (m/s², downwards).
    pub gravity: Real,
    /// Sub-steps of the internal (spring, pressure) forces per contact step.
    pub substeps: usize,
    /// Measure crossings every this many steps (1 = every step).
    pub measure_every: usize,
    /// Cloth material.
    pub cloth: Material,
    /// Torus material.
    pub torus: Material,
    /// Height of the lowest tori's centres above the cloth (m).
    pub drop: Real,
    /// Switch off self-collision (diagnostics; the benchmark has it on).
    pub self_collision_off: bool,
}

impl ClothToriParams {
    /// The small default: a 1 m cloth (20 × 20 cells, 800 triangles), 2 × 2 × 2 tori of 256
    /// triangles (2848 triangles in all), 12 s.
    pub fn small(model: ForceModel) -> Self {
        ClothToriParams {
            penalty: PenaltyKnobs::new(
                model,
                1.0 / 30.0, // step (s)
                16.0,       // stiffness (N/m)
                2e-3,       // tolerance (m)
                Friction {
                    mu: 0.8,
                    viscous: 0.005,
                },
            ),
            duration: 12.0,
            cloth_cells: 20,
            cell: 0.05,
            tori_per_side: 2,
            layers: 2,
            torus_segments: (16, 8),
            gravity: 9.81e-3,
            substeps: 10,
            measure_every: 1,
            cloth: CLOTH,
            torus: TORUS,
            drop: 0.06,
            self_collision_off: false,
        }
    }

    /// The full size: a 6.4 m cloth (128 × 128 cells, 32768 triangles) and 8 × 8 × 2 tori of
    /// 256 triangles: 65536 triangles. Same vertex masses, springs and contact parameters as
    /// the small variant (only more of it).
    pub fn full(model: ForceModel) -> Self {
        ClothToriParams {
            cloth_cells: 128,
            tori_per_side: 8,
            measure_every: 10,
            ..Self::small(model)
        }
    }
}

/// Cloth material: 5 kg/m² (12.5 g per vertex at 5 cm cells, `k Δt²/m ≈ 1.4` per pair at the
/// default 16 N/m).
pub const CLOTH: Material = Material {
    areal_density: 5.0,
    stretch: 125.0,
    shear: 50.0,
    bend: 1.25,
    damping: 0.125,
    pressure: 0.0,
    drag: 0.5,
};

/// Soft torus shell: 12.5 kg/m² (≈ 13 g per vertex), pressurised (bulk modulus 50 Pa).
pub const TORUS: Material = Material {
    areal_density: 12.5,
    stretch: 125.0,
    shear: 50.0,
    bend: 10.0,
    damping: 0.1,
    pressure: 50.0,
    drag: 0.5,
};

fn arg(e: &dyn std::fmt::Display) -> ExperimentError {
    ExperimentError::Argument(e.to_string())
}

/// The world's description: cloth (deformable 0) pinned at its four corners at z = 0, tori
/// above it (built by [`build`]; a scene file states the same description).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn spec(p: &ClothToriParams) -> Result<WorldSpec, ExperimentError> {
    if p.cloth_cells == 0 || p.tori_per_side == 0 || p.layers == 0 {
        return Err(ExperimentError::Argument(
            "cloth cells, tori per side and layers must be ≥ 1".into(),
        ));
    }
    let n = p.cloth_cells;
    let size = n as Real * p.cell;
    let gravity = Vec3::new(0.0, 0.0, -p.gravity);
    let mut bodies = vec![DeformSpec {
        mesh: shapes::grid(size, size, n, n).map_err(|e| arg(&e))?,
        material: p.cloth,
        gravity,
        pins: grid_corners(n, n).to_vec(),
        velocity: None,
        velocity_gradient: None,
    }];
    let (big, small) = (0.1, 0.035);
    let torus =
        shapes::torus(big, small, p.torus_segments.0, p.torus_segments.1).map_err(|e| arg(&e))?;
    let spacing = size / p.tori_per_side as Real;
    for layer in 0..p.layers {
        let tilt = Quat::from_euler_angles(0.35 * layer as Real, 0.2 * layer as Real, 0.0);
        let shift = 0.3 * spacing * layer as Real;
        let z = p.drop + 0.1 * layer as Real;
        for i in 0..p.tori_per_side {
            for j in 0..p.tori_per_side {
                let c = Vec3::new(
                    -0.5 * size + spacing * (i as Real + 0.5) + shift,
                    -0.5 * size + spacing * (j as Real + 0.5) + 0.5 * shift,
                    z,
                );
                bodies.push(DeformSpec {
                    mesh: place(&torus, Some(tilt), c).map_err(|e| arg(&e))?,
                    material: p.torus,
                    gravity,
                    pins: vec![],
                    velocity: None,
                    velocity_gradient: None,
                });
            }
        }
    }
    Ok(WorldSpec {
        bodies,
        rigid: Vec::new(),
        obstacles: vec![],
        penalty: p.penalty,
        substeps: p.substeps,
        self_collision: !p.self_collision_off,
    })
}

/// The world of [`spec`].
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn build(p: &ClothToriParams) -> Result<DeformableWorld, ExperimentError> {
    build_world(&spec(p)?).map_err(|e| arg(&e))
}

/// Run the scene: the per-step trace, summary and extra figures (no files written).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn simulate(
    p: &ClothToriParams,
) -> Result<(DeformTrace, DeformSummary, Extra), ExperimentError> {
    let mut w = build(p)?;
    Ok(simulate_world(
        &mut w,
        p.penalty.model,
        p.penalty.dt,
        p.duration,
        p.measure_every,
    ))
}

/// Run the scene and write the outputs (`cloth-tori_<model>.csv`, plots, `summary.json`).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(p: &ClothToriParams, out: &Path) -> Result<(DeformSummary, Extra), ExperimentError> {
    let (tr, s, e) = simulate(p)?;
    write_outputs(out, "cloth-tori", &tr, &s, &e)?;
    Ok((s, e))
}

/// Run `p` under each of `models` (one after the other, so timings are clean), each into
/// `DIR/<model>/` as [`run`], and write the comparison plots into `DIR`
/// ([`signorini_harness::deform_run::write_comparison`]).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn compare(
    p: &ClothToriParams,
    models: &[ForceModel],
    out: &Path,
) -> Result<Vec<(DeformSummary, Extra)>, ExperimentError> {
    compare_models(out, "cloth-tori", models, |model| {
        simulate(&ClothToriParams {
            penalty: PenaltyKnobs { model, ..p.penalty },
            ..*p
        })
    })
}
