//! Running 3D scenes: convex polyhedra in `World3` (the pour3d stepper and metric) and rigid
//! triangle meshes in `PenaltyWorld` (the box-on-plane / stick stepper and trace).
//!
//! Outputs as for 2D runs, in 3D formats:
//! - `trajectories.csv`: `step,body,x,y,z,qw,qx,qy,qz` (the pour3d trajectory format);
//! - `steps.csv`: [`STEPS_HEADER`] for polyhedra (overlap = total exact intersection volume,
//!   m³, as pour3d), [`PENALTY_STEPS_HEADER`] for meshes;
//! - `contacts.csv`: `step,a,b,x,y,z,nx,ny,nz,gap` — vertices of one body within
//!   [`DRAW_CONTACT_DISTANCE`] of another (for the replay only);
//! - `trace.csv` (meshes): the first dynamic body's trace in the box-on-plane / stick format
//!   (`t,z,max_vertex_speed,contact_force,max_penetration,pairs`);
//! - `bodies.json` with `"dimension": 3`: vertices, faces, initial pose of every body.

use super::{
    Acc, DRAW_CONTACT_DISTANCE, FinalWorld, PENALTY_STEPS_HEADER, RunOptions, RunOutcome, Schedule,
    Writers, finish, open_writers, planned_steps, tick,
};
use crate::error::{Located, SceneError};
use crate::validate::{Drop, Model, Scene};
use serde_json::{Value, json};
use signorini_geometry::dim3::{Aabb3, penetration_depth, sweep_and_prune3};
use signorini_geometry::mesh::query;
use signorini_harness::overlap::total_overlap3;
use signorini_harness::penalty_trace::{Trace, max_vertex_speed, write_trace};
use signorini_harness::{Csv, trajectory_header3};
use signorini_math::{Real, Vec3};
use signorini_penalty::ForceModel;
use signorini_penalty::Friction;
use signorini_world::penalty::{MeshBody, PenaltyParams, PenaltyReport, PenaltyWorld};
use signorini_world::{PolyBody, StepReport, World3, WorldParams};

const CONTACTS3_HEADER: &str = "step,a,b,x,y,z,nx,ny,nz,gap";

/// Kinetic energy and the potential of the constant external forces, −Σ F·x (J); external
/// torques are not included.
fn energy3<'a>(states: impl Iterator<Item = &'a signorini_dynamics::RigidBody3>) -> (Real, Real) {
    let (mut kin, mut pot) = (0.0, 0.0);
    for s in states.filter(|s| !s.is_static) {
        kin += s.kinetic_energy();
        pot -= s.external_force.dot(&s.position);
    }
    (kin, pot)
}

/// A contact to draw: bodies, point, normal (out of `b`), gap.
struct Touch {
    a: usize,
    b: usize,
    at: Vec3,
    normal: Vec3,
    gap: Real,
}

fn write_touches(f: &mut Csv, s: usize, t: &[Touch]) -> Result<(), SceneError> {
    for c in t {
        f.line(&format!(
            "{s},{},{},{},{},{},{},{},{},{}",
            c.a, c.b, c.at.x, c.at.y, c.at.z, c.normal.x, c.normal.y, c.normal.z, c.gap
        ))?;
    }
    Ok(())
}

/// Pairs of bodies (not both static) whose inflated boxes overlap.
fn near_pairs(points: &[Vec<Vec3>], is_static: &[bool]) -> Vec<(usize, usize)> {
    let boxes: Vec<Aabb3> = points
        .iter()
        .map(|v| Aabb3::from_points(v.iter()).inflated(DRAW_CONTACT_DISTANCE))
        .collect();
    sweep_and_prune3(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(is_static[i] && is_static[j]))
        .collect()
}

/// Vertices of one polyhedron within the draw distance of another (signed distance by the
/// largest face-plane distance, exact outside near faces and inside).
fn touches_polyhedra(world: &World3) -> Vec<Touch> {
    let shapes: Vec<_> = world.bodies.iter().map(PolyBody::world_shape).collect();
    let verts: Vec<Vec<Vec3>> = shapes.iter().map(|s| s.vertices().to_vec()).collect();
    let st: Vec<bool> = world.bodies.iter().map(|b| b.state.is_static).collect();
    let mut out = Vec::new();
    for (i, j) in near_pairs(&verts, &st) {
        for (a, b) in [(i, j), (j, i)] {
            for v in &verts[a] {
                let (f, d) = shapes[b].max_face_distance(v);
                if d <= DRAW_CONTACT_DISTANCE {
                    out.push(Touch {
                        a,
                        b,
                        at: *v,
                        normal: shapes[b].faces()[f].normal,
                        gap: d,
                    });
                }
            }
        }
    }
    out
}

