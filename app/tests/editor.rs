//! The editor, driven headless through egui_kittest: widgets are found by
//! their labels, clicked and typed into, and what the panels show is read back
//! from their labels. The app runs in its synchronous test driver: one worker
//! frame of exactly 1/60 s per UI frame, the same worker code the thread runs.
//! At 60 Hz 1/60 s is exactly 11,760,000 flicks, so every running UI frame is
//! one fixed tick.

use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::{EditorApp, EditorConfig};
use stepframe_core::{Pipeline, Pose, Scene, TimeSettings};

mod support;
use support::labels_starting;

/// Seconds per UI frame (= per worker frame).
const DT: f64 = 1.0 / 60.0;

fn scene() -> PathBuf {
    stepframe_app::default_scene()
}

fn editor() -> Harness<'static, EditorApp> {
    let path = scene();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(DT as f32)
        .build_eframe(move |cc| {
            EditorApp::new(cc, EditorConfig::driven(path, DT)).expect("the editor starts")
        });
    // Frame 1 loads the scene; a couple more publish it.
    h.run_steps(3);
    h
}

/// The one label widget whose text starts with `prefix`.
fn label_starting(h: &Harness<'_, EditorApp>, prefix: &str) -> String {
    let found = labels_starting(h, prefix);
    assert_eq!(found.len(), 1, "labels starting with {prefix:?}: {found:?}");
    found[0].clone()
}

/// `simulation_tick` as the clock panel shows it ("simulation_tick   42 ticks").
fn clock_tick(h: &Harness<'_, EditorApp>) -> u64 {
    let row = label_starting(h, "simulation_tick");
    let value = row["simulation_tick".len()..].trim();
    let number = value
        .strip_suffix(" ticks")
        .unwrap_or_else(|| panic!("no unit in {row:?}"));
    number
        .parse()
        .unwrap_or_else(|_| panic!("not a tick count: {row:?}"))
}

/// The status line: "running" or "suspended at tick T: reason".
fn status(h: &Harness<'_, EditorApp>) -> String {
    let mut found = labels_starting(h, "suspended at tick ");
    found.extend(
        labels_starting(h, "running")
            .into_iter()
            .filter(|l| l == "running"),
    );
    assert_eq!(found.len(), 1, "status labels: {found:?}");
    found[0].clone()
}

/// T of "suspended at tick T: ...".
fn suspended_tick(status: &str) -> Option<u64> {
    let rest = status.strip_prefix("suspended at tick ")?;
    rest.split(':').next()?.parse().ok()
}

/// Parses "committed pose: x 1.5 m, y -2 m, angle 0.25 rad".
fn parse_pose(text: &str) -> Pose {
    let body = text.split_once(": ").map(|(_, b)| b).unwrap_or(text);
    let parts: Vec<&str> = body.split(", ").collect();
    assert_eq!(parts.len(), 3, "pose text {text:?}");
    let num = |part: &str, name: &str, unit: &str| -> f32 {
        part.strip_prefix(name)
            .and_then(|p| p.strip_suffix(unit))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("cannot read {name} in {text:?}"))
    };
    Pose::new(
        num(parts[0], "x", " m"),
        num(parts[1], "y", " m"),
        num(parts[2], "angle", " rad"),
    )
}

fn click(h: &mut Harness<'_, EditorApp>, label: &str) {
    h.get_by_label(label).click();
    h.run_steps(2);
}

#[test]
fn step_tick_advances_exactly_one_tick_and_the_clock_panel_shows_it() {
    let mut h = editor();
    h.run_steps(5);
    assert_eq!(status(&h), "running");
    click(&mut h, "⏸ Pause");
    let t0 = clock_tick(&h);
    assert_eq!(status(&h), format!("suspended at tick {t0}: paused"));
    h.run_steps(5);
    assert_eq!(clock_tick(&h), t0, "paused: no tick runs");

    click(&mut h, "Step tick");
    assert_eq!(clock_tick(&h), t0 + 1);
    assert_eq!(
        status(&h),
        format!("suspended at tick {}: step tick", t0 + 1)
    );
    h.run_steps(5);
    assert_eq!(clock_tick(&h), t0 + 1, "still suspended after the step");

    // The shortcut does the same (F10).
    h.key_press(egui::Key::F10);
    h.run_steps(2);
    assert_eq!(clock_tick(&h), t0 + 2);
    // And the clock shows the completed tick's time: tick × 1/60 s.
    let time_row = label_starting(&h, "simulation_time");
    assert!(
        time_row.ends_with(&format!("{:.6} s", (t0 + 2) as f64 / 60.0)),
        "{time_row:?}"
    );
}

