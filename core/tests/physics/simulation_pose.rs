//! physics_simulation_pose.

use super::*;

/// Reads its own pose, writes a new one, and reads again, in tick 1's
/// FixedUpdate.
#[derive(Clone, Debug)]
struct ReadWriteRead {
    log: Arc<Mutex<Vec<Pose>>>,
}

impl Behaviour for ReadWriteRead {
    fn name(&self) -> &str {
        "ReadWriteRead"
    }
    fn clone_box(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick != 1 {
            return;
        }
        let me = ctx.me();
        let before = ctx.physics_simulation_pose(me).expect("alive");
        assert!(ctx.set_pose(me, Pose::new(5.0, 5.0, 0.5)));
        let after = ctx.physics_simulation_pose(me).expect("alive");
        self.log.lock().expect("lock").extend([before, after]);
    }
}

#[test]
fn physics_simulation_pose_is_a_copy_of_the_committed_pose() {
    // A write in a hook is a command for the next reconcile: the committed
    // pose the hook reads is the completed tick's until the tick commits, and
    // a copy taken before stays what it was.
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut world = World::new();
    let id = world.spawn(ball("ball", 0.0, 2.0, 0.5).with_behaviour(
        Box::new(ReadWriteRead { log: log.clone() }),
        Priority::DEFAULT,
    ));
    let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
    let start = pose_of(&pipeline, id);
    assert_eq!(start, Pose::new(0.0, 2.0, 0.0));
    pipeline.step_frame(1.0 / 60.0);
    let seen = log.lock().expect("lock").clone();
    assert_eq!(
        seen,
        vec![start, start],
        "read, write, read: the same committed pose"
    );
    // The tick committed the written pose (no gravity, no velocity: exactly).
    assert_eq!(pose_of(&pipeline, id), Pose::new(5.0, 5.0, 0.5));
    assert_eq!(
        seen[0],
        Pose::new(0.0, 2.0, 0.0),
        "the copy did not follow the world"
    );
}

#[test]
fn a_bodyless_child_follows_its_physics_parent_committed_transform() {
    let mut world = World::new();
    let mut desc = BodyDesc::dynamic(Shape::Cuboid { hx: 0.5, hy: 0.25 });
    desc.velocity = Velocity {
        linear: Vec2::new(1.0, 0.5),
        angular: 2.0,
    };
    let parent = world.spawn(ObjectDesc::new("cart", Pose::new(1.0, 2.0, 0.25)).with_body(desc));
    let local = Pose::new(1.0, 0.5, 0.3);
    let child = world.spawn(ObjectDesc::new("lamp", local).with_parent(parent));
    let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
    for _ in 0..30 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let p = pose_of(&pipeline, parent);
    // No gravity, no contact: constant velocities for half a second.
    assert!(close(p.x, 1.0 + 0.5, 1e-4), "{p:?}");
    assert!(close(p.y, 2.0 + 0.25, 1e-4), "{p:?}");
    assert!(close(p.angle, 0.25 + 1.0, 1e-4), "{p:?}");
    // The child: parent ∘ local, by hand.
    let (s, c) = (p.angle.sin(), p.angle.cos());
    let expected = Pose::new(
        p.x + c * local.x - s * local.y,
        p.y + s * local.x + c * local.y,
        p.angle + local.angle,
    );
    let got = pose_of(&pipeline, child);
    assert!(close(got.x, expected.x, 1e-5), "{got:?} vs {expected:?}");
    assert!(close(got.y, expected.y, 1e-5), "{got:?} vs {expected:?}");
    assert!(
        close(got.angle, expected.angle, 1e-5),
        "{got:?} vs {expected:?}"
    );
}

#[test]
fn presentation_pose_interpolates_by_alpha_per_mode_on_the_shortest_arc() {
    let mut world = World::new();
    let spinner = |mode| {
        let mut desc = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        desc.velocity = Velocity {
            linear: Vec2::new(3.0, 0.0),
            angular: 3.0,
        };
        desc.interpolation = mode;
        desc
    };
    // Start at 3.1 rad spinning at 3 rad/s: one 60 Hz tick (+0.05 rad) crosses +π,
    // so rapier reports the committed angle as 3.15 - 2π.
    let start = Pose::new(0.0, 0.0, 3.1);
    let none = world.spawn(ObjectDesc::new("none", start).with_body(spinner(Interpolation::None)));
    let lerp = world.spawn(
        ObjectDesc::new("lerp", Pose::new(0.0, 5.0, 3.1))
            .with_body(spinner(Interpolation::Interpolate)),
    );
    let extra = world.spawn(
        ObjectDesc::new("extra", Pose::new(0.0, 10.0, 3.1))
            .with_body(spinner(Interpolation::Extrapolate)),
    );
    let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
    // 1.5 ticks: one tick runs, half a tick stays in the accumulator.
    assert_eq!(pipeline.step_frame(1.5 / 60.0).ticks, 1);
    let alpha = pipeline.clock().interpolation_alpha;
    assert!((alpha - 0.5).abs() < 1e-9, "alpha {alpha}");
    let dt = 1.0 / 60.0;
    let w = pipeline.world();
    let state = |id: ObjectId| w.get(id).and_then(|o| o.body.clone()).expect("body");

    let s = state(lerp);
    let tau = std::f32::consts::TAU;
    assert!(close(s.previous.angle, 3.1, 1e-6));
    assert!(
        close(s.committed.angle, 3.15 - tau, 1e-4),
        "{:?}",
        s.committed
    );
    let shown = w.presentation_pose(lerp, alpha, dt).expect("alive");
    assert!(close(shown.x, 0.5 * (s.previous.x + s.committed.x), 1e-6));
    // Shortest arc: halfway from 3.1 to 3.15 is 3.125, not the naive average near 0.
    let arc = s.committed.angle + tau - s.previous.angle;
    assert!(
        close(shown.angle, s.previous.angle + 0.5 * arc, 1e-5),
        "{shown:?}"
    );
    assert!(close(shown.angle, 3.125, 1e-4), "{shown:?}");

    let s = state(none);
    assert_eq!(w.presentation_pose(none, alpha, dt), Some(s.committed));

    let s = state(extra);
    let shown = w.presentation_pose(extra, alpha, dt).expect("alive");
    let ahead = (alpha * dt) as f32;
    assert!(close(
        shown.x,
        s.committed.x + s.velocity.linear.x * ahead,
        1e-6
    ));
    assert!(close(
        shown.angle,
        s.committed.angle + s.velocity.angular * ahead,
        1e-6
    ));
    assert!(close(s.velocity.linear.x, 3.0, 1e-5));
}
