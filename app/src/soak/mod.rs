//! `stepframe soak`: a long headless run that proves memory stays flat.
//!
//! The run keeps everything a live editor session keeps, each in its bounded
//! buffer, and checks that the process stops growing once every buffer is full:
//!
//! | buffer | bound (default) |
//! |---|---|
//! | telemetry ring ([`Telemetry`](stepframe_core::Telemetry)) | `--telemetry-frames` 216,000 frames (an hour at 60 Hz) |
//! | rewind history ([`History`](stepframe_core::History)) | a keyframe every `--keyframe-every` 120 frames, `--retention-frames` 36,000 frames kept |
//! | scrubbing poses ([`PoseHistory`](stepframe_core::PoseHistory)) | `--pose-budget-mib` 64 MiB |
//! | log ring | `--log-lines` 5,000 lines (the editor's) |
//!
//! # Warm-up
//!
//! A ring buffer is not at its full resident size when it first holds its
//! bound: a `VecDeque` grows by doubling, so a ring of at most `L` entries owns
//! up to `2L` slots, and the pages of the slack become resident only as the
//! write position walks over them. (Measured: the 216,000-frame telemetry ring
//! owns 262,144 slots and went on growing 7.4 MiB after it was "full".) So
//! warm-up ends when every ring has been written all the way round: the
//! telemetry ring once its pushes reach its allocated slots; the rewind
//! history (whose call log is such a ring) after `2 × (retention + keyframe
//! period)` frames; the pose ring after twice the ticks it holds, once it has
//! started evicting. The log ring is not waited for (under 1 MiB full).
//! `--warmup T` overrides all that with a tick.
//!
//! # Through the editor's worker
//!
//! With `--worker` the same scene runs through the editor's own worker
//! ([`crate::editor::worker::Worker`]) instead: commands, views, telemetry
//! batches and log events cross its channels exactly as in the editor, and the
//! soak plays the UI's part, draining them into a telemetry ring and a log ring
//! of the editor's sizes (36,000 frames, 5,000 lines). The worker keeps its
//! own rewind history and pose history with the default bounds, invisible
//! from here, so warm-up also waits `2 × (36,000 + 120)` frames. (Its pose
//! ring for a scene without bodies costs ~40 bytes a tick and fills its 64 MiB
//! only after ~1.6 M ticks: bounded, but still growing within a short soak.)
//! That is how a scene full of `Faulty` behaviours soaks the worker with hook
//! panics: `--generate-panics N` writes one ([`panic_scene`]) and the run
//! fails unless every panic due reached the UI end as an error line
//! (`--expect-panics` to say how many).
//!
//! ```text
//! stepframe soak target/panics.ron --worker --generate-panics 10000 \
//!     --panic-every 5 --panic-from 75000 --ticks 125100
//! ```
//!
//! # Measuring
//!
//! Every frame is `1 / fixed_hz` seconds, so one frame runs one tick. Resident
//! memory (`VmRSS` in `/proc/self/status`, the kernel's count of resident pages
//! that `/proc/self/statm` also gives, already in KiB) is sampled every 1,000
//! ticks and printed every `--report-every` ticks. The resident size at the
//! end of warm-up is the baseline. The run fails (exit 1) if any later sample
//! exceeds the baseline by more than `--max-growth-mib` (16), or if the run
//! ends before warm-up. The bound is a statement about leaks, not about noise:
//! the population of a bounded scene varies (spawners, projectiles), so
//! snapshot sizes vary by a few hundred KiB, while a leak of 100 bytes a tick
//! is 95 MiB after a million ticks.
//!
//! # A soak that could never end
//!
//! The run ends when `--ticks` ticks are complete, so it needs ticks to run.
//! A scene whose frames feed the stepper no time (time scale 0, or one so
//! small that a frame of `1 / fixed_hz` scales to nothing) is refused before
//! it starts (exit 2), and a run that goes
//! [`MAX_FRAMES_WITHOUT_PROGRESS`](crate::player::MAX_FRAMES_WITHOUT_PROGRESS)
//! frames in a row without a tick, or a frame that keeps suspending, gives up
//! (exit 1) instead of spinning.
//!
//! Exit codes: 0 flat, 1 growth beyond the bound (or warm-up never reached, or
//! panics missing, or no progress), 2 bad arguments, a scene that does not
//! load, or one that can never reach `--ticks`, 3 a hook stuck past
//! `--stuck-hook-limit`, 4 an abort, a stack overflow or an allocation
//! failure: the soak runs in a supervised child, as `play` does
//! ([`crate::player::supervise`]), so both are named.
//!
//! ```text
//! stepframe soak assets/scenes/demo.ron --ticks 1000000
//! ```
//!
//! # Where things are
//!
//! | module | what |
//! |---|---|
//! | this one | [`SoakArgs`], [`run`], [`SoakSummary`]: the checks before a soak, the verdict, the summary line |
//! | `modes` | the two ways a soak drives a session: the player's loop with the editor's buffers, or the editor's worker through its channels |
//! | `meter` | resident memory: sampling, the warm-up baseline, the growth figures, and when a ring has been written all the way round |
//! | `panics` | [`panic_scene`], [`panics_due`]: generated scenes of panicking behaviours, and the panic hook that only counts after the first few |

