//! Reader for the CCD benchmark query files of Wang et al. 2021 ("Sample-Queries") and Belgrod et
//! al. ("Sample-Scalable-CCD-Data"), see `data/ccd/handcrafted/README.md`.
//!
//! Owns: parsing of the 8-rows-per-query rational CSV format (6 columns, or 7 with the Boolean
//! ground truth), of the `mma_bool` JSON truth lists, and the query-kind guess from a path.
//! Does not own: the kernels (`toi`) or any timing/reporting (the CLI does that).
//!
//! Coordinates are rationals `num/den`. Every sample file has power-of-two denominators (up to
//! 2¹¹²) and numerators of at most 53 bits, so each value is converted to `f64` *exactly* as
//! `num · 2⁻ᵏ`. Any other rational is rounded to nearest-ish (`num as f64 / den as f64`) and
//! counted in [`QueryFile::inexact`], so callers can see when the kernels did not get the exact
//! input.

use crate::error::ParseError;
use crate::toi::{EdgeEdge, VertexFace, first_toi};
use std::path::{Path, PathBuf};

/// Vertex–face or edge–edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueryKind {
    /// Rows `v, f0, f1, f2` at `t0`, then at `t1`.
    VertexFace,
    /// Rows `ea0, ea1, eb0, eb1` at `t0`, then at `t1`.
    EdgeEdge,
}

impl QueryKind {
    /// Short name: `vf` or `ee`.
    pub fn short(self) -> &'static str {
        match self {
            QueryKind::VertexFace => "vf",
            QueryKind::EdgeEdge => "ee",
        }
    }
}

/// One query: four vertices at `t = 0` and `t = 1`, and the ground truth if the file has it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Query {
    /// Rows 1–4 of the query.
    pub start: [[f64; 3]; 4],
    /// Rows 5–8 of the query.
    pub end: [[f64; 3]; 4],
    /// Ground truth (7th column), if present.
    pub truth: Option<bool>,
}

impl Query {
    /// Conservative first time of impact with our kernel of the given kind.
    pub fn first_toi(&self, kind: QueryKind) -> Option<f64> {
        match kind {
            QueryKind::VertexFace => first_toi(&VertexFace {
                start: self.start,
                end: self.end,
            }),
            QueryKind::EdgeEdge => first_toi(&EdgeEdge {
                start: self.start,
                end: self.end,
            }),
        }
    }
}

/// A parsed query file.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryFile {
    /// The queries in file order.
    pub queries: Vec<Query>,
    /// Number of coordinates that could not be converted to `f64` exactly.
    pub inexact: usize,
}

/// Guess the query kind from a path: a `vertex-face` / `edge-edge` component, or `vf` / `ee` in
/// the file name (e.g. `3036vf.csv`). `None` if neither or both match.
pub fn kind_from_path(path: &Path) -> Option<QueryKind> {
    let s = path.to_string_lossy().to_ascii_lowercase();
    if s.contains("vertex-face") {
        return Some(QueryKind::VertexFace);
    }
    if s.contains("edge-edge") {
        return Some(QueryKind::EdgeEdge);
    }
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    match (name.contains("vf"), name.contains("ee")) {
        (true, false) => Some(QueryKind::VertexFace),
        (false, true) => Some(QueryKind::EdgeEdge),
        _ => None,
    }
}

/// Convert `num/den` (decimal strings) to `f64`; `Ok((value, exact))`.
fn rational(num: &str, den: &str) -> Result<(f64, bool), String> {
    let n: i128 = num
        .parse()
        .map_err(|_| format!("numerator {num:?} is not an integer (or exceeds 128 bits)"))?;
    let d: u128 = den.parse().map_err(|_| {
        format!("denominator {den:?} is not a positive integer (or exceeds 128 bits)")
    })?;
    if d == 0 {
        return Err("denominator is zero".into());
    }
    let mag = n.unsigned_abs();
    if d.is_power_of_two() && mag < (1u128 << 53) {
        let k = d.trailing_zeros() as i32;
        // 2^-k is a normal double for k ≤ 127; the product is exact barring underflow.
        let v = n as f64 * 2f64.powi(-k);
        return Ok((v, v * 2f64.powi(k) == n as f64));
    }
    Ok((n as f64 / d as f64, false))
}

