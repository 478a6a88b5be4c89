//! Contact islands (`WorldParams::islands`): two stacks that never touch are two independent
//! problems. Each stack's trajectory in the two-stack world is bit-identical to the same stack
//! alone in a world of its own, with 1 or 2 threads; the whole world solved as one problem
//! agrees with the islands to the solver's tolerance.

use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::{ContactModel, PolyBody, World3, WorldParams};

/// A static slab, top face z = 0.
fn floor() -> PolyBody {
    let slab = ConvexPolyhedron::cuboid(Vec3::new(20.0, 20.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    PolyBody::fixed(slab)
}

/// Three 0.2 m cubes dropped in a slightly tilted column at `x`.
fn stack(x: Real) -> Vec<PolyBody> {
    (0..3)
        .map(|k| {
            let k = k as Real;
            let tilt = Quat::from_axis_angle(&Vec3::x_axis(), 0.05 * (k + 1.0));
            let shape = ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
            PolyBody::dynamic(shape, 1.0, Mat3::identity() * (0.04 / 6.0))
                .unwrap()
                .with_pose(Vec3::new(x + 0.02 * k, 0.01 * k, 0.12 + 0.22 * k), tilt)
                .with_gravity(Vec3::new(0.0, 0.0, -9.81))
        })
        .collect()
}

fn params(islands: bool, mu: Real) -> WorldParams {
    let mut p = WorldParams::new(ContactModel::Peg, 0.01);
    p.mu = mu;
    p.gap_corrections = 8;
    p.split_penetration = true;
    p.islands = islands;
    p
}

/// Poses (position, orientation as 4 numbers) of every dynamic body after each of `steps`
/// steps, and the largest island count seen.
fn run(
    bodies: &[PolyBody],
    (islands, mu): (bool, Real),
    threads: usize,
    steps: usize,
) -> (Vec<[Real; 7]>, usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut w = World3::new(params(islands, mu)).unwrap();
        for b in bodies {
            w.add_body(b.clone()).unwrap();
        }
        let mut poses = Vec::new();
        let mut most = 0;
        for _ in 0..steps {
            let r = w.step();
            assert!(!r.failed, "{:?}", r.failure);
            most = most.max(r.islands);
            for b in w.bodies.iter().filter(|b| !b.state.is_static) {
                let (p, q) = (b.state.position, b.state.orientation);
                poses.push([p.x, p.y, p.z, q.w, q.i, q.j, q.k]);
            }
        }
        (poses, most)
    })
}

/// Every 6th pose row of a two-stack run belongs to stack A's (first three) or B's bodies.
fn split(poses: &[[Real; 7]]) -> (Vec<[Real; 7]>, Vec<[Real; 7]>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for step in poses.chunks(6) {
        a.extend_from_slice(&step[..3]);
        b.extend_from_slice(&step[3..]);
    }
    (a, b)
}

#[test]
fn two_stacks_are_two_islands_bit_identical_to_each_stack_alone_with_1_or_2_threads() {
    let steps = 80;
    let (a, b) = (stack(-3.0), stack(3.0));
    let both: Vec<PolyBody> = std::iter::once(floor())
        .chain(a.iter().cloned())
        .chain(b.iter().cloned())
        .collect();
    let (one_thread, most) = run(&both, (true, 0.5), 1, steps);
    assert_eq!(most, 2, "two stacks on one floor are two islands");
    let (two_threads, _) = run(&both, (true, 0.5), 2, steps);
    assert_eq!(
        one_thread, two_threads,
        "thread count changed the trajectory"
    );

    let alone = |s: &[PolyBody]| {
        let bodies: Vec<PolyBody> = std::iter::once(floor()).chain(s.iter().cloned()).collect();
        run(&bodies, (false, 0.5), 1, steps).0
    };
    let (in_a, in_b) = split(&one_thread);
    assert_eq!(in_a, alone(&a), "stack A differs from stack A alone");
    assert_eq!(in_b, alone(&b), "stack B differs from stack B alone");

    // The stacks settle: the top cube ends near rest on two cubes (z ≈ 0.5).
    let top = in_a[in_a.len() - 1];
    assert!((top[2] - 0.5).abs() < 0.02, "top cube at z = {}", top[2]);
}

