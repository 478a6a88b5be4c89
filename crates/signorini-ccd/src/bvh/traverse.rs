//! Simultaneous traversal of two BVHs (or of one BVH against itself) for all overlapping
//! primitive boxes.
//!
//! Owns: the node-pair descent used by `self_pairs` and `mesh_pairs`, its rayon split and the
//! sorted, deduplicated-by-construction output. Each pair of overlapping primitive boxes is met
//! exactly once: for two trees, a node pair is split by descending the node with the larger box;
//! for one tree against itself, a node pairs with itself (children `(L, L)`, `(R, R)`, `(L, R)`)
//! or with a disjoint node, so every unordered primitive pair lies under exactly one visited node
//! pair. Compared with querying every primitive box from the root, the upper levels are shared
//! and the self case tests each unordered pair once instead of twice. Does not own: tree building
//! and refitting (`mod.rs`).

use super::{Aabb, Bvh};
use rayon::prelude::*;

/// Work items for the parallel phase: the node-pair frontier is expanded until it has at least
/// this many items (or cannot be expanded further).
const MIN_TASKS: usize = 64;

/// A pair of nodes `(a of x, b of y)`; with `same` (x and y are the same tree) `a == b` means
/// "the subtree against itself".
type Task = (u32, u32);

/// Sum of the box extents (a cheap size measure for choosing which node to split).
fn size(b: &Aabb) -> f64 {
    (b.max[0] - b.min[0]) + (b.max[1] - b.min[1]) + (b.max[2] - b.min[2])
}

/// One descent step of the node pair `(a, b)`: `None` if nothing below can overlap, `Some(0)`
/// if both are leaves (test primitives), otherwise the children pairs written to `out`.
fn expand(x: &Bvh, y: &Bvh, same: bool, (a, b): Task, out: &mut [Task; 3]) -> Option<usize> {
    let (na, nb) = (&x.nodes[a as usize], &y.nodes[b as usize]);
    if same && a == b {
        if na.count > 0 {
            return Some(0);
        }
        *out = [
            (na.left, na.left),
            (na.right, na.right),
            (na.left, na.right),
        ];
        return Some(3);
    }
    if !na.aabb.overlaps(&nb.aabb) {
        return None;
    }
    let (a_leaf, b_leaf) = (na.count > 0, nb.count > 0);
    if a_leaf && b_leaf {
        return Some(0);
    }
    if a_leaf || (!b_leaf && size(&nb.aabb) > size(&na.aabb)) {
        out[0] = (a, nb.left);
        out[1] = (a, nb.right);
    } else {
        out[0] = (na.left, b);
        out[1] = (na.right, b);
    }
    Some(2)
}

/// Test the primitives of the leaf pair `(a, b)` and report overlapping boxes to `f` (for the
/// same tree, unordered pairs `(min, max)` of distinct primitives).
fn leaf_pairs(x: &Bvh, y: &Bvh, same: bool, (a, b): Task, f: &mut impl FnMut(u32, u32)) {
    let (na, nb) = (&x.nodes[a as usize], &y.nodes[b as usize]);
    let pa = &x.order[na.start as usize..(na.start + na.count) as usize];
    let pb = &y.order[nb.start as usize..(nb.start + nb.count) as usize];
    if same && a == b {
        for (k, &p) in pa.iter().enumerate() {
            for &q in &pa[k + 1..] {
                if x.boxes[p as usize].overlaps(&x.boxes[q as usize]) {
                    f(p.min(q), p.max(q));
                }
            }
        }
        return;
    }
    for &p in pa {
        let bp = &x.boxes[p as usize];
        for &q in pb {
            if bp.overlaps(&y.boxes[q as usize]) {
                if same {
                    f(p.min(q), p.max(q));
                } else {
                    f(p, q);
                }
            }
        }
    }
}

/// All primitive pairs below the node pair `t`, depth first with an explicit stack.
fn run_task(x: &Bvh, y: &Bvh, same: bool, t: Task, f: &mut impl FnMut(u32, u32)) {
    let mut stack = vec![t];
    let mut kids = [(0, 0); 3];
    while let Some(t) = stack.pop() {
        match expand(x, y, same, t, &mut kids) {
            None => {}
            Some(0) => leaf_pairs(x, y, same, t, f),
            Some(n) => stack.extend_from_slice(&kids[..n]),
        }
    }
}

/// The root task list, expanded breadth first until there are at least [`MIN_TASKS`] items.
fn frontier(x: &Bvh, y: &Bvh, same: bool) -> Vec<Task> {
    let mut tasks = vec![(0u32, 0u32)];
    let mut kids = [(0, 0); 3];
    loop {
        if tasks.len() >= MIN_TASKS {
            return tasks;
        }
        let mut next = Vec::with_capacity(3 * tasks.len());
        let mut grew = false;
        for &t in &tasks {
            match expand(x, y, same, t, &mut kids) {
                None => {}
                Some(0) => next.push(t),
                Some(n) => {
                    next.extend_from_slice(&kids[..n]);
                    grew = true;
                }
            }
        }
        tasks = next;
        if !grew {
            return tasks;
        }
    }
}

/// Every pair `(p, q)` of primitives of `x` and `y` whose boxes overlap and that `keep`
/// accepts, sorted; with `same` (`y` is `x`), unordered pairs `p < q`. Parallel over the node
/// pairs of the frontier; the result does not depend on the thread count.
pub(super) fn overlapping_pairs(
    x: &Bvh,
    y: &Bvh,
    same: bool,
    keep: impl Fn(u32, u32) -> bool + Sync,
) -> Vec<(u32, u32)> {
    if x.nodes.is_empty() || y.nodes.is_empty() {
        return Vec::new();
    }
    let tasks = frontier(x, y, same);
    let out: Vec<(u32, u32)> = tasks
        .par_iter()
        .flat_map_iter(|&t| {
            let mut hits = Vec::new();
            run_task(x, y, same, t, &mut |p, q| {
                if keep(p, q) {
                    hits.push((p, q));
                }
            });
            hits
        })
        .collect();
    sort_pairs(out, x.order.len())
}

/// Sort pairs by `(first, second)`: a counting sort on `first` (`n` possible values, O(pairs))
/// and an insertion sort of each (short) run of equal `first`.
fn sort_pairs(pairs: Vec<(u32, u32)>, n: usize) -> Vec<(u32, u32)> {
    let mut start = vec![0u32; n + 1];
    for &(p, _) in &pairs {
        start[p as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut out = vec![(0u32, 0u32); pairs.len()];
    let mut next = start.clone();
    for &(p, q) in &pairs {
        out[next[p as usize] as usize] = (p, q);
        next[p as usize] += 1;
    }
    for w in start.windows(2) {
        out[w[0] as usize..w[1] as usize].sort_unstable();
    }
    out
}
