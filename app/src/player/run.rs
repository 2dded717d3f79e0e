//! Driving a prepared pipeline through a run: [`RunPlan`] says how (pacing,
//! length, realtime, sync test), [`run_plan`] does it, one frame at a time
//! through the same `run_frame` the editor's worker calls, resuming every
//! suspension at once (a headless run has no one at the controls). Under
//! the sync test the run hands the pipeline to a [`SyncTest`], which owns
//! it and checks every frame as it advances it. The
//! no-progress guard lives here: a run refused before it starts
//! ([`RunPlan::never_ends`]), or stopped after [`MAX_FRAMES_WITHOUT_PROGRESS`]
//! empty frames or [`MAX_RESUMES_PER_FRAME`] resumes of one frame.

use std::time::{Duration, Instant};

use stepframe_core::{
    Flicks, FrameReport, LogEntry, LogLevel, Pipeline, SyncTest, TimeSettings, WholeFrame,
    run_frame,
};

use super::FramePacer;
use super::summary::{RunFailure, RunSummary};

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunLength {
    /// After this many outer frames.
    Frames(u64),
    /// When the raw deltas add up to this much display time.
    Seconds(f64),
    /// When this many ticks are complete (the length of a recording).
    Ticks(u64),
}

/// Frames in a row without progress after which a run gives up: without a
/// tick for a run measured in ticks, without display time for one measured in
/// seconds. 100,000 empty frames take well under a second; no pacing a user
/// means has that many frames in a row that add nothing.
pub const MAX_FRAMES_WITHOUT_PROGRESS: u64 = 100_000;

/// Suspensions one frame may resume before a headless run gives up: a hook
/// that asks to break and re-run on every call would otherwise loop forever.
/// A legitimate frame suspends at most once per hook call it makes.
pub const MAX_RESUMES_PER_FRAME: u64 = 1_000_000;

/// Everything that drives a prepared pipeline through a run.
#[derive(Debug)]
pub struct RunPlan {
    /// Settings in force for the whole run (re-applied after every rollback).
    pub settings: TimeSettings,
    /// Frame deltas.
    pub pacer: FramePacer,
    /// When to stop.
    pub length: RunLength,
    /// Sleep to follow the wall clock.
    pub realtime: bool,
    /// Sync-test rollback distance, ticks.
    pub sync_test: Option<u64>,
}

impl RunPlan {
    /// Why this run could never end, if it could not: its end needs time to
    /// pass, and no frame of its pacing adds any (every delta shorter than one
    /// flick, 1/705,600,000 s, or scaled to nothing), or it asks for more
    /// seconds than the clock can count. Checked before a run starts; the
    /// no-progress guard of [`run_plan`] catches what slips through.
    pub fn never_ends(&self) -> Option<String> {
        let longest = self.pacer.longest_dt();
        let pacing = self.pacer.label();
        match self.length {
            RunLength::Frames(_) => None,
            RunLength::Seconds(s) => {
                if Flicks::from_secs_f64(s) == Flicks(u64::MAX) {
                    Some(format!(
                        "{s} s is more display time than the clock counts ({} s at most)",
                        Flicks(u64::MAX - 1).as_secs_f64().floor()
                    ))
                } else if s > 0.0 && Flicks::from_secs_f64(longest) == Flicks::ZERO {
                    Some(format!(
                        "every frame of {pacing} is shorter than one flick (1/705,600,000 s), \
                         so its frames add no display time and {s} s is never reached"
                    ))
                } else {
                    None
                }
            }
            RunLength::Ticks(t) => {
                let s = &self.settings;
                let fed = Flicks::from_secs_f64(longest.min(s.max_delta)).scaled(s.time_scale);
                (t > 0 && fed == Flicks::ZERO).then(|| {
                    format!(
                        "no frame of {pacing} feeds the fixed stepper any time (longest delta \
                         {longest} s, max_delta {} s, time scale {}), so tick {t} is never reached",
                        s.max_delta, s.time_scale
                    )
                })
            }
        }
    }
}

/// What a run drives: the pipeline itself, or a sync test that owns it.
enum Driven {
    /// Frames straight on the pipeline.
    Plain(Pipeline),
    /// Frames through the sync test, which owns the pipeline and checks
    /// each frame.
    Synced(SyncTest),
}

impl Driven {
    /// The session, to read between frames.
    fn pipeline(&self) -> &Pipeline {
        match self {
            Driven::Plain(p) => p,
            Driven::Synced(sync) => sync.pipeline(),
        }
    }

    /// One frame, run to its end. A headless run has no one to resume a
    /// suspension (a `request_break`, a fault under the `Break` policy), so
    /// it resumes at once and counts it; the report covers the whole frame.
    fn frame(&mut self, dt: f64) -> Result<WholeFrame, RunFailure> {
        match self {
            Driven::Plain(p) => {
                run_frame(p, dt, MAX_RESUMES_PER_FRAME).map_err(|e| RunFailure::Stuck {
                    frames: e.resumes,
                    waiting_for: "the end of a frame that suspends on every resume",
                })
            }
            Driven::Synced(sync) => Ok(sync.advance_frame(dt)?),
        }
    }

