//! A behaviour's state as a table a person can read: one [`Field`] per
//! value, each with a stable dotted path, its unit and its doc line.
//!
//! `Debug` text shows a behaviour the way Rust sees it (`charge_ms: 250.0`,
//! nested braces, no unit); the inspector and the timeline need rows:
//!
//! | path | value | unit |
//! |---|---|---|
//! | `PlayerController.jump_impulse` | 5 | N·s |
//! | `PlayerController.charge_ms` | 250 | ms |
//! | `PlayerController.touching[0]` | 1 | |
//!
//! The path starts with the behaviour's registered name (`Name[1]` for the
//! second behaviour of that name on one object), then the field names as
//! written in the struct, so a timeline lane that plots `(object, path)`
//! keeps plotting the same value for as long as the struct keeps its field.
//! Numbers keep their type ([`FieldValue::F32`] is the `f32` itself, not a
//! widened copy), so the table shows what the simulation holds, bit for bit.
//!
//! Most types write their rows with `#[derive(Inspect)]` (the
//! `stepframe-macros` crate, re-exported here); a behaviour whose state is
//! not plain fields (a script's variables) writes
//! [`Behaviour::inspect`](crate::Behaviour::inspect) by hand with
//! [`Fields::field`] and [`Fields::value`].

use std::borrow::Cow;

use crate::body::Shape;
use crate::geometry::{Pose, Vec2, Velocity};
use crate::ids::{HookKind, ObjectId, Priority, TimeGroup};

/// One value of a field, typed so a lane can plot numbers and the table can
/// print each as the simulation holds it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum FieldValue {
    /// A flag.
    Bool(bool),
    /// A signed integer (and every unsigned one narrower than 64 bits).
    Int(i64),
    /// A `u64` or `usize`: ticks, counts, ids.
    UInt(u64),
    /// An `f32`, exactly.
    F32(f32),
    /// An `f64`, exactly.
    F64(f64),
    /// Text: a string, an enum variant, a value shown by its `Debug` text.
    Text(String),
    /// An `Option` that holds nothing.
    None,
}

impl FieldValue {
    /// The value as a number, for a timeline lane: flags are 0 or 1, text
    /// and `None` are not numbers.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            FieldValue::Bool(b) => Some(f64::from(u8::from(b))),
            FieldValue::Int(i) => Some(i as f64),
            FieldValue::UInt(u) => Some(u as f64),
            FieldValue::F32(f) => Some(f64::from(f)),
            FieldValue::F64(f) => Some(f),
            FieldValue::Text(_) | FieldValue::None => None,
        }
    }
}

impl FieldValue {
    /// The value as a person reads it: an `f32` as its shortest round-trip
    /// text (what [`Display`](std::fmt::Display) writes), an `f64` with the
    /// noise of its last digits trimmed ([`readable_f64`]), anything else as
    /// `Display` writes it. The exact value is `Display`'s text: an
    /// inspector shows this and offers that on hover.
    pub fn readable(&self) -> String {
        match *self {
            FieldValue::F32(x) => readable_f32(x),
            FieldValue::F64(x) => readable_f64(x),
            _ => self.to_string(),
        }
    }
}

/// Significant digits an `f64` is shown with: 12 of its 15.9. A value a
/// few operations from a round one carries error in its last 2 or 3 digits
/// (150 ms counted down in steps of 1/60 s ends as 150.00000000000043);
/// 12 digits drop that and keep far more than a display can use (a
/// millisecond count to a picosecond).
const F64_DIGITS: usize = 12;

/// Beyond these magnitudes a number is written with an exponent
/// (`1e-7`, `2.5e15`): written out, it is a row of zeros to count.
const PLAIN_RANGE: (f64, f64) = (1e-6, 1e15);

/// An `f64` as a person reads it: rounded to 12 significant
/// digits, then written as the shortest text of that rounded value, so
/// `150.00000000000043` shows as `150`, `0.30000000000000004` as `0.3`,
/// and `16.666666666666668` as `16.6666666667`. Outside 1e-6 to 1e15
/// with an exponent; NaN and the infinities as Rust writes them.
pub fn readable_f64(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let rounded: f64 = format!("{:.*e}", F64_DIGITS - 1, x).parse().unwrap_or(x);
    plain_or_exponent(rounded, rounded.abs())
}

