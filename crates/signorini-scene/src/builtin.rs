//! The built-in scenes (embedded at compile time from this crate's `scenes/` folder) and the
//! list of experiments, for `signorini list` and `signorini run <name>`.
//!
//! Where the files live, and why: a crate may only embed files inside its own folder (else
//! `cargo package` cannot build it), so the text compiled in is `crates/signorini-scene/
//! scenes/<name>.toml`. Users run and read the scenes as `scenes/<name>.toml` at the
//! repository root, whose relative paths (`../data/…`) name the repository's data, so each
//! built-in scene is kept in both folders, byte for byte: the test `builtin_copies` (in
//! `tests/it/`) fails if they differ and says which to copy. Moving the files (or linking
//! one folder to the other) would break those relative data paths or the paths users type;
//! a build script would still read outside the crate. A built-in scene run by name resolves
//! its relative paths from the root copy ([`Builtin::path`]), as before.

use std::path::PathBuf;

/// A scene shipped in `scenes/` (and compiled in from this crate's copy).
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// Name (`signorini run <name>`), the file stem.
    pub name: &'static str,
    /// The file's text.
    pub text: &'static str,
}

macro_rules! scene {
    ($name:literal) => {
        Builtin {
            name: $name,
            text: include_str!(concat!("../scenes/", $name, ".toml")),
        }
    };
}

/// Every built-in scene.
pub const SCENES: &[Builtin] = &[
    scene!("demo"),
    scene!("pour2d_a_h010"),
    scene!("triangle_drop"),
    scene!("wedge"),
    scene!("pour3d_icosahedra_h010"),
    scene!("pour3d_random_c0_h010"),
    scene!("box_on_plane"),
    scene!("stick"),
    scene!("particle1d_cpf"),
    scene!("particle1d_perturbed"),
    scene!("tori_drop"),
    scene!("cloth_tori"),
    scene!("rings"),
    scene!("chain"),
    scene!("bucket"),
    scene!("octopus"),
    scene!("cube_on_cloth"),
    scene!("pile3d_n27"),
    scene!("pile3d_n125"),
    scene!("pile2d_n100"),
    // scenes/tower8.toml is not built in: today's PEG stepper fails every frictional step of
    // the stack (tens of seconds each), and built-in scenes must run without a failed step.
];

impl Builtin {
    /// Where the file is in the repository (`scenes/<name>.toml` at the root, the copy users
    /// run; relative paths inside it resolve from there).
    pub fn path(&self) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenes")
            .join(format!("{}.toml", self.name))
    }

    /// The `description` line of the file (first `description = "…"`).
    pub fn description(&self) -> String {
        self.text
            .lines()
            .find_map(|l| l.trim().strip_prefix("description"))
            .and_then(|l| l.split_once('"'))
            .map(|(_, rest)| rest.trim_end().trim_end_matches('"').to_string())
            .unwrap_or_default()
    }
}

/// A built-in scene by name.
pub fn find(name: &str) -> Option<&'static Builtin> {
    SCENES.iter().find(|b| b.name == name)
}
