//! Serde types mirroring a scene file field for field (`deny_unknown_fields` everywhere, so a
//! misspelt key is an error naming it). Nothing here is checked beyond its type: see
//! `validate` for units, ranges and cross-field rules. The reference page is
//! `docs/scene-format.md`.

use serde::Deserialize;
use std::collections::BTreeMap;

mod de;
pub mod deform;

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScene {
    /// Scene name (default: the file stem).
    pub name: Option<String>,
    /// One-line description (shown by `signorini list`).
    pub description: Option<String>,
    /// 2 or 3 (default 2).
    pub dimension: Option<u8>,
    /// Gravity acceleration vector (m/s²), default `[0, -9.81]` (2D) or `[0, 0, -9.81]` (3D).
    pub gravity: Option<Vec<f64>>,
    /// Run even though bodies overlap where they enter the world (default false: an error).
    pub allow_initial_overlap: Option<bool>,
    /// Time stepping.
    pub step: RawStep,
    /// Contact model and solver.
    #[serde(default)]
    pub contact: RawContact,
    /// What to record.
    #[serde(default)]
    pub record: RawRecord,
    /// Pass/fail checks (exit code 1 when one fails).
    #[serde(default)]
    pub checks: RawChecks,
    /// Named materials.
    #[serde(default)]
    pub materials: BTreeMap<String, RawMaterial>,
    /// Bodies, in order.
    #[serde(default)]
    pub body: Vec<RawBody>,
    /// Body-set files (the PEG paper's JSON format), dropped at regular intervals.
    #[serde(default)]
    pub body_set: Vec<RawBodySet>,
    /// Settings of the deformable world (scenes with `[[deformable]]` only).
    pub deformables: Option<crate::raw::deform::RawDeformables>,
    /// Deformable bodies (cloth, pressurised shells), in order.
    #[serde(default)]
    pub deformable: Vec<crate::raw::deform::RawDeformable>,
}

/// `[step]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    /// Step size h (s).
    pub h: f64,
    /// Simulated time (s); the run takes `floor(duration / h)` steps.
    pub duration: Option<f64>,
    /// Number of steps (instead of `duration`).
    pub steps: Option<usize>,
    /// 3D only: the gyroscopic update of the free-flight velocity, `midpoint` (default),
    /// `implicit` or `off` (`signorini_dynamics::Gyroscopic`).
    pub gyroscopic: Option<String>,
}

