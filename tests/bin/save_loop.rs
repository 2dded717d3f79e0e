//! Test helper for `tests/reliability/`: saves two scenes over one file in
//! turn, forever, with `Scene::save`, until it is killed. With
//! `STEPFRAME_SAVE_PAUSE` set, one save stops at a named point (see core's
//! `atomic_file`); the test kills it there with SIGKILL and checks the file
//! is always one whole scene or the other.
//!
//! Usage: `stepframe-save-loop <target> <a.ron> <b.ron>`. Prints `saving` once
//! both scenes are loaded, then nothing (a full pipe must never block it).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use stepframe_core::Scene;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [target, a, b] = args.as_slice() else {
        eprintln!("usage: stepframe-save-loop <target> <a.ron> <b.ron>");
        return ExitCode::from(2);
    };
    let registry = stepframe_plugins::registry();
    let load = |path: &PathBuf| Scene::load(path, &registry);
    let scenes = match (load(a), load(b)) {
        (Ok(a), Ok(b)) => [b, a],
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("stepframe-save-loop: {e}");
            return ExitCode::from(2);
        }
    };
    println!("saving");
    let _ = std::io::stdout().flush();
    // The target starts as `a`, so the first save writes `b`.
    for scene in scenes.iter().cycle() {
        if let Err(e) = scene.save(target) {
            eprintln!("stepframe-save-loop: {e}");
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