/// Vertices of a mesh body within the draw distance of another body's surface.
fn touches_meshes(world: &PenaltyWorld) -> Vec<Touch> {
    let verts: Vec<Vec<Vec3>> = world.bodies.iter().map(MeshBody::world_vertices).collect();
    let st: Vec<bool> = world.bodies.iter().map(|b| b.state.is_static).collect();
    let mut out = Vec::new();
    for (i, j) in near_pairs(&verts, &st) {
        for (a, b) in [(i, j), (j, i)] {
            let tris = world.bodies[b].mesh().triangles();
            for v in &verts[a] {
                let (t, _, q, d) = query::closest_point(v, &verts[b], tris);
                let inside = query::inside(v, &verts[b], tris);
                if d <= DRAW_CONTACT_DISTANCE || inside {
                    let [p0, p1, p2] = tris[t].map(|k| verts[b][k as usize]);
                    let n = (p1 - p0).cross(&(p2 - p0));
                    out.push(Touch {
                        a,
                        b,
                        at: q,
                        normal: n / n.norm().max(Real::MIN_POSITIVE),
                        gap: if inside { -d } else { d },
                    });
                }
            }
        }
    }
    out
}

/// Whether the state of a 3D world is finite: every pose and velocity, and the energy (a
/// velocity of 1e300 m/s is a finite number, but its kinetic energy is not).
fn finite_world3<'a>(
    states: impl Iterator<Item = &'a signorini_dynamics::RigidBody3> + Clone,
) -> bool {
    let (kin, pot) = energy3(states.clone());
    kin.is_finite()
        && pot.is_finite()
        && states.into_iter().all(|s| {
            let q = s.orientation.quaternion();
            s.position.iter().all(|x| x.is_finite())
                && q.coords.iter().all(|x| x.is_finite())
                && s.linear_velocity.iter().all(|x| x.is_finite())
                && s.angular_velocity.iter().all(|x| x.is_finite())
        })
}

/// Deepest minimum translational distance (m) over the overlapping pairs of a polyhedra
/// world (separating-axis test, `signorini_geometry::dim3::penetration_depth`).
fn max_depth_polyhedra(world: &World3) -> Real {
    let shapes: Vec<_> = world.bodies.iter().map(PolyBody::world_shape).collect();
    let verts: Vec<Vec<Vec3>> = shapes.iter().map(|s| s.vertices().to_vec()).collect();
    let st: Vec<bool> = world.bodies.iter().map(|b| b.state.is_static).collect();
    let boxes: Vec<Aabb3> = verts.iter().map(|v| Aabb3::from_points(v.iter())).collect();
    sweep_and_prune3(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(st[i] && st[j]))
        .filter_map(|(i, j)| penetration_depth(&shapes[i], &shapes[j]))
        .fold(0.0, Real::max)
}

fn quat(q: &signorini_math::Quat) -> [f64; 4] {
    let q = q.quaternion();
    [q.w, q.i, q.j, q.k]
}

/// Run a scene of convex polyhedra in `World3` (as `signorini experiment pour3d`).
/// The 3D polyhedron scene run ([`super::rigid::run_rigid`]).
impl super::rigid::RigidScene for World3 {
    fn create(params: WorldParams) -> Result<Self, SceneError> {
        Ok(World3::new(params)?)
    }

    fn drops(scene: &Scene) -> Vec<(Drop, bool)> {
        (scene.bodies.polyhedra().iter())
            .map(|b| (b.drop, b.body.state.is_static))
            .collect()
    }

    fn add_scene_body(&mut self, scene: &Scene, k: usize) -> Result<usize, SceneError> {
        Ok(self.add_body(scene.bodies.polyhedra()[k].body.clone())?)
    }

    fn headers() -> (&'static str, &'static str) {
        (trajectory_header3(), CONTACTS3_HEADER)
    }

    fn step_world(&mut self) -> StepReport {
        self.step()
    }

