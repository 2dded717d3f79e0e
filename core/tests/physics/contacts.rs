//! Contact callbacks fire in the fixed phase with the right tick.

use super::*;

/// Records contact callbacks with the clock they saw.
#[derive(Clone, Debug)]
pub(crate) struct ContactProbe {
    pub(crate) log: Log,
}

impl Behaviour for ContactProbe {
    fn name(&self) -> &str {
        "ContactProbe"
    }
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        let c = ctx.clock();
        push(
            &self.log,
            format!(
                "{} {:?} tick {} phase {:?} with {}",
                ctx.me(),
                kind,
                c.simulation_tick,
                c.phase,
                other
            ),
        );
    }
}

#[test]
fn contact_callbacks_fire_in_the_fixed_phase_with_the_right_tick() {
    let log = new_log();
    let mut world = World::new();
    let ground_id = world.spawn(ground());
    let radius = 0.5;
    let ball_id = world.spawn(
        ball("ball", 0.0, 3.0, radius)
            .with_behaviour(Box::new(ContactProbe { log: log.clone() }), Priority(0)),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));
    for _ in 0..90 {
        pipeline.step_frame(1.0 / 60.0);
    }

    let calls = lines(&log);
    assert_eq!(calls.len(), 1, "exactly one contact callback: {calls:?}");
    let (prefix, rest) = calls[0]
        .split_once(" tick ")
        .expect("callback line has a tick");
    assert_eq!(prefix, format!("{ball_id} Started"));
    let (tick, rest) = rest.split_once(' ').expect("tick then phase");
    let tick: u64 = tick.parse().expect("tick is a number");
    assert_eq!(rest, format!("phase {:?} with {ground_id}", Phase::Fixed));

    // Which tick is right: rapier finds contacts at the start of each step, from the
    // poses the previous tick committed, and resolves them in that step. So the
    // callback's tick T is the first tick whose step felt the ground: until T-1 the
    // ball is in exact free fall (v = -g t, hand formula), after T it is not; and
    // the pose committed by T-1 is the first one touching the ground (within
    // rapier's 0.02 m prediction distance), while the one before is clear of it.
    let dt = 1.0 / 60.0_f32;
    let (pose_before, vel_before) = recorder
        .after(tick - 1, ball_id)
        .expect("tick T-1 recorded");
    let (_, vel_at) = recorder.after(tick, ball_id).expect("tick T recorded");
    let (pose_earlier, _) = recorder
        .after(tick - 2, ball_id)
        .expect("tick T-2 recorded");
    let free_fall = -G * dt * (tick - 1) as f32;
    assert!(
        close(vel_before.linear.y, free_fall, 1e-3),
        "{vel_before:?} vs {free_fall}"
    );
    assert!(
        vel_at.linear.y > free_fall - G * dt + 0.5,
        "the step of tick {tick} stopped the fall: {vel_at:?}"
    );
    let gap = |p: Pose| p.y - radius; // ground top is y = 0
    assert!(
        gap(pose_before) <= 0.02,
        "touching after T-1: gap {}",
        gap(pose_before)
    );
    assert!(
        gap(pose_earlier) > 0.02,
        "clear after T-2: gap {}",
        gap(pose_earlier)
    );
}
