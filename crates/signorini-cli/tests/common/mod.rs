//! Helpers shared by the CLI's test binaries (each includes this file with `mod common;`).

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
