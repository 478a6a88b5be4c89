//! Indexed triangle meshes with linearly moving vertices, the input of the broad phase.
//!
//! Owns: [`SweptMesh`] (positions at `t = 0` and `t = 1`, triangles, derived unique edges) and its
//! validation. Does not own: the BVH (`bvh.rs`) or the kernels.

use crate::error::MeshError;
use signorini_math::Vec3;

/// A triangle mesh whose vertices move linearly from `x0` to `x1` over the step.
#[derive(Clone, Debug)]
pub struct SweptMesh {
    x0: Vec<Vec3>,
    x1: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    edges: Vec<[u32; 2]>,
}

impl SweptMesh {
    /// Build and validate a mesh; edges are derived (each undirected edge once, as
    /// `[min, max]`, sorted).
    ///
    /// # Errors
    /// [`MeshError`] on length mismatch, out-of-range or repeated indices, or non-finite
    /// positions.
    pub fn new(x0: Vec<Vec3>, x1: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        check_positions(&x0, &x1)?;
        let n = x0.len();
        for (i, t) in triangles.iter().enumerate() {
            for &v in t {
                if v as usize >= n {
                    return Err(MeshError::IndexOutOfRange {
                        triangle: i,
                        vertex: v,
                        count: n,
                    });
                }
            }
            if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
                return Err(MeshError::DegenerateTriangle { triangle: i });
            }
        }
        let mut edges: Vec<[u32; 2]> = triangles
            .iter()
            .flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]])
            .map(|[a, b]| [a.min(b), a.max(b)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        Ok(SweptMesh {
            x0,
            x1,
            triangles,
            edges,
        })
    }

    /// Replace the positions (same vertex count) for a new step.
    ///
    /// # Errors
    /// [`MeshError::LengthMismatch`] if the counts differ from the mesh's, or
    /// [`MeshError::NonFinite`].
    pub fn set_positions(&mut self, x0: Vec<Vec3>, x1: Vec<Vec3>) -> Result<(), MeshError> {
        check_positions(&x0, &x1)?;
        if x0.len() != self.x0.len() {
            return Err(MeshError::LengthMismatch {
                start: x0.len(),
                end: self.x0.len(),
            });
        }
        self.x0 = x0;
        self.x1 = x1;
        Ok(())
    }

    /// Positions at `t = 0`.
    pub fn start(&self) -> &[Vec3] {
        &self.x0
    }

    /// Positions at `t = 1`.
    pub fn end(&self) -> &[Vec3] {
        &self.x1
    }

    /// Triangles (vertex indices).
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Unique undirected edges `[a, b]` with `a < b`, sorted.
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.x0.len()
    }
}

fn check_positions(x0: &[Vec3], x1: &[Vec3]) -> Result<(), MeshError> {
    if x0.len() != x1.len() {
        return Err(MeshError::LengthMismatch {
            start: x0.len(),
            end: x1.len(),
        });
    }
    for (i, (a, b)) in x0.iter().zip(x1).enumerate() {
        if !(a.iter().all(|x| x.is_finite()) && b.iter().all(|x| x.is_finite())) {
            return Err(MeshError::NonFinite { vertex: i });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_unique_and_errors_are_named() {
        let x = vec![Vec3::zeros(); 4];
        let m = SweptMesh::new(x.clone(), x.clone(), vec![[0, 1, 2], [2, 1, 3]]).unwrap();
        assert_eq!(m.edges(), &[[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]]);
        assert!(matches!(
            SweptMesh::new(x.clone(), x.clone(), vec![[0, 1, 7]]),
            Err(MeshError::IndexOutOfRange { vertex: 7, .. })
        ));
        assert!(SweptMesh::new(x.clone(), x[..3].to_vec(), vec![]).is_err());
    }
}
