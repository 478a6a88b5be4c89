//! Axis-aligned boxes in 3D and the sweep-and-prune broad phase.
//!
//! Owns: [`Aabb3`] and [`sweep_and_prune3`] (every overlapping pair, deterministic order).
//! Does not own: which pairs are skipped (static–static), which the caller decides.

use signorini_math::{Real, Vec3};

/// An axis-aligned box `[min, max]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb3 {
    /// Lower corner.
    pub min: Vec3,
    /// Upper corner.
    pub max: Vec3,
}

impl Aabb3 {
    /// The smallest box containing all `points` (an inverted empty box if there are none).
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Vec3>) -> Self {
        let mut b = Aabb3 {
            min: Vec3::repeat(Real::INFINITY),
            max: Vec3::repeat(Real::NEG_INFINITY),
        };
        for p in points {
            b.min = b.min.inf(p);
            b.max = b.max.sup(p);
        }
        b
    }

    /// The box grown by `margin` on every side.
    pub fn inflated(&self, margin: Real) -> Self {
        Aabb3 {
            min: self.min - Vec3::repeat(margin),
            max: self.max + Vec3::repeat(margin),
        }
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Aabb3) -> Self {
        Aabb3 {
            min: self.min.inf(&other.min),
            max: self.max.sup(&other.max),
        }
    }

    /// Closed-interval overlap test on all three axes.
    pub fn overlaps(&self, other: &Aabb3) -> bool {
        (0..3).all(|k| self.min[k] <= other.max[k] && other.min[k] <= self.max[k])
    }
}

/// All index pairs `(i, j)`, `i < j`, whose boxes overlap, sorted lexicographically.
/// Sweep along x (sort by `min.x`), test y and z only for x-overlapping candidates.
pub fn sweep_and_prune3(boxes: &[Aabb3]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].min.x.total_cmp(&boxes[b].min.x).then(a.cmp(&b)));
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].min.x > boxes[i].max.x {
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