/// An `f32` as a person reads it: its shortest round-trip text (`0.1`,
/// not the widened `0.10000000149011612`), with an exponent outside
/// 1e-6 to 1e15.
pub fn readable_f32(x: f32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    plain_or_exponent(x, f64::from(x.abs()))
}

/// Rust's shortest text of `x`, or with an exponent when its `magnitude`
/// is outside [`PLAIN_RANGE`] (zero is plain).
fn plain_or_exponent<T: std::fmt::Display + std::fmt::LowerExp>(x: T, magnitude: f64) -> String {
    if magnitude == 0.0 || (PLAIN_RANGE.0..PLAIN_RANGE.1).contains(&magnitude) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

impl std::fmt::Display for FieldValue {
    /// Shortest text that reads back as the same value (`0.1` for the `f32`
    /// 0.1, not its widened `0.10000000149011612`): the exact value.
    /// [`FieldValue::readable`] is the one to show.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldValue::Bool(b) => write!(f, "{b}"),
            FieldValue::Int(i) => write!(f, "{i}"),
            FieldValue::UInt(u) => write!(f, "{u}"),
            FieldValue::F32(x) => write!(f, "{x}"),
            FieldValue::F64(x) => write!(f, "{x}"),
            FieldValue::Text(t) => f.write_str(t),
            FieldValue::None => f.write_str("None"),
        }
    }
}

/// One row of a behaviour's table. Plain data (unit and doc are owned
/// once it crosses to another process), so a view can carry it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Field {
    /// Stable dotted path, starting with the behaviour's name
    /// (`PlayerController.charge_ms`): what a timeline lane names.
    pub path: String,
    /// The value now.
    pub value: FieldValue,
    /// Its unit (`ms`, `N·s`, `m/s`), where the code says it.
    pub unit: Option<Cow<'static, str>>,
    /// The field's first doc line ("" without one): what the number means.
    pub doc: Cow<'static, str>,
    /// A parameter (set by the scene's `params`) rather than state the
    /// behaviour keeps: what an inspector offers to edit.
    pub param: bool,
}

/// How a nested value is labelled: what `#[inspect(unit = "ms")]` and a
/// field's doc comment say. A value inherits its parent's unit and doc when
/// it has none of its own (a velocity's `x` and `y` are in its m/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldMeta {
    /// Unit of the value.
    pub unit: Option<&'static str>,
    /// What the value means, one line.
    pub doc: &'static str,
    /// It is (part of) a parameter.
    pub param: bool,
}

/// Collects the rows of one behaviour: [`Inspect`] implementations write
/// into it at its current path.
#[derive(Debug)]
pub struct Fields {
    /// Rows so far.
    rows: Vec<Field>,
    /// Path of the value being written.
    path: String,
    /// Labels of the value being written.
    meta: FieldMeta,
}

/// Most elements of one list that get a row each: a spawner's list of ten
/// thousand projectiles would otherwise bury the table. The list's `len`
/// row still counts them all.
pub const MAX_LIST_ROWS: usize = 32;

impl Fields {
    /// An empty table whose paths start with `root` (the behaviour's name).
    pub fn new(root: &str) -> Fields {
        Fields {
            rows: Vec::new(),
            path: root.to_string(),
            meta: FieldMeta::default(),
        }
    }

    /// The rows written, in the order they were written.
    pub fn into_rows(self) -> Vec<Field> {
        self.rows
    }

    /// A row at the current path: what a leaf type ([`f32`], [`bool`],
    /// [`String`]) writes.
    pub fn value(&mut self, value: FieldValue) {
        self.rows.push(Field {
            path: self.path.clone(),
            value,
            unit: self.meta.unit.map(Cow::Borrowed),
            doc: Cow::Borrowed(self.meta.doc),
            param: self.meta.param,
        });
    }

    /// `value` under `.name`, with no unit of its own.
    pub fn field(&mut self, name: &str, value: &(impl Inspect + ?Sized)) {
        self.nested(name, FieldMeta::default(), value);
    }

