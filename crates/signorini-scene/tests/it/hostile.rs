//! Issue #20, hostile scene files: every count above its limit is a located error naming the
//! field, the value and the limit (they used to panic with "capacity overflow" or abort on an
//! allocation); names that would escape `out/`; bodies that start overlapping; conflicting
//! fields; messages that name what is wrong. And runs: a non-finite state fails the run; the
//! memory estimate refuses a run before anything is written.

use crate::errors::{Case, case, check};
use signorini_scene::{RunOptions, load_str, run};
use std::path::Path;

const STEP: &str = "[step]\nh = 0.01\nsteps = 10\n";
const STEP3: &str = "dimension = 3\n[step]\nh = 0.01\nsteps = 10\n";
const PENALTY: &str = "[contact]\nmodel = \"cpf\"\nstiffness = 1e4\n";
const FLOOR: &str = "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"rectangle\", min = [-1.0, -0.1], max = [1.0, 0.0] }\n";
const FLOOR3: &str = "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"box\", size = [4.0, 4.0, 1.0], center = [0.0, 0.0, -0.5] }\n";
const MAT: &str = "material = { areal_density = 0.2, stretch = 2000.0 }";

/// A penalty scene with one dynamic primitive.
fn prim(p: &str) -> String {
    format!("{STEP3}{PENALTY}[[body]]\nshape = {{ type = \"primitive\", {p} }}\ndensity = 1000.0\n")
}

/// A cloth of `cells`.
fn cloth(cells: &str) -> String {
    format!(
        "{STEP3}{PENALTY}[[deformable]]\nshape = {{ type = \"grid\", size = [1.0, 1.0], cells = {cells} }}\n{MAT}\n"
    )
}

/// A 2D box with extra lines.
fn box2(extra: &str) -> String {
    format!(
        "{STEP}{FLOOR}[[body]]\nshape = {{ type = \"box\", size = [0.2, 0.2] }}\nmass = 1.0\n{extra}\n"
    )
}

