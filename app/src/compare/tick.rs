//! One tick's pair of trace records taken apart: which objects and fields
//! differ (with f32 ULP distances), which input and contact events, and which
//! subsystem hashes, in the order a tick touches them.
//!
//! Pose records are matched by `id`, not by position, so an object missing
//! from one side is named as such and does not shift the comparison of the
//! others. Contacts are compared as multisets (each event of one side matched
//! once on the other). The ULP distance counts the f32 values between the two
//! in numeric order, with `-0.0` one step below `0.0`: two values differ
//! exactly when their distance is at least 1. Worked example: between 1 and 2
//! the f32 step is 2^-23, so `1.0` and `1.0000001` are neighbours (1 ulp) and
//! `1.0` and `1.5` are 0.5 / 2^-23 = 2^22 = 4,194,304 ulps apart.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

/// Everything that differs between the two lines of one tick.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TickDiff {
    /// One-based line (= tick index) of the difference.
    pub line: usize,
    /// The tick the line describes (its `tick` in the first trace).
    pub tick: u64,
    /// Whether both lines carry subsystem hashes.
    pub has_subsystems: bool,
    /// Subsystems whose hash differs, in tick order: the first changed first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subsystems: Vec<SubsystemDiff>,
    /// Objects in both traces whose pose record differs, in id order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectDiff>,
    /// Objects with a pose only in the first trace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_in_a: Vec<u64>,
    /// Objects with a pose only in the second trace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only_in_b: Vec<u64>,
    /// Both input lists, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<[Value; 2]>,
    /// Contact events of one side missing from the other, when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contacts: Option<ContactsDiff>,
    /// Other members that differ (`tick`, `sim_time`, `hash`, unknown ones),
    /// in trace order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldDiff>,
}

/// One differing value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldDiff {
    /// The member: `x`, `vy`, `hash`, `sim_time`...
    pub field: String,
    /// Its value in the first trace (absent: the member is missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<Value>,
    /// Its value in the second trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<Value>,
    /// Distance in f32 ULPs, for two numbers that are f32 values (poses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ulps: Option<u64>,
}

/// An object whose pose record differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObjectDiff {
    /// The object's id.
    pub id: u64,
    /// Its differing fields, in trace order.
    pub fields: Vec<FieldDiff>,
}

/// Contact events of one tick that only one side has.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContactsDiff {
    /// Events only the first trace has.
    pub only_in_a: Vec<Value>,
    /// Events only the second trace has.
    pub only_in_b: Vec<Value>,
}

/// A subsystem hash that differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SubsystemDiff {
    /// `clock`, `input`, `behaviours`, `rng` or `physics`.
    pub subsystem: String,
    /// For `behaviours`: the object whose behaviour state differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<u64>,
    /// The hash in the first trace (absent: that side has no such entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    /// The hash in the second trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

/// The tick a record describes: its `tick`, else its place in the trace.
fn tick_of(record: &Value, index: usize) -> u64 {
    record
        .get("tick")
        .and_then(Value::as_u64)
        .unwrap_or(index as u64)
}

/// Takes one tick's pair of parsed records apart (module docs). `texts` are
/// the lines as written, for the rare pair that differs only in formatting.
pub(crate) fn diff_records(
    index: usize,
    mut va: Value,
    mut vb: Value,
    subsystems: bool,
    (a, b): (&str, &str),
) -> TickDiff {
    let mut diff = TickDiff {
        line: index,
        tick: tick_of(&va, index),
        ..TickDiff::default()
    };
    let (Some(x), Some(y)) = (va.as_object_mut(), vb.as_object_mut()) else {
        diff.fields.push(field_diff("(line)", Some(&va), Some(&vb)));
        return diff;
    };
    diff.has_subsystems = x.contains_key("subsystems") && y.contains_key("subsystems");
    if !(subsystems && diff.has_subsystems) {
        x.remove("subsystems");
        y.remove("subsystems");
        diff.has_subsystems = false;
    }
    diff_members(x, y, &mut diff);
    if diff.is_empty() {
        // Same values, other text (spacing, key order): say so rather than nothing.
        diff.fields.push(FieldDiff {
            field: "(formatting)".into(),
            a: Some(Value::String(a.to_string())),
            b: Some(Value::String(b.to_string())),
            ulps: None,
        });
    }
    diff
}

/// The order the trace writer emits members in; others come after, alphabetically.
const MEMBER_ORDER: [&str; 8] = [
    "tick",
    "sim_time",
    "frame",
    "inputs",
    "contacts",
    "poses",
    "hash",
    "subsystems",
];

/// The order of a pose record's members; others come after, alphabetically.
const POSE_ORDER: [&str; 7] = ["id", "x", "y", "angle", "vx", "vy", "w"];

/// Keys of both maps, each once, in the given order then alphabetically.
fn ordered_keys<'a>(
    x: &'a Map<String, Value>,
    y: &'a Map<String, Value>,
    order: &[&str],
) -> Vec<&'a str> {
    let rank = |k: &str| {
        (
            order.iter().position(|o| *o == k).unwrap_or(order.len()),
            k.to_string(),
        )
    };
    let mut keys: Vec<&str> = x.keys().chain(y.keys()).map(String::as_str).collect();
    keys.sort_by_key(|k| rank(k));
    keys.dedup();
    keys
}

