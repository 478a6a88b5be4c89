//! The bucket experiment (CPF Fig. 14) on tiny meshes: deterministic, CPF ends with no edge
//! through a triangle after the bodies have landed in the bucket, the full variant has the
//! paper's ≥ 100k triangles and forty bodies.

use crate::{steps_touching, strip, tmp};
use signorini_experiments::bucket::{self, BucketParams};
use signorini_harness::deform_run::ForceModel;

/// Two bodies of ≈ 50 triangles in a 108-triangle bucket, 30 s (they land at ≈ 22 s and,
/// under the per-vertex stiffness limit, bounce a few times: contact in the last 2 s).
fn tiny(model: ForceModel) -> BucketParams {
    BucketParams {
        bodies: 2,
        per_side: 1,
        body_segments: 8,
        bucket_segments: (12, 2, 3),
        duration: 30.0,
        ..BucketParams::small(model)
    }
}

#[test]
fn tiny_bucket_cpf_is_deterministic_and_ends_without_crossings() {
    let dir = tmp("a");
    let (a, _) = bucket::run(&tiny(ForceModel::Cpf), &dir).unwrap();
    let (b, _) = bucket::run(&tiny(ForceModel::Cpf), &tmp("b")).unwrap();
    assert_eq!(strip(&a), strip(&b), "two runs differ");
    assert_eq!(a.steps, 900);
    assert_eq!(
        a.triangles,
        12 + 2 * 12 + 2 * 12 * 3 + 2 * 8 * 3 + 2 * 8 * 4
    );
    assert_eq!(a.pairs_penetrating_at_end, 0, "{a:?}");
    // The bodies reached the bucket: a contact force in the final steps.
    let touching = steps_touching(&dir.join("bucket_cpf.csv"), 60);
    assert!(touching > 30, "the bodies are not resting in the bucket");
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 8, "{text}");
}

#[test]
fn full_bucket_has_forty_bodies_and_100k_triangles() {
    let w = bucket::build(&BucketParams::full(ForceModel::Cpf)).unwrap();
    assert_eq!(w.deformables.len(), 40);
    assert!(w.triangle_count() >= 100_000, "{}", w.triangle_count());
    assert!(
        bucket::build(&BucketParams {
            bodies: 0,
            ..BucketParams::small(ForceModel::Cpf)
        })
        .is_err()
    );
}

/// The full variant's bodies (52 segments) are pole-free cube spheres and are stable in free
/// fall with 10 sub-steps; as 52 × 26 UV spheres (52 springs on one pole vertex) they blow up
/// within a few steps (`Extra::diverged_at`), which the first full run did.
#[test]
fn full_resolution_bodies_are_stable_without_poles() {
    let one = |pole_free: bool, name: &str| {
        let p = BucketParams {
            bodies: 3,
            per_side: 1,
            duration: 1.0,
            pole_free,
            ..BucketParams::full(ForceModel::Cpf)
        };
        assert_eq!(p.substeps, 10);
        bucket::run(&p, &tmp(name)).unwrap().1
    };
    assert!(BucketParams::full(ForceModel::Cpf).pole_free);
    let e = one(true, "cube");
    assert_eq!(e.diverged_at, None, "{e:?}");
    let e = one(false, "uv");
    assert!(e.diverged_at.is_some(), "UV poles should diverge: {e:?}");
}
