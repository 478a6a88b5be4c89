//! 3D geometry: validation, hull, mass properties, exact intersection volumes, compounds,
//! broad phase, feature distances — each against an analytic answer.

use signorini_geometry::dim3::*;
use signorini_math::{Mat3, Quat, Real, Vec3};

fn v(x: Real, y: Real, z: Real) -> Vec3 {
    Vec3::new(x, y, z)
}

fn unit_cube() -> ConvexPolyhedron {
    ConvexPolyhedron::cuboid(v(1.0, 1.0, 1.0)).unwrap()
}

/// Deterministic pseudo-random points in [−1, 1]³ (a 64-bit LCG; no dependency needed).
fn lcg_points(n: usize, mut seed: u64) -> Vec<Vec3> {
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as Real / (1u64 << 53) as Real) * 2.0 - 1.0
    };
    (0..n).map(|_| v(next(), next(), next())).collect()
}

fn assert_close(a: Real, b: Real, tol: Real, what: &str) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

fn assert_topology(p: &ConvexPolyhedron) {
    let (nv, ne, nf) = (p.vertices().len(), p.edges().len(), p.faces().len());
    assert_eq!(nv + nf, ne + 2, "Euler characteristic");
    for (k, e) in p.edges().iter().enumerate() {
        let dir = (p.vertices()[e.head] - p.vertices()[e.tail]).normalize();
        for s in 0..2 {
            let f = &p.faces()[e.faces[s]];
            assert!(f.vertices.contains(&e.tail) && f.vertices.contains(&e.head));
            // t is a unit in-face vector perpendicular to the edge, pointing into the face.
            let t = e.t[s];
            assert!((t.norm() - 1.0).abs() < 1e-12 && t.dot(&dir).abs() < 1e-12);
            assert!(t.dot(&f.normal).abs() < 1e-12);
            let centre: Vec3 =
                p.face_points(e.faces[s]).iter().sum::<Vec3>() / f.vertices.len() as Real;
            let mid = (p.vertices()[e.head] + p.vertices()[e.tail]) * 0.5;
            assert!(
                t.dot(&(centre - mid)) > 0.0,
                "t{} of edge {k} points out",
                s + 1
            );
        }
        // f1 is the face in which the edge runs tail → head.
        let f1 = &p.faces()[e.faces[0]].vertices;
        let i = f1.iter().position(|&x| x == e.tail).unwrap();
        assert_eq!(f1[(i + 1) % f1.len()], e.head);
        assert!(p.vertex_edges(e.tail).contains(&k) && p.vertex_edges(e.head).contains(&k));
    }
}

#[test]
fn cuboid_mass_properties_are_analytic() {
    let b = ConvexPolyhedron::cuboid(v(1.0, 2.0, 3.0)).unwrap();
    let mp = b.mass_properties(2.0);
    assert_close(mp.volume, 48.0, 1e-14, "volume");
    assert_close(mp.mass, 96.0, 1e-14, "mass");
    assert!(mp.centroid.norm() < 1e-14);
    // I_xx = m (Ly² + Lz²)/12 with full lengths 2, 4, 6.
    let m = 96.0;
    let expect = Mat3::from_diagonal(&v(
        m * (16.0 + 36.0) / 12.0,
        m * (4.0 + 36.0) / 12.0,
        m * (4.0 + 16.0) / 12.0,
    ));
    assert!((mp.inertia - expect).amax() < 1e-12 * m, "{}", mp.inertia);
    assert_topology(&b);
    assert_eq!(
        (b.vertices().len(), b.edges().len(), b.faces().len()),
        (8, 12, 6)
    );
}

#[test]
fn shifted_body_has_shifted_centroid_and_same_central_inertia() {
    let b = ConvexPolyhedron::cuboid(v(1.0, 2.0, 3.0)).unwrap();
    let moved = b.translated(&v(3.0, -1.0, 2.0));
    let (m0, m1) = (b.mass_properties(1.0), moved.mass_properties(1.0));
    assert!((m1.centroid - v(3.0, -1.0, 2.0)).norm() < 1e-12);
    assert!((m1.inertia - m0.inertia).amax() < 1e-10);
    let (centred, c) = moved.centred();
    assert!((c - v(3.0, -1.0, 2.0)).norm() < 1e-12);
    assert!(centred.mass_properties(1.0).centroid.norm() < 1e-12);
}

