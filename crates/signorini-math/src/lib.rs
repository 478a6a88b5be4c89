//! The bottom layer of Signorini: the scalar type, vector and matrix aliases, and the named
//! tolerances that every other crate uses.
//!
//! Owns: `Real` (always `f64`: pivoting LCP solvers and exact-geometry tests need it),
//! the nalgebra aliases, [`tolerance`], and [`UnionFind`] (grouping bodies and unknowns). Does not own: shapes, bodies, solvers.

#![warn(missing_docs)]

pub mod tolerance;
mod union_find;

pub use union_find::UnionFind;

pub use nalgebra;

/// The floating-point type of all physics in Signorini. Always `f64`.
pub type Real = f64;

/// A 2D vector (m, m/s, N, … depending on context).
pub type Vec2 = nalgebra::Vector2<Real>;
/// A 3D vector.
pub type Vec3 = nalgebra::Vector3<Real>;
/// A 2D point.
pub type Point2 = nalgebra::Point2<Real>;
/// A 3D point.
pub type Point3 = nalgebra::Point3<Real>;
/// A 3×3 matrix (inertia tensors, rotations).
pub type Mat3 = nalgebra::Matrix3<Real>;
/// A 6-vector: a 3D body's generalized velocity `[v; ω]` or wrench `[f; τ]`.
pub type Vec6 = nalgebra::Vector6<Real>;
/// A unit quaternion (3D orientation).
pub type Quat = nalgebra::UnitQuaternion<Real>;
/// A dynamically sized dense column vector.
pub type DVec = nalgebra::DVector<Real>;
/// A dynamically sized dense matrix (column-major).
pub type DMat = nalgebra::DMatrix<Real>;

/// 2D cross product `a × b` (the z component of the 3D cross product).
#[inline]
pub fn cross2(a: &Vec2, b: &Vec2) -> Real {
    a.x * b.y - a.y * b.x
}

/// Rotate a 2D vector by `angle` radians (counter-clockwise).
#[inline]
pub fn rotate2(v: &Vec2, angle: Real) -> Vec2 {
    let (s, c) = angle.sin_cos();
    Vec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross2_is_signed_area() {
        assert_eq!(cross2(&Vec2::new(1.0, 0.0), &Vec2::new(0.0, 1.0)), 1.0);
        assert_eq!(cross2(&Vec2::new(0.0, 1.0), &Vec2::new(1.0, 0.0)), -1.0);
    }

    #[test]
    fn rotate2_quarter_turn() {
        let r = rotate2(&Vec2::new(1.0, 0.0), std::f64::consts::FRAC_PI_2);
        assert!((r - Vec2::new(0.0, 1.0)).norm() < 1e-15);
    }
}
