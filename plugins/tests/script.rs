//! Script behaviours: line breakpoints with the contract's timing, conditional
//! breakpoints and logpoints, hot reload, and determinism.
//!
//! Breakpoints and compiled scripts belong to a session's [`ScriptHost`]:
//! each test that sets a breakpoint or reloads makes its own host, so tests
//! running in parallel never see each other's breakpoints, and a reference
//! run loads the very same file into a second session (a host of its own)
//! that no breakpoint stops. Tests that rewrite a file still write it to
//! their own temporary directory: the file system is shared.

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

fn load_with(text: &str, settings: TimeSettings) -> Pipeline {
    let registry = stepframe_plugins::registry();
    let scene =
        Scene::parse(text, Path::new("test.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut pipeline = Pipeline::new(settings);
    pipeline
        .load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    pipeline.set_settings(settings).expect("valid settings");
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

fn committed_bits(pipeline: &Pipeline) -> Vec<(u64, [u32; 3])> {
    pipeline
        .world()
        .objects()
        .filter_map(|o| {
            let p = o.body.as_ref()?.committed;
            Some((o.id.0, [p.x.to_bits(), p.y.to_bits(), p.angle.to_bits()]))
        })
        .collect()
}

/// The same scene and script in a second session (its own host, which no
/// breakpoint names): the uninterrupted run to compare with.
fn reference_for(path: &Path) -> Pipeline {
    load(&scene_text(path, "{}", BALL, ""))
}

fn only_hit(host: &ScriptHost, path: &Path) -> ScriptHit {
    let hits = host.breakpoints().hits_for(path);
    assert_eq!(hits.len(), 1, "{hits:#?}");
    hits.into_iter().next().expect("one hit")
}

// ----- 1. fixed line breakpoints --------------------------------------------

/// Line numbers below are those of this text (line 1 is the comment).
const PUSHER: &str = r#"// pusher: pushes its ball right, counting ticks
let ticks = 0;
fn fixed_update(dt) {
    let sum = 0;
    for i in 0..4 {
        sum += i;
    }
    let phase = "pushing";
    apply_force(2.0, 0.0);
    phase = "done";
    sum = -1;
    ticks += 1;
}
"#;

#[test]
fn fixed_line_breakpoint_suspends_after_the_tick_with_its_committed_poses_and_locals_at_the_hit() {
    let host = ScriptHost::new();
    let dir = temp_dir("fixed-bp");
    let path = write_script(&dir, "pusher.rhai", PUSHER);
    let mut paused = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    let mut reference = reference_for(&path);

    // Run to tick 9 with no breakpoint, then break on `apply_force` (line 9).
    for _ in 0..9 {
        paused.step_frame(DT);
    }
    host.breakpoints().set(&path, 9);
    let report = paused.step_frame(DT);
    assert_eq!(report.ticks, 1, "the tick with the hit completes");

    let suspension = paused.suspension().expect("suspended").clone();
    assert!(
        suspension.end_of_tick,
        "fixed code suspends at the end of the tick"
    );
    assert_eq!(suspension.tick, 10);
    match &suspension.reason {
        SuspendReason::Requested {
            object,
            hook,
            message,
        } => {
            assert_eq!((*object, *hook), (ObjectId(2), HookKind::FixedUpdate));
            assert!(message.contains("pusher.rhai:9:5"), "{message}");
        }
        other => panic!("unexpected reason {other:?}"),
    }

    // The hit: where, when, and the locals as they were on line 9 (the script
    // later sets phase = "done", sum = -1 and ticks += 1 in the same tick).
    let hit = only_hit(&host, &path);
    assert_eq!((hit.line, hit.column), (9, 5));
    assert_eq!(
        (hit.object, hit.hook, hit.tick),
        (ObjectId(2), HookKind::FixedUpdate, 10)
    );
    assert_eq!(hit.stack, vec!["fixed_update".to_string()]);
    assert_eq!(hit.local("ticks"), Some("9"), "nine ticks completed before");
    assert_eq!(hit.local("sum"), Some("6"), "0 + 1 + 2 + 3");
    assert_eq!(hit.local("phase"), Some("\"pushing\""));
    assert_eq!(
        hit.local("dt").map(|v| v.parse::<f64>().ok()),
        Some(Some(DT))
    );
    assert!(!hit.rerun);

    // The committed state is that of a run stepped to tick 10 without a break.
    for _ in 0..10 {
        reference.step_frame(DT);
    }
    assert_eq!(reference.clock().simulation_tick, 10);
    assert_eq!(committed_bits(&paused), committed_bits(&reference));
    assert_eq!(paused.state_hash(), reference.state_hash());

    // Resume: tick 10's callbacks are not replayed; the script keeps counting.
    host.breakpoints().remove(&path, 9);
    paused.resume();
    for _ in 0..5 {
        paused.step_frame(DT);
        reference.step_frame(DT);
    }
    assert_eq!(paused.clock().simulation_tick, 15);
    assert_eq!(paused.state_hash(), reference.state_hash());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_fixed_breakpoint_in_a_helper_reports_the_call_stack_and_the_helpers_locals() {
    let host = ScriptHost::new();
    let dir = temp_dir("stack");
    let text = r#"let n = 0;
fn twice(v) {
    let r = v * 2;
    r
}
fn fixed_update(dt) {
    n = twice(n + 1);
}
"#;
    let path = write_script(&dir, "stack.rhai", text);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    host.breakpoints().set(&path, 4);
    pipeline.step_frame(DT);
    let hit = only_hit(&host, &path);
    assert_eq!(hit.line, 4);
    assert_eq!(
        hit.stack,
        vec!["twice".to_string(), "fixed_update".to_string()]
    );
    // A helper sees its own scope only: its parameter and local.
    assert_eq!(
        hit.locals,
        vec![("v".into(), "1".into()), ("r".into(), "2".into())]
    );
    host.breakpoints().clear(&path);
    std::fs::remove_dir_all(&dir).ok();
}

// ----- 2. update line breakpoints -------------------------------------------

/// Counts updates, pushes the ball up each frame and logs; line 5 is the log.
const UPDATER: &str = r#"let updates = 0;
fn update(dt) {
    updates += 1;
    apply_impulse(0.0, 0.01);
    log(`update ${updates}`);
}
"#;

#[test]
fn update_line_breakpoint_suspends_before_the_hook_and_the_hook_runs_exactly_once_on_resume() {
    let host = ScriptHost::new();
    let dir = temp_dir("update-bp");
    let path = write_script(&dir, "updater.rhai", UPDATER);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    let mut reference = reference_for(&path);
    host.breakpoints().set(&path, 5);

    // Frame 1 stops in its update phase: before any tick, with nothing of the
    // aborted run left behind (no log line, no impulse, counter not counted).
    let report = pipeline.step_frame(DT);
    assert_eq!(report.ticks, 0);
    let suspension = pipeline.suspension().expect("suspended").clone();
    assert!(
        !suspension.end_of_tick,
        "update code suspends before the hook"
    );
    assert_eq!(suspension.tick, 0);
    assert!(matches!(
        suspension.reason,
        SuspendReason::Requested {
            hook: HookKind::Update,
            ..
        }
    ));
    let hit = only_hit(&host, &path);
    assert_eq!((hit.line, hit.hook, hit.frame), (5, HookKind::Update, 1));
    assert!(hit.rerun);
    assert_eq!(hit.local("updates"), Some("1"), "the value at the line");
    assert!(infos(&mut pipeline).iter().all(|l| !l.contains("update ")));
    assert_eq!(committed_bits(&pipeline), committed_bits(&reference));

    // Resume: the hook runs once, from the state before the aborted run, the
    // same line is not hit again in this call, and the frame goes on.
    let report = pipeline.resume();
    assert_eq!(report.ticks, 1);
    assert_eq!(infos(&mut pipeline), vec!["Info: update 1".to_string()]);
    assert_eq!(host.breakpoints().hits_for(&path).len(), 1);
    reference.step_frame(DT);
    assert_eq!(pipeline.state_hash(), reference.state_hash());
    assert_eq!(committed_bits(&pipeline), committed_bits(&reference));

    // Frame 2 reaches the line again: a new hit, with the counter at 2.
    pipeline.step_frame(DT);
    let hits = host.breakpoints().hits_for(&path);
    assert_eq!(hits.len(), 2);
    assert_eq!((hits[1].frame, hits[1].local("updates")), (2, Some("2")));
    host.breakpoints().clear(&path);
    pipeline.resume();
    assert_eq!(infos(&mut pipeline), vec!["Info: update 2".to_string()]);
    reference.step_frame(DT);
    assert_eq!(pipeline.state_hash(), reference.state_hash());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn start_line_breakpoint_suspends_before_start_and_start_runs_once() {
    let host = ScriptHost::new();
    let dir = temp_dir("start-bp");
    let text = "let starts = 0;\nfn start() {\n    starts += 1;\n    log(`start ${starts}`);\n}\n";
    let path = write_script(&dir, "starter.rhai", text);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    host.breakpoints().set(&path, 4);
    pipeline.step_frame(DT);
    let hit = only_hit(&host, &path);
    assert_eq!(
        (hit.hook, hit.local("starts")),
        (HookKind::Start, Some("1"))
    );
    assert!(infos(&mut pipeline).is_empty());
    host.breakpoints().clear(&path);
    pipeline.resume();
    for _ in 0..3 {
        pipeline.step_frame(DT);
    }
    assert_eq!(infos(&mut pipeline), vec!["Info: start 1".to_string()]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn two_breakpoints_in_one_update_call_stop_twice_and_the_hook_still_runs_once() {
    let host = ScriptHost::new();
    let dir = temp_dir("two-bp");
    let text =
        "let n = 0;\nfn update(dt) {\n    n += 1;\n    log(`a ${n}`);\n    log(`b ${n}`);\n}\n";
    let path = write_script(&dir, "two.rhai", text);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    host.breakpoints().set(&path, 4);
    host.breakpoints().set(&path, 5);
    pipeline.step_frame(DT);
    assert_eq!(only_hit(&host, &path).line, 4);
    pipeline.resume();
    assert!(pipeline.suspension().is_some(), "the second line stops too");
    let hits = host.breakpoints().hits_for(&path);
    assert_eq!(hits.iter().map(|h| h.line).collect::<Vec<_>>(), vec![4, 5]);
    assert!(infos(&mut pipeline).is_empty(), "still nothing applied");
    host.breakpoints().clear(&path);
    pipeline.resume();
    assert_eq!(
        infos(&mut pipeline),
        vec!["Info: a 1".to_string(), "Info: b 1".to_string()]
    );
    std::fs::remove_dir_all(&dir).ok();
}

// ----- 3. conditions and logpoints ------------------------------------------

#[test]
fn conditional_breakpoint_on_a_local_stops_at_the_matching_loop_iteration() {
    let host = ScriptHost::new();
    let dir = temp_dir("cond-local");
    let path = write_script(&dir, "pusher.rhai", PUSHER);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    // Line 6 is `sum += i;`, reached four times per tick.
    host.breakpoints()
        .set_condition(&path, 6, Some("i == 2"))
        .expect("condition parses");
    pipeline.step_frame(DT);
    let hit = only_hit(&host, &path);
    assert_eq!(hit.line, 6);
    assert_eq!(hit.local("i"), Some("2"));
    assert_eq!(hit.local("sum"), Some("1"), "0 + 1 before adding 2");
    host.breakpoints().clear(&path);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn conditional_breakpoint_on_the_clock_stops_mid_frame_and_resume_runs_the_owed_ticks() {
    let host = ScriptHost::new();
    let dir = temp_dir("cond-clock");
    let path = write_script(&dir, "pusher.rhai", PUSHER);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    let mut reference = reference_for(&path);
    host.breakpoints()
        .set_condition(&path, 12, Some("tick == 6"))
        .expect("condition parses");
    // Frames of 4 ticks: ticks 1-4, then 5-8; tick 6 is the second of frame 2.
    pipeline.step_frame(4.0 * DT);
    assert!(pipeline.suspension().is_none());
    let report = pipeline.step_frame(4.0 * DT);
    assert_eq!(report.ticks, 2, "ticks 5 and 6 ran, 7 and 8 are owed");
    let suspension = pipeline.suspension().expect("suspended").clone();
    assert!(suspension.end_of_tick);
    assert_eq!(suspension.tick, 6);
    assert_eq!(pipeline.stepper().owed(), 2);
    let hit = only_hit(&host, &path);
    assert_eq!((hit.line, hit.tick, hit.local("ticks")), (12, 6, Some("5")));
    for _ in 0..6 {
        reference.step_frame(DT);
    }
    assert_eq!(committed_bits(&pipeline), committed_bits(&reference));
    assert_eq!(pipeline.state_hash(), reference.state_hash());

    let report = pipeline.resume();
    assert_eq!(report.ticks, 2);
    assert_eq!(pipeline.clock().simulation_tick, 8);
    assert_eq!(
        host.breakpoints().hits_for(&path).len(),
        1,
        "tick == 6 only once"
    );
    reference.step_frame(DT);
    reference.step_frame(DT);
    assert_eq!(pipeline.state_hash(), reference.state_hash());
    host.breakpoints().clear(&path);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn logpoints_print_without_stopping_and_conditions_gate_them() {
    let host = ScriptHost::new();
    let dir = temp_dir("logpoint");
    let path = write_script(&dir, "pusher.rhai", PUSHER);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    host.breakpoints()
        .set_log_message(&path, 6, Some("tick {tick}: i={i} sum={sum} {{raw}}"))
        .expect("template parses");
    host.breakpoints()
        .set_condition(&path, 6, Some("i % 2 == 1"))
        .expect("condition parses");
    pipeline.step_frame(DT);
    pipeline.step_frame(DT);
    assert!(pipeline.suspension().is_none(), "logpoints never stop");
    assert!(host.breakpoints().hits_for(&path).is_empty());
    let lines: Vec<_> = pipeline
        .drain_log()
        .into_iter()
        .map(|l| (l.level, l.object, l.hook, l.tick, l.message))
        .collect();
    let fixed = Some(HookKind::FixedUpdate);
    let me = Some(ObjectId(2));
    assert_eq!(
        lines,
        vec![
            (
                LogLevel::Info,
                me,
                fixed,
                1,
                "tick 1: i=1 sum=0 {raw}".to_string()
            ),
            (
                LogLevel::Info,
                me,
                fixed,
                1,
                "tick 1: i=3 sum=3 {raw}".to_string()
            ),
            (
                LogLevel::Info,
                me,
                fixed,
                2,
                "tick 2: i=1 sum=0 {raw}".to_string()
            ),
            (
                LogLevel::Info,
                me,
                fixed,
                2,
                "tick 2: i=3 sum=3 {raw}".to_string()
            ),
        ]
    );
    host.breakpoints().clear(&path);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_conditions_and_templates_are_rejected_and_gutter_toggles() {
    let host = ScriptHost::new();
    let dir = temp_dir("bp-table");
    let path = write_script(&dir, "pusher.rhai", PUSHER);
    let err = host
        .breakpoints()
        .set_condition(&path, 6, Some("i == "))
        .expect_err("incomplete expression");
    assert_eq!(err.line, 6);
    assert_eq!(err.kind, ScriptErrorKind::Breakpoint);
    assert!(
        host.breakpoints().lines(&path).is_empty(),
        "nothing changed"
    );
    assert!(
        host.breakpoints()
            .set_log_message(&path, 6, Some("{i"))
            .is_err()
    );
    assert!(host.breakpoints().toggle(&path, 9));
    assert_eq!(
        host.breakpoints()
            .lines(&path)
            .iter()
            .map(|b| b.line)
            .collect::<Vec<_>>(),
        vec![9]
    );
    // Any spelling of the path that resolves to the file is the same script.
    let spelled = dir.join(".").join("pusher.rhai");
    assert!(!host.breakpoints().toggle(&spelled, 9));
    assert!(host.breakpoints().lines(&path).is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

// ----- 4. hot reload ------------------------------------------------------------

#[test]
fn hot_reload_keeps_state_and_a_syntax_error_keeps_the_old_script_running() {
    let host = ScriptHost::new();
    let dir = temp_dir("reload");
    let v1 = "let n = 0;\nfn fixed_update(dt) {\n    n += 1;\n    log(`v1 ${n}`);\n}\n";
    let path = write_script(&dir, "counter.rhai", v1);
    let mut pipeline = load_in(&host, &scene_text(&path, "{}", BALL, ""));
    pipeline.step_frame(DT);
    pipeline.step_frame(DT);
    assert_eq!(infos(&mut pipeline), vec!["Info: v1 1", "Info: v1 2"]);

    // v2 (longer, so the behaviour's own check sees the change): the counter
    // goes on from 2, the new variable starts at its initial value.
    let v2 = "let n = 0;\nlet step = 10;\nfn fixed_update(dt) {\n    n += step;\n    log(`v2 ${n}`);\n}\n";
    std::fs::write(&path, v2).expect("write v2");
    pipeline.step_frame(DT);
    let lines = infos(&mut pipeline);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].ends_with("counter.rhai: reloaded"), "{lines:?}");
    assert_eq!(lines[1], "Info: v2 12");

    // v3 has a syntax error on line 4 at the `;` (column 10): reload reports
    // it and v2 runs on.
    let v3 = "let n = 0;\nlet step = 10;\nfn fixed_update(dt) {\n    n += ;\n}\n";
    std::fs::write(&path, v3).expect("write v3");
    let err = host.reload(&path).expect_err("syntax error");
    assert_eq!((err.line, err.column), (4, 10), "{err}");
    assert_eq!(err.kind, ScriptErrorKind::Syntax);
    let stranger = host
        .reload_text(dir.join("stranger.rhai"), v1)
        .expect_err("no script runs it");
    assert_eq!(stranger.kind, ScriptErrorKind::NotRunning, "{stranger}");
    assert!(err.to_string().contains("counter.rhai:4:10: "), "{err}");
    assert_eq!(host.compile_error(&path), Some(err.clone()));
    pipeline.step_frame(DT);
    let log = pipeline.drain_log();
    let errors: Vec<_> = log.iter().filter(|l| l.level == LogLevel::Error).collect();
    assert_eq!(errors.len(), 1, "{log:?}");
    assert!(
        errors[0].message.contains("counter.rhai:4:10:"),
        "{}",
        errors[0].message
    );
    let infos_after: Vec<_> = log
        .iter()
        .filter(|l| l.level == LogLevel::Info)
        .map(|l| l.message.as_str())
        .collect();
    assert_eq!(infos_after, vec!["v2 22"]);
    pipeline.step_frame(DT);
    assert_eq!(
        infos(&mut pipeline),
        vec!["Info: v2 32"],
        "error logged once, v2 goes on"
    );

    // Fixing the file brings the new version in.
    let v4 = "let n = 0;\nfn fixed_update(dt) {\n    n -= 1;\n    log(`v4 ${n}`);\n}\n";
    std::fs::write(&path, v4).expect("write v4");
    host.reload(&path).expect("v4 compiles");
    assert_eq!(host.compile_error(&path), None);
    pipeline.step_frame(DT);
    let lines = infos(&mut pipeline);
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Info: v4 31"),
        "{lines:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_runtime_error_is_logged_with_its_position_and_stops_only_that_script() {
    let dir = temp_dir("runtime-error");
    let text = "let n = 0;\nfn fixed_update(dt) {\n    n += 1;\n    if n == 3 { let x = \"a\" * 2; }\n    log(`n ${n}`);\n}\n";
    let path = write_script(&dir, "broken.rhai", text);
    let mut pipeline = load(&scene_text(&path, "{}", BALL, ""));
    for _ in 0..5 {
        pipeline.step_frame(DT);
    }
    let log = pipeline.drain_log();
    let messages: Vec<_> = log.iter().map(|l| l.message.as_str()).collect();
    assert_eq!(&messages[..2], &["n 1", "n 2"]);
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(log[2].level, LogLevel::Error);
    assert!(messages[2].contains("broken.rhai:4:"), "{}", messages[2]);
    assert_eq!(pipeline.clock().simulation_tick, 5, "the session goes on");
    std::fs::remove_dir_all(&dir).ok();
}

// ----- the bundled scene and scripts -----------------------------------------

#[test]
fn the_scripts_scene_patrols_and_picks_up_the_coin() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/scripts.ron");
    let scene_dir = path.parent().expect("assets/scenes");
    let registry = stepframe_plugins::registry_for(&ScriptHost::new(), scene_dir);
    let scene = Scene::load(&path, &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline
        .load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    let guard_x = |p: &Pipeline| {
        p.world()
            .physics_simulation_pose(ObjectId(3))
            .map(|pose| f64::from(pose.x))
    };
    let mut picked_at = None;
    for _ in 0..150 {
        pipeline.step_frame(DT);
        let tick = pipeline.clock().simulation_tick;
        // 1.5 m/s from x = -2: x = -2 + 0.025 t until x = 1 (tick 120), then back.
        let expected = if tick <= 120 {
            -2.0 + 0.025 * tick as f64
        } else {
            1.0 - 0.025 * (tick - 120) as f64
        };
        let x = guard_x(&pipeline).expect("guard exists");
        assert!(
            (x - expected).abs() < 1e-4,
            "tick {tick}: guard at {x}, expected {expected}"
        );
        for line in pipeline.drain_log() {
            assert_ne!(line.level, LogLevel::Error, "{}", line.message);
            if line.message.contains("picked up by #2") {
                assert!(picked_at.is_none(), "picked up twice");
                picked_at = Some(line.tick);
            }
        }
    }
    // A body falls g dt^2 k(k+1)/2 in k ticks with velocity integrated first
    // (k(k-1)/2 with position first): 1.7 m needs k(k+1)/2 >= 1.7 / (9.81 /
    // 3600) = 623.9, first true at k = 35 (36 the other way). Rapier detects
    // collisions at the start of a step on the previous tick's poses
    // (rapier_stage docs), so the overlap is reported one tick later: 36 or 37.
    let tick = picked_at.expect("the coin was picked up");
    assert!((36..=37).contains(&tick), "picked up at tick {tick}");
    assert!(
        pipeline.world().get(ObjectId(4)).is_none(),
        "the coin removed itself"
    );
}

// ----- 5. determinism ---------------------------------------------------------

/// The bundled scripts together: a guard, a coin, a dropper spawning balls at
/// random x (the session generator), and a ball pushed by input-free force.
fn determinism_scene() -> String {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts");
    let script = |name: &str| assets.join(name).to_string_lossy().into_owned();
    format!(
        r#"#![enable(implicit_some)]
(
    settings: (gravity: (x: 0.0, y: -9.81), time: (fixed_hz: 60), seed: 99),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 12.0, hy: 0.5)])),
        (id: 2, name: "Player", transform: (x: 3.0, y: 3.0), body: (shapes: [Circle(radius: 0.4)], can_sleep: false)),
        (id: 3, name: "Guard", transform: (x: -2.0, y: 0.5), body: (kind: Kinematic, shapes: [Cuboid(hx: 0.4, hy: 0.5)]),
         behaviours: [(name: "Script", params: (path: {patrol:?}, vars: {{"left": -6.0, "right": 1.0, "speed": 1.5}}))]),
        (id: 4, name: "Coin", transform: (x: 3.0, y: 0.6), body: (kind: Fixed, shapes: [Circle(radius: 0.3)], sensor: true),
         behaviours: [(name: "Script", params: (path: {pickup:?}, vars: {{"player": 2, "value": 10}}))]),
        (id: 5, name: "Dropper", transform: (x: -2.0, y: 6.0),
         behaviours: [(name: "Script", params: (path: {dropper:?}, vars: {{"every": 15, "spread": 3.0, "max": 10}}))]),
    ],
)"#,
        patrol = script("patrol.rhai"),
        pickup = script("pickup.rhai"),
        dropper = script("dropper.rhai"),
    )
}

/// Collects (tick, state hash) after every completed tick.
#[derive(Clone, Default)]
struct Hashes(Arc<Mutex<Vec<(u64, u64)>>>);

impl TickObserver for Hashes {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        self.0
            .lock()
            .expect("hash list")
            .push((record.clock.simulation_tick, record.hash));
    }
}

impl Hashes {
    fn take(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut *self.0.lock().expect("hash list"))
    }
}

/// Irregular display pacing: a fixed pseudo-random walk of frame times between
/// 2 ms and 60 ms, with a 300 ms stall every 50 frames.
fn irregular(frame: usize) -> f64 {
    if frame % 50 == 49 {
        return 0.3;
    }
    let x = (frame as u64)
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    0.002 + (x >> 33) as f64 / (1u64 << 31) as f64 * 0.058
}

fn hashes_under(
    strategy: StepStrategy,
    pacing: &dyn Fn(usize) -> f64,
    ticks: u64,
) -> Vec<(u64, u64)> {
    let settings = TimeSettings {
        strategy,
        max_steps: 32,
        ..TimeSettings::default()
    };
    let mut pipeline = load_with(&determinism_scene(), settings);
    let hashes = Hashes::default();
    pipeline.set_tick_observer(Some(Box::new(hashes.clone())));
    let mut frame = 0;
    while pipeline.clock().simulation_tick < ticks {
        pipeline.step_frame(pacing(frame));
        frame += 1;
    }
    // Every 15 ticks a drop, at most 10 (ticks 15..=150); the coin is gone:
    // 5 authored objects - 1 + 10.
    assert_eq!(pipeline.world().len(), 14, "{strategy:?}");
    let mut all = hashes.take();
    all.truncate(ticks as usize);
    all
}

#[test]
fn scripted_scene_gives_identical_tick_hashes_at_30_60_144_hz_and_irregular_pacing_under_both_strategies()
 {
    const TICKS: u64 = 240;
    let reference = hashes_under(StepStrategy::Accumulator, &|_| DT, TICKS);
    assert_eq!(reference.len(), TICKS as usize);
    assert_eq!(
        reference.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        (1..=TICKS).collect::<Vec<_>>()
    );
    let paces: [(&str, &dyn Fn(usize) -> f64); 4] = [
        ("30 Hz", &|_| 1.0 / 30.0),
        ("60 Hz", &|_| 1.0 / 60.0),
        ("144 Hz", &|_| 1.0 / 144.0),
        ("irregular", &irregular),
    ];
    for strategy in [StepStrategy::Accumulator, StepStrategy::StepCounting] {
        for (name, pace) in paces {
            let got = hashes_under(strategy, pace, TICKS);
            if let Some(at) = got.iter().zip(&reference).position(|(a, b)| a != b) {
                panic!("{strategy:?} at {name}: first mismatch at tick {}", at + 1);
            }
        }
    }
}

#[test]
fn snapshot_restore_mid_run_continues_bit_identically_with_script_state() {
    let mut pipeline = load(&determinism_scene());
    let hashes = Hashes::default();
    pipeline.set_tick_observer(Some(Box::new(hashes.clone())));
    for _ in 0..50 {
        pipeline.step_frame(DT);
    }
    let snapshot = pipeline.snapshot();
    let at_snapshot = pipeline.state_hash();
    hashes.take();
    for _ in 0..100 {
        pipeline.step_frame(DT);
    }
    let first = hashes.take();
    assert_ne!(
        pipeline.state_hash(),
        at_snapshot,
        "scripts and bodies moved on"
    );

    pipeline.restore(&snapshot);
    assert_eq!(pipeline.state_hash(), at_snapshot);
    for _ in 0..100 {
        pipeline.step_frame(DT);
    }
    assert_eq!(
        hashes.take(),
        first,
        "the re-run after restore is bit-identical"
    );
}

#[test]
fn script_state_is_in_the_hash() {
    // Two sessions that differ only in a script variable that nothing else
    // reads have different hashes.
    let dir = temp_dir("hash");
    let text = "let n = 0;\nfn fixed_update(dt) {\n    n += step;\n}\n";
    let path = write_script(&dir, "idle.rhai", text);
    let mut a = load(&scene_text(&path, r#"{"step": 1}"#, "", ""));
    let mut b = load(&scene_text(&path, r#"{"step": 2}"#, "", ""));
    let (ha, hb) = (a.state_hash(), b.state_hash());
    assert_ne!(ha, hb, "vars are state");
    a.step_frame(DT);
    b.step_frame(DT);
    assert_ne!(a.state_hash(), b.state_hash());
    std::fs::remove_dir_all(&dir).ok();
}

// ----- the script API -----------------------------------------------------------

#[test]
fn the_api_reads_the_committed_pose_clock_and_input_and_draws_from_the_session_rng() {
    let dir = temp_dir("api");
    let text = r#"let seen = [];
fn fixed_update(dt) {
    let p = pose();
    let c = clock();
    seen.push([tick(), c.simulation_tick, p.y, rand(), pressed("jump")]);
    if tick() == 2 { log(seen); }
}
"#;
    let path = write_script(&dir, "api.rhai", text);
    let scene = scene_text(
        &path,
        "{}",
        "body: (shapes: [Circle(radius: 0.25)], gravity_scale: 0.0),",
        "",
    )
    .replacen(
        "objects:",
        "actions: (actions: [(name: \"jump\", sources: [Key(\"Space\")])]),\n    objects:",
        1,
    );
    let mut a = load(&scene);
    let mut b = load(&scene);
    a.step_frame(DT);
    a.step_frame(DT);
    b.step_frame(2.0 * DT);
    let la = infos(&mut a);
    assert_eq!(
        la,
        infos(&mut b),
        "same draws, ticks and poses at any pacing"
    );
    assert_eq!(la.len(), 1);
    // Ticks 1 and 2 (pending tick), the body floating at y = 2, no jump held.
    assert!(la[0].starts_with("Info: [[1, 1, 2.0, "), "{}", la[0]);
    assert!(la[0].contains(", false], [2, 2, 2.0, "), "{}", la[0]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scripts_have_no_wall_clock() {
    let dir = temp_dir("no-clock");
    let text = "fn fixed_update(dt) {\n    let t = timestamp();\n}\n";
    let path = write_script(&dir, "clock.rhai", text);
    let mut pipeline = load(&scene_text(&path, "{}", BALL, ""));
    pipeline.step_frame(DT);
    let errors = error_messages(&mut pipeline);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("clock.rhai:2:13") && errors[0].contains("timestamp"),
        "{}",
        errors[0]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_script_routine_that_is_missing_or_returns_a_bad_wait_ends_with_a_logged_reason() {
    let dir = temp_dir("routine-errors");
    let script = write_script(
        &dir,
        "routines.rhai",
        "fn start() {\n\
         \x20   start_routine(\"nowhere\", 0.0);\n\
         \x20   start_routine(\"backwards\", 0.0);\n\
         \x20   start_routine(\"twice\", 0.05);\n\
         }\n\
         let runs = 0;\n\
         fn backwards() { -1.0 }\n\
         fn twice() { runs += 1; log(`twice ${runs} at frame ${frame()}`); if runs < 2 { 0.05 } }\n",
    );
    let mut p = load(&scene_text(&script, "{}", "", ""));
    for _ in 0..12 {
        p.step_frame(DT);
    }
    let log = p.drain_log();
    let lines: Vec<(LogLevel, Option<HookKind>, &str)> = log
        .iter()
        .filter(|l| l.level != LogLevel::Info)
        .map(|l| (l.level, l.hook, l.message.as_str()))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!(
        (lines[0].0, lines[0].1),
        (LogLevel::Error, Some(HookKind::Routine))
    );
    assert!(
        lines[0]
            .2
            .ends_with("routine `nowhere`: the script has no function `nowhere()` without parameters; the routine ends"),
        "{}",
        lines[0].2
    );
    assert_eq!(lines[1].0, LogLevel::Warning);
    assert!(
        lines[1].2.contains("routine `backwards` returned -1"),
        "{}",
        lines[1].2
    );
    // `twice` ran twice, 0.05 s (3 frames) apart on the frame clock, and
    // ended: started in Start of frame 1 (frame time 1/60), due at 4/60 and
    // 7/60. Its count is script state.
    let twice: Vec<&str> = log
        .iter()
        .filter(|l| l.level == LogLevel::Info)
        .map(|l| l.message.as_str())
        .collect();
    assert_eq!(twice, ["twice 1 at frame 4", "twice 2 at frame 7"]);

    // A wait that is not a number of seconds is a script error at the call.
    let bad = write_script(
        &dir,
        "bad.rhai",
        "fn update(dt) { start_routine(\"x\", -2.0); }\nfn x() { }\n",
    );
    let mut p = load(&scene_text(&bad, "{}", "", ""));
    p.step_frame(DT);
    let errors = error_messages(&mut p);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("start_routine: seconds must be a finite number >= 0, got -2"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_script_reads_its_soft_bodys_committed_particles() {
    let dir = temp_dir("particles");
    // Logs the particle count and the first particle's height each tick.
    let script = write_script(
        &dir,
        "particles.rhai",
        "fn fixed_update(dt) { let p = particles(); log(`${p.len()} ${p[0].y}`); }\n",
    );
    let rope =
        "body: (kind: Soft, soft: (shape: Rope(to: (x: 2.0, y: 0.0), particles: 5), pinned: [0])),";
    let mut pipeline = load(&scene_text(&script, "{}", rope, ""));
    pipeline.step_frame(1.0 / 60.0);
    pipeline.step_frame(1.0 / 60.0);
    let lines: Vec<String> = pipeline
        .drain_log()
        .into_iter()
        .map(|l| l.message)
        .collect();
    // The pinned first particle stays at the authored y = 2; five particles.
    assert_eq!(lines, ["5 2.0", "5 2.0"], "{lines:?}");
    let state = pipeline
        .world()
        .get(ObjectId(2))
        .and_then(|o| o.body.as_ref())
        .and_then(|b| b.soft.as_ref())
        .expect("soft body");
    assert_eq!(state.particles.len(), 5);
}

// ----- sessions ------------------------------------------------------------------

#[test]
fn two_sessions_running_one_script_file_have_their_own_breakpoints_and_programs() {
    let dir = temp_dir("two-sessions");
    let v1 = "let n = 0;\nfn fixed_update(dt) {\n    n += 1;\n    log(`v1 ${n}`);\n}\n";
    let path = write_script(&dir, "shared.rhai", v1);
    let (a_host, b_host) = (ScriptHost::new(), ScriptHost::new());
    let text = |hot_reload: bool| {
        scene_text(&path, "{}", BALL, "").replace(
            "vars: {})",
            &format!("vars: {{}}, hot_reload: {hot_reload})"),
        )
    };
    let mut a = load_in(&a_host, &text(false));
    let mut b = load_in(&b_host, &text(false));

    // A breakpoint in session A stops A; B, running the same file, runs on.
    a_host.breakpoints().set(&path, 4);
    a.step_frame(DT);
    b.step_frame(DT);
    assert!(a.suspension().is_some(), "A stops at its breakpoint");
    assert!(b.suspension().is_none(), "B has no breakpoint");
    assert_eq!(a_host.breakpoints().hits_for(&path).len(), 1);
    assert!(b_host.breakpoints().hits_for(&path).is_empty());
    assert!(b_host.breakpoints().lines(&path).is_empty());
    a_host.breakpoints().clear(&path);
    a.resume();
    assert_eq!(infos(&mut a), vec!["Info: v1 1"]);
    assert_eq!(infos(&mut b), vec!["Info: v1 1"]);

    // A reload in A changes A's program only (neither watches the file).
    let v2 = "let n = 0;\nfn fixed_update(dt) {\n    n += 10;\n    log(`v2 ${n}`);\n}\n";
    std::fs::write(&path, v2).expect("write v2");
    a_host.reload(&path).expect("v2 compiles");
    a.step_frame(DT);
    b.step_frame(DT);
    let a_lines = infos(&mut a);
    assert_eq!(a_lines.last().map(String::as_str), Some("Info: v2 11"));
    assert_eq!(infos(&mut b), vec!["Info: v1 2"], "B keeps its program");
    assert_eq!(b_host.source(&path).ok(), Some(v1.to_string()));
    assert_eq!(a_host.source(&path).ok(), Some(v2.to_string()));
    std::fs::remove_dir_all(&dir).ok();
}

/// Every Script of `pipeline` runs on `host` from now on.
fn rebind_all(pipeline: &mut Pipeline, host: &ScriptHost) {
    pipeline.for_each_behaviour_mut(|_, b| {
        if let Some(s) = b.downcast_mut::<stepframe_plugins::Script>() {
            s.rebind(host);
        }
    });
}

#[test]
fn a_forked_host_runs_its_own_text_and_its_scripts_keep_their_state_until_adopted() {
    let dir = temp_dir("fork-host");
    let v1 = "let n = 0;\nfn fixed_update(dt) {\n    n += 1;\n    log(`v1 ${n}`);\n}\n";
    let path = write_script(&dir, "forked.rhai", v1);
    let text =
        scene_text(&path, "{}", BALL, "").replace("vars: {})", "vars: {}, hot_reload: true)");
    let a_host = ScriptHost::new();
    let mut a = load_in(&a_host, &text);
    a.step_frame(DT);
    assert_eq!(infos(&mut a), vec!["Info: v1 1"]);
    a_host.breakpoints().set(&path, 4);
    a_host.breakpoints().set_enabled(&path, 4, false);

    // Branch B: A's state, on a fork of A's host.
    let mut b = Pipeline::new(*a.settings());
    b.restore(&a.snapshot());
    let b_host = a_host.fork();
    rebind_all(&mut b, &b_host);
    assert!(!b_host.same(&a_host));
    assert!(
        b_host.breakpoints().lines(&path).is_empty(),
        "B has no breakpoints"
    );
    assert_eq!(b_host.loaded_text(&path).as_deref(), Some(v1));

    // Text run in B only: B adopts it at its next frame with its variables;
    // the file and A are unchanged.
    let v2 = "let n = 0;\nfn fixed_update(dt) {\n    n += 10;\n    log(`v2 ${n}`);\n}\n";
    b_host.reload_text(&path, v2).expect("v2 compiles");
    a.step_frame(DT);
    b.step_frame(DT);
    assert_eq!(infos(&mut a), vec!["Info: v1 2"], "A keeps v1");
    let b_lines = infos(&mut b);
    assert_eq!(
        b_lines.last().map(String::as_str),
        Some("Info: v2 11"),
        "{b_lines:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some(v1));

    // A syntax error in B's text keeps B's version and names the line.
    let e = b_host
        .reload_text(&path, "fn fixed_update(dt) {\n    n += ;\n}\n")
        .expect_err("a syntax error");
    assert_eq!(e.line, 2, "{e}");
    b.step_frame(DT);
    let b_lines = infos(&mut b);
    assert_eq!(
        b_lines.last().map(String::as_str),
        Some("Info: v2 21"),
        "{b_lines:?}"
    );

    // A Save of the file reaches A (it watches it), not B (a fork's host
    // does not watch files).
    let v3 = "let n = 0;\nfn fixed_update(dt) {\n    n += 100;\n    log(`v3 ${n}`);\n}\n";
    std::fs::write(&path, format!("{v3}\n")).expect("write v3");
    // A modification time of its own, so the change is seen however coarse
    // the filesystem's clock (no sleep racing it).
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| {
            f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(10))
        })
        .expect("set mtime");
    a.step_frame(DT);
    b.step_frame(DT);
    assert_eq!(
        infos(&mut a).last().map(String::as_str),
        Some("Info: v3 102")
    );
    assert_eq!(infos(&mut b), vec!["Info: v2 31"], "B keeps its own text");

    // Adopted: A's host takes B's programs and keeps its breakpoints; B's
    // scripts, rebound to it, go on with their state and program.
    a_host.adopt_programs(&b_host);
    rebind_all(&mut b, &a_host);
    b.step_frame(DT);
    assert_eq!(infos(&mut b), vec!["Info: v2 41"]);
    assert_eq!(a_host.loaded_text(&path).as_deref(), Some(v2));
    assert_eq!(a_host.breakpoints().lines(&path).len(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn new_vars_set_mid_run_reach_the_running_script_and_its_other_state_carries_on() {
    let dir = temp_dir("adopt-vars");
    let text = "let n = 0;\nlet seen = 0.0;\nfn fixed_update(dt) {\n    n += 1;\n    seen = speed * 2.0;\n}\n";
    let path = write_script(&dir, "vars.rhai", text);
    let host = ScriptHost::new();
    let registry = stepframe_plugins::registry_for(&host, Path::new("."));
    let mut p = load_in(&host, &scene_text(&path, "{\"speed\": 1.5}", BALL, ""));
    for _ in 0..5 {
        p.step_frame(DT);
    }
    let var = |p: &mut Pipeline, name: &str| {
        let mut out = None;
        p.for_each_behaviour_mut(|_, b| {
            if let Some(s) = b.downcast_mut::<stepframe_plugins::Script>() {
                out = s.var(name).map(|v| v.to_string());
            }
        });
        out
    };
    assert_eq!(var(&mut p, "n").as_deref(), Some("5"));
    assert_eq!(var(&mut p, "seen").as_deref(), Some("3.0"));
    assert!(host.call_counts().typed > 0, "the typed path ran");

    let params = format!(
        "(path: {:?}, vars: {{\"speed\": 4.0}})",
        path.to_string_lossy()
    );
    p.set_behaviour_params(ObjectId(2), 0, &params, &registry)
        .expect("a Script takes new vars");
    p.step_frame(DT);
    assert_eq!(
        var(&mut p, "n").as_deref(),
        Some("6"),
        "its count carries on"
    );
    assert_eq!(var(&mut p, "seen").as_deref(), Some("8.0"), "the new speed");

    // Another file is another behaviour: refused, nothing changes.
    let other = write_script(&dir, "other.rhai", text);
    let params = format!(
        "(path: {:?}, vars: {{\"speed\": 9.0}})",
        other.to_string_lossy()
    );
    let e = p
        .set_behaviour_params(ObjectId(2), 0, &params, &registry)
        .expect_err("another file");
    assert!(
        matches!(e, stepframe_core::ParamsEditError::NotAdjustable(_)),
        "{e}"
    );
    p.step_frame(DT);
    assert_eq!(var(&mut p, "seen").as_deref(), Some("8.0"));
    std::fs::remove_dir_all(&dir).ok();
}
