//! Criterion benches: Lemke and FB-Newton on contact-like (Stewart–Trinkle) LCPs of size
//! n = 10, 50, 200, 500 (`tests/it/generators.rs`, k = 3 friction directions, 5 unknowns
//! per contact). Problem generation is outside the timed part; each iteration is one full
//! solve (validation, reduction, pivoting or Newton, refinement).
//!
//! Run: `cargo bench -p signorini-complementarity --bench solvers -- --warm-up-time 1 --measurement-time 3`

// criterion_group! expands to an undocumented `pub fn`.
#![allow(missing_docs)]

#[path = "../tests/it/generators.rs"]
mod generators;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use signorini_complementarity::{Lcp, SolveParams, SolverKind, solve_lcp};
use std::hint::black_box;

fn bench_contact(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_like");
    group.sample_size(10);
    for n in [10, 50, 200, 500] {
        let (m, q) = generators::contact_like(n / 5, 42);
        let lcp = Lcp::new(m, q).expect("generated problem is valid");
        for (name, solver) in [
            ("lemke", SolverKind::Lemke),
            ("fb_newton", SolverKind::FbNewton),
        ] {
            let mut params = SolveParams::default();
            params.solver = solver;
            // Check once, outside the timing, that this solver solves this instance.
            let info = solve_lcp(&lcp, &params);
            eprintln!(
                "{name} n={n}: {}",
                match &info {
                    Ok(i) => format!(
                        "solved, {} iterations, residual {:.1e}",
                        i.iterations, i.residual
                    ),
                    Err(e) => format!("not solved: {e}"),
                }
            );
            group.bench_with_input(BenchmarkId::new(name, n), &lcp, |b, lcp| {
                b.iter(|| black_box(solve_lcp(black_box(lcp), &params)).is_ok())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_contact);
criterion_main!(benches);
