//! Replays of single pour2d steps that once went wrong, from world states dumped by
//! `examples/dump_step.rs` into `tests/fixtures/`.

use signorini_contact::{peg_detection_distance, potential_contacts};
use signorini_experiments::pour2d;
use signorini_geometry::dim2::{Aabb, sweep_and_prune};
use signorini_harness::bodyset;
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
    let mut w = World::new(signorini_harness::presets::experiment_params(
        ContactModel::Peg,
        h,
        8,
    ))
    .unwrap();
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
        let overlap = signorini_harness::overlap::total_overlap(&w.bodies);
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
        let mut w = World::new(signorini_harness::presets::experiment_params(
            ContactModel::Standard,
            0.005,
            8,
        ))
        .unwrap();
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
        (
            rep,
            moved_freely,
            signorini_harness::overlap::total_overlap(&w.bodies),
        )
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

/// pour2d, set j, h = 0.003 s, PEG, step 1578: body 22 is dropped at (−0.5, 0.8) onto body 20,
/// which the pile has brought up to the drop point (1.9e-3 m² of overlap before the step). Two
/// of the new body's vertices inside body 20 have applicabilities −0.34 and −0.90 to their
/// least-penetrated edges, so the relaxed applicability test dropped their contacts and no
/// gap correction could push them out (4.8e-5 m² left after the step, with 8 or 64
/// corrections alike). A vertex inside the other body now always keeps its contact
/// (`signorini_contact::DEEP_APPLICABILITY`). The step must remove the overlap; the next two
/// must not bring it back.
#[test]
fn set_j_h003_step_1578_a_body_dropped_onto_another_is_pushed_out() {
    let mut w = world_from("pour2d_set_j_h003_peg_before_step1578.json", 0.003);
    assert_eq!(w.bodies.len(), 3 + 20);
    let before = signorini_harness::overlap::total_overlap(&w.bodies);
    assert!(
        before > 1e-3,
        "the dropped body starts inside another: {before:e}"
    );
    for step in 1578..1581 {
        let rep = w.step();
        assert!(!rep.failed, "step {step}: {:?}", rep.failure);
        let overlap = signorini_harness::overlap::total_overlap(&w.bodies);
        assert!(overlap <= 1e-6, "after step {step}: overlap {overlap:e} m²");
    }
}

/// pour2d, set g, h = 0.014 s, PEG, step 199: the first solve leaves a vertex of body 8
/// 2.7e-5 m inside body 12 (rotation × translation, 1.4e-6 m²). The gap-correction re-solve
/// fixes it, and also lets a vertex of body 11 slip past a corner of the falling body 13 that
/// the first solve had stopped at an edge's line; so the re-solve keeps more kinetic energy
/// than the first solution (0.81 J vs 0.14 J, below free flight's), and the safeguard, which
/// compared with the first solution only, undid it. The safeguard now compares with the larger
/// of the first solution's and free flight's kinetic energy.
#[test]
fn set_g_h014_step_199_gap_correction_is_not_undone() {
    let mut w = world_from("pour2d_set_g_h014_peg_before_step199.json", 0.014);
    assert_eq!(w.bodies.len(), 3 + 12);
    let rep = w.step();
    assert!(!rep.failed, "{:?}", rep.failure);
    assert!(rep.corrections >= 1, "{rep:?}");
    assert!(
        rep.fallbacks.iter().all(|f| !f.contains("undone")),
        "{:?}",
        rep.fallbacks
    );
    let overlap = signorini_harness::overlap::total_overlap(&w.bodies);
    assert!(overlap <= 1e-6, "after step 199: overlap {overlap:e} m²");
}