    /// `value` under `.name`, in `unit`.
    pub fn field_in(&mut self, name: &str, unit: &'static str, value: &(impl Inspect + ?Sized)) {
        let meta = FieldMeta {
            unit: Some(unit),
            ..FieldMeta::default()
        };
        self.nested(name, meta, value);
    }

    /// A parameter `value` under `.name` (a script's scene var).
    pub fn param(&mut self, name: &str, value: &(impl Inspect + ?Sized)) {
        let meta = FieldMeta {
            param: true,
            ..FieldMeta::default()
        };
        self.nested(name, meta, value);
    }

    /// `value` under `.name` with the labels `meta` (what the derive calls).
    pub fn nested(&mut self, name: &str, meta: FieldMeta, value: &(impl Inspect + ?Sized)) {
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(name);
        self.with_meta(meta, value);
        self.path.truncate(len);
    }

    /// `value`'s own fields at this level, marked as parameters when
    /// `param` (`#[inspect(params)]`, `#[inspect(flatten)]`).
    pub fn flatten(&mut self, param: bool, value: &(impl Inspect + ?Sized)) {
        let meta = FieldMeta {
            param,
            ..FieldMeta::default()
        };
        self.with_meta(meta, value);
    }

    /// A list: its `len`, then its first [`MAX_LIST_ROWS`] elements as
    /// `path[i]`.
    pub fn list<'a, T: Inspect + 'a>(&mut self, items: impl ExactSizeIterator<Item = &'a T>) {
        self.field("len", &items.len());
        let len = self.path.len();
        for (i, item) in items.take(MAX_LIST_ROWS).enumerate() {
            self.path.push_str(&format!("[{i}]"));
            item.inspect_into(self);
            self.path.truncate(len);
        }
    }

    fn with_meta(&mut self, meta: FieldMeta, value: &(impl Inspect + ?Sized)) {
        let outer = self.meta;
        self.meta = FieldMeta {
            unit: meta.unit.or(outer.unit),
            doc: if meta.doc.is_empty() {
                outer.doc
            } else {
                meta.doc
            },
            param: meta.param || outer.param,
        };
        value.inspect_into(self);
        self.meta = outer;
    }
}

/// A value that can write itself as rows of a [`Fields`] table, at the
/// table's current path. Derive it (`#[derive(Inspect)]`, see the
/// `stepframe-macros` docs for its `#[inspect(...)]` attributes) or write
/// it: a leaf calls [`Fields::value`] once, a compound calls
/// [`Fields::field`] per part.
pub trait Inspect {
    /// Writes this value's rows.
    fn inspect_into(&self, out: &mut Fields);
}

/// Shows a value by its `Debug` text: what `#[inspect(debug)]` wraps a
/// field in whose type has no [`Inspect`].
#[derive(Debug)]
pub struct DebugText<'a, T: std::fmt::Debug + ?Sized>(pub &'a T);

impl<T: std::fmt::Debug + ?Sized> Inspect for DebugText<'_, T> {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Text(format!("{:?}", self.0)));
    }
}

macro_rules! leaf {
    ($variant:ident: $($t:ty),*) => {$(
        impl Inspect for $t {
            fn inspect_into(&self, out: &mut Fields) {
                out.value(FieldValue::$variant((*self).into()));
            }
        }
    )*};
}

leaf!(Bool: bool);
leaf!(Int: i8, i16, i32, i64, u8, u16, u32);
leaf!(UInt: u64);
leaf!(F32: f32);
leaf!(F64: f64);

impl Inspect for usize {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::UInt(*self as u64));
    }
}

impl Inspect for isize {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Int(*self as i64));
    }
}

impl Inspect for str {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Text(self.to_string()));
    }
}

impl Inspect for String {
    fn inspect_into(&self, out: &mut Fields) {
        self.as_str().inspect_into(out);
    }
}

impl Inspect for std::sync::Arc<str> {
    fn inspect_into(&self, out: &mut Fields) {
        (**self).inspect_into(out);
    }
}

impl<T: Inspect + ?Sized> Inspect for &T {
    fn inspect_into(&self, out: &mut Fields) {
        (**self).inspect_into(out);
    }
}

