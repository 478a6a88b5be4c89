//! 3D rigid bodies.
//!
//! Owns: [`RigidBody3`], the 6-degree-of-freedom state shared by the polyhedral (PEG, issue 7)
//! and the triangle-mesh (penalty, issue 6) contact models: pose (centre of mass, unit
//! quaternion), generalized velocity ν = [v; ω] with ω in the world frame, mass and body-frame
//! inertia about the centre of mass, a constant external wrench, and the free-flight update.
//! The block mass matrix is `diag(m I₃, R J Rᵀ)`; the gyroscopic torque −ω × Jω enters the
//! free-flight velocity by the update [`Gyroscopic`] chooses (default: the implicit midpoint
//! rule in the body frame, which keeps |L| and the kinetic energy of a free body), and the
//! orientation update is the exact exponential map `q ← exp(h ω / 2) ⊗ q`, renormalised
//! (docs/formulation-notes.md §2; the paper's Eq. 10 states the first-order update `q̇ = ½ ω ⊗ q`
//! instead).
//! Does not own: shapes (a body is paired with its polyhedron or mesh by the caller, so one
//! state type serves both), contact forces, time stepping.

use crate::BodyError;
use signorini_math::{Mat3, Quat, Real, Vec3, Vec6};

/// How the free-flight velocity treats the gyroscopic (velocity-product) torque −ω × Jω of
/// the Newton–Euler equations, `J ω̇ + ω × J ω = τ` in the body frame.
///
/// The paper's Newton–Euler equation (Williams, Lu & Trinkle 2016, Eq. 7) counts the
/// velocity-product forces among the generalized forces; the authors' MATLAB code and this
/// project before issue 22 dropped them ([`Gyroscopic::Off`]), which conserves nothing for a
/// body spinning about a non-principal axis and never shows the intermediate-axis flip.
///
/// Both updates solve the Euler equations in the body frame, where J is constant, and map the
/// result back to the world frame with the orientation at the start of the step. The position
/// update `q ← exp(hω⁺) q` then rotates the body about ω⁺ itself, so the body-frame angular
/// velocity carried into the next step is exactly the one solved for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gyroscopic {
    /// No gyroscopic term: `ω* = ω + h J_w⁻¹ τ` (the behaviour before issue 22 and of the
    /// authors' code). Wrong for any body spinning about a non-principal axis.
    Off,
    /// The implicit gyroscopic update of Catto ("Numerical Methods", GDC 2015; Bullet's
    /// `BT_ENABLE_GYROSCOPIC_FORCE_IMPLICIT_BODY`): one Newton step from ω on the backward-Euler
    /// residual `f(ω′) = J(ω′ − ω) + h ω′ × Jω′ = 0`. Unconditionally stable but dissipative:
    /// with L′ = Jω′, `|L|² = |L′|² + h²|ω′ × L′|²`, so |L| and the energy shrink by O(h²)
    /// per step (measured: docs/peg3d.md, "Gyroscopic dynamics").
    Implicit,
    /// **The default.** The implicit midpoint rule, `J(ω′ − ω) + h ω̄ × Jω̄ = 0` with
    /// `ω̄ = (ω + ω′)/2`, solved by Newton's method to round-off (at most
    /// [`GYRO_MIDPOINT_ITERATIONS`] iterations, each a 3 × 3 solve). Dotting the residual with
    /// `Jω̄` and with `ω̄` shows that it keeps |Jω| and ωᵀJω exactly, so a free body keeps |L|
    /// and its kinetic energy to round-off at any h. Should Newton not converge (|hω| of
    /// order 10 and more), the step falls back to [`Gyroscopic::Implicit`], which is stable.
    #[default]
    Midpoint,
}

impl Gyroscopic {
    /// Every variant, in the order of [`Gyroscopic::name`]'s table.
    pub const ALL: [Gyroscopic; 3] = [Gyroscopic::Midpoint, Gyroscopic::Implicit, Gyroscopic::Off];

    /// The name in scene files and on the command line: `midpoint`, `implicit`, `off`.
    pub fn name(self) -> &'static str {
        match self {
            Gyroscopic::Midpoint => "midpoint",
            Gyroscopic::Implicit => "implicit",
            Gyroscopic::Off => "off",
        }
    }

    /// Parse [`Gyroscopic::name`] (case-insensitive, surrounding blanks ignored).
    pub fn parse(s: &str) -> Option<Gyroscopic> {
        let s = s.trim().to_ascii_lowercase();
        Gyroscopic::ALL.into_iter().find(|g| g.name() == s)
    }
}

