//! Re-solving LCP(M, q′) from the final basis of a Lemke solve of LCP(M, q): [`LemkeFactor`].
//!
//! Owns: the factor (the final complementary basis and the stored columns of its inverse, in
//! Lemke's scaling) and [`LemkeFactor::resolve`]. Does not own: pivoting (`lemke.rs`), or
//! deciding whether an answer is good enough (the caller certifies it by its natural residual
//! on the true problem).
//!
//! A complementary basis B of LCP(M, q) solves LCP(M, q′) exactly when its basic solution
//! x_B = B⁻¹q′ is non-negative: it is then feasible, and complementary by construction. This is
//! the invariance region of a basis in parametric LCP (Cottle, Pang & Stone, *The Linear
//! Complementarity Problem*, 1992, §4.5). A time step's gap-correction re-solves change only
//! the ψ/h part of q, by a contact's linearisation error, so the first solve's basis usually
//! survives them, and a re-solve costs O(n·k) (k = basic z's) instead of a Lemke run's
//! O(n²·k). When M has changed a little as well (a pile at rest, one step later), the old
//! inverse serves as a preconditioner: iterative refinement x ← x + B_old⁻¹(q′ − B_new x), which
//! converges when B_old⁻¹B_new is close to the identity.
//!
//! A factor is `serde`, so that a world's checkpoint can carry it and a resumed run re-solve
//! exactly where the uninterrupted one did; reading one back checks that it is a
//! complementary basis with a consistent inverse ([`LemkeFactor`]'s `TryFrom`), so a corrupt
//! file is refused with the reason instead of indexing out of bounds later.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};
use signorini_math::Real;

use signorini_math::tolerance::LCP_FEASIBLE_TOL as FEASIBLE_TOL;

/// Refinement stops when the residual ‖q′/s − B x‖∞ is below this (relative to max(1, ‖q′/s‖∞)).
const REFINED: Real = 1e-14;

/// The final complementary basis of a Lemke solve and its inverse (module docs).
///
/// Returned in [`crate::SolveInfo::factor`] by Lemke solves of a plain LCP (no free variables,
/// bounds `[0, ∞)`); pass it back with [`LemkeFactor::resolve`] for a new q (and, if it has
/// changed little, M).
///
/// Serialised field by field; deserialising checks the invariants below and refuses a
/// factor that breaks one, naming it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "FactorFields")]
pub struct LemkeFactor {
    /// Problem size.
    pub(crate) n: usize,
    /// Lemke's scaling: it solved LCP(M/s, q/s), which has the same z.
    pub(crate) scale: Real,
    /// The variable basic in each row: w_i is i, z_j is n + j.
    pub(crate) basis: Vec<usize>,
    /// The columns of B⁻¹ that are not unit vectors: one per nonbasic w.
    pub(crate) cols: Vec<usize>,
    /// Those columns, row-major: entry (i, c) at `binv[i * cols.len() + c]`.
    pub(crate) binv: Vec<Real>,
    /// Whether `cols` and `binv` hold the inverse. A basis from the sparse Lemke
    /// ([`LemkeFactor::basis_only`]) does not: it is a warm start for the next sparse run,
    /// which factors it anew; [`LemkeFactor::resolve`] and dense restarts ignore it.
    pub(crate) inverse: bool,
}

/// A [`LemkeFactor`] as read, before its invariants are checked.
#[derive(Deserialize)]
struct FactorFields {
    n: usize,
    scale: Real,
    basis: Vec<usize>,
    cols: Vec<usize>,
    binv: Vec<Real>,
    inverse: bool,
}

impl TryFrom<FactorFields> for LemkeFactor {
    type Error = String;

