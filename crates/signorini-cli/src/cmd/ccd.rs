//! `signorini ccd …`: run the CCD kernels on benchmark query files (issue #5).
//!
//! `signorini ccd check PATH [--kind vf|ee] [--truth FILE.json] [--format text|json]`: PATH is a
//! query CSV (Wang et al. 2021 / Belgrod et al. format) or a directory searched recursively for
//! `*.csv` (results summed over its files). Exit 0 if there is no false negative, 1 if there is,
//! 2 on bad input.

use crate::exit::{BadInput, Outcome};
use anyhow::{Context, anyhow, bail};
use clap::{Subcommand, ValueEnum};
use signorini_ccd::benchmark::{Query, QueryKind, kind_from_path, parse_queries, parse_truth_json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `signorini ccd` subcommands.
#[derive(Subcommand, Debug)]
pub enum CcdCommand {
    /// Check benchmark queries against their ground truth: counts, false negatives/positives
    /// and the mean kernel time per query.
    Check {
        /// A query CSV file, or a directory searched recursively for `*.csv`.
        path: PathBuf,
        /// Query kind; default: from the path (`vertex-face`/`edge-edge`, or `vf`/`ee` in the
        /// file name).
        #[arg(long, value_enum)]
        kind: Option<KindArg>,
        /// JSON list of Booleans with the ground truth; default: the file's 7th column, or
        /// `../mma_bool/<stem>_mma_bool.json` next to a 6-column file.
        #[arg(long)]
        truth: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// Query kind on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum KindArg {
    /// Vertex–face.
    Vf,
    /// Edge–edge.
    Ee,
}

/// Output format.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object.
    Json,
}

/// Counts over one or more files.
#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    queries: usize,
    positives: usize,
    false_negatives: usize,
    false_positives: usize,
    nanos: u128,
}

/// Run a `ccd` subcommand.
pub fn run(cmd: CcdCommand) -> Result<Outcome, BadInput> {
    match cmd {
        CcdCommand::Check {
            path,
            kind,
            truth,
            format,
        } => check(&path, kind, truth.as_deref(), format),
    }
}

fn check(
    path: &Path,
    kind: Option<KindArg>,
    truth: Option<&Path>,
    format: Format,
) -> Result<Outcome, BadInput> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(anyhow!("{}: no such file or folder", path.display()).into());
        }
        Err(e) => return Err(anyhow!("{}: {e}", path.display()).into()),
        Ok(_) => {}
    }
    let files = if path.is_dir() {
        // In a directory, `--kind` selects the files of that kind (by path) plus those whose
        // kind the path does not tell.
        let wanted = kind.map(query_kind);
        let f: Vec<PathBuf> = csv_files(path)?
            .into_iter()
            .filter(|f| wanted.is_none() || kind_from_path(f).is_none_or(|k| Some(k) == wanted))
            .collect();
        if f.is_empty() {
            return Err(anyhow!("{}: no *.csv files found", path.display()).into());
        }
        if truth.is_some() && f.len() > 1 {
            return Err(anyhow!("--truth needs a single query file, not a directory").into());
        }
        f
    } else {
        vec![path.to_path_buf()]
    };
    let mut total = Tally::default();
    for file in &files {
        let t = check_file(file, kind, truth)?;
        if format == Format::Text && files.len() > 1 {
            print_text(&file.display().to_string(), &t);
        }
        total.queries += t.queries;
        total.positives += t.positives;
        total.false_negatives += t.false_negatives;
        total.false_positives += t.false_positives;
        total.nanos += t.nanos;
    }
    match format {
        Format::Text => print_text(&format!("total ({} file(s))", files.len()), &total),
        Format::Json => outln!(
            "{}",
            serde_json::json!({
                "queries": total.queries,
                "positives": total.positives,
                "false_negatives": total.false_negatives,
                "false_positives": total.false_positives,
                "ns_per_query": ns_per_query(&total),
            })
        ),
    }
    Ok(if total.false_negatives == 0 {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

fn ns_per_query(t: &Tally) -> f64 {
    t.nanos as f64 / t.queries.max(1) as f64
}

fn print_text(label: &str, t: &Tally) {
    outln!(
        "{label}: {} queries, {} positive, {} false negatives, {} false positives, {:.1} ns/query",
        t.queries,
        t.positives,
        t.false_negatives,
        t.false_positives,
        ns_per_query(t)
    );
}

fn query_kind(k: KindArg) -> QueryKind {
    match k {
        KindArg::Vf => QueryKind::VertexFace,
        KindArg::Ee => QueryKind::EdgeEdge,
    }
}

/// Parse one file, find its truth, run and time the kernel over all its queries.
fn check_file(path: &Path, kind: Option<KindArg>, truth: Option<&Path>) -> anyhow::Result<Tally> {
    let kind = match kind {
        Some(k) => query_kind(k),
        None => kind_from_path(path).with_context(|| {
            format!(
                "{}: cannot tell vf from ee by the path; pass --kind",
                path.display()
            )
        })?,
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file = parse_queries(&text).with_context(|| path.display().to_string())?;
    let truth = load_truth(path, &file.queries, truth)?;
    let start = Instant::now();
    let results: Vec<bool> = file
        .queries
        .iter()
        .map(|q| q.first_toi(kind).is_some())
        .collect();
    let nanos = start.elapsed().as_nanos();
    let mut t = Tally {
        queries: file.queries.len(),
        nanos,
        ..Tally::default()
    };
    for (&ours, &truth) in results.iter().zip(&truth) {
        t.positives += usize::from(truth);
        t.false_negatives += usize::from(truth && !ours);
        t.false_positives += usize::from(!truth && ours);
    }
    Ok(t)
}

/// The ground truth: `--truth` JSON, else the 7th column, else the `mma_bool` file beside.
fn load_truth(path: &Path, queries: &[Query], truth: Option<&Path>) -> anyhow::Result<Vec<bool>> {
    let json = match truth {
        Some(t) => Some(t.to_path_buf()),
        None if queries[0].truth.is_some() => None,
        None => {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let parent = path.parent().unwrap_or(Path::new("."));
            Some(parent.join(format!("../mma_bool/{stem}_mma_bool.json")))
        }
    };
    let list = match json {
        None => queries.iter().map(|q| q.truth.unwrap_or(false)).collect(),
        Some(j) => {
            let text = std::fs::read_to_string(&j).with_context(|| {
                format!(
                    "reading ground truth {} (pass --truth FILE.json)",
                    j.display()
                )
            })?;
            parse_truth_json(&text).with_context(|| j.display().to_string())?
        }
    };
    if list.len() != queries.len() {
        bail!(
            "{}: {} queries but the ground truth has {} entries",
            path.display(),
            queries.len(),
            list.len()
        );
    }
    Ok(list)
}

/// All `*.csv` files under `dir`, sorted (deterministic order), each file once however many
/// links lead to it.
fn csv_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    signorini_ccd::benchmark::csv_files(dir).with_context(|| format!("listing {}", dir.display()))
}
