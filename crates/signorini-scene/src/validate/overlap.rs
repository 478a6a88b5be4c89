//! Bodies that overlap where they enter the world: an error unless the scene sets
//! `allow_initial_overlap = true` (a child module of `validate`, sharing its located-error
//! context).
//!
//! Checked for polygons (overlap area) and polyhedra (overlap volume), between the pairs whose
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

/// One overlapping pair: (overlap, first index, second index).
type Hit = (Real, usize, usize);

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
            hits.push((area, i, j));
            if hits.len() == MAX_HITS {
                break;
            }
        }
    }
    let names: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
    report(cx, hits, &names, origin, "m²", "area")
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
            hits.push((v, i, j));
            if hits.len() == MAX_HITS {
                break;
            }
        }
    }
    let names: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
    report(cx, hits, &names, origin, "m³", "volume")
}

fn report(
    cx: &Ctx,
    mut hits: Vec<Hit>,
    names: &[&str],
    origin: &[FieldPath],
    unit: &str,
    measure: &str,
) -> Res<()> {
    if hits.is_empty() {
        return Ok(());
    }
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let list: Vec<String> = hits
        .iter()
        .take(LISTED)
        .map(|&(x, i, j)| {
            format!(
                "`{}` and `{}` ({measure} {x:.3e} {unit})",
                names[i], names[j]
            )
        })
        .collect();
    let more = match hits.len().saturating_sub(LISTED) {
        0 => String::new(),
        n if hits.len() >= MAX_HITS => {
            format!(", and at least {n} more pair(s) (the check stops at {MAX_HITS})")
        }
        n => format!(", and {n} more pair(s)"),
    };
    let (_, i, j) = hits[0];
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