/// Runs a plain pipeline on the same scene with the same frame dts to the end
/// of `tick` and returns the committed pose of the object named `name`.
fn headless_pose_at(scene_path: &Path, name: &str, tick: u64) -> Pose {
    let registry = stepframe_plugins::registry();
    let scene = Scene::load(scene_path, &registry).expect("the scene loads");
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline
        .load_scene(&scene, &registry)
        .expect("the scene instantiates");
    let id = pipeline
        .world()
        .objects()
        .find(|o| o.name == name)
        .map(|o| o.id)
        .expect("the object exists");
    while pipeline.clock().simulation_tick < tick {
        let report = pipeline.step_frame(DT);
        assert_eq!(report.ticks, 1, "one tick per 1/60 s frame at 60 Hz");
    }
    assert_eq!(pipeline.clock().simulation_tick, tick);
    pipeline
        .world()
        .physics_simulation_pose(id)
        .expect("a committed pose")
}

/// The tick the breakpoint test stops at: 0.25 s in, while the player (a ball
/// dropped from 0.6 m above its resting height) is still falling: it needs
/// √(2 × 0.6 / 9.81) ≈ 0.35 s, about 21 ticks, to land. So the pose differs
/// from tick to tick and an off-by-one tick cannot pass.
const BREAK_TICK: u64 = 15;

fn same_bits(a: Pose, b: Pose) -> bool {
    (a.x.to_bits(), a.y.to_bits(), a.angle.to_bits())
        == (b.x.to_bits(), b.y.to_bits(), b.angle.to_bits())
}

#[test]
fn fixed_update_breakpoint_on_the_player_stops_at_the_end_of_its_tick_with_the_exact_pose() {
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    assert!(paused_at < BREAK_TICK, "paused at {paused_at}");
    // Select the player in the hierarchy.
    click(&mut h, "Player");
    assert!(label_starting(&h, "Player (#").starts_with("Player (#"));
    // A FixedUpdate breakpoint on the selected object (the form's defaults),
    // from BREAK_TICK on: typed into the form.
    h.get_by_label("From tick").click();
    h.run_steps(1);
    h.get_by_label("From tick")
        .type_text(&BREAK_TICK.to_string());
    h.run_steps(1);
    click(&mut h, "Add breakpoint");
    let listed = labels_starting(&h, "FixedUpdate on Player");
    assert_eq!(listed.len(), 1, "the breakpoint is listed: {listed:?}");
    assert_eq!(clock_tick(&h), paused_at, "still paused");

    // Play until the status reads suspended.
    click(&mut h, "▶ Play");
    let mut steps = 0;
    while !status(&h).starts_with("suspended") {
        h.run_steps(1);
        steps += 1;
        assert!(steps < 200, "the breakpoint never hit: {}", status(&h));
    }
    let s = status(&h);
    assert_eq!(suspended_tick(&s), Some(BREAK_TICK), "{s}");
    assert!(
        s.contains("breakpoint 1 on Player #")
            && s.contains("FixedUpdate (PlayerController), end of tick"),
        "{s}"
    );
    assert_eq!(clock_tick(&h), BREAK_TICK);
    // It stays there: suspended frames run nothing.
    h.run_steps(5);
    assert_eq!(clock_tick(&h), BREAK_TICK);

    // The inspector's committed pose is, bit for bit, the pose at the end of
    // that tick in a plain headless run, and not the tick before or after.
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    let expected = headless_pose_at(&scene(), "Player", BREAK_TICK);
    assert!(
        same_bits(shown, expected),
        "inspector {shown:?} vs headless {expected:?}"
    );
    for other in [BREAK_TICK - 1, BREAK_TICK + 1] {
        let p = headless_pose_at(&scene(), "Player", other);
        assert!(
            !same_bits(shown, p),
            "tick {other} has the same pose: test too weak"
        );
    }
    // Suspended, the viewport draws the committed pose too.
    let presented = parse_pose(&label_starting(&h, "presentation pose: "));
    assert!(same_bits(presented, expected), "{presented:?}");
    // The hit is listed (once per matching behaviour of the player).
    let hits = labels_starting(&h, &format!("tick {BREAK_TICK} frame "));
    assert!(
        !hits.is_empty() && hits.iter().all(|l| l.contains("Player #")),
        "{hits:?}"
    );

    // Step one tick: the breakpoint (every tick from BREAK_TICK) hits again,
    // one tick later, with that tick's exact pose.
    click(&mut h, "Step tick");
    assert_eq!(clock_tick(&h), BREAK_TICK + 1);
    let next = headless_pose_at(&scene(), "Player", BREAK_TICK + 1);
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    assert!(same_bits(shown, next), "{shown:?} vs {next:?}");
}

#[test]
fn pause_stops_the_clock_and_resume_continues_it() {
    let mut h = editor();
    h.run_steps(4);
    let before = clock_tick(&h);
    h.run_steps(4);
    assert!(clock_tick(&h) > before, "running: ticks advance");

    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    assert_eq!(status(&h), format!("suspended at tick {paused_at}: paused"));
    h.run_steps(10);
    assert_eq!(clock_tick(&h), paused_at, "no tick while paused");

    click(&mut h, "▶ Play");
    assert_eq!(status(&h), "running");
    let resumed = clock_tick(&h);
    h.run_steps(10);
    // One tick per running UI frame at 60 Hz with 1/60 s frames.
    assert_eq!(clock_tick(&h), resumed + 10);

    // Space toggles too, when no text field or viewport has the keyboard.
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert!(
        status(&h).starts_with("suspended at tick "),
        "{}",
        status(&h)
    );
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert_eq!(status(&h), "running");
}

