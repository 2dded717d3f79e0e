//! The two ways a soak drives a session, each keeping what a live editor
//! keeps in its bounded buffers: [`soak_history`] runs the player's loop
//! through a [`Session`] and its rewind [`History`] with a telemetry ring, a pose history and a
//! log ring; [`soak_worker`] runs the editor's own worker and plays the UI's
//! part, draining its channels into the editor's rings. Both share the log
//! ring, the no-progress guard and the way they close the summary.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use stepframe_core::history::{DEFAULT_KEYFRAME_EVERY, DEFAULT_RETENTION_FRAMES};
use stepframe_core::telemetry::DEFAULT_CAPACITY;
use stepframe_core::{
    History, HookBeacon, LogEntry, LogLevel, Pipeline, PoseHistory, Scene, Session, Telemetry,
    finish_frame,
};

use super::meter::{Meter, ring_walked_after, telemetry_walked};
use super::{Failure, SoakArgs, SoakSummary, bad};
use crate::editor::protocol::{Command, DisplayRate, Event, Run, SceneCommand};
use crate::editor::worker::{self, Worker};

/// Log lines printed to stderr as they arrive; the rest are only kept in
/// the ring and counted.
const PRINTED_LOG_LINES: u64 = 10;

/// A bounded ring of log lines, as the editor's log panel keeps them.
#[derive(Debug)]
struct LogRing {
    lines: VecDeque<LogEntry>,
    capacity: usize,
    errors: u64,
    panics: u64,
    /// Lines so far (the first few are printed).
    seen: u64,
}

impl LogRing {
    fn new(capacity: usize) -> LogRing {
        LogRing {
            lines: VecDeque::with_capacity(capacity.max(1)),
            capacity: capacity.max(1),
            errors: 0,
            panics: 0,
            seen: 0,
        }
    }

    fn push(&mut self, entry: LogEntry) {
        self.seen += 1;
        if self.seen <= PRINTED_LOG_LINES {
            eprintln!("{entry}");
        }
        if entry.level == LogLevel::Error {
            self.errors += 1;
            if entry.message.contains("panicked") {
                self.panics += 1;
            }
        }
        if self.lines.len() == self.capacity {
            self.lines.pop_front();
        }
        self.lines.push_back(entry);
    }
}

/// The no-progress guard of both modes: frames in a row without a new tick.
#[derive(Debug, Default)]
struct Progress {
    last_tick: u64,
    frames_without_tick: u64,
}

impl Progress {
    /// One frame ended with `tick` ticks complete.
    fn frame(&mut self, tick: u64) -> Result<(), Failure> {
        if tick > self.last_tick {
            self.last_tick = tick;
            self.frames_without_tick = 0;
            return Ok(());
        }
        self.frames_without_tick += 1;
        if self.frames_without_tick >= crate::player::MAX_FRAMES_WITHOUT_PROGRESS {
            return Err(Failure {
                code: 1,
                message: format!(
                    "no tick for {} frames in a row (stuck at tick {}): the soak could never end",
                    self.frames_without_tick, self.last_tick
                ),
            });
        }
        Ok(())
    }
}

/// The player's loop with the editor's buffers: telemetry ring, rewind
/// history, pose history, log ring.
pub(super) fn soak_history(
    args: &SoakArgs,
    scene: &Scene,
    registry: &stepframe_core::Registry,
    beacon: Option<&HookBeacon>,
    summary: &mut SoakSummary,
) -> Result<(), Failure> {
    summary.mode = "history".into();
    let mut pipeline = Pipeline::new(scene.settings.time);
    pipeline
        .load_scene(scene, registry)
        .map_err(|e| bad(e.to_string()))?;
    crate::player::supervise::watch_session(&mut pipeline, beacon, Some(&args.scene));
    let dt = 1.0 / f64::from(scene.settings.time.fixed_hz);
    let mut telemetry = Telemetry::with_capacity(args.telemetry_frames.unwrap_or(DEFAULT_CAPACITY));
    let max_keyframes = (args.retention_frames.max(args.keyframe_every.max(1))
        / args.keyframe_every.max(1))
    .max(1) as usize;
    let history_walked = ring_walked_after(args.retention_frames + args.keyframe_every);
    let poses = Arc::new(Mutex::new(PoseHistory::with_budget(
        args.pose_budget_mib << 20,
    )));
    pipeline.set_tick_observer(Some(Box::new(poses.clone())));
    let mut session = Session::new(
        pipeline,
        History::new(args.keyframe_every, args.retention_frames),
    );
    let mut log = LogRing::new(args.log_lines);
    let mut meter = Meter::new(args.report_every);
    let lock = |m: &Mutex<PoseHistory>| {
        let guard = m.lock().unwrap_or_else(|p| p.into_inner());
        (guard.range(), guard.memory_bytes())
    };

    let mut progress = Progress::default();
    while session.pipeline().stepper().completed_ticks() < args.ticks {
        let first = session.step_frame(dt, &[]);
        telemetry.record(&first, session.pipeline().clock());
        // A soak has no one at the controls: every suspension is resumed at
        // once, each call recorded as the editor's timeline records it.
        let resumed = finish_frame(
            first,
            || {
                let more = session.resume(&[]);
                telemetry.record(&more, session.pipeline().clock());
                more
            },
            crate::player::MAX_RESUMES_PER_FRAME,
        )
        .map_err(|e| Failure {
            code: 1,
            message: format!("frame {}: {e}", summary.frames + 1),
        })?;
        summary.resumed += resumed.resumes;
        summary.frames += 1;
        progress.frame(session.pipeline().stepper().completed_ticks())?;
        for entry in session.drain_log() {
            log.push(entry);
        }
        let tick = session.pipeline().stepper().completed_ticks();
        let (range, pose_bytes) = lock(&poses);
        let warm = match args.warmup {
            Some(w) => tick >= w,
            None => {
                telemetry_walked(&telemetry)
                    && session.history().keyframes() == max_keyframes
                    && summary.frames >= history_walked
                    && range.is_some_and(|(first, last)| {
                        first > 1 && last >= ring_walked_after(last - first + 1)
                    })
            }
        };
        meter.tick(tick, warm, || {
            format!(
                "telemetry {}/{} frames, keyframes {}/{max_keyframes}, poses {:.1}/{} MiB, log {}/{} lines",
                telemetry.len(),
                telemetry.capacity(),
                session.history().keyframes(),
                pose_bytes as f64 / f64::from(1 << 20),
                args.pose_budget_mib,
                log.lines.len(),
                log.capacity
            )
        });
    }
    summary.keyframes = session.history().keyframes();
    summary.pose_bytes = lock(&poses).1;
    let ticks = session.pipeline().stepper().completed_ticks();
    close(
        summary,
        ticks,
        &log,
        &telemetry,
        &mut meter,
        args.max_growth_mib,
    );
    Ok(())
}

