//! 2D rigid bodies.
//!
//! Owns: [`RigidBody2`] and its validation, world-frame vertices, the block-diagonal inverse mass
//! `diag(1/m, 1/m, 1/J)` (docs/formulation-notes.md §2: no gyroscopic term in 2D), and the position
//! update `x ← x + h v`, `θ ← θ + h ω` (docs/formulation-notes.md §2, paper Eq. 10 in 2D).
//! Does not own: forces from contacts.

use signorini_geometry::dim2::{ConvexPolygon, PolygonError};
use signorini_math::{Real, Vec2, Vec3};

/// Why a body is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BodyError {
    /// Mass must be finite and positive for a dynamic body.
    #[error("mass must be finite and > 0, got {0}")]
    Mass(Real),
    /// Inertia must be finite and positive for a dynamic body.
    #[error("inertia must be finite and > 0, got {0}")]
    Inertia(Real),
    /// A 3D inertia tensor must be finite, symmetric and positive definite.
    #[error("inertia tensor must be finite, symmetric and positive definite")]
    InertiaTensor,
    /// Density must be finite and positive.
    #[error("density must be finite and > 0, got {0}")]
    Density(Real),
    /// A pose, velocity or force component is not finite.
    #[error("field `{field}` has a non-finite component")]
    NonFinite {
        /// Which field.
        field: &'static str,
    },
    /// The shape re-centred on its centroid is no longer a valid polygon (rounding in the
    /// translation can merge two vertices or flatten a nearly straight corner).
    #[error("shape re-centred on its centroid is invalid: {0}")]
    Recentred(PolygonError),
}

/// A rigid convex polygon in the plane. The body frame origin is the centre of mass used by
/// the dynamics (for the PEG body sets this is the mean of the generating points, not the
/// polygon centroid; docs/formulation-notes.md §7).
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody2 {
    /// Shape in the body frame.
    pub shape: ConvexPolygon,
    /// Position of the body origin (m).
    pub position: Vec2,
    /// Orientation θ (rad, counter-clockwise).
    pub angle: Real,
    /// Generalized velocity ν = [vx, vy, ω] (m/s, m/s, rad/s).
    pub velocity: Vec3,
    /// Mass (kg); ignored for static bodies.
    pub mass: Real,
    /// Polar moment of inertia about the body origin (kg m²); ignored for static bodies.
    pub inertia: Real,
    /// Constant external wrench [fx, fy, τ] (N, N, N m), e.g. gravity m·g.
    pub external_force: Vec3,
    /// Static bodies never move and contribute no velocity unknowns.
    pub is_static: bool,
}

/// Mass and polar inertia about the polygon's centroid for a uniform areal density (kg/m²).
pub fn mass_properties_from_density(
    shape: &ConvexPolygon,
    density: Real,
) -> Result<(Real, Real), BodyError> {
    if !(density.is_finite() && density > 0.0) {
        return Err(BodyError::Density(density));
    }
    let area = shape.area();
    let c = shape.centroid();
    // Parallel-axis theorem: J_c = J_o − A |c|².
    let j = shape.polar_moment_about_origin() - area * c.dot(&c);
    Ok((density * area, density * j))
}

impl RigidBody2 {
    /// A dynamic body at rest with explicit mass and inertia about the body origin.
    pub fn dynamic(shape: ConvexPolygon, mass: Real, inertia: Real) -> Result<Self, BodyError> {
        if !(mass.is_finite() && mass > 0.0) {
            return Err(BodyError::Mass(mass));
        }
        if !(inertia.is_finite() && inertia > 0.0) {
            return Err(BodyError::Inertia(inertia));
        }
        Ok(RigidBody2 {
            shape,
            position: Vec2::zeros(),
            angle: 0.0,
            velocity: Vec3::zeros(),
            mass,
            inertia,
            external_force: Vec3::zeros(),
            is_static: false,
        })
    }

