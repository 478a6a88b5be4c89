//! The CPF experiments: 1D stability thresholds against the analytic values (supplementary §C),
//! the perturbation ordering, the jitter figure.

use signorini_experiments::particle1d::{self as p1, Method};
use signorini_harness::penalty_out::{jitter, jitter_high_pass};

/// The simulated limit steps the real penalty world (`PenaltyWorld`, CPF or the discrete
/// model), not the matrix of the eigenvalue analysis: just below the eigenvalue limit the
/// trial stays bounded, 1 % above it the stepper blows up.
#[test]
fn the_simulated_penalty_stepper_blows_up_just_above_the_eigenvalue_limit() {
    let (m, k) = (1.0, 1.0e4);
    for method in [Method::SymplecticEuler, Method::Cpf] {
        let eig = p1::eigen_limit(method, k, m);
        assert!(
            !p1::simulated_unstable(method, k, m, 0.99 * eig).unwrap(),
            "{method:?}"
        );
        assert!(
            p1::simulated_unstable(method, k, m, 1.01 * eig).unwrap(),
            "{method:?}"
        );
    }
}

#[test]
fn stability_thresholds_match_the_analytic_values() {
    for (m, k) in [(1.0, 1.0e4), (2.5, 3.0e5)] {
        for method in [Method::SymplecticEuler, Method::Cpf] {
            let exact = p1::analytic_limit(method, k, m);
            let eig = p1::eigen_limit(method, k, m);
            let sim = p1::simulated_limit(method, k, m).unwrap();
            assert!(
                (eig - exact).abs() < 1e-9 * exact,
                "{method:?} eig {eig} vs {exact}"
            );
            // The penalty stepper, simulated, against the eigenvalues of the 1D update matrix.
            assert!(
                (sim - eig).abs() < 1e-3 * eig,
                "{method:?} simulated stepper {sim} vs eigenvalues {eig}"
            );
        }
    }
    // CPF is the more restrictive one: √2 < 2.
    let ratio = p1::analytic_limit(Method::Cpf, 1.0, 1.0)
        / p1::analytic_limit(Method::SymplecticEuler, 1.0, 1.0);
    assert!((ratio - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-15);
}

/// SE is critically stable (|λ| = 1) below its limit, CPF strictly damped (|λ| < 1).
#[test]
fn eigenvalue_moduli() {
    let h = 0.01;
    let se = p1::spectral_radius(&p1::update_matrix(Method::SymplecticEuler, 1e4, 1.0, h));
    let cpf = p1::spectral_radius(&p1::update_matrix(Method::Cpf, 1e4, 1.0, h));
    assert!((se - 1.0).abs() < 1e-12, "{se}");
    // det = 1 − h²k/(2m) = 0.5.
    assert!((cpf - 0.5f64.sqrt()).abs() < 1e-12, "{cpf}");
}

/// CPF survives larger stiffness perturbations than symplectic Euler (paper: 70 % vs 15 %).
#[test]
fn cpf_survives_larger_perturbations() {
    let c = p1::DropConfig::default();
    let se = p1::max_surviving_perturbation(Method::SymplecticEuler, &c);
    let cpf = p1::max_surviving_perturbation(Method::Cpf, &c);
    assert!(cpf > 2.0 * se, "SE {se}, CPF {cpf}");
    assert!(
        p1::survives(Method::Cpf, &c, 0.25) && !p1::survives(Method::SymplecticEuler, &c, 0.25)
    );
}

#[test]
fn jitter_figure() {
    assert_eq!(jitter(&[2.0, 2.0, 2.0]), 0.0);
    // Mean 1.5, mean |Δ| = 1 → 2/3.
    assert!((jitter(&[1.0, 2.0, 1.0, 2.0]) - 1.0 / 1.5).abs() < 1e-15);
}

/// The high-pass jitter ignores slow changes that the first difference counts: a linear ramp
/// (a body still settling) is 0 for it, and an alternating `m ± a` series is `a (1 − 1/w) / m`.
#[test]
fn high_pass_jitter_separates_noise_from_slow_motion() {
    let ramp: Vec<f64> = (0..100).map(|i| 10.0 + 0.1 * i as f64).collect();
    assert!(jitter(&ramp) > 0.006, "{}", jitter(&ramp));
    assert!(
        jitter_high_pass(&ramp, 9) < 1e-14,
        "{}",
        jitter_high_pass(&ramp, 9)
    );
    let alt: Vec<f64> = (0..101)
        .map(|i| if i % 2 == 0 { 11.0 } else { 9.0 })
        .collect();
    let mean = alt.iter().sum::<f64>() / alt.len() as f64;
    let want = (1.0 - 1.0 / 9.0) / mean;
    assert!(
        (jitter_high_pass(&alt, 9) - want).abs() < 1e-12,
        "{}",
        jitter_high_pass(&alt, 9)
    );
    // Noise on top of the ramp: the high-pass figure sees the noise alone.
    let both: Vec<f64> = ramp.iter().zip(&alt).map(|(r, a)| r + a - 10.0).collect();
    let noise_only = jitter_high_pass(&alt, 9) * mean;
    let m_both = both.iter().sum::<f64>() / both.len() as f64;
    assert!((jitter_high_pass(&both, 9) * m_both - noise_only).abs() < 1e-9);
    assert_eq!(
        jitter_high_pass(&[1.0; 5], 9),
        0.0,
        "shorter than the window"
    );
    assert_eq!(jitter_high_pass(&[0.0; 20], 9), 0.0, "no force");
}

/// `summary.json` holds exactly the fields issue 6 lists; the limits are within 1 %.
#[test]
fn particle1d_summary_has_the_issue_fields() {
    let dir = crate::tmp("p1d");
    let s = p1::run(&p1::DropConfig::default(), &dir).unwrap();
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "cpf_analytic_limit_s",
            "cpf_max_perturbation",
            "cpf_stability_limit_s",
            "se_analytic_limit_s",
            "se_max_perturbation",
            "se_stability_limit_s"
        ]
    );
    assert!((s.se_stability_limit_s / s.se_analytic_limit_s - 1.0).abs() < 0.01);
    assert!((s.cpf_stability_limit_s / s.cpf_analytic_limit_s - 1.0).abs() < 0.01);
    assert!(dir.join("trajectory.svg").is_file() && dir.join("limits.csv").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `stick`'s reference is analytic (the elastic reflection off the stick's side: straight up),
