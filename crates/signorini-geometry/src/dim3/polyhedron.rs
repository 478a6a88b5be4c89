//! Validated convex polyhedra with full feature adjacency (paper §4, Fig. 7;
//! docs/formulation-notes.md §2).
//!
//! Owns: [`ConvexPolyhedron`] (vertices, polygonal faces counter-clockwise seen from outside,
//! edges with their two faces and in-face vectors t₁, t₂, vertex → edges/faces adjacency), its
//! validation errors [`PolyhedronError`], the constructors `icosahedron` and `cuboid`, and
//! rigid placement. Does not own: the convex hull (`hull`), mass properties (`mass`),
//! intersection volumes (`clip`).

use signorini_math::{Quat, Real, Vec3};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a vertex/face description (or a point set) is not a valid convex polyhedron.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolyhedronError {
    /// Fewer than four vertices (or points).
    #[error("{count} vertices/points given; at least 4 are required")]
    TooFewVertices {
        /// Number given.
        count: usize,
    },
    /// Too many points for the brute-force hull (see [`super::MAX_HULL_POINTS`]).
    #[error("{count} points given; the hull accepts at most {max}")]
    TooManyPoints {
        /// Number given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("vertex {index} has a non-finite coordinate ({x}, {y}, {z})")]
    NonFinite {
        /// Vertex (point) index.
        index: usize,
        /// x.
        x: Real,
        /// y.
        y: Real,
        /// z.
        z: Real,
    },
    /// All points lie on one plane (or line): the body has no volume.
    #[error("points are flat (all within {tolerance:e} of one plane): no volume")]
    Flat {
        /// Distance tolerance used.
        tolerance: Real,
    },
    /// A face has fewer than three vertices.
    #[error("face {face} has {count} vertices; at least 3 are required")]
    FaceTooSmall {
        /// Face index.
        face: usize,
        /// Number of vertices.
        count: usize,
    },
    /// A face refers to a vertex that does not exist.
    #[error("face {face} refers to vertex {index}, but there are only {count} vertices")]
    BadIndex {
        /// Face index.
        face: usize,
        /// The bad vertex index.
        index: usize,
        /// Number of vertices.
        count: usize,
    },
    /// A face has (near) zero area or repeats a vertex.
    #[error("face {face} is degenerate (zero area or a repeated vertex)")]
    DegenerateFace {
        /// Face index.
        face: usize,
    },
    /// A face's vertices are not on one plane.
    #[error("face {face} is not planar: vertex {vertex} is {distance:e} off its plane")]
    NonPlanarFace {
        /// Face index.
        face: usize,
        /// Offending vertex.
        vertex: usize,
        /// Distance from the face plane.
        distance: Real,
    },
    /// The directed edge `tail → head` is used by no face in the opposite direction, or by
    /// two faces in the same direction: the surface is open, non-manifold or inconsistently
    /// oriented.
    #[error(
        "edge {tail}→{head} is not matched by exactly one face running {head}→{tail} \
         (open, non-manifold or inconsistently oriented surface)"
    )]
    OpenSurface {
        /// Tail vertex of the unmatched directed edge.
        tail: usize,
        /// Head vertex.
        head: usize,
    },
    /// A vertex belongs to no face.
    #[error("vertex {index} belongs to no face")]
    UnusedVertex {
        /// Vertex index.
        index: usize,
    },
    /// The coordinates are so large (or small) that the volume, centroid or inertia is not a
    /// finite positive number in f64.
    #[error(
        "out of range: at this scale (largest |coordinate| {scale:e}) the polyhedron's {quantity} is not finite in f64"
    )]
    OutOfRange {
        /// Largest absolute coordinate.
        scale: Real,
        /// `volume`, `centroid` or `inertia`.
        quantity: &'static str,
    },
    /// Faces are clockwise seen from outside (the enclosed volume is negative).
    #[error("faces are clockwise seen from outside (signed volume {volume:e})")]
    InwardFaces {
        /// Signed volume.
        volume: Real,
    },
    /// A vertex lies outside a face's plane, or a face turns the wrong way at a vertex.
    #[error("not convex: vertex {vertex} is {distance:e} outside the plane of face {face}")]
    NotConvex {
        /// Face index.
        face: usize,
        /// Vertex index.
        vertex: usize,
        /// Signed distance outside the plane (> tolerance), or the turn defect.
        distance: Real,
    },
}