#[test]
fn regular_tetrahedron_inertia_is_m_a2_over_20() {
    let t = ConvexPolyhedron::from_points(&[
        v(1.0, 1.0, 1.0),
        v(1.0, -1.0, -1.0),
        v(-1.0, 1.0, -1.0),
        v(-1.0, -1.0, 1.0),
    ])
    .unwrap();
    let a: Real = 8.0_f64.sqrt();
    let mp = t.mass_properties(1.0);
    assert_close(
        mp.volume,
        a.powi(3) / (6.0 * 2.0_f64.sqrt()),
        1e-13,
        "volume",
    );
    let i = mp.mass * a * a / 20.0;
    assert!(
        (mp.inertia - Mat3::identity() * i).amax() < 1e-12,
        "{}",
        mp.inertia
    );
    assert_topology(&t);
}

#[test]
fn icosahedron_volume_and_inertia_are_analytic() {
    let r = 0.5;
    let ico = ConvexPolyhedron::icosahedron(r).unwrap();
    assert_eq!(
        (ico.vertices().len(), ico.edges().len(), ico.faces().len()),
        (12, 30, 20)
    );
    assert!(ico.faces().iter().all(|f| f.vertices.len() == 3));
    assert_close(ico.circumradius(), r, 1e-14, "circumradius");
    let s5 = 5.0_f64.sqrt();
    let a = 4.0 * r / (10.0 + 2.0 * s5).sqrt(); // edge length
    let mp = ico.mass_properties(1.0);
    assert_close(
        mp.volume,
        5.0 / 12.0 * (3.0 + s5) * a.powi(3),
        1e-13,
        "volume",
    );
    // Solid regular icosahedron: I = m a² φ²/10 = m a² (3 + √5)/20 about any axis.
    let i = mp.mass * a * a * (3.0 + s5) / 20.0;
    assert!(
        (mp.inertia - Mat3::identity() * i).amax() < 1e-13,
        "{}",
        mp.inertia
    );
    assert_topology(&ico);
    for e in ico.edges() {
        let len = (ico.vertices()[e.head] - ico.vertices()[e.tail]).norm();
        assert_close(len, a, 1e-13, "edge length");
    }
}

#[test]
fn hull_merges_coplanar_triangles_and_drops_inner_points() {
    let mut pts: Vec<Vec3> = unit_cube().vertices().to_vec();
    pts.push(v(0.0, 0.0, 0.0)); // interior
    pts.push(v(0.0, 0.0, 1.0)); // face centre
    pts.push(v(1.0, 1.0, 0.0)); // edge midpoint
    pts.push(v(0.3, -1.0, 0.2)); // on a face
    let h = ConvexPolyhedron::from_points(&pts).unwrap();
    assert_eq!(
        (h.vertices().len(), h.edges().len(), h.faces().len()),
        (8, 12, 6)
    );
    assert!(h.faces().iter().all(|f| f.vertices.len() == 4));
    assert_close(h.volume(), 8.0, 1e-14, "volume");
    assert_topology(&h);
}

#[test]
fn hull_of_random_points_contains_every_point() {
    for seed in 1..=20 {
        let pts = lcg_points(15, seed);
        let h = ConvexPolyhedron::from_points(&pts).unwrap();
        assert_topology(&h);
        for (k, p) in pts.iter().enumerate() {
            let (_, d) = h.max_face_distance(p);
            assert!(d <= 1e-12, "seed {seed}: point {k} is {d:e} outside");
        }
        // Every hull vertex is one of the input points.
        for q in h.vertices() {
            assert!(pts.iter().any(|p| p == q));
        }
        // The hull is the smallest convex set: each dropped point lies inside or on it.
        assert!(h.vertices().len() <= 15 && h.volume() > 0.0);
    }
}

