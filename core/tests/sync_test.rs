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

/// Twenty 60 Hz frames under a sync test of distance 2.
fn run(p: &mut Pipeline) -> Result<SyncTest, SyncFailure> {
    let mut sync = SyncTest::new(2, 1_000);
    sync.attach(p);
    for _ in 0..20 {
        sync.before_frame(p, 1.0 / 60.0);
        let frame = run_frame(p, 1.0 / 60.0, 1_000).expect("ends");
        if frame.report.ticks > 0 {
            sync.after_frame(p, TimeSettings::default())?;
        }
    }
    Ok(sync)
}

#[test]
fn the_sync_test_compares_the_ticks_the_worked_example_counts() {
    let mut p = counter_session(false);
    let sync = run(&mut p).expect("deterministic");
    // Frame 1 re-runs tick 1; frames 2 to 20 re-run two ticks each.
    assert_eq!(sync.checks(), 1 + 19 * 2);
    assert_eq!(
        p.stepper().completed_ticks(),
        20,
        "left where the first run was"
    );
}

#[test]
fn hidden_state_is_named_at_the_first_tick_it_shows() {
    // The hidden count first moves in tick 5 (to 1). Frame 5 rolls back to
    // the boundary after tick 3; the restore cannot reset the count, so
    // re-simulated tick 4 already hashes with 1 where the first run had 0.
    let mut p = counter_session(true);
    match run(&mut p).expect_err("hidden state must be caught") {
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
