//! The harness of the fuzz campaigns (issue #20): the seeded, bounded proptest configuration,
//! [`campaign`] (counts, slowest case, hang limit) and text mutations: byte flips, truncation,
//! hostile numbers (huge, negative, NaN, infinities, integer overflow), deleted and duplicated
//! lines, inserted fragments. Shared by the fuzz tests of `signorini-scene` (scene files),
//! `signorini-geometry` (polygons, polyhedra), `signorini-complementarity` (LCP files) and
//! `signorini-ccd` (query files), which include this file with `#[path]`.
//!
//! CI runs 256 cases per target with a fixed seed; the longer campaign sets `PROPTEST_CASES`
//! (docs/guide.md, "Fuzzing").

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::time::{Duration, Instant};

/// The default seed of every target (a `PROPTEST_RNG_SEED` replaces it).
pub const SEED: u64 = 202_026;

/// Cases: `PROPTEST_CASES`, else 256; the seed: `PROPTEST_RNG_SEED`, else [`SEED`]. No failure
/// files are written.
pub fn config() -> Config {
    let mut c = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = 256;
    }
    if c.rng_seed == RngSeed::Random {
        c.rng_seed = RngSeed::Fixed(SEED);
    }
    c.failure_persistence = None;
    c
}

/// Run `check` (which panics on a bad outcome) on `cases` inputs of `strategy`; print the
/// count and the slowest case (`--nocapture`), and fail on a case slower than `limit` (a hang).
pub fn campaign<S: Strategy>(name: &str, strategy: S, limit: Duration, check: impl Fn(S::Value))
where
    S::Value: std::fmt::Debug,
{
    let cfg = config();
    let cases = cfg.cases;
    let mut runner = TestRunner::new(cfg);
    let slowest = std::cell::Cell::new(Duration::ZERO);
    let result = runner.run(&strategy, |input| {
        let t0 = Instant::now();
        check(input);
        let dt = t0.elapsed();
        slowest.set(slowest.get().max(dt));
        prop_assert!(dt < limit, "case took {dt:?}");
        Ok(())
    });
    eprintln!(
        "fuzz target {name}: {cases} cases, slowest {:?}",
        slowest.get()
    );
    if let Err(e) = result {
        panic!("fuzz target {name}: {e}");
    }
}

/// Numbers that replace a number of the text.
pub const HOSTILE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-0.0",
    "1e308",
    "-1e308",
    "1e999",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e-320",
    "2.5",
    "3",
    "1000000000",
    "4294967297",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999",
    "1e20",
    "0x10",
    "1_000",
];

/// Fragments inserted at a random place.
pub const FRAGMENTS: &[&str] = &[
    "\n",
    "=",
    "[",
    "]",
    "\"",
    ",",
    "#",
    "\n[[body]]\n",
    "\n[step]\nh = 0.01\n",
    " = 1\n",
    "\nx = [1e308, -1e308]\n",
    "{",
    "}",
    "\u{0}",
    "é",
    "\r\n",
    " 7 ",
];

/// One mutation; positions are taken modulo the text's length.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Replace the byte at `at` (the result is read as UTF-8, lossily).
    Byte { at: usize, byte: u8 },
    /// Keep the first `at` bytes.
    Truncate { at: usize },
    /// Replace the `which`-th number with `with`.
    Number { which: usize, with: &'static str },
    /// Delete the `which`-th line.
    DeleteLine { which: usize },
    /// Repeat the `which`-th line.
    DuplicateLine { which: usize },
    /// Insert `text` at byte `at`.
    Insert { at: usize, text: &'static str },
}

/// One to four mutations, numbers most often.
pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let one = prop_oneof![
        2 => (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Byte { at, byte }),
        1 => any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        5 => (any::<usize>(), prop::sample::select(HOSTILE_NUMBERS))
            .prop_map(|(which, with)| Mutation::Number { which, with }),
        1 => any::<usize>().prop_map(|which| Mutation::DeleteLine { which }),
        1 => any::<usize>().prop_map(|which| Mutation::DuplicateLine { which }),
        1 => (any::<usize>(), prop::sample::select(FRAGMENTS))
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
    ];
    prop::collection::vec(one, 1..5)
}

/// Byte ranges of the numbers of `text` (a digit, or a sign or point before a digit, then
/// digits, letters of exponents, points, signs and underscores).
pub fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            || ((b[i] == b'-' || b[i] == b'+' || b[i] == b'.')
                && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if starts && !after_word {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_digit() || b"eE.+-_".contains(&b[j])) {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Apply `muts` in order.
pub fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for m in muts {
        let len = bytes.len();
        match *m {
            Mutation::Byte { at, byte } if len > 0 => bytes[at % len] = byte,
            Mutation::Truncate { at } => bytes.truncate(at % (len + 1)),
            Mutation::Number { which, with } => {
                let s = String::from_utf8_lossy(&bytes).into_owned();
                let spans = numbers(&s);
                if !spans.is_empty() {
                    let (a, b) = spans[which % spans.len()];
                    bytes = format!("{}{with}{}", &s[..a], &s[b..]).into_bytes();
                }
            }
            Mutation::DeleteLine { which } | Mutation::DuplicateLine { which } => {
                let s = String::from_utf8_lossy(&bytes).into_owned();
                let mut lines: Vec<&str> = s.split_inclusive('\n').collect();
                if !lines.is_empty() {
                    let k = which % lines.len();
                    if matches!(m, Mutation::DeleteLine { .. }) {
                        lines.remove(k);
                    } else {
                        lines.insert(k, lines[k]);
                    }
                }
                bytes = lines.concat().into_bytes();
            }
            Mutation::Insert { at, text } => {
                let at = at % (len + 1);
                bytes.splice(at..at, text.bytes());
            }
            Mutation::Byte { .. } => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn mutations_find_and_replace_numbers() {
    assert_eq!(numbers("a = 1.5e-3, b2 = -7"), [(4, 10), (17, 19)]);
    let m = [Mutation::Number {
        which: 1,
        with: "nan",
    }];
    assert_eq!(apply("a = 1.5e-3, b2 = -7", &m), "a = 1.5e-3, b2 = nan");
}
