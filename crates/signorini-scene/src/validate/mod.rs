//! Raw scene → validated [`Scene`]: units and ranges checked, defaults filled in, bodies built.
//!
//! The scene's kind ([`SceneKind`]) follows from `dimension` and the contact model: 2D polygons
//! here, 3D polyhedra and rigid triangle meshes in the child module `validate/spatial.rs` (2D bodies in `validate/planar.rs`). Every rule
//! has an error path tested with a bad snippet (`tests/it/errors.rs`, `errors3.rs`). Rules that
//! describe valid scenes this build cannot run yet (per-material friction or stiffness) are
//! [`SceneError::Unsupported`].

use crate::error::{FieldPath, SceneError};
use crate::limits;
use crate::load::Locator;
use crate::raw::{RawBody, RawInertia, RawMaterial, RawScene, RawShape};
use signorini_complementarity::SolverKind;
use signorini_dynamics::{Gyroscopic, RigidBody2};
use signorini_geometry::dim2::ConvexPolygon;
use signorini_harness::bodyset::load_body_set;
use signorini_math::{Real, Vec2, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::{ContactModel, PegForm, VertexVertex, XImpulse};

mod body;
mod deform;
mod lattice;
mod overlap;
mod planar;
mod spatial;
pub use deform::SceneDeformables;
use planar::{body, body_sets};
pub use spatial::{SceneBody3, SceneMesh};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A contact model a scene can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Polytopal exact geometry (PEG).
    Peg,
    /// Stewart–Trinkle standard model.
    Standard,
    /// Corrective baseline (one contact per overlapping pair).
    Corrective,
    /// Discrete penalty forces.
    Dpf,
    /// Continuous penalty forces.
    Cpf,
    /// Continuous penalty forces with the exact normal by quadrature (CPF §3.4) instead of
    /// the closed form's `L_k`.
    CpfExact,
    /// Discrete penalty forces with CCD-tracked features and normals.
    DpfCcd,
}

impl Model {
    /// Parse a model name (`peg`, `standard`, `corrective`, `dpf`, `cpf`, `cpf-exact`,
    /// `dpf-ccd`).
    pub fn parse(s: &str) -> Option<Model> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dpf" | "penalty" => Some(Model::Dpf),
            "cpf" => Some(Model::Cpf),
            "cpf-exact" | "cpf_exact" => Some(Model::CpfExact),
            "dpf-ccd" | "dpf_ccd" => Some(Model::DpfCcd),
            other => ContactModel::parse(other).map(|m| match m {
                ContactModel::Peg => Model::Peg,
                ContactModel::Standard => Model::Standard,
                ContactModel::Corrective => Model::Corrective,
            }),
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Model::Peg => "peg",
            Model::Standard => "standard",
            Model::Corrective => "corrective",
            Model::Dpf => "dpf",
            Model::Cpf => "cpf",
            Model::CpfExact => "cpf-exact",
            Model::DpfCcd => "dpf-ccd",
        }
    }

    /// The penalty force model, `None` for the complementarity models.
    pub fn force_model(self) -> Option<ForceModel> {
        match self {
            Model::Dpf => Some(ForceModel::Dpf),
            Model::Cpf => Some(ForceModel::Cpf),
            Model::CpfExact => Some(ForceModel::CpfExact),
            Model::DpfCcd => Some(ForceModel::DpfCcd),
            _ => None,
        }
    }

    /// The complementarity-world model, `None` for the penalty models.
    pub fn contact_model(self) -> Option<ContactModel> {
        match self {
            Model::Peg => Some(ContactModel::Peg),
            Model::Standard => Some(ContactModel::Standard),
            Model::Corrective => Some(ContactModel::Corrective),
            Model::Dpf | Model::Cpf | Model::CpfExact | Model::DpfCcd => None,
        }
    }

    /// Penalty models (`dpf`, `cpf`, `dpf-ccd`).
    pub fn is_penalty(self) -> bool {
        self.force_model().is_some()
    }
}