fn cases() -> Vec<Case> {
    let limit = "is above the limit of";
    vec![
        // The crashes of issue #20 (each used to panic or abort).
        case(
            prim("kind = \"cube_sphere\", radius = 1.0, segments = 1000000000"),
            "body[0].shape.segments",
            "1000000000 is above the limit of 4096 segments",
            "shape = {",
        ),
        case(
            prim(
                "kind = \"torus\", radius = 1.0, tube_radius = 0.2, segments = 18446744073709551615",
            ),
            "body[0].shape.segments",
            "18446744073709551615 is above the limit of 4096",
            "shape = {",
        ),
        case(
            prim("kind = \"sphere\", radius = 1.0, segments = 100000, rings = 100000"),
            "body[0].shape.segments",
            limit,
            "shape = {",
        ),
        case(
            box2("copies = 1000000000000000000\ninterval = 0.1"),
            "body[1].copies",
            "1000000000000000000 is above the limit of 100000 bodies",
            "copies =",
        ),
        case(
            format!(
                "{STEP}[[body]]\nshape = {{ type = \"regular_polygon\", sides = 1000000000000, radius = 1.0 }}\nmass = 1.0\n"
            ),
            "body[0].shape.sides",
            "1000000000000 is above the limit of 1024 sides",
            "shape = {",
        ),
        case(
            cloth("[100000, 100000]"),
            "deformable[0].shape.cells[0]",
            "100000 is above the limit of 1000 cells per side",
            "shape = {",
        ),
        case(
            cloth("[3000, 3000]"),
            "deformable[0].shape.cells[0]",
            limit,
            "shape = {",
        ),
        // Counts each within its limit whose product is not.
        case(
            cloth("[700, 700]"),
            "deformable[0].shape.cells",
            "980000 triangles, above the limit of 500000 triangles per mesh",
            "shape = {",
        ),
        case(
            prim("kind = \"sphere\", radius = 1.0, segments = 4000, rings = 4000"),
            "body[0].shape",
            "31992000 triangles, above the limit",
            "shape = {",
        ),
        case(
            format!("[step]\nh = 0.01\nsteps = 1000000000\n{FLOOR}"),
            "step.steps",
            "1000000000 is above the limit of 100000000 steps",
            "steps =",
        ),
        case(
            format!("[step]\nh = 0.01\nduration = 1e300\n{FLOOR}"),
            "step.duration",
            "1.0000e302 steps, above the limit of 100000000 steps",
            "duration =",
        ),
        case(
            format!("{}[deformables]\nsubsteps = 1000000000\n", cloth("[2, 2]")),
            "deformables.substeps",
            limit,
            "substeps =",
        ),
        case(
            format!("{STEP}[contact]\ngap_corrections = 1000000000\n{FLOOR}"),
            "contact.gap_corrections",
            limit,
            "gap_corrections =",
        ),
        // Names that would escape out/.
        case(
            format!(
                "name = \"../../escaped\"\n{}",
                box2("position = [0.0, 0.5]")
            ),
            "name",
            "plain file name",
            "name =",
        ),
        case(
            format!("name = \"/tmp/x\"\n{}", box2("position = [0.0, 0.5]")),
            "name",
            "plain file name",
            "name =",
        ),
        case(
            format!("name = \"..\"\n{}", box2("position = [0.0, 0.5]")),
            "name",
            "not a file name",
            "name =",
        ),
        case(
            format!("name = \"\"\n{}", box2("position = [0.0, 0.5]")),
            "name",
            "must not be empty",
            "name =",
        ),
        // Overlapping bodies where they enter the world (2D, 3D; same drop step).
        case(
            box2("position = [0.0, 0.05]"),
            "body[1]",
            "`floor` and `body1` (area 1.000e-2 m²)",
            "",
        ),
        case(
            format!(
                "{STEP3}{FLOOR3}[[body]]\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nmass = 1.0\nposition = [0.0, 0.0, 0.25]\n"
            ),
            "body[1]",
            "`floor` and `body1` (volume 2.500e-1 m³)",
            "",
        ),
        // Triangle meshes (rigid penalty scenes, deformable scenes): an edge through a triangle,
        // or one mesh inside a closed other.
        case(
            format!(
                "{STEP3}{PENALTY}{FLOOR3}[[body]]\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\ndensity = 1000.0\nposition = [0.0, 0.0, 0.25]\n"
            ),
            "body[1]",
            "`floor` and `body1` (",
            "",
        ),
        case(
            format!(
                "{STEP3}{PENALTY}{FLOOR3}[[body]]\nshape = {{ type = \"primitive\", kind = \"sphere\", radius = 0.1 }}\ndensity = 1000.0\nposition = [0.0, 0.0, -0.5]\n"
            ),
            "body[1]",
            "(`body1` lies inside `floor`)",
            "",
        ),
        case(
            format!(
                "{}position = [0.0, 0.0, 0.0]\n[[body]]\nname = \"post\"\nstatic = true\nshape = {{ type = \"box\", size = [0.3, 0.2, 1.0], center = [0.03, 0.07, 0.0] }}\n",
                cloth("[4, 4]")
            ),
            "deformable[0]",
            "`post` and `deformable0` (",
            "",
        ),
        // Conflicting fields, and messages that name the problem.
        case(
            format!(
                "{STEP3}[[body]]\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nmass = 1.0\nrotation = {{ axis = [0.0, 0.0, 1.0], angle = 0.5, euler = [0.1, 0.2, 0.3] }}\n"
            ),
            "body[0].rotation",
            "conflicting fields: give `euler` or `axis` and `angle`, not both",
            "rotation =",
        ),
        case(
            format!(
                "{STEP}[[body]]\nshape = {{ type = \"polygon\", vertices = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]] }}\nmass = 1.0\n"
            ),
            "body[0].shape.vertices",
            "degenerate: collinear or zero-area",
            "shape = {",
        ),
        case(
            format!(
                "{STEP}[[body]]\nshape = {{ type = \"polygon\", vertices = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]] }}\nmass = 1.0\n"
            ),
            "body[0].shape.vertices",
            "self-intersecting",
            "shape = {",
        ),
        case(
            format!(
                "{STEP3}[[body]]\nshape = {{ type = \"polyhedron\", vertices = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] }}\nmass = 1.0\n"
            ),
            "body[0].shape.vertices[2]",
            "duplicate points 0 and 2",
            "shape = {",
        ),
        case(
            format!("{}pins = [0, -1]\n", cloth("[2, 2]")),
            "deformable[0].pins[1]",
            "vertex index -1 is negative",
            "pins =",
        ),
        case(
            box2("inertia = \"heavy\""),
            "body[1].inertia",
            "expected a number (2D, kg m²), a diagonal",
            "inertia =",
        ),
    ]
}

