//! Integration tests of contacts, PEG constraint building and the formulation (no solving);
//! 3D polyhedra in `dim3`.

mod dim3;
mod general_form;
mod vertex_vertex;

use signorini_contact::{peg::build_peg_constraints, *};
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::{ConvexPolygon, intersection_area};
use signorini_math::{Vec2, Vec3};

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::new(x, y)
}

fn poly(p: &[(f64, f64)]) -> ConvexPolygon {
    ConvexPolygon::new(p.iter().map(|&(x, y)| v(x, y)).collect()).unwrap()
}

fn dynamic(shape: ConvexPolygon, pos: Vec2, angle: f64) -> RigidBody2 {
    RigidBody2::dynamic(shape, 1.0, 0.1)
        .unwrap()
        .with_pose(pos, angle)
}

/// A deterministic uniform sequence in [−0.5, 0.5) (xorshift64 from `seed`), for the
/// property tests here and in `dim3`.
fn uniform(mut s: u64) -> impl FnMut() -> f64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// PEG constraints for bodies at rest (predicted = current), all pairs candidates.
fn peg(bodies: &[RigidBody2], eps: f64) -> ConstraintSet {
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let mut pairs = Vec::new();
    for i in 0..bodies.len() {
        for j in i + 1..bodies.len() {
            pairs.push((i, j));
        }
    }
    let contacts = potential_contacts(bodies, &verts, &verts, &pairs, eps);
    let counts: Vec<usize> = bodies.iter().map(|b| b.shape.len()).collect();
    build_peg_constraints(contacts, &counts, PEG_APPLICABILITY_RELAXATION)
}

/// ν* = ν + h M⁻¹ F of each body (zero for static ones).
fn free_velocities(bodies: &[RigidBody2], h: f64) -> Vec<Vec3> {
    bodies
        .iter()
        .map(|b| {
            if b.is_static {
                Vec3::zeros()
            } else {
                b.free_velocity(h)
            }
        })
        .collect()
}

fn unit_square() -> ConvexPolygon {
    ConvexPolygon::rectangle(0.0, 0.0, 1.0, 1.0).unwrap()
}

#[test]
fn vertex_edge_gap_normal_and_jacobian_follow_conventions() {
    // Vertex of A at (0.5, 1.2) above the top edge of B = [0,1]², edge 2 runs (1,1)→(0,1).
    let a = dynamic(
        poly(&[(0.0, 0.0), (0.2, 0.3), (-0.2, 0.3)]),
        v(0.5, 1.2),
        0.0,
    );
    let b = RigidBody2::fixed(unit_square());
    let c = vertex_edge_contact(
        (0, 1),
        &a.world_vertices(),
        &b.world_vertices(),
        0,
        2,
        (a.position, b.position),
        (false, true),
    );
    assert!((c.gap - 0.2).abs() < 1e-15);
    assert!(
        (c.normal - v(0.0, -1.0)).norm() < 1e-15,
        "normal points from A into B"
    );
    // Moving A down at 1 m/s closes the gap at 1 m/s: Gᵀν = −1.
    let rate = c.jacobian.dot_velocity(|i| {
        if i == 0 {
            Vec3::new(0.0, -1.0, 0.0)
        } else {
            Vec3::zeros()
        }
    });
    assert!((rate + 1.0).abs() < 1e-15);
    assert_eq!(c.jacobian.blocks.len(), 1, "static body has no block");
    // Neighbours of the vertex point up, away from the edge: applicable (≥ 0).
    assert!(c.applicability > 0.5);
}

#[test]
fn vertex_at_a_corner_gives_one_intercontact_constraint() {
    // Paper Fig. 2: a vertex near the corner of a static square. The standard model enforces
    // both edges (SM trap); PEG writes one I-constraint max(ψ1, ψ2) ≥ 0.
    let tri = poly(&[(0.0, 0.0), (0.5, 0.2), (0.2, 0.5)]);
    let bodies = vec![
        dynamic(tri, v(1.0003, 1.0003), 0.0),
        RigidBody2::fixed(unit_square()),
    ];
    let set = peg(&bodies, 0.0008);
    let k = set.counts();
    assert_eq!((k.unilateral, k.inter, k.cross), (0, 1, 0), "{k:?}");
    let ic = &set.inter[0];
    let (p, s) = (&set.contacts[ic.primary], &set.contacts[ic.secondaries[0]]);
    assert_eq!((p.a, p.vertex, s.a, s.vertex), (0, 0, 0, 0));
    let mut edges = [p.edge, s.edge];
    edges.sort();
    assert_eq!(edges, [1, 2], "right and top edges of the square");
    // The standard ε-distance detector makes two unilateral contacts of the same vertex.
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let sm = standard_contacts(&bodies, &verts, &[(0, 1)], SM_DETECTION_DISTANCE);
    assert!(sm.iter().filter(|c| c.a == 0 && c.vertex == 0).count() >= 2);
}

