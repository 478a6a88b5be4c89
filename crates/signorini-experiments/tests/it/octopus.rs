//! The octopus experiment (CPF Figs. 10–11) on a tiny octopus: under CPF no vertex ends inside
//! (through) the bowl and no edge through a triangle, after the octopus has landed;
//! deterministic; the full variant has about the paper's 14.7k triangles.

use crate::{steps_touching, strip, tmp};
use signorini_experiments::octopus::{self, OctopusParams};
use signorini_harness::deform_run::ForceModel;
use signorini_math::Vec3;

/// A 496-triangle octopus (4 vertices around an arm, 4 rings per arm) in a 112-triangle bowl,
/// 8 s (it lands on its arm tips at ≈ 2 s and settles).
fn tiny(model: ForceModel) -> OctopusParams {
    OctopusParams {
        arm_segments: 1,
        arm_rings: 4,
        bowl_segments: (16, 4),
        duration: 8.0,
        ..OctopusParams::small(model)
    }
}

#[test]
fn tiny_octopus_cpf_ends_with_no_vertex_through_the_bowl() {
    let dir = tmp("octopus-a");
    let (a, e, through) = octopus::run(&tiny(ForceModel::Cpf), &dir).unwrap();
    assert_eq!(a.steps, 240);
    assert_eq!(a.triangles, 496 + 112);
    assert!(e.diverged_at.is_none(), "{e:?}");
    assert_eq!(through, 0, "octopus vertices through the bowl at the end");
    assert_eq!(a.pairs_penetrating_at_end, 0, "{a:?}");
    // The octopus reached the bowl: a contact force in most of the final 60 steps.
    let touching = steps_touching(&dir.join("octopus_cpf.csv"), 60);
    assert!(touching > 30, "the octopus is not resting in the bowl");
    assert_eq!(
        std::fs::read_to_string(dir.join("bowl.csv")).unwrap(),
        "model,vertices_through_bowl_at_end\ncpf,0\n"
    );
    let (b, ..) = octopus::run(&tiny(ForceModel::Cpf), &tmp("octopus-b")).unwrap();
    assert_eq!(strip(&a), strip(&b), "two runs differ");
    // The same octopus under discrete penalty forces ends with edges through triangles
    // (34 pairs when written), so the check above can fail.
    let (d, ..) = octopus::run(&tiny(ForceModel::Dpf), &tmp("octopus-dpf")).unwrap();
    assert!(d.pairs_penetrating_at_end > 0, "{d:?}");
}

/// The check sees a vertex through the sheet: one vertex moved just below the bowl's bottom,
/// one just outside its wall, none for a vertex above the rim or inside.
#[test]
fn through_bowl_counts_vertices_past_the_sheet() {
    let mut w = octopus::build(&tiny(ForceModel::Cpf)).unwrap();
    assert_eq!(octopus::through_bowl(&w), 0, "the octopus starts inside");
    let r = octopus::BOWL;
    let d = &mut w.deformables[0];
    d.x[0] = Vec3::new(0.0, 0.0, -1e-4);
    assert_eq!(octopus::through_bowl(&w), 1);
    let d = &mut w.deformables[0];
    d.x[1] = Vec3::new(r + 1e-4, 0.0, 0.5 * r);
    d.x[2] = Vec3::new(r + 1e-4, 0.0, r + 1e-3);
    d.x[3] = Vec3::new(0.0, 0.5 * r, 0.5 * r);
    assert_eq!(octopus::through_bowl(&w), 2);
}

#[test]
fn the_octopus_starts_inside_the_bowl_without_crossings_and_full_has_the_papers_size() {
    for p in [
        tiny(ForceModel::Cpf),
        OctopusParams::small(ForceModel::Cpf),
        OctopusParams::full(ForceModel::Cpf),
    ] {
        let w = octopus::build(&p).unwrap();
        assert_eq!(w.deformables.len(), 1);
        assert_eq!(octopus::through_bowl(&w), 0);
        let c = signorini_harness::deform_run::world_crossings(&w);
        assert_eq!(c.pairs, 0, "edges through triangles at rest");
    }
    let full = octopus::build(&OctopusParams::full(ForceModel::Cpf)).unwrap();
    assert_eq!(full.deformables[0].triangles().len(), 14_640);
    let small = octopus::build(&OctopusParams::small(ForceModel::Cpf)).unwrap();
    assert_eq!(small.deformables[0].triangles().len(), 3008);
}
