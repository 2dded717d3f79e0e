//! The outer frame.

use super::*;

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
