//! Procedural triangle meshes: box, UV sphere, rounded box, pole-free cube sphere and rounded
//! cube, torus, capped cylinder, thin stick, cloth grid, open bucket and bowl, octopus.
//!
//! Every closed shape is centred at the origin with outward counter-clockwise triangles, so
//! [`TriMesh::new`] accepts it and its centre of mass is the origin (except the octopus, whose
//! mantle is centred there). The open shapes (grid, bucket, bowl) say where they sit and which
//! way their normals point. Resolutions are clamped to the smallest valid values.

use super::{MeshError, TriMesh};
use signorini_math::{Real, Vec3};
use std::f64::consts::TAU;

/// Box with half extents `h` (8 vertices, 12 triangles).
///
/// # Errors
/// [`MeshError::Degenerate`] if an extent is zero.
pub fn cuboid(h: Vec3) -> Result<TriMesh, MeshError> {
    let v: Vec<Vec3> = (0..8)
        .map(|i| {
            let s = |bit: u32| if i >> bit & 1 == 1 { 1.0 } else { -1.0 };
            Vec3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)
        })
        .collect();
    // Faces as quads (corner bits x=1, y=2, z=4), counter-clockwise seen from outside.
    let quads = [
        [0, 2, 3, 1], // z−
        [4, 5, 7, 6], // z+
        [0, 1, 5, 4], // y−
        [2, 6, 7, 3], // y+
        [0, 4, 6, 2], // x−
        [1, 3, 7, 5], // x+
    ];
    let tris = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh::new(v, tris)
}

/// UV sphere of radius `r` with `slices ≥ 3` meridians and `stacks ≥ 2` parallels (poles on z).
///
/// # Errors
/// [`MeshError`] if `r` is zero or not finite.
pub fn sphere(r: Real, slices: usize, stacks: usize) -> Result<TriMesh, MeshError> {
    let (ns, nt) = (slices.max(3), stacks.max(2));
    let mut v = vec![Vec3::new(0.0, 0.0, -r)];
    for j in 1..nt {
        let phi = std::f64::consts::PI * (j as Real / nt as Real) - std::f64::consts::FRAC_PI_2;
        for i in 0..ns {
            let th = TAU * i as Real / ns as Real;
            v.push(r * Vec3::new(phi.cos() * th.cos(), phi.cos() * th.sin(), phi.sin()));
        }
    }
    v.push(Vec3::new(0.0, 0.0, r));
    let top = (v.len() - 1) as u32;
    let ring = |j: usize, i: usize| (1 + (j - 1) * ns + i % ns) as u32;
    let mut t = Vec::new();
    for i in 0..ns {
        t.push([0, ring(1, i + 1), ring(1, i)]);
        t.push([top, ring(nt - 1, i), ring(nt - 1, i + 1)]);
    }
    for j in 1..nt - 1 {
        for i in 0..ns {
            let (a, b) = (ring(j, i), ring(j, i + 1));
            let (c, d) = (ring(j + 1, i), ring(j + 1, i + 1));
            t.push([a, b, d]);
            t.push([a, d, c]);
        }
    }
    TriMesh::new(v, t)
}

/// A rounded box: the UV sphere of radius `r` ([`sphere`]) with every vertex pushed along its
/// ray onto the superellipsoid `x⁴ + y⁴ + z⁴ = (0.9 r)⁴`: nearly flat faces 0.9 r from the
/// centre, rounded edges and corners (the bucket experiment's third body shape).
///
/// # Errors
/// [`MeshError`] if `r` is zero or not finite.
pub fn rounded_box(r: Real, slices: usize, stacks: usize) -> Result<TriMesh, MeshError> {
    onto_superellipsoid(&sphere(r, slices, stacks)?, 0.9 * r)
}

/// Every vertex of `m` pushed along its ray from the origin onto `x⁴ + y⁴ + z⁴ = a⁴`.
fn onto_superellipsoid(m: &TriMesh, a: Real) -> Result<TriMesh, MeshError> {
    m.map(|v| {
        let q = v.map(|c| c.powi(4)).sum().powf(0.25);
        v * (a / q)
    })
}

