//! Issue #22 item 2: PEG's general form (|C_ι| > 1, paper Eqs. 20–23, our reconstruction in
//! `Formulation`'s docs) and the paper's X-constraints without impulse, against the default
//! single-primary form with impulse-carrying X's (paper Eq. 24, the authors' code), on
//! hand-built trap configurations in 2D (a corner meeting a corner, paper Fig. 5; the triangle
//! drop's wedge, paper Fig. 1) and 3D (a cube's vertex at an edge and at a vertex).
//!
//! Every small reduced LCP is solved by enumeration of all complementary bases, so the tests
//! see the whole solution set its equations define, not the one a pivoting rule picks. For
//! each solution they check complementarity, the end-of-step constraint values (every U ≥ 0,
//! every I/X max ≥ 0: Eqs. 11, 15–16, 20), and each form's own impulse rule: single primary,
//! λ_ι > 0 only at `max = 0` (Eq. 24); general form, λ_i > 0 only when ψ'_i = 0 and every
//! other member is ≤ 0 (Eq. 23); paper X, no velocity change from an X's multiplier.

use nalgebra::{DMatrix, DVector};
use signorini_contact::dim3::{ConstraintSet3, Contact3, Peg3Params, peg_constraints3};
use signorini_contact::peg::build_peg_constraints_with;
use signorini_contact::{
    ConstraintSet, Contact, ContactRow, Formulation, PEG_APPLICABILITY_RELAXATION, PegForm,
    XImpulse, potential_contacts,
};
use signorini_dynamics::{Gyroscopic, RigidBody2, RigidBody3};
use signorini_geometry::dim2::ConvexPolygon;
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec2, Vec3, Vec6};

/// Complementarity and feasibility tolerance of an enumerated solution.
const TOL: Real = 1e-9;

/// Every basic solution of `0 ≤ z ⊥ Mz + q ≥ 0` (n ≤ 20): for each set S of basic z, solve
/// M_SS z_S = −q_S (least squares, so singular bases — a paper-form X's multiplier has a zero
/// column — give their minimum-norm point) and keep z if z ≥ 0, w ≥ 0 and z ⊥ w.
fn all_solutions(m: &DMatrix<Real>, q: &DVector<Real>) -> Vec<DVector<Real>> {
    let n = q.len();
    assert!(n <= 20, "{n} unknowns: too many to enumerate");
    let mut out = Vec::new();
    for mask in 0u32..(1 << n) {
        let basic: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
        let mut z = DVector::zeros(n);
        if !basic.is_empty() {
            let k = basic.len();
            let a = DMatrix::from_fn(k, k, |r, c| m[(basic[r], basic[c])]);
            let b = DVector::from_fn(k, |r, _| -q[basic[r]]);
            // Least squares (minimum norm) also answers singular bases; the checks below
            // keep only exact solutions.
            let Ok(x) = a.svd(true, true).solve(&b, 1e-13) else {
                continue;
            };
            for (r, &i) in basic.iter().enumerate() {
                z[i] = x[r];
            }
        }
        let w = m * &z + q;
        let ok = basic.iter().all(|&i| w[i].abs() <= TOL)
            && z.iter().chain(w.iter()).all(|x| x.is_finite())
            && z.iter().all(|&x| x >= -TOL)
            && w.iter().all(|&x| x >= -TOL)
            && z.iter().zip(w.iter()).all(|(a, b)| (a * b).abs() <= TOL);
        if ok {
            out.push(z);
        }
    }
    out
}

/// The end-of-step gap rate ψ'_k = ψ_k/h + G_kᵀν of every contact.
fn rates<C: ContactRow<D>, const D: usize>(
    set: &ConstraintSet<C>,
    nu: &[nalgebra::SVector<Real, D>],
    h: Real,
) -> Vec<Real> {
    set.contacts
        .iter()
        .map(|c| c.gap() / h + c.jacobian().dot_velocity(|b| nu[b]))
        .collect()
}

/// What one form's solution set looks like.
struct Outcome<const D: usize> {
    /// The velocity outcome of every solution.
    velocities: Vec<Vec<nalgebra::SVector<Real, D>>>,
    /// Solutions whose I-constraint impulse acts on a member with ψ' < 0 (violating Eq. 23).
    eq23_violations: usize,
}

