//! Force and impulse scaling.

use super::*;

/// Applies a force or an impulse to its own body in its first FixedUpdate only.
#[derive(Clone, Debug)]
struct Pusher {
    impulse: bool,
    amount: Vec2,
    done: bool,
}

impl Behaviour for Pusher {
    fn name(&self) -> &str {
        "Pusher"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if self.done {
            return;
        }
        self.done = true;
        let me = ctx.me();
        let accepted = if self.impulse {
            ctx.apply_impulse(me, self.amount)
        } else {
            ctx.apply_force(me, self.amount)
        };
        assert!(accepted);
    }
}

/// Velocity of a 2 kg box after each of the first two ticks at `hz`.
fn push_box(hz: u32, impulse: bool, amount: Vec2) -> (Velocity, Velocity) {
    let mut world = World::new();
    // 1 m × 1 m at 2 kg/m²: mass 2 kg.
    let mut desc = BodyDesc::dynamic(Shape::Cuboid { hx: 0.5, hy: 0.5 });
    desc.density = 2.0;
    let id = world.spawn(
        ObjectDesc::new("box", Pose::IDENTITY)
            .with_body(desc)
            .with_behaviour(
                Box::new(Pusher {
                    impulse,
                    amount,
                    done: false,
                }),
                Priority(0),
            ),
    );
    let mut pipeline = session(world, Vec2::ZERO, settings(hz, 1));
    assert_eq!(pipeline.step_frame(1.0 / f64::from(hz)).ticks, 1);
    let first = velocity_of(&pipeline, id);
    assert_eq!(pipeline.step_frame(1.0 / f64::from(hz)).ticks, 1);
    (first, velocity_of(&pipeline, id))
}

/// `v`'s linear velocity is `expected` to within 1e-6 m/s on each axis.
#[track_caller]
fn assert_linear_within_1e6(hz: u32, v: &Velocity, expected: Vec2) {
    assert!(
        close(v.linear.x, expected.x, 1e-6) && close(v.linear.y, expected.y, 1e-6),
        "{hz} Hz: {v:?} vs {expected:?}"
    );
}

#[test]
fn a_force_is_scaled_by_the_tick_and_does_not_persist() {
    let mass = 2.0;
    let force = Vec2::new(10.0, -4.0);
    for hz in [60, 120] {
        let dt = 1.0 / hz as f32;
        let (first, second) = push_box(hz, false, force);
        let expected = force * (dt / mass);
        assert_linear_within_1e6(hz, &first, expected);
        assert_eq!(first.angular, 0.0);
        // The next tick had no force: the velocity is unchanged.
        assert_eq!(
            second, first,
            "{hz} Hz: the force leaked into the next tick"
        );
    }
}

#[test]
fn an_impulse_is_not_scaled_by_the_tick() {
    let mass = 2.0;
    let impulse = Vec2::new(3.0, 1.0);
    for hz in [60, 120] {
        let (first, second) = push_box(hz, true, impulse);
        let expected = impulse * (1.0 / mass);
        assert_linear_within_1e6(hz, &first, expected);
        assert_eq!(second, first);
    }
}
