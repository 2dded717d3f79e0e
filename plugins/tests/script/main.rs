//! Script behaviours, one test binary: line breakpoints with the
//! contract's timing, conditional breakpoints and logpoints
//! (`breakpoints`), hot reload and script errors (`reload`), determinism
//! (`determinism`), the script API (`api`) and scripts across sessions
//! (`sessions`). What they share is here.
//!
//! Breakpoints and compiled scripts belong to a session's [`ScriptHost`]:
//! each test that sets a breakpoint or reloads makes its own host, so tests
//! running in parallel never see each other's breakpoints, and a reference
//! run loads the very same file into a second session (a host of its own)
//! that no breakpoint stops. Tests that rewrite a file still write it to
//! their own temporary directory: the file system is shared.

mod api;
mod breakpoints;
mod determinism;
mod reload;
mod sessions;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use stepframe_core::{
    HookKind, LogLevel, ObjectId, Pipeline, Scene, StepStrategy, SuspendReason, TickObserver,
    TickRecord, TimeSettings,
};
use stepframe_plugins::ScriptHost;
use stepframe_plugins::script::{ScriptErrorKind, ScriptHit};

const DT: f64 = 1.0 / 60.0;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stepframe-script-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes a script and returns its path.
fn write_script(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write script");
    path
}

/// A scene with a floor and one object running `script` (a ball when
/// `dynamic`, else a bodyless object), plus extra objects as RON text.
fn scene_text(script: &Path, vars: &str, body: &str, extra: &str) -> String {
    format!(
        r#"#![enable(implicit_some)]
(
    settings: (gravity: (x: 0.0, y: -9.81), time: (fixed_hz: 60), seed: 5),
    objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 0.5)])),
        (id: 2, name: "Scripted", transform: (x: 0.0, y: 2.0), {body}
         behaviours: [(name: "Script", params: (path: {path:?}, vars: {vars}))]),
        {extra}
    ],
)"#,
        path = script.to_string_lossy(),
    )
}

const BALL: &str = "body: (shapes: [Circle(radius: 0.25)], can_sleep: false),";

/// Loads a scene into a session of its own (a fresh host).
fn load(text: &str) -> Pipeline {
    load_in(&ScriptHost::new(), text)
}

/// Loads a scene into a session whose scripts `host` holds.
fn load_in(host: &ScriptHost, text: &str) -> Pipeline {
    let registry = stepframe_plugins::registry_for(host, Path::new("."));
    let scene =
        Scene::parse(text, Path::new("test.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut pipeline = Pipeline::new(scene.settings.time);
    pipeline
        .load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    pipeline
}

/// The messages of the error lines logged since the last drain.
fn error_messages(pipeline: &mut Pipeline) -> Vec<String> {
    pipeline
        .drain_log()
        .into_iter()
        .filter(|l| l.level == LogLevel::Error)
        .map(|l| l.message)
        .collect()
}

fn infos(pipeline: &mut Pipeline) -> Vec<String> {
    pipeline
        .drain_log()
        .into_iter()
        .map(|l| format!("{:?}: {}", l.level, l.message))
        .collect()
}
