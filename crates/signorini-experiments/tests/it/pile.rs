//! The pile experiment: lattice sites, boxes, the pour layout's spawn check, summary.csv and
//! the log–log slope fit.

use signorini_experiments::pile_run::{PileConfig, Supply, run_one, run_pile, scene};
use signorini_experiments::{SUMMARY_HEADER, loglog_slope};
use signorini_geometry::dim2::Aabb;
use signorini_geometry::dim3::Aabb3;
use signorini_harness::pile::{Dim, Lattice, Layout, SPACING, Shape, ceil_root};
use signorini_harness::pile_world::{PileBody, PileWorld, pile_params};
use signorini_world::ContactModel;
use std::path::PathBuf;

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn config(dim: Dim, sizes: Vec<usize>, layout: Layout, duration: f64, out: PathBuf) -> PileConfig {
    PileConfig {
        dim,
        sizes,
        shape: Shape::Random,
        mu: 0.0,
        h: if dim == Dim::Two { 0.005 } else { 0.01 },
        duration,
        models: vec![ContactModel::Peg],
        layout,
        out,
        data: shared(),
        trajectories: false,
        dense_limit: None,
        sparse_lemke_from: None,
        sparse_warm_from: None,
        save_states: Vec::new(),
        resume: None,
    }
}

/// The world with the box and every body of the lattice scene, before any step.
fn initial_world(dim: Dim, n: usize) -> (PileWorld, Lattice, Vec<PileBody>) {
    let supply = Supply::load(dim, Shape::Random, &shared()).unwrap();
    let sc = scene(&supply, n, Layout::Lattice).unwrap();
    let mut w = PileWorld::new(&sc.boxed, pile_params(ContactModel::Peg, 0.01, 0.0)).unwrap();
    for b in &sc.bodies {
        w.add(b).unwrap();
    }
    (w, sc.lattice, sc.bodies)
}

#[test]
fn integer_roots_round_up_exactly() {
    let cases = [
        (1, 3, 1),
        (8, 3, 2),
        (26, 3, 3),
        (27, 3, 3),
        (28, 3, 4),
        (64, 3, 4),
    ];
    for (n, root, m) in cases {
        assert_eq!(ceil_root(n, root), m, "{n}");
    }
    assert_eq!(ceil_root(125, 3), 5);
    assert_eq!(ceil_root(1000, 3), 10);
    assert_eq!(ceil_root(100, 2), 10);
    assert_eq!(ceil_root(101, 2), 11);
}

#[test]
fn lattice_of_27_has_distinct_sites_no_overlap_and_stays_in_the_box() {
    let (w, lat, bodies) = initial_world(Dim::Three, 27);
    assert_eq!((lat.n, lat.levels), (3, 3));
    let sites: Vec<_> = (0..27).map(|k| lat.site3(k)).collect();
    for a in 0..27 {
        for b in a + 1..27 {
            assert!((sites[a] - sites[b]).norm() > 1.0, "sites {a}, {b}");
        }
    }
    assert_eq!(w.dynamic_count(), 27);
    assert_eq!(w.overlap(), 0.0, "exact intersection volume at t = 0");
    let half = lat.inner_width() / 2.0;
    let top = lat.levels as f64 * SPACING + 1.0 - 0.25; // wall top of open_box
    for b in &bodies {
        let PileBody::Spatial(p) = b else { panic!() };
        let bb = Aabb3::from_points(p.world_shape().vertices());
        assert!(bb.min.x > -half && bb.max.x < half && bb.min.y > -half && bb.max.y < half);
        assert!(bb.min.z > 0.0 && bb.max.z < top, "{bb:?}");
    }
}

