//! A small reader for Mathematica's WXF binary format and a numeric evaluator for the root
//! expressions of the Belgrod et al. data set (`roots/*.tar.gz`), plus a minimal tar reader.
//!
//! Supported: functions (`f`), symbols (`s`), strings (`S`), integers (`C`, `j`, `i`, `L`),
//! big integers (`I`), reals (`r`), big reals (`R`). Evaluation supports `Plus`, `Times`,
//! `Power`, `Rational`, `Root[Function[poly], k, 0]` (k-th real root, ascending, as Mathematica
//! orders real roots first), in complex `f64` arithmetic with principal-branch powers.

use std::io::Read;

/// A WXF expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// `head[args…]`.
    Func(Box<Expr>, Vec<Expr>),
    /// A symbol name.
    Sym(String),
    /// A string.
    Str(String),
    /// An integer (machine or big, as f64).
    Num(f64),
}

fn varint(b: &[u8], i: &mut usize) -> Result<usize, String> {
    let (mut r, mut s) = (0usize, 0u32);
    loop {
        let c = *b.get(*i).ok_or("truncated varint")?;
        *i += 1;
        r |= ((c & 127) as usize) << s;
        s += 7;
        if c < 128 {
            return Ok(r);
        }
        if s > 63 {
            return Err("varint too long".into());
        }
    }
}

fn take<'a>(b: &'a [u8], i: &mut usize, n: usize) -> Result<&'a [u8], String> {
    let s = b.get(*i..*i + n).ok_or("truncated")?;
    *i += n;
    Ok(s)
}

fn parse_at(b: &[u8], i: &mut usize, depth: u32) -> Result<Expr, String> {
    if depth > 10_000 {
        return Err("too deep".into());
    }
    let tag = *b.get(*i).ok_or("truncated")?;
    *i += 1;
    Ok(match tag {
        b'f' => {
            let n = varint(b, i)?;
            let head = parse_at(b, i, depth + 1)?;
            let args = (0..n)
                .map(|_| parse_at(b, i, depth + 1))
                .collect::<Result<_, _>>()?;
            Expr::Func(Box::new(head), args)
        }
        b's' | b'S' | b'I' | b'R' => {
            let n = varint(b, i)?;
            let s = String::from_utf8(take(b, i, n)?.to_vec()).map_err(|e| e.to_string())?;
            match tag {
                b's' => Expr::Sym(s),
                b'S' => Expr::Str(s),
                _ => Expr::Num(
                    s.split('`')
                        .next()
                        .unwrap_or("")
                        .parse()
                        .map_err(|_| format!("bad number {s}"))?,
                ),
            }
        }
        b'C' => Expr::Num(take(b, i, 1)?[0] as i8 as f64),
        b'j' => Expr::Num(i16::from_le_bytes(take(b, i, 2)?.try_into().unwrap()) as f64),
        b'i' => Expr::Num(i32::from_le_bytes(take(b, i, 4)?.try_into().unwrap()) as f64),
        b'L' => Expr::Num(i64::from_le_bytes(take(b, i, 8)?.try_into().unwrap()) as f64),
        b'r' => Expr::Num(f64::from_le_bytes(take(b, i, 8)?.try_into().unwrap())),
        t => return Err(format!("unsupported WXF token {:?}", t as char)),
    })
}

/// Parse a whole WXF file (`8:` header, uncompressed).
pub fn parse(b: &[u8]) -> Result<Expr, String> {
    if !b.starts_with(b"8:") {
        return Err("not an uncompressed WXF file".into());
    }
    let mut i = 2;
    parse_at(b, &mut i, 0)
}

/// Files `(name, bytes)` of a `.tar.gz` archive.
pub fn read_tar_gz(path: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let mut out = Vec::new();
    let mut off = 0;
    while off + 512 <= raw.len() {
        let h = &raw[off..off + 512];
        if h.iter().all(|&x| x == 0) {
            break;
        }
        let name = String::from_utf8_lossy(&h[..100])
            .trim_end_matches('\0')
            .to_string();
        let size_txt = String::from_utf8_lossy(&h[124..136]);
        let size = usize::from_str_radix(size_txt.trim_matches(|c: char| c == '\0' || c == ' '), 8)
            .unwrap();
        let data = raw[off + 512..off + 512 + size].to_vec();
        if h[156] == b'0' || h[156] == 0 {
            out.push((name, data));
        }
        off += 512 + size.div_ceil(512) * 512;
    }
    out
}

/// A complex number (just enough for the root expressions).
#[derive(Clone, Copy, Debug)]
pub struct C(pub f64, pub f64);

