//! One vertex–face or edge–edge feature pair moving linearly over the normalised step `[0, 1]`:
//! collision points, separation, the time-varying contact normal and its normalisation.
//!
//! Owns: [`Kind`], [`Trajectory`] (the four vertices at `t = 0` and `t = 1`, orders `[p, a, b, c]`
//! and `[a, b, c, d]` as in `signorini-ccd`), the separation coefficients of the collision
//! points (CPF Eqs. 12–13 and 16–17), the Bernstein normal of Eqs. 14 and 18 (supplementary
//! Theorems 1–2) with its exact squared length `L(t)²` (supplementary coefficients `L₀…L₄`)
//! and the constant normalisation `L_k` of Eq. 15, and the cubic `g(t) = m(t)·s(t)`.
//!
//! Sign convention: `m(t)` is the unnormalised normal — `(b−a)×(c−a)` for VF, `(b−a)×(c−d)` for
//! EE (the paper's `m'_t`) — and `s(t) = P(t) − Q(t)` the separation of the collision points, `P`
//! on the vertex / first edge, `Q` on the triangle / second edge. Then `g = m·s` equals the CCD
//! coplanarity cubic of `signorini-ccd` for both kinds (derivation in
//! `docs/formulation-notes.md` §14), and the penetration depth is `δ = −σ m̂·s` with `σ` the sign
//! of `g` on the outside.

use signorini_math::{Real, Vec3};

/// The kind of feature pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Vertex `p` against triangle `(a, b, c)`.
    VertexFace,
    /// Edge `(a, b)` against edge `(c, d)`.
    EdgeEdge,
}

/// The four vertices of a pair at the start (`t = 0`) and end (`t = 1`) of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trajectory {
    /// Pair kind (fixes the vertex order).
    pub kind: Kind,
    /// Positions at `t = 0`: `[p, a, b, c]` (VF) or `[a, b, c, d]` (EE).
    pub x0: [Vec3; 4],
    /// Positions at `t = 1`.
    pub x1: [Vec3; 4],
}

/// Power-basis coefficients (ascending) of a vector polynomial.
pub type VecPoly<const N: usize> = [Vec3; N];

impl Trajectory {
    /// Vertex `i` at time `t` (linear trajectory).
    #[inline]
    pub fn at(&self, i: usize, t: Real) -> Vec3 {
        self.x0[i] + t * (self.x1[i] - self.x0[i])
    }

    /// The four positions at time `t`.
    #[inline]
    pub fn positions(&self, t: Real) -> [Vec3; 4] {
        // Written out (not `array::map`, which did not inline and cost ~70 instructions a call
        // on the first-contact path).
        [self.at(0, t), self.at(1, t), self.at(2, t), self.at(3, t)]
    }

    /// The two feature vectors whose cross product is the normal `m`, at `t = 0` and their
    /// velocities: VF `(b−a, c−a)`, EE `(b−a, c−d)`.
    fn normal_factors(&self) -> [(Vec3, Vec3); 2] {
        let [x0, x1] = [&self.x0, &self.x1];
        let (u0, w0, u1, w1) = match self.kind {
            Kind::VertexFace => (x0[2] - x0[1], x0[3] - x0[1], x1[2] - x1[1], x1[3] - x1[1]),
            Kind::EdgeEdge => (x0[1] - x0[0], x0[2] - x0[3], x1[1] - x1[0], x1[2] - x1[3]),
        };
        [(u0, u1 - u0), (w0, w1 - w0)]
    }

    /// Bernstein coefficients `[n₀, n₁, n₂]` of the unnormalised normal `m(t)`
    /// (CPF Eq. 14 / Eq. 18; supplementary Theorems 1–2): `n₀ = m(0)`, `n₂ = m(1)`,
    /// `n₁ = (n₀ + n₂ − ω)/2` with `ω` the cross product of the two factor velocities.
    pub fn normal_bernstein(&self) -> [Vec3; 3] {
        let [(u0, du), (w0, dw)] = self.normal_factors();
        let n0 = u0.cross(&w0);
        let n2 = (u0 + du).cross(&(w0 + dw));
        let omega = du.cross(&dw);
        [n0, 0.5 * (n0 + n2 - omega), n2]
    }

