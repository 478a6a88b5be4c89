//! Readers and a writer for the Siconos numerics text formats (LCP, MLCP, Relay `.dat`).
//!
//! Owns: [`read_lcp`], [`read_mlcp`], [`read_relay`], [`read_problem`], [`detect_kind`],
//! [`write_lcp`] and [`ParseError`]. Does not own: solving, or fclib HDF5 files.
//!
//! Format reference: `data/lcp/README.md`. Pitfall: dense matrices are stored
//! **column-major** (the writer breaks lines after every `size1` values, so the file looks
//! row-major but each printed "row" is a column of M). Sparse-block (SBM, storage type 1)
//! matrices are read too; storage type 2 (CSC/triplet) is rejected with a clear error.
//! After the last number an LCP or Relay file needs, a free comment may follow (text whose
//! first word is not a number, as in several Siconos files); a *number* there is an error
//! (trailing data: the header disagrees with the data, e.g. `n = 2` over 3 × 3 data, which
//! would otherwise be read as a different problem). MLCP files keep their trailing
//! low-precision "solutions" (numbers), which are ignored. The kind of a file is told from
//! its content ([`detect_kind`]), never from its name or folder.

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;
use std::fmt::Write as _;

use crate::{Lcp, Mcp};

/// Largest accepted problem dimension (a dense matrix of this size is 200 MB).
const MAX_DIM: usize = 5000;

/// Why a file could not be read: the 1-based line and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    /// 1-based line number where the problem was found (the last line for a truncated file).
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

/// The three Siconos problem kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProblemKind {
    /// `LinearComplementarityProblem` (`lcp_*.dat`).
    Lcp,
    /// `MixedLinearComplementarityProblem` (`*_mlcp.dat`): first n variables free.
    Mlcp,
    /// `RelayProblem`: box-constrained LCP with bounds lb, ub.
    Relay,
}

