//! The command line of `stepframe play`: its arguments, the log threshold,
//! and the scene's time settings with the command line's overrides applied
//! (`--fixed-hz 120` on a 60 Hz scene runs it at 120 Hz, every other setting
//! kept).

use std::path::PathBuf;

use stepframe_core::{LogLevel, StepStrategy, TimeSettings};

use super::{Pacing, Stall};

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
    /// deltas, and so the results, are the same). Scripts with `hot_reload`
    /// then pick up a saved change of their file at the next frame, as in the
    /// editor; a flat-out run keeps the versions it loaded.
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
    /// The supervisor's limits, or none (`--in-process`).
    #[command(flatten)]
    pub isolation: super::Isolation,
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
