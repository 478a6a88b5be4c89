//! Axis-aligned bounding boxes and the sweep-and-prune broad phase.
//!
//! Owns: [`Aabb`] and [`sweep_and_prune`], which returns every overlapping pair in a
//! deterministic order. Does not own: which pairs are skipped (static–static), which the
//! caller decides.

use signorini_math::{Real, Vec2};

/// An axis-aligned box `[min, max]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: Vec2,
    /// Upper corner.
    pub max: Vec2,
}

impl Aabb {
    /// The smallest box containing all `points` (an inverted empty box if there are none).
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Vec2>) -> Self {
        let mut b = Aabb {
            min: Vec2::repeat(Real::INFINITY),
            max: Vec2::repeat(Real::NEG_INFINITY),
        };
        for p in points {
            b.min = b.min.inf(p);
            b.max = b.max.sup(p);
        }
        b
    }

    /// The box grown by `margin` on every side.
    pub fn inflated(&self, margin: Real) -> Self {
        Aabb {
            min: self.min - Vec2::repeat(margin),
            max: self.max + Vec2::repeat(margin),
        }
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Aabb) -> Self {
        Aabb {
            min: self.min.inf(&other.min),
            max: self.max.sup(&other.max),
        }
    }

    /// Closed-interval overlap test on both axes.
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }
}

/// All index pairs `(i, j)`, `i < j`, whose boxes overlap, sorted lexicographically.
/// Sweep along x (sort by `min.x`), test y only for x-overlapping candidates.
pub fn sweep_and_prune(boxes: &[Aabb]) -> Vec<(usize, usize)> {
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