/// `[contact]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContact {
    /// `peg`, `standard`, `corrective` (rigid polygons/polyhedra), or `cpf`, `dpf`, `dpf-ccd`
    /// (penalty forces on triangle meshes, `dimension = 3`); default `peg`.
    pub model: Option<String>,
    /// Coulomb friction coefficient μ (default 0).
    pub friction: Option<f64>,
    /// `auto`, `lemke`, `fb-newton` or `pgs` (default `auto`).
    pub solver: Option<String>,
    /// PEG gap-correction re-solves per step (default 8; 0 = none, the other additions stay:
    /// `paper` turns them all off).
    pub gap_corrections: Option<usize>,
    /// `true`: the paper's stepper with every project addition off (`WorldParams::paper`);
    /// peg, standard and corrective only; excludes `gap_corrections`, `mixed_fallback` and
    /// `keep_best_on_failure` (default false).
    pub paper: Option<bool>,
    /// Retry a failed reduced LCP in mixed form (default: true for PEG, false otherwise).
    pub mixed_fallback: Option<bool>,
    /// After a failed step, continue from the best solver iterate instead of free flight
    /// (default true, `WorldParams::keep_best_on_failure`).
    pub keep_best_on_failure: Option<bool>,
    /// PEG potential-contact distance (m); default ε(h) = max(0.5 h, 0.0008).
    pub peg_distance: Option<f64>,
    /// Standard-model detection distance (m); default 0.07.
    pub standard_distance: Option<f64>,
    /// 3D PEG only: the vertex–vertex constraint, `cone` (default), `face-pairs` or `off`
    /// (`signorini_contact::dim3::VertexVertex`).
    pub vertex_vertex: Option<String>,
    /// PEG only: the I-constraint form, `single-primary` (default) or `general` (paper Eqs.
    /// 20–23; `signorini_contact::PegForm`).
    pub peg_form: Option<String>,
    /// PEG only: X-constraint impulses, `primary` (default, the authors' code) or `paper`
    /// (none; `signorini_contact::XImpulse`).
    pub x_impulse: Option<String>,
    /// Penalty stiffness (N/m), penalty models only.
    pub stiffness: Option<f64>,
    /// Penalty contact thickness / activation distance (m), penalty models only.
    pub thickness: Option<f64>,
    /// Stiffness varying in time, `k (1 + amplitude sin 2π frequency t)` (rigid penalty
    /// scenes only).
    pub stiffness_perturbation: Option<RawPerturbation>,
    /// Viscous friction coefficient (deformable scenes only; default 0).
    pub viscous_friction: Option<f64>,
    /// Per-vertex contact-stiffness limit (deformable scenes only; default 1, 0 = off).
    pub vertex_stiffness_limit: Option<f64>,
    /// Linearly implicit contact correction (deformable scenes only; default false).
    pub implicit_contact: Option<bool>,
    /// The per-vertex stiffness limit for the discrete model too (deformable scenes only;
    /// default false).
    pub dpf_vertex_stiffness_limit: Option<bool>,
    /// Pairs with coincident collision points share one contact's impulse (deformable scenes
    /// only; default false: the paper's plain sum).
    pub share_coincident_pairs: Option<bool>,
}

/// `contact.stiffness_perturbation`: `k(t) = k (1 + amplitude sin 2π frequency t)`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPerturbation {
    /// Relative amplitude, in [0, 1).
    pub amplitude: f64,
    /// Frequency (Hz).
    pub frequency: f64,
}

/// `[record]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRecord {
    /// Write `trajectories.csv` (default true).
    pub trajectories: Option<bool>,
    /// Write `steps.csv` (default true).
    pub statistics: Option<bool>,
    /// Write `contacts.csv` for the replay (default true).
    pub contacts: Option<bool>,
    /// Record every n-th step (default 1).
    pub every: Option<usize>,
}

/// `[checks]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChecks {
    /// Largest allowed total overlap of any step (m² in 2D, m³ for 3D polyhedra).
    pub max_overlap: Option<f64>,
    /// Largest allowed penetration depth (m; penalty scenes).
    pub max_penetration: Option<f64>,
    /// Largest allowed number of failed steps.
    pub max_failed_steps: Option<usize>,
}

/// `[materials.<name>]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMaterial {
    /// Areal (2D, kg/m²) or volumetric (3D, kg/m³) density.
    pub density: Option<f64>,
    /// Coulomb friction coefficient.
    pub friction: Option<f64>,
    /// Penalty stiffness (N/m).
    pub stiffness: Option<f64>,
    /// Display colour in the report (CSS).
    pub color: Option<String>,
}

