//! Small deterministic CSV writers.
//!
//! Owns: the trajectory file formats (2D `step,body,x,y,angle`; 3D
//! `step,body,x,y,z,qw,qx,qy,qz`) and the `h<ms>` file-name tag.

use crate::ExperimentError;
use signorini_dynamics::RigidBody2;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Header line of every trajectory file.
pub fn trajectory_header() -> &'static str {
    "step,body,x,y,angle"
}

/// Header line of every 3D trajectory file (`pour3d`): centre of mass and unit quaternion.
pub fn trajectory_header3() -> &'static str {
    "step,body,x,y,z,qw,qx,qy,qz"
}

/// `h` in milliseconds, zero-padded to three digits: 0.003 → `h003`, 0.016 → `h016`.
pub fn h_tag(h: f64) -> String {
    format!("h{:03}", (h * 1000.0).round() as i64)
}

/// A buffered CSV file that remembers its path for error messages.
pub(crate) struct Csv {
    path: PathBuf,
    out: BufWriter<File>,
}

impl Csv {
    pub(crate) fn create(path: &Path, header: &str) -> Result<Csv, ExperimentError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| ExperimentError::io(dir, e))?;
        }
        let file = File::create(path).map_err(|e| ExperimentError::io(path, e))?;
        let mut csv = Csv {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        };
        csv.line(header)?;
        Ok(csv)
    }

    pub(crate) fn line(&mut self, s: &str) -> Result<(), ExperimentError> {
        writeln!(self.out, "{s}").map_err(|e| ExperimentError::io(&self.path, e))
    }

    /// One trajectory row: pose of the body frame as in the body-set file.
    pub(crate) fn pose(
        &mut self,
        step: usize,
        body: usize,
        b: &RigidBody2,
    ) -> Result<(), ExperimentError> {
        self.line(&format!(
            "{step},{body},{},{},{}",
            b.position.x, b.position.y, b.angle
        ))
    }

    /// One 3D trajectory row: centre of mass and orientation quaternion (w, x, y, z).
    pub(crate) fn pose3(
        &mut self,
        step: usize,
        body: usize,
        b: &signorini_dynamics::RigidBody3,
    ) -> Result<(), ExperimentError> {
        let (p, q) = (&b.position, b.orientation.quaternion());
        self.line(&format!(
            "{step},{body},{},{},{},{},{},{},{}",
            p.x, p.y, p.z, q.w, q.i, q.j, q.k
        ))
    }

    pub(crate) fn finish(mut self) -> Result<(), ExperimentError> {
        self.out
            .flush()
            .map_err(|e| ExperimentError::io(&self.path, e))
    }
}