/// Enumerate the form's solutions and check each (module docs).
fn check_form<C: ContactRow<D>, B: signorini_contact::DofBody<D>, const D: usize>(
    name: &str,
    set: &ConstraintSet<C>,
    bodies: &[B],
    free: &[nalgebra::SVector<Real, D>],
    h: Real,
) -> Outcome<D> {
    let f = Formulation::<D>::build(set, h, 0.0);
    let lcp = f.reduced_lcp(bodies, free).unwrap();
    let sols = all_solutions(&lcp.m, &lcp.q);
    let n_u = set.unilateral.len();
    let n_i = set.inter.len();
    let n_primary = n_u + n_i + set.cross.len();
    let mut velocities = Vec::new();
    let mut eq23_violations = 0;
    for z in &sols {
        let nu = f.velocities_from_lcp(bodies, free, z);
        let psi = rates(set, &nu, h);
        // Eqs. 11, 15–16, 20: every constraint holds at the end of the step.
        for &u in &set.unilateral {
            assert!(psi[u] >= -TOL, "{name}: U {u} ends at {}", psi[u]);
        }
        for p in set.inter.iter().chain(&set.cross) {
            let max = std::iter::once(p.primary)
                .chain(p.secondaries.iter().copied())
                .map(|k| psi[k])
                .fold(Real::NEG_INFINITY, Real::max);
            assert!(max >= -TOL, "{name}: {p:?} ends at max {max}");
        }
        // Impulses of the I-constraints: the reference primary's λ at n_u + j, the general
        // form's co-primaries after every primary, in pair order.
        let mut co = n_primary;
        for (j, p) in set.inter.iter().enumerate() {
            let members: Vec<usize> = std::iter::once(p.primary)
                .chain(p.secondaries.iter().copied())
                .collect();
            let max = members
                .iter()
                .map(|&k| psi[k])
                .fold(Real::NEG_INFINITY, Real::max);
            let mut carriers = vec![(p.primary, z[n_u + j])];
            for &k in &p.co_primaries {
                carriers.push((k, z[co]));
                co += 1;
            }
            for (k, lambda) in carriers {
                if lambda > 1e-7 {
                    // Eq. 24 (and 23): a force only when the constraint is active.
                    assert!(max.abs() <= 1e-7, "{name}: λ = {lambda} at max {max}");
                    if psi[k] < -1e-7 {
                        eq23_violations += 1;
                    }
                    if !p.co_primaries.is_empty() {
                        // Eq. 23: the force acts on a member at 0, the others ≤ 0.
                        assert!(psi[k].abs() <= 1e-7, "{name}: λ on ψ' = {}", psi[k]);
                    }
                }
            }
        }
        // Paper-form X: the multiplier moves nothing.
        if set.x_impulse == XImpulse::Paper {
            let mut zero = z.clone();
            for k in n_u + n_i..n_primary {
                zero[k] = 0.0;
            }
            assert_eq!(
                f.velocities_from_lcp(bodies, free, &zero),
                nu,
                "{name}: an X multiplier acted"
            );
        }
        velocities.push(nu);
    }
    Outcome {
        velocities,
        eq23_violations,
    }
}

/// True if some velocity outcome of `a` is not (within 1e-7) one of `b`'s.
fn has_outcome_outside<const D: usize>(a: &Outcome<D>, b: &Outcome<D>) -> bool {
    a.velocities.iter().any(|va| {
        !b.velocities
            .iter()
            .any(|vb| va.iter().zip(vb).all(|(x, y)| (x - y).amax() <= 1e-7))
    })
}

// ------------------------------------------------------------------------------------- 2D

fn v(x: Real, y: Real) -> Vec2 {
    Vec2::new(x, y)
}

/// PEG constraints of bodies with velocities, predicted pose = current pose + hν, in one form.
fn peg2(bodies: &[RigidBody2], _h: Real, form: PegForm, x: XImpulse) -> ConstraintSet<Contact> {
    let now: Vec<Vec<Vec2>> = bodies.iter().map(|b| b.world_vertices()).collect();
    let contacts = potential_contacts(bodies, &now, &now, &[(0, 1)], 0.01);
    let counts: Vec<usize> = bodies.iter().map(|b| b.shape.len()).collect();
    build_peg_constraints_with(contacts, &counts, PEG_APPLICABILITY_RELAXATION, form, x)
}

