//! Deformable scenes: `[[deformable]]` cloth and soft shells, static `[[body]]` meshes as
//! obstacles and dynamic `[[body]]` meshes as rigid bodies, run by `DeformableWorld`
//! (CPF / DPF / DPF-CCD). A child module of `validate`
//! sharing its located-error context. The result is a `signorini_harness::deform_build`
//! [`WorldSpec`], the same description the `cloth-tori` and `rings` experiments build from.

use super::{Ctx, Res};
use crate::error::FieldPath;
use crate::limits;
use crate::raw::deform::{RawDeformMaterial, RawDeformable, RawPins};
use crate::raw::{RawScene, RawShape};
use signorini_deformable::Material;
use signorini_geometry::mesh::{TriMesh, shapes};
use signorini_harness::deform_build::{
    DeformSpec, PenaltyKnobs, RigidSpec, VelocityGradient, WorldSpec, build_world, grid_corners,
    place, surface_area,
};
use signorini_math::{Mat3, Real, Vec3};
use signorini_penalty::Friction;

/// A validated deformable scene: the world description plus names and colours.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneDeformables {
    /// The world (model and step are the scene's; a run may override them).
    pub spec: WorldSpec,
    /// Names of the deformables, in order.
    pub names: Vec<String>,
    /// Display colours of the deformables.
    pub colors: Vec<Option<String>>,
    /// Names of the rigid bodies (dynamic `[[body]]` entries), in order.
    pub rigid_names: Vec<String>,
    /// Display colours of the rigid bodies.
    pub rigid_colors: Vec<Option<String>>,
    /// Names of the obstacles (static `[[body]]` entries, compound parts split).
    pub obstacle_names: Vec<String>,
    /// Display colours of the obstacles.
    pub obstacle_colors: Vec<Option<String>>,
    /// Measure crossings every this many steps (1 = every step).
    pub measure_every: usize,
}

/// Reject deformable-only fields in a scene without `[[deformable]]`.
pub(super) fn no_deformable_fields(cx: &Ctx, raw: &RawScene) -> Res<()> {
    let root = FieldPath::default();
    if raw.deformables.is_some() {
        return Err(cx.bad(
            &root.key("deformables"),
            "only for scenes with `[[deformable]]` bodies",
        ));
    }
    for (name, v) in [
        ("viscous_friction", raw.contact.viscous_friction),
        ("vertex_stiffness_limit", raw.contact.vertex_stiffness_limit),
    ] {
        if v.is_some() {
            return Err(cx.bad(
                &root.key("contact").key(name),
                "only for scenes with `[[deformable]]` bodies (DeformableWorld)",
            ));
        }
    }
    for (name, v) in [
        ("implicit_contact", raw.contact.implicit_contact),
        (
            "dpf_vertex_stiffness_limit",
            raw.contact.dpf_vertex_stiffness_limit,
        ),
        ("share_coincident_pairs", raw.contact.share_coincident_pairs),
    ] {
        if v.is_some() {
            return Err(cx.bad(
                &root.key("contact").key(name),
                "only for scenes with `[[deformable]]` bodies (DeformableWorld)",
            ));
        }
    }
    Ok(())
}

