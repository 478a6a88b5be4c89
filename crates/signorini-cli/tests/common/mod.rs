//! Helpers shared by the CLI's test binaries (each includes this file with `mod common;`;
//! a binary that uses only some of them would warn about the rest, hence the `allow`).
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Run the binary with `args` in the current folder: (exit code, stdout, stderr).
pub fn signorini(args: &[&str]) -> (i32, String, String) {
    output(Command::new(env!("CARGO_BIN_EXE_signorini")).args(args))
}

/// Run the binary in `dir` (so that a default `out/<name>` lands there).
pub fn signorini_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    output(
        Command::new(env!("CARGO_BIN_EXE_signorini"))
            .args(args)
            .current_dir(dir),
    )
}

/// A machine-wide memory limit in the environment must not change what a test sees.
fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd
        .env_remove("SIGNORINI_MEMORY_LIMIT")
        .output()
        .expect("run signorini");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A temporary folder (`<temp dir>/signorini-cli-<name>-XXXXXX`), removed with its
/// contents when it is dropped at the end of the test, pass or fail; derefs to its path.
pub struct Tmp(tempfile::TempDir);

impl std::ops::Deref for Tmp {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::path::Path> for Tmp {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

/// A fresh temporary folder for one test (see [`Tmp`]).
pub fn tmp(name: &str) -> Tmp {
    let dir = tempfile::Builder::new()
        .prefix(&format!("signorini-cli-{name}-"))
        .tempdir()
        .expect("temporary folder");
    Tmp(dir)
}
