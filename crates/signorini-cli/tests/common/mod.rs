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

pub use signorini_harness::test_support::Tmp;

/// A fresh temporary folder for one test (see [`Tmp`]).
pub fn tmp(name: &str) -> Tmp {
    Tmp::new("cli", name)
}