/// Contact settings (`[contact]`); `None` = the experiments' default for the chosen model.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactSettings {
    /// Model.
    pub model: Model,
    /// Friction coefficient μ.
    pub friction: Real,
    /// LCP solver.
    pub solver: SolverKind,
    /// PEG gap corrections (default 8).
    pub gap_corrections: Option<usize>,
    /// The paper's stepper with every project addition off (`[contact] paper = true`, the
    /// CLI's `--paper`; `WorldParams::paper`).
    pub paper: bool,
    /// Mixed-form retry (default: PEG only).
    pub mixed_fallback: Option<bool>,
    /// Continue a failed step from the best iterate (default: the world's, true).
    pub keep_best_on_failure: Option<bool>,
    /// PEG potential-contact distance (m).
    pub peg_distance: Option<Real>,
    /// Standard-model detection distance (m).
    pub standard_distance: Option<Real>,
    /// 3D PEG: the vertex–vertex constraint (`[contact] vertex_vertex`, default cone).
    pub vertex_vertex: VertexVertex,
    /// PEG: the I-constraint form (`[contact] peg_form`, default single primary).
    pub peg_form: PegForm,
    /// PEG: X-constraint impulses (`[contact] x_impulse`, default on the primary).
    pub x_impulse: XImpulse,
    /// Penalty stiffness per feature pair (N/m; penalty models, required there).
    pub stiffness: Option<Real>,
    /// Penalty contact thickness (m; penalty models, default 0).
    pub thickness: Option<Real>,
    /// Stiffness perturbation `(amplitude, frequency in Hz)`: `k (1 + a sin 2π f t)`, `t` the
    /// time at the start of the step (rigid penalty scenes).
    pub stiffness_perturbation: Option<(Real, Real)>,
}

/// Which world runs a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneKind {
    /// 2D convex polygons, `World` (PEG / standard / corrective).
    Planar,
    /// 3D convex polyhedra, `World3` (PEG / standard / corrective).
    Polyhedra,
    /// 3D rigid triangle meshes, `PenaltyWorld` (CPF / DPF / DPF-CCD).
    Meshes,
    /// 3D deformables (cloth, soft shells) with static obstacle meshes, `DeformableWorld`
    /// (CPF / DPF / DPF-CCD).
    Deformables,
}

impl Scene {
    /// Switch the scene to the paper's stepper (the CLI's `--paper`, as `[contact] paper =
    /// true`): `WorldParams::paper`, and the scene's `gap_corrections`, `mixed_fallback` and
    /// `keep_best_on_failure`, which the preset fixes, are dropped.
    ///
    /// # Errors
    /// A message if the scene is a penalty scene (meshes, deformables): the preset is about the
    /// complementarity stepper.
    pub fn use_paper_stepper(&mut self) -> Result<(), String> {
        if matches!(self.kind(), SceneKind::Meshes | SceneKind::Deformables) {
            return Err(format!(
                "--paper: only for polygon and polyhedron scenes (peg, standard, corrective); `{}` is a penalty scene",
                self.name
            ));
        }
        self.contact.paper = true;
        self.contact.gap_corrections = None;
        self.contact.mixed_fallback = None;
        self.contact.keep_best_on_failure = None;
        Ok(())
    }

    /// Set PEG's I-constraint form and X-constraint impulses (the CLI's `--peg-form` and
    /// `--x-impulse`, as `[contact] peg_form` and `x_impulse`); `None` keeps the scene's.
    ///
    /// # Errors
    /// A message if the scene's model is not PEG.
    pub fn set_peg_options(
        &mut self,
        form: Option<PegForm>,
        x_impulse: Option<XImpulse>,
    ) -> Result<(), String> {
        if form.is_none() && x_impulse.is_none() {
            return Ok(());
        }
        if self.contact.model != Model::Peg {
            return Err(format!(
                "--peg-form / --x-impulse: only for model `peg`; `{}` uses `{}`",
                self.name,
                self.contact.model.name()
            ));
        }
        if let Some(f) = form {
            self.contact.peg_form = f;
        }
        if let Some(x) = x_impulse {
            self.contact.x_impulse = x;
        }
        Ok(())
    }

    /// Set the gyroscopic update of the free-flight velocity (the CLI's `--gyroscopic`, as
    /// `[step] gyroscopic`).
    ///
    /// # Errors
    /// A message if the scene is 2D (a planar body has no gyroscopic torque).
    pub fn set_gyroscopic(&mut self, gyroscopic: Gyroscopic) -> Result<(), String> {
        if self.kind() == SceneKind::Planar {
            return Err(format!(
                "--gyroscopic: only for 3D scenes; `{}` is 2D (a planar body has no gyroscopic torque)",
                self.name
            ));
        }
        self.gyroscopic = gyroscopic;
        Ok(())
    }
}

/// How long a run is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// Simulated seconds: `floor(duration / h)` steps.
    Duration(Real),
    /// A fixed number of steps.
    Steps(usize),
}

/// When a body enters the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drop {
    /// Before the first step.
    Start,
    /// Before the step that starts at time `t` (step index `round(t / h)`).
    Time(Real),
    /// The k-th body of a set: step `round(start/h) + k · max(1, round(interval/h))`.
    Sequence {
        /// First drop (s).
        start: Real,
        /// Interval (s).
        interval: Real,
        /// Position in the set.
        k: usize,
    },
}

