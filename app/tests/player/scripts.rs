//! Scripts in headless runs: flat-out runs keep the files they loaded, a live
//! one follows them; log lines and their frames; routines on their time group.

use std::path::Path;

use crate::support::{code, path_str, scratch, stderr, stdout, stepframe, stepframe_saying};

/// A scene of one dynamic ball (id 7) running the script `source`.
fn scripted_ball(dir: &Path, name: &str, source: &str) -> std::path::PathBuf {
    let script = dir.join(format!("{name}.rhai"));
    std::fs::write(&script, source).expect("write");
    let scene = dir.join(format!("{name}.ron"));
    std::fs::write(
        &scene,
        format!(
            r#"#![enable(implicit_some)]
(
    settings: (gravity: (x: 0.0, y: 0.0)),
    objects: [(id: 7, name: "Ball", body: (shapes: [Circle(radius: 0.5)]),
               behaviours: [(name: "Script", params: (path: "{}"))])],
)
"#,
            path_str(&script)
        ),
    )
    .expect("write");
    scene
}

#[test]
fn a_flat_out_session_keeps_the_scripts_it_loaded_and_a_live_one_follows_their_files() {
    // `play` without `--realtime`, `check`, `soak` and `bench` load with
    // `registry_for_scene`: a script saved during the run changes nothing,
    // so the run is the same whenever the save lands. `play --realtime`
    // loads with `registry_for_live_scene`, whose Scripts adopt the saved
    // text at the next frame, as before.
    let dir = scratch("batch-reload");
    let v1 = "fn update(dt) { log(\"v1\"); }\n";
    let scene = scripted_ball(&dir, "say", v1);
    let script = dir.join("say.rhai");
    let behaviours = stepframe_app::Behaviours::built_in();
    for (live, expected) in [(false, "v1"), (true, "version two")] {
        std::fs::write(&script, v1).expect("write v1");
        let registry = if live {
            behaviours.registry_for_live_scene(&scene)
        } else {
            behaviours.registry_for_scene(&scene)
        };
        let loaded = stepframe_core::Scene::load(&scene, &registry).expect("the scene loads");
        let mut pipeline = stepframe_core::Pipeline::new(loaded.settings.time);
        pipeline.load_scene(&loaded, &registry).expect("it loads");
        pipeline.step_frame(1.0 / 60.0);
        pipeline.drain_log();
        // Longer, so the file's length tells the change even within the
        // filesystem's timestamp granularity.
        std::fs::write(&script, "fn update(dt) { log(\"version two\"); }\n").expect("write v2");
        pipeline.step_frame(1.0 / 60.0);
        let said: Vec<String> = pipeline
            .drain_log()
            .into_iter()
            .filter(|l| !l.message.ends_with("reloaded"))
            .map(|l| l.message)
            .collect();
        assert_eq!(said, vec![expected.to_string()], "live: {live}");
    }
}

#[test]
fn a_warning_raised_during_reconcile_carries_the_frame_its_tick_ran_in() {
    // A kinematic target for a dynamic body is refused by the physics stage at
    // the reconcile of tick 10. At 30 Hz, two ticks a frame, tick 10 runs in
    // frame 5: the line says so (it used to say frame 0).
    let dir = scratch("reconcile-stamp");
    let scene = scripted_ball(
        &dir,
        "target",
        "fn fixed_update(dt) { if tick() == 10 { set_kinematic_target(1.0, 0.0, 0.0); } }\n",
    );
    let out = stepframe(&["play", path_str(&scene), "--frames", "8", "--pacing", "30"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "warning: tick 10 (frame 5) #7: kinematic target ignored: #7 is not kinematic"
        ),
        "{err}"
    );
}

