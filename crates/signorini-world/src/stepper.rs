//! The Stewart–Trinkle velocity-level stepper with ψ/h stabilisation (paper Eqs. 8–9 for the
//! standard model, Eqs. 48–49 for PEG; notes §3–§4).
//!
//! Data flow of one step (one function per stage):
//! ```text
//! bodies ──predict_and_broad_phase──▶ (vertices now, vertices at pose + hν, ν*, pairs)
//!        ──detect──────────────────▶ ConstraintSet (contacts; U/I/X by model)
//!        ──formulate───────────────▶ Formulation (unknowns, rows; reduced LCP or mixed LCP)
//!        ──solve───────────────────▶ ν^{ℓ+1} (reduced LCP; fallback mixed LCP; else ν*)
//!        ──integrate───────────────▶ x ← x + h v, θ ← θ + h ω
//! ```
//! Owns: [`World`], [`WorldParams`]. Does not own: the contact models themselves.

use crate::report::{StageTimes, StepReport};
use signorini_complementarity::{SolveError, SolveParams, SolverKind, solve_lcp, solve_mcp};
use signorini_contact::{
    ConstraintSet, Contact, ContactModel, Formulation, PEG_APPLICABILITY_RELAXATION,
    SM_DETECTION_DISTANCE, applicability, corrective_contacts, peg::build_peg_constraints,
    peg_detection_distance, potential_contacts, standard_contacts,
};
use signorini_dynamics::{BodyError, RigidBody2};
use signorini_geometry::dim2::{Aabb, Compound, sweep_and_prune};
use signorini_math::{Real, Vec2, Vec3};
use std::collections::BTreeMap;
use std::time::Instant;

/// Why a world could not be built or stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// The step size must be finite and positive.
    #[error("step size h must be finite and > 0, got {0}")]
    StepSize(Real),
    /// The friction coefficient must be finite and ≥ 0.
    #[error("friction coefficient must be finite and >= 0, got {0}")]
    Friction(Real),
    /// A body is invalid.
    #[error("body {index}: {source}")]
    Body {
        /// Body index.
        index: usize,
        /// Why.
        source: BodyError,
    },
}

/// Stepper settings.
#[derive(Debug, Clone)]
pub struct WorldParams {
    /// Step size h (s).
    pub h: Real,
    /// Contact model.
    pub model: ContactModel,
    /// Friction coefficient μ (0 = frictionless, the pouring experiments).
    pub mu: Real,
    /// Solver for the reduced LCP (`Auto` runs the complementarity crate's fallback chain).
    pub solver: SolverKind,
    /// PEG potential-contact distance; `None` = ε(h) = max(0.5h, 0.0008) (notes §5.3).
    pub peg_distance: Option<Real>,
    /// Standard-model detection distance (default 0.07 m, notes §5.6).
    pub standard_distance: Real,
    /// Retry a failed reduced LCP in the mixed (MCP) form. Both forms have the same solutions,
    /// so this only helps when the failure was numerical; it roughly doubles the cost of a
    /// step whose problem has no solution (standard-model traps). Default true.
    pub mixed_fallback: bool,
    /// Gap-correction re-solves per step (0 = the paper's stepper). Ours, not in the paper
    /// or the reference code: after a solve, every contact's gap is re-measured at the
    /// resulting configuration; if a constraint is violated there (the linearised gap of
    /// paper Eq. 8/48 missed a second-order term, e.g. rotation × translation), each contact's
    /// ψ is lowered by its observed linearisation error and the same subproblem is solved
    /// again. Same constraints, same stepper; only the ψ/h constants change.
    pub gap_corrections: usize,
    /// When every solve of a step fails, continue from the least-residual attempt (the best
    /// iterate a failed solver returns) instead of the free-flight velocities ν*. Ours, not in
    /// the paper or the reference code (PATH's failures there end the run). Default **true**:
    /// on a step with contacts, ν* ignores every constraint, so the bodies sink by about
    /// h·|v| + h²g into each other and the next step's ψ/h term turns that depth into an
    /// ejection; a best iterate approximately satisfies the complementarity conditions and
    /// is never further from a solution than ν* (the iterate z = 0 *is* ν*). Safeguard: the
    /// kept velocities must not have more than twice the kinetic energy of ν* (+1 nJ), else
    /// ν* is kept. Either way the step is still counted as failed (`StepReport::failed`);
    /// `StepReport::kept_best` says which velocities were used. The ε-distance standard
    /// model's unsolvable steps (two colluding SM traps: a PSD reduced LCP on which Lemke
    /// ends on a ray) are what this is for; see docs/peg2d.md.
    pub keep_best_on_failure: bool,
}

