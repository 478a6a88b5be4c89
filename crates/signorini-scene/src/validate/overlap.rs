//! Bodies that overlap where they enter the world: an error unless the scene sets
//! `allow_initial_overlap = true` (a child module of `validate`, sharing its located-error
//! context).
//!
//! Checked for polygons (overlap area), polyhedra (overlap volume) and triangle meshes (rigid
//! penalty scenes and deformable scenes: an edge of one mesh passing through a triangle of the
//! other, or a mesh lying inside a closed one; see [`meshes`]), between the pairs whose
//! poses at entry are known from the file alone: a static body and any dynamic body (static
//! bodies never move), and two dynamic bodies that enter at the same step. A dynamic body
//! dropped later onto a moving pile cannot be checked before the run. Static–static pairs are
//! never in contact. Overlaps below [`RELATIVE`] of the smaller body (rounding at a shared
//! face) are ignored. The check stops at [`MAX_HITS`] overlapping pairs (the message then says
//! "at least").

use super::{Ctx, Res, SceneBody, SceneBody3};
use crate::error::FieldPath;
use signorini_geometry::dim2::{Aabb, intersection_area, sweep_and_prune};
use signorini_geometry::dim3::{Aabb3, intersection_volume, sweep_and_prune3};
use signorini_geometry::mesh::TriMesh;
use signorini_geometry::mesh::query::winding_number;
use signorini_harness::crossings::{MeshView, crossings};
use signorini_math::Real;

/// Overlaps at most this fraction of the smaller body's area (volume) are touching, not
/// overlapping.
pub(super) const RELATIVE: Real = 1e-9;

/// Pairs listed in the message (the deepest first).
const LISTED: usize = 5;

/// The check stops after finding this many overlapping pairs: the scene is refused either way,
/// and measuring every pair of a scene whose bodies all overlap took 10 s (found by the fuzz
/// campaign: a body set of 510 polyhedra with `circumradius = 1e9`, 127,250 pairs).
pub(super) const MAX_HITS: usize = 1000;

/// One overlapping pair: (overlap, first index, second index, what to print about it).
type Hit = (Real, usize, usize, String);

/// Whether a pair's entry poses are both known from the file (see the module docs).
fn checkable(a: (bool, usize), b: (bool, usize)) -> bool {
    match (a.0, b.0) {
        (true, true) => false,
        (true, false) | (false, true) => true,
        (false, false) => a.1 == b.1,
    }
}

/// 2D scenes. `origin[k]`: the field path of the entry body k came from.
pub(super) fn planar(cx: &Ctx, bodies: &[SceneBody], origin: &[FieldPath], h: Real) -> Res<()> {
    let verts: Vec<_> = bodies.iter().map(|b| b.body.world_vertices()).collect();
    let boxes: Vec<Aabb> = verts.iter().map(|v| Aabb::from_points(v.iter())).collect();
    let key = |k: usize| (bodies[k].body.is_static, bodies[k].drop.step(h));
    let mut hits: Vec<Hit> = Vec::new();
    for (i, j) in sweep_and_prune(&boxes) {
        if !checkable(key(i), key(j)) {
            continue;
        }
        let area = intersection_area(&verts[i], &verts[j]);
        let smaller = bodies[i].body.shape.area().min(bodies[j].body.shape.area());
        if area > RELATIVE * smaller {
            hits.push((area, i, j, format!("area {area:.3e} m²")));
            if hits.len() == MAX_HITS {
                break;
            }
        }
    }
    let names: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
    report(cx, hits, &names, origin)
}

/// 3D polyhedra scenes.
pub(super) fn polyhedra(cx: &Ctx, bodies: &[SceneBody3], origin: &[FieldPath], h: Real) -> Res<()> {
    let shapes: Vec<_> = bodies.iter().map(|b| b.body.world_shape()).collect();
    let boxes: Vec<Aabb3> = shapes
        .iter()
        .map(|s| Aabb3::from_points(s.vertices()))
        .collect();
    let key = |k: usize| (bodies[k].body.state.is_static, bodies[k].drop.step(h));
    let volume = |k: usize| shapes[k].volume();
    let mut hits: Vec<Hit> = Vec::new();
    for (i, j) in sweep_and_prune3(&boxes) {
        if !checkable(key(i), key(j)) {
            continue;
        }
        let v = intersection_volume(&shapes[i], &shapes[j]);
        if v > RELATIVE * volume(i).min(volume(j)) {
            hits.push((v, i, j, format!("volume {v:.3e} m³")));
            if hits.len() == MAX_HITS {
                break;
            }
        }
    }
    let names: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
    report(cx, hits, &names, origin)
}

