//! Seeded random problem families shared by the integration tests and the benches
//! (`benches/solvers.rs` includes this file by path).
//!
//! - P-matrix: M = A Aᵀ + B − Bᵀ + δI (positive definite, nonsymmetric ⇒ P).
//! - PSD: M = A Aᵀ with A of rank < n (singular PSD), q = y − M x with x, y ≥ 0 so that the
//!   problem is feasible (hence solvable: a feasible monotone LCP is solvable, CPS Thm 3.1.2).
//! - Contact-like (Stewart–Trinkle 1996, velocity level): rigid 3D bodies, contacts with a
//!   normal and a k-sided friction pyramid (k = 3, directions 120° apart, so n = 5 per
//!   contact): M = [[GnᵀW Gn, GnᵀW Gf, 0], [GfᵀW Gn, GfᵀW Gf, E], [U, −Eᵀ, 0]] with
//!   W = M_mass⁻¹, zero diagonal on the σ block.
//! - PEG-like (`docs/formulation-notes.md` §4.4): unknowns (p_n, p_p, c) with an
//!   inter-contact block E_c = tril(ones) and G_c ≠ G_p; q built from a planted complementary
//!   pair so that a solution exists.
#![allow(dead_code)]

use nalgebra::{DMatrix, DVector, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn uniform(r: &mut ChaCha8Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * r.random::<f64>()
}

fn random_matrix(r: &mut ChaCha8Rng, rows: usize, cols: usize) -> DMatrix<f64> {
    DMatrix::from_fn(rows, cols, |_, _| uniform(r, -1.0, 1.0))
}

/// A random P-matrix problem of size n (M = AAᵀ + B − Bᵀ + 0.1 I, q ∈ [−1, 1]ⁿ).
pub fn p_matrix(n: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let mut r = rng(seed);
    let a = random_matrix(&mut r, n, n);
    let b = random_matrix(&mut r, n, n);
    let m = &a * a.transpose() + &b - b.transpose() + DMatrix::identity(n, n) * 0.1;
    let q = DVector::from_fn(n, |_, _| uniform(&mut r, -1.0, 1.0));
    (m, q)
}

/// A random singular symmetric PSD problem of size n (rank n/2), feasible by construction.
pub fn psd(n: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let mut r = rng(seed);
    let a = random_matrix(&mut r, n, (n / 2).max(1));
    let m = &a * a.transpose();
    let x = DVector::from_fn(n, |_, _| uniform(&mut r, 0.0, 1.0));
    let y = DVector::from_fn(n, |_, _| uniform(&mut r, 0.0, 1.0));
    let q = y - &m * x;
    (m, q)
}

/// Contact Jacobian columns for `nc` contacts on `nb` rigid bodies (6 dofs each), with
/// normal and `k` friction directions; returns (W = M⁻¹ diagonal, Gn, Gf) with one column per
/// constraint row (Gn: 6nb × nc, Gf: 6nb × k·nc).
fn contact_jacobians(
    r: &mut ChaCha8Rng,
    nc: usize,
    k: usize,
) -> (DVector<f64>, DMatrix<f64>, DMatrix<f64>) {
    let nb = nc.div_ceil(2).max(1);
    let ndof = 6 * nb;
    // Inverse mass matrix: mass in [0.5, 2] kg, principal inertia in [0.05, 0.5] kg m².
    let mut winv = DVector::zeros(ndof);
    for b in 0..nb {
        let mass = uniform(r, 0.5, 2.0);
        for i in 0..3 {
            winv[6 * b + i] = 1.0 / mass;
            winv[6 * b + 3 + i] = 1.0 / uniform(r, 0.05, 0.5);
        }
    }
    let mut gn = DMatrix::zeros(ndof, nc);
    let mut gf = DMatrix::zeros(ndof, k * nc);
    for c in 0..nc {
        // Contact between body a and either body b or the ground; normal mostly upward.
        let a = r.random_range(0..nb);
        let other = if nb > 1 && r.random::<f64>() < 0.5 {
            Some((a + 1 + r.random_range(0..nb - 1)) % nb)
        } else {
            None
        };
        let n = Vector3::new(uniform(r, -0.3, 0.3), uniform(r, -0.3, 0.3), 1.0).normalize();
        let t1 = n.cross(&Vector3::x()).normalize();
        let t2 = n.cross(&t1);
        let arm_a = Vector3::new(
            uniform(r, -0.5, 0.5),
            uniform(r, -0.5, 0.5),
            uniform(r, -0.5, 0.5),
        );
        let arm_b = Vector3::new(
            uniform(r, -0.5, 0.5),
            uniform(r, -0.5, 0.5),
            uniform(r, -0.5, 0.5),
        );
        let put = |g: &mut DMatrix<f64>, col: usize, dir: Vector3<f64>| {
            let ta = arm_a.cross(&dir);
            for i in 0..3 {
                g[(6 * a + i, col)] += dir[i];
                g[(6 * a + 3 + i, col)] += ta[i];
            }
            if let Some(b) = other {
                let tb = arm_b.cross(&dir);
                for i in 0..3 {
                    g[(6 * b + i, col)] -= dir[i];
                    g[(6 * b + 3 + i, col)] -= tb[i];
                }
            }
        };
        put(&mut gn, c, n);
        for j in 0..k {
            let th = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
            put(&mut gf, k * c + j, th.cos() * t1 + th.sin() * t2);
        }
    }
    (winv, gn, gf)
}

/// A Stewart–Trinkle contact LCP with `nc` contacts and a k = 3 friction pyramid
/// (n = 5·nc): see the module docs. Bodies move down and sideways, so many contacts are
/// active and some slide.
pub fn contact_like(nc: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let p = contact_parts(nc, seed);
    (p.m, p.q)
}

/// The same contact step as [`contact_like`], as the mixed LCP the stepper builds, with the
/// free velocities first: unknowns (v, p_n, β, σ), rows
/// M_mass (v − v*) − G p = 0 (free), Gᵀ v + gap + E σ ≥ 0 ⟂ (p_n, β), U p_n − Eᵀ β ≥ 0 ⟂ σ.
/// Returns (M, q, number of free variables). Its Schur complement is `contact_like`.
pub fn contact_like_mixed(nc: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>, usize) {
    let p = contact_parts(nc, seed);
    let (ndof, n, ng) = (p.winv.len(), p.q.len(), p.g.ncols());
    let mut m = DMatrix::zeros(ndof + n, ndof + n);
    for i in 0..ndof {
        m[(i, i)] = 1.0 / p.winv[i];
    }
    m.view_mut((0, ndof), (ndof, ng)).copy_from(&(-&p.g));
    m.view_mut((ndof, 0), (ng, ndof))
        .copy_from(&p.g.transpose());
    let mut coupling = p.m.clone();
    coupling.view_mut((0, 0), (ng, ng)).fill(0.0);
    m.view_mut((ndof, ndof), (n, n)).copy_from(&coupling);
    let mut q = DVector::zeros(ndof + n);
    for i in 0..ndof {
        q[i] = -p.v_star[i] / p.winv[i];
    }
    let gv = p.g.transpose() * &p.v_star;
    for i in 0..ng {
        q[ndof + i] = p.q[i] - gv[i];
    }
    (m, q, ndof)
}

struct ContactParts {
    winv: DVector<f64>,
    g: DMatrix<f64>,
    v_star: DVector<f64>,
    m: DMatrix<f64>,
    q: DVector<f64>,
}

fn contact_parts(nc: usize, seed: u64) -> ContactParts {
    let k = 3;
    let mut r = rng(seed);
    let (winv, gn, gf) = contact_jacobians(&mut r, nc, k);
    let ndof = winv.len();
    let g = DMatrix::from_fn(ndof, nc + k * nc, |i, j| {
        if j < nc { gn[(i, j)] } else { gf[(i, j - nc)] }
    });
    let wg = DMatrix::from_fn(ndof, g.ncols(), |i, j| winv[i] * g[(i, j)]);
    let a = g.transpose() * &wg;
    let n = nc * (2 + k);
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (nc + k * nc, nc + k * nc)).copy_from(&a);
    for c in 0..nc {
        let mu = uniform(&mut r, 0.2, 1.0);
        let s = nc + k * nc + c;
        m[(s, c)] = mu;
        for j in 0..k {
            m[(nc + k * c + j, s)] = 1.0; // E
            m[(s, nc + k * c + j)] = -1.0; // −Eᵀ
        }
    }
    // q = [Gnᵀ v + gap/h; Gfᵀ v; 0] with a downward, sliding free velocity.
    let v_star = DVector::from_fn(ndof, |i, _| {
        if i % 6 == 2 {
            uniform(&mut r, -2.0, 0.0)
        } else {
            uniform(&mut r, -0.5, 0.5)
        }
    });
    let gv = g.transpose() * &v_star;
    let mut q = DVector::zeros(n);
    for i in 0..nc + k * nc {
        q[i] = gv[i]
            + if i < nc {
                uniform(&mut r, 0.0, 0.2)
            } else {
                0.0
            };
    }
    ContactParts {
        winv,
        g,
        v_star,
        m,
        q,
    }
}

