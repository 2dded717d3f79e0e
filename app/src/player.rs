//! `stepframe play`: the headless player.
//!
//! It loads a scene into a [`Pipeline`] and calls the same
//! [`Pipeline::step_frame`] the editor's worker calls, once per outer frame, with
//! frame deltas from a *pacing* instead of a display: a fixed rate
//! (`--pacing 144`), a deterministic irregular sequence (`--pacing irregular:3`,
//! 4 to 40 ms per frame from a seed), or a file of deltas (`--pacing file:dts.txt`,
//! one per line, repeated when the run is longer). `--stall 30:1.0` replaces
//! frame 30's delta by a one-second hitch; the pipeline clamps it to `max_delta`
//! and its step cap drops the backlog, exactly as for a real hitch.
//!
//! Nothing here waits on a clock unless `--realtime` asks for it: the run is a
//! pure function of scene, settings, pacing and recording, so two runs write
//! byte-identical traces. A replayed recording delivers each event at the tick
//! it is stamped with, so the trace (apart from its `frame` field) is the same
//! at every pacing; `stepframe check` proves it for a scene.
//!
//! # The sync test (`--sync-test N`)
//!
//! GGRS's `SyncTestSession`: every frame that completes a tick, the player rolls
//! the session back at least `N` ticks, re-simulates up to the present and
//! compares the state hash of every re-simulated tick with the hash the tick had
//! the first time. Snapshots exist between frames, so the rollback target is the
//! latest frame boundary at least `N` ticks back (or the session start), and the
//! frames after it are replayed with the same deltas. The re-simulated state is
//! kept, as in GGRS. Any hidden state a snapshot misses (a behaviour field left
//! out of `clone_box`, engine state outside the snapshot) makes a re-simulated
//! tick differ; the player then exits 1 naming the first mismatching tick, with
//! the same report `trace-diff` gives: the first re-simulated tick whose record
//! differs, the subsystem (and object) whose hash changed first, and every
//! differing field with both values.
//!
//! # Runs that could never end
//!
//! A run ends after a number of frames, of seconds of display time, or of
//! ticks. The last two need frames that add time: a run in seconds whose
//! pacing has no frame of at least one flick (a file of zero deltas, a rate so
//! high every frame rounds to 0), or a run in ticks whose frames feed the
//! stepper nothing (time scale 0), is refused before it starts
//! ([`RunPlan::never_ends`]). What slips through (a pacing of mostly zero
//! deltas) meets the no-progress guard of [`run_plan`]:
//! [`MAX_FRAMES_WITHOUT_PROGRESS`] frames in a row without display time (or
//! without a tick), or a frame that suspends [`MAX_RESUMES_PER_FRAME`] times,
//! and the run stops with an error. `stepframe check` runs through the same
//! function.
//!
//! # Log lines
//!
//! `--log error|warn|info` (default `warn`) chooses which log lines reach
//! stderr as they happen; `info` adds the `log(...)` lines of scripts and
//! behaviours. Every error is also in the summary.
//!
//! # Exit codes
//!
//! 0: the run completed. 1: a runtime failure (a hook panicked and logged an
//! error, the sync test found a mismatch, the run made no progress, an output
//! could not be written).
//! Errors of objects that carry a `Faulty` behaviour are faults the scene
//! injects on purpose: they are reported like any other (stderr and summary,
//! with object, hook and tick) but do not fail the run, so a fault-injection
//! scene exits 0 when every fault stayed contained.
//! 2: bad arguments, a run that could never end (the message says why), or a
//! scene, recording or pacing file that does not load (the message gives
//! file, line and column).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stepframe_core::{
    Clock, Flicks, FrameReport, LogEntry, LogLevel, Pipeline, Recorder, Recording, Registry,
    Replay, Scene, StepStrategy, SyncFailure, SyncTest, TelemetryFormat, TelemetryWriter,
    TickObserver, TimeSettings, TraceWriter, run_frame,
};

pub use stepframe_core::pacing::{FramePacer, Pacing, Stall};

use crate::tools::Sides;
use crate::tools::trace_diff::{TickDiff, diff_trace_lines};

