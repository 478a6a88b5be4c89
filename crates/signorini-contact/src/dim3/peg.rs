//! PEG constraints between convex polyhedra (paper §5.2, Eqs. 35–38) with a single primary
//! contact per I-/X-constraint.
//!
//! Owns: [`peg_constraints3`], [`Peg3Params`], [`peg3_detection_distance`].
//!
//! # What is built, per candidate body pair (A, B), both ways round
//! A feature pair is *near* when its distance at the current configuration is ≤ ε_pair, with
//! ε_pair = ε + (largest vertex displacement of A between the current and the predicted
//! configuration) + (the same for B) (ours: every pair that can come within ε during the step
//! under straight-line vertex motion is near, so no separate check at the predicted
//! configuration and no crossing test are needed).
//!
//! 1. **Vertex part (vertex–face U, the I-constraints of vertex–edge and vertex–vertex;
//!    Eqs. 35–37).** For each vertex v of A within ε_pair of B, the set F(v) of faces of B whose
//!    polygon is within ε_pair of v gives *one* constraint over the plane-gap contacts
//!    C(v, f), f ∈ F(v): a U-constraint if |F(v)| = 1 (vertex–face), else an I-constraint with
//!    |F(v)| − 1 secondaries (v near an edge: its two faces, paper Eq. 36's I; v near a vertex:
//!    the faces around it, Eq. 37). Ours, and why: with plane gaps, any single face with ψ ≥ 0
//!    proves v outside B (convexity), and the closest point of B to an outside v lies on a face
//!    of F(v) whose plane v is outside of (the normal cone at the closest point is spanned by
//!    the normals of the faces containing it). So `max_{f∈F(v)} ψ_f ≥ 0` is *exactly* "v is
//!    not inside B" near B: never satisfied while v penetrates (the pitfall of the lost first
//!    attempt, where a far secondary with a large gap satisfied an I-constraint of a
//!    penetrating vertex), and never a trap. No face is dropped by applicability or
//!    feasibility (the reference code drops them, docs/formulation-notes.md §5.5; that can only lose valid
//!    witnesses); applicability only chooses the primary.
//!    A vertex inside B (now or at the predicted configuration) and farther than ε_pair from
//!    every face gets a U-constraint on the face whose plane it is least deep under (ours, as
//!    in 2D: an escaped overlap is still pushed out).
//! 2. **Vertex–edge X-constraints (Eq. 36).** For v within ε_pair of an edge e_b of B but not of
//!    its end vertices: each edge e_i of A at v with `APPL_ee(e_i, e_b) > −0.1` (docs/formulation-notes.md §5.1) is
//!    paired with C(v, f1) if it points to f1's side (`(v_i − v)·O_b > 0`, O_b of paper Eq. 30)
//!    and with C(v, f2) otherwise: X-constraint `max(ψ(v, f_k), ψ(e_i, e_b)) ≥ 0`, primary the
//!    vertex–face contact if it is applicable (> −0.3) and feasible (Eq. 33), else the
//!    edge–edge contact (as the reference code, docs/formulation-notes.md §4.3).
//! 3. **Vertex–vertex X-constraints (Eq. 38; not implemented in the reference code).** For
//!    v_a within ε_pair of v_b (the extracted paper text lost the equation, so every form is
//!    our reconstruction from §5.2's prose; [`VertexVertex`]):
//!    - **cone form (default)**: near the vertices, A is `v_a + cone_A` and B is
//!      `v_b + cone_B`, so they overlap iff `x = v_a − v_b` is inside `K = cone_B + (−cone_A)`:
//!      one X-constraint "x is outside some facet of K" whose members are K's facets (faces at
//!      either vertex, edge pairs), each facet once. It implies the I-constraints of step 1
//!      for v_a and v_b, which are then not built; two boxes face to face get one U per
//!      corner. Exact against a brute-force reference (tests/it/vertex_vertex.rs).
//!    - **face pairs** (the form before issue #22): for each face pair (f_a ∋ v_a, f_b ∋ v_b),
//!      `max(ψ(v_a, f_b), ψ(v_b, f_a), ψ(e_{ai}, e_{bj})…) ≥ 0` over the edges of f_a and f_b
//!      at the vertices with `APPL_ee > −0.4`, built only if one edge pair qualifies, plus
//!      step 1's I-constraints. Its conjunction forbids 40 % of the test's free motions.
//! 4. **Edge–edge U (paper Eq. 35's edge–edge case).** Edge pairs within ε_pair whose closest
//!    points are farther than ε_pair from every end vertex of both edges (otherwise the pair
//!    belongs to a vertex configuration above, as in the reference's classification,
//!    docs/formulation-notes.md §5.5) and with `APPL_ee > −0.4`. A pair whose gap is negative
//!    must really be crossed ([`crossed`]): an edge–edge gap, the signed distance between the
//!    edges' lines, is also negative for edges that do not face each other, far apart.
//! 5. **Crossing safety net (ours).** An edge pair within ε_pair with `APPL_ee > −0.4` that no
//!    vertex configuration has put into a constraint and whose segments *cross* now or at the
//!    predicted configuration (closest points interior to both segments, negative edge–edge
//!    gap) gets a U-constraint. Why: on the authors' random polyhedra (short edges, flat
//!    vertex cones) pour3d at h = 0.016 showed edges passing through each other as the only
//!    overlap (no vertex inside), on pairs that the vertex–edge filter `APPL_ee > −0.1` had
//!    dropped or that no Eq. 36/38 constraint contained. A U on a pair that really crosses only
//!    separates what interpenetrates. We tried extending it to pairs that are X secondaries
//!    (an X can be satisfied by its vertex–face member while its edges cross): on the 10
//!    random configurations at h = 0.016 that made the worst overlaps larger, so X members
//!    are left alone (see docs/peg3d.md, open problems). "Cross" means [`crossed`] too.
//! 6. **No false readings (ours).** An X-constraint (steps 2–3) whose members all read
//!    negative gaps while none of its features interpenetrates (no vertex inside, no edges
//!    crossed) is left out: its plane and edge–edge gaps describe the bodies only near
//!    contact, and the sweep admits members from afar (docs/peg3d.md, "What the step does at
//!    scale", item 16).
//!
//! # Primary choice (single primary, paper Eq. 24)
//! Among the members with applicability > −0.4 (all members if none), the one with the largest
//! gap at the predicted configuration (ties: first). Deviation from the reference's
//! `peg_heuristic` (smallest gap ≥ −1e-4, docs/formulation-notes.md §5.5): `max ψ ≥ 0` becomes active on the
//! member with the largest gap, so that member's normal is the one that should carry the
//! impulse; the reference's choice pushes along a face the vertex is not over.
//!
//! X-constraints are written like I-constraints and their primary carries an impulse (as the
//! reference code, docs/formulation-notes.md §4.3 / §13.3), unless [`Peg3Params::x_impulse`]
//! is [`XImpulse::Paper`] (no impulse, the paper's form).
//!
//! # General form (paper Eqs. 20–23; [`Peg3Params::form`])
//! With [`PegForm::General`] every other applicable member (APPL > −0.4) of an I-constraint
//! is a co-primary with its own impulse ([`PairConstraint::co_primaries`]); the rows are
//! those of [`crate::Formulation`]. X-constraints keep one primary.