/// Whitespace tokens with their line numbers.
struct Tokens<'a> {
    toks: Vec<(usize, &'a str)>,
    pos: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        let toks: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)))
            .collect();
        let last_line = text.lines().count().max(1);
        Tokens {
            toks,
            pos: 0,
            last_line,
        }
    }

    fn line(&self) -> usize {
        self.toks.get(self.pos).map_or(self.last_line, |t| t.0)
    }

    fn err<T>(&self, line: usize, reason: String) -> Result<T, ParseError> {
        Err(ParseError { line, reason })
    }

    fn next(&mut self, what: &str) -> Result<(usize, &'a str), ParseError> {
        match self.toks.get(self.pos) {
            Some(&t) => {
                self.pos += 1;
                Ok(t)
            }
            None => self.err(
                self.last_line,
                format!("unexpected end of file while reading {what}"),
            ),
        }
    }

    fn usize(&mut self, what: &str) -> Result<usize, ParseError> {
        let (line, t) = self.next(what)?;
        t.parse::<usize>().or_else(|e| {
            self.err(
                line,
                format!("expected {what} (a non-negative integer), found '{t}' ({e})"),
            )
        })
    }

    fn dim(&mut self, what: &str) -> Result<usize, ParseError> {
        let line = self.line();
        let n = self.usize(what)?;
        if n > MAX_DIM {
            return self.err(
                line,
                format!("{what} = {n} exceeds the supported maximum {MAX_DIM}"),
            );
        }
        Ok(n)
    }

    fn real(&mut self, what: &str) -> Result<Real, ParseError> {
        let (line, t) = self.next(what)?;
        match t.parse::<Real>() {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(x) => self.err(line, format!("non-finite value {x} in {what}")),
            Err(_) => self.err(line, format!("expected a number in {what}, found '{t}'")),
        }
    }

    /// The end of an LCP or Relay file: nothing, or a comment whose first word is not a
    /// number.
    fn finish(&self, what: &str) -> Result<(), ParseError> {
        match self.toks.get(self.pos) {
            Some(&(line, t)) if t.parse::<Real>().is_ok() => self.err(
                line,
                format!(
                    "trailing data '{t}' after the {what}: the header disagrees with the data \
                     (or the file holds more than one problem)"
                ),
            ),
            _ => Ok(()),
        }
    }

    /// A real that may be ±inf (bounds).
    fn bound(&mut self, what: &str) -> Result<Real, ParseError> {
        let (line, t) = self.next(what)?;
        match t.parse::<Real>() {
            Ok(x) if !x.is_nan() => Ok(x),
            _ => self.err(line, format!("expected a number in {what}, found '{t}'")),
        }
    }

    fn vector(&mut self, n: usize, what: &str) -> Result<DVector<Real>, ParseError> {
        let v = (0..n)
            .map(|i| self.real(&format!("{what}[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DVector::from_vec(v))
    }

    /// A `NumericsMatrix`: storage type, sizes, then dense or SBM data.
    fn numerics_matrix(&mut self) -> Result<(usize, DMatrix<Real>), ParseError> {
        let line = self.line();
        let storage = self.usize("matrix storage type")?;
        let rows = self.dim("matrix rows")?;
        let cols = self.dim("matrix columns")?;
        let m = match storage {
            0 => self.dense(rows, cols)?,
            1 => self.sparse_block(rows, cols)?,
            2 => {
                return self.err(
                    line,
                    "matrix storage type 2 (sparse CSC/triplet) is not supported".into(),
                );
            }
            s => {
                return self.err(
                    line,
                    format!("unknown matrix storage type {s} (expected 0 dense or 1 sparse-block)"),
                );
            }
        };
        Ok((line, m))
    }

    /// Dense storage: sizes repeated, then values column-major.
    fn dense(&mut self, rows: usize, cols: usize) -> Result<DMatrix<Real>, ParseError> {
        let line = self.line();
        let (r2, c2) = (
            self.usize("repeated matrix rows")?,
            self.usize("repeated matrix columns")?,
        );
        if (r2, c2) != (rows, cols) {
            return self.err(
                line,
                format!("repeated matrix size {r2}×{c2} differs from {rows}×{cols}"),
            );
        }
        let v = (0..rows * cols)
            .map(|k| self.real(&format!("M({}, {})", k % rows.max(1), k / rows.max(1))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DMatrix::from_vec(rows, cols, v))
    }

    /// Sparse-block storage (SBM), layout in `data/lcp/README.md`.
    fn sparse_block(&mut self, rows: usize, cols: usize) -> Result<DMatrix<Real>, ParseError> {
        let nblocks = self.dim("number of blocks")?;
        let nbr = self.dim("number of block rows")?;
        let nbc = self.dim("number of block columns")?;
        let row_ends = self.cumulative(nbr, rows, "block row size")?;
        let col_ends = self.cumulative(nbc, cols, "block column size")?;
        let filled1 = self.dim("filled1")?;
        let filled2 = self.dim("filled2")?;
        if filled1 != nbr + 1 || filled2 != nblocks {
            let line = self.line();
            return self.err(line, format!("filled1 = {filled1}, filled2 = {filled2} inconsistent with {nbr} block rows and {nblocks} blocks"));
        }
        let row_ptr = (0..filled1)
            .map(|_| self.usize("block row pointer"))
            .collect::<Result<Vec<_>, _>>()?;
        let col_idx = (0..filled2)
            .map(|_| self.usize("block column index"))
            .collect::<Result<Vec<_>, _>>()?;
        let mut m = DMatrix::zeros(rows, cols);
        for br in 0..nbr {
            let (lo, hi) = (row_ptr[br], row_ptr[br + 1]);
            if lo > hi || hi > nblocks {
                let line = self.line();
                return self.err(line, format!("block row pointer {lo}..{hi} out of range"));
            }
            for (k, &bc) in col_idx.iter().enumerate().take(hi).skip(lo) {
                let line = self.line();
                let _number = self.usize("block number")?;
                if bc >= nbc {
                    return self.err(line, format!("block {k} has column index {bc} ≥ {nbc}"));
                }
                let r0 = if br == 0 { 0 } else { row_ends[br - 1] };
                let c0 = if bc == 0 { 0 } else { col_ends[bc - 1] };
                let (nr, nc) = (row_ends[br] - r0, col_ends[bc] - c0);
                for c in 0..nc {
                    for r in 0..nr {
                        m[(r0 + r, c0 + c)] = self.real(&format!("block {k} entry ({r}, {c})"))?;
                    }
                }
            }
        }
        Ok(m)
    }

    /// Cumulative block sizes: increasing, last one = total.
    fn cumulative(
        &mut self,
        count: usize,
        total: usize,
        what: &str,
    ) -> Result<Vec<usize>, ParseError> {
        let line = self.line();
        let v = (0..count)
            .map(|_| self.usize(what))
            .collect::<Result<Vec<_>, _>>()?;
        let increasing = v.windows(2).all(|w| w[0] < w[1]) && v.first().is_none_or(|&x| x > 0);
        if !increasing || v.last().copied().unwrap_or(0) != total {
            return self.err(
                line,
                format!("cumulative {what}s {v:?} must increase to {total}"),
            );
        }
        Ok(v)
    }
}

fn check_square(line: usize, m: &DMatrix<Real>, n: usize) -> Result<(), ParseError> {
    if m.nrows() != n || m.ncols() != n {
        return Err(ParseError {
            line,
            reason: format!(
                "matrix M is {}×{}, expected square {n}×{n}",
                m.nrows(),
                m.ncols()
            ),
        });
    }
    Ok(())
}

/// Read an LCP file: `n`, `<NumericsMatrix M>`, `q`.
pub fn read_lcp(text: &str) -> Result<Lcp, ParseError> {
    let mut t = Tokens::new(text);
    let n = t.dim("LCP size n")?;
    let (line, m) = t.numerics_matrix()?;
    check_square(line, &m, n)?;
    let q = t.vector(n, "q")?;
    t.finish(&format!("LCP of size n = {n} (matrix M and vector q)"))?;
    Ok(Lcp { m, q })
}

/// Read an MLCP file as a box MCP whose first n variables are free (module docs).
/// Returns the MCP and the number of free variables.
pub fn read_mlcp(text: &str) -> Result<(Mcp, usize), ParseError> {
    let mut t = Tokens::new(text);
    let line0 = t.line();
    let has_m = t.usize("isStorageType1")?;
    let has_blocks = t.usize("isStorageType2")?;
    if has_m > 1 || has_blocks > 1 || has_m + has_blocks == 0 {
        return t.err(
            line0,
            format!("storage flags {has_m} {has_blocks}: expected 0/1 each, at least one 1"),
        );
    }
    let n = t.dim("number of free variables n")?;
    let mm = t.dim("number of complementarity pairs m")?;
    let size = n + mm;
    // blocksRows: integers up to n + m; then one blocksIsComp flag per block.
    let mut nrows_blocks = 0;
    loop {
        let line = t.line();
        let b = t.usize("blocksRows entry")?;
        nrows_blocks += 1;
        if b == size {
            break;
        }
        if b > size || nrows_blocks > size + 2 {
            return t.err(
                line,
                format!("blocksRows entry {b} never reaches n + m = {size}"),
            );
        }
    }
    for _ in 1..nrows_blocks {
        t.usize("blocksIsComp flag")?;
    }
    let mut mq = None;
    if has_m == 1 {
        let (line, m) = t.numerics_matrix()?;
        check_square(line, &m, size)?;
        let q = t.vector(size, "q")?;
        mq = Some((m, q));
    }
    if has_blocks == 1 {
        let blocks = read_mlcp_blocks(&mut t, n, mm)?;
        mq.get_or_insert(blocks);
    }
    let (m, q) = mq.ok_or_else(|| ParseError {
        line: t.line(),
        reason: "neither a matrix nor blocks given (hasM = 0, hasBlocks = 0)".into(),
    })?;
    let mcp = Mcp::mixed(m, q, n).map_err(|e| ParseError {
        line: t.line(),
        reason: e.to_string(),
    })?;
    Ok((mcp, n))
}

/// The A, B, C, D, a, b blocks (row by row), assembled as M = [[A, C], [D, B]], q = [a; b].
fn read_mlcp_blocks(
    t: &mut Tokens,
    n: usize,
    m: usize,
) -> Result<(DMatrix<Real>, DVector<Real>), ParseError> {
    let mut big = DMatrix::zeros(n + m, n + m);
    // (rows, cols, row offset, col offset, name) in file order A, B, C, D.
    for (r, c, r0, c0, name) in [
        (n, n, 0, 0, "A"),
        (m, m, n, n, "B"),
        (n, m, 0, n, "C"),
        (m, n, n, 0, "D"),
    ] {
        for i in 0..r {
            for j in 0..c {
                big[(r0 + i, c0 + j)] = t.real(&format!("{name}({i}, {j})"))?;
            }
        }
    }
    let a = t.vector(n, "a")?;
    let b = t.vector(m, "b")?;
    let q = DVector::from_iterator(n + m, a.iter().chain(b.iter()).copied());
    Ok((big, q))
}

/// Read a Relay file: `n`, `<NumericsMatrix M>`, `q`, `lb`, `ub` (a box MCP).
pub fn read_relay(text: &str) -> Result<Mcp, ParseError> {
    let mut t = Tokens::new(text);
    let n = t.dim("Relay size n")?;
    let (line, m) = t.numerics_matrix()?;
    check_square(line, &m, n)?;
    let q = t.vector(n, "q")?;
    let lb = (0..n)
        .map(|i| t.bound(&format!("lb[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let ub = (0..n)
        .map(|i| t.bound(&format!("ub[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    t.finish(&format!("Relay problem of size n = {n} (M, q, lb, ub)"))?;
    Mcp::new(m, q, DVector::from_vec(lb), DVector::from_vec(ub)).map_err(|e| ParseError {
        line: t.line(),
        reason: e.to_string(),
    })
}

/// The kind of a problem file, from its content alone (its name and folder are not looked
/// at): an MLCP starts with two 0/1 storage flags and its fifth token is the first
/// `blocksRows` entry, 0; otherwise the file is a Relay problem if it reads as one exactly
/// (n, M, q, lb, ub, then nothing or a comment) and not as an LCP, else an LCP (whose reader
/// then names what is wrong).
pub fn detect_kind(text: &str) -> ProblemKind {
    let toks: Vec<&str> = text.split_whitespace().take(5).collect();
    let flag = |t: &str| t == "0" || t == "1";
    if toks.len() == 5 && toks[4] == "0" && flag(toks[0]) && flag(toks[1]) {
        return ProblemKind::Mlcp;
    }
    match (read_lcp(text).is_ok(), read_relay(text).is_ok()) {
        (false, true) => ProblemKind::Relay,
        _ => ProblemKind::Lcp,
    }
}

/// Read any of the three kinds, returning the problem as a box MCP.
pub fn read_problem(kind: ProblemKind, text: &str) -> Result<Mcp, ParseError> {
    match kind {
        ProblemKind::Lcp => read_lcp(text).and_then(|l| {
            Lcp::new(l.m, l.q)
                .map(|l| l.to_mcp())
                .map_err(|e| ParseError {
                    line: 1,
                    reason: e.to_string(),
                })
        }),
        ProblemKind::Mlcp => read_mlcp(text).map(|(m, _)| m),
        ProblemKind::Relay => read_relay(text),
    }
}

/// Write an LCP in the Siconos dense format (column-major values, one column per line).
pub fn write_lcp(lcp: &Lcp) -> String {
    let n = lcp.dim();
    let mut s = String::new();
    let _ = writeln!(s, "{n}\n0\n{n}\n{n}\n{n}\t{n}");
    for j in 0..n {
        let col: Vec<String> = (0..n).map(|i| format!("{:e}", lcp.m[(i, j)])).collect();
        let _ = writeln!(s, "{}", col.join(" "));
    }
    let q: Vec<String> = lcp.q.iter().map(|x| format!("{x:e}")).collect();
    let _ = writeln!(s, "{}", q.join(" "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_matrices_are_read_column_major() {
        // CPS_4: the printed "rows" are columns; M(0, 3) = −1 (the −Aᵀ block), M(3, 0) = 1.
        let text = "4\n0\n4\n4\n4\t4\n11 0 10 1\n0 11 10 1\n10 10 21 1\n-1 -1 -1 0\n50 50 10 -6\n";
        let lcp = read_lcp(text).unwrap();
        assert_eq!(lcp.m[(0, 3)], -1.0);
        assert_eq!(lcp.m[(3, 0)], 1.0);
        assert_eq!(lcp.q[2], 10.0);
    }

    #[test]
    fn writer_round_trips() {
        let lcp = Lcp::new(
            DMatrix::from_row_slice(2, 2, &[1.0, 2.5, -3.0, 4.0]),
            DVector::from_column_slice(&[0.1, -7.0]),
        )
        .unwrap();
        assert_eq!(read_lcp(&write_lcp(&lcp)).unwrap(), lcp);
    }

    #[test]
    fn errors_carry_line_and_reason() {
        let e = read_lcp("2\n0\n2\n2\n2 2\n1 0\n0 x\n1 1\n").unwrap_err();
        assert_eq!(e.line, 7);
        assert!(e.reason.contains("'x'"), "{e}");
        let e = read_lcp("2\n0\n2\n2\n2 2\n1 0\n").unwrap_err();
        assert!(e.reason.contains("end of file"), "{e}");
        let e = read_lcp("3\n0\n2\n2\n2 2\n1 0 0 1\n1 1\n").unwrap_err();
        assert!(e.reason.contains("expected square"), "{e}");
    }

    #[test]
    fn trailing_numbers_are_an_error_and_a_comment_is_not() {
        // The header says n = 2; the data is 3 × 3 (as in issue #20): not solved as a 2 × 2
        // problem made of the first numbers.
        let text = "2\n0\n2\n2\n2 2\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n";
        let e = read_lcp(text).unwrap_err();
        assert!(e.reason.contains("trailing data"), "{e}");
        assert_eq!(e.line, 8, "{e}");
        assert!(read_relay(text).is_err());
        assert_eq!(detect_kind(text), ProblemKind::Lcp);
        assert!(read_problem(detect_kind(text), text).is_err());
        // A comment after the data is fine.
        let ok = "2\n0\n2\n2\n2 2\n1 0\n0 1\n-1 -1\nExample 4.4.7 CPS 2009\n";
        assert!(read_lcp(ok).is_ok());
        assert_eq!(detect_kind(ok), ProblemKind::Lcp);
        // The same data with 2n more numbers is a Relay problem, by content.
        let relay = "2\n0\n2\n2\n2 2\n1 0\n0 1\n-1 -1\n-1 -1\n1 1\n";
        assert_eq!(detect_kind(relay), ProblemKind::Relay);
        assert!(read_lcp(relay).is_err());
    }
}