/// `[[body]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBody {
    /// Name (default `body<k>`).
    pub name: Option<String>,
    /// Geometry.
    pub shape: RawShape,
    /// Immovable (default false).
    #[serde(rename = "static")]
    pub is_static: Option<bool>,
    /// Name of a `[materials.<name>]` entry.
    pub material: Option<String>,
    /// Density (overrides the material's).
    pub density: Option<f64>,
    /// Mass (kg), with `inertia`, instead of a density.
    pub mass: Option<f64>,
    /// Moment of inertia about the body origin: a number in 2D (kg m²); in 3D a 3×3 matrix or
    /// its diagonal.
    pub inertia: Option<RawInertia>,
    /// Position of the body origin (m).
    pub position: Option<Vec<f64>>,
    /// 2D orientation θ (rad).
    pub angle: Option<f64>,
    /// 3D orientation: a rotation vector `[rx, ry, rz]` (axis × angle, rad), or
    /// `{ axis = [x, y, z], angle = a }`, or `{ euler = [roll, pitch, yaw] }` (rad).
    pub rotation: Option<RawRotation>,
    /// 2D: `[vx, vy, ω]`; 3D: `[vx, vy, vz]`.
    pub velocity: Option<Vec<f64>>,
    /// 3D angular velocity `[ωx, ωy, ωz]` (rad/s).
    pub angular_velocity: Option<Vec<f64>>,
    /// Constant external force (N; 2D `[fx, fy, τ]`), added to gravity.
    pub external_force: Option<Vec<f64>>,
    /// Time at which the body enters the scene (s, default 0).
    pub drop_time: Option<f64>,
    /// Drop this many identical copies (default 1), the k-th at `drop_time + k · interval`
    /// (step `round(drop_time/h) + k · max(1, round(interval/h))`); names get `.k`.
    pub copies: Option<usize>,
    /// Time between copies (s); required when `copies > 1`.
    pub interval: Option<f64>,
    /// Display colour in the report (CSS).
    pub color: Option<String>,
}

/// A shape, tagged by `type`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawShape {
    /// Convex polygon, counter-clockwise, in the body frame.
    Polygon {
        /// `[[x, y], …]` (m).
        vertices: Vec<Vec<f64>>,
    },
    /// Axis-aligned rectangle in the body frame.
    Rectangle {
        /// Lower-left corner (m).
        min: Vec<f64>,
        /// Upper-right corner (m).
        max: Vec<f64>,
    },
    /// Box centred on the body origin (or on `center`): `[w, h]` (2D) or `[w, h, d]` (3D; a
    /// convex polyhedron, or a 12-triangle mesh in penalty scenes).
    Box {
        /// Side lengths (m).
        size: Vec<f64>,
        /// Centre in the body frame (m; 3D only, default the origin).
        center: Option<Vec<f64>>,
    },
    /// Regular polygon centred on the origin.
    RegularPolygon {
        /// Number of sides (≥ 3).
        sides: usize,
        /// Circumradius (m).
        radius: f64,
        /// Angle of the first vertex from +x (rad, default π/2: apex up).
        rotation: Option<f64>,
    },
    /// Convex hull of points (2D or 3D by the points' length).
    ConvexHull {
        /// Points (m).
        points: Vec<Vec<f64>>,
    },
    /// 3D convex polyhedron from its vertices (faces from the hull, or as given).
    Polyhedron {
        /// `[[x, y, z], …]` (m).
        vertices: Vec<Vec<f64>>,
        /// Faces as 0-based vertex indices, counter-clockwise seen from outside (optional;
        /// default: the hull's faces). With faces the vertex order and the faces are kept as
        /// written (e.g. the PEG authors' icosahedron).
        faces: Option<Vec<Vec<usize>>>,
    },
    /// Triangle mesh from an OBJ or STL file (path relative to the scene file).
    Mesh {
        /// File.
        file: String,
        /// Uniform scale (default 1).
        scale: Option<f64>,
    },
    /// Procedural triangle mesh (penalty scenes), centred on the body origin; its `kind`
    /// chooses the fields (see [`RawPrimitive`]).
    Primitive(RawPrimitive),
    /// Open rectangular grid in the plane z = 0, centred (cloth; `[[deformable]]` only).
    Grid {
        /// Side lengths `[x, y]` (m).
        size: Vec<f64>,
        /// Cells along x and y `[nx, ny]`.
        cells: Vec<usize>,
    },
    /// Several convex parts moving together (static bodies only).
    Compound {
        /// The parts.
        parts: Vec<RawShape>,
    },
}

