//! Integration tests of the geometry: 2D validation, exact areas, broad phase, distances; 3D
//! polyhedra in `dim3`.

mod dim3;
mod fuzz;
#[path = "../../../signorini-scene/tests/it/fuzzing.rs"]
mod fuzzing;

mod mesh;

use signorini_geometry::dim2::*;
use signorini_math::Vec2;

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::new(x, y)
}

#[test]
fn validation_rejects_bad_polygons_with_reasons() {
    assert_eq!(
        ConvexPolygon::new(vec![v(0.0, 0.0), v(1.0, 0.0)]),
        Err(PolygonError::TooFewVertices { count: 2 })
    );
    let cw = ConvexPolygon::new(vec![v(0.0, 0.0), v(0.0, 1.0), v(1.0, 0.0)]);
    assert!(matches!(cw, Err(PolygonError::Clockwise { .. })), "{cw:?}");
    let nan = ConvexPolygon::new(vec![v(0.0, 0.0), v(f64::NAN, 0.0), v(0.0, 1.0)]);
    assert!(matches!(nan, Err(PolygonError::NonFinite { index: 1, .. })));
    // Reflex vertex at index 2 (a dart).
    let dart = ConvexPolygon::new(vec![v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.5), v(1.0, 2.0)]);
    assert!(
        matches!(dart, Err(PolygonError::NotConvex { index: 2, .. })),
        "{dart:?}"
    );
    // Collinear vertex is not strictly convex.
    let col = ConvexPolygon::new(vec![v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0), v(1.0, 1.0)]);
    assert!(matches!(col, Err(PolygonError::NotConvex { index: 1, .. })));
    let dup = ConvexPolygon::new(vec![v(0.0, 0.0), v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)]);
    assert!(matches!(
        dup,
        Err(PolygonError::DegenerateEdge { index: 0 })
    ));
    // Pentagram: every turn is left but it winds twice.
    let star: Vec<Vec2> = (0..5)
        .map(|k| {
            let a = std::f64::consts::TAU * (2 * k) as f64 / 5.0;
            v(a.cos(), a.sin())
        })
        .collect();
    let err = ConvexPolygon::new(star).unwrap_err();
    assert!(
        matches!(err, PolygonError::SelfIntersecting { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("winds"));
    assert!(err.to_string().starts_with("self-intersecting"), "{err}");
}

#[test]
fn collinear_and_bow_tie_polygons_are_named_as_such() {
    // Collinear: zero area, not "clockwise (signed area 0)".
    let line = ConvexPolygon::new(vec![v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)]).unwrap_err();
    assert_eq!(line, PolygonError::Degenerate);
    assert!(
        line.to_string()
            .starts_with("degenerate: collinear or zero-area"),
        "{line}"
    );
    let back = ConvexPolygon::new(vec![v(0.0, 0.0), v(2.0, 2.0), v(1.0, 1.0)]).unwrap_err();
    assert_eq!(back, PolygonError::Degenerate);
    // Bow-tie: zero signed area, edges 0 and 2 cross.
    let bow =
        ConvexPolygon::new(vec![v(0.0, 0.0), v(1.0, 1.0), v(1.0, 0.0), v(0.0, 1.0)]).unwrap_err();
    assert_eq!(
        bow,
        PolygonError::CrossingEdges {
            first: 0,
            second: 2
        }
    );
    assert!(bow.to_string().starts_with("self-intersecting"), "{bow}");
    // A lopsided bow-tie (positive signed area) too.
    let bow =
        ConvexPolygon::new(vec![v(0.0, 0.0), v(3.0, 1.0), v(3.0, 0.0), v(0.0, 1.0)]).unwrap_err();
    assert!(matches!(bow, PolygonError::CrossingEdges { .. }), "{bow:?}");
}

#[test]
fn area_centroid_and_inertia_of_a_rectangle() {
    let r = ConvexPolygon::rectangle(-1.0, -0.5, 1.0, 0.5).unwrap();
    assert!((r.area() - 2.0).abs() < 1e-15);
    assert!(r.centroid().norm() < 1e-15);
    // ∫(x²+y²)dA = A (w² + h²)/12 = 2 (4 + 1)/12.
    assert!((r.polar_moment_about_origin() - 10.0 / 12.0).abs() < 1e-14);
}

