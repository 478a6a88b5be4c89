//! A deformable triangle mesh: point masses, springs, optional pressure, pinned vertices.
//!
//! Explicit time stepping (CPF paper §3.3, Eq. 7, with symplectic Euler as in its §4): the
//! penalty stepper asks for the predicted velocities `v* = v + h M⁻¹ f(x, v)` (internal forces
//! plus gravity, pinned vertices held), adds the contact impulses divided by the vertex masses,
//! then moves `x ← x + h v`.

use crate::{pressure, springs};
use signorini_geometry::mesh::{MeshError, TriMesh};
use signorini_math::{Real, Vec3};

/// Why a deformable cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DeformableError {
    /// The mesh is invalid.
    #[error("mesh: {0}")]
    Mesh(#[from] MeshError),
    /// A material parameter is out of range.
    #[error("material `{field}` = {value}: must be finite and {reason}")]
    Material {
        /// Field name.
        field: &'static str,
        /// Its value.
        value: Real,
        /// `"> 0"` or `"≥ 0"`.
        reason: &'static str,
    },
    /// A pinned vertex index is out of range.
    #[error("pinned vertex {vertex} out of range ({count} vertices)")]
    Pin {
        /// The index.
        vertex: usize,
        /// Vertex count.
        count: usize,
    },
    /// Pressure needs a closed mesh.
    #[error("pressure needs a closed mesh (this one has boundary edges)")]
    PressureOnOpenMesh,
}

/// Material of a deformable mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Mass per unit area of the surface (kg/m²); vertex masses are a third of the adjacent
    /// triangle areas times this.
    pub areal_density: Real,
    /// Stretch-spring stiffness (N/m).
    pub stretch: Real,
    /// Shear-spring stiffness (N/m).
    pub shear: Real,
    /// Bending-spring stiffness (N/m).
    pub bend: Real,
    /// Spring damping along each spring (N s/m).
    pub damping: Real,
    /// Bulk modulus of the enclosed volume (Pa); 0 = no pressure. Closed meshes only.
    pub pressure: Real,
    /// Mass-proportional (air) drag `f = −drag · m v` (1/s): damps swinging, which the
    /// spring damping (relative velocity along springs) does not.
    pub drag: Real,
}

impl Material {
    /// A cloth-like default: 0.2 kg/m², stretch 200, shear 50, bend 2 N/m, damping 0.02 N s/m.
    pub const CLOTH: Material = Material {
        areal_density: 0.2,
        stretch: 200.0,
        shear: 50.0,
        bend: 2.0,
        damping: 0.02,
        pressure: 0.0,
        drag: 0.0,
    };

    fn check(&self) -> Result<(), DeformableError> {
        let fields = [
            ("areal_density", self.areal_density, true),
            ("stretch", self.stretch, false),
            ("shear", self.shear, false),
            ("bend", self.bend, false),
            ("damping", self.damping, false),
            ("pressure", self.pressure, false),
            ("drag", self.drag, false),
        ];
        for (field, value, strict) in fields {
            let ok = value.is_finite() && if strict { value > 0.0 } else { value >= 0.0 };
            if !ok {
                let reason = if strict { "> 0" } else { "≥ 0" };
                return Err(DeformableError::Material {
                    field,
                    value,
                    reason,
                });
            }
        }
        Ok(())
    }

    fn stiffness(&self, kind: springs::SpringKind) -> Real {
        match kind {
            springs::SpringKind::Stretch => self.stretch,
            springs::SpringKind::Shear => self.shear,
            springs::SpringKind::Bend => self.bend,
        }
    }
}

/// A deformable triangle mesh.
#[derive(Clone, Debug)]
pub struct Deformable {
    mesh: TriMesh,
    material: Material,
    springs: Vec<springs::Spring>,
    rest_volume: Real,
    /// Vertex positions (m).
    pub x: Vec<Vec3>,
    /// Vertex velocities (m/s).
    pub v: Vec<Vec3>,
    mass: Vec<Real>,
    /// Inverse vertex masses; 0 for pinned vertices.
    inv_mass: Vec<Real>,
    /// Gravity (m/s²).
    pub gravity: Vec3,
}

