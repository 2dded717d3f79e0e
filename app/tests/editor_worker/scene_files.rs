//! scene files: save, reload, a rewind across a scale change.

use super::*;
use stepframe_app::editor::protocol::{
    EditCommand, RewindCommand, Run, SceneCommand, Target, TimeSetting,
};

#[test]
fn save_writes_the_scene_with_the_toolbar_time_settings() {
    let dir = std::env::temp_dir().join(format!("stepframe-worker-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("saved.ron");
    let mut h = playing(demo());
    h.send(Command::Run(Run::Set(TimeSetting::TimeScale(0.5))));
    h.send(Command::Scene(SceneCommand::SaveAs {
        path: out.clone(),
        overwrite: false,
    }));
    h.pump(DT);
    let saved = h
        .events()
        .iter()
        .any(|e| matches!(e, Event::Saved(p) if *p == out));
    assert!(saved, "a Saved event");
    let registry = stepframe_app::player::registry(&demo());
    let original = stepframe_core::Scene::load(&demo(), &registry).expect("the demo loads");
    // From its own folder: its script paths lead back to assets/scripts.
    let registry = stepframe_app::player::registry(&out);
    let written = stepframe_core::Scene::load(&out, &registry).expect("the saved scene loads");
    assert_eq!(written.settings.time.time_scale, 0.5);
    assert_eq!(written.objects.len(), original.objects.len());
    for (w, o) in written.objects.iter().zip(&original.objects) {
        assert_eq!((w.id, &w.name, w.transform), (o.id, &o.name, o.transform));
    }
    assert_eq!(written.actions, original.actions);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reload_restarts_the_scene_but_keeps_the_chosen_fixed_rate() {
    let mut h = playing(demo());
    h.send(Command::Run(Run::Set(TimeSetting::FixedRate(30))));
    pump(&mut h, 20);
    h.send(Command::Scene(SceneCommand::Reload));
    h.pump(1.0 / 30.0);
    // Simulation time restarted with the new session: one 1/30 s frame at the
    // kept 30 Hz is exactly one tick.
    h.pump_n(9, 1.0 / 30.0);
    let view = h.view();
    assert_eq!(view.clock.simulation_tick, 10);
    assert_eq!(view.settings.fixed_hz, 30);
    assert!((view.clock.fixed_delta_time - 1.0 / 30.0).abs() < 1e-12);
}

#[test]
fn a_rewind_before_a_time_scale_change_brings_the_old_scale_back_to_the_toolbar() {
    let mut h = playing(demo());
    pump(&mut h, 30);
    h.send(Command::Run(Run::Set(TimeSetting::TimeScale(0.5))));
    pump(&mut h, 30);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    assert_eq!(h.view().settings.time_scale, 0.5);
    // Tick 20 ran at scale 1, and the session rewound there runs on at it.
    h.events();
    h.send(Command::Rewind(RewindCommand::RewindTo(20)));
    h.pump(DT);
    // Said, not done silently.
    let said = notices(&h.events());
    assert!(
        said.iter()
            .any(|n| n.starts_with("back at tick 20 with its settings: time scale 1× (was 0.5×)")),
        "{said:?}"
    );
    let view = h.view();
    assert_eq!(view.clock.simulation_tick, 20);
    assert_eq!(
        view.settings.time_scale, 1.0,
        "the toolbar shows tick 20's scale"
    );
    h.send(Command::Run(Run::Play));
    pump(&mut h, 10);
    let view = h.view();
    assert_eq!(
        view.clock.simulation_tick, 30,
        "ten frames at scale 1, ten ticks"
    );
}

/// The state hash after `ticks` ticks of a headless run of the scene file.
fn hash_after(scene: &std::path::Path, ticks: u64) -> u64 {
    let registry = stepframe_app::player::registry(scene);
    let loaded = stepframe_core::Scene::load(scene, &registry)
        .unwrap_or_else(|e| panic!("{} loads: {e}", scene.display()));
    let mut p = stepframe_core::Pipeline::new(stepframe_core::TimeSettings::default());
    p.load_scene(&loaded, &registry)
        .expect("the scene instantiates");
    while p.clock().simulation_tick < ticks {
        p.step_frame(DT);
    }
    p.state_hash()
}

/// Save As keeps the file's comments (the same in-place rewrite as Save),
/// and into another folder it points the scripts' relative paths at the
/// same scripts from there: the saved file loads, as the same world as a
/// Save As beside the original, and Ctrl+R reloads it. Before, Save As wrote
/// stepframe's layout (no comments) with `scripts/patrol.rhai` unchanged,
/// which did not load from the new folder.
#[test]
fn save_as_keeps_comments_and_points_script_paths_at_the_same_scripts() {
    let dir = std::env::temp_dir().join(format!("stepframe-save-as-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let scene = super::support::editor::demo_copy(&dir.join("game"));
    let original = std::fs::read_to_string(&scene).expect("the copy");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("a folder");
    let moved = elsewhere.join("moved.ron");
    let beside = dir.join("game").join("scenes").join("beside.ron");

    let mut h = preview(&scene);
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(ObjectId(20), stepframe_core::Pose::new(-12.0, 3.0, 0.0)),
    });
    h.pump(DT);
    let mut events = Vec::new();
    for path in [&beside, &moved] {
        h.send(Command::Scene(SceneCommand::SaveAs {
            path: path.clone(),
            overwrite: false,
        }));
        h.pump(DT);
        events.extend(h.events());
    }
    assert_no_errors(&events);
    for path in [&beside, &moved] {
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Saved(p) if p == path)),
            "saved {}: {events:?}",
            path.display()
        );
        let written = std::fs::read_to_string(path).expect("written");
        let comments: Vec<&str> = original.lines().filter(|l| l.contains("//")).collect();
        assert_eq!(comments.len(), 18, "demo.ron's comment lines");
        for c in comments {
            assert!(written.contains(c), "{}: comment kept: {c}", path.display());
        }
    }
    let moved_text = std::fs::read_to_string(&moved).expect("written");
    assert!(
        moved_text.contains(r#"path: "../game/scripts/patrol.rhai""#),
        "{moved_text}"
    );
    assert!(
        !std::fs::read_to_string(&beside)
            .expect("written")
            .contains("../"),
        "beside the original, the paths stay as they were"
    );
    let notes: Vec<String> = notices(&events)
        .into_iter()
        .filter(|t| t.contains("script path"))
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("Guard #60") && n.contains("../game/scripts/patrol.rhai")),
        "{notes:?}"
    );
    // The same world, bit for bit, and the moved player in it.
    assert_eq!(hash_after(&moved, 120), hash_after(&beside, 120));
    assert_ne!(hash_after(&moved, 120), hash_after(&scene, 120));
    // The session's file is the new one now, and Ctrl+R reloads it.
    h.send(Command::Scene(SceneCommand::Reload));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    assert_no_errors(&events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Loaded { path, .. } if *path == moved)),
        "{events:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_selection_stays_with_its_object_and_never_moves_to_another_scenes_object_of_that_id() {
    // demo.ron's #2 is Ground West; push.ron's #2 is another object.
    let push = demo().with_file_name("push.ron");
    let mut h = playing(demo());
    h.send(Command::Select(Some(ObjectId(2))));
    pump(&mut h, 5);
    assert_eq!(h.live().selection, Some(ObjectId(2)));
    // A reload of the same scene: the same object, still selected.
    h.send(Command::Scene(SceneCommand::Reload));
    pump(&mut h, 2);
    assert_eq!(h.live().selection, Some(ObjectId(2)));
    assert_eq!(
        h.view().selected.as_ref().map(|s| s.name.as_str()),
        Some("Ground West")
    );
    // Another scene: its #2 is not Ground West, so nothing is selected.
    h.send(Command::Scene(SceneCommand::Load {
        path: push,
        play: true,
    }));
    pump(&mut h, 2);
    let live = h.live();
    assert_ne!(
        live.world
            .objects
            .iter()
            .find(|o| o.id == ObjectId(2))
            .map(|o| o.name.as_str()),
        Some("Ground West"),
        "push.ron's #2 is another object"
    );
    assert_eq!(live.selection, None);
    assert!(live.world.selected.is_none());
}

