//! Replays of single pour2d steps that once went wrong, from world states dumped by
//! `examples/dump_step.rs` into `tests/fixtures/`.

use signorini_contact::{peg_detection_distance, potential_contacts};
use signorini_experiments::{bodyset, pour2d};
use signorini_geometry::dim2::{Aabb, sweep_and_prune};
use signorini_world::{ContactModel, World, WorldParams};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The pour2d world (open box + the dumped bodies) of a fixture.
fn world_from(name: &str, h: f64) -> World {
    let set = bodyset::load_body_set("fixture", &fixture(name)).unwrap();
    let mut w = World::new(pour2d::experiment_params(ContactModel::Peg, h, 8)).unwrap();
    w.add_static_compound(&pour2d::open_box(), signorini_math::Vec2::zeros(), 0.0);
    for b in set.bodies {
        w.add_body(b.body).unwrap();
    }
    w
}

/// Most negative gap (at the current configuration) of the PEG potential contacts.
fn min_potential_gap(w: &World) -> f64 {
    let h = w.params.h;
    let eps = peg_detection_distance(h);
    let verts: Vec<_> = w.bodies.iter().map(|b| b.world_vertices()).collect();
    let pred: Vec<_> = w.bodies.iter().map(|b| b.predicted_vertices(h)).collect();
    let boxes: Vec<Aabb> = verts
        .iter()
        .zip(&pred)
        .map(|(v, p)| {
            Aabb::from_points(v.iter())
                .union(&Aabb::from_points(p.iter()))
                .inflated(eps)
        })
        .collect();
    let pairs: Vec<_> = sweep_and_prune(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(w.bodies[i].is_static && w.bodies[j].is_static))
        .collect();
    potential_contacts(&w.bodies, &verts, &pred, &pairs, eps)
        .iter()
        .map(|c| c.gap)
        .fold(f64::INFINITY, f64::min)
}

/// pour2d, set h, h = 0.013 s, PEG, steps 199–200 (with the body sets parsed by serde_json's
/// default float parser, as before `float_roundtrip`): the deep-vertex rule, applied at the
/// predicted configuration too, paired a vertex with an edge that at the current configuration
/// is 4.5 cm away (gap −0.045 m); the ψ/h term and the gap corrections then flung two bodies
/// apart (kinetic energy ~1e6 J in a rejected re-solve; 2.9e-7 m² after step 199, 6.06e-4 m²
/// after step 200). The rule is now applied at the current configuration only
/// (`signorini_contact::potential_contacts`).
#[test]
fn set_h_h013_steps_199_200_keep_overlap_below_1e6() {
    let mut w = world_from("pour2d_set_h_h013_peg_before_step199.json", 0.013);
    assert_eq!(w.bodies.len(), 3 + 11);
    for step in [199, 200] {
        // No potential contact may be far on the inner side of its edge: overlaps here are
        // below 1e-6 m², so penetrations are a few mm at most (a vertex beside a corner can
        // have a line gap of that order).
        let gap = min_potential_gap(&w);
        assert!(
            gap > -0.01,
            "step {step}: a potential contact has gap {gap} m"
        );
        let rep = w.step();
        assert!(!rep.failed, "step {step}: {:?}", rep.failure);
        let overlap = pour2d::total_overlap(&w.bodies);
        assert!(overlap <= 1e-6, "after step {step}: overlap {overlap:e} m²");
    }
}

/// pour2d, set a, h = 0.005 s, standard model, step 251: two colluding SM traps make the
/// reduced LCP unsolvable (Lemke ends on a ray; no fallback gets below residual ~8). With
/// `keep_best_on_failure` the step continues from the least-residual attempt, which overlaps
/// less than free flight; without it, the free-flight velocities ν* = ν + hM⁻¹F are kept.
#[test]
fn unsolvable_standard_step_continues_from_the_best_attempt() {
    let name = "pour2d_set_a_h005_standard_before_step251.json";
    let run = |keep: bool| {
        let set = bodyset::load_body_set("fixture", &fixture(name)).unwrap();
        let mut w =
            World::new(pour2d::experiment_params(ContactModel::Standard, 0.005, 8)).unwrap();
        w.params.keep_best_on_failure = keep;
        w.add_static_compound(&pour2d::open_box(), signorini_math::Vec2::zeros(), 0.0);
        for b in set.bodies {
            w.add_body(b.body).unwrap();
        }
        let free: Vec<_> = w.bodies.iter().map(|b| b.free_velocity(0.005)).collect();
        let rep = w.step();
        let moved_freely = w.bodies[3..]
            .iter()
            .zip(&free[3..])
            .all(|(b, v)| b.velocity == *v);
        (rep, moved_freely, pour2d::total_overlap(&w.bodies))
    };
    assert!(WorldParams::new(ContactModel::Standard, 0.005).keep_best_on_failure);
    let (best, best_free, best_overlap) = run(true);
    let (free, free_free, free_overlap) = run(false);
    assert!(best.failed && free.failed, "the step is unsolvable");
    let r = best.kept_best.expect("continued from the best attempt");
    assert!(r.is_finite() && r > 1e-6, "residual {r}");
    assert!(!best_free && free_free && free.kept_best.is_none());
    assert!(
        best_overlap < free_overlap,
        "best attempt {best_overlap:e} m² vs free flight {free_overlap:e} m²"
    );
}