/// A pole-free sphere of radius `r`: the six faces of a cube, each an `n × n` grid
/// (`n ≥ 1`), projected onto the sphere (`6 n² + 2` vertices, `12 n²` triangles, every vertex
/// of valence 4–6).
///
/// The face grids are spaced by the tangent of the angle, so the cells are nearly equal in
/// size. Unlike a fine [`sphere`], whose pole fans put `slices` thin triangles within a few
/// millimetres of one vertex, all its features are about `π r / (2 n)` apart — what a contact
/// thickness of a few millimetres needs on a shell of finite resolution.
///
/// # Errors
/// [`MeshError`] if `r` is zero or not finite.
pub fn cube_sphere(r: Real, n: usize) -> Result<TriMesh, MeshError> {
    let n = n.max(1);
    // Lattice points (i, j, k) ∈ {0, …, n}³ on the cube's surface, one vertex each.
    let mut index = std::collections::BTreeMap::new();
    let mut v = Vec::new();
    let warp = |c: usize| (std::f64::consts::FRAC_PI_4 * (2.0 * c as Real / n as Real - 1.0)).tan();
    let mut id = |p: [usize; 3]| -> u32 {
        *index.entry(p).or_insert_with(|| {
            let d = Vec3::new(warp(p[0]), warp(p[1]), warp(p[2]));
            v.push(r * d / d.norm());
            (v.len() - 1) as u32
        })
    };
    let mut t = Vec::with_capacity(12 * n * n);
    for axis in 0..3 {
        for side in [0, n] {
            let (a, b) = ((axis + 1) % 3, (axis + 2) % 3);
            for i in 0..n {
                for j in 0..n {
                    let at = |di: usize, dj: usize| {
                        let mut p = [0; 3];
                        (p[axis], p[a], p[b]) = (side, i + di, j + dj);
                        p
                    };
                    let q = [at(0, 0), at(1, 0), at(1, 1), at(0, 1)].map(&mut id);
                    // (a, b, axis) is right-handed: counter-clockwise seen from +axis.
                    if side == n {
                        t.extend([[q[0], q[1], q[2]], [q[0], q[2], q[3]]]);
                    } else {
                        t.extend([[q[0], q[2], q[1]], [q[0], q[3], q[2]]]);
                    }
                }
            }
        }
    }
    TriMesh::new(v, t)
}

/// A pole-free rounded box: [`cube_sphere`] pushed onto the superellipsoid of [`rounded_box`].
///
/// # Errors
/// [`MeshError`] if `r` is zero or not finite.
pub fn rounded_cube(r: Real, n: usize) -> Result<TriMesh, MeshError> {
    onto_superellipsoid(&cube_sphere(r, n)?, 0.9 * r)
}

/// Torus around the z axis: centre-line radius `big`, tube radius `small < big`.
///
/// # Errors
/// [`MeshError`] for degenerate radii.
pub fn torus(big: Real, small: Real, around: usize, tube: usize) -> Result<TriMesh, MeshError> {
    let (nu, nv) = (around.max(3), tube.max(3));
    let mut v = Vec::with_capacity(nu * nv);
    for i in 0..nu {
        let u = TAU * i as Real / nu as Real;
        for j in 0..nv {
            let w = TAU * j as Real / nv as Real;
            let rr = big + small * w.cos();
            v.push(Vec3::new(rr * u.cos(), rr * u.sin(), small * w.sin()));
        }
    }
    let id = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
    let mut t = Vec::new();
    for i in 0..nu {
        for j in 0..nv {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            t.push([a, b, c]);
            t.push([a, c, d]);
        }
    }
    TriMesh::new(v, t)
}

