//! What each parameter of a behaviour is, read from its parameter type's
//! own deserializer: what an inspector needs to give it a typed widget.
//!
//! An inspector row says `KinematicMover.mode = "PingPong"`: text, which
//! could be a string (written `"PingPong"` in the scene) or an enum variant
//! (written `PingPong`, one of `Loop`, `PingPong`, `Once`). Only the type
//! knows, and only the registry holds the type
//! ([`Registry::register_typed`](super::Registry::register_typed) is
//! generic over it). So the registry asks the type: it deserializes the
//! parameter struct once from a recording deserializer that answers every
//! request with a placeholder (`0`, `false`, `""`, the first variant) and
//! writes down, at each path, what was asked for:
//!
//! | `KinematicMoverParams` field | asked for | [`ParamKind`] at its path |
//! |---|---|---|
//! | `speed: f32` | `deserialize_f32` | `speed`: [`ParamKind::F32`] |
//! | `mode: PathMode` | `deserialize_enum("PathMode", ["Loop", "PingPong", "Once"])` | `mode`: [`ParamKind::Choice`] of the three |
//! | `relative: bool` | `deserialize_bool` | `relative`: [`ParamKind::Bool`] |
//! | `waypoints: Vec<Vec2>` | a sequence of structs of two `f32` | `waypoints[].x`, `waypoints[].y`: [`ParamKind::F32`] |
//!
//! The names are serde's, so a `#[serde(rename)]` is honoured: a variant
//! offered is one the scene loader reads. An enum is a choice only when
//! every variant is a bare name; to learn that, the type is read again once
//! per further variant (the second read takes `PingPong` at `mode`, the
//! third `Once`): 3 reads for `KinematicMoverParams`, each a few
//! microseconds. A type whose deserializer needs self-describing input
//! (`#[serde(untagged)]`) or checks its values (a string that must name a
//! key) cannot be read this way: it gets no kinds, and an inspector offers
//! its RON text only. So do the values under a `#[serde(flatten)]`, a
//! newtype struct or a tuple: none is written as `name: value`.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::{Deserialize, Serialize};

/// What one parameter is, as its type's deserializer reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamKind {
    /// `true` or `false`.
    Bool,
    /// An integer between `min` and `max` (`u8`: 0 to 255).
    Int {
        /// The least value the type holds.
        min: i64,
        /// The greatest.
        max: u64,
    },
    /// An `f32`.
    F32,
    /// An `f64`.
    F64,
    /// A string, written in quotes.
    Text,
    /// An enum whose variants are all bare names, written as one of them.
    Choice(Vec<String>),
}

/// The kinds of a parameter type's values by path: field names joined by
/// `.`, `[]` for any element of a list (`waypoints[].x`). An optional value
/// is at its option's path.
pub type ParamKinds = BTreeMap<String, ParamKind>;

/// The kinds of `P`'s parameters, or why `P` cannot be read without input
/// (module docs).
pub fn param_kinds<P: de::DeserializeOwned>() -> Result<ParamKinds, String> {
    let mut first = Trace::default();
    P::deserialize(Recorder::new(&mut first)).map_err(|e| e.0)?;
    let mut kinds = first.kinds;
    for (path, (variants, mut unit)) in first.enums {
        // Variant 0 was read by the first pass; read each other one.
        for (index, is_unit) in unit.iter_mut().enumerate().skip(1) {
            let mut pass = Trace {
                pick: Some((path.clone(), index)),
                ..Trace::default()
            };
            P::deserialize(Recorder::new(&mut pass)).map_err(|e| e.0)?;
            *is_unit = pass.picked_unit;
        }
        if unit.iter().all(|&u| u) {
            let names = variants.iter().map(|v| v.to_string()).collect();
            kinds.insert(path, ParamKind::Choice(names));
        }
    }
    Ok(kinds)
}

/// What one read of the type found.
#[derive(Default)]
struct Trace {
    /// Kinds of leaves, by path.
    kinds: ParamKinds,
    /// Enums by path: their variants, and whether each read so far was a
    /// bare name (the first pass reads variant 0 only).
    enums: BTreeMap<String, (&'static [&'static str], Vec<bool>)>,
    /// This pass reads variant `.1` of the enum at path `.0`.
    pick: Option<(String, usize)>,
    /// Whether the picked variant was a bare name.
    picked_unit: bool,
}

