//! Conformance to the gameplay time and phase contract
//! (`shared/seeds/gameplay-time-and-phase-contract.txt`, restated in DESIGN.md).
//! One test per sentence, named after it. Physics is the stand-in stage of
//! `support.rs`, which logs its calls and integrates velocities, so every number
//! here can be checked by hand.

use stepframe_core::{
    ActionBinding, ActionMap, Breakpoint, BreakpointId, Condition, ContactKind, Edit, Flicks,
    FrameKind, HitCount, HookKind, InputEvent, InputSource, ObjectDesc, ObjectId, Phase, Pipeline,
    Pose, PreparedEdit, Priority, StepStrategy, SuspendReason, TickInputSource, TimeSettings,
    World,
};
use stepframe_tests::{Actions, Event, Log, StandIn, count, hooks, new_log, probe_object, take};

const TICK: f64 = 1.0 / 60.0;

fn session_with(
    log: &Log,
    objects: Vec<ObjectDesc>,
    settings: TimeSettings,
    stage: StandIn,
) -> Pipeline {
    let mut world = World::new();
    for o in objects {
        world.spawn(o);
    }
    let mut p = Pipeline::new(settings);
    p.set_action_map(ActionMap {
        actions: vec![ActionBinding {
            name: "jump".into(),
            sources: vec![InputSource::Key("Space".into())],
        }],
    });
    p.load_session(world, Box::new(stage), 7);
    let _ = log;
    p
}

fn session(log: &Log, objects: Vec<ObjectDesc>) -> Pipeline {
    session_with(log, objects, TimeSettings::default(), StandIn::new(log))
}

/// Enables or disables an object as the editor's hierarchy does: an edit.
fn enable(p: &mut Pipeline, object: ObjectId, enabled: bool) {
    p.apply_edit(&Edit::Enabled { object, enabled }.into())
        .expect("a live object");
}

fn probes(log: &Log, n: u64) -> Vec<ObjectDesc> {
    (1..=n)
        .map(|id| probe_object(log, id, 0, Actions::default()))
        .collect()
}

fn space(pressed: bool) -> InputEvent {
    let source = InputSource::Key("Space".into());
    if pressed {
        InputEvent::press(source)
    } else {
        InputEvent::release(source)
    }
}

// ----- The outer frame ------------------------------------------------------

#[test]
fn update_and_flow_tick_run_once_per_active_outer_frame_with_the_clamped_game_delta() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(0.010);
    p.step_frame(3.0); // clamped to max_delta = 0.25
    let events = take(&log);
    let deltas: Vec<(HookKind, f64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Hook { hook, clock, .. }
                if matches!(hook, HookKind::Update | HookKind::FlowTick) =>
            {
                Some((*hook, clock.delta_time))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        deltas,
        vec![
            (HookKind::Update, Flicks::from_secs_f64(0.010).as_secs_f64()),
            (
                HookKind::FlowTick,
                Flicks::from_secs_f64(0.010).as_secs_f64()
            ),
            (HookKind::Update, 0.25),
            (HookKind::FlowTick, 0.25),
        ]
    );
}

#[test]
fn start_runs_on_the_first_frame_before_the_first_update() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 2));
    p.step_frame(TICK);
    p.step_frame(TICK);
    let calls: Vec<(u64, HookKind)> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| matches!(h, HookKind::Start | HookKind::Update))
        .map(|(o, h, _)| (o, h))
        .collect();
    use HookKind::{Start, Update};
    assert_eq!(
        calls,
        vec![
            (1, Start),
            (2, Start),
            (1, Update),
            (2, Update),
            (1, Update),
            (2, Update)
        ]
    );
}

#[test]
fn fixed_update_is_invoked_immediately_before_each_physics_step() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 2));
    // 1/60 s owes one tick; 3/60 owes three; 1/120 owes none.
    for dt in [TICK, 3.0 * TICK, TICK / 2.0] {
        p.step_frame(dt);
    }
    let order: Vec<String> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                object,
                hook: HookKind::FixedUpdate,
                clock,
                ..
            } => Some(format!("fixed{} t{}", object.0, clock.simulation_tick)),
            Event::Reconcile { .. } => Some("reconcile".into()),
            Event::Step { .. } => Some("step".into()),
            Event::Commit => Some("commit".into()),
            _ => None,
        })
        .collect();
    let mut expected = Vec::new();
    for t in 1..=4 {
        expected.extend([
            format!("fixed1 t{t}"),
            format!("fixed2 t{t}"),
            "reconcile".into(),
            "step".into(),
            "commit".into(),
        ]);
    }
    assert_eq!(order, expected);
}

#[test]
fn a_display_frame_can_run_zero_one_or_several_fixed_callbacks() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    let ticks: Vec<u32> = [TICK / 2.0, TICK / 2.0, TICK, 3.0 * TICK]
        .into_iter()
        .map(|dt| p.step_frame(dt).ticks)
        .collect();
    // 0.5 tick: none; 1.0 tick in total: one; one more: one; three more: three.
    assert_eq!(ticks, vec![0, 1, 1, 3]);
    assert_eq!(count(&take(&log), HookKind::FixedUpdate), 5);
}

#[test]
fn the_four_step_cap_discards_excessive_backlog_and_reports_the_discarded_duration() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    // 0.2 s at 60 Hz owes 12 ticks: 4 run, 8 are dropped (8/60 s).
    let r = p.step_frame(0.2);
    assert_eq!(r.ticks, 4);
    assert_eq!(r.dropped_time, Flicks(8 * 11_760_000).as_secs_f64());
    assert_eq!(p.clock().dropped_time, r.dropped_time);
    assert_eq!(p.clock().simulation_tick, 4);
    // droppedTime is cumulative: a second such frame doubles it.
    p.step_frame(0.2);
    assert_eq!(
        p.clock().dropped_time,
        Flicks(16 * 11_760_000).as_secs_f64()
    );
}

#[test]
fn simulation_time_advances_only_for_completed_fixed_steps() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(TICK * 0.9);
    assert_eq!(
        (p.clock().simulation_tick, p.clock().simulation_time),
        (0, 0.0)
    );
    p.step_frame(TICK * 0.2);
    assert_eq!(p.clock().simulation_tick, 1);
    assert_eq!(p.clock().simulation_time, Flicks(11_760_000).as_secs_f64());
}

#[test]
fn paused_frames_do_not_call_the_shared_pipeline_so_they_advance_neither_clock() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(TICK);
    let before = *p.clock();
    p.pause();
    for _ in 0..10 {
        assert_eq!(p.step_frame(TICK).kind, FrameKind::NotRun);
    }
    assert_eq!(p.clock().frame_time, before.frame_time);
    assert_eq!(p.clock().frame_index, before.frame_index);
    assert_eq!(p.clock().simulation_time, before.simulation_time);
    take(&log);
    p.resume();
    p.step_frame(TICK);
    assert_eq!(p.clock().simulation_tick, 2);
    assert_eq!(p.clock().frame_index, 2);
}

#[test]
fn during_fixed_update_simulation_time_is_the_start_of_the_pending_tick_and_simulation_tick_its_one_based_index()
 {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(3.0 * TICK);
    let seen: Vec<(u64, f64, Phase)> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::FixedUpdate,
                clock,
                ..
            } => Some((clock.simulation_tick, clock.simulation_time, clock.phase)),
            _ => None,
        })
        .collect();
    let dt = Flicks(11_760_000);
    assert_eq!(
        seen,
        vec![
            (1, Flicks(0).as_secs_f64(), Phase::Fixed),
            (2, dt.as_secs_f64(), Phase::Fixed),
            (3, (dt * 2).as_secs_f64(), Phase::Fixed),
        ]
    );
}

#[test]
fn after_physics_they_describe_the_completed_tick_and_time() {
    let log = new_log();
    let stage =
        StandIn::new(&log).with_contacts(vec![(2, ObjectId(1), ObjectId(2), ContactKind::Started)]);
    let mut p = session_with(&log, probes(&log, 2), TimeSettings::default(), stage);
    p.step_frame(3.0 * TICK);
    let contact_clocks: Vec<(u64, f64, Phase)> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::Contact,
                clock,
                ..
            } => Some((clock.simulation_tick, clock.simulation_time, clock.phase)),
            _ => None,
        })
        .collect();
    // Contact of tick 2, seen after its step: tick 2, time 2/60 (end of tick 2).
    let end_of_2 = Flicks(2 * 11_760_000).as_secs_f64();
    assert_eq!(
        contact_clocks,
        vec![(2, end_of_2, Phase::Fixed), (2, end_of_2, Phase::Fixed)]
    );
    assert_eq!(p.clock().simulation_tick, 3);
    assert_eq!(
        p.clock().simulation_time,
        Flicks(3 * 11_760_000).as_secs_f64()
    );
}

