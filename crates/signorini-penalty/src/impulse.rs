//! Continuous penalty impulses of one feature pair (CPF Theorem 1, Eq. 8; VF Eqs. 12–14; EE
//! Eqs. 16–18; supplementary §B).
//!
//! Owns: [`PairImpulse`], the closed-form degree-6 impulse with the constant normalisation `L_k`
//! ([`continuous_lk`]), the "exact" variant integrating the true rational normal `m/|m|` by
//! Gauss–Legendre quadrature ([`continuous_exact`]), and the distribution to the four vertices.
//!
//! With `P`, `Q` the collision points, `m` the unnormalised normal and `s = P − Q`, the force on
//! `P` while penetrating is `k δ σ m̂ = −k (m̂·s) m̂` (depth `δ = −σ m̂·s > 0`, pushing `P` back
//! to the outside whatever the orientation of `m`), so over the step of length `h`
//!
//! `J = −k h Σᵢ ∫_{tₐⁱ}^{t_bⁱ} (m·s) m / |m|² dt`,  and `Iⱼ = cⱼ J` on vertex `j` (Eqs. 13, 17).
//!
//! With `|m|² ≈ L_k²` (Eq. 15) the integrand `(m·s) m` is a degree-5 vector polynomial (cubic
//! times quadratic) and its antiderivative the degree-6 polynomial of supplementary §B. (The
//! supplementary text defines `d̂` as the start separation and `ê` as its change and then uses
//! them the other way round; here `s = S₀ + S₁ t` with `S₀ = s(0)`.)

use crate::intervals::Intervals;
use crate::pair::{Trajectory, VecPoly, gap_cubic, l_k_squared, normal_power};
use signorini_math::{Real, Vec3};

/// The impulse of one pair: `J` on the first collision point and the vertex impulses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairImpulse {
    /// Impulse on the collision point `P` (N s); `Q` receives `−J`.
    pub j: Vec3,
    /// Impulses on the four vertices, `cᵢ J` (sum to zero).
    pub vertex: [Vec3; 4],
}

impl PairImpulse {
    /// Distribute `J` with separation coefficients `c`.
    pub fn from_j(j: Vec3, c: &[Real; 4]) -> Self {
        PairImpulse {
            j,
            vertex: c.map(|ci| ci * j),
        }
    }
}

/// Power coefficients of the degree-5 integrand `(m·s) m` (supplementary §B, `â′ … f̂′`).
#[inline]
fn integrand(m: &VecPoly<3>, g: &[Real; 4]) -> VecPoly<6> {
    let mut h = [Vec3::zeros(); 6];
    for (a, ga) in g.iter().enumerate() {
        for (b, mb) in m.iter().enumerate() {
            h[a + b] += *ga * mb;
        }
    }
    h
}

/// `∫_{lo}^{hi}` of a degree-5 vector polynomial (the degree-6 antiderivative, Horner).
#[inline]
fn integrate(h: &VecPoly<6>, lo: Real, hi: Real) -> Vec3 {
    let anti = |t: Real| {
        let mut acc = h[5] / 6.0;
        for j in (0..5).rev() {
            acc = acc * t + h[j] / (j as Real + 1.0);
        }
        acc * t
    };
    anti(hi) - anti(lo)
}

/// Closed-form CPF impulse with constant normalisation `L_k` (Eqs. 12/16 with Eq. 15; supp. §B)
/// over the penetration `intervals`, stiffness `k` (N/m) and step `h` (s).
pub fn continuous_lk(
    traj: &Trajectory,
    c: &[Real; 4],
    intervals: &Intervals,
    k: Real,
    h: Real,
) -> PairImpulse {
    let n = traj.normal_bernstein();
    let m = normal_power(&n);
    let g = gap_cubic(&m, &traj.separation(c));
    continuous_lk_from(&n, &m, &g, c, intervals, k * h)
}

/// [`continuous_lk`] from precomputed Bernstein normal `n`, its power form `m` and the cubic
/// `g = m·s` (the stepper and the benchmark already have them from the interval search);
/// `kh` is stiffness times step.
pub fn continuous_lk_from(
    n: &[Vec3; 3],
    m: &VecPoly<3>,
    g: &[Real; 4],
    c: &[Real; 4],
    intervals: &Intervals,
    kh: Real,
) -> PairImpulse {
    let lk2 = l_k_squared(n);
    if intervals.is_empty() || lk2 <= 0.0 {
        return PairImpulse::from_j(Vec3::zeros(), c);
    }
    let h5 = integrand(m, g);
    let mut j = Vec3::zeros();
    for iv in intervals.as_slice() {
        j += integrate(&h5, iv[0], iv[1]);
    }
    PairImpulse::from_j(-(kh / lk2) * j, c)
}

