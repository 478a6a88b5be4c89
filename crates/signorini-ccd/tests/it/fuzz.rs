//! Fuzz campaign (issue #20) of the CCD query reader (`parse_queries`, `parse_truth_json`):
//! small query files of `data/ccd` mutated (byte flips, truncation, numbers replaced by huge,
//! negative, NaN, infinite and overflowing values, lines deleted or repeated, fragments
//! inserted) and generated rows. Either queries whose coordinates are finite, or an error
//! with a reason; never a panic, never a hang.
//!
//! Seeded and bounded: 256 cases per target in CI; the longer campaign is
//! `PROPTEST_CASES=20000 cargo test --release -p signorini-ccd fuzz -- --nocapture`
//! (docs/guide.md, "Fuzzing").

use crate::fuzzing::{HOSTILE_NUMBERS, apply, campaign, mutations};
use proptest::prelude::*;
use signorini_ccd::benchmark::{parse_queries, parse_truth_json};
use std::time::Duration;

/// The first 64 rows (8 queries) of a few query files, and two truth lists.
fn seeds() -> Vec<String> {
    let root = crate::common::data_root();
    let mut v = Vec::new();
    let mut stack = vec![root];
    let mut csv = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "csv") {
                csv.push(p);
            }
        }
    }
    csv.sort();
    for p in csv.iter().step_by((csv.len() / 12).max(1)) {
        let text = std::fs::read_to_string(p).unwrap();
        let head: Vec<&str> = text.lines().take(64).collect();
        v.push(head.join("\n") + "\n");
    }
    v.push("[true,false,true]".into());
    v.push("[0, 1, 1, 0]".into());
    assert!(v.len() >= 6, "{} seeds", v.len());
    v
}

fn check(text: &str) {
    match parse_queries(text) {
        Ok(f) => {
            assert!(!f.queries.is_empty());
            for q in &f.queries {
                for p in q.start.iter().chain(q.end.iter()) {
                    assert!(p.iter().all(|c| c.is_finite()), "{p:?} from:\n{text}");
                }
            }
        }
        Err(e) => assert!(!e.reason.trim().is_empty(), "empty reason for:\n{text}"),
    }
    match parse_truth_json(text) {
        Ok(_) => {}
        Err(e) => assert!(!e.reason.trim().is_empty(), "empty reason for:\n{text}"),
    }
}

#[test]
fn fuzz_ccd_query_files_mutated() {
    let seeds = seeds();
    let n = seeds.len();
    campaign(
        "CCD query files (mutated)",
        (0..n, mutations()),
        Duration::from_secs(5),
        |(k, muts)| check(&apply(&seeds[k], &muts)),
    );
}

/// Rows of 6 or 7 comma-separated integers (hostile ones included).
fn rows() -> impl Strategy<Value = String> {
    let cell = prop_oneof![
        4 => (-3i64..4).prop_map(|k| k.to_string()),
        2 => prop::sample::select(HOSTILE_NUMBERS).prop_map(str::to_string),
        1 => any::<i128>().prop_map(|k| k.to_string()),
        1 => prop::sample::select(vec!["", " ", "x", "1/2", "--1"]).prop_map(str::to_string),
    ];
    let row = prop::collection::vec(cell, 5..8).prop_map(|c| c.join(","));
    prop::collection::vec(row, 0..20).prop_map(|r| r.join("\n"))
}

#[test]
fn fuzz_ccd_query_files_generated() {
    campaign(
        "CCD query files (generated rows)",
        rows(),
        Duration::from_secs(5),
        |text| check(&text),
    );
}