/// Keeps the trace line of every completed tick.
#[derive(Clone, Default)]
struct TraceLines(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl stepframe_core::TickObserver for TraceLines {
    fn on_tick(&mut self, record: &stepframe_core::TickRecord<'_>) {
        let mut line = String::new();
        stepframe_core::write_trace_line(&mut line, record);
        self.0.lock().expect("lock").push(line);
    }
}

/// The `x` the trace line gives object `id`.
fn traced_x(line: &str, id: u64) -> f32 {
    let key = format!("{{\"id\":{id},\"x\":");
    let at = line.find(&key).expect("the object is in poses") + key.len();
    let end = at + line[at..].find(',').expect("x ends");
    line[at..end].parse().expect("a number")
}

#[test]
fn rigid_bodies_read_their_live_physics_pose_in_contact_hooks_the_pose_their_tick_commits() {
    // Object 1 is pushed by 60 N at unit mass: x = 1 at the start, then each
    // tick v += 1 and x += v / 60 (the stand-in integrates like that). The
    // stage reports a contact of objects 1 and 2 in tick 2.
    let log = new_log();
    let stage =
        StandIn::new(&log).with_contacts(vec![(2, ObjectId(1), ObjectId(2), ContactKind::Started)]);
    let pusher = probe_object(
        &log,
        1,
        0,
        Actions {
            force: Some(stepframe_core::Vec2::new(60.0, 0.0)),
            ..Actions::default()
        },
    );
    let other = probe_object(&log, 2, 0, Actions::default());
    let mut p = session_with(&log, vec![pusher, other], TimeSettings::default(), stage);
    let trace = TraceLines::default();
    p.set_tick_observer(Some(Box::new(trace.clone())));
    p.step_frame(3.0 * TICK);
    let contact_x = take(&log)
        .into_iter()
        .find_map(|e| match e {
            Event::Hook {
                object: ObjectId(1),
                hook: HookKind::Contact,
                pose,
                clock,
                ..
            } => Some((clock.simulation_tick, pose.expect("a body").x)),
            _ => None,
        })
        .expect("object 1 heard its contact");
    let lines = trace.0.lock().expect("lock").clone();
    let dt = (1.0f64 / 60.0) as f32;
    let x2 = 1.0 + 1.0 * dt + 2.0 * dt;
    // The contact hook of tick 2 reads the pose tick 2 ended with: the pose
    // the trace record of tick 2 commits, not tick 1's.
    assert_eq!(contact_x, (2, x2));
    assert_eq!(traced_x(&lines[1], 1).to_bits(), x2.to_bits());
    assert_ne!(traced_x(&lines[0], 1), x2);
}

#[test]
fn frame_time_counts_active_outer_time_while_simulation_time_restarts_with_its_physics_world() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    for _ in 0..30 {
        p.step_frame(TICK);
    }
    let frame_time = p.clock().frame_time;
    assert_eq!(frame_time, Flicks(30 * 11_760_000).as_secs_f64());
    assert_eq!(p.clock().simulation_tick, 30);
    // A new physics session (scene reload).
    let mut world = World::new();
    world.spawn(probe_object(&log, 1, 0, Actions::default()));
    p.load_session(world, Box::new(StandIn::new(&log)), 7);
    assert_eq!(p.clock().simulation_tick, 0);
    assert_eq!(p.clock().simulation_time, 0.0);
    assert_eq!(p.clock().frame_time, frame_time);
    p.step_frame(TICK);
    assert_eq!(p.clock().frame_index, 31);
    assert_eq!(p.clock().simulation_tick, 1);
}

#[test]
fn interpolation_alpha_is_the_accumulator_over_fixed_delta_time_in_presentation() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(TICK * 1.25);
    let alphas: Vec<f64> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::Present,
                clock,
                ..
            } => Some(clock.interpolation_alpha),
            _ => None,
        })
        .collect();
    // 1.25 ticks fed, one run: a quarter tick waits (2,940,000 of 11,760,000 flicks).
    assert_eq!(alphas, vec![0.25]);
    assert_eq!(p.clock().accumulator, Flicks(2_940_000).as_secs_f64());
}

#[test]
fn time_scale_zero_runs_no_fixed_tick_and_no_fixed_update() {
    let log = new_log();
    let settings = TimeSettings {
        time_scale: 0.0,
        ..TimeSettings::default()
    };
    let mut p = session_with(&log, probes(&log, 1), settings, StandIn::new(&log));
    for _ in 0..10 {
        assert_eq!(p.step_frame(TICK).ticks, 0);
    }
    let events = take(&log);
    assert_eq!(count(&events, HookKind::FixedUpdate), 0);
    assert_eq!(count(&events, HookKind::Update), 10);
    assert!(!events.iter().any(|e| matches!(e, Event::Step { .. })));
}

#[test]
fn time_scale_scales_the_delta_fed_to_the_accumulator() {
    for (scale, ticks_per_frame) in [
        (0.25, [0, 0, 0, 1]),
        (0.5, [0, 1, 0, 1]),
        (2.0, [2, 2, 2, 2]),
        (4.0, [4, 4, 4, 4]),
    ] {
        let log = new_log();
        let settings = TimeSettings {
            time_scale: scale,
            ..TimeSettings::default()
        };
        let mut p = session_with(&log, probes(&log, 1), settings, StandIn::new(&log));
        let ran: Vec<u32> = (0..4).map(|_| p.step_frame(TICK).ticks).collect();
        assert_eq!(ran, ticks_per_frame, "time scale {scale}");
        assert_eq!(
            p.clock().delta_time,
            Flicks(11_760_000).scaled(scale).as_secs_f64()
        );
    }
}

#[test]
fn substeps_divide_the_tick_inside_the_physics_stage_only() {
    let log = new_log();
    let settings = TimeSettings {
        substeps: 4,
        ..TimeSettings::default()
    };
    let mut p = session_with(&log, probes(&log, 1), settings, StandIn::new(&log));
    p.step_frame(2.0 * TICK);
    let steps: Vec<(u32, f64)> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Step { substeps, dt } => Some((substeps, dt)),
            _ => None,
        })
        .collect();
    let dt = Flicks(11_760_000).as_secs_f64();
    assert_eq!(
        steps,
        vec![(4, dt), (4, dt)],
        "still one FixedUpdate and one stage step per tick"
    );
}

#[test]
fn time_is_exact_144_frames_of_1_144_s_give_exactly_60_ticks() {
    for strategy in StepStrategy::ALL {
        let mut p = Pipeline::new(TimeSettings {
            strategy,
            ..TimeSettings::default()
        });
        let ticks: u32 = (0..144).map(|_| p.step_frame(1.0 / 144.0).ticks).sum();
        assert_eq!(ticks, 60, "{strategy:?}");
        assert_eq!(p.clock().simulation_time, 1.0);
    }
}

#[test]
fn time_is_exact_six_60hz_frames_with_a_50hz_step_give_the_primer_pattern() {
    for strategy in StepStrategy::ALL {
        let mut p = Pipeline::new(TimeSettings {
            fixed_hz: 50,
            strategy,
            ..TimeSettings::default()
        });
        let pattern: Vec<u32> = (0..6).map(|_| p.step_frame(1.0 / 60.0).ticks).collect();
        assert_eq!(pattern, vec![0, 1, 1, 1, 1, 1], "{strategy:?}");
    }
}

#[test]
fn time_is_exact_one_hour_at_30_60_144_and_240_hz_gives_3600_times_the_fixed_rate() {
    for display_hz in [30u32, 60, 144, 240] {
        for fixed_hz in [50u32, 60] {
            let mut p = Pipeline::new(TimeSettings {
                fixed_hz,
                ..TimeSettings::default()
            });
            let dt = 1.0 / f64::from(display_hz);
            let mut ticks = 0u64;
            for _ in 0..(3600 * display_hz) {
                ticks += u64::from(p.step_frame(dt).ticks);
            }
            assert_eq!(
                ticks,
                3600 * u64::from(fixed_hz),
                "{display_hz} Hz display, {fixed_hz} Hz ticks"
            );
            assert_eq!(p.clock().simulation_time, 3600.0);
            assert_eq!(p.clock().dropped_time, 0.0);
        }
    }
}

// ----- Cohort and lifecycle ---------------------------------------------------