use super::constraints::ConstraintSet3;
use super::contact::{Contact3, Features3, edge_edge_contact, vertex_face_contact};
use super::geometric::{
    APPL_EE, APPL_VE_EDGES, APPL_VF_LONE, APPL_VV, FEASIBILITY_ANGLE, FEASIBILITY_DEPTH,
    applicability_ee, closest_on_edges, feasibility_vf, orientation_vector,
};
use crate::{PairConstraint, PegForm, XImpulse};
use signorini_dynamics::RigidBody3;
use signorini_geometry::dim3::{
    ConvexPolyhedron, closest_on_polygon, closest_on_segment, closest_segment_segment,
};
use signorini_math::{Real, Vec3};
use std::collections::{BTreeMap, BTreeSet};

/// PEG detection distance ε = max(0.5 h, 0.0008) m (the 2D reference value, docs/formulation-notes.md §5.3; the
/// 3D reference hard-codes 0.1 m without a predicted configuration, docs/formulation-notes.md §5.2 — our ε_pair
/// adds the displacement bound instead).
pub fn peg3_detection_distance(h: Real) -> Real {
    (0.5 * h).max(0.0008)
}

/// How a vertex within ε of a vertex of the other body is constrained (step 3 of the module
/// docs; the paper's Eq. 38 is lost from its text). Issue #22 item 3 measured each against a
/// brute-force reference (`crates/signorini-contact/tests/it/vertex_vertex.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VertexVertex {
    /// **Default.** One X-constraint over the facets of the cone of forbidden displacements
    /// (`Builder::vertex_vertex_cone`), which implies the two vertices' I-constraints (they
    /// are not built). Admits every free and forbids every penetrating motion of the test.
    #[default]
    Cone,
    /// One X-constraint per face pair plus the two vertices' I-constraints (the project's
    /// reconstruction before issue #22): forbids 40 % of the test's free motions.
    FacePairs,
    /// No vertex–vertex X-constraint, only the I-constraints: admits 15 % of the test's
    /// penetrating motions.
    Off,
}

impl VertexVertex {
    /// `cone`, `face-pairs` or `off`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "cone" => Some(Self::Cone),
            "face-pairs" => Some(Self::FacePairs),
            "off" => Some(Self::Off),
            _ => None,
        }
    }

    /// The name [`VertexVertex::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cone => "cone",
            Self::FacePairs => "face-pairs",
            Self::Off => "off",
        }
    }
}

