//! Rigid convex polyhedra for `World3` (PEG / standard / corrective): shapes (hulls, boxes,
//! primitives), bodies and body sets, with gravity added to each dynamic body.

use super::*;

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
        RawShape::Polyhedron { vertices, faces } => {
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
            if let Some(faces) = faces {
                // A closed convex surface of V ≤ MAX_HULL_POINTS vertices has F ≤ 2V − 4 faces.
                let max_v = signorini_geometry::dim3::MAX_HULL_POINTS;
                cx.at_most(&at, pts.len(), max_v, "vertices")?;
                cx.at_most(&p.key("faces"), faces.len(), 2 * max_v, "faces")?;
                for (k, f) in faces.iter().enumerate() {
                    cx.at_most(&p.key("faces").index(k), f.len(), max_v, "vertices")?;
                }
                let poly = ConvexPolyhedron::from_vertices_faces(pts, faces.clone())
                    .map_err(|e| geo(&p.key("faces"), e))?;
                return Ok(vec![poly]);
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
        RawShape::Mesh { .. } | RawShape::Primitive(_) => Err(cx.bad(
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
pub(crate) fn body3(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &BTreeMap<String, RawMaterial>,
    gravity: Vec3,
) -> Res<Vec<SceneBody3>> {
    let (name, material, color) = body::header(cx, p, k, b, materials)?;
    no_2d_fields(cx, p, b)?;
    let parts = shape3(cx, &p.key("shape"), &b.shape, true)?;
    let position = cx.opt_vec3(&p.key("position"), &b.position)?;
    let orientation = b
        .rotation
        .as_ref()
        .map(|r| cx.rotation(&p.key("rotation"), r))
        .transpose()?
        .unwrap_or_else(Quat::identity);
    let drops = drops(cx, p, b)?;
    let shape = match body::parts(cx, p, b, &drops, parts, "convex polyhedron")? {
        Parts::Static(parts) => {
            return Ok(body::each(&name, parts, |name, part| SceneBody3 {
                name,
                body: PolyBody::fixed(part).with_pose(position, orientation),
                drop: drops[0],
                color: color.clone(),
            }));
        }
        Parts::Dynamic(shape) => shape,
    };
    let mut body = dynamic3(cx, p, b, material, shape)?.with_pose(position, orientation);
    let v = cx.opt_vec3(&p.key("velocity"), &b.velocity)?;
    let w = cx.opt_vec3(&p.key("angular_velocity"), &b.angular_velocity)?;
    body = body.with_velocity(v, w);
    body.state.external_force = cx.opt_vec3(&p.key("external_force"), &b.external_force)?;
    add_gravity3(&mut body.state.external_force, body.state.mass, gravity);
    Ok(body::each(&name, drops, |name, drop| SceneBody3 {
        name,
        body: body.clone(),
        drop,
        color: color.clone(),
    }))
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
    let body_err = |at: &FieldPath, e: &dyn std::fmt::Display| cx.bad(at, e.to_string());
    match body::mass(cx, p, b, material, inertia, shape.volume(), "kg/m³")? {
        Mass::Given(m, j) => {
            PolyBody::dynamic(shape, m, j).map_err(|e| body_err(&p.key("inertia"), &e))
        }
        Mass::Density(d, at) => PolyBody::from_density(&shape, d).map_err(|e| body_err(&at, &e)),
    }
}

/// `[[body_set]]` in a polyhedra scene: point sets in the format of
/// `data/peg3d/random_polyhedra.json`, each body the hull of one set (as pour3d's
/// random bodies: `hull_body`), dropped in order with one pose and velocity.
pub(crate) fn body_sets3(cx: &Ctx, raw: &RawScene, gravity: Vec3) -> Res<Vec<SceneBody3>> {
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
