//! PEG constraint generation with a single primary contact per I-/X-constraint.
//!
//! Owns: turning the potential contacts of [`crate::potential_contacts`] into U-, I- and
//! X-constraints (paper §2–§5: U Eq. 11, I Eqs. 15 and 20–24, X Eqs. 16 and 35; vertex–vertex
//! case of paper Fig. 5). We follow the reference code's `PEG_constraints_from_contacts.m`
//! (docs/formulation-notes.md §5.4) for the grouping, trimming, relaxation −0.2 and the primary heuristic, and
//! its `PEG2_dynamics.m` (docs/formulation-notes.md §4.3) for X-constraints, which are written like I-constraints
//! and whose primary carries an impulse (the paper says X's carry none; docs/formulation-notes.md §13.3).
//! Deliberate differences from the reference code (its bugs, docs/formulation-notes.md §4.6): a group reduced to a
//! single contact becomes a U-constraint on *that* contact; every U that duplicates a contact
//! used by an I or X is removed (not only the first); an I with no applicable contact is
//! dropped without touching X's; groups whose edges are not consecutive are split into
//! consecutive runs instead of being treated as one run.
//! Does not own: the formulation of the constraints (`formulate`).

use super::constraints::{ConstraintSet, PairConstraint};
use super::contact::Contact;
use crate::{PegForm, XImpulse};
use signorini_math::Real;
use std::collections::{BTreeMap, BTreeSet};

/// Gap below which the primary choice prefers a less-penetrating alternative (m; reference code
/// `PEG_constraints_from_contacts.m`, docs/formulation-notes.md §5.4 step 4).
pub const PRIMARY_SWAP_GAP: Real = -1e-3;

type Key = (usize, usize, usize, usize);

/// Build U, I and X constraints from potential contacts. `vertex_counts[b]` is the number of
/// vertices (= edges) of body b; `eps_theta` is the relaxed applicability threshold
/// ([`crate::PEG_APPLICABILITY_RELAXATION`]).
pub fn build_peg_constraints(
    contacts: Vec<Contact>,
    vertex_counts: &[usize],
    eps_theta: Real,
) -> ConstraintSet {
    build_peg_constraints_with(
        contacts,
        vertex_counts,
        eps_theta,
        PegForm::default(),
        XImpulse::default(),
    )
}

/// [`build_peg_constraints`] in the I-constraint form `form` and with the X-constraint
/// impulses `x_impulse` (issue #22 item 2). With [`PegForm::General`] an I-constraint whose two
/// contacts are both applicable (C_ι = {c1, c2}, C_κ = ∅) gets the second as a co-primary
/// ([`PairConstraint::co_primaries`], paper Eqs. 20–23); with one applicable contact
/// (|C_ι| = 1) it is the single-primary constraint of Eq. 24 in either form. The defaults
/// build exactly [`build_peg_constraints`]'s set.
pub fn build_peg_constraints_with(
    contacts: Vec<Contact>,
    vertex_counts: &[usize],
    eps_theta: Real,
    form: PegForm,
    x_impulse: XImpulse,
) -> ConstraintSet {
    let index: BTreeMap<Key, usize> = contacts
        .iter()
        .enumerate()
        .map(|(i, c)| (c.key(), i))
        .collect();
    let mut groups: BTreeMap<(usize, usize, usize), Vec<usize>> = BTreeMap::new();
    for c in &contacts {
        groups.entry((c.a, c.b, c.vertex)).or_default().push(c.edge);
    }
    let mut set = ConstraintSet {
        contacts,
        x_impulse,
        ..Default::default()
    };
    let mut seen: BTreeSet<[usize; 4]> = BTreeSet::new();
    let mut units: Vec<usize> = Vec::new();
    for (&(a, b, vertex), edges) in &groups {
        for run in consecutive_runs(edges, vertex_counts[b]) {
            let run = trim_run(
                run,
                |e| set.contacts[index[&(a, vertex, b, e)]].applicability,
                eps_theta,
            );
            if run.len() == 1 {
                let c = index[&(a, vertex, b, run[0])];
                if set.contacts[c].applicability > eps_theta {
                    units.push(c);
                }
                continue;
            }
            for w in run.windows(2) {
                // Vertex–vertex case (paper Fig. 5): v_a near the corner v_b where e_k meets e_{k+1}.
                let v_b = w[1];
                let n_a = vertex_counts[a];
                let c1 = index[&(a, vertex, b, w[0])];
                let c2 = index[&(a, vertex, b, w[1])];
                let c3 = index.get(&(b, v_b, a, (vertex + n_a - 1) % n_a)).copied();
                let c4 = index.get(&(b, v_b, a, vertex)).copied();
                let (Some(c3), Some(c4)) = (c3, c4) else {
                    // Asymmetric detection: fall back to U-constraints (reference code).
                    let best = if set.contacts[c2].applicability > set.contacts[c1].applicability {
                        c2
                    } else {
                        c1
                    };
                    for c in [Some(best), c3, c4].into_iter().flatten() {
                        if set.contacts[c].applicability > eps_theta {
                            units.push(c);
                        }
                    }
                    continue;
                };
                let mut key = [c1, c2, c3, c4];
                key.sort_unstable();
                if !seen.insert(key) {
                    continue; // the same corner seen from the other body's side
                }
                // I-constraints (paper Eq. 15): max(ψ1, ψ2) ≥ 0 and max(ψ3, ψ4) ≥ 0.
                for (p, q) in [(c1, c2), (c3, c4)] {
                    if let Some(mut ic) = choose_primary(&set.contacts, p, q, eps_theta, false) {
                        // General form (paper Eqs. 20–23): every applicable member is in C_ι.
                        if form == PegForm::General {
                            ic.co_primaries = ic
                                .secondaries
                                .iter()
                                .copied()
                                .filter(|&c| set.contacts[c].applicability > eps_theta)
                                .collect();
                        }
                        set.inter.push(ic);
                    }
                }
                // X-constraints (paper Eq. 16): max(ψ1, ψ4) ≥ 0 and max(ψ2, ψ3) ≥ 0.
                for (p, q) in [(c1, c4), (c2, c3)] {
                    if let Some(xc) = choose_primary(&set.contacts, p, q, eps_theta, true) {
                        set.cross.push(xc);
                    }
                }
            }
        }
    }
    let used: BTreeSet<usize> = set
        .inter
        .iter()
        .chain(set.cross.iter())
        .flat_map(|pc| std::iter::once(pc.primary).chain(pc.secondaries.iter().copied()))
        .collect();
    let units: BTreeSet<usize> = units.into_iter().filter(|c| !used.contains(c)).collect();
    set.unilateral = units.into_iter().collect();
    set
}

