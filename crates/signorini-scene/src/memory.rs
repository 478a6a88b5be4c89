//! An estimate of a run's memory from its validated scene, so that a run that cannot fit the
//! machine is refused before its first step (with the estimate in the message) instead of
//! aborting on an allocation mid-run. Reference: `docs/scene-format.md`, "Limits".
//!
//! The estimate is deliberately coarse and on the high side: a fixed base, per-body and
//! per-vertex state, an upper bound on contacts (a few per vertex of every dynamic body) and
//! the solver matrices they lead to (dense up to `signorini_world::DENSE_FALLBACK_LIMIT`
//! unknowns per island, sparse beyond), triangles and vertices of meshes and deformables, and
//! the per-step records a run keeps in memory. The constants were calibrated against the
//! peak resident size of debug and release runs (see `docs/scene-format.md`).

use crate::validate::{Length, Scene, SceneKind};
use signorini_harness::deform_build::WorldSpec;
use signorini_math::Real;
use signorini_world::DENSE_FALLBACK_LIMIT;

/// Process base: binary, thread pools, buffers (bytes).
const BASE: u64 = 64 << 20;
/// Per rigid body (state, shape, world-frame copies, broad phase, islands), bytes.
const PER_BODY: u64 = 4 << 10;
/// Per polygon or polyhedron vertex, bytes.
const PER_VERTEX: u64 = 512;
/// Contacts per vertex of a dynamic body, at most (vertex–edge, vertex–face and edge–edge
/// pairs within the detection distance; a coarse upper bound).
const CONTACTS_PER_VERTEX: u64 = 4;
/// Per contact: the constraint, its rows in the formulation and the sparse solver's share of
/// matrix entries and factor fill (bytes per unknown).
const PER_UNKNOWN: u64 = 1 << 10;
/// Dense matrices of one dense island solve (M, the reduced/mixed copies, Lemke's basis
/// inverse, an LU): this many n × n f64 matrices.
const DENSE_COPIES: u64 = 6;
/// Per triangle of a rigid or obstacle mesh (mesh, BVH, per-step world copies, pairs), bytes.
const PER_TRIANGLE: u64 = 1 << 10;
/// Per deformable vertex (positions, velocities, masses, forces, springs, sub-step buffers,
/// tracked pairs), bytes.
const PER_DEFORMABLE_VERTEX: u64 = 2 << 10;
/// Per step of the run: the per-step records kept for the summary and traces, bytes.
const PER_STEP: u64 = 128;

/// What a run is expected to need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Total (bytes).
    pub bytes: u64,
    /// The parts, `(what, bytes)`, largest first.
    pub parts: Vec<(&'static str, u64)>,
}

impl MemoryEstimate {
    /// "1.2 GB (contacts 800 MB, …)".
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .filter(|(_, b)| *b > 0)
            .map(|(w, b)| format!("{w} {}", human_bytes(*b)))
            .collect();
        format!("{} ({})", human_bytes(self.bytes), parts.join(", "))
    }
}

/// Bytes as "512 MB", "28.8 GB" (decimal units).
pub fn human_bytes(b: u64) -> String {
    let x = b as f64;
    match b {
        _ if x >= 1e12 => format!("{:.1} TB", x / 1e12),
        _ if x >= 1e9 => format!("{:.1} GB", x / 1e9),
        _ if x >= 1e6 => format!("{:.0} MB", x / 1e6),
        _ => format!("{:.0} kB", x / 1e3),
    }
}

/// The estimate for a run of `scene` with step size `h`, at most `max_steps` steps.
pub fn estimate(scene: &Scene, h: Real, max_steps: Option<usize>) -> MemoryEstimate {
    let planned = match scene.length {
        Length::Duration(d) => (d / h).floor().max(0.0) as u64,
        Length::Steps(n) => n as u64,
    };
    let steps = max_steps.map_or(planned, |m| planned.min(m as u64));
    let mu = scene.contact.friction > 0.0;
    match scene.kind() {
        SceneKind::Planar => {
            let verts = |dynamic: bool| -> u64 {
                (scene.bodies.planar().iter())
                    .filter(|b| b.body.is_static != dynamic)
                    .map(|b| b.body.shape.vertices().len() as u64)
                    .sum()
            };
            let n = scene.bodies.planar().len() as u64;
            rigid(2, n, verts(true), verts(false), mu, steps)
        }
        SceneKind::Polyhedra => {
            let verts = |dynamic: bool| -> u64 {
                (scene.bodies.polyhedra().iter())
                    .filter(|b| b.body.state.is_static != dynamic)
                    .map(|b| b.body.shape.vertices().len() as u64)
                    .sum()
            };
            let n = scene.bodies.polyhedra().len() as u64;
            rigid(3, n, verts(true), verts(false), mu, steps)
        }
        SceneKind::Meshes => {
            let tris: u64 = (scene.bodies.meshes().iter())
                .map(|m| m.mesh.triangles().len() as u64)
                .sum();
            let n = scene.bodies.meshes().len() as u64;
            finish(vec![
                ("base", BASE),
                ("per-step records", steps.saturating_mul(PER_STEP)),
                ("bodies", n * PER_BODY),
                ("meshes", tris * PER_TRIANGLE),
            ])
        }
        SceneKind::Deformables => match scene.bodies.deformables() {
            Some(d) => deformable(&d.spec, steps),
            None => finish(vec![("base", BASE)]),
        },
    }
}

