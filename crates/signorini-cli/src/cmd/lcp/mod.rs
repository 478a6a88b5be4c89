//! `signorini lcp solve FILE`: read a Siconos LCP/MLCP/Relay file, solve it, print the report.
//!
//! Exit codes: 0 solved, 1 not solved (ray, iteration limit, infeasible), 2 bad input
//! (unreadable or malformed file, with the line and reason; or `invalid_input`: a problem the
//! chosen solver cannot take, such as PGS on a zero diagonal).

mod demo;

use crate::exit::{BadInput, Outcome};
use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use signorini_complementarity::siconos::{detect_kind, read_problem};
use signorini_complementarity::{
    Mcp, ProblemKind, SolveError, SolveInfo, SolveParams, SolverKind, solve_mcp,
};
use std::time::Instant;

/// `signorini lcp` subcommands.
#[derive(Subcommand, Debug)]
pub enum LcpCommand {
    /// Solve the bundled example problems with Lemke, FB-Newton and auto; print a table.
    Demo,
    /// Solve a Siconos `.dat` problem file (LCP, MLCP or Relay).
    Solve {
        /// The problem file.
        file: String,
        /// Algorithm.
        #[arg(long, value_enum, default_value_t = SolverArg::Auto)]
        solver: SolverArg,
        /// Output format.
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
        /// File kind; by default told from the content (never from the file's name or
        /// folder).
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
        /// Residual tolerance (scaled by max(1, ‖q‖∞)).
        #[arg(long, default_value_t = 1e-8)]
        tolerance: f64,
        /// Iteration / pivot limit (default: size-dependent).
        #[arg(long)]
        max_iterations: Option<usize>,
    },
}

/// `--solver` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum SolverArg {
    /// Lemke's method.
    Lemke,
    /// Semismooth Newton on the penalized Fischer–Burmeister function.
    FbNewton,
    /// Projected Gauss–Seidel.
    Pgs,
    /// Lemke → FB-Newton → regularised retries.
    Auto,
    /// Sparse semismooth Newton (faer's sparse LU; what large contact islands use).
    SparseNewton,
}

/// `--format` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FormatArg {
    /// Human-readable lines.
    Text,
    /// One JSON object.
    Json,
}

/// `--kind` values.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum KindArg {
    /// Linear complementarity problem.
    Lcp,
    /// Mixed LCP (free variables first).
    Mlcp,
    /// Relay (box-constrained) problem.
    Relay,
}

/// Run an `lcp` subcommand.
pub fn run(cmd: LcpCommand) -> Result<Outcome, BadInput> {
    match cmd {
        LcpCommand::Demo => demo::run(),
        LcpCommand::Solve {
            file,
            solver,
            format,
            kind,
            tolerance,
            max_iterations,
        } => {
            let text =
                std::fs::read_to_string(&file).with_context(|| format!("cannot read {file}"))?;
            let kind = match kind {
                Some(KindArg::Lcp) => ProblemKind::Lcp,
                Some(KindArg::Mlcp) => ProblemKind::Mlcp,
                Some(KindArg::Relay) => ProblemKind::Relay,
                None => detect_kind(&text),
            };
            let mcp = read_problem(kind, &text)
                .with_context(|| format!("{file}: malformed {} file", kind_name(kind)))?;
            let mut params = SolveParams::default();
            params.solver = to_kind(solver);
            params.tolerance = tolerance;
            params.max_iterations = max_iterations;
            let mut report = Report::solve(&mcp, &params);
            if report.status == "invalid_input" {
                // The problem is unusable for this solver (e.g. PGS on a zero diagonal): print
                // the report, then exit 2 with the reason.
                let msg = std::mem::take(&mut report.message);
                report.print(format, &file)?;
                return Err(BadInput(anyhow::anyhow!("{file}: {msg}")));
            }
            report.print(format, &file)?;
            Ok(if report.status == "solved" {
                Outcome::Success
            } else {
                Outcome::Failed
            })
        }
    }
}

/// The name of a file kind in messages.
fn kind_name(k: ProblemKind) -> &'static str {
    match k {
        ProblemKind::Lcp => "LCP",
        ProblemKind::Mlcp => "MLCP",
        ProblemKind::Relay => "Relay",
    }
}

