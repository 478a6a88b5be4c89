//! The Dragons benchmark (CPF paper Fig. 14): soft bodies poured in batches into a rigid open
//! bucket, with body–bucket, body–body and self-collisions.
//!
//! Owns: [`BucketParams`] ([`BucketParams::small`], [`BucketParams::full`]), [`spec`] (the
//! world as a [`WorldSpec`], shared with `scenes/bucket.toml`), [`build`],
//! `simulate`, [`run`] and `compare`; outputs, jitter and penetration statistics are the
//! shared ones of [`signorini_harness::deform_run`].
//!
//! Departures from the paper (docs/deformable.md, "Experiments"): the forty dragons are
//! pressurised mass-spring shells of three procedural shapes (UV spheres, tori and rounded
//! boxes — spheres pushed out to `|x|⁴ + |y|⁴ + |z|⁴ = a⁴`, [`shapes::rounded_box`]), the bucket is the open single-sheet
//! [`shapes::bucket`] (open like the paper's: no inside/outside information). The paper gives no
//! settings for this scene, so the cloth-and-tori ones are kept: Δt = 1/30 s, k = 16 N/m per
//! pair (2 N/m before 25 Nov, as the cloth-and-tori), Coulomb 0.8, viscous 0.005, a 2 mm
//! tolerance, gravity 9.81 mm/s² (lengths read in millimetre units), air drag 0.5/s and
//! ≈ 13.5 g per vertex whatever the resolution (`k Δt²/m ≈ 1.3` per pair), the shells' springs
//! sub-stepped. The drag caps the fall at
//! 2 cm/s: a single-sheet bottom hit much faster lets vertices through it (penetration
//! `≈ v √(m/k)` per pair exceeds the tolerance), and the penalty then pushes them the wrong way. The bodies start in layers of `per_side²` above the rim,
//! every other layer shifted and each body turned, moving down at `drop_speed`: they arrive in
//! batches, layer after layer.

use crate::ExperimentError;
use signorini_deformable::Material;
use signorini_geometry::mesh::{TriMesh, shapes};
use signorini_harness::deform_build::{
    DeformSpec, PenaltyKnobs, WorldSpec, build_world, place, with_vertex_mass,
};
use signorini_harness::deform_run::{
    DeformSummary, DeformTrace, Extra, compare_models, simulate_world, write_outputs,
};
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::penalty::DeformableWorld;
use std::path::Path;

/// Parameters of the bucket scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketParams {
    /// The penalty knobs (model, step, stiffness, tolerance, friction, the stepper's
    /// switches).
    pub penalty: PenaltyKnobs,
    /// Simulated time (s).
    pub duration: Real,
    /// Number of soft bodies (cycling sphere, torus, rounded box).
    pub bodies: usize,
    /// Bodies per side of each layer's square grid.
    pub per_side: usize,
    /// Body resolution `n`: tori `n × n/2` segments; spheres and boxes `n × n/2` UV spheres,
    /// or with [`BucketParams::pole_free`] cube spheres of `round(n/√12)²` cells per face (about
    /// as many triangles).
    pub body_segments: usize,
    /// Spheres and rounded boxes from [`shapes::cube_sphere`] / [`shapes::rounded_cube`]
    /// instead of UV spheres. The full size needs it: a 52-segment UV sphere's pole fan is
    /// 1.1 mm across, under the 2 mm contact thickness; its pole vertex, held by 52 stretch and
    /// bend springs against 2 N/m contacts, was pushed through the bucket's bottom (one such
    /// sphere alone: 46 edges through the bottom at 30 s, 52 with rest-state self pairs
    /// excluded; the same sphere as a cube sphere: see docs/deformable.md).
    pub pole_free: bool,
    /// Bucket resolution: segments around, bands on the bottom, bands up the wall.
    pub bucket_segments: (usize, usize, usize),
    /// Mass per body vertex (kg); the areal density follows from each mesh's area.
    pub vertex_mass: Real,
    /// Gravity (m/s², downwards).
    pub gravity: Real,
    /// Initial downward speed of the bodies (m/s).
    pub drop_speed: Real,
    /// Sub-steps of the internal (spring, pressure) forces per contact step.
    pub substeps: usize,
    /// Measure crossings every this many steps (1 = every step).
    pub measure_every: usize,
    /// Body material (its `areal_density` is replaced, see [`BucketParams::vertex_mass`]).
    pub material: Material,
}

impl BucketParams {
    /// Small default: 8 bodies (2 layers of 2 × 2) of 224–256 triangles in a 736-triangle bucket
    /// (2624 triangles in all), 30 s.
    pub fn small(model: ForceModel) -> Self {
        BucketParams {
            // The cloth-and-tori settings (docs/deformable.md, the scene table).
            penalty: crate::cloth_tori::ClothToriParams::small(model).penalty,
            duration: 30.0,
            bodies: 8,
            per_side: 2,
            body_segments: 16,
            pole_free: false,
            bucket_segments: (32, 4, 8),
            vertex_mass: 0.0135,
            gravity: 9.81e-3,
            drop_speed: 0.02,
            substeps: 10,
            measure_every: 1,
            material: BODY,
        }
    }

    /// Full size (the paper: 40 dragons, 103k triangles): 40 bodies (5 layers of up to 3 × 3)
    /// of 2700 (pole-free spheres and rounded boxes) and 2704 (tori) triangles in a
    /// 3008-triangle bucket, 111 060 triangles in all, 60 s.
    pub fn full(model: ForceModel) -> Self {
        BucketParams {
            bodies: 40,
            per_side: 3,
            body_segments: 52,
            pole_free: true,
            bucket_segments: (64, 8, 16),
            measure_every: 10,
            duration: 60.0,
            ..Self::small(model)
        }
    }
}

