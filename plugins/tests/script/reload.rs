//! Hot reload and script errors: a reload keeps the script's state, a
//! syntax error keeps the old script running, and a runtime error stops only
//! the script that raised it, with its position.

use super::*;

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
