//! `signorini lcp demo`: solve the bundled example problems.
//!
//! Solves a few bundled complementarity problems (a 2-contact frictional
//! Stewart–Trinkle step built here, and Siconos files embedded from `data/`) with Lemke,
//! FB-Newton and `auto`, and print one table row per (problem, solver). Exit code 1 if
//! `auto` fails on any of them.

use crate::cmd::lcp::{Report, solver_name};
use crate::exit::{BadInput, Outcome};
use nalgebra::{DMatrix, DVector};
use signorini_complementarity::siconos::{ProblemKind, read_problem};
use signorini_complementarity::{Lcp, Mcp, ProblemError, SolveParams, SolverKind};

/// Bundled Siconos files (Apache-2.0, see `data/README.md`), embedded from this crate's own
/// `data/` folder (`crates/signorini-cli/data/`: a crate embeds only files inside it, so that
/// `cargo package` can build it). They are copies of four files of the repository's Siconos
/// collection (`data/lcp/siconos/…`, where the docs and `lcp solve` examples name them); the
/// test `bundled_files_equal_the_collection` keeps the copies byte-equal.
const FILES: [(&str, ProblemKind, &str); 4] = [
    (
        "lcp_exp_murty2",
        ProblemKind::Lcp,
        include_str!("../../../data/lcp_exp_murty2.dat"),
    ),
    (
        "lcp_tobenna",
        ProblemKind::Lcp,
        include_str!("../../../data/lcp_tobenna.dat"),
    ),
    (
        "relay_4x4",
        ProblemKind::Relay,
        include_str!("../../../data/relay_4x4.dat"),
    ),
    (
        "diodeBridge_mlcp",
        ProblemKind::Mlcp,
        include_str!("../../../data/diodeBridge_mlcp.dat"),
    ),
];

/// Run the default job.
pub fn run() -> Result<Outcome, BadInput> {
    let mut problems: Vec<(String, Mcp)> =
        vec![("two_contact_friction".into(), two_contact_box()?.to_mcp())];
    for (name, kind, text) in FILES {
        problems.push((name.into(), read_problem(kind, text)?));
    }
    outln!("Signorini complementarity demo: bundled problems (see `signorini lcp solve --help`)\n");
    outln!(
        "{:<22} {:>4}  {:<14} {:<15} {:>6} {:>10} {:>10}",
        "problem",
        "n",
        "solver",
        "status",
        "iters",
        "residual",
        "µs"
    );
    let mut all_ok = true;
    for (name, mcp) in &problems {
        for solver in [SolverKind::Lemke, SolverKind::FbNewton, SolverKind::Auto] {
            let mut params = SolveParams::default();
            params.solver = solver;
            let r = Report::solve(mcp, &params);
            let shown = if solver == SolverKind::Auto {
                format!("auto→{}", solver_name(r.solver))
            } else {
                solver_name(solver).to_string()
            };
            let res = r.residual.map_or("-".to_string(), |x| format!("{x:.1e}"));
            outln!(
                "{:<22} {:>4}  {:<14} {:<15} {:>6} {:>10} {:>10.1}",
                name,
                mcp.dim(),
                shown,
                r.status,
                r.iterations,
                res,
                r.seconds * 1e6
            );
            all_ok &= solver != SolverKind::Auto || r.status == "solved";
        }
    }
    if let Some((_, mcp)) = problems.first() {
        let z = signorini_complementarity::solve_mcp(mcp, &SolveParams::default()).map(|i| i.z);
        if let Ok(z) = z {
            outln!(
                "\ntwo_contact_friction impulses (N·s): normal {:.4} {:.4}; sliding speeds σ {:.4} {:.4}",
                z[0],
                z[1],
                z[6],
                z[7]
            );
        }
    }
    Ok(if all_ok {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// A 2D box (1 kg, 1 m wide) landing on the ground while sliding at 1 m/s, one time step
/// h = 0.01 s of the Stewart–Trinkle LCP (1996) with two contacts, friction μ = 0.3 and
/// two friction directions (±x) per contact. Unknowns
/// (p_n1, p_n2, β1+, β1−, β2+, β2−, σ1, σ2): n = 8, zero diagonal on the σ block.
fn two_contact_box() -> Result<Lcp, ProblemError> {
    let (mass, inertia, h, mu, g) = (1.0, 1.0 / 6.0, 0.01, 0.3, 9.81);
    let winv = DVector::from_column_slice(&[1.0 / mass, 1.0 / mass, 1.0 / inertia]);
    // Contact points relative to the centre of mass; generalized velocity (vx, vy, ω).
    let arms = [(-0.5, -0.5), (0.5, -0.5)];
    let dir_rows = |(rx, ry): (f64, f64), (dx, dy): (f64, f64)| [dx, dy, rx * dy - ry * dx];
    let mut g_cols: Vec<[f64; 3]> = arms.iter().map(|&a| dir_rows(a, (0.0, 1.0))).collect();
    for &a in &arms {
        g_cols.push(dir_rows(a, (1.0, 0.0)));
        g_cols.push(dir_rows(a, (-1.0, 0.0)));
    }
    let gm = DMatrix::from_fn(3, 6, |i, j| g_cols[j][i]);
    let wg = DMatrix::from_fn(3, 6, |i, j| winv[i] * gm[(i, j)]);
    let a = gm.transpose() * wg;
    let mut m = DMatrix::zeros(8, 8);
    m.view_mut((0, 0), (6, 6)).copy_from(&a);
    for c in 0..2 {
        m[(6 + c, c)] = mu;
        for k in 0..2 {
            m[(2 + 2 * c + k, 6 + c)] = 1.0;
            m[(6 + c, 2 + 2 * c + k)] = -1.0;
        }
    }
    // Free velocity after gravity: sliding right at 1 m/s, falling at 0.5 m/s, gap 1 mm.
    let v_star = DVector::from_column_slice(&[1.0, -0.5 - h * g, 0.0]);
    let gv = gm.transpose() * v_star;
    let mut q = DVector::zeros(8);
    for i in 0..6 {
        q[i] = gv[i] + if i < 2 { 0.001 / h } else { 0.0 };
    }
    Lcp::new(m, q)
}

#[cfg(test)]
mod tests {
    use super::FILES;

    #[test]
    fn bundled_files_equal_the_collection() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/lcp/siconos");
        for (name, _, text) in FILES {
            let dir = match name {
                "diodeBridge_mlcp" => "MLCP",
                "relay_4x4" => "Relay",
                _ => "LCP",
            };
            let path = root.join(dir).join("test/data").join(format!("{name}.dat"));
            let original = std::fs::read_to_string(&path).unwrap();
            assert!(
                original == text,
                "crates/signorini-cli/data/{name}.dat differs from {}",
                path.display()
            );
        }
    }
}
