//! Contact islands: the step split into independent subproblems, solved in parallel.
//!
//! Owns: [`GenericWorld::step_islands`] (the island stage orchestrator), the island search
//! ([`components`]) and the merge of the islands' reports. Does not own: what is done inside
//! an island — that is the whole-world step of `stepper/mod.rs` run on the island's bodies.
//!
//! An island is a connected component of the graph whose nodes are the dynamic bodies and whose
//! edges are the broad phase's candidate pairs (boxes of the current ∪ predicted configuration,
//! inflated by the detection distance: every pair that can produce a contact this step). Static
//! bodies never join two islands: a static body touched by several islands is copied into each
//! (as in Box2D v3's `island.c`, where static bodies carry no island). Islands are independent
//! complementarity problems (the constraint Jacobians of two islands share no body unknown), so
//! the step is their union.
//!
//! Order of one step:
//! ```text
//! geometry now and predicted ──▶ candidate pairs ──▶ islands (union–find, sorted)
//!   ──rayon──▶ each island: its bodies (sorted by world index) in a local world, one
//!              whole-world step (detect, formulate, solve, corrections, integrate)
//!   ──▶ cross-island check at the configuration reached: a penetrating pair of two islands
//!       merges them and both are stepped again from the start state
//!   ──▶ results written back and reports merged in island order
//! ```
//! Determinism: each island is computed sequentially from the same inputs whatever the thread
//! count, and everything is merged in the fixed island order (islands sorted by their lowest
//! body index), so runs are bit-identical with 1 or many threads. A body whose island is alone
//! gets exactly the trajectory it would have in a world of its own (with the static bodies it
//! touches).

use crate::basis::{KeyedUnknown, StoredBasis, map_unknown};
use crate::report::{RoundReport, StageTimes, StepReport};
use crate::stepper::{CORRECTION_TOLERANCE, GenericWorld, Space, start_violation};
use rayon::prelude::*;
use signorini_contact::DofBody;
use signorini_math::{Real, UnionFind};
use std::collections::BTreeSet;
use std::time::Instant;

/// At most this many times per step are the islands stepped again with pairs they missed.
const MAX_REDOS: usize = 4;

/// The dynamic bodies of one island, ascending world indices.
pub(crate) type Island = Vec<usize>;

/// Connected components of the dynamic bodies under `pairs` (pairs with a static body link
/// nothing). Only bodies that appear in a pair with another dynamic body or a static one are
/// returned; each island is sorted, and islands are sorted by their first body.
pub(crate) fn components(is_static: &[bool], pairs: &[(usize, usize)]) -> Vec<Island> {
    let n = is_static.len();
    let mut sets = UnionFind::new(n);
    let mut touched = vec![false; n];
    for &(i, j) in pairs {
        match (is_static[i], is_static[j]) {
            (false, false) => {
                touched[i] = true;
                touched[j] = true;
                sets.union(i, j);
            }
            (false, true) => touched[i] = true,
            (true, false) => touched[j] = true,
            (true, true) => {}
        }
    }
    sets.groups((0..n).filter(|&b| touched[b]))
}

