//! Rigid bodies carrying a triangle mesh, for penalty contact.
//!
//! Owns: [`MeshBody`] — a [`RigidBody3`] and its mesh in the body frame (origin at the centre
//! of mass), with world-frame vertex positions at the current pose and at a predicted pose.

use super::PenaltyError;
use signorini_dynamics::RigidBody3;
use signorini_geometry::mesh::{TriMesh, mass::mass_properties};
use signorini_math::{Quat, Real, Vec3};

/// A rigid body with a triangle-mesh surface.
#[derive(Clone, Debug)]
pub struct MeshBody {
    /// The rigid-body state (pose, velocity, mass properties, external wrench).
    pub state: RigidBody3,
    mesh: TriMesh,
    edges: Vec<[u32; 2]>,
    sharp: Vec<bool>,
}

/// Cosine of the dihedral angle above which an interior edge counts as flat (≈ 0.1°).
pub const FLAT_EDGE_COS: Real = 0.999_998;

impl MeshBody {
    /// A dynamic body of uniform `density` from a closed mesh given in any frame: the mesh is
    /// re-centred on its centre of mass, which is placed at `position`.
    ///
    /// # Errors
    /// [`PenaltyError::Mass`] for an open mesh or bad density, [`PenaltyError::Body`].
    pub fn dynamic(mesh: &TriMesh, density: Real, position: Vec3) -> Result<Self, PenaltyError> {
        let mp = mass_properties(mesh, density)?;
        let centred = mesh.map(|p| p - mp.center)?;
        let state = RigidBody3::dynamic(mp.mass, mp.inertia)?.with_pose(position, Quat::identity());
        Ok(Self::with_state(state, centred))
    }

    /// Builder: add the weight `m g` of the gravitational acceleration `g` (m/s², a vector:
    /// `Vec3::new(0.0, 0.0, -9.81)` along −z) to the external force (no-op for static bodies).
    pub fn with_gravity(mut self, g: Vec3) -> Self {
        self.state = self.state.with_gravity(g);
        self
    }

    /// Builder: set the pose (centre of mass, orientation).
    pub fn with_pose(mut self, position: Vec3, orientation: Quat) -> Self {
        self.state = self.state.with_pose(position, orientation);
        self
    }

    /// A static body whose mesh is given in the world frame.
    pub fn fixed(mesh: TriMesh) -> Self {
        Self::with_state(RigidBody3::fixed(), mesh)
    }

    fn with_state(state: RigidBody3, mesh: TriMesh) -> Self {
        let edges = mesh.edges();
        let sharp = sharp_edges(&mesh, &edges);
        MeshBody {
            state,
            mesh,
            edges,
            sharp,
        }
    }

    /// `false` for an interior edge between two coplanar triangles (e.g. the diagonal of a
    /// flat quad): such an edge is not a geometric feature, and edge–edge pairs on it would
    /// push along the face (the stepper skips them). Boundary edges are sharp.
    pub fn edge_is_sharp(&self, e: usize) -> bool {
        self.sharp[e]
    }

    /// [`MeshBody::edge_is_sharp`] for every edge, in the order of [`MeshBody::edges`].
    pub fn sharp_edges(&self) -> &[bool] {
        &self.sharp
    }

    /// The mesh in the body frame.
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// Unique edges of the mesh (`[a, b]`, `a < b`, sorted).
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }

    /// World positions of the vertices for the body state `s`.
    pub fn vertices_at(&self, s: &RigidBody3) -> Vec<Vec3> {
        self.mesh
            .vertices()
            .iter()
            .map(|p| s.world_point(p))
            .collect()
    }

    /// World positions of the vertices now.
    pub fn world_vertices(&self) -> Vec<Vec3> {
        self.vertices_at(&self.state)
    }
}

/// Sharpness of every edge: adjacent unit face normals differ (cosine below [`FLAT_EDGE_COS`]).
fn sharp_edges(mesh: &TriMesh, edges: &[[u32; 2]]) -> Vec<bool> {
    let mut faces: Vec<Vec<usize>> = vec![Vec::new(); edges.len()];
    for (t, tri) in mesh.triangles().iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            if let Ok(e) = edges.binary_search(&[a.min(b), a.max(b)]) {
                faces[e].push(t);
            }
        }
    }
    faces
        .iter()
        .map(|f| match f.as_slice() {
            [a, b] => {
                let (na, nb) = (
                    mesh.face_normal(*a).normalize(),
                    mesh.face_normal(*b).normalize(),
                );
                na.dot(&nb) < FLAT_EDGE_COS
            }
            _ => true,
        })
        .collect()
}