/// The editor's worker, driven one frame at a time, with the UI's part
/// played here: every channel drained each frame into the editor's rings.
pub(super) fn soak_worker(
    args: &SoakArgs,
    fixed_hz: u32,
    beacon: Option<&HookBeacon>,
    summary: &mut SoakSummary,
) -> Result<(), Failure> {
    summary.mode = "worker".into();
    let (ui, end) = worker::channels();
    let registries = crate::Behaviours::built_in().registries();
    let mut w = Worker::new(end, DisplayRate::Hz(fixed_hz), registries);
    if let Some(b) = beacon {
        w.set_hook_beacon(b.clone());
    }
    let dt = 1.0 / f64::from(fixed_hz);
    let send = |c: Command| {
        ui.commands
            .send(c)
            .map_err(|_| bad("the worker's command channel closed"))
    };
    let scene = std::path::absolute(&args.scene).unwrap_or_else(|_| args.scene.clone());
    send(Command::Scene(SceneCommand::Load {
        path: scene,
        play: true,
    }))?;
    let capacity = args.telemetry_frames.unwrap_or(DEFAULT_CAPACITY).max(1);
    // The UI's one telemetry ring: the timeline's frame records.
    let mut telemetry = Telemetry::with_capacity(capacity);
    // The worker keeps its own rewind history with the default bounds.
    let history_walked = ring_walked_after(DEFAULT_RETENTION_FRAMES + DEFAULT_KEYFRAME_EVERY);
    let mut log = LogRing::new(args.log_lines);
    let mut meter = Meter::new(args.report_every);
    let mut tick = 0;
    let mut loaded = false;
    let mut progress = Progress::default();
    while tick < args.ticks {
        if !w.pump(dt) {
            return Err(bad("the worker stopped"));
        }
        summary.frames += 1;
        // Latest wins: the UI keeps only the newest view (and takes it, so
        // the host sends the next).
        for event in ui.take().events {
            match event {
                Event::Frames(batch) => {
                    for frame in batch {
                        tick = tick.max(frame.clock.simulation_tick);
                        telemetry.record(&frame.report, &frame.clock);
                    }
                }
                Event::Log(lines) => {
                    for line in lines {
                        log.push(line);
                    }
                }
                Event::Loaded { .. } => {
                    loaded = true;
                    // The worker's load cleared the session's name: the
                    // supervisor names a fault's objects from this scene.
                    if let Some(b) = beacon {
                        b.announce_session(&args.scene.to_string_lossy());
                    }
                }
                Event::Error(error) if !loaded => {
                    return Err(bad(crate::editor::words::error(&error)));
                }
                Event::Error(error) => {
                    eprintln!("worker error: {}", crate::editor::words::error(&error))
                }
                Event::Suspended(_) => {
                    // Headless: nobody to press Play, so resume at once.
                    summary.resumed += 1;
                    send(Command::Run(Run::Play))?;
                }
                // Resumed, saved, and what the UI draws (poses, rewinds).
                _ => {}
            }
        }
        progress.frame(tick)?;
        let warm = match args.warmup {
            Some(wt) => tick >= wt,
            None => telemetry_walked(&telemetry) && summary.frames >= history_walked,
        };
        meter.tick(tick, warm, || {
            format!(
                "telemetry {}/{capacity} frames, log {}/{} lines, panics reported {}",
                telemetry.len(),
                log.lines.len(),
                log.capacity,
                log.panics
            )
        });
    }
    close(
        summary,
        tick,
        &log,
        &telemetry,
        &mut meter,
        args.max_growth_mib,
    );
    Ok(())
}

/// What both modes report at the end: ticks, what the log and telemetry
/// rings hold, then the meter's memory figures (which read the ticks).
fn close(
    summary: &mut SoakSummary,
    ticks: u64,
    log: &LogRing,
    telemetry: &Telemetry,
    meter: &mut Meter,
    max_growth_mib: f64,
) {
    summary.ticks = ticks;
    summary.errors = log.errors;
    summary.panics = log.panics;
    summary.log_ring = log.lines.len();
    summary.telemetry_ring = telemetry.len();
    meter.finish(summary, max_growth_mib);
}
