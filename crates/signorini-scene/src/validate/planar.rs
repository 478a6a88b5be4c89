//! 2D bodies of a scene: polygon shapes (validated, convex hulls of point lists), bodies and
//! compounds, drops, and the authors' body sets, with gravity added to each dynamic body.
//! Shares the located-error context ([`Ctx`]) and the rules for names, materials and friction
//! of its parent.

use super::body::{self, Mass, Parts, drops};
use super::*;

fn shape(cx: &Ctx, p: &FieldPath, s: &RawShape, top: bool) -> Res<Vec<ConvexPolygon>> {
    let poly =
        |v: Vec<Vec2>, at: &FieldPath| ConvexPolygon::new(v).map_err(|e| cx.bad(at, e.to_string()));
    let three_d = |what: &str| {
        cx.bad(
            &p.key("type"),
            format!("{what} belong in 3D scenes: set `dimension = 3`"),
        )
    };
    match s {
        RawShape::Polygon { vertices } => {
            let at = p.key("vertices");
            cx.at_most(
                &at,
                vertices.len(),
                limits::MAX_POLYGON_VERTICES,
                "vertices",
            )?;
            Ok(vec![poly(cx.points(&at, vertices)?, &at)?])
        }
        RawShape::Rectangle { min, max } => {
            let a = cx.vector(&p.key("min"), min, 2)?;
            let b = cx.vector(&p.key("max"), max, 2)?;
            if !(b[0] > a[0] && b[1] > a[1]) {
                return Err(cx.bad(&p.key("max"), "must be above and right of `min`"));
            }
            Ok(vec![
                ConvexPolygon::rectangle(a[0], a[1], b[0], b[1])
                    .map_err(|e| cx.bad(p, e.to_string()))?,
            ])
        }
        RawShape::Box { size, .. } if size.len() == 3 => Err(three_d("3D boxes")),
        RawShape::Box {
            center: Some(_), ..
        } => Err(cx.bad(
            &p.key("center"),
            "3D only; in 2D use a `rectangle` with `min` and `max`",
        )),
        RawShape::Box { size, .. } => {
            let v = cx.vector(&p.key("size"), size, 2)?;
            for (k, &x) in v.iter().enumerate() {
                cx.positive(&p.key("size").index(k), x, "m")?;
            }
            let (w, h) = (v[0] / 2.0, v[1] / 2.0);
            Ok(vec![
                ConvexPolygon::rectangle(-w, -h, w, h).map_err(|e| cx.bad(p, e.to_string()))?,
            ])
        }
        RawShape::RegularPolygon {
            sides,
            radius,
            rotation,
        } => {
            if *sides < 3 {
                return Err(cx.bad(&p.key("sides"), format!("must be >= 3, got {sides}")));
            }
            cx.at_most(
                &p.key("sides"),
                *sides,
                limits::MAX_POLYGON_VERTICES,
                "sides",
            )?;
            let r = cx.positive(&p.key("radius"), *radius, "m")?;
            let rot = rotation.unwrap_or(std::f64::consts::FRAC_PI_2);
            if !rot.is_finite() {
                return Err(cx.bad(&p.key("rotation"), "must be finite"));
            }
            let v = (0..*sides)
                .map(|k| {
                    let a = rot + std::f64::consts::TAU * k as f64 / *sides as f64;
                    Vec2::new(r * a.cos(), r * a.sin())
                })
                .collect();
            Ok(vec![poly(v, p)?])
        }
        RawShape::ConvexHull { points } if points.first().is_some_and(|q| q.len() == 3) => {
            Err(three_d("3D convex hulls"))
        }
        RawShape::ConvexHull { points } => {
            let at = p.key("points");
            cx.at_most(&at, points.len(), limits::MAX_HULL_POINTS_2D, "points")?;
            let hull = convex_hull(cx.points(&at, points)?);
            cx.at_most(
                &at,
                hull.len(),
                limits::MAX_POLYGON_VERTICES,
                "hull corners",
            )?;
            Ok(vec![poly(hull, &at)?])
        }
        RawShape::Polyhedron { .. } => Err(three_d("convex polyhedra")),
        RawShape::Mesh { .. } | RawShape::Primitive(_) => Err(three_d(
            "triangle meshes (with a penalty model: cpf, dpf, dpf-ccd)",
        )),
        RawShape::Compound { parts } => compound(cx, p, parts, top, shape),
        RawShape::Grid { .. } => Err(spatial::grid_not_here(cx, p)),
    }
}

/// Andrew's monotone chain, counter-clockwise, collinear points dropped.
fn convex_hull(mut pts: Vec<Vec2>) -> Vec<Vec2> {
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: &Vec2, a: &Vec2, b: &Vec2| (a - o).perp(&(b - o));
    let mut hull: Vec<Vec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Vec2>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for q in iter {
            while hull.len() >= start + 2
                && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(*q);
        }
        hull.pop();
    }
    hull
}