/// Gauss–Legendre nodes and weights on `[-1, 1]`, 8 points.
#[allow(clippy::excessive_precision)]
const GL8: [(Real, Real); 8] = [
    (-0.960_289_856_497_536_2, 0.101_228_536_290_376_26),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (-0.525_532_409_916_329_0, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362_0),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362_0),
    (0.525_532_409_916_329_0, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (0.960_289_856_497_536_2, 0.101_228_536_290_376_26),
];

/// Sub-intervals per penetration interval for [`continuous_exact`].
pub const EXACT_PIECES: usize = 4;

/// CPF impulse with the exact rational normal `m/|m|` (Eq. 14 with the true `L(t)`), integrated
/// by composite 8-point Gauss–Legendre quadrature on [`EXACT_PIECES`] pieces per interval (the
/// paper's "numerical integration scheme based on quadrature").
pub fn continuous_exact(
    traj: &Trajectory,
    c: &[Real; 4],
    intervals: &Intervals,
    k: Real,
    h: Real,
) -> PairImpulse {
    continuous_exact_thick(traj, c, intervals, k, h, 0.0, 1)
}

/// [`continuous_exact`] with a contact thickness `d` (m): the depth is `d − σ m̂·s`, so the
/// integrand is `(m·s − σ d |m|) m / |m|²` (`σ` = `outside`).
pub fn continuous_exact_thick(
    traj: &Trajectory,
    c: &[Real; 4],
    intervals: &Intervals,
    k: Real,
    h: Real,
    d: Real,
    outside: i8,
) -> PairImpulse {
    let m = normal_power(&traj.normal_bernstein());
    let s = traj.separation(c);
    let sd = outside as Real * d;
    let f = |t: Real| {
        let mt = m[0] + t * (m[1] + t * m[2]);
        let l2 = mt.norm_squared();
        if l2 > 0.0 {
            mt * ((mt.dot(&(s[0] + t * s[1])) - sd * l2.sqrt()) / l2)
        } else {
            Vec3::zeros()
        }
    };
    let mut j = Vec3::zeros();
    for iv in intervals.as_slice() {
        let w = (iv[1] - iv[0]) / EXACT_PIECES as Real;
        for p in 0..EXACT_PIECES {
            let mid = iv[0] + (p as Real + 0.5) * w;
            for (x, wt) in GL8 {
                j += (0.5 * w * wt) * f(mid + 0.5 * w * x);
            }
        }
    }
    PairImpulse::from_j(-(k * h) * j, c)
}

/// Penetration depth `δ = −σ m̂·s` of a tracked pair at time `t` (negative: separated).
pub fn depth_at(traj: &Trajectory, c: &[Real; 4], outside: i8, t: Real) -> Real {
    let m = traj.normal_at(t);
    let l = m.norm();
    if l == 0.0 {
        return 0.0;
    }
    let (p, q) = traj.points(c, t);
    -(outside as Real) * m.dot(&(p - q)) / l
}

/// The cubic `g = m·s` shifted for a contact thickness `d`: `g − σ d L_k`, so that
/// `σ (g − σ d L_k) < 0` ⇔ `d − σ g / L_k > 0` (inside the thickness layer, with the constant
/// normalisation `L_k` of Eq. 15). The CPF impulse with thickness is then Eq. 8 with this cubic:
/// `J = −(k h / L_k²) ∫ (g − σ d L_k) m dt`, since `k (d − σ m·s/L_k) σ m/L_k` equals
/// `−k (m·s − σ d L_k) m / L_k²`. `d = 0` returns `g` unchanged.
pub fn thick_cubic(g: &[Real; 4], n: &[Vec3; 3], d: Real, outside: i8) -> [Real; 4] {
    if d == 0.0 {
        return *g;
    }
    let mut out = *g;
    out[0] -= outside as Real * d * crate::pair::l_k_squared(n).sqrt();
    out
}