/// pour2d, set a, h = 0.005 s, standard model, step 225: the run's first failed step. Its
/// reduced LCP is positive semidefinite and Lemke ends on a secondary ray, which proves that it
/// has no solution (Cottle, Pang & Stone, Thm. 4.4.13). The cause is the ε-distance detector
/// itself (reference `collision_detection.m`, docs/formulation-notes.md §5.6): it also takes
/// vertex–edge pairs whose vertex lies *beside* the edge's end (projection on the edge extended by
/// 0.07 m) outside the other body, with a negative line gap (here three, down to −0.052 m); their
/// U-constraints demand that the vertex cross the edge's line within the step. Without them the
/// same subproblem is solvable. PEG on the same state solves the step.
#[test]
fn first_unsolvable_standard_step_fails_on_contacts_beside_corners() {
    use signorini_complementarity::{SolveError, SolveParams, SolverKind, solve_lcp};
    use signorini_contact::Formulation;
    use signorini_world::{Planar, Space};
    let name = "pour2d_set_a_h005_standard_before_step225.json";
    let h = 0.005;
    let set = bodyset::load_body_set("fixture", &fixture(name)).unwrap();
    let mut w = World::new(signorini_harness::presets::experiment_params(
        ContactModel::Standard,
        h,
        8,
    ))
    .unwrap();
    w.add_static_compound(&pour2d::open_box(), signorini_math::Vec2::zeros(), 0.0);
    for b in set.bodies {
        w.add_body(b.body).unwrap();
    }
    let now = Planar::geometry(&w.bodies);
    let vel: Vec<_> = w.bodies.iter().map(|b| b.velocity).collect();
    let next = Planar::moved(&w.bodies, &vel, h);
    let eps = Planar::detection_distance(&w.params);
    let pairs = Planar::candidate_pairs(&w.bodies, &now, &next, eps);
    let cs = Planar::detect(&w.params, &w.bodies, &now, &next, &pairs);
    let inside = |a: usize, v: usize, b: usize| {
        let (p, poly) = (now[a][v], &now[b]);
        (0..poly.len()).all(|k| {
            let e = poly[(k + 1) % poly.len()] - poly[k];
            signorini_math::Vec2::new(-e.y, e.x).dot(&(poly[k] - p)) < 0.0
        })
    };
    let beside: Vec<usize> = (0..cs.contacts.len())
        .filter(|&k| {
            let c = &cs.contacts[k];
            c.gap < 0.0 && !inside(c.a, c.vertex, c.b)
        })
        .collect();
    assert_eq!(beside.len(), 3, "{beside:?}");
    let gaps: Vec<f64> = beside.iter().map(|&k| cs.contacts[k].gap).collect();
    assert!(gaps.iter().any(|&g| g < -0.05), "{gaps:?}");
    let free: Vec<_> = w
        .bodies
        .iter()
        .map(|b| {
            if b.is_static {
                Default::default()
            } else {
                b.free_velocity(h)
            }
        })
        .collect();
    let mut lemke = SolveParams::default();
    lemke.solver = SolverKind::Lemke;
    let lcp = Formulation::build(&cs, h, 0.0)
        .reduced_lcp(&w.bodies, &free)
        .unwrap();
    let eig = signorini_math::nalgebra::SymmetricEigen::new(lcp.m.clone()).eigenvalues;
    assert!(eig.min() > -1e-12, "PSD: {}", eig.min());
    assert!(matches!(
        solve_lcp(&lcp, &lemke),
        Err(SolveError::Ray { .. })
    ));
    let mut kept = cs.clone();
    kept.unilateral.retain(|k| !beside.contains(k));
    let lcp = Formulation::build(&kept, h, 0.0)
        .reduced_lcp(&w.bodies, &free)
        .unwrap();
    assert!(solve_lcp(&lcp, &lemke).is_ok());
    // The standard stepper fails there; PEG does not.
    let mut sm = w.clone();
    assert!(sm.step().failed);
    let mut peg = w.clone();
    peg.params = signorini_harness::presets::experiment_params(ContactModel::Peg, h, 8);
    let rep = peg.step();
    assert!(!rep.failed, "{:?}", rep.failure);
}

/// pour2d, set j, h = 0.014 s, PEG, step 343: body 22 is dropped onto body 20, which lies at
/// the drop point on top of the pile: 9.0e-3 m² of overlap, a vertex 5.8 cm deep. The first
/// solve (linearised about the start configuration) removes most of it but pushes body 20
/// into body 18; the gap-correction re-solves diverge (43 J → 414 J) and are undone, which
/// left 1.6e-3 m². The split step's position projection, re-linearised at the configuration
/// reached, removes the rest; the velocities carried on stay small (no ψ/h ejection).
#[test]
fn set_j_h014_step_343_a_deep_drop_is_projected_out() {
    let mut w = world_from("pour2d_set_j_h014_peg_before_step343.json", 0.014);
    assert!(signorini_harness::overlap::total_overlap(&w.bodies) > 5e-3);
    let rep = w.step();
    assert!(!rep.failed, "{:?}", rep.failure);
    assert!(rep.split.is_some_and(|d| d > 0.05), "{:?}", rep.split);
    assert!(rep.projections >= 1, "{rep:?}");
    let overlap = signorini_harness::overlap::total_overlap(&w.bodies);
    assert!(overlap <= 1e-6, "after step 343: overlap {overlap:e} m²");
    let fastest = w
        .bodies
        .iter()
        .map(|b| b.velocity.xy().norm())
        .fold(0.0, f64::max);
    assert!(fastest < 2.0, "carried speed {fastest} m/s");
    for step in 344..346 {
        let rep = w.step();
        assert!(!rep.failed, "step {step}: {:?}", rep.failure);
        let overlap = signorini_harness::overlap::total_overlap(&w.bodies);
        assert!(overlap <= 1e-6, "after step {step}: overlap {overlap:e} m²");
    }
}

/// pour2d, set b, h = 0.01 s, PEG, step 210: the eight gap corrections run out with the step
/// still interpenetrating (5.9e-12 m² after it), at a step with no start-of-step penetration
/// and so no split impulse. The position projection of split steps now also runs after such
/// a step and leaves round-off (4.7e-18 m² when measured); without it the overlap stays for
/// the next step to remove.
#[test]
fn set_b_h010_step_210_is_projected_when_its_corrections_run_out() {
    let run = |project: bool| {
        let mut w = world_from("pour2d_set_b_h010_peg_before_step210.json", 0.01);
        w.params.split_penetration = project;
        let rep = w.step();
        assert!(!rep.failed, "{:?}", rep.failure);
        assert_eq!(rep.split, None, "no start-of-step penetration here");
        (rep, signorini_harness::overlap::total_overlap(&w.bodies))
    };
    let (rep, overlap) = run(true);
    assert_eq!(rep.corrections, 8);
    assert!(rep.projections > 0, "no projection");
    assert!(
        overlap <= 1e-15,
        "overlap after the projection {overlap:e} m²"
    );
    let (rep, overlap) = run(false);
    assert_eq!(rep.projections, 0);
    assert!(overlap > 1e-12, "without the projection: {overlap:e} m²");
}