/// Newton iterations of [`Gyroscopic::Midpoint`] before it falls back to the one-step implicit
/// update. Newton's iteration from ω′ = ω converges quadratically near the solution.
pub const GYRO_MIDPOINT_ITERATIONS: usize = 30;

/// The cross-product matrix `[a]×` (`[a]× b = a × b`).
fn skew(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// One Newton step of Catto's implicit gyroscopic update in the body frame: from ω′ = ω,
/// `ω′ = ω − (J + h([ω]× J − [Jω]×))⁻¹ h (ω × Jω)`. Returns ω if the 3 × 3 system is singular.
fn gyro_implicit(j: &Mat3, w: &Vec3, h: Real) -> Vec3 {
    let jw = j * w;
    let f = w.cross(&jw) * h;
    let jac = j + (skew(w) * j - skew(&jw)) * h;
    match jac.lu().solve(&f) {
        Some(d) if d.iter().all(|x| x.is_finite()) => w - d,
        _ => *w,
    }
}

/// The implicit midpoint rule in the body frame, `J(ω′ − ω) + h ω̄ × Jω̄ = 0`, by Newton's
/// method from ω′ = ω; `None` if it does not converge in [`GYRO_MIDPOINT_ITERATIONS`].
fn gyro_midpoint(j: &Mat3, w: &Vec3, h: Real) -> Option<Vec3> {
    let scale = w.amax();
    let mut w1 = *w;
    let mut last = Real::INFINITY;
    for _ in 0..GYRO_MIDPOINT_ITERATIONS {
        let m = (w + w1) * 0.5;
        let jm = j * m;
        let g = j * (w1 - w) + m.cross(&jm) * h;
        // ∂g/∂ω′ = J + (h/2)([ω̄]× J − [Jω̄]×).
        let jac = j + (skew(&m) * j - skew(&jm)) * (0.5 * h);
        let d = jac.lu().solve(&g)?;
        if !d.iter().all(|x| x.is_finite()) {
            return None;
        }
        w1 -= d;
        // Converged once the correction is at round-off level of the angular velocity, or
        // once it is small and stops shrinking (round-off noise of the residual).
        let size = d.amax();
        if size <= 4.0 * Real::EPSILON * scale || (size <= 1e-10 * scale && size >= 0.5 * last) {
            return Some(w1);
        }
        last = size;
    }
    None
}

/// A rigid body in space. The body frame origin is the centre of mass.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody3 {
    /// Position of the centre of mass (m).
    pub position: Vec3,
    /// Orientation: body frame → world frame.
    pub orientation: Quat,
    /// Linear velocity of the centre of mass (m/s).
    pub linear_velocity: Vec3,
    /// Angular velocity in the world frame (rad/s).
    pub angular_velocity: Vec3,
    /// Mass (kg); ignored for static bodies.
    pub mass: Real,
    /// Inertia tensor about the centre of mass in the body frame (kg m²); ignored for static
    /// bodies.
    pub inertia: Mat3,
    /// Constant external force (N), e.g. gravity m·g.
    pub external_force: Vec3,
    /// Constant external torque about the centre of mass, world frame (N m).
    pub external_torque: Vec3,
    /// Static bodies never move and contribute no velocity unknowns.
    pub is_static: bool,
}

impl RigidBody3 {
    /// A dynamic body at rest at the origin with the given mass and body-frame inertia.
    ///
    /// # Errors
    /// [`BodyError::Mass`] unless `mass` is finite and positive; [`BodyError::InertiaTensor`]
    /// unless `inertia` is finite, symmetric (to 1e-9 relative) and positive definite.
    pub fn dynamic(mass: Real, inertia: Mat3) -> Result<Self, BodyError> {
        if !(mass.is_finite() && mass > 0.0) {
            return Err(BodyError::Mass(mass));
        }
        check_inertia(&inertia)?;
        Ok(RigidBody3 {
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            linear_velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            mass,
            inertia,
            external_force: Vec3::zeros(),
            external_torque: Vec3::zeros(),
            is_static: false,
        })
    }