#[test]
fn hostile_counts_names_and_fields_are_located_errors() {
    let mut bad = Vec::new();
    for (k, c) in cases().iter().enumerate() {
        if let Err(why) = check(k, c) {
            bad.push(why);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_message_names_an_internal_type() {
    for c in cases() {
        let e = load_str(Path::new("bad.toml"), &c.text)
            .unwrap_err()
            .to_string();
        assert!(
            !e.contains("untagged") && !e.contains("Raw"),
            "internal name in: {e}"
        );
    }
}

/// A 3000 × 3000 cloth took 54 s to validate; the limit refuses it before building anything.
#[test]
fn a_huge_cloth_is_refused_at_once() {
    let start = std::time::Instant::now();
    assert!(load_str(Path::new("c.toml"), &cloth("[3000, 3000]")).is_err());
    assert!(start.elapsed().as_secs_f64() < 1.0, "{:?}", start.elapsed());
}

/// Overlap rules: touching is not overlapping, a body dropped later is not checked against
/// other dynamic bodies, and `allow_initial_overlap = true` lets a scene run.
#[test]
fn touching_later_and_allowed_overlaps_validate() {
    for extra in ["position = [0.0, 0.1]", "position = [0.0, 0.05]"] {
        let allowed = format!("allow_initial_overlap = true\n{}", box2(extra));
        load_str(Path::new("ok.toml"), &allowed).unwrap();
    }
    load_str(Path::new("ok.toml"), &box2("position = [0.0, 0.1]")).unwrap();
    // Two copies dropped at the same place 0.5 s apart: not an overlap at entry.
    let copies = box2("position = [0.0, 0.5]\ncopies = 3\ninterval = 0.5");
    load_str(Path::new("ok.toml"), &copies).unwrap();
}

/// Meshes that touch exactly (a cube resting on a floor, a cloth lying on a box's top face) are
/// not overlapping; a mesh overlap is refused with the pair named and the number of edge–triangle
/// crossings, and `allow_initial_overlap = true` lets the same scene validate.
#[test]
fn mesh_overlaps_are_refused_unless_allowed_and_touching_meshes_validate() {
    let cube = |z: f64| {
        format!(
            "{STEP3}{PENALTY}{FLOOR3}[[body]]\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\ndensity = 1000.0\nposition = [0.0, 0.0, {z:?}]\n"
        )
    };
    load_str(Path::new("ok.toml"), &cube(0.5)).unwrap();
    let e = load_str(Path::new("bad.toml"), &cube(0.25))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("edge–triangle crossing(s), deepest 2.500e-1 m")
            && e.contains("field `body[1]`"),
        "{e}"
    );
    load_str(
        Path::new("ok.toml"),
        &format!("allow_initial_overlap = true\n{}", cube(0.25)),
    )
    .unwrap();
    let on_top = format!(
        "{}position = [0.0, 0.0, 0.5]\n[[body]]\nname = \"table\"\nstatic = true\nshape = {{ type = \"box\", size = [2.0, 2.0, 1.0] }}\n",
        cloth("[4, 4]")
    );
    load_str(Path::new("ok.toml"), &on_top).unwrap();
    let through = on_top.replace("position = [0.0, 0.0, 0.5]", "position = [0.0, 0.0, 0.25]");
    assert!(load_str(Path::new("bad.toml"), &through).is_err());
    load_str(
        Path::new("ok.toml"),
        &format!("allow_initial_overlap = true\n{through}"),
    )
    .unwrap();
}

/// A scene file that is not UTF-8: the message names the file, the line and column, and the
/// byte offset of the first invalid byte.
#[test]
fn a_scene_file_that_is_not_utf8_names_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.toml");
    let mut bytes = b"name = \"x\"\n# caf".to_vec();
    bytes.push(0xe9); // é in Latin-1
    bytes.extend_from_slice(b"\n[step]\n");
    std::fs::write(&path, &bytes).unwrap();
    let e = signorini_scene::load_scene(&path).unwrap_err();
    let msg = e.to_string();
    assert!(e.is_bad_input(), "{msg}");
    assert!(
        msg.starts_with(&format!("{}:2:6: ", path.display()))
            && msg.contains("byte 0xe9 at byte offset 16 is not valid UTF-8"),
        "{msg}"
    );
}

/// Negative, zero or NaN tolerances are refused as such, naming the field, whichever the model
/// (`standard_distance = -1` under PEG used to say only "only for model `standard`").
#[test]
fn nonsense_distances_and_tolerances_are_located_errors() {
    let cases = [
        (
            "[contact]\nstandard_distance = -1.0\n",
            "contact.standard_distance",
            "must be finite and > 0 m, got -1",
        ),
        (
            "[contact]\nstandard_distance = nan\n",
            "contact.standard_distance",
            "got NaN",
        ),
        (
            "[contact]\nmodel = \"standard\"\nstandard_distance = -1.0\n",
            "contact.standard_distance",
            "got -1",
        ),
        (
            "[contact]\npeg_distance = -0.001\n",
            "contact.peg_distance",
            "got -0.001",
        ),
        (
            "[contact]\nmodel = \"standard\"\npeg_distance = nan\n",
            "contact.peg_distance",
            "got NaN",
        ),
        (
            "[contact]\nfriction = -0.5\n",
            "contact.friction",
            "got -0.5",
        ),
        (
            "[checks]\nmax_overlap = -1.0\n",
            "checks.max_overlap",
            "got -1",
        ),
        (
            "[checks]\nmax_penetration = nan\n",
            "checks.max_penetration",
            "got NaN",
        ),
    ];
    for (extra, field, reason) in cases {
        let text = format!("{extra}{}", box2("position = [0.0, 0.1]"));
        let e = load_str(Path::new("t.toml"), &text).unwrap_err();
        let l = e.located().unwrap_or_else(|| panic!("not located: {e}"));
        assert_eq!(l.field, field, "{e}");
        assert!(l.reason.contains(reason) && l.line.is_some(), "{e}");
    }
    let penalty = prim("kind = \"sphere\", radius = 0.1").replace(
        "stiffness = 1e4\n",
        "stiffness = 1e4\nstandard_distance = -2.0\n",
    );
    let e = load_str(Path::new("t.toml"), &penalty).unwrap_err();
    assert!(
        e.to_string()
            .contains("field `contact.standard_distance`: must be finite and > 0 m"),
        "{e}"
    );
}

/// Gravity 1e300 on a box: the velocity stays a (huge) finite number, but the state's energy
/// overflows in step 1. The run stops there as failed instead of exiting 0 with "NaN J".
#[test]
fn a_non_finite_state_fails_the_run_at_its_step() {
    for text in [
        format!("gravity = [0.0, -1e300]\n{}", box2("position = [0.0, 0.5]")),
        format!(
            "gravity = [0.0, 0.0, -1e300]\n{STEP3}{FLOOR3}[[body]]\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\nmass = 1.0\nposition = [0.0, 0.0, 0.5]\n"
        ),
    ] {
        let scene = load_str(Path::new("g.toml"), &text).unwrap();
        let o = run(&scene, RunOptions::default()).unwrap();
        let s = &o.summary;
        assert_eq!(
            s.failed.as_deref(),
            Some("non-finite state at step 1"),
            "{s:?}"
        );
        assert_eq!((s.steps, s.failed_steps), (1, 1));
        assert!(!s.all_checks_pass);
        let json = serde_json::to_value(s).unwrap();
        assert_eq!(json["failed"], "non-finite state at step 1");
    }
}

/// `max_penetration` of a polyhedra run is the deepest minimum translational distance, not 0:
/// a cube falling at 10 m/s under the standard model with a 0.1 mm detection distance sinks
/// 9 cm into the floor in one step of 10 ms.
#[test]
fn polyhedra_runs_measure_the_penetration_depth() {
    let text = format!(
        "{STEP3}[contact]\nmodel = \"standard\"\nstandard_distance = 0.0001\n{FLOOR3}[[body]]\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\nmass = 1.0\nposition = [0.0, 0.0, 0.11]\nvelocity = [0.0, 0.0, -10.0]\n"
    );
    let scene = load_str(Path::new("p.toml"), &text).unwrap();
    let o = crate::run_steps(&scene, None, 1, None);
    let d = o.summary.max_penetration;
    // Bottom at 0.01 − 0.1 − g h² = −0.090981 m.
    let expected = 0.1 - 0.01 + 9.81 * 0.01 * 0.01;
    assert!(
        (d - expected).abs() < 1e-9,
        "max_penetration {d}, expected {expected}"
    );
}

/// The memory estimate refuses a run before its first step, and before anything is written;
/// so do a step count above the limit through `h`, and zero steps.
#[test]
fn runs_are_refused_before_anything_is_written() {
    let scene = load_str(Path::new("m.toml"), &box2("position = [0.0, 0.5]")).unwrap();
    let out = crate::tmp("refused").join("out");
    let refuse = |opts: RunOptions, what: &str| {
        let e = run(&scene, opts).err().expect("refused").to_string();
        assert!(e.contains(what), "{e}");
        assert!(!out.exists(), "{what}: nothing is written");
    };
    refuse(
        RunOptions {
            out: Some(out.clone()),
            memory_limit: Some(1_000_000),
            ..Default::default()
        },
        "the run needs an estimated",
    );
    refuse(
        RunOptions {
            out: Some(out.clone()),
            max_steps: Some(0),
            ..Default::default()
        },
        "must be >= 1",
    );
    let long = format!("[step]\nh = 0.01\nduration = 1e6\n{FLOOR}");
    let long = load_str(Path::new("l.toml"), &long).unwrap();
    let e = run(
        &long,
        RunOptions {
            h: Some(1e-6),
            out: Some(out.clone()),
            ..Default::default()
        },
    )
    .err()
    .expect("refused")
    .to_string();
    assert!(e.contains("above the limit of 100000000 steps"), "{e}");
    assert!(!out.exists());
    // Within the limit the same scene runs.
    let e = signorini_scene::memory::estimate(&scene, scene.h, None);
    assert!(e.bytes > 0 && e.describe().contains("base"), "{e:?}");
}
