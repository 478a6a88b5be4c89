//! The pile experiment's world, one type for both dimensions: `World` (2D polygons) or `World3`
//! (3D polyhedra) with the static box first, then the dynamic bodies in order.
//!
//! Owns: [`PileWorld`] (build, add a body, step, total overlap, the spawn-occupancy test,
//! trajectory rows, checkpoints as JSON) and [`PileBody`]. Does not own: the scene ([`crate::pile`]) or the run.

use crate::ExperimentError;
use crate::overlap::{total_overlap, total_overlap3};
use crate::presets::experiment_params;
use crate::writer::Csv;
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::{Aabb, Compound, intersection_area};
use signorini_geometry::dim3::{Aabb3, Compound3, intersection_volume};
use signorini_math::{Quat, Real, Vec2, Vec3};
use signorini_world::{ContactModel, PolyBody, StepReport, World, World3, WorldParams};
use std::path::Path;

/// A dynamic body of either dimension, posed where it enters.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // built once per body and run, never in a hot loop
pub enum PileBody {
    /// 2D polygon.
    Planar(RigidBody2),
    /// 3D polyhedron.
    Spatial(PolyBody),
}

/// The box.
#[derive(Debug, Clone)]
pub enum PileBox {
    /// 2D: static rectangles.
    Planar(Compound),
    /// 3D: static hexahedra.
    Spatial(Compound3),
}

/// A world of either dimension.
pub enum PileWorld {
    /// 2D.
    Planar {
        /// The world.
        world: World,
        /// Static parts (the box) before the dynamic bodies.
        walls: usize,
    },
    /// 3D.
    Spatial {
        /// The world.
        world: World3,
        /// Static parts (the box) before the dynamic bodies.
        walls: usize,
    },
}

/// The experiments' world settings ([`experiment_params`], 8 gap corrections) with μ.
pub fn pile_params(model: ContactModel, h: Real, mu: Real) -> WorldParams {
    let mut p = experiment_params(model, h, GAP_CORRECTIONS);
    p.mu = mu;
    p
}

/// Gap corrections of the PEG runs (the experiments' default, as pour2d/pour3d).
pub(crate) const GAP_CORRECTIONS: usize = 8;

impl PileWorld {
    /// An empty world with the static box.
    pub fn new(b: &PileBox, params: WorldParams) -> Result<PileWorld, ExperimentError> {
        Ok(match b {
            PileBox::Planar(c) => {
                let mut world = World::new(params)?;
                let walls = world.add_static_compound(c, Vec2::zeros(), 0.0).len();
                PileWorld::Planar { world, walls }
            }
            PileBox::Spatial(c) => {
                let mut world = World3::new(params)?;
                let walls = world
                    .add_static_compound(c, Vec3::zeros(), Quat::identity())
                    .len();
                PileWorld::Spatial { world, walls }
            }
        })
    }

    /// Add a dynamic body (its dimension must match the world's).
    pub fn add(&mut self, body: &PileBody) -> Result<(), ExperimentError> {
        match (self, body) {
            (PileWorld::Planar { world, .. }, PileBody::Planar(b)) => {
                world.add_body(b.clone())?;
            }
            (PileWorld::Spatial { world, .. }, PileBody::Spatial(b)) => {
                world.add_body(b.clone())?;
            }
            _ => {
                return Err(ExperimentError::Argument(
                    "a 2D body in a 3D world or the reverse".into(),
                ));
            }
        }
        Ok(())
    }

    /// One step.
    pub fn step(&mut self) -> StepReport {
        match self {
            PileWorld::Planar { world, .. } => world.step(),
            PileWorld::Spatial { world, .. } => world.step(),
        }
    }

    /// Total exact overlap (area or volume), static–static pairs excluded.
    pub fn overlap(&self) -> f64 {
        match self {
            PileWorld::Planar { world, .. } => total_overlap(&world.bodies),
            PileWorld::Spatial { world, .. } => total_overlap3(&world.bodies),
        }
    }

    /// Dynamic bodies present.
    pub fn dynamic_count(&self) -> usize {
        match self {
            PileWorld::Planar { world, walls } => world.bodies.len() - walls,
            PileWorld::Spatial { world, walls } => world.bodies.len() - walls,
        }
    }

