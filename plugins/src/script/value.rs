//! Script values: the `vars` a scene hands a script, and the stable hash of
//! script state.
//!
//! Scene parameters are RON; scripts see rhai [`Dynamic`] values. [`ScriptValue`]
//! is the bridge: booleans, integers (`INT`, i64), floats (`FLOAT`, f64: scripts
//! compute in f64 and the API converts to the f32 of poses only when a command
//! is queued), strings, lists and maps. Maps are `BTreeMap`s on both sides, so
//! every iteration over them is in key order.
//!
//! [`hash_dynamic`] feeds a value to the [`StableHasher`] by type and content,
//! recursively, in a fixed order: arrays in index order, object maps in key
//! order (rhai's `Map` is a `BTreeMap`). Floats are hashed by bit pattern.

use std::collections::BTreeMap;

use rhai::{Array, Dynamic, INT, Map};
use serde::{Deserialize, Serialize};
use stepframe_core::hash::StableHasher;

/// A value a scene passes to a script in `vars`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScriptValue {
    /// `true` / `false`.
    Bool(bool),
    /// A whole number: a rhai `INT` (i64).
    Int(i64),
    /// A number with a fraction: a rhai `FLOAT` (f64).
    Float(f64),
    /// Text.
    Str(String),
    /// `[a, b, ...]`: a rhai array.
    List(Vec<ScriptValue>),
    /// `{"key": value, ...}`: a rhai object map.
    Map(BTreeMap<String, ScriptValue>),
}

impl ScriptValue {
    /// The rhai value a script sees.
    pub fn to_dynamic(&self) -> Dynamic {
        match self {
            ScriptValue::Bool(b) => Dynamic::from_bool(*b),
            ScriptValue::Int(i) => Dynamic::from_int(*i as INT),
            ScriptValue::Float(f) => Dynamic::from_float(*f),
            ScriptValue::Str(s) => Dynamic::from(s.clone()),
            ScriptValue::List(items) => {
                Dynamic::from_array(items.iter().map(ScriptValue::to_dynamic).collect::<Array>())
            }
            ScriptValue::Map(map) => Dynamic::from_map(
                map.iter()
                    .map(|(k, v)| (k.as_str().into(), v.to_dynamic()))
                    .collect::<Map>(),
            ),
        }
    }
}

/// Feeds one value to the hasher: a type byte, then its content (see module docs).
pub fn hash_dynamic(value: &Dynamic, h: &mut StableHasher) {
    h.write_u64(value.tag() as i64 as u64);
    if value.is_unit() {
        h.write(&[0]);
    } else if let Ok(b) = value.as_bool() {
        h.write(&[1, u8::from(b)]);
    } else if let Ok(i) = value.as_int() {
        h.write(&[2]);
        h.write_u64(i as u64);
    } else if let Ok(f) = value.as_float() {
        h.write(&[3]);
        h.write_f64(f);
    } else if let Ok(c) = value.as_char() {
        h.write(&[4]);
        h.write_u64(u64::from(c));
    } else if let Ok(s) = value.as_immutable_string_ref() {
        h.write(&[5]);
        h.write_u64(s.len() as u64);
        h.write(s.as_bytes());
    } else if let Ok(a) = value.as_array_ref() {
        h.write(&[6]);
        h.write_u64(a.len() as u64);
        for item in a.iter() {
            hash_dynamic(item, h);
        }
    } else if let Ok(m) = value.as_map_ref() {
        h.write(&[7]);
        h.write_u64(m.len() as u64);
        for (k, v) in m.iter() {
            h.write_u64(k.len() as u64);
            h.write(k.as_bytes());
            hash_dynamic(v, h);
        }
    } else if let Ok(b) = value.as_blob_ref() {
        h.write(&[8]);
        h.write_u64(b.len() as u64);
        h.write(&b);
    } else {
        // Function pointers and anything else: by their text form, which is
        // deterministic for every type scripts can build (no closures, no time).
        h.write(&[9]);
        let text = value.to_string();
        h.write(value.type_name().as_bytes());
        h.write(text.as_bytes());
    }
}

/// A script value as an inspector row: integers, floats and flags keep
/// their type (a timeline lane can plot them), a string is its text, `()`
/// is `None`, and anything else (arrays, maps) its debug form.
pub(crate) fn field_value(value: &Dynamic) -> stepframe_core::FieldValue {
    use stepframe_core::FieldValue;
    if let Ok(i) = value.as_int() {
        FieldValue::Int(i)
    } else if let Ok(f) = value.as_float() {
        FieldValue::F64(f)
    } else if let Ok(b) = value.as_bool() {
        FieldValue::Bool(b)
    } else if value.is_string() {
        FieldValue::Text(value.to_string())
    } else if value.is_unit() {
        FieldValue::None
    } else {
        FieldValue::Text(show(value))
    }
}

/// How a value is shown in a hit's locals: rhai's debug form (strings quoted).
pub fn show(value: &Dynamic) -> String {
    format!("{value:?}")
}