/// Arguments of `stepframe play`.
#[derive(clap::Args, Debug, Clone)]
pub struct PlayArgs {
    /// Scene to play (RON).
    pub scene: PathBuf,
    /// Run this many outer frames.
    #[arg(long, conflicts_with = "seconds")]
    pub frames: Option<u64>,
    /// Run until the frame deltas add up to this many seconds (display time,
    /// stalls included). Default: the recording's length in ticks with
    /// `--input`, else 10 seconds.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Frame deltas: `<hz>`, `irregular:<seed>` or `file:<path>`.
    #[arg(long, default_value = "60")]
    pub pacing: Pacing,
    /// Replace one frame's delta: `<frame>:<seconds>` (frames count from 1; repeatable).
    #[arg(long = "stall", value_name = "FRAME:SECONDS")]
    pub stalls: Vec<Stall>,
    /// Replay a tick-stamped input recording (RON).
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Record the input every tick received to this file (RON).
    #[arg(long)]
    pub record_input: Option<PathBuf>,
    /// Override the scene's fixed tick rate, Hz.
    #[arg(long)]
    pub fixed_hz: Option<u32>,
    /// Override the step cap (ticks per frame).
    #[arg(long)]
    pub max_steps: Option<u32>,
    /// Override the frame-delta clamp, seconds.
    #[arg(long)]
    pub max_delta: Option<f64>,
    /// Override the time scale.
    #[arg(long)]
    pub time_scale: Option<f64>,
    /// Override the physics substeps per tick.
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Override the step strategy: `accumulator` or `step-counting`.
    #[arg(long)]
    pub strategy: Option<StepStrategy>,
    /// Write the per-tick trace (JSON Lines) here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Add a hash per subsystem (clock, fixed input memory, behaviour state by
    /// object, session RNG, physics) to every `--trace` line, so `trace-diff`
    /// can name the state that diverged first.
    #[arg(long, requires = "trace")]
    pub trace_subsystems: bool,
    /// Write per-frame telemetry here: CSV for `.csv`, JSON Lines otherwise.
    #[arg(long)]
    pub telemetry: Option<PathBuf>,
    /// Write the run's telemetry as Chrome trace JSON (opens in Perfetto):
    /// frames, phases, per-priority FixedUpdate and physics as slices, clock
    /// fields as counters. Keeps the last hour of frames.
    #[arg(long, value_name = "OUT.json")]
    pub chrome_trace: Option<PathBuf>,
    /// Sleep so frames follow the wall clock instead of running flat out (the
    /// deltas, and so the results, are the same).
    #[arg(long)]
    pub realtime: bool,
    /// Roll back at least N ticks every frame, re-simulate and compare hashes.
    #[arg(long, value_name = "N")]
    pub sync_test: Option<u64>,
    /// Log lines printed to stderr as they happen: `error`, `warn` (errors and
    /// warnings, the default) or `info` (also `log(...)` lines of scripts and
    /// behaviours). Errors are always in the summary.
    #[arg(long, value_enum, default_value = "warn")]
    pub log: LogThreshold,
}

/// The lowest level of log line `play` prints as it runs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogThreshold {
    /// Every line, `log(...)` output included.
    Info,
    /// Warnings and errors.
    #[default]
    Warn,
    /// Errors only.
    Error,
}

