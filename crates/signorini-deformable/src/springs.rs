//! Springs of a mass-spring mesh.
//!
//! Owns: [`Spring`], [`SpringKind`] and their construction from a triangle mesh: one **stretch**
//! spring per edge, one **bending** spring per interior edge joining the two vertices opposite
//! it (the classic cross-edge bending spring of Provot 1995 / Choi & Ko 2002). On a triangulated
//! grid the bending spring across a quad's diagonal is that quad's other diagonal, i.e. the
//! **shear** spring; it is labelled `Shear` there (the two triangles share a diagonal edge whose
//! opposite vertices are one cell apart in both directions), and `Bend` otherwise.
//!
//! Energy of a spring between `xᵢ`, `xⱼ` with rest length `L` and stiffness `k` (N/m):
//! `E = ½ k (|xᵢ − xⱼ| − L)²`; force on `i`: `fᵢ = −k (|d| − L) d̂`, `d = xᵢ − xⱼ`, `fⱼ = −fᵢ`.
//! Damping (N s/m) along the spring: `fᵢ = −c ((vᵢ − vⱼ)·d̂) d̂`.

use signorini_math::{Real, Vec3};
use std::collections::BTreeMap;

/// What a spring resists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SpringKind {
    /// Along a mesh edge.
    Stretch,
    /// Across a quad diagonal of a grid (in-plane shear).
    Shear,
    /// Across an interior edge (out-of-plane bending).
    Bend,
}

/// One spring between two vertices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    /// The two vertices.
    pub ends: [u32; 2],
    /// Rest length (m).
    pub rest: Real,
    /// Kind (selects the stiffness).
    pub kind: SpringKind,
}

/// Stretch springs on every edge and a bending (or shear) spring across every interior edge, at
/// their lengths in `x` (the rest configuration). Sorted, so the order is deterministic.
pub fn from_mesh(x: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Spring> {
    // Edge → opposite vertices of its (at most two, in a valid mesh) triangles.
    let mut opposite: BTreeMap<[u32; 2], Vec<u32>> = BTreeMap::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            opposite.entry([a.min(b), a.max(b)]).or_default().push(c);
        }
    }
    let len = |a: u32, b: u32| (x[a as usize] - x[b as usize]).norm();
    let mut out = Vec::new();
    for (e, opp) in &opposite {
        out.push(Spring {
            ends: *e,
            rest: len(e[0], e[1]),
            kind: SpringKind::Stretch,
        });
        if let [c, d] = opp[..] {
            let ends = [c.min(d), c.max(d)];
            let rest = len(c, d);
            // The spring across a grid diagonal is shear: its length equals the diagonal's.
            let kind = if (rest - len(e[0], e[1])).abs() <= 1e-9 * rest {
                SpringKind::Shear
            } else {
                SpringKind::Bend
            };
            out.push(Spring { ends, rest, kind });
        }
    }
    out.sort_by_key(|a| (a.ends, a.kind));
    out
}

/// Energy `½ k (|d| − L)²` of one spring.
#[inline]
pub fn energy(s: &Spring, k: Real, x: &[Vec3]) -> Real {
    let d = x[s.ends[0] as usize] - x[s.ends[1] as usize];
    let stretch = d.norm() - s.rest;
    0.5 * k * stretch * stretch
}

/// Elastic plus damping force on the first end (the second gets the opposite).
#[inline]
pub fn force(s: &Spring, k: Real, c: Real, x: &[Vec3], v: &[Vec3]) -> Vec3 {
    let [i, j] = s.ends.map(|e| e as usize);
    let d = x[i] - x[j];
    let l = d.norm();
    if l == 0.0 {
        return Vec3::zeros();
    }
    let n = d / l;
    -(k * (l - s.rest) + c * (v[i] - v[j]).dot(&n)) * n
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_geometry::mesh::shapes::grid;

    #[test]
    fn grid_springs_have_the_expected_counts() {
        // 2×1 cells: 6 vertices, 4 triangles, 9 edges, 3 interior edges (2 diagonals + 1 seam).
        let m = grid(2.0, 1.0, 2, 1).unwrap();
        let s = from_mesh(m.vertices(), m.triangles());
        let count = |k| s.iter().filter(|s| s.kind == k).count();
        assert_eq!(count(SpringKind::Stretch), 9);
        assert_eq!(count(SpringKind::Shear), 2);
        assert_eq!(count(SpringKind::Bend), 1);
        assert!(s.iter().all(|s| s.rest > 0.0));
    }
}
