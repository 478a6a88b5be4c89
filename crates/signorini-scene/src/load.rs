//! Reading a scene file (TOML, or JSON by extension or leading `{`) into [`RawScene`], with
//! errors located at file:line:column and named by field path.
//!
//! TOML is parsed once into toml's span-keeping document (`DeTable`), which is kept as a
//! [`Locator`] so that later validation errors can point at the offending value too.
//! serde_path_to_error supplies the field path of deserialisation errors.

use crate::error::{FieldPath, Located, SceneError, Seg};
use crate::raw::RawScene;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// File format of a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// TOML (the default).
    Toml,
    /// JSON (`.json` files, or text starting with `{`).
    Json,
}

/// Finds the line and column of a field path in the source text.
pub struct Locator<'a> {
    file: PathBuf,
    text: &'a str,
    doc: Option<Spanned<DeTable<'a>>>,
}

impl<'a> Locator<'a> {
    /// The file name used in messages.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The source text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The source format.
    pub fn format(&self) -> Format {
        if self.doc.is_some() {
            Format::Toml
        } else {
            Format::Json
        }
    }

    /// An error at a field (line and column of its value when the file is TOML).
    pub fn at(&self, path: &FieldPath, reason: impl Into<String>) -> Located {
        let (line, column) = match self.span_of(path) {
            Some(r) => {
                let (l, c) = line_col(self.text, r.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        Located {
            file: self.file.clone(),
            line,
            column,
            field: path.to_string(),
            reason: reason.into(),
        }
    }

    /// Span of the value at `path`, or of the deepest existing ancestor.
    fn span_of(&self, path: &FieldPath) -> Option<Range<usize>> {
        self.walk(path).map(|(span, _, _)| span)
    }

    /// The span and table of the value at `path`, or of its deepest existing ancestor, and
    /// whether the whole path was found.
    fn walk(&self, path: &FieldPath) -> Option<(Range<usize>, Option<&DeTable<'a>>, bool)> {
        let doc = self.doc.as_ref()?;
        let mut span = doc.span();
        let mut cur: Option<&DeValue<'a>> = None;
        let mut table: Option<&DeTable<'a>> = Some(doc.get_ref());
        for seg in &path.0 {
            let next = match (seg, table, cur) {
                (Seg::Key(k), Some(t), _) => t
                    .iter()
                    .find(|(key, _)| key.get_ref().as_ref() == k.as_str())
                    .map(|(_, v)| v),
                (Seg::Index(i), _, Some(DeValue::Array(a))) => a.get(*i),
                _ => None,
            };
            let Some(v) = next else {
                return Some((span, table, false));
            };
            span = v.span();
            cur = Some(v.get_ref());
            table = match v.get_ref() {
                DeValue::Table(t) => Some(t),
                _ => None,
            };
        }
        Some((span, table, true))
    }

    /// The field a deserialisation error is about, when serde's path stops at the table that
    /// holds it. Tagged enums (shapes, primitives) are buffered by serde before their fields
    /// are read, so serde_path_to_error's path ends at the table: "unknown field `k`" then
    /// names key `k` of that table, and "unknown variant `v`" the key whose value is the
    /// string `v` (a primitive's `kind`).
    fn refine(&self, path: FieldPath, reason: &str) -> FieldPath {
        let quoted = |prefix: &str| {
            reason
                .strip_prefix(prefix)
                .and_then(|r| r.split_once('`'))
                .map(|(name, _)| name.to_string())
        };
        let last_is = |k: &str| matches!(path.0.last(), Some(Seg::Key(l)) if l == k);
        if let Some(k) = quoted("unknown field `") {
            if !last_is(&k) {
                return path.key(&k);
            }
        } else if let Some(v) = quoted("unknown variant `")
            && let Some((_, Some(t), true)) = self.walk(&path)
            && let Some((key, _)) = t.iter().find(
                |(_, val)| matches!(val.get_ref(), DeValue::String(s) if s.as_ref() == v.as_str()),
            )
        {
            let key = key.get_ref().as_ref().to_string();
            if !last_is(&key) {
                return path.key(&key);
            }
        }
        path
    }
}

/// 1-based line and character column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

/// Guess the format from the extension, else from the first non-blank character.
pub fn detect_format(path: &Path, text: &str) -> Format {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
        Some(e) if e.eq_ignore_ascii_case("toml") => Format::Toml,
        _ if text.trim_start().starts_with('{') => Format::Json,
        _ => Format::Toml,
    }
}

fn convert_path(p: &serde_path_to_error::Path) -> FieldPath {
    use serde_path_to_error::Segment;
    FieldPath(
        p.iter()
            .filter_map(|s| match s {
                Segment::Seq { index } => Some(Seg::Index(*index)),
                Segment::Map { key } => Some(Seg::Key(key.clone())),
                Segment::Enum { variant } => Some(Seg::Key(variant.clone())),
                Segment::Unknown => None,
            })
            .collect(),
    )
}

/// Parse scene text. Returns the raw scene and a locator for validation errors.
pub fn parse<'a>(
    file: &Path,
    text: &'a str,
    format: Format,
) -> Result<(RawScene, Locator<'a>), SceneError> {
    let invalid = |line, column, field: String, reason: String| {
        SceneError::Invalid(Located {
            file: file.to_path_buf(),
            line,
            column,
            field,
            reason,
        })
    };
    match format {
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            let raw: RawScene = serde_path_to_error::deserialize(&mut de).map_err(|e| {
                let path = convert_path(e.path());
                let inner = e.into_inner();
                let (l, c) = (inner.line(), inner.column());
                let reason = plain_reason(&strip_position(&inner.to_string()));
                let loc = Locator {
                    file: file.to_path_buf(),
                    text,
                    doc: None,
                };
                let field = loc.refine(path, &reason).to_string();
                invalid(Some(l).filter(|&l| l > 0), Some(c), field, reason)
            })?;
            Ok((
                raw,
                Locator {
                    file: file.to_path_buf(),
                    text,
                    doc: None,
                },
            ))
        }
        Format::Toml => {
            let doc = DeTable::parse(text).map_err(|e| {
                let (l, c) = e
                    .span()
                    .map(|r| line_col(text, r.start))
                    .map_or((None, None), |(l, c)| (Some(l), Some(c)));
                invalid(l, c, String::new(), first_line(e.message()))
            })?;
            let de = toml::de::Deserializer::from(doc.clone());
            let raw: RawScene = serde_path_to_error::deserialize(de).map_err(|e| {
                let path = convert_path(e.path());
                let inner = e.into_inner();
                let loc = Locator {
                    file: file.to_path_buf(),
                    text,
                    doc: Some(doc.clone()),
                };
                let reason = plain_reason(&first_line(inner.message()));
                let refined = loc.refine(path.clone(), &reason);
                let mut located = loc.at(&refined, reason);
                // toml's span is the value being read; a refined path points closer.
                if let Some(r) = inner.span().filter(|_| refined == path) {
                    let (l, c) = line_col(text, r.start);
                    (located.line, located.column) = (Some(l), Some(c));
                }
                SceneError::Invalid(located)
            })?;
            Ok((
                raw,
                Locator {
                    file: file.to_path_buf(),
                    text,
                    doc: Some(doc),
                },
            ))
        }
    }
}