    /// A static body at the origin (it never moves).
    pub fn fixed() -> Self {
        RigidBody3 {
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            linear_velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            mass: 0.0,
            inertia: Mat3::zeros(),
            external_force: Vec3::zeros(),
            external_torque: Vec3::zeros(),
            is_static: true,
        }
    }

    /// Set the pose.
    pub fn with_pose(mut self, position: Vec3, orientation: Quat) -> Self {
        self.position = position;
        self.orientation = orientation;
        self
    }

    /// Set the linear and angular (world-frame) velocity.
    pub fn with_velocity(mut self, linear: Vec3, angular: Vec3) -> Self {
        self.linear_velocity = linear;
        self.angular_velocity = angular;
        self
    }

    /// Add the weight `m g` of the gravitational acceleration `g` (m/s², a vector:
    /// `Vec3::new(0.0, 0.0, -9.81)` for Earth's gravity along −z) to the external force; no-op
    /// for static bodies.
    pub fn with_gravity(mut self, g: Vec3) -> Self {
        if !self.is_static {
            self.external_force += self.mass * g;
        }
        self
    }

    /// Check that every state field is finite (and, for dynamic bodies, the mass properties).
    pub fn validate(&self) -> Result<(), BodyError> {
        let finite = |s: &[Real]| s.iter().all(|x| x.is_finite());
        let q = self.orientation.quaternion();
        if !finite(self.position.as_slice()) || !finite(q.coords.as_slice()) {
            return Err(BodyError::NonFinite { field: "pose" });
        }
        if !finite(self.linear_velocity.as_slice()) || !finite(self.angular_velocity.as_slice()) {
            return Err(BodyError::NonFinite { field: "velocity" });
        }
        if !finite(self.external_force.as_slice()) || !finite(self.external_torque.as_slice()) {
            return Err(BodyError::NonFinite {
                field: "external_force",
            });
        }
        if !self.is_static {
            if !(self.mass.is_finite() && self.mass > 0.0) {
                return Err(BodyError::Mass(self.mass));
            }
            check_inertia(&self.inertia)?;
        }
        Ok(())
    }

    /// Generalized velocity ν = [v; ω].
    pub fn velocity(&self) -> Vec6 {
        let (v, w) = (&self.linear_velocity, &self.angular_velocity);
        Vec6::new(v.x, v.y, v.z, w.x, w.y, w.z)
    }

    /// Set the generalized velocity from ν = [v; ω] (ignored for static bodies).
    pub fn set_velocity(&mut self, nu: &Vec6) {
        if self.is_static {
            return;
        }
        self.linear_velocity = nu.fixed_rows::<3>(0).into_owned();
        self.angular_velocity = nu.fixed_rows::<3>(3).into_owned();
    }

    /// A body-frame point in the world frame.
    pub fn world_point(&self, local: &Vec3) -> Vec3 {
        self.position + self.orientation * local
    }

    /// Velocity of the material point currently at `world` (m/s): `v + ω × (p − x)`.
    pub fn point_velocity(&self, world: &Vec3) -> Vec3 {
        self.linear_velocity + self.angular_velocity.cross(&(world - self.position))
    }

    /// World-frame inertia `R J Rᵀ` (zero for a static body).
    pub fn world_inertia(&self) -> Mat3 {
        if self.is_static {
            return Mat3::zeros();
        }
        let r = self.orientation.to_rotation_matrix();
        r.matrix() * self.inertia * r.matrix().transpose()
    }

    /// World-frame inverse inertia `R J⁻¹ Rᵀ` (zero for a static body).
    pub fn world_inverse_inertia(&self) -> Mat3 {
        if self.is_static {
            return Mat3::zeros();
        }
        let r = self.orientation.to_rotation_matrix();
        // `check_inertia` guarantees J is positive definite, so the inverse exists.
        let j_inv = self.inertia.try_inverse().unwrap_or_else(Mat3::zeros);
        r.matrix() * j_inv * r.matrix().transpose()
    }

    /// Apply the impulse `[Δp; ΔL]` (linear impulse, angular impulse about the centre of mass,
    /// world frame) to the velocity: `v += Δp/m`, `ω += (R J⁻¹ Rᵀ) ΔL`.
    pub fn apply_impulse(&mut self, linear: &Vec3, angular: &Vec3) {
        if self.is_static {
            return;
        }
        self.linear_velocity += linear / self.mass;
        self.angular_velocity += self.world_inverse_inertia() * angular;
    }