/// A polygonal face.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Vertex indices, counter-clockwise seen from outside. Shared by the copies of a body
    /// that [`ConvexPolyhedron::transformed`] makes: a moved body is a new set of points and
    /// normals over the same topology (cloning the index lists was 8 % of the 27-body pile's
    /// run in allocations, `perf`, session 19).
    pub vertices: Arc<[usize]>,
    /// Outward unit normal.
    pub normal: Vec3,
    /// Plane offset: `normal · x = offset` on the face.
    pub offset: Real,
}

/// An edge with its two faces (docs/formulation-notes.md §2: `f1` is the face in which it runs
/// tail → head).
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Tail vertex.
    pub tail: usize,
    /// Head vertex.
    pub head: usize,
    /// `[f1, f2]`: the edge runs tail → head in f1 and head → tail in f2.
    pub faces: [usize; 2],
    /// In-face unit vectors perpendicular to the edge (paper §4 Eq. 29): `t₁ = n̂₁ × ê` points
    /// from the edge into f1, `t₂ = ê × n̂₂` into f2.
    pub t: [Vec3; 2],
}

/// A validated convex polyhedron (paper §4, Fig. 7).
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexPolyhedron {
    vertices: Vec<Vec3>,
    faces: Vec<Face>,
    edges: Vec<Edge>,
    // Topology, shared between transformed copies (see `Face::vertices`).
    vertex_edges: Arc<[Vec<usize>]>,
    vertex_faces: Arc<[Vec<usize>]>,
}

use signorini_math::tolerance::POLYHEDRON_REL_TOL as REL_TOL;

/// Newell normal (|·| = twice the area) of a vertex loop.
pub(crate) fn newell(points: impl Iterator<Item = Vec3> + Clone) -> Vec3 {
    let first = points.clone().next();
    let mut n = Vec3::zeros();
    let mut prev: Option<Vec3> = None;
    for p in points {
        if let Some(q) = prev {
            n += q.cross(&p);
        }
        prev = Some(p);
    }
    if let (Some(q), Some(p)) = (prev, first) {
        n += q.cross(&p);
    }
    n
}

/// The PEG authors' icosahedron (`icosahedron.poly` of rpiRobotics/PEG; the repository's
/// `data/peg3d/icosahedron.json`, `vertices_unit`): 12 vertices on the unit sphere, vertex 0 on
/// +z, the exact coordinates (the `.poly` file rounds them to 3 decimals), in the file's order.
pub const AUTHORS_ICOSAHEDRON_VERTICES: [[Real; 3]; 12] = [
    [0.0, 0.0, 1.0],
    [0.8944271909999159, 0.0, 0.4472135954999579],
    [0.27639320225002106, 0.8506508083520399, 0.4472135954999579],
    [-0.7236067977499788, 0.5257311121191337, 0.4472135954999579],
    [-0.723606797749979, -0.5257311121191335, 0.4472135954999579],
    [0.27639320225002084, -0.85065080835204, 0.4472135954999579],
    [0.7236067977499789, 0.5257311121191336, -0.4472135954999579],
    [-0.27639320225002095, 0.85065080835204, -0.4472135954999579],
    [
        -0.8944271909999159,
        1.0953573965284052e-16,
        -0.4472135954999579,
    ],
    [
        -0.2763932022500211,
        -0.8506508083520399,
        -0.4472135954999579,
    ],
    [0.7236067977499788, -0.5257311121191338, -0.4472135954999579],
    [0.0, 0.0, -1.0],
];

/// The faces of [`AUTHORS_ICOSAHEDRON_VERTICES`] as in `data/peg3d/icosahedron.json`
/// (0-based, counter-clockwise seen from outside), in the file's order.
pub const AUTHORS_ICOSAHEDRON_FACES: [[usize; 3]; 20] = [
    [0, 1, 2],
    [0, 2, 3],
    [0, 3, 4],
    [0, 4, 5],
    [0, 5, 1],
    [7, 6, 11],
    [8, 7, 11],
    [9, 8, 11],
    [10, 9, 11],
    [6, 10, 11],
    [6, 2, 1],
    [7, 3, 2],
    [8, 4, 3],
    [9, 5, 4],
    [10, 1, 5],
    [6, 7, 2],
    [7, 8, 3],
    [8, 9, 4],
    [9, 10, 5],
    [10, 6, 1],
];

