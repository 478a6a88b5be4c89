//! Exact mass properties of a homogeneous convex polyhedron (polyhedral volume integrals).
//!
//! Owns: [`MassProperties3`] and [`ConvexPolyhedron::mass_properties`]. Each face is fanned
//! into triangles, each triangle with the frame origin forms a signed tetrahedron
//! `(0, a, b, c)`, `V = det[a b c]/6`, and its second moment is
//! `∫ x xᵀ dV = det/120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ)`, `s = a + b + c` (the standard
//! covariance-of-a-simplex formula); the inertia tensor is `tr(C) I − C`, shifted to the
//! centroid with the parallel-axis theorem. Does not own: bodies (`signorini-dynamics`).

use super::polyhedron::ConvexPolyhedron;
use signorini_math::{Mat3, Real, Vec3};

/// Mass, centroid and inertia of a homogeneous body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties3 {
    /// Volume (m³).
    pub volume: Real,
    /// Mass = density · volume (kg).
    pub mass: Real,
    /// Centre of mass in the shape's frame (m).
    pub centroid: Vec3,
    /// Inertia tensor about the centre of mass, in the shape's axes (kg m²).
    pub inertia: Mat3,
}

impl ConvexPolyhedron {
    /// Exact volume (m³).
    pub fn volume(&self) -> Real {
        super::polyhedron::signed_volume(self.vertices(), self.faces())
    }

    /// Mass properties for a uniform `density` (kg/m³).
    pub fn mass_properties(&self, density: Real) -> MassProperties3 {
        let v = self.vertices();
        let mut volume = 0.0;
        let mut first = Vec3::zeros();
        let mut second = Mat3::zeros();
        for f in self.faces() {
            let a = v[f.vertices[0]];
            for k in 1..f.vertices.len() - 1 {
                let (b, c) = (v[f.vertices[k]], v[f.vertices[k + 1]]);
                let det = a.dot(&b.cross(&c));
                volume += det / 6.0;
                first += (a + b + c) * (det / 24.0);
                let s = a + b + c;
                second +=
                    (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose())
                        * (det / 120.0);
            }
        }
        let centroid = first / volume;
        // Second moment about the centroid, then inertia = tr(C) I − C.
        let c = (second - centroid * centroid.transpose() * volume) * density;
        let inertia = Mat3::identity() * c.trace() - c;
        MassProperties3 {
            volume,
            mass: density * volume,
            centroid,
            inertia: (inertia + inertia.transpose()) * 0.5,
        }
    }

    /// The same body translated so that its volume centroid is at the frame origin, and the
    /// centroid it had.
    pub fn centred(&self) -> (ConvexPolyhedron, Vec3) {
        let c = self.mass_properties(1.0).centroid;
        (self.translated(&-c), c)
    }
}
