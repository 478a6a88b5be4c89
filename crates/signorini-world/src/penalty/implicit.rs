//! The linearly implicit contact correction of the deformable stepper (opt-in:
//! [`PenaltyParams::implicit_contact`](super::PenaltyParams::implicit_contact)).
//!
//! Owns: [`PairContact`] (one pair's impulse, ready to apply) and [`solve`].
//!
//! The paper integrates its penalty forces explicitly (CPF §3.3, Eq. 7) and names implicit
//! integration as the way to stability at large steps and stiffness (§5). Explicitly, a vertex
//! touched by many pairs sees their summed stiffness, and past CPF's bound `k Δt²/m < 2`
//! (supplementary §C) the contact chatters or diverges; the per-vertex stiffness limit keeps it
//! below by scaling the impulses, which also makes the resting contact softer by the same factor
//! (a vertex rests `1/s` times deeper). Here instead the pair impulses `Jₚ` (contact plus
//! friction, computed from the predicted motion as before) are corrected for the contact
//! stiffness over the step, backward-Euler style (Baraff and Witkin 1998):
//!
//! `(M + Σₚ κₚ (cₚ ⊗ n̂ₚ)(cₚ ⊗ n̂ₚ)ᵀ) Δv = Σₚ cₚ ⊗ Jₚ`, with `κₚ = k Δt² τₚ`,
//!
//! `cₚ` the pair's separation coefficients (Eqs. 13, 17), `n̂ₚ` the direction of its contact
//! impulse and `τₚ` the fraction of the step it is in contact. The matrix is symmetric positive
//! definite, so the correction is stable for any stiffness and step, and at rest (`Δv` the
//! negative of gravity's velocity gain) it leaves the contact force equal to the load: the
//! resting depth is `m g / k + g Δt²`, not `m g / (s k)`. Only deformable vertices take part;
//! rigid-body vertices receive their explicit share `cᵢ Jₚ` (their mass is the whole body's) and
//! static ones nothing. Solved by block Gauss–Seidel over the vertices in a fixed order
//! (deterministic), at most [`MAX_SWEEPS`] sweeps; the relative residual is returned for the
//! step report.

use signorini_math::{Real, Vec3};

/// Gauss–Seidel sweeps at most.
pub const MAX_SWEEPS: usize = 50;

pub use signorini_math::tolerance::IMPLICIT_CONTACT_REL_TOL as TOLERANCE;

/// One pair's impulse and its linearised contact stiffness.
#[derive(Clone, Copy, Debug)]
pub struct PairContact {
    /// The four (object, vertex) ids in the order of the pair's trajectory.
    pub ids: [(usize, usize); 4],
    /// Separation coefficients `cᵢ`.
    pub c: [Real; 4],
    /// Impulse on the first collision point: contact plus friction (N s).
    pub impulse: Vec3,
    /// Unit contact normal (direction of the contact impulse).
    pub normal: Vec3,
    /// `k Δt² τ` (kg): stiffness times step squared times the fraction in contact.
    pub kappa: Real,
}

/// Apply `pairs` to the vertex impulses `imp` with the implicit correction; `inv_mass` gives a
/// vertex's inverse mass, `deformables` the number of deformable objects (ids below it take
/// part). Returns the relative residual `|b − A Δv| / |b|` of the last sweep (0 if nothing to
/// solve).
pub fn solve(
    pairs: &[PairContact],
    inv_mass: impl Fn((usize, usize)) -> Real,
    deformables: usize,
    imp: &mut [Vec<Vec3>],
) -> Real {
    // Block 1: number the moving deformable vertices the pairs touch (in pair order, so the
    // order is deterministic), give rigid vertices their explicit share.
    let mut number: Vec<Vec<u32>> = imp.iter().map(|o| vec![u32::MAX; o.len()]).collect();
    let mut vertices: Vec<(usize, usize)> = Vec::new();
    let mut slot: Vec<[Option<usize>; 4]> = Vec::with_capacity(pairs.len());
    for p in pairs {
        let mut s = [None; 4];
        for (n, &(o, i)) in p.ids.iter().enumerate() {
            if o >= imp.len() {
                continue;
            }
            if o >= deformables {
                imp[o][i] += p.c[n] * p.impulse;
                continue;
            }
            if inv_mass((o, i)) == 0.0 {
                continue;
            }
            if number[o][i] == u32::MAX {
                number[o][i] = vertices.len() as u32;
                vertices.push((o, i));
            }
            s[n] = Some(number[o][i] as usize);
        }
        slot.push(s);
    }
    if vertices.is_empty() {
        return 0.0;
    }
    // Block 2: right-hand side and, per vertex, its (pair, slot) incidences.
    let nv = vertices.len();
    let mut b = vec![Vec3::zeros(); nv];
    let mut inc: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nv];
    for (p, (pc, s)) in pairs.iter().zip(&slot).enumerate() {
        for (n, v) in s.iter().enumerate() {
            if let Some(v) = *v {
                b[v] += pc.c[n] * pc.impulse;
                inc[v].push((p, n));
            }
        }
    }
    let mass: Vec<Real> = vertices.iter().map(|&id| 1.0 / inv_mass(id)).collect();
    // Normal velocity of pair p's collision points from the vertices other than slot `skip`.
    let others = |dv: &[Vec3], p: usize, skip: usize| -> Real {
        let (pc, s) = (&pairs[p], &slot[p]);
        (0..4)
            .filter(|&j| j != skip)
            .filter_map(|j| s[j].map(|v| pc.c[j] * pc.normal.dot(&dv[v])))
            .sum()
    };
    // Block 3: block Gauss–Seidel, 3 × 3 per vertex: (mᵢ I + Σ κ cᵢ² n̂n̂ᵀ) Δvᵢ = bᵢ − Σ κ cᵢ n̂ (others).
    let mut dv = vec![Vec3::zeros(); nv];
    for _ in 0..MAX_SWEEPS {
        let (mut change, mut size) = (0.0 as Real, 0.0 as Real);
        for v in 0..nv {
            let mut a = signorini_math::Mat3::identity() * mass[v];
            let mut r = b[v];
            for &(p, n) in &inc[v] {
                let pc = &pairs[p];
                let cn = pc.c[n];
                a += (pc.kappa * cn * cn) * pc.normal * pc.normal.transpose();
                r -= (pc.kappa * cn * others(&dv, p, n)) * pc.normal;
            }
            let new = a.cholesky().map_or(r / mass[v], |ch| ch.solve(&r));
            change = change.max((new - dv[v]).norm());
            size = size.max(new.norm());
            dv[v] = new;
        }
        if change <= TOLERANCE * size {
            break;
        }
    }
    // Block 4: residual, then the impulses mᵢ Δvᵢ.
    let (mut res, mut norm) = (0.0 as Real, 0.0 as Real);
    for v in 0..nv {
        let mut ax = mass[v] * dv[v];
        for &(p, n) in &inc[v] {
            let pc = &pairs[p];
            let all = others(&dv, p, usize::MAX);
            ax += (pc.kappa * pc.c[n] * all) * pc.normal;
        }
        res += (b[v] - ax).norm_squared();
        norm += b[v].norm_squared();
    }
    for (v, &(o, i)) in vertices.iter().enumerate() {
        imp[o][i] += mass[v] * dv[v];
    }
    if norm > 0.0 { (res / norm).sqrt() } else { 0.0 }
}