impl Drop {
    /// Number of steps taken before the body is added (0 = before the first step).
    pub fn step(&self, h: Real) -> usize {
        match *self {
            Drop::Start => 0,
            Drop::Time(t) => (t / h).round() as usize,
            // Saturating: a drop beyond any run (huge interval × k) is simply never reached.
            Drop::Sequence { start, interval, k } => ((start / h).round() as usize)
                .saturating_add(k.saturating_mul(((interval / h).round() as usize).max(1))),
        }
    }
}

/// A validated body.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneBody {
    /// Name (parts of a compound get `name.k`).
    pub name: String,
    /// The 2D body, posed, with gravity in its external force.
    pub body: RigidBody2,
    /// When it enters the world.
    pub drop: Drop,
    /// Display colour.
    pub color: Option<String>,
}

/// What to record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// `trajectories.csv`.
    pub trajectories: bool,
    /// `steps.csv`.
    pub statistics: bool,
    /// `contacts.csv`.
    pub contacts: bool,
    /// Stride.
    pub every: usize,
}

/// Pass/fail checks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Checks {
    /// Largest allowed overlap area (m²).
    pub max_overlap: Option<Real>,
    /// Largest allowed number of failed steps.
    pub max_failed_steps: Option<usize>,
    /// Largest allowed penetration depth (m; penalty scenes).
    pub max_penetration: Option<Real>,
}

/// A validated scene (2D polygons, 3D polyhedra or 3D meshes: see [`Scene::kind`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// The file it came from.
    pub file: PathBuf,
    /// The file's text (copied next to the outputs of a run).
    pub source: String,
    /// The file's format.
    pub format: crate::load::Format,
    /// Gravity (m/s²; z = 0 in 2D).
    pub gravity: Vec3,
    /// Step size (s).
    pub h: Real,
    /// Length of the run.
    pub length: Length,
    /// 3D scenes: the gyroscopic update of the free-flight velocity (`[step] gyroscopic`,
    /// the CLI's `--gyroscopic`; default [`Gyroscopic::Midpoint`]). 2D scenes ignore it.
    pub gyroscopic: Gyroscopic,
    /// Contact settings.
    pub contact: ContactSettings,
    /// Outputs.
    pub record: Record,
    /// Checks.
    pub checks: Checks,
    /// The bodies, by the world that runs them (which also gives [`Scene::kind`]).
    pub bodies: SceneBodies,
}

/// A scene's bodies, one variant per world kind: polygons, polyhedra and meshes in
/// declaration order (`body` entries, then each body set's bodies), or the deformable world.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneBodies {
    /// 2D polygons (`World`).
    Planar(Vec<SceneBody>),
    /// 3D convex polyhedra (`World3`).
    Polyhedra(Vec<SceneBody3>),
    /// 3D rigid triangle meshes (`PenaltyWorld`).
    Meshes(Vec<SceneMesh>),
    /// Deformables, rigid meshes among them, and obstacles (`DeformableWorld`).
    Deformables(Box<SceneDeformables>),
}

impl SceneBodies {
    /// Which world runs them.
    pub fn kind(&self) -> SceneKind {
        match self {
            SceneBodies::Planar(_) => SceneKind::Planar,
            SceneBodies::Polyhedra(_) => SceneKind::Polyhedra,
            SceneBodies::Meshes(_) => SceneKind::Meshes,
            SceneBodies::Deformables(_) => SceneKind::Deformables,
        }
    }

    /// The 2D bodies (empty unless [`SceneBodies::Planar`]).
    pub fn planar(&self) -> &[SceneBody] {
        match self {
            SceneBodies::Planar(b) => b,
            _ => &[],
        }
    }

    /// The polyhedra (empty unless [`SceneBodies::Polyhedra`]).
    pub fn polyhedra(&self) -> &[SceneBody3] {
        match self {
            SceneBodies::Polyhedra(b) => b,
            _ => &[],
        }
    }

    /// The rigid meshes (empty unless [`SceneBodies::Meshes`]).
    pub fn meshes(&self) -> &[SceneMesh] {
        match self {
            SceneBodies::Meshes(b) => b,
            _ => &[],
        }
    }

    /// The deformable world, if the scene is one.
    pub fn deformables(&self) -> Option<&SceneDeformables> {
        match self {
            SceneBodies::Deformables(d) => Some(d),
            _ => None,
        }
    }
}

impl Scene {
    /// Which world runs it.
    pub fn kind(&self) -> SceneKind {
        self.bodies.kind()
    }

