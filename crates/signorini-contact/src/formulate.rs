//! The time-stepping subproblem as a complementarity problem.
//!
//! Owns: [`Formulation`], a description of the unknowns and rows of the Stewart–Trinkle / PEG
//! subproblem (paper Eqs. 8–9 for U-constraints, Eqs. 48–49 with the I/X slack construction of
//! Eq. 24; ψ/h stabilisation kept as in the paper's experiments), and its two algebraic forms:
//! - the **reduced LCP** (docs/formulation-notes.md §3.3 and §4.4): velocities eliminated with the block-diagonal
//!   inverse mass, `ν = ν* + M⁻¹ Σ_j c_j z_j`, `ν* = ν + h M⁻¹ F_ext`;
//! - the **mixed LCP** (docs/formulation-notes.md §3.1, §4.2): velocities kept as free unknowns (what the reference
//!   code gives to PATH), used as a fallback.
//!
//! Unknowns, in order: normal impulses of U-constraints, of I primaries, of X primaries, of
//! the general form's I co-primaries (none in the default single-primary form); one
//! slack per secondary contact; with friction (μ > 0, docs/formulation-notes.md §3.2, manual Eq. 4.13) `n_d` pyramid
//! impulses per normal impulse (2D: the two directions ±t̂; 3D: `n_d` directions evenly spaced
//! about n̂, [`ContactRow::friction_jacobians`]), then one friction slack `s` per normal impulse.
//!
//! Generic over the number `D` of velocity components per body (2D: 3, 3D: 6): Jacobian
//! blocks are `SVector<Real, D>` and the inverse mass is block diagonal with one
//! [`MassBlock`] per body (diagonal in 2D, dense `diag(m I₃, R J Rᵀ)` in 3D). The body and
//! contact types enter through [`DofBody`] and [`ContactRow`].
//! Rows, in the same order:
//! - normal:    `G_iᵀν + ψ_i/h (+ Σ_t c_t for a primary)                 ≥ 0 ⊥ p_i`
//! - secondary: `(G_ι − G_s)ᵀν + (ψ_ι − ψ_s)/h + Σ_{t ≤ s} c_t            ≥ 0 ⊥ c_s`
//! - friction:  `T_{i,d}ᵀν + s_i                                           ≥ 0 ⊥ f_{i,d}`
//! - slack:     `μ p_i − Σ_d f_{i,d}                                       ≥ 0 ⊥ s_i`
//!
//!
//! # General form (paper Eqs. 20–23, [`crate::PegForm::General`]; issue #22 item 2)
//! The extracted paper text lost Eqs. 20–23; it keeps their prose (§3): an I-constraint over
//! C_ι (contacts that may carry a force, m = |C_ι|) and C_κ (the others, n = |C_κ|) must
//! "constrain at least one gap … to be non-negative", "permit a nonzero contact force
//! λ_ιi > 0 for at most one contact in C_ι", and "only permit λ_ιi > 0 when ψ_ιi = 0 and all
//! other ψ are nonpositive"; for m = 1 they reduce to Eq. 24, `0 ≤ λ_ι ⊥ max(ψ_ι, ψ_κ) ≥ 0`.
//! Our reconstruction, as an LCP (ours; the paper suggests an LPCC or "an auxiliary
//! variable"): with the reference primary r = [`crate::PairConstraint::primary`], the slack
//! chain above ordered co-primaries first, so that its prefix over C_ι gives
//! `M_ι = max_{i∈C_ι} ψ'_i` and its whole sum `M = max_{C_ι ∪ C_κ} ψ'`, every i ∈ C_ι has
//! an impulse λ_i along its own normal with the row
//! - primary i: `M + M_ι − ψ'_i = (2G_r − G_i)ᵀν + (2ψ_r − ψ_i)/h + 2 Σ_{t∈ι} c_t + Σ_{t∈κ} c_t ≥ 0 ⊥ λ_i`
//!
//! (for i = r the Jacobian is G_r). Then: the row of the i at the top of C_ι reads M, so
//! `M ≥ 0` always holds (Eq. 20); λ_i > 0 forces M = 0 and ψ'_i = M_ι (both terms are
//! ≥ 0), i.e. ψ'_i = 0 with every other member of C_ι ≤ 0 and, when C_κ = ∅ (every 2D
//! I-constraint whose two contacts are applicable), every member ≤ 0 (Eq. 23). With C_κ ≠ ∅ a
//! κ member may sit above ψ'_i = M_ι at M = 0, the same relaxation Eq. 24 makes for m = 1.
//! For m = 1 the row is Eq. 24's. "At most one λ_i > 0" (Eq. 22) holds except on ties
//! (two members of C_ι at exactly 0), which an LCP cannot exclude without a bilinear term.
//!
//! # X-constraints without impulse ([`crate::XImpulse::Paper`])
//! An X-constraint keeps the row `G_pᵀν + ψ_p/h + Σ_t c_t ≥ 0` and its complementary unknown,
//! but that unknown's column is zero: no impulse on the primary or any member (the paper's
//! "X-constraints may be represented mathematically as I-constraints with no impulses"),
//! and it has no friction. The constraint is then held by the U- and I-impulses alone.
//!
//! The friction pyramid uses the correct sign for both bodies (the reference code's
//! `preDynamics.m` uses +d for A, a bug for dynamic–dynamic pairs; docs/formulation-notes.md §3.2).
//! Does not own: solving, or applying the velocities.