/// Soft body shell (the cloth-and-tori torus' springs, a stiffer pressure); the areal density is
/// set per mesh from [`BucketParams::vertex_mass`].
pub(crate) const BODY: Material = Material {
    areal_density: 1.0,
    stretch: 125.0,
    shear: 50.0,
    bend: 10.0,
    damping: 0.1,
    pressure: 200.0,
    drag: 0.5,
};

/// Bucket radius and height (m).
pub(crate) const BUCKET: (Real, Real) = (0.4, 0.4);
/// Body size: sphere radius, torus radii, rounded-box half size (m).
const SIZE: Real = 0.075;

fn arg(e: &dyn std::fmt::Display) -> ExperimentError {
    ExperimentError::Argument(e.to_string())
}

/// The three body shapes, centred at the origin.
fn shapes_for(n: usize, pole_free: bool) -> Result<[TriMesh; 3], ExperimentError> {
    let (n, half) = (n.max(4), (n / 2).max(2));
    let cells = ((n as Real / 12f64.sqrt()).round() as usize).max(1);
    let sphere = if pole_free {
        shapes::cube_sphere(SIZE, cells)
    } else {
        shapes::sphere(SIZE, n, half)
    };
    let torus = shapes::torus(0.65 * SIZE, 0.35 * SIZE, n, half);
    let rounded = if pole_free {
        shapes::rounded_cube(SIZE, cells)
    } else {
        shapes::rounded_box(SIZE, n, half)
    };
    let m = |r: Result<TriMesh, _>| r.map_err(|e| arg(&e));
    Ok([m(sphere)?, m(torus)?, m(rounded)?])
}

/// The world's description: the bucket (obstacle 0, bottom at z = 0) and the bodies in layers
/// above its rim (built by [`build`]; `scenes/bucket.toml` states the same).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn spec(p: &BucketParams) -> Result<WorldSpec, ExperimentError> {
    if p.bodies == 0 || p.per_side == 0 {
        return Err(ExperimentError::Argument(
            "bodies and per_side must be ≥ 1".into(),
        ));
    }
    if !(p.vertex_mass.is_finite() && p.vertex_mass > 0.0) {
        return Err(ExperimentError::Argument(format!(
            "vertex_mass must be > 0, got {}",
            p.vertex_mass
        )));
    }
    let (radius, height) = BUCKET;
    let (bs, br, bz) = p.bucket_segments;
    let bucket = shapes::bucket(radius, height, bs, br, bz).map_err(|e| arg(&e))?;
    let kinds = shapes_for(p.body_segments, p.pole_free)?;
    let g = Vec3::new(0.0, 0.0, -p.gravity);
    let per_layer = p.per_side * p.per_side;
    let pitch = 2.4 * SIZE;
    let mut bodies = Vec::with_capacity(p.bodies);
    for k in 0..p.bodies {
        let (layer, slot) = (k / per_layer, k % per_layer);
        let (i, j) = (slot / p.per_side, slot % p.per_side);
        let shift = if layer % 2 == 1 { 0.25 * pitch } else { 0.0 };
        let mid = 0.5 * (p.per_side - 1) as Real;
        let c = Vec3::new(
            pitch * (i as Real - mid) + shift,
            pitch * (j as Real - mid) - shift,
            height + 1.5 * SIZE + pitch * layer as Real,
        );
        let turn = Quat::from_euler_angles(0.7 * k as Real, 0.4 * (k % 5) as Real, 0.3 * k as Real);
        let mesh = place(&kinds[k % 3], Some(turn), c).map_err(|e| arg(&e))?;
        let material = with_vertex_mass(p.material, &mesh, p.vertex_mass);
        bodies.push(DeformSpec {
            mesh,
            material,
            gravity: g,
            pins: Vec::new(),
            velocity: Some(Vec3::new(0.0, 0.0, -p.drop_speed)),
            velocity_gradient: None,
        });
    }
    Ok(WorldSpec {
        bodies,
        rigid: Vec::new(),
        obstacles: vec![bucket],
        penalty: p.penalty,
        substeps: p.substeps,
        self_collision: true,
    })
}

/// The world of [`spec`].
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn build(p: &BucketParams) -> Result<DeformableWorld, ExperimentError> {
    build_world(&spec(p)?).map_err(|e| arg(&e))
}

/// Run the scene: the per-step trace, summary and extra figures (no files written).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub(crate) fn simulate(
    p: &BucketParams,
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

/// Run the scene and write the outputs (`bucket_<model>.csv`, plots, `summary.json`).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(p: &BucketParams, out: &Path) -> Result<(DeformSummary, Extra), ExperimentError> {
    let (tr, s, e) = simulate(p)?;
    write_outputs(out, "bucket", &tr, &s, &e)?;
    Ok((s, e))
}

/// Run `p` under each of `models` into `DIR/<model>/` and plot them together in `DIR`
/// ([`compare_models`]).
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub(crate) fn compare(
    p: &BucketParams,
    models: &[ForceModel],
    out: &Path,
) -> Result<Vec<(DeformSummary, Extra)>, ExperimentError> {
    compare_models(out, "bucket", models, |model| {
        simulate(&BucketParams {
            penalty: PenaltyKnobs { model, ..p.penalty },
            ..*p
        })
    })
}
