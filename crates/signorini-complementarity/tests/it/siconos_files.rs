//! Every Siconos LCP, MLCP and Relay file in `data/lcp/siconos/` against the
//! reference answers of `data/lcp/README.md` (by residual: solutions are not
//! unique), plus the outcomes the README records for single solvers.

use crate::{assert_solves, params, solve};
use signorini_complementarity::siconos::{
    ProblemKind, detect_kind, read_lcp, read_mlcp, read_problem,
};
use signorini_complementarity::{SolveError, SolverKind, solve_lcp};
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/lcp/siconos")
}

/// The `.dat` files of one Siconos kind (`LCP`, `MLCP`, `Relay`), sorted.
pub(crate) fn files(kind: &str) -> Vec<PathBuf> {
    let dir = data_dir().join(kind).join("test/data");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    v.sort();
    v
}

fn read(path: &PathBuf) -> (String, String) {
    let text = std::fs::read_to_string(path).unwrap();
    (path.to_string_lossy().into_owned(), text)
}

const UNSOLVABLE: &str = "lcp_Pang_isolated_sol_perturbed";
const NOT_SQUARE: &str = "Rectangular_mlcp";

#[test]
fn auto_solves_every_siconos_file_that_has_a_solution() {
    let mut count = 0;
    for kind in ["LCP", "MLCP", "Relay"] {
        for path in files(kind) {
            let (_, text) = read(&path);
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let k = detect_kind(&text);
            let parsed = read_problem(k, &text);
            if stem == NOT_SQUARE {
                let e = parsed.expect_err("Rectangular_mlcp must be rejected");
                assert!(e.reason.contains("square") && e.line > 0, "{e}");
                continue;
            }
            let mcp = parsed.unwrap_or_else(|e| panic!("{stem}: {e}"));
            let result = solve(&mcp, SolverKind::Auto);
            if stem == UNSOLVABLE {
                assert!(
                    matches!(result, Err(SolveError::Infeasible { .. })),
                    "{stem}: {result:?}"
                );
                continue;
            }
            let info = result.unwrap_or_else(|e| panic!("{stem}: {e}"));
            assert_solves(&mcp, &info, &stem);
            count += 1;
        }
    }
    assert_eq!(
        count,
        20 - 1 + 18 - 1 + 7,
        "every file with a solution was checked"
    );
}

#[test]
fn kinds_are_detected_from_content() {
    for (kind, expect) in [
        ("LCP", ProblemKind::Lcp),
        ("MLCP", ProblemKind::Mlcp),
        ("Relay", ProblemKind::Relay),
    ] {
        for path in files(kind) {
            let (name, text) = read(&path);
            assert_eq!(detect_kind(&text), expect, "content of {name}");
        }
    }
}

fn lcp_file(stem: &str) -> signorini_complementarity::Lcp {
    let path = data_dir().join(format!("LCP/test/data/{stem}.dat"));
    read_lcp(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn lemke_alone_solves_tobenna_and_murty_with_the_readme_pivot_counts() {
    for (stem, pivots) in [
        ("lcp_tobenna", 127),
        ("lcp_exp_murty2", 64),
        ("lcp_exp_murty", 2),
        ("lcp_mmc", 23),
    ] {
        let lcp = lcp_file(stem);
        let info =
            solve_lcp(&lcp, &params(SolverKind::Lemke)).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_solves(&lcp.to_mcp(), &info, stem);
        assert_eq!(info.iterations, pivots, "{stem}");
    }
    // Murty's example: the unique solution is 64·e_6.
    let info = solve_lcp(&lcp_file("lcp_exp_murty2"), &params(SolverKind::Lemke)).unwrap();
    assert!(
        (info.z[5] - 64.0).abs() < 1e-12 && info.z.rows(0, 5).amax() < 1e-12,
        "{}",
        info.z
    );
}

#[test]
fn lemke_matches_the_readme_on_every_lcp_file() {
    // The README's lexico-Lemke column: everything solved except CPS_3 and the perturbed
    // Pang problem, which end in a ray.
    for path in files("LCP") {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let lcp = read_lcp(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let r = solve_lcp(&lcp, &params(SolverKind::Lemke));
        if stem == "lcp_CPS_3" || stem == UNSOLVABLE {
            assert!(matches!(r, Err(SolveError::Ray { .. })), "{stem}: {r:?}");
        } else {
            assert_solves(
                &lcp.to_mcp(),
                &r.unwrap_or_else(|e| panic!("{stem}: {e}")),
                &stem,
            );
        }
    }
}

#[test]
fn unique_reference_solutions_are_reproduced() {
    let cases: [(&str, &[f64]); 5] = [
        ("lcp_CPS_2", &[0.0, 1.0, 3.0]),
        ("lcp_CPS_4", &[2.0, 2.0, 2.0, 92.0]),
        ("lcp_CPS_4bis", &[3.0, 3.0, 0.0, 83.0]),
        ("lcp_ortiz", &[2.0 / 3.0, 0.0, 1.0 / 3.0, 0.0]),
        ("lcp_deudeu", &[4.0 / 3.0, 7.0 / 3.0]),
    ];
    for (stem, z) in cases {
        let info = solve_lcp(&lcp_file(stem), &params(SolverKind::Auto)).unwrap();
        for (i, zi) in z.iter().enumerate() {
            assert!((info.z[i] - zi).abs() < 1e-9, "{stem}: {}", info.z);
        }
    }
    // lcp_mmc: unique (symmetric PD); first and 22nd entries from the README.
    let info = solve_lcp(&lcp_file("lcp_mmc"), &params(SolverKind::Auto)).unwrap();
    assert!(
        (info.z[0] - 1.49138824543e-4).abs() < 1e-13
            && (info.z[21] - 2.22737724832e-6).abs() < 1e-13
    );
}

#[test]
fn mlcp_reference_free_parts_are_reproduced() {
    // m3n2: u = (1, −1), v = (0, 4, 0) is the README's basic solution.
    let path = data_dir().join("MLCP/test/data/m3n2_mlcp.dat");
    let (mcp, n_free) = read_mlcp(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!((n_free, mcp.dim()), (2, 5));
    let info = solve(&mcp, SolverKind::Auto).unwrap();
    assert_solves(&mcp, &info, "m3n2");
}

#[test]
fn fb_newton_alone_solves_the_circuit_mlcps_without_inverting_the_free_block() {
    for stem in [
        "diodeBridge_mlcp",
        "PD_mlcp",
        "BuckConverter_mlcp",
        "diodeBridge20_mlcp",
    ] {
        let path = data_dir().join(format!("MLCP/test/data/{stem}.dat"));
        let (mcp, _) = read_mlcp(&std::fs::read_to_string(path).unwrap()).unwrap();
        let info = solve(&mcp, SolverKind::FbNewton).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_solves(&mcp, &info, stem);
    }
}

#[test]
fn lemke_alone_solves_mlcps_with_a_singular_free_block() {
    // The free block of the diode bridges and PD is singular (no Schur complement): Lemke
    // keeps the free variables basic, completing the start basis with constrained z's.
    for stem in [
        "diodeBridge_mlcp",
        "diodeBridge20_mlcp",
        "diodeBridge40_mlcp",
        "PD_mlcp",
        "Buck2_mlcp",
    ] {
        let path = data_dir().join(format!("MLCP/test/data/{stem}.dat"));
        let (mcp, _) = read_mlcp(&std::fs::read_to_string(path).unwrap()).unwrap();
        let info = solve(&mcp, SolverKind::Lemke).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_solves(&mcp, &info, stem);
    }
}