#[test]
fn log_info_shows_the_log_lines_of_scripts_and_warn_is_the_default() {
    let dir = scratch("log-level");
    let scene = scripted_ball(
        &dir,
        "talk",
        "fn update(dt) { if frame() == 3 { log(\"hello from frame 3\"); warn(\"careful\"); } }\n",
    );
    let scene = path_str(&scene);
    let line = "info: tick 2 (frame 3) #7 Update: hello from frame 3";
    let warning = "warning: tick 2 (frame 3) #7 Update: careful";
    let info = stepframe(&["play", scene, "--frames", "5", "--log", "info"]);
    assert_eq!(code(&info), 0, "{}", stderr(&info));
    assert!(stderr(&info).contains(line), "{}", stderr(&info));
    assert!(stderr(&info).contains(warning), "{}", stderr(&info));
    let default = stepframe(&["play", scene, "--frames", "5"]);
    assert_eq!(code(&default), 0, "{}", stderr(&default));
    assert!(!stderr(&default).contains("hello"), "{}", stderr(&default));
    assert!(stderr(&default).contains(warning), "{}", stderr(&default));
    let errors_only = stepframe(&["play", scene, "--frames", "5", "--log", "error"]);
    assert_eq!(code(&errors_only), 0, "{}", stderr(&errors_only));
    assert!(
        !stderr(&errors_only).contains("careful"),
        "{}",
        stderr(&errors_only)
    );
    let bad = stepframe(&["play", scene, "--log", "loud"]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn scripts_start_timed_routines_on_their_objects_time_group() {
    // The same script on two objects: from its first FixedUpdate it starts
    // `ping` 0.5 s later, and `ping` asks to run once more 0.25 s after that.
    // Object 1 keeps the default time group (the frame clock), object 2 says
    // `time_group: Fixed`. A 1 s stall at frame 5 (clamped to 0.25 s, 4 ticks
    // run and 11 dropped) pulls the two clocks apart.
    let dir = scratch("script-routines");
    let script = dir.join("routines.rhai");
    std::fs::write(
        &script,
        "let pings = 0;\n\
         fn fixed_update(dt) { if tick() == 1 { start_routine(\"ping\", 0.5); } }\n\
         fn ping() {\n\
         \x20   pings += 1;\n\
         \x20   log(`ping ${pings} (${hook()}) at frame ${frame()}, tick ${tick()}`);\n\
         \x20   if pings < 2 { 0.25 }\n\
         }\n",
    )
    .expect("write");
    let scene = dir.join("routines.ron");
    let behaviour = format!(
        r#"behaviours: [(name: "Script", params: (path: "{}"))]"#,
        path_str(&script)
    );
    std::fs::write(
        &scene,
        format!(
            "(objects: [\n    (id: 1, name: \"Frame clock\", {behaviour}),\n    (id: 2, name: \"Fixed clock\", time_group: Fixed, {behaviour}),\n])\n"
        ),
    )
    .expect("write");
    let scene = path_str(&scene);
    let out = stepframe(&[
        "play", scene, "--frames", "50", "--stall", "5:1.0", "--log", "info",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    let pings: Vec<&str> = err.lines().filter(|l| l.contains(": ping ")).collect();
    // Object 1, frame clock, although started from FixedUpdate: started at a
    // frame time of 1/60 s, due at 31/60. Frame k >= 5 ends at (k + 14)/60
    // (frames 1-4: 1/60 each, frame 5: 0.25 s), so frame 17's update phase
    // runs it, 19 ticks in; then 46/60: frame 32, 34 ticks in.
    // Object 2, fixed clock: started in tick 1 (which starts at 0), due at
    // simulation time 0.5 = the start of tick 31, run by frame 28 (frame 5
    // ran ticks 5-8, frame k >= 6 runs tick k + 3); then tick 46, frame 43.
    assert_eq!(
        pings,
        [
            "info: tick 19 (frame 17) #1 Routine: ping 1 (Routine) at frame 17, tick 19",
            "info: tick 31 (frame 28) #2 Routine: ping 1 (Routine) at frame 28, tick 31",
            "info: tick 34 (frame 32) #1 Routine: ping 2 (Routine) at frame 32, tick 34",
            "info: tick 46 (frame 43) #2 Routine: ping 2 (Routine) at frame 43, tick 46",
        ],
        "{err}"
    );
    // Routines and the script state they change are in every snapshot: the
    // sync test rolls back over them and re-simulates identically.
    stepframe_saying(
        &[
            "play",
            scene,
            "--frames",
            "50",
            "--stall",
            "5:1.0",
            "--sync-test",
            "8",
        ],
        "re-simulated ticks matched",
    );
}
