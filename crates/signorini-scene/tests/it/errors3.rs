//! Validation errors of 3D scenes (polyhedra for PEG/standard/corrective, triangle meshes for
//! the penalty models), each with a bad snippet naming file:line:column, field and reason.

use crate::errors::{Case, case, check, later};

const STEP: &str = "dimension = 3\n[step]\nh = 0.01\nsteps = 10\n";
const FLOOR3: &str = "[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"box\", size = [4.0, 4.0, 1.0], center = [0.0, 0.0, -0.5] }\n";
const TETRA: &str = "[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]";
const PENALTY: &str = "[contact]\nmodel = \"cpf\"\nstiffness = 1e4\n";
const PLANE: &str = "[[body]]\nname = \"plane\"\nstatic = true\nshape = { type = \"primitive\", kind = \"plane\", size = [2.0, 2.0] }\n";

/// A polyhedra scene with the floor and one body whose lines are `body`.
fn poly(body: &str) -> String {
    format!("{STEP}{FLOOR3}[[body]]\n{body}\n")
}

/// A dynamic tetrahedron with extra lines.
fn tetra(extra: &str) -> String {
    poly(&format!(
        "shape = {{ type = \"polyhedron\", vertices = {TETRA} }}\nmass = 1.0\n{extra}"
    ))
}

/// A penalty scene with the plane and one body whose lines are `body`.
fn mesh(body: &str) -> String {
    format!("{STEP}{PENALTY}{PLANE}[[body]]\n{body}\n")
}

/// A dynamic primitive with extra lines.
fn prim(p: &str, extra: &str) -> String {
    mesh(&format!(
        "shape = {{ type = \"primitive\", {p} }}\ndensity = 1000.0\n{extra}"
    ))
}

