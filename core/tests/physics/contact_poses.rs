//! Contact hooks read the live pose of their tick.

use super::*;

/// Records, in each contact callback, the tick and the pose and velocity it reads.
#[derive(Clone, Debug)]
struct ContactPose {
    seen: Arc<Mutex<Vec<(u64, Pose, Velocity)>>>,
}

impl Behaviour for ContactPose {
    fn name(&self) -> &str {
        "ContactPose"
    }
    fn on_contact(&mut self, ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {
        let me = ctx.me();
        let pose = ctx.physics_simulation_pose(me).expect("a body");
        let velocity = ctx.velocity(me).expect("a body");
        let tick = ctx.clock().simulation_tick;
        self.seen.lock().expect("lock").push((tick, pose, velocity));
    }
}

#[test]
fn a_contact_hook_reads_the_pose_and_velocity_its_tick_commits() {
    // The ball of `contact_callbacks_fire_in_the_fixed_phase_with_the_right_tick`:
    // its step of tick T stops the fall, so tick T's pose differs from T-1's.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut world = World::new();
    world.spawn(ground());
    let ball_id = world.spawn(
        ball("ball", 0.0, 3.0, 0.5)
            .with_behaviour(Box::new(ContactPose { seen: seen.clone() }), Priority(0)),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));
    for _ in 0..90 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (tick, pose, velocity) = seen[0];
    let (committed, committed_v) = recorder.after(tick, ball_id).expect("tick T");
    let (before, _) = recorder.after(tick - 1, ball_id).expect("tick T-1");
    assert_eq!(
        (pose, velocity),
        (committed, committed_v),
        "the tick's own record"
    );
    assert_ne!(pose, before, "not the previous tick's pose");
}
