//! The sparse reduced matrix of one step's solves, kept for the next solve of the same step
//! that formulates the same matrix ([`ReducedCache`]).
//!
//! Owns: the last formulation the sparse Lemke solved and the matrix `Gᵀ M⁻¹ C + E` built
//! for it. Does not own: the solve (`stepper.rs::solve_sparse_lemke`), or when a cache lives
//! (one per island step, created by `step_whole`, handed to the first solve, the split
//! impulse and every gap-correction round; never to the position projection, which solves
//! after the bodies moved and their inverse masses with them).
//!
//! Why: the gap-correction rounds change only gaps while no contact joins (docs/peg3d.md,
//! item 27), so their reduced matrices are the first solve's, entry for entry; building one
//! (`Formulation::reduced_csc`: the Jacobian products and the triplet sort) was 13 % of the
//! 125-body pile's run (`perf`, session 29). A cached matrix is used only when
//! [`Formulation::same_matrix`] says the new formulation's Jacobians and constant entries are
//! the cached one's bit for bit, so the problem — and every trajectory — is unchanged.

use signorini_complementarity::CscMatrix;
use signorini_contact::Formulation;

/// One formulation and its sparse reduced matrix ([module docs](self)).
pub(crate) struct ReducedCache<const D: usize> {
    entry: Option<(Formulation<D>, CscMatrix)>,
}

impl<const D: usize> Default for ReducedCache<D> {
    fn default() -> Self {
        ReducedCache { entry: None }
    }
}

impl<const D: usize> ReducedCache<D> {
    /// The matrix of `form`: the cached one if the cached formulation builds the same
    /// ([`Formulation::same_matrix`], compared once), else `build()`'s, kept in its place.
    pub(crate) fn matrix<E>(
        &mut self,
        form: &Formulation<D>,
        build: impl FnOnce() -> Result<CscMatrix, E>,
    ) -> Result<&CscMatrix, E> {
        let kept = self.entry.take().filter(|(f, _)| f.same_matrix(form));
        let entry = match kept {
            Some(entry) => entry,
            None => (form.clone(), build()?),
        };
        Ok(&self.entry.insert(entry).1)
    }
}
