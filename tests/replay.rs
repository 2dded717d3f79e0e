//! Replay determinism through the public API: a tick-stamped recording replayed
//! into a rapier scene gives the same fixed trace whatever drives the frames.
//!
//! The scene is built here by hand (ground, a "hopper" ball driven by fixed
//! input, a small stack of boxes it runs into, a dropper that spawns and
//! removes balls with behaviours from fixed code) so these tests depend on the
//! core only. The hopper uses everything the input contract promises fixed
//! code: held actions (`pressed`), edges (`just_pressed`, `just_released`, both
//! in one tick for a tap), hold time in simulation milliseconds (`held_ms`), and
//! the session's random generator.
//!
//! "Identical" means: run until the same number of ticks `T` is complete, keep
//! the trace of ticks `1..=T`, remove each line's `frame` member (the only
//! pacing-dependent field) and compare bytes.

use std::sync::{Arc, Mutex};

use stepframe_core::{
    ActionBinding, ActionMap, Behaviour, BodyDesc, Breakpoint, Ctx, HookKind, InputEvent,
    InputSource, ObjectDesc, ObjectId, Pipeline, Pose, Priority, RapierStage, RecordedEvent,
    Recorder, Recording, Replay, Rng, Shape, StableHasher, StepStrategy, TickObserver,
    TimeSettings, TraceWriter, Vec2, World, write_trace_line,
};

/// The core history tests' fixtures: the ground the hopper's world stands on.
#[path = "../core/tests/support/mod.rs"]
mod core_support;

/// The hopper's object id.
const HOPPER: ObjectId = ObjectId(2);
/// Ticks every comparison covers: 8 s at 60 Hz, past the last recorded event.
const TICKS: u64 = 480;

/// Moves with left/right, taps to hop, holds jump to charge a bigger jump.
#[derive(Clone, Debug, Default)]
struct Hopper {
    /// Simulation time (s) of the tick that saw the jump press, while held.
    charge_started: Option<f64>,
    /// Jumps so far.
    jumps: u32,
    /// Largest `held_ms("jump")` seen while charging (simulation ms).
    longest_hold_ms: f64,
    /// Outer frames seen by Update: pacing-dependent, deliberately not hashed.
    frames_seen: u64,
}

impl Behaviour for Hopper {
    fn name(&self) -> &str {
        "Hopper"
    }

    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.frames_seen += 1;
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        let now = ctx.clock().simulation_time;
        let (right, left) = (ctx.input().pressed("right"), ctx.input().pressed("left"));
        let (pressed, released) = (
            ctx.input().just_pressed("jump"),
            ctx.input().just_released("jump"),
        );
        let held = ctx.input().held_ms("jump");
        let fx = match (left, right) {
            (false, true) => 12.0,
            (true, false) => -12.0,
            _ => 0.0,
        };
        ctx.apply_force(me, Vec2::new(fx, 0.0));
        if pressed && !ctx.input().pressed("jump") {
            // Press and release inside one tick: a tap, a small hop.
            self.jumps += 1;
            let spin = ctx.rng().range(-0.2, 0.2);
            ctx.apply_impulse(me, Vec2::new(spin, 2.0));
        } else if pressed {
            self.charge_started = Some(now);
        } else if released && let Some(start) = self.charge_started.take() {
            // Charge measured on the simulation clock: pauses never count.
            let charge = (now - start).min(1.0) as f32;
            self.jumps += 1;
            ctx.apply_impulse(me, Vec2::new(0.0, 2.0 + 4.0 * charge));
        }
        if self.charge_started.is_some() {
            self.longest_hold_ms = self.longest_hold_ms.max(held);
        }
    }

    fn hash_state(&self, h: &mut StableHasher) {
        h.write_f64(self.charge_started.unwrap_or(-1.0));
        h.write_u64(u64::from(self.jumps));
        h.write_f64(self.longest_hold_ms);
    }
}