impl ConvexPolyhedron {
    /// Validate and build from vertices and faces (vertex indices counter-clockwise seen from
    /// outside). Checks: ≥ 4 finite vertices, every vertex used, faces with ≥ 3 distinct
    /// vertices, planar, non-degenerate, closed 2-manifold consistently oriented outward,
    /// strictly convex faces and every vertex on the inner side of every face plane; volume,
    /// centroid and inertia finite in f64 ([`PolyhedronError::OutOfRange`] otherwise).
    pub fn from_vertices_faces(
        vertices: Vec<Vec3>,
        faces: Vec<Vec<usize>>,
    ) -> Result<Self, PolyhedronError> {
        let n = vertices.len();
        if n < 4 {
            return Err(PolyhedronError::TooFewVertices { count: n });
        }
        check_finite(&vertices)?;
        let tol = REL_TOL * diameter(&vertices).max(Real::MIN_POSITIVE);
        let mut used = vec![false; n];
        let mut out_faces = Vec::with_capacity(faces.len());
        for (fi, f) in faces.into_iter().enumerate() {
            if f.len() < 3 {
                return Err(PolyhedronError::FaceTooSmall {
                    face: fi,
                    count: f.len(),
                });
            }
            if let Some(&index) = f.iter().find(|&&i| i >= n) {
                return Err(PolyhedronError::BadIndex {
                    face: fi,
                    index,
                    count: n,
                });
            }
            let mut sorted = f.clone();
            sorted.sort_unstable();
            sorted.dedup();
            let nn = newell(f.iter().map(|&i| vertices[i]));
            if sorted.len() != f.len() || nn.norm() <= tol * tol {
                return Err(PolyhedronError::DegenerateFace { face: fi });
            }
            let normal = nn.normalize();
            let offset =
                f.iter().map(|&i| normal.dot(&vertices[i])).sum::<Real>() / f.len() as Real;
            for &i in &f {
                let d = normal.dot(&vertices[i]) - offset;
                if d.abs() > tol {
                    return Err(PolyhedronError::NonPlanarFace {
                        face: fi,
                        vertex: i,
                        distance: d,
                    });
                }
                used[i] = true;
            }
            out_faces.push(Face {
                vertices: f.into(),
                normal,
                offset,
            });
        }
        if let Some(index) = used.iter().position(|u| !u) {
            return Err(PolyhedronError::UnusedVertex { index });
        }
        // Directed edges → face; each must appear once, with its reverse once.
        let mut directed: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for (fi, f) in out_faces.iter().enumerate() {
            for k in 0..f.vertices.len() {
                let e = (f.vertices[k], f.vertices[(k + 1) % f.vertices.len()]);
                if directed.insert(e, fi).is_some() {
                    return Err(PolyhedronError::OpenSurface {
                        tail: e.0,
                        head: e.1,
                    });
                }
            }
        }
        for &(i, j) in directed.keys() {
            if !directed.contains_key(&(j, i)) {
                return Err(PolyhedronError::OpenSurface { tail: i, head: j });
            }
        }
        let volume = signed_volume(&vertices, &out_faces);
        let scale = vertices.iter().map(|v| v.amax()).fold(0.0, Real::max);
        let out_of_range = |quantity| PolyhedronError::OutOfRange { scale, quantity };
        if !volume.is_finite() || !tol.is_finite() {
            return Err(out_of_range("volume"));
        }
        if volume == 0.0 {
            // Underflow of a tiny body (or a flat closed surface).
            return Err(PolyhedronError::Flat { tolerance: tol });
        }
        if volume < 0.0 {
            return Err(PolyhedronError::InwardFaces { volume });
        }
        for (fi, f) in out_faces.iter().enumerate() {
            for (vi, v) in vertices.iter().enumerate() {
                let d = f.normal.dot(v) - f.offset;
                if d > tol {
                    return Err(PolyhedronError::NotConvex {
                        face: fi,
                        vertex: vi,
                        distance: d,
                    });
                }
            }
            // Strict convexity of the face polygon: a left turn about the outward normal at
            // every corner (collinear corners rejected).
            let m = f.vertices.len();
            for k in 0..m {
                let p = vertices[f.vertices[(k + m - 1) % m]];
                let q = vertices[f.vertices[k]];
                let r = vertices[f.vertices[(k + 1) % m]];
                let turn = (q - p).cross(&(r - q)).dot(&f.normal);
                if turn <= tol * tol {
                    return Err(PolyhedronError::NotConvex {
                        face: fi,
                        vertex: f.vertices[k],
                        distance: -turn,
                    });
                }
            }
        }
        let p = Self::assemble(vertices, out_faces, &directed);
        // What a body needs from its shape must be finite (found by the fuzz campaign:
        // coordinates near 1e300 gave a NaN volume).
        let m = p.mass_properties(1.0);
        if !m.centroid.iter().all(|x| x.is_finite()) {
            return Err(out_of_range("centroid"));
        }
        if !m.inertia.iter().all(|x| x.is_finite()) {
            return Err(out_of_range("inertia"));
        }
        Ok(p)
    }

