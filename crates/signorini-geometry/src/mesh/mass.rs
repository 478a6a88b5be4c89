//! Mass properties of a closed triangle mesh of uniform density.
//!
//! Owns: [`MassProperties`] and [`mass_properties`]. The solid is split into tetrahedra
//! `(0, a, b, c)` over the outward triangles; each contributes its signed volume
//! `det[a b c]/6`, its centroid weight and its second-moment (covariance) matrix
//! `det[a b c] · A C₀ Aᵀ` with `A = [a b c]` and the canonical tetrahedron covariance
//! `C₀ = (1/120)·[[2,1,1],[1,2,1],[1,1,2]]` (the divergence-theorem method, e.g. Blow & Binstock
//! 2004). The inertia about the centre of mass is `tr(C)·I − C` after the parallel-axis shift
//! `C ← C − m c cᵀ`.

use super::{MeshError, TriMesh};
use signorini_math::{Mat3, Real, Vec3};

/// Mass, centre of mass and inertia about it (mesh frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// Volume (m³).
    pub volume: Real,
    /// Mass (kg) = density × volume.
    pub mass: Real,
    /// Centre of mass (m).
    pub center: Vec3,
    /// Inertia tensor about the centre of mass (kg m²).
    pub inertia: Mat3,
}

/// Why mass properties cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MassError {
    /// The mesh is open: it encloses no volume.
    #[error("mass properties need a closed mesh")]
    Open,
    /// The density is not finite and positive.
    #[error("density {0} must be finite and > 0")]
    Density(Real),
    /// The enclosed volume is not positive.
    #[error("enclosed volume {0:e} is not positive")]
    Volume(Real),
    /// The mesh itself is invalid.
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

/// Mass properties of the solid bounded by a closed mesh, uniform `density` (kg/m³).
///
/// # Errors
/// [`MassError`] for an open mesh, a bad density or a non-positive volume.
pub fn mass_properties(mesh: &TriMesh, density: Real) -> Result<MassProperties, MassError> {
    if !mesh.is_closed() {
        return Err(MassError::Open);
    }
    if !(density.is_finite() && density > 0.0) {
        return Err(MassError::Density(density));
    }
    let canon = Mat3::new(2.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 2.0) / 120.0;
    let mut volume = 0.0;
    let mut first = Vec3::zeros();
    let mut cov = Mat3::zeros();
    for t in 0..mesh.triangles().len() {
        let [a, b, c] = mesh.corners(t);
        let m = Mat3::from_columns(&[a, b, c]);
        let det = m.determinant();
        volume += det / 6.0;
        first += det / 24.0 * (a + b + c);
        cov += det * m * canon * m.transpose();
    }
    if volume <= 0.0 {
        return Err(MassError::Volume(volume));
    }
    let center = first / volume;
    let cov = density * cov - density * volume * center * center.transpose();
    let inertia = Mat3::identity() * cov.trace() - cov;
    Ok(MassProperties {
        volume,
        mass: density * volume,
        center,
        inertia: 0.5 * (inertia + inertia.transpose()),
    })
}
