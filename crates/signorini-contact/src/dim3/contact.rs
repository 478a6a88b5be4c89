//! A 3D contact between two convex polyhedra and its 6-dof gap-rate Jacobian (docs/formulation-notes.md §2).
//!
//! Owns: [`Contact3`], [`Features3`], [`Jacobian6`] and the two feature-pair constructors
//! [`vertex_face_contact`] (normal = inward normal of B's face, ψ = plane distance) and
//! [`edge_edge_contact`] (normal = ±(e_a × e_b) oriented into B by the edge-orientation test of
//! paper §4 / docs/formulation-notes.md §5.1, ψ = distance between the edge lines along it). Both gaps are
//! *separating-plane* gaps: ψ ≥ 0 means the feature of A lies on the outer side of a plane
//! through the feature of B. For vertex–face this makes any face of B a valid witness (by
//! convexity, a vertex outside one face plane is outside B), which is what lets an I-constraint
//! over several faces never be "satisfied" by a secondary while the vertex is inside B.
//! Does not own: which pairs are tested (the detectors) or the geometric tests (`geometric`).

use signorini_dynamics::RigidBody3;
use signorini_geometry::dim3::{ConvexPolyhedron, closest_segment_segment};
use signorini_math::{Real, Vec3, Vec6};

/// A sparse 6-dof Jacobian row: per-body blocks `[g_v; g_ω]` such that `Σ_b g_bᵀ ν_b` is a
/// rate (for a normal: the rate of gap increase).
pub type Jacobian6 = crate::Jacobian<6>;

/// Which features of A and B a contact is between.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Features3 {
    /// Vertex `vertex` of A against face `face` of B.
    VertexFace {
        /// Vertex index on A.
        vertex: usize,
        /// Face index on B.
        face: usize,
    },
    /// Edge `edge_a` of A against edge `edge_b` of B.
    EdgeEdge {
        /// Edge index on A.
        edge_a: usize,
        /// Edge index on B.
        edge_b: usize,
    },
    /// Whole bodies (the corrective detector).
    Bodies,
}

/// A contact between bodies `a` and `b` (docs/formulation-notes.md §2: point on A, normal from A into B, the point
/// on B is `point + gap · normal`).
#[derive(Debug, Clone, PartialEq)]
pub struct Contact3 {
    /// Body owning the vertex / first edge.
    pub a: usize,
    /// Body owning the face / second edge.
    pub b: usize,
    /// The feature pair.
    pub features: Features3,
    /// Contact point on A (m).
    pub point: Vec3,
    /// Unit normal from A into B.
    pub normal: Vec3,
    /// Signed gap ψ (m), positive when separated.
    pub gap: Real,
    /// Applicability (paper Eqs. 31–32, docs/formulation-notes.md §5.1) in [−1, 1]; 1 for corrective contacts.
    pub applicability: Real,
    /// Gap-rate Jacobian: `G_A = [−n̂; r_A × (−n̂)]`, `G_B = [n̂; r_B × n̂]` (docs/formulation-notes.md §2).
    pub jacobian: Jacobian6,
    /// Two unit tangents with `(t₁, t₂, n̂)` right-handed (friction pyramid directions are
    /// combinations of them, see [`Contact3::direction_jacobian`]).
    pub tangents: [Vec3; 2],
    /// Lever arms `r_A`, `r_B` (None for a static body, which gets no Jacobian block).
    arms: [Option<Vec3>; 2],
}

impl crate::ContactRow<6> for Contact3 {
    fn jacobian(&self) -> &Jacobian6 {
        &self.jacobian
    }
    fn gap(&self) -> Real {
        self.gap
    }
    /// `directions` unit vectors evenly spaced about n̂ in the tangent plane,
    /// `d_k = cos(2πk/n) t₁ + sin(2πk/n) t₂` (at least 3; docs/formulation-notes.md §3.2 with n_d directions).
    fn friction_jacobians(&self, directions: usize) -> Vec<Jacobian6> {
        let n = directions.max(3);
        (0..n)
            .map(|k| {
                let angle = std::f64::consts::TAU * k as Real / n as Real;
                let d = self.tangents[0] * angle.cos() + self.tangents[1] * angle.sin();
                self.direction_jacobian(&d)
            })
            .collect()
    }
}

impl Contact3 {
    /// A contact from a point on A, a unit normal from A into B and a gap.
    pub fn new(
        (a, b): (usize, usize),
        features: Features3,
        (point, normal, gap): (Vec3, Vec3, Real),
        applicability: Real,
        bodies: &[RigidBody3],
    ) -> Contact3 {
        let arm_a = (!bodies[a].is_static).then(|| point - bodies[a].position);
        let arm_b = (!bodies[b].is_static).then(|| point + normal * gap - bodies[b].position);
        let helper = if normal.x.abs() < 0.6 {
            Vec3::x()
        } else {
            Vec3::y()
        };
        let t1 = helper.cross(&normal).normalize();
        let t2 = normal.cross(&t1);
        let mut c = Contact3 {
            a,
            b,
            features,
            point,
            normal,
            gap,
            applicability,
            jacobian: Jacobian6::default(),
            tangents: [t1, t2],
            arms: [arm_a, arm_b],
        };
        c.jacobian = c.direction_jacobian(&normal);
        c
    }

