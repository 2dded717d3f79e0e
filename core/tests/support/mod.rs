//! Helpers the history test binaries share (and `tests/replay.rs`, which
//! includes this file by path): the fixed ground their worlds stand on, the
//! random sideways nudge their behaviours give, and the observer that keeps
//! every tick's hash. Each binary compiles this module and uses part of it.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use stepframe_core::{
    BodyDesc, BodyKind, Ctx, ObjectDesc, ObjectId, Pose, Shape, TickObserver, TickRecord, Vec2,
};

/// A fixed ground (object 1) whose top is at y = 0, `hx` m either side of
/// x = 0.
pub fn ground(hx: f32) -> ObjectDesc {
    ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0))
        .with_id(ObjectId(1))
        .with_body(BodyDesc::with_kind(
            BodyKind::Fixed,
            Shape::Cuboid { hx, hy: 0.5 },
        ))
}

/// Pushes the calling object sideways with a force drawn from the session's
/// random stream, uniform in ±`most` N: state a replay must repeat.
pub fn nudge(ctx: &mut Ctx, most: f32) {
    let nudge = ctx.rng().range(-most, most);
    ctx.apply_force(ctx.me(), Vec2::new(nudge, 0.0));
}

/// Every tick's hash, in the order the session's observer saw them; a clone
/// shares the list, so a test keeps one and installs the other.
#[derive(Clone, Default)]
pub struct Hashes(Arc<Mutex<Vec<(u64, u64)>>>);

impl TickObserver for Hashes {
    fn on_tick(&mut self, r: &TickRecord<'_>) {
        self.0
            .lock()
            .expect("lock")
            .push((r.clock.simulation_tick, r.hash));
    }
}

impl Hashes {
    /// The hash of `tick` (the newest, for a tick seen twice).
    pub fn at(&self, tick: u64) -> u64 {
        let seen = self.0.lock().expect("lock");
        seen.iter()
            .rev()
            .find(|(t, _)| *t == tick)
            .unwrap_or_else(|| panic!("tick {tick} was observed"))
            .1
    }
}
