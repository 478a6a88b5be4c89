//! Fuzz campaign (issue #20) of the polygon and polyhedron constructors: random point clouds
//! with duplicates, collinear and coplanar points, NaN, infinities, huge and tiny values.
//! Either an error with a non-empty message, or a valid object: a convex counter-clockwise
//! polygon (polyhedron) with positive, finite area (volume) and finite mass properties.
//! Never a panic, never a hang.
//!
//! Seeded (`PROPTEST_RNG_SEED`, else `fuzzing::SEED`) and bounded: 256 cases per target in CI;
//! the longer campaign is `PROPTEST_CASES=20000 cargo test --release -p signorini-geometry
//! fuzz -- --nocapture` (docs/guide.md, "Fuzzing").

use crate::fuzzing::campaign;
use proptest::prelude::*;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Vec2, Vec3};
use std::time::Duration;

/// A coordinate: small integers (duplicates, collinear points), ordinary values, and the
/// hostile ones.
fn coord() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (-3i32..=3).prop_map(f64::from),
        4 => -10.0f64..10.0,
        1 => prop::sample::select(vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            -f64::MAX,
            1e300,
            -1e300,
            1e200,
            1e154,
            1e-154,
            1e-300,
            f64::MIN_POSITIVE,
            5e-324,
            -0.0,
        ]),
        1 => any::<f64>(),
    ]
}

/// Points on a circle in counter-clockwise order at a random scale, some then disturbed:
/// mostly valid polygons, to exercise the accepting path.
fn circle2() -> impl Strategy<Value = Vec<Vec2>> {
    (
        3usize..9,
        prop::sample::select(vec![1e-300, 1e-150, 1e-8, 1.0, 1e8, 1e150, 1e300]),
        prop::collection::vec((0usize..9, coord()), 0..3),
    )
        .prop_map(|(n, scale, disturb)| {
            let mut v: Vec<Vec2> = (0..n)
                .map(|k| {
                    let a = std::f64::consts::TAU * k as f64 / n as f64;
                    Vec2::new(a.cos(), a.sin()) * scale
                })
                .collect();
            for (i, c) in disturb {
                let i = i % v.len();
                v[i].x = c;
            }
            v
        })
}

fn check_polygon(points: Vec<Vec2>) {
    match ConvexPolygon::new(points.clone()) {
        Err(e) => assert!(!e.to_string().is_empty(), "empty message for {points:?}"),
        Ok(p) => {
            let v = p.vertices();
            assert!(v.len() >= 3, "{points:?}");
            assert!(v.iter().all(|q| q.x.is_finite() && q.y.is_finite()));
            let area = p.area();
            assert!(area.is_finite() && area > 0.0, "area {area} of {points:?}");
            let c = p.centroid();
            assert!(c.x.is_finite() && c.y.is_finite(), "centroid of {points:?}");
            let j = p.polar_moment_about_origin();
            assert!(j.is_finite() && j >= 0.0, "polar moment {j} of {points:?}");
            // Strictly convex and counter-clockwise: every turn is to the left (scaled to
            // avoid overflow in the check itself).
            let s = v
                .iter()
                .map(|q| q.x.abs().max(q.y.abs()))
                .fold(0.0, f64::max);
            let n = v.len();
            for i in 0..n {
                let (a, b, c) = (v[i] / s, v[(i + 1) % n] / s, v[(i + 2) % n] / s);
                let (e0, e1) = (b - a, c - b);
                assert!(
                    e0.x * e1.y - e0.y * e1.x > 0.0,
                    "not strictly convex CCW at {i}: {points:?}"
                );
            }
        }
    }
}

#[test]
fn fuzz_polygon_from_random_points() {
    let points =
        prop::collection::vec((coord(), coord()).prop_map(|(x, y)| Vec2::new(x, y)), 0..10);
    campaign(
        "polygon (random points)",
        points,
        Duration::from_secs(2),
        check_polygon,
    );
}

#[test]
fn fuzz_polygon_from_disturbed_circles() {
    campaign(
        "polygon (disturbed circles)",
        circle2(),
        Duration::from_secs(2),
        check_polygon,
    );
}

