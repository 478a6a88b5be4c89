//! The rescue's first stage (docs/peg3d.md, items 21 and 22): where every dense solve
//! failed, the sparse Newton method starts from the dense chain's best iterates. On the 2D
//! pile of 400 bodies that iterate was a Lemke answer that had found the active set and lost
//! its accuracy to rounding, or had stopped at its budget near the end. Here a Lemke answer
//! spoiled by 5 % plays that part.

use super::corrections::undo_runaway;
use super::solve::*;
use super::*;
use crate::{Planar, World};
use nalgebra::DVector;
use signorini_complementarity::solve_lcp;
use signorini_complementarity::{SolveParams, SolverKind, work_estimate};
use signorini_contact::ContactModel;
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_math::{Vec2, Vec3};

type Key = <Planar as Space<3>>::Key;

/// One solve of `form` with a warm start of no basis and no cache: from the last impulses
/// `from`, with the two flags of the re-solves. Its velocities, the normal impulses it keeps
/// for the next solve, and its report.
fn solve_once(
    w: &World,
    problem: Problem<'_>,
    from: &BTreeMap<Key, Real>,
    rescue_first: bool,
    proximal_first: bool,
) -> (Vec<Vec3>, BTreeMap<Key, Real>, StepReport) {
    solve_with(
        w,
        problem,
        from,
        (rescue_first, proximal_first, false),
        None,
    )
}

/// A problem to solve: its formulation, constraint set and free velocities.
type Problem<'a> = (
    &'a Formulation<3>,
    &'a ConstraintSet<<Planar as Space<3>>::Contact>,
    &'a [Vec3],
);

/// [`solve_once`] with the sparse Lemke's warm start `key_flags` (the last step's basic
/// unknowns, as `Warm::key_flags`).
fn solve_with(
    w: &World,
    (form, set, free): Problem<'_>,
    from: &BTreeMap<Key, Real>,
    (rescue_first, proximal_first, long_first): (bool, bool, bool),
    key_flags: Option<Vec<bool>>,
) -> (Vec<Vec3>, BTreeMap<Key, Real>, StepReport) {
    let mut to = BTreeMap::new();
    let mut report = StepReport::default();
    let warm = Warm {
        key_flags,
        rescue_first,
        proximal_first,
        long_first,
        ..Warm::plain(from, &mut to)
    };
    let v = w.solve(form, set, free, warm, &mut report);
    (v, to, report)
}

/// Whether the rescue (the sparse Newton method or block Gauss–Seidel) gave the answer.
fn by_rescue(report: &StepReport) -> bool {
    matches!(
        report.solver,
        Some(SolverKind::SparseNewton | SolverKind::Pgs)
    )
}

/// Lemke's exact answer to the reduced LCP of `form`, and its velocities.
fn lemke_answer(w: &World, form: &Formulation<3>, free: &[Vec3]) -> (DVector<Real>, Vec<Vec3>) {
    let lcp = form.reduced_lcp(&w.bodies, free).unwrap();
    let mut lemke = SolveParams::default();
    lemke.solver = SolverKind::Lemke;
    let exact = solve_lcp(&lcp, &lemke).unwrap().z;
    let want = form.velocities_from_lcp(&w.bodies, free, &exact);
    (exact, want)
}

/// Every velocity within `tol` (max norm) of the wanted one.
fn assert_velocities(v: &[Vec3], want: &[Vec3], tol: Real) {
    for (a, b) in v.iter().zip(want) {
        assert!((a - b).amax() <= tol, "{a} against {b}");
    }
}

/// Two columns of three squares, each square a little tilted, resting on a floor.
fn columns() -> World {
    let mut w = World::new(WorldParams::signorini(ContactModel::Peg, 0.005)).unwrap();
    let floor = ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0).unwrap();
    w.add_body(RigidBody2::fixed(floor)).unwrap();
    for x in [0.0, 0.25] {
        for k in 0..3 {
            let square = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1).unwrap();
            let b = RigidBody2::dynamic(square, 1.0, 0.04 / 6.0)
                .unwrap()
                .with_pose(Vec2::new(x + 0.01 * k as Real, 0.1 + 0.2 * k as Real), 0.0)
                .with_velocity(Vec3::new(0.0, -0.5, 0.0))
                .with_gravity(Vec2::new(0.0, -9.81));
            w.add_body(b).unwrap();
        }
    }
    w
}