impl WorldParams {
    /// Defaults of the reference experiments for a model and step size.
    pub fn new(model: ContactModel, h: Real) -> Self {
        WorldParams {
            h,
            model,
            mu: 0.0,
            solver: SolverKind::Auto,
            peg_distance: None,
            standard_distance: SM_DETECTION_DISTANCE,
            mixed_fallback: true,
            gap_corrections: 0,
            keep_best_on_failure: true,
        }
    }
}

/// Bodies and the stepper.
#[derive(Debug, Clone)]
pub struct World {
    /// All bodies (static and dynamic), in insertion order.
    pub bodies: Vec<RigidBody2>,
    /// Settings.
    pub params: WorldParams,
    /// Steps taken so far.
    pub steps: usize,
}

/// Stage 1 output.
struct Predicted {
    verts: Vec<Vec<Vec2>>,
    predicted: Vec<Vec<Vec2>>,
    free: Vec<Vec3>,
    pairs: Vec<(usize, usize)>,
}

impl World {
    /// An empty world.
    pub fn new(params: WorldParams) -> Result<Self, WorldError> {
        if !(params.h.is_finite() && params.h > 0.0) {
            return Err(WorldError::StepSize(params.h));
        }
        if !(params.mu.is_finite() && params.mu >= 0.0) {
            return Err(WorldError::Friction(params.mu));
        }
        Ok(World {
            bodies: Vec::new(),
            params,
            steps: 0,
        })
    }

    /// Add a body after validating its state; returns its index.
    pub fn add_body(&mut self, body: RigidBody2) -> Result<usize, WorldError> {
        let index = self.bodies.len();
        body.validate()
            .map_err(|source| WorldError::Body { index, source })?;
        self.bodies.push(body);
        Ok(index)
    }

    /// Add every convex part of a static compound (e.g. an open box) as its own static body
    /// at the given pose; returns their indices.
    pub fn add_static_compound(
        &mut self,
        compound: &Compound,
        position: Vec2,
        angle: Real,
    ) -> Vec<usize> {
        compound
            .parts()
            .iter()
            .map(|part| {
                self.bodies
                    .push(RigidBody2::fixed(part.clone()).with_pose(position, angle));
                self.bodies.len() - 1
            })
            .collect()
    }

    /// Advance one step of size h; never panics, failures are recorded in the report.
    pub fn step(&mut self) -> StepReport {
        let mut report = StepReport {
            step: self.steps,
            ..Default::default()
        };
        let mut times = StageTimes::default();
        let t = Instant::now();
        let pred = self.predict_and_broad_phase();
        times.broad_phase = t.elapsed().as_secs_f64();
        report.pairs = pred.pairs.len();

        let t = Instant::now();
        let set = self.detect(&pred);
        times.detection = t.elapsed().as_secs_f64();
        report.counts = set.counts();

        let t = Instant::now();
        let form =
            (!set.is_empty()).then(|| Formulation::build(&set, self.params.h, self.params.mu));
        times.formulation = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut velocities = match &form {
            None => pred.free.clone(),
            Some(f) => self.solve(f, &pred.free, &mut report),
        };
        if form.is_some() && !report.failed {
            velocities = self.correct_gaps(set, velocities, &pred, &mut report);
        }
        times.solve = t.elapsed().as_secs_f64();

        let t = Instant::now();
        self.integrate(&velocities);
        times.integration = t.elapsed().as_secs_f64();
        report.times = times;
        self.steps += 1;
        report
    }