/// Two unit squares corner to corner (paper Fig. 5): A's bottom-left corner near B's top-right.
fn vertex_vertex_bodies(dx: f64, dy: f64, angle: f64) -> Vec<RigidBody2> {
    let a = dynamic(unit_square(), v(dx, dy), angle);
    let b = RigidBody2::fixed(ConvexPolygon::rectangle(-1.0, -1.0, 0.0, 0.0).unwrap());
    vec![a, b]
}

#[test]
fn vertex_vertex_gives_two_intercontact_and_two_crosscontact_constraints() {
    let bodies = vertex_vertex_bodies(0.0002, 0.0003, 0.0);
    let set = peg(&bodies, 0.0008);
    let k = set.counts();
    assert_eq!((k.unilateral, k.inter, k.cross), (0, 2, 2), "{k:?}");
    // Each I pairs contacts of one vertex; each X pairs contacts of different vertices.
    for ic in &set.inter {
        let (p, s) = (&set.contacts[ic.primary], &set.contacts[ic.secondaries[0]]);
        assert_eq!((p.a, p.vertex), (s.a, s.vertex));
    }
    for xc in &set.cross {
        let (p, s) = (&set.contacts[xc.primary], &set.contacts[xc.secondaries[0]]);
        assert_ne!(p.a, s.a);
    }
}

/// Two thin wedges tip to tip (A's tip at the origin of its frame, pointing −x; B static,
/// tip at the origin pointing +x): all four vertex–edge contacts are applicable.
fn wedges(dx: f64, dy: f64, angle: f64) -> Vec<RigidBody2> {
    let a = dynamic(
        poly(&[(1.0, 0.3), (0.0, 0.0), (1.0, -0.3)]),
        v(dx, dy),
        angle,
    );
    let b = RigidBody2::fixed(poly(&[(-1.0, -0.3), (0.0, 0.0), (-1.0, 0.3)]));
    vec![a, b]
}

/// ψ of every contact of `set`, re-measured at another configuration.
fn gaps_at(set: &ConstraintSet, bodies: &[RigidBody2]) -> Vec<f64> {
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    set.contacts
        .iter()
        .map(|c| {
            let st = (bodies[c.a].is_static, bodies[c.b].is_static);
            vertex_edge_contact(
                (c.a, c.b),
                &verts[c.a],
                &verts[c.b],
                c.vertex,
                c.edge,
                (Vec2::zeros(), Vec2::zeros()),
                st,
            )
            .gap
        })
        .collect()
}

#[test]
fn cross_contact_constraints_catch_what_intercontact_constraints_miss() {
    // Paper Fig. 6: I-constraints alone allow ψ1 and ψ4 (or ψ2 and ψ3) to be violated at the
    // same time, i.e. crossing edges. Scan small motions of A about the corner: whenever the
    // bodies overlap, some I or X constraint must be violated, and some overlapping
    // configurations satisfy both I's (so the X's are necessary).
    let base = wedges(0.0003, 0.0, 0.0); // tips facing each other, 0.3 mm apart
    let set = peg(&base, 0.0008);
    assert_eq!(set.counts().inter, 2);
    assert_eq!(set.counts().cross, 2);
    let sat = |pc: &PairConstraint, g: &[f64]| g[pc.primary].max(g[pc.secondaries[0]]) >= 0.0;
    let (mut overlaps, mut only_x) = (0, 0);
    for i in -10..=10 {
        for j in -10..=10 {
            for k in -6..=6 {
                let (dx, dy, th) = (0.02 * i as f64, 0.02 * j as f64, 0.1 * k as f64);
                // Rotate A about its corner vertex.
                let c = v(0.0003 + dx, dy);
                let bodies = wedges(c.x, c.y, th);
                let area =
                    intersection_area(&bodies[0].world_vertices(), &bodies[1].world_vertices());
                if area <= 1e-12 {
                    continue;
                }
                overlaps += 1;
                let g = gaps_at(&set, &bodies);
                let i_ok = set.inter.iter().all(|p| sat(p, &g));
                let x_ok = set.cross.iter().all(|p| sat(p, &g));
                assert!(
                    !(i_ok && x_ok),
                    "overlap {area} not caught at ({dx}, {dy}, {th})"
                );
                if i_ok {
                    only_x += 1;
                }
            }
        }
    }
    assert!(
        overlaps > 100 && only_x > 0,
        "overlaps {overlaps}, caught only by X {only_x}"
    );
}

