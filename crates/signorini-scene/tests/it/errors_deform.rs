//! Validation errors of deformable scenes (`[[deformable]]`, `[deformables]`,
//! `contact.viscous_friction`), each with a bad snippet naming file:line:column, field and
//! reason.

use crate::errors::{Case, case, check, later};

const STEP: &str = "dimension = 3\n[step]\nh = 0.01\nsteps = 10\n";
const PENALTY: &str = "[contact]\nmodel = \"cpf\"\nstiffness = 10.0\n";
const GRID: &str = "shape = { type = \"grid\", size = [0.2, 0.2], cells = [2, 2] }";
const CUBE: &str = "shape = { type = \"box\", size = [0.1, 0.1, 0.1] }";
const TORUS: &str = "shape = { type = \"primitive\", kind = \"torus\", radius = 0.1, tube_radius = 0.03, segments = 8, rings = 4 }";

/// A deformable scene: one deformable with `shape`, material lines `mat` and `extra` lines.
fn deform(shape: &str, mat: &str, extra: &str) -> String {
    format!("{STEP}{PENALTY}[[deformable]]\n{shape}\n{extra}\n[deformable.material]\n{mat}\n")
}

/// A cloth with extra lines.
fn cloth(extra: &str) -> String {
    deform(GRID, "areal_density = 1.0\nstretch = 10.0", extra)
}

/// A cloth with material lines.
fn cloth_mat(mat: &str) -> String {
    deform(GRID, mat, "")
}

