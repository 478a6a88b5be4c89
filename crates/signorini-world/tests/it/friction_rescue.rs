//! Frictional problems on which every dense solve fails are rescued by the sparse Newton
//! method (docs/peg3d.md, item 19).

use signorini_geometry::dim3::{ConvexPolyhedron, intersection_volume};
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::{ContactModel, PolyBody, World3, WorldParams};

/// Columns of three 0.2 m cubes at x = `xs`, each cube tilted a little more about x and
/// shifted a little, dropped onto a floor: the face-to-face contacts with friction give
/// rank-deficient Stewart–Trinkle problems (rank 42 of 120) on which dense Lemke loses its
/// path to round-off.
fn tilted_columns(xs: &[Real]) -> Vec<PolyBody> {
    let slab = ConvexPolyhedron::cuboid(Vec3::new(20.0, 20.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    let mut out = vec![PolyBody::fixed(slab)];
    for &x in xs {
        for k in 0..3 {
            let k = k as Real;
            let tilt = Quat::from_axis_angle(&Vec3::x_axis(), 0.05 * (k + 1.0));
            let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
            let b = PolyBody::dynamic(cube, 1.0, Mat3::identity() * (0.04 / 6.0))
                .unwrap()
                .with_pose(Vec3::new(x + 0.02 * k, 0.01 * k, 0.12 + 0.22 * k), tilt)
                .with_gravity(Vec3::new(0.0, 0.0, -9.81));
            out.push(b);
        }
    }
    out
}

#[test]
fn frictional_problems_that_defeat_pivoting_are_solved_by_the_sparse_newton_rescue() {
    // Two columns 1 cm apart, μ = 0.5: with block Gauss–Seidel first in the rescue (100
    // sparse Newton iterations after it), 7 of these 30 steps failed.
    let mut p = WorldParams::signorini(ContactModel::Peg, 0.01);
    p.mu = 0.5;
    let mut w = World3::new(p).unwrap();
    for b in tilted_columns(&[0.0, 0.21]) {
        w.add_body(b).unwrap();
    }
    let (mut failed, mut rescued) = (Vec::new(), 0);
    for s in 1..=30 {
        let r = w.step();
        if r.failed {
            failed.push(s);
        }
        rescued += r
            .fallbacks
            .iter()
            .any(|f| f.contains("mixed LCP: infeasible")) as usize;
        let shapes: Vec<_> = w.bodies.iter().map(|b| b.world_shape()).collect();
        for i in 0..shapes.len() {
            for j in i + 1..shapes.len() {
                let v = intersection_volume(&shapes[i], &shapes[j]);
                assert!(
                    v <= 1e-9,
                    "step {s}: bodies {i} and {j} overlap by {v:e} m³"
                );
            }
        }
    }
    assert!(
        rescued >= 3,
        "only {rescued} steps needed the rescue: the scene no longer tests it"
    );
    assert!(failed.is_empty(), "failed steps: {failed:?}");
}
