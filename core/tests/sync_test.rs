//! The sync test and the headless frame driver as a library user calls them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use stepframe_core::{
    Behaviour, Ctx, FrameNeverEnds, NoPhysics, ObjectDesc, Pipeline, Pose, Priority, StableHasher,
    SyncFailure, SyncTest, TimeSettings, World, run_frame,
};

/// Counts its FixedUpdate calls from tick 5 on. With `hidden`, the count
/// lives outside the behaviour (shared by every clone), so a snapshot cannot
/// restore it: the bug class the sync test exists to find.
#[derive(Clone, Debug)]
struct Counter {
    own: u64,
    hidden: Option<Arc<AtomicU64>>,
}

impl Behaviour for Counter {
    fn name(&self) -> &str {
        "Counter"
    }
    fn clone_box(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick >= 5 {
            match &self.hidden {
                Some(h) => {
                    h.fetch_add(1, Ordering::Relaxed);
                }
                None => self.own += 1,
            }
        }
    }
    fn hash_state(&self, h: &mut StableHasher) {
        let hidden = self
            .hidden
            .as_ref()
            .map_or(0, |c| c.load(Ordering::Relaxed));
        h.write_u64(self.own + hidden);
    }
}

fn counter_session(hidden: bool) -> Pipeline {
    let mut world = World::new();
    let counter = Counter {
        own: 0,
        hidden: hidden.then(|| Arc::new(AtomicU64::new(0))),
    };
    world.spawn(
        ObjectDesc::new("counter", Pose::IDENTITY)
            .with_behaviour(Box::new(counter), Priority::DEFAULT),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(NoPhysics), 0);
    p
}

/// Twenty 60 Hz frames of `p` under a sync test of distance 2, the last
/// one checked at the end.
fn run(p: Pipeline) -> Result<SyncTest, SyncFailure> {
    let mut sync = SyncTest::new(p, 2, 1_000);
    for _ in 0..20 {
        sync.advance_frame(1.0 / 60.0)?;
    }
    sync.finish()?;
    Ok(sync)
}

#[test]
fn the_sync_test_compares_the_ticks_the_worked_example_counts() {
    let sync = run(counter_session(false)).expect("deterministic");
    // Frame 1 re-runs tick 1; frames 2 to 20 re-run two ticks each.
    assert_eq!(sync.checks(), 1 + 19 * 2);
    assert_eq!(
        sync.pipeline().stepper().completed_ticks(),
        20,
        "left where the first run was"
    );
}

#[test]
fn hidden_state_is_named_at_the_first_tick_it_shows() {
    // The hidden count first moves in tick 5 (to 1). Frame 5 rolls back to
    // the boundary after tick 3; the restore cannot reset the count, so
    // re-simulated tick 4 already hashes with 1 where the first run had 0.
    match run(counter_session(true)).expect_err("hidden state must be caught") {
        SyncFailure::Mismatch { tick, lines, .. } => {
            assert_eq!(tick, 4);
            let (line_tick, first, resim) = lines.first().expect("the differing lines");
            assert_eq!(*line_tick, 4);
            assert!(first.starts_with("{\"tick\":4,") && resim.starts_with("{\"tick\":4,"));
            assert_ne!(first, resim, "the behaviour's subsystem hash differs");
        }
        other => panic!("expected a mismatch, got {other}"),
    }
}

/// Asks to break and be re-run before every Update: a frame that never ends.
#[derive(Clone, Debug)]
struct AlwaysRerun;

impl Behaviour for AlwaysRerun {
    fn name(&self) -> &str {
        "AlwaysRerun"
    }
    fn clone_box(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        ctx.request_break_and_rerun("again");
    }
}

/// Asks to break once, in its first FixedUpdate.
#[derive(Clone, Debug, Default)]
struct BreakOnce {
    done: bool,
}

impl Behaviour for BreakOnce {
    fn name(&self) -> &str {
        "BreakOnce"
    }
    fn clone_box(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if !self.done {
            self.done = true;
            ctx.request_break("once");
        }
    }
}