/// Why a type could not be read from placeholders.
#[derive(Debug)]
struct TraceError(String);

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceError {}

impl de::Error for TraceError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        TraceError(msg.to_string())
    }
}

/// A deserializer that answers with placeholders and records what it was
/// asked for at `path`. `quiet` inside an enum variant's content: a
/// variant with content is no choice, and its fields are not the type's.
struct Recorder<'t> {
    trace: &'t mut Trace,
    path: String,
    quiet: bool,
}

impl<'t> Recorder<'t> {
    fn new(trace: &'t mut Trace) -> Recorder<'t> {
        Recorder {
            trace,
            path: String::new(),
            quiet: false,
        }
    }

    fn record(&mut self, kind: ParamKind) {
        if !self.quiet && !self.path.is_empty() {
            self.trace.kinds.insert(self.path.clone(), kind);
        }
    }

    fn at(&mut self, tail: &str) -> Recorder<'_> {
        let path = if self.path.is_empty() || tail.is_empty() || tail.starts_with('[') {
            format!("{}{tail}", self.path)
        } else {
            format!("{}.{tail}", self.path)
        };
        Recorder {
            trace: self.trace,
            path,
            quiet: self.quiet,
        }
    }
}

macro_rules! integer {
    ($($method:ident $visit:ident $t:ty),*) => {$(
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
            self.record(ParamKind::Int {
                min: i64::try_from(<$t>::MIN).unwrap_or(i64::MIN),
                max: u64::try_from(<$t>::MAX).unwrap_or(u64::MAX),
            });
            visitor.$visit(0)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Recorder<'_> {
    type Error = TraceError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, TraceError> {
        Err(TraceError(format!(
            "`{}` is read without knowing its type (untagged, flattened or custom)",
            self.path
        )))
    }

    fn deserialize_bool<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.record(ParamKind::Bool);
        visitor.visit_bool(false)
    }

    integer!(
        deserialize_i8 visit_i8 i8, deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32, deserialize_i64 visit_i64 i64,
        deserialize_u8 visit_u8 u8, deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32, deserialize_u64 visit_u64 u64
    );

    fn deserialize_f32<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.record(ParamKind::F32);
        visitor.visit_f32(0.0)
    }

    fn deserialize_f64<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.record(ParamKind::F64);
        visitor.visit_f64(0.0)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_char('a')
    }

    fn deserialize_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        self.record(ParamKind::Text);
        visitor.visit_str("")
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_bytes(&[])
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_bytes(&[])
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        // The value inside, at the option's own path (a scene writes it
        // bare: `implicit_some`).
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        // Written `Name(value)`: not the bare value a leaf's widget writes.
        self.quiet = true;
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_seq(Items {
            recorder: self.at("[]"),
            left: 1,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        // A tuple is written `(a, b)`, which has no field names to find
        // its values by: its parts get no kinds.
        self.quiet = true;
        visitor.visit_seq(Items {
            recorder: self.at(""),
            left: len,
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_map(FieldWalk {
            recorder: self,
            names: &[],
            next: 0,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        visitor.visit_map(FieldWalk {
            recorder: self,
            names: fields,
            next: 0,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let Some(&first) = variants.first() else {
            return Err(TraceError(format!(
                "`{}` is an enum of no variant",
                self.path
            )));
        };
        let picked = match &self.trace.pick {
            Some((path, index)) if *path == self.path && !self.quiet => Some(*index),
            _ => None,
        };
        let variant = match picked {
            Some(index) => variants.get(index).copied().unwrap_or(first),
            None => first,
        };
        let first_read = !self.quiet && picked.is_none() && self.trace.pick.is_none();
        visitor.visit_enum(Variant {
            recorder: self,
            variant,
            picked: picked.is_some(),
            first_read,
            variants,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_str("")
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }
}

/// The walk over a struct's fields (`names`), each read at its path; a map
/// has none. (Not `behaviour::Fields`, the rows an inspector shows.)
struct FieldWalk<'t> {
    recorder: Recorder<'t>,
    names: &'static [&'static str],
    next: usize,
}

impl<'de> de::MapAccess<'de> for FieldWalk<'_> {
    type Error = TraceError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceError> {
        let Some(&name) = self.names.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, TraceError> {
        let name = self.names.get(self.next).copied().unwrap_or_default();
        self.next += 1;
        seed.deserialize(self.recorder.at(name))
    }
}

/// A list's or a tuple's items, `left` more of them, each read at the
/// recorder's path.
struct Items<'t> {
    recorder: Recorder<'t>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_> {
    type Error = TraceError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, TraceError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(self.recorder.at("")).map(Some)
    }
}

/// The variant an enum is read as, and how its content is read.
struct Variant<'t> {
    recorder: Recorder<'t>,
    variant: &'static str,
    /// This is the variant the pass was told to read at this path.
    picked: bool,
    /// The first pass, reading variant 0: note the enum.
    first_read: bool,
    variants: &'static [&'static str],
}

impl Variant<'_> {
    /// Notes whether the variant read is a bare name.
    fn note(&mut self, unit: bool) {
        let trace = &mut *self.recorder.trace;
        if self.first_read {
            let mut units = vec![false; self.variants.len()];
            units[0] = unit;
            trace
                .enums
                .insert(self.recorder.path.clone(), (self.variants, units));
        }
        if self.picked {
            trace.picked_unit = unit;
        }
    }
}

impl<'de, 't> de::EnumAccess<'de> for Variant<'t> {
    type Error = TraceError;
    type Variant = Variant<'t>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Variant<'t>), TraceError> {
        let name = seed.deserialize(self.variant.into_deserializer())?;
        Ok((name, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_> {
    type Error = TraceError;

    fn unit_variant(mut self) -> Result<(), TraceError> {
        self.note(true);
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        mut self,
        seed: T,
    ) -> Result<T::Value, TraceError> {
        self.note(false);
        self.recorder.quiet = true;
        seed.deserialize(self.recorder)
    }

    fn tuple_variant<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        self.note(false);
        self.recorder.quiet = true;
        de::Deserializer::deserialize_tuple(self.recorder, len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        self.note(false);
        self.recorder.quiet = true;
        visitor.visit_map(FieldWalk {
            recorder: self.recorder,
            names: fields,
            next: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Default)]
    #[serde(deny_unknown_fields, default)]
    #[allow(dead_code)]
    struct Inner {
        gain: f64,
        label: String,
    }

    #[derive(Deserialize, Default)]
    #[allow(dead_code)]
    enum Mode {
        #[default]
        Loop,
        #[serde(rename = "back_and_forth")]
        PingPong,
        Once,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Dot,
        Circle { radius: f32 },
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Params {
        speed: f32,
        count: u8,
        offset: i32,
        on: bool,
        mode: Mode,
        maybe_mode: Option<Mode>,
        shape: Shape,
        inner: Inner,
        points: Vec<(f32, f32)>,
        named: Vec<Inner>,
    }

    #[test]
    fn each_leaf_has_its_kind_at_its_path_and_a_bare_name_enum_is_a_choice_of_serde_names() {
        let kinds = param_kinds::<Params>().expect("readable from placeholders");
        let mode = ParamKind::Choice(vec![
            "Loop".to_string(),
            "back_and_forth".to_string(),
            "Once".to_string(),
        ]);
        let expected: ParamKinds = [
            ("speed", ParamKind::F32),
            ("count", ParamKind::Int { min: 0, max: 255 }),
            (
                "offset",
                ParamKind::Int {
                    min: -2_147_483_648,
                    max: 2_147_483_647,
                },
            ),
            ("on", ParamKind::Bool),
            ("mode", mode.clone()),
            ("maybe_mode", mode),
            ("inner.gain", ParamKind::F64),
            ("inner.label", ParamKind::Text),
            ("named[].gain", ParamKind::F64),
            ("named[].label", ParamKind::Text),
        ]
        .into_iter()
        .map(|(p, k)| (p.to_string(), k))
        .collect();
        // `shape` has a variant with content: no choice, and its radius is
        // no field of the type; a tuple's parts have no names to be found by.
        assert_eq!(kinds, expected);
    }

    #[test]
    fn a_type_read_without_its_type_has_no_kinds() {
        #[derive(Deserialize)]
        #[serde(untagged)]
        #[allow(dead_code)]
        enum Loose {
            Number(f32),
            Name(String),
        }
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Holder {
            value: Loose,
        }
        let err = param_kinds::<Holder>().expect_err("untagged reads any value");
        assert!(err.contains("without knowing its type"), "{err}");
    }
}
