//! Line breakpoints with the contract's timing: a FixedUpdate line stops
//! after its tick with that tick's committed poses, an Update or Start line
//! before its hook, which then runs exactly once on Resume; conditions,
//! logpoints, and what is rejected.

use super::*;

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

// ----- fixed line breakpoints -----------------------------------------------

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

// ----- update line breakpoints ----------------------------------------------

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

// ----- conditions and logpoints ---------------------------------------------

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