use crate::dim2::constraints::ConstraintSet;
use crate::dim2::contact::{Contact, Jacobian, MassBlock};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use signorini_complementarity::{CscMatrix, Lcp, Mcp, ProblemError};
use signorini_dynamics::{RigidBody2, RigidBody3};
use signorini_math::{Real, Vec3};

/// Default number of friction-pyramid directions per contact in 3D (2D always uses ±t̂).
pub const DEFAULT_FRICTION_DIRECTIONS: usize = 8;

/// A body as the formulation sees it: `D` velocity components and a block of the
/// block-diagonal mass matrix.
pub trait DofBody<const D: usize> {
    /// Static bodies have no velocity unknowns.
    fn is_static(&self) -> bool;
    /// The body's block of M (used by the mixed form).
    fn mass_block(&self) -> MassBlock<D>;
    /// The body's block of M⁻¹ (zero for a static body).
    fn inverse_mass_block(&self) -> MassBlock<D>;
}

/// A contact as the formulation sees it.
pub trait ContactRow<const D: usize> {
    /// Gap-rate Jacobian of the normal (`Gᵀν` = rate of gap increase).
    fn jacobian(&self) -> &Jacobian<D>;
    /// Signed gap ψ (m).
    fn gap(&self) -> Real;
    /// Jacobians of the relative tangential velocity along each friction-pyramid direction
    /// (B relative to A). `directions` is the requested count; 2D contacts always return the
    /// two directions ±t̂.
    fn friction_jacobians(&self, directions: usize) -> Vec<Jacobian<D>>;
}

impl DofBody<3> for RigidBody2 {
    fn is_static(&self) -> bool {
        self.is_static
    }
    fn mass_block(&self) -> MassBlock<3> {
        MassBlock::Diagonal(Vec3::new(self.mass, self.mass, self.inertia))
    }
    fn inverse_mass_block(&self) -> MassBlock<3> {
        MassBlock::Diagonal(self.inverse_mass())
    }
}

impl DofBody<6> for RigidBody3 {
    fn is_static(&self) -> bool {
        self.is_static
    }
    /// `diag(m I₃, R J Rᵀ)` (docs/formulation-notes.md §2; the gyroscopic torque is in the
    /// free-flight velocity ν*, `RigidBody3::free_velocity`, not in M).
    fn mass_block(&self) -> MassBlock<6> {
        let mut m = SMatrix::<Real, 6, 6>::zeros();
        if !self.is_static {
            m.fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(signorini_math::Mat3::identity() * self.mass));
            m.fixed_view_mut::<3, 3>(3, 3)
                .copy_from(&self.world_inertia());
        }
        MassBlock::Dense(m)
    }
    /// `diag(I₃/m, R J⁻¹ Rᵀ)`.
    fn inverse_mass_block(&self) -> MassBlock<6> {
        let mut m = SMatrix::<Real, 6, 6>::zeros();
        if !self.is_static {
            m.fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(signorini_math::Mat3::identity() / self.mass));
            m.fixed_view_mut::<3, 3>(3, 3)
                .copy_from(&self.world_inverse_inertia());
        }
        MassBlock::Dense(m)
    }
}