/// Drops a ball from fixed code at ticks 1, 41, 81... and removes the oldest
/// once three are out. Each ball carries a [`Tag`] behaviour, which joins the
/// cohort at the next frame boundary, a pacing-dependent moment: a ball spawned
/// in tick 41 has its Tag admitted before tick 42 at 60 Hz, but only before
/// tick 43 at 30 Hz (ticks 41 and 42 share a frame). No trace may show that.
#[derive(Clone, Debug, Default)]
struct Dropper {
    /// Balls out, oldest first.
    balls: Vec<ObjectId>,
}

impl Behaviour for Dropper {
    fn name(&self) -> &str {
        "Dropper"
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick % 40 != 1 {
            return;
        }
        if self.balls.len() == 3 {
            let oldest = self.balls.remove(0);
            ctx.remove(oldest);
        }
        let x = ctx.rng().range(7.0, 9.0);
        let id = ctx.spawn(
            ObjectDesc::new("ball", Pose::new(x, 6.0, 0.0))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.2 }))
                .with_behaviour(Box::new(Tag), Priority::DEFAULT),
        );
        self.balls.push(id);
    }

    fn hash_state(&self, h: &mut StableHasher) {
        for id in &self.balls {
            h.write_u64(id.0);
        }
    }
}

/// A behaviour with state in the hash and no effect.
#[derive(Clone, Debug)]
struct Tag;

impl Behaviour for Tag {
    fn name(&self) -> &str {
        "Tag"
    }

    fn hash_state(&self, h: &mut StableHasher) {
        h.write_u64(7);
    }
}

fn key(name: &str) -> InputSource {
    InputSource::Key(name.into())
}

fn actions() -> ActionMap {
    let bind = |name: &str, keys: &[&str]| ActionBinding {
        name: name.into(),
        sources: keys.iter().map(|k| key(k)).collect(),
    };
    ActionMap {
        actions: vec![
            bind("left", &["ArrowLeft", "A"]),
            bind("right", &["ArrowRight", "D"]),
            bind("jump", &["Space"]),
        ],
    }
}

fn world() -> World {
    let mut w = World::new();
    w.spawn(core_support::ground(30.0));
    w.spawn(
        ObjectDesc::new("hopper", Pose::new(-4.0, 0.5, 0.0))
            .with_id(HOPPER)
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }))
            .with_behaviour(Box::new(Hopper::default()), Priority(-100)),
    );
    w.spawn(
        ObjectDesc::new("dropper", Pose::new(0.0, 6.0, 0.0))
            .with_id(ObjectId(5))
            .with_behaviour(Box::new(Dropper::default()), Priority::DEFAULT),
    );
    for i in 0..4u64 {
        w.spawn(
            ObjectDesc::new(
                format!("box {i}"),
                Pose::new(3.0, 0.4 + 0.8 * i as f32, 0.0),
            )
            .with_id(ObjectId(10 + i))
            .with_body(BodyDesc::dynamic(Shape::Cuboid { hx: 0.4, hy: 0.4 })),
        );
    }
    w
}

fn session(strategy: StepStrategy) -> Pipeline {
    let mut p = Pipeline::new(TimeSettings {
        strategy,
        ..TimeSettings::default()
    });
    p.set_action_map(actions());
    p.load_session(
        world(),
        Box::new(RapierStage::new(Vec2::new(0.0, -9.81))),
        42,
    );
    p
}

/// Right for 2 s, a tap (press and release in tick 150), a 0.5 s charged jump,
/// left with a second tap while moving, then rest.
fn recording() -> Recording {
    let ev = |tick, name: &str, value| RecordedEvent {
        tick,
        source: key(name),
        value,
    };
    Recording {
        version: 1,
        fixed_hz: 60,
        ticks: 400,
        events: vec![
            ev(10, "ArrowRight", 1.0),
            ev(130, "ArrowRight", 0.0),
            ev(150, "Space", 1.0),
            ev(150, "Space", 0.0),
            ev(200, "Space", 1.0),
            ev(230, "Space", 0.0),
            ev(260, "A", 1.0),
            ev(290, "Space", 1.0),
            ev(290, "Space", 0.0),
            ev(340, "A", 0.0),
        ],
        edits: Vec::new(),
    }
}

