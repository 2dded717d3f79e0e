//! Helpers core's test binaries share (and `tests/replay.rs`, which
//! includes this file by path): for the history tests, the fixed ground
//! their worlds stand on, the random sideways nudge their behaviours give and
//! the observer that keeps every tick's hash; for the scene tests, the
//! `Probe` behaviour their registries build and the line-by-line diff of a
//! rewritten file (`lines`, which the app's tests include too). Each binary
//! compiles this module and uses part of it.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Ctx, ObjectDesc, ObjectId, ParamsError, Pose, Shape,
    TickObserver, TickRecord, Vec2,
};

pub mod lines;

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

/// Nudges its body sideways by a random force of at most `most` N every
/// tick ([`nudge`]): the session's generator is state a replay, a past view
/// and an undo must all put back.
#[derive(Clone, Debug)]
pub struct Nudger {
    /// The largest force, N.
    pub most: f32,
}

impl Behaviour for Nudger {
    fn name(&self) -> &str {
        "Nudger"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        nudge(ctx, self.most);
    }
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

/// Pushes its body along x with a constant force of `speed` N every tick:
/// the behaviour the scene tests register as "Probe".
#[derive(Clone, Debug)]
pub struct Probe {
    /// The force, N; never negative.
    pub speed: f32,
}

impl Probe {
    /// The factory's answer for `speed`: a probe, or the parameter error a
    /// scene shows for a negative one.
    pub fn build(speed: f32) -> Result<Box<dyn Behaviour>, ParamsError> {
        if speed < 0.0 {
            return Err(ParamsError::new(format!("speed must be >= 0, got {speed}")));
        }
        Ok(Box::new(Probe { speed }))
    }
}

impl Behaviour for Probe {
    fn name(&self) -> &str {
        "Probe"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        ctx.apply_force(ctx.me(), Vec2::new(self.speed, 0.0));
    }
}
