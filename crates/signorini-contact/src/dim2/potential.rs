//! PEG potential contacts: vertex–edge pairs within ε at the current or the predicted
//! configuration (docs/formulation-notes.md §5.3, reference code `get_all_contacts_2d.m`; paper §4, Eqs. 28–30).
//!
//! Owns: the detection distance ε(h), the relaxed applicability constant, and the search.
//! Does not own: which contacts become which constraint (`peg`).

use super::contact::{Contact, applicability, vertex_edge_contact};
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::point_segment_sq_distance;
use signorini_math::{Real, Vec2};

/// Relaxed applicability threshold ε_θ: a vertex–edge contact is considered when
/// `APPL_ve > −0.2` (reference code `PEG2_dynamics` → `PEG_constraints_from_contacts(sim, −0.2)`;
/// the paper's relaxed Eq. 28 allows rotation within a step; docs/formulation-notes.md §5.1 table).
pub const PEG_APPLICABILITY_RELAXATION: Real = -0.2;

/// Detection distance ε = max(0.5 h, 0.0008) m (the committed value in the reference code's
/// `get_all_contacts_2d.m`; docs/formulation-notes.md §5.3).
pub fn peg_detection_distance(h: Real) -> Real {
    (0.5 * h).max(0.0008)
}

/// All vertex–edge feature pairs of the candidate body `pairs`, both orderings (A→B then B→A),
/// whose vertex–segment distance is ≤ `eps` at the current configuration (`verts`) or at the
/// predicted one (`predicted`, pose + h ν), or whose vertex crosses the edge between the two
/// (see [`crosses_edge`]). Contacts are measured at the current configuration and come out
/// grouped by (A, B, vertex) with edges in index order.
///
/// Deviation from the reference code: the crossing test is ours. With the committed
/// ε = max(0.5h, 0.0008) alone, a vertex faster than 2ε/h (1 m/s) can jump from one side of an
/// edge to the other without ever being within ε of it at the two sampled configurations; in
/// the triangle-drop test that makes PEG fall through the static triangle for most h.
/// Likewise ours: a vertex strictly inside B at the *current* configuration is paired with the
/// edge it penetrates least, so that an overlap that escaped detection is still pushed out by
/// the ψ/h term instead of persisting. The rule is deliberately not applied at the predicted
/// configuration: there the least-penetrated edge of the predicted pose can be an edge that is
/// far away now (a vertex predicted to pass through a thin body pairs with its far side; in
/// pour2d set h, h = 0.013 s this gave a contact with gap −0.045 m), and the ψ/h term then
/// flings the bodies apart (one step with 6e-4 m² of overlap). Predicted crossings are already
/// caught by the ε test and [`crosses_edge`], which pair the vertex with the edge it crosses.
/// Also ours, with the deep-vertex rule (`PotentialRules::deep_vertices`): a vertex that is
/// *not* inside B now is never paired with an edge whose line it is more than ε beyond. Such a
/// vertex is past the edge's end (its gap, the distance to the edge's line, reads a penetration
/// that is not there), and the pair only came near at the predicted configuration. The 2D pile of
/// 400 bodies had one at step 221: a U-constraint with gap −0.011 m between bodies that did not
/// overlap. Its ψ/h asked for 2 m/s of separation, the step's solves failed, and 2e-2 m² of
/// real overlap followed. The edges the vertex is really near (the other edge at that corner)
/// keep their contacts.
/// The deep vertex's contact gets applicability [`DEEP_APPLICABILITY`] (ours, as in 3D where a
/// deep vertex always gets a U-constraint on its least-deep face): the applicability test
/// (paper Eq. 28, relaxed to > −0.2) screens a vertex *approaching* an edge from outside and
/// says nothing about a vertex already embedded; dropping such a contact left the vertex
/// unconstrained (pour2d set j, h = 0.003 s, step 1578: a body dropped onto another, two of
/// its vertices inside with applicabilities −0.34 and −0.90, 4.8e-5 m² left after the step).
pub fn potential_contacts(
    bodies: &[RigidBody2],
    verts: &[Vec<Vec2>],
    predicted: &[Vec<Vec2>],
    pairs: &[(usize, usize)],
    eps: Real,
) -> Vec<Contact> {
    potential_contacts_with(
        bodies,
        verts,
        predicted,
        pairs,
        eps,
        PotentialRules::PROJECT,
    )
}

/// Which of the project's detection additions [`potential_contacts_with`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PotentialRules {
    /// Keep a vertex that crosses an edge between the two configurations ([`crosses_edge`]).
    pub edge_crossing: bool,
    /// Pair a vertex strictly inside the other body (now) with its least-penetrated edge, with
    /// applicability [`DEEP_APPLICABILITY`].
    pub deep_vertices: bool,
    /// Applicability also at the predicted orientation (the larger of the two).
    pub predicted_applicability: bool,
}

impl PotentialRules {
    /// Every addition on: what [`potential_contacts`] uses (the default stepper).
    pub const PROJECT: PotentialRules = PotentialRules {
        edge_crossing: true,
        deep_vertices: true,
        predicted_applicability: true,
    };
    /// Every addition off: the reference code's `get_all_contacts_2d.m` (ε at the current
    /// or the predicted configuration, applicability at the current orientation).
    pub const PAPER: PotentialRules = PotentialRules {
        edge_crossing: false,
        deep_vertices: false,
        predicted_applicability: false,
    };
}