fn cases(dir: &std::path::Path) -> Vec<Case> {
    let empty_obj = dir.join("empty.obj");
    std::fs::write(&empty_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\n").unwrap();
    let open_obj = dir.join("open.obj");
    std::fs::write(&open_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let obj = |f: &std::path::Path| {
        format!(
            "shape = {{ type = \"mesh\", file = \"{}\" }}\ndensity = 1000.0",
            f.display()
        )
    };
    let set3 = |extra: &str| {
        let f = crate::repo().join("data/peg3d/random_polyhedra.json");
        format!(
            "{STEP}{FLOOR3}[[body_set]]\nfile = \"{}\"\n{extra}\n",
            f.display()
        )
    };
    vec![
        case(
            tetra("").replacen("steps = 10\n", "steps = 10\ngyroscopic = \"explicit\"\n", 1),
            "step.gyroscopic",
            "unknown gyroscopic update `explicit` (midpoint, implicit, off)",
            "gyroscopic =",
        ),
        case(
            format!("{STEP}[contact]\nvertex_vertex = \"pairs\"\n{FLOOR3}[[body]]\nshape = {{ type = \"polyhedron\", vertices = {TETRA} }}\nmass = 1.0\n"),
            "contact.vertex_vertex",
            "unknown vertex–vertex form `pairs` (cone, face-pairs, off)",
            "vertex_vertex =",
        ),
        case(
            format!("{STEP}[contact]\nmodel = \"standard\"\nvertex_vertex = \"cone\"\n{FLOOR3}[[body]]\nshape = {{ type = \"polyhedron\", vertices = {TETRA} }}\nmass = 1.0\n"),
            "contact.vertex_vertex",
            "only for 3D scenes of model `peg`",
            "vertex_vertex =",
        ),
        // Polyhedra.
        case(
            tetra("").replace("[0.0, 0.0, 1.0]]", "[0.0, 0.0, 1.0], [0.1, 0.1, 0.1]]"),
            "body[1].shape.vertices[4]",
            "not convex: vertex 4",
            "[0.1, 0.1, 0.1]",
        ),
        case(
            poly("shape = { type = \"polyhedron\", vertices = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]] }\nmass = 1.0"),
            "body[1].shape.vertices",
            "degenerate polyhedron: points are flat",
            "vertices =",
        ),
        case(
            poly(&format!("shape = {{ type = \"polyhedron\", vertices = {TETRA}, faces = [[0, 1, 2], [0, 1, 3], [0, 3, 2], [1, 2, 3]] }}\nmass = 1.0")),
            "body[1].shape.faces",
            "degenerate polyhedron",
            "vertices =",
        ),
        case(
            poly(&format!("shape = {{ type = \"polyhedron\", vertices = {TETRA}, faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 9]] }}\nmass = 1.0")),
            "body[1].shape.faces",
            "degenerate polyhedron",
            "vertices =",
        ),
        case(
            poly("shape = { type = \"convex_hull\", points = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] }\nmass = 1.0"),
            "body[1].shape.points",
            "at least 4",
            "points =",
        ),
        case(
            poly("shape = { type = \"polyhedron\", vertices = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0], [0.0, 0.0, 1.0]] }\nmass = 1.0"),
            "body[1].shape.vertices[2]",
            "expected 3 numbers",
            "vertices =",
        ),
        case(
            tetra("position = [nan, 0.0, 1.0]"),
            "body[1].position[0]",
            "must be finite",
            "position =",
        ),
        case(tetra("inertia = 0.5"), "body[1].inertia", "diagonal", "inertia ="),
        case(
            tetra("inertia = [0.1, -0.1, 0.1]"),
            "body[1].inertia[1]",
            "> 0",
            "inertia =",
        ),
        case(
            tetra("inertia = [[0.1, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]]"),
            "body[1].inertia[0]",
            "expected 3 numbers",
            "inertia =",
        ),
        case(
            tetra("rotation = { axis = [0.0, 0.0, 0.0], angle = 1.0 }"),
            "body[1].rotation.axis",
            "must not be zero",
            "rotation =",
        ),
        case(
            tetra("rotation = [0.1, 0.2]"),
            "body[1].rotation",
            "expected 3 numbers",
            "rotation =",
        ),
        case(
            tetra("rotation = { euler = [0.1, nan, 0.0] }"),
            "body[1].rotation.euler[1]",
            "must be finite",
            "rotation =",
        ),
        case(tetra("angle = 0.3"), "body[1].angle", "2D only", "angle ="),
        case(tetra("copies = 3"), "body[1].copies", "needs `interval`", "copies ="),
        case(
            tetra("copies = 0\ninterval = 0.5"),
            "body[1].copies",
            "must be >= 1",
            "copies =",
        ),
        case(
            tetra("interval = 0.5"),
            "body[1].interval",
            "only with `copies`",
            "interval =",
        ),
        case(
            tetra("copies = 2\ninterval = -0.5"),
            "body[1].interval",
            "> 0",
            "interval =",
        ),
        case(
            poly("shape = { type = \"compound\", parts = [{ type = \"box\", size = [1.0, 1.0, 1.0] }, { type = \"box\", size = [1.0, 1.0, 1.0] }] }\nmass = 1.0"),
            "body[1].shape",
            "a compound must be static",
            "shape = { type = \"compound\"",
        ),
        case(
            poly("shape = { type = \"box\", size = [-1.0, 1.0, 1.0] }\nmass = 1.0"),
            "body[1].shape.size[0]",
            "> 0",
            "size = [-1.0",
        ),
        case(
            poly("shape = { type = \"box\", size = [1.0, 1.0, 1.0], center = [0.0, 1.0] }\nmass = 1.0"),
            "body[1].shape.center",
            "expected 3 numbers",
            "center = [0.0, 1.0]",
        ),
        case(
            format!("gravity = [0.0, -9.81]\n{STEP}{FLOOR3}"),
            "gravity",
            "expected 3 numbers",
            "gravity =",
        ),
        case(
            poly("shape = { type = \"primitive\", kind = \"sphere\", radius = 0.1 }\nmass = 1.0"),
            "body[1].shape.type",
            "need a penalty model",
            "kind = \"sphere\"",
        ),
        case(
            format!("{STEP}[checks]\nmax_penetration = 0.01\n{FLOOR3}"),
            "checks.max_penetration",
            "only for penalty scenes",
            "max_penetration =",
        ),
        case(
            set3("mass = 0.5"),
            "body_set[0]",
            "circumradius",
            "[[body_set]]",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\ncount = 1000"),
            "body_set[0].count",
            "the file has",
            "count =",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\nlattice = { spacing = -1.0, columns = 3 }"),
            "body_set[0].lattice.spacing",
            "must be",
            "lattice =",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\nlattice = { spacing = 1.15, columns = 0 }"),
            "body_set[0].lattice.columns",
            "must be >= 1",
            "lattice =",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\ninterval = 0.5\nlattice = { spacing = 1.15, columns = 3 }"),
            "body_set[0].interval",
            "not with `lattice`",
            "interval =",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\nposition = [0.0, 0.0, 1.0]\nlattice = { spacing = 1.15, columns = 3 }"),
            "body_set[0].position",
            "not with `lattice`",
            "position =",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\nlattice = { spacing = 1.15, rows = 3 }"),
            "body_set[0].lattice.rows",
            "unknown field `rows`",
            "lattice =",
        ),
        case(
            set3("mass = 0.5\ncircumradius = 0.5\nadd_gravity = true"),
            "body_set[0].add_gravity",
            "always added",
            "add_gravity =",
        ),
        case(
            format!("{STEP}[materials.steel]\nstiffness = 1e5\n{FLOOR3}[[body]]\nmaterial = \"steel\"\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nmass = 1.0\n"),
            "materials.steel.stiffness",
            "only for the penalty models",
            "stiffness =",
        ),
        // 2D scenes reject 3D-only fields.
        case(
            "[step]\nh = 0.01\nsteps = 1\n[[body]]\nshape = { type = \"box\", size = [1.0, 1.0], center = [0.0, 0.0] }\nmass = 1.0\n".into(),
            "body[0].shape.center",
            "3D only",
            "shape =",
        ),
        // Penalty (mesh) scenes.
        case(
            format!("{STEP}[contact]\nmodel = \"cpf\"\n{PLANE}"),
            "contact.stiffness",
            "needs a stiffness",
            "[contact]",
        ),
        case(
            format!("{STEP}[contact]\nmodel = \"dpf\"\nstiffness = nan\n{PLANE}"),
            "contact.stiffness",
            "finite and > 0",
            "stiffness = nan",
        ),
        case(
            format!("{STEP}{PENALTY}solver = \"lemke\"\n{PLANE}"),
            "contact.solver",
            "not for the penalty model",
            "solver =",
        ),
        case(
            format!("{STEP}{PENALTY}thickness = -0.1\n{PLANE}"),
            "contact.thickness",
            ">= 0",
            "thickness =",
        ),
        case(
            format!("{STEP}[contact]\nmodel = \"dpf-ccdx\"\nstiffness = 1e4\n{PLANE}"),
            "contact.model",
            "unknown model `dpf-ccdx`",
            "model =",
        ),
        case(
            prim("kind = \"cone\", radius = 0.1", ""),
            "body[1].shape.kind",
            "unknown variant `cone`",
            "kind = \"cone\"",
        ),
        case(
            prim("kind = \"sphere\"", ""),
            "body[1].shape",
            "missing field `radius`",
            "kind = \"sphere\"",
        ),
        case(
            prim("kind = \"sphere\", radius = 0.1, size = [1.0, 1.0, 1.0]", ""),
            "body[1].shape.size",
            "unknown field `size`",
            "kind = \"sphere\"",
        ),
        case(
            prim("kind = \"sphere\", radius = 0.1, segments = 2", ""),
            "body[1].shape.segments",
            "must be >= 3",
            "kind = \"sphere\"",
        ),
        case(
            prim("kind = \"torus\", radius = 0.1, tube_radius = 0.2", ""),
            "body[1].shape.tube_radius",
            "below `radius`",
            "kind = \"torus\"",
        ),
        case(
            prim("kind = \"stick\", length = 1.0", ""),
            "body[1].shape",
            "missing field `thickness`",
            "kind = \"stick\"",
        ),
        case(
            prim("kind = \"cylinder\", radius = nan, length = 1.0", ""),
            "body[1].shape.radius",
            "finite and > 0",
            "kind = \"cylinder\"",
        ),
        case(
            prim("kind = \"torus\", radius = 0.1, tube_radius = 0.02, stacks = 3", ""),
            "body[1].shape.stacks",
            "unknown field `stacks`",
            "kind = \"torus\"",
        ),
        case(
            prim("kind = \"rounded_box\", radius = -0.1", ""),
            "body[1].shape.radius",
            "finite and > 0",
            "kind = \"rounded_box\"",
        ),
        case(
            prim("kind = \"rounded_box\", radius = 0.1, stacks = 2", ""),
            "body[1].shape.stacks",
            "unknown field `stacks`",
            "kind = \"rounded_box\"",
        ),
        case(
            prim("kind = \"cube_sphere\", radius = 0.1, rings = 4", ""),
            "body[1].shape.rings",
            "unknown field `rings`",
            "kind = \"cube_sphere\"",
        ),
        case(
            prim("kind = \"rounded_cube\", radius = 0.1, segments = 0", ""),
            "body[1].shape.segments",
            "must be >= 1",
            "kind = \"rounded_cube\"",
        ),
        case(
            prim("kind = \"bucket\", radius = 0.4", ""),
            "body[1].shape",
            "missing field `length`",
            "kind = \"bucket\"",
        ),
        case(
            prim("kind = \"bucket\", radius = 0.4, length = 0.4, rings = 0", ""),
            "body[1].shape.rings",
            "must be >= 1",
            "kind = \"bucket\"",
        ),
        case(
            prim("kind = \"bucket\", radius = 0.4, length = 0.4, stacks = 0", ""),
            "body[1].shape.stacks",
            "must be >= 1",
            "kind = \"bucket\"",
        ),
        case(
            prim("kind = \"bucket\", radius = 0.4, length = 0.4, thickness = 0.01", ""),
            "body[1].shape.thickness",
            "unknown field `thickness`",
            "kind = \"bucket\"",
        ),
        case(
            prim("kind = \"bucket\", radius = 0.4, length = 0.4", ""),
            "body[1].shape",
            "must be closed",
            "kind = \"bucket\"",
        ),
        case(
            prim("kind = \"bowl\", radius = 0.35, rings = 0", ""),
            "body[1].shape.rings",
            "must be >= 1",
            "kind = \"bowl\"",
        ),
        case(
            prim("kind = \"bowl\", radius = 0.35, length = 0.2", ""),
            "body[1].shape.length",
            "unknown field `length`",
            "kind = \"bowl\"",
        ),
        case(
            prim("kind = \"octopus\", radius = 0.06", ""),
            "body[1].shape",
            "missing field `length`",
            "kind = \"octopus\"",
        ),
        case(
            prim("kind = \"octopus\", radius = 0.06, length = -0.2", ""),
            "body[1].shape.length",
            "finite and > 0",
            "kind = \"octopus\"",
        ),
        case(
            prim("kind = \"octopus\", radius = 0.06, length = 0.2, segments = 0", ""),
            "body[1].shape.segments",
            "must be >= 1",
            "kind = \"octopus\"",
        ),
        case(
            prim("kind = \"octopus\", radius = 0.06, length = 0.2, segments = 4000", ""),
            "body[1].shape",
            "triangles per mesh",
            "kind = \"octopus\"",
        ),
        case(
            mesh("shape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0").replace("stiffness = 1e4\n", "stiffness = 1e4\nstiffness_perturbation = { amplitude = 1.0, frequency = 30.0 }\n"),
            "contact.stiffness_perturbation.amplitude",
            "must be below 1",
            "stiffness_perturbation =",
        ),
        case(
            mesh("shape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0").replace("stiffness = 1e4\n", "stiffness = 1e4\nstiffness_perturbation = { amplitude = -0.1, frequency = 30.0 }\n"),
            "contact.stiffness_perturbation.amplitude",
            "must be finite and >= 0",
            "stiffness_perturbation =",
        ),
        case(
            mesh("shape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0").replace("stiffness = 1e4\n", "stiffness = 1e4\nstiffness_perturbation = { amplitude = 0.1, frequency = nan }\n"),
            "contact.stiffness_perturbation.frequency",
            "must be finite and >= 0",
            "stiffness_perturbation =",
        ),
        case(
            mesh("shape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0").replace("stiffness = 1e4\n", "stiffness = 1e4\nstiffness_perturbation = { amplitude = 0.1 }\n"),
            "contact.stiffness_perturbation",
            "missing field `frequency`",
            "stiffness_perturbation =",
        ),
        case(
            mesh("shape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nmass = 1.0").replace("stiffness = 1e4\n", "stiffness = 1e4\nstiffness_perturbation = { amplitude = 0.1, frequency = 30.0, phase = 1.0 }\n"),
            "contact.stiffness_perturbation.phase",
            "unknown field `phase`",
            "stiffness_perturbation =",
        ),
        case(
            format!("{STEP}[contact]\nmodel = \"peg\"\nstiffness_perturbation = {{ amplitude = 0.1, frequency = 30.0 }}\n{FLOOR3}"),
            "contact.stiffness_perturbation",
            "only for the penalty models",
            "stiffness_perturbation =",
        ),
        case(
            prim("kind = \"plane\"", ""),
            "body[1].shape",
            "missing field `size`",
            "kind = \"plane\" }",
        ),
        case(
            mesh(&obj(&empty_obj)),
            "body[1].shape.file",
            "no triangles",
            "type = \"mesh\"",
        ),
        case(
            mesh(&obj(&dir.join("missing.obj"))),
            "body[1].shape.file",
            "missing.obj",
            "type = \"mesh\"",
        ),
        case(
            mesh(&obj(&open_obj)),
            "body[1].shape",
            "must be closed",
            "type = \"mesh\"",
        ),
        case(
            mesh(&format!(
                "shape = {{ type = \"mesh\", file = \"{}\", scale = nan }}\ndensity = 1.0",
                open_obj.display()
            )),
            "body[1].shape.scale",
            "finite and > 0",
            "type = \"mesh\"",
        ),
        case(
            prim("kind = \"box\", size = [0.1, 0.1, 0.1]", "inertia = [1.0, 1.0, 1.0]"),
            "body[1].inertia",
            "comes from its closed mesh",
            "inertia =",
        ),
        case(
            mesh("shape = { type = \"primitive\", kind = \"sphere\", radius = 0.1 }"),
            "body[1]",
            "needs `mass` or `density`",
            "", // located at the `[[body]]` table (no unique marker for its line)
        ),
        case(
            format!("{STEP}{PENALTY}[[body]]\nstatic = true\nshape = {{ type = \"primitive\", kind = \"plane\", size = [1.0, 1.0] }}\ncopies = 2\ninterval = 0.1\n"),
            "body[0].copies",
            "a static body is added once",
            "copies = 2",
        ),
        case(
            format!("{STEP}{PENALTY}[checks]\nmax_overlap = 0.0\n{PLANE}"),
            "checks.max_overlap",
            "use `max_penetration`",
            "max_overlap =",
        ),
        case(
            mesh(&format!("shape = {{ type = \"polyhedron\", vertices = {TETRA} }}\nmass = 1.0")),
            "body[1].shape.type",
            "complementarity model",
            "type = \"polyhedron\"",
        ),
        case(
            format!("{STEP}{PENALTY}{PLANE}[[body_set]]\nfile = \"x.json\"\n"),
            "body_set",
            "not for the penalty models",
            "[[body_set]]",
        ),
        later(
            format!("{STEP}{PENALTY}[materials.a]\nstiffness = 2e4\n{PLANE}[[body]]\nmaterial = \"a\"\nshape = {{ type = \"primitive\", kind = \"box\", size = [0.1, 0.1, 0.1] }}\ndensity = 1.0\n"),
            "materials.a.stiffness",
            "per-material stiffness",
            "stiffness = 2e4",
        ),
        case(
            format!("{STEP}{PENALTY}[[body]]\nstatic = true\nshape = {{ type = \"primitive\", kind = \"box\", size = [0.1, 0.1, 0.1] }}\nvelocity = [1.0, 0.0, 0.0]\n"),
            "body[0].velocity",
            "a static body has none",
            "velocity =",
        ),
    ]
}

#[test]
fn every_bad_3d_snippet_is_rejected_with_field_reason_and_line() {
    let dir = crate::tmp("errors3");
    let all = cases(&dir);
    assert!(all.len() >= 45, "only {} cases", all.len());
    let bad: Vec<String> = all
        .iter()
        .enumerate()
        .filter_map(|(k, c)| check(k, c).err())
        .collect();
    assert!(
        bad.is_empty(),
        "{} failing cases:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
