//! `stepframe soak`: a long headless run that proves memory stays flat.
//!
//! The run keeps everything a live editor session keeps, each in its bounded
//! buffer, and checks that the process stops growing once every buffer is full:
//!
//! | buffer | bound (default) |
//! |---|---|
//! | telemetry ring ([`Telemetry`]) | `--telemetry-frames` 216,000 frames (an hour at 60 Hz) |
//! | rewind history ([`History`]) | a keyframe every `--keyframe-every` 120 frames, `--retention-frames` 36,000 frames kept |
//! | scrubbing poses ([`PoseHistory`]) | `--pose-budget-mib` 64 MiB |
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
//! load, or one that can never reach `--ticks`.
//!
//! ```text
//! stepframe soak assets/scenes/demo.ron --ticks 1000000
//! ```

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use stepframe_core::history::{DEFAULT_KEYFRAME_EVERY, DEFAULT_RETENTION_FRAMES};
use stepframe_core::telemetry::DEFAULT_CAPACITY;
use stepframe_core::{
    Flicks, History, LogEntry, LogLevel, Pipeline, PoseHistory, Scene, Telemetry, finish_frame,
};

use crate::editor::log::LOG_CAPACITY;
use crate::editor::protocol::{Command, Event, Pacing};
use crate::editor::worker::{self, Worker};

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
}

/// Behaviours per object in a generated panic scene.
pub const PANICS_PER_OBJECT: u64 = 10;

/// The hooks a generated panic scene cycles through.
const PANIC_HOOKS: [&str; 5] = ["Update", "FlowTick", "FixedUpdate", "Routine", "Present"];

/// A scene of `n` `Faulty` behaviours that each panic once (`repeat: true`,
/// so one that was not disabled would panic on every later call too):
/// behaviour `j` (from 0) sits on object `j / 10 + 1`, ten to an object, and
/// panics in hook `j mod 5` of Update, FlowTick, FixedUpdate, Routine, Present
/// from tick `from + j × every`. No bodies: the soak measures the runtime and
/// the editor's buffers, not the physics engine.
pub fn panic_scene(n: u64, every: u64, from: u64) -> String {
    use std::fmt::Write as _;
    let objects = n.div_ceil(PANICS_PER_OBJECT);
    let mut s = String::from("// Generated by `stepframe soak --generate-panics`.\n(objects: [\n");
    for o in 0..objects {
        let _ = write!(
            s,
            "(id: {}, name: \"Panics {}\", behaviours: [",
            o + 1,
            o + 1
        );
        for j in o * PANICS_PER_OBJECT..((o + 1) * PANICS_PER_OBJECT).min(n) {
            let hook = PANIC_HOOKS[(j % 5) as usize];
            let tick = from + j * every;
            let _ = write!(
                s,
                "(name: \"Faulty\", params: (hook: {hook}, tick: {tick}, fault: Panic, repeat: true)), "
            );
        }
        s.push_str("]),\n");
    }
    s.push_str("])\n");
    s
}

/// Panics of [`panic_scene`] due within a run of `ticks` ticks at one tick a
/// frame: one due at tick `t` fires by frame `t + 1` at the latest (update
/// phase and routines see `t` completed ticks in frame `t + 1`).
pub fn panics_due(n: u64, every: u64, from: u64, ticks: u64) -> u64 {
    (0..n).filter(|j| from + j * every < ticks).count() as u64
}

/// Ticks between two resident-memory samples.
const SAMPLE_EVERY: u64 = 1_000;

/// Caught hook panics whose default message is still printed; the rest are
/// only counted (the pipeline logs every one of them anyway).
const PRINTED_PANICS: u64 = 3;

/// Log lines printed to stderr as they arrive; the rest are only kept in
/// the ring and counted.
const PRINTED_LOG_LINES: u64 = 10;

/// Panics seen by the soak's panic hook.
static PANICS_SEEN: AtomicU64 = AtomicU64::new(0);

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

/// Resident memory of this process, KiB: `(VmRSS, VmHWM)` from
/// `/proc/self/status`. `None` where there is no procfs.
pub fn resident_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

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

