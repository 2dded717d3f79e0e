//! Fuzzing small formats the way `fuzz_scene.rs` fuzzes scenes: random
//! byte edits of the input tape (`assets/recordings/demo.ron`, core's
//! `Recording::parse`), of session recordings (version 2, with the editor's
//! edits: `assets/recordings/demo-session.ron` and a short one with an edit
//! of every kind) and of watch expressions (`WatchSet::new`) never panic; a
//! rejected text gets an error with line ≥ 1 and column ≥ 1 inside the text;
//! an accepted one runs (a tape or a session replays into a session, a watch
//! is asked after a few ticks) without panicking. Cases:
//! `STEPFRAME_FUZZ_CASES` (default 256). The mutator is `fuzz_support`.

use std::path::Path;

use stepframe_core::{FileError, Pipeline, Recording, Replay, Scene, TickWatch, TimeSettings};
use stepframe_plugins::{WatchAction, WatchError, WatchSet, WatchSpec};

mod fuzz_support;
use fuzz_support::{points_into, run};

/// A rejected recording's error must point into the text; any other kind of
/// error is a bug (parse errors are the only ones a text can cause).
fn recording_error_points_into(text: &str, error: FileError) -> Result<(), String> {
    match error {
        FileError::Parse {
            line,
            column,
            message,
            ..
        }
        | FileError::Invalid {
            line,
            column,
            message,
            ..
        } => placed_in(text, line, column, &message),
        other => Err(format!("unexpected error kind: {other}")),
    }
}

/// `Ok` when the error at `line`:`column` points into `text` and says
/// something; otherwise what is wrong with it.
fn placed_in(text: &str, line: usize, column: usize, message: &str) -> Result<(), String> {
    if points_into(text, line, column) && !message.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "error at {line}:{column} ({message}) is not in the text"
        ))
    }
}

#[test]
fn mutated_tapes_never_panic_and_errors_have_positions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let demo = std::fs::read_to_string(root.join("assets/recordings/demo.ron")).expect("demo tape");
    let small = "(version: 1, fixed_hz: 60, ticks: 9, events: [\n    (tick: 3, source: Key(\"Space\"), value: 1.0),\n    (tick: 7, source: GamepadAxis(\"LeftStickX\"), value: -0.5),\n])\n".to_string();
    run("tape", &[demo, small], |text| {
        match Recording::parse(text, Path::new("fuzz.ron")) {
            Ok(recording) => {
                // It replays: a few frames of a session fed by it.
                let mut p = Pipeline::new(TimeSettings::default());
                p.set_tick_input(Some(Box::new(Replay::new(recording))));
                for _ in 0..3 {
                    p.step_frame(1.0 / 60.0);
                }
                Ok(())
            }
            Err(e) => recording_error_points_into(text, e),
        }
    });
}

/// A session recording of the demo with an edit of every kind in its first
/// ticks, so a replay of a few frames applies them all.
const SHORT_SESSION: &str = r#"(
    version: 2,
    fixed_hz: 60,
    ticks: 8,
    events: [
        (tick: 1, source: Key("ArrowRight"), value: 1.0),
        (tick: 4, source: Key("Space"), value: 1.0),
    ],
    edits: [
        (tick: 2, edit: Pose(object: 20, pose: (x: -8.0, y: 3.0, angle: 0.0))),
        (tick: 2, edit: Params(object: 20, index: 0, behaviour: "PlayerController",
            params: "(move_force: 25.0, max_speed: 7.0, jump_impulse: 9.0, charge_impulse_per_second: 6.0)")),
        (tick: 3, edit: Enabled(object: 203, enabled: false)),
        (tick: 4, edit: Settings((fixed_hz: 50, max_delta: 0.25, max_steps: 4, time_scale: 1.0,
            substeps: 1, strategy: Accumulator))),
        (tick: 5, edit: Velocity(object: 20, velocity: (linear: (x: 0.0, y: 4.0), angular: 0.0))),
    ],
)
"#;

#[test]
fn mutated_session_recordings_never_panic_and_errors_have_positions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let demo_session = std::fs::read_to_string(root.join("assets/recordings/demo-session.ron"))
        .expect("demo session");
    let registry = stepframe_plugins::registry_for(
        &stepframe_plugins::ScriptHost::new(),
        &root.join("assets/scenes"),
    );
    let scene = Scene::load(&root.join("assets/scenes/demo.ron"), &registry).expect("demo");
    let short = Recording::parse(SHORT_SESSION, Path::new("short.ron")).expect("the seed parses");
    assert_eq!(
        (short.version, short.edits.len()),
        (2, 5),
        "every edit kind"
    );
    run(
        "session",
        &[demo_session, SHORT_SESSION.to_string()],
        |text| {
            match Recording::parse(text, Path::new("fuzz-session.ron")) {
                Ok(recording) => {
                    // It replays into the scene it was made of: its edits apply
                    // (or are refused and logged) at their ticks.
                    let mut p = Pipeline::new(TimeSettings::default());
                    p.load_scene(&scene, &registry).map_err(|e| e.to_string())?;
                    p.set_tick_input(Some(Box::new(Replay::new(recording))));
                    for _ in 0..8 {
                        p.step_frame(1.0 / 60.0);
                    }
                    Ok(())
                }
                Err(e) => recording_error_points_into(text, e),
            }
        },
    );
}

#[test]
fn mutated_watch_expressions_never_panic_and_errors_have_positions() {
    let seeds: Vec<String> = [
        "obj(20).y < 0",
        "contact(20, 1) && tick > 10",
        "state(20).contains(\"grounded = true\")",
        "alpha > 0.5 || accumulator >= fixed_dt",
        "if tick % 2 == 0 { obj(20).vx } else { 0.0 }",
        "[1, 2, 3].len() + sim_time",
        "#{a: 1, b: \"x\"}.a == 1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run("watch", &seeds, |text| {
        let spec = WatchSpec {
            expr: text.to_string(),
            action: WatchAction::Plot,
            enabled: true,
        };
        match WatchSet::new(&[spec]) {
            Ok(mut set) => {
                let mut p = Pipeline::new(TimeSettings::default());
                for _ in 0..2 {
                    p.step_frame(1.0 / 60.0);
                    let _ = set.after_tick(&p);
                }
                Ok(())
            }
            Err(WatchError::InWatch { error, .. }) => match *error {
                WatchError::Syntax {
                    line,
                    column,
                    message,
                    ..
                } => placed_in(text, line, column, &message),
                other => Err(format!("unexpected error kind: {other}")),
            },
            Err(other) => Err(format!("unexpected error kind: {other}")),
        }
    });
}