/// The raw frame deltas of a pacing.
#[derive(Clone, Debug)]
enum Pacing {
    /// A display rate, Hz, with optional `(frame, seconds)` stalls.
    Rate(f64, Vec<(u64, f64)>),
    /// 4-40 ms per frame from a seed (SplitMix64, independent of the player's).
    Irregular(u64),
}

impl Pacing {
    fn deltas(&self) -> Box<dyn FnMut(u64) -> f64> {
        match self.clone() {
            Pacing::Rate(hz, stalls) => Box::new(move |frame| {
                stalls
                    .iter()
                    .find(|(f, _)| *f == frame)
                    .map_or(1.0 / hz, |(_, s)| *s)
            }),
            Pacing::Irregular(seed) => {
                let mut rng = Rng::new(seed);
                Box::new(move |_| f64::from(rng.range(0.004, 0.040)))
            }
        }
    }
}

/// What a traced run produced.
struct Run {
    trace: String,
    frames: u64,
    dropped: f64,
}

/// Runs a replay of `recording()` until `TICKS` ticks are complete.
fn replay_run(strategy: StepStrategy, pacing: &Pacing) -> Run {
    let mut p = session(strategy);
    p.set_tick_input(Some(Box::new(Replay::new(recording()))));
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    let mut dt = pacing.deltas();
    let mut frames = 0;
    while p.stepper().completed_ticks() < TICKS {
        frames += 1;
        p.step_frame(dt(frames));
    }
    finish(p, writer, frames)
}

fn finish(mut p: Pipeline, writer: Arc<Mutex<TraceWriter<Vec<u8>>>>, frames: u64) -> Run {
    p.set_tick_observer(None);
    let dropped = p.clock().dropped_time;
    let w = Arc::try_unwrap(writer)
        .expect("the pipeline released the writer")
        .into_inner()
        .expect("lock");
    let bytes = w.into_inner().expect("in-memory writes cannot fail");
    let text = String::from_utf8(bytes).expect("the trace is UTF-8");
    let trace: String = text
        .lines()
        .take(TICKS as usize)
        .map(|l| format!("{l}\n"))
        .collect();
    Run {
        trace,
        frames,
        dropped,
    }
}

/// The trace with every line's `"frame":N,` member removed.
fn without_frame(trace: &str) -> String {
    trace
        .lines()
        .map(|line| {
            let at = line.find(",\"frame\":").expect("every line has a frame");
            let rest = &line[at + 9..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            format!("{}{}\n", &line[..at], &rest[digits..])
        })
        .collect()
}

fn line_of_tick(trace: &str, tick: u64) -> &str {
    trace.lines().nth(tick as usize - 1).expect("tick in trace")
}

/// First differing line, for a readable failure.
fn first_diff(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("tick {}:\n  {x}\n  {y}", i + 1);
        }
    }
    format!("lengths {} vs {}", a.lines().count(), b.lines().count())
}

fn assert_same_ticks(reference: &Run, other: &Run, what: &str) {
    let (a, b) = (without_frame(&reference.trace), without_frame(&other.trace));
    assert_eq!(
        a.lines().count(),
        TICKS as usize,
        "{what}: reference length"
    );
    assert!(a == b, "{what}: traces differ at {}", first_diff(&a, &b));
}

