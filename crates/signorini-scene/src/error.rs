//! Errors of scene files and runs. Every input error names the file, the line and column (when
//! the file is TOML, or a JSON syntax/type error), the field path (`body[2].mass`) and the
//! reason.

use std::fmt;
use std::path::PathBuf;

/// Where and why a scene file is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The scene file.
    pub file: PathBuf,
    /// 1-based line, if known.
    pub line: Option<usize>,
    /// 1-based column (in characters), if known.
    pub column: Option<usize>,
    /// Field path, e.g. `body[2].shape.vertices` (empty for the whole file).
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        if self.field.is_empty() {
            write!(f, ": {}", self.reason)
        } else {
            write!(f, ": field `{}`: {}", self.field, self.reason)
        }
    }
}

/// Why a scene could not be loaded, validated or run.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The scene file (or a file it names) cannot be read, or an output cannot be written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Malformed or invalid input.
    #[error("{0}")]
    Invalid(Located),
    /// Valid input that this build cannot run yet.
    #[error("{}", unsupported(.0))]
    Unsupported(Located),
    /// The world rejected a body or setting.
    #[error("world: {0}")]
    World(#[from] signorini_world::WorldError),
    /// The penalty world rejected a body or setting.
    #[error("penalty world: {0}")]
    Penalty(#[from] signorini_world::penalty::PenaltyError),
    /// An output or a referenced file failed.
    #[error(transparent)]
    Experiment(#[from] signorini_harness::ExperimentError),
}

fn unsupported(l: &Located) -> String {
    let mut l = l.clone();
    l.reason = format!("not yet supported: {}", l.reason);
    l.to_string()
}

impl SceneError {
    /// True if the error is the user's input (exit code 2), not a failure while running.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, SceneError::World(_) | SceneError::Penalty(_))
    }

    /// The location, for input errors.
    pub fn located(&self) -> Option<&Located> {
        match self {
            SceneError::Invalid(l) | SceneError::Unsupported(l) => Some(l),
            _ => None,
        }
    }
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A field path such as `body[2].shape`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    /// The path with one more key.
    pub fn key(&self, k: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Seg::Key(k.to_string()));
        p
    }

    /// The path with one more index.
    pub fn index(&self, i: usize) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(key) if k == 0 => write!(f, "{key}")?,
                Seg::Key(key) => write!(f, ".{key}")?,
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}