/// Pushes after which a ring of at most `len` entries has written every slot
/// it can own: a `VecDeque` doubles as it grows, so it owns fewer than
/// `2 × len` slots (see the module docs, warm-up).
fn ring_walked_after(len: u64) -> u64 {
    2 * len
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

/// Runs `stepframe soak` (see the module docs).
pub fn run(args: SoakArgs) -> ExitCode {
    install_quiet_panic_hook();
    match soak(&args) {
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

/// Prints the first few caught panics (one line each: where and what), then
/// only counts them: a soak of 10,000 hook panics must not write 20,000 lines
/// to stderr, nor symbolise 10,000 backtraces when `RUST_BACKTRACE` is set
/// (the first symbolisation alone maps ~250 MB of debug info, which would
/// read as growth). The pipeline logs every panic with object, hook and tick.
fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let n = PANICS_SEEN.fetch_add(1, Ordering::Relaxed);
        if n < PRINTED_PANICS {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            eprintln!("panic at {at}: {message}");
        } else if n == PRINTED_PANICS {
            eprintln!("(further panics are only counted; the log has each one)");
        }
    }));
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

/// Memory bookkeeping shared by both modes.
#[derive(Debug)]
struct Meter {
    warmup_tick: u64,
    rss_warmup: u64,
    rss_max_after: u64,
    rss_last: u64,
    peak: u64,
    next_sample: u64,
    next_report: u64,
    report_every: u64,
    started: Instant,
}

impl Meter {
    fn new(report_every: u64) -> Meter {
        Meter {
            warmup_tick: 0,
            rss_warmup: 0,
            rss_max_after: 0,
            rss_last: 0,
            peak: 0,
            next_sample: 0,
            next_report: report_every.max(1),
            report_every: report_every.max(1),
            started: Instant::now(),
        }
    }

    /// Samples when due; ends warm-up when `warm` first holds. `describe`
    /// says what the buffers hold, for progress lines.
    fn tick(&mut self, tick: u64, warm: bool, describe: impl FnOnce() -> String) {
        let end_warmup = warm && self.warmup_tick == 0;
        let report = tick >= self.next_report;
        if tick < self.next_sample && !end_warmup && !report {
            return;
        }
        self.next_sample = tick + SAMPLE_EVERY;
        let Some((rss, hwm)) = resident_kib() else {
            return;
        };
        self.rss_last = rss;
        self.peak = hwm;
        if end_warmup {
            self.warmup_tick = tick.max(1);
            self.rss_warmup = rss;
            self.rss_max_after = rss;
            println!(
                "warm-up ended at tick {tick}: every buffer full and written round; resident {:.1} MiB",
                mib(rss)
            );
        } else if self.warmup_tick > 0 {
            self.rss_max_after = self.rss_max_after.max(rss);
        }
        if report {
            self.next_report = tick + self.report_every;
            let secs = self.started.elapsed().as_secs_f64();
            println!(
                "tick {tick}: resident {:.1} MiB, {}, {:.0} ticks/s",
                mib(rss),
                describe(),
                tick as f64 / secs.max(1e-9)
            );
            let _ = std::io::stdout().flush();
        }
    }

    fn finish(&mut self, summary: &mut SoakSummary, max_growth_mib: f64) {
        if let Some((rss, hwm)) = resident_kib() {
            self.rss_last = rss;
            self.peak = hwm;
            if self.warmup_tick > 0 {
                self.rss_max_after = self.rss_max_after.max(rss);
            }
        }
        let seconds = self.started.elapsed().as_secs_f64();
        summary.seconds = seconds;
        summary.ticks_per_second = summary.ticks as f64 / seconds.max(1e-9);
        summary.warmup_tick = self.warmup_tick;
        summary.rss_warmup_kib = self.rss_warmup;
        summary.rss_end_kib = self.rss_last;
        summary.rss_max_after_warmup_kib = self.rss_max_after;
        summary.growth_kib = self.rss_max_after.saturating_sub(self.rss_warmup);
        summary.bound_kib = (max_growth_mib.max(0.0) * 1024.0) as u64;
        // VmHWM is updated lazily by the kernel; a later VmRSS sample can exceed it.
        summary.rss_peak_kib = self.peak.max(self.rss_max_after);
    }
}

fn soak(args: &SoakArgs) -> Result<SoakSummary, Failure> {
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
    let registry = crate::player::registry(&args.scene);
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
        soak_worker(args, fixed_hz, &mut summary)?;
    } else {
        soak_history(args, &scene, &registry, &mut summary)?;
    }
    let seen = PANICS_SEEN.load(Ordering::Relaxed);
    if seen > PRINTED_PANICS {
        println!("caught panics: {seen} (the first {PRINTED_PANICS} printed)");
    }
    Ok(summary)
}

