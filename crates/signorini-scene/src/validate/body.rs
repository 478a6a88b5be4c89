//! The rules every rigid `[[body]]` follows in 2D and 3D alike: its name, material and report
//! colour ([`header`]), when it and its copies enter ([`drops`], [`named`]), what a static body
//! must not have ([`static_has_none`]) and how a dynamic body's mass is given ([`mass`]).
//! `planar` and `spatial` add only what their dimension differs in.

use super::{Ctx, Drop, Res};
use crate::error::FieldPath;
use crate::limits;
use crate::raw::{RawBody, RawMaterial};
use signorini_math::Real;
use std::collections::BTreeMap;

/// What every `[[body]]` reads first: its name (default `body<k>`), its material and its
/// report colour (the body's, else the material's).
pub(super) fn header<'m>(
    cx: &Ctx,
    p: &FieldPath,
    k: usize,
    b: &RawBody,
    materials: &'m BTreeMap<String, RawMaterial>,
) -> Res<(String, Option<&'m RawMaterial>, Option<String>)> {
    let name = b.name.clone().unwrap_or_else(|| format!("body{k}"));
    let material = material(cx, p, b, materials)?;
    let color = b
        .color
        .clone()
        .or_else(|| material.and_then(|m| m.color.clone()));
    Ok((name, material, color))
}

fn material<'m>(
    cx: &Ctx,
    p: &FieldPath,
    b: &RawBody,
    materials: &'m BTreeMap<String, RawMaterial>,
) -> Res<Option<&'m RawMaterial>> {
    match &b.material {
        None => Ok(None),
        Some(m) => materials.get(m).map(Some).ok_or_else(|| {
            let known: Vec<&str> = materials.keys().map(String::as_str).collect();
            cx.bad(
                &p.key("material"),
                if known.is_empty() {
                    format!(
                        "unknown material `{m}` (the scene defines no [materials.<name>] table)"
                    )
                } else {
                    format!("unknown material `{m}` (defined: {})", known.join(", "))
                },
            )
        }),
    }
}

/// A static body never moves: no mass, inertia, density, velocity or force.
pub(super) fn static_has_none(cx: &Ctx, p: &FieldPath, b: &RawBody) -> Res<()> {
    for (field, given) in [
        ("mass", b.mass.is_some()),
        ("inertia", b.inertia.is_some()),
        ("density", b.density.is_some()),
        ("velocity", b.velocity.is_some()),
        ("angular_velocity", b.angular_velocity.is_some()),
        ("external_force", b.external_force.is_some()),
    ] {
        if given {
            return Err(cx.bad(&p.key(field), "a static body has none (it never moves)"));
        }
    }
    Ok(())
}

/// The name of part or copy `i` of `n` (`name.i`; the name alone when there is one).
pub(super) fn named(name: &str, n: usize, i: usize) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name}.{i}")
    }
}

/// One item per part (of a static body) or per copy (of a dynamic one), named by [`named`].
pub(super) fn each<S, T>(name: &str, items: Vec<S>, mut f: impl FnMut(String, S) -> T) -> Vec<T> {
    let n = items.len();
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| f(named(name, n, i), item))
        .collect()
}

/// The shapes of a `[[body]]`, split by what the body may be.
pub(super) enum Parts<S> {
    /// A static body: every part (a compound gives several).
    Static(Vec<S>),
    /// A dynamic body: its one convex shape.
    Dynamic(S),
}

/// A static body's parts (checked with [`static_has_none`], and added once), or a dynamic
/// body's one part (a compound must be static; `one` names the shape it must be).
pub(super) fn parts<S>(
    cx: &Ctx,
    p: &FieldPath,
    b: &RawBody,
    drops: &[Drop],
    parts: Vec<S>,
    one: &str,
) -> Res<Parts<S>> {
    if b.is_static.unwrap_or(false) {
        static_has_none(cx, p, b)?;
        if drops.len() > 1 {
            return Err(cx.bad(&p.key("copies"), "a static body is added once"));
        }
        return Ok(Parts::Static(parts));
    }
    let mut parts = parts.into_iter();
    match (parts.next(), parts.next()) {
        (Some(shape), None) => Ok(Parts::Dynamic(shape)),
        _ => Err(cx.bad(
            &p.key("shape"),
            format!("a compound must be static (dynamic bodies are one {one})"),
        )),
    }
}

/// When a body (and each of its `copies`) enters the world.
pub(super) fn drops(cx: &Ctx, p: &FieldPath, b: &RawBody) -> Res<Vec<Drop>> {
    let t = b
        .drop_time
        .map(|t| cx.non_negative(&p.key("drop_time"), t))
        .transpose()?;
    match (b.copies, b.interval) {
        (Some(0), _) => Err(cx.bad(&p.key("copies"), "must be >= 1")),
        (Some(n), _) if n > limits::MAX_BODIES => Err(cx.bad(
            &p.key("copies"),
            format!("{n} is {}", limits::above(limits::MAX_BODIES, "bodies")),
        )),
        (None | Some(1), None) => Ok(vec![t.map_or(Drop::Start, Drop::Time)]),
        (None | Some(1), Some(_)) => Err(cx.bad(&p.key("interval"), "only with `copies` > 1")),
        (Some(_), None) => Err(cx.bad(&p.key("copies"), "needs `interval` (s between copies)")),
        (Some(n), Some(i)) => {
            let interval = cx.positive(&p.key("interval"), i, "s")?;
            let start = t.unwrap_or(0.0);
            Ok((0..n)
                .map(|k| Drop::Sequence { start, interval, k })
                .collect())
        }
    }
}

/// How a dynamic body's mass is given.
pub(super) enum Mass<J> {
    /// `mass` and `inertia` as given (kg; the shape is kept as given).
    Given(Real, J),
    /// A uniform density (its `density`, its material's, or `mass` over the shape's area or
    /// volume; the shape is then re-centred on its centroid), with the field it came from.
    Density(Real, FieldPath),
}

/// The mass rules of a dynamic body: `mass` + `inertia` (already read), or a density (the
/// body's, else its material's) or `mass` alone; `measure` is the shape's area (2D) or volume
/// (3D), `unit` the density's.
pub(super) fn mass<J>(
    cx: &Ctx,
    p: &FieldPath,
    b: &RawBody,
    material: Option<&RawMaterial>,
    inertia: Option<J>,
    measure: Real,
    unit: &str,
) -> Res<Mass<J>> {
    let density = b.density.or_else(|| material.and_then(|m| m.density));
    match (b.mass, inertia, density) {
        (Some(_), _, Some(_)) if b.density.is_some() => Err(cx.bad(
            &p.key("density"),
            "give `mass` (and `inertia`) or `density`, not both",
        )),
        (Some(m), Some(j), _) => Ok(Mass::Given(cx.positive(&p.key("mass"), m, "kg")?, j)),
        (None, Some(_), _) => Err(cx.bad(&p.key("inertia"), "needs `mass` too")),
        (Some(m), None, _) => {
            let m = cx.positive(&p.key("mass"), m, "kg")?;
            Ok(Mass::Density(m / measure, p.key("mass")))
        }
        (None, None, Some(d)) => {
            let at = if b.density.is_some() {
                p.key("density")
            } else {
                p.key("material")
            };
            let d = cx.positive(&at, d, unit)?;
            Ok(Mass::Density(d, at))
        }
        (None, None, None) => Err(cx.bad(
            p,
            "a dynamic body needs `mass` (and optionally `inertia`) or `density` (here or in its material)",
        )),
    }
}