    /// Stage 1: world vertices now and at the predicted pose (x + hv, θ + hω), free-flight
    /// velocities ν* = ν + hM⁻¹F, and candidate pairs (boxes of current ∪ predicted vertices
    /// inflated by the detection distance; static–static pairs skipped).
    fn predict_and_broad_phase(&self) -> Predicted {
        let h = self.params.h;
        let verts: Vec<Vec<Vec2>> = self.bodies.iter().map(|b| b.world_vertices()).collect();
        let predicted: Vec<Vec<Vec2>> = self
            .bodies
            .iter()
            .map(|b| b.predicted_vertices(h))
            .collect();
        let free = self
            .bodies
            .iter()
            .map(|b| {
                if b.is_static {
                    Vec3::zeros()
                } else {
                    b.free_velocity(h)
                }
            })
            .collect();
        let margin = self.detection_distance();
        let boxes: Vec<Aabb> = verts
            .iter()
            .zip(&predicted)
            .map(|(v, p)| {
                Aabb::from_points(v.iter())
                    .union(&Aabb::from_points(p.iter()))
                    .inflated(margin)
            })
            .collect();
        let pairs = sweep_and_prune(&boxes)
            .into_iter()
            .filter(|&(i, j)| !(self.bodies[i].is_static && self.bodies[j].is_static))
            .collect();
        Predicted {
            verts,
            predicted,
            free,
            pairs,
        }
    }

    fn detection_distance(&self) -> Real {
        match self.params.model {
            ContactModel::Peg => self
                .params
                .peg_distance
                .unwrap_or_else(|| peg_detection_distance(self.params.h)),
            ContactModel::Standard => self.params.standard_distance,
            ContactModel::Corrective => 0.0,
        }
    }

    /// Stage 2: contacts and constraints of the chosen model.
    fn detect(&self, p: &Predicted) -> ConstraintSet {
        let eps = self.detection_distance();
        match self.params.model {
            ContactModel::Standard => ConstraintSet::all_unilateral(standard_contacts(
                &self.bodies,
                &p.verts,
                &p.pairs,
                eps,
            )),
            ContactModel::Corrective => {
                ConstraintSet::all_unilateral(corrective_contacts(&self.bodies, &p.verts, &p.pairs))
            }
            ContactModel::Peg => {
                let contacts =
                    potential_contacts(&self.bodies, &p.verts, &p.predicted, &p.pairs, eps);
                let counts: Vec<usize> = self.bodies.iter().map(|b| b.shape.len()).collect();
                build_peg_constraints(contacts, &counts, PEG_APPLICABILITY_RELAXATION)
            }
        }
    }