#[test]
fn the_fixed_cohort_is_selected_at_the_outer_frame_boundary_and_new_objects_get_fixed_update_next_frame()
 {
    let log = new_log();
    let spawner = probe_object(
        &log,
        1,
        0,
        Actions {
            spawn_at_tick: Some((1, ObjectId(50))),
            ..Actions::default()
        },
    );
    let mut p = session(&log, vec![spawner]);
    p.step_frame(3.0 * TICK);
    let events = take(&log);
    // The new body is created by the reconcile of the very tick that spawned it...
    let first_reconcile_added = events.iter().find_map(|e| match e {
        Event::Reconcile { added, .. } if added.contains(&ObjectId(50)) => Some(()),
        _ => None,
    });
    assert!(first_reconcile_added.is_some());
    let reconciles: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Reconcile { .. }))
        .collect();
    assert!(
        matches!(reconciles[0], Event::Reconcile { added, .. } if added.contains(&ObjectId(50)))
    );
    // ...and committed (it has a pose after tick 1), but no hook of it ran in frame 1.
    assert!(p.world().physics_simulation_pose(ObjectId(50)).is_some());
    assert!(hooks(&events).iter().all(|(o, _, _)| *o == 1));
    // Frame 2: Start, then Update, then its FixedUpdate.
    p.step_frame(TICK);
    let calls: Vec<(u64, HookKind, u64)> = hooks(&take(&log))
        .into_iter()
        .filter(|(o, _, _)| *o == 50)
        .collect();
    assert_eq!(
        calls,
        vec![
            (50, HookKind::Start, 3),
            (50, HookKind::Update, 3),
            (50, HookKind::FixedUpdate, 4),
            (50, HookKind::FlowTick, 4),
            (50, HookKind::Present, 4),
        ]
    );
}

#[test]
fn removing_an_object_prevents_subsequent_callbacks_on_the_retired_instance_even_later_in_the_same_tick()
 {
    let log = new_log();
    // Object 1 (priority -10) removes object 2 (priority 10) in FixedUpdate of tick 2.
    // Object 2 also has a contact scheduled in tick 2.
    let killer = probe_object(
        &log,
        1,
        -10,
        Actions {
            remove_at_tick: Some((2, ObjectId(2))),
            ..Actions::default()
        },
    );
    let victim = probe_object(&log, 2, 10, Actions::default());
    let stage =
        StandIn::new(&log).with_contacts(vec![(2, ObjectId(2), ObjectId(3), ContactKind::Started)]);
    let third = probe_object(&log, 3, 0, Actions::default());
    let mut p = session_with(
        &log,
        vec![killer, victim, third],
        TimeSettings::default(),
        stage,
    );
    p.step_frame(3.0 * TICK);
    let fixed_of_2: Vec<u64> = hooks(&take(&log))
        .into_iter()
        .filter(|(o, h, _)| *o == 2 && (*h == HookKind::FixedUpdate || *h == HookKind::Contact))
        .map(|(_, _, t)| t)
        .collect();
    assert_eq!(
        fixed_of_2,
        vec![1],
        "only tick 1's FixedUpdate; none in tick 2 (later priority) or after"
    );
    assert!(p.world().get(ObjectId(2)).is_none());
}

#[test]
fn a_removal_within_one_priority_group_stops_the_removed_objects_call_later_in_the_same_pass() {
    // Five objects at one priority, so the FixedUpdate pass calls them on its
    // fast path (gate flags read before the pass): object 2 removes object 4
    // in tick 2, and object 4 must not be called in that pass.
    let log = new_log();
    let objects = (1..=5)
        .map(|id| {
            let actions = Actions {
                remove_at_tick: (id == 2).then_some((2, ObjectId(4))),
                ..Actions::default()
            };
            probe_object(&log, id, 0, actions)
        })
        .collect();
    let mut p = session(&log, objects);
    p.step_frame(3.0 * TICK);
    let fixed: Vec<(u64, u64)> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(o, _, t)| (t, o))
        .collect();
    let mut expected = vec![(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)];
    expected.extend([(2, 1), (2, 2), (2, 3), (2, 5)]);
    expected.extend([(3, 1), (3, 2), (3, 3), (3, 5)]);
    assert_eq!(fixed, expected, "(tick, object) of every FixedUpdate");
}

#[test]
fn replacing_an_object_retires_the_old_instance() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(TICK);
    take(&log);
    // The world's own rule, as a hook's spawn meets it.
    p.world_mut_for_tests().remove(ObjectId(1));
    let replacement = p
        .world_mut_for_tests()
        .spawn(probe_object(&log, 1, 0, Actions::default()));
    assert_ne!(
        replacement,
        ObjectId(1),
        "a retired id is not reused in the same frame"
    );
    p.step_frame(TICK);
    let objects: Vec<u64> = hooks(&take(&log)).into_iter().map(|(o, _, _)| o).collect();
    assert!(objects.iter().all(|o| *o == replacement.0), "{objects:?}");
    assert!(!objects.is_empty());
}

#[test]
fn disabled_components_retain_their_lifecycle_gate() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 2));
    p.step_frame(TICK);
    take(&log);
    enable(&mut p, ObjectId(2), false);
    p.step_frame(2.0 * TICK);
    assert!(hooks(&take(&log)).iter().all(|(o, _, _)| *o == 1));
    enable(&mut p, ObjectId(2), true);
    p.step_frame(TICK);
    let of_2: Vec<HookKind> = hooks(&take(&log))
        .into_iter()
        .filter(|(o, _, _)| *o == 2)
        .map(|(_, h, _)| h)
        .collect();
    assert_eq!(
        of_2,
        vec![
            HookKind::Update,
            HookKind::FixedUpdate,
            HookKind::FlowTick,
            HookKind::Present
        ]
    );
}

#[test]
fn disabled_components_retain_their_normal_lifecycle_gate_through_a_parent_and_a_child() {
    // Unity's activeInHierarchy: a disabled parent takes its subtree out.
    let log = new_log();
    let parent = probe_object(&log, 1, 0, Actions::default());
    let child = probe_object(&log, 2, 0, Actions::default()).with_parent(ObjectId(1));
    let mut p = session(&log, vec![parent, child]);
    let of = |events: &[Event], id: u64| -> Vec<HookKind> {
        hooks(events)
            .into_iter()
            .filter(|(o, _, _)| *o == id)
            .map(|(_, h, _)| h)
            .collect()
    };
    let frame = [
        HookKind::Update,
        HookKind::FixedUpdate,
        HookKind::FlowTick,
        HookKind::Present,
    ];
    p.step_frame(TICK);
    take(&log);

    // The parent disabled: neither it nor its (still enabled) child gets a call.
    enable(&mut p, ObjectId(1), false);
    p.step_frame(2.0 * TICK);
    assert!(hooks(&take(&log)).is_empty());
    let w = p.world();
    assert!(
        w.get(ObjectId(2)).expect("child").is_enabled(),
        "its own flag stays"
    );
    assert!(!w.is_active_in_hierarchy(ObjectId(2)));

    // A child disabled on its own stays out when the parent comes back.
    enable(&mut p, ObjectId(2), false);
    enable(&mut p, ObjectId(1), true);
    p.step_frame(TICK);
    let events = take(&log);
    assert_eq!(of(&events, 1), frame);
    assert!(of(&events, 2).is_empty());
    enable(&mut p, ObjectId(2), true);
    p.step_frame(TICK);
    let events = take(&log);
    assert_eq!(
        of(&events, 2),
        frame,
        "no second Start: its gate only closed"
    );

    // An object created under a disabled parent waits for it, Start included.
    enable(&mut p, ObjectId(1), false);
    p.apply_edit(&PreparedEdit::spawn(
        probe_object(&log, 3, 0, Actions::default()).with_parent(ObjectId(2)),
    ))
    .expect("id 3 is free");
    let late = ObjectId(3);
    p.step_frame(TICK);
    assert!(hooks(&take(&log)).is_empty());
    enable(&mut p, ObjectId(1), true);
    p.step_frame(TICK);
    let events = take(&log);
    let mut first = vec![HookKind::Start];
    first.extend(frame);
    assert_eq!(of(&events, late.0), first);
}

#[test]
fn fixed_update_sees_the_committed_body_pose_of_the_previous_tick() {
    let log = new_log();
    // Unit mass, force 60 N along x: each tick v += 1 m/s, then x += v/60.
    let mover = probe_object(
        &log,
        1,
        0,
        Actions {
            force: Some(stepframe_core::Vec2::new(60.0, 0.0)),
            ..Actions::default()
        },
    );
    let mut p = session(&log, vec![mover]);
    p.step_frame(3.0 * TICK);
    let xs: Vec<f32> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::FixedUpdate,
                pose,
                ..
            } => pose.map(|p| p.x),
            _ => None,
        })
        .collect();
    // Start at x = 1. After tick 1: v = 1, x = 1 + 1/60. After tick 2: v = 2, x += 2/60.
    let dt = (1.0f64 / 60.0) as f32;
    let x1 = 1.0 + 1.0 * dt;
    let x2 = x1 + 2.0 * dt;
    assert_eq!(xs, vec![1.0, x1, x2]);
}

