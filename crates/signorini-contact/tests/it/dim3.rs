//! 3D contacts: the geometric tests of paper §4 on hand-made configurations with known
//! answers, Jacobian signs against finite differences, the PEG configurations of paper §5.2
//! (vertex at a face, at an edge, at a vertex; crossing edges), penetration coverage, the
//! standard and corrective detectors, and (A, B) / (B, A) symmetry.

use signorini_contact::dim3::*;
use signorini_dynamics::RigidBody3;
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec3, Vec6};

fn v(x: Real, y: Real, z: Real) -> Vec3 {
    Vec3::new(x, y, z)
}

const H: Real = 0.5; // cube half extent
const S3: Real = 1.732_050_807_568_877_2; // √3

fn cube() -> ConvexPolyhedron {
    ConvexPolyhedron::cuboid(v(H, H, H)).unwrap()
}

/// A cube turned so that the corner `(−h, −h, −h)` points straight down.
fn corner_down() -> Quat {
    Quat::rotation_between(&v(-1.0, -1.0, -1.0), &v(0.0, 0.0, -1.0)).unwrap()
}

/// A cube turned so that the corner `(h, h, h)` points straight up.
fn corner_up() -> Quat {
    Quat::rotation_between(&v(1.0, 1.0, 1.0), &v(0.0, 0.0, 1.0)).unwrap()
}

fn about(axis: Vec3, angle: Real) -> Quat {
    Quat::from_axis_angle(&signorini_math::nalgebra::Unit::new_normalize(axis), angle)
}

/// One body of a scene: shape, pose, velocity, static flag.
struct Part {
    shape: ConvexPolyhedron,
    pos: Vec3,
    rot: Quat,
    vel: Vec6,
    fixed: bool,
}

fn part(shape: ConvexPolyhedron, pos: Vec3, rot: Quat) -> Part {
    Part {
        shape,
        pos,
        rot,
        vel: Vec6::zeros(),
        fixed: false,
    }
}

fn floor() -> Part {
    Part {
        shape: ConvexPolyhedron::cuboid(v(5.0, 5.0, 0.5)).unwrap(),
        pos: v(0.0, 0.0, -0.5),
        rot: Quat::identity(),
        vel: Vec6::zeros(),
        fixed: true,
    }
}

struct Scene {
    bodies: Vec<RigidBody3>,
    now: Vec<ConvexPolyhedron>,
    pred: Vec<ConvexPolyhedron>,
}

/// Bodies, world polyhedra now and at the pose predicted with the velocity over `h`.
fn scene(parts: &[Part], h: Real) -> Scene {
    let mut bodies = Vec::new();
    let (mut now, mut pred) = (Vec::new(), Vec::new());
    for p in parts {
        let mut b = if p.fixed {
            RigidBody3::fixed()
        } else {
            RigidBody3::dynamic(1.0, Mat3::identity() * 0.1).unwrap()
        }
        .with_pose(p.pos, p.rot);
        b.set_velocity(&p.vel);
        now.push(p.shape.transformed(&b.position, &b.orientation));
        let mut q = b.clone();
        q.integrate_position(h);
        pred.push(p.shape.transformed(&q.position, &q.orientation));
        bodies.push(b);
    }
    Scene { bodies, now, pred }
}

fn peg(s: &Scene, h: Real) -> ConstraintSet3 {
    peg_with(s, h, VertexVertex::default())
}

/// [`peg`] with the vertex–vertex form `vv`.
fn peg_with(s: &Scene, h: Real, vv: VertexVertex) -> ConstraintSet3 {
    peg_constraints3(
        &s.bodies,
        &s.now,
        &s.pred,
        &[(0, 1)],
        &Peg3Params::for_step(h).with_vertex_vertex(vv),
    )
}

fn bottom_vertex(p: &ConvexPolyhedron) -> usize {
    (0..p.vertices().len())
        .min_by(|&a, &b| p.vertices()[a].z.total_cmp(&p.vertices()[b].z))
        .unwrap()
}

fn top_face(p: &ConvexPolyhedron) -> usize {
    (0..p.faces().len())
        .max_by(|&a, &b| p.faces()[a].normal.z.total_cmp(&p.faces()[b].normal.z))
        .unwrap()
}

fn top_edge(p: &ConvexPolyhedron) -> usize {
    (0..p.edges().len())
        .max_by(|&a, &b| {
            let z =
                |e: usize| p.vertices()[p.edges()[e].tail].z + p.vertices()[p.edges()[e].head].z;
            z(a).total_cmp(&z(b))
        })
        .unwrap()
}

fn bottom_edge(p: &ConvexPolyhedron) -> usize {
    (0..p.edges().len())
        .min_by(|&a, &b| {
            let z =
                |e: usize| p.vertices()[p.edges()[e].tail].z + p.vertices()[p.edges()[e].head].z;
            z(a).total_cmp(&z(b))
        })
        .unwrap()
}

fn close(a: Real, b: Real, tol: Real) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------- geometric tests (paper §4)

