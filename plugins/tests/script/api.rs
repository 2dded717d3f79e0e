//! What a script can read and do: the committed pose, the clock, input and
//! the session's random numbers, no wall clock, routines, a soft body's
//! particles; and the bundled scripts scene played through.

use super::*;

// ----- the bundled scene and scripts ----------------------------------------

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

// ----- the script API -------------------------------------------------------

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