/// The four forms' outcomes on one 2D scene: (single, general, paper X, general + paper X).
fn four_forms_2d(name: &str, bodies: &[RigidBody2], h: Real) -> [(ConstraintSet, Outcome<3>); 4] {
    let free = super::free_velocities(bodies, h);
    [
        (PegForm::SinglePrimary, XImpulse::Primary),
        (PegForm::General, XImpulse::Primary),
        (PegForm::SinglePrimary, XImpulse::Paper),
        (PegForm::General, XImpulse::Paper),
    ]
    .map(|(form, x)| {
        let set = peg2(bodies, h, form, x);
        let label = format!("{name} {} / X {}", form.name(), x.name());
        let out = check_form(&label, &set, bodies, &free, h);
        (set, out)
    })
}

/// Paper Fig. 5: a square's corner meeting the top-right corner of a static square, moving
/// into it diagonally and turning. Four contacts, I {c1, c2}, {c3, c4}, X (c1, c4), (c2, c3);
/// every contact applicable, so the general form has two primaries in each I.
#[test]
fn corner_into_a_corner_2d_each_form_gives_its_own_solutions() {
    let h = 0.01;
    let block = RigidBody2::fixed(ConvexPolygon::rectangle(0.0, 0.0, 1.0, 1.0).unwrap());
    let a = RigidBody2::dynamic(
        ConvexPolygon::rectangle(-0.25, -0.25, 0.25, 0.25).unwrap(),
        1.0,
        0.1,
    )
    .unwrap()
    .with_pose(v(1.25 + 0.0005, 1.25 + 0.002), 0.0)
    .with_velocity(Vec3::new(-0.6, -0.9, 0.5));
    let bodies = vec![a, block];
    let [(single, s), (general, g), (paper_x, px), (both, gx)] =
        four_forms_2d("corner", &bodies, h);
    assert_eq!(single.counts().inter, 2, "{:?}", single.counts());
    assert_eq!(single.counts().cross, 2, "{:?}", single.counts());
    assert!(single.inter.iter().all(|p| p.co_primaries.is_empty()));
    assert!(general.inter.iter().all(|p| p.co_primaries.len() == 1));
    assert_eq!(paper_x.x_impulse, XImpulse::Paper);
    assert_eq!(both.inter, general.inter);
    // The general form admits an outcome the single primary does not (the force on the
    // other member of C_ι), and forbids the single primary's force on a member below 0.
    assert!(has_outcome_outside(&g, &s), "general adds no outcome");
    assert_eq!(g.eq23_violations, 0);
    assert_eq!(gx.eq23_violations, 0);
    // Paper-form X: X's multipliers move nothing, so the outcomes differ from the
    // impulse-carrying X's.
    assert!(
        has_outcome_outside(&px, &s) || has_outcome_outside(&s, &px),
        "paper X changes nothing here"
    );
    assert!(!px.velocities.is_empty() && !gx.velocities.is_empty());
}

/// Where C_ι has one member (the other contact not applicable), the general form is the
/// single-primary form bit for bit (Eq. 24 is Eqs. 20–23 with m = 1), and without
/// X-constraints the paper's X changes nothing either.
#[test]
fn one_applicable_member_makes_the_forms_identical_2d() {
    let h = 0.01;
    let block = RigidBody2::fixed(ConvexPolygon::rectangle(0.0, 0.0, 1.0, 1.0).unwrap());
    // A diamond whose bottom vertex is just above the block's top-right corner: on the top
    // edge its neighbours are above (applicable), on the right edge one is behind (not).
    let diamond =
        ConvexPolygon::new(vec![v(0.0, -0.2), v(0.2, 0.0), v(0.0, 0.2), v(-0.2, 0.0)]).unwrap();
    let a = RigidBody2::dynamic(diamond, 1.0, 0.05)
        .unwrap()
        .with_pose(v(0.999, 1.2015), 0.0)
        .with_velocity(Vec3::new(0.0, -0.5, 0.0));
    let bodies = vec![a, block];
    let free = super::free_velocities(&bodies, h);
    let single = peg2(&bodies, h, PegForm::SinglePrimary, XImpulse::Primary);
    let general = peg2(&bodies, h, PegForm::General, XImpulse::Primary);
    let paper_x = peg2(&bodies, h, PegForm::SinglePrimary, XImpulse::Paper);
    assert!(
        !single.inter.is_empty(),
        "no I-constraint: {:?}",
        single.counts()
    );
    assert!(general.inter.iter().all(|p| p.co_primaries.is_empty()));
    let lcp = |set: &ConstraintSet| {
        Formulation::build(set, h, 0.0)
            .reduced_lcp(&bodies, &free)
            .unwrap()
    };
    let (a, b) = (lcp(&single), lcp(&general));
    assert_eq!(a.m, b.m);
    assert_eq!(a.q, b.q);
    if single.cross.is_empty() {
        let c = lcp(&paper_x);
        assert_eq!((a.m, a.q), (c.m, c.q));
    }
    check_form("diamond general", &general, &bodies, &free, h);
}