/// The deformable world of a scene with `[[deformable]]` entries.
pub(super) fn deformable_scene(
    cx: &Ctx,
    raw: &RawScene,
    gravity: Vec3,
    contact: &super::ContactSettings,
    h: Real,
    materials: &std::collections::BTreeMap<String, crate::raw::RawMaterial>,
    origin: &mut Origins,
) -> Res<SceneDeformables> {
    let root = FieldPath::default();
    if contact.stiffness_perturbation.is_some() {
        return Err(cx.bad(
            &root.key("contact").key("stiffness_perturbation"),
            "only for scenes of rigid meshes (PenaltyWorld), not deformables",
        ));
    }
    let Some(model) = contact.model.force_model() else {
        return Err(cx.bad(
            &root.key("contact").key("model"),
            format!(
                "deformables need a penalty model (cpf, dpf, dpf-ccd), not `{}`",
                contact.model.name()
            ),
        ));
    };
    if !raw.body_set.is_empty() {
        return Err(cx.bad(
            &root.key("body_set"),
            "body sets are rigid polygons or polyhedra: not in a deformable scene",
        ));
    }
    let mut out = SceneDeformables {
        spec: WorldSpec {
            bodies: Vec::new(),
            rigid: Vec::new(),
            obstacles: Vec::new(),
            penalty: PenaltyKnobs::new(
                model,
                h,                                // step (s)
                contact.stiffness.unwrap_or(1.0), // stiffness (N/m)
                contact.thickness.unwrap_or(0.0), // tolerance (m)
                Friction {
                    mu: 0.0,
                    viscous: 0.0,
                },
            ),
            substeps: 1,
            self_collision: true,
        },
        names: Vec::new(),
        colors: Vec::new(),
        rigid_names: Vec::new(),
        rigid_colors: Vec::new(),
        obstacle_names: Vec::new(),
        obstacle_colors: Vec::new(),
        measure_every: 1,
    };
    for (k, b) in raw.body.iter().enumerate() {
        let p = root.key("body").index(k);
        let meshes = super::spatial::mesh_body(cx, &p, k, b, materials, gravity)?;
        at_start(cx, &p, b)?;
        for m in meshes {
            if m.is_static {
                origin.obstacles.push(p.clone());
                out.spec.obstacles.push(m.mesh);
                out.obstacle_names.push(m.name);
                out.obstacle_colors.push(m.color);
            } else {
                origin.rigid.push(p.clone());
                out.spec.rigid.push(RigidSpec {
                    mesh: m.mesh,
                    density: m.density,
                    position: m.position,
                    orientation: m.orientation,
                    velocity: m.velocity,
                    angular_velocity: m.angular_velocity,
                    external_force: m.external_force,
                    gravity: m.gravity,
                });
                out.rigid_names.push(m.name);
                out.rigid_colors.push(m.color);
            }
        }
    }
    for (k, d) in raw.deformable.iter().enumerate() {
        let p = root.key("deformable").index(k);
        out.spec.bodies.push(deformable(cx, &p, d, gravity)?);
        out.names
            .push(d.name.clone().unwrap_or_else(|| format!("deformable{k}")));
        out.colors.push(d.color.clone());
    }
    settings(cx, raw, &mut out)?;
    build_world(&out.spec).map_err(|e| cx.bad(&root.key("deformable"), e))?;
    Ok(out)
}

/// The deformable world takes all its bodies before the first step: no timed drops, no copies.
fn at_start(cx: &Ctx, p: &FieldPath, b: &crate::raw::RawBody) -> Res<()> {
    if let Some(n) = b.copies.filter(|&n| n > 1) {
        return Err(cx.unsupported(
            &p.key("copies"),
            format!(
                "copies of a body in a deformable scene (copies = {n}): the deformable world \
                 takes its bodies at the start; declare each body"
            ),
        ));
    }
    if let Some(t) = b.drop_time.filter(|&t| t > 0.0) {
        return Err(cx.unsupported(
            &p.key("drop_time"),
            format!(
                "a timed drop in a deformable scene (drop_time = {t} s): the deformable world \
                 takes its bodies at the start"
            ),
        ));
    }
    Ok(())
}

/// `[deformables]` and the contact fields of the deformable world.
fn settings(cx: &Ctx, raw: &RawScene, out: &mut SceneDeformables) -> Res<()> {
    let p = FieldPath::default().key("deformables");
    let s = raw.deformables.clone().unwrap_or_default();
    if let Some(n) = s.substeps {
        if n == 0 {
            return Err(cx.bad(&p.key("substeps"), "must be >= 1"));
        }
        out.spec.substeps = cx.at_most(&p.key("substeps"), n, limits::MAX_SUBSTEPS, "substeps")?;
    }
    if let Some(n) = s.measure_every {
        if n == 0 {
            return Err(cx.bad(&p.key("measure_every"), "must be >= 1"));
        }
        out.measure_every = n;
    }
    out.spec.self_collision = s.self_collision.unwrap_or(true);
    let c = FieldPath::default().key("contact");
    out.spec.penalty.friction.mu = raw.contact.friction.unwrap_or(0.0);
    if let Some(v) = raw.contact.viscous_friction {
        out.spec.penalty.friction.viscous = cx.non_negative(&c.key("viscous_friction"), v)?;
    }
    if let Some(v) = raw.contact.vertex_stiffness_limit {
        out.spec.penalty.vertex_stiffness_limit =
            cx.non_negative(&c.key("vertex_stiffness_limit"), v)?;
    }
    out.spec.penalty.implicit_contact = raw.contact.implicit_contact.unwrap_or(false);
    out.spec.penalty.dpf_vertex_stiffness_limit =
        raw.contact.dpf_vertex_stiffness_limit.unwrap_or(false);
    out.spec.penalty.share_coincident_pairs = raw.contact.share_coincident_pairs.unwrap_or(false);
    Ok(())
}

