//! Clock breakpoints stop at the frame (or tick) the pacing says, worked out
//! here by hand from the deltas: at 60 Hz one tick is 11,760,000 flicks, and
//! every delta below is a whole number of flicks, so tick counts and alphas
//! are exact. The timing rules read a manual wall clock that only the slow
//! stand-ins move, so they are exact too, and nothing sleeps.

use std::time::Duration;

use stepframe_core::{
    Behaviour, ClockBreakpoint, ClockRule, ClockRuleError, ContactEvent, Ctx, FrameKind, HitCount,
    ManualTime, NoPhysics, ObjectDesc, PhysicsStage, Pipeline, Pose, Priority, SuspendReason,
    Suspension, TimeSettings, World,
};

/// A pipeline with one object and no physics, at 60 Hz with a 4-step cap.
fn pipeline() -> Pipeline {
    let mut p = Pipeline::new(TimeSettings::default());
    let mut w = World::new();
    w.spawn(ObjectDesc::new("thing", Pose::default()));
    p.load_session(w, Box::new(NoPhysics), 1);
    p
}

/// Runs frames of `dts` until one suspends; its 1-based frame and suspension.
fn run_until_suspended(p: &mut Pipeline, dts: &[f64]) -> Option<(usize, Suspension)> {
    for (i, &dt) in dts.iter().enumerate() {
        let report = p.step_frame(dt);
        if let Some(s) = report.suspended {
            return Some((i + 1, s));
        }
    }
    None
}

fn clock_hit(s: &Suspension) -> &stepframe_core::ClockHit {
    match &s.reason {
        SuspendReason::Clock(hit) => hit,
        other => panic!("not a clock breakpoint: {other}"),
    }
}

const TICK: f64 = 1.0 / 60.0;

#[test]
fn a_frame_that_ran_two_ticks_stops_at_its_end_with_its_presentation_done() {
    // Five frames of one tick each, then a 1/30 s frame: two ticks (6 and 7).
    let mut p = pipeline();
    p.add_clock_breakpoint(ClockBreakpoint::on(ClockRule::TicksAtLeast(2)))
        .expect("a valid rule");
    let mut dts = vec![TICK; 5];
    dts.extend([2.0 * TICK, TICK, TICK]);
    let (frame, s) = run_until_suspended(&mut p, &dts).expect("it stops");
    assert_eq!(frame, 6);
    assert_eq!((s.frame, s.tick), (6, 7));
    assert!(!s.end_of_tick, "a frame rule stops between frames");
    assert_eq!(clock_hit(&s).value, 2.0);
    // Suspended between frames: nothing runs until resume, then frames go on.
    assert_eq!(p.step_frame(TICK).kind, FrameKind::NotRun);
    p.resume();
    let next = p.step_frame(TICK);
    assert_eq!((next.frame_index, next.ticks), (7, 1));
    assert!(next.suspended.is_none());
}

#[test]
fn a_frame_that_dropped_time_stops_at_its_end() {
    // Three one-tick frames, then 0.1 s: six ticks owed, four run (the cap),
    // two ticks' worth dropped.
    let mut p = pipeline();
    p.add_clock_breakpoint(ClockBreakpoint::on(ClockRule::DroppedTime))
        .expect("a valid rule");
    let (frame, s) = run_until_suspended(&mut p, &[TICK, TICK, TICK, 0.1, TICK]).expect("stops");
    assert_eq!(frame, 4);
    assert_eq!((s.frame, s.tick), (4, 7));
    let dropped_ms = clock_hit(&s).value;
    assert!((dropped_ms - 2000.0 / 60.0).abs() < 1e-6, "{dropped_ms}");
}

#[test]
fn a_frame_whose_delta_exceeds_the_limit_stops_at_its_end() {
    let mut p = pipeline();
    p.add_clock_breakpoint(ClockBreakpoint::on(ClockRule::DeltaAbove { ms: 20.0 }))
        .expect("a valid rule");
    // 20 ms exactly is not above 20 ms; 25 ms at frame 5 is.
    let (frame, s) =
        run_until_suspended(&mut p, &[TICK, TICK, 0.020, TICK, 0.025, TICK]).expect("it stops");
    assert_eq!(frame, 5);
    assert_eq!(s.frame, 5);
    assert!((clock_hit(&s).value - 25.0).abs() < 1e-9);
}

#[test]
fn alpha_crossing_a_threshold_counts_both_ways_and_honours_the_hit_count() {
    // 144 Hz frames at 60 Hz ticks: after frame n, alpha = frac(5n/12):
    // 0.4167, 0.8333 (crosses 0.5 upward: match 1), 0.25 (downward: match 2).
    let mut p = pipeline();
    let mut b = ClockBreakpoint::on(ClockRule::AlphaCrosses { threshold: 0.5 });
    b.hit_count = HitCount::Equals(2);
    p.add_clock_breakpoint(b).expect("a valid rule");
    let (frame, s) = run_until_suspended(&mut p, &[1.0 / 144.0; 6]).expect("it stops");
    assert_eq!(frame, 3);
    assert!((clock_hit(&s).value - 0.25).abs() < 1e-12);
    let bp = &p.debugger().clock_breakpoints()[0];
    assert_eq!(bp.matches, 2);
}