impl Deformable {
    /// A deformable in its rest configuration `mesh`, at rest, with gravity `(0, 0, −9.81)`.
    ///
    /// # Errors
    /// [`DeformableError`] for a bad material, or pressure on an open mesh.
    pub fn new(mesh: TriMesh, material: Material) -> Result<Self, DeformableError> {
        material.check()?;
        if material.pressure > 0.0 && !mesh.is_closed() {
            return Err(DeformableError::PressureOnOpenMesh);
        }
        let x = mesh.vertices().to_vec();
        let mut mass = vec![0.0; x.len()];
        for t in mesh.triangles() {
            let [a, b, c] = t.map(|i| x[i as usize]);
            let m = material.areal_density * 0.5 * (b - a).cross(&(c - a)).norm() / 3.0;
            for &i in t {
                mass[i as usize] += m;
            }
        }
        let inv_mass = mass
            .iter()
            .map(|&m| if m > 0.0 { 1.0 / m } else { 0.0 })
            .collect();
        let springs = springs::from_mesh(&x, mesh.triangles());
        let rest_volume = if material.pressure > 0.0 {
            pressure::volume(&x, mesh.triangles())
        } else {
            0.0
        };
        Ok(Deformable {
            v: vec![Vec3::zeros(); x.len()],
            x,
            mass,
            inv_mass,
            springs,
            rest_volume,
            material,
            mesh,
            gravity: Vec3::new(0.0, 0.0, -9.81),
        })
    }

    /// Builder: set the gravitational acceleration (m/s², a vector; [`Deformable::new`] sets
    /// `(0, 0, −9.81)`, unlike rigid bodies, which start without gravity).
    pub fn with_gravity(mut self, g: Vec3) -> Self {
        self.gravity = g;
        self
    }

    /// Pin vertices (infinite mass: they never move).
    ///
    /// # Errors
    /// [`DeformableError::Pin`] for an index out of range.
    pub fn pin(&mut self, vertices: &[usize]) -> Result<(), DeformableError> {
        for &i in vertices {
            if i >= self.x.len() {
                return Err(DeformableError::Pin {
                    vertex: i,
                    count: self.x.len(),
                });
            }
            self.inv_mass[i] = 0.0;
            self.v[i] = Vec3::zeros();
        }
        Ok(())
    }

    /// The rest mesh (triangles and rest positions).
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// Triangles.
    pub fn triangles(&self) -> &[[u32; 3]] {
        self.mesh.triangles()
    }

    /// The springs.
    pub fn springs(&self) -> &[springs::Spring] {
        &self.springs
    }

    /// Material.
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// Vertex masses (kg; pinned vertices keep theirs for energy bookkeeping).
    pub fn masses(&self) -> &[Real] {
        &self.mass
    }

    /// Inverse vertex masses (0 = pinned).
    pub fn inverse_masses(&self) -> &[Real] {
        &self.inv_mass
    }

    /// `true` if vertex `i` is pinned.
    pub fn is_pinned(&self, i: usize) -> bool {
        self.inv_mass[i] == 0.0
    }

    /// Internal (spring, damping, pressure) plus gravity forces at positions `x`, velocities
    /// `v`, into `f` (overwritten).
    pub fn forces_at(&self, x: &[Vec3], v: &[Vec3], f: &mut [Vec3]) {
        let drag = self.material.drag;
        for ((fi, m), vi) in f.iter_mut().zip(&self.mass).zip(v) {
            *fi = *m * (self.gravity - drag * vi);
        }
        let c = self.material.damping;
        for s in &self.springs {
            let fs = springs::force(s, self.material.stiffness(s.kind), c, x, v);
            f[s.ends[0] as usize] += fs;
            f[s.ends[1] as usize] -= fs;
        }
        if self.material.pressure > 0.0 {
            let (k, v0) = (self.material.pressure, self.rest_volume);
            pressure::add_forces(k, v0, x, self.mesh.triangles(), f);
        }
    }

    /// Potential energy at positions `x`: springs, pressure and gravity (J). Its negative
    /// gradient is the conservative part of [`Deformable::forces_at`].
    pub fn potential_energy_at(&self, x: &[Vec3]) -> Real {
        let springs: Real = self
            .springs
            .iter()
            .map(|s| springs::energy(s, self.material.stiffness(s.kind), x))
            .sum();
        let gravity: Real = x
            .iter()
            .zip(&self.mass)
            .map(|(p, m)| -m * self.gravity.dot(p))
            .sum();
        let pressure = if self.material.pressure > 0.0 {
            pressure::energy(
                self.material.pressure,
                self.rest_volume,
                x,
                self.mesh.triangles(),
            )
        } else {
            0.0
        };
        springs + gravity + pressure
    }