/// The triangle drop (paper Fig. 1, reference `tri_drop.m`): the falling triangle's vertex
/// and edge meet the static triangle's apex where the standard model wedges it
/// (docs/formulation-notes.md §10). Every form must stop the approach; the general form's
/// impulses obey Eq. 23.
#[test]
fn triangle_drop_wedge_each_form_gives_its_own_solutions() {
    let h = 0.01;
    let tri = |r: Real| {
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        ConvexPolygon::new(vec![v(0.0, r), v(-r * c, -r * s), v(r * c, -r * s)]).unwrap()
    };
    let t1 = RigidBody2::fixed(tri(2.0 * std::f64::consts::SQRT_2));
    // The standard model's wedge (triangle_drop.rs): (√1.5, 1.5√2), θ = π/3, raised 1 mm
    // and moved 2 mm left so both the apex and the slope are within ε, falling.
    let t2 = RigidBody2::dynamic(tri(std::f64::consts::SQRT_2), 1.0, 0.6495)
        .unwrap()
        .with_pose(
            v(
                1.5f64.sqrt() - 0.002,
                1.5 * std::f64::consts::SQRT_2 + 0.001,
            ),
            std::f64::consts::FRAC_PI_3,
        )
        .with_velocity(Vec3::new(-0.3, -1.0, 0.2));
    let bodies = vec![t2, t1];
    let [(single, s), (general, g), (_, px), (_, gx)] = four_forms_2d("triangle", &bodies, h);
    let counts = single.counts();
    assert!(counts.inter + counts.cross > 0, "no trap: {counts:?}");
    assert_eq!(g.eq23_violations, 0);
    assert_eq!(gx.eq23_violations, 0);
    let co: usize = general.inter.iter().map(|p| p.co_primaries.len()).sum();
    if co == 0 {
        // Nothing applicable twice: the forms must agree exactly.
        assert_eq!(s.velocities.len(), g.velocities.len());
        assert!(!has_outcome_outside(&g, &s) && !has_outcome_outside(&s, &g));
    }
    assert!(!px.velocities.is_empty());
}

// ------------------------------------------------------------------------------------- 3D

const H: Real = 0.5;
const S3: Real = 1.732_050_807_568_877_2;

fn cube() -> ConvexPolyhedron {
    ConvexPolyhedron::cuboid(Vec3::new(H, H, H)).unwrap()
}

fn corner_down() -> Quat {
    Quat::rotation_between(&Vec3::new(-1.0, -1.0, -1.0), &Vec3::new(0.0, 0.0, -1.0)).unwrap()
}

fn corner_up() -> Quat {
    Quat::rotation_between(&Vec3::new(1.0, 1.0, 1.0), &Vec3::new(0.0, 0.0, 1.0)).unwrap()
}

/// A dynamic cube (pose, velocity) above a static cube (pose): bodies, world polyhedra now
/// and predicted.
fn scene3(
    a: (Vec3, Quat, Vec6),
    b: (Vec3, Quat),
    h: Real,
) -> (
    Vec<RigidBody3>,
    Vec<ConvexPolyhedron>,
    Vec<ConvexPolyhedron>,
) {
    let mut da = RigidBody3::dynamic(1.0, Mat3::identity() / 6.0)
        .unwrap()
        .with_pose(a.0, a.1);
    da.set_velocity(&a.2);
    let db = RigidBody3::fixed().with_pose(b.0, b.1);
    let bodies = vec![da, db];
    let now: Vec<ConvexPolyhedron> = bodies
        .iter()
        .map(|x| cube().transformed(&x.position, &x.orientation))
        .collect();
    let pred: Vec<ConvexPolyhedron> = bodies
        .iter()
        .map(|x| {
            let mut y = x.clone();
            y.integrate_position(h);
            cube().transformed(&y.position, &y.orientation)
        })
        .collect();
    (bodies, now, pred)
}

