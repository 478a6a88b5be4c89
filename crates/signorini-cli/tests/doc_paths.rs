//! The README's crate map and ARCHITECTURE.md's "where does a change go" table name files by
//! path; a newcomer follows them, so every one must exist. Paths are the backticked
//! `crates/…` spans; `{a,b}` lists are expanded, and spans with a placeholder (`<name>`) or a
//! glob (`*`) are skipped.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every backticked `crates/…` path of a Markdown text, with `{a,b}` expanded.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 || !span.starts_with("crates/") || span.contains(char::is_whitespace) {
            continue;
        }
        if span.contains('<') || span.contains('*') {
            continue;
        }
        match (span.find('{'), span.find('}')) {
            (Some(a), Some(b)) if a < b => {
                for alt in span[a + 1..b].split(',') {
                    out.push(format!("{}{}{}", &span[..a], alt.trim(), &span[b + 1..]));
                }
            }
            _ => out.push(span.to_string()),
        }
    }
    out
}

#[test]
fn the_expansion_finds_lists_and_skips_placeholders() {
    let paths =
        named_paths("see `crates/x/src/{a,b}.rs`, `crates/<c>.rs`, `cargo run` and `crates/y.rs`");
    assert_eq!(
        paths,
        ["crates/x/src/a.rs", "crates/x/src/b.rs", "crates/y.rs"]
    );
}

#[test]
fn every_path_named_in_the_readme_and_architecture_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in ["README.md", "ARCHITECTURE.md"] {
        let text = std::fs::read_to_string(root().join(doc)).expect("read the document");
        for p in named_paths(&text) {
            checked += 1;
            if !root().join(&p).exists() {
                missing.push(format!("{doc}: {p}"));
            }
        }
    }
    assert!(
        checked > 30,
        "only {checked} paths found: is the parser still right?"
    );
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}