impl C {
    fn add(self, o: C) -> C {
        C(self.0 + o.0, self.1 + o.1)
    }
    fn mul(self, o: C) -> C {
        C(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
    fn powc(self, e: C) -> C {
        if e.1 == 0.0 && e.0.fract() == 0.0 && e.0.abs() < 64.0 {
            let mut r = C(1.0, 0.0);
            for _ in 0..e.0.abs() as u32 {
                r = r.mul(self);
            }
            if e.0 < 0.0 {
                let d = r.0 * r.0 + r.1 * r.1;
                r = C(r.0 / d, -r.1 / d);
            }
            return r;
        }
        // Principal branch: exp(e · log(self)).
        let (m, a) = (
            (self.0 * self.0 + self.1 * self.1).sqrt(),
            self.1.atan2(self.0),
        );
        let (lr, li) = (m.ln(), a);
        let (xr, xi) = (e.0 * lr - e.1 * li, e.0 * li + e.1 * lr);
        let em = xr.exp();
        C(em * xi.cos(), em * xi.sin())
    }
}

fn head(e: &Expr) -> Option<&str> {
    match e {
        Expr::Func(h, _) => match h.as_ref() {
            Expr::Sym(s) => Some(s.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// Polynomial in `Slot[1]` as coefficients (ascending powers).
fn poly(e: &Expr) -> Result<Vec<f64>, String> {
    let mulp = |a: &[f64], b: &[f64]| {
        let mut r = vec![0.0; a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                r[i + j] += x * y;
            }
        }
        r
    };
    match e {
        Expr::Num(x) => Ok(vec![*x]),
        Expr::Func(_, args) => match head(e) {
            Some("Slot") => Ok(vec![0.0, 1.0]),
            Some("Plus") => {
                let mut r = vec![0.0];
                for a in args {
                    let p = poly(a)?;
                    if p.len() > r.len() {
                        r.resize(p.len(), 0.0);
                    }
                    for (i, x) in p.iter().enumerate() {
                        r[i] += x;
                    }
                }
                Ok(r)
            }
            Some("Times") => args
                .iter()
                .try_fold(vec![1.0], |acc, a| Ok(mulp(&acc, &poly(a)?))),
            Some("Power") => {
                let base = poly(&args[0])?;
                let Expr::Num(n) = args[1] else {
                    return Err("non-integer power in polynomial".into());
                };
                (0..n as usize).try_fold(vec![1.0], |acc, _| Ok(mulp(&acc, &base)))
            }
            Some("Rational") => Ok(vec![num(&args[0])? / num(&args[1])?]),
            h => Err(format!("unsupported polynomial head {h:?}")),
        },
        _ => Err("unsupported polynomial atom".into()),
    }
}

fn num(e: &Expr) -> Result<f64, String> {
    match e {
        Expr::Num(x) => Ok(*x),
        _ => Err("expected a number".into()),
    }
}

/// Real roots of a polynomial, ascending (recursive isolation between critical points).
pub fn real_roots(p: &[f64]) -> Vec<f64> {
    let mut p = p.to_vec();
    while p.len() > 1 && *p.last().unwrap() == 0.0 {
        p.pop();
    }
    let n = p.len() - 1;
    if n == 0 {
        return Vec::new();
    }
    let lead = p[n];
    let bound = 1.0 + p[..n].iter().map(|c| (c / lead).abs()).fold(0.0, f64::max);
    let ev = |x: f64| p.iter().rev().fold(0.0, |a, c| a * x + c);
    let dp: Vec<f64> = (1..=n).map(|i| p[i] * i as f64).collect();
    let mut pts = vec![-bound];
    pts.extend(real_roots(&dp).into_iter().filter(|x| x.abs() < bound));
    pts.push(bound);
    let mut out = Vec::new();
    for w in pts.windows(2) {
        let (mut a, mut b) = (w[0], w[1]);
        let (fa, fb) = (ev(a), ev(b));
        if fa == 0.0 {
            out.push(a);
            continue;
        }
        if fa.signum() == fb.signum() {
            continue;
        }
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if m <= a || m >= b {
                break;
            }
            if ev(m).signum() == fa.signum() {
                a = m;
            } else {
                b = m;
            }
        }
        out.push(0.5 * (a + b));
    }
    out.dedup_by(|x, y| (*x - *y).abs() <= 1e-15 * x.abs().max(1.0));
    out
}

/// Numeric value of an expression.
pub fn eval(e: &Expr) -> Result<C, String> {
    match e {
        Expr::Num(x) => Ok(C(*x, 0.0)),
        Expr::Func(_, args) => match head(e) {
            Some("Plus") => args
                .iter()
                .try_fold(C(0.0, 0.0), |a, x| Ok(a.add(eval(x)?))),
            Some("Times") => args
                .iter()
                .try_fold(C(1.0, 0.0), |a, x| Ok(a.mul(eval(x)?))),
            Some("Power") => Ok(eval(&args[0])?.powc(eval(&args[1])?)),
            Some("Rational") => Ok(C(num(&args[0])? / num(&args[1])?, 0.0)),
            Some("Complex") => Ok(C(num(&args[0])?, num(&args[1])?)),
            Some("Root") => {
                let body = match &args[0] {
                    Expr::Func(_, b) if head(&args[0]) == Some("Function") => &b[0],
                    _ => return Err("Root without Function".into()),
                };
                let k = num(&args[1])? as usize;
                let roots = real_roots(&poly(body)?);
                roots
                    .get(k - 1)
                    .map(|&r| C(r, 0.0))
                    .ok_or_else(|| "complex Root".to_string())
            }
            h => Err(format!("unsupported head {h:?}")),
        },
        _ => Err("unsupported atom".into()),
    }
}

/// The `t` values of all solutions in a roots file: `List[List[Rule[t, …], …], …]`.
pub fn times(e: &Expr) -> Result<Vec<f64>, String> {
    let Expr::Func(_, sols) = e else {
        return Err("not a list".into());
    };
    let mut out = Vec::new();
    for s in sols {
        let Expr::Func(_, rules) = s else {
            return Err("solution not a list".into());
        };
        for r in rules {
            if let Expr::Func(_, kv) = r
                && matches!(&kv[0], Expr::Sym(n) | Expr::Str(n) if n == "t")
            {
                let v = eval(&kv[1])?;
                if v.1.abs() > 1e-9 * v.0.abs().max(1.0) {
                    return Err(format!("t has imaginary part {v:?}"));
                }
                out.push(v.0);
            }
        }
    }
    Ok(out)
}
