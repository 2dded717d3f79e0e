//! Markers on the frames they belong to (kittest, headless): every fault of
//! faults.ron is an error marker on its frame, after Open the timeline
//! follows the new session and marks where it began, and a plotted lane
//! starts again with a reloaded world. (A new physics world's marker and a
//! mark watch's run are unit tests of `timeline::events`.)

use std::path::PathBuf;

use stepframe_app::editor::timeline::{MarkerKind, TimelineState};
use stepframe_core::LogLevel;

use crate::support::editor::{
    DEFAULT_SIZE, click, clock_tick, demo, editor, editor_sized, open_scene,
};
use crate::{frames, timeline};

/// `(frame_index, text)` of every marker of a kind whose frame is kept.
fn markers_of(t: &TimelineState, kind: MarkerKind) -> Vec<(u64, String)> {
    t.markers()
        .iter()
        .filter(|m| m.kind == kind)
        .map(|m| (m.frame, m.text.clone()))
        .collect()
}

#[test]
fn every_fault_of_faults_ron_is_an_error_marker_on_its_frame() {
    // A caught hook panic or a rejected non-finite write goes to
    // the log and to the timeline. faults.ron injects 11 (see its header and
    // app/tests/reliability.rs): panics in every hook kind at frames 1, 6,
    // 10, 15, 21, 25, 70 and on the first contact, NaN force, pose and
    // velocity at frames 30, 40, 51.
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/faults.ron");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(90);
    // The log's error lines: "error: tick T (frame F) #id Hook: message".
    let logged: Vec<(u64, String)> = h
        .state()
        .feedback()
        .log
        .lines
        .iter()
        .filter(|l| l.level == LogLevel::Error)
        .map(|l| {
            let frame = l
                .text
                .split("(frame ")
                .nth(1)
                .and_then(|f| f.split(')').next())
                .and_then(|f| f.parse().ok())
                .unwrap_or_else(|| panic!("a frame number in {}", l.text));
            let message = l.text.splitn(3, ": ").nth(2).expect("a message");
            (frame, message.to_string())
        })
        .collect();
    assert_eq!(logged.len(), 11, "{logged:#?}");
    for frame in [1, 6, 10, 15, 21, 25, 30, 40, 51, 70] {
        assert!(
            logged.iter().any(|(f, _)| *f == frame),
            "frame {frame}: {logged:#?}"
        );
    }
    let marked = markers_of(timeline(&h), MarkerKind::Error);
    assert_eq!(marked.len(), logged.len(), "{marked:#?}");
    for (frame, message) in &logged {
        assert!(
            marked
                .iter()
                .any(|(f, text)| f == frame && text.ends_with(message.as_str())),
            "no error marker on frame {frame} for `{message}` in {marked:#?}"
        );
    }
}

#[test]
fn after_open_the_timeline_follows_the_new_session_and_marks_where_it_began() {
    let mut h = editor();
    h.run_steps(120);
    // The user stops following live and pans back to an old stretch.
    click(&mut h, "Follow live");
    let lane = crate::lane_rect(&h, stepframe_app::editor::timeline::LaneId::Dt);
    crate::drag(
        &mut h,
        lane.center(),
        lane.center() + egui::vec2(lane.width() / 4.0, 0.0),
        egui::Modifiers::NONE,
    );
    assert!(!timeline(&h).follow_live(), "not following live");
    let frame_before = h
        .state()
        .published()
        .live
        .as_ref()
        .map(|v| v.world.clock.frame_index)
        .unwrap_or(0);
    open_scene(&mut h, &demo().canonicalize().expect("demo"));
    click(&mut h, "▶ Play");
    h.run_steps(20);
    let t = timeline(&h);
    assert!(t.follow_live(), "the view follows the new session");
    let first = frames(&h)
        .records()
        .front()
        .expect("new frames")
        .frame_index;
    assert!(
        first > frame_before,
        "only the new session's frames: {first} > {frame_before}"
    );
    let session = markers_of(t, MarkerKind::Session);
    assert_eq!(session.len(), 1, "{session:?}");
    assert!(
        session[0].1.starts_with("new physics world (demo.ron)"),
        "{}",
        session[0].1
    );
    // Simulation time restarted with the new world.
    assert!(clock_tick(&h) < 40, "{}", clock_tick(&h));
}

#[test]
fn a_plotted_lane_starts_again_with_a_reloaded_world() {
    let mut h = editor();
    h.state_mut().send(stepframe_app::editor::Command::Watches(
        stepframe_app::editor::protocol::WatchCommand::Plot("obj(20).y".to_string()),
    ));
    h.run_steps(60);
    let lane = |h: &egui_kittest::Harness<'_, stepframe_app::editor::Editor>| {
        h.state()
            .timeline()
            .watch_lanes()
            .values_of("obj(20).y")
            .cloned()
            .unwrap_or_default()
    };
    assert!(lane(&h).len() > 30, "the lane filled as the demo played");
    let old_tick = clock_tick(&h);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    h.run_steps(10);
    let values = lane(&h);
    let new_tick = clock_tick(&h);
    assert!(new_tick < old_tick, "the new world is younger: {new_tick}");
    assert!(!values.is_empty(), "values of the new world");
    // A value per tick of the new world, none past its live tick (the old
    // world's reached tick {old_tick}).
    assert!(
        values.iter().all(|(tick, _)| *tick <= new_tick),
        "no value of the old world: {:?} (the new world is at tick {new_tick})",
        values.iter().rev().take(3).collect::<Vec<_>>()
    );
}