    /// The invariants every factor a Lemke run returns has: n rows; each index j once in the
    /// basis, as w_j (j) or as z_j (n + j); a positive finite scale; and, with the inverse,
    /// one stored column per basic z (`cols` is exactly the set of j whose z_j is basic, as
    /// the pivoting keeps it) and n finite entries per column.
    fn try_from(f: FactorFields) -> Result<Self, String> {
        let n = f.n;
        if f.basis.len() != n {
            return Err(format!("{} basis entries for n = {n}", f.basis.len()));
        }
        let mut z_basic = vec![None; n];
        for &v in &f.basis {
            let (j, z) = if v < n {
                (v, false)
            } else {
                (v.wrapping_sub(n), true)
            };
            match z_basic.get_mut(j) {
                Some(slot @ None) => *slot = Some(z),
                Some(Some(_)) => return Err(format!("index {j} twice in the basis")),
                None => return Err(format!("basis entry {v} is beyond 2n = {}", 2 * n)),
            }
        }
        if !(f.scale.is_finite() && f.scale > 0.0) {
            return Err(format!("scale {} is not positive and finite", f.scale));
        }
        if f.inverse {
            let mut cols = f.cols.clone();
            cols.sort_unstable();
            let want: Vec<usize> = (0..n).filter(|&j| z_basic[j] == Some(true)).collect();
            if cols != want {
                return Err("the stored columns are not those of the basic z's".into());
            }
            if f.binv.len() != n * f.cols.len() || f.binv.iter().any(|x| !x.is_finite()) {
                return Err(format!(
                    "the inverse holds {} entries for {n} × {} (or one is not finite)",
                    f.binv.len(),
                    f.cols.len()
                ));
            }
        } else if !f.cols.is_empty() || !f.binv.is_empty() {
            return Err("a basis without its inverse stores columns".into());
        }
        Ok(LemkeFactor {
            n,
            scale: f.scale,
            basis: f.basis,
            cols: f.cols,
            binv: f.binv,
            inverse: f.inverse,
        })
    }
}

impl LemkeFactor {
    /// The final complementary basis of a sparse Lemke run (`z_basic[j]`: z_j basic, else
    /// w_j), without its inverse: [`LemkeFactor::z_basic`] gives it back as the next sparse
    /// run's warm start; [`LemkeFactor::resolve`] returns `None` for it.
    pub fn basis_only(z_basic: &[bool]) -> Self {
        let n = z_basic.len();
        LemkeFactor {
            n,
            scale: 1.0,
            basis: (0..n).map(|j| if z_basic[j] { n + j } else { j }).collect(),
            cols: Vec::new(),
            binv: Vec::new(),
            inverse: false,
        }
    }

    /// Whether z_j is basic, for each j (a warm start for [`crate::lemke_sparse`]).
    pub fn z_basic(&self) -> Vec<bool> {
        let mut flags = vec![false; self.n];
        for &v in self.basis.iter().filter(|&&v| v >= self.n) {
            flags[v - self.n] = true;
        }
        flags
    }

    /// Whether the factor holds its basis's inverse (not one of [`LemkeFactor::basis_only`]).
    pub fn has_inverse(&self) -> bool {
        self.inverse
    }

    /// Problem size n.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Number of z's basic in the factored basis (the active set's size).
    pub fn active(&self) -> usize {
        self.basis.iter().filter(|&&v| v >= self.n).count()
    }

    /// The solution of LCP(m, q) in this basis, after at most `refinements` steps of iterative
    /// refinement against `m` (1 is enough when `m` is the factored matrix; a few when it has
    /// moved), or `None` if the sizes differ, the refinement does not converge, or the basic
    /// solution is infeasible (some basic value < 0: the basis has left its invariance
    /// region, and the caller should solve from scratch). Cost O(n·k) per refinement.
    ///
    /// The answer is not certified here: check its residual on the true problem.
    pub fn resolve(
        &self,
        m: &DMatrix<Real>,
        q: &DVector<Real>,
        refinements: usize,
    ) -> Option<DVector<Real>> {
        let n = self.n;
        if !self.inverse || q.len() != n || m.nrows() != n || m.ncols() != n {
            return None;
        }
        let s = self.scale;
        let qs: Vec<Real> = q.iter().map(|x| x / s).collect();
        let size = qs.iter().fold(1.0, |a: Real, x| a.max(x.abs()));
        let mut x = self.apply(&qs);
        let mut last = Real::INFINITY;
        for _ in 0..refinements {
            // r = q/s − B x, with column e_i for w_i and −M_{:,j}/s for z_j.
            let mut r = qs.clone();
            for (row, &v) in self.basis.iter().enumerate() {
                let xv = x[row];
                if v < n {
                    r[v] -= xv;
                } else if xv != 0.0 {
                    let f = xv / s;
                    for (ri, c) in r.iter_mut().zip(m.column(v - n).iter()) {
                        *ri += f * c;
                    }
                }
            }
            let norm = r.iter().fold(0.0, |a: Real, v| a.max(v.abs()));
            if !norm.is_finite() || norm >= last {
                return None; // diverging: B_old⁻¹ is no longer a good inverse of B_new
            }
            last = norm;
            if norm <= REFINED * size {
                break;
            }
            for (xi, c) in x.iter_mut().zip(self.apply(&r)) {
                *xi += c;
            }
        }
        let tol = FEASIBLE_TOL * size;
        if x.iter().any(|v| !v.is_finite() || *v < -tol) {
            return None;
        }
        let mut z = DVector::zeros(n);
        for (row, &v) in self.basis.iter().enumerate() {
            if v >= n {
                z[v - n] = x[row].max(0.0);
            }
        }
        Some(z)
    }