#[test]
fn physics_simulation_pose_returns_a_copied_committed_world_pose_and_bodyless_children_inherit_their_physics_parent()
 {
    let log = new_log();
    let parent = probe_object(
        &log,
        1,
        0,
        Actions {
            force: Some(stepframe_core::Vec2::new(0.0, 60.0)),
            ..Actions::default()
        },
    );
    let child = ObjectDesc::new("child", Pose::new(2.0, 0.0, 0.5))
        .with_id(ObjectId(2))
        .with_parent(ObjectId(1));
    let mut p = session(&log, vec![parent, child]);
    p.step_frame(TICK);
    let committed = p
        .world()
        .get(ObjectId(1))
        .and_then(|o| o.body.as_ref())
        .map(|b| b.committed);
    let mut copy = p.world().physics_simulation_pose(ObjectId(1));
    assert_eq!(copy, committed);
    if let Some(c) = copy.as_mut() {
        c.x = 1000.0;
    }
    assert_eq!(
        p.world().physics_simulation_pose(ObjectId(1)),
        committed,
        "the read is a copy"
    );
    // Parent at (1, 1/60) with angle 0: the child sits at parent + (2, 0), angle 0.5.
    let parent_pose = committed.expect("parent has a body");
    let child_pose = p
        .world()
        .physics_simulation_pose(ObjectId(2))
        .expect("child exists");
    assert_eq!(
        child_pose,
        Pose::new(parent_pose.x + 2.0, parent_pose.y, 0.5)
    );
}

// ----- Scheduler ------------------------------------------------------------------

#[test]
fn fixed_callbacks_run_in_priority_order_lower_first_and_in_registration_order_within_a_priority() {
    let log = new_log();
    let order = [(1, 0), (2, 100), (3, -1000), (4, 0), (5, -50), (6, 100)];
    let objects = order
        .iter()
        .map(|&(id, prio)| probe_object(&log, id, prio, Actions::default()))
        .collect();
    let mut p = session(&log, objects);
    p.step_frame(2.0 * TICK);
    let fixed: Vec<u64> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(o, _, _)| o)
        .collect();
    assert_eq!(fixed, vec![3, 5, 1, 4, 2, 6, 3, 5, 1, 4, 2, 6]);
    assert!(Priority::from(stepframe_core::NamedPriority::Early) < Priority(-50));
    assert!(Priority(-50) < Priority::DEFAULT);
}

#[test]
fn dropping_a_registration_handle_unregisters() {
    let log = new_log();
    let mut p = session(&log, vec![]);
    let probe = stepframe_tests::Probe {
        log: log.clone(),
        actions: Actions::default(),
    };
    let handle = p.register(Priority::DEFAULT, Box::new(probe));
    assert!(handle.is_valid());
    p.step_frame(TICK);
    assert_eq!(count(&take(&log), HookKind::FixedUpdate), 1);
    drop(handle);
    p.step_frame(TICK);
    assert!(hooks(&take(&log)).is_empty());
}

// ----- Routines -----------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Ticker {
    log: std::sync::Arc<std::sync::Mutex<Vec<(f64, u64)>>>,
    wait: f64,
}

impl stepframe_core::Routine for Ticker {
    fn resume(&mut self, ctx: &mut stepframe_core::Ctx) -> stepframe_core::Wait {
        self.log
            .lock()
            .expect("lock")
            .push((ctx.clock().frame_time, ctx.clock().simulation_tick));
        stepframe_core::Wait::Seconds(self.wait)
    }
}

#[derive(Clone, Debug)]
struct StartsRoutine {
    group: stepframe_core::TimeGroup,
    routine: Ticker,
    started: bool,
}

impl stepframe_core::Behaviour for StartsRoutine {
    fn name(&self) -> &str {
        "StartsRoutine"
    }
    fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
        if !self.started {
            self.started = true;
            ctx.start_routine(self.group, Box::new(self.routine.clone()));
        }
    }
}

/// `(frame_time, simulation_tick)` of every routine slice.
type RoutineLog = std::sync::Arc<std::sync::Mutex<Vec<(f64, u64)>>>;

fn routine_session(group: stepframe_core::TimeGroup) -> (Pipeline, RoutineLog) {
    let rlog = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let b = StartsRoutine {
        group,
        routine: Ticker {
            log: rlog.clone(),
            wait: 0.1,
        },
        started: false,
    };
    let mut world = World::new();
    world
        .spawn(ObjectDesc::new("r", Pose::IDENTITY).with_behaviour(Box::new(b), Priority::DEFAULT));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(stepframe_core::NoPhysics), 1);
    (p, rlog)
}

#[test]
fn timed_routines_use_the_frame_clock_by_default_even_when_started_from_fixed_update() {
    let (mut p, rlog) = routine_session(stepframe_core::TimeGroup::Frame);
    // Time scale 0 after the routine starts: the frame clock stops too, but a
    // 0.05 s frame at scale 1 with a 0.1 s wait resumes every second frame.
    for _ in 0..6 {
        p.step_frame(0.05);
    }
    let frame_times: Vec<f64> = rlog.lock().expect("lock").iter().map(|(f, _)| *f).collect();
    // Started in frame 1's fixed phase; first slice in frame 2's update phase
    // (frame_time 0.1), then every 0.1 s of frame time: 0.2, 0.3.
    let expected: Vec<f64> = [2u64, 4, 6]
        .iter()
        .map(|k| Flicks::from_secs_f64(0.05).0 * k)
        .map(|f| Flicks(f).as_secs_f64())
        .collect();
    assert_eq!(frame_times, expected);
}

#[test]
fn a_fixed_clock_group_exists_for_routines_that_must_wait_in_simulation_time() {
    let (mut p, rlog) = routine_session(stepframe_core::TimeGroup::Fixed);
    for _ in 0..30 {
        p.step_frame(1.0 / 60.0);
    }
    let ticks: Vec<u64> = rlog.lock().expect("lock").iter().map(|(_, t)| *t).collect();
    // Started by FixedUpdate of tick 1: its first slice runs in the fixed routine
    // pass of that same tick (after FixedUpdate), then every 0.1 s = 6 ticks of
    // simulation time, measured from tick starts: ticks 7, 13, 19, 25.
    assert_eq!(ticks, vec![1, 7, 13, 19, 25]);
}

/// `(object, name, frame_time, simulation_tick, phase)` of every named routine slice.
type NamedLog = std::sync::Arc<std::sync::Mutex<Vec<(u64, String, f64, u64, Phase)>>>;

/// Starts a named routine from its first FixedUpdate; the routine runs three
/// times, 0.1 s apart on its object's time group. Its count is behaviour
/// state, so snapshots carry it.
#[derive(Clone, Debug)]
struct Named {
    log: NamedLog,
    started: bool,
    count: u32,
}

impl stepframe_core::Behaviour for Named {
    fn name(&self) -> &str {
        "Named"
    }
    fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
        if !self.started {
            self.started = true;
            ctx.start_named_routine("blink", 0.1);
        }
    }
    fn routine(&mut self, ctx: &mut stepframe_core::Ctx, name: &str) -> stepframe_core::Wait {
        assert_eq!(ctx.hook(), HookKind::Routine);
        let c = ctx.clock();
        self.log.lock().expect("lock").push((
            ctx.me().0,
            name.to_string(),
            c.frame_time,
            c.simulation_tick,
            c.phase,
        ));
        self.count += 1;
        if self.count < 3 {
            stepframe_core::Wait::Seconds(0.1)
        } else {
            stepframe_core::Wait::Done
        }
    }
}