/// Parameters of [`peg_constraints3`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peg3Params {
    /// Base detection distance ε (m).
    pub eps: Real,
    /// Add each body's largest vertex displacement (current → predicted) to ε (default true).
    pub sweep: bool,
    /// Build the vertex–vertex X-constraints of Eq. 38 (default true).
    pub vertex_vertex_cross: bool,
    /// With `vertex_vertex_cross`: build them as **one** X-constraint over the facets of the
    /// cone of forbidden displacements (`Builder::vertex_vertex_cone` in this module) instead of one per
    /// face pair (default true; [`VertexVertex`]).
    pub vertex_vertex_cone: bool,
    /// Step 5 of the module docs, the crossing safety net (ours; default true).
    pub crossing_net: bool,
    /// The U-constraint of a vertex inside B farther than ε_pair from every face (ours, step 1
    /// of the module docs; default true).
    pub deep_vertices: bool,
    /// The I-constraint form ([`PegForm`], default single primary): with
    /// [`PegForm::General`] every applicable member (APPL > −0.4) of an I-constraint other
    /// than the primary is a co-primary (paper Eqs. 20–23).
    pub form: PegForm,
    /// Whether X-constraints carry an impulse on their primary ([`XImpulse`], default yes).
    pub x_impulse: XImpulse,
}

impl Peg3Params {
    /// Defaults for step size `h`: ε = [`peg3_detection_distance`], sweep on, Eq. 38 on in
    /// the cone form ([`VertexVertex::Cone`]), the crossing safety net and deep vertices on.
    pub fn for_step(h: Real) -> Self {
        Peg3Params {
            eps: peg3_detection_distance(h),
            sweep: true,
            vertex_vertex_cross: true,
            vertex_vertex_cone: true,
            crossing_net: true,
            deep_vertices: true,
            form: PegForm::default(),
            x_impulse: XImpulse::default(),
        }
    }

    /// These parameters with the vertex–vertex form `vv`.
    pub fn with_vertex_vertex(self, vv: VertexVertex) -> Self {
        Peg3Params {
            vertex_vertex_cross: vv != VertexVertex::Off,
            vertex_vertex_cone: vv == VertexVertex::Cone,
            ..self
        }
    }
}

/// Tolerance of the vertex–vertex cone tests ([`Builder::vertex_vertex_cone`]): a generator
/// within it of a facet plane counts as on the plane (unit vectors, so dimensionless).
const CONE_TOLERANCE: Real = 1e-9;

/// U-, I- and X-constraints for the candidate `pairs` (module docs). `now[b]` and
/// `predicted[b]` are body b's polyhedron placed in the world at the current pose and at the
/// pose predicted with the free-flight velocity (same topology).
pub fn peg_constraints3(
    bodies: &[RigidBody3],
    now: &[ConvexPolyhedron],
    predicted: &[ConvexPolyhedron],
    pairs: &[(usize, usize)],
    params: &Peg3Params,
) -> ConstraintSet3 {
    let mut b = Builder {
        bodies,
        now,
        pred: predicted,
        set: ConstraintSet3 {
            x_impulse: params.x_impulse,
            ..ConstraintSet3::default()
        },
        form: params.form,
        index: BTreeMap::new(),
        units: BTreeSet::new(),
        groups: BTreeSet::new(),
        crossing_net: params.crossing_net,
        deep_vertices: params.deep_vertices,
        cone: params.vertex_vertex_cross && params.vertex_vertex_cone,
        deferred: Vec::new(),
    };
    for &(i, j) in pairs {
        let mut eps = params.eps;
        if params.sweep {
            eps += displacement(&now[i], &predicted[i]) + displacement(&now[j], &predicted[j]);
        }
        let mut vv = BTreeSet::new();
        for (x, y) in [(i, j), (j, i)] {
            for v in 0..now[x].vertices().len() {
                if let Some(config) = b.vertex_part(x, y, v, eps) {
                    match config {
                        VertexConfig::Vertex(w) if x == i => {
                            vv.insert((v, w));
                        }
                        VertexConfig::Vertex(w) => {
                            vv.insert((w, v));
                        }
                        VertexConfig::Edges(edges) => {
                            for e in edges {
                                b.vertex_edge_cross(x, y, v, e, eps);
                            }
                        }
                        VertexConfig::Face => {}
                    }
                }
            }
        }
        let mut coned = BTreeSet::new();
        if params.vertex_vertex_cross {
            for &(va, vb) in &vv {
                if b.cone {
                    if b.vertex_vertex_cone(i, j, va, vb) {
                        coned.insert((va, vb));
                    }
                } else {
                    b.vertex_vertex_cross(i, j, va, vb);
                }
            }
        }
        // The I-constraints of vertices near a vertex, held back by `vertex_part` in the cone
        // form: implied by the cone's X-constraint when it was built (module docs, step 3).
        for (x, v, w, members) in std::mem::take(&mut b.deferred) {
            let key = if x == i { (v, w) } else { (w, v) };
            if !coned.contains(&key) {
                let y = if x == i { j } else { i };
                let members = members.iter().map(|&f| b.vf(x, y, v, f)).collect();
                b.push_group(members, false, None);
            }
        }
        b.edge_edge(i, j, eps);
    }
    b.set.unilateral = b.units.into_iter().collect();
    b.set
}

/// An axis-aligned box: (min corner, max corner).
type Box3 = (Vec3, Vec3);

/// True if the boxes are more than `reach` apart along some axis. Two points in them are
/// then more than `reach` apart: a distance is at least its separation along any axis.
fn apart(x: &Box3, y: &Box3, reach: Real) -> bool {
    (0..3).any(|k| y.0[k] - x.1[k] > reach || x.0[k] - y.1[k] > reach)
}

