//! Helpers for the workspace's own tests (feature `test-support`, enabled only by the
//! dev-dependencies of `signorini-scene`, `signorini-experiments` and `signorini-cli`).

/// A temporary folder (`<temp dir>/signorini-<crate>-<name>-XXXXXX`), removed with its
/// contents when it is dropped at the end of the test, pass or fail; derefs to its path.
pub struct Tmp(tempfile::TempDir);

impl Tmp {
    /// A fresh temporary folder for one test of `krate` (a short tag: `cli`, `exp`, `scene`).
    ///
    /// # Panics
    /// If the system's temporary folder cannot hold a new folder (a test environment fault).
    pub fn new(krate: &str, name: &str) -> Tmp {
        let dir = tempfile::Builder::new()
            .prefix(&format!("signorini-{krate}-{name}-"))
            .tempdir()
            .expect("temporary folder");
        Tmp(dir)
    }
}

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