/// The columns' first problem with Lemke's exact answer `exact` and that answer spoiled by
/// 5 %: `solve_large` from `starts(exact, spoiled)` with at most `iterations` Newton
/// iterations. Returns the velocities, the report, and the velocities of the exact answer.
fn rescue_from(
    starts: impl Fn(&DVector<Real>, &DVector<Real>) -> Vec<DVector<Real>>,
    iterations: usize,
) -> (Vec<Vec3>, StepReport, Vec<Vec3>) {
    let w = columns();
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    assert!(
        form.dim() >= 12,
        "{} unknowns: too small a problem",
        form.dim()
    );
    let lcp = form.reduced_lcp(&w.bodies, &pred.free).unwrap();
    let mut lemke = SolveParams::default();
    lemke.solver = SolverKind::Lemke;
    let exact = solve_lcp(&lcp, &lemke).unwrap().z;
    assert!(
        exact.iter().any(|&z| z > 1e-6),
        "no contact carries an impulse"
    );
    let spoiled = exact.map(|z| 1.05 * z);
    let spoiled_residual = lcp.residual(&spoiled);
    assert!(spoiled_residual > 1e-4, "residual {spoiled_residual:e}");

    let mut report = StepReport::default();
    let mut params = SolveParams::default();
    params.max_iterations = Some(iterations);
    let (v, _) = w
        .solve_large(
            &form,
            &pred.free,
            &params,
            (&starts(&exact, &spoiled), "the dense chain"),
            &mut BestAttempt::default(),
            &mut report,
        )
        .unwrap_or_else(|| panic!("not solved: {:?}", report.fallbacks));
    let want = form.velocities_from_lcp(&w.bodies, &pred.free, &exact);
    (v, report, want)
}

#[test]
fn the_sparse_newton_method_finishes_a_spoiled_lemke_answer() {
    let (v, report, want) = rescue_from(|_, spoiled| vec![spoiled.clone()], 100);
    assert!(
        report
            .fallbacks
            .iter()
            .any(|f| f == "sparse Newton from the dense chain's best iterate"),
        "{:?}",
        report.fallbacks
    );
    assert!(report.residual <= 1e-8, "residual {:e}", report.residual);
    // The same velocities as the exact answer's (this problem's solution is unique in ν).
    assert_velocities(&v, &want, 1e-6);
}

/// Where Newton fails from the best dense iterate, the next one is tried (item 22: on the 2D
/// pile of 400 bodies the mixed form's iterate, with the higher residual, was the one it
/// solved from). With no Newton iteration allowed, only the crash step (one active-set
/// solve) runs: it solves from the spoiled answer, whose active set is right, and fails from
/// zero impulses, which stand for the iterate Newton fails from.
#[test]
fn the_rescue_tries_the_dense_chains_next_iterate_when_the_best_one_fails() {
    let (v, report, want) = rescue_from(
        |exact, spoiled| vec![exact.map(|_| 0.0), spoiled.clone()],
        0,
    );
    let lines = &report.fallbacks;
    assert!(
        lines[0].starts_with("sparse mixed LCP from the dense chain's best iterate: "),
        "{lines:?}"
    );
    assert_eq!(
        lines[1], "sparse Newton from the dense chain's next iterate",
        "{lines:?}"
    );
    assert_velocities(&v, &want, 1e-6);
}

/// The solve budget pays for at least 3n Lemke pivots (`FLOOR_PIVOTS`): the 2D pile of 400
/// bodies' landing steps need 1.6–1.8 n, and with n they failed (item 21). PEG's 1e9 stands
/// below 694 unknowns, so the pour experiments' problems keep it.
#[test]
fn the_solve_budget_pays_for_three_n_pivots_on_large_problems() {
    let pivots = |n: usize| solve_budget(PEG_SOLVE_WORK_LIMIT, n) / (n * n) as Real;
    assert_eq!(pivots(1000), 3000.0);
    assert_eq!(pivots(851).floor(), 2553.0);
    assert_eq!(
        solve_budget(PEG_SOLVE_WORK_LIMIT, 693),
        PEG_SOLVE_WORK_LIMIT
    );
    assert!(solve_budget(PEG_SOLVE_WORK_LIMIT, 694) > PEG_SOLVE_WORK_LIMIT);
    assert_eq!(solve_budget(1.0, 10), work_estimate(10, 30, 0));
}