impl ContactRow<3> for Contact {
    fn jacobian(&self) -> &Jacobian<3> {
        &self.jacobian
    }
    fn gap(&self) -> Real {
        self.gap
    }
    /// ±t̂ (docs/formulation-notes.md §3.2).
    fn friction_jacobians(&self, _directions: usize) -> Vec<Jacobian<3>> {
        [1.0, -1.0]
            .iter()
            .map(|&sign| {
                let mut t = Jacobian::default();
                for (b, g) in &self.tangent_jacobian.blocks {
                    t.add(*b, *g, sign);
                }
                t
            })
            .collect()
    }
}

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
#[derive(Debug, Clone)]
pub struct Formulation<const D: usize = 3> {
    /// Impulse direction of each unknown (empty for slacks).
    pub(crate) cols: Vec<Jacobian<D>>,
    /// Velocity Jacobian of each row (empty for friction slack rows).
    pub(crate) rows: Vec<Jacobian<D>>,
    /// Constant part of each row (ψ/h terms).
    pub(crate) row_const: Vec<Real>,
    /// Constant matrix entries (row, column, value): the E blocks and μ.
    pub(crate) extra: Vec<(usize, usize, Real)>,
    /// Number of normal impulses (U + I + X primaries).
    pub n_normal: usize,
    /// Contact index of each normal unknown.
    normal_contacts: Vec<usize>,
    /// What each unknown stands for ([`Formulation::unknowns`]).
    unknowns: Vec<UnknownRole>,
}

/// What one unknown of a [`Formulation`] stands for, by index into the constraint set's
/// contacts. Lets a caller find an unknown again in the problem of another set built over the
/// same contacts (a stored Lemke basis grown to a problem that gained contacts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnknownRole {
    /// The normal impulse of a U-constraint's contact or of an I or X primary.
    Normal(usize),
    /// The general form's co-primary `contact` of the I-constraint with this `primary`.
    CoPrimary {
        /// The reference primary.
        primary: usize,
        /// The co-primary.
        contact: usize,
    },
    /// The slack of `secondary` in the I- or X-constraint with this `primary`.
    Slack {
        /// The constraint's primary.
        primary: usize,
        /// The secondary.
        secondary: usize,
    },
    /// Friction-pyramid direction `direction` of the normal impulse of `contact`.
    Friction {
        /// The contact of the normal impulse.
        contact: usize,
        /// The direction's index.
        direction: usize,
    },
    /// The friction slack (sliding speed) of the normal impulse of this contact.
    FrictionSlack(usize),
}

/// The mixed LCP in sparse (triplet) form: see [`Formulation::mixed_triplets`].
#[derive(Debug, Clone)]
pub struct MixedTriplets {
    /// Problem size (free velocity unknowns + complementarity unknowns).
    pub n: usize,
    /// Matrix entries (row, column, value); duplicates are to be summed.
    pub triplets: Vec<(usize, usize, Real)>,
    /// Constant vector.
    pub q: DVector<Real>,
    /// Number of free unknowns (D per dynamic body), first.
    pub n_free: usize,
    /// The dynamic body of each D-block of free unknowns.
    pub dynamic: Vec<usize>,
}

impl<const D: usize> Default for Formulation<D> {
    fn default() -> Self {
        Formulation {
            cols: Vec::new(),
            rows: Vec::new(),
            row_const: Vec::new(),
            extra: Vec::new(),
            n_normal: 0,
            normal_contacts: Vec::new(),
            unknowns: Vec::new(),
        }
    }
}

impl<const D: usize> Formulation<D> {
    /// Describe the subproblem for a constraint set, step `h` and friction coefficient `mu`
    /// (0 = frictionless), with [`DEFAULT_FRICTION_DIRECTIONS`] pyramid directions in 3D.
    pub fn build<C: ContactRow<D>>(set: &ConstraintSet<C>, h: Real, mu: Real) -> Self {
        Self::build_with_directions(set, h, mu, DEFAULT_FRICTION_DIRECTIONS)
    }