/// What stepping one island produced: its bodies' new states (in `members` order, static
/// ones included and unchanged) and the island's report.
struct Stepped<B, K> {
    members: Vec<usize>,
    bodies: Vec<B>,
    /// The island's warm starts for the next step, with local body indices.
    warm: std::collections::BTreeMap<K, Real>,
    /// The island's last Lemke basis, for the same island next step.
    basis: Option<StoredBasis<K>>,
    /// The unknowns basic in it, with local body indices (`GenericWorld::basic`).
    basic: BTreeSet<KeyedUnknown<K>>,
    report: StepReport,
}

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// One step with the world split into contact islands (module docs). Every field of the
    /// report is merged over the islands: counts, pairs, unknowns, iterations and the normal
    /// impulse are summed; residual, corrections, projections and split depth are the
    /// largest; `failed` and `budget_exhausted` are true if any island's is; fallbacks and
    /// failures carry their island's index. Stage times are wall times: the island stages
    /// share the parallel section's wall time in proportion to their summed CPU time.
    pub(crate) fn step_islands(&mut self) -> StepReport {
        let t = Instant::now();
        let h = self.params.h;
        let now = S::geometry(&self.bodies);
        let current: Vec<_> = self.bodies.iter().map(S::velocity).collect();
        let next = S::moved(&self.bodies, &current, h);
        let margin = S::detection_distance(&self.params);
        let pairs = S::candidate_pairs(&self.bodies, &now, &next, margin);
        let is_static: Vec<bool> = self.bodies.iter().map(|b| b.is_static()).collect();
        let mut islands = components(&is_static, &pairs);
        let broad_phase = t.elapsed().as_secs_f64();

        // ---- Solve every island; merge islands that end up penetrating each other. ----
        let t = Instant::now();
        let mut stepped: Vec<Stepped<S::Body, S::Key>>;
        let mut merges = 0;
        let mut pairs = pairs;
        loop {
            let warm = self.warm_by_island(&islands);
            stepped = islands
                .par_iter()
                .zip(warm)
                .map(|(isl, warm)| self.step_island(isl, &pairs, warm))
                .collect();
            let unseen = self.unseen_pairs(&stepped);
            if unseen.is_empty() || merges >= MAX_REDOS {
                break;
            }
            pairs.extend(unseen);
            pairs.sort_unstable();
            pairs.dedup();
            islands = components(&is_static, &pairs);
            merges += 1;
        }
        let parallel = t.elapsed().as_secs_f64();

        // ---- Write back; bodies in no island fly freely. ----
        let t = Instant::now();
        let mut in_island = vec![false; self.bodies.len()];
        self.warm.clear();
        self.island_bases.clear();
        self.basic.clear();
        for s in &mut stepped {
            if let Some(b) = s.basis.take() {
                self.island_bases.insert(s.members.clone(), b);
            }
        }
        for s in &stepped {
            let global = |l: usize| s.members[l];
            self.warm
                .extend(s.warm.iter().map(|(k, &z)| (S::map_key(k, &global), z)));
            self.basic.extend(
                s.basic
                    .iter()
                    .filter_map(|u| map_unknown(u, |k| Some(S::map_key(k, &global)))),
            );
            for (&g, b) in s.members.iter().zip(&s.bodies) {
                if !is_static[g] {
                    self.bodies[g] = b.clone();
                    in_island[g] = true;
                }
            }
        }
        for (g, b) in self.bodies.iter_mut().enumerate() {
            if !is_static[g] && !in_island[g] {
                let free = S::free_velocity(b, h, &self.params);
                S::integrate(b, &free, h);
            }
        }
        let free_flight = t.elapsed().as_secs_f64();

        let mut report = merge_reports(self.steps, stepped.iter().map(|s| &s.report));
        report.pairs = pairs.len();
        report.islands = islands.len();
        report.island_merges = merges;
        report.largest_island = islands.iter().map(Vec::len).max().unwrap_or(0);
        report.times = wall_times(&report.times, broad_phase, parallel, free_flight);
        self.steps += 1;
        report
    }

    /// One island as a world of its own: its dynamic bodies and the static bodies they pair
    /// with, in world-index order, stepped by the whole-world step.
    fn step_island(
        &self,
        island: &[usize],
        pairs: &[(usize, usize)],
        warm: Vec<(S::Key, Real)>,
    ) -> Stepped<S::Body, S::Key> {
        let mut members: Vec<usize> = island.to_vec();
        let mine = |b: usize| island.binary_search(&b).is_ok();
        for &(i, j) in pairs {
            if self.bodies[i].is_static() && mine(j) {
                members.push(i);
            }
            if self.bodies[j].is_static() && mine(i) {
                members.push(j);
            }
        }
        members.sort_unstable();
        members.dedup();
        let mut local = GenericWorld::<S, D> {
            bodies: members.iter().map(|&g| self.bodies[g].clone()).collect(),
            params: self.params.clone(),
            steps: self.steps,
            warm: Default::default(),
            basis: self.island_bases.get(&members).cloned(),
            island_bases: Default::default(),
            basic: Default::default(),
            space: std::marker::PhantomData,
        };
        let local_index = |g: usize| members.binary_search(&g).unwrap_or(usize::MAX);
        local.warm = warm
            .iter()
            .map(|(k, z)| (S::map_key(k, &local_index), *z))
            .collect();
        // The world's basic unknowns whose bodies are all in this island, in local indices.
        let local_key = |k: &S::Key| {
            let (a, b) = S::key_bodies(k);
            let inside = |g: usize| members.binary_search(&g).is_ok();
            (inside(a) && inside(b)).then(|| S::map_key(k, &local_index))
        };
        local.basic = self
            .basic
            .iter()
            .filter_map(|u| map_unknown(u, local_key))
            .collect();
        let report = local.step_whole();
        Stepped {
            members,
            bodies: local.bodies,
            warm: local.warm,
            basis: local.basis,
            basic: local.basic,
            report,
        }
    }

    /// The warm-start entries of each island (a feature pair belongs to the island of its
    /// dynamic body; pairs of bodies in no island are dropped).
    fn warm_by_island(&self, islands: &[Island]) -> Vec<Vec<(S::Key, Real)>> {
        let mut owner = vec![usize::MAX; self.bodies.len()];
        for (k, isl) in islands.iter().enumerate() {
            for &b in isl {
                owner[b] = k;
            }
        }
        let mut by_island = vec![Vec::new(); islands.len()];
        for (key, &z) in &self.warm {
            let (a, b) = S::key_bodies(key);
            let k = match owner.get(a) {
                Some(&k) if k != usize::MAX => k,
                _ => owner.get(b).copied().unwrap_or(usize::MAX),
            };
            if k != usize::MAX {
                by_island[k].push((key.clone(), z));
            }
        }
        by_island
    }

    /// Pairs that the islands did not see and that the configuration they reached violates
    /// by more than [`CORRECTION_TOLERANCE`]: two bodies of different islands (or an island
    /// and a free body), or a dynamic body and a static one that its island did not hold (a
    /// bounce into a wall that the broad phase's boxes did not foresee). Empty if none; the
    /// caller adds them to the pairs and steps the islands they change again.
    fn unseen_pairs(&self, stepped: &[Stepped<S::Body, S::Key>]) -> Vec<(usize, usize)> {
        let h = self.params.h;
        let mut owner = vec![usize::MAX; self.bodies.len()];
        let mut reached = self.bodies.clone();
        for (k, s) in stepped.iter().enumerate() {
            for (&g, b) in s.members.iter().zip(&s.bodies) {
                if !b.is_static() {
                    reached[g] = b.clone();
                    owner[g] = k;
                }
            }
        }
        for (g, b) in reached.iter_mut().enumerate() {
            if !b.is_static() && owner[g] == usize::MAX {
                let free = S::free_velocity(b, h, &self.params);
                S::integrate(b, &free, h);
            }
        }
        let held = |d: usize, s: usize| {
            owner[d] != usize::MAX && stepped[owner[d]].members.binary_search(&s).is_ok()
        };
        let geometry = S::geometry(&reached);
        S::candidate_pairs(&reached, &geometry, &geometry, 0.0)
            .into_iter()
            .filter(
                |&(i, j)| match (reached[i].is_static(), reached[j].is_static()) {
                    (false, false) => owner[i] != owner[j] || owner[i] == usize::MAX,
                    (true, false) => !held(j, i),
                    (false, true) => !held(i, j),
                    (true, true) => false,
                },
            )
            .filter(|&pair| {
                let set = S::detect(&self.params, &reached, &geometry, &geometry, &[pair]);
                start_violation(&set) < -CORRECTION_TOLERANCE
            })
            .collect()
    }
}