/// From the same state, one step as one problem and one step as islands reach the same poses
/// to the solver's tolerance, at every step of the drop (compared step by step: over many
/// steps tiny differences grow through the contact model's discrete choices).
#[test]
fn the_whole_world_as_one_problem_agrees_with_the_islands_to_solver_tolerance() {
    let mut w = World3::new(params(true, 0.0)).unwrap();
    for b in std::iter::once(floor())
        .chain(stack(-3.0))
        .chain(stack(3.0))
    {
        w.add_body(b).unwrap();
    }
    let mut worst: Real = 0.0;
    for _ in 0..40 {
        let mut whole = w.clone();
        whole.params.islands = false;
        let r = whole.step();
        assert!(r.islands <= 1, "without islands the world is one problem");
        assert!(!w.step().failed);
        for (a, b) in w.bodies.iter().zip(&whole.bodies) {
            worst = worst.max((a.state.position - b.state.position).amax());
            worst = worst.max((a.state.linear_velocity - b.state.linear_velocity).amax());
        }
    }
    // Measured 1.05e-6 (m, m/s): Lemke's answers for the two forms satisfy the same
    // complementarity conditions to 1e-8 in the residual, but four coplanar vertex contacts
    // per face make the resting problems degenerate, and the velocities inherit the residual
    // amplified by that conditioning.
    assert!(worst < 1e-5, "islands and one problem differ by {worst}");
}

/// A world of three 0.2 m cubes stacked straight on the floor, at rest.
fn resting_stack(p: WorldParams) -> World3 {
    let mut w = World3::new(p).unwrap();
    w.add_body(floor()).unwrap();
    for k in 0..3 {
        let shape = ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
        let cube = PolyBody::dynamic(shape, 1.0, Mat3::identity() * (0.04 / 6.0))
            .unwrap()
            .with_pose(Vec3::new(0.0, 0.0, 0.1 + 0.2 * k as Real), Quat::identity())
            .with_gravity(Vec3::new(0.0, 0.0, -9.81));
        w.add_body(cube).unwrap();
    }
    w
}

/// Lemke pivots summed over 30 steps of a stack of three cubes resting on the floor (settled
/// first, frictionless), with or without warm starts.
fn resting_stack_pivots(warm: bool) -> (usize, Vec<[Real; 7]>) {
    let mut p = params(true, 0.0);
    p.warm_start = warm;
    let mut w = resting_stack(p);
    for _ in 0..5 {
        w.step();
    }
    let mut pivots = 0;
    let mut poses = Vec::new();
    for _ in 0..30 {
        let r = w.step();
        assert!(!r.failed, "{:?}", r.failure);
        assert!(r.counts.contacts >= 12, "{:?}", r.counts);
        pivots += r.iterations;
        for b in w.bodies.iter().skip(1) {
            let (p, q) = (b.state.position, b.state.orientation);
            poses.push([p.x, p.y, p.z, q.w, q.i, q.j, q.k]);
        }
    }
    (pivots, poses)
}

#[test]
fn a_warm_started_resting_stack_takes_fewer_pivots_than_a_cold_one() {
    let (warm, at_warm) = resting_stack_pivots(true);
    let (cold, at_cold) = resting_stack_pivots(false);
    assert!(warm * 2 <= cold, "warm {warm} pivots, cold {cold}");
    // The same resting configuration either way.
    let worst = at_warm
        .iter()
        .zip(&at_cold)
        .flat_map(|(p, q)| p.iter().zip(q).map(|(x, y)| (x - y).abs()))
        .fold(0.0, Real::max);
    assert!(worst < 1e-9, "warm and cold differ by {worst}");
}

