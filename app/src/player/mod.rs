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
//! GGRS's `SyncTestSession`: the run hands the session to a
//! [`SyncTest`](stepframe_core::SyncTest), which owns it and, after every
//! frame that completes a tick, rolls it back at least `N` ticks, re-simulates
//! up to the present and compares the state hash of every re-simulated tick
//! with the hash the tick had the first time. Snapshots exist between frames, so the rollback target is the
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
//! 3: a hook did not return within `--stuck-hook-limit`, and 4: the run
//! died (an abort, a stack overflow, an allocation past `--memory-limit-mib`,
//! another signal): the supervisor stopped it or saw it die, and named the
//! object, behaviour, hook and tick ([`supervise`]).
//!
//! # Where things are
//!
//! | module | what |
//! |---|---|
//! | this one | [`run()`]: `stepframe play` itself, from a scene file to its outputs (trace, telemetry, Chrome trace, recording) and its exit code; [`registry`] |
//! | `args` | [`PlayArgs`], [`LogThreshold`], [`settings_with_overrides`]: the command line |
//! | `run` | [`RunPlan`], [`RunLength`], [`run_plan`]: driving a prepared pipeline through a run, the sync test and the no-progress guard (also `stepframe check`'s loop) |
//! | `summary` | [`RunSummary`], [`RunFailure`]: what a run did or why it stopped, and the summary `play` prints |
//! | [`supervise`] | [`Launch`], [`Isolation`]: a headless run in a supervised child, its options, and the line that names a fault (`play`, `check`, `soak`, `bench`) |

mod args;
mod run;
mod summary;
pub mod supervise;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use crate::Behaviours;
use stepframe_core::{
    FrameReport, LogEntry, Pipeline, Recorder, Recording, Registry, Replay, Scene, TelemetryFormat,
    TelemetryWriter, TickObserver, TraceWriter,
};

pub use args::{LogThreshold, PlayArgs, settings_with_overrides};
pub use run::{MAX_FRAMES_WITHOUT_PROGRESS, MAX_RESUMES_PER_FRAME, RunLength, RunPlan, run_plan};
pub use stepframe_core::pacing::{FramePacer, Pacing, Stall};
pub(crate) use summary::fault_injectors;
use summary::print_summary;
pub use summary::{RunFailure, RunSummary};
pub use supervise::{EXIT_DIED, EXIT_STUCK, Isolation, Launch};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
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

/// The built-in behaviours a scene can name, for a session of its own: a
/// fresh script host (compile cache, breakpoints) and the scene file's
/// directory, from which its script paths resolve
/// (`stepframe_plugins::script::assets_dir`). Its Scripts do not watch
/// their files ([`Behaviours::registry_for_scene`], which a game's binary
/// uses with its own set).
pub fn registry(scene: &Path) -> Registry {
    Behaviours::built_in().registry_for_scene(scene)
}

/// Runs the player on a scene whose behaviours come from `behaviours`:
/// exit 0 on success, 1 on a runtime failure, 2 on bad input, 3 or 4 when
/// its supervisor stopped it or it died ([`supervise`]). `launch` says
/// whether this process supervises a child that plays, or plays.
pub fn run(args: PlayArgs, behaviours: &Behaviours, launch: &Launch) -> ExitCode {
    let beacon = match launch.resolve(&args.isolation) {
        Launch::Supervise(line) => {
            return supervise::run_supervised("play", &line, &args.isolation, behaviours);
        }
        Launch::Here(beacon) => beacon,
    };
    match play(&args, behaviours, beacon.as_ref()) {
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

fn play(
    args: &PlayArgs,
    behaviours: &Behaviours,
    beacon: Option<&stepframe_core::HookBeacon>,
) -> Result<(), Exit> {
    let registry = if args.realtime {
        behaviours.registry_for_live_scene(&args.scene)
    } else {
        behaviours.registry_for_scene(&args.scene)
    };
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
    supervise::watch_session(&mut pipeline, beacon, Some(&args.scene));
    if let Some(r) = recording {
        // A session recording's edits are made once, with the scene's
        // registry, and applied at the start of their ticks.
        let replay = Replay::with_registry(r, &registry).map_err(|e| {
            bad(format!(
                "{}: an edit of the recording does not fit the scene: {e}",
                args.input.as_deref().unwrap_or(Path::new("")).display()
            ))
        })?;
        pipeline.set_tick_input(Some(Box::new(replay)));
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
    // The Chrome trace lays the newest minute of frames out from the zones
    // the pipeline recorded (stepframe_core::flame), older ones from sums.
    let mut zones = args.chrome_trace.as_ref().map(|_| {
        pipeline.set_zone_detail(stepframe_core::ZoneDetail::Coarse);
        stepframe_core::ZoneRing::default()
    });
    let mut on_frame = |report: &FrameReport, p: &Pipeline| {
        let clock = p.clock();
        if let Some(r) = ring.as_mut() {
            r.record(report, clock);
        }
        if let Some(z) = zones.as_mut()
            && p.zones().frame_index() == report.frame_index
        {
            z.push(p.zones());
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
    // The pipeline and its observers go with the run.
    let result = run_plan(pipeline, plan, &mut on_frame, &mut on_log);

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
            let empty = stepframe_core::ZoneRing::with_capacity(1);
            let kept = zones.as_ref().unwrap_or(&empty);
            stepframe_core::export::chrome_trace_with_zones(r.records().iter(), kept, &mut out)
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