    /// Stage 4: reduced LCP with the configured solver; on failure the mixed LCP (Auto); if
    /// that fails too, keep ν* and mark the step failed.
    fn solve(&self, form: &Formulation, free: &[Vec3], report: &mut StepReport) -> Vec<Vec3> {
        report.unknowns = form.dim();
        let mut best = BestAttempt::default();
        let mut params = SolveParams::default();
        params.solver = self.params.solver;
        let lcp = match form.reduced_lcp(&self.bodies, free) {
            Ok(l) => Some(l),
            Err(e) => {
                report.fallbacks.push(format!("reduced LCP: {e}"));
                None
            }
        };
        if let Some(lcp) = &lcp {
            match solve_lcp(lcp, &params) {
                Ok(info) => {
                    record(report, &info);
                    report.normal_impulse = info.z.iter().take(form.n_normal).sum();
                    return form.velocities_from_lcp(&self.bodies, free, &info.z);
                }
                Err(e) => {
                    report.fallbacks.push(format!("reduced LCP: {e}"));
                    // PATH's default tolerance (1e-6, notes §6) is what the reference runs
                    // accepted; our solvers aim at 1e-8. Accept a best iterate in between.
                    let scale = lcp.q.amax().max(1.0);
                    if let Some((z, r)) = best_iterate(&e) {
                        let impulse = z.iter().take(form.n_normal).sum();
                        let v = form.velocities_from_lcp(&self.bodies, free, &z);
                        if r <= APPROXIMATE_TOLERANCE * scale {
                            report.residual = r;
                            report
                                .fallbacks
                                .push(format!("accepted best iterate (residual {r:e})"));
                            report.normal_impulse = impulse;
                            return v;
                        }
                        best.consider(v, r, impulse, "reduced LCP");
                    }
                }
            }
        }
        if !self.params.mixed_fallback {
            return self.give_up(best, free, "reduced LCP failed".into(), report);
        }
        params.solver = SolverKind::Auto;
        let (mcp, dynamic) = match form.mixed_mcp(&self.bodies, free) {
            Ok(m) => m,
            Err(e) => {
                report.fallbacks.push(format!("mixed LCP: {e}"));
                return self.give_up(best, free, format!("mixed LCP: {e}"), report);
            }
        };
        let nv = 3 * dynamic.len();
        match solve_mcp(&mcp, &params) {
            Ok(info) => {
                record(report, &info);
                report.normal_impulse = info.z.iter().skip(nv).take(form.n_normal).sum();
                form.velocities_from_mcp(self.bodies.len(), &dynamic, &info.z)
            }
            Err(e) => {
                report.fallbacks.push(format!("mixed LCP: {e}"));
                if let Some((z, r)) = best_iterate(&e) {
                    let impulse = z.iter().skip(nv).take(form.n_normal).sum();
                    let v = form.velocities_from_mcp(self.bodies.len(), &dynamic, &z);
                    best.consider(v, r, impulse, "mixed LCP");
                }
                self.give_up(best, free, format!("all solves failed ({e})"), report)
            }
        }
    }

    /// Every solve failed: mark the step failed and continue from the least-residual attempt
    /// (`keep_best_on_failure`, guarded by kinetic energy) or from free flight ν*.
    fn give_up(
        &self,
        best: BestAttempt,
        free: &[Vec3],
        why: String,
        report: &mut StepReport,
    ) -> Vec<Vec3> {
        report.failed = true;
        if self.params.keep_best_on_failure
            && let Some((v, r, impulse, form)) = best.0
        {
            let (kept, limit) = (
                self.kinetic_energy(&v),
                2.0 * self.kinetic_energy(free) + 1e-9,
            );
            if kept <= limit && v.iter().all(|x| x.iter().all(|c| c.is_finite())) {
                report.kept_best = Some(r);
                report.residual = r;
                report.normal_impulse = impulse;
                report.failure = Some(format!(
                    "{why}; continued from the best {form} iterate (residual {r:e})"
                ));
                return v;
            }
            report.fallbacks.push(format!(
                "best {form} iterate rejected (kinetic energy {kept:e} J > {limit:e} J)"
            ));
        }
        report.failure = Some(format!("{why}; kept free-flight velocities"));
        free.to_vec()
    }