#[test]
fn two_colluding_corner_traps_become_intercontact_constraints() {
    // Paper Fig. 3: a block whose two bottom corners sit at the top corners of two static
    // blocks. The standard model enforces all nearby edges (two SM traps); PEG builds
    // vertex–vertex I/X constraints and no unilateral constraint on those corners.
    let block = dynamic(
        ConvexPolygon::rectangle(-0.5, 0.0, 0.5, 0.5).unwrap(),
        v(0.0, 0.0003),
        0.0,
    );
    let left = RigidBody2::fixed(ConvexPolygon::rectangle(-1.5, -1.0, -0.5002, 0.0).unwrap());
    let right = RigidBody2::fixed(ConvexPolygon::rectangle(0.5001, -1.0, 1.5, 0.0).unwrap());
    let bodies = vec![block, left, right];
    let set = peg(&bodies, 0.0008);
    let k = set.counts();
    assert_eq!((k.unilateral, k.inter, k.cross), (0, 4, 4), "{k:?}");
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let sm = standard_contacts(&bodies, &verts, &[(0, 1), (0, 2)], SM_DETECTION_DISTANCE);
    assert!(
        sm.len() >= 4,
        "standard model: {} unilateral contacts",
        sm.len()
    );
}

#[test]
fn reduced_lcp_of_one_contact_matches_hand_computation() {
    // A unit-mass square resting 1 mm above a static floor, falling at 0.5 m/s.
    let mut a = RigidBody2::dynamic(
        ConvexPolygon::rectangle(-0.5, -0.5, 0.5, 0.5).unwrap(),
        2.0,
        0.25,
    )
    .unwrap()
    .with_pose(v(0.0, 0.501), 0.0)
    .with_velocity(Vec3::new(0.0, -0.5, 0.0));
    a.external_force = Vec3::new(0.0, -19.6, 0.0);
    let floor = RigidBody2::fixed(ConvexPolygon::rectangle(-2.0, -1.0, 2.0, 0.0).unwrap());
    let bodies = vec![a, floor];
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let contacts = potential_contacts(&bodies, &verts, &verts, &[(0, 1)], 0.002);
    let set = ConstraintSet::all_unilateral(contacts.into_iter().filter(|c| c.a == 0).collect());
    assert_eq!(set.contacts.len(), 2, "two bottom corners");
    let h = 0.01;
    let f = Formulation::build(&set, h, 0.0);
    let free = free_velocities(&bodies, h);
    let lcp = f.reduced_lcp(&bodies, &free).unwrap();
    // G = [0, 1, r×n] with r = (∓0.5, −0.5), n = (0, −1) … gap rate of a corner = −v_y ∓ 0.5 ω.
    // M_ij = 1/m + (r_i×n)(r_j×n)/J, q_i = −v*_y + ψ/h.
    let m = 2.0;
    let j = 0.25;
    let rxn = [0.5, -0.5]; // (r × n) for the corners at x = −0.5, +0.5 (sign via n = (0,−1))
    let mut order = [0usize, 1];
    if set.contacts[0].point.x > 0.0 {
        order.swap(0, 1);
    }
    for (ii, &ci) in order.iter().enumerate() {
        for (jj, &cj) in order.iter().enumerate() {
            let expect = 1.0 / m + rxn[ii] * rxn[jj] / j;
            assert!(
                (lcp.m[(ci, cj)] - expect).abs() < 1e-12,
                "M[{ci},{cj}] = {} vs {expect}",
                lcp.m[(ci, cj)]
            );
        }
        // Gap rate of a corner = v_y (A above the floor): q = v*_y + ψ/h.
        let expect_q = (-0.5 - 9.8 * h) + 0.001 / h;
        assert!(
            (lcp.q[ci] - expect_q).abs() < 1e-12,
            "q = {} vs {expect_q}",
            lcp.q[ci]
        );
    }
    // The mixed form has 3 free velocity unknowns first.
    let (mcp, dynamic) = f.mixed_mcp(&bodies, &free).unwrap();
    assert_eq!((mcp.dim(), dynamic), (5, vec![0]));
    // The sparse triplets sum to the same matrix, with the same q and free block.
    let t = f.mixed_triplets(&bodies, &free).unwrap();
    assert_eq!((t.n, t.n_free, t.dynamic.clone()), (5, 3, vec![0]));
    let mut dense = nalgebra::DMatrix::<f64>::zeros(5, 5);
    for &(i, j, x) in &t.triplets {
        dense[(i, j)] += x;
    }
    assert_eq!(dense, mcp.m);
    assert_eq!(t.q, mcp.q);
    assert_eq!(f.normal_contacts().len(), f.n_normal);
}

