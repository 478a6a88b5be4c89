//! Triangle-mesh files: Wavefront OBJ and STL (ASCII and binary), read and write.
//!
//! Readers name the file, the line (OBJ, ASCII STL) or byte offset (binary STL) and the reason
//! of every error. OBJ polygons with more than three corners are fan-triangulated; `v/vt/vn`
//! index forms and negative (relative) indices are accepted; other statements are ignored.
//! STL stores unindexed triangles: vertices with bit-identical coordinates are merged
//! (deterministically, first occurrence order). The facet normals of STL are ignored on
//! reading (orientation comes from the corner order) and written as unit face normals.

use super::{MeshError, TriMesh};
use signorini_math::Vec3;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A mesh file that cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshIoError {
    /// The file could not be read.
    #[error("{file}: {reason}")]
    Io {
        /// File name.
        file: String,
        /// The system error.
        reason: String,
    },
    /// A syntax error.
    #[error("{file}:{line}: {reason}")]
    Parse {
        /// File name.
        file: String,
        /// 1-based line number (binary STL: byte offset).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The file parsed but its mesh is invalid.
    #[error("{file}: invalid mesh: {source}")]
    Mesh {
        /// File name.
        file: String,
        /// The validation error.
        source: MeshError,
    },
}

/// Read an `.obj` or `.stl` file (by extension; STL ASCII vs binary by content).
///
/// # Errors
/// [`MeshIoError`] naming the file and line.
pub fn load(path: &Path) -> Result<TriMesh, MeshIoError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| MeshIoError::Io {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "obj" => parse_obj(&String::from_utf8_lossy(&bytes), &file),
        "stl" => parse_stl(&bytes, &file),
        _ => Err(MeshIoError::Parse {
            file,
            line: 0,
            reason: format!("unknown extension `{ext}` (expected obj or stl)"),
        }),
    }
}

fn perr(file: &str, line: usize, reason: impl Into<String>) -> MeshIoError {
    MeshIoError::Parse {
        file: file.to_string(),
        line,
        reason: reason.into(),
    }
}

fn finish(v: Vec<Vec3>, t: Vec<[u32; 3]>, file: &str) -> Result<TriMesh, MeshIoError> {
    TriMesh::new(v, t).map_err(|source| MeshIoError::Mesh {
        file: file.to_string(),
        source,
    })
}

fn parse_xyz<'a>(
    mut it: impl Iterator<Item = &'a str>,
    file: &str,
    line: usize,
) -> Result<Vec3, MeshIoError> {
    let mut c = [0.0; 3];
    for (k, x) in c.iter_mut().enumerate() {
        let s = it
            .next()
            .ok_or_else(|| perr(file, line, format!("missing coordinate {k}")))?;
        *x = s
            .parse()
            .map_err(|_| perr(file, line, format!("coordinate `{s}` is not a number")))?;
    }
    Ok(Vec3::new(c[0], c[1], c[2]))
}

/// Parse OBJ text (`file` is used in error messages).
///
/// # Errors
/// [`MeshIoError::Parse`] with the line, or [`MeshIoError::Mesh`].
pub fn parse_obj(text: &str, file: &str) -> Result<TriMesh, MeshIoError> {
    let mut v = Vec::new();
    let mut t = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let mut it = raw.split_whitespace();
        match it.next() {
            Some("v") => v.push(parse_xyz(it, file, line)?),
            Some("f") => {
                let mut idx = Vec::new();
                for tok in it {
                    let first = tok.split('/').next().unwrap_or("");
                    let i: i64 = first
                        .parse()
                        .map_err(|_| perr(file, line, format!("face index `{tok}` is invalid")))?;
                    let abs = if i < 0 { v.len() as i64 + i } else { i - 1 };
                    if abs < 0 || abs >= v.len() as i64 {
                        return Err(perr(
                            file,
                            line,
                            format!("face index {i} out of range ({} vertices so far)", v.len()),
                        ));
                    }
                    idx.push(abs as u32);
                }
                if idx.len() < 3 {
                    return Err(perr(file, line, "face with fewer than 3 corners"));
                }
                for k in 1..idx.len() - 1 {
                    t.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    finish(v, t, file)
}

/// Merge bit-identical positions; `soup` holds three corners per triangle.
fn weld(soup: &[Vec3]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut ids: BTreeMap<[u64; 3], u32> = BTreeMap::new();
    let mut v = Vec::new();
    let idx: Vec<u32> = soup
        .iter()
        .map(|p| {
            let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
            *ids.entry(key).or_insert_with(|| {
                v.push(*p);
                (v.len() - 1) as u32
            })
        })
        .collect();
    let t = idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    (v, t)
}

/// Parse STL bytes, ASCII (starts with `solid` and has a `facet`) or binary.
///
/// # Errors
/// [`MeshIoError`] with the line (ASCII) or byte offset (binary).
pub fn parse_stl(bytes: &[u8], file: &str) -> Result<TriMesh, MeshIoError> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(512)]);
    let ascii = head.trim_start().starts_with("solid") && head.contains("facet");
    let soup = if ascii {
        stl_ascii(&String::from_utf8_lossy(bytes), file)?
    } else {
        stl_binary(bytes, file)?
    };
    let (v, t) = weld(&soup);
    finish(v, t, file)
}

