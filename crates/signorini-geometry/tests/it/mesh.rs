//! Triangle meshes: validation errors, OBJ/STL round trips, procedural shapes, mass properties.

use signorini_geometry::mesh::{MeshError, MeshIoError, TriMesh, io, mass, shapes};
use signorini_math::{Mat3, Vec3};

fn tri() -> Vec<Vec3> {
    vec![Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()]
}

#[test]
fn validation_names_each_error() {
    assert_eq!(TriMesh::new(tri(), vec![]), Err(MeshError::Empty));
    let mut bad = tri();
    bad[2].y = f64::NAN;
    assert_eq!(
        TriMesh::new(bad, vec![[0, 1, 2]]),
        Err(MeshError::NonFinite { vertex: 2 })
    );
    assert!(matches!(
        TriMesh::new(tri(), vec![[0, 1, 9]]),
        Err(MeshError::IndexOutOfRange {
            triangle: 0,
            vertex: 9,
            count: 4
        })
    ));
    assert!(matches!(
        TriMesh::new(tri(), vec![[0, 1, 1]]),
        Err(MeshError::Degenerate { triangle: 0, .. })
    ));
    // Collinear corners: zero area.
    let line = vec![Vec3::zeros(), Vec3::x(), 2.0 * Vec3::x()];
    assert!(matches!(
        TriMesh::new(line, vec![[0, 1, 2]]),
        Err(MeshError::Degenerate { triangle: 0, .. })
    ));
    // Two triangles traversing edge 0->1 the same way.
    assert!(matches!(
        TriMesh::new(tri(), vec![[0, 1, 2], [0, 1, 3]]),
        Err(MeshError::InconsistentOrientation {
            first: 0,
            second: 1,
            a: 0,
            b: 1
        })
    ));
    // A closed tetrahedron with every triangle flipped.
    let inward = vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
    assert!(matches!(
        TriMesh::new(tri(), inward),
        Err(MeshError::InsideOut { .. })
    ));
    let outward = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let m = TriMesh::new(tri(), outward).unwrap();
    assert!(m.is_closed());
    assert!((m.signed_volume() - 1.0 / 6.0).abs() < 1e-15);
}

#[test]
fn procedural_shapes_are_closed_and_outward() {
    let shapes = [
        shapes::cuboid(Vec3::new(0.5, 1.0, 1.5)).unwrap(),
        shapes::sphere(1.0, 16, 8).unwrap(),
        shapes::torus(2.0, 0.5, 24, 12).unwrap(),
        shapes::cylinder(0.5, 2.0, 16).unwrap(),
        shapes::stick(1.0, 0.02).unwrap(),
    ];
    for s in &shapes {
        assert!(s.is_closed());
        assert!(s.signed_volume() > 0.0);
    }
    let g = shapes::grid(1.0, 1.0, 4, 3).unwrap();
    assert!(!g.is_closed());
    assert_eq!(g.triangles().len(), 24);
    // Volumes converge to the analytic ones (inscribed polyhedra are smaller).
    let v_sphere = shapes::sphere(1.0, 64, 32).unwrap().signed_volume();
    let exact = 4.0 / 3.0 * std::f64::consts::PI;
    assert!(v_sphere < exact && v_sphere > 0.99 * exact, "{v_sphere}");
    let v_torus = shapes::torus(2.0, 0.5, 96, 48).unwrap().signed_volume();
    let exact = 2.0 * std::f64::consts::PI.powi(2) * 2.0 * 0.25;
    assert!(v_torus < exact && v_torus > 0.99 * exact, "{v_torus}");
}

#[test]
fn bucket_is_an_open_inward_cup() {
    let (r, h, n, rings, stacks) = (0.4, 0.7, 16, 3, 5);
    let b = shapes::bucket(r, h, n, rings, stacks).unwrap();
    assert!(!b.is_closed());
    assert_eq!(
        b.triangles().len(),
        n + 2 * n * (rings - 1) + 2 * n * stacks
    );
    // Every edge used once is on the rim (the only boundary), and there are `n` of them.
    let rim = boundary_edges(&b);
    assert_eq!(rim.len(), n);
    for e in rim {
        for i in e {
            assert!((b.vertices()[i as usize].z - h).abs() < 1e-12);
        }
    }
    // Bottom normals +z, wall normals towards the axis; everything within the cylinder.
    let mut area = 0.0;
    for t in 0..b.triangles().len() {
        let nrm = b.face_normal(t);
        let c = b.corners(t).iter().fold(Vec3::zeros(), |s, p| s + p) / 3.0;
        if b.corners(t).iter().all(|p| p.z == 0.0) {
            assert!(
                nrm.z > 0.0 && nrm.x.abs() + nrm.y.abs() < 1e-12,
                "bottom {t}"
            );
        } else {
            assert!(
                nrm.z.abs() < 1e-12 && nrm.x * c.x + nrm.y * c.y < 0.0,
                "wall {t}"
            );
        }
        area += 0.5 * nrm.norm();
    }
    // Area tends to the disc plus the wall (inscribed polygon: a little less).
    let exact = std::f64::consts::PI * r * r + std::f64::consts::TAU * r * h;
    assert!(area < exact && area > 0.95 * exact, "{area} vs {exact}");
    assert!(shapes::bucket(0.0, 1.0, 8, 2, 2).is_err());
    assert!(shapes::bucket(f64::NAN, 1.0, 8, 2, 2).is_err());
}

