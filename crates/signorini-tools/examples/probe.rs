//! Probe: per-query time and report for the slowest queries of a file.
//! Usage: `cargo run --release --example probe -- FILE.csv`.
use signorini_ccd::benchmark::{QueryKind, kind_from_path, parse_queries};
use signorini_ccd::toi::{EdgeEdge, VertexFace, report};
use std::time::Instant;
fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let kind = kind_from_path(&path).unwrap();
    let f = parse_queries(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut times: Vec<(u128, usize)> = Vec::new();
    for (i, q) in f.queries.iter().enumerate() {
        let s = Instant::now();
        for _ in 0..10 {
            std::hint::black_box(q.first_toi(kind));
        }
        times.push((s.elapsed().as_nanos() / 10, i));
    }
    times.sort();
    let tot: u128 = times.iter().map(|t| t.0).sum();
    println!(
        "mean {} median {}",
        tot / times.len() as u128,
        times[times.len() / 2].0
    );
    for &(t, i) in times.iter().rev().take(5) {
        let q = &f.queries[i];
        let r = match kind {
            QueryKind::VertexFace => report(&VertexFace {
                start: q.start,
                end: q.end,
            }),
            _ => report(&EdgeEdge {
                start: q.start,
                end: q.end,
            }),
        };
        println!(
            "#{i} {t} ns toi={:?} budget={} {:?}",
            q.first_toi(kind),
            r.budget_exhausted,
            r.roots
        );
    }
}
