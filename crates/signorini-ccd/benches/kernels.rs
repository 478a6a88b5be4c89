//! Vertex–face and edge–edge kernel speed on the benchmark queries (`../shared/data/ccd`).
//!
//! Each benchmark runs the conservative first-time-of-impact kernel over every query of a
//! category; the throughput (elements/s) gives ns per query = 1e9 / throughput. "nondegenerate"
//! keeps the queries whose full report has only isolated simple roots (no coplanar motion, no
//! double roots, no unresolved enclosures).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use signorini_ccd::RootKind;
use signorini_ccd::benchmark::{Query, QueryKind, kind_from_path, parse_queries};
use signorini_ccd::toi::{EdgeEdge, VertexFace, report};
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn csv_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("data directory") {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "csv") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn load(sub: &str, kind: QueryKind) -> Vec<Query> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/ccd")
        .join(sub);
    csv_files(&root)
        .into_iter()
        .filter(|p| kind_from_path(p) == Some(kind))
        .flat_map(|p| {
            parse_queries(&std::fs::read_to_string(&p).unwrap())
                .unwrap()
                .queries
        })
        .collect()
}

fn nondegenerate(qs: &[Query], kind: QueryKind) -> Vec<Query> {
    qs.iter()
        .filter(|q| {
            let r = match kind {
                QueryKind::VertexFace => report(&VertexFace {
                    start: q.start,
                    end: q.end,
                }),
                QueryKind::EdgeEdge => report(&EdgeEdge {
                    start: q.start,
                    end: q.end,
                }),
            };
            r.roots.iter().all(|x| x.kind == RootKind::Isolated)
        })
        .copied()
        .collect()
}

fn bench_set(c: &mut Criterion, name: &str, qs: &[Query], kind: QueryKind) {
    let mut g = c.benchmark_group("ccd_kernel");
    g.throughput(Throughput::Elements(qs.len() as u64));
    g.bench_function(format!("{name} ({} queries)", qs.len()), |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for q in qs {
                hits += usize::from(black_box(q).first_toi(kind).is_some());
            }
            hits
        })
    });
    g.finish();
}

fn kernels(c: &mut Criterion) {
    for (sub, kind) in [
        ("simulation", QueryKind::VertexFace),
        ("simulation", QueryKind::EdgeEdge),
        ("handcrafted", QueryKind::VertexFace),
        ("handcrafted", QueryKind::EdgeEdge),
    ] {
        let all = load(sub, kind);
        let nd = nondegenerate(&all, kind);
        bench_set(c, &format!("{sub} {} all", kind.short()), &all, kind);
        bench_set(
            c,
            &format!("{sub} {} nondegenerate", kind.short()),
            &nd,
            kind,
        );
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
