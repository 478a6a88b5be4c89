//! Bernstein-form enclosures of the quartic inside functions, for coplanar motion.
//!
//! Owns: building the degree-4 Bernstein coefficients (on `[0, 1]`) of inside functions of the
//! form `g(t) = (X(t)×Y(t))·(Z(t)×W(t))` with linearly moving vectors, in outward-rounded interval
//! arithmetic, and their midpoint subdivision. Used by the search when the coplanarity function
//! is zero within its error bound on a whole interval (coplanar motion, `search.rs`), where the
//! inside functions alone decide contact and plain interval evaluation over wide time intervals
//! would be far too loose. Does not own: which functions a feature pair uses (the kernels).
//!
//! Formulas: `X×Y` has quadratic Bernstein coefficients `[X₀×Y₀, (X₀×Y₁+X₁×Y₀)/2, X₁×Y₁]`;
//! the dot product of two quadratics `P`, `Q` has quartic coefficients
//! `cₖ = Σ_{i+j=k} C(2,i)C(2,j)/C(4,k) · Pᵢ·Qⱼ`.

use crate::interval::{IVec3, Interval, down, icross, idot, up};

/// Quartic Bernstein coefficient enclosures.
pub type Quartic = [Interval; 5];

/// A linearly moving interval vector: values at `t = 0` and `t = 1`.
pub type LinVec = (IVec3, IVec3);

/// Quadratic Bernstein control vectors of `X(t) × Y(t)`.
pub fn cross_q(x: &LinVec, y: &LinVec) -> [IVec3; 3] {
    let half = Interval::point(0.5);
    let a = icross(&x.0, &y.1);
    let b = icross(&x.1, &y.0);
    [
        icross(&x.0, &y.0),
        [0, 1, 2].map(|k| (a[k] + b[k]) * half),
        icross(&x.1, &y.1),
    ]
}

/// Quartic Bernstein coefficients of `P(t)·Q(t)` for quadratic vectors.
pub fn dot_qq(p: &[IVec3; 3], q: &[IVec3; 3]) -> Quartic {
    let half = Interval::point(0.5);
    let sixth = Interval::new(down(1.0 / 6.0), up(1.0 / 6.0));
    let four = Interval::point(4.0);
    [
        idot(&p[0], &q[0]),
        (idot(&p[0], &q[1]) + idot(&p[1], &q[0])) * half,
        (idot(&p[0], &q[2]) + four * idot(&p[1], &q[1]) + idot(&p[2], &q[0])) * sixth,
        (idot(&p[1], &q[2]) + idot(&p[2], &q[1])) * half,
        idot(&p[2], &q[2]),
    ]
}

/// Negation of all coefficients.
pub fn neg(q: Quartic) -> Quartic {
    q.map(|x| -x)
}

/// De Casteljau subdivision at the midpoint.
pub fn split(c: &Quartic) -> (Quartic, Quartic) {
    let a1 = [
        c[0].avg(c[1]),
        c[1].avg(c[2]),
        c[2].avg(c[3]),
        c[3].avg(c[4]),
    ];
    let a2 = [a1[0].avg(a1[1]), a1[1].avg(a1[2]), a1[2].avg(a1[3])];
    let a3 = [a2[0].avg(a2[1]), a2[1].avg(a2[2])];
    let m = a3[0].avg(a3[1]);
    (
        [c[0], a1[0], a2[0], a3[0], m],
        [m, a3[1], a2[2], a1[3], c[4]],
    )
}

/// `true` if the quartic is certainly negative on its whole interval (convex-hull property).
pub fn certainly_negative(c: &Quartic) -> bool {
    c.iter().all(|x| x.certainly_neg())
}

/// `true` if the quartic is certainly non-negative (indeed positive) on its whole interval.
pub fn certainly_positive(c: &Quartic) -> bool {
    c.iter().all(|x| x.certainly_pos())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(v: [f64; 3]) -> IVec3 {
        v.map(Interval::point)
    }

    #[test]
    fn quartic_matches_direct_evaluation() {
        let x = (iv([1.0, 2.0, 0.5]), iv([-1.0, 0.5, 2.0]));
        let y = (iv([0.3, -1.0, 1.0]), iv([2.0, 1.0, -0.5]));
        let z = (iv([0.0, 1.0, 1.0]), iv([1.0, 0.0, 1.0]));
        let w = (iv([1.0, 1.0, 0.0]), iv([-2.0, 1.0, 3.0]));
        let q = dot_qq(&cross_q(&x, &y), &cross_q(&z, &w));
        let lin = |a: &LinVec, t: f64| -> [f64; 3] {
            [0, 1, 2].map(|k| a.0[k].lo * (1.0 - t) + a.1[k].lo * t)
        };
        let cr = |a: [f64; 3], b: [f64; 3]| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        for t in [0.0, 0.3, 0.5, 1.0] {
            let (p, r) = (cr(lin(&x, t), lin(&y, t)), cr(lin(&z, t), lin(&w, t)));
            let direct = p[0] * r[0] + p[1] * r[1] + p[2] * r[2];
            let s = 1.0 - t;
            let b = [
                s.powi(4),
                4.0 * s.powi(3) * t,
                6.0 * s * s * t * t,
                4.0 * s * t.powi(3),
                t.powi(4),
            ];
            let bern: f64 = (0..5).map(|k| b[k] * q[k].mid()).sum();
            assert!((bern - direct).abs() < 1e-12, "t={t}: {bern} vs {direct}");
        }
        let (l, _) = split(&q);
        assert!(
            (l[4].mid()
                - (0..5)
                    .map(|k| [1.0, 4.0, 6.0, 4.0, 1.0][k] * q[k].mid())
                    .sum::<f64>()
                    / 16.0)
                .abs()
                < 1e-12
        );
    }
}
