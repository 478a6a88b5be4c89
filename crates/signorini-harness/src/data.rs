//! Where the reference data is: the repository's top-level `data/` folder (`peg2d/`, `peg3d/`,
//! `lcp/`, `ccd/`; provenance and licences in `data/README.md`).
//!
//! A default data path resolves, in order, to `data/` in the checkout this crate was built
//! from (found at compile time from `CARGO_MANIFEST_DIR`, so commands work from any working
//! directory), then to `data/` in the current directory (a binary moved away from its
//! checkout). An explicit `--data DIR` always wins and is used as given.

use std::path::{Path, PathBuf};

/// The repository's `data/` folder as seen when this crate was compiled.
pub(crate) fn repo_data() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // crates/signorini-experiments → the workspace root.
    match crate_dir.parent().and_then(Path::parent) {
        Some(root) => root.join("data"),
        None => crate_dir.join("../../data"),
    }
}

/// The default data root: the repository's `data/` if it exists, else `data/` in the current
/// directory (which may not exist either; callers check the files they need with
/// [`require`]).
pub(crate) fn default_root() -> PathBuf {
    let repo = repo_data();
    if repo.is_dir() {
        repo
    } else {
        PathBuf::from("data")
    }
}

/// `explicit` if given, else `sub` (e.g. `"peg2d"`) under `default_root`.
pub fn resolve(explicit: Option<&Path>, sub: &str) -> PathBuf {
    match explicit {
        Some(p) => p.to_path_buf(),
        None if sub.is_empty() => default_root(),
        None => default_root().join(sub),
    }
}

/// The message for a missing data file or folder.
pub(crate) fn not_found(path: &Path) -> String {
    format!(
        "data file not found: {}; expected in the repository's data/ folder or pass --data",
        path.display()
    )
}

/// `Ok` if `path` exists, else the `not_found` message.
pub fn require(path: &Path) -> Result<(), String> {
    if path.exists() {
        Ok(())
    } else {
        Err(not_found(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_data_folder_is_found_from_the_crate() {
        let d = repo_data();
        assert!(d.ends_with("data"), "{}", d.display());
        assert!(d.join("README.md").is_file(), "{}", d.display());
        assert_eq!(default_root(), d);
        assert_eq!(resolve(None, "peg2d"), d.join("peg2d"));
        assert_eq!(resolve(None, ""), d);
    }

    #[test]
    fn an_explicit_folder_is_used_as_given() {
        let p = Path::new("elsewhere/peg3d");
        assert_eq!(resolve(Some(p), "peg2d"), p);
    }

    #[test]
    fn a_missing_file_is_named_in_the_message() {
        let p = Path::new("no/such/file.json");
        let e = require(p).unwrap_err();
        assert!(e.contains("data file not found: no/such/file.json"), "{e}");
        assert!(e.contains("data/ folder or pass --data"), "{e}");
        assert!(require(&repo_data()).is_ok());
    }
}
