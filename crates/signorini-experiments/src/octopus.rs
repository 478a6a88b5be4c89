//! The Octopus benchmark (CPF paper Figs. 10–11): a soft octopus falls into a rigid bowl, with
//! octopus–bowl contact and the arms' contacts with each other and the mantle
//! (self-collision).
//!
//! Owns: [`OctopusParams`] ([`OctopusParams::small`], [`OctopusParams::full`]), [`spec`] (the
//! world as a [`WorldSpec`], shared with `scenes/octopus.toml`; the start pose [`start`]),
//! [`build`], `simulate`,
//! [`run`], `compare` and [`through_bowl`] (octopus vertices past the bowl's sheet); outputs,
//! jitter and penetration statistics are the shared ones of
//! [`signorini_harness::deform_run`].
//!
//! Construction (docs/deformable.md, "Octopus"): the octopus is **one** pressurised
//! mass-spring shell, [`shapes::octopus`]: an ellipsoidal mantle (semi-axes 6, 6 and 7.5 cm)
//! with eight tapered, drooping arms of 21 cm grown out of it (root radius ≈ 1 cm, tip 0.4
//! of it), so the arms are attached through the mesh itself and their contacts with
//! each other and with the mantle are self-collisions. The bowl is the open single-sheet
//! hemisphere [`shapes::bowl`] (radius 0.35 m, static). The paper gives no settings for this
//! scene, so the bucket's (= the cloth-and-tori's) are kept where they carry over: Δt = 1/30 s,
//! k = 16 N/m per pair, tolerance 2 mm, Coulomb 0.8, viscous 0.005, air drag 0.5/s, ≈ 13.5 g
//! per vertex on average whatever the resolution (`k Δt²/m ≈ 1.3` per pair on the mean
//! vertex, where discrete forces jitter), the bucket's shell springs and pressure. Two differ,
//! both because of the arms: the areal density is uniform, so the thin arm tips' vertices
//! weigh a quarter of the mean (3.3 g) and the mantle's twice it; the octopus first lands on a
//! few such tip vertices, whose contacts the per-vertex stiffness limit softens. So gravity is
//! **0.981 mm/s²** (a tenth of the bucket's, as the rings and the chain: with 9.81 mm/s² the
//! arms were pressed through the bowl, 178 crossing pairs and 5 vertices through it at 12 s),
//! and the springs take **40 sub-steps**: a tip vertex (3.3 g on ≈ 810 N/m of springs) has
//! `2 √(Σk/m) · Δt/10 ≈ 3`, past the explicit limit 2 (a first arm geometry, tips at a quarter
//! of the root radius and 2.3 g, diverged in step 2 with 10; the current one happened to run
//! its 20 s with 10: 0 crossings at the end, jitter 0.0092).

use crate::ExperimentError;
use crate::bucket::BucketParams;
use signorini_deformable::Material;
use signorini_geometry::mesh::{TriMesh, shapes};
use signorini_harness::deform_build::{
    DeformSpec, PenaltyKnobs, WorldSpec, build_world, place, with_vertex_mass,
};
use signorini_harness::deform_run::{
    DeformSummary, DeformTrace, Extra, compare_models, simulate_world, write_outputs,
};
use signorini_harness::penalty_out::write_csv;
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::penalty::DeformableWorld;
use std::cell::RefCell;
use std::path::Path;

/// Parameters of the octopus scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OctopusParams {
    /// The penalty knobs (model, step, stiffness, tolerance, friction, the stepper's
    /// switches).
    pub penalty: PenaltyKnobs,
    /// Simulated time (s).
    pub duration: Real,
    /// Arm resolution `k` of [`shapes::octopus`]: `4 k` vertices around an arm, a mantle of
    /// `16 k` meridians and `8 k` parallels.
    pub arm_segments: usize,
    /// Rings along each arm.
    pub arm_rings: usize,
    /// Bowl resolution: segments around, bands from the bottom to the rim.
    pub bowl_segments: (usize, usize),
    /// Mean mass per octopus vertex (kg); the areal density follows from the mesh's area.
    pub vertex_mass: Real,
    /// Gravity (m/s², downwards).
    pub gravity: Real,
    /// Initial downward speed of the octopus (m/s).
    pub drop_speed: Real,
    /// Sub-steps of the internal (spring, pressure) forces per contact step.
    pub substeps: usize,
    /// Measure crossings every this many steps (1 = every step).
    pub measure_every: usize,
    /// Octopus material (its `areal_density` is replaced, see [`OctopusParams::vertex_mass`]).
    pub material: Material,
}