/// The large-problem path (the mixed LCP assembled sparse, solved by the sparse semismooth
/// Newton method) reaches the dense Lemke chain's answers: forced with `dense_limit = 0` on a
/// frictionless stack of three cubes dropped on the floor, compared step by step from the same
/// state (as the islands test above, and with its tolerance).
#[test]
fn the_sparse_path_reaches_the_dense_chains_answers() {
    let mut w = World3::new(params(true, 0.0)).unwrap();
    w.add_body(floor()).unwrap();
    for b in stack(0.0) {
        w.add_body(b).unwrap();
    }
    let mut solvers = std::collections::BTreeSet::new();
    let mut worst: Real = 0.0;
    for _ in 0..60 {
        let mut sparse = w.clone();
        sparse.params.dense_limit = 0;
        let r = sparse.step();
        assert!(!r.failed, "{:?}", r.failure);
        solvers.extend(r.solver.map(|s| format!("{s:?}")));
        assert!(!w.step().failed);
        for (a, b) in w.bodies.iter().zip(&sparse.bodies) {
            worst = worst.max((a.state.position - b.state.position).amax());
            worst = worst.max((a.state.linear_velocity - b.state.linear_velocity).amax());
        }
    }
    assert!(solvers.contains("SparseNewton"), "{solvers:?}");
    assert!(worst < 1e-5, "sparse and dense paths differ by {worst}");
}

/// With friction the dense limit is the smaller of `dense_limit` and `friction_dense_limit`
/// (large frictional islands go to the sparse method, where dense Lemke often ends on a ray):
/// on the frictional stack, a `friction_dense_limit` below its island sends the solves to the
/// sparse method, whose answers match the dense chain's step by step from the same state (to
/// the non-uniqueness of frictional solutions);
/// without friction that limit changes nothing (bit-identical runs), and `dense_limit` still
/// applies with friction.
#[test]
fn the_friction_dense_limit_routes_only_frictional_islands_to_the_sparse_method() {
    let world = |mu: Real, dense: usize, friction_dense: usize| {
        let mut p = params(true, mu);
        p.dense_limit = dense;
        p.friction_dense_limit = friction_dense;
        let mut w = World3::new(p).unwrap();
        w.add_body(floor()).unwrap();
        for b in stack(0.0) {
            w.add_body(b).unwrap();
        }
        w
    };
    let solver_names = |w: &mut World3, steps: usize| {
        let mut names = std::collections::BTreeSet::new();
        for _ in 0..steps {
            let r = w.step();
            assert!(!r.failed, "{:?}", r.failure);
            names.extend(r.solver.map(|s| format!("{s:?}")));
        }
        names
    };
    let (big, small) = (signorini_world::DEFAULT_DENSE_LIMIT, 0);
    // Friction: the friction limit decides, and the two paths agree from the same state.
    let mut w = world(0.5, big, big);
    let mut dense_names = std::collections::BTreeSet::new();
    let mut sparse_names = std::collections::BTreeSet::new();
    let mut worst: Real = 0.0;
    for _ in 0..60 {
        let mut sparse = w.clone();
        sparse.params.friction_dense_limit = small;
        sparse_names.extend(solver_names(&mut sparse, 1));
        dense_names.extend(solver_names(&mut w, 1));
        for (a, b) in w.bodies.iter().zip(&sparse.bodies) {
            worst = worst.max((a.state.position - b.state.position).amax());
            worst = worst.max((a.state.linear_velocity - b.state.linear_velocity).amax());
        }
    }
    assert!(!dense_names.contains("SparseNewton"), "{dense_names:?}");
    assert!(sparse_names.contains("SparseNewton"), "{sparse_names:?}");
    // Four coplanar frictional contacts per interface are statically indeterminate: the two
    // solvers may return different solutions of the same LCP, whose velocities differ by
    // ~1e-4 m/s (6.2e-5 measured); a solve of the wrong problem would differ by g h ≈ 0.1 m/s.
    assert!(worst < 1e-3, "sparse and dense paths differ by {worst}");
    // `dense_limit` still applies with friction.
    assert!(solver_names(&mut world(0.5, small, big), 5).contains("SparseNewton"));
    // Without friction the friction limit is not used: bit-identical runs.
    let (mut a, mut b) = (world(0.0, big, small), world(0.0, big, big));
    assert!(!solver_names(&mut a, 60).contains("SparseNewton"));
    solver_names(&mut b, 60);
    let poses = |w: &World3| -> Vec<_> { w.bodies.iter().map(|x| x.state.position).collect() };
    assert_eq!(poses(&a), poses(&b));
}

