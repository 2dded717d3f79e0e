//! `stepframe trace-diff` and `stepframe check` (being written).

use std::process::ExitCode;

/// Arguments of `stepframe trace-diff`.
#[derive(clap::Args, Debug)]
pub struct TraceDiffArgs {
    /// First trace.
    pub a: std::path::PathBuf,
    /// Second trace.
    pub b: std::path::PathBuf,
}

/// Arguments of `stepframe check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Scene to check.
    pub scene: std::path::PathBuf,
}

/// Runs trace-diff.
pub fn trace_diff(_args: TraceDiffArgs) -> ExitCode {
    eprintln!("stepframe trace-diff: not implemented yet");
    ExitCode::from(1)
}

/// Runs check.
pub fn check(_args: CheckArgs) -> ExitCode {
    eprintln!("stepframe check: not implemented yet");
    ExitCode::from(1)
}