#[test]
fn a_broken_scene_shows_its_error_and_the_old_scene_keeps_running() {
    let dir = std::env::temp_dir().join(format!("stepframe-editor-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let broken = dir.join("broken.ron");
    // Line 3 lacks the comma between `id: 1` and `name`.
    std::fs::write(
        &broken,
        "(\n    objects: [\n        (id: 1 name: \"x\"),\n    ],\n)\n",
    )
    .expect("write the broken scene");

    let mut h = editor();
    h.run_steps(3);
    let tick_before = clock_tick(&h);
    // The scene's authored objects, by id and name, as the editor shows them.
    let registry = stepframe_plugins::registry();
    let authored: Vec<(u64, String)> = Scene::load(&scene(), &registry)
        .expect("the scene loads")
        .all_objects()
        .iter()
        .map(|o| (o.id, o.name.clone()))
        .collect();
    let shown = |h: &Harness<'_, EditorApp>| -> Vec<(u64, String)> {
        h.state()
            .state()
            .view
            .as_ref()
            .map(|v| v.objects.iter().map(|o| (o.id.0, o.name.clone())).collect())
            .unwrap_or_default()
    };
    let authored_shown_before: Vec<(u64, String)> = authored
        .iter()
        .filter(|a| shown(&h).contains(a))
        .cloned()
        .collect();
    assert!(!authored_shown_before.is_empty());
    let path_before = h
        .state()
        .state()
        .view
        .as_ref()
        .and_then(|v| v.scene_path.clone());

    // Type the path into the field and open it.
    h.get_by_label("Scene path").click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label("Scene path")
        .type_text(&broken.display().to_string());
    h.run_steps(1);
    click(&mut h, "Open");
    h.run_steps(2);

    let error = label_starting(&h, "error: ");
    let place = format!("{}:3:", broken.display());
    assert!(error.contains(&place), "{error:?} names {place}");
    let column: String = error[error.find(&place).map(|i| i + place.len()).unwrap_or(0)..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    assert!(
        column.parse::<u32>().is_ok_and(|c| c >= 1),
        "a column after the line: {error:?}"
    );

    // The old scene keeps running, unchanged.
    assert_eq!(status(&h), "running");
    let t = clock_tick(&h);
    assert!(t > tick_before, "simulation time did not restart");
    h.run_steps(6);
    assert_eq!(clock_tick(&h), t + 6);
    let view = h.state().state().view.as_ref();
    assert_eq!(view.and_then(|v| v.scene_path.clone()), path_before);
    let after = shown(&h);
    for object in &authored_shown_before {
        assert!(after.contains(object), "{object:?} is still there");
    }
    assert!(h.query_by_label("Player").is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn keys_go_to_the_game_while_the_viewport_has_focus() {
    let mut h = editor();
    click(&mut h, "Player");
    let x0 = parse_pose(&label_starting(&h, "committed pose: ")).x;
    // Give the game the keyboard and hold the right arrow for one second.
    h.get_by_label("Viewport").click();
    h.run_steps(2);
    h.key_down(egui::Key::ArrowRight);
    h.run_steps(60);
    h.key_up(egui::Key::ArrowRight);
    h.run_steps(2);
    let x1 = parse_pose(&label_starting(&h, "committed pose: ")).x;
    assert!(x1 > x0 + 1.0, "the player ran right: from {x0} to {x1}");
}

#[test]
fn an_opened_scene_is_previewed_at_tick_0_and_f9_toggles_a_breakpoint() {
    let mut h = editor();
    h.run_steps(10);
    assert!(clock_tick(&h) > 0);
    // Open the demo again through the path field: a fresh session, suspended
    // at tick 0, poses as authored.
    let path = scene().canonicalize().expect("the demo exists");
    h.get_by_label("Scene path").click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label("Scene path")
        .type_text(&path.display().to_string());
    h.run_steps(1);
    click(&mut h, "Open");
    h.run_steps(2);
    assert_eq!(status(&h), "suspended at tick 0: paused");
    assert_eq!(clock_tick(&h), 0);
    h.run_steps(5);
    assert_eq!(clock_tick(&h), 0, "a preview runs nothing");

    // The player stands where the scene file puts it.
    let registry = stepframe_plugins::registry();
    let authored = Scene::load(&path, &registry)
        .expect("the scene loads")
        .all_objects()
        .iter()
        .find(|o| o.name == "Player")
        .map(|o| o.transform)
        .expect("the demo has a player");
    click(&mut h, "Player");
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    assert!(same_bits(shown, authored), "{shown:?} vs {authored:?}");

    // F9 adds a FixedUpdate breakpoint on the selection, F9 again removes it.
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert_eq!(labels_starting(&h, "FixedUpdate on Player #").len(), 1);
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert!(labels_starting(&h, "FixedUpdate on Player #").is_empty());
}