/// The mesh of a deformable (before placement) and, for grids, its cell counts.
fn shape(cx: &Ctx, p: &FieldPath, s: &RawShape) -> Res<(TriMesh, Option<(usize, usize)>)> {
    match s {
        RawShape::Grid { size, cells } => {
            let v = cx.vector(&p.key("size"), size, 2)?;
            for (k, x) in v.iter().enumerate() {
                cx.positive(&p.key("size").index(k), *x, "m")?;
            }
            if cells.len() != 2 {
                return Err(cx.bad(
                    &p.key("cells"),
                    format!("expected 2 cell counts [nx, ny], got {}", cells.len()),
                ));
            }
            if let Some(k) = cells.iter().position(|&n| n == 0) {
                return Err(cx.bad(&p.key("cells").index(k), "must be >= 1"));
            }
            for (k, &n) in cells.iter().enumerate() {
                let what = "cells per side";
                cx.at_most(&p.key("cells").index(k), n, limits::MAX_GRID_CELLS, what)?;
            }
            let n = limits::grid_triangles(cells[0], cells[1]);
            if n > limits::MAX_MESH_TRIANGLES as u128 {
                return Err(cx.bad(
                    &p.key("cells"),
                    format!(
                        "a {} × {} grid has {n} triangles, {}",
                        cells[0],
                        cells[1],
                        limits::above(limits::MAX_MESH_TRIANGLES, "triangles per mesh")
                    ),
                ));
            }
            let m = shapes::grid(v[0], v[1], cells[0], cells[1])
                .map_err(|e| cx.bad(p, format!("mesh: {e}")))?;
            Ok((m, Some((cells[0], cells[1]))))
        }
        RawShape::Compound { .. } => {
            Err(cx.bad(&p.key("type"), "a deformable is one mesh: no compounds"))
        }
        other => {
            // Not top level, so no compound: one mesh.
            let mut m = super::spatial::mesh_shape(cx, p, other, false)?.into_iter();
            let (Some(m), None) = (m.next(), m.next()) else {
                return Err(cx.bad(p, "a deformable is one mesh"));
            };
            Ok((m, None))
        }
    }
}

fn material(cx: &Ctx, p: &FieldPath, m: &RawDeformMaterial, mesh: &TriMesh) -> Res<Material> {
    let p = p.key("material");
    let areal_density = match (m.areal_density, m.mass) {
        (Some(_), Some(_)) => {
            return Err(cx.bad(&p.key("mass"), "give `mass` or `areal_density`, not both"));
        }
        (Some(d), None) => cx.positive(&p.key("areal_density"), d, "kg/m²")?,
        (None, Some(mass)) => cx.positive(&p.key("mass"), mass, "kg")? / surface_area(mesh),
        (None, None) => {
            return Err(cx.bad(&p, "needs `areal_density` (kg/m²) or `mass` (kg)"));
        }
    };
    let stretch = m
        .stretch
        .ok_or_else(|| cx.bad(&p, "needs `stretch` (spring stiffness, N/m)"))?;
    let opt = |name: &str, v: Option<Real>| -> Res<Real> {
        v.map_or(Ok(0.0), |v| cx.non_negative(&p.key(name), v))
    };
    let pressure = opt("pressure", m.pressure)?;
    if pressure > 0.0 && !mesh.is_closed() {
        return Err(cx.bad(
            &p.key("pressure"),
            "pressure needs a closed mesh (a shell), not an open one (cloth)",
        ));
    }
    Ok(Material {
        areal_density,
        stretch: cx.non_negative(&p.key("stretch"), stretch)?,
        shear: opt("shear", m.shear)?,
        bend: opt("bend", m.bend)?,
        damping: opt("damping", m.damping)?,
        pressure,
        drag: opt("drag", m.drag)?,
    })
}

fn pins(
    cx: &Ctx,
    p: &FieldPath,
    pins: &Option<RawPins>,
    n: usize,
    grid: Option<(usize, usize)>,
) -> Res<Vec<usize>> {
    let p = p.key("pins");
    match pins {
        None => Ok(Vec::new()),
        Some(RawPins::Indices(v)) => {
            if let Some(k) = v.iter().position(|&i| i >= n) {
                return Err(cx.bad(
                    &p.index(k),
                    format!("vertex {} out of range: the mesh has {n} vertices", v[k]),
                ));
            }
            Ok(v.clone())
        }
        Some(RawPins::Named(s)) => match (s.as_str(), grid) {
            ("corners", Some((nx, ny))) => Ok(grid_corners(nx, ny).to_vec()),
            ("corners", None) => Err(cx.bad(&p, "`corners` is for `grid` shapes only")),
            ("all", _) => Ok((0..n).collect()),
            _ => Err(cx.bad(
                &p,
                format!("unknown `{s}`: vertex indices, \"corners\" or \"all\""),
            )),
        },
    }
}