fn cases() -> Vec<Case> {
    let ok_mat = "areal_density = 1.0\nstretch = 10.0";
    vec![
        case(
            cloth("stifness = 2.0"),
            "deformable[0].stifness",
            "unknown field `stifness`",
            "stifness = 2.0",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = 10.0\nbend_stiffness = 1.0"),
            "deformable[0].material.bend_stiffness",
            "unknown field `bend_stiffness`",
            "bend_stiffness",
        ),
        case(
            cloth("").replace("dimension = 3\n", ""),
            "contact.model",
            "set `dimension = 3`",
            "model = \"cpf\"",
        ),
        case(
            cloth("").replace("model = \"cpf\"\nstiffness = 10.0", "model = \"peg\""),
            "contact.model",
            "need a penalty model",
            "model = \"peg\"",
        ),
        case(
            cloth("").replace("stiffness = 10.0\n", ""),
            "contact.stiffness",
            "needs a stiffness",
            "",
        ),
        case(
            cloth("").replace("stiffness = 10.0\n", "stiffness = 10.0\nviscous_friction = -1.0\n"),
            "contact.viscous_friction",
            "must be finite and >= 0",
            "viscous_friction",
        ),
        case(
            cloth("").replace(
                "stiffness = 10.0\n",
                "stiffness = 10.0\nvertex_stiffness_limit = -1.0\n",
            ),
            "contact.vertex_stiffness_limit",
            "must be finite and >= 0",
            "vertex_stiffness_limit",
        ),
        case(
            cloth("").replace("stiffness = 10.0\n", "stiffness = 10.0\nthickness = -0.1\n"),
            "contact.thickness",
            "must be finite and >= 0",
            "thickness",
        ),
        case(
            format!("[step]\nh = 0.01\nsteps = 10\n[[deformable]]\n{GRID}\nmaterial = {{ areal_density = 1.0, stretch = 1.0 }}\n"),
            "deformable",
            "set `dimension = 3`",
            "",
        ),
        // Shapes.
        case(
            deform("shape = { type = \"grid\", size = [0.2], cells = [2, 2] }", ok_mat, ""),
            "deformable[0].shape.size",
            "expected 2 numbers",
            "type = \"grid\"",
        ),
        case(
            deform("shape = { type = \"grid\", size = [0.2, -0.2], cells = [2, 2] }", ok_mat, ""),
            "deformable[0].shape.size[1]",
            "must be finite and > 0",
            "type = \"grid\"",
        ),
        case(
            deform("shape = { type = \"grid\", size = [0.2, 0.2], cells = [2, 0] }", ok_mat, ""),
            "deformable[0].shape.cells[1]",
            "must be >= 1",
            "type = \"grid\"",
        ),
        case(
            deform("shape = { type = \"grid\", size = [0.2, 0.2], cells = [2] }", ok_mat, ""),
            "deformable[0].shape.cells",
            "expected 2 cell counts",
            "type = \"grid\"",
        ),
        case(
            deform("shape = { type = \"polyhedron\", vertices = [[0.0, 0.0, 0.0]] }", ok_mat, ""),
            "deformable[0].shape.type",
            "penalty models act on triangle meshes",
            "type = \"polyhedron\"",
        ),
        case(
            deform("shape = { type = \"compound\", parts = [] }", ok_mat, ""),
            "deformable[0].shape.type",
            "no compounds",
            "type = \"compound\"",
        ),
        case(
            deform("shape = { type = \"primitive\", kind = \"torus\", radius = 0.1 }", ok_mat, ""),
            "deformable[0].shape",
            "missing field `tube_radius`",
            "kind = \"torus\"",
        ),
        case(
            format!("{STEP}{PENALTY}[[body]]\nstatic = true\n{GRID}\n[[deformable]]\n{GRID}\nmaterial = {{ areal_density = 1.0, stretch = 1.0 }}\n"),
            "body[0].shape.type",
            "a grid is a cloth",
            "type = \"grid\"",
        ),
        case(
            format!("{STEP}{PENALTY}[[body]]\n{GRID}\nmass = 1.0\n"),
            "body[0].shape.type",
            "a grid is a cloth",
            "type = \"grid\"",
        ),
        // Material.
        case(
            cloth_mat("stretch = 10.0"),
            "deformable[0].material",
            "needs `areal_density` (kg/m²) or `mass` (kg)",
            "",
        ),
        case(
            cloth_mat("areal_density = 1.0\nmass = 1.0\nstretch = 10.0"),
            "deformable[0].material.mass",
            "not both",
            "mass = 1.0",
        ),
        case(
            cloth_mat("areal_density = 0.0\nstretch = 10.0"),
            "deformable[0].material.areal_density",
            "must be finite and > 0",
            "areal_density = 0.0",
        ),
        case(
            cloth_mat("mass = -2.0\nstretch = 10.0"),
            "deformable[0].material.mass",
            "must be finite and > 0",
            "mass = -2.0",
        ),
        case(
            cloth_mat("areal_density = 1.0"),
            "deformable[0].material",
            "needs `stretch`",
            "",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = -10.0"),
            "deformable[0].material.stretch",
            "must be finite and >= 0",
            "stretch = -10.0",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = 10.0\nshear = -1.0"),
            "deformable[0].material.shear",
            "must be finite and >= 0",
            "shear = -1.0",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = 10.0\nbend = nan"),
            "deformable[0].material.bend",
            "must be finite and >= 0",
            "bend = nan",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = 10.0\ndamping = -0.5"),
            "deformable[0].material.damping",
            "must be finite and >= 0",
            "damping = -0.5",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = 10.0\ndrag = -0.5"),
            "deformable[0].material.drag",
            "must be finite and >= 0",
            "drag = -0.5",
        ),
        case(
            cloth_mat("areal_density = 1.0\nstretch = 10.0\npressure = 5.0"),
            "deformable[0].material.pressure",
            "needs a closed mesh",
            "pressure = 5.0",
        ),
        case(
            deform(TORUS, "areal_density = 1.0\nstretch = 10.0\npressure = -5.0", ""),
            "deformable[0].material.pressure",
            "must be finite and >= 0",
            "pressure = -5.0",
        ),
        // Pins, pose, velocity.
        case(
            cloth("pins = [0, 9]"),
            "deformable[0].pins[1]",
            "vertex 9 out of range: the mesh has 9 vertices",
            "pins = [0, 9]",
        ),
        case(
            cloth("pins = \"edges\""),
            "deformable[0].pins",
            "unknown `edges`",
            "pins = \"edges\"",
        ),
        case(
            deform(TORUS, ok_mat, "pins = \"corners\""),
            "deformable[0].pins",
            "for `grid` shapes only",
            "pins = \"corners\"",
        ),
        case(
            cloth("position = [0.0, 1.0]"),
            "deformable[0].position",
            "expected 3 numbers",
            "position = [0.0, 1.0]",
        ),
        case(
            cloth("rotation = { axis = [0.0, 0.0, 0.0], angle = 1.0 }"),
            "deformable[0].rotation.axis",
            "must not be zero",
            "rotation =",
        ),
        case(
            cloth("velocity = [0.0, inf, 0.0]"),
            "deformable[0].velocity[1]",
            "must be finite",
            "velocity =",
        ),
        case(
            cloth("velocity_gradient = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"),
            "deformable[0].velocity_gradient",
            "expected 3 rows of 3 numbers (1/s), got 2 rows",
            "velocity_gradient =",
        ),
        case(
            cloth("velocity_gradient = [[0.0, 0.0, 0.0], [0.0, 0.0], [0.0, 0.0, 0.0]]"),
            "deformable[0].velocity_gradient[1]",
            "expected 3 numbers, got 2",
            "velocity_gradient =",
        ),
        case(
            cloth("velocity_gradient = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [nan, 0.0, 0.0]]"),
            "deformable[0].velocity_gradient[2][0]",
            "must be finite",
            "velocity_gradient =",
        ),
        case(
            cloth("velocity_gradient = \"spin\""),
            "deformable[0].velocity_gradient",
            "invalid type",
            "velocity_gradient =",
        ),
        case(
            cloth("velocity_origin = [0.0, 0.0, 1.0]"),
            "deformable[0].velocity_origin",
            "only with `velocity_gradient`",
            "velocity_origin =",
        ),
        case(
            cloth("velocity_gradient = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-0.2, 0.0, 0.0]]\nvelocity_origin = [0.0, 1.0]"),
            "deformable[0].velocity_origin",
            "expected 3 numbers, got 2",
            "velocity_origin =",
        ),
        case(
            cloth("").replace("stiffness = 10.0\n", "stiffness = 10.0\nstiffness_perturbation = { amplitude = 0.1, frequency = 30.0 }\n"),
            "contact.stiffness_perturbation",
            "only for scenes of rigid meshes",
            "stiffness_perturbation =",
        ),
        // `[deformables]`, obstacles, other bodies.
        case(
            cloth("").replace("[[deformable]]", "[deformables]\nsubsteps = 0\n[[deformable]]"),
            "deformables.substeps",
            "must be >= 1",
            "substeps = 0",
        ),
        case(
            cloth("").replace("[[deformable]]", "[deformables]\nmeasure_every = 0\n[[deformable]]"),
            "deformables.measure_every",
            "must be >= 1",
            "measure_every = 0",
        ),
        case(
            cloth("").replace("[[deformable]]", "[deformables]\nsubsteps = 2\nselfcollision = false\n[[deformable]]"),
            "deformables.selfcollision",
            "unknown field `selfcollision`",
            "selfcollision",
        ),
        // Dynamic `[[body]]` entries are rigid meshes of the deformable world, all there from
        // the start.
        later(
            cloth("").replace("[[deformable]]", &format!("[[body]]\n{CUBE}\ndensity = 1000.0\ndrop_time = 0.5\n[[deformable]]")),
            "body[0].drop_time",
            "a timed drop in a deformable scene (drop_time = 0.5 s)",
            "drop_time = 0.5",
        ),
        later(
            cloth("").replace("[[deformable]]", &format!("[[body]]\n{CUBE}\ndensity = 1000.0\ncopies = 3\ninterval = 0.1\n[[deformable]]")),
            "body[0].copies",
            "copies of a body in a deformable scene (copies = 3)",
            "copies = 3",
        ),
        case(
            cloth("").replace("[[deformable]]", &format!("[[body]]\n{CUBE}\ncopies = 2\n[[deformable]]")),
            "body[0].copies",
            "needs `interval`",
            "copies = 2",
        ),
        case(
            cloth("").replace("[[deformable]]", &format!("[[body]]\n{CUBE}\n[[deformable]]")),
            "body[0]",
            "a dynamic body needs `mass` or `density`",
            "[[body]]",
        ),
        case(
            cloth("").replace("[[deformable]]", "[[body]]\nshape = { type = \"primitive\", kind = \"bucket\", radius = 0.1, length = 0.1 }\ndensity = 1000.0\n[[deformable]]"),
            "body[0].shape",
            "a dynamic mesh must be closed",
            "shape =",
        ),
        case(
            cloth("").replace("[[deformable]]", &format!("[[body]]\n{CUBE}\ndensity = -1.0\n[[deformable]]")),
            "body[0].density",
            "must be finite and > 0 kg/m³",
            "density = -1.0",
        ),
        case(
            cloth("").replace("[[deformable]]", &format!("[[body]]\n{CUBE}\ndensity = 1000.0\nangular_velocity = [0.0, 1.0]\n[[deformable]]")),
            "body[0].angular_velocity",
            "expected 3 numbers, got 2",
            "angular_velocity =",
        ),
        case(
            format!("{STEP}{PENALTY}[deformables]\nsubsteps = 2\n[[body]]\nstatic = true\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\n"),
            "deformables",
            "only for scenes with `[[deformable]]`",
            "[deformables]",
        ),
        case(
            format!("{STEP}{PENALTY}viscous_friction = 0.1\n[[body]]\nstatic = true\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\n"),
            "contact.viscous_friction",
            "only for scenes with `[[deformable]]`",
            "viscous_friction",
        ),
        case(
            format!("{STEP}{PENALTY}vertex_stiffness_limit = 1.0\n[[body]]\nstatic = true\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\n"),
            "contact.vertex_stiffness_limit",
            "only for scenes with `[[deformable]]`",
            "vertex_stiffness_limit",
        ),
        case(
            format!("{STEP}{PENALTY}implicit_contact = true\n[[body]]\nstatic = true\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\n"),
            "contact.implicit_contact",
            "only for scenes with `[[deformable]]`",
            "implicit_contact",
        ),
        case(
            cloth("").replace("[checks]", "") + "[checks]\nmax_overlap = 0.1\n",
            "checks.max_overlap",
            "use `max_penetration`",
            "max_overlap",
        ),
    ]
}

