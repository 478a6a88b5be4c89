//! Volume preservation of a closed soft shell: the "pressure" model of soft bodies.
//!
//! Energy `E = ½ k_V (V − V₀)² / V₀` with `V = Σ_t (a × b)·c / 6` the enclosed volume (divergence
//! theorem over the outward triangles `(a, b, c)`) and `V₀` the rest volume; the force on vertex
//! `i` is `fᵢ = −k_V (V − V₀)/V₀ · ∂V/∂xᵢ` with `∂V/∂xᵢ = Σ_{t ∋ i} (xⱼ × xₖ)/6` over the
//! triangles `(i, j, k)` around `i` (in their cyclic order). `k_V` is a bulk modulus (Pa).

use signorini_math::{Real, Vec3};

/// Enclosed volume of a closed, outward triangle mesh.
pub fn volume(x: &[Vec3], triangles: &[[u32; 3]]) -> Real {
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| x[i as usize]);
            a.cross(&b).dot(&c)
        })
        .sum::<Real>()
        / 6.0
}

/// Pressure energy `½ k_V (V − V₀)² / V₀`.
pub fn energy(k: Real, v0: Real, x: &[Vec3], triangles: &[[u32; 3]]) -> Real {
    let dv = volume(x, triangles) - v0;
    0.5 * k * dv * dv / v0
}

/// Add the pressure forces to `f`.
pub fn add_forces(k: Real, v0: Real, x: &[Vec3], triangles: &[[u32; 3]], f: &mut [Vec3]) {
    let p = -k * (volume(x, triangles) - v0) / v0 / 6.0;
    for t in triangles {
        let [i, j, l] = t.map(|i| i as usize);
        f[i] += p * x[j].cross(&x[l]);
        f[j] += p * x[l].cross(&x[i]);
        f[l] += p * x[i].cross(&x[j]);
    }
}