#[test]
fn validation_reports_each_defect() {
    use PolyhedronError as E;
    let cube = unit_cube();
    let verts = cube.vertices().to_vec();
    let faces: Vec<Vec<usize>> = cube.faces().iter().map(|f| f.vertices.to_vec()).collect();
    let build = |vs: Vec<Vec3>, fs: Vec<Vec<usize>>| ConvexPolyhedron::from_vertices_faces(vs, fs);

    assert_eq!(
        ConvexPolyhedron::from_points(&verts[..3]),
        Err(E::TooFewVertices { count: 3 })
    );
    let mut nan = verts.clone();
    nan[5].y = Real::NAN;
    assert!(matches!(
        ConvexPolyhedron::from_points(&nan),
        Err(E::NonFinite { index: 5, .. })
    ));
    let flat: Vec<Vec3> = lcg_points(10, 3).iter().map(|p| v(p.x, p.y, 0.5)).collect();
    let err = ConvexPolyhedron::from_points(&flat).unwrap_err();
    assert!(matches!(err, E::Flat { .. }), "{err:?}");
    assert!(err.to_string().contains("flat"));
    assert!(matches!(
        ConvexPolyhedron::from_points(&lcg_points(MAX_HULL_POINTS + 1, 1)),
        Err(E::TooManyPoints { .. })
    ));

    // Open surface: one face missing.
    let err = build(verts.clone(), faces[1..].to_vec()).unwrap_err();
    assert!(matches!(err, E::OpenSurface { .. }), "{err:?}");
    assert!(err.to_string().contains("open"));
    // Inward (clockwise) faces.
    let rev: Vec<Vec<usize>> = faces
        .iter()
        .map(|f| f.iter().rev().copied().collect())
        .collect();
    assert!(matches!(
        build(verts.clone(), rev),
        Err(E::InwardFaces { .. })
    ));
    // Non-convex: pull one corner inward along the diagonal — its three faces stop being
    // planar, so split them into triangles and the dent shows up as non-convexity.
    let mut dented = verts.clone();
    dented[7] = v(0.5, 0.5, 0.5);
    let mut tri = Vec::new();
    for f in &faces {
        tri.push(vec![f[0], f[1], f[2]]);
        tri.push(vec![f[0], f[2], f[3]]);
    }
    let err = build(dented, tri).unwrap_err();
    assert!(matches!(err, E::NotConvex { .. }), "{err:?}");
    // Non-planar quad.
    let mut bent = verts.clone();
    bent[7] = v(1.0, 1.0, 1.2);
    assert!(matches!(
        build(bent, faces.clone()),
        Err(E::NonPlanarFace { .. })
    ));
    // Bad index, small face, unused vertex, degenerate face.
    let mut bad = faces.clone();
    bad[0][0] = 42;
    assert!(matches!(
        build(verts.clone(), bad),
        Err(E::BadIndex {
            face: 0,
            index: 42,
            ..
        })
    ));
    let mut small = faces.clone();
    small[2] = vec![0, 1];
    assert!(matches!(
        build(verts.clone(), small),
        Err(E::FaceTooSmall { face: 2, count: 2 })
    ));
    let mut extra = verts.clone();
    extra.push(v(0.0, 0.0, 0.0));
    assert!(matches!(
        build(extra, faces.clone()),
        Err(E::UnusedVertex { index: 8 })
    ));
    let mut rep = faces.clone();
    rep[0] = vec![0, 2, 2, 1];
    assert!(matches!(
        build(verts, rep),
        Err(E::DegenerateFace { face: 0 })
    ));
}

#[test]
fn intersection_volume_of_cubes_is_analytic() {
    let a = unit_cube();
    let b = a.translated(&v(0.5, 0.3, 0.2));
    let expect = 1.5 * 1.7 * 1.8;
    assert_close(intersection_volume(&a, &b), expect, 1e-13, "shifted");
    assert_close(
        intersection_volume(&b, &a),
        expect,
        1e-13,
        "shifted, swapped",
    );
    // A face of B on a face plane of A (no double-counted cap).
    let c = a.translated(&v(1.0, 0.0, 0.0));
    assert_close(intersection_volume(&a, &c), 4.0, 1e-13, "face-aligned");
    assert_close(intersection_volume(&a, &a), 8.0, 1e-13, "identical");
    // Separated and touching give +0.
    let far = a.translated(&v(2.5, 0.0, 0.0));
    assert_eq!(intersection_volume(&a, &far).to_bits(), 0.0_f64.to_bits());
    let touching = a.translated(&v(2.0, 0.0, 0.0));
    assert_eq!(intersection_volume(&a, &touching), 0.0);
    // A cube and the same cube turned 45° about z: an octagonal prism of inradius 1.
    let q = Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_4);
    let r = a.transformed(&Vec3::zeros(), &q);
    let octagon = 8.0 * (2.0_f64.sqrt() - 1.0);
    assert_close(
        intersection_volume(&a, &r),
        2.0 * octagon,
        1e-13,
        "octagon prism",
    );
    // A body inside another: the inner volume.
    let small = ConvexPolyhedron::icosahedron(0.5).unwrap();
    assert_close(
        intersection_volume(&a, &small),
        small.volume(),
        1e-13,
        "contained",
    );
}

