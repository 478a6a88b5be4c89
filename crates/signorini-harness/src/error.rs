//! Errors of runs (experiments and scene runs): files, data, arguments, the world.

use std::path::PathBuf;

/// Why a run (an experiment or a scene run) could not be set up or written.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// A file could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A JSON or CSV file is malformed.
    #[error("{path}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong (field, line, value).
        reason: String,
    },
    /// A body of a body set is invalid.
    #[error("{path}: body {body}, field `{field}`: {reason}")]
    Body {
        /// The body-set file.
        path: PathBuf,
        /// Body index (0-based).
        body: usize,
        /// Field name.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// An argument is out of range.
    #[error("invalid argument: {0}")]
    Argument(String),
    /// The world rejected a setting or body.
    #[error("world: {0}")]
    World(#[from] signorini_world::WorldError),
}

impl ExperimentError {
    /// [`ExperimentError::Argument`] with `e`'s text (a parameter's error, e.g. a mesh's).
    pub fn argument(e: impl std::fmt::Display) -> Self {
        ExperimentError::Argument(e.to_string())
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ExperimentError::Io {
            path: path.into(),
            source,
        }
    }
}