#[test]
fn a_tick_range_condition_keeps_earlier_matches_from_counting() {
    // Every frame of 1/30 s runs two ticks; only frames ending at tick 10 or
    // later may match: frame 5 (ticks 9, 10).
    let mut p = pipeline();
    let mut b = ClockBreakpoint::on(ClockRule::TicksAtLeast(2));
    b.condition.ticks = Some((10, u64::MAX));
    p.add_clock_breakpoint(b).expect("a valid rule");
    let (frame, s) = run_until_suspended(&mut p, &[2.0 * TICK; 8]).expect("it stops");
    assert_eq!((frame, s.tick), (5, 10));
}

#[test]
fn rules_that_could_never_hold_are_refused_when_added() {
    let mut p = pipeline();
    let err = p
        .add_clock_breakpoint(ClockBreakpoint::on(ClockRule::AlphaCrosses {
            threshold: 2.0,
        }))
        .expect_err("alpha never reaches 2 after a presented frame");
    assert_eq!(err, ClockRuleError::AlphaThreshold(2.0));
    assert!(err.to_string().contains("0..=1"), "{err}");
    assert!(p.debugger().clock_breakpoints().is_empty());
}

/// A physics stage that takes `ms` of the session's manual wall time in its
/// `slow_step`-th step (every other step takes none).
#[derive(Clone, Debug)]
struct SlowStep {
    steps: u64,
    slow_step: u64,
    ms: u64,
    time: ManualTime,
}

impl PhysicsStage for SlowStep {
    fn reconcile(&mut self, world: &mut World, dt: f64) {
        NoPhysics.reconcile(world, dt);
    }
    fn step(&mut self, _dt: f64, _substeps: u32, _contacts: &mut Vec<ContactEvent>) {
        self.steps += 1;
        if self.steps == self.slow_step {
            self.time.advance(Duration::from_millis(self.ms));
        }
    }
    fn commit(&mut self, world: &mut World) {
        NoPhysics.commit(world);
    }
    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }
}

#[test]
fn a_slow_physics_step_stops_at_the_end_of_its_tick() {
    // The 10th step takes 150 ms of manual time, every other step none; the
    // limit is 60 ms. No sleep: the same on any machine, however loaded.
    let time = ManualTime::new();
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_wall_clock(time.clock());
    let slow = SlowStep {
        steps: 0,
        slow_step: 10,
        ms: 150,
        time,
    };
    p.load_session(World::new(), Box::new(slow), 1);
    p.add_clock_breakpoint(ClockBreakpoint::on(ClockRule::PhysicsAbove { ms: 60.0 }))
        .expect("a valid rule");
    // Frames of two ticks: tick 10 is the second tick of frame 5.
    let (frame, s) = run_until_suspended(&mut p, &[2.0 * TICK; 8]).expect("it stops");
    assert_eq!((frame, s.frame, s.tick), (5, 5, 10));
    assert!(s.end_of_tick, "a tick rule stops with committed state");
    assert!(
        (clock_hit(&s).value - 150.0).abs() < 1e-9,
        "{}",
        clock_hit(&s).value
    );
}

/// FixedUpdate that takes `ms` of the session's manual wall time on its
/// `slow_call`-th call.
#[derive(Clone, Debug)]
struct SlowHook {
    calls: u64,
    slow_call: u64,
    ms: u64,
    time: ManualTime,
}

impl Behaviour for SlowHook {
    fn name(&self) -> &str {
        "SlowHook"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.calls += 1;
        if self.calls == self.slow_call {
            self.time.advance(Duration::from_millis(self.ms));
        }
    }
}

#[test]
fn a_slow_priority_group_stops_at_the_end_of_its_tick_and_other_priorities_do_not() {
    let early = Priority(-100);
    let time = ManualTime::new();
    let mut w = World::new();
    w.spawn(ObjectDesc::new("slow", Pose::default()).with_behaviour(
        Box::new(SlowHook {
            calls: 0,
            slow_call: 7,
            ms: 150,
            time: time.clone(),
        }),
        early,
    ));
    w.spawn(ObjectDesc::new("quick", Pose::default()).with_behaviour(
        Box::new(SlowHook {
            calls: 0,
            slow_call: u64::MAX,
            ms: 0,
            time: time.clone(),
        }),
        Priority::DEFAULT,
    ));
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_wall_clock(time.clock());
    p.load_session(w, Box::new(NoPhysics), 1);
    let on_default = p
        .add_clock_breakpoint(ClockBreakpoint::on(ClockRule::FixedPriorityAbove {
            priority: Priority::DEFAULT,
            ms: 60.0,
        }))
        .expect("a valid rule");
    let on_early = p
        .add_clock_breakpoint(ClockBreakpoint::on(ClockRule::FixedPriorityAbove {
            priority: early,
            ms: 60.0,
        }))
        .expect("a valid rule");
    let (frame, s) = run_until_suspended(&mut p, &[TICK; 10]).expect("it stops");
    assert_eq!((frame, s.tick), (7, 7));
    assert!(s.end_of_tick);
    let hit = clock_hit(&s);
    assert_eq!(hit.breakpoint, on_early);
    assert_ne!(hit.breakpoint, on_default);
    assert!((hit.value - 150.0).abs() < 1e-9, "{}", hit.value);
}