    fn state(&mut self) -> super::StepState<'_> {
        super::StepState::Polyhedra(self)
    }

    fn energy(&self) -> (Real, Real) {
        energy3(self.bodies.iter().map(|b| &b.state))
    }

    fn finite(&self) -> bool {
        finite_world3(self.bodies.iter().map(|b| &b.state))
    }

    fn overlap(&self) -> Real {
        total_overlap3(&self.bodies)
    }

    fn max_depth(&self) -> Real {
        max_depth_polyhedra(self)
    }

    fn write_pose(&self, t: &mut Csv, s: usize, d: usize, wi: usize) -> Result<(), SceneError> {
        Ok(t.pose3(s, d, &self.bodies[wi].state)?)
    }

    fn write_contacts(&self, c: &mut Csv, s: usize) -> Result<(), SceneError> {
        write_touches(c, s, &touches_polyhedra(self))
    }

    fn counts(&self) -> (usize, usize) {
        let dynamic = self.bodies.iter().filter(|b| !b.state.is_static).count();
        (self.bodies.len(), dynamic)
    }

    fn bodies_json(scene: &Scene, h: Real, sched: &super::Schedule) -> Value {
        let bodies: Vec<Value> = scene
            .bodies
            .polyhedra()
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let wi = sched.world_of_scene[k];
                json!({
                    "name": b.name,
                    "world_index": (wi != usize::MAX).then_some(wi),
                    "dynamic_index": sched.dyn_index[k],
                    "is_static": b.body.state.is_static,
                    "vertices": b.body.shape.vertices().iter().map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>(),
                    "faces": b.body.shape.faces().iter().map(|f| f.vertices.to_vec()).collect::<Vec<_>>(),
                    "position": [b.body.state.position.x, b.body.state.position.y, b.body.state.position.z],
                    "orientation": quat(&b.body.state.orientation),
                    "drop_step": sched.step[k],
                    "color": b.color,
                })
            })
            .collect();
        json!({ "scene": scene.name, "h": h, "dimension": 3, "bodies": bodies })
    }

    fn into_final(self) -> FinalWorld {
        FinalWorld::Polyhedra(self)
    }
}

/// The penalty parameters of a mesh scene (penetration always measured: the trace needs it).
fn penalty_params(scene: &Scene, model: ForceModel, h: Real) -> Result<PenaltyParams, SceneError> {
    let c = &scene.contact;
    // Validation requires `contact.stiffness` in penalty scenes; a `Scene` built by hand may
    // lack it.
    let k = c.stiffness.ok_or_else(|| {
        SceneError::Invalid(Located {
            file: scene.file.clone(),
            line: None,
            column: None,
            field: "contact.stiffness".into(),
            reason: "required by the penalty models (N/m)".into(),
        })
    })?;
    let mut p = PenaltyParams::new(model, h, k);
    if c.friction > 0.0 {
        p.friction = Friction {
            mu: c.friction,
            viscous: 0.0,
        };
    }
    p.thickness = c.thickness.unwrap_or(0.0);
    p.measure_penetration = true;
    p.gyroscopic = scene.gyroscopic;
    Ok(p)
}

