//! Checkpoints: the state a world carries from one step to the next, saved so that a long run
//! can be stopped and resumed, or one hard step replayed without the steps before it.
//!
//! Owns: [`Checkpoint`], [`GenericWorld::checkpoint`] and [`GenericWorld::restore`]. Does not
//! own: the bodies' shapes, masses and settings (the scene rebuilds those; a checkpoint
//! refuses a world whose bodies or step size differ from the one it was taken of) or the file
//! format (a checkpoint is `serde`; the pile experiment writes it as JSON, whose `f64`s the
//! workspace's `serde_json` reads back bit for bit: feature `float_roundtrip`).
//!
//! What a step reads besides the scene: each body's pose and velocity, the step count, the
//! warm starts (normal impulses keyed by feature pair) and the solvers' memory
//! ([`SolverMemory`]: the Lemke bases stored for [`crate::WorldParams::reuse_basis`] and the
//! unknowns basic in them). All four are saved, so a resumed run takes the same steps as the
//! uninterrupted one, bit for bit (tested with and without basis reuse). A file written before
//! the solvers' memory was saved (session 37) still reads: its resume starts with no stored
//! basis, and its first solves agree with the uninterrupted run's to the solver tolerance,
//! not always to the last bit.

use crate::basis::{KeyedUnknown, StoredBasis};
use crate::stepper::{GenericWorld, Space, WorldError};
use serde::{Deserialize, Serialize};
use signorini_contact::DofBody;
use signorini_math::Real;

/// The state a [`GenericWorld`] carries between steps (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Written out: serde would infer `K: Default` from the defaulted field.
#[serde(bound(deserialize = "K: Deserialize<'de>"))]
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
    /// The solvers' memory (empty in files written before session 37).
    #[serde(default)]
    pub bases: SolverMemory<K>,
}

/// What the solvers carry from one step to the next besides the warm starts, opaque: the
/// Lemke bases stored for [`crate::WorldParams::reuse_basis`] (the world's and each island's,
/// with the constraint set each solved; dense ones with their inverse, so JSON states of
/// large piles grow by megabytes) and the unknowns basic in them, the next sparse Lemke's
/// warm start. Read back, each basis is checked ([`signorini_complementarity::LemkeFactor`]),
/// and [`GenericWorld::restore`] checks that every body it names exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolverMemory<K> {
    basis: Option<StoredBasis<K>>,
    /// Per island, by its members (world indices, ascending).
    islands: Vec<(Vec<usize>, StoredBasis<K>)>,
    basic: Vec<KeyedUnknown<K>>,
}

impl<K> Default for SolverMemory<K> {
    fn default() -> Self {
        SolverMemory {
            basis: None,
            islands: Vec::new(),
            basic: Vec::new(),
        }
    }
}

impl<K> SolverMemory<K> {
    /// Whether nothing is stored (a world that has not solved, or an older file).
    pub fn is_empty(&self) -> bool {
        self.basis.is_none() && self.islands.is_empty() && self.basic.is_empty()
    }

    /// The first body index at or beyond `n` that the memory names (an island member or a
    /// contact key's body; an island's bases hold its local indices, below its member
    /// count), with where: `None` if all are in range.
    fn body_beyond(&self, n: usize, bodies: impl Fn(&K) -> (usize, usize)) -> Option<String> {
        let beyond = |keys: &mut dyn Iterator<Item = &K>, n: usize| {
            keys.map(&bodies)
                .find(|&(a, b)| a >= n || b >= n)
                .map(|(a, b)| a.max(b))
        };
        let world_keys = self.basis.iter().flat_map(|b| b.keys());
        let basic_keys = self.basic.iter().flat_map(|(role, _)| role.keys());
        if let Some(b) = beyond(&mut world_keys.chain(basic_keys), n) {
            return Some(format!("a stored basis names body {b} of {n}"));
        }
        for (members, basis) in &self.islands {
            if members.windows(2).any(|w| w[0] >= w[1]) {
                return Some(format!("island {members:?}: members not ascending"));
            }
            if let Some(m) = members.iter().find(|&&m| m >= n) {
                return Some(format!("island {members:?}: no body {m}"));
            }
            if let Some(b) = beyond(&mut basis.keys(), members.len()) {
                return Some(format!(
                    "island {members:?}: its basis names local body {b}"
                ));
            }
        }
        None
    }
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
            bases: SolverMemory {
                basis: self.basis.clone(),
                islands: (self.island_bases.iter())
                    .map(|(m, b)| (m.clone(), b.clone()))
                    .collect(),
                basic: self.basic.iter().cloned().collect(),
            },
        }
    }

    /// Continue from `c`: poses, velocities, step count, warm starts and the solvers' memory
    /// (none if `c` holds none). The world must hold the same bodies (count and which are
    /// static) and step size as the one `c` was taken of.
    ///
    /// # Errors
    /// [`WorldError::Checkpoint`] naming the first mismatch (dimension, step size, body
    /// count, a static flag, a body's state, a warm start's value or a body the solvers'
    /// memory names); the world is left unchanged.
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
        if let Some(why) = c.bases.body_beyond(n, |k| S::key_bodies(k)) {
            return fail(format!("solver memory: {why}"));
        }
        self.bodies = bodies;
        self.steps = c.steps;
        self.warm = c.warm.iter().cloned().collect();
        self.basis = c.bases.basis.clone();
        self.island_bases = c.bases.islands.iter().cloned().collect();
        self.basic = c.bases.basic.iter().cloned().collect();
        Ok(())
    }
}
