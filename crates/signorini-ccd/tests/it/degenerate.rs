//! Hand-made degenerate cases with analytic answers: coplanar motion for the whole step,
//! parallel edges, a double root, zero-length motion, touching at t = 0, and the CPF
//! penetration intervals of a simple pass-through.

use signorini_ccd::{
    RootKind, edge_edge_ccd, edge_edge_first_toi, vertex_face_ccd, vertex_face_first_toi,
};
use signorini_math::Vec3;

fn v(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3::new(x, y, z)
}

/// Static unit right triangle in the plane z = 0.
fn tri() -> [Vec3; 3] {
    [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)]
}

fn vf(p0: Vec3, p1: Vec3) -> ([Vec3; 4], [Vec3; 4]) {
    let [a, b, c] = tri();
    ([p0, a, b, c], [p1, a, b, c])
}

/// `toi` is a conservative estimate of `exact`: not later, and within `tol`.
fn assert_toi_within(toi: Option<f64>, exact: f64, tol: f64) {
    let t = toi.expect("collision must be reported");
    assert!(t <= exact && t >= exact - tol, "toi {t} vs exact {exact}");
}

/// Simple roots are enclosed to ~1e-13; 1e-9 leaves room.
fn assert_toi(toi: Option<f64>, exact: f64) {
    assert_toi_within(toi, exact, 1e-9);
}

#[test]
fn vertex_through_triangle_centre() {
    let (s, e) = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, -1.0));
    assert_toi(vertex_face_first_toi(&s, &e).unwrap(), 0.5);
    // Penetration interval (CPF Fig. 3): f > 0 above the plane, so penetration is [0.5, 1].
    let r = vertex_face_ccd(&s, &e).unwrap();
    assert_eq!(r.roots.len(), 1);
    assert_eq!(r.roots[0].kind, RootKind::Isolated);
    assert_eq!(r.gap_signs, vec![1, -1]);
    let pen = r.penetration_intervals(None);
    assert_eq!(pen.len(), 1);
    assert!(
        pen[0][0] <= 0.5 && pen[0][0] > 0.5 - 1e-9 && pen[0][1] == 1.0,
        "{pen:?}"
    );
}

#[test]
fn first_contact_reports_the_end_signs() {
    use signorini_ccd::toi::{VertexFace, first_contact};
    let arr = |x: &[Vec3; 4]| x.map(|p| [p.x, p.y, p.z]);
    // Down through the triangle: f > 0 at t = 0, f < 0 at t = 1.
    let (s, e) = vf(v(0.25, 0.25, 1.0), v(0.25, 0.25, -1.0));
    let (t, signs) = first_contact(&VertexFace {
        start: arr(&s),
        end: arr(&e),
    })
    .unwrap();
    assert!(t <= 0.5 && t > 0.5 - 1e-9);
    assert_eq!(signs, [1, -1]);
    // Up through it from below, ending exactly in the plane: f(1) = 0 is undecided (0).
    let (s, e) = vf(v(0.25, 0.25, -1.0), v(0.25, 0.25, 0.0));
    let (t, signs) = first_contact(&VertexFace {
        start: arr(&s),
        end: arr(&e),
    })
    .unwrap();
    assert!(t <= 1.0 && t > 1.0 - 1e-9);
    assert_eq!(signs, [-1, 0]);
    // A miss has no contact at all.
    let (s, e) = vf(v(2.0, 2.0, 1.0), v(2.0, 2.0, -1.0));
    assert!(
        first_contact(&VertexFace {
            start: arr(&s),
            end: arr(&e),
        })
        .is_none()
    );
}

#[test]
fn vertex_misses_triangle() {
    let (s, e) = vf(v(2.0, 2.0, 1.0), v(2.0, 2.0, -1.0));
    assert_eq!(vertex_face_first_toi(&s, &e).unwrap(), None);
    let r = vertex_face_ccd(&s, &e).unwrap();
    assert_eq!(r.roots.len(), 1, "the plane is still crossed");
    assert!(!r.roots[0].contact);
}

#[test]
fn coplanar_motion_whole_step() {
    // Moving in the triangle's plane, entering through the edge x = 0 at t = 1/3.
    let (s, e) = vf(v(-1.0, 0.25, 0.0), v(2.0, 0.25, 0.0));
    assert_toi(vertex_face_first_toi(&s, &e).unwrap(), 1.0 / 3.0);
    let r = vertex_face_ccd(&s, &e).unwrap();
    assert_eq!(r.roots.len(), 1);
    assert_eq!(r.roots[0].kind, RootKind::Coplanar);
    assert_eq!((r.roots[0].lo, r.roots[0].hi), (0.0, 1.0));
    // Same plane, passing beside the triangle: no contact.
    let (s, e) = vf(v(-1.0, 2.0, 0.0), v(3.0, 2.0, 0.0));
    assert_eq!(vertex_face_first_toi(&s, &e).unwrap(), None);
}

#[test]
fn zero_length_motion() {
    let (s, e) = vf(v(0.25, 0.25, 0.0), v(0.25, 0.25, 0.0));
    assert_eq!(vertex_face_first_toi(&s, &e).unwrap(), Some(0.0));
    let (s, e) = vf(v(0.25, 0.25, 0.5), v(0.25, 0.25, 0.5));
    assert_eq!(vertex_face_first_toi(&s, &e).unwrap(), None);
    let (s, e) = vf(v(0.25, 0.25, 1e-300), v(0.25, 0.25, 1e-300));
    assert_eq!(
        vertex_face_first_toi(&s, &e).unwrap(),
        None,
        "tiny but nonzero gap"
    );
}

