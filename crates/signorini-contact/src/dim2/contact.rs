//! A single vertex–edge contact and its gap-rate Jacobian.
//!
//! Owns: [`Contact`], [`Jacobian`], and [`vertex_edge_contact`] which measures a vertex of A
//! against an edge of B in the conventions of docs/formulation-notes.md §2 (normal = inward normal of B's edge,
//! ψ > 0 when separated). Does not own: which pairs are tested (the detectors).

use nalgebra::{SMatrix, SVector};
use signorini_math::{Real, Vec2, Vec3, cross2};

/// A sparse row of the contact Jacobian: per-body blocks of `D` generalized-velocity components
/// (2D: `[gx, gy, gθ]`, D = 3; 3D: `[g_v; g_ω]`, D = 6) such that `Σ_b g_bᵀ ν_b` is a rate (for
/// a normal: the rate of gap increase). At most a few bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct Jacobian<const D: usize = 3> {
    /// `(body index, block)` pairs, body indices distinct.
    pub blocks: Vec<(usize, SVector<Real, D>)>,
}

impl<const D: usize> Default for Jacobian<D> {
    fn default() -> Self {
        Jacobian { blocks: Vec::new() }
    }
}

impl<const D: usize> Jacobian<D> {
    /// Add `scale · block` for `body` (merging with an existing block of that body).
    pub fn add(&mut self, body: usize, block: SVector<Real, D>, scale: Real) {
        match self.blocks.iter_mut().find(|(b, _)| *b == body) {
            Some((_, g)) => *g += block * scale,
            None => self.blocks.push((body, block * scale)),
        }
    }

    /// `self − other` (used for PEG secondary rows, docs/formulation-notes.md §4.2: `G_c = G_ι − G_s`).
    pub fn minus(&self, other: &Jacobian<D>) -> Jacobian<D> {
        let mut j = self.clone();
        for (b, g) in &other.blocks {
            j.add(*b, *g, -1.0);
        }
        j
    }

    /// `Σ_b g_bᵀ ν_b` for per-body velocities.
    pub fn dot_velocity(&self, velocity: impl Fn(usize) -> SVector<Real, D>) -> Real {
        self.blocks.iter().map(|(b, g)| g.dot(&velocity(*b))).sum()
    }

    /// `Σ_b g_bᵀ W_b k_b` with a per-body block weight (the inverse mass, see [`MassBlock`]).
    pub fn weighted_dot(
        &self,
        other: &Jacobian<D>,
        weight: impl Fn(usize) -> MassBlock<D>,
    ) -> Real {
        let mut s = 0.0;
        for (b, g) in &self.blocks {
            if let Some((_, k)) = other.blocks.iter().find(|(c, _)| c == b) {
                s += weight(*b).quadratic(g, k);
            }
        }
        s
    }
}

/// One body's block of the (block-diagonal) mass or inverse-mass matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MassBlock<const D: usize> {
    /// A diagonal block (2D bodies: `diag(m, m, J)`), stored as its diagonal.
    Diagonal(SVector<Real, D>),
    /// A dense symmetric block (3D bodies: `diag(m I₃, R J Rᵀ)`).
    Dense(SMatrix<Real, D, D>),
}

impl<const D: usize> MassBlock<D> {
    /// `W g`.
    pub fn mul(&self, g: &SVector<Real, D>) -> SVector<Real, D> {
        match self {
            MassBlock::Diagonal(w) => w.component_mul(g),
            MassBlock::Dense(w) => w * g,
        }
    }

    /// `gᵀ W k`.
    pub fn quadratic(&self, g: &SVector<Real, D>, k: &SVector<Real, D>) -> Real {
        match self {
            MassBlock::Diagonal(w) => g.component_mul(w).dot(k),
            MassBlock::Dense(w) => g.dot(&(w * k)),
        }
    }

    /// The non-zero entries `(row, column, value)` of the block (only the diagonal for a
    /// diagonal block).
    pub fn entries(&self) -> Vec<(usize, usize, Real)> {
        match self {
            MassBlock::Diagonal(w) => (0..D).map(|d| (d, d, w[d])).collect(),
            MassBlock::Dense(w) => (0..D)
                .flat_map(|i| (0..D).map(move |j| (i, j, w[(i, j)])))
                .collect(),
        }
    }
}

