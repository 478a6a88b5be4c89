//! Checkpoints: the state a world carries from one step to the next, saved so that a long run
//! can be stopped and resumed, or one hard step replayed without the steps before it.
//!
//! Owns: [`Checkpoint`], [`GenericWorld::checkpoint`] and [`GenericWorld::restore`]. Does not
//! own: the bodies' shapes, masses and settings (the scene rebuilds those; a checkpoint
//! refuses a world whose bodies or step size differ from the one it was taken of) or the file
//! format (a checkpoint is `serde`; the pile experiment writes it as JSON, whose `f64`s the
//! workspace's `serde_json` reads back bit for bit: feature `float_roundtrip`).
//!
//! What a step reads besides the scene: each body's pose and velocity, the step count, and
//! the warm starts (normal impulses keyed by feature pair). All three are saved, so a resumed
//! run takes the same steps as the uninterrupted one, with one exception: the stored Lemke
//! bases ([`crate::WorldParams::reuse_basis`], factorisations) are not saved. The first solve
//! after a resume whose constraint set equals the last step's then runs Lemke where the
//! uninterrupted run re-solved with the stored basis; both answers solve the same LCP to the
//! solver tolerance, but their last bits can differ. With `reuse_basis = false` a resumed run
//! is bit-identical to the uninterrupted one (tested).

use crate::stepper::{GenericWorld, Space, WorldError};
use serde::{Deserialize, Serialize};
use signorini_contact::DofBody;
use signorini_math::Real;

/// The state a [`GenericWorld`] carries between steps (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint<K> {
    /// Velocity components per body: 3 (2D) or 6 (3D).
    pub dofs: usize,
    /// Step size h (s) of the world it was taken of.
    pub h: Real,
    /// Steps taken.
    pub steps: usize,
    /// Every body, in world order.
    pub bodies: Vec<BodyState>,
    /// Warm starts: normal impulse (N·s) per feature pair, in key order.
    pub warm: Vec<(K, Real)>,
}

/// One body's entry in a [`Checkpoint`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// Static bodies are checked, not restored.
    pub is_static: bool,
    /// [`Space::kinematic_state`]: pose, then velocity.
    pub state: Vec<Real>,
}

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// The state this world carries into its next step.
    ///
    /// ```
    /// use signorini_dynamics::RigidBody2;
    /// use signorini_geometry::dim2::ConvexPolygon;
    /// use signorini_math::Vec2;
    /// use signorini_world::{Checkpoint, ContactModel, World, WorldParams};
    ///
    /// let build = || -> Result<World, Box<dyn std::error::Error>> {
    ///     let mut w = World::new(WorldParams::signorini(ContactModel::Peg, 0.005))?;
    ///     w.add_body(RigidBody2::fixed(ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0)?))?;
    ///     let square = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1)?;
    ///     w.add_body(
    ///         RigidBody2::from_density(&square, 100.0)?
    ///             .with_pose(Vec2::new(0.0, 0.3), 0.3)
    ///             .with_gravity(Vec2::new(0.0, -9.81)),
    ///     )?;
    ///     Ok(w)
    /// };
    /// let mut first = build()?;
    /// for _ in 0..50 {
    ///     first.step();
    /// }
    /// let json = serde_json::to_string(&first.checkpoint())?; // save it anywhere
    /// let mut second = build()?; // the same scene, built again (another process, later)
    /// second.restore(&serde_json::from_str::<Checkpoint<_>>(&json)?)?;
    /// first.step();
    /// second.step();
    /// assert_eq!(second.steps, 51);
    /// assert!((first.bodies[1].position - second.bodies[1].position).norm() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn checkpoint(&self) -> Checkpoint<S::Key> {
        Checkpoint {
            dofs: D,
            h: self.params.h,
            steps: self.steps,
            bodies: self
                .bodies
                .iter()
                .map(|b| BodyState {
                    is_static: b.is_static(),
                    state: S::kinematic_state(b),
                })
                .collect(),
            warm: self.warm.iter().map(|(k, &z)| (k.clone(), z)).collect(),
        }
    }

    /// Continue from `c`: poses, velocities, step count and warm starts. The world must hold
    /// the same bodies (count and which are static) and step size as the one `c` was taken
    /// of; stored Lemke bases are dropped.
    ///
    /// # Errors
    /// [`WorldError::Checkpoint`] naming the first mismatch (dimension, step size, body
    /// count, a static flag, a body's state or a warm start's value); the world is left
    /// unchanged.
    pub fn restore(&mut self, c: &Checkpoint<S::Key>) -> Result<(), WorldError> {
        let fail = |why: String| Err(WorldError::Checkpoint(why));
        if c.dofs != D {
            return fail(format!(
                "taken of a world with {} dofs per body, this one has {D}",
                c.dofs
            ));
        }
        if c.h.to_bits() != self.params.h.to_bits() {
            return fail(format!(
                "taken with h = {}, this world has h = {}",
                c.h, self.params.h
            ));
        }
        if c.bodies.len() != self.bodies.len() {
            let (n, m) = (c.bodies.len(), self.bodies.len());
            return fail(format!("holds {n} bodies, this world {m}"));
        }
        let mut bodies = self.bodies.clone();
        for (k, (b, saved)) in bodies.iter_mut().zip(&c.bodies).enumerate() {
            if b.is_static() != saved.is_static {
                return fail(format!(
                    "body {k}: static in one world, dynamic in the other"
                ));
            }
            if !saved.is_static {
                S::set_kinematic_state(b, &saved.state)
                    .or_else(|why| fail(format!("body {k}: {why}")))?;
            }
        }
        let n = bodies.len();
        for (key, z) in &c.warm {
            let (a, b) = S::key_bodies(key);
            if a >= n || b >= n || !z.is_finite() {
                return fail(format!(
                    "warm start {key:?} = {z}: no such bodies or not finite"
                ));
            }
        }
        self.bodies = bodies;
        self.steps = c.steps;
        self.warm = c.warm.iter().cloned().collect();
        self.basis = None;
        self.island_bases.clear();
        self.basic.clear();
        Ok(())
    }
}
