//! The per-step trace of a rigid penalty run (height, vertex speed, contact force,
//! penetration, pairs) and its CSV, shared by `experiment box-on-plane`/`stick` and by scene
//! runs of mesh bodies.

use crate::ExperimentError;
use crate::penalty_out::write_csv;
use signorini_math::Real;
use signorini_world::penalty::{MeshBody, PenaltyReport, PenaltyWorld};
use std::path::Path;
use std::time::Instant;

/// Per-step series of one run (the dynamic body is body 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Time at the end of each step (s).
    pub t: Vec<Real>,
    /// Height of the dynamic body's centre of mass (m).
    pub(crate) z: Vec<Real>,
    /// Largest vertex speed of the dynamic body (m/s).
    pub speed: Vec<Real>,
    /// Total contact-force magnitude (N).
    pub force: Vec<Real>,
    /// Deepest vertex inside another body (m).
    pub penetration: Vec<Real>,
    /// Pairs evaluated.
    pub(crate) pairs: Vec<usize>,
    /// Wall-clock milliseconds per step (mean).
    pub ms_per_step: Real,
}

/// Run a world for `steps` steps, recording body `dynamic`.
pub fn trace(w: &mut PenaltyWorld, steps: usize, dynamic: usize) -> Trace {
    let mut tr = Trace::default();
    let start = Instant::now();
    let mut taken = steps;
    for s in 0..steps {
        // A signal stops the run ([`crate::cancel`]); the trace holds the steps taken.
        if crate::cancel::stop_at(s, w.params().model.name()).is_some() {
            taken = s;
            break;
        }
        let rep = w.step();
        tr.record(w, &rep, dynamic);
    }
    tr.ms_per_step = start.elapsed().as_secs_f64() * 1e3 / taken.max(1) as Real;
    tr
}

/// Largest vertex speed of a mesh body (m/s).
pub fn max_vertex_speed(b: &MeshBody) -> Real {
    let s = &b.state;
    b.world_vertices()
        .iter()
        .map(|p| s.point_velocity(p).norm())
        .fold(0.0, Real::max)
}

impl Trace {
    /// Append the state after one step of `w` (`rep` is that step's report), recording body
    /// `dynamic` (shared with scene-file runs).
    pub fn record(&mut self, w: &PenaltyWorld, rep: &PenaltyReport, dynamic: usize) {
        let b = &w.bodies[dynamic];
        self.t.push(w.time());
        self.z.push(b.state.position.z);
        self.speed.push(max_vertex_speed(b));
        self.force.push(rep.contact_force);
        self.penetration.push(rep.max_penetration);
        self.pairs.push(rep.pairs);
    }
}

/// Per-step CSV of a trace.
pub fn write_trace(path: &Path, tr: &Trace) -> Result<(), ExperimentError> {
    write_csv(
        path,
        "t,z,max_vertex_speed,contact_force,max_penetration,pairs",
        (0..tr.t.len()).map(|i| {
            format!(
                "{},{},{},{},{},{}",
                tr.t[i], tr.z[i], tr.speed[i], tr.force[i], tr.penetration[i], tr.pairs[i]
            )
        }),
    )
}
