//! The eframe editor (being written).

use std::path::PathBuf;
use std::process::ExitCode;

/// Opens the editor on a scene.
pub fn run(scene: PathBuf) -> ExitCode {
    eprintln!("editor not implemented yet (scene {})", scene.display());
    ExitCode::from(1)
}
