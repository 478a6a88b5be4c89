//! Floating-point filter for the inside functions on a narrow time interval.
//!
//! Owns: the fast, certified-by-bound evaluation of the inside functions `g` of `vertex_face.rs`
//! and `edge_edge.rs` at the midpoint of a narrow time interval. Each `g` is a sum of 12 products
//! of four components of relative vectors `r(t) = r₀ + t(r₁ − r₀)` (a dot product of two cross
//! products). With `L` the largest absolute component of any `r₀`, `r₁` (so `|r(t)| ≤ L`) and
//! `V` a bound on the components of `r' = r₁ − r₀` (the computed `max|r₁ − r₀| + 4uL`, which
//! covers the rounding of the differences):
//! - variation over the interval: `|g(t) − g(t_m)| ≤ 12·4·V·L³·|t − t_m| ≤ 48 V L³ w`
//!   (`t_m` is inside the interval of width `w`);
//! - rounding: each factor is off by at most `8uL`, each 4-factor product then by `≤ 35uL⁴`, and
//!   the 12-term sum adds `≤ 48uL⁴`; we use `1024uL⁴` (`u = 2⁻⁵³`).
//!
//! So `g ≤ −B` certainly excludes contact and `g ≥ B` certainly confirms that inequality, with
//! `B = 1024u·L⁴ + 48·V·L³·w` (times `1 + 10⁻¹²` for the rounding of `B` itself). Anything in
//! between is left to interval arithmetic. Does not own: the choice of functions (the kernels
//! do that).

/// Relative rounding factor of the filter (`1024u`).
const ROUND: f64 = 1024.0 * f64::EPSILON * 0.5;
/// Widest interval on which the filter is tried (wider ones go straight to intervals).
pub const FILTER_MAX_WIDTH: f64 = 1e-6;

/// Result of the filter for one set of inside functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Some function is certainly negative: no contact on the interval.
    Outside,
    /// Every function is certainly non-negative.
    Inside,
    /// Undecided: fall back to interval arithmetic.
    Unknown,
}

/// Cross product.
#[inline(always)]
pub fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Dot product.
#[inline(always)]
pub fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The five relative vectors `x − y` (index pairs `pairs` into the corner arrays) at the
/// parameter `tm`, computed as `r₀ + tm(r₁ − r₀)` from the rounded differences `r₀`, `r₁`, and
/// the bounds `(L, V)` of the module docs. One flat pass over the 15 components with
/// branch-free maxima (no allocation). These maxima are exact only for finite components; a
/// non-finite component of any `r₀`, `r₁` makes the lerped component non-finite, hence (every
/// relative vector enters some inside function through a cross and a dot product, and `+ − ×`
/// never turn a non-finite value finite) some `g` non-finite, and [`classify`] answers
/// [`Verdict::Unknown`] for any non-finite `g`.
#[inline(always)]
pub fn relative_at(
    start: &[[f64; 3]; 4],
    end: &[[f64; 3]; 4],
    pairs: [(usize, usize); 5],
    tm: f64,
) -> ([[f64; 3]; 5], f64, f64) {
    let mut r = [[0.0; 3]; 5];
    let (mut l, mut v) = (0.0f64, 0.0f64);
    for (ri, &(x, y)) in r.iter_mut().zip(pairs.iter()) {
        for k in 0..3 {
            let r0 = start[x][k] - start[y][k];
            let r1 = end[x][k] - end[y][k];
            let d = r1 - r0;
            l = fmax(l, fmax(r0.abs(), r1.abs()));
            v = fmax(v, d.abs());
            ri[k] = r0 + tm * d;
        }
    }
    (r, l, v + 4.0 * ROUND_U * l)
}

/// `max(a, b)` for non-NaN operands (one `maxsd`; NaN handling is done by the caller).
#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// `u = 2⁻⁵³`.
const ROUND_U: f64 = f64::EPSILON * 0.5;

/// Classify the values `g` computed at the interval midpoint, given `L`, `V` and the width `w`.
#[inline(always)]
pub fn classify(g: &[f64], l: f64, v: f64, w: f64) -> Verdict {
    let l3 = l * l * l;
    let bound = (ROUND * l3 * l + 48.0 * v * l3 * w) * (1.0 + 1e-12) + f64::MIN_POSITIVE;
    if !bound.is_finite() || !g.iter().all(|x| x.is_finite()) {
        return Verdict::Unknown;
    }
    if g.iter().any(|&x| x < -bound) {
        Verdict::Outside
    } else if g.iter().all(|&x| x > bound) {
        Verdict::Inside
    } else {
        Verdict::Unknown
    }
}