    /// Jacobian of the relative velocity of B's point with respect to A's point along the unit
    /// direction `d`: `[−d; r_A × (−d)]` for A and `[d; r_B × d]` for B (docs/formulation-notes.md §2, §3.2).
    pub fn direction_jacobian(&self, d: &Vec3) -> Jacobian6 {
        let mut j = Jacobian6::default();
        let block = |r: &Vec3, d: &Vec3| {
            let m = r.cross(d);
            Vec6::new(d.x, d.y, d.z, m.x, m.y, m.z)
        };
        if let Some(r) = &self.arms[0] {
            j.add(self.a, block(r, &-d), 1.0);
        }
        if let Some(r) = &self.arms[1] {
            j.add(self.b, block(r, d), 1.0);
        }
        j
    }

    /// The same contact described from B's side (docs/formulation-notes.md §4.2 "frame flip"): bodies and
    /// features swapped, point moved to B, normal reversed; gap and Jacobian are unchanged.
    pub fn flipped(&self) -> Contact3 {
        let features = match self.features {
            Features3::EdgeEdge { edge_a, edge_b } => Features3::EdgeEdge {
                edge_a: edge_b,
                edge_b: edge_a,
            },
            f => f,
        };
        Contact3 {
            a: self.b,
            b: self.a,
            features,
            point: self.point + self.normal * self.gap,
            normal: -self.normal,
            gap: self.gap,
            applicability: self.applicability,
            jacobian: self.jacobian.clone(),
            tangents: [self.tangents[1], self.tangents[0]],
            arms: [self.arms[1], self.arms[0]],
        }
    }
}

/// Vertex `vertex` of A (world-frame polyhedron `pa`) against face `face` of B (`pb`):
/// normal = −n̂_face (inward), ψ = n̂_face · v_a − offset (plane distance, docs/formulation-notes.md §2), point =
/// v_a, applicability = [`crate::dim3::applicability_vf`].
pub fn vertex_face_contact(
    (a, b): (usize, usize),
    (pa, pb): (&ConvexPolyhedron, &ConvexPolyhedron),
    (vertex, face): (usize, usize),
    bodies: &[RigidBody3],
) -> Contact3 {
    let f = &pb.faces()[face];
    let v = pa.vertices()[vertex];
    let gap = f.normal.dot(&v) - f.offset;
    let appl = super::geometric::applicability_vf(pa, vertex, &f.normal);
    Contact3::new(
        (a, b),
        Features3::VertexFace { vertex, face },
        (v, -f.normal, gap),
        appl,
        bodies,
    )
}

/// Edge `edge_a` of A against edge `edge_b` of B (paper Fig. 14): normal `±(e_a × e_b)/|…|`
/// pointing into B (edge orientation, docs/formulation-notes.md §5.1), ψ = n̂ · (tail_b − tail_a) (the distance
/// between the two edge lines along n̂), point = closest point of segment A to segment B.
/// `None` for (nearly) parallel edges, whose normal is undefined.
pub fn edge_edge_contact(
    (a, b): (usize, usize),
    (pa, pb): (&ConvexPolyhedron, &ConvexPolyhedron),
    (edge_a, edge_b): (usize, usize),
    bodies: &[RigidBody3],
) -> Option<Contact3> {
    let (ea, eb) = (&pa.edges()[edge_a], &pb.edges()[edge_b]);
    let (a0, a1) = (pa.vertices()[ea.tail], pa.vertices()[ea.head]);
    let (b0, b1) = (pb.vertices()[eb.tail], pb.vertices()[eb.head]);
    let cross = (a1 - a0).cross(&(b1 - b0));
    let scale = (a1 - a0).norm() * (b1 - b0).norm();
    if cross.norm() <= super::geometric::PARALLEL_SINE * scale {
        return None;
    }
    let orientation = super::geometric::edge_orientation(pa, edge_a, pb, edge_b);
    let normal = if orientation > 0.0 { cross } else { -cross }.normalize();
    let gap = normal.dot(&(b0 - a0));
    let (_, _, on_a, _) = closest_segment_segment(&a0, &a1, &b0, &b1);
    let appl = super::geometric::applicability_ee(pa, edge_a, pb, edge_b);
    Some(Contact3::new(
        (a, b),
        Features3::EdgeEdge { edge_a, edge_b },
        (on_a, normal, gap),
        appl,
        bodies,
    ))
}
