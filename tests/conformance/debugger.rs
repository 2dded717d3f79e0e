//! Debugger.

use super::*;

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