#[test]
fn timed_routines_use_their_objects_time_group_and_come_back_to_the_behaviour_that_started_them() {
    let log: NamedLog = Default::default();
    let named = |id: u64, group: stepframe_core::TimeGroup| {
        let b = Named {
            log: log.clone(),
            started: false,
            count: 0,
        };
        ObjectDesc::new(format!("n{id}"), Pose::IDENTITY)
            .with_id(ObjectId(id))
            .with_time_group(group)
            .with_behaviour(Box::new(b), Priority::DEFAULT)
    };
    let mut world = World::new();
    world.spawn(named(1, stepframe_core::TimeGroup::Frame));
    world.spawn(named(2, stepframe_core::TimeGroup::Fixed));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(stepframe_core::NoPhysics), 1);
    // Frames of 0.05 s run three 60 Hz ticks each. Frame 3 ends at a frame
    // time of 0.15 s; snapshot there, and check the rest replays the same.
    for _ in 0..3 {
        p.step_frame(0.05);
    }
    let snapshot = p.snapshot();
    let at_snapshot = log.lock().expect("lock").len();
    for _ in 0..5 {
        p.step_frame(0.05);
    }
    let first: Vec<_> = log.lock().expect("lock").clone();
    let f = |frames: u64| Flicks(Flicks::from_secs_f64(0.05).0 * frames).as_secs_f64();
    let blink = |object: u64, frame_time: f64, tick: u64, phase: Phase| {
        (object, "blink".to_string(), frame_time, tick, phase)
    };
    // Object 1 (frame clock): started in frame 1's fixed phase at frame time
    // 0.05, due at 0.15, 0.25, 0.35: the update phases of frames 3, 5 and 7
    // (after 6, 12 and 18 ticks). Object 2 (fixed clock): started in tick 1,
    // which starts at 0, due at simulation time 0.1, 0.2, 0.3: the fixed
    // routine passes of ticks 7, 13 and 19 (pending tick, frames 3, 5, 7).
    assert_eq!(
        first,
        [
            blink(1, f(3), 6, Phase::Update),
            blink(2, f(3), 7, Phase::Fixed),
            blink(1, f(5), 12, Phase::Update),
            blink(2, f(5), 13, Phase::Fixed),
            blink(1, f(7), 18, Phase::Update),
            blink(2, f(7), 19, Phase::Fixed),
        ]
    );
    // A restored snapshot carries the routines and the behaviours' counts.
    log.lock().expect("lock").truncate(at_snapshot);
    p.restore(&snapshot);
    for _ in 0..5 {
        p.step_frame(0.05);
    }
    assert_eq!(*log.lock().expect("lock"), first);
}

// ----- Debugger -----------------------------------------------------------------------------

#[test]
fn a_fixed_update_breakpoint_pauses_at_the_end_of_its_current_fixed_tick() {
    let log = new_log();
    let stage =
        StandIn::new(&log).with_contacts(vec![(2, ObjectId(1), ObjectId(2), ContactKind::Started)]);
    let objects = vec![
        probe_object(&log, 1, 0, Actions::default()),
        probe_object(&log, 2, 10, Actions::default()),
    ];
    let mut p = session_with(&log, objects, TimeSettings::default(), stage);
    let mut bp = Breakpoint::on(HookKind::FixedUpdate, ObjectId(1));
    bp.condition = Condition {
        ticks: Some((2, 2)),
        ..Condition::default()
    };
    p.add_breakpoint(bp);
    let r = p.step_frame(4.0 * TICK);
    assert_eq!(r.ticks, 2);
    let s = r.suspended.expect("suspended");
    assert!(s.end_of_tick);
    assert_eq!(s.tick, 2);
    assert!(
        matches!(&s.reason, SuspendReason::Breakpoint(h) if h.object == ObjectId(1) && h.tick == 2)
    );
    let events = take(&log);
    // All fixed callbacks of tick 2 (object 2 runs after the hit) and its physics
    // and contact work finished before the pause.
    let tick2: Vec<String> = events
        .iter()
        .skip_while(|e| !matches!(e, Event::Hook { hook: HookKind::FixedUpdate, clock, .. } if clock.simulation_tick == 2))
        .map(|e| match e {
            Event::Hook { object, hook, .. } => format!("{hook} {}", object.0),
            Event::Reconcile { .. } => "reconcile".into(),
            Event::Step { .. } => "step".into(),
            Event::Commit => "commit".into(),
        })
        .collect();
    assert_eq!(
        tick2,
        vec![
            "FixedUpdate 1",
            "FixedUpdate 2",
            "reconcile",
            "step",
            "commit",
            "Contact 1",
            "Contact 2"
        ]
    );
    // The debugger shows the committed state: the clock describes tick 2.
    assert_eq!(p.clock().simulation_tick, 2);
    assert_eq!(
        p.clock().simulation_time,
        Flicks(2 * 11_760_000).as_secs_f64()
    );
}

#[test]
fn remaining_catch_up_time_stays_in_the_accumulator_and_resume_consumes_it_without_replaying_callbacks()
 {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    let mut bp = Breakpoint::on_hook(HookKind::FixedUpdate);
    bp.condition.ticks = Some((1, 1));
    p.add_breakpoint(bp);
    p.step_frame(3.25 * TICK);
    assert_eq!(p.clock().simulation_tick, 1);
    // Two owed ticks and a quarter wait in the accumulator.
    assert_eq!(
        p.stepper().accumulator(),
        Flicks(2 * 11_760_000 + 2_940_000)
    );
    take(&log);
    let r = p.resume();
    assert_eq!((r.kind, r.ticks), (FrameKind::Continuation, 2));
    let fixed_ticks: Vec<u64> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(_, _, t)| t)
        .collect();
    assert_eq!(fixed_ticks, vec![2, 3], "tick 1 is not replayed");
    assert_eq!(p.stepper().accumulator(), Flicks(2_940_000));
}

#[test]
fn the_remainder_of_the_interrupted_outer_frame_including_flow_tick_and_presentation_is_skipped() {
    // A FixedUpdate breakpoint and a contact breakpoint, both in tick 1 of a
    // frame owing two ticks.
    for hook in [HookKind::FixedUpdate, HookKind::Contact] {
        let log = new_log();
        let stage = StandIn::new(&log).with_contacts(vec![(
            1,
            ObjectId(1),
            ObjectId(2),
            ContactKind::Started,
        )]);
        let mut p = session_with(&log, probes(&log, 2), TimeSettings::default(), stage);
        p.add_breakpoint(Breakpoint {
            condition: Condition {
                ticks: Some((1, 1)),
                ..Condition::default()
            },
            ..Breakpoint::on(hook, ObjectId(1))
        });
        let r = p.step_frame(2.0 * TICK);
        assert_eq!(r.ticks, 1, "{hook}");
        assert!(r.suspended.expect("suspended").end_of_tick, "{hook}");
        let r = p.resume();
        assert_eq!((r.kind, r.ticks), (FrameKind::Continuation, 1), "{hook}");
        let events = take(&log);
        assert_eq!(
            count(&events, HookKind::FlowTick),
            0,
            "{hook}: the interrupted frame runs no Flow Tick, neither before nor after resume"
        );
        assert_eq!(
            count(&events, HookKind::Present),
            0,
            "{hook}: the interrupted frame presents nothing"
        );
        // The next frame is a whole frame again.
        p.step_frame(TICK);
        let events = take(&log);
        assert_eq!(
            (
                count(&events, HookKind::Update),
                count(&events, HookKind::FlowTick),
                count(&events, HookKind::Present)
            ),
            (2, 2, 2),
            "{hook}"
        );
    }
}

#[test]
fn flow_tick_runs_after_the_fixed_phase_once_per_frame_on_the_frame_clock() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(2.0 * TICK);
    let events = take(&log);
    let order: Vec<String> = events
        .iter()
        .map(|e| match e {
            Event::Hook { hook, clock, .. } => format!("{hook} t{}", clock.simulation_tick),
            Event::Reconcile { .. } => "reconcile".into(),
            Event::Step { .. } => "step".into(),
            Event::Commit => "commit".into(),
        })
        .collect();
    assert_eq!(
        order,
        [
            "Start t0",
            "Update t0",
            "FixedUpdate t1",
            "reconcile",
            "step",
            "commit",
            "FixedUpdate t2",
            "reconcile",
            "step",
            "commit",
            "FlowTick t2",
            "Present t2",
        ]
    );
    // Flow Tick keeps the frame clock: the frame's clamped delta, ticks
    // completed, the update phase.
    let flow = events
        .iter()
        .find_map(|e| match e {
            Event::Hook {
                hook: HookKind::FlowTick,
                clock,
                ..
            } => Some(*clock),
            _ => None,
        })
        .expect("Flow Tick ran");
    assert_eq!(flow.delta_time, Flicks(2 * 11_760_000).as_secs_f64());
    assert_eq!(flow.phase, Phase::Update);
    assert_eq!(flow.simulation_time, Flicks(2 * 11_760_000).as_secs_f64());
}

/// The `interpolation_alpha` each hook kind saw, by frame, from the probe log.
fn alpha_seen(events: &[Event], kind: HookKind) -> Vec<f64> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Hook { hook, clock, .. } if *hook == kind => Some(clock.interpolation_alpha),
            _ => None,
        })
        .collect()
}

