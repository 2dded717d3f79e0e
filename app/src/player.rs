//! `stepframe play`: the headless player (being written).

use std::process::ExitCode;

/// Arguments of `stepframe play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Scene to play.
    pub scene: std::path::PathBuf,
}

/// Runs the player.
pub fn run(_args: PlayArgs) -> ExitCode {
    eprintln!("stepframe play: not implemented yet");
    ExitCode::from(1)
}