#[test]
fn the_reference_trace_shows_the_recorded_input_at_its_ticks() {
    let run = replay_run(StepStrategy::Accumulator, &Pacing::Rate(60.0, vec![]));
    let t = &run.trace;
    assert!(line_of_tick(t, 10).contains(r#""inputs":[{"key":"ArrowRight","value":1.0}]"#));
    assert!(line_of_tick(t, 11).contains(r#""inputs":[]"#));
    // The tap: press and release delivered to the same tick, in order.
    assert!(
        line_of_tick(t, 150)
            .contains(r#""inputs":[{"key":"Space","value":1.0},{"key":"Space","value":0.0}]"#)
    );
    // Ticks start at (tick - 1) / 60 s: tick 61 starts at exactly 1 s.
    assert!(line_of_tick(t, 1).starts_with(r#"{"tick":1,"sim_time":0.0,"frame":1,"#));
    assert!(line_of_tick(t, 61).starts_with(r#"{"tick":61,"sim_time":1.0,"frame":61,"#));
    // At 60 Hz each frame runs exactly one tick.
    assert_eq!(run.frames, TICKS);
    // The run is not trivial: the hopper hits the boxes (a contact between #2
    // and box 10 starts), and moves right, then left. The first dropped ball
    // (the first spawned id, 14) lands on the ground.
    assert!(
        t.contains(r#"{"a":2,"b":10,"kind":"started"}"#),
        "hopper meets box 10"
    );
    assert!(
        t.contains(r#"{"a":1,"b":14,"kind":"started"}"#),
        "ball 14 lands"
    );
    let hopper_x = |tick| -> f32 {
        let line = line_of_tick(t, tick);
        let at = line.find(r#"{"id":2,"x":"#).expect("hopper pose") + 12;
        line[at..]
            .split(',')
            .next()
            .and_then(|s| s.parse().ok())
            .expect("x parses")
    };
    let (start, right, back) = (hopper_x(9), hopper_x(130), hopper_x(340));
    assert_eq!(start, -4.0, "no input before tick 10: the hopper rests");
    assert!(
        right > -2.0,
        "held right for 2 s: moved right (x = {right})"
    );
    assert!(back < right, "held left: came back (x = {back})");
}

#[test]
fn replay_gives_identical_traces_at_30_60_and_144_hz() {
    let reference = replay_run(StepStrategy::Accumulator, &Pacing::Rate(60.0, vec![]));
    for hz in [30.0, 144.0] {
        let run = replay_run(StepStrategy::Accumulator, &Pacing::Rate(hz, vec![]));
        assert_same_ticks(&reference, &run, &format!("{hz} Hz"));
    }
    // 480 ticks at 60 Hz take 8 s: 240 frames at 30 Hz, 1152 at 144 Hz.
    let slow = replay_run(StepStrategy::Accumulator, &Pacing::Rate(30.0, vec![]));
    assert_eq!(slow.frames, 240);
    let fast = replay_run(StepStrategy::Accumulator, &Pacing::Rate(144.0, vec![]));
    assert_eq!(fast.frames, 1152);
}

#[test]
fn replay_gives_identical_traces_under_irregular_pacing() {
    let reference = replay_run(StepStrategy::Accumulator, &Pacing::Rate(60.0, vec![]));
    for seed in 1..=5 {
        let run = replay_run(StepStrategy::Accumulator, &Pacing::Irregular(seed));
        assert_same_ticks(&reference, &run, &format!("irregular:{seed}"));
    }
}

#[test]
fn replay_gives_identical_traces_across_stalls() {
    let reference = replay_run(StepStrategy::Accumulator, &Pacing::Rate(60.0, vec![]));
    for stall in [1.0, 5.0] {
        // The stall lands in the middle of the charged jump (ticks 200-230).
        let run = replay_run(
            StepStrategy::Accumulator,
            &Pacing::Rate(60.0, vec![(210, stall)]),
        );
        assert_same_ticks(&reference, &run, &format!("{stall} s stall"));
        // max_delta clamps the stall to 0.25 s = 15 ticks owed; the cap runs 4
        // and drops 11 (11/60 s). The stalled frame ran 4 ticks instead of 1, so
        // the run reaches tick 480 in 3 frames fewer than the reference's 480.
        assert!((run.dropped - 11.0 / 60.0).abs() < 1e-12, "{}", run.dropped);
        assert_eq!(run.frames, TICKS - 3);
    }
}

#[test]
fn accumulator_and_step_counting_give_identical_traces() {
    for pacing in [
        Pacing::Rate(60.0, vec![]),
        Pacing::Rate(144.0, vec![]),
        Pacing::Irregular(3),
        Pacing::Rate(60.0, vec![(100, 1.0)]),
    ] {
        let a = replay_run(StepStrategy::Accumulator, &pacing);
        let b = replay_run(StepStrategy::StepCounting, &pacing);
        // Same pacing and same tick sequence: even the frame fields agree.
        assert!(
            a.trace == b.trace,
            "{pacing:?}: {}",
            first_diff(&a.trace, &b.trace)
        );
        assert_eq!(a.frames, b.frames);
    }
}

#[test]
fn stepping_tick_by_tick_then_resuming_matches_an_uninterrupted_run() {
    let reference = replay_run(StepStrategy::Accumulator, &Pacing::Rate(60.0, vec![]));

    // Pause between frames at 30 Hz, step 25 lone ticks through the charged
    // jump, resume, and play on.
    let mut p = session(StepStrategy::Accumulator);
    p.set_tick_input(Some(Box::new(Replay::new(recording()))));
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    let mut frames = 0;
    while p.stepper().completed_ticks() < 196 {
        frames += 1;
        p.step_frame(1.0 / 30.0);
    }
    p.pause();
    assert!(p.step_frame(1.0 / 30.0).ticks == 0, "paused: nothing runs");
    for k in 1..=25 {
        let r = p.step_tick();
        assert_eq!(r.ticks, 1);
        assert_eq!(p.stepper().completed_ticks(), 196 + k);
    }
    p.resume();
    while p.stepper().completed_ticks() < TICKS {
        frames += 1;
        p.step_frame(1.0 / 30.0);
    }
    let stepped = finish(p, writer, frames);
    assert_same_ticks(&reference, &stepped, "step-tick through a pause");
}

#[test]
fn a_fixed_breakpoint_then_step_tick_then_resume_matches_an_uninterrupted_run() {
    let reference = replay_run(StepStrategy::Accumulator, &Pacing::Rate(60.0, vec![]));

    // At 30 Hz each frame owes 2 ticks; a breakpoint on tick 151's FixedUpdate
    // (the first tick of a frame) suspends at the end of that tick with one
    // tick still owed. Step 5 ticks (the owed one first), then resume.
    let mut p = session(StepStrategy::Accumulator);
    p.set_tick_input(Some(Box::new(Replay::new(recording()))));
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    let mut bp = Breakpoint::on(HookKind::FixedUpdate, HOPPER);
    bp.condition.ticks = Some((151, 151));
    p.add_breakpoint(bp);
    let mut frames = 0;
    while p.suspension().is_none() {
        frames += 1;
        p.step_frame(1.0 / 30.0);
    }
    assert_eq!(
        p.stepper().completed_ticks(),
        151,
        "suspends at the end of tick 151"
    );
    for _ in 0..5 {
        assert_eq!(p.step_tick().ticks, 1);
    }
    assert_eq!(p.stepper().completed_ticks(), 156);
    p.resume();
    while p.stepper().completed_ticks() < TICKS {
        frames += 1;
        p.step_frame(1.0 / 30.0);
    }
    let stepped = finish(p, writer, frames);
    assert_same_ticks(&reference, &stepped, "breakpoint, step-tick, resume");
}

/// Pushes live key events before given frames (the editor's keyboard).
fn live_run(hz: f64, script: &[(u64, &str, f32)]) -> (Run, Recording) {
    let mut p = session(StepStrategy::Accumulator);
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    let recorder = Arc::new(Mutex::new(Recorder::new(60)));
    let observers: Vec<Box<dyn TickObserver>> =
        vec![Box::new(writer.clone()), Box::new(recorder.clone())];
    p.set_tick_observer(Some(Box::new(observers)));
    let mut frames = 0;
    while p.stepper().completed_ticks() < TICKS {
        frames += 1;
        for (_, name, value) in script.iter().filter(|(f, _, _)| *f == frames) {
            p.push_input(InputEvent {
                source: key(name),
                value: *value,
            });
        }
        p.step_frame(1.0 / hz);
    }
    p.set_tick_observer(None);
    let recording = recorder.lock().expect("lock").recording().clone();
    (finish(p, writer, frames), recording)
}

#[test]
fn live_input_recorded_at_144_hz_replays_identically_at_30_hz() {
    // At 144 Hz with 60 Hz ticks a frame is 4.9M flicks and a tick 11.76M:
    // after frame k, floor(4.9k / 11.76) ticks are complete, so in every cycle
    // of 12 frames only frames 3, 5, 8, 10 and 12 run a tick. A press pushed
    // before frame 4 (no tick) is first seen by tick 2, run by frame 5: not
    // lost. Frames 306 and 307 run no tick (306 = 25 × 12 + 6), so the press
    // pushed before 306 and the release pushed before 307 both reach tick 128
    // (floor(4.9 × 308 / 11.76)), run by frame 308: a tap.
    let script = [
        (4, "D", 1.0),
        (200, "D", 0.0),
        (306, "Space", 1.0),
        (307, "Space", 0.0),
        (400, "Space", 1.0),
        (500, "Space", 0.0),
    ];
    let (live, recorded) = live_run(144.0, &script);
    assert_eq!(
        recorded.events[0].tick, 2,
        "the press pushed before frame 4"
    );
    let tap: Vec<u64> = recorded.events[2..4].iter().map(|e| e.tick).collect();
    assert_eq!(tap, vec![128, 128], "press and release landed in one tick");
    assert!(line_of_tick(&live.trace, 2).contains(r#""inputs":[{"key":"D","value":1.0}]"#));

    // Through the file format and back.
    let text = recorded.to_ron().expect("serialise");
    let loaded = Recording::parse(&text, std::path::Path::new("live.ron")).expect("reload");
    assert_eq!(loaded, recorded);

    let mut p = session(StepStrategy::Accumulator);
    p.set_tick_input(Some(Box::new(Replay::new(loaded))));
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    let mut frames = 0;
    while p.stepper().completed_ticks() < TICKS {
        frames += 1;
        p.step_frame(1.0 / 30.0);
    }
    let replayed = finish(p, writer, frames);
    assert_same_ticks(&live, &replayed, "live at 144 Hz vs replay at 30 Hz");
}

#[test]
fn a_rewound_recorder_keeps_only_the_timeline_that_was_kept() {
    let mut p = session(StepStrategy::Accumulator);
    let recorder = Arc::new(Mutex::new(Recorder::new(60)));
    p.set_tick_observer(Some(Box::new(recorder.clone())));
    p.push_input(InputEvent::press(key("D")));
    p.step_frame(1.0 / 60.0); // tick 1 receives the press
    let snapshot = p.snapshot();
    p.push_input(InputEvent::release(key("D")));
    p.step_frame(1.0 / 60.0); // tick 2 receives the release
    assert_eq!(recorder.lock().expect("lock").recording().events.len(), 2);
    // Rewind to after tick 1 and take another branch: tick 2 gets no event.
    p.restore(&snapshot);
    p.step_frame(1.0 / 60.0);
    let r = recorder.lock().expect("lock").recording().clone();
    assert_eq!(r.ticks, 2);
    assert_eq!(
        r.events,
        vec![RecordedEvent {
            tick: 1,
            source: key("D"),
            value: 1.0
        }]
    );
}

#[test]
fn trace_lines_carry_the_tick_start_time_frame_and_hash() {
    // A fixed 50 Hz tick under 60 Hz frames: frame 1 runs no tick, frames 2-6
    // run one each (the clock module's worked example), so tick 1 is run by
    // frame 2 and tick 5 by frame 6.
    let mut p = Pipeline::new(TimeSettings {
        fixed_hz: 50,
        ..TimeSettings::default()
    });
    p.set_action_map(actions());
    p.load_session(
        world(),
        Box::new(RapierStage::new(Vec2::new(0.0, -9.81))),
        1,
    );
    let lines = Arc::new(Mutex::new(Vec::<(String, u64)>::new()));
    #[derive(Debug)]
    struct Lines(Arc<Mutex<Vec<(String, u64)>>>);
    impl TickObserver for Lines {
        fn on_tick(&mut self, record: &stepframe_core::TickRecord<'_>) {
            let mut s = String::new();
            write_trace_line(&mut s, record);
            self.0.lock().expect("lock").push((s, record.hash));
        }
    }
    p.set_tick_observer(Some(Box::new(Lines(lines.clone()))));
    for _ in 0..6 {
        p.step_frame(1.0 / 60.0);
    }
    let lines = lines.lock().expect("lock").clone();
    assert_eq!(lines.len(), 5);
    let (first, _) = &lines[0];
    // Every body starts resting on the one below: the hopper (radius 0.5 at
    // y = 0.5) and box 10 (half height 0.4 at y = 0.4) on the ground's top face
    // at y = 0, and boxes 11-13 stacked 0.8 apart. So tick 1 starts exactly
    // those five contacts, in pair order. The fixed ground never moves.
    assert!(first.starts_with(concat!(
        r#"{"tick":1,"sim_time":0.0,"frame":2,"inputs":[],"#,
        r#""contacts":[{"a":1,"b":2,"kind":"started"},{"a":1,"b":10,"kind":"started"},"#,
        r#"{"a":10,"b":11,"kind":"started"},{"a":11,"b":12,"kind":"started"},"#,
        r#"{"a":12,"b":13,"kind":"started"}],"#,
        r#""poses":[{"id":1,"x":0.0,"y":-0.5,"angle":0.0,"vx":0.0,"vy":0.0,"w":0.0},{"id":2,"x":-4.0,"#
    )), "{first}");
    // Tick 5 starts at 4 × 1/50 s = 0.08 s.
    let (fifth, hash) = &lines[4];
    assert!(
        fifth.starts_with(r#"{"tick":5,"sim_time":0.08,"frame":6,"#),
        "{fifth}"
    );
    assert!(
        fifth.ends_with(&format!(r#""hash":"{hash:016x}"}}"#)),
        "{fifth}"
    );
    // The hash of the last tick is the pipeline's state hash after it.
    assert_eq!(*hash, p.state_hash());
}

/// The bundled demo, its recording, and a trace of `ticks` ticks, with a
/// debugger session at tick `pause_at` (pause, `steps` single ticks, resume)
/// when given.
fn demo_run(ticks: u64, debug: Option<(u64, u64)>) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf();
    let scenes = root.join("assets/scenes");
    let registry = stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes);
    let scene =
        stepframe_core::Scene::load(&scenes.join("demo.ron"), &registry).expect("demo scene loads");
    let recording =
        Recording::load(&root.join("assets/recordings/demo.ron")).expect("demo recording loads");
    let mut p = Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(Replay::new(recording))));
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    let mut paused = false;
    while p.stepper().completed_ticks() < ticks {
        if let Some((pause_at, steps)) = debug
            && !paused
            && p.stepper().completed_ticks() >= pause_at
        {
            paused = true;
            p.pause();
            for _ in 0..steps {
                assert_eq!(p.step_tick().ticks, 1);
            }
            p.resume();
        }
        p.step_frame(1.0 / 60.0);
    }
    p.set_tick_observer(None);
    let bytes = Arc::try_unwrap(writer)
        .expect("released")
        .into_inner()
        .expect("lock")
        .into_inner()
        .expect("in memory");
    let text = String::from_utf8(bytes).expect("UTF-8");
    let kept: String = text
        .lines()
        .take(ticks as usize)
        .map(|l| format!("{l}\n"))
        .collect();
    without_frame(&kept)
}

#[test]
fn the_demo_stepped_tick_by_tick_through_a_charged_jump_matches_an_uninterrupted_run() {
    // The recording charges from tick 300 to 345: pause at tick 290 and step
    // 60 single ticks across the whole charge and release, then resume.
    let reference = demo_run(450, None);
    let stepped = demo_run(450, Some((290, 60)));
    assert_eq!(reference.lines().count(), 450);
    assert!(reference == stepped, "{}", first_diff(&reference, &stepped));
}