#[test]
fn ten_bodies_fill_the_first_layer_then_the_second() {
    let lat = Lattice::new(Dim::Three, 10, SPACING);
    assert_eq!((lat.n, lat.levels), (3, 2));
    let s = SPACING;
    for k in 0..9 {
        let p = lat.site3(k);
        assert_eq!(p.z, s / 2.0, "body {k} in layer 0");
        assert_eq!(p.x, ((k % 3) as f64 - 1.0) * s);
        assert_eq!(p.y, ((k / 3) as f64 - 1.0) * s);
    }
    let p = lat.site3(9);
    assert_eq!((p.x, p.y, p.z), (-s, -s, s / 2.0 + s));
}

#[test]
fn two_dimensional_lattice_fills_rows_in_order_without_overlap() {
    let lat = Lattice::new(Dim::Two, 10, 0.5);
    assert_eq!((lat.n, lat.levels), (4, 3));
    assert_eq!(lat.site2(0).x, -1.5 * 0.5);
    assert_eq!(lat.site2(3).x, 1.5 * 0.5);
    assert_eq!(lat.site2(4).y, 0.25 + 0.5);
    assert_eq!(lat.site2(9).y, 0.25 + 1.0);
    let (w, lat, bodies) = initial_world(Dim::Two, 100);
    assert_eq!((lat.n, lat.levels), (10, 10));
    assert_eq!(w.overlap(), 0.0, "exact intersection area at t = 0");
    let half = lat.inner_width() / 2.0;
    for b in &bodies {
        let PileBody::Planar(p) = b else { panic!() };
        assert_eq!(p.velocity.norm(), 0.0);
        let bb = Aabb::from_points(p.world_vertices().iter());
        assert!(bb.min.x > -half && bb.max.x < half && bb.min.y > 0.0);
    }
}

#[test]
fn pour_layout_never_spawns_inside_another_body() {
    let out = crate::tmp("pile-pour");
    let cfg = config(Dim::Three, vec![3], Layout::Pour, 0.1, out.to_path_buf());
    let supply = Supply::load(Dim::Three, Shape::Random, &cfg.data).unwrap();
    let sc = scene(&supply, 3, Layout::Pour).unwrap();
    // A body sitting at the spawn point blocks it.
    let mut w = PileWorld::new(&sc.boxed, pile_params(ContactModel::Peg, 0.01, 0.0)).unwrap();
    assert!(w.spawn_free(&sc.bodies[0]));
    w.add(&sc.bodies[0]).unwrap();
    assert!(!w.spawn_free(&sc.bodies[1]));
    let r = run_one(&cfg, &sc, ContactModel::Peg).unwrap();
    assert_eq!(r.drops.len(), 3);
    assert_eq!(r.spawn_overlap, 0.0);
    let every = signorini_harness::pile::pour_interval(SPACING, 0.01);
    assert!(r.drops.windows(2).all(|d| d[1] - d[0] >= every));
    assert!(r.steps() >= r.drops[2] - 1 + 100, "1 s after the last drop");
}

#[test]
fn summary_has_one_row_per_model_and_size_in_increasing_n() {
    let out = crate::tmp("pile-sum");
    let mut cfg = config(
        Dim::Three,
        vec![2, 1],
        Layout::Lattice,
        0.03,
        out.to_path_buf(),
    );
    cfg.models = vec![ContactModel::Peg, ContactModel::Corrective];
    let r = run_pile(&cfg).unwrap();
    assert_eq!(r.runs.len(), 4);
    let text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], SUMMARY_HEADER);
    let keys: Vec<(String, String)> = lines[1..]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), SUMMARY_HEADER.split(',').count());
            (f[0].to_string(), f[3].to_string())
        })
        .collect();
    let want = [
        ("peg", "1"),
        ("corrective", "1"),
        ("peg", "2"),
        ("corrective", "2"),
    ];
    assert_eq!(
        keys,
        want.map(|(m, n)| (m.to_string(), n.to_string())).to_vec()
    );
    assert!(out.join("scaling.svg").exists() && out.join("overlap.svg").exists());
    let steps = std::fs::read_to_string(out.join("steps/peg_3d_random_n2.csv")).unwrap();
    let header = steps.lines().next().unwrap();
    assert!(
        header.ends_with(
            ",islands,largest_unknowns,solver,fallbacks,corrections,basis_reuses,projections,projection_unknowns,rounds,fallback_lines"
        ),
        "{header}"
    );
    // Every field but the last (the quoted fallback lines, which may hold commas) is plain.
    for row in steps.lines().skip(1) {
        let (plain, lines) = row.split_once('"').expect("a quoted fallback_lines field");
        assert_eq!(plain.split(',').count(), header.split(',').count(), "{row}");
        assert!(lines.ends_with('"'), "{row}");
    }
}