/// The boxes of a polyhedron's edges and of the whole polyhedron: the edge–edge step's
/// prefilter. PEG's edge–edge test visits every edge pair of two bodies (E_a × E_b calls of
/// `closest_segment_segment`: 14 % of the 27-body pile's run before the prefilter), and all
/// but the few near the contact are farther apart than ε.
struct EdgeBoxes {
    edges: Vec<Box3>,
    all: Box3,
}

impl EdgeBoxes {
    fn of(poly: &ConvexPolyhedron) -> Self {
        let v = poly.vertices();
        let edges: Vec<Box3> = poly
            .edges()
            .iter()
            .map(|e| (v[e.tail].inf(&v[e.head]), v[e.tail].sup(&v[e.head])))
            .collect();
        let all = edges.iter().fold(
            (
                Vec3::repeat(Real::INFINITY),
                Vec3::repeat(Real::NEG_INFINITY),
            ),
            |(lo, hi), b| (lo.inf(&b.0), hi.sup(&b.1)),
        );
        EdgeBoxes { edges, all }
    }

    /// The edges whose boxes are within `reach` of `other` (ascending).
    fn near(&self, other: &Box3, reach: Real) -> Vec<usize> {
        (0..self.edges.len())
            .filter(|&k| !apart(&self.edges[k], other, reach))
            .collect()
    }

    /// Added to ε so that rounding cannot make the prefilter drop a pair the exact test keeps:
    /// `closest_segment_segment`'s points are within a few ulps of the segments, far inside
    /// 1e-9 of the coordinates' magnitude (plus 1e-12 m).
    fn slack(x: &EdgeBoxes, y: &EdgeBoxes) -> Real {
        let size = [x.all.0, x.all.1, y.all.0, y.all.1]
            .iter()
            .map(|c| c.amax())
            .fold(0.0, Real::max);
        1e-9 * size + 1e-12
    }
}

/// True if two edges really pass through each other: the point `p` of A's edge closest to
/// B's edge lies in B and the point `q` of B's edge closest to A's edge lies in A (to
/// [`CROSSED_TOLERANCE`]). An edge–edge gap (the signed distance between the edges' lines
/// along ±e_a × e_b, signed by the edges' orientation) is negative for crossed edges, but also
/// for edges that do not face each other and are far apart: on the 1,000-body pile, the sweep
/// widened ε_pair to 0.15 m for falling bodies, and edge pairs of bodies 0.15 m apart (no
/// overlap) entered as U-constraints with gaps down to −0.148 m. Their ψ/h demanded 14.8 m/s
/// of separation; the step's energy rose to 3e5 J and bodies were driven into each other and
/// into the walls (docs/peg3d.md, "What the step does at scale").
fn crossed(pa: &ConvexPolyhedron, p: &Vec3, pb: &ConvexPolyhedron, q: &Vec3) -> bool {
    pb.max_face_distance(p).1 <= CROSSED_TOLERANCE && pa.max_face_distance(q).1 <= CROSSED_TOLERANCE
}

/// Round-off allowance of [`crossed`] (m): a point this far outside a face plane still counts
/// as inside.
const CROSSED_TOLERANCE: Real = 1e-9;

/// Distance from `p` to each face polygon of `poly`.
fn face_distances(p: &signorini_math::Vec3, poly: &ConvexPolyhedron) -> Vec<Real> {
    (0..poly.faces().len())
        .map(|f| {
            let (c, _) = closest_on_polygon(p, &poly.face_points(f), &poly.faces()[f].normal);
            (c - p).norm()
        })
        .collect()
}

/// Largest vertex displacement between two placements of the same polyhedron.
fn displacement(now: &ConvexPolyhedron, pred: &ConvexPolyhedron) -> Real {
    now.vertices()
        .iter()
        .zip(pred.vertices())
        .map(|(p, q)| (q - p).norm())
        .fold(0.0, Real::max)
}

/// Which configuration a near vertex is in (decides its X-constraints).
enum VertexConfig {
    /// Near a vertex of the other body (vertex–vertex, Eqs. 37–38).
    Vertex(usize),
    /// Near these edges, not near their end vertices (vertex–edge, Eq. 36).
    Edges(Vec<usize>),
    /// Near the interior of faces only (vertex–face), or deep inside.
    Face,
}

struct Builder<'a> {
    bodies: &'a [RigidBody3],
    now: &'a [ConvexPolyhedron],
    pred: &'a [ConvexPolyhedron],
    set: ConstraintSet3,
    index: BTreeMap<(usize, usize, Features3), usize>,
    units: BTreeSet<usize>,
    groups: BTreeSet<Vec<usize>>,
    crossing_net: bool,
    deep_vertices: bool,
    /// The I-constraint form ([`Peg3Params::form`]).
    form: PegForm,
    /// The vertex–vertex cone form ([`Peg3Params::vertex_vertex_cone`]).
    cone: bool,
    /// In the cone form, the I-constraints held back by `vertex_part` for vertices near a
    /// vertex: (body x, vertex v of x, the nearest vertex w of the other body, the faces of
    /// F(v)).
    deferred: Vec<(usize, usize, usize, Vec<usize>)>,
}

