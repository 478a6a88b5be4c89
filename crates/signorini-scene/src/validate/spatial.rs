//! 3D scenes: rigid convex polyhedra for `World3` (PEG / standard / corrective) and rigid
//! triangle meshes for `PenaltyWorld` (CPF / DPF / DPF-CCD). A child module of `validate`, so
//! it shares its located-error context and the 2D rules for names, materials and drops.

use super::planar::drops;
use super::{Ctx, Drop, Model, Res, compound, lattice};
use crate::error::FieldPath;
use crate::limits;
use crate::raw::{RawBody, RawContact, RawInertia, RawMaterial, RawRotation, RawScene, RawShape};
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_geometry::mesh::{TriMesh, io as mesh_io, mass::mass_properties, shapes};
use signorini_harness::polyhedra::{Bodies, hull_body};
use signorini_math::nalgebra::Unit;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::PolyBody;
use signorini_world::penalty::{MeshBody, PenaltyError};
use std::collections::BTreeMap;

/// A validated 3D rigid polyhedron.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneBody3 {
    /// Name (parts of a compound get `name.k`, copies `name.k`).
    pub name: String,
    /// The body, posed, with gravity in its external force.
    pub body: PolyBody,
    /// When it enters the world.
    pub drop: Drop,
    /// Display colour.
    pub color: Option<String>,
}

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
        let mut b = MeshBody::dynamic(&self.mesh, self.density, self.position)?;
        if let Some(q) = self.orientation {
            b.state.orientation = q;
        }
        b.state.linear_velocity = self.velocity;
        b.state.angular_velocity = self.angular_velocity;
        b.state.external_force = self.external_force;
        add_gravity3(&mut b.state.external_force, b.state.mass, self.gravity);
        Ok(b)
    }
}

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

/// `[contact]` of a penalty scene.
pub(super) fn penalty_contact(
    cx: &Ctx,
    c: &RawContact,
    model: Model,
) -> Res<super::ContactSettings> {
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
    Ok(super::ContactSettings {
        model,
        friction: c.friction.unwrap_or(0.0),
        solver: signorini_complementarity::SolverKind::Auto,
        gap_corrections: None,
        paper: false,
        mixed_fallback: None,
        keep_best_on_failure: None,
        peg_distance: None,
        standard_distance: None,
        stiffness,
        thickness,
        stiffness_perturbation,
    })
}

/// The penalty stiffness: `contact.stiffness`, else the one value all used materials agree on;
/// required for penalty models.
pub(super) fn stiffness(
    cx: &Ctx,
    raw: &RawScene,
    c: &super::ContactSettings,
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

/// What every 3D `[[body]]` reads first: its name (default `body<k>`), its material (after
/// rejecting the 2D-only fields) and its report colour (the body's, else the material's).
fn header<'m>(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &'m BTreeMap<String, RawMaterial>,
) -> Res<(String, Option<&'m RawMaterial>, Option<String>)> {
    let name = b.name.clone().unwrap_or_else(|| format!("body{k}"));
    let material = material(cx, p, b, materials)?;
    no_2d_fields(cx, p, b)?;
    let color = b
        .color
        .clone()
        .or_else(|| material.and_then(|m| m.color.clone()));
    Ok((name, material, color))
}

fn material<'m>(
    cx: &Ctx,
    p: &FieldPath,
    b: &RawBody,
    materials: &'m BTreeMap<String, RawMaterial>,
) -> Res<Option<&'m RawMaterial>> {
    match &b.material {
        None => Ok(None),
        Some(m) => materials.get(m).map(Some).ok_or_else(|| {
            let known: Vec<&str> = materials.keys().map(String::as_str).collect();
            cx.bad(
                &p.key("material"),
                if known.is_empty() {
                    format!(
                        "unknown material `{m}` (the scene defines no [materials.<name>] table)"
                    )
                } else {
                    format!("unknown material `{m}` (defined: {})", known.join(", "))
                },
            )
        }),
    }
}