    /// Edges, t-vectors and adjacency from validated faces.
    fn assemble(
        vertices: Vec<Vec3>,
        faces: Vec<Face>,
        directed: &BTreeMap<(usize, usize), usize>,
    ) -> Self {
        let mut edges = Vec::with_capacity(directed.len() / 2);
        let mut vertex_edges = vec![Vec::new(); vertices.len()];
        let mut vertex_faces = vec![Vec::new(); vertices.len()];
        for (&(tail, head), &f1) in directed {
            if tail > head {
                continue;
            }
            let f2 = directed[&(head, tail)];
            let e = (vertices[head] - vertices[tail]).normalize();
            let t1 = faces[f1].normal.cross(&e).normalize();
            let t2 = e.cross(&faces[f2].normal).normalize();
            vertex_edges[tail].push(edges.len());
            vertex_edges[head].push(edges.len());
            edges.push(Edge {
                tail,
                head,
                faces: [f1, f2],
                t: [t1, t2],
            });
        }
        for (fi, f) in faces.iter().enumerate() {
            for &v in f.vertices.iter() {
                vertex_faces[v].push(fi);
            }
        }
        ConvexPolyhedron {
            vertices,
            faces,
            edges,
            vertex_edges: vertex_edges.into(),
            vertex_faces: vertex_faces.into(),
        }
    }

    /// The PEG authors' regular icosahedron ([`AUTHORS_ICOSAHEDRON_VERTICES`] scaled by
    /// `circumradius`, faces [`AUTHORS_ICOSAHEDRON_FACES`], both in the file's order): vertex 0
    /// on +z, the body of the stored 3D pouring runs (`pour3d --bodies icosahedra`). Not the
    /// same solid in the body frame as [`ConvexPolyhedron::icosahedron`], which is rotated
    /// against it.
    pub fn authors_icosahedron(circumradius: Real) -> Result<Self, PolyhedronError> {
        let v = AUTHORS_ICOSAHEDRON_VERTICES
            .iter()
            .map(|p| Vec3::new(p[0], p[1], p[2]) * circumradius)
            .collect();
        let f = AUTHORS_ICOSAHEDRON_FACES
            .iter()
            .map(|f| f.to_vec())
            .collect();
        ConvexPolyhedron::from_vertices_faces(v, f)
    }

    /// A regular icosahedron centred at the origin with the given circumradius (12 vertices,
    /// 20 triangles; vertices `(0, ±1, ±φ)` and cyclic permutations, scaled; the golden-ratio
    /// form, with vertices on the coordinate planes). Not the PEG authors' body frame: their
    /// solid is [`ConvexPolyhedron::authors_icosahedron`].
    pub fn icosahedron(circumradius: Real) -> Result<Self, PolyhedronError> {
        let phi = (1.0 + 5.0_f64.sqrt()) / 2.0;
        let s = circumradius / (1.0 + phi * phi).sqrt();
        let mut v = Vec::with_capacity(12);
        for &(a, b) in &[(-1.0, phi), (1.0, phi), (-1.0, -phi), (1.0, -phi)] {
            v.push(Vec3::new(a, b, 0.0) * s);
        }
        for &(a, b) in &[(-1.0, phi), (1.0, phi), (-1.0, -phi), (1.0, -phi)] {
            v.push(Vec3::new(0.0, a, b) * s);
        }
        for &(a, b) in &[(-1.0, phi), (1.0, phi), (-1.0, -phi), (1.0, -phi)] {
            v.push(Vec3::new(b, 0.0, a) * s);
        }
        ConvexPolyhedron::from_points(&v)
    }

