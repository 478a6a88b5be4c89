//! Broad phase on a cloth-like 181 × 181-vertex grid (64,800 triangles) moving a little:
//! self-collision candidate pairs per step (refit + traversal) and the initial build.

use criterion::{Criterion, criterion_group, criterion_main};
use signorini_ccd::TriMesh;
use signorini_ccd::bvh::{MeshBvh, self_pairs};
use signorini_math::Vec3;
use std::hint::black_box;

const N: usize = 181;

/// A draped, wavy cloth: spacing 1 cm, folded by a sine so distant parts come close, and a
/// small per-step motion (about 2 mm).
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

fn triangles() -> Vec<[u32; 3]> {
    let mut t = Vec::with_capacity(2 * (N - 1) * (N - 1));
    for i in 0..N - 1 {
        for j in 0..N - 1 {
            let a = (i * N + j) as u32;
            let (b, c, d) = (a + 1, a + N as u32, a + N as u32 + 1);
            t.push([a, b, d]);
            t.push([a, d, c]);
        }
    }
    t
}

fn broad_phase(c: &mut Criterion) {
    let (x0, x1) = cloth(0);
    let mut mesh = TriMesh::new(x0, x1, triangles()).unwrap();
    let margin = 1e-3;
    let mut bvh = MeshBvh::build(&mesh, margin);
    let p = self_pairs(&mesh, &bvh);
    eprintln!(
        "cloth: {} triangles, {} edges; step 0 candidate pairs: {} vertex-face, {} edge-edge",
        mesh.triangles().len(),
        mesh.edges().len(),
        p.vertex_face.len(),
        p.edge_edge.len()
    );
    let mut g = c.benchmark_group("broad_phase_cloth_64800_tris");
    g.sample_size(10);
    g.bench_function("build", |b| {
        b.iter(|| MeshBvh::build(black_box(&mesh), margin))
    });
    let mut step = 0usize;
    g.bench_function("step: refit + self pairs", |b| {
        b.iter(|| {
            step = (step + 1) % 16;
            let (x0, x1) = cloth(step);
            mesh.set_positions(x0, x1).unwrap();
            bvh.refit(&mesh);
            let p = self_pairs(&mesh, &bvh);
            p.vertex_face.len() + p.edge_edge.len()
        })
    });
    g.finish();
}

criterion_group!(benches, broad_phase);
criterion_main!(benches);