#[test]
fn vertex_face_applicability_has_known_values() {
    let s = scene(
        &[
            part(cube(), v(0.0, 0.0, H * S3 + 0.1), corner_down()),
            part(cube(), v(3.0, 0.0, H + 0.1), Quat::identity()),
        ],
        0.01,
    );
    let up = v(0.0, 0.0, 1.0);
    // Corner down: every edge leaves the vertex at arccos(1/√3) from the vertical.
    let a = applicability_vf(&s.now[0], bottom_vertex(&s.now[0]), &up);
    assert!(close(a, 1.0 / S3, 1e-12), "{a}");
    // A flat cube's bottom corner: two horizontal edges (0) and one vertical (1).
    let b = applicability_vf(&s.now[1], bottom_vertex(&s.now[1]), &up);
    assert!(close(b, 0.0, 1e-12), "{b}");
    // Its top corner faces away from a face below: all neighbours are below or level.
    let top = (0..8)
        .max_by(|&i, &j| {
            s.now[1].vertices()[i]
                .z
                .total_cmp(&s.now[1].vertices()[j].z)
        })
        .unwrap();
    let c = applicability_vf(&s.now[1], top, &up);
    assert!(close(c, -1.0, 1e-12), "{c}");
}

#[test]
fn edge_edge_applicability_orientation_and_contact_have_known_values() {
    // A: edge along y at the bottom; B: edge along x at the top, 0.01 below A's.
    let gap = 0.01;
    let r = H * 2.0_f64.sqrt();
    let s = scene(
        &[
            part(
                cube(),
                v(0.0, 0.0, 3.0 * r + gap),
                about(v(0.0, 1.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
            part(
                cube(),
                v(0.0, 0.0, r),
                about(v(1.0, 0.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
        ],
        0.01,
    );
    let (ea, eb) = (bottom_edge(&s.now[0]), top_edge(&s.now[1]));
    let appl = applicability_ee(&s.now[0], ea, &s.now[1], eb);
    assert!(close(appl, 0.5_f64.sqrt(), 1e-12), "{appl}");
    // The edge–edge normal points from A (above) into B (below); gap is the separation.
    let c = edge_edge_contact((0, 1), (&s.now[0], &s.now[1]), (ea, eb), &s.bodies).unwrap();
    assert!(
        (c.normal - v(0.0, 0.0, -1.0)).norm() < 1e-12,
        "{}",
        c.normal
    );
    assert!(close(c.gap, gap, 1e-12), "{}", c.gap);
    assert!((c.point - v(0.0, 0.0, 2.0 * r + gap)).norm() < 1e-12);
    // Orientation sign flips with the direction of e_a; the normal does not.
    let o = edge_orientation(&s.now[0], ea, &s.now[1], eb);
    let n_from_cross = {
        let e = &s.now[0].edges()[ea];
        let f = &s.now[1].edges()[eb];
        let da = s.now[0].vertices()[e.head] - s.now[0].vertices()[e.tail];
        let db = s.now[1].vertices()[f.head] - s.now[1].vertices()[f.tail];
        da.cross(&db).normalize()
    };
    assert_eq!(o > 0.0, n_from_cross.z < 0.0);
    // Parallel edges have no applicability.
    let t = scene(
        &[
            part(
                cube(),
                v(0.0, 0.0, 3.0 * r + gap),
                about(v(1.0, 0.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
            part(
                cube(),
                v(0.0, 0.0, r),
                about(v(1.0, 0.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
        ],
        0.01,
    );
    let (ea, eb) = (bottom_edge(&t.now[0]), top_edge(&t.now[1]));
    assert_eq!(applicability_ee(&t.now[0], ea, &t.now[1], eb), -1.0);
    assert!(edge_edge_contact((0, 1), (&t.now[0], &t.now[1]), (ea, eb), &t.bodies).is_none());
    assert!(feasibility_ee(&t.now[0], ea, &t.now[1], eb, 0.011));
    assert!(!feasibility_ee(&t.now[0], ea, &t.now[1], eb, 0.009));
}

#[test]
fn vertex_face_feasibility_follows_paper_eq_33() {
    let b = cube(); // top face z = 0.5, x, y ∈ [−0.5, 0.5]
    let f = top_face(&b);
    let feas = |p: Vec3| feasibility_vf(&p, &b, f, 0.05, FEASIBILITY_ANGLE, FEASIBILITY_DEPTH);
    assert!(feas(v(0.1, 0.2, 0.501)));
    assert!(feas(v(0.1, 0.2, 0.499)), "within δ below the face");
    assert!(!feas(v(0.1, 0.2, 0.497)), "deeper than δ = 0.0025");
    assert!(!feas(v(0.1, 0.2, 0.56)), "farther than ε");
    // Beyond the edge x = 0.5 by 0.01: allowed down to asin(ψ/D) = −0.4 rad.
    assert!(feas(v(0.51, 0.0, 0.501)));
    assert!(
        feas(v(0.51, 0.0, 0.497)),
        "asin(−0.003/0.0104) = −0.29 > −0.4"
    );
    assert!(
        !feas(v(0.51, 0.0, 0.495)),
        "asin(−0.005/0.0112) = −0.46 < −0.4"
    );
    assert!(!feas(v(0.6, 0.0, 0.5)), "farther than ε beyond the edge");
}

#[test]
fn jacobians_match_finite_differences_of_the_gap() {
    // Random-ish velocities on two dynamic bodies; the gap rate Gᵀν must equal dψ/dt.
    let r = H * 2.0_f64.sqrt();
    let mut a = part(
        cube(),
        v(0.02, -0.03, 2.0 * r + 0.01),
        about(v(0.1, 1.0, 0.05), 0.8),
    );
    let mut b = part(cube(), v(0.0, 0.01, r), about(v(1.0, 0.1, -0.1), 0.7));
    a.vel = Vec6::new(0.3, -0.2, -0.5, 0.7, -0.4, 0.9);
    b.vel = Vec6::new(-0.1, 0.4, 0.2, -0.6, 0.5, 0.3);
    let dt = 1e-6;
    let s0 = scene(&[a, b], dt);
    let gap_rate = |c: &Contact3| c.jacobian.dot_velocity(|k| s0.bodies[k].velocity());
    let (ea, eb) = (bottom_edge(&s0.now[0]), top_edge(&s0.now[1]));
    let c0 = edge_edge_contact((0, 1), (&s0.now[0], &s0.now[1]), (ea, eb), &s0.bodies).unwrap();
    let c1 = edge_edge_contact((0, 1), (&s0.pred[0], &s0.pred[1]), (ea, eb), &s0.bodies).unwrap();
    let fd = (c1.gap - c0.gap) / dt;
    assert!(
        close(gap_rate(&c0), fd, 1e-4 * fd.abs().max(1.0)),
        "ee {} vs {fd}",
        gap_rate(&c0)
    );
    let (vtx, face) = (bottom_vertex(&s0.now[0]), top_face(&s0.now[1]));
    let d0 = vertex_face_contact((0, 1), (&s0.now[0], &s0.now[1]), (vtx, face), &s0.bodies);
    let d1 = vertex_face_contact((0, 1), (&s0.pred[0], &s0.pred[1]), (vtx, face), &s0.bodies);
    let fd = (d1.gap - d0.gap) / dt;
    assert!(
        close(gap_rate(&d0), fd, 1e-4 * fd.abs().max(1.0)),
        "vf {} vs {fd}",
        gap_rate(&d0)
    );
    // The flipped description has the same gap and rate and the opposite normal.
    let f = d0.flipped();
    assert_eq!((f.a, f.b, f.gap), (1, 0, d0.gap));
    assert!((f.normal + d0.normal).norm() < 1e-15);
    assert!(close(gap_rate(&f), gap_rate(&d0), 1e-12));
    // Tangents are orthonormal and perpendicular to the normal.
    let [t1, t2] = d0.tangents;
    assert!(t1.dot(&d0.normal).abs() < 1e-12 && t2.dot(&d0.normal).abs() < 1e-12);
    assert!(close(t1.cross(&t2).dot(&d0.normal), 1.0, 1e-12));
}

// ------------------------------------------------------- PEG configurations (paper §5.2)

#[test]
fn vertex_at_a_face_gives_one_unilateral_constraint() {
    let h = 0.01;
    let s = scene(
        &[
            part(cube(), v(0.0, 0.0, H * S3 + 0.002), corner_down()),
            floor(),
        ],
        h,
    );
    let set = peg(&s, h);
    assert_eq!(
        (set.unilateral.len(), set.inter.len(), set.cross.len()),
        (1, 0, 0)
    );
    let c = &set.contacts[set.unilateral[0]];
    assert_eq!((c.a, c.b), (0, 1));
    assert!(matches!(c.features, Features3::VertexFace { .. }));
    assert!(close(c.gap, 0.002, 1e-12) && (c.normal - v(0.0, 0.0, -1.0)).norm() < 1e-12);
    assert!(close(c.applicability, 1.0 / S3, 1e-12));
    // The floor is static: only A has a Jacobian block, [−n̂; r × (−n̂)] with r = (0,0,−h√3).
    assert_eq!(c.jacobian.blocks.len(), 1);
    let (body, g) = c.jacobian.blocks[0];
    assert_eq!(body, 0);
    assert!(
        (g - Vec6::new(0.0, 0.0, 1.0, 0.0, 0.0, 0.0)).norm() < 1e-12,
        "{g}"
    );
}

#[test]
fn vertex_at_an_edge_gives_an_i_constraint_and_eq36_cross_constraints() {
    let h = 0.01;
    let r = H * 2.0_f64.sqrt();
    let s = scene(
        &[
            part(cube(), v(0.1, 0.001, r + 0.002 + H * S3), corner_down()),
            part(
                cube(),
                v(0.0, 0.0, 0.0),
                about(v(1.0, 0.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
        ],
        h,
    );
    let set = peg(&s, h);
    assert_eq!(set.unilateral.len(), 0, "{:?}", set.counts());
    assert_eq!(set.inter.len(), 1);
    let i = &set.inter[0];
    assert_eq!(i.secondaries.len(), 1);
    let eb = top_edge(&s.now[1]);
    let [f1, f2] = s.now[1].edges()[eb].faces;
    let va = bottom_vertex(&s.now[0]);
    let faces: Vec<usize> = std::iter::once(i.primary)
        .chain(i.secondaries.iter().copied())
        .map(|k| match set.contacts[k].features {
            Features3::VertexFace { vertex, face } => {
                assert_eq!(vertex, va);
                face
            }
            f => panic!("{f:?}"),
        })
        .collect();
    assert!(faces.contains(&f1) && faces.contains(&f2));
    // Eq. 36: each X pairs an edge of A at v_a with C(v_a, f1) if it points to f1's side
    // (along O_b), else with C(v_a, f2).
    assert!(!set.cross.is_empty());
    let o = orientation_vector(&s.now[1], eb);
    for x in &set.cross {
        let members: Vec<&Contact3> = std::iter::once(x.primary)
            .chain(x.secondaries.iter().copied())
            .map(|k| &set.contacts[k])
            .collect();
        assert_eq!(members.len(), 2);
        let face = members
            .iter()
            .find_map(|c| match c.features {
                Features3::VertexFace { face, .. } => Some(face),
                _ => None,
            })
            .unwrap();
        let edge = members
            .iter()
            .find_map(|c| match c.features {
                Features3::EdgeEdge { edge_a, edge_b } => {
                    assert_eq!(edge_b, eb);
                    Some(edge_a)
                }
                _ => None,
            })
            .unwrap();
        let dir = s.now[0].vertices()[s.now[0].other_end(edge, va)] - s.now[0].vertices()[va];
        assert_eq!(face, if dir.dot(&o) > 0.0 { f1 } else { f2 });
    }
    // The primary of the I-constraint is the face the vertex is over (y = 0.001 > 0 side):
    // the one with the larger plane gap.
    let pf = match set.contacts[i.primary].features {
        Features3::VertexFace { face, .. } => face,
        _ => unreachable!(),
    };
    assert!(
        s.now[1].faces()[pf].normal.y > 0.5,
        "{}",
        s.now[1].faces()[pf].normal
    );
    assert!(set.contacts[i.primary].gap > set.contacts[i.secondaries[0]].gap);
}

#[test]
fn vertex_at_a_vertex_gives_two_i_constraints_and_eq38_cross_constraints() {
    let h = 0.01;
    let s = scene(
        &[
            part(cube(), v(0.0, 0.0, 2.0 * H * S3 + 0.002), corner_down()),
            part(cube(), v(0.0, 0.0, 0.0), corner_up()),
        ],
        h,
    );
    // The cone form (the default): one X-constraint whose members are all at the two
    // vertices, the vertices' I-constraints implied and not built.
    let cone = peg(&s, h);
    assert_eq!(
        (cone.unilateral.len(), cone.inter.len(), cone.cross.len()),
        (0, 0, 1),
        "{:?}",
        cone.counts()
    );
    assert!(!cone.cross[0].secondaries.is_empty());
    // The per-face-pair form, as before issue 22.
    let set = peg_with(&s, h, VertexVertex::FacePairs);
    assert_eq!(set.unilateral.len(), 0, "{:?}", set.counts());
    assert_eq!(set.inter.len(), 2);
    let (va, vb) = (
        bottom_vertex(&s.now[0]),
        (0..8)
            .max_by(|&i, &j| {
                s.now[1].vertices()[i]
                    .z
                    .total_cmp(&s.now[1].vertices()[j].z)
            })
            .unwrap(),
    );
    for i in &set.inter {
        assert_eq!(i.secondaries.len(), 2, "three faces meet at a cube corner");
        let members: Vec<&Contact3> = std::iter::once(i.primary)
            .chain(i.secondaries.iter().copied())
            .map(|k| &set.contacts[k])
            .collect();
        let (a, b) = (members[0].a, members[0].b);
        let vertex = if a == 0 { va } else { vb };
        for c in &members {
            assert_eq!((c.a, c.b), (a, b));
            assert!(matches!(c.features, Features3::VertexFace { vertex: w, .. } if w == vertex));
        }
    }
    // Eq. 38: every X holds C(v_a, f_b), C(v_b, f_a) and at least one edge–edge contact of
    // edges of f_a at v_a and f_b at v_b.
    assert!(!set.cross.is_empty());
    for x in &set.cross {
        let members: Vec<&Contact3> = std::iter::once(x.primary)
            .chain(x.secondaries.iter().copied())
            .map(|k| &set.contacts[k])
            .collect();
        let vf_a = members
            .iter()
            .filter(|c| {
                c.a == 0
                    && matches!(c.features, Features3::VertexFace { vertex, .. } if vertex == va)
            })
            .count();
        let vf_b = members
            .iter()
            .filter(|c| {
                c.a == 1
                    && matches!(c.features, Features3::VertexFace { vertex, .. } if vertex == vb)
            })
            .count();
        let ee = members
            .iter()
            .filter(|c| matches!(c.features, Features3::EdgeEdge { .. }))
            .count();
        assert_eq!((vf_a, vf_b), (1, 1));
        assert!((1..=4).contains(&ee));
        for c in &members {
            if let Features3::EdgeEdge { edge_a, edge_b } = c.features {
                let ea = &s.now[0].edges()[edge_a];
                let eb = &s.now[1].edges()[edge_b];
                assert!(ea.tail == va || ea.head == va);
                assert!(eb.tail == vb || eb.head == vb);
            }
        }
    }
}

#[test]
fn crossing_edges_give_one_edge_edge_unilateral_constraint() {
    let h = 0.01;
    let r = H * 2.0_f64.sqrt();
    let s = scene(
        &[
            part(
                cube(),
                v(0.0, 0.0, 3.0 * r + 0.002),
                about(v(0.0, 1.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
            part(
                cube(),
                v(0.0, 0.0, 0.0 + r),
                about(v(1.0, 0.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
        ],
        h,
    );
    let set = peg(&s, h);
    assert_eq!(
        (set.unilateral.len(), set.inter.len(), set.cross.len()),
        (1, 0, 0),
        "{:?}",
        set.counts()
    );
    let c = &set.contacts[set.unilateral[0]];
    assert!(matches!(c.features, Features3::EdgeEdge { .. }));
    assert!(close(c.gap, 0.002, 1e-12));
}

/// Every vertex of either body that is inside the other now or at the predicted pose must be
/// bounded by a U- or I-constraint whose members are all contacts of that vertex with faces
/// of the other body (with plane gaps, such a constraint is violated while it penetrates).
fn assert_penetrations_bounded(s: &Scene, set: &ConstraintSet3) {
    let groups: Vec<Vec<usize>> = set
        .unilateral
        .iter()
        .map(|&u| vec![u])
        .chain(set.inter.iter().map(|i| {
            std::iter::once(i.primary)
                .chain(i.secondaries.iter().copied())
                .collect()
        }))
        .collect();
    let of_vertex = |m: usize, x: usize, y: usize, k: usize| {
        let c = &set.contacts[m];
        c.a == x
            && c.b == y
            && matches!(c.features, Features3::VertexFace { vertex, .. } if vertex == k)
    };
    for (x, y) in [(0, 1), (1, 0)] {
        for k in 0..s.now[x].vertices().len() {
            let inside =
                |p: &[ConvexPolyhedron]| p[y].max_face_distance(&p[x].vertices()[k]).1 < 0.0;
            let inside_now = inside(&s.now);
            if !(inside_now || inside(&s.pred)) {
                continue;
            }
            // Or, in the cone form (the vertex near a vertex of y), the cone's X-constraint
            // holding a contact of the vertex, every member violated while it is inside.
            // A member is at the vertex if it is a contact of the vertex, of a face of x at
            // the vertex, or of an edge of x at it.
            let at_vertex = |m: usize| {
                let c = &set.contacts[m];
                let p = &s.now[x];
                match c.features {
                    Features3::VertexFace { vertex, .. } if c.a == x => vertex == k && c.b == y,
                    Features3::VertexFace { face, .. } => {
                        c.b == x && p.vertex_faces(k).contains(&face)
                    }
                    Features3::EdgeEdge { edge_a, edge_b } => {
                        let e = if c.a == x { edge_a } else { edge_b };
                        p.vertex_edges(k).contains(&e)
                    }
                    Features3::Bodies => false,
                }
            };
            let by_cone = || {
                set.cross.iter().any(|p| {
                    let members: Vec<usize> = std::iter::once(p.primary)
                        .chain(p.secondaries.iter().copied())
                        .collect();
                    members.iter().all(|&m| at_vertex(m))
                        && (!inside_now || members.iter().all(|&m| set.contacts[m].gap < 0.0))
                })
            };
            let bounded = groups
                .iter()
                .any(|g| g.iter().all(|&m| of_vertex(m, x, y, k)))
                || by_cone();
            assert!(
                bounded,
                "vertex {k} of body {x} penetrates body {y} unbounded"
            );
        }
    }
}

#[test]
fn penetrating_and_fast_vertices_are_always_bounded() {
    let h = 0.01;
    // Already 1 cm deep (far beyond ε): a U on the face it is least deep under.
    let s = scene(
        &[
            part(cube(), v(0.0, 0.0, H * S3 - 0.01), corner_down()),
            floor(),
        ],
        h,
    );
    let set = peg(&s, h);
    assert_penetrations_bounded(&s, &set);
    let c = &set.contacts[set.unilateral[0]];
    assert!(close(c.gap, -0.01, 1e-12) && c.normal.z < -0.99);
    // 1 cm above but falling at 5 m/s: 4 cm deep at the predicted pose.
    let mut fast = part(cube(), v(0.0, 0.0, H * S3 + 0.01), corner_down());
    fast.vel = Vec6::new(0.0, 0.0, -5.0, 0.0, 0.0, 0.0);
    let s = scene(&[fast, floor()], h);
    let set = peg(&s, h);
    assert_eq!(set.unilateral.len(), 1);
    assert_penetrations_bounded(&s, &set);
    // Icosahedra sliding into each other while spinning (the pour3d pair of the pitfall):
    // every penetrating vertex is bounded, for many relative poses.
    let ico = ConvexPolyhedron::icosahedron(0.5).unwrap();
    for k in 0..40 {
        let t = k as Real * 0.37;
        let mut a = part(
            ico.clone(),
            v(0.0, 0.0, 0.0),
            about(v(t.sin(), 1.0, t.cos()), t),
        );
        let dir = v((1.3 * t).cos(), (1.3 * t).sin(), 0.3 * (0.7 * t).sin()).normalize();
        let mut b = part(
            ico.clone(),
            dir * (0.8 + 0.01 * (t % 1.0)),
            about(v(1.0, t.cos(), 0.2), -t),
        );
        a.vel = Vec6::new(0.5, 0.0, -0.3, 3.0 * t.sin(), 1.0, -2.0);
        b.vel = Vec6::new(
            -dir.x * 2.0,
            -dir.y * 2.0,
            -dir.z * 2.0,
            1.0,
            -3.0 * t.cos(),
            0.5,
        );
        let s = scene(&[a, b], 0.016);
        let set = peg(&s, 0.016);
        assert_penetrations_bounded(&s, &set);
        // I-constraints of a penetrating vertex have only non-positive member gaps.
        for i in &set.inter {
            let c = &set.contacts[i.primary];
            if let Features3::VertexFace { vertex, .. } = c.features {
                let inside = s.now[c.b]
                    .max_face_distance(&s.now[c.a].vertices()[vertex])
                    .1
                    < 0.0;
                if inside {
                    for &m in std::iter::once(&i.primary).chain(&i.secondaries) {
                        assert!(set.contacts[m].gap < 0.0);
                    }
                }
            }
        }
    }
}

#[test]
fn detection_is_symmetric_in_the_body_order() {
    let ico = ConvexPolyhedron::icosahedron(0.5).unwrap();
    for k in 0..12 {
        let t = k as Real * 0.53;
        let mut a = part(ico.clone(), v(0.0, 0.0, 0.0), about(v(1.0, t, 0.5), t));
        let mut b = part(
            ico.clone(),
            v(0.0, 0.15 * t.sin(), 0.81 + 0.05 * t.cos()),
            about(v(t, 1.0, -0.5), 2.0 * t),
        );
        a.vel = Vec6::new(0.1, 0.0, 0.2, 0.5, -0.3, 0.1);
        b.vel = Vec6::new(0.0, -0.2, -1.0, -0.2, 0.4, 0.3);
        let h = 0.005;
        let ab = scene(&[a, b], h);
        let ba = Scene {
            bodies: vec![ab.bodies[1].clone(), ab.bodies[0].clone()],
            now: vec![ab.now[1].clone(), ab.now[0].clone()],
            pred: vec![ab.pred[1].clone(), ab.pred[0].clone()],
        };
        // The cone form keeps one of two members with the same facet (a vertex of A on a
        // face of B, or the reverse): which one depends on the body order, the gaps and
        // counts do not.
        let (c1, c2) = (peg(&ab, h), peg(&ba, h));
        let gaps = |set: &ConstraintSet3| -> Vec<i64> {
            let mut g: Vec<i64> = set
                .contacts
                .iter()
                .map(|c| (c.gap * 1e9).round() as i64)
                .collect();
            g.sort_unstable();
            g
        };
        assert_eq!(gaps(&c1), gaps(&c2), "pose {k} (cone form)");
        assert_eq!(c1.counts(), c2.counts(), "pose {k} (cone form)");
        let (s1, s2) = (
            peg_with(&ab, h, VertexVertex::FacePairs),
            peg_with(&ba, h, VertexVertex::FacePairs),
        );
        // The same feature pairs with the same gaps, bodies relabelled.
        let keys = |set: &ConstraintSet3, swap: bool| {
            let mut k: Vec<(usize, usize, Features3, i64)> = set
                .contacts
                .iter()
                .map(|c| {
                    let (a, b) = if swap { (1 - c.a, 1 - c.b) } else { (c.a, c.b) };
                    // An edge–edge pair is the same pair seen from either body.
                    let (a, b, f) = match c.features {
                        Features3::EdgeEdge { edge_a, edge_b } if a == 1 => (
                            0,
                            1,
                            Features3::EdgeEdge {
                                edge_a: edge_b,
                                edge_b: edge_a,
                            },
                        ),
                        f => (a, b, f),
                    };
                    (a, b, f, (c.gap * 1e9).round() as i64)
                })
                .collect();
            k.sort();
            k
        };
        assert_eq!(keys(&s1, false), keys(&s2, true), "pose {k}");
        assert_eq!(s1.counts(), s2.counts(), "pose {k}");
        let total = |set: &ConstraintSet3| -> Vec<usize> {
            let mut v: Vec<usize> = set
                .inter
                .iter()
                .chain(&set.cross)
                .map(|p| p.secondaries.len())
                .collect();
            v.sort();
            v
        };
        assert_eq!(total(&s1), total(&s2));
    }
}

// ------------------------------------------------------------------ standard and corrective

#[test]
fn standard_detector_finds_the_four_corners_of_a_resting_cube() {
    let s = scene(
        &[
            part(cube(), v(0.2, 0.1, H + 0.001), Quat::identity()),
            floor(),
        ],
        0.01,
    );
    let c = standard_contacts3(&s.bodies, &s.now, &[(0, 1)], SM3_DETECTION_DISTANCE);
    assert_eq!(c.len(), 4);
    for k in &c {
        assert_eq!((k.a, k.b), (0, 1));
        assert!(close(k.gap, 0.001, 1e-12) && (k.normal - v(0.0, 0.0, -1.0)).norm() < 1e-12);
    }
    // Crossing edges: one edge–edge contact.
    let r = H * 2.0_f64.sqrt();
    let s = scene(
        &[
            part(
                cube(),
                v(0.0, 0.0, 3.0 * r + 0.002),
                about(v(0.0, 1.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
            part(
                cube(),
                v(0.0, 0.0, r),
                about(v(1.0, 0.0, 0.0), 0.25 * std::f64::consts::PI),
            ),
        ],
        0.01,
    );
    let c = standard_contacts3(&s.bodies, &s.now, &[(0, 1)], SM3_DETECTION_DISTANCE);
    assert_eq!(c.len(), 1);
    assert!(matches!(c[0].features, Features3::EdgeEdge { .. }) && close(c[0].gap, 0.002, 1e-12));
}

#[test]
fn corrective_detector_reports_the_overlap_depth() {
    let s = scene(
        &[
            part(cube(), v(0.0, 0.0, 0.0), Quat::identity()),
            part(cube(), v(0.9, 0.0, 0.0), Quat::identity()),
        ],
        0.01,
    );
    let c = corrective_contacts3(&s.bodies, &s.now, &[(0, 1)]);
    assert_eq!(c.len(), 1);
    assert!(close(c[0].gap, -0.1, 1e-12), "{}", c[0].gap);
    assert!((c[0].normal - v(1.0, 0.0, 0.0)).norm() < 1e-12);
    assert!((c[0].point + c[0].normal * (c[0].gap / 2.0) - v(0.45, 0.0, 0.0)).norm() < 1e-12);
    let apart = scene(
        &[
            part(cube(), v(0.0, 0.0, 0.0), Quat::identity()),
            part(cube(), v(1.1, 0.0, 0.0), Quat::identity()),
        ],
        0.01,
    );
    assert!(corrective_contacts3(&apart.bodies, &apart.now, &[(0, 1)]).is_empty());
}

// ------------------------------------- the constraints in the formulation (one PEG subproblem)

/// Every U row and every I/X max of linearized end-of-step gaps `ψ + h Gᵀν` is ≥ −tol.
fn assert_constraints_hold(set: &ConstraintSet3, nu: &[Vec6], h: Real) {
    let end = |k: usize| {
        let c = &set.contacts[k];
        c.gap + h * c.jacobian.dot_velocity(|b| nu[b])
    };
    for &u in &set.unilateral {
        assert!(end(u) >= -1e-9, "U {u}: {}", end(u));
    }
    for p in set.inter.iter().chain(&set.cross) {
        let m = std::iter::once(p.primary)
            .chain(p.secondaries.iter().copied())
            .map(end)
            .fold(Real::NEG_INFINITY, Real::max);
        assert!(m >= -1e-9, "I/X {p:?}: {m}");
    }
}

#[test]
fn one_peg_subproblem_stops_the_approach_in_every_configuration() {
    use signorini_complementarity::{SolveParams, solve_lcp};
    use signorini_contact::{ContactRow, Formulation};
    use signorini_geometry::dim3::intersection_volume;
    let h = 0.01;
    let r = H * 2.0_f64.sqrt();
    let quarter = 0.25 * std::f64::consts::PI;
    let fixed = |mut p: Part| {
        p.fixed = true;
        p
    };
    let configs: Vec<(&str, Part, Part, (usize, usize))> = vec![
        (
            "vertex-face",
            part(cube(), v(0.0, 0.0, H * S3 + 0.002), corner_down()),
            floor(),
            (1, 0),
        ),
        (
            "vertex-edge",
            part(cube(), v(0.1, 0.001, r + 0.002 + H * S3), corner_down()),
            fixed(part(
                cube(),
                v(0.0, 0.0, 0.0),
                about(v(1.0, 0.0, 0.0), quarter),
            )),
            (1, 1),
        ),
        (
            "vertex-vertex",
            part(cube(), v(0.0, 0.0, 2.0 * H * S3 + 0.002), corner_down()),
            fixed(part(cube(), v(0.0, 0.0, 0.0), corner_up())),
            // The cone form: one X-constraint (checked below), and the crossing safety net's
            // U-constraints on the pairs of edges at the two vertices that cross at the
            // predicted pose (a 1 cm fall through a 2 mm gap) and read a non-negative gap
            // now: 2 of the 6 such pairs. The other 4 read negative gaps now without crossing
            // (their lines pass behind the vertices), and a U-constraint on a negative gap
            // that is not a real crossing is not built (`crossed`, peg.rs).
            (2, 0),
        ),
        (
            "edge-edge",
            part(
                cube(),
                v(0.0, 0.0, 3.0 * r + 0.002),
                about(v(0.0, 1.0, 0.0), quarter),
            ),
            fixed(part(
                cube(),
                v(0.0, 0.0, r),
                about(v(1.0, 0.0, 0.0), quarter),
            )),
            (1, 0),
        ),
    ];
    for (name, mut a, b, (n_constraints, min_secondaries)) in configs {
        a.vel = Vec6::new(0.05, 0.02, -1.0, 0.3, -0.2, 0.1);
        let shapes = [a.shape.clone(), b.shape.clone()];
        let s = scene(&[a, b], h);
        let set = peg(&s, h);
        let total = set.unilateral.len() + set.inter.len();
        assert_eq!(total, n_constraints, "{name}: {:?}", set.counts());
        if name == "vertex-vertex" {
            assert_eq!(set.cross.len(), 1, "{name}: {:?}", set.counts());
            assert!(set.cross[0].secondaries.len() >= 2, "{name}");
        }
        assert!(
            set.inter
                .iter()
                .all(|i| i.secondaries.len() >= min_secondaries),
            "{name}"
        );
        // The friction directions are tangent.
        for c in &set.contacts {
            let dirs = c.friction_jacobians(8);
            assert_eq!(dirs.len(), 8);
            for j in &dirs {
                for (_, g) in &j.blocks {
                    assert!(v(g[0], g[1], g[2]).dot(&c.normal).abs() < 1e-12);
                }
            }
        }
        let free: Vec<Vec6> = s
            .bodies
            .iter()
            .map(|b| b.free_velocity(h, signorini_dynamics::Gyroscopic::default()))
            .collect();
        let f = Formulation::<6>::build(&set, h, 0.0);
        let lcp = f.reduced_lcp(&s.bodies, &free).unwrap();
        let info = solve_lcp(&lcp, &SolveParams::default()).unwrap();
        let nu = f.velocities_from_lcp(&s.bodies, &free, &info.z);
        assert_constraints_hold(&set, &nu, h);
        // A vertex dropped on a vertex may slide off it instead: the cone form admits every
        // free motion, and (measured) A's corner leaves past B's face at 0.97 m/s, free of
        // B to the overlap check below (8e-10 m³, the linearisation's second-order error).
        // The other configurations must stop.
        assert!(
            name == "vertex-vertex" || nu[0][2] > -0.25,
            "{name}: still falling at {}",
            nu[0][2]
        );
        // One step with the new velocities leaves (almost) no overlap.
        let mut body = s.bodies[0].clone();
        body.set_velocity(&nu[0]);
        body.integrate_position(h);
        let placed = shapes[0].transformed(&body.position, &body.orientation);
        let overlap = intersection_volume(&placed, &s.now[1]);
        assert!(overlap < 1e-9, "{name}: overlap {overlap:e}");
    }
}

/// Random hull of 6–12 points in a ball of radius 0.5 (xorshift, deterministic).
fn random_hull(next: &mut impl FnMut() -> Real) -> ConvexPolyhedron {
    let n = 6 + (6.0 * (next() + 0.5)) as usize % 7;
    let pts: Vec<Vec3> = (0..n)
        .map(|_| {
            let p = v(next(), next(), next());
            p * (0.5 / p.norm().max(1e-3)) * (0.6 + 0.4 * (next() + 0.5))
        })
        .collect();
    ConvexPolyhedron::from_points(&pts).unwrap()
}

/// A PEG constraint never reads a penetration between bodies that do not overlap, however far
/// the sweep widens the detection distance. 400 random hull pairs 0–0.15 m apart (no overlap,
/// checked exactly), moving towards each other at up to 10 m/s and spinning (h = 0.01 s:
/// ε_pair up to about 0.3 m): no U-constraint with a negative gap, and no I- or X-constraint
/// whose members all have negative gaps. Before the rule of `crossed` (peg.rs), edge pairs
/// 0.15 m apart entered as U-constraints with gaps down to −0.148 m on the 1,000-body pile.
#[test]
fn no_constraint_reads_a_penetration_between_bodies_that_do_not_overlap() {
    let mut next = super::uniform(0x9e37_79b9_7f4a_7c15);
    let h = 0.01;
    let (mut pairs, mut constraints) = (0, 0);
    while pairs < 400 {
        let (a, b) = (random_hull(&mut next), random_hull(&mut next));
        let axis = v(next(), next(), next()).normalize();
        let rot = |next: &mut dyn FnMut() -> Real| about(v(next(), next(), next()), 6.0 * next());
        let (ra, rb) = (rot(&mut next), rot(&mut next));
        // The centre distance at which they touch (bisection), then 0–0.15 m more.
        let (sa, sb) = (
            a.transformed(&Vec3::zeros(), &ra),
            b.transformed(&Vec3::zeros(), &rb),
        );
        let (mut lo, mut hi) = (0.0, 1.2);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            let moved = sb.translated(&(axis * mid));
            if signorini_geometry::dim3::intersection_volume(&sa, &moved) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let gap = 0.15 * (next() + 0.5);
        let mut pa = part(a, Vec3::zeros(), ra);
        let mut pb = part(b, axis * (hi + gap), rb);
        let speed = 10.0 * (next() + 0.5);
        let spin = v(next(), next(), next()) * 20.0;
        pa.vel = Vec6::new(0.0, 0.0, 0.0, spin.x, spin.y, spin.z);
        let vb = -axis * speed;
        pb.vel = Vec6::new(vb.x, vb.y, vb.z, -spin.y, spin.z, spin.x);
        let sc = scene(&[pa, pb], h);
        if signorini_geometry::dim3::intersection_volume(&sc.now[0], &sc.now[1]) > 0.0 {
            continue;
        }
        pairs += 1;
        let set = peg(&sc, h);
        for &k in &set.unilateral {
            let c = &set.contacts[k];
            assert!(
                c.gap >= 0.0,
                "pair {pairs}: U {:?} reads gap {:e}",
                c.features,
                c.gap
            );
        }
        for p in set.inter.iter().chain(&set.cross) {
            let members = std::iter::once(p.primary).chain(p.secondaries.iter().copied());
            let best = members
                .map(|m| set.contacts[m].gap)
                .fold(Real::MIN, Real::max);
            assert!(best >= 0.0, "pair {pairs}: group reads {best:e}");
        }
        constraints += set.unilateral.len() + set.inter.len() + set.cross.len();
    }
    // The pairs come near enough for the sweep to build constraints (a weak test otherwise).
    assert!(constraints > 400, "{constraints}");
}
