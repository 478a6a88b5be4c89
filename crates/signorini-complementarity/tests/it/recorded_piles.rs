//! Problems recorded from the pile experiments (`tests/fixtures/`), where a solver once
//! failed in the world.

use nalgebra::DVector;
use signorini_complementarity::{CscMatrix, SolverKind, SparseMcp, solve_mcp};

/// The recorded mixed LCP `name` (triplets, q, number of free unknowns), as a sparse MCP.
fn recorded(name: &str) -> SparseMcp {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let j: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let numbers = |k: &str| -> Vec<f64> {
        j[k].as_array()
            .unwrap_or_else(|| panic!("{path}: field {k}"))
            .iter()
            .map(|x| x.as_f64().expect("a number"))
            .collect()
    };
    let n = j["n"].as_u64().expect("n") as usize;
    let (rows, cols, vals) = (numbers("rows"), numbers("cols"), numbers("vals"));
    let triplets: Vec<(usize, usize, f64)> = (0..vals.len())
        .map(|k| (rows[k] as usize, cols[k] as usize, vals[k]))
        .collect();
    let m = CscMatrix::from_triplets(n, n, &triplets).expect("valid triplets");
    let q = DVector::from_vec(numbers("q"));
    SparseMcp::mixed(m, q, j["n_free"].as_u64().expect("n_free") as usize).expect("valid MCP")
}

/// The 2D pile of 400 bodies, step 220 (1,958 unknowns, 1,025 after the Schur complement of
/// the velocities). Lemke's path of 680 pivots ends on a basis whose answer has residual 1.3:
/// a pivot chosen on a rounded column led it astray. Restarted from that basis with a fresh
/// inverse (`lemke.rs`, `repair`), it ends within tolerance; before the repair this problem
/// failed Lemke and went to the sparse rescue.
#[test]
fn lemke_repairs_the_rounded_path_of_a_recorded_2d_pile_problem() {
    let mcp = recorded("pile2d_n400_step220_mixed.json").to_dense();
    let info = solve_mcp(&mcp, &crate::params(SolverKind::Lemke)).expect("Lemke solves it");
    assert_eq!(info.solver, SolverKind::Lemke);
    crate::assert_solves(&mcp, &info, "2D pile of 400, step 220");
}
