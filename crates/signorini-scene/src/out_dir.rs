//! The output folder of a run: refused when it already holds files, unless the caller asks
//! to replace a previous run's files (`signorini run --force`). Reference: `docs/guide.md`.
//!
//! `--force` removes only the files a scene run or `signorini report` writes ([`is_run_file`]:
//! [`RUN_FILES`], `*.svg`, and the hidden temporary files of an interrupted write), and only
//! at the top of the folder: never a sub-folder, never through a symbolic link (a link is
//! removed as a link), never anything outside the folder. Other files are left in place.

use crate::error::{Located, SceneError};
use std::path::Path;

/// The files a scene run writes into its folder, and `report.html` (the SVG plots of
/// `signorini report` are `*.svg`).
pub const RUN_FILES: &[&str] = &[
    "trajectories.csv",
    "steps.csv",
    "contacts.csv",
    "trace.csv",
    "bodies.json",
    "vertices.json",
    "summary.json",
    "scene.toml",
    "scene.json",
    "report.html",
];

/// Whether a file name is one a run or a report writes: a [`RUN_FILES`] name, an `*.svg`, or
/// the hidden temporary file `.<name>.tmp-<pid>-<n>` of one of them (an interrupted write).
pub fn is_run_file(name: &str) -> bool {
    let ours = |n: &str| RUN_FILES.contains(&n) || (n.ends_with(".svg") && !n.starts_with('.'));
    if ours(name) {
        return true;
    }
    name.strip_prefix('.')
        .and_then(|rest| rest.split_once(".tmp-"))
        .is_some_and(|(target, _)| ours(target))
}

fn bad(dir: &Path, reason: String) -> SceneError {
    SceneError::Invalid(Located {
        file: dir.to_path_buf(),
        line: None,
        column: None,
        field: "--out".into(),
        reason,
    })
}

/// Make `dir` ready for a run: nothing to do if it does not exist or is empty; if it holds
/// anything, an error unless `force`, which removes the run files ([`is_run_file`]) first.
/// Returns the names removed.
///
/// # Errors
/// [`SceneError::Invalid`] (field `--out`) for a non-empty folder without `force`, or a path
/// that is not a folder; [`SceneError::Io`] if it cannot be listed or a file not removed.
pub fn prepare(dir: &Path, force: bool) -> Result<Vec<String>, SceneError> {
    let io = |e| SceneError::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(e)),
    };
    if !meta.is_dir() {
        return Err(bad(dir, "exists and is not a folder".into()));
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    names.sort();
    if names.is_empty() {
        return Ok(Vec::new());
    }
    if !force {
        let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
        let more = if names.len() > 5 { ", …" } else { "" };
        return Err(bad(
            dir,
            format!(
                "the output folder is not empty ({} entries: {}{more}); pass --force to remove \
                 a previous run's files first, or choose another folder",
                names.len(),
                shown.join(", ")
            ),
        ));
    }
    let mut removed = Vec::new();
    for name in names.into_iter().filter(|n| is_run_file(n)) {
        let path = dir.join(&name);
        // `symlink_metadata`: a link is judged (and removed) as a link, never followed.
        let kind = std::fs::symlink_metadata(&path).map_err(io)?.file_type();
        if kind.is_file() || kind.is_symlink() {
            std::fs::remove_file(&path).map_err(|e| SceneError::Io { path, source: e })?;
            removed.push(name);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_files_and_their_temporaries_are_recognised() {
        for n in [
            "summary.json",
            "report.html",
            "overlap.svg",
            ".steps.csv.tmp-123-0",
            ".summary.json.tmp-9-12",
        ] {
            assert!(is_run_file(n), "{n}");
        }
        for n in [
            "notes.txt",
            "data.csv",
            ".bashrc",
            ".notes.tmp-1-1",
            "sub",
            ".x.svg",
        ] {
            assert!(!is_run_file(n), "{n}");
        }
    }

    #[test]
    fn a_non_empty_folder_is_refused_and_force_removes_only_run_files() {
        let root = tempfile::Builder::new()
            .prefix("signorini-outdir-")
            .tempdir()
            .unwrap();
        let dir = root.path().join("out");
        assert_eq!(prepare(&dir, false).unwrap(), Vec::<String>::new());
        std::fs::create_dir_all(dir.join("keep")).unwrap();
        std::fs::write(dir.join("summary.json"), "{}").unwrap();
        std::fs::write(dir.join(".steps.csv.tmp-1-0"), "").unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let e = prepare(&dir, false).unwrap_err().to_string();
        assert!(e.contains("not empty") && e.contains("--force"), "{e}");
        assert!(
            dir.join("summary.json").exists(),
            "nothing removed without --force"
        );
        let removed = prepare(&dir, true).unwrap();
        assert_eq!(removed, [".steps.csv.tmp-1-0", "summary.json"]);
        assert!(dir.join("notes.txt").exists() && dir.join("keep").is_dir());
        std::fs::write(dir.join("f"), "").unwrap();
        assert!(
            prepare(&dir.join("f"), true).is_err(),
            "a file is not a folder"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
