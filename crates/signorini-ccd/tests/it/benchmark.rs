//! Every query of the public benchmark sample against its ground truth: zero false negatives,
//! and false positives per category no more than Tight-Inclusion's (ipc-toolkit 1.6, tolerance
//! 1e-6; numbers from issue #5).

use crate::common::{csv_files, data_root, load};
use signorini_ccd::benchmark::{Query, QueryKind};
use signorini_ccd::toi::{CcdReport, EdgeEdge, VertexFace, report};

fn full_report(q: &Query, kind: QueryKind) -> CcdReport {
    match kind {
        QueryKind::VertexFace => report(&VertexFace {
            start: q.start,
            end: q.end,
        }),
        QueryKind::EdgeEdge => report(&EdgeEdge {
            start: q.start,
            end: q.end,
        }),
    }
}

/// (queries, positives, false negatives, false positives) over all files under `sub`.
fn run(sub: &str, kind: QueryKind) -> (usize, usize, usize, usize) {
    let (mut n, mut pos, mut fneg, mut fpos) = (0, 0, 0, 0);
    for path in csv_files(&data_root().join(sub)) {
        let l = load(&path);
        if l.kind != kind {
            continue;
        }
        assert_eq!(l.file.inexact, 0, "{}: inexact coordinates", path.display());
        for (i, (q, &t)) in l.file.queries.iter().zip(&l.truth).enumerate() {
            let ours = q.first_toi(kind);
            if let Some(toi) = ours {
                assert!(
                    (0.0..=1.0).contains(&toi),
                    "{} #{i}: toi {toi}",
                    path.display()
                );
            }
            // The full report (all roots, CPF intervals) agrees with the first-contact search
            // and never runs out of budget on the benchmark.
            let r = full_report(q, kind);
            assert!(
                !r.budget_exhausted,
                "{} #{i}: node budget exhausted",
                path.display()
            );
            assert_eq!(
                r.first_toi(),
                ours,
                "{} #{i}: report vs first_toi",
                path.display()
            );
            n += 1;
            pos += usize::from(t);
            if t && ours.is_none() {
                eprintln!("FALSE NEGATIVE {} query {i}", l.path.display());
                fneg += 1;
            }
            fpos += usize::from(!t && ours.is_some());
        }
    }
    eprintln!("{sub} {kind:?}: {n} queries, {pos} positive, {fneg} FN, {fpos} FP");
    (n, pos, fneg, fpos)
}

#[test]
fn handcrafted_vertex_face() {
    let (n, pos, fneg, fpos) = run("handcrafted", QueryKind::VertexFace);
    assert_eq!((n, pos), (3085, 248));
    assert_eq!(fneg, 0);
    assert!(fpos <= 85, "{fpos} false positives > Tight-Inclusion's 85");
}

#[test]
fn handcrafted_edge_edge() {
    let (n, pos, fneg, fpos) = run("handcrafted", QueryKind::EdgeEdge);
    assert_eq!((n, pos), (4194, 187));
    assert_eq!(fneg, 0);
    assert!(
        fpos <= 137,
        "{fpos} false positives > Tight-Inclusion's 137"
    );
}

#[test]
fn simulation_vertex_face() {
    let (n, pos, fneg, fpos) = run("simulation", QueryKind::VertexFace);
    assert_eq!(n - pos, 101);
    assert_eq!(fneg, 0);
    assert!(fpos <= 101);
}

#[test]
fn simulation_edge_edge() {
    let (n, pos, fneg, fpos) = run("simulation", QueryKind::EdgeEdge);
    assert_eq!(n - pos, 347);
    assert_eq!(fneg, 0);
    assert!(fpos <= 347);
}