#[test]
fn friction_pyramid_adds_two_directions_and_a_slack_per_contact() {
    let a = dynamic(
        poly(&[(0.0, 0.0), (0.2, 0.3), (-0.2, 0.3)]),
        v(0.5, 1.0001),
        0.0,
    );
    let bodies = vec![a, RigidBody2::fixed(unit_square())];
    let set = peg(&bodies, 0.0008);
    assert_eq!(set.counts().unilateral, 1);
    let f = Formulation::build(&set, 0.01, 0.3);
    assert_eq!(f.dim(), 4);
    let free = vec![Vec3::new(1.0, 0.0, 0.0), Vec3::zeros()];
    let lcp = f.reduced_lcp(&bodies, &free).unwrap();
    // Slack row: μ p_n − f₊ − f₋.
    assert_eq!(
        (lcp.m[(3, 0)], lcp.m[(3, 1)], lcp.m[(3, 2)], lcp.m[(3, 3)]),
        (0.3, -1.0, -1.0, 0.0)
    );
    // Tangential rows see the sliding velocity with opposite signs.
    assert!((lcp.q[1] + lcp.q[2]).abs() < 1e-15 && lcp.q[1].abs() > 0.5);
}

#[test]
fn corrective_detector_makes_one_contact_per_overlapping_pair() {
    let a = dynamic(
        ConvexPolygon::rectangle(-0.5, -0.5, 0.5, 0.5).unwrap(),
        v(0.0, 0.49),
        0.0,
    );
    let bodies = vec![
        a,
        RigidBody2::fixed(ConvexPolygon::rectangle(-2.0, -1.0, 2.0, 0.0).unwrap()),
    ];
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let c = corrective_contacts(&bodies, &verts, &[(0, 1)]);
    assert_eq!(c.len(), 1);
    assert!((c[0].gap + 0.01).abs() < 1e-12);
    assert!((c[0].normal - v(0.0, -1.0)).norm() < 1e-12);
}

#[test]
fn a_vertex_predicted_deep_inside_a_thin_body_is_not_paired_with_the_far_edge() {
    // Triangle A's lowest vertex at (0.5, 0.005), 5 mm above a 2 cm thick static plate
    // y ∈ [−0.02, 0]. Predicted (v = −1 m/s, h = 0.018): (0.5, −0.013), inside the plate and
    // nearer to its bottom edge (edge 0) than to its top edge (edge 2). The deep-vertex rule
    // used to pair it with the bottom edge too: a contact whose gap now is −0.025 m. Only the
    // top edge (the one it crosses) may be paired.
    let a = dynamic(
        poly(&[(0.0, 0.0), (0.1, 0.1), (-0.1, 0.1)]),
        v(0.5, 0.005),
        0.0,
    )
    .with_velocity(Vec3::new(0.0, -1.0, 0.0));
    let plate = RigidBody2::fixed(ConvexPolygon::rectangle(0.0, -0.02, 1.0, 0.0).unwrap());
    let bodies = vec![a, plate];
    let h = 0.018;
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let pred: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.predicted_vertices(h)).collect();
    let contacts = potential_contacts(&bodies, &verts, &pred, &[(0, 1)], 0.001);
    let edges: Vec<(usize, usize)> = contacts
        .iter()
        .filter(|c| c.a == 0)
        .map(|c| (c.vertex, c.edge))
        .collect();
    assert_eq!(
        edges,
        vec![(0, 2)],
        "vertex 0 with the plate's top edge only"
    );
    for c in &contacts {
        assert!(c.gap > -0.01, "contact {:?} has gap {} m", c.key(), c.gap);
    }
    // A vertex already inside the plate now still gets its least-penetrated edge.
    let a = dynamic(
        poly(&[(0.0, 0.0), (0.1, 0.1), (-0.1, 0.1)]),
        v(0.5, -0.004),
        0.0,
    );
    let bodies = vec![a, bodies[1].clone()];
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let contacts = potential_contacts(&bodies, &verts, &verts, &[(0, 1)], 0.001);
    assert!(
        contacts
            .iter()
            .any(|c| c.a == 0 && c.vertex == 0 && c.edge == 2 && (c.gap + 0.004).abs() < 1e-12)
    );
}

