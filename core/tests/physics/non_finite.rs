//! Non-finite writes never reach rapier.

use super::*;

/// Writes NaN and infinity through every command kind.
#[derive(Clone, Debug)]
struct Vandal;

impl Behaviour for Vandal {
    fn name(&self) -> &str {
        "Vandal"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        assert!(!ctx.apply_force(me, Vec2::new(f32::NAN, 0.0)));
        assert!(!ctx.apply_impulse(me, Vec2::new(0.0, f32::INFINITY)));
        assert!(!ctx.set_pose(me, Pose::new(0.0, f32::NAN, 0.0)));
        assert!(!ctx.set_velocity(
            me,
            Velocity {
                linear: Vec2::ZERO,
                angular: f32::NEG_INFINITY
            }
        ));
    }
}

#[test]
fn a_non_finite_write_is_rejected_before_it_reaches_rapier() {
    let mut world = World::new();
    world.spawn(ground());
    let id = world.spawn(ball("ball", 0.0, 0.5, 0.5).with_behaviour(Box::new(Vandal), Priority(0)));
    // A body authored at a non-finite pose is not created at all: the
    // object lives on without one (not in traces, never in rapier).
    let broken = world.spawn(ball("broken", f32::NAN, 1.0, 0.5));
    assert!(world.get(broken).expect("the object exists").body.is_none());
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    for _ in 0..10 {
        assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
        let p = pose_of(&pipeline, id);
        assert!(p.is_finite(), "{p:?}");
        assert!(velocity_of(&pipeline, id).is_finite());
    }
    // Resting on the ground, where it started.
    assert!(close(pose_of(&pipeline, id).y, 0.5, 0.02));
    let log = pipeline.drain_log();
    let rejected = log
        .iter()
        .filter(|e| {
            e.level == LogLevel::Error && e.object == Some(id) && e.message.contains("non-finite")
        })
        .count();
    assert_eq!(rejected, 4 * 10, "four rejected writes per tick: {log:?}");
    assert!(log.iter().any(|e| {
        e.level == LogLevel::Error
            && e.object == Some(broken)
            && e.message
                .contains("body not created: its world pose does not fit in f32")
    }));
    assert!(pipeline.world().get(broken).expect("alive").body.is_none());
}