/// A contact between a vertex of body `a` and an edge of body `b` (or, for the corrective
/// detector, between two overlapping bodies).
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// Body owning the vertex (or the first body).
    pub a: usize,
    /// Body owning the edge (or the second body).
    pub b: usize,
    /// Vertex index on `a` (`usize::MAX` for corrective contacts).
    pub vertex: usize,
    /// Edge index on `b` (edge k runs from vertex k to k+1; `usize::MAX` for corrective).
    pub edge: usize,
    /// Contact point on A (m).
    pub point: Vec2,
    /// Unit normal pointing from A into B.
    pub normal: Vec2,
    /// Signed gap ψ (m), positive when separated; the point on B is `point + ψ normal`.
    pub gap: Real,
    /// Vertex–edge applicability (paper Eq. 28; docs/formulation-notes.md §5.1), in [−1, 1].
    pub applicability: Real,
    /// Gap-rate Jacobian: `G_A = [−n̂; r_A × (−n̂)]`, `G_B = [n̂; r_B × n̂]` (docs/formulation-notes.md §2).
    pub jacobian: Jacobian,
    /// Tangent unit vector `t̂ = (−n_y, n_x)` (friction pyramid directions ±t̂, docs/formulation-notes.md §3.2).
    pub tangent: Vec2,
    /// Jacobian of the relative tangential velocity along `t̂` (B relative to A).
    pub tangent_jacobian: Jacobian,
}

impl Contact {
    /// A contact from a point on A, a normal from A into B and a gap. `centre_a/b` are the body
    /// origins; static bodies get no Jacobian block (`static_a/b`).
    #[allow(clippy::too_many_arguments)]
    pub fn from_point_normal(
        (a, b): (usize, usize),
        (vertex, edge): (usize, usize),
        point: Vec2,
        normal: Vec2,
        gap: Real,
        applicability: Real,
        (centre_a, centre_b): (Vec2, Vec2),
        (static_a, static_b): (bool, bool),
    ) -> Contact {
        let r_a = point - centre_a;
        let r_b = point + normal * gap - centre_b;
        let tangent = Vec2::new(-normal.y, normal.x);
        let mut jacobian = Jacobian::default();
        let mut tangent_jacobian = Jacobian::default();
        if !static_a {
            jacobian.add(
                a,
                Vec3::new(-normal.x, -normal.y, -cross2(&r_a, &normal)),
                1.0,
            );
            tangent_jacobian.add(
                a,
                Vec3::new(-tangent.x, -tangent.y, -cross2(&r_a, &tangent)),
                1.0,
            );
        }
        if !static_b {
            jacobian.add(b, Vec3::new(normal.x, normal.y, cross2(&r_b, &normal)), 1.0);
            tangent_jacobian.add(
                b,
                Vec3::new(tangent.x, tangent.y, cross2(&r_b, &tangent)),
                1.0,
            );
        }
        Contact {
            a,
            b,
            vertex,
            edge,
            point,
            normal,
            gap,
            applicability,
            jacobian,
            tangent,
            tangent_jacobian,
        }
    }

    /// Identity of the feature pair: (vertex body, vertex, edge body, edge).
    pub fn key(&self) -> (usize, usize, usize, usize) {
        (self.a, self.vertex, self.b, self.edge)
    }
}

/// Vertex–edge applicability (paper Eq. 28, docs/formulation-notes.md §5.1):
/// `min_{v ∈ ω(v_a)} η̂_b · (v − v_a)/|v − v_a|`, η̂_b the outward normal of the edge, ω(v_a)
/// the two neighbours of v_a. ≥ 0 is classical applicability; the relaxed test is `> ε_θ`.
pub fn applicability(verts_a: &[Vec2], vertex: usize, outward: &Vec2) -> Real {
    let n = verts_a.len();
    let va = verts_a[vertex];
    [verts_a[(vertex + n - 1) % n], verts_a[(vertex + 1) % n]]
        .iter()
        .map(|u| {
            let d = u - va;
            outward.dot(&d) / d.norm().max(Real::MIN_POSITIVE)
        })
        .fold(Real::INFINITY, Real::min)
}

/// Vertex `vertex` of A (world vertices `verts_a`) against edge `edge` of B: inward normal of
/// the edge (left normal of a counter-clockwise polygon), `ψ = n̂·(v_tail − v_a)` (docs/formulation-notes.md §2).
#[allow(clippy::too_many_arguments)]
pub fn vertex_edge_contact(
    (a, b): (usize, usize),
    verts_a: &[Vec2],
    verts_b: &[Vec2],
    vertex: usize,
    edge: usize,
    centres: (Vec2, Vec2),
    statics: (bool, bool),
) -> Contact {
    let tail = verts_b[edge];
    let e = verts_b[(edge + 1) % verts_b.len()] - tail;
    let normal = Vec2::new(-e.y, e.x) / e.norm();
    let va = verts_a[vertex];
    let gap = normal.dot(&(tail - va));
    let appl = applicability(verts_a, vertex, &(-normal));
    Contact::from_point_normal(
        (a, b),
        (vertex, edge),
        va,
        normal,
        gap,
        appl,
        centres,
        statics,
    )
}