fn static_has_none(cx: &Ctx, p: &FieldPath, b: &RawBody) -> Res<()> {
    for (field, given) in [
        ("mass", b.mass.is_some()),
        ("inertia", b.inertia.is_some()),
        ("density", b.density.is_some()),
        ("velocity", b.velocity.is_some()),
        ("angular_velocity", b.angular_velocity.is_some()),
        ("external_force", b.external_force.is_some()),
    ] {
        if given {
            return Err(cx.bad(&p.key(field), "a static body has none (it never moves)"));
        }
    }
    Ok(())
}

fn named(name: &str, n: usize, i: usize) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name}.{i}")
    }
}

/// The convex parts of a 3D polyhedral shape.
fn shape3(cx: &Ctx, p: &FieldPath, s: &RawShape, top: bool) -> Res<Vec<ConvexPolyhedron>> {
    let geo = |at: &FieldPath, e: signorini_geometry::dim3::PolyhedronError| {
        cx.bad(at, format!("degenerate polyhedron: {e}"))
    };
    match s {
        RawShape::Box { size, center } => {
            let v = cx.vec3(&p.key("size"), size)?;
            for k in 0..3 {
                cx.positive(&p.key("size").index(k), v[k], "m")?;
            }
            let c = ConvexPolyhedron::cuboid(v / 2.0).map_err(|e| geo(p, e))?;
            match center {
                Some(o) => Ok(vec![c.translated(&cx.vec3(&p.key("center"), o)?)]),
                None => Ok(vec![c]),
            }
        }
        RawShape::Polyhedron { vertices } => {
            let at = p.key("vertices");
            let pts = cx.points3(&at, vertices)?;
            for (j, q) in pts.iter().enumerate() {
                if let Some(k) = pts[..j].iter().position(|r| r == q) {
                    return Err(cx.bad(
                        &at.index(j),
                        format!("duplicate points {k} and {j}: list each corner once"),
                    ));
                }
            }
            let hull = ConvexPolyhedron::from_points(&pts).map_err(|e| geo(&at, e))?;
            if let Some(k) = pts.iter().position(|q| !hull.vertices().contains(q)) {
                return Err(cx.bad(
                    &at.index(k),
                    format!(
                        "not convex: vertex {k} is not a corner of the convex hull of the vertices \
                         (inside it, or on a face or edge); list only corners, or use \
                         `type = \"convex_hull\"` with `points`"
                    ),
                ));
            }
            Ok(vec![hull])
        }
        RawShape::ConvexHull { points } => {
            let at = p.key("points");
            let mut pts = cx.points3(&at, points)?;
            // A repeated point adds nothing to a hull (the first of each is kept).
            let mut k = 0;
            while k < pts.len() {
                if pts[..k].contains(&pts[k]) {
                    pts.remove(k);
                } else {
                    k += 1;
                }
            }
            Ok(vec![
                ConvexPolyhedron::from_points(&pts).map_err(|e| geo(&at, e))?,
            ])
        }
        RawShape::Compound { parts } => compound(cx, p, parts, top, shape3),
        RawShape::Mesh { .. } | RawShape::Primitive { .. } => Err(cx.bad(
            &p.key("type"),
            "triangle meshes need a penalty model (`contact.model` = cpf, dpf or dpf-ccd); \
             PEG/standard/corrective act on convex polyhedra",
        )),
        RawShape::Polygon { .. } | RawShape::Rectangle { .. } | RawShape::RegularPolygon { .. } => {
            Err(cx.bad(
                &p.key("type"),
                "a 2D shape in a 3D scene (use box, polyhedron, convex_hull or compound)",
            ))
        }
        RawShape::Grid { .. } => Err(grid_not_here(cx, p)),
    }
}

