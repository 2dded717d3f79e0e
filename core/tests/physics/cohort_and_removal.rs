//! The cohort and removal rules hold with real bodies.

use super::*;

/// Spawns one falling ball (with a Tracer) in the FixedUpdate of its first tick.
#[derive(Clone, Debug)]
struct Spawner {
    log: Log,
    done: bool,
}

impl Behaviour for Spawner {
    fn name(&self) -> &str {
        "Spawner"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if self.done {
            return;
        }
        self.done = true;
        let child = ball("spawned", 2.0, 10.0, 0.25)
            .with_id(ObjectId(100))
            .with_behaviour(
                Box::new(Tracer {
                    label: "spawned",
                    log: self.log.clone(),
                }),
                Priority(0),
            );
        ctx.spawn(child);
    }
}

#[test]
fn an_object_spawned_in_fixed_update_gets_a_body_that_tick_and_its_fixed_update_next_frame() {
    let log = new_log();
    let mut world = World::new();
    world.spawn(ObjectDesc::new("spawner", Pose::IDENTITY).with_behaviour(
        Box::new(Spawner {
            log: log.clone(),
            done: false,
        }),
        Priority(0),
    ));
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));

    // Frame 1 runs ticks 1 and 2; the ball is spawned in tick 1's FixedUpdate.
    assert_eq!(pipeline.step_frame(2.0 / 60.0).ticks, 2);
    let spawned = ObjectId(100);
    let h = 1.0 / 60.0 / RAPIER_INTERNAL_SUBSTEPS as f32;
    let fall = |m: u32| 10.0 - G * h * h * (m * (m + 1)) as f32 / 2.0;
    let (after1, v1) = recorder
        .after(1, spawned)
        .expect("body committed after tick 1");
    // Stepped in tick 1 itself: one tick of free fall, by hand.
    assert!(close(after1.y, fall(4), 1e-5), "{after1:?} vs {}", fall(4));
    assert!(close(v1.linear.y, -G / 60.0, 1e-5));
    let (after2, _) = recorder
        .after(2, spawned)
        .expect("body committed after tick 2");
    assert!(close(after2.y, fall(8), 1e-5));
    // ...but no FixedUpdate for it in ticks 1 or 2 (nor Update in frame 1).
    assert_eq!(lines(&log), Vec::<String>::new());

    // Next outer frame: it joins the cohort.
    assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
    assert_eq!(
        lines(&log),
        vec![
            "update spawned frame 2".to_string(),
            "fixed spawned tick 3".into()
        ]
    );
}

/// Logs every callback it receives; optionally removes `victim` when it touches it.
#[derive(Clone, Debug)]
struct Remover {
    log: Log,
    victim: Option<ObjectId>,
}

impl Behaviour for Remover {
    fn name(&self) -> &str {
        "Remover"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        push(
            &self.log,
            format!("{} fixed tick {}", ctx.me(), ctx.clock().simulation_tick),
        );
    }
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        push(
            &self.log,
            format!(
                "{} {:?} with {} tick {}",
                ctx.me(),
                kind,
                other,
                ctx.clock().simulation_tick
            ),
        );
        if kind == ContactKind::Started && Some(other) == self.victim {
            ctx.remove(other);
        }
    }
}

#[test]
fn an_object_removed_by_a_contact_callback_gets_no_further_callback_and_loses_its_body() {
    // Two balls (ids 1 and 3) land on a platform (id 2) in the same tick. Contacts
    // are delivered in pair order, so ball 1 hears (1, 2) first and removes the
    // platform; the platform must not hear (1, 2) nor, later in the same tick, (2, 3).
    let log = new_log();
    let remover = |victim| Remover {
        log: log.clone(),
        victim,
    };
    let mut world = World::new();
    let left = world.spawn(
        ball("left", -1.0, 1.0, 0.5)
            .with_id(ObjectId(1))
            .with_behaviour(Box::new(remover(Some(ObjectId(2)))), Priority(0)),
    );
    let platform = world.spawn(
        ground()
            .with_id(ObjectId(2))
            .with_behaviour(Box::new(remover(None)), Priority(0)),
    );
    let right = world.spawn(
        ball("right", 1.0, 1.0, 0.5)
            .with_id(ObjectId(3))
            .with_behaviour(Box::new(remover(None)), Priority(0)),
    );
    assert_eq!(
        (left, platform, right),
        (ObjectId(1), ObjectId(2), ObjectId(3))
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));
    // One tick per frame, until the removal happened, then two more ticks.
    let mut removal_tick = None;
    for _ in 0..60 {
        pipeline.step_frame(1.0 / 60.0);
        if removal_tick.is_none() && pipeline.world().get(platform).is_none() {
            removal_tick = Some(pipeline.clock().simulation_tick);
            break;
        }
    }
    let t = removal_tick.expect("the balls landed on the platform within a second");
    pipeline.step_frame(1.0 / 60.0);
    pipeline.step_frame(1.0 / 60.0);

    let calls = lines(&log);
    let platform_calls: Vec<&String> = calls.iter().filter(|l| l.starts_with("#2 ")).collect();
    // The platform heard FixedUpdate up to the removal tick, and nothing else.
    let expected: Vec<String> = (1..=t).map(|k| format!("#2 fixed tick {k}")).collect();
    assert_eq!(platform_calls, expected.iter().collect::<Vec<_>>());
    assert!(calls.contains(&format!("#1 Started with #2 tick {t}")));
    assert!(calls.contains(&format!("#3 Started with #2 tick {t}")));

    // Its body is gone from physics next tick: tick t resolved the landing, tick
    // t+1 is free fall again (Δv = -g dt, by hand) for both balls.
    let dt = 1.0 / 60.0_f32;
    for id in [left, right] {
        let (_, at_t) = recorder.after(t, id).expect("tick t recorded");
        let (_, at_next) = recorder.after(t + 1, id).expect("tick t+1 recorded");
        assert!(
            at_t.linear.y.abs() < 1.0,
            "{id} was resting after tick {t}: {at_t:?}"
        );
        assert!(
            close(at_next.linear.y - at_t.linear.y, -G * dt, 1e-4),
            "{id} falls freely in tick {}: {at_t:?} → {at_next:?}",
            t + 1
        );
    }
    // The survivors still hear that the removed body stopped touching them.
    assert!(
        calls.contains(&format!("#1 Stopped with #2 tick {}", t + 1)),
        "{calls:?}"
    );
    assert!(
        calls.contains(&format!("#3 Stopped with #2 tick {}", t + 1)),
        "{calls:?}"
    );
}