/// The cheap bound is an upper bound of the exact volume for random hulls at random offsets
/// (overlapping, touching and apart), is 0 when a face plane separates them, and is at
/// round-off level for cubes resting face to face, whose volume it lets callers skip.
#[test]
fn intersection_volume_bound_is_an_upper_bound() {
    let mut overlapping = 0;
    for seed in 1..=200u64 {
        let a = ConvexPolyhedron::from_points(&lcg_points(12, seed)).unwrap();
        let shift = lcg_points(1, seed + 7_000)[0] * 2.0;
        let q = Quat::from_axis_angle(&Vec3::z_axis(), seed as Real * 0.37);
        let b = ConvexPolyhedron::from_points(&lcg_points(12, seed + 1_000))
            .unwrap()
            .transformed(&shift, &q);
        let exact = intersection_volume(&a, &b);
        let bound = intersection_volume_bound(&a, &b);
        assert!(
            exact <= bound * (1.0 + 1e-12) + 1e-15,
            "seed {seed}: volume {exact} > bound {bound}"
        );
        assert_eq!(bound, intersection_volume_bound(&b, &a), "seed {seed}");
        overlapping += (exact > 1e-3) as usize;
    }
    assert!(overlapping > 20, "only {overlapping} overlapping pairs");
    let a = unit_cube();
    assert_eq!(
        intersection_volume_bound(&a, &a.translated(&v(2.5, 0.0, 0.0))),
        0.0
    );
    // Resting face to face, 1e-15 m deep: exact volume 4e-15 m³, bound within 1e-13.
    let resting = a.translated(&v(0.0, 0.0, 2.0 - 1e-15));
    let bound = intersection_volume_bound(&a, &resting);
    assert!(bound > 0.0 && bound < 1e-13, "{bound}");
    assert!(intersection_volume(&a, &resting) <= bound);
    // Half overlapping: the cap is the overlap itself (1 × 2 × 2 m).
    let half = a.translated(&v(0.0, 0.0, 1.0));
    let (exact, bound) = (
        intersection_volume(&a, &half),
        intersection_volume_bound(&a, &half),
    );
    assert_close(exact, 4.0, 1e-13, "half");
    assert_close(bound, 4.0, 1e-13, "half bound");
    // A cube corner 1e-4 m into a face: volume and bound of order δ³, far below 1e-9 m³.
    let q = Quat::rotation_between(&v(-1.0, -1.0, -1.0), &v(0.0, 0.0, -1.0)).unwrap();
    let corner = a.transformed(&v(0.0, 0.0, 1.0 + 3.0_f64.sqrt() - 1e-4), &q);
    let bound = intersection_volume_bound(&a, &corner);
    assert!(bound > 0.0 && bound < 1e-11, "{bound}");
    assert!(intersection_volume(&a, &corner) <= bound);
}

#[test]
fn intersection_volume_is_symmetric_and_bounded_for_random_hulls() {
    for seed in 1..=10 {
        let a = ConvexPolyhedron::from_points(&lcg_points(15, seed)).unwrap();
        let b = ConvexPolyhedron::from_points(&lcg_points(15, seed + 100))
            .unwrap()
            .translated(&v(0.3, -0.2, 0.1));
        let (ab, ba) = (intersection_volume(&a, &b), intersection_volume(&b, &a));
        assert_close(ab, ba, 1e-12, "symmetry");
        assert!(ab >= 0.0 && ab <= a.volume().min(b.volume()) * (1.0 + 1e-12));
    }
}