fn diff_members(x: &Map<String, Value>, y: &Map<String, Value>, diff: &mut TickDiff) {
    for key in ordered_keys(x, y, &MEMBER_ORDER) {
        let (p, q) = (x.get(key), y.get(key));
        if key == "frame" || p.zip(q).is_some_and(|(p, q)| values_equal(p, q)) {
            continue;
        }
        let structured = match (key, p, q) {
            ("inputs", Some(p @ Value::Array(_)), Some(q @ Value::Array(_))) => {
                diff.inputs = Some([p.clone(), q.clone()]);
                true
            }
            ("contacts", Some(Value::Array(p)), Some(Value::Array(q))) => {
                diff.contacts = Some(ContactsDiff {
                    only_in_a: missing_from(p, q),
                    only_in_b: missing_from(q, p),
                });
                true
            }
            ("poses", Some(Value::Array(p)), Some(Value::Array(q))) => diff_poses(p, q, diff),
            ("subsystems", Some(Value::Object(p)), Some(Value::Object(q))) => {
                diff_subsystems(p, q, diff)
            }
            _ => false,
        };
        if !structured {
            diff.fields.push(field_diff(key, p, q));
        }
    }
}

fn field_diff(field: &str, a: Option<&Value>, b: Option<&Value>) -> FieldDiff {
    FieldDiff {
        field: field.to_string(),
        a: a.cloned(),
        b: b.cloned(),
        ulps: None,
    }
}

/// Events of `x` not matched one for one in `y` (a multiset difference), in
/// `x`'s order. Events are keyed by their compact JSON, which tells numbers
/// apart exactly as their bits do (shortest round-trip text, `-0.0` kept).
fn missing_from(x: &[Value], y: &[Value]) -> Vec<Value> {
    let mut left: BTreeMap<String, usize> = BTreeMap::new();
    for v in y {
        *left.entry(v.to_string()).or_default() += 1;
    }
    x.iter()
        .filter(|v| match left.get_mut(&v.to_string()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// Pose records by id; `None` when one has no integer id (then the member is
/// compared whole).
fn by_id(poses: &[Value]) -> Option<Vec<(u64, &Map<String, Value>)>> {
    let mut out: Vec<(u64, &Map<String, Value>)> = poses
        .iter()
        .map(|p| {
            let m = p.as_object()?;
            Some((m.get("id")?.as_u64()?, m))
        })
        .collect::<Option<_>>()?;
    out.sort_by_key(|(id, _)| *id);
    Some(out)
}

/// Fills the per-object part of `diff`; false when the poses are not records
/// with ids.
fn diff_poses(p: &[Value], q: &[Value], diff: &mut TickDiff) -> bool {
    let (Some(a), Some(b)) = (by_id(p), by_id(q)) else {
        return false;
    };
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some((ia, ma)), Some((ib, mb))) if ia == ib => {
                let fields: Vec<FieldDiff> = ordered_keys(ma, mb, &POSE_ORDER)
                    .into_iter()
                    .filter_map(|k| {
                        let (x, y) = (ma.get(k), mb.get(k));
                        if x.zip(y).is_some_and(|(x, y)| values_equal(x, y)) {
                            return None;
                        }
                        let mut d = field_diff(k, x, y);
                        d.ulps = x.zip(y).and_then(|(x, y)| f32_ulps(x, y));
                        Some(d)
                    })
                    .collect();
                if !fields.is_empty() {
                    diff.objects.push(ObjectDiff { id: *ia, fields });
                }
                i += 1;
                j += 1;
            }
            (Some((ia, _)), Some((ib, _))) if ia < ib => {
                diff.only_in_a.push(*ia);
                i += 1;
            }
            (Some(_), Some((ib, _))) | (None, Some((ib, _))) => {
                diff.only_in_b.push(*ib);
                j += 1;
            }
            (Some((ia, _)), None) => {
                diff.only_in_a.push(*ia);
                i += 1;
            }
            (None, None) => break,
        }
    }
    true
}

/// The order a tick touches the subsystems in (the trace writer's order).
pub const SUBSYSTEM_ORDER: [&str; 5] = ["clock", "input", "behaviours", "rng", "physics"];

/// Behaviour hashes by object id; `None` when the member is malformed.
fn behaviour_hashes(v: Option<&Value>) -> Option<Vec<(u64, String)>> {
    let mut out: Vec<(u64, String)> = v?
        .as_array()?
        .iter()
        .map(|e| Some((e.get("id")?.as_u64()?, e.get("hash")?.as_str()?.to_string())))
        .collect::<Option<_>>()?;
    out.sort_by_key(|(id, _)| *id);
    Some(out)
}