/// The edges used by one triangle only.
fn boundary_edges(m: &TriMesh) -> Vec<[u32; 2]> {
    let mut uses = std::collections::BTreeMap::new();
    for t in m.triangles() {
        for k in 0..3 {
            let (a, c) = (t[k], t[(k + 1) % 3]);
            *uses.entry([a.min(c), a.max(c)]).or_insert(0) += 1;
        }
    }
    (uses.into_iter().filter(|&(_, u)| u == 1))
        .map(|(e, _)| e)
        .collect()
}

#[test]
fn bowl_is_an_open_inward_hemisphere() {
    let (r, n, rings) = (0.3, 12, 5);
    let b = shapes::bowl(r, n, rings).unwrap();
    assert!(!b.is_closed());
    assert_eq!(b.triangles().len(), n * (2 * rings - 1));
    // The rim (radius r at z = r) is the only boundary.
    let rim = boundary_edges(&b);
    assert_eq!(rim.len(), n);
    for e in rim {
        for i in e {
            let p = b.vertices()[i as usize];
            assert!((p.z - r).abs() < 1e-12 && (p.xy().norm() - r).abs() < 1e-12);
        }
    }
    // Every vertex on the sphere of radius r about (0, 0, r), none above the rim; every
    // normal points towards that centre.
    let c = Vec3::new(0.0, 0.0, r);
    for p in b.vertices() {
        assert!(((p - c).norm() - r).abs() < 1e-12 && p.z <= r + 1e-12);
    }
    let mut area = 0.0;
    for t in 0..b.triangles().len() {
        let mid = b.corners(t).iter().fold(Vec3::zeros(), |s, p| s + p) / 3.0;
        assert!(b.face_normal(t).dot(&(c - mid)) > 0.0, "triangle {t}");
        area += 0.5 * b.face_normal(t).norm();
    }
    // Area tends to the hemisphere's 2π r² (inscribed: a little less).
    let exact = std::f64::consts::TAU * r * r;
    assert!(area < exact && area > 0.9 * exact, "{area} vs {exact}");
    assert!(shapes::bowl(0.0, 8, 2).is_err());
    assert!(shapes::bowl(f64::INFINITY, 8, 2).is_err());
}

#[test]
fn octopus_is_one_closed_shell_with_eight_tapered_arms() {
    let (r, arm) = (0.06, 0.21);
    for (k, rings) in [(1, 3), (2, 16), (3, 65)] {
        let o = shapes::octopus(r, arm, k, rings).unwrap();
        // Closed (every edge shared by two consistently oriented triangles), outward.
        assert!(o.is_closed(), "k = {k}");
        let (ns, nt) = (16 * k, 8 * k);
        let want = 2 * ns * (nt - 1) - 16 * k * k + 8 * (8 * k * rings + 4 * k);
        assert_eq!(o.triangles().len(), want, "k = {k}");
        // Genus 0: V − E + F = 2 (E = 3F/2 for a closed mesh).
        let (v, f) = (o.vertices().len() as i64, o.triangles().len() as i64);
        assert_eq!(v - 3 * f / 2 + f, 2, "k = {k}");
        // Every vertex is used (the patches' interior vertices were removed).
        let mut used = vec![false; o.vertices().len()];
        for t in o.triangles() {
            for &i in t {
                used[i as usize] = true;
            }
        }
        assert!(used.iter().all(|&u| u), "k = {k}");
        // Eight arm tips: the vertices farthest from the z axis, about r + 0.8 arm out and
        // below the mantle.
        let mut far: Vec<Vec3> = o.vertices().to_vec();
        far.sort_by(|a, b| b.xy().norm().total_cmp(&a.xy().norm()));
        let reach = far[0].xy().norm();
        assert!(reach > 0.6 * arm && reach < r + arm, "reach {reach}");
        assert!(far[0].z < -1.25 * r * 0.5, "tip at z = {}", far[0].z);
        // The shell's volume exceeds the mantle's alone (arms add volume).
        let vol = mass::mass_properties(&o, 1.0).unwrap().volume;
        let mantle = 4.0 / 3.0 * std::f64::consts::PI * r * r * 1.25 * r;
        assert!(
            vol > 0.9 * mantle && vol < 2.0 * mantle,
            "volume {vol} vs {mantle}"
        );
    }
    assert_eq!(
        shapes::octopus(0.06, 0.21, 3, 65)
            .unwrap()
            .triangles()
            .len(),
        14_640
    );
    assert!(shapes::octopus(0.0, 0.2, 2, 4).is_err());
    assert!(shapes::octopus(0.06, 0.0, 2, 4).is_err());
    assert!(shapes::octopus(f64::NAN, 0.2, 2, 4).is_err());
}