/// A PEG-like LCP: `nn` normal contacts, `np` primary I-constraint contacts each with one
/// secondary; unknowns (p_n, p_p, c); E_c = tril(ones), E_pc = I (each primary carries its
/// secondary's slack). q comes from a planted solution (z*, w*) with z*ᵀw* = 0.
pub fn peg_like(nn: usize, np: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let mut r = rng(seed);
    let (winv, gn, gp) = contact_jacobians(&mut r, nn + np, 1);
    let gn = gn.columns(0, nn).into_owned();
    let gp = gp.columns(0, np).into_owned();
    let gc = &gp + random_matrix(&mut r, gp.nrows(), np) * 0.2;
    let n = nn + 2 * np;
    let w = |x: &DMatrix<f64>| DMatrix::from_fn(x.nrows(), x.ncols(), |i, j| winv[i] * x[(i, j)]);
    let (wgn, wgp) = (w(&gn), w(&gp));
    let mut m = DMatrix::zeros(n, n);
    let blocks = [(&gn, 0usize), (&gp, nn), (&gc, nn + np)];
    for (gr, r0) in blocks {
        m.view_mut((r0, 0), (gr.ncols(), nn))
            .copy_from(&(gr.transpose() * &wgn));
        m.view_mut((r0, nn), (gr.ncols(), np))
            .copy_from(&(gr.transpose() * &wgp));
    }
    for i in 0..np {
        m[(nn + i, nn + np + i)] = 1.0; // E_pc
        for j in 0..=i {
            m[(nn + np + i, nn + np + j)] = 1.0; // E_c = tril(ones)
        }
    }
    // Planted solution: each index is either z > 0 (w = 0) or w > 0 (z = 0).
    let active: Vec<bool> = (0..n).map(|_| r.random::<f64>() < 0.5).collect();
    let zs = DVector::from_fn(n, |i, _| {
        if active[i] {
            uniform(&mut r, 0.1, 1.0)
        } else {
            0.0
        }
    });
    let ws = DVector::from_fn(n, |i, _| {
        if active[i] {
            0.0
        } else {
            uniform(&mut r, 0.0, 1.0)
        }
    });
    let q = ws - &m * zs;
    (m, q)
}
