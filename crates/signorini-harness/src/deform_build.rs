//! Building a [`DeformableWorld`] from a plain description, shared by the deformable
//! experiments (`cloth-tori`, `rings`) and by deformable scene files (`signorini-scene`), so
//! that a scene and the experiment it mirrors construct the very same world.
//!
//! Owns: [`DeformSpec`] (one deformable), [`VelocityGradient`] (an affine initial velocity
//! field), [`RigidSpec`] (one dynamic rigid mesh), [`PenaltyKnobs`] (the penalty knobs, also
//! the deformable experiments' parameters'), [`WorldSpec`] (the world), [`build_world`],
//! [`place`], [`grid_corners`], [`surface_area`] and [`with_vertex_mass`].

use signorini_deformable::{Deformable, Material};
use signorini_geometry::mesh::TriMesh;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::{
    DEFAULT_VERTEX_STIFFNESS_LIMIT, DeformableWorld, MeshBody, Obstacle, PenaltyError,
    PenaltyParams,
};

/// One deformable: its mesh in the world frame, material, gravity, pins, initial velocity.
#[derive(Clone, Debug, PartialEq)]
pub struct DeformSpec {
    /// Mesh, already placed in the world frame ([`place`]).
    pub mesh: TriMesh,
    /// Material.
    pub material: Material,
    /// Gravity (m/s²).
    pub gravity: Vec3,
    /// Pinned vertex indices.
    pub pins: Vec<usize>,
    /// Uniform initial velocity of the free vertices (m/s); `None` leaves them at rest.
    pub velocity: Option<Vec3>,
    /// Affine part of the initial velocity of the free vertices, added to `velocity`
    /// (e.g. a spin); `None`: none.
    pub velocity_gradient: Option<VelocityGradient>,
}

/// An affine initial velocity field `v(x) = L (x − origin)`: `L` is the velocity gradient
/// (1/s), e.g. the cross-product matrix `[ω]×` of an angular velocity ω for a rigid spin about
/// `origin`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VelocityGradient {
    /// `L = ∂v/∂x` (1/s), rows `[∂vx/∂x, ∂vx/∂y, ∂vx/∂z]`, ….
    pub gradient: Mat3,
    /// The point where this part of the velocity is zero (m).
    pub origin: Vec3,
}

impl VelocityGradient {
    /// `L (x − origin)` (m/s).
    pub(crate) fn at(&self, x: Vec3) -> Vec3 {
        self.gradient * (x - self.origin)
    }
}

/// One dynamic rigid body: a closed mesh of uniform density (`MeshBody::dynamic`), its pose,
/// velocities and constant external force; gravity is added as `m·g`.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidSpec {
    /// Closed mesh as given (any frame; re-centred on its centre of mass when built).
    pub mesh: TriMesh,
    /// Density (kg/m³).
    pub density: Real,
    /// Position of the centre of mass (m).
    pub position: Vec3,
    /// Orientation (`None`: identity).
    pub orientation: Option<Quat>,
    /// Linear velocity (m/s).
    pub velocity: Vec3,
    /// Angular velocity (rad/s).
    pub angular_velocity: Vec3,
    /// Constant external force without gravity (N).
    pub external_force: Vec3,
    /// Gravity (m/s²), added to the external force as `m·g`.
    pub gravity: Vec3,
}

impl RigidSpec {
    /// The rigid body.
    ///
    /// # Errors
    /// The mass-property or mesh error (open mesh, bad density) as text.
    pub fn build(&self) -> Result<MeshBody, String> {
        self.body().map_err(|e| e.to_string())
    }

    /// The rigid body, with the penalty world's error (also what a penalty scene's dynamic
    /// mesh body is built by: `signorini_scene`'s `SceneMesh::build`).
    ///
    /// # Errors
    /// [`PenaltyError`] for an open mesh or bad mass properties.
    pub fn body(&self) -> Result<MeshBody, PenaltyError> {
        let mut b = MeshBody::dynamic(&self.mesh, self.density, self.position)?;
        if let Some(q) = self.orientation {
            b.state.orientation = q;
        }
        b.state.linear_velocity = self.velocity;
        b.state.angular_velocity = self.angular_velocity;
        // f + m·g component-wise (the rigid penalty scenes' arithmetic).
        let (m, g) = (b.state.mass, self.gravity);
        b.state.external_force = self.external_force;
        b.state.external_force.x += m * g.x;
        b.state.external_force.y += m * g.y;
        b.state.external_force.z += m * g.z;
        Ok(b)
    }
}

/// The penalty knobs a deformable world and every deformable experiment's parameters share
/// (`cloth_tori::ClothToriParams`, `rings::RingsParams`, … in `signorini-experiments`, each
/// with its own defaults), mapped to the world's [`PenaltyParams`] by [`PenaltyKnobs::params`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PenaltyKnobs {
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
    /// Friction (Coulomb and viscous).
    pub friction: Friction,
}