#[test]
fn transformed_body_keeps_volume_and_validates() {
    let ico = ConvexPolyhedron::icosahedron(0.5).unwrap();
    let q = Quat::from_axis_angle(
        &signorini_math::nalgebra::Unit::new_normalize(v(1.0, 2.0, 3.0)),
        0.2,
    );
    let t = ico.transformed(&v(3.0, 0.0, 2.0), &q);
    assert_close(t.volume(), ico.volume(), 1e-13, "volume");
    let faces = t.faces().iter().map(|f| f.vertices.to_vec()).collect();
    let rebuilt = ConvexPolyhedron::from_vertices_faces(t.vertices().to_vec(), faces).unwrap();
    for (f, g) in t.faces().iter().zip(rebuilt.faces()) {
        assert!((f.normal - g.normal).norm() < 1e-12);
        assert!((f.offset - g.offset).abs() < 1e-12);
    }
    for (e, g) in t.edges().iter().zip(rebuilt.edges()) {
        assert!((e.t[0] - g.t[0]).norm() < 1e-12 && (e.t[1] - g.t[1]).norm() < 1e-12);
    }
    assert_close(t.scaled(2.0).volume(), 8.0 * t.volume(), 1e-12, "scaled");
}

#[test]
fn open_box_matches_the_pour3d_container() {
    let b = Compound3::open_box(10.0, 4.0, 4.0, 0.25).unwrap();
    assert_eq!(b.parts().len(), 5);
    let expect = 10.25 * 4.25 * 0.25 + 2.0 * 0.25 * 4.25 * 4.0 + 2.0 * 10.25 * 0.25 * 4.0;
    assert_close(b.volume(), expect, 1e-13, "volume");
    // Inner region x ∈ [−4.875, 4.875], y ∈ [−1.875, 1.875], floor at z = 0.
    let inner = Aabb3::from_points(&[v(-4.875, -1.875, 0.0), v(4.875, 1.875, 3.75)]);
    for p in b.parts() {
        let bb = Aabb3::from_points(p.vertices());
        let shrunk = Aabb3 {
            min: inner.min + Vec3::repeat(1e-9),
            max: inner.max - Vec3::repeat(1e-9),
        };
        assert!(
            !bb.overlaps(&shrunk),
            "a part intrudes into the inner region"
        );
        assert!(
            bb.overlaps(&inner.inflated(1e-9)),
            "a part does not touch it"
        );
    }
    assert!(Compound3::new(Vec::new()).is_none());
}

#[test]
fn broad_phase_finds_exactly_the_overlapping_boxes() {
    let boxes: Vec<Aabb3> = [0.0, 1.5, 3.5, 4.0]
        .iter()
        .map(|&x| Aabb3::from_points(&[v(x, 0.0, 0.0), v(x + 1.0, 1.0, 1.0)]))
        .collect();
    assert_eq!(sweep_and_prune3(&boxes), vec![(2, 3)]);
    let mut lifted = boxes.clone();
    lifted[3].min.z = 2.0;
    lifted[3].max.z = 3.0;
    assert!(sweep_and_prune3(&lifted).is_empty());
    assert_eq!(
        sweep_and_prune3(&[boxes[0].inflated(0.51), boxes[1]]),
        vec![(0, 1)]
    );
}

