//! Axis-aligned boxes in any dimension and the sweep-and-prune broad phase, shared by 2D
//! ([`crate::dim2::Aabb`] = `AabbN<2>`) and 3D ([`crate::dim3::Aabb3`] = `AabbN<3>`).
//!
//! Owns: [`AabbN`] and [`sweep_and_prune`] (every overlapping pair, deterministic order).
//! Does not own: which pairs are skipped (static–static), which the caller decides.

use signorini_math::Real;
use signorini_math::nalgebra::SVector;

/// An axis-aligned box `[min, max]` in `D` dimensions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AabbN<const D: usize> {
    /// Lower corner.
    pub min: SVector<Real, D>,
    /// Upper corner.
    pub max: SVector<Real, D>,
}

impl<const D: usize> AabbN<D> {
    /// The empty box (inverted: contains nothing, overlaps nothing; grows with
    /// [`AabbN::add_point`] and [`AabbN::merge`]).
    pub fn empty() -> Self {
        AabbN {
            min: SVector::repeat(Real::INFINITY),
            max: SVector::repeat(Real::NEG_INFINITY),
        }
    }

    /// Grow to contain a point (in place).
    #[inline]
    pub fn add_point(&mut self, p: &SVector<Real, D>) {
        for k in 0..D {
            self.min[k] = self.min[k].min(p[k]);
            self.max[k] = self.max[k].max(p[k]);
        }
    }

    /// Grow to contain another box (in place; [`AabbN::union`] returns a new one).
    #[inline]
    pub fn merge(&mut self, o: &Self) {
        for k in 0..D {
            self.min[k] = self.min[k].min(o.min[k]);
            self.max[k] = self.max[k].max(o.max[k]);
        }
    }

    /// The smallest box containing all `points` (an inverted empty box if there are none).
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a SVector<Real, D>>) -> Self {
        let mut b = AabbN::<D> {
            min: SVector::repeat(Real::INFINITY),
            max: SVector::repeat(Real::NEG_INFINITY),
        };
        for p in points {
            b.min = b.min.inf(p);
            b.max = b.max.sup(p);
        }
        b
    }

    /// The box grown by `margin` on every side.
    pub fn inflated(&self, margin: Real) -> Self {
        AabbN {
            min: self.min - SVector::repeat(margin),
            max: self.max + SVector::repeat(margin),
        }
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Self) -> Self {
        AabbN {
            min: self.min.inf(&other.min),
            max: self.max.sup(&other.max),
        }
    }

    /// Closed-interval overlap test on every axis.
    pub fn overlaps(&self, other: &Self) -> bool {
        (0..D).all(|k| self.min[k] <= other.max[k] && other.min[k] <= self.max[k])
    }
}

/// All index pairs `(i, j)`, `i < j`, whose boxes overlap, sorted lexicographically.
/// Sweep along the first axis (sort by `min[0]`), test the others only for candidates that
/// overlap on it.
pub fn sweep_and_prune<const D: usize>(boxes: &[AabbN<D>]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].min[0].total_cmp(&boxes[b].min[0]).then(a.cmp(&b)));
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].min[0] > boxes[i].max[0] {
                break;
            }
            if boxes[i].overlaps(&boxes[j]) {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}
