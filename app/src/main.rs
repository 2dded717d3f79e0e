//! The `stepframe` binary: the editor by default, headless tools as sub-commands.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Counts allocations while `stepframe bench` measures them (one relaxed load
/// per allocation otherwise). Only in a binary built with the `bench`
/// feature: the shipped one uses the system allocator directly.
#[cfg(feature = "bench")]
#[global_allocator]
static GLOBAL: stepframe_app::bench::CountingAllocator = stepframe_app::bench::CountingAllocator;

/// stepframe: a game-loop runtime and live debugger.
#[derive(Parser, Debug)]
#[command(name = "stepframe", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the editor on a scene (default: the bundled demo).
    Edit {
        /// Scene to open.
        scene: Option<PathBuf>,
        /// The rewind history's byte budget, MiB (default: the one chosen in
        /// the Clock tab last time, 256 at first).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
        history_mib: Option<u32>,
    },
    /// Run a scene headless through the same step_frame as the editor.
    Play(stepframe_app::player::PlayArgs),
    /// Compare two traces, ignoring the pacing-dependent `frame` field, and
    /// name every object, field and subsystem that differs.
    TraceDiff(stepframe_app::tools::TraceDiffArgs),
    /// Run the pacing matrix of one or more scenes and check every run matches
    /// its scene's 60 Hz reference.
    Check(stepframe_app::tools::CheckArgs),
    /// Print the performance figures as JSON lines.
    Bench(stepframe_app::bench::BenchArgs),
    /// Run a scene for many ticks with the editor's buffers and check memory stays flat.
    Soak(stepframe_app::soak::SoakArgs),
}

fn main() -> ExitCode {
    // Parsed by hand so `check` can see where each `--input` stood.
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.command {
        None => stepframe_app::editor::run(stepframe_app::default_scene(), None),
        Some(Command::Edit { scene, history_mib }) => stepframe_app::editor::run(
            scene.unwrap_or_else(stepframe_app::default_scene),
            history_mib,
        ),
        Some(Command::Play(args)) => stepframe_app::player::run(args),
        Some(Command::TraceDiff(args)) => stepframe_app::tools::trace_diff(args),
        Some(Command::Check(args)) => {
            stepframe_app::tools::check(args, matches.subcommand_matches("check"))
        }
        Some(Command::Bench(args)) => stepframe_app::bench::run(args),
        Some(Command::Soak(args)) => stepframe_app::soak::run(args),
    }
}