#[test]
fn feature_distances_are_analytic() {
    // Skew perpendicular segments one unit apart.
    let (s, t, p, q) = closest_segment_segment(
        &v(-1.0, 0.0, 0.0),
        &v(1.0, 0.0, 0.0),
        &v(0.5, -1.0, 1.0),
        &v(0.5, 1.0, 1.0),
    );
    assert_close(s, 0.75, 1e-15, "s");
    assert_close(t, 0.5, 1e-15, "t");
    assert!((p - v(0.5, 0.0, 0.0)).norm() < 1e-15 && (q - v(0.5, 0.0, 1.0)).norm() < 1e-15);
    // Clamped: the second segment beyond the end of the first.
    let (s, _, _, q) = closest_segment_segment(
        &v(0.0, 0.0, 0.0),
        &v(1.0, 0.0, 0.0),
        &v(2.0, 0.0, 1.0),
        &v(3.0, 0.0, 1.0),
    );
    assert_eq!(s, 1.0);
    assert!((q - v(2.0, 0.0, 1.0)).norm() < 1e-15);
    // Parallel segments.
    let (_, _, p, q) = closest_segment_segment(
        &v(0.0, 0.0, 0.0),
        &v(1.0, 0.0, 0.0),
        &v(0.5, 1.0, 0.0),
        &v(2.0, 1.0, 0.0),
    );
    assert_close((p - q).norm(), 1.0, 1e-15, "parallel distance");
    // Point against the top face of the cube.
    let cube = unit_cube();
    let top = cube.faces().iter().position(|f| f.normal.z > 0.5).unwrap();
    let (c, inside) =
        closest_on_polygon(&v(0.2, 0.3, 1.7), &cube.face_points(top), &v(0.0, 0.0, 1.0));
    assert!(inside && (c - v(0.2, 0.3, 1.0)).norm() < 1e-15);
    let (c, inside) =
        closest_on_polygon(&v(1.5, 0.3, 1.7), &cube.face_points(top), &v(0.0, 0.0, 1.0));
    assert!(!inside && (c - v(1.0, 0.3, 1.0)).norm() < 1e-15);
}

#[test]
fn every_random_point_set_of_the_paper_gives_a_valid_hull() {
    // The 500 point sets of the authors' `bodies3D.mat` (docs/formulation-notes.md §9), as pour3d
    // `random` uses them: hull, centred on the centroid, scaled to circumradius 0.5.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/peg3d/random_polyhedra.json");
    let text = std::fs::read_to_string(&path).expect("shared data present");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let bodies = json["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 500);
    for (k, b) in bodies.iter().enumerate() {
        let pts: Vec<Vec3> = b["vertices_local"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let c: Vec<Real> = p
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                v(c[0], c[1], c[2])
            })
            .collect();
        let hull = ConvexPolyhedron::from_points(&pts).unwrap_or_else(|e| panic!("body {k}: {e}"));
        assert_topology(&hull);
        for p in &pts {
            assert!(hull.max_face_distance(p).1 <= 1e-12, "body {k}");
        }
        let (c, _) = hull.centred();
        let s = c.scaled(0.5 / c.circumradius());
        assert_close(s.circumradius(), 0.5, 1e-12, "circumradius");
        let mp = s.mass_properties(1.0);
        assert!(mp.centroid.norm() < 1e-12 && mp.volume > 0.0, "body {k}");
        assert!(
            mp.inertia.cholesky().is_some(),
            "body {k}: inertia not positive definite"
        );
    }
}

/// Fuzz finding (issue #20, `fuzz.rs`): a cube of half-size 1e300 was accepted with a NaN
/// volume; now it is out of range (as vertices and faces, and as a hull), and a cube too small
/// for its volume to be represented is not called "clockwise".
#[test]
fn polyhedra_out_of_f64_range_are_refused_with_the_reason() {
    let unit = ConvexPolyhedron::cuboid(Vec3::repeat(1.0)).unwrap();
    let faces: Vec<Vec<usize>> = unit.faces().iter().map(|f| f.vertices.to_vec()).collect();
    let scaled = |s: Real| -> Vec<Vec3> { unit.vertices().iter().map(|p| p * s).collect() };
    assert!(ConvexPolyhedron::from_vertices_faces(scaled(1.0), faces.clone()).is_ok());
    let e = ConvexPolyhedron::from_vertices_faces(scaled(1e300), faces.clone()).unwrap_err();
    assert!(matches!(e, PolyhedronError::OutOfRange { .. }), "{e:?}");
    assert!(e.to_string().starts_with("out of range"), "{e}");
    let e = ConvexPolyhedron::from_points(&scaled(1e300)).unwrap_err();
    assert!(matches!(e, PolyhedronError::OutOfRange { .. }), "{e:?}");
    let e = ConvexPolyhedron::from_vertices_faces(scaled(1e-200), faces).unwrap_err();
    assert!(!matches!(e, PolyhedronError::InwardFaces { .. }), "{e:?}");
}