    /// Apply a linear impulse `p` at the world point `at`: the angular impulse is `(at − x) × p`.
    pub fn apply_impulse_at(&mut self, p: &Vec3, at: &Vec3) {
        let angular = (at - self.position).cross(p);
        self.apply_impulse(p, &angular);
    }

    /// Free-flight velocity ν* = ν + h M⁻¹ (F_ext − [0; ω × J_w ω]): the angular velocity is
    /// first advanced under the gyroscopic torque as `gyroscopic` says (in the body frame,
    /// [`Gyroscopic`]), then the external torque's impulse `h J_w⁻¹ τ` is added.
    /// [`Gyroscopic::Off`] gives the old `ν + h M⁻¹ F_ext` bit for bit, and so does any
    /// update for a body whose body-frame inertia is exactly isotropic (`J = jI`, where
    /// ω × Jω ≡ 0).
    pub fn free_velocity(&self, h: Real, gyroscopic: Gyroscopic) -> Vec6 {
        if self.is_static {
            return Vec6::zeros();
        }
        let v = self.linear_velocity + self.external_force * (h / self.mass);
        let w0 = self.gyroscopic_velocity(h, gyroscopic);
        let w = w0 + self.world_inverse_inertia() * self.external_torque * h;
        Vec6::new(v.x, v.y, v.z, w.x, w.y, w.z)
    }

    /// The world-frame angular velocity after a step h under the gyroscopic torque alone
    /// (no external torque), by `gyroscopic`'s update ([`Gyroscopic`]).
    pub fn gyroscopic_velocity(&self, h: Real, gyroscopic: Gyroscopic) -> Vec3 {
        let w = self.angular_velocity;
        let j = &self.inertia;
        let isotropic = j[(0, 1)] == 0.0
            && j[(0, 2)] == 0.0
            && j[(1, 2)] == 0.0
            && j[(1, 0)] == 0.0
            && j[(2, 0)] == 0.0
            && j[(2, 1)] == 0.0
            && j[(0, 0)] == j[(1, 1)]
            && j[(1, 1)] == j[(2, 2)];
        if self.is_static || gyroscopic == Gyroscopic::Off || isotropic {
            return w;
        }
        // Body frame: ω_b = Rᵀ ω; J is constant there.
        let wb = self.orientation.inverse_transform_vector(&w);
        let wb1 = match gyroscopic {
            Gyroscopic::Off => wb,
            Gyroscopic::Implicit => gyro_implicit(j, &wb, h),
            Gyroscopic::Midpoint => {
                gyro_midpoint(j, &wb, h).unwrap_or_else(|| gyro_implicit(j, &wb, h))
            }
        };
        self.orientation.transform_vector(&wb1)
    }

    /// Angular momentum about the centre of mass in the world frame, `R J Rᵀ ω` (kg m²/s).
    pub fn angular_momentum(&self) -> Vec3 {
        self.world_inertia() * self.angular_velocity
    }

    /// Position update with the current velocity: `x ← x + h v`,
    /// `q ← [cos(|ω|h/2); ω̂ sin(|ω|h/2)] ⊗ q`, renormalised (docs/formulation-notes.md §2).
    pub fn integrate_position(&mut self, h: Real) {
        if self.is_static {
            return;
        }
        self.position += self.linear_velocity * h;
        let rotation = Quat::from_scaled_axis(self.angular_velocity * h);
        self.orientation = Quat::new_normalize((rotation * self.orientation).into_inner());
    }

    /// Kinetic energy `½ m |v|² + ½ ωᵀ (R J Rᵀ) ω` (J).
    pub fn kinetic_energy(&self) -> Real {
        if self.is_static {
            return 0.0;
        }
        let w = &self.angular_velocity;
        0.5 * self.mass * self.linear_velocity.norm_squared()
            + 0.5 * w.dot(&(self.world_inertia() * w))
    }
}

/// A body-frame inertia tensor must be finite, symmetric and positive definite.
fn check_inertia(j: &Mat3) -> Result<(), BodyError> {
    let scale = j.amax();
    let symmetric = (j - j.transpose()).amax() <= 1e-9 * scale;
    let finite = j.iter().all(|x| x.is_finite());
    if !(finite && symmetric && scale > 0.0 && j.cholesky().is_some()) {
        return Err(BodyError::InertiaTensor);
    }
    Ok(())
}
