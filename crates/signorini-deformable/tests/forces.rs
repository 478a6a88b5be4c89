//! Forces against finite differences of the energy, energy behaviour, determinism.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_deformable::{Deformable, Material};
use signorini_geometry::mesh::shapes::{grid, sphere};
use signorini_math::{Real, Vec3};

fn jiggle(d: &Deformable, seed: u64, amp: Real) -> Vec<Vec3> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    d.x.iter()
        .map(|p| {
            p + amp
                * Vec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
        })
        .collect()
}

/// `f = −∇E` by central differences, to 1e-6 relative, at a random deformed state.
fn check_gradient(d: &Deformable, x: &[Vec3]) {
    let zero = vec![Vec3::zeros(); x.len()];
    let mut f = vec![Vec3::zeros(); x.len()];
    d.forces_at(x, &zero, &mut f);
    let scale = f.iter().map(|v| v.amax()).fold(0.0, Real::max);
    let eps = 1e-6;
    for i in 0..x.len() {
        for k in 0..3 {
            let mut xp = x.to_vec();
            let mut xm = x.to_vec();
            xp[i][k] += eps;
            xm[i][k] -= eps;
            let fd = -(d.potential_energy_at(&xp) - d.potential_energy_at(&xm)) / (2.0 * eps);
            let err = (fd - f[i][k]).abs();
            assert!(
                err <= 1e-6 * scale.max(1.0),
                "vertex {i} axis {k}: force {} vs −dE/dx {fd} (err {err:e})",
                f[i][k]
            );
        }
    }
}

#[test]
fn cloth_spring_forces_are_minus_the_energy_gradient() {
    let d = Deformable::new(grid(1.0, 0.8, 5, 4).unwrap(), Material::CLOTH).unwrap();
    check_gradient(&d, &jiggle(&d, 7, 0.05));
}

#[test]
fn pressure_forces_are_minus_the_energy_gradient() {
    let m = Material {
        pressure: 500.0,
        ..Material::CLOTH
    };
    let d = Deformable::new(sphere(0.3, 8, 6).unwrap(), m).unwrap();
    check_gradient(&d, &jiggle(&d, 11, 0.03));
}

/// Energy of a cloth pinned at two corners swinging for 2 s, every 1 ms, with the given damping.
fn swing(damping: Real) -> (Deformable, Vec<Real>) {
    let m = Material {
        damping,
        ..Material::CLOTH
    };
    let mut d = Deformable::new(grid(1.0, 1.0, 8, 8).unwrap(), m).unwrap();
    d.pin(&[0, 8]).unwrap();
    let mut e = vec![d.energy()];
    for _ in 0..2000 {
        d.step_free(1e-3);
        e.push(d.energy());
    }
    (d, e)
}

#[test]
fn undamped_energy_stays_in_a_band_damped_energy_decays_and_pins_hold() {
    // Symplectic Euler conserves a nearby energy: without damping the true energy only
    // oscillates in a narrow band around its start value (no drift) while the cloth swings
    // through a potential-energy drop of ≈ m g · 0.5 m.
    let (d, e) = swing(0.0);
    let m: Real = d.masses().iter().sum();
    let drop = m * 9.81 * 0.5;
    let band = e.iter().map(|x| (x - e[0]).abs()).fold(0.0, Real::max);
    assert!(band < 0.02 * drop, "energy band {band:e} vs drop {drop:e}");
    // With damping, energy decays: every 100 ms it is lower than 100 ms before.
    let (d, e) = swing(0.05);
    for w in e.chunks(100).collect::<Vec<_>>().windows(2) {
        assert!(w[1][0] < w[0][0], "energy rose: {} → {}", w[0][0], w[1][0]);
    }
    assert!(e[2000] < e[0] - 0.1 * drop, "{} → {}", e[0], e[2000]);
    assert_eq!(d.x[0], d.mesh().vertices()[0]);
    assert_eq!(d.x[8], d.mesh().vertices()[8]);
    assert!(d.x.iter().all(|p| p.z <= 1e-9), "hangs below the pins");
}

#[test]
fn free_fall_without_springs_is_exact_and_deterministic() {
    let run = || {
        let mut d = Deformable::new(grid(1.0, 1.0, 3, 3).unwrap(), Material::CLOTH).unwrap();
        for _ in 0..100 {
            d.step_free(0.01);
        }
        d
    };
    let (a, b) = (run(), run());
    assert_eq!(a.x, b.x);
    // An undeformed cloth falls rigidly: symplectic Euler gives z = −g h² n(n+1)/2.
    let z = -9.81 * 0.01 * 0.01 * 100.0 * 101.0 / 2.0;
    for p in &a.x {
        assert!((p.z - z).abs() < 1e-9, "{} vs {z}", p.z);
    }
    let p = a.linear_momentum();
    let m: Real = a.masses().iter().sum();
    assert!((p.z + m * 9.81).abs() < 1e-9 * m);
}

#[test]
fn bad_input_is_named() {
    let bad = Material {
        stretch: Real::NAN,
        ..Material::CLOTH
    };
    let e = Deformable::new(grid(1.0, 1.0, 2, 2).unwrap(), bad).unwrap_err();
    assert!(e.to_string().contains("stretch"), "{e}");
    let p = Material {
        pressure: 1.0,
        ..Material::CLOTH
    };
    let e = Deformable::new(grid(1.0, 1.0, 2, 2).unwrap(), p).unwrap_err();
    assert!(e.to_string().contains("closed"), "{e}");
    let mut d = Deformable::new(grid(1.0, 1.0, 2, 2).unwrap(), Material::CLOTH).unwrap();
    assert!(d.pin(&[99]).unwrap_err().to_string().contains("99"));
}

/// `free_motion` with one sub-step is exactly the plain predictor; with `n` sub-steps over a
/// step `h` the end state equals `n` plain steps of `h/n` (velocity at the end, mean velocity
/// = displacement / h), and pins stay put.
#[test]
fn sub_stepped_motion_equals_plain_sub_steps() {
    let mut d = Deformable::new(grid(1.0, 1.0, 6, 6).unwrap(), Material::CLOTH).unwrap();
    d.pin(&[0, 6]).unwrap();
    let x = jiggle(&d, 5, 0.02);
    d.x.clone_from(&x);
    let (mean1, end1) = d.free_motion(0.01, 1);
    assert_eq!(mean1, d.free_velocities(0.01));
    assert_eq!(end1, mean1);
    let (mean, end) = d.free_motion(0.01, 4);
    let mut e = d.clone();
    for _ in 0..4 {
        e.step_free(0.0025);
    }
    for i in 0..d.x.len() {
        assert!((end[i] - e.v[i]).norm() < 1e-12, "vertex {i}");
        let moved = d.x[i] + 0.01 * mean[i];
        assert!((moved - e.x[i]).norm() < 1e-12, "vertex {i}");
    }
    assert_eq!(mean[0], Vec3::zeros());
    assert_eq!(end[6], Vec3::zeros());
}