    /// Number of bodies (static parts included) and of dynamic ones.
    pub fn body_counts(&self) -> (usize, usize) {
        match &self.bodies {
            SceneBodies::Planar(b) => (b.len(), b.iter().filter(|b| !b.body.is_static).count()),
            SceneBodies::Polyhedra(b) => (
                b.len(),
                b.iter().filter(|b| !b.body.state.is_static).count(),
            ),
            SceneBodies::Meshes(b) => (b.len(), b.iter().filter(|b| !b.is_static).count()),
            SceneBodies::Deformables(d) => {
                let dynamic = d.spec.bodies.len() + d.spec.rigid.len();
                (dynamic + d.spec.obstacles.len(), dynamic)
            }
        }
    }
}

type Res<T> = Result<T, SceneError>;

struct Ctx<'l, 'a> {
    loc: &'l Locator<'a>,
    dir: PathBuf,
}

impl Ctx<'_, '_> {
    fn bad(&self, p: &FieldPath, reason: impl Into<String>) -> SceneError {
        SceneError::Invalid(self.loc.at(p, reason))
    }
    fn unsupported(&self, p: &FieldPath, reason: impl Into<String>) -> SceneError {
        SceneError::Unsupported(self.loc.at(p, reason))
    }
    fn positive(&self, p: &FieldPath, v: Real, unit: &str) -> Res<Real> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.bad(p, format!("must be finite and > 0 {unit}, got {v}")))
        }
    }
    fn non_negative(&self, p: &FieldPath, v: Real) -> Res<Real> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(self.bad(p, format!("must be finite and >= 0, got {v}")))
        }
    }
    /// The scene's body count so far (after the entry at `p`) within [`limits::MAX_BODIES`].
    fn body_count(&self, p: &FieldPath, n: usize) -> Res<()> {
        if n > limits::MAX_BODIES {
            return Err(self.bad(
                p,
                format!(
                    "the scene has {n} bodies up to here, {}",
                    limits::above(limits::MAX_BODIES, "bodies")
                ),
            ));
        }
        Ok(())
    }
    /// A count within its limit (`limits.rs`), else a located error naming both.
    fn at_most(&self, p: &FieldPath, n: usize, limit: usize, what: &str) -> Res<usize> {
        if n > limit {
            Err(self.bad(p, format!("{n} is {}", limits::above(limit, what))))
        } else {
            Ok(n)
        }
    }
    fn vector(&self, p: &FieldPath, v: &[Real], n: usize) -> Res<Vec<Real>> {
        if v.len() != n {
            return Err(self.bad(p, format!("expected {n} numbers, got {}", v.len())));
        }
        if let Some(k) = v.iter().position(|x| !x.is_finite()) {
            return Err(self.bad(&p.index(k), "must be finite"));
        }
        Ok(v.to_vec())
    }
    fn points(&self, p: &FieldPath, pts: &[Vec<Real>]) -> Res<Vec<Vec2>> {
        pts.iter()
            .enumerate()
            .map(|(k, v)| {
                self.vector(&p.index(k), v, 2)
                    .map(|v| Vec2::new(v[0], v[1]))
            })
            .collect()
    }
}

