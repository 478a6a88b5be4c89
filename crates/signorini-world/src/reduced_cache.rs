//! The sparse reduced matrix of one step's solves, kept for the next solve of the same step
//! that formulates the same matrix ([`ReducedCache`]).
//!
//! Owns: the last formulation the sparse Lemke solved and the matrix `Gᵀ M⁻¹ C + E` built
//! for it, held as a `SparseLemkeMatrix` with the factors of its last answer's basis (a
//! warm start from that basis does not factor it again: docs/peg3d.md, item 28).
//! Does not own: the solve (`stepper/large.rs::solve_sparse_lemke`), or when a cache lives
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

use signorini_complementarity::{CscMatrix, SparseLemkeMatrix};
use signorini_contact::Formulation;

/// One formulation and its sparse reduced matrix, held with the sparse Lemke's factors of its
/// last answer ([module docs](self)).
pub(crate) struct ReducedCache<const D: usize> {
    entry: Option<(Formulation<D>, SparseLemkeMatrix)>,
}

impl<const D: usize> Default for ReducedCache<D> {
    fn default() -> Self {
        ReducedCache { entry: None }
    }
}

impl<const D: usize> ReducedCache<D> {
    /// The matrix of `form`: the cached one (with the factors of its last answer) if the
    /// cached formulation builds the same ([`Formulation::same_matrix`], compared once), else
    /// `build()`'s, kept in its place.
    pub(crate) fn matrix<E>(
        &mut self,
        form: &Formulation<D>,
        build: impl FnOnce() -> Result<CscMatrix, E>,
    ) -> Result<&mut SparseLemkeMatrix, E> {
        let kept = self.entry.take().filter(|(f, _)| f.same_matrix(form));
        let entry = match kept {
            Some(entry) => entry,
            None => (form.clone(), SparseLemkeMatrix::new(build()?)),
        };
        Ok(&mut self.entry.insert(entry).1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_contact::dim3::{Peg3Params, peg_constraints3};
    use signorini_dynamics::RigidBody3;
    use signorini_geometry::dim3::ConvexPolyhedron;
    use signorini_math::{Mat3, Quat, Vec3};

    /// A cube resting 1 mm above a fixed one, turned by `turn` about z, and the formulation
    /// of its PEG constraints with every gap lowered by `lower`.
    fn formulation(turn: f64, lower: f64) -> Formulation<6> {
        let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.5)).unwrap();
        let bodies = [
            RigidBody3::fixed(),
            RigidBody3::dynamic(1.0, Mat3::identity() / 6.0)
                .unwrap()
                .with_pose(
                    Vec3::new(0.0, 0.0, 1.001),
                    Quat::from_scaled_axis(Vec3::z() * turn),
                ),
        ];
        let shapes: Vec<ConvexPolyhedron> = bodies
            .iter()
            .map(|b| cube.transformed(&b.position, &b.orientation))
            .collect();
        let mut set = peg_constraints3(
            &bodies,
            &shapes,
            &shapes,
            &[(0, 1)],
            &Peg3Params::for_step(0.01),
        );
        set.contacts.iter_mut().for_each(|c| c.gap -= lower);
        Formulation::<6>::build(&set, 0.01, 0.0)
    }

    fn matrix(n: usize) -> CscMatrix {
        CscMatrix::from_triplets(n, n, &[(0, 0, n as f64)]).unwrap()
    }

    #[test]
    fn builds_once_while_only_gaps_change_and_again_when_the_jacobians_do() {
        let mut cache = ReducedCache::default();
        let mut builds = 0;
        let mut get = |cache: &mut ReducedCache<6>, f: &Formulation<6>| {
            let got = cache.matrix(f, || {
                builds += 1;
                Ok::<_, ()>(matrix(builds))
            });
            got.unwrap().matrix().values()[0]
        };
        let first = formulation(0.1, 0.0);
        assert!(first.dim() > 0);
        assert_eq!(get(&mut cache, &first), 1.0);
        // Only the gaps differ: the kept matrix, no build.
        assert_eq!(get(&mut cache, &formulation(0.1, 1e-4)), 1.0);
        // Turned: other Jacobians, a new build that replaces the kept one.
        assert_eq!(get(&mut cache, &formulation(0.2, 0.0)), 2.0);
        assert_eq!(get(&mut cache, &first), 3.0);
        // A build that fails leaves nothing kept.
        let failed = cache.matrix(&first, || Err::<CscMatrix, _>("no matrix"));
        assert!(failed.is_ok(), "the kept matrix is used without building");
        let failed = cache.matrix(&formulation(0.3, 0.0), || Err::<CscMatrix, _>("no matrix"));
        assert_eq!(failed.err(), Some("no matrix"));
        assert!(cache.entry.is_none());
    }
}