impl OctopusParams {
    /// Small default: an octopus of 3008 triangles (8 vertices around an arm, 16 rings per
    /// arm) in a 480-triangle bowl, 20 s.
    pub fn small(model: ForceModel) -> Self {
        // The paper gives no settings for this scene: the bucket's (= the cloth-and-tori's).
        let b = BucketParams::small(model);
        OctopusParams {
            penalty: b.penalty,
            duration: 20.0,
            arm_segments: 2,
            arm_rings: 16,
            bowl_segments: (32, 8),
            vertex_mass: b.vertex_mass,
            // A tenth of the bucket's: the octopus lands on a few light arm-tip vertices.
            gravity: 9.81e-4,
            drop_speed: b.drop_speed,
            substeps: 40,
            measure_every: 1,
            material: b.material,
        }
    }

    /// Full size (the paper: 14.7k triangles): an octopus of 14 640 triangles (12 vertices
    /// around an arm, 65 rings per arm) in a 1984-triangle bowl, 20 s, crossings measured
    /// every 5 steps.
    pub fn full(model: ForceModel) -> Self {
        OctopusParams {
            arm_segments: 3,
            arm_rings: 65,
            bowl_segments: (64, 16),
            measure_every: 5,
            ..Self::small(model)
        }
    }
}

/// Mantle radius (m; the mantle is 1.25 times as tall) and arm length (m).
pub const OCTOPUS: (Real, Real) = (0.06, 0.21);
/// Bowl radius (m): bottom at the origin, rim at z = radius.
pub const BOWL: Real = 0.35;
/// Gap between the octopus's lowest point and the bowl at the start, measured vertically (m).
const CLEARANCE: Real = 0.025;
/// The octopus's turn at the start (Euler angles, rad): tilted, so that it lands on one side.
const TURN: (Real, Real, Real) = (0.25, 0.15, 0.3);

/// The world's description: the bowl (obstacle 0) and the octopus, turned by `TURN` and placed
/// on the bowl's axis `CLEARANCE` (2.5 cm) above the bowl, moving down at `drop_speed` (built by
/// [`build`]; `scenes/octopus.toml` states the same).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn spec(p: &OctopusParams) -> Result<WorldSpec, ExperimentError> {
    if !(p.vertex_mass.is_finite() && p.vertex_mass > 0.0) {
        return Err(ExperimentError::Argument(format!(
            "vertex_mass must be > 0, got {}",
            p.vertex_mass
        )));
    }
    let (bs, br) = p.bowl_segments;
    let bowl = shapes::bowl(BOWL, bs, br).map_err(ExperimentError::argument)?;
    let (body, turn, at) = start(p)?;
    let mesh = place(&body, Some(turn), at).map_err(ExperimentError::argument)?;
    let material = with_vertex_mass(p.material, &mesh, p.vertex_mass);
    Ok(WorldSpec {
        bodies: vec![DeformSpec {
            mesh,
            material,
            gravity: Vec3::new(0.0, 0.0, -p.gravity),
            pins: Vec::new(),
            velocity: Some(Vec3::new(0.0, 0.0, -p.drop_speed)),
            velocity_gradient: None,
        }],
        rigid: Vec::new(),
        obstacles: vec![bowl],
        penalty: p.penalty,
        substeps: p.substeps,
        self_collision: true,
    })
}

/// The octopus in its own frame (mantle centred on the origin), its turn and where that origin
/// starts: on the bowl's axis, `CLEARANCE` (2.5 cm) above the bowl (`scenes/octopus.toml` states the
/// same `position` and `rotation`).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters, or an octopus too wide for the bowl.
pub fn start(p: &OctopusParams) -> Result<(TriMesh, Quat, Vec3), ExperimentError> {
    let (mantle, arm) = OCTOPUS;
    let body = shapes::octopus(mantle, arm, p.arm_segments, p.arm_rings)
        .map_err(ExperimentError::argument)?;
    let turn = Quat::from_euler_angles(TURN.0, TURN.1, TURN.2);
    let turned = place(&body, Some(turn), Vec3::zeros()).map_err(ExperimentError::argument)?;
    let height = drop_height(turned.vertices())?;
    Ok((body, turn, Vec3::new(0.0, 0.0, height)))
}