fn stl_ascii(text: &str, file: &str) -> Result<Vec<Vec3>, MeshIoError> {
    let mut soup = Vec::new();
    let mut in_facet = 0usize;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let mut it = raw.split_whitespace();
        match it.next() {
            Some("vertex") => {
                soup.push(parse_xyz(it, file, line)?);
                in_facet += 1;
            }
            Some("endfacet") => {
                if in_facet != 3 {
                    return Err(perr(
                        file,
                        line,
                        format!("facet has {in_facet} vertices, expected 3"),
                    ));
                }
                in_facet = 0;
            }
            _ => {}
        }
    }
    if in_facet != 0 {
        return Err(perr(file, text.lines().count(), "unterminated facet"));
    }
    Ok(soup)
}

fn stl_binary(b: &[u8], file: &str) -> Result<Vec<Vec3>, MeshIoError> {
    if b.len() < 84 {
        return Err(perr(
            file,
            b.len(),
            "binary STL shorter than its 84-byte header",
        ));
    }
    let count = u32::from_le_bytes([b[80], b[81], b[82], b[83]]) as usize;
    let need = 84 + 50 * count;
    if b.len() < need {
        return Err(perr(
            file,
            b.len(),
            format!(
                "binary STL declares {count} triangles ({need} bytes) but has {} bytes",
                b.len()
            ),
        ));
    }
    let f = |o: usize| f32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as f64;
    let mut soup = Vec::with_capacity(3 * count);
    for i in 0..count {
        let o = 84 + 50 * i + 12;
        for k in 0..3 {
            let p = o + 12 * k;
            soup.push(Vec3::new(f(p), f(p + 4), f(p + 8)));
        }
    }
    Ok(soup)
}

/// OBJ text of a mesh (`v` lines with round-trip precision, 1-based `f` lines).
pub fn to_obj(m: &TriMesh) -> String {
    let mut s = String::new();
    for v in m.vertices() {
        let _ = writeln!(s, "v {:?} {:?} {:?}", v.x, v.y, v.z);
    }
    for t in m.triangles() {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}

fn unit_normal(m: &TriMesh, t: usize) -> Vec3 {
    m.face_normal(t).normalize()
}

/// ASCII STL text of a mesh (round-trip precision).
pub fn to_stl_ascii(m: &TriMesh, name: &str) -> String {
    let mut s = format!("solid {name}\n");
    for t in 0..m.triangles().len() {
        let n = unit_normal(m, t);
        let _ = writeln!(s, "facet normal {:?} {:?} {:?}\nouter loop", n.x, n.y, n.z);
        for p in m.corners(t) {
            let _ = writeln!(s, "vertex {:?} {:?} {:?}", p.x, p.y, p.z);
        }
        s.push_str("endloop\nendfacet\n");
    }
    let _ = writeln!(s, "endsolid {name}");
    s
}

/// Binary STL bytes of a mesh (coordinates rounded to `f32`, as the format requires).
pub fn to_stl_binary(m: &TriMesh) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&(m.triangles().len() as u32).to_le_bytes());
    for t in 0..m.triangles().len() {
        let n = unit_normal(m, t);
        let mut put = |v: &Vec3| {
            for k in 0..3 {
                b.extend_from_slice(&(v[k] as f32).to_le_bytes());
            }
        };
        put(&n);
        for p in m.corners(t) {
            put(&p);
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}