#[test]
fn flow_tick_reads_the_alpha_of_the_fixed_phase_it_follows() {
    // 60 Hz ticks are 11,760,000 flicks. Each frame's alpha is what the
    // accumulator holds once the fixed phase has drained it, over that:
    // - 30 Hz (23,520,000 a frame) and 60 Hz (11,760,000): whole ticks, 0;
    // - 144 Hz (4,900,000): 4.9, 9.8, then 14.7 - 11.76 = 2.94, 7.84,
    //   12.74 - 11.76 = 0.98 (millions of flicks);
    // - irregular, 7, 40, 3 and 25 ms (4,939,200, 28,224,000, 2,116,800 and
    //   17,640,000): 4,939,200; 33,163,200 - 2 ticks = 9,643,200;
    //   11,760,000 - 1 tick = 0; 17,640,000 - 1 tick = 5,880,000.
    let tick = 11_760_000.0;
    let pacings: [(&str, Vec<f64>, Vec<f64>); 4] = [
        ("30 Hz", vec![1.0 / 30.0; 3], vec![0.0; 3]),
        ("60 Hz", vec![TICK; 3], vec![0.0; 3]),
        (
            "144 Hz",
            vec![1.0 / 144.0; 5],
            vec![
                4_900_000.0 / tick,
                9_800_000.0 / tick,
                2_940_000.0 / tick,
                7_840_000.0 / tick,
                980_000.0 / tick,
            ],
        ),
        (
            "irregular",
            vec![0.007, 0.040, 0.003, 0.025],
            vec![
                4_939_200.0 / tick,
                9_643_200.0 / tick,
                0.0,
                5_880_000.0 / tick,
            ],
        ),
    ];
    for (name, frames, expected) in pacings {
        let log = new_log();
        let mut p = session(&log, probes(&log, 1));
        let mut telemetry = Vec::new();
        for dt in &frames {
            let report = p.step_frame(*dt);
            telemetry
                .push(stepframe_core::FrameRecord::new(&report, p.clock()).interpolation_alpha);
        }
        let events = take(&log);
        let flow = alpha_seen(&events, HookKind::FlowTick);
        let present = alpha_seen(&events, HookKind::Present);
        assert_eq!(
            flow, expected,
            "{name}: Flow Tick reads accumulator / fixed dt"
        );
        assert_eq!(present, flow, "{name}: presentation reads the same alpha");
        let flow_f32: Vec<f32> = flow.iter().map(|&a| a as f32).collect();
        assert_eq!(telemetry, flow_f32, "{name}: so does the frame's telemetry");
    }
}

#[test]
fn a_flow_tick_breakpoint_still_suspends_before_its_hook() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 2));
    let bp = p.add_breakpoint(Breakpoint::on(HookKind::FlowTick, ObjectId(2)));
    let r = p.step_frame(2.0 * TICK);
    let s = r.suspended.expect("suspended");
    assert!(!s.end_of_tick, "before the hook, not at the end of a tick");
    assert!(matches!(&s.reason, SuspendReason::Breakpoint(h) if h.hook == HookKind::FlowTick));
    assert_eq!(r.ticks, 2, "the fixed phase ran first");
    let calls: Vec<(u64, HookKind)> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| matches!(h, HookKind::FlowTick | HookKind::Present))
        .map(|(o, h, _)| (o, h))
        .collect();
    assert_eq!(
        calls,
        [(1, HookKind::FlowTick)],
        "object 2's Flow Tick is pending"
    );
    p.remove_breakpoint(bp);

    // Resume runs the pending Flow Tick once, then presents; no tick runs again.
    let r = p.resume();
    assert_eq!((r.kind, r.ticks), (FrameKind::Continuation, 0));
    let calls: Vec<(u64, HookKind)> = hooks(&take(&log))
        .into_iter()
        .map(|(o, h, _)| (o, h))
        .collect();
    assert_eq!(
        calls,
        [
            (2, HookKind::FlowTick),
            (1, HookKind::Present),
            (2, HookKind::Present)
        ]
    );
    assert!(p.suspension().is_none());
}

#[test]
fn step_tick_and_step_frame_from_a_flow_tick_suspension_finish_the_frame_first() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    let bp = p.add_breakpoint(Breakpoint::on(HookKind::FlowTick, ObjectId(1)));
    p.step_frame(TICK * 1.5);
    assert!(p.suspension().is_some());
    p.remove_breakpoint(bp);
    take(&log);
    // Step tick: the frame's ticks are done, so Flow Tick and presentation
    // finish it, then one lone tick runs (the half tick stays untouched).
    let r = p.step_tick();
    assert_eq!((r.kind, r.ticks), (FrameKind::Continuation, 1));
    assert!(matches!(
        r.suspended.as_ref().map(|s| &s.reason),
        Some(SuspendReason::StepTick)
    ));
    let calls: Vec<(HookKind, u64)> = hooks(&take(&log))
        .into_iter()
        .map(|(_, h, t)| (h, t))
        .collect();
    assert_eq!(
        calls,
        [
            (HookKind::FlowTick, 1),
            (HookKind::Present, 1),
            (HookKind::FixedUpdate, 2)
        ]
    );
    assert_eq!(p.stepper().accumulator(), Flicks(5_880_000));

    // Step frame from a Flow Tick suspension: the rest of that frame, then stop.
    p.resume();
    let bp = p.add_breakpoint(Breakpoint::on(HookKind::FlowTick, ObjectId(1)));
    p.step_frame(TICK);
    p.remove_breakpoint(bp);
    take(&log);
    let r = p.step_one_frame(TICK);
    assert_eq!((r.kind, r.ticks), (FrameKind::Continuation, 0));
    assert!(matches!(
        r.suspended.as_ref().map(|s| &s.reason),
        Some(SuspendReason::StepFrame)
    ));
    let calls: Vec<HookKind> = hooks(&take(&log)).into_iter().map(|(_, h, _)| h).collect();
    assert_eq!(calls, [HookKind::FlowTick, HookKind::Present]);
}

#[test]
fn while_suspended_interpolation_alpha_is_the_accumulator_over_fixed_dt_of_the_state_it_stopped_in()
{
    let alpha_of = |p: &Pipeline, r: &stepframe_core::FrameReport| {
        let record = stepframe_core::FrameRecord::new(r, p.clock());
        (
            p.clock().interpolation_alpha,
            f64::from(record.interpolation_alpha),
        )
    };
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    // Frame 1: 3.25 ticks owed, a FixedUpdate breakpoint at tick 1: two ticks
    // and a quarter still wait (2.25 ticks of accumulator).
    let bp = p.add_breakpoint(Breakpoint {
        condition: Condition {
            ticks: Some((1, 1)),
            ..Condition::default()
        },
        ..Breakpoint::on_hook(HookKind::FixedUpdate)
    });
    let r = p.step_frame(3.25 * TICK);
    assert_eq!(
        p.clock().accumulator,
        Flicks(2 * 11_760_000 + 2_940_000).as_secs_f64()
    );
    assert_eq!(alpha_of(&p, &r), (2.25, 2.25));
    // Resume runs the two owed ticks and skips the presentation: a quarter
    // tick is left, and the clock says so even though nothing presented.
    p.remove_breakpoint(bp);
    let r = p.resume();
    assert_eq!(alpha_of(&p, &r), (0.25, 0.25));
    // Frame 2: 0.5 tick more (0.75 in all, no tick), stopped before Update.
    let bp = p.add_breakpoint(Breakpoint::on_hook(HookKind::Update));
    let r = p.step_frame(0.5 * TICK);
    assert_eq!(
        alpha_of(&p, &r),
        (0.25, 0.25),
        "before the fixed phase added its delta"
    );
    p.remove_breakpoint(bp);
    // Stopped before Flow Tick, after the fixed phase: 0.75 ticks wait.
    let bp = p.add_breakpoint(Breakpoint::on_hook(HookKind::FlowTick));
    let r = p.resume();
    assert_eq!(alpha_of(&p, &r), (0.75, 0.75));
    p.remove_breakpoint(bp);
    let r = p.resume();
    assert_eq!(alpha_of(&p, &r), (0.75, 0.75), "presentation agrees");
}

/// Takes 40 ms in its Flow Tick, on the session's manual wall clock: time
/// that must land in `flow_ms`.
#[derive(Clone, Debug)]
struct SlowFlow(stepframe_core::ManualTime);

impl stepframe_core::Behaviour for SlowFlow {
    fn name(&self) -> &str {
        "SlowFlow"
    }
    fn flow_tick(&mut self, _ctx: &mut stepframe_core::Ctx, _dt: f64) {
        self.0.advance(std::time::Duration::from_millis(40));
    }
}