#[test]
fn slope_of_cubic_data_is_three() {
    let pts: Vec<(f64, f64)> = [8.0, 27.0, 125.0, 1000.0]
        .iter()
        .map(|&n: &f64| (n, n.powi(3)))
        .collect();
    assert!((loglog_slope(&pts) - 3.0).abs() < 1e-12);
    assert!(loglog_slope(&pts[..1]).is_nan());
}

/// The small pile: 27 random polyhedra released from rest on the lattice, PEG,
/// frictionless, h = 0.01 s, 2 s (200 steps; the pile forms one island of ~400 unknowns with
/// the vertex–vertex cone form, ~900 with the per-face-pair form).
/// No step may fail and no step may leave more than 1e-8 m³ of overlap: the limit is
/// 1e-6, and every step has met 1e-8 since the position projection's energy reference counts
/// the depth it finds (before: one landing step left 9.4e-7 m³, passing the limit
/// by a factor of 1.07 only). The island has ~425 unknowns, so this also runs Lemke's
/// restart from a factor and the structured basis inverse (both from 400 unknowns).
#[test]
fn a_pile_of_27_ends_with_no_failed_step_and_overlap_within_the_limit() {
    let out = crate::tmp("pile-27");
    let cfg = config(
        Dim::Three,
        vec![27],
        Layout::Lattice,
        2.0,
        out.to_path_buf(),
    );
    let r = run_pile(&cfg).unwrap();
    let run = &r.runs[0];
    assert_eq!(run.n, 27);
    assert_eq!(run.overlap.len(), 200);
    assert_eq!(run.failed_steps, 0, "failed steps");
    let max = run.overlap.iter().copied().fold(0.0, f64::max);
    assert!(max <= 1e-8, "max overlap {max:e} m³");
    assert!(
        run.max_unknowns > 300,
        "the pile is one large island: {}",
        run.max_unknowns
    );
}