/// The sparse Lemke (`WorldParams::sparse_lemke_from`, forced to 0 here) reaches the dense
/// chain's answers on the frictionless stack of three cubes dropped on the floor, step by
/// step from the same state: without friction the velocities of an LCP solution are unique
/// (Gᵀ M⁻¹ G is positive semidefinite), so the two pivoting methods must agree to round-off.
#[test]
fn the_sparse_lemke_reaches_the_dense_chains_answers() {
    let mut w = World3::new(params(true, 0.0)).unwrap();
    w.params.sparse_lemke_from = usize::MAX;
    w.add_body(floor()).unwrap();
    for b in stack(0.0) {
        w.add_body(b).unwrap();
    }
    let (mut worst, mut answered): (Real, usize) = (0.0, 0);
    for _ in 0..60 {
        let mut sparse = w.clone();
        sparse.params.sparse_lemke_from = 0;
        let r = sparse.step();
        assert!(!r.failed, "{:?}", r.failure);
        // It answered every solve of the step (a failure falls back to the dense chain and
        // says so).
        assert!(
            r.fallbacks.iter().all(|f| !f.contains("sparse Lemke")),
            "{:?}",
            r.fallbacks
        );
        answered += usize::from(r.unknowns > 0);
        assert!(!w.step().failed);
        for (a, b) in w.bodies.iter().zip(&sparse.bodies) {
            worst = worst.max((a.state.position - b.state.position).amax());
            worst = worst.max((a.state.linear_velocity - b.state.linear_velocity).amax());
        }
    }
    assert!(answered >= 30, "only {answered} steps had contacts");
    assert!(worst < 1e-9, "sparse and dense Lemke differ by {worst}");
}

/// The sparse Lemke starts each step from the last step's basis (on the resting stack the
/// set is the same from step to step, so the stored basis-only factor is used as it is; the
/// match by key of a changed set is `basis::tests`'s): it pivots far less than when every step
/// starts cold (`reuse_basis` off), and rests the same.
#[test]
fn the_sparse_lemke_starts_from_the_last_steps_basis() {
    let run = |reuse: bool| {
        let mut p = params(true, 0.0);
        p.reuse_basis = reuse;
        p.sparse_lemke_from = 0;
        let mut w = resting_stack(p);
        let mut pivots = 0;
        for _ in 0..30 {
            let r = w.step();
            assert!(!r.failed, "{:?}", r.failure);
            pivots += r.iterations;
        }
        let top = w.bodies[3].state.position.z;
        (pivots, top)
    };
    let (warm, top_warm) = run(true);
    let (cold, top_cold) = run(false);
    // Measured: 72 against 300 with faer's LU of the whole basis, 78 against 300 since the
    // unit columns are kept out of it (session 28: the warm basis's x_B = B⁻¹q has entries at
    // rounding level, and their signs move with the factorisation). Without the warm start
    // the two would be about equal.
    assert!(
        warm * 3 <= cold,
        "from the last basis {warm} pivots, cold {cold}"
    );
    assert!(
        (top_warm - top_cold).abs() < 1e-9,
        "{top_warm} against {top_cold}"
    );
}