/// Run a scene of rigid meshes in `PenaltyWorld` (as `signorini experiment box-on-plane` /
/// `stick` for one model).
pub(super) fn run_meshes(
    scene: &Scene,
    mut opts: RunOptions,
    model: Model,
    force_model: ForceModel,
    h: Real,
) -> Result<RunOutcome, SceneError> {
    let bodies = scene
        .bodies
        .meshes()
        .iter()
        .map(|m| m.build())
        .collect::<Result<Vec<_>, _>>()?;
    let mut world = PenaltyWorld::new(Vec::new(), penalty_params(scene, force_model, h)?)?;
    let world_k0 = world.params().stiffness;
    let (planned, n) = planned_steps(scene, &opts, h);
    let drops: Vec<(Drop, bool)> = scene
        .bodies
        .meshes()
        .iter()
        .map(|m| (m.drop, m.is_static))
        .collect();
    let mut sched = Schedule::new(&drops, h);
    // The penalty step works on `bodies` as they are at each step (pairs are keyed by body
    // index), so a body dropped later is appended.
    let add = |world: &mut PenaltyWorld, k: usize| {
        world.bodies.push(bodies[k].clone());
        Ok(world.bodies.len() - 1)
    };
    sched.add_due(0, |k| add(&mut world, k))?;
    // The trace follows the first dynamic body in declaration order, from when it enters.
    let traced = sched.dyn_index.iter().position(|d| *d == Some(0));
    let out = opts.out.clone();
    let mut w = open_writers(
        scene,
        out.as_deref(),
        trajectory_header3(),
        CONTACTS3_HEADER,
    )?;
    let (k0, p0) = energy3(world.bodies.iter().map(|b| &b.state));
    let mut acc = Acc::default();
    let mut trace = Trace::default();
    let mut interrupted = None;
    let mut diverged = None;
    let mut taken = 0;
    let started = std::time::Instant::now();
    for s in 1..=n {
        if s > 1 {
            sched.add_due(s - 1, |k| add(&mut world, k))?;
        }
        if let Some((a, f)) = scene.contact.stiffness_perturbation {
            // CPF supplementary §C / §3.6: k(t) = k (1 + a sin 2π f t), t at the step's start
            // (as `particle1d::drop_trajectory`).
            let t = (s - 1) as Real * h;
            world.set_stiffness(world_k0 * (1.0 + a * (std::f64::consts::TAU * f * t).sin()))?;
        }
        super::before(&mut opts, s, super::StepState::Meshes(&mut world));
        let rep = world.step();
        taken = s;
        if let Some(wi) = traced.map(|k| sched.world_of_scene[k])
            && wi != usize::MAX
        {
            trace.record(&world, &rep, wi);
        }
        acc.add_penalty(&rep);
        if rep.diverged || !finite_world3(world.bodies.iter().map(|b| &b.state)) {
            // The state is no longer finite: stop, and fail the run below.
            diverged = Some(s);
            break;
        }
        if s % scene.record.every == 0 || s == n {
            record_mesh(&mut w, &world, &sched.present, s, h, &rep)?;
        }
        if let Some(why) = tick(&mut opts, s, n) {
            interrupted = Some(why);
            break;
        }
    }
    acc.wall = started.elapsed().as_secs_f64();
    let (k1, p1) = energy3(world.bodies.iter().map(|b| &b.state));
    let mut summary = acc.summary(scene, model, h, planned, taken);
    summary.max_penetration = summary.max_overlap;
    summary.max_overlap = 0.0;
    summary.median_overlap = 0.0;
    summary.interrupted = interrupted;
    summary.bodies = world.bodies.len();
    summary.dynamic_bodies = world.bodies.iter().filter(|b| !b.state.is_static).count();
    summary.energy_initial = k0 + p0;
    summary.energy_final = k1 + p1;
    if let Some(s) = diverged {
        super::non_finite(&mut summary, s);
    }
    if let (Some(dir), Some(_)) = (out.as_deref(), traced)
        && scene.record.trajectories
    {
        write_trace(&dir.join("trace.csv"), &trace)?;
        summary.files.push("trace.csv".into());
    }
    let bodies: Vec<Value> = scene
        .bodies
        .meshes()
        .iter()
        .enumerate()
        .map(|(k, m)| {
            // The body as built: its mesh in the body frame and its initial pose.
            let (verts, tris, s0) = match m.build() {
                Ok(b) => (
                    b.mesh().vertices().to_vec(),
                    b.mesh().triangles().to_vec(),
                    b.state.clone(),
                ),
                Err(_) => (
                    Vec::new(),
                    Vec::new(),
                    signorini_dynamics::RigidBody3::fixed(),
                ),
            };
            let wi = sched.world_of_scene[k];
            json!({
                "name": m.name,
                "world_index": (wi != usize::MAX).then_some(wi),
                "dynamic_index": sched.dyn_index[k],
                "is_static": m.is_static,
                "vertices": verts.iter().map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>(),
                "faces": tris,
                "position": [s0.position.x, s0.position.y, s0.position.z],
                "orientation": quat(&s0.orientation),
                "drop_step": sched.step[k],
                "color": m.color,
            })
        })
        .collect();
    let bodies = json!({ "scene": scene.name, "h": h, "dimension": 3, "bodies": bodies });
    finish(scene, out.as_deref(), w, Some(bodies), &mut summary)?;
    Ok(RunOutcome {
        summary,
        world: FinalWorld::Meshes(world),
    })
}

fn record_mesh(
    w: &mut Writers,
    world: &PenaltyWorld,
    present: &[(usize, usize)],
    s: usize,
    h: Real,
    rep: &PenaltyReport,
) -> Result<(), SceneError> {
    if let Some(t) = w.traj.as_mut() {
        for &(d, wi) in present {
            t.pose3(s, d, &world.bodies[wi].state)?;
        }
    }
    if let Some(f) = w.steps.as_mut() {
        let (kin, pot) = energy3(world.bodies.iter().map(|b| &b.state));
        let speed = world
            .bodies
            .iter()
            .filter(|b| !b.state.is_static)
            .map(max_vertex_speed)
            .fold(0.0, Real::max);
        debug_assert_eq!(PENALTY_STEPS_HEADER.split(',').count(), 13);
        f.line(&format!(
            "{s},{},{},{},{},{},{},{},{},{speed},{kin},{pot},{}",
            s as f64 * h,
            world.bodies.len(),
            rep.pairs,
            rep.new_pairs,
            rep.penetrating_pairs,
            rep.max_depth,
            rep.max_penetration,
            rep.contact_force,
            kin + pot
        ))?;
    }
    if let Some(c) = w.contacts.as_mut() {
        write_touches(c, s, &touches_meshes(world))?;
    }
    w.checkpoint_due()
}