/// serde's reasons name Rust types ("expected usize", "integer `…` as i128"); say what the
/// field takes in words instead (issue 20: never print an internal type name).
fn plain_reason(s: &str) -> String {
    const WORDS: [(&str, &str); 12] = [
        (" as i128", ""),
        (" as u128", ""),
        (
            "expected any value",
            "expected a number that fits in 64 bits",
        ),
        ("expected usize", "expected a whole number ≥ 0"),
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected u8", "expected a whole number ≥ 0"),
        ("expected isize", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
    ];
    WORDS
        .iter()
        .fold(s.to_string(), |text, (from, to)| text.replace(from, to))
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

/// serde_json appends " at line L column C"; the location is reported separately.
fn strip_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(k) => s[..k].to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod reason_tests {
    use super::plain_reason;

    #[test]
    fn reasons_name_no_rust_types() {
        let cases = [
            (
                "invalid value: integer `-5`, expected usize",
                "invalid value: integer `-5`, expected a whole number ≥ 0",
            ),
            (
                "invalid type: floating point `12.5`, expected usize",
                "invalid type: floating point `12.5`, expected a whole number ≥ 0",
            ),
            (
                "invalid type: integer `18446744073709551616` as i128, expected any value",
                "invalid type: integer `18446744073709551616`, expected a number that fits in 64 bits",
            ),
            (
                "invalid type: string \"x\", expected f64",
                "invalid type: string \"x\", expected a number",
            ),
        ];
        for (raw, plain) in cases {
            assert_eq!(plain_reason(raw), plain);
        }
    }
}
