//! `[[body_set]] lattice`: the pile experiment's lattice in scene files (2D and 3D). A child
//! module of `validate`, sharing its located-error context.
//!
//! With a lattice, body k of the set starts at rest at site `first_site + k`
//! (`signorini_harness::pile::lattice_site2` / `lattice_site3`, the experiment's own
//! arithmetic) and every body enters at `start`; `interval`, `position`, `velocity` and
//! `angular_velocity` are refused (they would contradict the lattice).

use super::{Ctx, Drop, Res};
use crate::error::FieldPath;
use crate::limits;
use crate::raw::{RawBodySet, RawLattice};
use signorini_harness::pile::{lattice_site2, lattice_site3};
use signorini_math::{Real, Vec2, Vec3};

/// A validated lattice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Lattice {
    spacing: Real,
    columns: usize,
    first_site: usize,
}

impl Lattice {
    /// Site of the set's k-th body (3D).
    pub(super) fn site3(&self, k: usize) -> Vec3 {
        lattice_site3(self.first_site + k, self.columns, self.spacing)
    }

    /// Site of the set's k-th body (2D).
    pub(super) fn site2(&self, k: usize) -> Vec2 {
        lattice_site2(self.first_site + k, self.columns, self.spacing)
    }
}

/// The set's lattice, if any, after checking it and the fields it excludes.
pub(super) fn lattice(cx: &Ctx, p: &FieldPath, s: &RawBodySet) -> Res<Option<Lattice>> {
    let Some(RawLattice {
        spacing,
        columns,
        first_site,
    }) = &s.lattice
    else {
        return Ok(None);
    };
    let at = p.key("lattice");
    let spacing = cx.positive(&at.key("spacing"), *spacing, "m")?;
    if *columns == 0 {
        return Err(cx.bad(&at.key("columns"), "must be >= 1"));
    }
    cx.at_most(
        &at.key("columns"),
        *columns,
        limits::MAX_LATTICE_COLUMNS,
        "columns",
    )?;
    if let Some(f) = *first_site {
        cx.at_most(
            &at.key("first_site"),
            f,
            limits::MAX_LATTICE_SITE,
            "(first site)",
        )?;
    }
    let conflicts = [
        ("interval", s.interval.is_some()),
        ("position", s.position.is_some()),
        ("velocity", s.velocity.is_some()),
        ("angular_velocity", s.angular_velocity.is_some()),
    ];
    if let Some((field, _)) = conflicts.iter().find(|c| c.1) {
        return Err(cx.bad(
            &p.key(field),
            "not with `lattice`: lattice bodies start at rest on their sites, all at `start`",
        ));
    }
    Ok(Some(Lattice {
        spacing,
        columns: *columns,
        first_site: first_site.unwrap_or(0),
    }))
}

/// When a set's k-th body enters: all at `start` on a lattice, else one per interval.
pub(super) fn drop_of(lat: Option<&Lattice>, start: Real, interval: Real, k: usize) -> Drop {
    match lat {
        Some(_) => Drop::Time(start),
        None => Drop::Sequence { start, interval, k },
    }
}
