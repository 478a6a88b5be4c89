//! The time-stepping subproblem as a complementarity problem.
//!
//! Owns: [`Formulation`], a description of the unknowns and rows of the Stewart–Trinkle / PEG
//! subproblem (paper Eqs. 8–9 for U-constraints, Eqs. 48–49 with the I/X slack construction of
//! Eq. 24; ψ/h stabilisation kept as in the paper's experiments), and its two algebraic forms:
//! - the **reduced LCP** (notes §3.3 and §4.4): velocities eliminated with the block-diagonal
//!   inverse mass, `ν = ν* + M⁻¹ Σ_j c_j z_j`, `ν* = ν + h M⁻¹ F_ext`;
//! - the **mixed LCP** (notes §3.1, §4.2): velocities kept as free unknowns (what the reference
//!   code gives to PATH), used as a fallback.
//!
//! Unknowns, in order: normal impulses of U-constraints, of I primaries, of X primaries; one
//! slack per secondary contact; with friction (μ > 0, notes §3.2, manual Eq. 4.13) two pyramid
//! impulses (±t̂) per normal impulse, then one friction slack `s` per normal impulse.
//! Rows, in the same order:
//! - normal:    `G_iᵀν + ψ_i/h (+ Σ_t c_t for a primary)                 ≥ 0 ⊥ p_i`
//! - secondary: `(G_ι − G_s)ᵀν + (ψ_ι − ψ_s)/h + Σ_{t ≤ s} c_t            ≥ 0 ⊥ c_s`
//! - friction:  `±T_iᵀν + s_i                                              ≥ 0 ⊥ f_i±`
//! - slack:     `μ p_i − f_i+ − f_i−                                       ≥ 0 ⊥ s_i`
//!
//! The friction pyramid uses the correct sign for both bodies (the reference code's
//! `preDynamics.m` uses +d for A, a bug for dynamic–dynamic pairs; notes §3.2).
//! Does not own: solving, or applying the velocities.

use crate::constraints::ConstraintSet;
use crate::contact::Jacobian;
use nalgebra::{DMatrix, DVector};
use signorini_complementarity::{Lcp, Mcp, ProblemError};
use signorini_dynamics::RigidBody2;
use signorini_math::{Real, Vec3};

/// Why a subproblem could not be assembled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormulationError {
    /// The assembled problem was rejected (e.g. a non-finite entry from a degenerate contact).
    #[error("assembled problem is invalid: {0}")]
    Problem(#[from] ProblemError),
    /// Velocity or body arrays disagree in length.
    #[error("expected {expected} bodies, got {got}")]
    BodyCount {
        /// Expected number.
        expected: usize,
        /// Actual number.
        got: usize,
    },
}

/// The unknowns and rows of one time-stepping subproblem (module docs).
#[derive(Debug, Clone, Default)]
pub struct Formulation {
    /// Impulse direction of each unknown (empty for slacks).
    cols: Vec<Jacobian>,
    /// Velocity Jacobian of each row (empty for friction slack rows).
    rows: Vec<Jacobian>,
    /// Constant part of each row (ψ/h terms).
    row_const: Vec<Real>,
    /// Constant matrix entries (row, column, value): the E blocks and μ.
    extra: Vec<(usize, usize, Real)>,
    /// Number of normal impulses (U + I + X primaries).
    pub n_normal: usize,
}

impl Formulation {
    /// Describe the subproblem for a constraint set, step `h` and friction coefficient `mu`
    /// (0 = frictionless).
    pub fn build(set: &ConstraintSet, h: Real, mu: Real) -> Formulation {
        let c = &set.contacts;
        let pairs: Vec<_> = set.inter.iter().chain(set.cross.iter()).collect();
        let mut normals: Vec<usize> = set.unilateral.clone();
        normals.extend(pairs.iter().map(|p| p.primary));
        let n_normal = normals.len();
        let n_slack: usize = pairs.iter().map(|p| p.secondaries.len()).sum();
        let friction = mu > 0.0;
        let mut f = Formulation {
            n_normal,
            ..Default::default()
        };
        for &i in &normals {
            f.cols.push(c[i].jacobian.clone());
            f.rows.push(c[i].jacobian.clone());
            f.row_const.push(c[i].gap / h);
        }
        // Slack columns and secondary rows (paper Eq. 24; E_pc and E_c of notes §4.2).
        let mut col = n_normal;
        for (j, p) in pairs.iter().enumerate() {
            let primary_row = set.unilateral.len() + j;
            let first = col;
            for (s, &sec) in p.secondaries.iter().enumerate() {
                f.cols.push(Jacobian::default());
                f.rows.push(c[p.primary].jacobian.minus(&c[sec].jacobian));
                f.row_const.push((c[p.primary].gap - c[sec].gap) / h);
                f.extra.push((primary_row, col, 1.0));
                for t in first..=first + s {
                    f.extra.push((col, t, 1.0));
                }
                col += 1;
            }
        }
        debug_assert_eq!(col, n_normal + n_slack);
        if friction {
            let base_f = n_normal + n_slack;
            let base_s = base_f + 2 * n_normal;
            for (k, &i) in normals.iter().enumerate() {
                for (d, sign) in [(0, 1.0), (1, -1.0)] {
                    let mut t = Jacobian::default();
                    for (b, g) in &c[i].tangent_jacobian.blocks {
                        t.add(*b, *g, sign);
                    }
                    f.cols.push(t.clone());
                    f.rows.push(t);
                    f.row_const.push(0.0);
                    f.extra.push((base_f + 2 * k + d, base_s + k, 1.0));
                    f.extra.push((base_s + k, base_f + 2 * k + d, -1.0));
                }
            }
            for k in 0..n_normal {
                f.cols.push(Jacobian::default());
                f.rows.push(Jacobian::default());
                f.row_const.push(0.0);
                f.extra.push((base_s + k, k, mu));
            }
        }
        f
    }

