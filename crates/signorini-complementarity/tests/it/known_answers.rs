//! Known-answer LCPs from other projects' tests (`data/lcp/README.md`, last table).

use crate::{params, solve_rows};
use nalgebra::{DMatrix, DVector};
use signorini_complementarity::{Lcp, Mcp, SolveError, SolverKind, solve_lcp, solve_mcp};

const ALL: [SolverKind; 3] = [SolverKind::Lemke, SolverKind::FbNewton, SolverKind::Auto];

fn close(z: &DVector<f64>, expect: &[f64], tol: f64) -> bool {
    z.iter().zip(expect).all(|(a, b)| (a - b).abs() <= tol)
}

#[test]
fn path_documentation_example_has_its_unique_answer() {
    let m = [
        0., 0., -1., -1., 0., 0., 1., -2., 1., -1., 2., -2., 1., 2., -2., 4.,
    ];
    for s in ALL {
        let (_, info) = solve_rows(&m, &[2., 2., -2., -6.], s);
        assert!(
            close(&info.z, &[2.8, 0.0, 0.8, 1.2], 1e-9),
            "{s:?}: {}",
            info.z
        );
    }
}

#[test]
fn drake_cycling_example() {
    for s in ALL {
        let (_, info) = solve_rows(&[1., 2., 0., 0., 1., 2., 2., 0., 1.], &[-1.; 3], s);
        assert!(close(&info.z, &[1. / 3.; 3], 1e-9), "{s:?}: {}", info.z);
    }
}

#[test]
fn floudas_10_2_1_upper_triangular_16() {
    let n = 16;
    let m: Vec<f64> = (0..n * n)
        .map(|k| match (k / n, k % n) {
            (i, j) if i == j => 1.0,
            (i, j) if j > i => 2.0,
            _ => 0.0,
        })
        .collect();
    for s in ALL {
        let (_, info) = solve_rows(&m, &[-1.0; 16], s);
        let mut e16 = vec![0.0; 16];
        e16[15] = 1.0;
        assert!(close(&info.z, &e16, 1e-9), "{s:?}: {}", info.z);
    }
}

#[test]
fn floudas_10_2_2_all_ones_accepts_any_solution() {
    for s in ALL {
        let (_, info) = solve_rows(&[1., 1., 1., 1.], &[-1., -1.], s);
        assert!(
            (info.z[0] + info.z[1] - 1.0).abs() < 1e-9,
            "{s:?}: {}",
            info.z
        );
    }
}

#[test]
fn floudas_10_2_9_parametric_family() {
    let m = [
        11., 0., 10., -1., 0., 11., 10., -1., 10., 10., 21., -1., 1., 1., 1., 0.,
    ];
    for l in [0.0, 7.0, 23.0] {
        let expect = [
            (l + 16.) / 13.,
            (l + 16.) / 13.,
            2. * (23. - l) / 13.,
            (1286. - 9. * l) / 13.,
        ];
        let (_, info) = solve_rows(&m, &[50., 50., l, -6.], SolverKind::Lemke);
        assert!(close(&info.z, &expect, 1e-9), "l = {l}: {}", info.z);
    }
    let (_, info) = solve_rows(&m, &[50., 50., 100., -6.], SolverKind::Auto);
    assert!(close(&info.z, &[3., 3., 0., 83.], 1e-9), "{}", info.z);
}

#[test]
fn cps_example_4_4_16_psd() {
    for s in ALL {
        let (_, info) = solve_rows(&[1., -1., -1., 1.], &[1., -1.], s);
        assert!(close(&info.z, &[0., 1.], 1e-9), "{s:?}: {}", info.z);
    }
}

#[test]
fn unsolvable_scalar_is_not_reported_solved() {
    let lcp = Lcp::new(
        DMatrix::from_element(1, 1, -1.0),
        DVector::from_element(1, -1.0),
    )
    .unwrap();
    assert!(matches!(
        solve_lcp(&lcp, &params(SolverKind::Lemke)),
        Err(SolveError::Ray { pivot: 1 })
    ));
    assert!(matches!(
        solve_lcp(&lcp, &params(SolverKind::Auto)),
        Err(SolveError::Infeasible { .. })
    ));
    assert!(solve_lcp(&lcp, &params(SolverKind::FbNewton)).is_err());
}

#[test]
fn box_mcp_with_free_and_both_sided_bounds() {
    // M = [[2, 1, 0], [1, 2, 1], [0, 1, 2]], q = (−10, 1, 3), z0 ∈ [−1, 1], z1 free, z2 ≤ 0.
    // Unique solution (M is PD): z0 at its upper bound 1 with w0 < 0; z1 = −(1 + 1 + z2)/2,
    // z2 free inside (−∞, 0]: 2 z2 + z1 + 3 = 0 ⇒ z2 = −4/3, z1 = −1/3.
    let m = DMatrix::from_row_slice(3, 3, &[2., 1., 0., 1., 2., 1., 0., 1., 2.]);
    let q = DVector::from_column_slice(&[-10., 1., 3.]);
    let lo = DVector::from_column_slice(&[-1., f64::NEG_INFINITY, f64::NEG_INFINITY]);
    let up = DVector::from_column_slice(&[1., f64::INFINITY, 0.]);
    let mcp = Mcp::new(m, q, lo, up).unwrap();
    for s in [
        SolverKind::Lemke,
        SolverKind::FbNewton,
        SolverKind::Pgs,
        SolverKind::Auto,
    ] {
        let info = solve_mcp(&mcp, &params(s)).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        crate::assert_solves(&mcp, &info, &format!("{s:?}"));
        assert!(
            close(&info.z, &[1.0, -1. / 3., -4. / 3.], 1e-8),
            "{s:?}: {}",
            info.z
        );
    }
}
