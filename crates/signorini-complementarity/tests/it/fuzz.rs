//! Fuzz campaign (issue #20) of the Siconos problem reader (`detect_kind` + `read_problem`):
//! the small LCP, MLCP and Relay files of `data/lcp/siconos` mutated (byte flips, truncation,
//! numbers replaced by huge, negative, NaN, infinite and overflowing values, lines deleted or
//! repeated, fragments inserted), and token streams generated from numbers. Either a problem
//! whose sizes agree and whose data are finite (bounds may be infinite, never NaN, lower ≤
//! upper), or an error with a line number and a reason; never a panic, never a hang.
//!
//! Seeded and bounded: 256 cases per target in CI; the longer campaign is
//! `PROPTEST_CASES=20000 cargo test --release -p signorini-complementarity fuzz --
//! --nocapture` (docs/guide.md, "Fuzzing").

use crate::fuzzing::{HOSTILE_NUMBERS, apply, campaign, mutations};
use proptest::prelude::*;
use signorini_complementarity::siconos::{detect_kind, read_problem};
use std::path::PathBuf;
use std::time::Duration;

/// The Siconos files under 12 kB (name, text), sorted.
fn files() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/lcp/siconos");
    let mut v = Vec::new();
    for kind in ["LCP", "MLCP", "Relay"] {
        let dir = root.join(kind).join("test/data");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "dat")
                && e.metadata().is_ok_and(|m| m.len() < 12_000)
            {
                let text = std::fs::read_to_string(&p).unwrap();
                v.push((p.display().to_string(), text));
            }
        }
    }
    v.sort();
    assert!(v.len() >= 10, "{} small Siconos files", v.len());
    v
}

fn check(text: &str) {
    match read_problem(detect_kind(text), text) {
        Ok(p) => {
            let n = p.q.len();
            assert_eq!((p.m.nrows(), p.m.ncols()), (n, n), "{text}");
            assert_eq!((p.lower.len(), p.upper.len()), (n, n), "{text}");
            assert!(
                p.m.iter().chain(p.q.iter()).all(|x| x.is_finite()),
                "{text}"
            );
            for (l, u) in p.lower.iter().zip(p.upper.iter()) {
                assert!(
                    !l.is_nan() && !u.is_nan() && l <= u,
                    "bounds {l} {u}: {text}"
                );
            }
        }
        Err(e) => {
            assert!(!e.reason.trim().is_empty(), "empty reason for:\n{text}");
            assert!(!e.to_string().trim().is_empty());
        }
    }
}

#[test]
fn fuzz_lcp_files_mutated() {
    let files = files();
    let n = files.len();
    campaign(
        "LCP/MLCP/Relay files (mutated)",
        (0..n, mutations()),
        Duration::from_secs(5),
        |(k, muts)| check(&apply(&files[k].1, &muts)),
    );
}

/// Whitespace-separated tokens: small sizes and flags, hostile numbers, ordinary values.
fn tokens() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        4 => (0u32..5).prop_map(|k| k.to_string()),
        2 => prop::sample::select(HOSTILE_NUMBERS).prop_map(str::to_string),
        2 => (-10.0f64..10.0).prop_map(|x| format!("{x}")),
        1 => prop::sample::select(vec!["#", "x", "\n", "-", "1e", "0.5.5"]).prop_map(str::to_string),
    ];
    prop::collection::vec(token, 0..40).prop_map(|t| t.join(" "))
}

#[test]
fn fuzz_lcp_files_generated() {
    campaign(
        "LCP/MLCP/Relay files (generated tokens)",
        tokens(),
        Duration::from_secs(5),
        |text| check(&text),
    );
}