#[test]
fn a_vertex_inside_the_other_body_is_constrained_whatever_its_applicability() {
    // Triangle A's vertex 0 at (0.5, 0.95), 5 cm inside the unit square B (static) below its
    // top edge (edge 2, the least-penetrated one). Its neighbours (1.5, 0.7) and (1.5, 1.3)
    // make its applicability to that edge −0.24 < −0.2: the relaxed test rejects it, which used
    // to leave the embedded vertex unconstrained (pour2d set j, h = 0.003 s, step 1578).
    let a = dynamic(
        poly(&[(0.5, 0.95), (1.5, 0.7), (1.5, 1.3)]),
        v(0.0, 0.0),
        0.0,
    );
    let bodies = vec![a, RigidBody2::fixed(unit_square())];
    let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    assert!(applicability(&verts[0], 0, &v(0.0, 1.0)) < PEG_APPLICABILITY_RELAXATION);
    let set = peg(&bodies, 0.0008);
    let k = set
        .contacts
        .iter()
        .position(|c| c.key() == (0, 0, 1, 2))
        .expect("the embedded vertex is paired with the top edge");
    let c = &set.contacts[k];
    assert!((c.gap + 0.05).abs() < 1e-12, "gap {}", c.gap);
    assert_eq!(c.applicability, DEEP_APPLICABILITY);
    assert!(set.unilateral.contains(&k), "a U-constraint: {set:?}");
    // B's corner (1, 1) is inside A as well (under A's upper edge): also constrained.
    assert!(set.unilateral.iter().any(|&u| {
        let c = &set.contacts[u];
        c.a == 1 && c.vertex == 2 && c.gap < 0.0
    }));
}

/// Block Gauss–Seidel (one block per body pair, exact block solves) reaches the solution of the
/// reduced LCP that Lemke finds, on a staggered stack of three squares on a floor under PEG
/// with friction: the same velocities, and its answer solves the assembled LCP.
#[test]
fn block_gauss_seidel_solves_the_reduced_lcp_of_a_stack() {
    let h = 0.01;
    let mut bodies = vec![RigidBody2::fixed(
        ConvexPolygon::rectangle(-3.0, -1.0, 3.0, 0.0).unwrap(),
    )];
    for k in 0..3 {
        let x = 0.1 * k as f64;
        let mut b = dynamic(
            ConvexPolygon::rectangle(-0.25, -0.25, 0.25, 0.25).unwrap(),
            v(x, 0.2505 + 0.5005 * k as f64),
            0.0,
        )
        .with_velocity(Vec3::new(0.0, -0.3, 0.0));
        b.external_force = Vec3::new(0.0, -9.8, 0.0);
        bodies.push(b);
    }
    let set = peg(&bodies, 0.002);
    assert!(set.contacts.len() >= 6, "{:?}", set.counts());
    let f = Formulation::build(&set, h, 0.3);
    let free = free_velocities(&bodies, h);
    let lcp = f.reduced_lcp(&bodies, &free).unwrap();
    let exact = signorini_complementarity::solve_lcp(&lcp, &Default::default()).unwrap();
    let gs = f.solve_block_gs(
        &bodies,
        &free,
        None,
        &BlockGsParams {
            tolerance: 1e-10,
            max_sweeps: 500,
        },
    );
    assert!(
        gs.residual <= 1e-10,
        "residual {} after {} sweeps",
        gs.residual,
        gs.sweeps
    );
    assert!(gs.sweeps > 1, "a stack needs more than one sweep");
    assert!(
        lcp.to_mcp().residual(&gs.z) < 1e-9,
        "not a solution of the assembled LCP"
    );
    let (a, b) = (
        f.velocities_from_lcp(&bodies, &free, &gs.z),
        f.velocities_from_lcp(&bodies, &free, &exact.z),
    );
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).amax() < 1e-8, "{x:?} vs {y:?}");
    }
}