/// The reports of the islands merged into one (see [`GenericWorld::step_islands`]); stage
/// times are summed CPU times here, turned into wall times by [`wall_times`].
fn merge_reports<'a>(step: usize, reports: impl Iterator<Item = &'a StepReport>) -> StepReport {
    let mut m = StepReport {
        step,
        ..Default::default()
    };
    for (k, r) in reports.enumerate() {
        m.counts.contacts += r.counts.contacts;
        m.counts.unilateral += r.counts.unilateral;
        m.counts.inter += r.counts.inter;
        m.counts.cross += r.counts.cross;
        if r.unknowns > m.largest_unknowns {
            m.largest_unknowns = r.unknowns;
            m.solver = r.solver.or(m.solver);
        }
        m.unknowns += r.unknowns;
        m.iterations += r.iterations;
        m.residual = m.residual.max(r.residual);
        m.normal_impulse += r.normal_impulse;
        m.corrections = m.corrections.max(r.corrections);
        m.basis_reuses += r.basis_reuses;
        m.proximal_answers += r.proximal_answers;
        m.rounds.extend(r.rounds.iter().map(|x| RoundReport {
            island: k,
            ..x.clone()
        }));
        m.projections = m.projections.max(r.projections);
        m.projection_unknowns = m.projection_unknowns.max(r.projection_unknowns);
        m.failed |= r.failed;
        m.failed_islands += r.failed as usize;
        m.budget_exhausted |= r.budget_exhausted;
        m.kept_best = max_option(m.kept_best, r.kept_best);
        m.split = max_option(m.split, r.split);
        m.proximal_epsilon = max_option(m.proximal_epsilon, r.proximal_epsilon);
        m.proximal_first_path_cut |= r.proximal_first_path_cut;
        m.fallbacks
            .extend(r.fallbacks.iter().map(|f| format!("island {k}: {f}")));
        if let Some(f) = &r.failure {
            let line = format!("island {k}: {f}");
            m.failure = Some(match m.failure.take() {
                Some(prev) => format!("{prev}; {line}"),
                None => line,
            });
        }
        let (a, b) = (&mut m.times, &r.times);
        a.detection += b.detection + b.broad_phase;
        a.formulation += b.formulation;
        a.solve += b.solve;
        a.gap_corrections += b.gap_corrections;
        a.integration += b.integration;
    }
    m
}