/// One `[[body]]` of a polyhedra scene (a compound gives one static body per part; `copies`
/// give one body per copy).
pub(super) fn body3(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &BTreeMap<String, RawMaterial>,
    gravity: Vec3,
) -> Res<Vec<SceneBody3>> {
    let (name, material, color) = header(cx, p, k, b, materials)?;
    let is_static = b.is_static.unwrap_or(false);
    let parts = shape3(cx, &p.key("shape"), &b.shape, true)?;
    let position = cx.opt_vec3(&p.key("position"), &b.position)?;
    let orientation = b
        .rotation
        .as_ref()
        .map(|r| cx.rotation(&p.key("rotation"), r))
        .transpose()?
        .unwrap_or_else(Quat::identity);
    let drops = drops(cx, p, b)?;
    if is_static {
        static_has_none(cx, p, b)?;
        if drops.len() > 1 {
            return Err(cx.bad(&p.key("copies"), "a static body is added once"));
        }
        let n = parts.len();
        return Ok(parts
            .into_iter()
            .enumerate()
            .map(|(i, part)| SceneBody3 {
                name: named(&name, n, i),
                body: PolyBody::fixed(part).with_pose(position, orientation),
                drop: drops[0],
                color: color.clone(),
            })
            .collect());
    }
    if parts.len() > 1 {
        return Err(cx.bad(
            &p.key("shape"),
            "a compound must be static (dynamic bodies are one convex polyhedron)",
        ));
    }
    let shape = parts.into_iter().next().expect("one part");
    let mut body = dynamic3(cx, p, b, material, shape)?.with_pose(position, orientation);
    let v = cx.opt_vec3(&p.key("velocity"), &b.velocity)?;
    let w = cx.opt_vec3(&p.key("angular_velocity"), &b.angular_velocity)?;
    body = body.with_velocity(v, w);
    body.state.external_force = cx.opt_vec3(&p.key("external_force"), &b.external_force)?;
    add_gravity3(&mut body.state.external_force, body.state.mass, gravity);
    let n = drops.len();
    Ok(drops
        .into_iter()
        .enumerate()
        .map(|(i, drop)| SceneBody3 {
            name: named(&name, n, i),
            body: body.clone(),
            drop,
            color: color.clone(),
        })
        .collect())
}

/// Mass properties of a 3D body: `mass` + `inertia` (shape kept as given: its origin must be
/// the centre of mass), or a density / `mass` alone (shape re-centred on its centroid).
fn dynamic3(
    cx: &Ctx,
    p: &FieldPath,
    b: &RawBody,
    material: Option<&RawMaterial>,
    shape: ConvexPolyhedron,
) -> Res<PolyBody> {
    let inertia = match &b.inertia {
        None => None,
        Some(RawInertia::Scalar(_)) => {
            return Err(cx.bad(
                &p.key("inertia"),
                "a 3D inertia is a diagonal [Ixx, Iyy, Izz] or a 3×3 matrix (kg m²)",
            ));
        }
        Some(RawInertia::Diagonal(d)) => {
            let d = cx.vec3(&p.key("inertia"), d)?;
            for k in 0..3 {
                cx.positive(&p.key("inertia").index(k), d[k], "kg m²")?;
            }
            Some(Mat3::from_diagonal(&d))
        }
        Some(RawInertia::Matrix(m)) => {
            if m.len() != 3 {
                return Err(cx.bad(&p.key("inertia"), "expected 3 rows"));
            }
            let mut j = Mat3::zeros();
            for (r, row) in m.iter().enumerate() {
                let row = cx.vec3(&p.key("inertia").index(r), row)?;
                j.set_row(r, &row.transpose());
            }
            Some(j)
        }
    };
    let density = b.density.or_else(|| material.and_then(|m| m.density));
    let body_err = |at: &FieldPath, e: &dyn std::fmt::Display| cx.bad(at, e.to_string());
    match (b.mass, inertia, density) {
        (Some(_), _, Some(_)) if b.density.is_some() => Err(cx.bad(
            &p.key("density"),
            "give `mass` (and `inertia`) or `density`, not both",
        )),
        (Some(m), Some(j), _) => {
            let m = cx.positive(&p.key("mass"), m, "kg")?;
            PolyBody::dynamic(shape, m, j).map_err(|e| body_err(&p.key("inertia"), &e))
        }
        (None, Some(_), _) => Err(cx.bad(&p.key("inertia"), "needs `mass` too")),
        (Some(m), None, _) => {
            let m = cx.positive(&p.key("mass"), m, "kg")?;
            PolyBody::from_density(&shape, m / shape.volume())
                .map_err(|e| body_err(&p.key("mass"), &e))
        }
        (None, None, Some(d)) => {
            let at = if b.density.is_some() {
                p.key("density")
            } else {
                p.key("material")
            };
            let d = cx.positive(&at, d, "kg/m³")?;
            PolyBody::from_density(&shape, d).map_err(|e| body_err(&at, &e))
        }
        (None, None, None) => Err(cx.bad(
            p,
            "a dynamic body needs `mass` (and optionally `inertia`) or `density` (here or in its material)",
        )),
    }
}