/// not a CPF run; `fine_dpf.csv` is the discrete model at h/100 (a diagnostic), byte for byte.
#[test]
fn the_stick_reference_is_analytic_not_cpf() {
    use signorini_experiments::stick::{self, FINE_DIVISOR, StickConfig};
    use signorini_harness::penalty_trace::{trace, write_trace};
    use signorini_penalty::ForceModel;
    let dir = std::env::temp_dir().join(format!("signorini-stickref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = StickConfig {
        duration: 0.12,
        ..Default::default()
    };
    let up = stick::analytic_rebound(&c);
    assert!((up - signorini_math::Vec3::z()).norm() < 1e-12, "{up:?}");
    let s = stick::run(&c, &dir).unwrap();
    for m in s.values() {
        assert_eq!(m.reference_rebound_direction, [up.x, up.y, up.z]);
    }
    let hfine = c.h / FINE_DIVISOR;
    let n = (c.duration / hfine).round() as usize;
    let mut w = stick::world(&c, ForceModel::Dpf, hfine).unwrap();
    let path = dir.join("check.csv");
    write_trace(&path, &trace(&mut w, n, 1)).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(dir.join("fine_dpf.csv")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The box-on-plane experiment runs `cpf_exact` beside `cpf` (issue 22 item 8); on a box's
/// flat face the L_k normal is exact, so the two agree to round-off.
#[test]
fn box_on_plane_runs_cpf_exact_and_it_matches_cpf_on_a_flat_face() {
    use signorini_experiments::box_on_plane::{self, BoxConfig};
    let dir = std::env::temp_dir().join(format!("signorini-boxexact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = BoxConfig {
        duration: 0.6,
        ..Default::default()
    };
    let s = box_on_plane::run(&c, &dir).unwrap();
    assert_eq!(s.len(), 4);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let (a, b) = (&json["cpf"], &json["cpf_exact"]);
    for field in ["max_penetration", "final_speed", "jitter"] {
        let (x, y) = (a[field].as_f64().unwrap(), b[field].as_f64().unwrap());
        assert!(
            (x - y).abs() <= 1e-9 * x.abs().max(1e-12),
            "{field}: cpf {x:e}, cpf_exact {y:e}"
        );
    }
    assert!(
        a["max_penetration"].as_f64().unwrap() > 0.0,
        "the box must land"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