pub(super) fn body(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &BTreeMap<String, RawMaterial>,
    gravity: Vec2,
) -> Res<Vec<SceneBody>> {
    let (name, material, color) = body::header(cx, p, k, b, materials)?;
    for (field, given) in [
        ("rotation", b.rotation.is_some()),
        ("angular_velocity", b.angular_velocity.is_some()),
    ] {
        if given {
            return Err(cx.bad(&p.key(field), "3D only; in 2D use `angle` and `velocity`"));
        }
    }
    let parts = shape(cx, &p.key("shape"), &b.shape, true)?;
    let position = match &b.position {
        Some(v) => {
            let v = cx.vector(&p.key("position"), v, 2)?;
            Vec2::new(v[0], v[1])
        }
        None => Vec2::zeros(),
    };
    let angle = b.angle.unwrap_or(0.0);
    if !angle.is_finite() {
        return Err(cx.bad(&p.key("angle"), "must be finite"));
    }
    let drops = drops(cx, p, b)?;
    let shape = match body::parts(cx, p, b, &drops, parts, "convex polygon")? {
        Parts::Static(parts) => {
            return Ok(body::each(&name, parts, |name, part| SceneBody {
                name,
                body: RigidBody2::fixed(part).with_pose(position, angle),
                drop: drops[0],
                color: color.clone(),
            }));
        }
        Parts::Dynamic(shape) => shape,
    };
    let mut body = dynamic(cx, p, b, material, shape)?;
    body = body.with_pose(position, angle);
    if let Some(v) = &b.velocity {
        let v = cx.vector(&p.key("velocity"), v, 3)?;
        body = body.with_velocity(Vec3::new(v[0], v[1], v[2]));
    }
    if let Some(f) = &b.external_force {
        let f = cx.vector(&p.key("external_force"), f, 3)?;
        body.external_force = Vec3::new(f[0], f[1], f[2]);
    }
    add_gravity(&mut body, gravity);
    Ok(body::each(&name, drops, |name, drop| SceneBody {
        name,
        body: body.clone(),
        drop,
        color: color.clone(),
    }))
}

/// Gravity as an external force m·g (same arithmetic as `RigidBody2::with_gravity`).
fn add_gravity(body: &mut RigidBody2, g: Vec2) {
    body.external_force.x += body.mass * g.x;
    body.external_force.y += body.mass * g.y;
}

/// Mass properties: explicit `mass` + `inertia` (shape kept as given), or a density (the body's,
/// else its material's) or `mass` alone (uniform density): then the shape is re-centred on its
/// centroid, which becomes the body origin.
fn dynamic(
    cx: &Ctx,
    p: &FieldPath,
    b: &RawBody,
    material: Option<&RawMaterial>,
    shape: ConvexPolygon,
) -> Res<RigidBody2> {
    let inertia = match &b.inertia {
        None => None,
        Some(RawInertia::Scalar(j)) => Some(cx.positive(&p.key("inertia"), *j, "kg m²")?),
        Some(_) => {
            return Err(cx.bad(
                &p.key("inertia"),
                "a 2D body's inertia is one number (kg m²)",
            ));
        }
    };
    match body::mass(cx, p, b, material, inertia, shape.area(), "kg/m²")? {
        Mass::Given(m, j) => RigidBody2::dynamic(shape, m, j).map_err(|e| cx.bad(p, e.to_string())),
        Mass::Density(d, at) => {
            RigidBody2::from_density(&shape, d).map_err(|e| cx.bad(&at, e.to_string()))
        }
    }
}

pub(super) fn body_sets(cx: &Ctx, raw: &RawScene, gravity: Vec2) -> Res<Vec<SceneBody>> {
    let mut out = Vec::new();
    for (i, s) in raw.body_set.iter().enumerate() {
        let p = FieldPath::default().key("body_set").index(i);
        let path = cx.dir.join(&s.file);
        let label = path
            .file_stem()
            .map(|x| x.to_string_lossy().trim_start_matches("set_").to_string())
            .unwrap_or_default();
        let set =
            load_body_set(&label, &path).map_err(|e| cx.bad(&p.key("file"), e.to_string()))?;
        let start = cx.non_negative(&p.key("start"), s.start.unwrap_or(0.0))?;
        let interval = cx.positive(&p.key("interval"), s.interval.unwrap_or(0.25), "s")?;
        let n = match s.count {
            Some(0) => return Err(cx.bad(&p.key("count"), "must be >= 1")),
            Some(c) if c > set.bodies.len() => {
                return Err(cx.bad(
                    &p.key("count"),
                    format!(
                        "the set has only {} bodies, asked for {c}",
                        set.bodies.len()
                    ),
                ));
            }
            Some(c) => c,
            None => set.bodies.len(),
        };
        let lat = lattice::lattice(cx, &p, s)?;
        for (k, spec) in set.bodies.iter().take(n).enumerate() {
            let mut body = match &lat {
                Some(l) => signorini_harness::pile::placed2(&spec.body, l.site2(k)),
                None => spec.body.clone(),
            };
            if s.add_gravity.unwrap_or(false) {
                add_gravity(&mut body, gravity);
            }
            out.push(SceneBody {
                name: format!("{label}.{k}"),
                body,
                drop: lattice::drop_of(lat.as_ref(), start, interval, k),
                color: s.color.clone(),
            });
        }
    }
    Ok(out)
}