/// Validate a parsed scene. `loc` locates errors; relative paths resolve against the scene
/// file's folder.
pub fn validate(raw: &RawScene, loc: &Locator<'_>) -> Result<Scene, SceneError> {
    let file = loc.file().to_path_buf();
    let dir = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let cx = Ctx { loc, dir };
    let root = FieldPath::default();
    let dimension = raw.dimension.unwrap_or(2);
    if dimension != 2 && dimension != 3 {
        return Err(cx.bad(
            &root.key("dimension"),
            format!("must be 2 or 3, got {dimension}"),
        ));
    }
    let gravity = match &raw.gravity {
        Some(g) => {
            let n = dimension as usize;
            let g = cx.vector(&root.key("gravity"), g, n)?;
            Vec3::new(g[0], g[1], if n == 3 { g[2] } else { 0.0 })
        }
        None if dimension == 3 => Vec3::new(0.0, 0.0, -9.81),
        None => Vec3::new(0.0, -9.81, 0.0),
    };
    let (h, length) = step(&cx, raw)?;
    let gyroscopic = gyroscopic(&cx, raw, dimension)?;
    let contact = contact(&cx, raw, dimension)?;
    let record = record(&cx, raw)?;
    let materials = materials(&cx, raw)?;
    let kind = match (dimension, contact.model.is_penalty()) {
        _ if !raw.deformable.is_empty() => {
            if dimension != 3 {
                return Err(cx.bad(
                    &root.key("deformable"),
                    "deformables are 3D triangle meshes: set `dimension = 3`",
                ));
            }
            SceneKind::Deformables
        }
        (2, _) => SceneKind::Planar,
        (_, false) => SceneKind::Polyhedra,
        (_, true) => SceneKind::Meshes,
    };
    let checks = checks(&cx, raw, kind)?;
    let (mut bodies, mut bodies3, mut meshes) = (Vec::new(), Vec::new(), Vec::new());
    // The entry of the file each polygon / polyhedron came from (for overlap errors).
    let mut origin = Vec::new();
    let mut deformables = None;
    // Where each rigid body and obstacle of a deformable scene came from.
    let mut deform_origin = deform::Origins::default();
    if kind != SceneKind::Deformables {
        deform::no_deformable_fields(&cx, raw)?;
    }
    match kind {
        SceneKind::Deformables => {
            deformables = Some(deform::deformable_scene(
                &cx,
                raw,
                gravity,
                &contact,
                h,
                &materials,
                &mut deform_origin,
            )?);
        }
        SceneKind::Planar => {
            let g2 = Vec2::new(gravity.x, gravity.y);
            for (k, b) in raw.body.iter().enumerate() {
                let p = root.key("body").index(k);
                bodies.extend(body(&cx, &p, k, b, &materials, g2)?);
                cx.body_count(&p, bodies.len())?;
                origin.resize(bodies.len(), p);
            }
            bodies.extend(body_sets(&cx, raw, g2)?);
            cx.body_count(&root.key("body_set"), bodies.len())?;
            origin.resize(bodies.len(), root.key("body_set"));
        }
        SceneKind::Polyhedra => {
            for (k, b) in raw.body.iter().enumerate() {
                let p = root.key("body").index(k);
                bodies3.extend(spatial::body3(&cx, &p, k, b, &materials, gravity)?);
                cx.body_count(&p, bodies3.len())?;
                origin.resize(bodies3.len(), p);
            }
            bodies3.extend(spatial::body_sets3(&cx, raw, gravity)?);
            cx.body_count(&root.key("body_set"), bodies3.len())?;
            origin.resize(bodies3.len(), root.key("body_set"));
        }
        SceneKind::Meshes => {
            if !raw.body_set.is_empty() {
                return Err(cx.bad(
                    &root.key("body_set"),
                    "body sets are polygons or polyhedra: not for the penalty models",
                ));
            }
            for (k, b) in raw.body.iter().enumerate() {
                let p = root.key("body").index(k);
                meshes.extend(spatial::mesh_body(&cx, &p, k, b, &materials, gravity)?);
                cx.body_count(&p, meshes.len())?;
                origin.resize(meshes.len(), p);
            }
        }
    }
    if bodies.is_empty() && bodies3.is_empty() && meshes.is_empty() && deformables.is_none() {
        return Err(cx.bad(
            &root,
            "the scene has no bodies (`[[body]]` or `[[body_set]]`)",
        ));
    }
    let friction = friction(&cx, raw, &contact, &materials)?;
    let stiffness = spatial::stiffness(&cx, raw, &contact, &materials)?;
    if let (Some(d), Some(k)) = (deformables.as_mut(), stiffness) {
        d.spec.penalty.stiffness = k;
    }
    if let Some(d) = deformables.as_mut() {
        // `contact.friction`, else the bodies' materials' common μ (as in rigid penalty scenes).
        d.spec.penalty.friction.mu = friction;
    }
    let name = scene_name(&cx, raw, &file)?;
    // Last: a rule across bodies, after every rule of a single field.
    if !raw.allow_initial_overlap.unwrap_or(false) {
        overlap::planar(&cx, &bodies, &origin, h)?;
        overlap::polyhedra(&cx, &bodies3, &origin, h)?;
        let entries = match &deformables {
            Some(d) => deform::mesh_entries(&cx, d, &deform_origin)?,
            None => spatial::mesh_entries(&cx, &meshes, &origin, h)?,
        };
        overlap::meshes(&cx, &entries)?;
    }
    Ok(Scene {
        name,
        description: raw.description.clone().unwrap_or_default(),
        file,
        source: loc.text().to_string(),
        format: loc.format(),
        gravity,
        h,
        length,
        gyroscopic,
        contact: ContactSettings {
            friction,
            stiffness,
            ..contact
        },
        record,
        checks,
        bodies: match (kind, deformables) {
            (SceneKind::Planar, _) => SceneBodies::Planar(bodies),
            (SceneKind::Polyhedra, _) => SceneBodies::Polyhedra(bodies3),
            (SceneKind::Meshes, _) => SceneBodies::Meshes(meshes),
            (SceneKind::Deformables, Some(d)) => SceneBodies::Deformables(Box::new(d)),
            (SceneKind::Deformables, None) => {
                return Err(cx.bad(&root, "the scene has no bodies (`[[deformable]]`)"));
            }
        },
    })
}

