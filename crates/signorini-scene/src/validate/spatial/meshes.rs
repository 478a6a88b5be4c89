//! Rigid triangle meshes for `PenaltyWorld` (CPF / DPF / DPF-CCD): the penalty contact
//! settings, stiffness, mesh shapes (OBJ/STL files, procedural primitives) and mesh bodies.

use super::*;

/// A validated rigid triangle-mesh body (penalty scenes). [`SceneMesh::build`] makes the
/// `MeshBody`.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneMesh {
    /// Name.
    pub name: String,
    /// Static bodies: the mesh in the world frame (already placed). Dynamic bodies: the mesh as
    /// given (re-centred on its centre of mass by `MeshBody::dynamic`).
    pub mesh: TriMesh,
    /// Immovable.
    pub is_static: bool,
    /// Density (kg/m³) of a dynamic body.
    pub density: Real,
    /// Centre of mass of a dynamic body (m).
    pub position: Vec3,
    /// Orientation of a dynamic body (`None`: identity).
    pub orientation: Option<Quat>,
    /// Linear velocity (m/s).
    pub velocity: Vec3,
    /// Angular velocity (rad/s).
    pub angular_velocity: Vec3,
    /// Constant external force without gravity (N).
    pub external_force: Vec3,
    /// Gravity (m/s²), added as m·g.
    pub gravity: Vec3,
    /// When it enters the world.
    pub drop: Drop,
    /// Display colour.
    pub color: Option<String>,
}

impl SceneMesh {
    /// The penalty-world body.
    ///
    /// # Errors
    /// [`PenaltyError`] for an open mesh or bad mass properties.
    pub fn build(&self) -> Result<MeshBody, PenaltyError> {
        if self.is_static {
            return Ok(MeshBody::fixed(self.mesh.clone()));
        }
        // The same construction as a deformable scene's rigid body.
        signorini_harness::deform_build::RigidSpec {
            mesh: self.mesh.clone(),
            density: self.density,
            position: self.position,
            orientation: self.orientation,
            velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            external_force: self.external_force,
            gravity: self.gravity,
        }
        .body()
    }
}

/// `[contact]` of a penalty scene.
pub(crate) fn penalty_contact(
    cx: &Ctx,
    c: &RawContact,
    model: Model,
) -> Res<crate::validate::ContactSettings> {
    let p = FieldPath::default().key("contact");
    // A nonsense distance (negative, zero, NaN) is named as such before the model rule.
    for (name, v) in [
        ("peg_distance", c.peg_distance),
        ("standard_distance", c.standard_distance),
    ] {
        if let Some(d) = v {
            cx.positive(&p.key(name), d, "m")?;
        }
    }
    for (name, given) in [
        ("solver", c.solver.is_some()),
        ("gap_corrections", c.gap_corrections.is_some()),
        ("paper", c.paper.is_some()),
        ("mixed_fallback", c.mixed_fallback.is_some()),
        ("keep_best_on_failure", c.keep_best_on_failure.is_some()),
        ("peg_distance", c.peg_distance.is_some()),
        ("standard_distance", c.standard_distance.is_some()),
    ] {
        if given {
            return Err(cx.bad(
                &p.key(name),
                format!(
                    "not for the penalty model `{}` (closed-form impulses, no LCP)",
                    model.name()
                ),
            ));
        }
    }
    if let Some(f) = c.friction {
        cx.non_negative(&p.key("friction"), f)?;
    }
    let stiffness = c
        .stiffness
        .map(|k| cx.positive(&p.key("stiffness"), k, "N/m"))
        .transpose()?;
    let thickness = c
        .thickness
        .map(|d| cx.non_negative(&p.key("thickness"), d))
        .transpose()?;
    let stiffness_perturbation = match &c.stiffness_perturbation {
        None => None,
        Some(r) => {
            let q = p.key("stiffness_perturbation");
            let a = cx.non_negative(&q.key("amplitude"), r.amplitude)?;
            if a >= 1.0 {
                return Err(cx.bad(
                    &q.key("amplitude"),
                    format!(
                        "must be below 1 (the stiffness k (1 + a sin …) must stay > 0), got {a}"
                    ),
                ));
            }
            Some((a, cx.non_negative(&q.key("frequency"), r.frequency)?))
        }
    };
    Ok(crate::validate::ContactSettings {
        model,
        friction: c.friction.unwrap_or(0.0),
        solver: signorini_complementarity::SolverKind::Auto,
        gap_corrections: None,
        paper: false,
        mixed_fallback: None,
        keep_best_on_failure: None,
        peg_distance: None,
        standard_distance: None,
        vertex_vertex: Default::default(),
        peg_form: Default::default(),
        x_impulse: Default::default(),
        stiffness,
        thickness,
        stiffness_perturbation,
    })
}

