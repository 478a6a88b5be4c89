//! The BVH broad phase finds exactly the pairs brute force finds, on random meshes, before and
//! after a refit.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_ccd::SweptMesh;
use signorini_ccd::bvh::{
    MeshBvh, brute_force_mesh_pairs, brute_force_self_pairs, mesh_pairs, self_pairs,
};
use signorini_math::Vec3;

/// Compare two pair lists, reporting counts and the first difference (not the whole lists).
fn same(name: &str, fast: &[(u32, u32)], brute: &[(u32, u32)]) {
    let first = fast.iter().zip(brute).position(|(a, b)| a != b);
    assert!(
        fast == brute,
        "{name}: bvh {} pairs, brute force {}, first difference at {first:?}: {:?} vs {:?}",
        fast.len(),
        brute.len(),
        first.map(|i| fast[i]),
        first.map(|i| brute[i])
    );
}

fn same_self(a: &signorini_ccd::bvh::CandidatePairs, b: &signorini_ccd::bvh::CandidatePairs) {
    same("vf", &a.vertex_face, &b.vertex_face);
    same("ee", &a.edge_edge, &b.edge_edge);
}

/// A crumpled n×n grid: jittered, folded positions and a random small motion.
fn random_grid(n: usize, rng: &mut ChaCha8Rng, offset: Vec3) -> SweptMesh {
    let mut x0 = Vec::new();
    let mut x1 = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let p = Vec3::new(
                i as f64 / n as f64 + rng.random_range(-0.05..0.05),
                j as f64 / n as f64 + rng.random_range(-0.05..0.05),
                0.3 * ((i * 7 + j * 3) as f64).sin() + rng.random_range(-0.1..0.1),
            ) + offset;
            x0.push(p);
            x1.push(
                p + Vec3::new(
                    rng.random_range(-0.1..0.1),
                    rng.random_range(-0.1..0.1),
                    rng.random_range(-0.2..0.2),
                ),
            );
        }
    }
    let mut tris = Vec::new();
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            let a = (i * n + j) as u32;
            let (b, c, d) = (a + 1, a + n as u32, a + n as u32 + 1);
            tris.push([a, b, d]);
            tris.push([a, d, c]);
        }
    }
    SweptMesh::new(x0, x1, tris).unwrap()
}

#[test]
fn self_pairs_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for margin in [0.0, 0.01] {
        let mut mesh = random_grid(12, &mut rng, Vec3::zeros());
        let mut bvh = MeshBvh::build(&mesh, margin);
        let fast = self_pairs(&mesh, &bvh);
        same_self(&fast, &brute_force_self_pairs(&mesh, margin));
        assert!(!fast.vertex_face.is_empty() && !fast.edge_edge.is_empty());
        // Move the mesh and refit (same topology).
        let moved = random_grid(12, &mut rng, Vec3::new(0.0, 0.0, 0.2));
        mesh.set_positions(moved.start().to_vec(), moved.end().to_vec())
            .unwrap();
        bvh.refit(&mesh).unwrap();
        same_self(
            &self_pairs(&mesh, &bvh),
            &brute_force_self_pairs(&mesh, margin),
        );
    }
}

#[test]
fn mesh_pairs_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let a = random_grid(10, &mut rng, Vec3::zeros());
    let b = random_grid(9, &mut rng, Vec3::new(0.3, 0.2, 0.1));
    let (ba, bb) = (MeshBvh::build(&a, 0.0), MeshBvh::build(&b, 0.0));
    let fast = mesh_pairs(&ba, &bb);
    let brute = brute_force_mesh_pairs(&a, &b, 0.0);
    same("vf ab", &fast.vertex_face_ab, &brute.vertex_face_ab);
    same("vf ba", &fast.vertex_face_ba, &brute.vertex_face_ba);
    same("ee", &fast.edge_edge, &brute.edge_edge);
    assert!(!fast.edge_edge.is_empty());
    // Far apart: nothing.
    let c = random_grid(9, &mut rng, Vec3::new(10.0, 0.0, 0.0));
    let none = mesh_pairs(&ba, &MeshBvh::build(&c, 0.0));
    assert!(
        none.vertex_face_ab.is_empty()
            && none.vertex_face_ba.is_empty()
            && none.edge_edge.is_empty()
    );
}

#[test]
fn self_pairs_skip_adjacent_features() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mesh = random_grid(6, &mut rng, Vec3::zeros());
    let bvh = MeshBvh::build(&mesh, 1.0); // huge margin: every box overlaps every box
    let p = self_pairs(&mesh, &bvh);
    for &(v, t) in &p.vertex_face {
        assert!(!mesh.triangles()[t as usize].contains(&v));
    }
    let nv = mesh.vertex_count();
    let expected_vf: usize = (0..nv as u32)
        .map(|v| mesh.triangles().iter().filter(|t| !t.contains(&v)).count())
        .sum();
    assert_eq!(p.vertex_face.len(), expected_vf);
    for &(i, j) in &p.edge_edge {
        let (ei, ej) = (mesh.edges()[i as usize], mesh.edges()[j as usize]);
        assert!(i < j && !ei.iter().any(|x| ej.contains(x)));
    }
}