#[test]
fn box_mass_properties_are_analytic() {
    let (a, b, c) = (0.5, 1.0, 1.5);
    let m = shapes::cuboid(Vec3::new(a, b, c))
        .unwrap()
        .map(|p| p + Vec3::new(3.0, -2.0, 1.0))
        .unwrap();
    let p = mass::mass_properties(&m, 2.0).unwrap();
    let vol = 8.0 * a * b * c;
    assert!((p.volume - vol).abs() < 1e-12);
    assert!((p.mass - 2.0 * vol).abs() < 1e-12);
    assert!((p.center - Vec3::new(3.0, -2.0, 1.0)).norm() < 1e-12);
    let k = p.mass / 3.0;
    let want = Mat3::from_diagonal(&Vec3::new(
        k * (b * b + c * c),
        k * (a * a + c * c),
        k * (a * a + b * b),
    ));
    assert!((p.inertia - want).amax() < 1e-11, "{}", p.inertia);
    let open = shapes::grid(1.0, 1.0, 2, 2).unwrap();
    assert_eq!(
        mass::mass_properties(&open, 1.0),
        Err(mass::MassError::Open)
    );
}

/// Largest corner-position difference of two meshes with the same triangle sequence.
fn corner_distance(a: &TriMesh, b: &TriMesh) -> f64 {
    assert_eq!(a.triangles().len(), b.triangles().len());
    (0..a.triangles().len())
        .flat_map(|t| (0..3).map(move |k| (a.corners(t)[k] - b.corners(t)[k]).amax()))
        .fold(0.0, f64::max)
}

#[test]
fn obj_and_stl_round_trip() {
    let m = shapes::torus(1.0, 0.3, 12, 8).unwrap();
    let obj = io::parse_obj(&io::to_obj(&m), "rt.obj").unwrap();
    assert_eq!(obj, m);
    // STL is unindexed: vertices are re-numbered by first use, triangles keep their order.
    let ascii = io::parse_stl(io::to_stl_ascii(&m, "t").as_bytes(), "rt.stl").unwrap();
    assert_eq!(ascii.vertices().len(), m.vertices().len());
    assert!(corner_distance(&ascii, &m) == 0.0);
    // Binary STL stores f32: coordinates within f32 rounding.
    let bin = io::parse_stl(&io::to_stl_binary(&m), "rt.stl").unwrap();
    assert_eq!(bin.vertices().len(), m.vertices().len());
    assert!(corner_distance(&bin, &m) < 1e-6);
    // Files on disk, by extension.
    let root = tempfile::Builder::new()
        .prefix("signorini-mesh-")
        .tempdir()
        .unwrap();
    let dir = root.path();
    let path = dir.join("box.stl");
    let b = shapes::cuboid(Vec3::new(1.0, 2.0, 3.0)).unwrap();
    std::fs::write(&path, io::to_stl_binary(&b)).unwrap();
    assert_eq!(corner_distance(&io::load(&path).unwrap(), &b), 0.0);
}