/// A physics step slow (150 ms of manual wall time) only the first time it
/// runs tick `slow_tick` (the flag is outside the snapshot, as real wall
/// time is): a replay of that tick is fast.
#[derive(Clone, Debug)]
struct SlowOnce {
    steps: u64,
    slow_tick: u64,
    slept: std::sync::Arc<std::sync::atomic::AtomicBool>,
    time: ManualTime,
}

impl PhysicsStage for SlowOnce {
    fn reconcile(&mut self, world: &mut World, dt: f64) {
        NoPhysics.reconcile(world, dt);
    }
    fn step(&mut self, _dt: f64, _substeps: u32, _contacts: &mut Vec<ContactEvent>) {
        self.steps += 1;
        if self.steps == self.slow_tick
            && !self.slept.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            self.time.advance(Duration::from_millis(150));
        }
    }
    fn commit(&mut self, world: &mut World) {
        NoPhysics.commit(world);
    }
    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }
}

/// Counts its Flow Tick calls into the hashed state: a frame whose Flow
/// Tick was skipped in the run and not in a replay changes the hash.
#[derive(Clone, Debug, Default, stepframe_core::Inspect)]
struct FlowCounter {
    calls: u64,
}

#[stepframe_core::behaviour]
impl Behaviour for FlowCounter {
    fn name(&self) -> &str {
        "FlowCounter"
    }
    fn flow_tick(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.calls += 1;
    }
    fn hash_state(&self, hasher: &mut stepframe_core::StableHasher) {
        hasher.write_u64(self.calls);
    }
}

#[test]
fn a_rewind_past_a_slow_tick_stop_replays_the_run_as_it_happened() {
    // Frames of two ticks; the run stops at the end of tick 9 (slow physics,
    // the first tick of frame 5) and skips that frame's Flow Tick. A replay
    // of tick 9 is fast, yet a rewind must land on the states the run had.
    let mut w = World::new();
    w.spawn(
        ObjectDesc::new("flow", Pose::default())
            .with_behaviour(Box::new(FlowCounter::default()), Priority::DEFAULT),
    );
    let time = ManualTime::new();
    let slow = SlowOnce {
        steps: 0,
        slow_tick: 9,
        slept: Default::default(),
        time: time.clone(),
    };
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_wall_clock(time.clock());
    p.load_session(w, Box::new(slow), 1);
    p.add_clock_breakpoint(ClockBreakpoint::on(ClockRule::PhysicsAbove { ms: 60.0 }))
        .expect("a valid rule");
    // Every tick's hash at its end, as the run had it.
    let hashes = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::new()));
    p.set_tick_observer(Some(Box::new(HashLog(hashes.clone()))));
    let mut history = stepframe_core::Session::new(p, stepframe_core::History::new(2, 10_000));
    let mut stopped = 0;
    for _ in 0..12 {
        let report = history.step_frame(2.0 * TICK, &[]);
        if let Some(s) = report.suspended {
            assert_eq!(s.tick, 9, "the slow tick stops the run");
            stopped += 1;
            history.resume(&[]);
        }
    }
    assert_eq!(stopped, 1);
    let hashes = hashes.lock().expect("not poisoned").clone();
    // Ticks that end a frame followed by a keyframe (every fourth here) are
    // left out: a rewind there lands on the keyframe, after that frame's
    // Flow Tick, which this counter sees (the history's landing rule, not
    // the stop's).
    for tick in (5..=24).filter(|t| t % 4 != 0) {
        history.rewind_to_tick(tick).expect("kept");
        assert_eq!(
            history.pipeline().state_hash(),
            hashes[&tick],
            "tick {tick} as the run had it"
        );
    }
}

/// Keeps every tick's state hash.
struct HashLog(std::sync::Arc<std::sync::Mutex<std::collections::BTreeMap<u64, u64>>>);

impl stepframe_core::TickObserver for HashLog {
    fn on_tick(&mut self, record: &stepframe_core::TickRecord<'_>) {
        self.0
            .lock()
            .expect("not poisoned")
            .insert(record.clock.simulation_tick, record.hash);
    }
}
