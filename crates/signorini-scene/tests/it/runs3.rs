//! 3D runs: timed drops in penalty scenes, the 3D outputs the replay reads.

use crate::tmp;
use signorini_scene::{RunOptions, load_str, run};
use std::path::Path;

const DROPS: &str = r#"
dimension = 3
[step]
h = 0.01
steps = 10
[contact]
model = "cpf"
stiffness = 1e4
[[body]]
static = true
shape = { type = "primitive", kind = "plane", size = [2.0, 2.0] }
[[body]]
name = "ball"
shape = { type = "primitive", kind = "sphere", radius = 0.05, segments = 8, rings = 4 }
density = 1000.0
position = [0.5, 0.0, 0.3]
drop_time = 0.05
[[body]]
name = "cube"
shape = { type = "box", size = [0.1, 0.1, 0.1] }
mass = 1.0
position = [0.0, 0.0, 0.2]
"#;

#[test]
fn penalty_bodies_enter_at_their_drop_step() {
    let s = load_str(Path::new("drops.toml"), DROPS).unwrap();
    let dir = tmp("drops3");
    let o = run(
        &s,
        RunOptions {
            out: Some(dir.to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let w = o.world.meshes().unwrap();
    assert_eq!(w.bodies.len(), 3);
    // The ball (dynamic index 0) enters before step 6, after the plane and the cube.
    let traj = std::fs::read_to_string(dir.join("trajectories.csv")).unwrap();
    let first_ball = traj
        .lines()
        .skip(1)
        .find(|l| l.split(',').nth(1) == Some("0"))
        .unwrap();
    assert!(first_ball.starts_with("6,0,"), "{first_ball}");
    let rows = |body: &str| {
        traj.lines()
            .filter(|l| l.split(',').nth(1) == Some(body))
            .count()
    };
    assert_eq!((rows("0"), rows("1")), (5, 10));
    // The trace follows the ball from step 6 (its first row is at t = 0.06 s).
    let trace = std::fs::read_to_string(dir.join("trace.csv")).unwrap();
    assert_eq!(trace.lines().count(), 1 + 5, "{trace}");
    // bodies.json: 3D, drop steps and world indices in insertion order.
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bodies.json")).unwrap()).unwrap();
    assert_eq!(b["dimension"], 3);
    let bodies = b["bodies"].as_array().unwrap();
    assert_eq!(bodies[1]["drop_step"], 5);
    assert_eq!(bodies[1]["world_index"], 2);
    assert_eq!(bodies[2]["world_index"], 1);
    assert_eq!(bodies[2]["faces"].as_array().unwrap().len(), 12);
    // The ball fell freely until it entered: it starts at rest at z = 0.3.
    let z: f64 = first_ball.split(',').nth(4).unwrap().parse().unwrap();
    assert!((z - (0.3 - 9.81 * 0.01 * 0.01)).abs() < 1e-12, "{z}");
}

#[test]
fn polyhedra_runs_write_3d_faces_and_volumes() {
    let text = r#"
dimension = 3
[step]
h = 0.01
steps = 30
[[body]]
static = true
shape = { type = "box", size = [2.0, 2.0, 0.2], center = [0.0, 0.0, -0.1] }
[[body]]
shape = { type = "convex_hull", points = [[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.2], [0.05, 0.05, 0.05]] }
density = 500.0
position = [0.0, 0.0, 0.1]
rotation = [0.1, 0.2, 0.0]
"#;
    let s = load_str(Path::new("tet.toml"), text).unwrap();
    let dir = tmp("tet3");
    let o = run(
        &s,
        RunOptions {
            out: Some(dir.to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(o.summary.kind, "polyhedra");
    assert_eq!(o.summary.failed_steps, 0);
    assert!(o.summary.max_overlap < 1e-9, "{}", o.summary.max_overlap);
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bodies.json")).unwrap()).unwrap();
    // The interior point is dropped: a tetrahedron, 4 faces.
    assert_eq!(b["bodies"][1]["faces"].as_array().unwrap().len(), 4);
    let contacts = std::fs::read_to_string(dir.join("contacts.csv")).unwrap();
    assert!(contacts.starts_with("step,a,b,x,y,z,nx,ny,nz,gap"));
    assert!(
        contacts.lines().count() > 1,
        "the tetrahedron lands: contacts drawn"
    );
}

/// A rigid-mesh penalty run whose state stops being finite (stiffness 1e300 N/m) stops at that
/// step, counts it as failed and fails the `finite_state` check (exit code 1 from the CLI).
#[test]
fn a_diverging_mesh_run_stops_and_fails() {
    let path = crate::repo().join("scenes/box_on_plane.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let bad = text
        .lines()
        .map(|l| {
            if l.starts_with("stiffness =") {
                "stiffness = 1e300".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let s = load_str(&path, &bad).unwrap();
    let o = run(&s, RunOptions::default()).unwrap();
    assert_eq!(o.summary.failed_steps, 1, "{:?}", o.summary);
    assert!(o.summary.steps < 3000, "ran on: {} steps", o.summary.steps);
    assert!(!o.summary.all_checks_pass);
    let why = format!("non-finite state at step {}", o.summary.steps);
    assert_eq!(o.summary.failed.as_deref(), Some(why.as_str()));
    assert!(
        o.summary
            .checks
            .iter()
            .any(|c| c.name == "finite_state" && !c.pass)
    );
    let ok = run(
        &load_scene_text(&path, &text),
        RunOptions {
            max_steps: Some(50),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ok.summary.failed_steps, 0);
}

fn load_scene_text(path: &Path, text: &str) -> signorini_scene::Scene {
    load_str(path, text).unwrap()
}