#[test]
fn intersection_area_matches_analytic_values() {
    let a = ConvexPolygon::rectangle(0.0, 0.0, 2.0, 2.0).unwrap();
    let b = ConvexPolygon::rectangle(1.0, 0.5, 3.0, 1.5).unwrap();
    assert!((intersection_area(a.vertices(), b.vertices()) - 1.0).abs() < 1e-14);
    // Square rotated 45° about the centre of a unit-diagonal square: octagon.
    let s = ConvexPolygon::rectangle(-1.0, -1.0, 1.0, 1.0).unwrap();
    let r = s.placed(&Vec2::zeros(), std::f64::consts::FRAC_PI_4);
    let expect = 8.0 * (std::f64::consts::SQRT_2 - 1.0); // regular octagon with inradius 1
    assert!((intersection_area(s.vertices(), &r) - expect).abs() < 1e-12);
    // Disjoint and touching give zero.
    let c = ConvexPolygon::rectangle(2.0, 0.0, 3.0, 1.0).unwrap();
    assert_eq!(intersection_area(a.vertices(), c.vertices()), 0.0);
    // Containment gives the smaller area.
    let d = ConvexPolygon::rectangle(0.5, 0.5, 1.0, 1.25).unwrap();
    assert!((intersection_area(a.vertices(), d.vertices()) - d.area()).abs() < 1e-15);
    // Triangle corner dipping into a square: area = depth².
    let t = ConvexPolygon::new(vec![v(1.0, 1.9), v(2.1, 3.0), v(-0.1, 3.0)]).unwrap();
    let area = intersection_area(a.vertices(), t.vertices());
    assert!((area - 0.01).abs() < 1e-14, "{area}");
}

#[test]
fn separating_axis_reports_min_overlap_from_a_to_b() {
    let a = ConvexPolygon::rectangle(0.0, 0.0, 2.0, 2.0).unwrap();
    let b = ConvexPolygon::rectangle(0.5, 1.9, 1.5, 3.0).unwrap();
    let s = min_overlap_axis(a.vertices(), b.vertices()).unwrap();
    assert!((s.depth - 0.1).abs() < 1e-14);
    assert!((s.normal - v(0.0, 1.0)).norm() < 1e-14);
    assert!((s.point - v(1.0, 1.95)).norm() < 1e-14);
    let c = ConvexPolygon::rectangle(2.5, 0.0, 3.0, 1.0).unwrap();
    assert!(min_overlap_axis(a.vertices(), c.vertices()).is_none());
}

#[test]
fn sweep_and_prune_equals_brute_force() {
    let mut boxes = Vec::new();
    let mut s = 12345u64;
    let mut rnd = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..60 {
        let (x, y, w, h) = (rnd() * 10.0, rnd() * 10.0, rnd(), rnd());
        boxes.push(Aabb {
            min: v(x, y),
            max: v(x + w, y + h),
        });
    }
    let mut brute = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if boxes[i].overlaps(&boxes[j]) {
                brute.push((i, j));
            }
        }
    }
    assert!(!brute.is_empty());
    assert_eq!(sweep_and_prune(&boxes), brute);
}

#[test]
fn point_segment_distance_regions() {
    let (a, b) = (v(0.0, 0.0), v(2.0, 0.0));
    assert!((point_segment_distance(&v(1.0, 0.5), &a, &b) - 0.5).abs() < 1e-15);
    assert!((point_segment_distance(&v(-3.0, 4.0), &a, &b) - 5.0).abs() < 1e-15);
    let (d2, t) = point_segment_sq_distance(&v(5.0, 4.0), &a, &b);
    assert_eq!((d2, t), (25.0, 1.0));
}

#[test]
fn compound_holds_parts() {
    let c = Compound::new(vec![
        ConvexPolygon::rectangle(-1.0, -0.4, 1.0, 0.0).unwrap(),
        ConvexPolygon::rectangle(-1.2, -0.4, -0.8, 1.6).unwrap(),
    ])
    .unwrap();
    assert_eq!(c.parts().len(), 2);
    assert!((c.area() - 1.6).abs() < 1e-12);
    assert!(Compound::new(vec![]).is_none());
}

/// Fuzz findings (issue #20, `fuzz.rs`): shapes whose area, centroid or moment overflows were
/// accepted (a NaN area near f64::MAX, an infinite centroid at 1e150); a tiny polygon whose
/// area underflows to 0 was called clockwise. Each is now a clear error.
#[test]
fn polygons_out_of_f64_range_are_refused_with_the_reason() {
    let nan_area = ConvexPolygon::new(vec![
        v(0.0, -1.2496243604133102),
        v(0.0, -3.7028534217090723),
        v(f64::MAX, 0.0),
    ])
    .unwrap_err();
    assert!(
        matches!(
            nan_area,
            PolygonError::OutOfRange {
                quantity: "area",
                ..
            }
        ),
        "{nan_area:?}"
    );
    let huge: Vec<Vec2> = (0..5)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / 5.0;
            v(a.cos(), a.sin()) * 1e150
        })
        .collect();
    let e = ConvexPolygon::new(huge.clone()).unwrap_err();
    assert!(
        e.to_string().starts_with("out of range") && e.to_string().contains("centroid"),
        "{e}"
    );
    // The same pentagon at a sane scale is valid.
    let ok: Vec<Vec2> = huge.iter().map(|p| p * 1e-150).collect();
    assert!(ConvexPolygon::new(ok).is_ok());
    let tiny: Vec<Vec2> = huge.iter().map(|p| p * 1e-300 * 1e-150).collect();
    // Too small for f64 (edge lengths or the area underflow): degenerate, never "clockwise".
    let e = ConvexPolygon::new(tiny).unwrap_err();
    assert!(
        matches!(
            e,
            PolygonError::Degenerate | PolygonError::DegenerateEdge { .. }
        ),
        "{e}"
    );
}