    /// The factor of a larger problem LCP(m, ·) that holds this one as the principal
    /// subproblem on `map` (old unknown i is new unknown `map[i]`, and m restricted to those
    /// rows and columns is the factored matrix), with the w of every new unknown basic.
    /// `None` if `map` does not fit (length, range, repeats).
    ///
    /// Ordering the new unknowns last, that basis is B′ = [[B, 0], [C, I]], C holding the new
    /// rows of B's columns (zero for a basic w, −m[r, j]/s for a basic z_j), so
    /// B′⁻¹ = [[B⁻¹, 0], [−C B⁻¹, I]]: the old rows of the stored columns are kept and each new
    /// row r is Σ over the basic z_j of (m[r, j]/s) times B⁻¹'s row of z_j. No
    /// factorisation; cost O(added rows × nonzeros × k). A gap-correction round that adds
    /// contacts (feature pairs that come near at the trial pose) grows the problem this way:
    /// Lemke then restarts from this basis instead of from scratch (the new rows' contacts
    /// enter as pivots).
    pub fn embedded(&self, m: &DMatrix<Real>, map: &[usize]) -> Option<LemkeFactor> {
        let (n_old, n) = (self.n, m.nrows());
        if map.len() != n_old || m.ncols() != n || n < n_old {
            return None;
        }
        let mut new_row = vec![true; n];
        for &i in map {
            if i >= n || !new_row[i] {
                return None;
            }
            new_row[i] = false;
        }
        let var = |v: usize| {
            if v < n_old {
                map[v]
            } else {
                n + map[v - n_old]
            }
        };
        if !self.inverse {
            let mut basis: Vec<usize> = (0..n).collect();
            for (i, &v) in self.basis.iter().enumerate() {
                basis[map[i]] = var(v);
            }
            return Some(LemkeFactor {
                basis,
                n,
                ..self.clone()
            });
        }
        let k = self.cols.len();
        let mut basis: Vec<usize> = (0..n).collect();
        let mut binv = vec![0.0; n * k];
        for (i, &v) in self.basis.iter().enumerate() {
            basis[map[i]] = var(v);
            binv[map[i] * k..(map[i] + 1) * k].copy_from_slice(&self.binv[i * k..(i + 1) * k]);
        }
        let basic_z: Vec<(usize, usize)> = self
            .basis
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v >= n_old)
            .map(|(p, &v)| (p, map[v - n_old]))
            .collect();
        let s = self.scale;
        for r in (0..n).filter(|&r| new_row[r]) {
            let row = &mut binv[r * k..(r + 1) * k];
            for &(p, j) in &basic_z {
                let f = m[(r, j)] / s;
                if f != 0.0 {
                    for (x, b) in row.iter_mut().zip(&self.binv[p * k..(p + 1) * k]) {
                        *x += f * b;
                    }
                }
            }
        }
        Some(LemkeFactor {
            n,
            scale: s,
            basis,
            cols: self.cols.iter().map(|&j| map[j]).collect(),
            binv,
            inverse: true,
        })
    }

    /// B⁻¹ v: the unit columns (basic w's) plus the stored ones. The same product as the
    /// tableau's `apply_binv` (`lemke.rs`), kept separate on purpose: sharing it changed this
    /// sum's order, the reused answers' rounding, and with it the pouring trajectories.
    fn apply(&self, v: &[Real]) -> Vec<Real> {
        let n = self.n;
        let k = self.cols.len();
        let g: Vec<Real> = self.cols.iter().map(|&j| v[j]).collect();
        (0..n)
            .map(|i| {
                let unit = if self.basis[i] < n {
                    v[self.basis[i]]
                } else {
                    0.0
                };
                let row = &self.binv[i * k..(i + 1) * k];
                unit + row.iter().zip(&g).map(|(a, b)| a * b).sum::<Real>()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lemke::{Covering, LemkeConfig, lemke_lcp};

    fn solve(m: &DMatrix<Real>, q: &DVector<Real>) -> (DVector<Real>, LemkeFactor) {
        let cfg = LemkeConfig {
            max_pivots: 1000,
            covering: Covering::Ones,
            warm_basis: None,
            n_free: 0,
            factor: None,
        };
        let r = lemke_lcp(m, q, &cfg).unwrap();
        (r.z, r.factor.unwrap())
    }

    fn spd(n: usize) -> DMatrix<Real> {
        let a = DMatrix::from_fn(n, n, |i, j| ((i * 7 + j * 13) % 11) as Real / 11.0 - 0.4);
        &a * a.transpose() + DMatrix::identity(n, n) * 0.5
    }

    #[test]
    fn the_same_problem_is_solved_again_by_its_own_basis() {
        let m = spd(12);
        let q = DVector::from_fn(12, |i, _| if i % 3 == 0 { 1.0 } else { -1.0 - i as Real });
        let (z, f) = solve(&m, &q);
        assert!(f.active() > 0);
        let again = f.resolve(&m, &q, 2).unwrap();
        assert!((again - z).amax() < 1e-12);
    }

    /// A factor read back from JSON is the same factor bit for bit (it re-solves to the same
    /// bits), and one that breaks an invariant is refused with the reason.
    #[test]
    fn a_factor_survives_json_and_a_broken_one_is_refused() {
        let m = spd(12);
        let q = DVector::from_fn(12, |i, _| if i % 3 == 0 { 1.0 } else { -1.0 - i as Real });
        let (_, f) = solve(&m, &q);
        assert!(f.active() > 0 && f.has_inverse());
        let json = serde_json::to_value(&f).unwrap();
        let back: LemkeFactor = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, f);
        let q2 = &q + DVector::from_fn(12, |i, _| 1e-4 * (i as Real - 5.0));
        assert_eq!(back.resolve(&m, &q2, 2), f.resolve(&m, &q2, 2));
        let sparse = LemkeFactor::basis_only(&f.z_basic());
        let text = serde_json::to_string(&sparse).unwrap();
        assert_eq!(serde_json::from_str::<LemkeFactor>(&text).unwrap(), sparse);

        let refused = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = json.clone();
            edit(&mut v);
            serde_json::from_value::<LemkeFactor>(v)
                .unwrap_err()
                .to_string()
        };
        let twice = refused(&|v| {
            let b = v["basis"].as_array_mut().unwrap();
            b[1] = b[0].clone();
        });
        assert!(twice.contains("twice in the basis"), "{twice}");
        let beyond = refused(&|v| v["basis"][0] = 24.into());
        assert!(beyond.contains("beyond 2n = 24"), "{beyond}");
        let short = refused(&|v| {
            v["binv"].as_array_mut().unwrap().pop();
        });
        assert!(short.contains("the inverse holds"), "{short}");
        let cols = refused(&|v| {
            v["cols"].as_array_mut().unwrap().pop();
        });
        assert!(cols.contains("not those of the basic z's"), "{cols}");
        let scale = refused(&|v| v["scale"] = (-1.0).into());
        assert!(scale.contains("scale -1"), "{scale}");
    }

    #[test]
    fn a_small_change_of_q_keeps_the_basis_and_matches_a_cold_solve() {
        let m = spd(12);
        let q = DVector::from_fn(12, |i, _| if i % 3 == 0 { 1.0 } else { -1.0 - i as Real });
        let (_, f) = solve(&m, &q);
        let q2 = &q + DVector::from_fn(12, |i, _| 1e-4 * (i as Real - 5.0));
        let (cold, _) = solve(&m, &q2);
        let warm = f.resolve(&m, &q2, 2).unwrap();
        assert!((warm - &cold).amax() < 1e-10);
    }

    #[test]
    fn a_q_outside_the_invariance_region_is_refused() {
        let m = spd(6);
        let q = DVector::from_element(6, -1.0);
        let (z, f) = solve(&m, &q);
        assert!(z.iter().all(|&x| x > 0.0));
        // With q ≥ 0 the answer is z = 0: every z must leave the basis.
        assert!(f.resolve(&m, &DVector::from_element(6, 1.0), 2).is_none());
    }

    #[test]
    fn a_slightly_moved_matrix_is_reached_by_refinement() {
        let m = spd(10);
        let q = DVector::from_fn(10, |i, _| -1.0 - (i % 4) as Real);
        let (_, f) = solve(&m, &q);
        let m2 = &m + DMatrix::from_fn(10, 10, |i, j| 1e-6 * ((i + j) as Real).sin());
        let (cold, _) = solve(&m2, &q);
        let warm = f.resolve(&m2, &q, 8).unwrap();
        assert!((warm - &cold).amax() < 1e-10);
        // Without refinement the stale inverse is off by about the change of M.
        let raw = f.resolve(&m2, &q, 0).unwrap();
        assert!((raw - cold).amax() > 1e-9);
    }

    #[test]
    fn sizes_that_differ_are_refused() {
        let m = spd(4);
        let (_, f) = solve(&m, &DVector::from_element(4, -1.0));
        assert!(
            f.resolve(&spd(5), &DVector::from_element(5, -1.0), 1)
                .is_none()
        );
    }

    /// A factor embedded in a problem with more unknowns (new w's basic) is the inverse of
    /// that basis, and it solves the larger problem wherever the new rows stay feasible.
    #[test]
    fn an_embedded_factor_is_the_larger_basis_inverse() {
        let n = 14;
        let big = spd(n);
        // The old problem: unknowns 0..4 and 7..14 of the big one (3 inserted at 4..7).
        let map: Vec<usize> = (0..4).chain(7..n).collect();
        let small = DMatrix::from_fn(map.len(), map.len(), |i, j| big[(map[i], map[j])]);
        let q_small = DVector::from_fn(map.len(), |i, _| {
            if i % 3 == 0 {
                -1.0
            } else {
                0.3 - 0.1 * i as Real
            }
        });
        let (z_small, f) = solve(&small, &q_small);
        let g = f.embedded(&big, &map).unwrap();
        assert_eq!(g.dim(), n);
        assert_eq!(g.active(), f.active());
        // B′ built column by column in the scaled system, times the embedded inverse, is I.
        let s = g.scale;
        let mut b = DMatrix::zeros(n, n);
        for (row, &v) in g.basis.iter().enumerate() {
            if v < n {
                b[(v, row)] = 1.0;
            } else {
                b.set_column(row, &(-big.column(v - n) / s));
            }
        }
        let e = DMatrix::identity(n, n);
        let x = DMatrix::from_fn(n, n, |i, j| g.apply(e.column(j).as_slice())[i]);
        assert!((&x * &b - &e).amax() < 1e-10, "{}", (&x * &b - &e).amax());
        // With the new rows' w comfortably positive, the embedded basis solves the big problem.
        let q_big = DVector::from_fn(n, |i, _| match map.iter().position(|&m| m == i) {
            Some(o) => q_small[o],
            None => 50.0,
        });
        let z = g.resolve(&big, &q_big, 2).unwrap();
        for (o, &i) in map.iter().enumerate() {
            assert!((z[i] - z_small[o]).abs() < 1e-10);
        }
        assert!((4..7).all(|i| z[i] == 0.0));
        // A map that does not fit is refused.
        assert!(f.embedded(&big, &map[1..]).is_none());
        let mut twice = map.clone();
        twice[1] = twice[0];
        assert!(f.embedded(&big, &twice).is_none());
    }
}
