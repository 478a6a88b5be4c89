//! Every validation error path, each with a bad snippet: the error must name the field, give
//! the reason, and (for TOML) the line of the offending value.

use signorini_scene::{SceneError, load_str};
use std::path::Path;

const STEP: &str = "[step]\nh = 0.01\nsteps = 10\n";
const FLOOR: &str = "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"rectangle\", min = [-1.0, -0.1], max = [1.0, 0.0] }\n";
const BOX: &str =
    "[[body]]\nshape = { type = \"box\", size = [0.2, 0.2] }\nmass = 1.0\nposition = [0.0, 0.5]\n";

/// Expected: field path, a substring of the reason, the text whose line the error points at
/// (empty: no line check), unsupported (true) or invalid (false).
pub(crate) struct Case {
    pub(crate) text: String,
    field: &'static str,
    reason: &'static str,
    at: &'static str,
    unsupported: bool,
}

pub(crate) fn case(
    text: String,
    field: &'static str,
    reason: &'static str,
    at: &'static str,
) -> Case {
    Case {
        text,
        field,
        reason,
        at,
        unsupported: false,
    }
}

pub(crate) fn later(
    text: String,
    field: &'static str,
    reason: &'static str,
    at: &'static str,
) -> Case {
    Case {
        unsupported: true,
        ..case(text, field, reason, at)
    }
}

/// A scene with the floor and one dynamic body whose extra lines are `body`.
fn with_body(body: &str) -> String {
    format!("{STEP}{FLOOR}[[body]]\n{body}\n")
}

fn dyn_body(extra: &str) -> String {
    with_body(&format!(
        "shape = {{ type = \"box\", size = [0.2, 0.2] }}\nmass = 1.0\n{extra}"
    ))
}

fn shape(s: &str) -> String {
    with_body(&format!("shape = {s}\nmass = 1.0"))
}

fn contact(c: &str) -> String {
    format!("{STEP}[contact]\n{c}\n{FLOOR}{BOX}")
}