    /// An axis-aligned box `[−h, h]` centred at the origin (8 vertices, 6 quadrilaterals).
    pub fn cuboid(half_extents: Vec3) -> Result<Self, PolyhedronError> {
        let h = half_extents;
        let v: Vec<Vec3> = (0..8)
            .map(|k| {
                let sx = if k & 1 == 0 { -1.0 } else { 1.0 };
                let sy = if k & 2 == 0 { -1.0 } else { 1.0 };
                let sz = if k & 4 == 0 { -1.0 } else { 1.0 };
                Vec3::new(sx * h.x, sy * h.y, sz * h.z)
            })
            .collect();
        let faces = vec![
            vec![0, 2, 3, 1], // z = −h
            vec![4, 5, 7, 6], // z = +h
            vec![0, 1, 5, 4], // y = −h
            vec![2, 6, 7, 3], // y = +h
            vec![0, 4, 6, 2], // x = −h
            vec![1, 3, 7, 5], // x = +h
        ];
        ConvexPolyhedron::from_vertices_faces(v, faces)
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The faces.
    pub fn faces(&self) -> &[Face] {
        &self.faces
    }

    /// The edges (sorted by `(tail, head)`, `tail < head`).
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Indices of the edges incident to vertex `v`.
    pub fn vertex_edges(&self, v: usize) -> &[usize] {
        &self.vertex_edges[v]
    }

    /// Indices of the faces incident to vertex `v`.
    pub fn vertex_faces(&self, v: usize) -> &[usize] {
        &self.vertex_faces[v]
    }

    /// The vertex at the other end of edge `e` from vertex `v`.
    pub fn other_end(&self, e: usize, v: usize) -> usize {
        let edge = &self.edges[e];
        if edge.tail == v { edge.head } else { edge.tail }
    }

    /// The vertices of face `f` (counter-clockwise seen from outside) as points.
    pub fn face_points(&self, f: usize) -> Vec<Vec3> {
        self.faces[f]
            .vertices
            .iter()
            .map(|&i| self.vertices[i])
            .collect()
    }

    /// Largest distance of a vertex from the frame origin (m).
    pub fn circumradius(&self) -> Real {
        self.vertices.iter().map(|v| v.norm()).fold(0.0, Real::max)
    }

    /// Signed distance of `p` from the body: max over faces of `n̂·p − offset` (exact outside
    /// the body only along face normals; negative inside, = −depth to the nearest face plane).
    pub fn max_face_distance(&self, p: &Vec3) -> (usize, Real) {
        let mut best = (0, Real::NEG_INFINITY);
        for (fi, f) in self.faces.iter().enumerate() {
            let d = f.normal.dot(p) - f.offset;
            if d > best.1 {
                best = (fi, d);
            }
        }
        best
    }

    /// The same body moved rigidly: `x ↦ translation + rotation · x` (same topology).
    pub fn transformed(&self, translation: &Vec3, rotation: &Quat) -> Self {
        let mut out = self.clone();
        for v in &mut out.vertices {
            *v = translation + rotation * *v;
        }
        for f in &mut out.faces {
            f.normal = rotation * f.normal;
            f.offset = f.normal.dot(&out.vertices[f.vertices[0]]);
        }
        for e in &mut out.edges {
            e.t = [rotation * e.t[0], rotation * e.t[1]];
        }
        out
    }

    /// The same body translated by `offset`.
    pub fn translated(&self, offset: &Vec3) -> Self {
        self.transformed(offset, &Quat::identity())
    }

    /// The same body scaled about the frame origin by `factor > 0`.
    pub fn scaled(&self, factor: Real) -> Self {
        let mut out = self.clone();
        for v in &mut out.vertices {
            *v *= factor;
        }
        for f in &mut out.faces {
            f.offset *= factor;
        }
        out
    }
}

/// Signed volume enclosed by faces (positive for outward, counter-clockwise faces).
pub(crate) fn signed_volume(vertices: &[Vec3], faces: &[Face]) -> Real {
    let mut v = 0.0;
    for f in faces {
        let p0 = vertices[f.vertices[0]];
        for k in 1..f.vertices.len() - 1 {
            let (p1, p2) = (vertices[f.vertices[k]], vertices[f.vertices[k + 1]]);
            v += p0.dot(&p1.cross(&p2));
        }
    }
    v / 6.0
}

pub(crate) fn check_finite(points: &[Vec3]) -> Result<(), PolyhedronError> {
    if let Some((index, p)) = points
        .iter()
        .enumerate()
        .find(|(_, p)| !p.iter().all(|x| x.is_finite()))
    {
        return Err(PolyhedronError::NonFinite {
            index,
            x: p.x,
            y: p.y,
            z: p.z,
        });
    }
    Ok(())
}

/// Bounding-box diagonal of a point set.
pub(crate) fn diameter(points: &[Vec3]) -> Real {
    let mut lo = Vec3::repeat(Real::INFINITY);
    let mut hi = Vec3::repeat(Real::NEG_INFINITY);
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (hi - lo).norm()
}