impl<T: Inspect + ?Sized> Inspect for Box<T> {
    fn inspect_into(&self, out: &mut Fields) {
        (**self).inspect_into(out);
    }
}

impl<T: Inspect> Inspect for Option<T> {
    fn inspect_into(&self, out: &mut Fields) {
        match self {
            Some(v) => v.inspect_into(out),
            None => out.value(FieldValue::None),
        }
    }
}

impl<T: Inspect> Inspect for Vec<T> {
    fn inspect_into(&self, out: &mut Fields) {
        out.list(self.iter());
    }
}

impl<T: Inspect> Inspect for std::collections::VecDeque<T> {
    fn inspect_into(&self, out: &mut Fields) {
        out.list(self.iter());
    }
}

impl<T: Inspect, const N: usize> Inspect for [T; N] {
    fn inspect_into(&self, out: &mut Fields) {
        out.list(self.iter());
    }
}

impl Inspect for ObjectId {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::UInt(self.0));
    }
}

impl Inspect for Vec2 {
    fn inspect_into(&self, out: &mut Fields) {
        out.field("x", &self.x);
        out.field("y", &self.y);
    }
}

impl Inspect for Pose {
    fn inspect_into(&self, out: &mut Fields) {
        out.field_in("x", "m", &self.x);
        out.field_in("y", "m", &self.y);
        out.field_in("angle", "rad", &self.angle);
    }
}

impl Inspect for Velocity {
    fn inspect_into(&self, out: &mut Fields) {
        out.field_in("linear", "m/s", &self.linear);
        out.field_in("angular", "rad/s", &self.angular);
    }
}

impl Inspect for Priority {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Text(self.to_string()));
    }
}

impl Inspect for HookKind {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Text(self.name().to_string()));
    }
}

impl Inspect for TimeGroup {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Text(format!("{self:?}")));
    }
}

impl Inspect for Shape {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(FieldValue::Text(format!("{self:?}")));
    }
}

/// A value already turned into a row's value (a script's variable): written
/// as it is.
impl Inspect for FieldValue {
    fn inspect_into(&self, out: &mut Fields) {
        out.value(self.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_f64_drops_the_noise_of_its_last_digits() {
        // 300 ms counted down by 1/60 s ticks: what the inspector showed.
        assert_eq!(readable_f64(150.00000000000043), "150");
        assert_eq!(readable_f64(0.1 + 0.2), "0.3");
        assert_eq!(readable_f64(1000.0 / 60.0), "16.6666666667");
        assert_eq!(readable_f64(-2.5), "-2.5");
        assert_eq!(readable_f64(0.0), "0");
        assert_eq!(readable_f64(123_456.789), "123456.789");
    }

    #[test]
    fn an_f32_is_its_shortest_round_trip_text() {
        assert_eq!(readable_f32(0.1), "0.1");
        assert_eq!(readable_f32(1.0 / 3.0), "0.33333334");
        assert_eq!(readable_f32(6.5), "6.5");
        // The shortest text reads back as the same f32, bit for bit.
        let x = 0.1f32 + 0.2f32;
        assert_eq!(
            readable_f32(x).parse::<f32>().map(f32::to_bits),
            Ok(x.to_bits())
        );
    }

    #[test]
    fn far_from_one_a_number_gets_an_exponent_and_oddities_stay_themselves() {
        assert_eq!(readable_f64(1e-9), "1e-9");
        assert_eq!(readable_f64(2.5e20), "2.5e20");
        assert_eq!(readable_f32(3e-10), "3e-10");
        assert_eq!(readable_f64(f64::NAN), "NaN");
        assert_eq!(readable_f64(f64::NEG_INFINITY), "-inf");
        assert_eq!(readable_f32(f32::INFINITY), "inf");
    }

    #[test]
    fn a_row_reads_readable_and_keeps_its_exact_text() {
        let v = FieldValue::F64(150.00000000000043);
        assert_eq!(v.readable(), "150");
        assert_eq!(v.to_string(), "150.00000000000043");
        assert_eq!(FieldValue::UInt(7).readable(), "7");
        assert_eq!(FieldValue::Text("Idle".into()).readable(), "Idle");
    }
}