mod meter;
mod modes;
mod panics;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use stepframe_core::history::{DEFAULT_KEYFRAME_EVERY, DEFAULT_RETENTION_FRAMES};
use stepframe_core::{Flicks, Scene};

use crate::editor::log_book::LOG_CAPACITY;
use meter::{mib, resident_kib};
pub use panics::{PANICS_PER_OBJECT, panic_scene, panics_due};
use panics::{PRINTED_PANICS, install_quiet_panic_hook};

/// Arguments of `stepframe soak`.
#[derive(clap::Args, Debug, Clone)]
pub struct SoakArgs {
    /// Scene to soak (RON).
    pub scene: PathBuf,
    /// Ticks to run (one per frame).
    #[arg(long, default_value_t = 1_000_000)]
    pub ticks: u64,
    /// Run through the editor's worker and its channels instead of a History.
    #[arg(long)]
    pub worker: bool,
    /// Telemetry ring capacity, frames (default: an hour at 60 Hz; with
    /// `--worker`, the editor's 36,000).
    #[arg(long)]
    pub telemetry_frames: Option<usize>,
    /// Frames between two rewind keyframes.
    #[arg(long, default_value_t = DEFAULT_KEYFRAME_EVERY)]
    pub keyframe_every: u64,
    /// Frames of rewind history kept.
    #[arg(long, default_value_t = DEFAULT_RETENTION_FRAMES)]
    pub retention_frames: u64,
    /// Budget of the per-tick pose history, MiB.
    #[arg(long, default_value_t = 64)]
    pub pose_budget_mib: usize,
    /// Log ring capacity, lines.
    #[arg(long, default_value_t = LOG_CAPACITY)]
    pub log_lines: usize,
    /// End warm-up at this tick instead of when every buffer is full.
    #[arg(long)]
    pub warmup: Option<u64>,
    /// Most resident-memory growth allowed after warm-up, MiB.
    #[arg(long, default_value_t = 16.0)]
    pub max_growth_mib: f64,
    /// Print a progress line every this many ticks.
    #[arg(long, default_value_t = 50_000)]
    pub report_every: u64,
    /// Fail unless exactly this many hook panics were reported (default with
    /// `--generate-panics`: every panic due within the run).
    #[arg(long)]
    pub expect_panics: Option<u64>,
    /// First write a scene of this many panicking `Faulty` behaviours to the
    /// scene path (see [`panic_scene`]), then soak it.
    #[arg(long, value_name = "N")]
    pub generate_panics: Option<u64>,
    /// With `--generate-panics`: ticks between two panics.
    #[arg(long, default_value_t = 1)]
    pub panic_every: u64,
    /// With `--generate-panics`: the tick of the first panic.
    #[arg(long, default_value_t = 1)]
    pub panic_from: u64,
    /// The supervisor's limits, or none (`--in-process`).
    #[command(flatten)]
    pub isolation: crate::player::Isolation,
}

/// The figures of a soak, printed as the last line (`summary {json}`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SoakSummary {
    /// Scene soaked.
    pub scene: String,
    /// `history` or `worker`.
    pub mode: String,
    /// Ticks completed.
    pub ticks: u64,
    /// Outer frames run.
    pub frames: u64,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Ticks per wall-clock second.
    pub ticks_per_second: f64,
    /// Tick at which warm-up ended (0 if it never did).
    pub warmup_tick: u64,
    /// Resident memory at warm-up, KiB.
    pub rss_warmup_kib: u64,
    /// Resident memory at the end, KiB.
    pub rss_end_kib: u64,
    /// Largest resident sample after warm-up, KiB.
    pub rss_max_after_warmup_kib: u64,
    /// `rss_max_after_warmup_kib - rss_warmup_kib`, KiB (0 if it shrank).
    pub growth_kib: u64,
    /// The bound on that growth, KiB.
    pub bound_kib: u64,
    /// Peak resident memory of the process (`VmHWM`), KiB.
    pub rss_peak_kib: u64,
    /// Error lines that reached the log (hook panics, rejected writes).
    pub errors: u64,
    /// Of which hook panics.
    pub panics: u64,
    /// Lines held by the log ring at the end (at most its capacity).
    pub log_ring: usize,
    /// Telemetry records held at the end (at most the capacity).
    pub telemetry_ring: usize,
    /// Keyframes held at the end (history mode).
    pub keyframes: usize,
    /// Bytes held by the pose history at the end (history mode).
    pub pose_bytes: usize,
    /// Suspensions the soak resumed (requested breaks, faults under `Break`).
    pub resumed: u64,
}

/// Why a soak failed.
struct Failure {
    code: u8,
    message: String,
}