/// 2D counterpart of `dim3::no_constraint_reads_a_penetration_between_bodies_that_do_not_overlap`:
/// 400 random hexagon-like pairs 0–0.02 m apart (no overlap, checked exactly), approaching at
/// up to 4 m/s and spinning, h = 0.005 s. No contact has a gap below −ε unless its vertex is
/// inside the other body, no U-constraint reads a negative gap beyond round-off and no I- or
/// X-constraint has all members below −ε. The 2D pile of 400 bodies had a U-constraint at
/// −0.011 m between bodies that did not overlap (a vertex past the edge's end, near the edge
/// only at the predicted pose).
#[test]
fn no_constraint_reads_a_penetration_between_polygons_that_do_not_overlap() {
    let mut next = uniform(0x2545_f491_4f6c_dd1d);
    let h = 0.005;
    let eps = peg_detection_distance(h);
    let shape = |next: &mut dyn FnMut() -> f64| {
        let n = 5 + ((next() + 0.5) * 4.0) as usize;
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|k| {
                let t = std::f64::consts::TAU * (k as f64 + 0.3 * next()) / n as f64;
                (0.1 * t.cos(), 0.1 * t.sin())
            })
            .collect();
        poly(&pts)
    };
    let (mut pairs, mut constraints) = (0, 0);
    while pairs < 400 {
        let (sa, sb) = (shape(&mut next), shape(&mut next));
        let (ta, tb) = (6.0 * next(), 6.0 * next());
        let dir = v(next(), next()).normalize();
        let (pa_, pb_) = (sa.placed(&Vec2::zeros(), ta), sb.placed(&Vec2::zeros(), tb));
        let (mut lo, mut hi) = (0.0, 0.25);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            let moved: Vec<Vec2> = pb_.iter().map(|p| p + dir * mid).collect();
            if intersection_area(&pa_, &moved) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let d = hi + 0.02 * (next() + 0.5);
        let speed = 4.0 * (next() + 0.5);
        let a = dynamic(sa, Vec2::zeros(), ta).with_velocity(Vec3::new(0.0, 0.0, 40.0 * next()));
        let vb = -dir * speed;
        let b = dynamic(sb, dir * d, tb).with_velocity(Vec3::new(vb.x, vb.y, 40.0 * next()));
        let bodies = vec![a, b];
        let verts: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
        if intersection_area(&verts[0], &verts[1]) > 0.0 {
            continue;
        }
        pairs += 1;
        let pred: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.predicted_vertices(h)).collect();
        let contacts = potential_contacts(&bodies, &verts, &pred, &[(0, 1)], eps);
        for c in &contacts {
            assert!(
                c.gap >= -eps,
                "pair {pairs}: contact {:?} gap {:e}",
                c.key(),
                c.gap
            );
        }
        let counts: Vec<usize> = bodies.iter().map(|b| b.shape.len()).collect();
        let set = build_peg_constraints(contacts, &counts, PEG_APPLICABILITY_RELAXATION);
        for &k in &set.unilateral {
            let g = set.contacts[k].gap;
            assert!(g >= -eps, "pair {pairs}: U reads gap {g:e}");
        }
        for p in set.inter.iter().chain(&set.cross) {
            let members = std::iter::once(p.primary).chain(p.secondaries.iter().copied());
            let best = members
                .map(|m| set.contacts[m].gap)
                .fold(f64::MIN, f64::max);
            assert!(best >= -eps, "pair {pairs}: group reads {best:e}");
        }
        constraints += set.unilateral.len() + set.inter.len() + set.cross.len();
    }
    assert!(constraints > 200, "{constraints}");
}
