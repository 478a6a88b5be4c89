//! The sparse semismooth Newton solver (`newton_sparse.rs`): against Lemke on the Siconos
//! files, on a large random sparse SPD LCP, on a contact-like mixed LCP with a known answer
//! (a resting stack), warm starts and determinism.

use crate::{assert_solves, params};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_complementarity::siconos::{ProblemKind, detect_kind, read_problem};
use signorini_complementarity::{
    CscMatrix, Lcp, SolveInfo, SolveParams, SolverKind, SparseMcp, solve_lcp, solve_mcp,
    solve_sparse,
};
use std::path::PathBuf;
use std::time::Instant;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/lcp/siconos")
}

fn siconos_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for kind in ["LCP", "MLCP", "Relay"] {
        let dir = data_dir().join(kind).join("test/data");
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "dat") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

#[test]
fn explore_siconos() {
    for path in siconos_files() {
        let name = path.to_string_lossy().into_owned();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let kind = detect_kind(&name, &text);
        let Ok(mcp) = read_problem(kind, &text) else {
            continue;
        };
        let lemke = solve_mcp(&mcp, &params(SolverKind::Lemke));
        let sparse = SparseMcp::from_dense(&mcp).unwrap();
        let s = solve_sparse(&sparse, &SolveParams::default());
        eprintln!(
            "{stem:40} n={:4} {kind:?} lemke: {:?} sparse: {:?}",
            mcp.dim(),
            lemke
                .as_ref()
                .map(|i| i.residual)
                .map_err(|e| e.to_string()),
            s.as_ref()
                .map(|i| (i.residual, i.iterations))
                .map_err(|e| e.to_string())
        );
        if let (Ok(a), Ok(b)) = (&lemke, &s) {
            eprintln!(
                "   dz = {:e}  dw = {:e}",
                (&a.z - &b.z).amax(),
                (&a.w - &b.w).amax()
            );
        }
    }
}