fn bad(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

/// Runs `stepframe soak` (see the module docs) on a scene whose behaviours
/// come from `behaviours`: in a supervised child of this executable unless
/// `launch` says this is that child, or `--in-process`
/// ([`crate::player::supervise`]).
pub fn run(
    args: SoakArgs,
    behaviours: &crate::Behaviours,
    launch: &crate::player::Launch,
) -> ExitCode {
    let beacon = match launch.resolve(&args.isolation) {
        crate::player::Launch::Supervise(line) => {
            return crate::player::supervise::run_supervised(
                "soak",
                &line,
                &args.isolation,
                behaviours,
            );
        }
        crate::player::Launch::Here(beacon) => beacon,
    };
    let panics_seen = install_quiet_panic_hook();
    match soak(&args, &panics_seen, behaviours, beacon.as_ref()) {
        Ok(summary) => {
            let verdict = verdict(&args, &summary);
            let line = serde_json::to_string(&summary).unwrap_or_default();
            println!("summary {line}");
            match verdict {
                Ok(()) => {
                    println!("soak: memory flat after warm-up");
                    ExitCode::SUCCESS
                }
                Err(message) => {
                    eprintln!("stepframe soak: {message}");
                    ExitCode::from(1)
                }
            }
        }
        Err(f) => {
            eprintln!("stepframe soak: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// The pass/fail rules of the module docs.
fn verdict(args: &SoakArgs, s: &SoakSummary) -> Result<(), String> {
    if s.warmup_tick == 0 {
        return Err(format!(
            "warm-up never ended in {} ticks: give more --ticks, smaller buffers or --warmup",
            s.ticks
        ));
    }
    if s.growth_kib > s.bound_kib {
        return Err(format!(
            "resident memory grew {:.1} MiB after warm-up (tick {}), more than the {:.1} MiB bound",
            mib(s.growth_kib),
            s.warmup_tick,
            mib(s.bound_kib)
        ));
    }
    let expected = args.expect_panics.or(args
        .generate_panics
        .map(|n| panics_due(n, args.panic_every, args.panic_from, args.ticks)));
    if let Some(n) = expected
        && s.panics != n
    {
        return Err(format!("{} hook panics reported, expected {n}", s.panics));
    }
    Ok(())
}
/// Checks the arguments and the scene, then soaks it in the mode asked for;
/// `panics_seen` is the panic hook's count.
fn soak(
    args: &SoakArgs,
    panics_seen: &AtomicU64,
    behaviours: &crate::Behaviours,
    beacon: Option<&stepframe_core::HookBeacon>,
) -> Result<SoakSummary, Failure> {
    if resident_kib().is_none() {
        return Err(bad(
            "no /proc/self/status here: the soak measures resident memory through procfs (Linux)",
        ));
    }
    if !(args.max_growth_mib.is_finite() && args.max_growth_mib >= 0.0) {
        return Err(bad("--max-growth-mib must be a non-negative number"));
    }
    if let Some(n) = args.generate_panics {
        if args.panic_every == 0 {
            return Err(bad("--panic-every must be at least 1"));
        }
        std::fs::write(
            &args.scene,
            panic_scene(n, args.panic_every, args.panic_from),
        )
        .map_err(|e| bad(format!("cannot write {}: {e}", args.scene.display())))?;
        println!(
            "wrote {}: {n} panicking behaviours, one every {} ticks from tick {}",
            args.scene.display(),
            args.panic_every,
            args.panic_from
        );
    }
    let registry = behaviours.registry_for_scene(&args.scene);
    let scene = Scene::load(&args.scene, &registry).map_err(|e| bad(e.to_string()))?;
    let fixed_hz = scene.settings.time.fixed_hz;
    let time = scene.settings.time;
    let frame = (1.0 / f64::from(fixed_hz)).min(time.max_delta);
    if args.ticks > 0 && Flicks::from_secs_f64(frame).scaled(time.time_scale) == Flicks::ZERO {
        return Err(bad(format!(
            "{}: time scale {} feeds the fixed stepper no time, so no tick ever runs and the soak could never reach {} ticks",
            args.scene.display(),
            time.time_scale,
            args.ticks
        )));
    }
    let mut summary = SoakSummary {
        scene: args.scene.display().to_string(),
        ..SoakSummary::default()
    };
    println!(
        "soak {}: {} ticks at {fixed_hz} Hz, one tick per frame, {} mode",
        args.scene.display(),
        args.ticks,
        if args.worker { "worker" } else { "history" }
    );
    if args.worker {
        modes::soak_worker(args, fixed_hz, beacon, &mut summary)?;
    } else {
        modes::soak_history(args, &scene, &registry, beacon, &mut summary)?;
    }
    let seen = panics_seen.load(Ordering::Relaxed);
    if seen > PRINTED_PANICS {
        println!("caught panics: {seen} (the first {PRINTED_PANICS} printed)");
    }
    Ok(summary)
}
