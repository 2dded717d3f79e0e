//! Tick-stamped records of the fixed phase, and the stable state hash.
//!
//! After every completed tick the pipeline hands a [`TickRecord`] to its
//! [`TickObserver`], if one is installed: the tick, the frame that ran it, the
//! input events the tick received, its contacts (sorted), and the world with its
//! committed poses. Writers of traces and recorders of history are observers.
//!
//! [`StableHasher`] is fixed-seeded, the same on every run and platform, and fed
//! in id order only (never in a hash-map order), as the GGRS sync test requires.
//!
//! # Subsystem hashes: which state diverged first
//!
//! The tick hash says *that* two runs differ. [`SubsystemHashes`] says *where*:
//! one checksum per subsystem, in the order a tick touches them, so the first
//! one that differs names the culprit.
//!
//! | subsystem | what is hashed |
//! |---|---|
//! | `clock` | completed ticks, `simulation_tick`, `simulation_time`, `fixed_delta_time` |
//! | `input` | fixed input memory: the simulation side's device values, action states (held, value, edges, hold start), its clock and pending edges |
//! | `behaviours` | each object's behaviour state ([`crate::Behaviour::hash_state`]), one hash per object in id order |
//! | `rng` | the session generator's state |
//! | `physics` | committed poses and velocities of every object, and every soft-body particle ([`hash_world`]) and the engine's own state ([`crate::PhysicsStage::hash_state`]) |
//!
//! Only state that does not depend on pacing is hashed (no frame index, frame
//! time, delta, alpha or dropped time), so a recording replayed at 30 and at
//! 144 Hz gives equal subsystem hashes tick for tick. Worked example: a
//! behaviour that counts its `update` calls and hashes the count has, at tick
//! 2, count 2 at 60 Hz (frames 1 and 2 each ran one tick) but count 1 at 30 Hz
//! (frame 1 ran ticks 1 and 2): its object's `behaviours` hash differs from tick
//! 2 on, while `clock`, `input`, `rng` and `physics` agree until the count
//! reaches the body.
//!
//! They cost one pass over the state each and are computed only when an
//! observer asks ([`TickRecord::state`]), never for the default trace.

use crate::body::ContactEvent;
use crate::clock::Clock;
use crate::hash::StableHasher;
use crate::ids::ObjectId;
use crate::input::InputEvent;
use crate::world::World;

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
    /// Stable hash of the committed state after the tick; 0 when the
    /// observer does not want it ([`TickObserver::wants_hash`]).
    pub hash: u64,
    /// The session after the tick, for observers that want its
    /// [`SubsystemHashes`] (computed only on request: they cost a pass over
    /// the state that the default trace does not pay).
    pub state: &'a dyn SubsystemState,
}

/// The state hash split by subsystem (see the module docs for what each
/// covers and why only pacing-independent state is in it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubsystemHashes {
    /// The simulation clock.
    pub clock: u64,
    /// Fixed input memory.
    pub input: u64,
    /// Behaviour state by object, in id order; behaviours registered by the
    /// host rather than a scene object come under id 0.
    pub behaviours: Vec<(ObjectId, u64)>,
    /// The session random generator.
    pub rng: u64,
    /// Committed bodies and the physics engine's own state.
    pub physics: u64,
}

/// Something that can hash its state by subsystem: the pipeline, handed to
/// tick observers through [`TickRecord::state`].
pub trait SubsystemState: std::fmt::Debug {
    /// Overwrites `out` (reusing its buffer) with the current hashes.
    fn subsystem_hashes(&self, out: &mut SubsystemHashes);
}

/// Receives every completed tick (trace writers, history recorders).
pub trait TickObserver: Send {
    /// Called once per completed tick, at its end, in the fixed phase.
    fn on_tick(&mut self, record: &TickRecord<'_>);

    /// Whether the next tick's [`TickRecord::hash`] is wanted, asked at its
    /// end before [`TickObserver::on_tick`]. The hash is a pass over the
    /// whole committed state, world, behaviours and engine: about 4% of a
    /// tick of demo.ron in a sampling profile of the editor's host
    /// (docs/performance.md, "Fix, rebuild, replay"). An observer that
    /// reads only the tick's input or poses says no, and its record's hash
    /// is 0.
    fn wants_hash(&self) -> bool {
        true
    }
}

/// Hashes the committed state of every live object, in id order: id, enabled,
/// committed pose and velocity bit patterns, and a soft body's particle
/// count and every committed particle position and velocity.
pub fn hash_world(world: &World, hasher: &mut StableHasher) {
    for object in world.objects() {
        hasher.write_u64(object.id.0 << 1 | u64::from(object.is_enabled()));
        if let Some(body) = &object.body {
            let p = body.committed;
            let v = body.velocity;
            let pair = |a: f32, b: f32| u64::from(a.to_bits()) << 32 | u64::from(b.to_bits());
            hasher.write_u64(pair(p.x, p.y));
            hasher.write_u64(pair(p.angle, v.linear.x));
            hasher.write_u64(pair(v.linear.y, v.angular));
            if let Some(soft) = &body.soft {
                // Every particle, not just the pose made from them: two
                // bodies with one centroid and one fit can still differ.
                hasher.write_u64(soft.particles.len() as u64);
                for (p, v) in soft.particles.iter().zip(&soft.velocities) {
                    hasher.write_u64(pair(p.x, p.y));
                    hasher.write_u64(pair(v.x, v.y));
                }
            }
        }
    }
}