/// The scene's name: `name` if given (a plain file name: it names the output folder
/// `out/<name>`), else the file's stem with every other character replaced by `_`.
fn scene_name(cx: &Ctx, raw: &RawScene, file: &Path) -> Res<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let Some(name) = &raw.name else {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name: String = stem
            .chars()
            .take(limits::MAX_NAME_CHARS)
            .map(|c| if plain(c) { c } else { '_' })
            .collect();
        return Ok(match name.as_str() {
            "" | "." | ".." => "scene".into(),
            _ => name,
        });
    };
    let p = FieldPath::default().key("name");
    let why = if name.is_empty() {
        Some("must not be empty".to_string())
    } else if name == "." || name == ".." {
        Some(format!("`{name}` is not a file name"))
    } else if let Some(c) = name.chars().find(|&c| !plain(c)) {
        Some(format!(
            "`{}` has the character {c:?}: a scene name is a plain file name (letters, \
             digits, `-`, `_`, `.`), since it names the output folder out/<name>",
            name.escape_debug()
        ))
    } else {
        let n = name.chars().count();
        (n > limits::MAX_NAME_CHARS).then(|| {
            format!(
                "{n} characters is {}",
                limits::above(limits::MAX_NAME_CHARS, "characters")
            )
        })
    };
    match why {
        Some(reason) => Err(cx.bad(&p, reason)),
        None => Ok(name.clone()),
    }
}

fn step(cx: &Ctx, raw: &RawScene) -> Res<(Real, Length)> {
    let p = FieldPath::default().key("step");
    let h = cx.positive(&p.key("h"), raw.step.h, "s")?;
    if h > 1.0 {
        return Err(cx.bad(&p.key("h"), format!("must be <= 1 s, got {h}")));
    }
    let length = match (raw.step.duration, raw.step.steps) {
        (Some(_), Some(_)) => {
            return Err(cx.bad(
                &p.key("steps"),
                "give either `duration` or `steps`, not both",
            ));
        }
        (None, None) => return Err(cx.bad(&p, "missing `duration` (s) or `steps`")),
        (Some(d), None) => {
            let d = cx.positive(&p.key("duration"), d, "s")?;
            let n = d / h;
            if n.floor() > limits::MAX_STEPS as Real {
                return Err(cx.bad(
                    &p.key("duration"),
                    format!(
                        "duration / h = {d:e} s / {h:e} s = {n:.4e} steps, {}",
                        limits::above(limits::MAX_STEPS, "steps")
                    ),
                ));
            }
            Length::Duration(d)
        }
        (None, Some(0)) => return Err(cx.bad(&p.key("steps"), "must be >= 1")),
        (None, Some(n)) if n > limits::MAX_STEPS => {
            return Err(cx.bad(
                &p.key("steps"),
                format!("{n} is {}", limits::above(limits::MAX_STEPS, "steps")),
            ));
        }
        (None, Some(n)) => Length::Steps(n),
    };
    Ok((h, length))
}

/// `[step] gyroscopic`: 3D scenes only (2D bodies have no gyroscopic torque).
fn gyroscopic(cx: &Ctx, raw: &RawScene, dimension: u8) -> Res<Gyroscopic> {
    let p = FieldPath::default().key("step").key("gyroscopic");
    let Some(g) = &raw.step.gyroscopic else {
        return Ok(Gyroscopic::default());
    };
    if dimension != 3 {
        return Err(cx.bad(
            &p,
            "only for 3D scenes (`dimension = 3`): a 2D body has no gyroscopic torque",
        ));
    }
    Gyroscopic::parse(g).ok_or_else(|| {
        cx.bad(
            &p,
            format!("unknown gyroscopic update `{g}` (midpoint, implicit, off)"),
        )
    })
}