    /// Stage 4b (optional, `gap_corrections`): move to the configuration the velocities lead
    /// to and re-measure. A constraint violated there by more than [`CORRECTION_TOLERANCE`]
    /// triggers a re-solve in which each contact's ψ is lowered by its linearisation error
    /// (actual − linear, when negative); for PEG, vertex–edge pairs that only come near at
    /// that configuration (missed by the one-step prediction) join the potential contacts and
    /// the U/I/X constraints are rebuilt. Keeps the last successful velocities.
    fn correct_gaps(
        &self,
        set: ConstraintSet,
        mut velocities: Vec<Vec3>,
        pred: &Predicted,
        report: &mut StepReport,
    ) -> Vec<Vec3> {
        let h = self.params.h;
        let peg = self.params.model == ContactModel::Peg;
        let mut set = set;
        let mut pool: BTreeMap<(usize, usize, usize, usize), Contact> =
            set.contacts.iter().map(|c| (c.key(), c.clone())).collect();
        // Velocities before the last re-solve and the penetration depth they led to.
        let mut previous: Option<(Vec<Vec3>, Real)> = None;
        for round in 0..=self.params.gap_corrections {
            let trial: Vec<Vec<Vec2>> = self
                .bodies
                .iter()
                .zip(&velocities)
                .map(|(b, v)| {
                    if b.is_static {
                        b.world_vertices()
                    } else {
                        b.shape
                            .placed(&(b.position + Vec2::new(v.x, v.y) * h), b.angle + h * v.z)
                    }
                })
                .collect();
            let mut actual = vec![Real::INFINITY; set.contacts.len()];
            for (k, c) in set.contacts.iter().enumerate() {
                if c.vertex == usize::MAX {
                    continue; // corrective contacts have no feature pair to re-measure
                }
                actual[k] = edge_gap(&trial[c.a][c.vertex], &trial[c.b], c.edge);
                let linear = c.gap + h * c.jacobian.dot_velocity(|b| velocities[b]);
                if let Some(p) = pool.get_mut(&c.key()) {
                    p.gap += (actual[k] - linear).min(0.0);
                }
            }
            // Rotation within the step: re-test applicability at the trial orientation, and
            // treat a vertex inside the other body there as a violation even if unconstrained.
            let mut inside = false;
            for c in pool.values_mut().filter(|c| c.vertex != usize::MAX) {
                let tb = &trial[c.b];
                let e = tb[(c.edge + 1) % tb.len()] - tb[c.edge];
                let outward = Vec2::new(e.y, -e.x) / e.norm();
                c.applicability =
                    c.applicability
                        .max(applicability(&trial[c.a], c.vertex, &outward));
                let p = &trial[c.a][c.vertex];
                inside |= (0..tb.len()).all(|k| edge_gap(p, tb, k) < -CORRECTION_TOLERANCE);
            }
            let mut violated = inside
                || set
                    .unilateral
                    .iter()
                    .any(|&k| actual[k] < -CORRECTION_TOLERANCE)
                || set.inter.iter().chain(set.cross.iter()).any(|p| {
                    p.secondaries
                        .iter()
                        .fold(actual[p.primary], |m, &s| m.max(actual[s]))
                        < -CORRECTION_TOLERANCE
                });
            if peg {
                let eps = self.detection_distance();
                let boxes: Vec<Aabb> = pred
                    .verts
                    .iter()
                    .zip(&trial)
                    .map(|(v, t)| {
                        Aabb::from_points(v.iter())
                            .union(&Aabb::from_points(t.iter()))
                            .inflated(eps)
                    })
                    .collect();
                let pairs: Vec<(usize, usize)> = sweep_and_prune(&boxes)
                    .into_iter()
                    .filter(|&(i, j)| !(self.bodies[i].is_static && self.bodies[j].is_static))
                    .collect();
                for c in potential_contacts(&self.bodies, &pred.verts, &trial, &pairs, eps) {
                    if pool.contains_key(&c.key()) {
                        continue;
                    }
                    violated |= edge_gap(&trial[c.a][c.vertex], &trial[c.b], c.edge)
                        < -CORRECTION_TOLERANCE;
                    pool.insert(c.key(), c);
                }
            }
            // Safeguard: a re-solve must not inject energy (more than doubling the kinetic
            // energy of the first solution), else it is undone.
            if let Some((v, e)) = previous.take() {
                let now = self.kinetic_energy(&velocities);
                if now > 2.0 * e + 1e-9 {
                    report.fallbacks.push(format!(
                        "gap correction undone (kinetic energy {now:e} J > 2 x {e:e} J)"
                    ));
                    return v;
                }
                previous = Some((v, e));
            }
            if !violated || round == self.params.gap_corrections {
                break;
            }
            let contacts: Vec<Contact> = pool.values().cloned().collect();
            set = if peg {
                let counts: Vec<usize> = self.bodies.iter().map(|b| b.shape.len()).collect();
                build_peg_constraints(contacts, &counts, PEG_APPLICABILITY_RELAXATION)
            } else {
                ConstraintSet::all_unilateral(contacts)
            };
            let form = Formulation::build(&set, h, self.params.mu);
            let mut sub = StepReport::default();
            let v = self.solve(&form, &pred.free, &mut sub);
            if sub.failed {
                break;
            }
            if previous.is_none() {
                previous = Some((velocities.clone(), self.kinetic_energy(&velocities)));
            }
            report.corrections += 1;
            report.counts = set.counts();
            report.unknowns = sub.unknowns;
            report.residual = sub.residual;
            report.iterations += sub.iterations;
            report.normal_impulse = sub.normal_impulse;
            velocities = v;
        }
        velocities
    }