fn session_with(b: Box<dyn Behaviour>) -> Pipeline {
    let mut world = World::new();
    world.spawn(ObjectDesc::new("b", Pose::IDENTITY).with_behaviour(b, Priority::DEFAULT));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(NoPhysics), 0);
    p
}

#[test]
fn a_frame_is_run_to_its_end_with_its_reports_merged() {
    // A 50 ms frame at 60 Hz owes three ticks; the break after the first
    // tick's FixedUpdate suspends it, and the resume runs the other two.
    let mut p = session_with(Box::new(BreakOnce::default()));
    let frame = run_frame(&mut p, 0.05, 10).expect("ends");
    assert_eq!(frame.resumes, 1);
    assert_eq!(
        frame.report.ticks, 3,
        "the first call's tick and the resume's two"
    );
    assert!(frame.report.suspended.is_none());
    assert!(p.suspension().is_none());
    assert_eq!(p.stepper().completed_ticks(), 3);
}

#[test]
fn a_frame_that_suspends_on_every_resume_is_given_up_with_the_count() {
    let mut p = session_with(Box::new(AlwaysRerun));
    assert_eq!(
        run_frame(&mut p, 1.0 / 60.0, 25).expect_err("never ends"),
        FrameNeverEnds { resumes: 25 }
    );
}

/// Logs its tick in every FixedUpdate.
#[derive(Clone, Debug)]
struct TickLogger;

impl Behaviour for TickLogger {
    fn name(&self) -> &str {
        "TickLogger"
    }
    fn clone_box(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let tick = ctx.clock().simulation_tick;
        ctx.log(format!("tick {tick}"));
    }
}

#[test]
fn between_frames_the_log_is_the_first_runs_whole_and_once() {
    // Twenty one-tick frames, each re-simulated up to twice by the checks:
    // the lines a caller drains are the twenty of the first run, each once,
    // whether it drains after every frame or only at the end (the checks of
    // frames 2 to 20 roll back over lines not drained yet).
    for drain_every_frame in [true, false] {
        let mut sync = SyncTest::new(session_with(Box::new(TickLogger)), 2, 1_000);
        let mut lines = Vec::new();
        for _ in 0..20 {
            sync.advance_frame(1.0 / 60.0).expect("ends");
            if drain_every_frame {
                lines.extend(sync.drain_log());
            }
        }
        sync.finish().expect("deterministic");
        lines.extend(sync.drain_log());
        let said: Vec<String> = lines.into_iter().map(|l| l.message).collect();
        let want: Vec<String> = (1..=20).map(|t| format!("tick {t}")).collect();
        assert_eq!(said, want, "drained after every frame: {drain_every_frame}");
        assert_eq!(sync.checks(), 1 + 19 * 2);
    }
}

#[test]
fn a_settings_change_waiting_for_the_first_frame_runs_again_in_every_rollback() {
    // 120 Hz set before the first frame, pending: frame 1 runs two ticks.
    // Its check restores the boundary before it, where the change is still
    // pending (a snapshot holds it), so re-simulated, frame 1 runs the same
    // two ticks. Twenty 1/60 s frames run forty 120 Hz ticks.
    let mut p = counter_session(false);
    p.set_settings(TimeSettings {
        fixed_hz: 120,
        ..TimeSettings::default()
    })
    .expect("valid settings");
    let sync = run(p).expect("the rollbacks run at 120 Hz too");
    assert_eq!(sync.pipeline().stepper().completed_ticks(), 40);
}

#[test]
fn a_frame_of_the_run_that_never_ends_is_a_failure_of_its_own() {
    let mut sync = SyncTest::new(session_with(Box::new(AlwaysRerun)), 2, 25);
    match sync.advance_frame(1.0 / 60.0) {
        Err(SyncFailure::Stuck(e)) => assert_eq!(e, FrameNeverEnds { resumes: 25 }),
        other => panic!("expected Stuck, got {other:?}"),
    }
}
