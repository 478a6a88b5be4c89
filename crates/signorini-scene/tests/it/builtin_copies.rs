//! Each built-in scene is compiled in from `crates/signorini-scene/scenes/` and kept, byte for
//! byte, at `scenes/` in the repository root, where users run it and its relative data paths
//! resolve (see `src/builtin.rs`). This test keeps the two copies equal.

use signorini_scene::builtin::SCENES;

#[test]
fn root_scenes_equal_the_compiled_in_copies() {
    let mut differ = Vec::new();
    for b in SCENES {
        let root = crate::repo()
            .join("scenes")
            .join(format!("{}.toml", b.name));
        match std::fs::read_to_string(&root) {
            Ok(text) if text == b.text => {}
            Ok(_) => differ.push(format!("{} differs", root.display())),
            Err(e) => differ.push(format!("{}: {e}", root.display())),
        }
    }
    assert!(
        differ.is_empty(),
        "{}\nbuilt-in scenes live in both crates/signorini-scene/scenes/ (compiled in) and \
         scenes/ (run by users): edit one and copy it over the other",
        differ.join("\n")
    );
    // Every file of the crate's folder is a built-in scene (no stale copy left behind).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let stem = name.trim_end_matches(".toml");
        assert!(
            SCENES.iter().any(|b| b.name == stem),
            "{name} in {} is not in builtin::SCENES",
            dir.display()
        );
    }
}
