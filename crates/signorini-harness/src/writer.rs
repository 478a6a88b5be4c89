//! Small deterministic CSV writers.
//!
//! Owns: the trajectory file formats (2D `step,body,x,y,angle`; 3D
//! `step,body,x,y,z,qw,qx,qy,qz`), the `h<ms>` file-name tag and [`AtomicFile`] (every output
//! is written to a temporary file in the same folder and renamed into place when complete, so
//! no reader ever sees a half-written file).

use crate::ExperimentError;
use signorini_dynamics::RigidBody2;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Header line of every trajectory file.
pub fn trajectory_header() -> &'static str {
    "step,body,x,y,angle"
}

/// Header line of every 3D trajectory file (`pour3d`): centre of mass and unit quaternion.
pub fn trajectory_header3() -> &'static str {
    "step,body,x,y,z,qw,qx,qy,qz"
}

/// `h` in milliseconds, zero-padded to three digits: 0.003 → `h003`, 0.016 → `h016`. A step
/// that is not a whole number of milliseconds keeps its fraction in microseconds, so that no
/// two step sizes share a file name: 0.0005 → `h000_500`, 0.0015 → `h001_500` (both were
/// `h001` before, and one run's files overwrote the other's).
pub fn h_tag(h: f64) -> String {
    let us = (h * 1e6).round() as i64;
    if us % 1000 == 0 {
        format!("h{:03}", us / 1000)
    } else {
        format!("h{:03}_{:03}", us / 1000, us % 1000)
    }
}

/// A file written atomically: bytes go to a hidden temporary file in the target's folder
/// (`.<name>.tmp-<pid>-<n>`), and [`AtomicFile::commit`] flushes it and renames it over the
/// target (a rename within one folder is atomic on POSIX file systems). Dropped without a
/// commit (an error, a panic), the temporary file is removed and the target is untouched.
///
/// Why not `tempfile::NamedTempFile::persist` (issue #21 asked): a second SIGINT ends the
/// process at once (`cancel::remove_temp_files_and_exit`), so no destructor runs and only the
/// registry of temporary files in `cancel.rs` can remove them. This type registers the name
/// *before* the file exists, so no instant is left in which the file exists unregistered;
/// `tempfile` picks a random name while creating the file, which leaves that gap. Keeping the
/// registry, the sync and the hidden name, `tempfile` would save only the counter and the
/// `Drop` below, and become a dependency of every build instead of the tests'.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    /// Bytes handed to `out` so far.
    written: u64,
    /// Renamed into place (or removed after a failed commit): nothing left for `Drop`.
    done: bool,
}

static TMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

impl AtomicFile {
    /// Start writing `path` (its folder is created if missing).
    pub fn create(path: &Path) -> Result<AtomicFile, ExperimentError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|e| ExperimentError::io(&dir, e))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
        // Tracked before it exists: a forced exit (second signal, broken pipe) removes it.
        crate::cancel::track_temp(&tmp);
        let file = match File::create(&tmp) {
            Ok(f) => f,
            Err(e) => {
                crate::cancel::untrack_temp(&tmp);
                return Err(ExperimentError::io(&tmp, e));
            }
        };
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: BufWriter::new(file),
            written: 0,
            done: false,
        })
    }

    /// Append bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), ExperimentError> {
        self.out
            .write_all(bytes)
            .map_err(|e| ExperimentError::io(&self.path, e))?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// [`AtomicFile::flush`], and mark everything written so far as worth keeping: a forced
    /// exit (a second signal) writes it to the target instead of removing it
    /// ([`crate::cancel::remove_temp_files_and_exit`]). Call it where the bytes written end
    /// a whole record.
    pub fn checkpoint(&mut self) -> Result<(), ExperimentError> {
        self.flush()?;
        crate::cancel::mark_salvageable(&[(&self.tmp, &self.path, self.written)]);
        Ok(())
    }

    /// Hand what is buffered to the OS, so that the temporary file shows it (a long run's
    /// progress can be read from it before the file is committed).
    pub fn flush(&mut self) -> Result<(), ExperimentError> {
        self.out
            .flush()
            .map_err(|e| ExperimentError::io(&self.path, e))
    }

    /// Flush, sync and rename into place. On an error the temporary file is removed (by
    /// `Drop`, which also closes it).
    pub fn commit(mut self) -> Result<(), ExperimentError> {
        self.out
            .flush()
            .map_err(|e| ExperimentError::io(&self.path, e))?;
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| ExperimentError::io(&self.path, e))?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| ExperimentError::io(&self.path, e))?;
        self.done = true;
        crate::cancel::untrack_temp(&self.tmp);
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
            crate::cancel::untrack_temp(&self.tmp);
        }
    }
}

/// Write a whole file atomically (see [`AtomicFile`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExperimentError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// A CSV file written atomically ([`AtomicFile`]), one line at a time.
pub struct Csv {
    out: AtomicFile,
}

impl Csv {
    /// Start a CSV file with its header line.
    pub fn create(path: &Path, header: &str) -> Result<Csv, ExperimentError> {
        let mut csv = Csv {
            out: AtomicFile::create(path)?,
        };
        csv.line(header)?;
        Ok(csv)
    }

    /// Append one line (a newline is added).
    pub fn line(&mut self, s: &str) -> Result<(), ExperimentError> {
        self.out.write_all(s.as_bytes())?;
        self.out.write_all(b"\n")
    }

    /// [`AtomicFile::flush`].
    pub fn flush(&mut self) -> Result<(), ExperimentError> {
        self.out.flush()
    }

    /// [`AtomicFile::checkpoint`]: the lines written so far are whole rows, kept if the
    /// process is stopped at once (a second signal) before the file is finished.
    pub fn checkpoint(&mut self) -> Result<(), ExperimentError> {
        self.out.checkpoint()
    }

    /// [`Csv::checkpoint`] of several files at once: each is flushed, then all are marked
    /// together, so that a second signal at any instant keeps them all up to the same row
    /// (one file marked at a later step than another was seen in a test, 1 run in 10).
    pub fn checkpoint_together(files: &mut [&mut Csv]) -> Result<(), ExperimentError> {
        for f in files.iter_mut() {
            f.out.flush()?;
        }
        let marks: Vec<(&Path, &Path, u64)> = files
            .iter()
            .map(|f| (f.out.tmp.as_path(), f.out.path.as_path(), f.out.written))
            .collect();
        crate::cancel::mark_salvageable(&marks);
        Ok(())
    }

    /// One trajectory row: pose of the body frame as in the body-set file.
    pub fn pose(
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
    pub fn pose3(
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

    /// Complete the file (rename into place). Completed while a signal asks to stop
    /// ([`crate::cancel`]), the file ends with the line `# interrupted: <SIGNAL>`.
    pub fn finish(mut self) -> Result<(), ExperimentError> {
        if let Some(mark) = crate::cancel::csv_mark() {
            self.line(&mark)?;
        }
        self.out.commit()
    }
}

#[cfg(test)]
mod h_tag_tests {
    use super::h_tag;

    #[test]
    fn step_tags_are_distinct_below_a_millisecond() {
        assert_eq!(h_tag(0.003), "h003");
        assert_eq!(h_tag(0.016), "h016");
        assert_eq!(h_tag(0.001), "h001");
        assert_eq!(h_tag(0.0005), "h000_500");
        assert_eq!(h_tag(0.0015), "h001_500");
        assert_ne!(h_tag(0.0005), h_tag(0.001));
    }
}