/// `--save-state` / `--resume`: 8 bodies for 0.6 s with the state saved after step 30; a
/// second run resumed from it writes the trajectory rows of steps 31–60 only, bit for bit the
/// uninterrupted run's (the state carries the stored Lemke bases: without them, as before
/// session 37, the rows from step 42 on differed in their last digits). A state of another
/// run (here: another friction) is refused, naming the file and the field.
#[test]
fn a_run_resumed_from_a_saved_state_continues_the_trajectory() {
    let out = crate::tmp("pile-resume");
    let mut cfg = config(Dim::Three, vec![8], Layout::Lattice, 0.6, out.join("a"));
    cfg.trajectories = true;
    cfg.save_states = vec![30];
    run_pile(&cfg).unwrap();
    let state = out.join("a/states/peg_3d_random_n8-step30.json");
    let mut again = config(Dim::Three, vec![8], Layout::Lattice, 0.6, out.join("b"));
    again.trajectories = true;
    again.resume = Some(state.clone());
    run_pile(&again).unwrap();
    let rows = |dir: &str| -> Vec<String> {
        let path = out.join(dir).join("trajectories/peg_3d_random_n8.csv");
        let text = std::fs::read_to_string(path).unwrap();
        text.lines().skip(1).map(str::to_string).collect()
    };
    let (whole, resumed) = (rows("a"), rows("b"));
    let step = |r: &String| r.split(',').next().unwrap().parse::<usize>().unwrap();
    let after: Vec<String> = whole.iter().filter(|r| step(r) > 30).cloned().collect();
    assert_eq!(resumed.len(), 30 * 8);
    if let Some(k) = (0..after.len()).find(|&k| resumed.get(k) != after.get(k)) {
        panic!("row {k} differs: {} vs {}", resumed[k], after[k]);
    }

    // The same state gzip-compressed (`.json.gz`) resumes the same trajectory; a truncated
    // one is refused, naming the file.
    let gz = out.join("state-step30.json.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &std::fs::read(&state).unwrap()).unwrap();
    let packed = enc.finish().unwrap();
    std::fs::write(&gz, &packed).unwrap();
    let mut from_gz = again.clone();
    from_gz.resume = Some(gz);
    from_gz.out = out.join("gz");
    run_pile(&from_gz).unwrap();
    assert_eq!(rows("gz"), resumed, "resumed from the compressed state");
    let cut = out.join("truncated-step30.json.gz");
    std::fs::write(&cut, &packed[..packed.len() / 2]).unwrap();
    let mut truncated = from_gz.clone();
    truncated.resume = Some(cut);
    truncated.out = out.join("gz-cut");
    let err = run_pile(&truncated).unwrap_err().to_string();
    assert!(err.contains("truncated-step30.json.gz"), "{err}");

    let mut other = again.clone();
    other.mu = 0.5;
    other.out = out.join("c");
    let err = run_pile(&other).unwrap_err().to_string();
    assert!(
        err.contains("step30.json") && err.contains("friction"),
        "{err}"
    );

    // A stored basis that is not a complementary basis (an edited file): refused with the path.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let factor = &mut json["world"]["bases"]["islands"][0][1]["factor"];
    assert!(factor.is_object(), "no stored island basis at step 30");
    factor["basis"][0] = factor["basis"][1].clone();
    let edited = out.join("edited-step30.json");
    std::fs::write(&edited, json.to_string()).unwrap();
    let mut broken = again.clone();
    broken.resume = Some(edited);
    broken.out = out.join("d");
    let err = run_pile(&broken).unwrap_err().to_string();
    assert!(
        err.contains("edited-step30.json")
            && err.contains("world.bases.islands[0][1].factor")
            && err.contains("twice in the basis"),
        "{err}"
    );
}

/// The 125-body pile with the sparse Lemke from 60 unknowns, resumed from its state after step
/// 80 (`tests/fixtures/pile3d_n125_sparse60_after_step80.json`, written by the code before the
/// rule below). There the gap-correction rounds of one step sped a body up round after round
/// (27 → 133 rad/s) and deepened the violation they were removing (0.18 → 0.91 m), a chord
/// iteration diverging, while the island's energy stayed under twice its reference; by step
/// 85 a "solved" step left 2.1e-2 m³ of overlap (that code, from this state). The body-by-body
/// energy rule (`signorini_world::RUNAWAY_TURN`) undoes such a round (docs/peg3d.md, item 29).
#[test]
fn a_gap_correction_that_spins_a_body_up_is_undone() {
    let out = crate::tmp("pile-runaway");
    let mut cfg = config(Dim::Three, vec![125], Layout::Lattice, 0.85, out.join("a"));
    cfg.sparse_lemke_from = Some(60);
    cfg.resume = Some(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pile3d_n125_sparse60_after_step80.json"),
    );
    let result = run_pile(&cfg).unwrap();
    let run = &result.runs[0];
    assert_eq!(run.overlap.len(), 5, "steps 81–85");
    assert_eq!(run.failed_steps, 0);
    let max = run.overlap.iter().copied().fold(0.0, f64::max);
    assert!(max <= 1e-6, "max overlap {max:e} m³ over steps 81–85");
}