/// `velocity_gradient` (three rows of three, 1/s) and `velocity_origin` (m).
fn gradient(cx: &Ctx, p: &FieldPath, d: &RawDeformable) -> Res<Option<VelocityGradient>> {
    let Some(rows) = &d.velocity_gradient else {
        if d.velocity_origin.is_some() {
            return Err(cx.bad(
                &p.key("velocity_origin"),
                "only with `velocity_gradient` (it is the point where that field is zero)",
            ));
        }
        return Ok(None);
    };
    let g = p.key("velocity_gradient");
    if rows.len() != 3 {
        return Err(cx.bad(
            &g,
            format!(
                "expected 3 rows of 3 numbers (1/s), got {} rows",
                rows.len()
            ),
        ));
    }
    let mut gradient = Mat3::zeros();
    for (i, row) in rows.iter().enumerate() {
        let r = cx.vec3(&g.index(i), row)?;
        gradient.set_row(i, &r.transpose());
    }
    let origin = cx.opt_vec3(&p.key("velocity_origin"), &d.velocity_origin)?;
    Ok(Some(VelocityGradient { gradient, origin }))
}

fn deformable(cx: &Ctx, p: &FieldPath, d: &RawDeformable, gravity: Vec3) -> Res<DeformSpec> {
    let (mesh, grid) = shape(cx, &p.key("shape"), &d.shape)?;
    let rotation = d
        .rotation
        .as_ref()
        .map(|r| cx.rotation(&p.key("rotation"), r))
        .transpose()?;
    let at = cx.opt_vec3(&p.key("position"), &d.position)?;
    let mesh = place(&mesh, rotation, at).map_err(|e| cx.bad(p, format!("mesh: {e}")))?;
    // After placement: `mass` is spread over the area of the mesh as simulated.
    let material = material(cx, p, &d.material, &mesh)?;
    let pins = pins(cx, p, &d.pins, mesh.vertices().len(), grid)?;
    let velocity = d
        .velocity
        .as_ref()
        .map(|v| cx.vec3(&p.key("velocity"), v))
        .transpose()?;
    Ok(DeformSpec {
        mesh,
        material,
        gravity,
        pins,
        velocity,
        velocity_gradient: gradient(cx, p, d)?,
    })
}

/// The `[[body]]` entry each rigid body and each obstacle of a deformable scene came from.
#[derive(Debug, Default)]
pub(super) struct Origins {
    /// Per `spec.rigid`.
    pub rigid: Vec<FieldPath>,
    /// Per `spec.obstacles`.
    pub obstacles: Vec<FieldPath>,
}

/// Every mesh of a deformable scene at the start (deformables, rigid bodies posed as
/// `MeshBody` places them, obstacles), for the initial-overlap check.
pub(super) fn mesh_entries(
    cx: &Ctx,
    d: &SceneDeformables,
    origin: &Origins,
) -> Res<Vec<super::overlap::MeshEntry>> {
    use super::overlap::MeshEntry;
    // Obstacles first, deformables last: an error points at the later entry of a pair, the
    // body placed into the other.
    let root = FieldPath::default();
    let mut out: Vec<MeshEntry> = (d.spec.obstacles.iter().zip(&d.obstacle_names))
        .zip(&origin.obstacles)
        .map(|((m, name), at)| MeshEntry {
            name: name.clone(),
            mesh: m.clone(),
            is_static: true,
            step: 0,
            origin: at.clone(),
        })
        .collect();
    for ((r, name), at) in d.spec.rigid.iter().zip(&d.rigid_names).zip(&origin.rigid) {
        let body = r.build().map_err(|e| cx.bad(&at.key("shape"), e))?;
        out.push(MeshEntry {
            name: name.clone(),
            mesh: super::spatial::posed(cx, at, &body)?,
            is_static: false,
            step: 0,
            origin: at.clone(),
        });
    }
    for (k, (b, name)) in d.spec.bodies.iter().zip(&d.names).enumerate() {
        out.push(MeshEntry {
            name: name.clone(),
            mesh: b.mesh.clone(),
            is_static: false,
            step: 0,
            origin: root.key("deformable").index(k),
        });
    }
    Ok(out)
}
