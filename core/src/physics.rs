//! The physics stage of the fixed tick.
//!
//! The pipeline runs each tick as: FixedUpdate (cohort, priority order) →
//! [`PhysicsStage::reconcile`] (authored commands, added and removed bodies) →
//! [`PhysicsStage::step`] (with substeps; [`PhysicsStage::step_mid_step`]
//! when objects have mid-step hooks, which run inside it) →
//! [`PhysicsStage::commit`] → contact callbacks (which so read the tick's
//! live poses).
//! Anything implementing the trait slots in there: [`NoPhysics`] for worlds
//! without bodies and for timing tests, the rapier stage for real scenes.

use crate::behaviour::mid_step::MidStepCalls;
use crate::body::ContactEvent;
use crate::world::World;

/// One fixed tick's physics, split where the contract puts hooks between parts.
pub trait PhysicsStage: Send + std::fmt::Debug {
    /// Applies what hooks wrote since the last step: bodies added and removed,
    /// forces (scaled by dt), impulses (not scaled), kinematic targets, poses and
    /// velocities. Runs after every FixedUpdate of the tick.
    fn reconcile(&mut self, world: &mut World, fixed_dt: f64);

    /// Advances the simulation by `fixed_dt` in `substeps` equal steps and
    /// appends the tick's contact events (any order: the pipeline sorts them).
    fn step(&mut self, fixed_dt: f64, substeps: u32, contacts: &mut Vec<ContactEvent>);

    /// [`Self::step`] with mid-step hooks: the engine calls back
    /// [`MidStepCalls::run`] for each contact pair of an object in
    /// `calls.objects()`, in every substep, after its collision detection
    /// and before its solver, and solves what the hooks left (see
    /// `behaviour/mid_step`). The pipeline calls this instead of `step`
    /// whenever a behaviour of the cohort has the hook, or
    /// [`Self::has_mid_step_objects`] says the engine still calls back for
    /// objects that no longer have it (then `calls.objects()` is what is
    /// left). The default steps without calling back: a stage without an
    /// engine has no contacts to hand over.
    fn step_mid_step(
        &mut self,
        fixed_dt: f64,
        substeps: u32,
        contacts: &mut Vec<ContactEvent>,
        _calls: &MidStepCalls<'_>,
    ) {
        self.step(fixed_dt, substeps, contacts);
    }

    /// Whether the engine is set to call back for some object's contacts
    /// (its last [`Self::step_mid_step`] had objects): the next step must
    /// go through `step_mid_step` to stop that if they no longer have the
    /// hook. The default, false, suits a stage that never calls back.
    fn has_mid_step_objects(&self) -> bool {
        false
    }

    /// Publishes the new state: each body's committed pose becomes its previous
    /// pose and the engine's pose becomes the committed one.
    fn commit(&mut self, world: &mut World);

    /// A copy with the whole engine state, for snapshots and rewind.
    fn clone_box(&self) -> Box<dyn PhysicsStage>;

    /// A copy for a compact keyframe: the stage with its engine's bulk state
    /// written to `engine` as bytes instead of copied (framed parts, see
    /// [`engine_parts`]), so the rewind history
    /// can delta-encode and compress it ([`crate::history`], "Compact
    /// keyframes"). `None` when the stage has no byte form: the history then
    /// keeps a [`Self::clone_box`] copy. [`Self::load_engine`] on the copy
    /// with the same bytes gives back a stage equal to `self`, bit for bit.
    fn clone_to_bytes(&self, _engine: &mut Vec<u8>) -> Option<Box<dyn PhysicsStage>> {
        None
    }

    /// Puts back the engine state [`Self::clone_to_bytes`] wrote, into the
    /// copy it returned. A stage with no byte form refuses with
    /// [`EngineBytesError::NoByteForm`].
    fn load_engine(&mut self, _engine: &[u8]) -> Result<(), EngineBytesError> {
        Err(EngineBytesError::NoByteForm)
    }

    /// Feeds engine state not visible in committed poses into the tick hash.
    fn hash_state(&self, _hasher: &mut crate::hash::StableHasher) {}