#[test]
fn parse_errors_name_file_and_line() {
    let e = io::parse_obj("v 0 0 0\nv 1 0 0\nv 0 x 0\n", "bad.obj").unwrap_err();
    assert_eq!(
        e,
        MeshIoError::Parse {
            file: "bad.obj".into(),
            line: 3,
            reason: "coordinate `x` is not a number".into()
        }
    );
    assert!(e.to_string().starts_with("bad.obj:3:"));
    let e = io::parse_obj("v 0 0 0\nf 1 2 3\n", "f.obj").unwrap_err();
    assert!(matches!(e, MeshIoError::Parse { line: 2, .. }), "{e}");
    let e = io::parse_stl(
        b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\nendfacet\n",
        "s.stl",
    )
    .unwrap_err();
    assert!(matches!(e, MeshIoError::Parse { line: 6, .. }), "{e}");
    let e = io::parse_stl(&[0u8; 90], "short.stl");
    assert!(matches!(e, Err(MeshIoError::Mesh { .. })), "{e:?}");
    let mut b = vec![0u8; 84];
    b[80] = 5;
    assert!(matches!(
        io::parse_stl(&b, "t.stl"),
        Err(MeshIoError::Parse { .. })
    ));
    let e = io::load(std::path::Path::new("/nonexistent/m.obj")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/m.obj"));
}

#[test]
fn rounded_box_lies_on_its_superellipsoid_and_encloses_nearly_its_volume() {
    let r = 0.5;
    let a = 0.9 * r;
    let m = shapes::rounded_box(r, 32, 16).unwrap();
    assert!(m.is_closed());
    assert_eq!(m.vertices().len(), 2 + 32 * 15, "the UV sphere's vertices");
    for v in m.vertices() {
        let s = v.map(|c| c.powi(4)).sum();
        assert!((s - a.powi(4)).abs() < 1e-14, "{v:?} off the surface");
    }
    // On the axes the faces are 0.9 r from the centre (the poles), never beyond the corners.
    assert!((m.vertices()[0].z + a).abs() < 1e-15);
    assert!(
        m.vertices()
            .iter()
            .all(|v| v.norm() <= a * 3f64.powf(0.25) + 1e-12)
    );
    // Volume of x⁴ + y⁴ + z⁴ ≤ a⁴: 8 a³ Γ(5/4)³ / Γ(7/4); the inscribed mesh holds a little less.
    let (g54, g74): (f64, f64) = (0.906_402_477_055_477, 0.919_062_526_848_883);
    let exact = 8.0 * a.powi(3) * g54.powi(3) / g74;
    let v = m.signed_volume();
    assert!(v < exact && v > 0.97 * exact, "{v} vs {exact}");
    assert!(shapes::rounded_box(0.0, 8, 4).is_err());
}

#[test]
fn cube_sphere_is_closed_outward_on_the_sphere_and_evenly_spaced() {
    let r = 0.075;
    for n in [1, 2, 15] {
        let m = shapes::cube_sphere(r, n).unwrap();
        assert!(m.is_closed(), "n = {n}");
        assert_eq!(m.vertices().len(), 6 * n * n + 2);
        assert_eq!(m.triangles().len(), 12 * n * n);
        for v in m.vertices() {
            assert!((v.norm() - r).abs() < 1e-15, "{v:?} off the sphere");
        }
        // Outward: positive volume, below the sphere's and close to it when fine.
        let (vol, ball) = (
            m.signed_volume(),
            4.0 / 3.0 * std::f64::consts::PI * r.powi(3),
        );
        assert!(vol > 0.0 && vol < ball, "n = {n}: {vol} vs {ball}");
        if n == 15 {
            assert!(vol > 0.99 * ball, "{vol} vs {ball}");
        }
    }
    // No pole: at n = 15 (2700 triangles, the full bucket's resolution) every edge, quad
    // diagonals included, is 5.5–12.4 mm long (a 52 × 26 UV sphere's first ring around a pole
    // has 1.1 mm edges, under a 2 mm contact thickness).
    let m = shapes::cube_sphere(r, 15).unwrap();
    let lengths: Vec<f64> = m
        .triangles()
        .iter()
        .flat_map(|t| (0..3).map(move |i| (t[i], t[(i + 1) % 3])))
        .map(|(a, b)| (m.vertices()[a as usize] - m.vertices()[b as usize]).norm())
        .collect();
    let (lo, hi) = lengths
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &l| {
            (lo.min(l), hi.max(l))
        });
    assert!(lo > 5e-3 && lo > 0.4 * hi, "edges {lo} .. {hi}");
    let b = shapes::rounded_cube(r, 15).unwrap();
    assert!(b.is_closed());
    for v in b.vertices() {
        let s = v.map(|c| c.powi(4)).sum();
        assert!(
            (s - (0.9 * r).powi(4)).abs() < 1e-15,
            "{v:?} off the superellipsoid"
        );
    }
    assert!(shapes::cube_sphere(0.0, 4).is_err());
}