fn to_kind(s: SolverArg) -> SolverKind {
    match s {
        SolverArg::Lemke => SolverKind::Lemke,
        SolverArg::FbNewton => SolverKind::FbNewton,
        SolverArg::Pgs => SolverKind::Pgs,
        SolverArg::Auto => SolverKind::Auto,
        SolverArg::SparseNewton => SolverKind::SparseNewton,
    }
}

/// What gets printed: the JSON fields, in order.
#[derive(serde::Serialize)]
pub struct Report {
    /// `solved` | `ray` | `max_iterations` | `infeasible` | `invalid_input`.
    pub status: &'static str,
    /// The solver that produced `z` (or the requested one on failure).
    pub solver: SolverKind,
    /// Natural-map residual of `z` (null if there is no iterate).
    pub residual: Option<f64>,
    /// Pivots or iterations.
    pub iterations: usize,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The solution or best iterate (empty if none).
    pub z: Vec<f64>,
    /// Why it failed, and the fallback log (text output and stderr only).
    #[serde(skip)]
    pub message: String,
}

impl Report {
    /// Solve and turn the result into a report.
    pub fn solve(mcp: &Mcp, params: &SolveParams) -> Report {
        let start = Instant::now();
        let result = solve_mcp(mcp, params);
        let seconds = start.elapsed().as_secs_f64();
        match result {
            Ok(info) => Report::from_info(info, seconds),
            Err(e) => Report::from_error(mcp, params.solver, &e, seconds),
        }
    }

    fn from_info(info: SolveInfo, seconds: f64) -> Report {
        let message = info
            .fallbacks
            .iter()
            .map(|(s, w)| format!("{s:?} failed: {w}"))
            .collect::<Vec<_>>()
            .join("\n");
        Report {
            status: "solved",
            solver: info.solver,
            residual: Some(info.residual),
            iterations: info.iterations,
            seconds,
            z: info.z.iter().copied().collect(),
            message,
        }
    }

    fn from_error(mcp: &Mcp, solver: SolverKind, e: &SolveError, seconds: f64) -> Report {
        let (status, solver, iterations) = match e {
            SolveError::Ray { pivot } => ("ray", SolverKind::Lemke, *pivot),
            SolveError::MaxIterations { iterations, .. } => ("max_iterations", solver, *iterations),
            SolveError::Inaccurate {
                solver, iterations, ..
            } => ("max_iterations", *solver, *iterations),
            SolveError::Infeasible { .. } => ("infeasible", solver, 0),
            SolveError::InvalidInput(_) => ("invalid_input", solver, 0),
        };
        let z = e
            .best()
            .map(|z| z.iter().copied().collect())
            .unwrap_or_default();
        let residual = e.best().map(|z| mcp.residual(z));
        Report {
            status,
            solver,
            residual,
            iterations,
            seconds,
            z,
            message: e.to_string(),
        }
    }

    /// Print to stdout (text or JSON); the failure message goes to stderr.
    pub fn print(&self, format: FormatArg, file: &str) -> Result<(), serde_json::Error> {
        match format {
            FormatArg::Json => {
                outln!("{}", serde_json::to_string(self)?);
            }
            FormatArg::Text => {
                outln!("file:       {file}");
                outln!("status:     {}", self.status);
                outln!("solver:     {}", solver_name(self.solver));
                match self.residual {
                    Some(r) => outln!("residual:   {r:.3e}"),
                    None => outln!("residual:   -"),
                }
                outln!("iterations: {}", self.iterations);
                outln!("seconds:    {:.6}", self.seconds);
                let z: Vec<String> = self.z.iter().map(|x| format!("{x:.12e}")).collect();
                outln!("z:          [{}]", z.join(", "));
            }
        }
        if !self.message.is_empty() {
            eprintln!("{}", self.message);
        }
        Ok(())
    }
}

/// The CLI spelling of a solver.
pub fn solver_name(s: SolverKind) -> &'static str {
    match s {
        SolverKind::Lemke => "lemke",
        SolverKind::FbNewton => "fb-newton",
        SolverKind::Pgs => "pgs",
        SolverKind::Auto => "auto",
        SolverKind::SparseNewton => "sparse-newton",
    }
}