/// Parse a whole query file (6 or 7 columns, 8 rows per query).
///
/// # Errors
/// [`ParseError`] with the 1-based line number and the reason: wrong column count, bad integer,
/// zero denominator, ground truth not 0/1 or inconsistent within a query, row count not a
/// multiple of 8, or an empty file.
pub fn parse_queries(text: &str) -> Result<QueryFile, ParseError> {
    let err = |line: usize, reason: String| ParseError { line, reason };
    let mut rows: Vec<([f64; 3], Option<bool>)> = Vec::new();
    let mut inexact = 0usize;
    let mut ncols: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let cols: Vec<&str> = raw.split(',').map(str::trim).collect();
        if cols.len() != 6 && cols.len() != 7 {
            return Err(err(
                line,
                format!("expected 6 or 7 columns, found {}", cols.len()),
            ));
        }
        match ncols {
            Some(c) if c != cols.len() => {
                return Err(err(
                    line,
                    format!("{} columns, but earlier rows have {c}", cols.len()),
                ));
            }
            _ => ncols = Some(cols.len()),
        }
        let mut p = [0.0; 3];
        for k in 0..3 {
            let (v, exact) = rational(cols[2 * k], cols[2 * k + 1])
                .map_err(|r| err(line, format!("coordinate {}: {r}", ["x", "y", "z"][k])))?;
            inexact += usize::from(!exact);
            p[k] = v;
        }
        let truth = match cols.get(6) {
            None => None,
            Some(&"0") => Some(false),
            Some(&"1") => Some(true),
            Some(t) => return Err(err(line, format!("ground truth {t:?} is not 0 or 1"))),
        };
        if !rows.len().is_multiple_of(8) && rows[rows.len() - rows.len() % 8].1 != truth {
            return Err(err(
                line,
                "ground truth differs from the query's first row".into(),
            ));
        }
        rows.push((p, truth));
    }
    if rows.is_empty() {
        return Err(err(0, "no queries in file".into()));
    }
    if !rows.len().is_multiple_of(8) {
        return Err(err(
            0,
            format!(
                "{} rows is not a multiple of 8 (8 rows per query)",
                rows.len()
            ),
        ));
    }
    let queries = rows
        .chunks_exact(8)
        .map(|q| Query {
            start: [q[0].0, q[1].0, q[2].0, q[3].0],
            end: [q[4].0, q[5].0, q[6].0, q[7].0],
            truth: q[0].1,
        })
        .collect();
    Ok(QueryFile { queries, inexact })
}

/// Parse a JSON array of Booleans (the `mma_bool` files), e.g. `[true,false]`. `0`/`1` are
/// accepted too.
///
/// # Errors
/// [`ParseError`] (line 0, or 1 for the offending item's 1-based index in `reason`) if the text
/// is not a flat array of Booleans.
pub fn parse_truth_json(text: &str) -> Result<Vec<bool>, ParseError> {
    let err = |reason: String| ParseError { line: 0, reason };
    let t = text.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| err("truth JSON must be an array `[...]`".into()))?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    inner
        .split(',')
        .enumerate()
        .map(|(i, item)| match item.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(err(format!("item {} is {other:?}, not a Boolean", i + 1))),
        })
        .collect()
}

/// All `*.csv` files under `dir` (recursively), sorted so that every consumer sees the
/// benchmark files in the same, deterministic order. Symbolic links are followed, but every
/// folder is listed once and every file counted once (by canonical path, keeping the
/// smallest path that reaches it), so a link loop or two links to one file do not count a
/// file twice.
pub fn csv_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut files: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut listed: BTreeSet<PathBuf> = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if !listed.insert(std::fs::canonicalize(&d)?) {
            continue;
        }
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "csv") {
                // A dangling link keeps its own path (reading it reports the error).
                let key = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
                let kept = files.entry(key).or_insert_with(|| p.clone());
                if p < *kept {
                    *kept = p;
                }
            }
        }
    }
    let mut out: Vec<PathBuf> = files.into_values().collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_counts_each_file_once() {
        let root = tempfile::Builder::new()
            .prefix("signorini-ccd-loop-")
            .tempdir()
            .unwrap();
        // Canonical: the listing holds canonical paths (the temp dir may be a symlink).
        let dir = root.path().canonicalize().unwrap();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/q_vf.csv"), "").unwrap();
        // a/loop → dir: a/loop/a/loop/… reaches a/q_vf.csv again and again.
        std::os::unix::fs::symlink(&dir, dir.join("a/loop")).unwrap();
        std::os::unix::fs::symlink(dir.join("a/q_vf.csv"), dir.join("link_vf.csv")).unwrap();
        let files = csv_files(&dir).unwrap();
        assert_eq!(files, [dir.join("a/q_vf.csv")], "{files:?}");
    }

    #[test]
    fn exact_rationals() {
        assert_eq!(rational("3", "4").unwrap(), (0.75, true));
        assert_eq!(rational("-1", "1").unwrap(), (-1.0, true));
        let big = (1u128 << 111).to_string();
        assert_eq!(rational("1", &big).unwrap(), (2f64.powi(-111), true));
        assert!(!rational("1", "3").unwrap().1);
        assert!(rational("1", "0").is_err());
        assert!(rational("x", "1").is_err());
    }

    #[test]
    fn parse_errors_name_the_line() {
        let e = parse_queries("1,1,1,1,1,1,0\n1,1,1,1,1\n").unwrap_err();
        assert_eq!(e.line, 2);
        let good = "0,1,0,1,0,1,1\n".repeat(8);
        let f = parse_queries(&good).unwrap();
        assert_eq!(f.queries.len(), 1);
        assert_eq!(f.queries[0].truth, Some(true));
        let e = parse_queries(&"0,1,0,1,0,1,1\n".repeat(7)).unwrap_err();
        assert!(e.reason.contains("multiple of 8"));
        let bad_truth = "0,1,0,1,0,1,1\n".repeat(7) + "0,1,0,1,0,1,0\n";
        assert_eq!(parse_queries(&bad_truth).unwrap_err().line, 8);
    }

    #[test]
    fn truth_json_and_kinds() {
        assert_eq!(
            parse_truth_json("[true, false,1]").unwrap(),
            vec![true, false, true]
        );
        assert!(parse_truth_json("[true, maybe]").is_err());
        assert_eq!(
            kind_from_path(Path::new("x/vertex-face/data_0_0.csv")),
            Some(QueryKind::VertexFace)
        );
        assert_eq!(
            kind_from_path(Path::new("q/3036ee.csv")),
            Some(QueryKind::EdgeEdge)
        );
        assert_eq!(kind_from_path(Path::new("q/data.csv")), None);
    }
}