    /// [`Formulation::build`] with `directions` friction-pyramid directions per contact (3D;
    /// 2D contacts always use ±t̂).
    pub fn build_with_directions<C: ContactRow<D>>(
        set: &ConstraintSet<C>,
        h: Real,
        mu: Real,
        directions: usize,
    ) -> Self {
        let c = &set.contacts;
        // (constraint, is an X-constraint) in row order: I-constraints, then X-constraints.
        let pairs: Vec<(&crate::PairConstraint, bool)> = set
            .inter
            .iter()
            .map(|p| (p, false))
            .chain(set.cross.iter().map(|p| (p, true)))
            .collect();
        // The general form's co-primaries (paper Eqs. 20–23): I-constraints only.
        let co_of = |p: &crate::PairConstraint, cross: bool| -> Vec<usize> {
            if cross {
                Vec::new()
            } else {
                p.co_primaries.clone()
            }
        };
        let mut normals: Vec<usize> = set.unilateral.clone();
        normals.extend(pairs.iter().map(|(p, _)| p.primary));
        let n_primary = normals.len();
        // Co-primary normal unknowns follow every (reference) primary, pair by pair.
        let mut co_rows: Vec<(usize, usize)> = Vec::new(); // (pair, co-primary contact)
        for (j, (p, cross)) in pairs.iter().enumerate() {
            for k in co_of(p, *cross) {
                co_rows.push((j, k));
                normals.push(k);
            }
        }
        let n_normal = normals.len();
        let n_slack: usize = pairs.iter().map(|(p, _)| p.secondaries.len()).sum();
        let friction = mu > 0.0;
        // The paper's X-constraints (XImpulse::Paper) have a multiplier but no impulse.
        let paper_x = set.x_impulse == crate::XImpulse::Paper;
        let is_paper_x =
            |k: usize| paper_x && k >= set.unilateral.len() + set.inter.len() && k < n_primary;
        let mut f = Formulation {
            n_normal,
            normal_contacts: normals.clone(),
            ..Default::default()
        };
        for (k, &i) in normals.iter().enumerate().take(n_primary) {
            if is_paper_x(k) {
                f.cols.push(Jacobian::default());
            } else {
                f.cols.push(c[i].jacobian().clone());
            }
            f.unknowns.push(UnknownRole::Normal(i));
            f.rows.push(c[i].jacobian().clone());
            f.row_const.push(c[i].gap() / h);
        }
        // General form, co-primary i of reference primary r (reconstructed Eqs. 21–23):
        // w_i = M + M_ι − ψ'_i = (2G_r − G_i)ᵀν + (2ψ_r − ψ_i)/h + slack terms (below).
        for &(j, i) in &co_rows {
            let r = pairs[j].0.primary;
            let mut row = Jacobian::default();
            for (b, g) in &c[r].jacobian().blocks {
                row.add(*b, *g, 2.0);
            }
            for (b, g) in &c[i].jacobian().blocks {
                row.add(*b, *g, -1.0);
            }
            f.cols.push(c[i].jacobian().clone());
            f.unknowns.push(UnknownRole::CoPrimary {
                primary: r,
                contact: i,
            });
            f.rows.push(row);
            f.row_const.push((2.0 * c[r].gap() - c[i].gap()) / h);
        }
        // Slack columns and secondary rows (paper Eq. 24; E_pc and E_c of docs/formulation-notes.md §4.2).
        // General form: the co-primaries' slacks come first in the chain, so the prefix sum
        // over them gives M_ι = max over C_ι and the whole sum M = max over C_ι ∪ C_κ.
        let mut col = n_normal;
        let mut co_row = n_primary;
        for (j, (p, cross)) in pairs.iter().enumerate() {
            let primary_row = set.unilateral.len() + j;
            let co = co_of(p, *cross);
            let order: Vec<usize> = if co.is_empty() {
                p.secondaries.clone()
            } else {
                let mut o: Vec<usize> = p
                    .secondaries
                    .iter()
                    .copied()
                    .filter(|s| co.contains(s))
                    .collect();
                o.extend(p.secondaries.iter().copied().filter(|s| !co.contains(s)));
                o
            };
            let n_co = o_count(&order, &co);
            let first = col;
            for (s, &sec) in order.iter().enumerate() {
                f.cols.push(Jacobian::default());
                f.unknowns.push(UnknownRole::Slack {
                    primary: p.primary,
                    secondary: sec,
                });
                f.rows
                    .push(c[p.primary].jacobian().minus(c[sec].jacobian()));
                f.row_const.push((c[p.primary].gap() - c[sec].gap()) / h);
                // The reference primary's row: M + M_ι − ψ'_r (general), M (single primary).
                let weight = if s < n_co { 2.0 } else { 1.0 };
                f.extra.push((primary_row, col, weight));
                for t in first..=first + s {
                    f.extra.push((col, t, 1.0));
                }
                for k in 0..co.len() {
                    f.extra.push((co_row + k, col, weight));
                }
                col += 1;
            }
            co_row += co.len();
        }
        debug_assert_eq!(col, n_normal + n_slack);
        debug_assert_eq!(co_row, n_normal);
        // Friction acts with the normal impulses only (not with a paper-form X's multiplier).
        let impulses: Vec<usize> = (0..n_normal).filter(|&k| !is_paper_x(k)).collect();
        if friction {
            let dirs: Vec<Vec<Jacobian<D>>> = impulses
                .iter()
                .map(|&k| c[normals[k]].friction_jacobians(directions))
                .collect();
            let nd = dirs.first().map_or(0, Vec::len);
            let n_fric = impulses.len();
            let base_f = n_normal + n_slack;
            let base_s = base_f + nd * n_fric;
            for (k, ts) in dirs.into_iter().enumerate() {
                debug_assert_eq!(ts.len(), nd);
                for (d, t) in ts.into_iter().enumerate() {
                    f.cols.push(t.clone());
                    f.unknowns.push(UnknownRole::Friction {
                        contact: normals[impulses[k]],
                        direction: d,
                    });
                    f.rows.push(t);
                    f.row_const.push(0.0);
                    f.extra.push((base_f + nd * k + d, base_s + k, 1.0));
                    f.extra.push((base_s + k, base_f + nd * k + d, -1.0));
                }
            }
            for (k, &normal) in impulses.iter().enumerate() {
                f.cols.push(Jacobian::default());
                f.unknowns.push(UnknownRole::FrictionSlack(normals[normal]));
                f.rows.push(Jacobian::default());
                f.row_const.push(0.0);
                f.extra.push((base_s + k, normal, mu));
            }
        }
        debug_assert_eq!(f.unknowns.len(), f.cols.len());
        f
    }