/// The penalty stiffness: `contact.stiffness`, else the one value all used materials agree on;
/// required for penalty models.
pub(crate) fn stiffness(
    cx: &Ctx,
    raw: &RawScene,
    c: &crate::validate::ContactSettings,
    materials: &BTreeMap<String, RawMaterial>,
) -> Res<Option<Real>> {
    let root = FieldPath::default();
    let mut seen = c.stiffness;
    for name in raw.body.iter().filter_map(|b| b.material.as_ref()) {
        let Some(k) = materials.get(name).and_then(|m| m.stiffness) else {
            continue;
        };
        let here = root.key("materials").key(name).key("stiffness");
        if !c.model.is_penalty() {
            return Err(cx.bad(&here, "only for the penalty models (cpf, dpf, dpf-ccd)"));
        }
        match seen {
            Some(g) if g != k => {
                return Err(cx.unsupported(
                    &here,
                    format!(
                        "per-material stiffness ({k} here, {g} elsewhere): the penalty world has \
                         one stiffness per pair; set `contact.stiffness`"
                    ),
                ));
            }
            _ => seen = Some(k),
        }
    }
    if c.model.is_penalty() && seen.is_none() {
        return Err(cx.bad(
            &root.key("contact").key("stiffness"),
            format!(
                "the penalty model `{}` needs a stiffness per feature pair (N/m)",
                c.model.name()
            ),
        ));
    }
    Ok(seen)
}

/// A triangle mesh from a shape (penalty scenes), in the body frame.
pub(crate) fn mesh_shape(cx: &Ctx, p: &FieldPath, s: &RawShape, top: bool) -> Res<Vec<TriMesh>> {
    let bad_mesh = |at: &FieldPath, e: &dyn std::fmt::Display| cx.bad(at, format!("mesh: {e}"));
    match s {
        RawShape::Box { size, center } => {
            let v = cx.vec3(&p.key("size"), size)?;
            for k in 0..3 {
                cx.positive(&p.key("size").index(k), v[k], "m")?;
            }
            let m = shapes::cuboid(v / 2.0).map_err(|e| bad_mesh(p, &e))?;
            match center {
                Some(o) => {
                    let o = cx.vec3(&p.key("center"), o)?;
                    Ok(vec![m.map(|q| q + o).map_err(|e| bad_mesh(p, &e))?])
                }
                None => Ok(vec![m]),
            }
        }
        RawShape::Primitive(prim) => Ok(vec![primitive(cx, p, prim)?]),
        RawShape::Mesh { file, scale } => {
            let path = cx.dir.join(file);
            let m = mesh_io::load(&path).map_err(|e| bad_mesh(&p.key("file"), &e))?;
            cx.at_most(
                &p.key("file"),
                m.triangles().len(),
                limits::MAX_MESH_TRIANGLES,
                "triangles per mesh",
            )?;
            match scale {
                None => Ok(vec![m]),
                Some(f) => {
                    let f = cx.positive(&p.key("scale"), *f, "")?;
                    Ok(vec![
                        m.map(|q| q * f)
                            .map_err(|e| bad_mesh(&p.key("scale"), &e))?,
                    ])
                }
            }
        }
        RawShape::Compound { parts } => {
            if !top {
                return Err(cx.bad(&p.key("parts"), "compounds cannot be nested"));
            }
            if parts.is_empty() {
                return Err(cx.bad(&p.key("parts"), "needs at least one part"));
            }
            let mut out = Vec::new();
            for (k, part) in parts.iter().enumerate() {
                out.extend(mesh_shape(cx, &p.key("parts").index(k), part, false)?);
            }
            Ok(out)
        }
        RawShape::Polyhedron { .. } | RawShape::ConvexHull { .. } => Err(cx.bad(
            &p.key("type"),
            "convex polyhedra need a complementarity model (peg, standard, corrective); \
             penalty models act on triangle meshes (box, primitive, mesh)",
        )),
        RawShape::Polygon { .. } | RawShape::Rectangle { .. } | RawShape::RegularPolygon { .. } => {
            Err(cx.bad(&p.key("type"), "a 2D shape in a 3D scene"))
        }
        RawShape::Grid { .. } => Err(grid_not_here(cx, p)),
    }
}