#[test]
fn touching_at_start_then_leaving() {
    let (s, e) = vf(v(0.25, 0.25, 0.0), v(0.25, 0.25, 1.0));
    assert_eq!(vertex_face_first_toi(&s, &e).unwrap(), Some(0.0));
}

#[test]
fn double_root_grazing_an_edge() {
    // c tilts from z = -1 to z = 1; p slides so that f(t) = (t − 1/2)²/2 ≥ 0, touching the
    // edge ab at t = 1/2 only (a double root).
    let s = [
        v(0.25, 0.125, 0.0),
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.0, 1.0, -1.0),
    ];
    let e = [
        v(0.25, -0.125, 0.0),
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.0, 1.0, 1.0),
    ];
    // A double root is only resolvable to about sqrt(error bound) ≈ 1e-8 (docs/ccd.md).
    assert_toi_within(vertex_face_first_toi(&s, &e).unwrap(), 0.5, 1e-6);
    let r = vertex_face_ccd(&s, &e).unwrap();
    assert!(r.collides());
    assert!(
        r.roots
            .iter()
            .all(|x| x.lo <= 0.5 && x.hi >= 0.5 && x.hi - x.lo < 1e-6),
        "{r:?}"
    );
    // The same motion shifted away from the triangle: the double root stays, contact does not.
    let sh = v(3.0, 0.0, 0.0);
    let s2 = [s[0] + sh, s[1], s[2], s[3]];
    let e2 = [e[0] + sh, e[1], e[2], e[3]];
    assert_eq!(vertex_face_first_toi(&s2, &e2).unwrap(), None);
}

#[test]
fn crossing_edges() {
    let s = [
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.5, -1.0, 1.0),
        v(0.5, 1.0, 1.0),
    ];
    let e = [
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.5, -1.0, -1.0),
        v(0.5, 1.0, -1.0),
    ];
    assert_toi(edge_edge_first_toi(&s, &e).unwrap(), 0.5);
    // Shifted past the end of ab: the lines cross, the segments do not.
    let sh = v(1.5, 0.0, 0.0);
    let s2 = [s[0], s[1], s[2] + sh, s[3] + sh];
    let e2 = [e[0], e[1], e[2] + sh, e[3] + sh];
    assert_eq!(edge_edge_first_toi(&s2, &e2).unwrap(), None);
}

#[test]
fn parallel_edges_in_a_common_plane() {
    // cd parallel to ab, sliding across it in the plane z = 0 (f ≡ 0), overlapping in x.
    let s = [
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.5, 1.0, 0.0),
        v(1.5, 1.0, 0.0),
    ];
    let e = [
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.5, -1.0, 0.0),
        v(1.5, -1.0, 0.0),
    ];
    assert_toi(edge_edge_first_toi(&s, &e).unwrap(), 0.5);
    let r = edge_edge_ccd(&s, &e).unwrap();
    assert_eq!(r.roots[0].kind, RootKind::Coplanar);
    // No overlap along x: never touch.
    let sh = v(1.5, 0.0, 0.0);
    let s2 = [s[0], s[1], s[2] + sh, s[3] + sh];
    let e2 = [e[0], e[1], e[2] + sh, e[3] + sh];
    assert_eq!(edge_edge_first_toi(&s2, &e2).unwrap(), None);
}

#[test]
fn parallel_edges_in_parallel_planes() {
    // Parallel edges one above the other, moving together: f ≡ 0 is false here (distance 1).
    let s = [
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.0, 0.0, 1.0),
        v(1.0, 0.0, 1.0),
    ];
    let e = [
        v(0.0, 1.0, 0.0),
        v(1.0, 1.0, 0.0),
        v(0.0, 1.0, 1.0),
        v(1.0, 1.0, 1.0),
    ];
    assert_eq!(edge_edge_first_toi(&s, &e).unwrap(), None);
}

#[test]
fn diverged_input_is_an_error() {
    let (mut s, e) = vf(v(0.0, 0.0, 1.0), v(0.0, 0.0, -1.0));
    s[2].y = f64::NAN;
    assert!(vertex_face_first_toi(&s, &e).is_err());
    assert!(edge_edge_ccd(&s, &e).is_err());
}

#[test]
fn extreme_magnitudes_terminate_conservatively() {
    // Overflowing products (1e200³) make every enclosure infinite: the kernel must still
    // terminate and, being conservative, report a possible contact for a real crossing.
    let big = 1e200;
    let s = [
        v(0.25 * big, 0.25 * big, big),
        v(0.0, 0.0, 0.0),
        v(big, 0.0, 0.0),
        v(0.0, big, 0.0),
    ];
    let e = [
        v(0.25 * big, 0.25 * big, -big),
        v(0.0, 0.0, 0.0),
        v(big, 0.0, 0.0),
        v(0.0, big, 0.0),
    ];
    let toi = vertex_face_first_toi(&s, &e).unwrap();
    assert!(toi.is_some_and(|t| t <= 0.5));
    assert!(vertex_face_ccd(&s, &e).unwrap().collides());
    // Subnormal scale: the same crossing scaled by 1e-310.
    let tiny = 1e-310;
    let s = [
        v(0.25 * tiny, 0.25 * tiny, tiny),
        v(0.0, 0.0, 0.0),
        v(tiny, 0.0, 0.0),
        v(0.0, tiny, 0.0),
    ];
    let e = [
        v(0.25 * tiny, 0.25 * tiny, -tiny),
        v(0.0, 0.0, 0.0),
        v(tiny, 0.0, 0.0),
        v(0.0, tiny, 0.0),
    ];
    assert!(
        vertex_face_first_toi(&s, &e)
            .unwrap()
            .is_some_and(|t| t <= 0.5)
    );
    assert!(edge_edge_first_toi(&s, &e).is_ok());
}
