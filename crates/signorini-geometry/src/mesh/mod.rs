//! Indexed triangle meshes: validation, file formats, procedural shapes, mass properties.
//!
//! Owns: [`TriMesh`] (vertices and counter-clockwise triangles, validated: finite coordinates,
//! indices in range, no degenerate triangle, consistent orientation, outward orientation when
//! closed), the OBJ and STL (ASCII and binary) readers and writers ([`io`]), the procedural
//! shapes used by the penalty experiments ([`shapes`]: box, sphere, torus, cylinder, thin stick,
//! cloth grid, open bucket) and the mass properties of a closed mesh ([`mass`]).
//! Does not own: moving meshes for CCD (`signorini-ccd::SweptMesh` carries start and end
//! positions), bodies (`signorini-dynamics`).
//!
//! Conventions: a triangle `[a, b, c]` has the normal `(b − a) × (c − a)`; on a closed mesh it
//! points outward (positive signed volume).

pub mod io;
pub mod mass;
pub mod query;
pub mod shapes;

pub use io::MeshIoError;
pub use mass::MassProperties;

use signorini_math::{Real, Vec3};
use std::collections::BTreeMap;

/// Relative area below which a triangle counts as degenerate: `|n| ≤ 1e-12 · L²` with `L` the
/// mesh's bounding-box diagonal (about 50 ulps of a unit-scale cross product).
pub const DEGENERATE_AREA_REL: Real = 1e-12;

/// Why a triangle mesh is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// The mesh has no triangles.
    #[error("mesh has no triangles")]
    Empty,
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFinite {
        /// Vertex index.
        vertex: usize,
    },
    /// A triangle refers to a missing vertex.
    #[error("triangle {triangle} refers to vertex {vertex}, but there are {count} vertices")]
    IndexOutOfRange {
        /// Triangle index.
        triangle: usize,
        /// Offending vertex index.
        vertex: u32,
        /// Vertex count.
        count: usize,
    },
    /// A triangle repeats a vertex or has (nearly) zero area.
    #[error("triangle {triangle} is degenerate (area {area:e})")]
    Degenerate {
        /// Triangle index.
        triangle: usize,
        /// Its area.
        area: Real,
    },
    /// Two triangles use the same directed edge, so their orientations disagree (or the edge
    /// is shared by more than two triangles).
    #[error(
        "triangles {first} and {second} both use directed edge {a}->{b}: inconsistent orientation or non-manifold edge"
    )]
    InconsistentOrientation {
        /// First triangle using the edge.
        first: usize,
        /// Second triangle using the edge.
        second: usize,
        /// Edge start vertex.
        a: u32,
        /// Edge end vertex.
        b: u32,
    },
    /// A closed mesh with negative signed volume (normals point inward).
    #[error("closed mesh is inside out (signed volume {volume:e} < 0)")]
    InsideOut {
        /// The signed volume.
        volume: Real,
    },
}

/// A validated indexed triangle mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    closed: bool,
}

impl TriMesh {
    /// Build and validate a mesh (see [`MeshError`] for what is checked, in that order).
    ///
    /// # Errors
    /// The first [`MeshError`] found.
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        if triangles.is_empty() {
            return Err(MeshError::Empty);
        }
        if let Some(vertex) = vertices
            .iter()
            .position(|v| !v.iter().all(|x| x.is_finite()))
        {
            return Err(MeshError::NonFinite { vertex });
        }
        check_triangles(&vertices, &triangles)?;
        let closed = check_orientation(&triangles)?;
        let mesh = TriMesh {
            vertices,
            triangles,
            closed,
        };
        if closed {
            let volume = mesh.signed_volume();
            if volume < 0.0 {
                return Err(MeshError::InsideOut { volume });
            }
        }
        Ok(mesh)
    }

    /// Vertex positions (body or world frame, as built).
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Triangles as vertex index triples.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// `true` if every edge is shared by exactly two (consistently oriented) triangles.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Unique undirected edges `[a, b]`, `a < b`, sorted (the same order as
    /// `signorini_ccd::SweptMesh::edges`).
    pub fn edges(&self) -> Vec<[u32; 2]> {
        let mut e: Vec<[u32; 2]> = self
            .triangles
            .iter()
            .flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]])
            .map(|[a, b]| [a.min(b), a.max(b)])
            .collect();
        e.sort_unstable();
        e.dedup();
        e
    }

    /// Unnormalised normal `(b − a) × (c − a)` of triangle `t` (twice its area in length).
    pub fn face_normal(&self, t: usize) -> Vec3 {
        let [a, b, c] = self.corners(t);
        (b - a).cross(&(c - a))
    }

    /// The three corner positions of triangle `t`.
    pub fn corners(&self, t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|i| self.vertices[i as usize])
    }

    /// Signed volume enclosed (meaningful for closed meshes): `Σ a·(b×c) / 6`.
    pub fn signed_volume(&self) -> Real {
        (0..self.triangles.len())
            .map(|t| {
                let [a, b, c] = self.corners(t);
                a.dot(&b.cross(&c))
            })
            .sum::<Real>()
            / 6.0
    }

    /// The same mesh with every vertex mapped by `f` (validated again).
    ///
    /// # Errors
    /// As [`TriMesh::new`] (e.g. a map that flattens triangles).
    pub fn map(&self, f: impl Fn(&Vec3) -> Vec3) -> Result<Self, MeshError> {
        TriMesh::new(
            self.vertices.iter().map(f).collect(),
            self.triangles.clone(),
        )
    }

    /// Axis-aligned bounds `(min, max)`.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut lo = Vec3::repeat(Real::INFINITY);
        let mut hi = Vec3::repeat(Real::NEG_INFINITY);
        for v in &self.vertices {
            lo = lo.inf(v);
            hi = hi.sup(v);
        }
        (lo, hi)
    }
}

fn check_triangles(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<(), MeshError> {
    let n = vertices.len();
    let mut lo = Vec3::repeat(Real::INFINITY);
    let mut hi = Vec3::repeat(Real::NEG_INFINITY);
    for v in vertices {
        lo = lo.inf(v);
        hi = hi.sup(v);
    }
    let scale2 = (hi - lo).norm_squared();
    for (i, t) in triangles.iter().enumerate() {
        if let Some(&vertex) = t.iter().find(|&&v| v as usize >= n) {
            return Err(MeshError::IndexOutOfRange {
                triangle: i,
                vertex,
                count: n,
            });
        }
        let [a, b, c] = t.map(|k| vertices[k as usize]);
        let area = 0.5 * (b - a).cross(&(c - a)).norm();
        let repeated = t[0] == t[1] || t[1] == t[2] || t[0] == t[2];
        if repeated || area <= 0.5 * DEGENERATE_AREA_REL * scale2 {
            return Err(MeshError::Degenerate { triangle: i, area });
        }
    }
    Ok(())
}

/// Every directed edge used at most once; returns whether every edge has its twin (closed).
fn check_orientation(triangles: &[[u32; 3]]) -> Result<bool, MeshError> {
    let mut directed: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (i, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            if let Some(&first) = directed.get(&(a, b)) {
                return Err(MeshError::InconsistentOrientation {
                    first,
                    second: i,
                    a,
                    b,
                });
            }
            directed.insert((a, b), i);
        }
    }
    Ok(directed
        .keys()
        .all(|&(a, b)| directed.contains_key(&(b, a))))
}
