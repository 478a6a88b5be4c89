//! Why plain CPF (no per-vertex stiffness limit) diverges on the small cloth-and-tori scene:
//! per step the kinetic energy, the largest per-vertex contact stiffness
//! `aᵢ = Σ_pairs k cᵢ² Δt² wᵢ` (CPF's 1D bound is 2), the number of pairs on that vertex, the
//! pairs' largest impulse and the vertex's net contact impulse and speed. Used for
//! docs/deformable.md ("Why plain CPF diverged").
//!
//! ```sh
//! cargo run --release -p signorini-tools --example cpf_divergence -- [STEPS] [FROM]
//! # environment: MODEL=cpf|cpf-exact|dpf-ccd, LIMIT (vertex stiffness limit, default 0),
//! # K (N/m), DT (s), TOP (vertices listed per step from FROM on, default 3), SCENE=rings,
//! # SHARE=1 (coincident pairs share one impulse), DUMP=N (list the pairs of the vertex with the
//! # largest applied stiffness in step N), ERRDUMP=N (pairs whose L_k impulse is off by > 50 %)
//! ```

use signorini_experiments::cloth_tori::{ClothToriParams, build};
use signorini_experiments::rings::{self, RingsParams};
use signorini_math::{Real, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::penalty::DeformableWorld;
use std::collections::BTreeMap;

fn env(name: &str) -> Option<Real> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

fn kinetic(w: &DeformableWorld) -> Real {
    w.deformables
        .iter()
        .map(|d| {
            d.v.iter()
                .zip(d.inverse_masses())
                .filter(|(_, w)| **w > 0.0)
                .map(|(v, w)| 0.5 * v.norm_squared() / w)
                .sum::<Real>()
        })
        .sum()
}

/// Per vertex: (aᵢ, pairs, VF pairs as the vertex, EE pairs, Σ|cᵢ J|, Σ cᵢ J, aᵢ with the
/// applied scales, Σ|cᵢ (J − J_exact)| ).
type VertexStats = (Real, usize, usize, usize, Real, Vec3, Real, Real);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(160);
    let from: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(130);
    let model = std::env::var("MODEL")
        .ok()
        .and_then(|m| ForceModel::parse(&m.replace('-', "_")))
        .unwrap_or(ForceModel::Cpf);
    let share = std::env::var("SHARE").is_ok();
    let rings = std::env::var("SCENE").is_ok_and(|s| s == "rings");
    let (mut w, k, dt) = if rings {
        let mut p = RingsParams::small(model);
        p.penalty.vertex_stiffness_limit = env("LIMIT").unwrap_or(0.0);
        p.penalty.stiffness = env("K").unwrap_or(p.penalty.stiffness);
        p.penalty.dt = env("DT").unwrap_or(p.penalty.dt);
        p.penalty.share_coincident_pairs = share;
        (
            rings::build(&p).expect("world"),
            p.penalty.stiffness,
            p.penalty.dt,
        )
    } else {
        let mut p = ClothToriParams::small(model);
        p.penalty.vertex_stiffness_limit = env("LIMIT").unwrap_or(0.0);
        p.penalty.stiffness = env("K").unwrap_or(p.penalty.stiffness);
        p.penalty.dt = env("DT").unwrap_or(p.penalty.dt);
        p.penalty.share_coincident_pairs = share;
        (build(&p).expect("world"), p.penalty.stiffness, p.penalty.dt)
    };
    let top = env("TOP").unwrap_or(3.0) as usize;
    w.set_record_pairs(true);
    let kh2 = k * dt * dt;
    println!(
        "step,t,kinetic_J,pairs,a_of_vertex,vertex_with_largest_applied_a,pairs_on_vertex,max_pair_J,contact_force,max_a_applied,rel_err_lk"
    );
    let (mut err_num, mut err_den) = (0.0, 0.0);
    for s in 1..=steps {
        let rep = w.step();
        let inv =
            |(o, i): (usize, usize)| w.deformables.get(o).map_or(0.0, |d| d.inverse_masses()[i]);
        let mut per: BTreeMap<(usize, usize), VertexStats> = BTreeMap::new();
        let mut max_j: Real = 0.0;
        let (mut num, mut den) = (0.0, 0.0);
        for r in w.last_pairs() {
            max_j = max_j.max(r.j.norm());
            if !r.distance {
                num += (r.j - r.j_exact).norm();
                den += r.j_exact.norm();
            }
            for (n, &id) in r.ids.iter().enumerate() {
                let wi = inv(id);
                if wi == 0.0 {
                    continue;
                }
                let c = r.coeffs[n];
                let e = per
                    .entry(id)
                    .or_insert((0.0, 0, 0, 0, 0.0, Vec3::zeros(), 0.0, 0.0));
                e.0 += kh2 * c * c * wi;
                e.1 += 1;
                match r.key.kind {
                    signorini_penalty::Kind::VertexFace if n == 0 => e.2 += 1,
                    signorini_penalty::Kind::EdgeEdge => e.3 += 1,
                    _ => {}
                }
                e.4 += (c * r.scale * r.j).norm();
                e.5 += c * r.scale * r.j;
                e.6 += r.scale * kh2 * c * c * wi;
            }
        }
        let max_applied = per.values().map(|st| st.6).fold(0.0, Real::max);
        (err_num, err_den) = (err_num + num, err_den + den);
        let worst = per
            .iter()
            .max_by(|a, b| a.1.6.total_cmp(&b.1.6))
            .map(|(id, st)| (*id, *st));
        let (id, st) = worst.unwrap_or(((0, 0), (0.0, 0, 0, 0, 0.0, Vec3::zeros(), 0.0, 0.0)));
        println!(
            "{s},{:.4},{:.6e},{},{:.3},{:?},{},{:.3e},{:.4e},{:.3},{:.3e}",
            w.time(),
            kinetic(&w),
            w.last_pairs().len(),
            st.0,
            id,
            st.1,
            max_j,
            rep.contact_force,
            max_applied,
            if den > 0.0 { num / den } else { 0.0 }
        );
        if s >= from {
            let mut v: Vec<_> = per.iter().collect();
            v.sort_by(|a, b| b.1.6.total_cmp(&a.1.6));
            for (id, st) in v.iter().take(top) {
                let (o, i) = **id;
                let d = &w.deformables[o];
                println!(
                    "  v{:?}: a_applied={:.3} a={:.3} pairs={} (vf-as-vertex {}, ee {}) sum|cJ|={:.3e} |net|={:.3e} net/ (m v)={:.3} speed={:.3e} z={:.5}",
                    id,
                    st.6,
                    st.0,
                    st.1,
                    st.2,
                    st.3,
                    st.4,
                    st.5.norm(),
                    st.5.norm() * d.inverse_masses()[i] / d.v[i].norm().max(1e-300),
                    d.v[i].norm(),
                    d.x[i].z
                );
            }
        }
        if env("ERRDUMP") == Some(s as Real) {
            for r in w.last_pairs() {
                let e = (r.j - r.j_exact).norm();
                if !r.distance && e > 0.5 * r.j_exact.norm() {
                    println!(
                        "    err {:?} {:?} c={:?} J={:?} J_exact={:?} tau={:.3}",
                        r.key.kind,
                        r.ids,
                        r.coeffs.map(|c| (c * 1e3).round() / 1e3),
                        r.j,
                        r.j_exact,
                        r.tau
                    );
                }
            }
        }
        if env("DUMP") == Some(s as Real) {
            for r in w.last_pairs() {
                if let Some(n) = r.ids.iter().position(|x| *x == id) {
                    println!(
                        "    pair {:?} {:?} c={:?} (this vertex {n}: c={:.3}) J={:?} |J|={:.3e} tau={:.3} distance={}",
                        r.key.kind,
                        r.ids,
                        r.coeffs.map(|c| (c * 1e3).round() / 1e3),
                        r.coeffs[n],
                        r.j.map(|x| (x * 1e9).round() / 1e9),
                        r.j.norm(),
                        r.tau,
                        r.distance
                    );
                }
            }
        }
        if rep.diverged {
            println!("diverged in step {s}");
            break;
        }
    }
    println!(
        "L_k against the exact normal, non-distance pairs of the whole run: sum |J - J_exact| / sum |J_exact| = {:.4e}",
        err_num / err_den.max(Real::MIN_POSITIVE)
    );
}