/// [`potential_contacts`] with the additions chosen by `rules` (`PotentialRules::PROJECT`
/// gives exactly [`potential_contacts`]).
pub fn potential_contacts_with(
    bodies: &[RigidBody2],
    verts: &[Vec<Vec2>],
    predicted: &[Vec<Vec2>],
    pairs: &[(usize, usize)],
    eps: Real,
    rules: PotentialRules,
) -> Vec<Contact> {
    let eps2 = eps * eps;
    let mut out = Vec::new();
    for &(i, j) in pairs {
        for (a, b) in [(i, j), (j, i)] {
            let (va, vb) = (&verts[a], &verts[b]);
            let (pa, pb) = (&predicted[a], &predicted[b]);
            let nb = vb.len();
            for vertex in 0..va.len() {
                // A vertex already inside B now, far from every edge, would be missed by the
                // ε tests; it gets its least-penetrated edge (ours, current configuration
                // only: see the function documentation).
                let deep = if rules.deep_vertices {
                    deepest_edge(&va[vertex], vb)
                } else {
                    None
                };
                for edge in 0..nb {
                    let e1 = (edge + 1) % nb;
                    let near = point_segment_sq_distance(&va[vertex], &vb[edge], &vb[e1]).0 <= eps2
                        || point_segment_sq_distance(&pa[vertex], &pb[edge], &pb[e1]).0 <= eps2
                        || (rules.edge_crossing
                            && crosses_edge(
                                (&va[vertex], &pa[vertex]),
                                (&vb[edge], &vb[e1]),
                                (&pb[edge], &pb[e1]),
                                eps,
                            ))
                        || deep == Some(edge);
                    if near {
                        let mut c = vertex_edge_contact(
                            (a, b),
                            va,
                            vb,
                            vertex,
                            edge,
                            (bodies[a].position, bodies[b].position),
                            (bodies[a].is_static, bodies[b].is_static),
                        );
                        // Applicability at the predicted orientation too (ours; the paper's
                        // relaxation ε_θ stands in for rotation within the step, Eq. 28–30).
                        if rules.predicted_applicability {
                            let e = pb[e1] - pb[edge];
                            let outward = Vec2::new(e.y, -e.x) / e.norm();
                            c.applicability =
                                c.applicability.max(applicability(pa, vertex, &outward));
                        }
                        if deep == Some(edge) {
                            // A vertex inside B must leave it: its least-penetrated edge is
                            // never rejected by applicability (see the function docs).
                            c.applicability = DEEP_APPLICABILITY;
                        } else if rules.deep_vertices && c.gap < -eps {
                            // Not inside B (no deepest edge) yet more than ε beyond this
                            // edge's line: the vertex is past the edge's end, and the gap
                            // reads a penetration that is not there (module docs).
                            continue;
                        }
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

/// Applicability given to the contact of a vertex strictly inside the other body at the current
/// configuration with that body's least-penetrated edge (see [`potential_contacts`]): the
/// largest value, so the contact is never trimmed and is preferred as a primary.
pub const DEEP_APPLICABILITY: Real = 1.0;

/// True if a vertex moving from `v.0` (current) to `v.1` (predicted) goes from the outer to the
/// inner side of the moving edge (`now` → `next`) and, at the crossing (linear interpolation of
/// the signed distances), lies over the edge extended by `eps` at both ends.
pub fn crosses_edge(
    v: (&Vec2, &Vec2),
    now: (&Vec2, &Vec2),
    next: (&Vec2, &Vec2),
    eps: Real,
) -> bool {
    let side = |p: &Vec2, (a, b): (&Vec2, &Vec2)| {
        let e = b - a;
        let len = e.norm();
        let n_in = Vec2::new(-e.y, e.x) / len;
        // (signed gap ψ = n̂_in·(a − p), position along the edge in units of its length, margin)
        (n_in.dot(&(a - p)), (p - a).dot(&e) / (len * len), eps / len)
    };
    let (g0, s0, m0) = side(v.0, now);
    let (g1, s1, _) = side(v.1, next);
    if !(g0 > 0.0 && g1 < 0.0) {
        return false;
    }
    let t = g0 / (g0 - g1);
    let s = s0 + t * (s1 - s0);
    (-m0..=1.0 + m0).contains(&s)
}

/// If `p` is strictly inside the counter-clockwise polygon `poly`, the edge with the largest
/// (least negative) signed gap; otherwise `None`.
fn deepest_edge(p: &Vec2, poly: &[Vec2]) -> Option<usize> {
    let n = poly.len();
    let mut best: Option<(usize, Real)> = None;
    for k in 0..n {
        let e = poly[(k + 1) % n] - poly[k];
        let gap = Vec2::new(-e.y, e.x).dot(&(poly[k] - p)) / e.norm();
        if gap >= 0.0 {
            return None;
        }
        if best.is_none_or(|(_, g)| gap > g) {
            best = Some((k, gap));
        }
    }
    best.map(|(k, _)| k)
}
