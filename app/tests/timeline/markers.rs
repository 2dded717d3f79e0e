//! Markers on the frames they belong to (kittest, headless): every fault of
//! faults.ron is an error marker on its frame, a new physics world starts a
//! new ring whose first frame is marked, and after Open the timeline follows
//! the new session and marks where it began.

use std::path::PathBuf;

use stepframe_app::editor::Event;
use stepframe_app::editor::frames::Frames;
use stepframe_app::editor::timeline::{MarkerKind, TimelineState, synthetic_record};
use stepframe_core::{LogEntry, LogLevel, ObjectId};

use crate::support::editor::{
    DEFAULT_SIZE, click, clock_tick, demo, editor, editor_sized, open_scene,
};
use crate::{frames, timeline};

/// `(frame_index, text)` of every marker of a kind whose frame is kept.
fn markers_of(t: &TimelineState, kind: MarkerKind) -> Vec<(u64, String)> {
    t.markers
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

fn log_entry(level: LogLevel, frame: u64, message: &str) -> LogEntry {
    LogEntry {
        level,
        object: Some(ObjectId(7)),
        hook: None,
        tick: frame,
        frame,
        message: message.to_string(),
    }
}

#[test]
fn a_new_physics_world_starts_a_new_ring_whose_first_frame_is_marked() {
    let loaded = |frame_index| Event::Loaded {
        path: PathBuf::from("faults.ron"),
        objects: 1,
        frame_index,
        frame_time: frame_index as f64 / 60.0,
    };
    let indices = |f: &Frames| -> Vec<u64> { f.records().iter().map(|r| r.frame_index).collect() };
    // Every event to the recorded frames, then to the timeline, as the
    // app hands them on.
    let take = |t: &mut TimelineState, f: &mut Frames, event: &Event| {
        f.on_event(event);
        t.take_event(event, f);
    };
    let mut t = TimelineState::new();
    let mut f = Frames::with_capacity(100);
    take(&mut t, &mut f, &loaded(0));
    for i in 1..=50 {
        f.push(synthetic_record(i));
    }
    // Errors are marked on the frame they name, warnings are not.
    take(
        &mut t,
        &mut f,
        &Event::Log(vec![
            log_entry(LogLevel::Error, 4, "an earlier frame"),
            log_entry(LogLevel::Warning, 5, "a warning is no marker"),
        ]),
    );
    assert_eq!(
        markers_of(&t, MarkerKind::Error),
        vec![(4, "tick 4: an earlier frame".to_string())]
    );
    // Reload after frame 50: the old frames go, the marker waits for frame 51.
    t.follow_live = false;
    t.range = Some((3.0, 9.0));
    take(&mut t, &mut f, &loaded(50));
    assert!(indices(&f).is_empty());
    assert!(
        t.follow_live && t.range.is_none(),
        "the view follows the new session"
    );
    let session = markers_of(&t, MarkerKind::Session);
    assert_eq!(session.len(), 1);
    assert_eq!(session[0].0, 51);
    assert!(
        session[0].1.contains("simulation time restarts at 0")
            && session[0].1.contains("frame time continues"),
        "{}",
        session[0].1
    );
    f.push(synthetic_record(51));
    assert_eq!(indices(&f), vec![51]);
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
    assert!(!timeline(&h).follow_live, "not following live");
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
    assert!(t.follow_live, "the view follows the new session");
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
fn a_mark_watch_holding_tick_after_tick_is_one_marker_for_the_run() {
    let mut t = TimelineState::default();
    let held = |tick: u64| stepframe_plugins::WatchEvent::Held {
        watch: 0,
        tick,
        frame: tick,
    };
    // Ticks 10 to 69 in a row, then 80 on its own.
    let run: Vec<_> = (10..70).map(held).collect();
    let f = Frames::default();
    t.take_event(&Event::Watch(run), &f);
    t.take_event(&Event::Watch(vec![held(80)]), &f);
    let marks = markers_of(&t, MarkerKind::Watch);
    assert_eq!(
        marks,
        vec![
            (10, "watch #1 held at ticks 10–69 (60 ticks)".to_string()),
            (80, "watch #1 held at tick 80".to_string()),
        ]
    );
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
            .watch_lanes
            .values
            .get("obj(20).y")
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