#[test]
fn every_bad_deformable_snippet_is_rejected_with_field_reason_and_line() {
    let all = cases();
    assert!(all.len() >= 40, "only {} cases", all.len());
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

#[test]
fn a_velocity_gradient_spins_the_free_vertices_about_its_origin() {
    use signorini_math::Vec3;
    // A rigid spin ω = (0, 0, 2) rad/s about (0, 0.1, 0) on top of a drift (1, 0, 0) m/s:
    // L = [ω]×, v = (1, 0, 0) + ω × (x − o); the pinned corners stay at rest.
    let text = cloth(
        "pins = \"corners\"\nvelocity = [1.0, 0.0, 0.0]\n\
         velocity_gradient = [[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0]]\n\
         velocity_origin = [0.0, 0.1, 0.0]",
    );
    let s = signorini_scene::load_str(std::path::Path::new("spin.toml"), &text).unwrap();
    let w = signorini_harness::deform_build::build_world(&s.bodies.deformables().unwrap().spec)
        .unwrap();
    let d = &w.deformables[0];
    let (omega, o) = (Vec3::new(0.0, 0.0, 2.0), Vec3::new(0.0, 0.1, 0.0));
    for (i, (v, x)) in d.v.iter().zip(&d.x).enumerate() {
        let want = if [0, 2, 6, 8].contains(&i) {
            Vec3::zeros()
        } else {
            Vec3::new(1.0, 0.0, 0.0) + omega.cross(&(x - o))
        };
        assert!((v - want).norm() < 1e-15, "vertex {i}: {v:?} vs {want:?}");
    }
    // The centre vertex (0, 0, 0): ω × (0, −0.1, 0) = (0.2, 0, 0), plus the drift.
    assert!((d.v[4] - Vec3::new(1.2, 0.0, 0.0)).norm() < 1e-15);
}

#[test]
fn a_valid_cloth_and_shell_scene_runs_and_writes_its_outputs() {
    let text = format!(
        "{STEP}{PENALTY}[[deformable]]\n{GRID}\npins = \"corners\"\n[deformable.material]\nareal_density = 1.0\nstretch = 10.0\n\
         [[deformable]]\n{TORUS}\nposition = [0.0, 0.0, 0.05]\nvelocity = [0.0, 0.0, -0.1]\n[deformable.material]\nmass = 0.2\nstretch = 50.0\npressure = 10.0\n"
    );
    let s = signorini_scene::load_str(std::path::Path::new("ok.toml"), &text).unwrap();
    let d = s.bodies.deformables().unwrap();
    assert_eq!(d.spec.bodies[0].pins, vec![0, 2, 6, 8]);
    assert_eq!(
        d.spec.bodies[1].velocity,
        Some(signorini_math::Vec3::new(0.0, 0.0, -0.1))
    );
    let dir = crate::tmp("deform-ok");
    let o = signorini_scene::run(
        &s,
        signorini_scene::RunOptions {
            out: Some(dir.to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(o.summary.steps, 10);
    assert_eq!(o.summary.kind, "deformables");
    // Total mass from `mass`: the torus's vertex masses add up to 0.2 kg.
    let w = o.world.deformables().unwrap();
    let m: f64 = w.deformables[1].masses().iter().sum();
    assert!((m - 0.2).abs() < 1e-12, "{m}");
    let steps = std::fs::read_to_string(dir.join("steps.csv")).unwrap();
    assert_eq!(steps.lines().count(), 11);
    assert!(steps.starts_with(signorini_scene::DEFORM_STEPS_HEADER));
    let trace = std::fs::read_to_string(dir.join("trace.csv")).unwrap();
    assert_eq!(trace.lines().count(), 11);
    let files = signorini_scene::report::write_report(&dir).unwrap();
    let html = std::fs::read_to_string(&files.html).unwrap();
    assert!(html.contains("plot-energy"), "energy plot in the report");
    assert!(
        html.contains("plot-penetration"),
        "penetration plot in the report"
    );
}

/// A dynamic `[[body]]` in a deformable scene is a rigid body of the world's `WorldSpec`: its
/// density and μ come from its material (as in rigid penalty scenes), its pose and velocities
/// from the body, gravity is added as m·g; `build_world` gives it the object id after the
/// deformables.
#[test]
fn a_dynamic_body_in_a_deformable_scene_is_a_rigid_body_with_its_materials_density() {
    let text = format!(
        "{STEP}{PENALTY}[materials.wood]\ndensity = 500.0\nfriction = 0.3\n\
         [[body]]\nname = \"block\"\n{CUBE}\nmaterial = \"wood\"\nposition = [0.0, 0.0, 0.2]\n\
         velocity = [0.0, 0.0, -1.0]\nangular_velocity = [0.0, 2.0, 0.0]\n\
         [[deformable]]\n{GRID}\npins = \"corners\"\n[deformable.material]\nareal_density = 1.0\nstretch = 10.0\n"
    );
    let s = signorini_scene::load_str(std::path::Path::new("ok.toml"), &text).unwrap();
    assert_eq!(s.body_counts(), (2, 2));
    let d = s.bodies.deformables().unwrap();
    assert_eq!(d.rigid_names, ["block"]);
    assert_eq!(d.spec.penalty.friction.mu, 0.3, "the material's μ");
    let r = &d.spec.rigid[0];
    assert_eq!(r.density, 500.0, "the material's density");
    assert_eq!(r.position, signorini_math::Vec3::new(0.0, 0.0, 0.2));
    let w = signorini_harness::deform_build::build_world(&d.spec).unwrap();
    let b = &w.rigid[0].state;
    assert!(
        (b.mass - 0.5).abs() < 1e-12,
        "0.1 m cube of 500 kg/m³: {}",
        b.mass
    );
    assert_eq!(b.external_force.z, b.mass * -9.81);
    assert_eq!(b.angular_velocity, signorini_math::Vec3::new(0.0, 2.0, 0.0));
    assert_eq!(b.linear_velocity, signorini_math::Vec3::new(0.0, 0.0, -1.0));
}