fn report(cx: &Ctx, mut hits: Vec<Hit>, names: &[&str], origin: &[FieldPath]) -> Res<()> {
    if hits.is_empty() {
        return Ok(());
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let list: Vec<String> = hits
        .iter()
        .take(LISTED)
        .map(|(_, i, j, what)| format!("`{}` and `{}` ({what})", names[*i], names[*j]))
        .collect();
    let more = match hits.len().saturating_sub(LISTED) {
        0 => String::new(),
        n if hits.len() >= MAX_HITS => {
            format!(", and at least {n} more pair(s) (the check stops at {MAX_HITS})")
        }
        n => format!(", and {n} more pair(s)"),
    };
    let (_, i, j, _) = hits[0];
    // Point at the later of the deepest pair's entries (usually the body placed into another).
    let at = origin[i.max(j)].clone();
    Err(cx.bad(
        &at,
        format!(
            "bodies overlap where they enter the world: {}{more}. Move them apart, or set \
             `allow_initial_overlap = true` (top level) to run anyway",
            list.join("; ")
        ),
    ))
}

/// One triangle mesh where it enters the world (for [`meshes`]).
pub(super) struct MeshEntry {
    /// Body name.
    pub name: String,
    /// The mesh in the world frame at entry.
    pub mesh: TriMesh,
    /// Immovable (static–static pairs are not checked).
    pub is_static: bool,
    /// The step at which it enters.
    pub step: usize,
    /// The entry of the file it came from.
    pub origin: FieldPath,
}

/// Vertices of the inner mesh tested for containment (evenly spaced through its list).
const CONTAINMENT_SAMPLES: usize = 8;

/// A winding number above this puts a vertex inside a closed mesh. Well above one half, so
/// that a vertex lying on the other's surface (a winding number of one half on a face, more
/// at a concave edge or corner) is not taken for inside.
const INSIDE: Real = 0.75;

/// Triangle meshes (rigid penalty scenes, and the rigid bodies, obstacles and deformables of a
/// deformable scene). A pair overlaps if an edge of one passes strictly through a triangle of
/// the other (`signorini_harness::crossings`: an edge ending on a triangle's plane or
/// lying in it does not count, so meshes resting exactly on each other pass; nor do crossings
/// no deeper than [`RELATIVE`] of the smaller mesh's bounding-box diagonal), or if no edge
/// crosses and one mesh lies inside the other, closed one (every sampled vertex of the first
/// at a winding number above [`INSIDE`] with respect to the second, its bounds within the
/// second's).
pub(super) fn meshes(cx: &Ctx, entries: &[MeshEntry]) -> Res<()> {
    let edges: Vec<Vec<[u32; 2]>> = entries.iter().map(|e| e.mesh.edges()).collect();
    let boxes: Vec<Aabb3> = entries
        .iter()
        .map(|e| Aabb3::from_points(e.mesh.vertices()))
        .collect();
    let key = |k: usize| (entries[k].is_static, entries[k].step);
    let view = |k: usize| MeshView {
        x: entries[k].mesh.vertices(),
        triangles: entries[k].mesh.triangles(),
        edges: &edges[k],
        self_check: false,
        is_static: entries[k].is_static,
    };
    let mut hits: Vec<Hit> = Vec::new();
    for (i, j) in sweep_and_prune3(&boxes) {
        if !checkable(key(i), key(j)) {
            continue;
        }
        let c = crossings(&[view(i), view(j)]);
        // Crossings no deeper than rounding (a body re-centred on its centre of mass, resting
        // on a face) are touching.
        let size = |k: usize| (boxes[k].max - boxes[k].min).norm();
        let hit = if c.pairs > 0 && c.max_depth > RELATIVE * size(i).min(size(j)) {
            Some((
                c.max_depth,
                format!(
                    "{} edge–triangle crossing(s), deepest {:.3e} m",
                    c.pairs, c.max_depth
                ),
            ))
        } else {
            [(i, j), (j, i)].into_iter().find_map(|(a, b)| {
                inside(&entries[a].mesh, &boxes[a], &entries[b].mesh, &boxes[b]).then(|| {
                    (
                        size(a),
                        format!("`{}` lies inside `{}`", entries[a].name, entries[b].name),
                    )
                })
            })
        };
        if let Some((x, what)) = hit {
            hits.push((x, i, j, what));
            if hits.len() == MAX_HITS {
                break;
            }
        }
    }
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let origin: Vec<FieldPath> = entries.iter().map(|e| e.origin.clone()).collect();
    report(cx, hits, &names, &origin)
}

/// Whether mesh `a` (bounds `ba`) lies inside the closed mesh `b` (bounds `bb`).
fn inside(a: &TriMesh, ba: &Aabb3, b: &TriMesh, bb: &Aabb3) -> bool {
    let within = (0..3).all(|k| ba.min[k] >= bb.min[k] && ba.max[k] <= bb.max[k]);
    let x = a.vertices();
    if !within || !b.is_closed() || x.is_empty() {
        return false;
    }
    let stride = x.len().div_ceil(CONTAINMENT_SAMPLES).max(1);
    x.iter()
        .step_by(stride)
        .all(|p| winding_number(p, b.vertices(), b.triangles()) > INSIDE)
}
