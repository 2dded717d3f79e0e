//! `stepframe bench` (being written).

use std::process::ExitCode;

/// Arguments of `stepframe bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {}

/// Runs the benchmarks.
pub fn run(_args: BenchArgs) -> ExitCode {
    eprintln!("stepframe bench: not implemented yet");
    ExitCode::from(1)
}
