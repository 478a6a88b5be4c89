//! Frictional problems on which every dense solve fails are rescued by the sparse Newton
//! method (docs/peg3d.md, items 19 and 21).

use signorini_geometry::dim3::intersection_volume;
use signorini_world::{ContactModel, World3, WorldParams};

use crate::tilted_columns;

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
    let (mut failed, mut rescued, mut from_dense) = (Vec::new(), 0, 0);
    for s in 1..=30 {
        let r = w.step();
        if r.failed {
            failed.push(s);
        }
        rescued += r
            .fallbacks
            .iter()
            .any(|f| f.contains("mixed LCP: infeasible")) as usize;
        from_dense += r
            .fallbacks
            .iter()
            .any(|f| f.ends_with("sparse Newton from the dense chain's best iterate"))
            as usize;
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
    // Item 21: the rescue's first stage, the sparse Newton method from the dense chain's best
    // iterate, solved 5 of the 7 rescued steps (the others need the later stages).
    assert!(
        from_dense >= 3,
        "only {from_dense} of {rescued} rescued steps were solved from the dense best iterate"
    );
}