/// The estimate for a rigid run of polygons (`dimension` 2) or polyhedra (3): `bodies` bodies
/// whose dynamic ones have `dynamic_vertices` vertices in all and static ones
/// `static_vertices`, with friction or not, for `steps` steps. Also used by the experiments
/// that build worlds of a size the user chooses (`experiment pile`, `tower`).
pub fn rigid(
    dimension: u8,
    bodies: u64,
    dynamic_vertices: u64,
    static_vertices: u64,
    friction: bool,
    steps: u64,
) -> MemoryEstimate {
    let three = dimension == 3;
    let per_vertex = if three { 4 * PER_VERTEX } else { PER_VERTEX };
    let unknowns_per_contact = match (three, friction) {
        (_, false) => 1,
        (false, true) => 4,
        (true, true) => 10,
    };
    let unknowns = dynamic_vertices
        .saturating_mul(CONTACTS_PER_VERTEX)
        .saturating_mul(unknowns_per_contact);
    let dense = unknowns.min(DENSE_FALLBACK_LIMIT as u64);
    finish(vec![
        ("base", BASE),
        ("per-step records", steps.saturating_mul(PER_STEP)),
        (
            "bodies",
            bodies.saturating_mul(PER_BODY).saturating_add(
                dynamic_vertices
                    .saturating_add(static_vertices)
                    .saturating_mul(per_vertex),
            ),
        ),
        ("contacts", unknowns.saturating_mul(PER_UNKNOWN)),
        (
            "dense solves",
            DENSE_COPIES.saturating_mul(8 * dense * dense),
        ),
    ])
}

/// The estimate for a deformable world described by `spec`, run for `steps` steps (scene files
/// and the deformable experiments).
pub fn deformable(spec: &WorldSpec, steps: u64) -> MemoryEstimate {
    let verts: u64 = (spec.bodies.iter())
        .map(|b| b.mesh.vertices().len() as u64)
        .sum();
    let tris: u64 = (spec.bodies.iter().map(|b| &b.mesh))
        .chain(spec.rigid.iter().map(|r| &r.mesh))
        .chain(spec.obstacles.iter())
        .map(|m| m.triangles().len() as u64)
        .sum();
    let n = (spec.rigid.len() + spec.obstacles.len()) as u64;
    finish(vec![
        ("base", BASE),
        ("per-step records", steps.saturating_mul(PER_STEP)),
        ("bodies", n * PER_BODY),
        ("deformables", verts.saturating_mul(PER_DEFORMABLE_VERTEX)),
        ("meshes", tris.saturating_mul(PER_TRIANGLE)),
    ])
}

/// Sorted parts (largest first) and their total.
fn finish(mut parts: Vec<(&'static str, u64)>) -> MemoryEstimate {
    parts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let bytes = parts.iter().fold(0u64, |s, p| s.saturating_add(p.1));
    MemoryEstimate { bytes, parts }
}

/// The reason to refuse a run whose estimate `e` is above `limit` bytes (`None`: it fits). The
/// same words for scene runs and experiments.
pub fn refusal(e: &MemoryEstimate, limit: u64) -> Option<String> {
    (e.bytes > limit).then(|| {
        format!(
            "the run needs an estimated {}, more than the memory limit of {} (by default this \
             machine's total memory, /proc/meminfo; `--memory-limit SIZE` or \
             SIGNORINI_MEMORY_LIMIT sets another): make the scene smaller",
            e.describe(),
            human_bytes(limit)
        )
    })
}

/// Total memory of this machine (`MemTotal` in `/proc/meminfo`), bytes; `None` where that
/// file cannot be read (then no limit applies unless one is given).
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// `MemTotal:  24567890 kB` → bytes.
fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut it = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") | None => n.checked_mul(1024),
        _ => None,
    }
}

/// A size such as `16G`, `500M`, `2.5GB`, `1000000` (bytes; K/M/G/T are powers of 1000 and
/// `Ki`/`Mi`/`Gi`/`Ti` of 1024). `None` if malformed.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let x: f64 = num.parse().ok()?;
    let unit = unit.trim().trim_end_matches(['B', 'b']);
    let factor: f64 = match unit.to_ascii_lowercase().as_str() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        "ki" => 1024.0,
        "mi" => 1024.0 * 1024.0,
        "gi" => 1024.0 * 1024.0 * 1024.0,
        "ti" => 1024.0f64.powi(4),
        _ => return None,
    };
    let v = x * factor;
    (v.is_finite() && v >= 0.0 && v < u64::MAX as f64).then_some(v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_meminfo_parse() {
        assert_eq!(parse_size("16G"), Some(16_000_000_000));
        assert_eq!(parse_size("1.5 GB"), Some(1_500_000_000));
        assert_eq!(parse_size("2Gi"), Some(2 << 30));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("-1G"), None);
        assert_eq!(
            parse_meminfo("MemTotal:       24567890 kB\nMemFree: 1 kB\n"),
            Some(24567890 * 1024)
        );
        assert_eq!(human_bytes(28_800_000_000), "28.8 GB");
    }
}