impl Builder<'_> {
    /// The contact vertex `vertex` of body `a` – face `face` of body `b` (created once).
    fn vf(&mut self, a: usize, b: usize, vertex: usize, face: usize) -> usize {
        let key = (a, b, Features3::VertexFace { vertex, face });
        if let Some(&k) = self.index.get(&key) {
            return k;
        }
        let c = vertex_face_contact(
            (a, b),
            (&self.now[a], &self.now[b]),
            (vertex, face),
            self.bodies,
        );
        self.push_contact(key, c)
    }

    /// The edge–edge contact (None for parallel edges), always described from the body with
    /// the lower index so that a pair met from both sides is one contact with one gap.
    fn ee(&mut self, a: usize, b: usize, edge_a: usize, edge_b: usize) -> Option<usize> {
        let (a, b, edge_a, edge_b) = if a < b {
            (a, b, edge_a, edge_b)
        } else {
            (b, a, edge_b, edge_a)
        };
        let key = (a, b, Features3::EdgeEdge { edge_a, edge_b });
        if let Some(&k) = self.index.get(&key) {
            return Some(k);
        }
        let c = edge_edge_contact(
            (a, b),
            (&self.now[a], &self.now[b]),
            (edge_a, edge_b),
            self.bodies,
        )?;
        Some(self.push_contact(key, c))
    }

    fn push_contact(&mut self, key: (usize, usize, Features3), c: Contact3) -> usize {
        let k = self.set.contacts.len();
        self.set.contacts.push(c);
        self.index.insert(key, k);
        k
    }

    /// Gap of contact `k`'s feature pair at the predicted configuration.
    fn predicted_gap(&self, k: usize) -> Real {
        let c = &self.set.contacts[k];
        match c.features {
            Features3::VertexFace { vertex, face } => {
                let f = &self.pred[c.b].faces()[face];
                f.normal.dot(&self.pred[c.a].vertices()[vertex]) - f.offset
            }
            Features3::EdgeEdge { edge_a, edge_b } => edge_edge_contact(
                (c.a, c.b),
                (&self.pred[c.a], &self.pred[c.b]),
                (edge_a, edge_b),
                self.bodies,
            )
            .map_or(c.gap, |p| p.gap),
            Features3::Bodies => c.gap,
        }
    }

    /// Add a U- (one member) or I-/X-constraint (several) with the single-primary heuristic.
    fn push_group(&mut self, mut members: Vec<usize>, cross: bool, primary: Option<usize>) {
        members.dedup();
        if members.len() == 1 {
            self.units.insert(members[0]);
            return;
        }
        // An X-constraint that reads violated while none of its members' features really
        // interpenetrate is false (see [`crossed`]; its plane and edge–edge gaps are exact
        // only near contact, and the sweep admits members from afar): left out.
        let reads_violated = members.iter().all(|&m| self.set.contacts[m].gap < 0.0);
        if cross && reads_violated && !members.iter().any(|&m| self.penetrates(m)) {
            return;
        }
        let mut key = members.clone();
        key.sort_unstable();
        if !self.groups.insert(key) {
            return;
        }
        let primary = primary.unwrap_or_else(|| self.choose_primary(&members));
        let secondaries: Vec<usize> = members.into_iter().filter(|&m| m != primary).collect();
        // General form (paper Eqs. 20–23): the applicable members are C_ι, each a primary.
        let co_primaries = if self.form == PegForm::General && !cross {
            secondaries
                .iter()
                .copied()
                .filter(|&m| self.set.contacts[m].applicability > APPL_VV)
                .collect()
        } else {
            Vec::new()
        };
        let pc = PairConstraint {
            primary,
            secondaries,
            co_primaries,
        };
        if cross {
            self.set.cross.push(pc);
        } else {
            self.set.inter.push(pc);
        }
    }

    /// True if contact `k`'s features interpenetrate now: its vertex lies in the other body,
    /// or its edges are [`crossed`].
    fn penetrates(&self, k: usize) -> bool {
        let c = &self.set.contacts[k];
        let (pa, pb) = (&self.now[c.a], &self.now[c.b]);
        match c.features {
            Features3::VertexFace { vertex, .. } => {
                pb.max_face_distance(&pa.vertices()[vertex]).1 <= CROSSED_TOLERANCE
            }
            Features3::EdgeEdge { edge_a, edge_b } => {
                let (_, _, p, q) = closest_on_edges(pa, edge_a, pb, edge_b);
                crossed(pa, &p, pb, &q)
            }
            Features3::Bodies => true,
        }
    }

    /// Largest predicted gap among the applicable members (module docs).
    fn choose_primary(&self, members: &[usize]) -> usize {
        let applicable: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&m| self.set.contacts[m].applicability > APPL_VV)
            .collect();
        let pool = if applicable.is_empty() {
            members.to_vec()
        } else {
            applicable
        };
        let mut best = pool[0];
        let mut best_gap = self.predicted_gap(best);
        for &m in &pool[1..] {
            let g = self.predicted_gap(m);
            if g > best_gap {
                (best, best_gap) = (m, g);
            }
        }
        best
    }

    /// Step 1 of the module docs for vertex `v` of body `x` against body `y`.
    fn vertex_part(&mut self, x: usize, y: usize, v: usize, eps: Real) -> Option<VertexConfig> {
        let (px, py) = (&self.now[x], &self.now[y]);
        let p = px.vertices()[v];
        let (deepest, max_gap) = py.max_face_distance(&p);
        if max_gap > eps {
            return None; // farther than ε from B's body, hence from every feature
        }
        let d_now = face_distances(&p, py);
        let near: Vec<usize> = (0..py.faces().len()).filter(|&f| d_now[f] <= eps).collect();
        if near.is_empty() {
            let inside_pred = self.pred[y]
                .max_face_distance(&self.pred[x].vertices()[v])
                .1
                < 0.0;
            if self.deep_vertices && (max_gap < 0.0 || inside_pred) {
                let c = self.vf(x, y, v, deepest);
                self.units.insert(c);
            }
            return Some(VertexConfig::Face);
        }
        // Configuration for the X-constraints.
        let nearest_vertex = (0..py.vertices().len())
            .map(|w| (w, (py.vertices()[w] - p).norm()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .filter(|&(_, d)| d <= eps);
        if let (true, Some((w, _))) = (self.cone, nearest_vertex) {
            self.deferred.push((x, v, w, near));
            return Some(VertexConfig::Vertex(w));
        }
        let members: Vec<usize> = near.iter().map(|&f| self.vf(x, y, v, f)).collect();
        self.push_group(members, false, None);
        if let Some((w, _)) = nearest_vertex {
            return Some(VertexConfig::Vertex(w));
        }
        let edges: Vec<usize> = (0..py.edges().len())
            .filter(|&e| {
                let ed = &py.edges()[e];
                let (q, _) =
                    closest_on_segment(&p, &py.vertices()[ed.tail], &py.vertices()[ed.head]);
                (q - p).norm() <= eps
            })
            .collect();
        if edges.is_empty() {
            Some(VertexConfig::Face)
        } else {
            Some(VertexConfig::Edges(edges))
        }
    }

    /// Step 2: vertex–edge X-constraints (paper Eq. 36).
    fn vertex_edge_cross(&mut self, x: usize, y: usize, v: usize, e: usize, eps: Real) {
        let (px, py) = (&self.now[x], &self.now[y]);
        let p = px.vertices()[v];
        let [f1, f2] = py.edges()[e].faces;
        let c1 = self.vf(x, y, v, f1);
        let c2 = self.vf(x, y, v, f2);
        let o = orientation_vector(py, e);
        for &ei in px.vertex_edges(v) {
            if applicability_ee(px, ei, py, e) <= APPL_VE_EDGES {
                continue;
            }
            let Some(cee) = self.ee(x, y, ei, e) else {
                continue;
            };
            let dir = px.vertices()[px.other_end(ei, v)] - p;
            let (partner, face) = if dir.dot(&o) > 0.0 {
                (c1, f1)
            } else {
                (c2, f2)
            };
            let vf_ok = self.set.contacts[partner].applicability > APPL_VF_LONE
                && feasibility_vf(&p, py, face, eps, FEASIBILITY_ANGLE, FEASIBILITY_DEPTH);
            let primary = if vf_ok { partner } else { cee };
            self.push_group(vec![partner, cee], true, Some(primary));
        }
    }

    /// Step 3: vertex–vertex X-constraints (paper Eq. 38, our reconstruction).
    fn vertex_vertex_cross(&mut self, a: usize, b: usize, va: usize, vb: usize) {
        let (pa, pb) = (&self.now[a], &self.now[b]);
        let face_edges = |p: &ConvexPolyhedron, v: usize, f: usize| -> Vec<usize> {
            p.vertex_edges(v)
                .iter()
                .copied()
                .filter(|&e| p.edges()[e].faces.contains(&f))
                .collect()
        };
        for &fa in pa.vertex_faces(va) {
            for &fb in pb.vertex_faces(vb) {
                let mut ees = Vec::new();
                for ea in face_edges(pa, va, fa) {
                    for eb in face_edges(pb, vb, fb) {
                        if applicability_ee(pa, ea, pb, eb) > APPL_EE
                            && let Some(c) = self.ee(a, b, ea, eb)
                        {
                            ees.push(c);
                        }
                    }
                }
                if ees.is_empty() {
                    continue;
                }
                let ca = self.vf(a, b, va, fb);
                let cb = self.vf(b, a, vb, fa);
                let primary = [ca, cb]
                    .into_iter()
                    .find(|&c| self.set.contacts[c].applicability > APPL_VV)
                    .unwrap_or(ees[0]);
                let mut members = vec![ca, cb];
                members.extend(ees);
                self.push_group(members, true, Some(primary));
            }
        }
    }

    /// Step 3 as one X-constraint ([`Peg3Params::vertex_vertex_cone`]; our derivation, the
    /// paper's Eq. 38 is lost from its text). Near the two vertices, A is `v_a + cone_A` and B
    /// is `v_b + cone_B` (the cones generated by the edge directions at each vertex), so the
    /// interiors meet iff `x = v_a − v_b` lies inside `K = cone_B + (−cone_A)`. Non-penetration
    /// is the disjunction "x is outside at least one facet of K": the X-constraint whose
    /// members are exactly K's facets, each a contact whose gap is `n·x` for the facet's
    /// outward normal n:
    /// - a face f_b at v_b whose plane supports K: C(v_a, f_b);
    /// - a face f_a at v_a whose reflected plane supports K: C(v_b, f_a);
    /// - an edge pair (e_a at v_a, e_b at v_b) whose plane supports K, when the edge–edge
    ///   contact's normal is oriented as the facet's.
    ///
    /// A face or edge plane that does not support K is left out: it can be non-negative while
    /// x is inside K, and the disjunction would then admit a penetration. Members with the same
    /// facet normal (coplanar faces of A and B at touching corners, an edge pair in their
    /// plane) are one facet, kept once: they read the same gap `n·x`. A cone with one facet
    /// (two boxes face to face: K is a half-space) is a U-constraint.
    ///
    /// Returns whether the constraint was built. When it was, the I-constraints of `v_a` near
    /// B and of `v_b` near A are implied and are not built: `F(v_a)` holds every face at
    /// `v_b` (they are all within ε of `v_a`), so "some face of `F(v_a)` has `ψ ≥ 0`" follows
    /// from "x is outside cone_B", which follows from "x is outside K ⊇ cone_B"; the same for
    /// `v_b` with `−cone_A ⊆ K`.
    fn vertex_vertex_cone(&mut self, a: usize, b: usize, va: usize, vb: usize) -> bool {
        let (pa, pb) = (&self.now[a], &self.now[b]);
        let directions = |p: &ConvexPolyhedron, v: usize| -> Vec<(usize, Vec3)> {
            p.vertex_edges(v)
                .iter()
                .map(|&e| {
                    let edge = &p.edges()[e];
                    let other = if edge.tail == v { edge.head } else { edge.tail };
                    (e, (p.vertices()[other] - p.vertices()[v]).normalize())
                })
                .collect()
        };
        let (ga, gb) = (directions(pa, va), directions(pb, vb));
        let generators: Vec<Vec3> = gb
            .iter()
            .map(|g| g.1)
            .chain(ga.iter().map(|g| -g.1))
            .collect();
        let supports = |n: &Vec3| generators.iter().all(|g| n.dot(g) <= CONE_TOLERANCE);
        let mut facets: Vec<Vec3> = Vec::new();
        let mut new_facet = |n: Vec3| {
            let new = facets.iter().all(|m| m.dot(&n) < 1.0 - CONE_TOLERANCE);
            if new {
                facets.push(n);
            }
            new
        };
        let mut members = Vec::new();
        for &fb in pb.vertex_faces(vb) {
            let n = pb.faces()[fb].normal;
            if supports(&n) && new_facet(n) {
                members.push(self.vf(a, b, va, fb));
            }
        }
        for &fa in pa.vertex_faces(va) {
            let n = -pa.faces()[fa].normal;
            if supports(&n) && new_facet(n) {
                members.push(self.vf(b, a, vb, fa));
            }
        }
        for &(ea, da) in &ga {
            for &(eb, db) in &gb {
                let c = da.cross(&db);
                if c.norm() < CONE_TOLERANCE {
                    continue;
                }
                let n = c.normalize();
                let n = if supports(&n) {
                    n
                } else if supports(&-n) {
                    -n
                } else {
                    continue;
                };
                // The edge–edge contact's normal points from A into B (measured without
                // adding the contact, which is added only as a member); the facet's from B
                // towards A.
                let oriented = edge_edge_contact((a, b), (pa, pb), (ea, eb), self.bodies)
                    .is_some_and(|c| (-c.normal).dot(&n) > 0.99);
                if oriented
                    && new_facet(n)
                    && let Some(k) = self.ee(a, b, ea, eb)
                {
                    members.push(k);
                }
            }
        }
        members.sort_unstable();
        if members.is_empty() {
            return false;
        }
        self.push_group(members, true, None);
        true
    }

    /// Step 4: edge–edge U-constraints, and step 5: the crossing safety net. In the cone form
    /// the net also covers edge pairs at a vertex pair constrained by a cone (the per-face-pair
    /// form holds many of them as X members, so they are known there): the cones describe
    /// the bodies only near the vertices, and edges that cross farther out are caught here.
    /// Measured: leaving those pairs out raised pour3d random c5 at h = 0.01 from 3.2e-10 to
    /// 1.3e-4 m³.
    fn edge_edge(&mut self, a: usize, b: usize, eps: Real) {
        let (pa, pb) = (&self.now[a], &self.now[b]);
        // Box prefilter (a speedup only): the pairs it drops are more than ε apart and would
        // fail the distance test below; the others are visited in the same order as before.
        let (boxes_a, boxes_b) = (EdgeBoxes::of(pa), EdgeBoxes::of(pb));
        let reach = eps + EdgeBoxes::slack(&boxes_a, &boxes_b);
        let near_a = boxes_a.near(&boxes_b.all, reach);
        let near_b = boxes_b.near(&boxes_a.all, reach);
        for &ka in &near_a {
            let ea = &pa.edges()[ka];
            let (a0, a1) = (pa.vertices()[ea.tail], pa.vertices()[ea.head]);
            for &kb in &near_b {
                if apart(&boxes_a.edges[ka], &boxes_b.edges[kb], reach) {
                    continue;
                }
                let eb = &pb.edges()[kb];
                let (b0, b1) = (pb.vertices()[eb.tail], pb.vertices()[eb.head]);
                let (_, _, p, q) = closest_segment_segment(&a0, &a1, &b0, &b1);
                if (p - q).norm() > eps || applicability_ee(pa, ka, pb, kb) <= APPL_EE {
                    continue;
                }
                let vertex_config = [a0, a1].iter().any(|v| (v - q).norm() <= eps)
                    || [b0, b1].iter().any(|v| (v - p).norm() <= eps);
                // The safety net only for pairs no vertex configuration constrains.
                let known = self.index.contains_key(&(
                    a,
                    b,
                    Features3::EdgeEdge {
                        edge_a: ka,
                        edge_b: kb,
                    },
                ));
                if (!vertex_config || (self.crossing_net && !known && self.crossing(a, b, ka, kb)))
                    && let Some(c) = self.ee(a, b, ka, kb)
                    && (self.set.contacts[c].gap >= 0.0 || crossed(pa, &p, pb, &q))
                {
                    self.units.insert(c);
                }
            }
        }
    }

    /// True if the two edge segments cross (closest points interior to both segments and a
    /// negative edge–edge gap) now or at the predicted configuration.
    fn crossing(&self, a: usize, b: usize, ka: usize, kb: usize) -> bool {
        [self.now, self.pred].iter().any(|polys| {
            let (pa, pb) = (&polys[a], &polys[b]);
            let (s, t, p, q) = closest_on_edges(pa, ka, pb, kb);
            let interior = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
            interior
                && applicability_ee(pa, ka, pb, kb) > APPL_EE
                && edge_edge_contact((a, b), (pa, pb), (ka, kb), self.bodies)
                    .is_some_and(|c| c.gap < 0.0)
                && crossed(pa, &p, pb, &q)
        })
    }
}

#[cfg(test)]
mod prefilter_tests {
    use super::*;

    /// The edge–edge prefilter only drops pairs the exact test would drop: for segment pairs
    /// of every scale and separation, `apart` implies a distance above the reach.
    #[test]
    fn apart_segments_are_farther_than_the_reach() {
        let mut s: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as Real / (1u64 << 53) as Real - 0.5
        };
        let (mut dropped, mut kept) = (0, 0);
        for i in 0..20_000 {
            let scale = [1e-3, 1.0, 1e3][i % 3];
            let mut point = || Vec3::new(next(), next(), next()) * scale;
            let (a0, a1, b0, b1) = (point(), point(), point(), point());
            let x = (a0.inf(&a1), a0.sup(&a1));
            let y = (b0.inf(&b1), b0.sup(&b1));
            let eps = 0.05 * scale * next().abs();
            let (_, _, p, q) = closest_segment_segment(&a0, &a1, &b0, &b1);
            if apart(&x, &y, eps) {
                dropped += 1;
                assert!(
                    (p - q).norm() > eps,
                    "pair {i}: dropped at {}",
                    (p - q).norm()
                );
            } else {
                kept += 1;
            }
        }
        // Both outcomes occur, so the test exercises the filter.
        assert!(
            dropped > 1000 && kept > 1000,
            "{dropped} dropped, {kept} kept"
        );
    }

    /// The near-edge lists keep every edge within reach of the other body's box, in order.
    #[test]
    fn near_edges_are_ascending_and_cover_the_close_pairs() {
        let a = ConvexPolyhedron::cuboid(Vec3::new(0.5, 0.5, 0.5)).unwrap();
        let b = a.translated(&Vec3::new(1.0005, 0.2, 0.0));
        let (ba, bb) = (EdgeBoxes::of(&a), EdgeBoxes::of(&b));
        let reach = 0.001 + EdgeBoxes::slack(&ba, &bb);
        let near_a = ba.near(&bb.all, reach);
        assert!(near_a.windows(2).all(|w| w[0] < w[1]));
        // The filter drops something: b is beside a's +x face, offset in y, so the edges
        // at x = −0.5 and at y = −0.5 are more than ε from b's box.
        assert!(near_a.len() < a.edges().len() / 2, "{near_a:?}");
        for (ka, ea) in a.edges().iter().enumerate() {
            for eb in b.edges() {
                let (_, _, p, q) = closest_segment_segment(
                    &a.vertices()[ea.tail],
                    &a.vertices()[ea.head],
                    &b.vertices()[eb.tail],
                    &b.vertices()[eb.head],
                );
                if (p - q).norm() <= 0.001 {
                    assert!(near_a.contains(&ka), "edge {ka} is within eps but filtered");
                }
            }
        }
    }
}