    /// Number of complementarity unknowns.
    pub fn dim(&self) -> usize {
        self.cols.len()
    }

    fn check<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
    ) -> Result<(), FormulationError> {
        if bodies.len() != free.len() {
            return Err(FormulationError::BodyCount {
                expected: bodies.len(),
                got: free.len(),
            });
        }
        Ok(())
    }

    /// The reduced LCP `w = A z + q` (docs/formulation-notes.md §4.4) for free-flight velocities `free` (ν*).
    pub fn reduced_lcp<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
    ) -> Result<Lcp, FormulationError> {
        self.check(bodies, free)?;
        let n = self.dim();
        // Column by column: M is stored column-major, so a column's entries are contiguous.
        let mut m = DMatrix::zeros(n, n);
        self.reduced_entries(bodies, |i, j, v| m[(i, j)] = v);
        for &(i, j, v) in &self.extra {
            m[(i, j)] += v;
        }
        Ok(Lcp::new(m, self.reduced_q(free))?)
    }

    /// The reduced LCP of [`Formulation::reduced_lcp`] with its matrix sparse (the same
    /// entries, bit for bit, and the constant E / μ entries added to them): for the sparse
    /// Lemke (`signorini_complementarity::lemke_sparse`), which never forms it dense. Entry
    /// (i, j) is stored where rows i and j share a body or an E / μ entry joins them.
    pub fn reduced_csc<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
    ) -> Result<(CscMatrix, DVector<Real>), FormulationError> {
        self.check(bodies, free)?;
        let mut triplets = Vec::new();
        self.reduced_entries(bodies, |i, j, v| triplets.push((i, j, v)));
        // After the products, so that each sum is the dense form's `M_ij + v`.
        triplets.extend(self.extra.iter().copied());
        let n = self.dim();
        let m = CscMatrix::from_triplets(n, n, &triplets)?;
        Ok((m, self.reduced_q(free)))
    }

    /// q of the reduced LCP alone (the vector [`Formulation::reduced_csc`] returns, bit for
    /// bit): for a caller that holds the matrix of a formulation with
    /// [`Formulation::same_matrix`] already.
    pub fn reduced_lcp_q<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
    ) -> Result<DVector<Real>, FormulationError> {
        self.check(bodies, free)?;
        Ok(self.reduced_q(free))
    }

    /// Whether `other` builds the same reduced matrix as this one for the same bodies: the
    /// same Jacobians (rows and columns, body by body, bit for bit) and the same constant
    /// E / μ entries; only the ψ/h constants may differ. The split and gap-correction
    /// re-solves of one step change only gaps while no contact joins, so their problems share
    /// the matrix (`signorini_world`'s reduced-matrix cache). The bodies' inverse masses are not part of
    /// the formulation: the caller compares only problems of one configuration.
    pub fn same_matrix(&self, other: &Self) -> bool {
        fn same<const D: usize>(a: &[Jacobian<D>], b: &[Jacobian<D>]) -> bool {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| {
                    x.blocks.len() == y.blocks.len()
                        && x.blocks.iter().zip(&y.blocks).all(|((i, u), (j, v))| {
                            i == j
                                && u.iter()
                                    .zip(v.iter())
                                    .all(|(p, q)| p.to_bits() == q.to_bits())
                        })
                })
        }
        self.n_normal == other.n_normal
            && self.unknowns == other.unknowns
            && self.extra.len() == other.extra.len()
            && self
                .extra
                .iter()
                .zip(&other.extra)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1 && a.2.to_bits() == b.2.to_bits())
            && same(&self.rows, &other.rows)
            && same(&self.cols, &other.cols)
    }

    /// q of the reduced LCP: `Gᵀν* + ψ/h` terms row by row.
    fn reduced_q(&self, free: &[SVector<Real, D>]) -> DVector<Real> {
        DVector::from_fn(self.dim(), |i, _| {
            self.rows[i].dot_velocity(|b| free[b]) + self.row_const[i]
        })
    }

    /// Every entry of the reduced matrix `Gᵀ M⁻¹ C` that two unknowns sharing a body make,
    /// column by column (rows in the order their bodies list them, each (i, j) once), given to
    /// `put(i, j, value)`. The E / μ entries are not included.
    fn reduced_entries<B: DofBody<D>>(
        &self,
        bodies: &[B],
        mut put: impl FnMut(usize, usize, Real),
    ) {
        let n = self.dim();
        let blocks: Vec<MassBlock<D>> = bodies.iter().map(|b| b.inverse_mass_block()).collect();
        let inv = |b: usize| blocks[b];
        // Entry (i, j) is non-zero only if row i and column j share a body: visit those
        // pairs only (each body's columns listed once), so the cost is O(n²) only in a dense
        // matrix's storage, not in Jacobian products. Every entry is the same
        // `weighted_dot` as a visit of all pairs would compute, so M is bit-identical.
        let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); bodies.len()];
        for (i, ri) in self.rows.iter().enumerate() {
            for (b, _) in &ri.blocks {
                rows_of[*b].push(i);
            }
        }
        // W_b k_b of every column block, once (a dense 3D block costs D² per product, and
        // each column meets every row of its bodies): entry (i, j) is then Σ_b g_bᵀ (W_b k_b)
        // in the row's block order, the same operations as `Jacobian::weighted_dot`.
        let weighted: Vec<Vec<(usize, SVector<Real, D>)>> = self
            .cols
            .iter()
            .map(|c| c.blocks.iter().map(|(b, k)| (*b, inv(*b).mul(k))).collect())
            .collect();
        let mut seen = vec![usize::MAX; n];
        for (j, c) in self.cols.iter().enumerate() {
            for (b, _) in &c.blocks {
                for &i in &rows_of[*b] {
                    if seen[i] != j {
                        seen[i] = j;
                        put(i, j, entry(&self.rows[i], c, &weighted[j], inv));
                    }
                }
            }
        }
    }

    /// New velocities from a reduced-LCP solution: `ν = ν* + M⁻¹ Σ_j c_j z_j`.
    pub fn velocities_from_lcp<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
        z: &DVector<Real>,
    ) -> Vec<SVector<Real, D>> {
        let blocks: Vec<MassBlock<D>> = bodies.iter().map(|b| b.inverse_mass_block()).collect();
        let mut v = free.to_vec();
        for (j, cj) in self.cols.iter().enumerate() {
            for (b, g) in &cj.blocks {
                v[*b] += blocks[*b].mul(g) * z[j];
            }
        }
        v
    }

    /// The mixed LCP with free velocities of the dynamic bodies first (docs/formulation-notes.md §3.1/§4.2):
    /// `0 = −M ν + Σ_j c_j z_j + M ν*`, then the rows of the module docs. Also returns the
    /// dynamic body of each D-block of free unknowns.
    pub fn mixed_mcp<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
    ) -> Result<(Mcp, Vec<usize>), FormulationError> {
        let t = self.mixed_triplets(bodies, free)?;
        let mut m = DMatrix::zeros(t.n, t.n);
        for &(i, j, v) in &t.triplets {
            m[(i, j)] += v;
        }
        Ok((Mcp::mixed(m, t.q, t.n_free)?, t.dynamic))
    }

    /// The mixed LCP of [`Formulation::mixed_mcp`] in sparse form, never dense: its matrix as
    /// (row, column, value) triplets (duplicates to be summed), `q`, the number of free
    /// unknowns (D per dynamic body, first) and the dynamic body of each D-block. Entries:
    /// `−M` blocks (D² per dynamic body, or D if diagonal), `c_j` columns and `G_i` rows (D per
    /// body a contact touches) and the constant E / μ entries; O(bodies + contacts) in all.
    pub fn mixed_triplets<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
    ) -> Result<MixedTriplets, FormulationError> {
        self.check(bodies, free)?;
        let dynamic: Vec<usize> = (0..bodies.len())
            .filter(|&b| !bodies[b].is_static())
            .collect();
        let mut slot = vec![usize::MAX; bodies.len()];
        for (k, &b) in dynamic.iter().enumerate() {
            slot[b] = k;
        }
        let nv = D * dynamic.len();
        let n = nv + self.dim();
        let mut t = Vec::with_capacity(D * D * dynamic.len() + 4 * D * n);
        let mut q = DVector::zeros(n);
        for (k, &b) in dynamic.iter().enumerate() {
            let mass = bodies[b].mass_block();
            for (i, j, v) in mass.entries() {
                t.push((D * k + i, D * k + j, -v));
            }
            let momentum = mass.mul(&free[b]);
            for d in 0..D {
                q[D * k + d] = momentum[d];
            }
        }
        for (j, cj) in self.cols.iter().enumerate() {
            for (b, g) in cj.blocks.iter().filter(|(b, _)| slot[*b] != usize::MAX) {
                t.extend((0..D).map(|d| (D * slot[*b] + d, nv + j, g[d])));
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            for (b, g) in r.blocks.iter().filter(|(b, _)| slot[*b] != usize::MAX) {
                t.extend((0..D).map(|d| (nv + i, D * slot[*b] + d, g[d])));
            }
            q[nv + i] = self.row_const[i];
        }
        t.extend(self.extra.iter().map(|&(i, j, v)| (nv + i, nv + j, v)));
        if let Some(k) = q.iter().position(|x| !x.is_finite()) {
            return Err(FormulationError::Problem(ProblemError::NonFinite {
                what: "q",
                index: k,
            }));
        }
        Ok(MixedTriplets {
            n,
            triplets: t,
            q,
            n_free: nv,
            dynamic,
        })
    }

    /// The contact (index into the constraint set's contacts) behind each normal unknown
    /// (the first [`Formulation::n_normal`] unknowns), for warm starts keyed by feature pair.
    pub fn normal_contacts(&self) -> &[usize] {
        &self.normal_contacts
    }

    /// What each of the [`Formulation::dim`] unknowns stands for, in order.
    pub fn unknowns(&self) -> &[UnknownRole] {
        &self.unknowns
    }

    /// New velocities from a mixed-LCP solution (static bodies keep zero velocity).
    pub fn velocities_from_mcp(
        &self,
        n_bodies: usize,
        dynamic: &[usize],
        z: &DVector<Real>,
    ) -> Vec<SVector<Real, D>> {
        let mut v = vec![SVector::<Real, D>::zeros(); n_bodies];
        for (k, &b) in dynamic.iter().enumerate() {
            v[b] = SVector::<Real, D>::from_fn(|d, _| z[D * k + d]);
        }
        v
    }
}

