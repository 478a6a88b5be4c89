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
use signorini_complementarity::{SolveParams, SolverKind, solve_lcp, solve_mcp};
use signorini_contact::{
    ConstraintSet, ContactModel, Formulation, PEG_APPLICABILITY_RELAXATION, SM_DETECTION_DISTANCE,
    corrective_contacts, peg::build_peg_constraints, peg_detection_distance, potential_contacts,
    standard_contacts,
};
use signorini_dynamics::{BodyError, RigidBody2};
use signorini_geometry::dim2::{Aabb, sweep_and_prune};
use signorini_math::{Real, Vec2, Vec3};
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
        let velocities = match &form {
            None => pred.free.clone(),
            Some(f) => self.solve(f, &pred.free, &mut report),
        };
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
        let mut params = SolveParams::default();
        params.solver = self.params.solver;
        let reduced = form
            .reduced_lcp(&self.bodies, free)
            .map_err(|e| e.to_string());
        let attempt = reduced.and_then(|lcp| solve_lcp(&lcp, &params).map_err(|e| e.to_string()));
        match attempt {
            Ok(info) => {
                record(report, &info);
                report.normal_impulse = info.z.iter().take(form.n_normal).sum();
                return form.velocities_from_lcp(&self.bodies, free, &info.z);
            }
            Err(e) => report.fallbacks.push(format!("reduced LCP: {e}")),
        }
        params.solver = SolverKind::Auto;
        let mixed = form
            .mixed_mcp(&self.bodies, free)
            .map_err(|e| e.to_string());
        match mixed.and_then(|(mcp, dy)| {
            solve_mcp(&mcp, &params)
                .map(|i| (i, dy))
                .map_err(|e| e.to_string())
        }) {
            Ok((info, dynamic)) => {
                record(report, &info);
                let nv = 3 * dynamic.len();
                report.normal_impulse = info.z.iter().skip(nv).take(form.n_normal).sum();
                form.velocities_from_mcp(self.bodies.len(), &dynamic, &info.z)
            }
            Err(e) => {
                report.fallbacks.push(format!("mixed LCP: {e}"));
                report.failed = true;
                report.failure = Some(format!(
                    "all solves failed; kept free-flight velocities ({e})"
                ));
                free.to_vec()
            }
        }
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