/// A gap-correction re-solve after a solve that only the rescue could answer starts with the
/// rescue (`Warm::rescue_first`), from the last answer's normal impulses, and reaches the
/// dense chain's velocities; without the flag the same problem is solved by the dense chain.
#[test]
fn a_re_solve_after_a_rescue_starts_with_the_rescue() {
    // Sixteen columns of four slightly offset squares landing on a floor: over 100 unknowns.
    let mut w = World::new(WorldParams::signorini(ContactModel::Peg, 0.005)).unwrap();
    let floor = ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0).unwrap();
    w.add_body(RigidBody2::fixed(floor)).unwrap();
    for c in 0..16 {
        for k in 0..4 {
            let square = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1).unwrap();
            let b = RigidBody2::dynamic(square, 1.0, 0.04 / 6.0)
                .unwrap()
                .with_pose(
                    Vec2::new(0.25 * c as Real + 0.01 * k as Real, 0.1 + 0.2 * k as Real),
                    0.0,
                )
                .with_velocity(Vec3::new(0.0, -0.5, 0.0))
                .with_gravity(Vec2::new(0.0, -9.81));
            w.add_body(b).unwrap();
        }
    }
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    assert!(form.dim() >= GS_RESCUE_MIN, "{} unknowns", form.dim());
    let (exact, want) = lemke_answer(&w, &form, &pred.free);
    let from: BTreeMap<_, _> = form
        .normal_contacts()
        .iter()
        .enumerate()
        .map(|(k, &c)| (Planar::key(&set.contacts[c]), exact[k]))
        .collect();
    for rescue_first in [true, false] {
        let (v, _, report) = solve_once(&w, (&form, &set, &pred.free), &from, rescue_first, false);
        assert_eq!(by_rescue(&report), rescue_first, "{:?}", report.solver);
        assert!(!report.failed && report.residual <= 1e-8, "{report:?}");
        assert_velocities(&v, &want, 1e-6);
    }
}

/// The proximal-point stage (item 29) answers the columns' first problem: the same velocities
/// as Lemke's exact answer, accepted and reported as such, with a basis for the next warm
/// start.
#[test]
fn the_proximal_stage_answers_with_lemkes_velocities() {
    let w = columns();
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    let (_, want) = lemke_answer(&w, &form, &pred.free);

    let mut report = StepReport::default();
    let mut best = BestAttempt::default();
    let (z, basis) = w
        .solve_proximal(
            &form,
            &pred.free,
            (None, None, None, false),
            None,
            &mut best,
            &mut report,
        )
        .unwrap_or_else(|| panic!("not answered: {:?}", report.fallbacks));
    assert!(
        best.0.is_none(),
        "an accepted answer is not a failed attempt"
    );
    assert_eq!(basis.len(), form.dim());
    assert!(
        report.fallbacks[0].starts_with("accepted proximal Lemke (ε = "),
        "{:?}",
        report.fallbacks
    );
    assert!(
        report.residual <= APPROXIMATE_TOLERANCE,
        "{:e}",
        report.residual
    );
    let v = form.velocities_from_lcp(&w.bodies, &pred.free, &z);
    assert_velocities(&v, &want, 1e-6);
}

/// A gap-correction re-solve after a proximal answer starts with the proximal stage
/// (`Warm::proximal_first`, item 30): with the flag the proximal stage answers (and is counted
/// in `StepReport::proximal_answers`), without it the sparse Lemke does; both give Lemke's
/// velocities.
#[test]
fn a_re_solve_after_a_proximal_answer_starts_with_the_proximal_stage() {
    let mut w = columns();
    w.params.sparse_lemke_from = 0;
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    let (_, want) = lemke_answer(&w, &form, &pred.free);
    for proximal_first in [true, false] {
        let problem = (&form, &set, &pred.free[..]);
        let (v, _, report) = solve_once(&w, problem, &BTreeMap::new(), false, proximal_first);
        assert_eq!(
            report.proximal_answers,
            usize::from(proximal_first),
            "{:?}",
            report.fallbacks
        );
        assert!(!report.failed, "{report:?}");
        assert_velocities(&v, &want, 1e-6);
    }
}

/// With friction, a re-solve on the sparse route after a solve that the rescue answered goes
/// to the rescue first (`needed_rescue`, item 30 (e)): no sparse Lemke run, the rescue's
/// answer from the last impulses; without the flag the sparse Lemke answers. Both within the
/// solvers' tolerance.
#[test]
fn a_frictional_sparse_re_solve_after_a_rescue_skips_the_sparse_lemke() {
    let mut w = columns();
    w.params.mu = 0.5;
    w.params.friction_dense_limit = 10;
    w.params.sparse_lemke_from = 0;
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    assert!(form.dim() > w.dense_limit(), "{} unknowns", form.dim());
    let problem = (&form, &set, &pred.free[..]);
    let (exact, from, first) = solve_once(&w, problem, &BTreeMap::new(), false, false);
    assert_eq!(
        first.solver,
        Some(SolverKind::Lemke),
        "{:?}",
        first.fallbacks
    );
    assert!(!from.is_empty());
    for rescue_first in [true, false] {
        let (v, _, report) = solve_once(&w, problem, &from, rescue_first, false);
        assert_eq!(by_rescue(&report), rescue_first, "{:?}", report.fallbacks);
        assert!(
            !report
                .fallbacks
                .iter()
                .any(|f| f.starts_with("sparse Lemke")),
            "{:?}",
            report.fallbacks
        );
        assert!(!report.failed && report.residual <= 1e-6, "{report:?}");
        assert_velocities(&v, &exact, 1e-5);
    }
}

