//! Scripts across sessions: two sessions on one file keep their own
//! breakpoints and programs, a forked host runs its own text until adopted,
//! and new vars set mid-run reach the running script.

use super::*;

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