#[test]
fn opening_another_scene_ends_a_comparison() {
    let mut h = playing(demo());
    pump(&mut h, 20);
    h.send(Command::BranchB(
        stepframe_app::editor::protocol::BranchCommand::CompareWithRun,
    ));
    pump(&mut h, 2);
    assert!(h.live().branch_b.is_some(), "comparing with the run so far");
    h.send(Command::Scene(SceneCommand::Load {
        path: demo().with_file_name("push.ron"),
        play: true,
    }));
    pump(&mut h, 2);
    assert!(h.live().branch_b.is_none(), "B belonged to the old scene");
    assert!(h.events().iter().any(|e| matches!(
        e,
        Event::BranchB(stepframe_app::editor::protocol::BranchEvent::Ended)
    )));
}

#[test]
fn a_past_view_of_a_tick_run_at_60_hz_shows_60_hz_after_the_rate_changed() {
    let mut h = playing(demo());
    pump(&mut h, 30);
    h.send(Command::Run(Run::Set(TimeSetting::FixedRate(50))));
    pump(&mut h, 30);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    assert_eq!(h.live().settings.fixed_hz, 50);
    h.send(Command::Rewind(RewindCommand::ViewTick(10)));
    h.pump(DT);
    let past = h.past.clone().expect("a past view");
    assert_eq!(past.clock.simulation_tick, 10);
    assert!(
        (past.clock.fixed_delta_time - 1.0 / 60.0).abs() < 1e-12,
        "tick 10 ran at 60 Hz: {}",
        past.clock.fixed_delta_time
    );
}