/// `[[body_set]]` in a polyhedra scene: point sets in the format of
/// `data/peg3d/random_polyhedra.json`, each body the hull of one set (as pour3d's
/// random bodies: `hull_body`), dropped in order with one pose and velocity.
pub(super) fn body_sets3(cx: &Ctx, raw: &RawScene, gravity: Vec3) -> Res<Vec<SceneBody3>> {
    let mut out = Vec::new();
    for (i, s) in raw.body_set.iter().enumerate() {
        let p = FieldPath::default().key("body_set").index(i);
        if s.add_gravity.is_some() {
            return Err(cx.bad(
                &p.key("add_gravity"),
                "3D point sets carry no forces: the scene's gravity is always added",
            ));
        }
        let path = cx.dir.join(&s.file);
        let label = path
            .file_stem()
            .map(|x| x.to_string_lossy().into_owned())
            .unwrap_or_default();
        let points = match Bodies::read(&label, &path) {
            Ok(Bodies::Random { points, .. }) => points,
            Ok(Bodies::Icosahedra) => unreachable!("read gives point sets"),
            Err(e) => return Err(cx.bad(&p.key("file"), e.to_string())),
        };
        let first = s.first.unwrap_or(0);
        if first >= points.len() {
            return Err(cx.bad(
                &p.key("first"),
                format!("the file has {} point sets", points.len()),
            ));
        }
        let n = match s.count {
            Some(0) => return Err(cx.bad(&p.key("count"), "must be >= 1")),
            Some(c) if first + c > points.len() => {
                return Err(cx.bad(
                    &p.key("count"),
                    format!(
                        "sets {first}..{} asked for, the file has {}",
                        first + c - 1,
                        points.len()
                    ),
                ));
            }
            Some(c) => c,
            None => points.len() - first,
        };
        let radius = cx.positive(
            &p.key("circumradius"),
            s.circumradius.ok_or_else(|| {
                cx.bad(&p, "a 3D body set needs `circumradius` (m) and `mass` (kg)")
            })?,
            "m",
        )?;
        let mass = cx.positive(
            &p.key("mass"),
            s.mass
                .ok_or_else(|| cx.bad(&p, "a 3D body set needs `mass` (kg)"))?,
            "kg",
        )?;
        let start = cx.non_negative(&p.key("start"), s.start.unwrap_or(0.0))?;
        let interval = cx.positive(&p.key("interval"), s.interval.unwrap_or(0.25), "s")?;
        let position = cx.opt_vec3(&p.key("position"), &s.position)?;
        let orientation = s
            .rotation
            .as_ref()
            .map(|r| cx.rotation(&p.key("rotation"), r))
            .transpose()?
            .unwrap_or_else(Quat::identity);
        let v = cx.opt_vec3(&p.key("velocity"), &s.velocity)?;
        let w = cx.opt_vec3(&p.key("angular_velocity"), &s.angular_velocity)?;
        let lat = lattice::lattice(cx, &p, s)?;
        for k in 0..n {
            let idx = first + k;
            let body = hull_body(&points[idx], radius, mass).map_err(|e| {
                cx.bad(
                    &p.key("file"),
                    format!("point set {idx}: degenerate polyhedron: {e}"),
                )
            })?;
            let at = lat.as_ref().map_or(position, |l| l.site3(k));
            let mut body = body.with_pose(at, orientation).with_velocity(v, w);
            add_gravity3(&mut body.state.external_force, body.state.mass, gravity);
            out.push(SceneBody3 {
                name: format!("{label}.{idx}"),
                body,
                drop: lattice::drop_of(lat.as_ref(), start, interval, k),
                color: s.color.clone(),
            });
        }
    }
    Ok(out)
}