    /// Kinetic plus potential energy of the free vertices and springs (J).
    pub fn energy(&self) -> Real {
        let kinetic: Real = self
            .v
            .iter()
            .zip(&self.mass)
            .map(|(v, m)| 0.5 * m * v.norm_squared())
            .sum();
        kinetic + self.potential_energy_at(&self.x)
    }

    /// Predicted velocities `v* = v + h M⁻¹ f(x, v)` (pinned vertices: 0).
    pub fn free_velocities(&self, h: Real) -> Vec<Vec3> {
        let mut f = vec![Vec3::zeros(); self.x.len()];
        self.forces_at(&self.x, &self.v, &mut f);
        self.v
            .iter()
            .zip(&f)
            .zip(&self.inv_mass)
            .map(|((v, f), w)| {
                if *w == 0.0 {
                    Vec3::zeros()
                } else {
                    v + h * w * f
                }
            })
            .collect()
    }

    /// Predicted motion over a step `h` split into `substeps ≥ 1` symplectic Euler sub-steps of
    /// the internal forces and gravity (no contact): `(v̄, v_end)` with `v̄ = (x_end − x) / h`
    /// the mean velocity (the linear sweep the collision stage sees) and `v_end` the velocity
    /// at the end. One sub-step gives `v̄ = v_end = ` [`Deformable::free_velocities`]`(h)`
    /// exactly. Sub-steps let a stiff mass-spring model run under a contact step longer than
    /// its explicit stability limit `2/ω_max` (docs/deformable.md, "Sub-stepped internal
    /// forces"); the contact impulses are still computed once per step `h`.
    pub fn free_motion(&self, h: Real, substeps: usize) -> (Vec<Vec3>, Vec<Vec3>) {
        let n = substeps.max(1);
        if n == 1 {
            let v = self.free_velocities(h);
            return (v.clone(), v);
        }
        let hs = h / n as Real;
        let (mut x, mut v) = (self.x.clone(), self.v.clone());
        let mut f = vec![Vec3::zeros(); x.len()];
        for _ in 0..n {
            self.forces_at(&x, &v, &mut f);
            for i in 0..x.len() {
                let w = self.inv_mass[i];
                v[i] = if w == 0.0 {
                    Vec3::zeros()
                } else {
                    v[i] + hs * w * f[i]
                };
                x[i] += hs * v[i];
            }
        }
        let mean = x
            .iter()
            .zip(&self.x)
            .map(|(x1, x0)| (x1 - x0) / h)
            .collect();
        (mean, v)
    }

    /// End a step: velocities `v` (pinned vertices stay at rest), positions `x ← x + h v̄`
    /// with the mean velocity `v̄` of the step ([`Deformable::free_motion`] plus the same
    /// contact correction as `v`).
    pub fn finish_step(&mut self, v: Vec<Vec3>, mean: &[Vec3], h: Real) {
        self.v = v;
        for (i, (x, v)) in self.x.iter_mut().zip(self.v.iter_mut()).enumerate() {
            if self.inv_mass[i] == 0.0 {
                *v = Vec3::zeros();
            } else {
                *x += h * mean[i];
            }
        }
    }

    /// One contact-free symplectic Euler step: `v ← v*`, `x ← x + h v`.
    pub fn step_free(&mut self, h: Real) {
        let v = self.free_velocities(h);
        self.set_velocities_and_move(v, h);
    }

    /// Set the velocities (pinned vertices stay at rest) and move `x ← x + h v`.
    pub fn set_velocities_and_move(&mut self, v: Vec<Vec3>, h: Real) {
        self.v = v;
        for (i, (x, v)) in self.x.iter_mut().zip(self.v.iter_mut()).enumerate() {
            if self.inv_mass[i] == 0.0 {
                *v = Vec3::zeros();
            }
            *x += h * *v;
        }
    }

    /// Total linear momentum of the free vertices.
    pub fn linear_momentum(&self) -> Vec3 {
        self.v.iter().zip(&self.mass).map(|(v, m)| *m * v).sum()
    }
}