    /// About how many bytes a copy of the stage holds ([`Self::clone_box`]):
    /// what the rewind history's byte budget counts for the engine. The
    /// default, 0, suits a stage that holds nothing worth counting.
    fn memory_bytes(&self) -> usize {
        0
    }

    /// Wall time of the last step, milliseconds (for telemetry).
    fn last_step_ms(&self) -> f64 {
        0.0
    }

    /// Moves the soft-body tears of the last step into `out`, in the order
    /// they happened (their `tick` is filled in by the pipeline).
    fn take_tears(&mut self, _out: &mut Vec<crate::soft_body::SoftTear>) {}

    /// Appends the object pairs touching after the last step, `(a, b)` with
    /// `a < b`, in id order: what the editor marks as contacts, read from the
    /// engine so a rewound or replayed session shows them too.
    fn touching_pairs(&self, _out: &mut Vec<(crate::ids::ObjectId, crate::ids::ObjectId)>) {}
}

impl Clone for Box<dyn PhysicsStage> {
    fn clone(&self) -> Box<dyn PhysicsStage> {
        self.clone_box()
    }
}

/// A stage with no engine: commands are dropped and poses never change, but the
/// previous/committed bookkeeping still happens so interpolation is well defined.
#[derive(Clone, Debug, Default)]
pub struct NoPhysics;

impl PhysicsStage for NoPhysics {
    fn reconcile(&mut self, world: &mut World, _fixed_dt: f64) {
        world.commands.clear();
        world.added_bodies.clear();
        world.removed_bodies.clear();
        world.toggled_bodies.clear();
    }

    fn step(&mut self, _fixed_dt: f64, _substeps: u32, _contacts: &mut Vec<ContactEvent>) {}

    fn commit(&mut self, world: &mut World) {
        if !world.has_bodies() {
            return;
        }
        for object in world.objects_mut() {
            if let Some(body) = object.body.as_mut() {
                body.previous = body.committed;
            }
        }
    }

    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }
}

/// Why engine bytes ([`PhysicsStage::clone_to_bytes`]) could not be put
/// back into a stage ([`PhysicsStage::load_engine`]). The bytes never leave
/// the process (the rewind history packs and unpacks them), so any of
/// these is a bug in the packing or a stage loading bytes it did not write;
/// the variants say which check caught it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineBytesError {
    /// The stage has no byte form: its [`PhysicsStage::clone_to_bytes`]
    /// returns `None`, so no bytes can be its own.
    #[error("this physics stage has no byte form")]
    NoByteForm,
    /// The header (a count of parts and a length for each, see
    /// [`engine_parts`]) does not fit the bytes.
    #[error("engine bytes: the header does not fit the {len} bytes")]
    BadHeader {
        /// How many bytes there were.
        len: usize,
    },
    /// The header names a different number of parts than the stage writes.
    #[error("engine bytes: {found} parts, expected {expected}")]
    PartCount {
        /// Parts the header names.
        found: usize,
        /// Parts the stage writes.
        expected: usize,
    },
    /// One part did not decode into the engine's state.
    #[error("engine bytes: the {part} part did not decode: {reason}")]
    Part {
        /// The part's name, as the stage's layout calls it (`bodies`).
        part: &'static str,
        /// What the decoder said.
        reason: String,
    },
}

/// The parts of engine bytes ([`PhysicsStage::clone_to_bytes`]), as
/// `(start, end)` ranges: the bytes open with a little-endian `u32` count
/// of parts and a `u32` length for each, then the parts back to back. A
/// stage writes one part per piece of state whose length changes on its
/// own (rapier's narrow phase grows with contacts, its body set does not),
/// so the history's delta against an earlier keyframe compares each part
/// with the same part there and a longer part shifts nothing after it.
/// `None` when the header does not fit the bytes.
pub fn engine_parts(bytes: &[u8]) -> Option<Vec<(usize, usize)>> {
    let word = |i: usize| -> Option<usize> {
        let b = bytes.get(i..i + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let count = word(0)?;
    let mut start = count.checked_mul(4)?.checked_add(4)?;
    let mut out = Vec::with_capacity(count.min(64));
    for i in 0..count {
        let end = start.checked_add(word(4 + 4 * i)?)?;
        if end > bytes.len() {
            return None;
        }
        out.push((start, end));
        start = end;
    }
    Some(out)
}