fn cases() -> Vec<Case> {
    let sb = |x: &str| format!("{STEP}{x}\n{FLOOR}{BOX}");
    vec![
        // Syntax and types (deserialisation).
        case(format!("{STEP}h = = 2\n"), "", "", "h = = 2"),
        case(
            format!("gravty = [0.0, -9.81]\n{STEP}{FLOOR}"),
            "gravty",
            "unknown field `gravty`",
            "gravty",
        ),
        case(
            format!("[step]\nh = 0.01\ndt = 0.1\nsteps = 1\n{FLOOR}"),
            "step.dt",
            "unknown field `dt`",
            "dt = 0.1",
        ),
        case(
            dyn_body("mas = 2.0"),
            "body[1].mas",
            "unknown field `mas`",
            "mas = 2.0",
        ),
        case(
            format!("[step]\nh = \"fast\"\nsteps = 1\n{FLOOR}"),
            "step.h",
            "invalid type",
            "h = \"fast\"",
        ),
        case(
            format!("[step]\nh = 0.01\nsteps = 1\ngyroscopic = \"off\"\n{FLOOR}"),
            "step.gyroscopic",
            "only for 3D scenes",
            "gyroscopic = \"off\"",
        ),
        case(FLOOR.to_string(), "", "missing field `step`", ""),
        case(
            format!("[step]\nsteps = 3\n{FLOOR}"),
            "step",
            "missing field `h`",
            "[step]",
        ),
        case(
            shape("{ type = \"circle\", radius = 1.0 }"),
            "body[1].shape.type",
            "unknown variant `circle`",
            "circle",
        ),
        case(
            shape("{ type = \"polygon\", verts = [] }"),
            "body[1].shape.verts",
            "unknown field `verts`",
            "verts",
        ),
        case(
            format!("{STEP}[record]\nevery = -1\n{FLOOR}"),
            "record.every",
            "invalid value",
            "every = -1",
        ),
        case(
            dyn_body("static = \"no\""),
            "body[1].static",
            "invalid type",
            "static = \"no\"",
        ),
        // Top level.
        case(
            format!("dimension = 4\n{STEP}{FLOOR}"),
            "dimension",
            "must be 2 or 3",
            "dimension = 4",
        ),
        case(
            format!("dimension = 3\n{STEP}{FLOOR}"),
            "body[0].shape.type",
            "a 2D shape in a 3D scene",
            "shape =",
        ),
        case(
            format!("gravity = [0.0, -9.81, 0.0]\n{STEP}{FLOOR}"),
            "gravity",
            "expected 2 numbers",
            "gravity =",
        ),
        case(
            format!("gravity = [0.0, nan]\n{STEP}{FLOOR}"),
            "gravity[1]",
            "finite",
            "gravity =",
        ),
        case(STEP.to_string(), "", "no bodies", ""),
        // [step].
        case(
            format!("[step]\nh = 0.0\nsteps = 1\n{FLOOR}"),
            "step.h",
            "> 0",
            "h = 0.0",
        ),
        case(
            format!("[step]\nh = 2.0\nsteps = 1\n{FLOOR}"),
            "step.h",
            "<= 1 s",
            "h = 2.0",
        ),
        case(
            format!("[step]\nh = 0.01\nsteps = 1\nduration = 1.0\n{FLOOR}"),
            "step.steps",
            "not both",
            "steps = 1",
        ),
        case(
            format!("[step]\nh = 0.01\n{FLOOR}"),
            "step",
            "missing `duration`",
            "[step]",
        ),
        case(
            format!("[step]\nh = 0.01\nsteps = 0\n{FLOOR}"),
            "step.steps",
            ">= 1",
            "steps = 0",
        ),
        case(
            format!("[step]\nh = 0.01\nduration = -1.0\n{FLOOR}"),
            "step.duration",
            "> 0",
            "duration = -1.0",
        ),
        // [contact].
        case(
            contact("model = \"magic\""),
            "contact.model",
            "unknown model `magic`",
            "model =",
        ),
        case(
            contact("model = \"dpf\""),
            "contact.model",
            "set `dimension = 3`",
            "model =",
        ),
        case(
            contact("model = \"cpf\""),
            "contact.model",
            "set `dimension = 3`",
            "model =",
        ),
        case(
            contact("stiffness = 1e5"),
            "contact.stiffness",
            "only for the penalty models",
            "stiffness",
        ),
        case(
            contact("thickness = 0.01"),
            "contact.thickness",
            "only for the penalty models",
            "thickness",
        ),
        case(
            contact("solver = \"simplex\""),
            "contact.solver",
            "unknown solver",
            "solver =",
        ),
        case(
            contact("friction = -0.1"),
            "contact.friction",
            ">= 0",
            "friction =",
        ),
        case(
            contact("model = \"standard\"\ngap_corrections = 2"),
            "contact.gap_corrections",
            "only for model `peg`",
            "gap_corrections",
        ),
        case(
            contact("paper = true\ngap_corrections = 0"),
            "contact.gap_corrections",
            "contradicts `paper = true`",
            "gap_corrections",
        ),
        case(
            contact("paper = true\nkeep_best_on_failure = true"),
            "contact.keep_best_on_failure",
            "contradicts `paper = true`",
            "keep_best_on_failure",
        ),
        case(
            contact("model = \"standard\"\npeg_distance = 0.01"),
            "contact.peg_distance",
            "only for model `peg`",
            "peg_distance",
        ),
        case(
            contact("standard_distance = 0.01"),
            "contact.standard_distance",
            "only for model `standard`",
            "standard_distance",
        ),
        case(
            contact("peg_distance = 0.0"),
            "contact.peg_distance",
            "> 0",
            "peg_distance",
        ),
        case(
            contact("model = \"standard\"\nstandard_distance = -1.0"),
            "contact.standard_distance",
            "> 0",
            "standard_distance",
        ),
        // [record], [checks].
        case(
            sb("[record]\nevery = 0"),
            "record.every",
            ">= 1",
            "every = 0",
        ),
        case(
            sb("[checks]\nmax_overlap = -1.0"),
            "checks.max_overlap",
            ">= 0",
            "max_overlap",
        ),
        // [materials].
        case(
            sb("[materials.wood]\ndensity = 0.0"),
            "materials.wood.density",
            "> 0",
            "density = 0.0",
        ),
        case(
            sb("[materials.wood]\nfriction = -1.0"),
            "materials.wood.friction",
            ">= 0",
            "friction = -1.0",
        ),
        case(
            sb("[materials.wood]\nstiffness = 0.0"),
            "materials.wood.stiffness",
            "> 0",
            "stiffness = 0.0",
        ),
        later(
            format!(
                "{STEP}[contact]\nfriction = 0.5\n[materials.ice]\nfriction = 0.1\n{FLOOR}[[body]]\nshape = {{ type = \"box\", size = [0.2, 0.2] }}\nmaterial = \"ice\"\nmass = 1.0\n"
            ),
            "materials.ice.friction",
            "per-material friction",
            "friction = 0.1",
        ),
        case(
            dyn_body("material = \"steel\""),
            "body[1].material",
            "unknown material `steel`",
            "material =",
        ),
        // Shapes.
        case(
            shape("{ type = \"polygon\", vertices = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]] }"),
            "body[1].shape.vertices",
            "",
            "vertices",
        ),
        case(
            shape("{ type = \"polygon\", vertices = [[0.0, 0.0, 1.0], [1.0, 0.0], [0.0, 1.0]] }"),
            "body[1].shape.vertices[0]",
            "expected 2 numbers",
            "vertices",
        ),
        case(
            shape("{ type = \"polygon\", vertices = [[0.0, 0.0], [inf, 0.0], [0.0, 1.0]] }"),
            "body[1].shape.vertices[1][0]",
            "finite",
            "vertices",
        ),
        case(
            shape("{ type = \"rectangle\", min = [1.0, 0.0], max = [0.0, 1.0] }"),
            "body[1].shape.max",
            "above and right",
            "min = [1.0, 0.0]",
        ),
        case(
            shape("{ type = \"rectangle\", min = [1.0], max = [0.0, 1.0] }"),
            "body[1].shape.min",
            "expected 2 numbers",
            "min = [1.0]",
        ),
        case(
            shape("{ type = \"box\", size = [1.0, 1.0, 1.0] }"),
            "body[1].shape.type",
            "3D boxes",
            "type = \"box\", size = [1.0, 1.0, 1.0]",
        ),
        case(
            shape("{ type = \"box\", size = [1.0, -1.0] }"),
            "body[1].shape.size[1]",
            "> 0",
            "size = [1.0, -1.0]",
        ),
        case(
            shape("{ type = \"regular_polygon\", sides = 2, radius = 1.0 }"),
            "body[1].shape.sides",
            ">= 3",
            "sides = 2",
        ),
        case(
            shape("{ type = \"regular_polygon\", sides = 5, radius = 0.0 }"),
            "body[1].shape.radius",
            "> 0",
            "radius = 0.0",
        ),
        case(
            shape("{ type = \"regular_polygon\", sides = 5, radius = 1.0, rotation = nan }"),
            "body[1].shape.rotation",
            "finite",
            "rotation = nan",
        ),
        case(
            shape(
                "{ type = \"convex_hull\", points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] }",
            ),
            "body[1].shape.type",
            "3D convex hulls",
            "convex_hull",
        ),
        case(
            shape("{ type = \"convex_hull\", points = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]] }"),
            "body[1].shape.points",
            "",
            "points",
        ),
        case(
            shape(
                "{ type = \"polyhedron\", vertices = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] }",
            ),
            "body[1].shape.type",
            "convex polyhedra",
            "polyhedron",
        ),
        case(
            shape("{ type = \"mesh\", file = \"bunny.obj\" }"),
            "body[1].shape.type",
            "triangle meshes",
            "mesh",
        ),
        case(
            shape("{ type = \"primitive\", kind = \"sphere\", radius = 1.0 }"),
            "body[1].shape.type",
            "triangle meshes",
            "primitive",
        ),
        case(
            format!(
                "{STEP}[[body]]\nstatic = true\nshape = {{ type = \"compound\", parts = [{{ type = \"compound\", parts = [] }}] }}\n"
            ),
            "body[0].shape.parts[0].parts",
            "cannot be nested",
            "compound",
        ),
        case(
            format!(
                "{STEP}[[body]]\nstatic = true\nshape = {{ type = \"compound\", parts = [] }}\n"
            ),
            "body[0].shape.parts",
            "at least one part",
            "compound",
        ),
        case(
            shape(
                "{ type = \"compound\", parts = [{ type = \"box\", size = [1.0, 1.0] }, { type = \"box\", size = [2.0, 0.5] }] }",
            ),
            "body[1].shape",
            "must be static",
            "compound",
        ),
        // Body state.
        case(
            dyn_body("rotation = [0.0, 0.0, 1.0]"),
            "body[1].rotation",
            "3D only",
            "rotation =",
        ),
        case(
            dyn_body("angular_velocity = [0.0, 0.0, 1.0]"),
            "body[1].angular_velocity",
            "3D only",
            "angular_velocity =",
        ),
        case(
            dyn_body("position = [0.0, 0.5, 1.0]"),
            "body[1].position",
            "expected 2 numbers",
            "position =",
        ),
        case(
            dyn_body("angle = nan"),
            "body[1].angle",
            "finite",
            "angle = nan",
        ),
        case(
            dyn_body("drop_time = -1.0"),
            "body[1].drop_time",
            ">= 0",
            "drop_time",
        ),
        case(
            dyn_body("velocity = [1.0, 0.0]"),
            "body[1].velocity",
            "expected 3 numbers",
            "velocity =",
        ),
        case(
            dyn_body("external_force = [0.0, -inf, 0.0]"),
            "body[1].external_force[1]",
            "finite",
            "external_force =",
        ),
        case(
            format!(
                "{STEP}[[body]]\nstatic = true\nmass = 1.0\nshape = {{ type = \"box\", size = [1.0, 1.0] }}\n"
            ),
            "body[0].mass",
            "static body",
            "mass = 1.0",
        ),
        case(
            format!(
                "{STEP}[[body]]\nstatic = true\nvelocity = [1.0, 0.0, 0.0]\nshape = {{ type = \"box\", size = [1.0, 1.0] }}\n"
            ),
            "body[0].velocity",
            "static body",
            "velocity =",
        ),
        // Mass properties.
        case(
            dyn_body("inertia = [1.0, 1.0, 1.0]"),
            "body[1].inertia",
            "one number",
            "inertia =",
        ),
        case(
            with_body("shape = { type = \"box\", size = [0.2, 0.2] }\ninertia = 1.0"),
            "body[1].inertia",
            "needs `mass`",
            "inertia = 1.0",
        ),
        case(
            dyn_body("density = 5.0"),
            "body[1].density",
            "not both",
            "density = 5.0",
        ),
        case(
            with_body("shape = { type = \"box\", size = [0.2, 0.2] }\nmass = -1.0"),
            "body[1].mass",
            "> 0",
            "mass = -1.0",
        ),
        case(
            with_body("shape = { type = \"box\", size = [0.2, 0.2] }\nmass = 1.0\ninertia = 0.0"),
            "body[1].inertia",
            "> 0",
            "inertia = 0.0",
        ),
        case(
            format!("{STEP}[[body]]\nshape = {{ type = \"box\", size = [0.2, 0.2] }}\n"),
            "body[0]",
            "needs `mass`",
            "[[body]]",
        ),
        case(
            with_body("shape = { type = \"box\", size = [0.2, 0.2] }\ndensity = 0.0"),
            "body[1].density",
            "> 0",
            "density = 0.0",
        ),
        // Body sets.
        case(
            format!("{STEP}[[body_set]]\nfile = \"no_such_set.json\"\n"),
            "body_set[0].file",
            "no_such_set.json",
            "file =",
        ),
        case(set("count = 0"), "body_set[0].count", ">= 1", "count = 0"),
        case(
            set("count = 1000"),
            "body_set[0].count",
            "only 25 bodies",
            "count = 1000",
        ),
        case(
            set("interval = 0.0"),
            "body_set[0].interval",
            "> 0",
            "interval = 0.0",
        ),
        case(
            set("start = -1.0"),
            "body_set[0].start",
            ">= 0",
            "start = -1.0",
        ),
        case(
            format!("{STEP}[[body_set]]\npath = \"x.json\"\n"),
            "body_set[0].path",
            "unknown field `path`",
            "path =",
        ),
    ]
}