/// Capped cylinder along z: radius `r`, total length `len`, `segments ≥ 3` around.
///
/// # Errors
/// [`MeshError`] for degenerate dimensions.
pub fn cylinder(r: Real, len: Real, segments: usize) -> Result<TriMesh, MeshError> {
    let n = segments.max(3);
    let h = 0.5 * len;
    let mut v = vec![Vec3::new(0.0, 0.0, -h), Vec3::new(0.0, 0.0, h)];
    for i in 0..n {
        let th = TAU * i as Real / n as Real;
        let (x, y) = (r * th.cos(), r * th.sin());
        v.push(Vec3::new(x, y, -h));
        v.push(Vec3::new(x, y, h));
    }
    let lo = |i: usize| (2 + 2 * (i % n)) as u32;
    let hi = |i: usize| (3 + 2 * (i % n)) as u32;
    let mut t = Vec::new();
    for i in 0..n {
        t.push([0, lo(i + 1), lo(i)]);
        t.push([1, hi(i), hi(i + 1)]);
        t.push([lo(i), lo(i + 1), hi(i + 1)]);
        t.push([lo(i), hi(i + 1), hi(i)]);
    }
    TriMesh::new(v, t)
}

/// A thin stick: a square-section cuboid of length `len` along x and thickness `thick`
/// (the Stick benchmark of CPF Fig. 9).
///
/// # Errors
/// [`MeshError`] for degenerate dimensions.
pub fn stick(len: Real, thick: Real) -> Result<TriMesh, MeshError> {
    cuboid(Vec3::new(0.5 * len, 0.5 * thick, 0.5 * thick))
}

/// An open `nx × ny`-cell grid in the plane z = 0, size `sx × sy`, centred, normals +z (cloth).
///
/// # Errors
/// [`MeshError`] for zero sizes.
pub fn grid(sx: Real, sy: Real, nx: usize, ny: usize) -> Result<TriMesh, MeshError> {
    let (nx, ny) = (nx.max(1), ny.max(1));
    let mut v = Vec::with_capacity((nx + 1) * (ny + 1));
    for j in 0..=ny {
        for i in 0..=nx {
            v.push(Vec3::new(
                sx * (i as Real / nx as Real - 0.5),
                sy * (j as Real / ny as Real - 0.5),
                0.0,
            ));
        }
    }
    let id = |i: usize, j: usize| (j * (nx + 1) + i) as u32;
    let mut t = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    TriMesh::new(v, t)
}

/// An open bucket (CPF Fig. 14): a single-sheet cylinder wall of radius `r` and height
/// `height` on a flat disc bottom, open at the top; axis z, bottom at z = 0. The bottom is a
/// centre fan plus `rings − 1` concentric bands, the wall `stacks` bands, each `segments` around,
/// so all triangles have similar sizes. Normals point into the bucket (bottom +z, wall towards
/// the axis). `segments + 2 segments (rings − 1) + 2 segments stacks` triangles; its only
/// boundary is the rim.
///
/// # Errors
/// [`MeshError`] for zero or non-finite dimensions.
pub fn bucket(
    r: Real,
    height: Real,
    segments: usize,
    rings: usize,
    stacks: usize,
) -> Result<TriMesh, MeshError> {
    let (n, nr, ns) = (segments.max(3), rings.max(1), stacks.max(1));
    // Level L = 1 … nr + ns: radius r·min(L, nr)/nr, height h·max(L − nr, 0)/ns.
    let profile = (1..=nr + ns).map(|level| {
        let rho = r * level.min(nr) as Real / nr as Real;
        let z = height * level.saturating_sub(nr) as Real / ns as Real;
        (rho, z)
    });
    open_revolution(profile, n)
}

/// An open hemispherical bowl (CPF Fig. 10): the lower half of the sphere of radius `r`
/// centred at `(0, 0, r)`, bottom pole at the origin, open rim (radius `r`) at z = `r`. A
/// centre fan plus `rings − 1` bands of equal polar angle, each `segments` around. Normals
/// point into the bowl (towards the sphere's centre). `segments (2 rings − 1)` triangles; its
/// only boundary is the rim. Single-sheet and open like the paper's rigid bowl.
///
/// # Errors
/// [`MeshError`] for a zero or non-finite radius.
pub fn bowl(r: Real, segments: usize, rings: usize) -> Result<TriMesh, MeshError> {
    let (n, nr) = (segments.max(3), rings.max(1));
    let profile = (1..=nr).map(|level| {
        let a = std::f64::consts::FRAC_PI_2 * level as Real / nr as Real;
        (r * a.sin(), r - r * a.cos())
    });
    open_revolution(profile, n)
}

