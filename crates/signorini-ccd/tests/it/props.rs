//! Property tests: reported times lie in [0, 1]; at every reported root time the coplanarity
//! function is zero within the documented bound; collisions planted exactly at t = 1/2 are found.

use proptest::prelude::*;
use signorini_ccd::toi::{
    EdgeEdge, Feature, VertexFace, coplanarity_at, derivative_bound, first_toi, report,
};

fn coords() -> impl Strategy<Value = [[f64; 3]; 4]> {
    prop::array::uniform4(prop::array::uniform3(-1.0f64..1.0))
}

/// Every reported enclosure is in [0, 1] and `f` is within `2E + |f'|·width` of zero at its
/// lower end (`E` the coefficient error bound, `cubic.rs`).
fn check_report<F: Feature>(feat: &F) -> Result<(), TestCaseError> {
    let r = report(feat);
    let d = derivative_bound(feat);
    prop_assert_eq!(r.gap_signs.len(), r.roots.len() + 1);
    for w in r.roots.windows(2) {
        prop_assert!(w[0].hi <= w[1].lo, "roots out of order");
    }
    for root in &r.roots {
        prop_assert!(0.0 <= root.lo && root.lo <= root.hi && root.hi <= 1.0);
        let (v, e) = coplanarity_at(feat, root.lo);
        let bound = 2.0 * e + d * (root.hi - root.lo) + 1e-300;
        prop_assert!(
            v.lo <= bound && v.hi >= -bound,
            "f({}) = {:?} not within {}",
            root.lo,
            v,
            bound
        );
    }
    if let Some(t) = first_toi(feat) {
        prop_assert!((0.0..=1.0).contains(&t));
        prop_assert_eq!(
            Some(t),
            r.first_toi(),
            "first-only search and full report disagree"
        );
    } else {
        prop_assert!(r.first_toi().is_none());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn vertex_face_reports_are_sound(start in coords(), end in coords()) {
        check_report(&VertexFace { start, end })?;
    }

    #[test]
    fn edge_edge_reports_are_sound(start in coords(), end in coords()) {
        check_report(&EdgeEdge { start, end })?;
    }

    /// Dyadic coordinates make the planted contact exact: p(1/2) = a/4 + b/4 + c/2 exactly.
    #[test]
    fn planted_vertex_face_contact_is_found(
        s in prop::array::uniform4(prop::array::uniform3(-64i32..64)),
        e in prop::array::uniform4(prop::array::uniform3(-64i32..64)),
    ) {
        let f = |x: i32| x as f64 / 16.0;
        let start: [[f64; 3]; 4] = s.map(|p| p.map(f));
        let mut end: [[f64; 3]; 4] = e.map(|p| p.map(f));
        let e0 = end;
        let mid = |i: usize, k: usize| 0.5 * (start[i][k] + e0[i][k]);
        for k in 0..3 {
            let q = 0.25 * mid(1, k) + 0.25 * mid(2, k) + 0.5 * mid(3, k);
            end[0][k] = 2.0 * q - start[0][k];
        }
        let toi = first_toi(&VertexFace { start, end });
        prop_assert!(toi.is_some_and(|t| t <= 0.5), "planted contact at 1/2 missed: {:?}", toi);
    }

    #[test]
    fn planted_edge_edge_contact_is_found(
        s in prop::array::uniform4(prop::array::uniform3(-64i32..64)),
        e in prop::array::uniform4(prop::array::uniform3(-64i32..64)),
    ) {
        let f = |x: i32| x as f64 / 16.0;
        let start: [[f64; 3]; 4] = s.map(|p| p.map(f));
        let mut end: [[f64; 3]; 4] = e.map(|p| p.map(f));
        // Make a(1/2) + (b(1/2) − a(1/2))/4 = c(1/2) + (d(1/2) − c(1/2))/2 by choosing d(1).
        let e0 = end;
        let mid = |i: usize, k: usize| 0.5 * (start[i][k] + e0[i][k]);
        for k in 0..3 {
            let x = 0.75 * mid(0, k) + 0.25 * mid(1, k);
            let dmid = 2.0 * x - mid(2, k);
            end[3][k] = 2.0 * dmid - start[3][k];
        }
        let toi = first_toi(&EdgeEdge { start, end });
        prop_assert!(toi.is_some_and(|t| t <= 0.5), "planted contact at 1/2 missed: {:?}", toi);
    }
}