impl PenaltyKnobs {
    /// Knobs with the stepper's switches at their defaults: the per-vertex stiffness limit
    /// [`DEFAULT_VERTEX_STIFFNESS_LIMIT`], no implicit correction, no limit for the discrete
    /// model and no sharing of coincident pairs (the paper's sum).
    pub fn new(
        model: ForceModel,
        dt: Real,
        stiffness: Real,
        tolerance: Real,
        friction: Friction,
    ) -> PenaltyKnobs {
        PenaltyKnobs {
            model,
            dt,
            stiffness,
            tolerance,
            vertex_stiffness_limit: DEFAULT_VERTEX_STIFFNESS_LIMIT,
            implicit_contact: false,
            dpf_vertex_stiffness_limit: false,
            share_coincident_pairs: false,
            friction,
        }
    }

    /// The world's penalty parameters: these knobs (the tolerance as
    /// [`PenaltyParams::thickness`]), no penetration measurement and the default gyroscopic
    /// rule of [`PenaltyParams::new`].
    pub fn params(&self) -> PenaltyParams {
        let mut params = PenaltyParams::new(self.model, self.dt, self.stiffness);
        params.friction = self.friction;
        params.thickness = self.tolerance;
        params.vertex_stiffness_limit = self.vertex_stiffness_limit;
        params.implicit_contact = self.implicit_contact;
        params.dpf_vertex_stiffness_limit = self.dpf_vertex_stiffness_limit;
        params.share_coincident_pairs = self.share_coincident_pairs;
        params
    }
}

/// A whole deformable world.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSpec {
    /// Deformables (object ids `0 … n−1`).
    pub bodies: Vec<DeformSpec>,
    /// Dynamic rigid meshes (object ids `n … n+r−1`, after the deformables).
    pub rigid: Vec<RigidSpec>,
    /// Static obstacle meshes in the world frame.
    pub obstacles: Vec<TriMesh>,
    /// The penalty knobs: force model, step, stiffness, tolerance, friction and the stepper's
    /// switches.
    pub penalty: PenaltyKnobs,
    /// Sub-steps of the internal forces per contact step (≥ 1).
    pub substeps: usize,
    /// Deformable self-collision.
    pub self_collision: bool,
}

/// `mesh` rotated by `rotation` (if any) and then moved by `at`: `x ↦ R x + at`.
///
/// # Errors
/// The mesh error of an invalid result (non-finite coordinates).
pub fn place(mesh: &TriMesh, rotation: Option<Quat>, at: Vec3) -> Result<TriMesh, String> {
    match rotation {
        Some(r) => mesh.map(|v| r * v + at),
        None => mesh.map(|v| v + at),
    }
    .map_err(|e| e.to_string())
}

/// The four corner vertices of `shapes::grid(…, nx, ny)`.
pub fn grid_corners(nx: usize, ny: usize) -> [usize; 4] {
    [0, nx, ny * (nx + 1), (nx + 1) * (ny + 1) - 1]
}

/// Sum of the triangle areas `Σ |(b − a) × (c − a)| / 2` (m²).
pub fn surface_area(m: &TriMesh) -> Real {
    (0..m.triangles().len())
        .map(|t| 0.5 * m.face_normal(t).norm())
        .sum()
}

/// `material` with the areal density that gives `mesh`'s vertices `vertex_mass` (kg) each on
/// average (`vertex_mass · vertices / area`; each vertex gets a third of its triangles' area).
pub fn with_vertex_mass(material: Material, mesh: &TriMesh, vertex_mass: Real) -> Material {
    Material {
        areal_density: vertex_mass * mesh.vertices().len() as Real / surface_area(mesh),
        ..material
    }
}

/// Make the world.
///
/// # Errors
/// A message naming the deformable (`deformable k: …`), the rigid body (`rigid body k: …`) or
/// the world's parameter error.
pub fn build_world(spec: &WorldSpec) -> Result<DeformableWorld, String> {
    let mut bodies = Vec::with_capacity(spec.bodies.len());
    for (k, b) in spec.bodies.iter().enumerate() {
        let at = |e: &dyn std::fmt::Display| format!("deformable {k}: {e}");
        let mut d = Deformable::new(b.mesh.clone(), b.material).map_err(|e| at(&e))?;
        d.gravity = b.gravity;
        if !b.pins.is_empty() {
            d.pin(&b.pins).map_err(|e| at(&e))?;
        }
        if b.velocity.is_some() || b.velocity_gradient.is_some() {
            let v0 = b.velocity.unwrap_or_else(Vec3::zeros);
            for i in 0..d.v.len() {
                if !d.is_pinned(i) {
                    d.v[i] = match &b.velocity_gradient {
                        Some(g) => v0 + g.at(d.x[i]),
                        None => v0,
                    };
                }
            }
        }
        bodies.push(d);
    }
    let obstacles = spec.obstacles.iter().cloned().map(Obstacle::new).collect();
    let params = spec.penalty.params();
    let rigid = (spec.rigid.iter().enumerate())
        .map(|(k, r)| r.build().map_err(|e| format!("rigid body {k}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut w = DeformableWorld::new(bodies, obstacles, params)
        .and_then(|w| w.with_rigid(rigid))
        .map_err(|e| e.to_string())?;
    w.substeps = spec.substeps;
    w.self_collision = spec.self_collision;
    Ok(w)
}