/// `shape = { type = "primitive", kind = "…", … }`: a procedural triangle mesh, tagged by
/// `kind`. Each kind has exactly its own fields, so serde rejects a field the kind does not
/// use (`deny_unknown_fields`: "unknown field `size`, expected …") and a missing one
/// ("missing field `radius`"); `validate` checks only values (lengths > 0, counts within
/// their limits). Lengths in m; a count left out takes its default (`docs/scene-format.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RawPrimitive {
    /// Cuboid centred on the origin.
    Box {
        /// Side lengths `[x, y, z]`.
        size: Vec<f64>,
    },
    /// UV sphere.
    Sphere {
        /// Radius.
        radius: f64,
        /// Meridians (≥ 3, default 24).
        segments: Option<usize>,
        /// Parallels (≥ 2, default 12).
        rings: Option<usize>,
    },
    /// The UV sphere pushed onto a superellipsoid (the `bucket` experiment's boxes).
    RoundedBox {
        /// Radius of the sphere.
        radius: f64,
        /// Meridians (≥ 3, default 24).
        segments: Option<usize>,
        /// Parallels (≥ 2, default 12).
        rings: Option<usize>,
    },
    /// A cube's faces projected onto a sphere.
    CubeSphere {
        /// Radius.
        radius: f64,
        /// Cells along each cube edge (≥ 1, default 8).
        segments: Option<usize>,
    },
    /// The cube sphere pushed onto the rounded box's superellipsoid.
    RoundedCube {
        /// Radius.
        radius: f64,
        /// Cells along each cube edge (≥ 1, default 8).
        segments: Option<usize>,
    },
    /// Torus around z.
    Torus {
        /// Ring radius.
        radius: f64,
        /// Tube radius (< `radius`).
        tube_radius: f64,
        /// Segments around the ring (≥ 3, default 32).
        segments: Option<usize>,
        /// Segments around the tube (≥ 3, default 16).
        rings: Option<usize>,
    },
    /// Closed cylinder along z.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Length along z.
        length: f64,
        /// Segments around (≥ 3, default 24).
        segments: Option<usize>,
    },
    /// Square-section stick along x.
    Stick {
        /// Length along x.
        length: f64,
        /// Side of the square cross-section.
        thickness: f64,
    },
    /// Slab whose top face is z = 0.
    Plane {
        /// Side lengths `[x, y]`.
        size: Vec<f64>,
        /// Depth below z = 0 (default 1).
        thickness: Option<f64>,
    },
    /// Open cup: bottom disc at z = 0, open at the top.
    Bucket {
        /// Radius.
        radius: f64,
        /// Height.
        length: f64,
        /// Segments around (≥ 3, default 32).
        segments: Option<usize>,
        /// Bands of the bottom (≥ 1, default 4).
        rings: Option<usize>,
        /// Bands up the wall (≥ 1, default 8).
        stacks: Option<usize>,
    },
    /// Open hemispherical bowl: bottom pole at z = 0, open rim at z = `radius`.
    Bowl {
        /// Radius.
        radius: f64,
        /// Segments around (≥ 3, default 32).
        segments: Option<usize>,
        /// Bands from the bottom to the rim (≥ 1, default 8).
        rings: Option<usize>,
    },
    /// A mantle with eight tapered arms, one closed shell (the `octopus` experiment's body).
    Octopus {
        /// Mantle radius (the mantle is 1.25 times as tall).
        radius: f64,
        /// Arm length.
        length: f64,
        /// Arm resolution `k` (≥ 1, default 2): `4 k` vertices around an arm.
        segments: Option<usize>,
        /// Rings along each arm (≥ 1, default 16).
        rings: Option<usize>,
    },
}

