//! Tick-stamped records of the fixed phase, and the stable state hash.
//!
//! After every completed tick the pipeline hands a [`TickRecord`] to its
//! [`TickObserver`], if one is installed: the tick, the frame that ran it, the
//! input events the tick received, its contacts (sorted), and the world with its
//! committed poses. Writers of traces and recorders of history are observers.
//!
//! [`StableHasher`] is FNV-1a 64 with its standard offset: fixed-seeded, the same
//! on every run and platform, and fed in id order only (never in a hash-map
//! order), as the GGRS sync test requires.

use crate::body::ContactEvent;
use crate::clock::Clock;
use crate::input::InputEvent;
use crate::world::World;

/// FNV-1a, 64 bits: a fixed-seed hasher for state checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StableHasher {
    state: u64,
}

impl Default for StableHasher {
    fn default() -> StableHasher {
        StableHasher {
            state: 0xcbf2_9ce4_8422_2325,
        }
    }
}

impl StableHasher {
    /// A hasher at the standard FNV offset.
    pub fn new() -> StableHasher {
        StableHasher::default()
    }

    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.state ^= u64::from(*b);
            self.state = self.state.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Feeds a `u64` (little-endian).
    pub fn write_u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }

    /// Feeds an `f32` bit pattern: bit-exact, so -0.0 and 0.0 differ.
    pub fn write_f32(&mut self, v: f32) {
        self.write(&v.to_bits().to_le_bytes());
    }

    /// Feeds an `f64` bit pattern.
    pub fn write_f64(&mut self, v: f64) {
        self.write(&v.to_bits().to_le_bytes());
    }

    /// The checksum so far.
    pub fn finish(&self) -> u64 {
        self.state
    }
}

/// What one completed tick produced.
#[derive(Debug)]
pub struct TickRecord<'a> {
    /// The clock after the tick (tick = completed tick).
    pub clock: &'a Clock,
    /// Input events the tick received, in delivery order.
    pub inputs: &'a [InputEvent],
    /// Contact events of the tick, sorted by pair and kind.
    pub contacts: &'a [ContactEvent],
    /// The world with the tick's committed poses.
    pub world: &'a World,
    /// Stable hash of the committed state after the tick.
    pub hash: u64,
}

/// Receives every completed tick (trace writers, history recorders).
pub trait TickObserver: Send {
    /// Called once per completed tick, at its end, in the fixed phase.
    fn on_tick(&mut self, record: &TickRecord<'_>);
}

/// Hashes the committed state of every live object, in id order: id, enabled,
/// committed pose and velocity bit patterns.
pub fn hash_world(world: &World, hasher: &mut StableHasher) {
    for object in world.objects() {
        hasher.write_u64(object.id.0);
        hasher.write(&[u8::from(object.enabled)]);
        if let Some(body) = &object.body {
            let p = body.committed;
            let v = body.velocity;
            for x in [p.x, p.y, p.angle, v.linear.x, v.linear.y, v.angular] {
                hasher.write_f32(x);
            }
        }
    }
}