/// A single-sheet surface of revolution about z, open at its last level: a vertex at the
/// origin, then one ring of `n` vertices per `(radius, height)` of `levels`; a centre fan and
/// one band of `2 n` triangles between consecutive rings, normals towards the axis (+z at the
/// bottom). The triangulation of [`bucket`] and [`bowl`].
fn open_revolution(
    levels: impl Iterator<Item = (Real, Real)>,
    n: usize,
) -> Result<TriMesh, MeshError> {
    let mut v = vec![Vec3::zeros()];
    let mut count = 0;
    for (rho, z) in levels {
        for i in 0..n {
            let th = TAU * i as Real / n as Real;
            v.push(Vec3::new(rho * th.cos(), rho * th.sin(), z));
        }
        count += 1;
    }
    let id = |level: usize, i: usize| (1 + (level - 1) * n + i % n) as u32;
    let mut t: Vec<[u32; 3]> = (0..n).map(|i| [0, id(1, i), id(1, i + 1)]).collect();
    for level in 1..count {
        for i in 0..n {
            let (a, b) = (id(level, i), id(level, i + 1));
            let (c, d) = (id(level + 1, i + 1), id(level + 1, i));
            t.push([a, c, b]);
            t.push([a, d, c]);
        }
    }
    TriMesh::new(v, t)
}

/// Arms of an [`octopus`].
pub const OCTOPUS_ARMS: usize = 8;