    /// The unnormalised normal at time `t`.
    pub fn normal_at(&self, t: Real) -> Vec3 {
        let [(u0, du), (w0, dw)] = self.normal_factors();
        (u0 + t * du).cross(&(w0 + t * dw))
    }

    /// Collision points `P`, `Q` at time `t` for separation coefficients `c` (see
    /// [`separation_coeffs`]).
    pub fn points(&self, c: &[Real; 4], t: Real) -> (Vec3, Vec3) {
        let x = self.positions(t);
        match self.kind {
            Kind::VertexFace => (x[0], -(c[1] * x[1] + c[2] * x[2] + c[3] * x[3])),
            Kind::EdgeEdge => (c[0] * x[0] + c[1] * x[1], -(c[2] * x[2] + c[3] * x[3])),
        }
    }

    /// Separation `s(t) = P(t) − Q(t) = Σ cᵢ xᵢ(t)` as `[s(0), s(1) − s(0)]`.
    pub fn separation(&self, c: &[Real; 4]) -> VecPoly<2> {
        let mut s0 = Vec3::zeros();
        let mut s1 = Vec3::zeros();
        for ((ci, a), b) in c.iter().zip(&self.x0).zip(&self.x1) {
            s0 += *ci * a;
            s1 += *ci * b;
        }
        [s0, s1 - s0]
    }
}

/// Power-basis coefficients `[M₀, M₁, M₂]` of `m(t) = Σ nᵢ Bᵢ²(t)`.
#[inline]
pub fn normal_power(n: &[Vec3; 3]) -> VecPoly<3> {
    [n[0], 2.0 * (n[1] - n[0]), n[0] - 2.0 * n[1] + n[2]]
}

/// Bernstein coefficients `L₀…L₄` of `|m(t)|²` (CPF supplementary §A, Eq. 11).
#[inline]
pub fn l_coefficients(n: &[Vec3; 3]) -> [Real; 5] {
    [
        n[0].dot(&n[0]),
        n[0].dot(&n[1]),
        (2.0 * n[1].dot(&n[1]) + n[0].dot(&n[2])) / 3.0,
        n[1].dot(&n[2]),
        n[2].dot(&n[2]),
    ]
}

/// The constant normalisation `L_k² = (L₀ + … + L₄)/5` of CPF Eq. 15 (the mean of `|m|²` over
/// the step, since each `B_i⁴` integrates to 1/5).
#[inline]
pub fn l_k_squared(n: &[Vec3; 3]) -> Real {
    l_coefficients(n).iter().sum::<Real>() / 5.0
}

/// Exact `L(t)² = Σ Lᵢ Bᵢ⁴(t) = |m(t)|²` from the supplementary coefficients.
pub fn l_squared_at(n: &[Vec3; 3], t: Real) -> Real {
    let l = l_coefficients(n);
    let s = 1.0 - t;
    let b = [
        s.powi(4),
        4.0 * t * s.powi(3),
        6.0 * t * t * s * s,
        4.0 * t.powi(3) * s,
        t.powi(4),
    ];
    (0..5).map(|i| l[i] * b[i]).sum()
}

/// Power coefficients of the cubic `g(t) = m(t)·s(t)`.
#[inline]
pub fn gap_cubic(m: &VecPoly<3>, s: &VecPoly<2>) -> [Real; 4] {
    [
        m[0].dot(&s[0]),
        m[0].dot(&s[1]) + m[1].dot(&s[0]),
        m[1].dot(&s[1]) + m[2].dot(&s[0]),
        m[2].dot(&s[1]),
    ]
}

/// Separation coefficients `cᵢ` (so that `s = Σ cᵢ xᵢ`, `Σ cᵢ = 0`, and the vertex impulses are
/// `Iᵢ = cᵢ J`, CPF Eqs. 13 and 17) from the barycentric weights of the collision points:
/// VF `w = [w_a, w_b, w_c]` → `[1, −w_a, −w_b, −w_c]`; EE `w = [w_a, w_c]` (weights of `a` and
/// `c`) → `[w_a, 1−w_a, −w_c, −(1−w_c)]`.
pub fn separation_coeffs(kind: Kind, w: &[Real; 3]) -> [Real; 4] {
    match kind {
        Kind::VertexFace => [1.0, -w[0], -w[1], -w[2]],
        Kind::EdgeEdge => [w[0], 1.0 - w[0], -w[1], -(1.0 - w[1])],
    }
}