/// The player's loop with the editor's buffers: telemetry ring, rewind
/// history, pose history, log ring.
fn soak_history(
    args: &SoakArgs,
    scene: &Scene,
    registry: &stepframe_core::Registry,
    summary: &mut SoakSummary,
) -> Result<(), Failure> {
    summary.mode = "history".into();
    let mut pipeline = Pipeline::new(scene.settings.time);
    pipeline
        .load_scene(scene, registry)
        .map_err(|e| bad(e.to_string()))?;
    let dt = 1.0 / f64::from(scene.settings.time.fixed_hz);
    let mut telemetry = Telemetry::with_capacity(args.telemetry_frames.unwrap_or(DEFAULT_CAPACITY));
    let mut history = History::new(args.keyframe_every, args.retention_frames);
    let max_keyframes = (args.retention_frames.max(args.keyframe_every.max(1))
        / args.keyframe_every.max(1))
    .max(1) as usize;
    let history_walked = ring_walked_after(args.retention_frames + args.keyframe_every);
    let poses = Arc::new(Mutex::new(PoseHistory::with_budget(
        args.pose_budget_mib << 20,
    )));
    pipeline.set_tick_observer(Some(Box::new(poses.clone())));
    let mut log = LogRing::new(args.log_lines);
    let mut meter = Meter::new(args.report_every);
    let lock = |m: &Mutex<PoseHistory>| {
        let guard = m.lock().unwrap_or_else(|p| p.into_inner());
        (guard.range(), guard.memory_bytes())
    };

    let mut progress = Progress::default();
    while pipeline.stepper().completed_ticks() < args.ticks {
        let first = history.step_frame(&mut pipeline, dt, &[]);
        telemetry.record(&first, pipeline.clock());
        // A soak has no one at the controls: every suspension is resumed at
        // once, each call recorded as the editor's timeline records it.
        let resumed = finish_frame(
            &mut pipeline,
            first,
            |p| {
                let more = history.resume(p, &[]);
                telemetry.record(&more, p.clock());
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
        progress.frame(pipeline.stepper().completed_ticks())?;
        for entry in pipeline.drain_log() {
            log.push(entry);
        }
        let tick = pipeline.stepper().completed_ticks();
        let (range, pose_bytes) = lock(&poses);
        let warm = match args.warmup {
            Some(w) => tick >= w,
            None => {
                telemetry.len() == telemetry.capacity()
                    && telemetry.pushed() >= telemetry.records().capacity() as u64
                    && history.keyframes() == max_keyframes
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
                history.keyframes(),
                pose_bytes as f64 / f64::from(1 << 20),
                args.pose_budget_mib,
                log.lines.len(),
                log.capacity
            )
        });
    }
    summary.ticks = pipeline.stepper().completed_ticks();
    summary.errors = log.errors;
    summary.panics = log.panics;
    summary.log_ring = log.lines.len();
    summary.telemetry_ring = telemetry.len();
    summary.keyframes = history.keyframes();
    summary.pose_bytes = lock(&poses).1;
    meter.finish(summary, args.max_growth_mib);
    Ok(())
}

/// The editor's worker, driven one frame at a time, with the UI's part
/// played here: every channel drained each frame into the editor's rings.
fn soak_worker(args: &SoakArgs, fixed_hz: u32, summary: &mut SoakSummary) -> Result<(), Failure> {
    summary.mode = "worker".into();
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(fixed_hz), None);
    let dt = 1.0 / f64::from(fixed_hz);
    let send = |c: Command| {
        ui.commands
            .send(c)
            .map_err(|_| bad("the worker's command channel closed"))
    };
    send(Command::LoadAndPlay(absolute(&args.scene)))?;
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
        // Latest wins: the UI keeps only the newest view.
        let _ = ui.views.try_iter().last();
        for event in ui.events.try_iter() {
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
                Event::Loaded { .. } => loaded = true,
                Event::Error(message) if !loaded => return Err(bad(message)),
                Event::Error(message) => eprintln!("worker error: {message}"),
                Event::Suspended(_) => {
                    // Headless: nobody to press Play, so resume at once.
                    summary.resumed += 1;
                    send(Command::Play)?;
                }
                // Resumed, saved, and what the UI draws (poses, rewinds).
                _ => {}
            }
        }
        progress.frame(tick)?;
        let warm = match args.warmup {
            Some(wt) => tick >= wt,
            None => {
                telemetry.len() == capacity
                    && telemetry.pushed() >= telemetry.records().capacity() as u64
                    && summary.frames >= history_walked
            }
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
    summary.ticks = tick;
    summary.errors = log.errors;
    summary.panics = log.panics;
    summary.log_ring = log.lines.len();
    summary.telemetry_ring = telemetry.len();
    meter.finish(summary, args.max_growth_mib);
    Ok(())
}

fn absolute(path: &Path) -> PathBuf {
    worker::absolute(path)
}