/// A procedural octopus (CPF Fig. 10): one closed, consistently oriented shell of genus 0, a
/// mantle with [`OCTOPUS_ARMS`] tapered arms grown out of it.
///
/// - **Mantle**: a UV ellipsoid centred at the origin, semi-axes `r`, `r`, `1.25 r` (poles on
///   z), `16 k` meridians and `8 k` parallels (`k ≥ 1`).
/// - **Arms**: on the parallels from −45° to −22.5° latitude, eight `k × k`-quad patches
///   (one every `2 k` meridians) are removed; from each patch's boundary loop (`4 k`
///   vertices) a tube of `arm_rings ≥ 1` rings of `4 k` vertices runs `arm_length` along a
///   centre line that leaves along the patch's outward normal and droops (a parabola falling
///   `0.3 arm_length` below the straight line at its end), its radius tapering linearly from
///   the patch's to 0.4 of it, closed by a tip vertex. Each ring is perpendicular to the
///   centre line; the arms spread apart, so nothing intersects at rest.
///
/// `2·16k(8k − 1) − 16k² + 8(8k·arm_rings + 4k)` triangles (k = 2, 16 rings: 3008; k = 3,
/// 65 rings: 14 640, the paper's 14.7k).
///
/// # Errors
/// [`MeshError`] for a zero or non-finite `r` or `arm_length`.
pub fn octopus(
    r: Real,
    arm_length: Real,
    k: usize,
    arm_rings: usize,
) -> Result<TriMesh, MeshError> {
    const ELONGATION: Real = 1.25;
    const TIP: Real = 0.4;
    const DROOP: Real = 0.3;
    let (k, nl) = (k.max(1), arm_rings.max(1));
    let (ns, nt) = (2 * OCTOPUS_ARMS * k, OCTOPUS_ARMS * k);
    let j0 = 2 * k;
    // Quad (j, i) of the mantle lies in an arm's patch; vertex (j, i) inside one.
    let in_patch = |j: usize, i: usize| (j0..j0 + k).contains(&j) && (i % ns) % (2 * k) < k;
    let interior = |j: usize, i: usize| {
        let m = (i % ns) % (2 * k);
        j > j0 && j < j0 + k && m > 0 && m < k
    };
    let angles = |j: Real, i: Real| {
        let phi = std::f64::consts::PI * (j / nt as Real) - std::f64::consts::FRAC_PI_2;
        (phi, TAU * i / ns as Real)
    };
    let mut v = vec![Vec3::new(0.0, 0.0, -ELONGATION * r)];
    let mut idx = vec![u32::MAX; (nt - 1) * ns];
    for j in 1..nt {
        for i in 0..ns {
            if !interior(j, i) {
                let (phi, th) = angles(j as Real, i as Real);
                idx[(j - 1) * ns + i] = v.len() as u32;
                v.push(Vec3::new(
                    r * phi.cos() * th.cos(),
                    r * phi.cos() * th.sin(),
                    ELONGATION * r * phi.sin(),
                ));
            }
        }
    }
    v.push(Vec3::new(0.0, 0.0, ELONGATION * r));
    let top = (v.len() - 1) as u32;
    let ring = |j: usize, i: usize| idx[(j - 1) * ns + i % ns];
    let mut t = Vec::new();
    for i in 0..ns {
        t.push([0, ring(1, i + 1), ring(1, i)]);
        t.push([top, ring(nt - 1, i), ring(nt - 1, i + 1)]);
    }
    for j in 1..nt - 1 {
        for i in (0..ns).filter(|&i| !in_patch(j, i)) {
            let (a, b) = (ring(j, i), ring(j, i + 1));
            let (c, d) = (ring(j + 1, i), ring(j + 1, i + 1));
            t.push([a, b, d]);
            t.push([a, d, c]);
        }
    }
    for arm in 0..OCTOPUS_ARMS {
        let i0 = 2 * k * arm;
        // The patch's boundary, counter-clockwise seen from outside (the order of the removed
        // quads' edges, so the tube continues the mantle's orientation).
        let mut lp: Vec<u32> = Vec::with_capacity(4 * k);
        lp.extend((0..k).map(|s| ring(j0, i0 + s)));
        lp.extend((0..k).map(|s| ring(j0 + s, i0 + k)));
        lp.extend((0..k).map(|s| ring(j0 + k, i0 + k - s)));
        lp.extend((0..k).map(|s| ring(j0 + k - s, i0)));
        let c0 = lp.iter().fold(Vec3::zeros(), |s, &q| s + v[q as usize]) / lp.len() as Real;
        let (phi, th) = angles(j0 as Real + 0.5 * k as Real, i0 as Real + 0.5 * k as Real);
        let normal = Vec3::new(
            phi.cos() * th.cos(),
            phi.cos() * th.sin(),
            phi.sin() / ELONGATION,
        )
        .normalize();
        let w: Vec<Vec3> = lp.iter().map(|&q| v[q as usize] - c0).collect();
        let across = |x: Vec3, d: Vec3| x - d * x.dot(&d);
        let root = w.iter().map(|&x| across(x, normal).norm()).sum::<Real>() / w.len() as Real;
        let down = Vec3::new(0.0, 0.0, -DROOP * arm_length);
        let mut prev = lp.clone();
        for l in 1..=nl {
            let s = l as Real / nl as Real;
            let centre = c0 + normal * (s * arm_length) + down * (s * s);
            let tangent = (normal * arm_length + down * (2.0 * s)).normalize();
            let rad = root * (1.0 - (1.0 - TIP) * s);
            let start = v.len() as u32;
            for &x in &w {
                let u = across(x, tangent);
                v.push(centre + u * (rad / u.norm()));
            }
            let next: Vec<u32> = (0..lp.len() as u32).map(|q| start + q).collect();
            let n = lp.len();
            for q in 0..n {
                let (a, b, c, d) = (prev[q], prev[(q + 1) % n], next[q], next[(q + 1) % n]);
                t.push([a, b, d]);
                t.push([a, d, c]);
            }
            if l == nl {
                v.push(centre + tangent * rad);
                let tip = (v.len() - 1) as u32;
                t.extend((0..n).map(|q| [next[q], next[(q + 1) % n], tip]));
            }
            prev = next;
        }
    }
    TriMesh::new(v, t)
}