    /// A dynamic body of uniform density; the shape is re-centred so that its centroid is the
    /// body origin. Fails with [`BodyError::Density`] for a density that is not finite and
    /// positive, or [`BodyError::Recentred`] if rounding in the re-centring invalidates the shape.
    pub fn from_density(shape: &ConvexPolygon, density: Real) -> Result<Self, BodyError> {
        let (m, j) = mass_properties_from_density(shape, density)?;
        let c = shape.centroid();
        let centred = ConvexPolygon::new(shape.vertices().iter().map(|v| v - c).collect())
            .map_err(BodyError::Recentred)?;
        RigidBody2::dynamic(centred, m, j)
    }

    /// A static (immovable) body.
    pub fn fixed(shape: ConvexPolygon) -> Self {
        RigidBody2 {
            shape,
            position: Vec2::zeros(),
            angle: 0.0,
            velocity: Vec3::zeros(),
            mass: Real::INFINITY,
            inertia: Real::INFINITY,
            external_force: Vec3::zeros(),
            is_static: true,
        }
    }

    /// Builder: set the pose.
    pub fn with_pose(mut self, position: Vec2, angle: Real) -> Self {
        self.position = position;
        self.angle = angle;
        self
    }

    /// Builder: set the generalized velocity.
    pub fn with_velocity(mut self, velocity: Vec3) -> Self {
        self.velocity = velocity;
        self
    }

    /// Builder: add the weight `m g` of the gravitational acceleration `g` (m/s², a vector:
    /// `Vec2::new(0.0, -9.81)` for Earth's gravity along −y) to the external force; no-op for
    /// static bodies.
    pub fn with_gravity(mut self, g: Vec2) -> Self {
        if !self.is_static {
            self.external_force.x += self.mass * g.x;
            self.external_force.y += self.mass * g.y;
        }
        self
    }

    /// Check that every state field is finite.
    pub fn validate(&self) -> Result<(), BodyError> {
        let finite = |s: &[Real]| s.iter().all(|x| x.is_finite());
        if !finite(&[self.position.x, self.position.y, self.angle]) {
            return Err(BodyError::NonFinite { field: "pose" });
        }
        if !finite(self.velocity.as_slice()) {
            return Err(BodyError::NonFinite { field: "velocity" });
        }
        if !finite(self.external_force.as_slice()) {
            return Err(BodyError::NonFinite {
                field: "external_force",
            });
        }
        Ok(())
    }

    /// Vertices in the world frame.
    pub fn world_vertices(&self) -> Vec<Vec2> {
        self.shape.placed(&self.position, self.angle)
    }

    /// Vertices at the pose predicted one step ahead with the current velocity.
    pub fn predicted_vertices(&self, h: Real) -> Vec<Vec2> {
        if self.is_static {
            return self.world_vertices();
        }
        let p = self.position + Vec2::new(self.velocity.x, self.velocity.y) * h;
        self.shape.placed(&p, self.angle + h * self.velocity.z)
    }

    /// Diagonal of M⁻¹ = [1/m, 1/m, 1/J] (zeros for a static body).
    pub fn inverse_mass(&self) -> Vec3 {
        if self.is_static {
            Vec3::zeros()
        } else {
            Vec3::new(1.0 / self.mass, 1.0 / self.mass, 1.0 / self.inertia)
        }
    }

    /// Free-flight velocity ν* = ν + h M⁻¹ F_ext.
    pub fn free_velocity(&self, h: Real) -> Vec3 {
        self.velocity + self.inverse_mass().component_mul(&self.external_force) * h
    }

    /// Position update with the (new) velocity: x ← x + h v, θ ← θ + h ω.
    pub fn integrate_position(&mut self, h: Real) {
        if self.is_static {
            return;
        }
        self.position += Vec2::new(self.velocity.x, self.velocity.y) * h;
        self.angle += h * self.velocity.z;
    }
}