    /// Number of complementarity unknowns.
    pub fn dim(&self) -> usize {
        self.cols.len()
    }

    fn check(&self, bodies: &[RigidBody2], free: &[Vec3]) -> Result<(), FormulationError> {
        if bodies.len() != free.len() {
            return Err(FormulationError::BodyCount {
                expected: bodies.len(),
                got: free.len(),
            });
        }
        Ok(())
    }

    /// The reduced LCP `w = A z + q` (notes §4.4) for free-flight velocities `free` (ν*).
    pub fn reduced_lcp(
        &self,
        bodies: &[RigidBody2],
        free: &[Vec3],
    ) -> Result<Lcp, FormulationError> {
        self.check(bodies, free)?;
        let n = self.dim();
        let inv = |b: usize| bodies[b].inverse_mass();
        let mut m = DMatrix::zeros(n, n);
        for (i, r) in self.rows.iter().enumerate() {
            if r.blocks.is_empty() {
                continue;
            }
            for (j, cj) in self.cols.iter().enumerate() {
                if !cj.blocks.is_empty() {
                    m[(i, j)] = r.weighted_dot(cj, inv);
                }
            }
        }
        for &(i, j, v) in &self.extra {
            m[(i, j)] += v;
        }
        let q = DVector::from_fn(n, |i, _| {
            self.rows[i].dot_velocity(|b| free[b]) + self.row_const[i]
        });
        Ok(Lcp::new(m, q)?)
    }

    /// New velocities from a reduced-LCP solution: `ν = ν* + M⁻¹ Σ_j c_j z_j`.
    pub fn velocities_from_lcp(
        &self,
        bodies: &[RigidBody2],
        free: &[Vec3],
        z: &DVector<Real>,
    ) -> Vec<Vec3> {
        let mut v = free.to_vec();
        for (j, cj) in self.cols.iter().enumerate() {
            for (b, g) in &cj.blocks {
                v[*b] += bodies[*b].inverse_mass().component_mul(g) * z[j];
            }
        }
        v
    }

    /// The mixed LCP with free velocities of the dynamic bodies first (notes §3.1/§4.2):
    /// `0 = −M ν + Σ_j c_j z_j + M ν*`, then the rows of the module docs. Also returns the
    /// dynamic body of each 3-block of free unknowns.
    pub fn mixed_mcp(
        &self,
        bodies: &[RigidBody2],
        free: &[Vec3],
    ) -> Result<(Mcp, Vec<usize>), FormulationError> {
        self.check(bodies, free)?;
        let dynamic: Vec<usize> = (0..bodies.len())
            .filter(|&b| !bodies[b].is_static)
            .collect();
        let mut slot = vec![usize::MAX; bodies.len()];
        for (k, &b) in dynamic.iter().enumerate() {
            slot[b] = k;
        }
        let nv = 3 * dynamic.len();
        let n = nv + self.dim();
        let mut m = DMatrix::zeros(n, n);
        let mut q = DVector::zeros(n);
        for (k, &b) in dynamic.iter().enumerate() {
            let body = &bodies[b];
            let mass = Vec3::new(body.mass, body.mass, body.inertia);
            for d in 0..3 {
                m[(3 * k + d, 3 * k + d)] = -mass[d];
                q[3 * k + d] = mass[d] * free[b][d];
            }
        }
        for (j, cj) in self.cols.iter().enumerate() {
            for (b, g) in &cj.blocks {
                for d in 0..3 {
                    m[(3 * slot[*b] + d, nv + j)] = g[d];
                }
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            for (b, g) in &r.blocks {
                for d in 0..3 {
                    m[(nv + i, 3 * slot[*b] + d)] = g[d];
                }
            }
            q[nv + i] = self.row_const[i];
        }
        for &(i, j, v) in &self.extra {
            m[(nv + i, nv + j)] += v;
        }
        Ok((Mcp::mixed(m, q, nv)?, dynamic))
    }

    /// New velocities from a mixed-LCP solution (static bodies keep zero velocity).
    pub fn velocities_from_mcp(
        &self,
        n_bodies: usize,
        dynamic: &[usize],
        z: &DVector<Real>,
    ) -> Vec<Vec3> {
        let mut v = vec![Vec3::zeros(); n_bodies];
        for (k, &b) in dynamic.iter().enumerate() {
            v[b] = Vec3::new(z[3 * k], z[3 * k + 1], z[3 * k + 2]);
        }
        v
    }
}
