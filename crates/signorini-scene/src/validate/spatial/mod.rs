//! 3D scenes: rigid convex polyhedra for `World3` ([`polyhedra`]) and rigid triangle meshes for
//! `PenaltyWorld` ([`meshes`]), with the rules both use here (3D vectors and rotations in the
//! located-error context, gravity, names, materials, fields only 2D takes). A child module of
//! `validate`, so it shares its context and the 2D rules for names, materials and drops.

use super::body::{self, Mass, Parts, drops, named, static_has_none};
use super::{Ctx, Drop, Model, Res, compound, lattice};
use crate::error::FieldPath;
use crate::limits;
use crate::raw::{
    RawBody, RawContact, RawInertia, RawMaterial, RawPrimitive, RawRotation, RawScene, RawShape,
};
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_geometry::mesh::{TriMesh, io as mesh_io, mass::mass_properties, shapes};
use signorini_harness::polyhedra::{Bodies, hull_body};
use signorini_math::nalgebra::Unit;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::PolyBody;
use signorini_world::penalty::{MeshBody, PenaltyError};
use std::collections::BTreeMap;

mod meshes;
mod polyhedra;
pub use meshes::SceneMesh;
pub(crate) use meshes::{
    grid_not_here, mesh_body, mesh_entries, mesh_shape, penalty_contact, posed, stiffness,
};
pub use polyhedra::SceneBody3;
pub(crate) use polyhedra::{body_sets3, body3};

/// `f += m·g` component-wise (the same arithmetic as `RigidBody3::with_gravity`).
fn add_gravity3(f: &mut Vec3, mass: Real, g: Vec3) {
    f.x += mass * g.x;
    f.y += mass * g.y;
    f.z += mass * g.z;
}

impl Ctx<'_, '_> {
    pub(super) fn vec3(&self, p: &FieldPath, v: &[Real]) -> Res<Vec3> {
        let v = self.vector(p, v, 3)?;
        Ok(Vec3::new(v[0], v[1], v[2]))
    }

    fn points3(&self, p: &FieldPath, pts: &[Vec<Real>]) -> Res<Vec<Vec3>> {
        pts.iter()
            .enumerate()
            .map(|(k, v)| self.vec3(&p.index(k), v))
            .collect()
    }

    pub(super) fn rotation(&self, p: &FieldPath, r: &RawRotation) -> Res<Quat> {
        match r {
            RawRotation::Vector(v) => {
                let v = self.vec3(p, v)?;
                let angle = v.norm();
                Ok(if angle == 0.0 {
                    Quat::identity()
                } else {
                    Quat::from_axis_angle(&Unit::new_normalize(v), angle)
                })
            }
            RawRotation::AxisAngle { axis, angle } => {
                let a = self.vec3(&p.key("axis"), axis)?;
                if a.norm() == 0.0 {
                    return Err(self.bad(&p.key("axis"), "must not be zero"));
                }
                if !angle.is_finite() {
                    return Err(self.bad(&p.key("angle"), "must be finite"));
                }
                Ok(Quat::from_axis_angle(&Unit::new_normalize(a), *angle))
            }
            RawRotation::Euler { euler } => {
                let e = self.vec3(&p.key("euler"), euler)?;
                Ok(Quat::from_euler_angles(e.x, e.y, e.z))
            }
        }
    }

    pub(super) fn opt_vec3(&self, p: &FieldPath, v: &Option<Vec<Real>>) -> Res<Vec3> {
        v.as_ref().map_or(Ok(Vec3::zeros()), |v| self.vec3(p, v))
    }
}

/// Fields of 2D bodies that a 3D body must not have.
fn no_2d_fields(cx: &Ctx, p: &FieldPath, b: &RawBody) -> Res<()> {
    if b.angle.is_some() {
        return Err(cx.bad(
            &p.key("angle"),
            "2D only; in 3D use `rotation` (vector, {axis, angle} or {euler})",
        ));
    }
    Ok(())
}