/// A triangle mesh from a shape (penalty scenes), in the body frame.
pub(super) fn mesh_shape(cx: &Ctx, p: &FieldPath, s: &RawShape, top: bool) -> Res<Vec<TriMesh>> {
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
        RawShape::Primitive { .. } => Ok(vec![primitive(cx, p, s)?]),
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
pub(super) fn grid_not_here(cx: &Ctx, p: &FieldPath) -> crate::error::SceneError {
    cx.bad(
        &p.key("type"),
        "a grid is a cloth: only for `[[deformable]]` bodies",
    )
}

/// A procedural mesh (`signorini_geometry::mesh::shapes`).
fn primitive(cx: &Ctx, p: &FieldPath, s: &RawShape) -> Res<TriMesh> {
    let RawShape::Primitive {
        kind,
        radius,
        tube_radius,
        size,
        length,
        thickness,
        segments,
        rings,
        stacks,
    } = s
    else {
        unreachable!("called on primitives")
    };
    let need = |name: &str, v: Option<Real>| -> Res<Real> {
        let v = v.ok_or_else(|| cx.bad(p, format!("primitive `{kind}` needs `{name}` (m)")))?;
        cx.positive(&p.key(name), v, "m")
    };
    let unused = |names: &[(&str, bool)]| -> Res<()> {
        match names.iter().find(|(_, given)| *given) {
            Some((n, _)) => Err(cx.bad(&p.key(n), format!("not used by primitive `{kind}`"))),
            None => Ok(()),
        }
    };
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
    let (t, sz, ln, tb, sg, rg, st) = (
        thickness.is_some(),
        size.is_some(),
        length.is_some(),
        tube_radius.is_some(),
        segments.is_some(),
        rings.is_some(),
        stacks.is_some(),
    );
    let kind = kind.trim().to_ascii_lowercase();
    // The mesh's triangle count, checked before it is built.
    let triangles = |segments: usize, rings: usize, stacks: usize| -> Res<()> {
        let n = limits::primitive_triangles(&kind, segments, rings, stacks);
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
    match kind.as_str() {
        "box" => {
            unused(&[
                ("stacks", st),
                ("radius", radius.is_some()),
                ("tube_radius", tb),
                ("length", ln),
                ("thickness", t),
                ("segments", sg),
                ("rings", rg),
            ])?;
            let v = size
                .as_ref()
                .ok_or_else(|| cx.bad(p, "primitive `box` needs `size` [x, y, z] (m)"))?;
            let v = cx.vec3(&p.key("size"), v)?;
            for k in 0..3 {
                cx.positive(&p.key("size").index(k), v[k], "m")?;
            }
            shapes::cuboid(v / 2.0).map_err(|e| bad_mesh(&e))
        }
        "sphere" | "rounded_box" | "cube_sphere" | "rounded_cube" => {
            let uv = matches!(kind.as_str(), "sphere" | "rounded_box");
            unused(&[
                ("stacks", st),
                ("size", sz),
                ("tube_radius", tb),
                ("length", ln),
                ("thickness", t),
                ("rings", rg && !uv),
            ])?;
            let r = need("radius", *radius)?;
            let (n, m) = if uv {
                (
                    count("segments", *segments, 24, 3)?,
                    count("rings", *rings, 12, 2)?,
                )
            } else {
                (count("segments", *segments, 8, 1)?, 0)
            };
            triangles(n, m, 0)?;
            match kind.as_str() {
                "sphere" => shapes::sphere(r, n, m),
                "rounded_box" => shapes::rounded_box(r, n, m),
                "cube_sphere" => shapes::cube_sphere(r, n),
                _ => shapes::rounded_cube(r, n),
            }
            .map_err(|e| bad_mesh(&e))
        }
        "torus" => {
            unused(&[
                ("size", sz),
                ("length", ln),
                ("thickness", t),
                ("stacks", st),
            ])?;
            let (r, tr) = (need("radius", *radius)?, need("tube_radius", *tube_radius)?);
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
        "cylinder" => {
            unused(&[
                ("stacks", st),
                ("size", sz),
                ("tube_radius", tb),
                ("thickness", t),
                ("rings", rg),
            ])?;
            let n = count("segments", *segments, 24, 3)?;
            triangles(n, 0, 0)?;
            shapes::cylinder(need("radius", *radius)?, need("length", *length)?, n)
                .map_err(|e| bad_mesh(&e))
        }
        "stick" => {
            unused(&[
                ("stacks", st),
                ("radius", radius.is_some()),
                ("size", sz),
                ("tube_radius", tb),
                ("segments", sg),
                ("rings", rg),
            ])?;
            shapes::stick(need("length", *length)?, need("thickness", *thickness)?)
                .map_err(|e| bad_mesh(&e))
        }
        "plane" => {
            unused(&[
                ("stacks", st),
                ("radius", radius.is_some()),
                ("tube_radius", tb),
                ("length", ln),
                ("segments", sg),
                ("rings", rg),
            ])?;
            let v = size
                .as_ref()
                .ok_or_else(|| cx.bad(p, "primitive `plane` needs `size` [x, y] (m)"))?;
            let v = cx.vector(&p.key("size"), v, 2)?;
            for (k, &x) in v.iter().enumerate() {
                cx.positive(&p.key("size").index(k), x, "m")?;
            }
            let d = cx.positive(&p.key("thickness"), thickness.unwrap_or(1.0), "m")?;
            shapes::cuboid(Vec3::new(v[0] / 2.0, v[1] / 2.0, d / 2.0))
                .and_then(|m| m.map(|q| q + Vec3::new(0.0, 0.0, -d / 2.0)))
                .map_err(|e| bad_mesh(&e))
        }
        "bucket" => {
            unused(&[("size", sz), ("tube_radius", tb), ("thickness", t)])?;
            let (n, m, s) = (
                count("segments", *segments, 32, 3)?,
                count("rings", *rings, 4, 1)?,
                count("stacks", *stacks, 8, 1)?,
            );
            triangles(n, m, s)?;
            shapes::bucket(need("radius", *radius)?, need("length", *length)?, n, m, s)
                .map_err(|e| bad_mesh(&e))
        }
        other => Err(cx.bad(
            &p.key("kind"),
            format!(
                "unknown primitive `{other}` (box, sphere, rounded_box, cube_sphere, \
                 rounded_cube, torus, cylinder, stick, plane, bucket)"
            ),
        )),
    }
}

/// One `[[body]]` of a penalty scene (a compound gives one static mesh per part).
pub(super) fn mesh_body(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &BTreeMap<String, RawMaterial>,
    gravity: Vec3,
) -> Res<Vec<SceneMesh>> {
    let (name, material, color) = header(cx, p, k, b, materials)?;
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
pub(super) fn mesh_entries(
    cx: &Ctx,
    meshes: &[SceneMesh],
    origin: &[FieldPath],
    h: Real,
) -> Res<Vec<super::overlap::MeshEntry>> {
    meshes
        .iter()
        .zip(origin)
        .map(|(m, at)| {
            let body = m
                .build()
                .map_err(|e| cx.bad(&at.key("shape"), e.to_string()))?;
            Ok(super::overlap::MeshEntry {
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
pub(super) fn posed(cx: &Ctx, at: &FieldPath, b: &MeshBody) -> Res<TriMesh> {
    TriMesh::new(b.world_vertices(), b.mesh().triangles().to_vec())
        .map_err(|e| cx.bad(&at.key("shape"), format!("mesh: {e}")))
}
