//! Substeps.

use super::*;

#[test]
fn with_substeps_a_tick_still_advances_exactly_fixed_dt() {
    let dt = 1.0 / 60.0_f32;
    let ticks = 30u32;
    let mut fallen = Vec::new();
    for substeps in [1u32, 4] {
        let mut world = World::new();
        let id = world.spawn(ball("ball", 0.0, 20.0, 0.5));
        let mut pipeline = session(world, Vec2::new(0.0, -G), settings(60, substeps));
        for _ in 0..ticks {
            assert_eq!(pipeline.step_frame(f64::from(dt)).ticks, 1);
        }
        // Velocity after half a second of free fall: -g t, whatever the substeps.
        let v = velocity_of(&pipeline, id);
        assert!(
            close(v.linear.y, -G * dt * ticks as f32, 1e-4),
            "{substeps}: {v:?}"
        );
        // Position: semi-implicit Euler with M internal steps of h = dt / (substeps × 4).
        let m = ticks * substeps * RAPIER_INTERNAL_SUBSTEPS;
        let h = dt / (substeps * RAPIER_INTERNAL_SUBSTEPS) as f32;
        let expected = 20.0 - G * h * h * (m as f32) * (m as f32 + 1.0) / 2.0;
        let y = pose_of(&pipeline, id).y;
        assert!(
            close(y, expected, 1e-4),
            "{substeps} substeps: y {y} vs {expected}"
        );
        fallen.push(20.0 - y);
    }
    // Both fell about ½ g t² = 1.25 m; finer substeps get closer to it.
    let exact = 0.5 * G * 0.25;
    assert!((fallen[1] - exact).abs() < (fallen[0] - exact).abs());
    assert!((fallen[1] - fallen[0]).abs() < 0.01);
}

#[test]
fn with_substeps_contacts_still_fire() {
    let log = new_log();
    let mut world = World::new();
    let ground_id = world.spawn(ground());
    let ball_id = world.spawn(
        ball("ball", 0.0, 2.0, 0.5)
            .with_behaviour(Box::new(ContactProbe { log: log.clone() }), Priority(0)),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), settings(60, 4));
    for _ in 0..90 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let calls = lines(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(calls[0].starts_with(&format!("{ball_id} Started tick ")));
    assert!(calls[0].ends_with(&format!("phase Fixed with {ground_id}")));
    // And the ball rests on the ground instead of falling through it.
    let y = pose_of(&pipeline, ball_id).y;
    assert!(close(y, 0.5, 0.02), "resting centre at one radius: {y}");
}

/// Moves its kinematic body 0.1 m right per tick by target, from x = 0.
#[derive(Clone, Debug)]
struct Slider;

impl Behaviour for Slider {
    fn name(&self) -> &str {
        "Slider"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        let x = 0.1 * ctx.clock().simulation_tick as f32;
        ctx.set_kinematic_target(me, Pose::new(x, 0.0, 0.0));
    }
}

#[test]
fn with_substeps_a_kinematic_body_reaches_its_target_at_the_end_of_the_tick_at_constant_speed() {
    for substeps in [1u32, 4] {
        let mut world = World::new();
        let id = world.spawn(
            ObjectDesc::new("slider", Pose::IDENTITY)
                .with_body(BodyDesc::with_kind(
                    BodyKind::Kinematic,
                    Shape::Circle { radius: 0.5 },
                ))
                .with_behaviour(Box::new(Slider), Priority(0)),
        );
        let mut pipeline = session(world, Vec2::new(0.0, -G), settings(60, substeps));
        for tick in 1..=5u32 {
            assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
            // At the target when the tick ends...
            let p = pose_of(&pipeline, id);
            assert!(close(p.x, 0.1 * tick as f32, 1e-5), "{substeps}: {p:?}");
            // ...having moved at 0.1 m / (1/60 s) = 6 m/s through every substep, so the
            // last substep's velocity is the tick's average, not a jump then a stop.
            let v = velocity_of(&pipeline, id);
            assert!(
                close(v.linear.x, 6.0, 1e-3),
                "{substeps} substeps, tick {tick}: {v:?}"
            );
        }
    }
}