fn contact(cx: &Ctx, raw: &RawScene, dimension: u8) -> Res<ContactSettings> {
    let p = FieldPath::default().key("contact");
    let c = &raw.contact;
    let model = match &c.model {
        None => Model::Peg,
        Some(m) => Model::parse(m).ok_or_else(|| {
            cx.bad(
                &p.key("model"),
                format!("unknown model `{m}` (peg, standard, corrective, cpf, dpf, dpf-ccd)"),
            )
        })?,
    };
    let vertex_vertex = match &c.vertex_vertex {
        None => VertexVertex::default(),
        Some(_) if dimension != 3 || model != Model::Peg => {
            return Err(cx.bad(
                &p.key("vertex_vertex"),
                "only for 3D scenes of model `peg` (`dimension = 3`)",
            ));
        }
        Some(v) => VertexVertex::parse(v).ok_or_else(|| {
            cx.bad(
                &p.key("vertex_vertex"),
                format!("unknown vertex–vertex form `{v}` (cone, face-pairs, off)"),
            )
        })?,
    };
    let peg_form = match &c.peg_form {
        None => PegForm::default(),
        Some(_) if model != Model::Peg => {
            return Err(cx.bad(&p.key("peg_form"), "only for model `peg`"));
        }
        Some(v) => PegForm::parse(v).ok_or_else(|| {
            cx.bad(
                &p.key("peg_form"),
                format!("unknown PEG form `{v}` (single-primary, general)"),
            )
        })?,
    };
    let x_impulse = match &c.x_impulse {
        None => XImpulse::default(),
        Some(_) if model != Model::Peg => {
            return Err(cx.bad(&p.key("x_impulse"), "only for model `peg`"));
        }
        Some(v) => XImpulse::parse(v).ok_or_else(|| {
            cx.bad(
                &p.key("x_impulse"),
                format!("unknown X-constraint impulse `{v}` (primary, paper)"),
            )
        })?,
    };
    if model.is_penalty() {
        if dimension != 3 {
            return Err(cx.bad(
                &p.key("model"),
                format!(
                    "`{}` (penalty forces) acts on 3D triangle meshes: set `dimension = 3`",
                    model.name()
                ),
            ));
        }
        return spatial::penalty_contact(cx, c, model);
    }
    for (name, v) in [
        ("stiffness", c.stiffness),
        ("thickness", c.thickness),
        (
            "stiffness_perturbation",
            c.stiffness_perturbation.as_ref().map(|p| p.amplitude),
        ),
    ] {
        if v.is_some() {
            return Err(cx.bad(
                &p.key(name),
                format!(
                    "only for the penalty models (cpf, dpf, dpf-ccd), not `{}`",
                    model.name()
                ),
            ));
        }
    }
    let solver = match c.solver.as_deref().map(|s| s.trim().to_ascii_lowercase()) {
        None => SolverKind::Auto,
        Some(s) => match s.as_str() {
            "auto" => SolverKind::Auto,
            "lemke" => SolverKind::Lemke,
            "fb-newton" | "fb_newton" | "fbnewton" | "newton" => SolverKind::FbNewton,
            "pgs" => SolverKind::Pgs,
            _ => {
                return Err(cx.bad(
                    &p.key("solver"),
                    format!("unknown solver `{s}` (auto, lemke, fb-newton, pgs)"),
                ));
            }
        },
    };
    if let Some(f) = c.friction {
        cx.non_negative(&p.key("friction"), f)?;
    }
    if c.paper == Some(true) {
        for (name, given) in [
            ("gap_corrections", c.gap_corrections.is_some()),
            ("mixed_fallback", c.mixed_fallback.is_some()),
            ("keep_best_on_failure", c.keep_best_on_failure.is_some()),
        ] {
            if given {
                return Err(cx.bad(
                    &p.key(name),
                    "contradicts `paper = true` (the paper's stepper fixes it)",
                ));
            }
        }
    }
    if c.gap_corrections.is_some() && model != Model::Peg {
        return Err(cx.bad(&p.key("gap_corrections"), "only for model `peg`"));
    }
    if let Some(n) = c
        .gap_corrections
        .filter(|&n| n > limits::MAX_GAP_CORRECTIONS)
    {
        return Err(cx.bad(
            &p.key("gap_corrections"),
            format!(
                "{n} is {}",
                limits::above(limits::MAX_GAP_CORRECTIONS, "re-solves per step")
            ),
        ));
    }
    // The values first: a negative or NaN distance is nonsense under any model, and the message
    // says so rather than only "only for model …".
    let peg_distance = c
        .peg_distance
        .map(|d| cx.positive(&p.key("peg_distance"), d, "m"))
        .transpose()?;
    let standard_distance = c
        .standard_distance
        .map(|d| cx.positive(&p.key("standard_distance"), d, "m"))
        .transpose()?;
    if c.peg_distance.is_some() && model != Model::Peg {
        return Err(cx.bad(&p.key("peg_distance"), "only for model `peg`"));
    }
    if c.standard_distance.is_some() && model != Model::Standard {
        return Err(cx.bad(&p.key("standard_distance"), "only for model `standard`"));
    }
    Ok(ContactSettings {
        model,
        friction: c.friction.unwrap_or(0.0),
        solver,
        gap_corrections: c.gap_corrections,
        paper: c.paper.unwrap_or(false),
        mixed_fallback: c.mixed_fallback,
        keep_best_on_failure: c.keep_best_on_failure,
        peg_distance,
        standard_distance,
        vertex_vertex,
        peg_form,
        x_impulse,
        stiffness: None,
        thickness: None,
        stiffness_perturbation: None,
    })
}