fn four_forms_3d(
    name: &str,
    bodies: &[RigidBody3],
    now: &[ConvexPolyhedron],
    pred: &[ConvexPolyhedron],
    h: Real,
) -> [(ConstraintSet3, Outcome<6>); 4] {
    let free: Vec<Vec6> = bodies
        .iter()
        .map(|b| b.free_velocity(h, Gyroscopic::default()))
        .collect();
    [
        (PegForm::SinglePrimary, XImpulse::Primary),
        (PegForm::General, XImpulse::Primary),
        (PegForm::SinglePrimary, XImpulse::Paper),
        (PegForm::General, XImpulse::Paper),
    ]
    .map(|(form, x)| {
        let params = Peg3Params {
            form,
            x_impulse: x,
            ..Peg3Params::for_step(h)
        };
        let set: ConstraintSet3 = peg_constraints3(bodies, now, pred, &[(0, 1)], &params);
        let label = format!("{name} {} / X {}", form.name(), x.name());
        let out = check_form::<Contact3, RigidBody3, 6>(&label, &set, bodies, &free, h);
        (set, out)
    })
}

/// A cube's vertex falling onto an edge of a cube turned 45° (paper Eq. 36's configuration,
/// tests/it/dim3.rs), over the +y face and moving towards the −y face: one I-constraint over
/// the edge's two faces, both applicable, and two vertex–edge X-constraints.
#[test]
fn vertex_at_an_edge_3d_each_form_gives_its_own_solutions() {
    let h = 0.01;
    let r = H * 2.0_f64.sqrt();
    let quarter = 0.25 * std::f64::consts::PI;
    let turn = Quat::from_axis_angle(&nalgebra::Vector3::x_axis(), quarter);
    let (bodies, now, pred) = scene3(
        (
            Vec3::new(0.1, 0.001, r + 0.002 + H * S3),
            corner_down(),
            Vec6::new(0.0, -0.8, -1.0, 0.0, 0.0, 0.0),
        ),
        (Vec3::zeros(), turn),
        h,
    );
    let [(single, s), (general, g), (_, px), (_, gx)] =
        four_forms_3d("vertex-edge", &bodies, &now, &pred, h);
    assert_eq!(single.inter.len(), 1, "{:?}", single.counts());
    assert_eq!(single.cross.len(), 2, "{:?}", single.counts());
    assert_eq!(
        general.inter[0].co_primaries.len(),
        1,
        "both faces applicable"
    );
    assert!(!s.velocities.is_empty() && !g.velocities.is_empty());
    // The single primary admits forces on a face the vertex ends below (Eq. 24 allows it);
    // the general form never (Eq. 23), and each form has outcomes the other lacks.
    assert!(s.eq23_violations > 0);
    assert_eq!(g.eq23_violations, 0);
    assert_eq!(gx.eq23_violations, 0);
    assert!(has_outcome_outside(&g, &s) && has_outcome_outside(&s, &g));
    // Without X impulses the single primary cannot hold both X-constraints here: the LCP
    // has no solution (the paper's caveat, §3: X-constraints need "sufficient U- or
    // I-constraints"); the general form's second primary may or may not supply it.
    assert!(
        px.velocities.is_empty(),
        "{} solutions",
        px.velocities.len()
    );
    eprintln!("general + paper X: {} solutions", gx.velocities.len());
}

/// A cube's vertex falling onto a cube's vertex (paper Eq. 38, the cone form): the cone's
/// X-constraint replaces the two vertices' I-constraints, so the general form must be the
/// single-primary form exactly (the paper's X, which leaves the crossing net's U-constraints
/// to hold the vertex, is only checked for its impulse rule here).
#[test]
fn vertex_in_a_vertex_3d_general_form_is_single_primary() {
    let h = 0.01;
    let (bodies, now, pred) = scene3(
        (
            Vec3::new(0.0, 0.0, 2.0 * H * S3 + 0.002),
            corner_down(),
            Vec6::new(0.05, 0.02, -1.0, 0.3, -0.2, 0.1),
        ),
        (Vec3::zeros(), corner_up()),
        h,
    );
    let [(single, s), (general, g), (_, px), _] =
        four_forms_3d("vertex-vertex", &bodies, &now, &pred, h);
    assert_eq!(single.cross.len(), 1, "{:?}", single.counts());
    assert!(single.inter.is_empty(), "{:?}", single.counts());
    assert_eq!(general, single);
    assert!(!s.velocities.is_empty());
    assert!(!has_outcome_outside(&g, &s) && !has_outcome_outside(&s, &g));
    eprintln!("vertex-vertex paper X: {} solutions", px.velocities.len());
}