impl LogThreshold {
    /// Whether a line of this level is printed.
    pub fn admits(self, level: LogLevel) -> bool {
        let lowest = match self {
            LogThreshold::Info => LogLevel::Info,
            LogThreshold::Warn => LogLevel::Warning,
            LogThreshold::Error => LogLevel::Error,
        };
        level >= lowest
    }
}

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

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// Outer frames run.
    pub frames: u64,
    /// Ticks completed.
    pub ticks: u64,
    /// Simulation time at the end, seconds.
    pub simulation_time: f64,
    /// Cumulative dropped time, seconds.
    pub dropped_time: f64,
    /// State hash at the end.
    pub final_hash: u64,
    /// Suspensions (requested breaks, faults) the headless player resumed.
    pub resumed_suspensions: u64,
    /// Error lines of the log (hook panics, rejected commands).
    pub errors: Vec<LogEntry>,
    /// Ticks compared by the sync test.
    pub sync_checks: u64,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum RunFailure {
    /// The sync test found a re-simulated tick with another hash.
    SyncMismatch {
        /// The first mismatching tick.
        tick: u64,
        /// Hash of the first run.
        expected: u64,
        /// Hash after rollback and re-simulation.
        actual: u64,
        /// The first re-simulated tick whose record (subsystem hashes
        /// included) differs from the first run's, field by field: what
        /// `trace-diff` would say of the two runs' traces.
        report: Option<Box<TickDiff>>,
    },
    /// Re-simulation completed a tick the first run never reached.
    SyncExtraTick(u64),
    /// The run stopped making progress: `frames` in a row without `waiting_for`
    /// (a tick, display time), or a frame that kept suspending.
    Stuck {
        /// Frames (or resumes of one frame) without progress.
        frames: u64,
        /// What never came.
        waiting_for: &'static str,
    },
    /// The run could never end (refused before it started), and why.
    NeverEnds(String),
    /// An output could not be written, or settings were refused.
    Output(String),
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::SyncMismatch {
                tick,
                expected,
                actual,
                report,
            } => {
                write!(
                    f,
                    "sync test: first mismatch at tick {tick}: re-simulated hash {actual:016x}, first run {expected:016x}"
                )?;
                match report {
                    Some(r) => write!(f, "\n{}", r.report(Sides::SYNC_TEST)),
                    None => Ok(()),
                }
            }
            RunFailure::SyncExtraTick(tick) => write!(
                f,
                "sync test: re-simulation completed tick {tick}, which the first run never reached"
            ),
            RunFailure::Stuck {
                frames,
                waiting_for,
            } => write!(
                f,
                "no progress: {frames} frames in a row without {waiting_for}; the run could never end"
            ),
            RunFailure::NeverEnds(why) => write!(f, "the run could never end: {why}"),
            RunFailure::Output(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunFailure {}

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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One frame through the shared pipeline. A headless run has no one to resume a
/// suspension (a `request_break`, a fault under the `Break` policy), so it
/// resumes at once and counts it; the report covers the whole frame.
fn advance_frame(
    pipeline: &mut Pipeline,
    dt: f64,
    resumed: &mut u64,
) -> Result<FrameReport, RunFailure> {
    let frame = run_frame(pipeline, dt, MAX_RESUMES_PER_FRAME).map_err(|e| RunFailure::Stuck {
        frames: e.resumes,
        waiting_for: "the end of a frame that suspends on every resume",
    })?;
    *resumed += frame.resumes;
    Ok(frame.report)
}

impl From<SyncFailure> for RunFailure {
    fn from(f: SyncFailure) -> RunFailure {
        match f {
            SyncFailure::Mismatch {
                tick,
                expected,
                actual,
                lines,
            } => RunFailure::SyncMismatch {
                tick,
                expected,
                actual,
                // The first re-simulated line that differs by trace-diff's
                // rule, field by field.
                report: lines.iter().find_map(|(t, first, resim)| {
                    diff_trace_lines(*t as usize, first, resim)
                        .ok()
                        .flatten()
                        .map(Box::new)
                }),
            },
            SyncFailure::ExtraTick(tick) => RunFailure::SyncExtraTick(tick),
            SyncFailure::NeverEnds(e) => RunFailure::Stuck {
                frames: e.resumes,
                waiting_for: "the end of a re-simulated frame that suspends on every resume",
            },
        }
    }
}

/// Drives a prepared pipeline (scene loaded, replay and observers installed)
/// through a run. `on_frame` sees every frame's report and the clock after it
/// (telemetry); `on_log` every log line as it is drained.
pub fn run_plan(
    pipeline: &mut Pipeline,
    mut plan: RunPlan,
    on_frame: &mut dyn FnMut(&FrameReport, &Clock) -> std::io::Result<()>,
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
    let mut sync = plan.sync_test.map(|distance| {
        let sync = SyncTest::new(distance, MAX_RESUMES_PER_FRAME);
        sync.attach(pipeline);
        sync
    });
    let started = Instant::now();
    let mut display = Flicks::ZERO;
    let mut frames_without_progress = 0;
    loop {
        let ticks = pipeline.stepper().completed_ticks();
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
        if let Some(sync) = sync.as_mut() {
            sync.before_frame(pipeline, dt);
        }
        let report = advance_frame(pipeline, dt, &mut summary.resumed_suspensions)?;
        summary.frames += 1;
        let shown = Flicks::from_secs_f64(dt);
        display += shown;
        on_frame(&report, pipeline.clock()).map_err(|e| RunFailure::Output(e.to_string()))?;
        for entry in pipeline.drain_log() {
            on_log(&entry);
            if entry.level == LogLevel::Error {
                summary.errors.push(entry);
            }
        }
        if report.ticks > 0
            && let Some(sync) = sync.as_mut()
        {
            sync.after_frame(pipeline, settings)?;
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
    if let Some(sync) = sync {
        summary.sync_checks = sync.checks();
        summary.resumed_suspensions += sync.resumes();
    }
    let clock = pipeline.clock();
    summary.ticks = pipeline.stepper().completed_ticks();
    summary.simulation_time = clock.simulation_time;
    summary.dropped_time = clock.dropped_time;
    summary.final_hash = pipeline.state_hash();
    Ok(summary)
}

/// The scene's time settings with the command line's overrides.
pub fn settings_with_overrides(scene: &TimeSettings, args: &PlayArgs) -> TimeSettings {
    let mut s = *scene;
    if let Some(v) = args.fixed_hz {
        s.fixed_hz = v;
    }
    if let Some(v) = args.max_steps {
        s.max_steps = v;
    }
    if let Some(v) = args.max_delta {
        s.max_delta = v;
    }
    if let Some(v) = args.time_scale {
        s.time_scale = v;
    }
    if let Some(v) = args.substeps {
        s.substeps = v;
    }
    if let Some(v) = args.strategy {
        s.strategy = v;
    }
    s
}

/// A failure with the exit code it maps to.
struct Exit {
    code: u8,
    message: String,
}

fn bad(message: impl Into<String>) -> Exit {
    Exit {
        code: 2,
        message: message.into(),
    }
}

fn failed(message: impl Into<String>) -> Exit {
    Exit {
        code: 1,
        message: message.into(),
    }
}

/// The behaviours a scene can name, for a session of its own: a fresh script
/// host (compile cache, breakpoints) and the scene file's directory, from
/// which its script paths resolve (`stepframe_plugins::script::assets_dir`).
pub fn registry(scene: &Path) -> Registry {
    let dir = scene.parent().unwrap_or(Path::new("."));
    stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), dir)
}

/// Runs the player: exit 0 on success, 1 on a runtime failure, 2 on bad input.
pub fn run(args: PlayArgs) -> ExitCode {
    match play(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(exit) => {
            eprintln!("stepframe play: {}", exit.message);
            ExitCode::from(exit.code)
        }
    }
}

fn create_output(path: &Path) -> Result<BufWriter<File>, Exit> {
    File::create(path)
        .map(BufWriter::new)
        .map_err(|e| failed(format!("cannot create {}: {e}", path.display())))
}

fn play(args: &PlayArgs) -> Result<(), Exit> {
    let registry = registry(&args.scene);
    let scene = Scene::load(&args.scene, &registry).map_err(|e| bad(e.to_string()))?;
    let settings = settings_with_overrides(&scene.settings.time, args);
    settings
        .validate()
        .map_err(|m| bad(format!("invalid timing settings: {m}")))?;
    if let Some(s) = args.seconds
        && !(s.is_finite() && s >= 0.0)
    {
        return Err(bad(format!(
            "--seconds {s}: expected a non-negative number"
        )));
    }
    let recording = match &args.input {
        Some(path) => Some(Recording::load(path).map_err(|e| bad(e.to_string()))?),
        None => None,
    };
    if let Some(r) = &recording
        && r.fixed_hz != settings.fixed_hz
    {
        eprintln!(
            "stepframe play: warning: the recording counts ticks at {} Hz, the session runs at {} Hz; events keep their tick numbers",
            r.fixed_hz, settings.fixed_hz
        );
    }
    let pacer = FramePacer::new(&args.pacing, &args.stalls).map_err(|e| bad(e.to_string()))?;
    let length = match (args.frames, args.seconds, &recording) {
        (Some(n), _, _) => RunLength::Frames(n),
        (None, Some(s), _) => RunLength::Seconds(s),
        (None, None, Some(r)) => {
            if settings.time_scale == 0.0 {
                return Err(bad(
                    "time scale 0 runs no tick, so the recording never ends: give --frames or --seconds",
                ));
            }
            RunLength::Ticks(r.ticks)
        }
        (None, None, None) => match pacer.file_len() {
            Some(n) => RunLength::Frames(n),
            None => RunLength::Seconds(10.0),
        },
    };

    let plan = RunPlan {
        settings,
        pacer,
        length,
        realtime: args.realtime,
        sync_test: args.sync_test,
    };
    if let Some(why) = plan.never_ends() {
        return Err(bad(format!("refusing a run that could never end: {why}")));
    }

    let mut pipeline = Pipeline::new(settings);
    pipeline
        .load_scene(&scene, &registry)
        .map_err(|e| bad(e.to_string()))?;
    if let Some(r) = recording {
        pipeline.set_tick_input(Some(Box::new(Replay::new(r))));
    }
    let mut observers: Vec<Box<dyn TickObserver>> = Vec::new();
    let trace = match &args.trace {
        Some(path) => {
            let mut writer = TraceWriter::new(create_output(path)?);
            if args.trace_subsystems {
                writer = writer.with_subsystem_hashes();
            }
            let writer = Arc::new(Mutex::new(writer));
            observers.push(Box::new(writer.clone()));
            Some(writer)
        }
        None => None,
    };
    let recorder = match &args.record_input {
        Some(_) => {
            let recorder = Arc::new(Mutex::new(Recorder::new(settings.fixed_hz)));
            observers.push(Box::new(recorder.clone()));
            Some(recorder)
        }
        None => None,
    };
    if !observers.is_empty() {
        pipeline.set_tick_observer(Some(Box::new(observers)));
    }
    let mut telemetry = match &args.telemetry {
        Some(path) => Some(TelemetryWriter::new(
            create_output(path)?,
            TelemetryFormat::for_path(path),
        )),
        None => None,
    };

    let mut ring = args
        .chrome_trace
        .as_ref()
        .map(|_| stepframe_core::Telemetry::default());
    let mut on_frame = |report: &FrameReport, clock: &Clock| {
        if let Some(r) = ring.as_mut() {
            r.record(report, clock);
        }
        match telemetry.as_mut() {
            Some(t) => t.write_frame(report, clock),
            None => Ok(()),
        }
    };
    let threshold = args.log;
    let mut on_log = |entry: &LogEntry| {
        if threshold.admits(entry.level) {
            eprintln!("{entry}");
        }
    };
    let result = run_plan(&mut pipeline, plan, &mut on_frame, &mut on_log);
    pipeline.set_tick_observer(None);

    // Outputs are flushed even after a failure: a trace up to a sync mismatch
    // is what a user wants to look at.
    let mut output_errors = Vec::new();
    if let Some(t) = telemetry.as_mut()
        && let Err(e) = t.flush()
    {
        output_errors.push(format!("telemetry: {e}"));
    }
    if let Some(t) = &trace
        && let Err(e) = lock(t).flush()
    {
        output_errors.push(format!("trace: {e}"));
    }
    if let (Some(r), Some(path)) = (&ring, &args.chrome_trace) {
        let written = create_output(path).map_err(|_| format!("cannot create {}", path.display()));
        if let Err(e) = written.and_then(|mut out| {
            stepframe_core::export::chrome_trace(r.records().iter(), &mut out)
                .and_then(|()| out.flush())
                .map_err(|e| format!("chrome trace {}: {e}", path.display()))
        }) {
            output_errors.push(e);
        }
    }
    if let (Some(r), Some(path)) = (&recorder, &args.record_input)
        && let Err(e) = lock(r).recording().save(path)
    {
        output_errors.push(e.to_string());
    }

    let summary = result.map_err(|e| failed(e.to_string()))?;
    print_summary(&args.scene, &summary, args.sync_test);
    if !output_errors.is_empty() {
        return Err(failed(output_errors.join("; ")));
    }
    let injectors = fault_injectors(&scene);
    let injected = summary
        .errors
        .iter()
        .filter(|e| e.object.is_some_and(|o| injectors.contains(&o)))
        .count();
    if injected > 0 {
        println!("injected faults: {injected} (objects with a Faulty behaviour; expected)");
    }
    let unexpected = summary.errors.len() - injected;
    if unexpected > 0 {
        return Err(failed(format!(
            "{unexpected} error(s) logged during the run"
        )));
    }
    Ok(())
}

/// Objects of the scene that carry a `Faulty` behaviour: their errors are
/// injected on purpose (see the module docs, exit codes).
fn fault_injectors(scene: &Scene) -> std::collections::BTreeSet<stepframe_core::ObjectId> {
    scene
        .all_objects()
        .into_iter()
        .filter(|o| o.behaviours.iter().any(|b| b.name == "Faulty"))
        .map(|o| stepframe_core::ObjectId(o.id))
        .collect()
}

fn print_summary(scene: &Path, s: &RunSummary, sync_test: Option<u64>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "played {}: {} frames, {} ticks ({} s simulated), dropped {} s, final hash {:016x}",
        scene.display(),
        s.frames,
        s.ticks,
        s.simulation_time,
        s.dropped_time,
        s.final_hash
    );
    if let Some(n) = sync_test {
        let _ = writeln!(
            out,
            "sync test: rolled back {n} ticks every frame, {} re-simulated ticks matched",
            s.sync_checks
        );
    }
    if s.resumed_suspensions > 0 {
        let _ = writeln!(
            out,
            "resumed {} suspension(s) (headless: breaks do not stop the run)",
            s.resumed_suspensions
        );
    }
    if s.errors.is_empty() {
        let _ = writeln!(out, "errors: none");
    } else {
        let _ = writeln!(out, "errors: {}", s.errors.len());
        for e in &s.errors {
            let _ = writeln!(out, "  {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let err = run_plan(&mut p, plan, &mut |_, _| Ok(()), &mut |_| {})
            .expect_err("the frame never ends");
        match err {
            RunFailure::Stuck { frames, .. } => assert_eq!(frames, MAX_RESUMES_PER_FRAME),
            other => panic!("expected Stuck, got {other}"),
        }
    }
}