/// A `grid` outside `[[deformable]]`.
pub(crate) fn grid_not_here(cx: &Ctx, p: &FieldPath) -> crate::error::SceneError {
    cx.bad(
        &p.key("type"),
        "a grid is a cloth: only for `[[deformable]]` bodies",
    )
}

/// A procedural mesh (`signorini_geometry::mesh::shapes`). Which fields a kind takes is the
/// type's business (`RawPrimitive`: serde rejects any other); here the values are checked.
fn primitive(cx: &Ctx, p: &FieldPath, prim: &RawPrimitive) -> Res<TriMesh> {
    let kind = prim.kind();
    let length = |name: &str, v: Real| cx.positive(&p.key(name), v, "m");
    let bad_mesh = |e: &dyn std::fmt::Display| cx.bad(p, format!("mesh: {e}"));
    let count = |name: &str, v: Option<usize>, default: usize, min: usize| -> Res<usize> {
        let max = match name {
            "segments" => limits::MAX_SEGMENTS,
            "rings" => limits::MAX_RINGS,
            _ => limits::MAX_STACKS,
        };
        match v {
            Some(n) if n < min => Err(cx.bad(&p.key(name), format!("must be >= {min}"))),
            Some(n) => cx.at_most(&p.key(name), n, max, name),
            None => Ok(default),
        }
    };
    // The mesh's triangle count, checked before it is built.
    let triangles = |segments: usize, rings: usize, stacks: usize| -> Res<()> {
        let n = limits::primitive_triangles(kind, segments, rings, stacks);
        if n > limits::MAX_MESH_TRIANGLES as u128 {
            return Err(cx.bad(
                p,
                format!(
                    "primitive `{kind}` would have {n} triangles, {}",
                    limits::above(limits::MAX_MESH_TRIANGLES, "triangles per mesh")
                ),
            ));
        }
        Ok(())
    };
    match prim {
        RawPrimitive::Box { size } => {
            let v = cx.vec3(&p.key("size"), size)?;
            for k in 0..3 {
                cx.positive(&p.key("size").index(k), v[k], "m")?;
            }
            shapes::cuboid(v / 2.0).map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Sphere {
            radius,
            segments,
            rings,
        }
        | RawPrimitive::RoundedBox {
            radius,
            segments,
            rings,
        } => {
            let r = length("radius", *radius)?;
            let (n, m) = (
                count("segments", *segments, 24, 3)?,
                count("rings", *rings, 12, 2)?,
            );
            triangles(n, m, 0)?;
            if matches!(prim, RawPrimitive::Sphere { .. }) {
                shapes::sphere(r, n, m)
            } else {
                shapes::rounded_box(r, n, m)
            }
            .map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::CubeSphere { radius, segments }
        | RawPrimitive::RoundedCube { radius, segments } => {
            let r = length("radius", *radius)?;
            let n = count("segments", *segments, 8, 1)?;
            triangles(n, 0, 0)?;
            if matches!(prim, RawPrimitive::CubeSphere { .. }) {
                shapes::cube_sphere(r, n)
            } else {
                shapes::rounded_cube(r, n)
            }
            .map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Torus {
            radius,
            tube_radius,
            segments,
            rings,
        } => {
            let (r, tr) = (
                length("radius", *radius)?,
                length("tube_radius", *tube_radius)?,
            );
            if tr >= r {
                return Err(cx.bad(
                    &p.key("tube_radius"),
                    format!("must be below `radius` ({r} m) for a ring-shaped torus"),
                ));
            }
            let (n, m) = (
                count("segments", *segments, 32, 3)?,
                count("rings", *rings, 16, 3)?,
            );
            triangles(n, m, 0)?;
            shapes::torus(r, tr, n, m).map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Cylinder {
            radius,
            length: l,
            segments,
        } => {
            let n = count("segments", *segments, 24, 3)?;
            triangles(n, 0, 0)?;
            shapes::cylinder(length("radius", *radius)?, length("length", *l)?, n)
                .map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Stick {
            length: l,
            thickness,
        } => shapes::stick(length("length", *l)?, length("thickness", *thickness)?)
            .map_err(|e| bad_mesh(&e)),
        RawPrimitive::Plane { size, thickness } => {
            let v = cx.vector(&p.key("size"), size, 2)?;
            for (k, &x) in v.iter().enumerate() {
                cx.positive(&p.key("size").index(k), x, "m")?;
            }
            let d = length("thickness", thickness.unwrap_or(1.0))?;
            shapes::cuboid(Vec3::new(v[0] / 2.0, v[1] / 2.0, d / 2.0))
                .and_then(|m| m.map(|q| q + Vec3::new(0.0, 0.0, -d / 2.0)))
                .map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Bucket {
            radius,
            length: l,
            segments,
            rings,
            stacks,
        } => {
            let (n, m, s) = (
                count("segments", *segments, 32, 3)?,
                count("rings", *rings, 4, 1)?,
                count("stacks", *stacks, 8, 1)?,
            );
            triangles(n, m, s)?;
            shapes::bucket(length("radius", *radius)?, length("length", *l)?, n, m, s)
                .map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Bowl {
            radius,
            segments,
            rings,
        } => {
            let (n, m) = (
                count("segments", *segments, 32, 3)?,
                count("rings", *rings, 8, 1)?,
            );
            triangles(n, m, 0)?;
            shapes::bowl(length("radius", *radius)?, n, m).map_err(|e| bad_mesh(&e))
        }
        RawPrimitive::Octopus {
            radius,
            length: l,
            segments,
            rings,
        } => {
            let (n, m) = (
                count("segments", *segments, 2, 1)?,
                count("rings", *rings, 16, 1)?,
            );
            triangles(n, m, 0)?;
            shapes::octopus(length("radius", *radius)?, length("length", *l)?, n, m)
                .map_err(|e| bad_mesh(&e))
        }
    }
}

/// One `[[body]]` of a penalty scene (a compound gives one static mesh per part).
pub(crate) fn mesh_body(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &BTreeMap<String, RawMaterial>,
    gravity: Vec3,
) -> Res<Vec<SceneMesh>> {
    let (name, material, color) = body::header(cx, p, k, b, materials)?;
    no_2d_fields(cx, p, b)?;
    let is_static = b.is_static.unwrap_or(false);
    let parts = mesh_shape(cx, &p.key("shape"), &b.shape, true)?;
    let position = b
        .position
        .as_ref()
        .map(|v| cx.vec3(&p.key("position"), v))
        .transpose()?;
    let orientation = b
        .rotation
        .as_ref()
        .map(|r| cx.rotation(&p.key("rotation"), r))
        .transpose()?;
    let drops = drops(cx, p, b)?;
    if is_static && drops.len() > 1 {
        return Err(cx.bad(&p.key("copies"), "a static body is added once"));
    }
    let template = SceneMesh {
        name: name.clone(),
        mesh: parts[0].clone(),
        is_static,
        density: 0.0,
        position: position.unwrap_or_else(Vec3::zeros),
        orientation,
        velocity: Vec3::zeros(),
        angular_velocity: Vec3::zeros(),
        external_force: Vec3::zeros(),
        gravity,
        drop: drops[0],
        color,
    };
    if is_static {
        static_has_none(cx, p, b)?;
        let n = parts.len();
        let mut out = Vec::new();
        for (i, m) in parts.into_iter().enumerate() {
            // Rotate, then translate; a missing pose leaves the coordinates untouched.
            let placed = m
                .map(|q| {
                    let q = orientation.map_or(*q, |r| r * q);
                    position.map_or(q, |x| q + x)
                })
                .map_err(|e| cx.bad(&p.key("shape"), format!("mesh: {e}")))?;
            out.push(SceneMesh {
                name: named(&name, n, i),
                mesh: placed,
                ..template.clone()
            });
        }
        return Ok(out);
    }
    if parts.len() > 1 {
        return Err(cx.bad(
            &p.key("shape"),
            "a compound must be static (a dynamic mesh body is one mesh)",
        ));
    }
    if b.inertia.is_some() {
        return Err(cx.bad(
            &p.key("inertia"),
            "a mesh body's inertia comes from its closed mesh: give `density` or `mass`",
        ));
    }
    let mesh = &parts[0];
    let volume = mass_properties(mesh, 1.0)
        .map_err(|e| {
            cx.bad(
                &p.key("shape"),
                format!("a dynamic mesh must be closed with positive volume: {e}"),
            )
        })?
        .volume;
    let density = b.density.or_else(|| material.and_then(|m| m.density));
    let density = match (b.mass, density) {
        (Some(_), Some(_)) if b.density.is_some() => {
            return Err(cx.bad(&p.key("density"), "give `mass` or `density`, not both"));
        }
        (Some(m), _) => cx.positive(&p.key("mass"), m, "kg")? / volume,
        (None, Some(d)) => {
            let at = if b.density.is_some() {
                p.key("density")
            } else {
                p.key("material")
            };
            cx.positive(&at, d, "kg/m³")?
        }
        (None, None) => {
            return Err(cx.bad(
                p,
                "a dynamic body needs `mass` or `density` (here or in its material)",
            ));
        }
    };
    let out = SceneMesh {
        density,
        velocity: cx.opt_vec3(&p.key("velocity"), &b.velocity)?,
        angular_velocity: cx.opt_vec3(&p.key("angular_velocity"), &b.angular_velocity)?,
        external_force: cx.opt_vec3(&p.key("external_force"), &b.external_force)?,
        ..template
    };
    out.build()
        .map_err(|e| cx.bad(&p.key("shape"), e.to_string()))?;
    let n = drops.len();
    Ok(drops
        .into_iter()
        .enumerate()
        .map(|(i, drop)| SceneMesh {
            name: named(&name, n, i),
            drop,
            ..out.clone()
        })
        .collect())
}

/// The meshes of a rigid penalty scene where they enter the world (dynamic bodies posed as
/// `MeshBody` places them), for the initial-overlap check. `origin[k]`: the entry mesh k came
/// from.
pub(crate) fn mesh_entries(
    cx: &Ctx,
    meshes: &[SceneMesh],
    origin: &[FieldPath],
    h: Real,
) -> Res<Vec<crate::validate::overlap::MeshEntry>> {
    meshes
        .iter()
        .zip(origin)
        .map(|(m, at)| {
            let body = m
                .build()
                .map_err(|e| cx.bad(&at.key("shape"), e.to_string()))?;
            Ok(crate::validate::overlap::MeshEntry {
                name: m.name.clone(),
                mesh: posed(cx, at, &body)?,
                is_static: m.is_static,
                step: m.drop.step(h),
                origin: at.clone(),
            })
        })
        .collect()
}

/// A mesh body's mesh in the world frame.
pub(crate) fn posed(cx: &Ctx, at: &FieldPath, b: &MeshBody) -> Res<TriMesh> {
    TriMesh::new(b.world_vertices(), b.mesh().triangles().to_vec())
        .map_err(|e| cx.bad(&at.key("shape"), format!("mesh: {e}")))
}