impl RawPrimitive {
    /// The `kind` as written in the file.
    pub fn kind(&self) -> &'static str {
        match self {
            RawPrimitive::Box { .. } => "box",
            RawPrimitive::Sphere { .. } => "sphere",
            RawPrimitive::RoundedBox { .. } => "rounded_box",
            RawPrimitive::CubeSphere { .. } => "cube_sphere",
            RawPrimitive::RoundedCube { .. } => "rounded_cube",
            RawPrimitive::Torus { .. } => "torus",
            RawPrimitive::Cylinder { .. } => "cylinder",
            RawPrimitive::Stick { .. } => "stick",
            RawPrimitive::Plane { .. } => "plane",
            RawPrimitive::Bucket { .. } => "bucket",
            RawPrimitive::Bowl { .. } => "bowl",
            RawPrimitive::Octopus { .. } => "octopus",
        }
    }
}

/// `[[body_set]]`: a body-set JSON file (format of `data/peg2d/body_sets`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBodySet {
    /// Path (relative to the scene file).
    pub file: String,
    /// Time of the first drop (s, default 0).
    pub start: Option<f64>,
    /// Time between drops (s, default 0.25); drops happen every `round(interval / h)` steps.
    pub interval: Option<f64>,
    /// Use only the first `count` bodies.
    pub count: Option<usize>,
    /// Add the scene's gravity to the file's `external_force` (default false: the shared sets
    /// already contain m·g).
    pub add_gravity: Option<bool>,
    /// Display colour of the set's bodies (CSS; default: a palette).
    pub color: Option<String>,
    /// 3D sets (`random_polyhedra.json` format): index of the first body used (default 0).
    pub first: Option<usize>,
    /// 3D: scale each hull (centred on its volume centroid) to this circumradius (m).
    pub circumradius: Option<f64>,
    /// 3D: mass of each body (kg), inertia from its geometry.
    pub mass: Option<f64>,
    /// 3D: drop position of every body (m).
    pub position: Option<Vec<f64>>,
    /// 3D: drop orientation of every body (as `[[body]].rotation`).
    pub rotation: Option<RawRotation>,
    /// 3D: drop velocity `[vx, vy, vz]` (m/s).
    pub velocity: Option<Vec<f64>>,
    /// 3D: drop angular velocity (rad/s).
    pub angular_velocity: Option<Vec<f64>>,
    /// Place the bodies on a lattice (the pile experiment's), all at rest at `start`.
    pub lattice: Option<RawLattice>,
}

/// `[[body_set]] lattice`: body k of the set at site `first_site + k` (3D: i = m mod n,
/// j = (m / n) mod n, l = m / n², centre ((i − (n−1)/2)·s, (j − (n−1)/2)·s, s/2 + l·s);
/// 2D: column m mod n, row m / n, centre ((i − (n−1)/2)·s, s/2 + row·s)).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLattice {
    /// Site spacing s (m).
    pub spacing: f64,
    /// Sites per horizontal axis n (3D) or columns (2D).
    pub columns: usize,
    /// Site of the set's first body (default 0).
    pub first_site: Option<usize>,
}

/// A 3D orientation (deserialised in `raw/de.rs`: a table holding both `euler` and `axis` /
/// `angle` is an error, not a silently ignored field).
#[derive(Debug, Clone, PartialEq)]
pub enum RawRotation {
    /// Rotation vector (axis × angle, rad).
    Vector(Vec<f64>),
    /// Axis (any length) and angle (rad).
    AxisAngle {
        /// Axis.
        axis: Vec<f64>,
        /// Angle (rad).
        angle: f64,
    },
    /// Roll, pitch, yaw (rad; nalgebra's `from_euler_angles`).
    Euler {
        /// `[roll, pitch, yaw]`.
        euler: Vec<f64>,
    },
}

/// A moment of inertia: a number (2D), a diagonal or a 3×3 matrix (3D) (deserialised in
/// `raw/de.rs`, with messages that name the accepted forms).
#[derive(Debug, Clone, PartialEq)]
pub enum RawInertia {
    /// 2D polar moment (kg m²).
    Scalar(f64),
    /// 3D principal moments (kg m²).
    Diagonal(Vec<f64>),
    /// 3D tensor (kg m²).
    Matrix(Vec<Vec<f64>>),
}