/// A body set from the shared data, with one extra line.
fn set(extra: &str) -> String {
    let file = crate::repo().join("data/peg2d/body_sets/set_a.json");
    format!(
        "{STEP}[[body_set]]\nfile = \"{}\"\n{extra}\n",
        file.display()
    )
}

fn line_of(text: &str, needle: &str) -> usize {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("marker `{needle}` not in\n{text}"));
    text[..at].matches('\n').count() + 1
}

#[test]
fn every_bad_snippet_is_rejected_with_field_reason_and_line() {
    let all = cases();
    assert!(all.len() >= 70, "only {} cases", all.len());
    let mut bad = Vec::new();
    for (k, c) in all.iter().enumerate() {
        if let Err(why) = check(k, c) {
            bad.push(why);
        }
    }
    assert!(
        bad.is_empty(),
        "{} failing cases:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

pub(crate) fn check(k: usize, c: &Case) -> Result<(), String> {
    let err = match load_str(Path::new("bad.toml"), &c.text) {
        Ok(_) => return Err(format!("case {k} ({}) was accepted:\n{}", c.field, c.text)),
        Err(e) => e,
    };
    let msg = err.to_string();
    let l = err
        .located()
        .ok_or_else(|| format!("case {k}: not located: {msg}"))?;
    let ensure = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(format!("case {k}: {what}: {msg}"))
        }
    };
    ensure(l.file == Path::new("bad.toml"), "file")?;
    ensure(
        l.field == c.field,
        &format!("field (expected `{}`)", c.field),
    )?;
    ensure(
        l.reason.contains(c.reason),
        &format!("reason lacks `{}`", c.reason),
    )?;
    ensure(
        matches!(err, SceneError::Unsupported(_)) == c.unsupported,
        "kind",
    )?;
    if c.unsupported {
        ensure(msg.contains("not yet supported"), "unsupported wording")?;
    }
    if !c.at.is_empty() {
        let want = line_of(&c.text, c.at.lines().next().unwrap());
        ensure(l.line == Some(want), &format!("line (expected {want})"))?;
        ensure(l.column.is_some(), "column")?;
        ensure(msg.starts_with("bad.toml:"), "prefix")?;
    }
    Ok(())
}

#[test]
fn json_errors_name_line_and_field() {
    let text = "{\n  \"step\": { \"h\": 0.01, \"steps\": 1 },\n  \"body\": [ { \"shape\": { \"type\": \"box\", \"size\": [1.0, 1.0] }, \"mas\": 1 } ]\n}\n";
    let e = load_str(Path::new("bad.json"), text).unwrap_err();
    let l = e.located().unwrap();
    assert_eq!(l.field, "body[0].mas");
    assert_eq!(l.line, Some(3));
    assert!(l.reason.contains("unknown field `mas`"), "{}", l.reason);
    let e = load_str(Path::new("bad.json"), "{\n \"step\": { \"h\": 0.01,, } }").unwrap_err();
    assert_eq!(e.located().unwrap().line, Some(2));
    // Validation errors in JSON name the field (no line: JSON keeps no spans).
    let text = "{ \"step\": { \"h\": -1.0, \"steps\": 1 }, \"body\": [] }";
    let e = load_str(Path::new("bad.json"), text).unwrap_err();
    assert_eq!(e.located().unwrap().field, "step.h");
}
