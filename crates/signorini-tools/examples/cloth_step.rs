//! Broad phase on the 64,800-triangle cloth of `benches/broad_phase.rs`: prints pairs found and
//! wall-clock milliseconds for the build and each of `STEPS` steps (new positions + refit, and
//! self pairs). Usage: `cloth_step [STEPS]`; wrap in `perf stat -e task-clock` for CPU time.
use signorini_ccd::SweptMesh;
use signorini_ccd::bvh::{MeshBvh, self_pairs};
use signorini_math::Vec3;
use std::time::Instant;

const N: usize = 181;

fn cloth(step: usize) -> (Vec<Vec3>, Vec<Vec3>) {
    let h = 0.01;
    let pos = |s: f64, i: usize, j: usize| {
        let (x, y) = (i as f64 * h, j as f64 * h);
        Vec3::new(x, y, 0.02 * (x * 40.0 + s).sin() * (y * 25.0).cos())
    };
    let s0 = step as f64 * 0.1;
    let x0 = (0..N * N).map(|k| pos(s0, k / N, k % N)).collect();
    let x1 = (0..N * N).map(|k| pos(s0 + 0.1, k / N, k % N)).collect();
    (x0, x1)
}

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .map_or(10, |s| s.parse().expect("STEPS"));
    let mut tris = Vec::new();
    for i in 0..N - 1 {
        for j in 0..N - 1 {
            let a = (i * N + j) as u32;
            let (b, c, d) = (a + 1, a + N as u32, a + N as u32 + 1);
            tris.push([a, b, d]);
            tris.push([a, d, c]);
        }
    }
    let (x0, x1) = cloth(0);
    let mut mesh = SweptMesh::new(x0, x1, tris).expect("mesh");
    let t = Instant::now();
    let mut bvh = MeshBvh::build(&mesh, 1e-3);
    println!(
        "build: {:.1} ms ({} triangles, {} edges)",
        t.elapsed().as_secs_f64() * 1e3,
        mesh.triangles().len(),
        mesh.edges().len()
    );
    let (mut t_refit, mut t_pairs) = (0.0, 0.0);
    for s in 1..=steps {
        let (x0, x1) = cloth(s);
        let t = Instant::now();
        mesh.set_positions(x0, x1).expect("positions");
        bvh.refit(&mesh).unwrap();
        let refit = t.elapsed().as_secs_f64() * 1e3;
        let p = self_pairs(&mesh, &bvh);
        let total = t.elapsed().as_secs_f64() * 1e3;
        (t_refit, t_pairs) = (t_refit + refit, t_pairs + total - refit);
        println!(
            "step {s}: {total:.1} ms (positions + refit {refit:.1}, pairs {:.1}), {} vertex-face + {} edge-edge candidate pairs",
            total - refit,
            p.vertex_face.len(),
            p.edge_edge.len()
        );
    }
    let n = steps.max(1) as f64;
    println!(
        "mean per step: positions + refit {:.1} ms, pairs {:.1} ms",
        t_refit / n,
        t_pairs / n
    );
}