    /// True if `body`'s bounding box overlaps no body's bounding box (box parts included).
    pub fn spawn_free(&self, body: &PileBody) -> bool {
        match (self, body) {
            (PileWorld::Planar { world, .. }, PileBody::Planar(b)) => {
                let new = Aabb::from_points(b.world_vertices().iter());
                world
                    .bodies
                    .iter()
                    .all(|o| !Aabb::from_points(o.world_vertices().iter()).overlaps(&new))
            }
            (PileWorld::Spatial { world, .. }, PileBody::Spatial(b)) => {
                let new = Aabb3::from_points(b.world_shape().vertices());
                world
                    .bodies
                    .iter()
                    .all(|o| !Aabb3::from_points(o.world_shape().vertices()).overlaps(&new))
            }
            _ => false,
        }
    }

    /// Exact overlap of `body` (posed where it would enter) with every body present.
    pub fn overlap_with(&self, body: &PileBody) -> f64 {
        match (self, body) {
            (PileWorld::Planar { world, .. }, PileBody::Planar(b)) => {
                let v = b.world_vertices();
                world
                    .bodies
                    .iter()
                    .map(|o| intersection_area(&o.world_vertices(), &v))
                    .sum::<f64>()
                    + 0.0
            }
            (PileWorld::Spatial { world, .. }, PileBody::Spatial(b)) => {
                let s = b.world_shape();
                world
                    .bodies
                    .iter()
                    .map(|o| intersection_volume(&o.world_shape(), &s))
                    .sum::<f64>()
                    + 0.0
            }
            _ => f64::NAN,
        }
    }

    /// The world's [`signorini_world::Checkpoint`] as JSON, with the run's name and μ
    /// (`{"run": …, "friction": …, "world": …}`): what `signorini experiment pile
    /// --save-state` writes and `--resume` reads.
    pub fn checkpoint_json(&self, run: &str, mu: Real) -> String {
        let world = match self {
            PileWorld::Planar { world, .. } => serde_json::to_value(world.checkpoint()),
            PileWorld::Spatial { world, .. } => serde_json::to_value(world.checkpoint()),
        };
        // A checkpoint is numbers, strings and arrays: serialising it cannot fail.
        let world = world.unwrap_or_default();
        serde_json::json!({ "run": run, "friction": mu, "world": world }).to_string()
    }

    /// Continue from a checkpoint that [`PileWorld::checkpoint_json`] wrote for the run `run`
    /// with friction `mu` (read from `path`, named in every error).
    pub fn restore_json(
        &mut self,
        path: &Path,
        text: &str,
        run: &str,
        mu: Real,
    ) -> Result<usize, ExperimentError> {
        let parse = |reason: String| ExperimentError::Parse {
            path: path.to_path_buf(),
            reason,
        };
        #[derive(serde::Deserialize)]
        struct Saved {
            run: String,
            friction: Real,
            world: serde_json::Value,
        }
        let saved: Saved = serde_json::from_str(text).map_err(|e| parse(e.to_string()))?;
        if saved.run != run || saved.friction.to_bits() != mu.to_bits() {
            return Err(parse(format!(
                "field `run`/`friction`: a state of run {} with friction {}, not of {run} with friction {mu}",
                saved.run, saved.friction
            )));
        }
        // The path into the state (`world.bases.islands[0][1].factor`) names the bad field.
        let field = |e: serde_path_to_error::Error<serde_json::Error>| {
            parse(format!("field `world.{}`: {}", e.path(), e.inner()))
        };
        let steps = match self {
            PileWorld::Planar { world, .. } => {
                world.restore(&serde_path_to_error::deserialize(saved.world).map_err(field)?)?;
                world.steps
            }
            PileWorld::Spatial { world, .. } => {
                world.restore(&serde_path_to_error::deserialize(saved.world).map_err(field)?)?;
                world.steps
            }
        };
        Ok(steps)
    }

    /// Trajectory rows of every dynamic body after step `s` (2D `step,body,x,y,angle`; 3D
    /// `step,body,x,y,z,qw,qx,qy,qz`).
    pub fn write_poses(&self, t: &mut Csv, s: usize) -> Result<(), ExperimentError> {
        match self {
            PileWorld::Planar { world, walls } => {
                for (k, b) in world.bodies[*walls..].iter().enumerate() {
                    t.pose(s, k, b)?;
                }
            }
            PileWorld::Spatial { world, walls } => {
                for (k, b) in world.bodies[*walls..].iter().enumerate() {
                    t.pose3(s, k, &b.state)?;
                }
            }
        }
        Ok(())
    }
}
