//! What the wire tests share: a message with every serde shape the
//! protocol uses, its proptest strategy, and handshakes with bounded waits.

use std::collections::BTreeMap;
use std::time::Duration;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use stepframe_host::wire::{Handshake, Role};

/// How long any test waits for a peer before failing: generous, since a
/// cold start of this binary on a loaded 2-core machine takes a while,
/// but never for ever.
pub const BOUND: Duration = Duration::from_secs(30);

/// A handshake for `role` whose waits are bounded by [`BOUND`].
pub fn handshake(role: Role) -> Handshake {
    Handshake {
        timeout: BOUND,
        ..Handshake::new(role)
    }
}

/// A message of every shape the protocol's commands, events and views
/// have: unit, tuple and struct variants, integers up to 128 bits, floats
/// (any bit pattern, NaN included), text, bytes, options, maps, nesting.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Msg {
    /// A unit variant.
    Stop,
    /// Small integers.
    Step {
        /// A tick.
        tick: u64,
        /// A count.
        frames: u32,
        /// A signed delta.
        delta: i16,
    },
    /// The widest integers (rapier's `user_data` is a u128).
    Wide(u128, i128),
    /// Floats, bit patterns as they are.
    Pose {
        /// Position.
        xy: (f32, f32),
        /// A time.
        at: f64,
    },
    /// Text and optional text.
    Note {
        /// Any string.
        text: String,
        /// Maybe a name.
        name: Option<String>,
    },
    /// A byte buffer (a snapshot, engine bytes).
    Bytes(Vec<u8>),
    /// A map and a list of records.
    View {
        /// Named values.
        fields: BTreeMap<String, i64>,
        /// Objects.
        objects: Vec<(u64, f32, bool)>,
    },
    /// Nesting.
    Batch(Vec<Msg>),
}

impl Msg {
    /// Whether `other` is the same message: compared through its encoding,
    /// so a NaN equals the same NaN.
    pub fn same(&self, other: &Msg) -> bool {
        let enc = |m: &Msg| stepframe_host::wire::encode(m, Vec::new()).ok();
        enc(self).is_some() && enc(self) == enc(other)
    }
}

/// Any [`Msg`], up to three levels of nesting.
pub fn msg() -> impl Strategy<Value = Msg> {
    let leaf = prop_oneof![
        Just(Msg::Stop),
        (any::<u64>(), any::<u32>(), any::<i16>()).prop_map(|(tick, frames, delta)| Msg::Step {
            tick,
            frames,
            delta
        }),
        (any::<u128>(), any::<i128>()).prop_map(|(a, b)| Msg::Wide(a, b)),
        (any::<u32>(), any::<u32>(), any::<u64>()).prop_map(|(x, y, t)| Msg::Pose {
            xy: (f32::from_bits(x), f32::from_bits(y)),
            at: f64::from_bits(t),
        }),
        (any::<String>(), proptest::option::of(any::<String>()))
            .prop_map(|(text, name)| Msg::Note { text, name }),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(Msg::Bytes),
        (
            proptest::collection::btree_map(any::<String>(), any::<i64>(), 0..6),
            proptest::collection::vec((any::<u64>(), any::<f32>(), any::<bool>()), 0..20),
        )
            .prop_map(|(fields, objects)| Msg::View { fields, objects }),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        proptest::collection::vec(inner, 0..6).prop_map(Msg::Batch)
    })
}