#[test]
fn flow_tick_wall_time_is_its_own_phase_and_not_part_of_the_update_phase() {
    // Wall time comes from a manual clock that only the Flow Tick moves, so
    // the split is checked exactly, on any machine, without sleeping.
    let time = stepframe_core::ManualTime::new();
    let mut world = World::new();
    world.spawn(
        ObjectDesc::new("slow", Pose::IDENTITY)
            .with_behaviour(Box::new(SlowFlow(time.clone())), Priority::DEFAULT),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_wall_clock(time.clock());
    p.load_session(world, Box::new(stepframe_core::NoPhysics), 1);
    let r = p.step_frame(TICK);
    assert!((r.timing.flow_ms - 40.0).abs() < 1e-9, "{:?}", r.timing);
    assert_eq!(r.timing.update_ms, 0.0, "{:?}", r.timing);
    assert_eq!(r.timing.fixed_ms, 0.0, "{:?}", r.timing);
    assert_eq!(r.timing.present_ms, 0.0, "{:?}", r.timing);
    let record = stepframe_core::FrameRecord::new(&r, p.clock());
    assert_eq!((record.flow_ms, record.update_ms), (40.0, 0.0));
    assert_eq!(record.total_ms(), 40.0);
}

#[test]
fn a_fixed_contact_hook_breakpoint_pauses_at_the_end_of_its_tick() {
    let log = new_log();
    let stage =
        StandIn::new(&log).with_contacts(vec![(1, ObjectId(1), ObjectId(2), ContactKind::Started)]);
    let mut p = session_with(&log, probes(&log, 2), TimeSettings::default(), stage);
    p.add_breakpoint(Breakpoint::on(HookKind::Contact, ObjectId(1)));
    let r = p.step_frame(2.0 * TICK);
    assert_eq!(r.ticks, 1);
    let events = take(&log);
    assert_eq!(
        count(&events, HookKind::Contact),
        2,
        "both sides' contact callbacks finished"
    );
    // The tick's commit came before its contact hooks, and the suspension
    // after both (nothing of tick 2 ran).
    let n = events.len();
    assert!(matches!(events[n - 3], Event::Commit));
    assert!(events[n - 2..].iter().all(
        |e| matches!(e, Event::Hook { hook: HookKind::Contact, clock, .. } if clock.simulation_tick == 1)
    ));
    assert!(r.suspended.expect("suspended").end_of_tick);
}

#[test]
fn start_and_update_breakpoints_retain_their_before_hook_suspension() {
    for hook in [HookKind::Start, HookKind::Update] {
        let log = new_log();
        let mut p = session(&log, probes(&log, 2));
        p.add_breakpoint(Breakpoint::on(hook, ObjectId(2)));
        let r = p.step_frame(TICK);
        let s = r.suspended.expect("suspended");
        assert!(!s.end_of_tick);
        let before: Vec<(u64, HookKind)> = hooks(&take(&log))
            .into_iter()
            .map(|(o, h, _)| (o, h))
            .collect();
        assert!(
            !before.contains(&(2, hook)),
            "{hook}: the hook has not run: {before:?}"
        );
        assert_eq!(r.ticks, 0, "nothing of the fixed phase ran");
        p.remove_breakpoint(BreakpointId(1));
        p.resume();
        let after: Vec<(u64, HookKind)> = hooks(&take(&log))
            .into_iter()
            .map(|(o, h, _)| (o, h))
            .collect();
        assert_eq!(
            after.iter().filter(|c| **c == (2, hook)).count(),
            1,
            "{hook} runs once on resume"
        );
        assert_eq!(
            after
                .iter()
                .filter(|(_, h)| *h == HookKind::FixedUpdate)
                .count(),
            2
        );
        assert_eq!(
            after
                .iter()
                .filter(|(_, h)| *h == HookKind::Present)
                .count(),
            2,
            "a frame suspended before a hook presents normally"
        );
    }
}

#[test]
fn breakpoints_filter_by_hook_object_priority_clock_condition_and_hit_count() {
    let log = new_log();
    let objects = vec![
        probe_object(&log, 1, 0, Actions::default()),
        probe_object(&log, 2, 100, Actions::default()),
    ];
    let mut p = session(&log, objects);
    p.add_breakpoint(Breakpoint {
        enabled: true,
        hook: Some(HookKind::FixedUpdate),
        priority: Some(Priority(100)),
        condition: Condition {
            every_ticks: Some(2),
            ..Condition::default()
        },
        hit_count: HitCount::Equals(3),
        ..Breakpoint::default()
    });
    // Matches at ticks 2, 4, 6: the third match (tick 6) suspends.
    let mut suspended_at = None;
    for _ in 0..10 {
        let r = p.step_frame(TICK);
        if let Some(s) = r.suspended {
            suspended_at = Some(s);
            break;
        }
    }
    let s = suspended_at.expect("suspends");
    assert_eq!(s.tick, 6);
    assert!(
        matches!(&s.reason, SuspendReason::Breakpoint(h) if h.object == ObjectId(2) && h.priority == Priority(100))
    );
    assert_eq!(p.debugger().breakpoints()[0].matches, 3);
}

#[test]
fn code_can_request_a_break_which_takes_effect_at_the_end_of_the_fixed_tick() {
    let log = new_log();
    let objects = vec![
        probe_object(
            &log,
            1,
            0,
            Actions {
                break_at_tick: Some(2),
                ..Actions::default()
            },
        ),
        probe_object(&log, 2, 5, Actions::default()),
    ];
    let mut p = session(&log, objects);
    let r = p.step_frame(4.0 * TICK);
    assert_eq!(r.ticks, 2);
    assert!(matches!(
        r.suspended.map(|s| s.reason),
        Some(SuspendReason::Requested {
            object: ObjectId(1),
            ..
        })
    ));
    let fixed2 = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, t)| *h == HookKind::FixedUpdate && *t == 2)
        .count();
    assert_eq!(fixed2, 2);
}

#[test]
fn step_tick_runs_exactly_one_fixed_tick_then_suspends() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(TICK * 1.5);
    p.pause();
    let frame = *p.clock();
    take(&log);
    // Between frames: a lone tick, no update phase, frame clock unchanged.
    let r = p.step_tick();
    assert_eq!((r.kind, r.ticks), (FrameKind::LoneTick, 1));
    assert!(matches!(
        r.suspended.as_ref().map(|s| &s.reason),
        Some(SuspendReason::StepTick)
    ));
    assert_eq!(p.clock().simulation_tick, 2);
    assert_eq!(
        (p.clock().frame_index, p.clock().frame_time),
        (frame.frame_index, frame.frame_time)
    );
    assert_eq!(
        p.stepper().accumulator(),
        Flicks(5_880_000),
        "the half tick is untouched"
    );
    let calls: Vec<HookKind> = hooks(&take(&log)).into_iter().map(|(_, h, _)| h).collect();
    assert_eq!(calls, vec![HookKind::FixedUpdate]);
    // While suspended, frames do not run.
    assert_eq!(p.step_frame(TICK).kind, FrameKind::NotRun);
    // Mid-frame with owed ticks: step consumes the next owed tick, no time added.
    p.resume();
    p.add_breakpoint(Breakpoint::on_hook(HookKind::FixedUpdate));
    p.step_frame(3.0 * TICK);
    assert_eq!(p.clock().simulation_tick, 3);
    let owed_before = p.stepper().owed();
    p.remove_breakpoint(BreakpointId(1));
    let r = p.step_tick();
    assert_eq!(
        (r.kind, r.ticks, p.stepper().owed()),
        (FrameKind::Continuation, 1, owed_before - 1)
    );
    assert_eq!(p.clock().simulation_tick, 4);
}

#[test]
fn step_one_frame_runs_one_outer_frame_then_suspends() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.pause();
    let r = p.step_one_frame(2.0 * TICK);
    assert_eq!((r.kind, r.ticks), (FrameKind::Frame, 2));
    assert!(matches!(
        r.suspended.map(|s| s.reason),
        Some(SuspendReason::StepFrame)
    ));
    let events = take(&log);
    assert_eq!(
        (
            count(&events, HookKind::Update),
            count(&events, HookKind::Present)
        ),
        (1, 1)
    );
    assert_eq!(p.step_frame(TICK).kind, FrameKind::NotRun);
}

/// Tick-stamped input: `jump` pressed at tick 3, released at tick 5, pressed at 9.
#[derive(Debug)]
struct Stamped;