    /// The log lines written since the last drain.
    fn drain_log(&mut self) -> Vec<LogEntry> {
        match self {
            Driven::Plain(p) => p.drain_log(),
            Driven::Synced(sync) => sync.drain_log(),
        }
    }
}

/// Drives a prepared pipeline (scene loaded, replay and observers installed)
/// through a run, and drops it at the end (its observers with it).
/// `on_frame` sees every frame's report and the pipeline after it (its
/// clock for telemetry, its flame zones for a Chrome trace); `on_log` every
/// log line as it is drained.
pub fn run_plan(
    mut pipeline: Pipeline,
    mut plan: RunPlan,
    on_frame: &mut dyn FnMut(&FrameReport, &Pipeline) -> std::io::Result<()>,
    on_log: &mut dyn FnMut(&LogEntry),
) -> Result<RunSummary, RunFailure> {
    if let Some(why) = plan.never_ends() {
        return Err(RunFailure::NeverEnds(why));
    }
    let settings = plan.settings;
    pipeline
        .set_settings(settings)
        .map_err(|m| RunFailure::Output(format!("settings: {m}")))?;
    let mut summary = RunSummary::default();
    let mut driven = match plan.sync_test {
        Some(distance) => Driven::Synced(SyncTest::new(pipeline, distance, MAX_RESUMES_PER_FRAME)),
        None => Driven::Plain(pipeline),
    };
    let started = Instant::now();
    let mut display = Flicks::ZERO;
    let mut frames_without_progress = 0;
    loop {
        let ticks = driven.pipeline().stepper().completed_ticks();
        let done = match plan.length {
            RunLength::Frames(n) => summary.frames >= n,
            RunLength::Seconds(s) => display >= Flicks::from_secs_f64(s),
            RunLength::Ticks(t) => ticks >= t,
        };
        if done {
            break;
        }
        let dt = plan.pacer.next_dt();
        if plan.realtime {
            let due = Duration::from_secs_f64(display.as_secs_f64());
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        let frame = driven.frame(dt)?;
        summary.resumed_suspensions += frame.resumes;
        let report = frame.report;
        summary.frames += 1;
        let shown = Flicks::from_secs_f64(dt);
        display += shown;
        on_frame(&report, driven.pipeline()).map_err(|e| RunFailure::Output(e.to_string()))?;
        for entry in driven.drain_log() {
            on_log(&entry);
            if entry.level == LogLevel::Error {
                summary.errors.push(entry);
            }
        }
        let (progress, waiting_for) = match plan.length {
            RunLength::Frames(_) => (true, ""),
            RunLength::Seconds(_) => (shown > Flicks::ZERO, "display time"),
            RunLength::Ticks(_) => (report.ticks > 0, "a tick"),
        };
        if progress {
            frames_without_progress = 0;
        } else {
            frames_without_progress += 1;
            if frames_without_progress >= MAX_FRAMES_WITHOUT_PROGRESS {
                return Err(RunFailure::Stuck {
                    frames: frames_without_progress,
                    waiting_for,
                });
            }
        }
    }
    if let Driven::Synced(sync) = &mut driven {
        // The last frame's check (each other frame's ran before the next).
        sync.finish()?;
        summary.sync_checks = sync.checks();
        summary.resumed_suspensions += sync.resumes();
    }
    let pipeline = driven.pipeline();
    let clock = pipeline.clock();
    summary.ticks = pipeline.stepper().completed_ticks();
    summary.simulation_time = clock.simulation_time;
    summary.dropped_time = clock.dropped_time;
    summary.final_hash = pipeline.state_hash();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Pacing;

    use stepframe_core::{Behaviour, Ctx, NoPhysics, ObjectDesc, Pose, Priority, World};

    /// Asks to break before its Update and be re-run, on every call: a frame
    /// that never ends, headless.
    #[derive(Clone, Debug)]
    struct AlwaysRerun;

    impl Behaviour for AlwaysRerun {
        fn name(&self) -> &str {
            "AlwaysRerun"
        }
        fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
            ctx.request_break_and_rerun("again");
        }
    }

    #[test]
    fn a_frame_that_suspends_on_every_resume_is_a_failure_not_a_hang() {
        let mut world = World::new();
        world.spawn(
            ObjectDesc::new("loop", Pose::IDENTITY)
                .with_behaviour(Box::new(AlwaysRerun), Priority::DEFAULT),
        );
        let mut p = Pipeline::new(TimeSettings::default());
        p.load_session(world, Box::new(NoPhysics), 0);
        let plan = RunPlan {
            settings: TimeSettings::default(),
            pacer: FramePacer::new(&Pacing::Rate(60.0), &[]).expect("pacer"),
            length: RunLength::Frames(1),
            realtime: false,
            sync_test: None,
        };
        let err =
            run_plan(p, plan, &mut |_, _| Ok(()), &mut |_| {}).expect_err("the frame never ends");
        match err {
            RunFailure::Stuck { frames, .. } => assert_eq!(frames, MAX_RESUMES_PER_FRAME),
            other => panic!("expected Stuck, got {other}"),
        }
    }
}