fn max_option(a: Option<Real>, b: Option<Real>) -> Option<Real> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Stage wall times: the global broad phase as measured; the island stages scaled so that
/// they add up to the wall time of the parallel section; free flight added to integration.
fn wall_times(cpu: &StageTimes, broad_phase: f64, parallel: f64, free_flight: f64) -> StageTimes {
    let sum = cpu.detection + cpu.formulation + cpu.solve + cpu.gap_corrections + cpu.integration;
    let scale = if sum > 0.0 { parallel / sum } else { 0.0 };
    let rest = if sum > 0.0 { 0.0 } else { parallel };
    StageTimes {
        broad_phase: broad_phase + rest,
        detection: cpu.detection * scale,
        formulation: cpu.formulation * scale,
        solve: cpu.solve * scale,
        gap_corrections: cpu.gap_corrections * scale,
        integration: cpu.integration * scale + free_flight,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_join_dynamic_bodies_and_never_through_static_ones() {
        // 0 static floor; 1–2 touch, 3–4 touch, both touch the floor; 5 alone; 6 in no pair.
        let is_static = [true, false, false, false, false, false, false];
        let pairs = [(0, 1), (0, 2), (1, 2), (0, 3), (3, 4), (0, 4), (0, 5)];
        assert_eq!(
            components(&is_static, &pairs),
            vec![vec![1, 2], vec![3, 4], vec![5]]
        );
    }

    #[test]
    fn components_are_sorted_and_transitive() {
        let is_static = [false; 6];
        let pairs = [(4, 5), (0, 5), (1, 2)];
        assert_eq!(
            components(&is_static, &pairs),
            vec![vec![0, 4, 5], vec![1, 2]]
        );
    }
}
