//! The paper preset (`WorldParams::paper`, the CLI's `--paper`): every project addition off.

use super::*;

#[test]
fn the_paper_preset_turns_every_addition_off() {
    for model in [
        ContactModel::Peg,
        ContactModel::Standard,
        ContactModel::Corrective,
    ] {
        let p = WorldParams::paper(model, 0.01);
        assert_eq!(p.gap_corrections, 0);
        assert!(
            !p.split_penetration,
            "split impulse (and position projection)"
        );
        assert!(!p.keep_best_on_failure, "keep-best-on-failure");
        assert!(!p.reuse_basis, "basis reuse");
        assert!(!p.warm_start, "warm starts");
        assert!(!p.islands, "islands");
        assert_eq!(p.solve_work_limit, None, "solve budget");
        assert!(p.paper_detection, "detection additions");
        assert!(p.is_paper());
        // The physical settings are the defaults'.
        let d = WorldParams::new(model, 0.01);
        assert_eq!((p.h, p.model, p.mu), (d.h, d.model, d.mu));
        assert_eq!(p.friction_directions, d.friction_directions);
        // The default stepper is not the paper's, and turning any one addition back on
        // leaves the preset.
        assert!(!d.is_paper());
        let on: [fn(&mut WorldParams); 8] = [
            |p| p.gap_corrections = 1,
            |p| p.split_penetration = true,
            |p| p.keep_best_on_failure = true,
            |p| p.reuse_basis = true,
            |p| p.warm_start = true,
            |p| p.islands = true,
            |p| p.solve_work_limit = Some(1e9),
            |p| p.paper_detection = false,
        ];
        for (k, f) in on.iter().enumerate() {
            let mut q = p.clone();
            f(&mut q);
            assert!(!q.is_paper(), "addition {k} back on");
        }
    }
}

/// A diamond whose bottom vertex is 5 cm inside the floor (ε = 5 mm): the project's deep-vertex
/// rule pairs it with the floor's top edge and pushes it out; the paper's detection (reference
/// `get_all_contacts_2d.m`) sees no contact, and the overlap stays.
#[test]
fn the_paper_detection_has_no_deep_vertex_rule() {
    let run = |p: WorldParams| {
        let mut w = World::new(p).unwrap();
        w.add_body(floor()).unwrap();
        let diamond = RigidBody2::dynamic(square(0.1), 1.0, 0.01)
            .unwrap()
            .with_pose(
                Vec2::new(0.0, 0.1 * 2f64.sqrt() - 0.05),
                std::f64::consts::FRAC_PI_4,
            );
        w.add_body(diamond).unwrap();
        let r = w.step();
        (r.counts.contacts, w.bodies[1].position.y)
    };
    let h = 0.01;
    let y0 = 0.1 * 2f64.sqrt() - 0.05;
    let mut project = WorldParams::new(ContactModel::Peg, h);
    project.islands = false;
    let (n_project, y_project) = run(project);
    let (n_paper, y_paper) = run(WorldParams::paper(ContactModel::Peg, h));
    assert!(n_project >= 1, "the deep vertex is paired");
    assert!(y_project > y0 + 0.04, "pushed out by psi/h: {y_project}");
    assert_eq!(n_paper, 0, "no contact under the paper's detection");
    assert!((y_paper - y0).abs() < 1e-12, "stays: {y_paper}");
}
