//! Hand-written deserialisers of the scene fields that take several forms (`rotation`,
//! `inertia`, `pins`). serde's untagged enums would report a mismatch as "data did not match
//! any variant of untagged enum …" (an internal type name) and would silently ignore extra
//! keys (`rotation = { axis, angle, euler }` kept `axis`/`angle` and dropped `euler`); these
//! name the accepted forms and refuse conflicting keys.

use crate::raw::deform::RawPins;
use crate::raw::{RawInertia, RawRotation};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

impl<'de> Deserialize<'de> for RawRotation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RotationVisitor)
    }
}

struct RotationVisitor;

impl<'de> Visitor<'de> for RotationVisitor {
    type Value = RawRotation;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a rotation vector [rx, ry, rz], { axis = [x, y, z], angle = a } or \
             { euler = [roll, pitch, yaw] }",
        )
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawRotation, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element::<f64>()? {
            v.push(x);
        }
        Ok(RawRotation::Vector(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawRotation, A::Error> {
        let (mut axis, mut angle, mut euler) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "axis" if axis.is_some() => return Err(de::Error::duplicate_field("axis")),
                "angle" if angle.is_some() => return Err(de::Error::duplicate_field("angle")),
                "euler" if euler.is_some() => return Err(de::Error::duplicate_field("euler")),
                "axis" => axis = Some(map.next_value::<Vec<f64>>()?),
                "angle" => angle = Some(map.next_value::<f64>()?),
                "euler" => euler = Some(map.next_value::<Vec<f64>>()?),
                other => {
                    return Err(de::Error::unknown_field(other, &["axis", "angle", "euler"]));
                }
            }
        }
        match (axis, angle, euler) {
            (None, None, Some(euler)) => Ok(RawRotation::Euler { euler }),
            (Some(axis), Some(angle), None) => Ok(RawRotation::AxisAngle { axis, angle }),
            (_, _, Some(_)) => Err(de::Error::custom(
                "conflicting fields: give `euler` or `axis` and `angle`, not both",
            )),
            (Some(_), None, None) => Err(de::Error::missing_field("angle")),
            (None, Some(_), None) => Err(de::Error::missing_field("axis")),
            (None, None, None) => Err(de::Error::custom(
                "empty rotation: give `euler = [roll, pitch, yaw]` or `axis` and `angle`",
            )),
        }
    }
}

impl<'de> Deserialize<'de> for RawInertia {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(InertiaVisitor)
    }
}

struct InertiaVisitor;

/// A number or a row of numbers (one entry of an inertia list).
enum NumOrRow {
    Num(f64),
    Row(Vec<f64>),
}

impl<'de> Deserialize<'de> for NumOrRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NumOrRow;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number (kg m²) or a row of three numbers")
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<NumOrRow, E> {
                Ok(NumOrRow::Num(x))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<NumOrRow, E> {
                Ok(NumOrRow::Num(x as f64))
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<NumOrRow, E> {
                Ok(NumOrRow::Num(x as f64))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NumOrRow, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<f64>()? {
                    v.push(x);
                }
                Ok(NumOrRow::Row(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Visitor<'de> for InertiaVisitor {
    type Value = RawInertia;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number (2D, kg m²), a diagonal [Ixx, Iyy, Izz] or a 3×3 matrix (3D, kg m²)")
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<RawInertia, E> {
        Ok(RawInertia::Scalar(x))
    }

    fn visit_i64<E: de::Error>(self, x: i64) -> Result<RawInertia, E> {
        Ok(RawInertia::Scalar(x as f64))
    }

    fn visit_u64<E: de::Error>(self, x: u64) -> Result<RawInertia, E> {
        Ok(RawInertia::Scalar(x as f64))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawInertia, A::Error> {
        let mut nums = Vec::new();
        let mut rows = Vec::new();
        while let Some(e) = seq.next_element::<NumOrRow>()? {
            match e {
                NumOrRow::Num(x) => nums.push(x),
                NumOrRow::Row(r) => rows.push(r),
            }
        }
        match (nums.is_empty(), rows.is_empty()) {
            (_, true) => Ok(RawInertia::Diagonal(nums)),
            (true, false) => Ok(RawInertia::Matrix(rows)),
            (false, false) => Err(de::Error::custom(
                "numbers and rows mixed: give a diagonal [Ixx, Iyy, Izz] or a 3×3 matrix",
            )),
        }
    }
}

impl<'de> Deserialize<'de> for RawPins {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PinsVisitor)
    }
}

struct PinsVisitor;

/// One pinned vertex index (≥ 0).
struct PinIndex(usize);

impl<'de> Deserialize<'de> for PinIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PinIndex;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a vertex index (an integer >= 0)")
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<PinIndex, E> {
                usize::try_from(x)
                    .map(PinIndex)
                    .map_err(|_| E::custom(format!("vertex index {x} is too large")))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<PinIndex, E> {
                if x < 0 {
                    Err(E::custom(format!(
                        "vertex index {x} is negative: indices are >= 0"
                    )))
                } else {
                    self.visit_u64(x as u64)
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Visitor<'de> for PinsVisitor {
    type Value = RawPins;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of vertex indices, \"corners\" or \"all\"")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<RawPins, E> {
        Ok(RawPins::Named(s.to_string()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawPins, A::Error> {
        let mut v = Vec::new();
        while let Some(PinIndex(i)) = seq.next_element()? {
            v.push(i);
        }
        Ok(RawPins::Indices(v))
    }
}