/// Fills the subsystem part of `diff`; false when the member is malformed.
fn diff_subsystems(p: &Map<String, Value>, q: &Map<String, Value>, diff: &mut TickDiff) -> bool {
    let text =
        |v: Option<&Value>| v.map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
    for key in ordered_keys(p, q, &SUBSYSTEM_ORDER) {
        let (x, y) = (p.get(key), q.get(key));
        if x.zip(y).is_some_and(|(x, y)| values_equal(x, y)) {
            continue;
        }
        if key == "behaviours" {
            let (Some(a), Some(b)) = (behaviour_hashes(x), behaviour_hashes(y)) else {
                return false;
            };
            let mut ids: Vec<u64> = a.iter().chain(&b).map(|(id, _)| *id).collect();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                let find =
                    |v: &[(u64, String)]| v.iter().find(|(i, _)| *i == id).map(|(_, h)| h.clone());
                let (ha, hb) = (find(&a), find(&b));
                if ha != hb {
                    diff.subsystems.push(SubsystemDiff {
                        subsystem: key.to_string(),
                        object: Some(id),
                        a: ha,
                        b: hb,
                    });
                }
            }
        } else {
            diff.subsystems.push(SubsystemDiff {
                subsystem: key.to_string(),
                object: None,
                a: text(x),
                b: text(y),
            });
        }
    }
    true
}

/// Structural equality with numbers compared by their bits.
fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| values_equal(p, q)))
        }
        _ => a == b,
    }
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if a.is_f64() != b.is_f64() {
        return false;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

/// The f32 a trace number was written from: the writer prints an f32 in its
/// shortest round-trip form, and of the f32s next to the parsed f64 exactly
/// one prints as text that parses back to that f64. `None` for a number that
/// no f32 prints as (not an f32 field).
fn exact_f32(v: f64) -> Option<f32> {
    let near = v as f32;
    [near, near.next_up(), near.next_down()]
        .into_iter()
        .find(|c| {
            c.is_finite()
                && format!("{c:?}")
                    .parse::<f64>()
                    .is_ok_and(|p| p.to_bits() == v.to_bits())
        })
}

/// Distance in f32 ULPs (module docs), when both are f32 values.
pub fn f32_ulps(a: &Value, b: &Value) -> Option<u64> {
    Some(ulps_between(
        exact_f32(a.as_f64()?)?,
        exact_f32(b.as_f64()?)?,
    ))
}

/// Distance in f32 ULPs between two f32s held as such (the editor's A/B
/// inspector): how many representable values lie between them, counting
/// -0.0 and 0.0 as one apart, so a bit-for-bit difference is never 0.
pub fn ulps_between(x: f32, y: f32) -> u64 {
    // Sign-magnitude bits to a line of integers: -0.0 at -1, 0.0 at 0.
    let key = |v: f32| {
        let bits = v.to_bits();
        if bits >> 31 == 0 {
            i64::from(bits)
        } else {
            -i64::from(bits & 0x7fff_ffff) - 1
        }
    };
    key(x).abs_diff(key(y))
}

impl TickDiff {
    /// Nothing recorded.
    fn is_empty(&self) -> bool {
        self.items() == 0
    }

    /// How many separate differences the report lists.
    pub fn items(&self) -> usize {
        self.subsystems.len()
            + self.objects.iter().map(|o| o.fields.len()).sum::<usize>()
            + self.only_in_a.len()
            + self.only_in_b.len()
            + usize::from(self.inputs.is_some())
            + usize::from(self.contacts.is_some())
            + self.fields.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_count_the_f32_steps_between_two_values() {
        let n = |v: f64| Value::from(v);
        // 1.0000001 is the f32 right after 1.0 (1 + 2^-23), printed in shortest form.
        assert_eq!(f32_ulps(&n(1.0), &n(1.0000001)), Some(1));
        // 1.5 has mantissa 2^22 above 1.0's.
        assert_eq!(f32_ulps(&n(1.0), &n(1.5)), Some(4_194_304));
        // -0.0 sits one step below 0.0; the smallest subnormal one step above.
        assert_eq!(f32_ulps(&n(-0.0), &n(0.0)), Some(1));
        assert_eq!(f32_ulps(&n(0.0), &n(1e-45)), Some(1));
        assert_eq!(f32_ulps(&n(-1e-45), &n(1e-45)), Some(3));
        // 0.1 as an f64 with more digits than any f32 prints: not an f32.
        assert_eq!(f32_ulps(&n(0.1), &n(0.10000000000000002)), None);
    }

    #[test]
    fn ulps_between_f32s_held_as_such_need_no_printed_form() {
        // 0.1f32 widened to f64 is 0.100000001490116…, which no f32 prints
        // as: the JSON path finds nothing, the f32 path counts the steps.
        assert_eq!(
            f32_ulps(&Value::from(f64::from(0.1f32)), &Value::from(0.2)),
            None
        );
        assert_eq!(ulps_between(0.1, 0.1f32.next_up()), 1);
        // 0.1 and 0.2 are one binade apart: 2^23 steps, less 0.1's mantissa
        // offset plus 0.2's (equal: 0.2 = 2 × 0.1).
        assert_eq!(ulps_between(0.1, 0.2), 1 << 23);
        assert_eq!(ulps_between(-0.0, 0.0), 1);
    }
}