/// Split sorted edge indices into maximal runs of cyclically consecutive edges, each run in
/// walking order (so a run may wrap around from the last edge to edge 0).
fn consecutive_runs(edges: &[usize], n: usize) -> Vec<Vec<usize>> {
    let set: BTreeSet<usize> = edges.iter().copied().collect();
    if set.len() == n {
        return vec![(0..n).collect()];
    }
    let mut runs = Vec::new();
    for &start in &set {
        if set.contains(&((start + n - 1) % n)) {
            continue; // not the beginning of a run
        }
        let mut run = vec![start];
        let mut e = (start + 1) % n;
        while set.contains(&e) && run.len() < n {
            run.push(e);
            e = (e + 1) % n;
        }
        runs.push(run);
    }
    runs
}

/// Trim contacts whose applicability is ≤ ε_θ from both ends of a run, keeping at least two.
fn trim_run(mut run: Vec<usize>, appl: impl Fn(usize) -> Real, eps_theta: Real) -> Vec<usize> {
    while run.len() > 2 && appl(run[0]) <= eps_theta {
        run.remove(0);
    }
    while run.len() > 2 && appl(run[run.len() - 1]) <= eps_theta {
        run.pop();
    }
    run
}

/// Single-primary heuristic (docs/formulation-notes.md §5.4 step 4). For an I-constraint the applicable contacts
/// (APPL > ε_θ) form C_ι and the first of them is primary; for an X-constraint both contacts
/// must be applicable and the first is primary. A deeply penetrating primary (ψ < −1e-3) is
/// swapped for an applicable alternative that penetrates less.
fn choose_primary(
    contacts: &[Contact],
    first: usize,
    second: usize,
    eps_theta: Real,
    cross: bool,
) -> Option<PairConstraint> {
    let ok = |c: usize| contacts[c].applicability > eps_theta;
    let (mut p, mut s, can_swap) = match (ok(first), ok(second)) {
        (true, true) => (first, second, true),
        (true, false) if !cross => (first, second, false),
        (false, true) if !cross => (second, first, false),
        _ => return None,
    };
    let (gp, gs) = (contacts[p].gap, contacts[s].gap);
    if can_swap && gp < PRIMARY_SWAP_GAP && gs > gp && gs > PRIMARY_SWAP_GAP {
        std::mem::swap(&mut p, &mut s);
    }
    Some(PairConstraint {
        primary: p,
        secondaries: vec![s],
        co_primaries: Vec::new(),
    })
}