impl TickInputSource for Stamped {
    fn events_for_tick(&self, tick: u64, out: &mut Vec<InputEvent>) {
        match tick {
            3 | 9 => out.push(space(true)),
            5 => out.push(space(false)),
            _ => {}
        }
    }
}

/// What a FixedUpdate call saw: object, tick, time, pose, edges, held ms.
type FixedInput = (u64, u64, f64, Option<Pose>, Vec<String>, f64);

fn fixed_inputs(events: &[Event]) -> Vec<FixedInput> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Hook {
                object,
                hook: HookKind::FixedUpdate,
                clock,
                pose,
                edges,
                held_ms,
                ..
            } => Some((
                object.0,
                clock.simulation_tick,
                clock.simulation_time,
                *pose,
                edges.clone(),
                *held_ms,
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn pausing_stepping_tick_by_tick_and_resuming_never_changes_the_fixed_tick_sequence_or_callback_inputs()
 {
    let dts = [
        TICK,
        2.5 * TICK,
        0.3 * TICK,
        4.0 * TICK,
        TICK,
        0.9 * TICK,
        3.0 * TICK,
        TICK,
        TICK,
        2.0 * TICK,
    ];
    let build = |log: &Log| {
        let objects = vec![
            probe_object(
                log,
                1,
                0,
                Actions {
                    force: Some(stepframe_core::Vec2::new(30.0, 0.0)),
                    ..Actions::default()
                },
            ),
            probe_object(log, 2, 10, Actions::default()),
        ];
        let mut p = session(log, objects);
        p.set_tick_input(Some(Box::new(Stamped)));
        p
    };
    let log_a = new_log();
    let mut a = build(&log_a);
    for dt in dts {
        a.step_frame(dt);
    }
    let reference = fixed_inputs(&take(&log_a));

    let log_b = new_log();
    let mut b = build(&log_b);
    let bp = b.add_breakpoint(Breakpoint {
        condition: Condition {
            ticks: Some((3, 3)),
            ..Condition::default()
        },
        ..Breakpoint::on(HookKind::FixedUpdate, ObjectId(2))
    });
    let mut dts_left = dts.iter();
    while b.suspension().is_none() {
        b.step_frame(*dts_left.next().expect("breakpoint hits"));
    }
    b.remove_breakpoint(bp);
    for _ in 0..4 {
        b.step_tick();
    }
    b.pause();
    b.resume();
    for dt in dts_left {
        b.step_frame(*dt);
    }
    let stepped = fixed_inputs(&take(&log_b));
    let common = reference.len().min(stepped.len());
    assert!(common >= 2 * 14, "both runs cover at least 14 ticks");
    assert_eq!(&stepped[..common], &reference[..common]);
    // The edges really were exercised: tick 3 saw the press, tick 5 the release.
    assert!(
        reference
            .iter()
            .any(|r| r.1 == 3 && r.4 == vec!["jump+".to_string()])
    );
    assert!(
        reference
            .iter()
            .any(|r| r.1 == 5 && r.4 == vec!["jump-".to_string()] && r.5 == 0.0)
    );
}

// ----- Faults ---------------------------------------------------------------------

#[derive(Clone, Debug)]
struct PanicsAt(u64);

impl stepframe_core::Behaviour for PanicsAt {
    fn name(&self) -> &str {
        "PanicsAt"
    }
    fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.0 {
            panic!("boom at {}", self.0);
        }
    }
}

#[test]
fn a_panicking_fixed_update_is_caught_and_the_tick_completes_for_every_other_object() {
    let log = new_log();
    let objects = vec![
        probe_object(&log, 1, -10, Actions::default()),
        ObjectDesc::new("faulty", Pose::IDENTITY)
            .with_id(ObjectId(2))
            .with_behaviour(Box::new(PanicsAt(2)), Priority::DEFAULT),
        probe_object(&log, 3, 10, Actions::default()),
    ];
    let mut p = session(&log, objects);
    let r = p.step_frame(3.0 * TICK);
    assert_eq!(r.ticks, 3, "the session keeps running");
    let fixed: Vec<(u64, u64)> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(o, _, t)| (o, t))
        .collect();
    assert_eq!(fixed, vec![(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)]);
    let errors: Vec<_> = p
        .drain_log()
        .into_iter()
        .filter(|e| e.level == stepframe_core::LogLevel::Error)
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "reported once; the behaviour is disabled after"
    );
    let e = &errors[0];
    assert_eq!(
        (e.object, e.hook, e.tick),
        (Some(ObjectId(2)), Some(HookKind::FixedUpdate), 2)
    );
    assert!(e.message.contains("boom at 2"), "{}", e.message);
}

#[test]
fn a_new_session_starts_with_its_own_settings_even_before_its_first_frame() {
    let mut p = Pipeline::new(TimeSettings::default());
    p.step_frame(TICK);
    p.set_settings(TimeSettings {
        fixed_hz: 50,
        ..TimeSettings::default()
    })
    .expect("valid settings");
    p.load_session(World::new(), Box::new(stepframe_core::NoPhysics), 1);
    assert_eq!(p.clock().fixed_delta_time, Flicks(14_112_000).as_secs_f64());
    p.pause();
    p.step_tick();
    assert_eq!(
        p.clock().simulation_time,
        Flicks(14_112_000).as_secs_f64(),
        "one 50 Hz tick"
    );
}

// ----- Simulation time belongs to its physics world --------------------------

/// The pending tick and its start time, as every FixedUpdate of `events` saw them.
fn fixed_clocks(events: &[Event]) -> Vec<(u64, f64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::FixedUpdate,
                clock,
                ..
            } => Some((clock.simulation_tick, clock.simulation_time)),
            _ => None,
        })
        .collect()
}

#[test]
fn simulation_time_restarts_only_with_its_physics_world() {
    // 60 Hz is 11,760,000 flicks a tick and 50 Hz 14,112,000 (705,600,000 a
    // second), so every sum below is exact and checkable by hand.
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    for _ in 0..600 {
        p.step_frame(TICK);
    }
    assert_eq!(p.clock().simulation_tick, 600);
    assert_eq!(p.clock().simulation_time, 10.0);
    take(&log);

    // A fixed-rate change mid-run: the tick counter goes on, and the time is
    // 600 ticks of 1/60 s plus every tick of 1/50 s since.
    let fifty = TimeSettings {
        fixed_hz: 50,
        ..TimeSettings::default()
    };
    p.set_settings(fifty).expect("valid settings");
    p.drain_log();
    let report = p.step_frame(0.02);
    assert_eq!(fixed_clocks(&take(&log)), vec![(601, 10.0)]);
    // The change is marked in the frame's report and logged.
    let change = report.clock_change.expect("the frame reports the change");
    assert_eq!((change.after_tick, change.fixed_hz), (600, (60, 50)));
    let lines: Vec<String> = p.drain_log().into_iter().map(|e| e.message).collect();
    assert_eq!(lines, vec!["fixed rate 60 → 50 Hz at tick 600".to_string()]);
    assert_eq!(p.clock().simulation_tick, 601);
    assert_eq!(p.clock().simulation_time, 10.02);
    for _ in 0..49 {
        p.step_frame(0.02);
    }
    assert_eq!(p.clock().simulation_tick, 650);
    assert_eq!(p.clock().simulation_time, 11.0);
    assert_eq!(p.clock().fixed_delta_time, 0.02);

    // A strategy change (and back to 60 Hz) keeps counting too.
    p.set_settings(TimeSettings {
        strategy: StepStrategy::StepCounting,
        ..TimeSettings::default()
    })
    .expect("valid settings");
    take(&log);
    for _ in 0..60 {
        p.step_frame(TICK);
    }
    let seen = fixed_clocks(&take(&log));
    assert_eq!(seen.first(), Some(&(651, 11.0)));
    assert_eq!(seen.len(), 60);
    assert_eq!(p.clock().simulation_tick, 710);
    assert_eq!(p.clock().simulation_time, 12.0);
    assert_eq!(p.stepper().simulation_time(), Flicks(12 * 705_600_000));

    // A new physics world is the one thing that restarts it; frame time and
    // the frame index go on.
    let frames = p.clock().frame_index;
    let mut world = World::new();
    world.spawn(probe_object(&log, 1, 0, Actions::default()));
    p.load_session(world, Box::new(StandIn::new(&log)), 7);
    assert_eq!(p.clock().simulation_tick, 0);
    assert_eq!(p.clock().simulation_time, 0.0);
    assert_eq!(p.clock().frame_index, frames);
    take(&log);
    p.step_frame(TICK);
    assert_eq!(fixed_clocks(&take(&log)), vec![(1, 0.0)]);
}