/// The runaway rule undoes a round that sped a body up only where the round did not make
/// the violation shallower: 0.18 → 0.91 m (the 125-body pile's divergence, item 29) is
/// undone, 2.1e-2 → 3e-3 m (a 2D pile of 2,500's correction, item 39) is kept, and so is
/// nothing against an unknown depth (undone: no evidence of progress).
#[test]
fn the_runaway_rule_keeps_a_round_that_made_the_violation_shallower() {
    assert!(undo_runaway(Some(0.18), 0.91));
    assert!(undo_runaway(Some(2.1e-2), 2.1e-2));
    assert!(!undo_runaway(Some(2.1e-2), 3e-3));
    assert!(undo_runaway(None, 3e-3));
}

/// On the largest islands (`WorldParams::short_lemke_from`, item 42) the sparse Lemke makes
/// one run from its warm start and a failure goes to the proximal stage, not to a cold run
/// or the rescue. Here the warm start is the complement of the answer's active set, from
/// which Lemke needs 13 pivots on these 12 unknowns: with the rule its run stops at n = 12
/// and the proximal stage answers, without it the warm run answers; both give Lemke's
/// velocities.
#[test]
fn the_largest_islands_go_from_a_failed_warm_lemke_to_the_proximal_stage() {
    let mut w = columns();
    w.params.sparse_lemke_from = 0;
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    let (exact, want) = lemke_answer(&w, &form, &pred.free);
    for short in [false, true] {
        w.params.short_lemke_from = if short { 0 } else { usize::MAX };
        let complement = exact.iter().map(|&z| z == 0.0).collect();
        let problem = (&form, &set, &pred.free[..]);
        let (v, _, report) = solve_with(
            &w,
            problem,
            &BTreeMap::new(),
            (false, false, false),
            Some(complement),
        );
        let lines = &report.fallbacks;
        assert!(!report.failed, "{lines:?}");
        assert_eq!(report.proximal_answers, usize::from(short), "{lines:?}");
        assert_eq!(
            lines.iter().any(|l| l.starts_with("sparse Lemke")),
            short,
            "{lines:?}"
        );
        assert!(
            !lines
                .iter()
                .any(|l| l.contains("Newton") || l.contains("Gauss")),
            "the rescue ran: {lines:?}"
        );
        assert_velocities(&v, &want, 1e-6);
    }
}

/// A gap-correction re-solve after a proximal answer whose first path was cut
/// (`Warm::long_first`) skips the proximal stage's run at 1e-4 · max|M_ii| on the largest
/// islands (here all, `short_lemke_from` = 0) and starts at the larger ε. On this problem that
/// run is cut after n/2 = 6 pivots either way, so both answers come from the larger ε, with
/// Lemke's velocities, and the flagged one spends exactly the cut run's 6 pivots less.
#[test]
fn a_re_solve_after_a_cut_first_path_starts_at_the_larger_epsilon() {
    let mut w = columns();
    w.params.sparse_lemke_from = 0;
    w.params.short_lemke_from = 0;
    let pred = w.predict_and_broad_phase();
    let set = Planar::detect(&w.params, &w.bodies, &pred.now, &pred.next, &pred.pairs);
    let form = w.formulate(&set);
    let (_, want) = lemke_answer(&w, &form, &pred.free);
    // (first ε, pivots) of the accepted proximal answer.
    let answer = |long: bool| -> (String, usize) {
        let problem = (&form, &set, &pred.free[..]);
        let (v, _, report) = solve_with(&w, problem, &BTreeMap::new(), (false, true, long), None);
        let lines = &report.fallbacks;
        assert_eq!(report.proximal_answers, 1, "{lines:?}");
        assert!(report.proximal_first_path_cut, "{lines:?}");
        assert_velocities(&v, &want, 1e-6);
        let line = lines
            .iter()
            .find(|l| l.starts_with("accepted proximal Lemke"))
            .expect("a proximal answer");
        let eps = line.split("(ε = ").nth(1).and_then(|s| s.split(' ').next());
        let pivots = line
            .split(" pivots)")
            .next()
            .and_then(|s| s.rsplit(' ').next());
        let pivots = pivots
            .and_then(|s| s.parse().ok())
            .expect("pivots in the line");
        (eps.expect("ε in the line").to_string(), pivots)
    };
    let (tried, skipped) = (answer(false), answer(true));
    assert_eq!(tried.0, skipped.0, "the same ε");
    assert_eq!(tried.1, skipped.1 + 6, "{tried:?} against {skipped:?}");
}