/// How many of `order`'s first entries are co-primaries (they come first).
fn o_count(order: &[usize], co: &[usize]) -> usize {
    order.iter().take_while(|s| co.contains(s)).count()
}

/// Entry `rᵀ W c` of the reduced matrix from the column's precomputed blocks `W_b c_b`
/// (`wc`): bit-identical to `r.weighted_dot(c, inv)`. A dense block's `quadratic` is
/// `g · (W k)`, so the stored product is used; a diagonal block's is `(g ∘ w) · k`, whose
/// rounding differs from `g · (w ∘ k)`, so it is recomputed as before (cheap).
fn entry<const D: usize>(
    r: &Jacobian<D>,
    c: &Jacobian<D>,
    wc: &[(usize, SVector<Real, D>)],
    inv: impl Fn(usize) -> MassBlock<D>,
) -> Real {
    let mut s = 0.0;
    for (b, g) in &r.blocks {
        if let Some(k) = wc.iter().position(|(cb, _)| cb == b) {
            s += match inv(*b) {
                MassBlock::Dense(_) => g.dot(&wc[k].1),
                w @ MassBlock::Diagonal(_) => w.quadratic(g, &c.blocks[k].1),
            };
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim3::{Peg3Params, peg_constraints3};
    use signorini_dynamics::RigidBody3;
    use signorini_geometry::dim3::ConvexPolyhedron;
    use signorini_math::{Mat3, Quat, Vec3, Vec6};

    /// `reduced_lcp` visits only the (row, column) pairs that share a body, column by column;
    /// every entry must equal, bit for bit, the `weighted_dot` of a visit of all n² pairs.
    /// Three cubes stacked on a tilted fixed one (the top two turned a little about z, the
    /// middle one shifted by `shift` along x) and their PEG constraints.
    fn stack(shift: Real) -> (Vec<RigidBody3>, ConstraintSet<crate::dim3::Contact3>) {
        let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.5)).unwrap();
        let tilt = Quat::from_scaled_axis(Vec3::new(0.02, -0.01, 0.3));
        let mut bodies = vec![RigidBody3::fixed().with_pose(Vec3::new(0.0, 0.0, -1.0), tilt)];
        for k in 0..3 {
            let turn = Quat::from_scaled_axis(Vec3::new(0.0, 0.0, 0.05 * k as Real));
            let x = 0.01 * k as Real + if k == 1 { shift } else { 0.0 };
            bodies.push(
                RigidBody3::dynamic(1.0, Mat3::identity() / 6.0)
                    .unwrap()
                    .with_pose(Vec3::new(x, 0.0, k as Real + 0.001), turn),
            );
        }
        let now: Vec<ConvexPolyhedron> = bodies
            .iter()
            .map(|b| cube.transformed(&b.position, &b.orientation))
            .collect();
        let pairs = [(0, 1), (1, 2), (2, 3)];
        let set = peg_constraints3(&bodies, &now, &now, &pairs, &Peg3Params::for_step(0.01));
        (bodies, set)
    }

    /// The gap-correction re-solves reuse the matrix of the solve before them when
    /// `same_matrix` says so: it must hold when only gaps changed (and then the matrices are
    /// the same bits while q differs) and fail when a Jacobian or a μ entry changed.
    #[test]
    fn same_matrix_sees_through_gaps_only() {
        let (bodies, set) = stack(0.0);
        let f = Formulation::<6>::build(&set, 0.01, 0.5);
        let mut lowered = set.clone();
        lowered.contacts.iter_mut().for_each(|c| c.gap -= 1e-4);
        let g = Formulation::<6>::build(&lowered, 0.01, 0.5);
        assert!(f.same_matrix(&g) && g.same_matrix(&f));
        let free = vec![Vec6::zeros(); bodies.len()];
        let ((mf, qf), (mg, qg)) = (
            f.reduced_csc(&bodies, &free).unwrap(),
            g.reduced_csc(&bodies, &free).unwrap(),
        );
        let bits = |m: &CscMatrix| m.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!((mf.col_ptr(), mf.row_idx()), (mg.col_ptr(), mg.row_idx()));
        assert_eq!(bits(&mf), bits(&mg));
        assert_ne!(qf, qg);
        assert_eq!(g.reduced_lcp_q(&bodies, &free).unwrap(), qg);
        // Another μ: other constant entries.
        assert!(!f.same_matrix(&Formulation::<6>::build(&set, 0.01, 0.3)));
        // The middle cube 1 mm aside: other Jacobians (the same contacts, if any differ in
        // number the answer is no all the more).
        let (_, moved) = stack(1e-3);
        assert!(!f.same_matrix(&Formulation::<6>::build(&moved, 0.01, 0.5)));
    }

    #[test]
    fn reduced_lcp_equals_the_all_pairs_product_bit_for_bit() {
        let (bodies, set) = stack(0.0);
        let f = Formulation::<6>::build(&set, 0.01, 0.5);
        let free = vec![Vec6::zeros(); bodies.len()];
        let lcp = f.reduced_lcp(&bodies, &free).unwrap();
        let inv: Vec<MassBlock<6>> = bodies.iter().map(|b| b.inverse_mass_block()).collect();
        let mut nonzero = 0;
        for i in 0..f.dim() {
            for j in 0..f.dim() {
                let mut want = f.rows[i].weighted_dot(&f.cols[j], |b| inv[b]);
                for &(r, c, v) in &f.extra {
                    if (r, c) == (i, j) {
                        want += v;
                    }
                }
                assert_eq!(lcp.m[(i, j)].to_bits(), want.to_bits(), "entry ({i}, {j})");
                nonzero += usize::from(want != 0.0);
            }
        }
        assert!(f.dim() > 40 && nonzero > f.dim(), "{} unknowns", f.dim());
        // The sparse form holds the same matrix bit for bit (E / μ entries summed onto the
        // products), stores no entry the products and E / μ do not make, and the same q.
        let (csc, q) = f.reduced_csc(&bodies, &free).unwrap();
        let dense = csc.to_dense();
        for i in 0..f.dim() {
            for j in 0..f.dim() {
                assert_eq!(
                    dense[(i, j)].to_bits(),
                    lcp.m[(i, j)].to_bits(),
                    "csc ({i}, {j})"
                );
            }
        }
        assert!(
            csc.nnz() < f.dim() * f.dim() && csc.nnz() >= nonzero,
            "{}",
            csc.nnz()
        );
        assert_eq!(q, lcp.q);
    }
}
