//! Helpers the history test binaries share (and `tests/replay.rs`, which
//! includes this file by path): the fixed ground their worlds stand on and
//! the random sideways nudge their behaviours give. Each binary compiles this
//! module and uses part of it.
#![allow(dead_code)]

use stepframe_core::{BodyDesc, BodyKind, Ctx, ObjectDesc, ObjectId, Pose, Shape, Vec2};

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