fn check_polyhedron(points: &[Vec3], p: Result<ConvexPolyhedron, impl std::fmt::Display>) {
    match p {
        Err(e) => assert!(!e.to_string().is_empty(), "empty message for {points:?}"),
        Ok(p) => {
            let v = p.vertices();
            assert!(v.len() >= 4 && p.faces().len() >= 4, "{points:?}");
            assert!(v.iter().all(|q| q.iter().all(|c| c.is_finite())));
            let vol = p.volume();
            assert!(vol.is_finite() && vol > 0.0, "volume {vol} of {points:?}");
            let m = p.mass_properties(1.0);
            assert!(
                m.centroid.iter().all(|c| c.is_finite()) && m.inertia.iter().all(|c| c.is_finite()),
                "mass properties {m:?} of {points:?}"
            );
            let r = p.circumradius();
            assert!(r.is_finite() && r > 0.0, "circumradius {r}");
            for f in p.faces() {
                assert!(f.normal.iter().all(|c| c.is_finite()) && f.offset.is_finite());
                assert!(f.vertices.len() >= 3);
            }
            // Convex: every vertex on the inner side of every face plane, within the
            // constructor's documented tolerance (1e-9 of the bounding-box diagonal).
            let (mut lo, mut hi) = (v[0], v[0]);
            for q in v {
                lo = lo.inf(q);
                hi = hi.sup(q);
            }
            let tol = 1e-9 * (hi - lo).norm() * (1.0 + 1e-6);
            for q in v {
                let (_, d) = p.max_face_distance(q);
                assert!(
                    d <= tol,
                    "vertex {q:?} outside a face by {d} > {tol}: {points:?}"
                );
            }
        }
    }
}

fn unit_cube() -> ConvexPolyhedron {
    ConvexPolyhedron::cuboid(Vec3::repeat(1.0)).expect("cube")
}

/// Points of a cube or an icosahedron at a random scale, some replaced: mostly valid hulls.
fn solid3() -> impl Strategy<Value = Vec<Vec3>> {
    (
        any::<bool>(),
        prop::sample::select(vec![1e-300, 1e-100, 1e-8, 1.0, 1e8, 1e100, 1e300]),
        prop::collection::vec((0usize..12, coord(), 0usize..3), 0..3),
        0usize..3,
    )
        .prop_map(|(cube, scale, disturb, dup)| {
            let mut v: Vec<Vec3> = if cube {
                unit_cube().vertices().to_vec()
            } else {
                ConvexPolyhedron::icosahedron(1.0)
                    .expect("icosahedron")
                    .vertices()
                    .to_vec()
            };
            for q in &mut v {
                *q *= scale;
            }
            for (i, c, axis) in disturb {
                let i = i % v.len();
                v[i][axis] = c;
            }
            for k in 0..dup {
                v.push(v[k]);
            }
            v
        })
}

fn point3() -> impl Strategy<Value = Vec3> {
    (coord(), coord(), coord()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

#[test]
fn fuzz_polyhedron_hull_of_random_points() {
    campaign(
        "polyhedron hull (random points)",
        prop::collection::vec(point3(), 0..14),
        Duration::from_secs(5),
        |pts| check_polyhedron(&pts, ConvexPolyhedron::from_points(&pts)),
    );
}

#[test]
fn fuzz_polyhedron_hull_of_disturbed_solids() {
    campaign(
        "polyhedron hull (disturbed solids)",
        solid3(),
        Duration::from_secs(5),
        |pts| check_polyhedron(&pts, ConvexPolyhedron::from_points(&pts)),
    );
}

/// Vertices and faces: a cube's or a random face list over random or cube points.
fn vertices_faces() -> impl Strategy<Value = (Vec<Vec3>, Vec<Vec<usize>>)> {
    // The cube's faces: with the (scaled, disturbed) cube points of `solid3`, often valid.
    let cube_faces: Vec<Vec<usize>> = unit_cube()
        .faces()
        .iter()
        .map(|f| f.vertices.to_vec())
        .collect();
    let random_faces = prop::collection::vec(prop::collection::vec(0usize..10, 0..6), 0..8);
    (
        solid3(),
        prop::collection::vec(point3(), 0..10),
        any::<bool>(),
        prop_oneof![Just(cube_faces), random_faces],
    )
        .prop_map(|(solid, random, use_solid, faces)| {
            (if use_solid { solid } else { random }, faces)
        })
}

#[test]
fn fuzz_polyhedron_from_vertices_and_faces() {
    campaign(
        "polyhedron from vertices and faces",
        vertices_faces(),
        Duration::from_secs(2),
        |(v, f)| {
            let p = ConvexPolyhedron::from_vertices_faces(v.clone(), f);
            check_polyhedron(&v, p);
        },
    );
}