fn record(cx: &Ctx, raw: &RawScene) -> Res<Record> {
    let r = &raw.record;
    if r.every == Some(0) {
        return Err(cx.bad(
            &FieldPath::default().key("record").key("every"),
            "must be >= 1",
        ));
    }
    Ok(Record {
        trajectories: r.trajectories.unwrap_or(true),
        statistics: r.statistics.unwrap_or(true),
        contacts: r.contacts.unwrap_or(true),
        every: r.every.unwrap_or(1),
    })
}

fn checks(cx: &Ctx, raw: &RawScene, kind: SceneKind) -> Res<Checks> {
    let p = FieldPath::default().key("checks");
    let c = &raw.checks;
    let penalty = matches!(kind, SceneKind::Meshes | SceneKind::Deformables);
    // Values first (a negative or NaN tolerance is nonsense in any scene), then the kind rule.
    for (name, v) in [
        ("max_overlap", c.max_overlap),
        ("max_penetration", c.max_penetration),
    ] {
        if let Some(v) = v {
            cx.non_negative(&p.key(name), v)?;
        }
    }
    if penalty && c.max_overlap.is_some() {
        return Err(cx.bad(
            &p.key("max_overlap"),
            "penalty scenes measure penetration depth: use `max_penetration` (m)",
        ));
    }
    if !penalty && c.max_penetration.is_some() {
        return Err(cx.bad(
            &p.key("max_penetration"),
            "only for penalty scenes; polygons and polyhedra use `max_overlap`",
        ));
    }
    Ok(Checks {
        max_overlap: c
            .max_overlap
            .map(|v| cx.non_negative(&p.key("max_overlap"), v))
            .transpose()?,
        max_failed_steps: c.max_failed_steps,
        max_penetration: c
            .max_penetration
            .map(|v| cx.non_negative(&p.key("max_penetration"), v))
            .transpose()?,
    })
}

fn materials(cx: &Ctx, raw: &RawScene) -> Res<BTreeMap<String, RawMaterial>> {
    let p = FieldPath::default().key("materials");
    for (name, m) in &raw.materials {
        let q = p.key(name);
        if let Some(d) = m.density {
            cx.positive(&q.key("density"), d, "kg/m²")?;
        }
        if let Some(f) = m.friction {
            cx.non_negative(&q.key("friction"), f)?;
        }
        if let Some(s) = m.stiffness {
            cx.positive(&q.key("stiffness"), s, "N/m")?;
        }
    }
    Ok(raw.materials.clone())
}

/// μ: `contact.friction`, else the one friction all used materials agree on, else 0.
fn friction(
    cx: &Ctx,
    raw: &RawScene,
    contact: &ContactSettings,
    materials: &BTreeMap<String, RawMaterial>,
) -> Res<Real> {
    let mut seen: Option<(Real, FieldPath)> = raw
        .contact
        .friction
        .map(|f| (f, FieldPath::default().key("contact").key("friction")));
    for name in raw.body.iter().filter_map(|b| b.material.as_ref()) {
        let Some(f) = materials.get(name).and_then(|m| m.friction) else {
            continue;
        };
        let here = FieldPath::default()
            .key("materials")
            .key(name)
            .key("friction");
        match &seen {
            Some((g, _)) if *g != f => {
                return Err(cx.unsupported(
                    &here,
                    format!(
                        "per-material friction ({f} here, {g} elsewhere): the 2D world has one μ; \
                         set `contact.friction`"
                    ),
                ));
            }
            Some(_) => {}
            None => seen = Some((f, here)),
        }
    }
    Ok(seen.map(|(f, _)| f).unwrap_or(contact.friction))
}

/// The convex parts of a 2D shape (one, or several for a compound).
/// The convex parts of a compound static body (`[body.shape] type = "compound"`), each read by
/// `part` (the 2D or 3D shape reader); compounds cannot be nested and need a part.
fn compound<T>(
    cx: &Ctx,
    p: &FieldPath,
    parts: &[RawShape],
    top: bool,
    part: fn(&Ctx, &FieldPath, &RawShape, bool) -> Res<Vec<T>>,
) -> Res<Vec<T>> {
    if !top {
        return Err(cx.bad(&p.key("parts"), "compounds cannot be nested"));
    }
    if parts.is_empty() {
        return Err(cx.bad(&p.key("parts"), "needs at least one part"));
    }
    let mut out = Vec::new();
    for (k, s) in parts.iter().enumerate() {
        out.extend(part(cx, &p.key("parts").index(k), s, false)?);
    }
    Ok(out)
}