    /// Kinetic energy ½ Σ νᵀ M ν of the dynamic bodies for the given velocities (J).
    fn kinetic_energy(&self, velocities: &[Vec3]) -> Real {
        self.bodies
            .iter()
            .zip(velocities)
            .filter(|(b, _)| !b.is_static)
            .map(|(b, v)| 0.5 * (b.mass * (v.x * v.x + v.y * v.y) + b.inertia * v.z * v.z))
            .sum()
    }

    /// Stage 5: accept the velocities (non-finite ones are replaced by ν* and the step is
    /// marked failed by the caller's report only if a solve failed) and update positions.
    fn integrate(&mut self, velocities: &[Vec3]) {
        let h = self.params.h;
        for (b, v) in self.bodies.iter_mut().zip(velocities) {
            if b.is_static {
                continue;
            }
            if v.iter().all(|x| x.is_finite()) {
                b.velocity = *v;
            }
            b.integrate_position(h);
        }
    }
}

/// Natural-map residual (scaled by max(1, ‖q‖∞)) below which a solver's best iterate is
/// accepted when no solver reached its own tolerance: PATH's default convergence tolerance,
/// which the reference runs used (notes §6).
pub const APPROXIMATE_TOLERANCE: Real = 1e-6;

/// The best iterate a failed solve carries, with its residual.
fn best_iterate(e: &SolveError) -> Option<(nalgebra::DVector<Real>, Real)> {
    match e {
        SolveError::MaxIterations { best, residual, .. } => Some((best.clone(), *residual)),
        SolveError::Infeasible {
            best: Some(b),
            residual,
            ..
        } => Some((b.clone(), *residual)),
        _ => None,
    }
}

/// The least-residual failed attempt of a step: (velocities, residual, Σ normal impulses,
/// which form).
#[derive(Default)]
struct BestAttempt(Option<(Vec<Vec3>, Real, Real, &'static str)>);

impl BestAttempt {
    fn consider(&mut self, v: Vec<Vec3>, residual: Real, impulse: Real, form: &'static str) {
        if residual.is_finite() && self.0.as_ref().is_none_or(|b| residual < b.1) {
            self.0 = Some((v, residual, impulse, form));
        }
    }
}

/// Violation (m) of a re-measured constraint that triggers a gap correction.
pub const CORRECTION_TOLERANCE: Real = 1e-7;

/// Signed gap of vertex `p` to edge `edge` of a counter-clockwise polygon (notes §2).
fn edge_gap(p: &Vec2, poly: &[Vec2], edge: usize) -> Real {
    let t = poly[edge];
    let e = poly[(edge + 1) % poly.len()] - t;
    Vec2::new(-e.y, e.x).dot(&(t - p)) / e.norm()
}

fn record(report: &mut StepReport, info: &signorini_complementarity::SolveInfo) {
    report.solver = Some(info.solver);
    report.iterations = info.iterations;
    report.residual = info.residual;
    report.fallbacks.extend(
        info.fallbacks
            .iter()
            .map(|(k, why)| format!("{k:?}: {why}")),
    );
}