/// The height at which the octopus (vertices `x` relative to its placement point) hangs
/// `CLEARANCE` (2.5 cm) above the bowl: the least `z` with every vertex at least that far above the
/// bowl's surface straight below it.
fn drop_height(x: &[Vec3]) -> Result<Real, ExperimentError> {
    let mut z: Real = 0.0;
    for p in x {
        let rho = p.xy().norm();
        if rho >= BOWL - CLEARANCE {
            return Err(ExperimentError::Argument(format!(
                "the octopus ({rho} m across from its axis) does not fit in the bowl (radius {BOWL} m)"
            )));
        }
        let floor = BOWL - (BOWL * BOWL - rho * rho).sqrt();
        z = z.max(floor + CLEARANCE - p.z);
    }
    Ok(z)
}

/// Octopus vertices past the bowl's sheet: below the rim and farther than [`BOWL`] from the
/// bowl's centre `(0, 0, BOWL)`, i.e. through the bowl (or fallen outside it). Every
/// deformable of `w` counts (the octopus is the only one).
pub fn through_bowl(w: &DeformableWorld) -> usize {
    let centre = Vec3::new(0.0, 0.0, BOWL);
    (w.deformables.iter())
        .flat_map(|d| d.x.iter())
        .filter(|x| x.z < BOWL && (*x - centre).norm() > BOWL)
        .count()
}

/// The world of [`spec`].
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn build(p: &OctopusParams) -> Result<DeformableWorld, ExperimentError> {
    build_world(&spec(p)?).map_err(ExperimentError::argument)
}

/// One run: the per-step trace, summary, extra figures and the vertices through the bowl at
/// the end (no files written).
type Simulated = (DeformTrace, DeformSummary, Extra, usize);

/// Run the scene (no files written).
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub(crate) fn simulate(p: &OctopusParams) -> Result<Simulated, ExperimentError> {
    let mut w = build(p)?;
    let (tr, s, e) = simulate_world(
        &mut w,
        p.penalty.model,
        p.penalty.dt,
        p.duration,
        p.measure_every,
    );
    Ok((tr, s, e, through_bowl(&w)))
}

/// `DIR/bowl.csv`: the octopus vertices through the bowl at the end of the run.
fn write_bowl(out: &Path, model: ForceModel, through: usize) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(out).map_err(|err| ExperimentError::io(out, err))?;
    write_csv(
        &out.join("bowl.csv"),
        "model,vertices_through_bowl_at_end",
        [format!("{},{through}", model.name())],
    )
}

/// Run the scene and write the outputs (`octopus_<model>.csv`, plots, `summary.json`,
/// `bowl.csv`); the last figure is the octopus vertices through the bowl at the end.
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(
    p: &OctopusParams,
    out: &Path,
) -> Result<(DeformSummary, Extra, usize), ExperimentError> {
    let (tr, s, e, through) = simulate(p)?;
    write_outputs(out, "octopus", &tr, &s, &e)?;
    write_bowl(out, p.penalty.model, through)?;
    Ok((s, e, through))
}

/// Run `p` under each of `models` into `DIR/<model>/` (with its `bowl.csv`) and plot them
/// together in `DIR` ([`compare_models`]); each run's vertices through the bowl come last.
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub(crate) fn compare(
    p: &OctopusParams,
    models: &[ForceModel],
    out: &Path,
) -> Result<Vec<(DeformSummary, Extra, usize)>, ExperimentError> {
    let through = RefCell::new(Vec::new());
    let runs = compare_models(out, "octopus", models, |model| {
        let (tr, s, e, n) = simulate(&OctopusParams {
            penalty: PenaltyKnobs { model, ..p.penalty },
            ..*p
        })?;
        write_bowl(&out.join(model.name()), model, n)?;
        through.borrow_mut().push(n);
        Ok((tr, s, e))
    })?;
    Ok((runs.into_iter().zip(through.into_inner()))
        .map(|((s, e), n)| (s, e, n))
        .collect())
}
