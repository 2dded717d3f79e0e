//! The timeline across a session (kittest, headless): export files named
//! after the scene, with the format's extension in place of another, their
//! paths kept across a restart; Esc after a timeline click giving back what
//! the click interrupted; the lane area reopening at its top.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::protocol::Run;
use stepframe_app::editor::timeline::LaneId;
use stepframe_app::editor::{Editor, Pane};

use crate::support::editor::{click, clock_tick, demo, editor, open_scene, status, type_over};
use crate::support::scratch;
use crate::support::storage::{editor_with_storage, save};

/// The text in the path field of an export format (the Export… menu open).
fn path_field(h: &Harness<'_, Editor>, label: &str) -> String {
    h.get_by_label(label)
        .accesskit_node()
        .value()
        .unwrap_or_else(|| panic!("the {label} field has a value"))
}

const JSON: &str = "Chrome trace (.json)";
const CSV: &str = "CSV (.csv)";

#[test]
fn the_proposed_export_files_are_named_after_the_scene() {
    let mut h = editor();
    h.run_steps(10);
    click(&mut h, "Export…");
    for (label, name) in [(JSON, "demo-timeline.json"), (CSV, "demo-timeline.csv")] {
        let field = path_field(&h, label);
        assert_eq!(
            std::path::Path::new(&field)
                .file_name()
                .and_then(|n| n.to_str()),
            Some(name),
            "the {label} field proposes {field}"
        );
    }
}

/// The file name a path field holds.
fn file_name(field: &str) -> String {
    std::path::Path::new(field)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn after_open_an_untouched_export_path_follows_the_new_scene_and_a_typed_one_stays() {
    let dir = scratch("export-open");
    let typed = dir.join("mine.csv").display().to_string();
    let mut h = editor();
    h.run_steps(10);
    click(&mut h, "Export…");
    type_over(&mut h, CSV, &typed);
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    let faults = demo().with_file_name("faults.ron");
    open_scene(&mut h, &faults);
    h.run_steps(3);
    click(&mut h, "Export…");
    assert_eq!(file_name(&path_field(&h, JSON)), "faults-timeline.json");
    assert_eq!(path_field(&h, CSV), typed, "a typed path is the user's");
}

#[test]
fn a_path_with_another_extension_has_it_replaced_by_the_formats() {
    let dir = scratch("export-extension");
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Export…");
    type_over(&mut h, CSV, &dir.join("frames.txt").display().to_string());
    click(&mut h, "Export csv");
    assert!(
        dir.join("frames.csv").is_file(),
        "frames.txt became frames.csv"
    );
    assert!(!dir.join("frames.txt.csv").exists(), "not frames.txt.csv");
    assert!(!dir.join("frames.txt").exists());
}

#[test]
fn export_paths_typed_by_the_user_are_kept_across_a_restart() {
    let dir = scratch("export-restart");
    let file = dir.join("storage.json");
    let json = dir.join("run.json").display().to_string();
    let csv = dir.join("frames.csv").display().to_string();
    let mut h = editor_with_storage(demo(), &file);
    click(&mut h, "Export…");
    type_over(&mut h, JSON, &json);
    type_over(&mut h, CSV, &csv);
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    save(&mut h, &file);
    drop(h);

    let mut h = editor_with_storage(demo(), &file);
    click(&mut h, "Export…");
    assert_eq!(path_field(&h, JSON), json);
    assert_eq!(path_field(&h, CSV), csv);
}

/// Clicks the dt lane at `fraction` of its width.
fn click_lane_at(h: &mut Harness<'_, Editor>, fraction: f32) {
    let r = h.get_by_label("lane frame dt").rect();
    let p = egui::pos2(r.left() + r.width() * fraction, r.center().y);
    h.hover_at(p);
    h.run_steps(1);
    crate::support::editor::press_release(h, p);
    h.run_steps(4);
}

#[test]
fn esc_after_timeline_clicks_gives_back_a_playing_session_playing() {
    let mut h = editor();
    h.run_steps(40);
    assert_eq!(status(&h), "running");
    // A click, a second click, a step with the arrow key: still one visit.
    click_lane_at(&mut h, 0.5);
    assert!(status(&h).starts_with("viewing tick "), "{}", status(&h));
    click_lane_at(&mut h, 0.3);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    let live = clock_tick(&h);
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert_eq!(status(&h), "running", "Esc plays what the click paused");
    h.run_steps(5);
    assert!(clock_tick(&h) > live, "it plays on from {live}");
    // Paused before the click: paused after Esc, at the same tick.
    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    click_lane_at(&mut h, 0.5);
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert!(
        status(&h).starts_with("suspended at tick "),
        "{}",
        status(&h)
    );
    assert_eq!(clock_tick(&h), paused_at);
}

/// Where the timeline's controls are drawn, by label.
fn control_rects(h: &Harness<'_, Editor>) -> Vec<(&'static str, egui::Rect)> {
    [
        "Fork here",
        "Resume from here",
        "Export…",
        "Fit all",
        "Follow live",
    ]
    .into_iter()
    .map(|label| (label, h.get_by_label(label).rect()))
    .collect()
}

#[test]
fn the_timeline_controls_stay_put_when_the_session_stops_and_the_cursor_moves() {
    let mut h = editor();
    h.run_steps(40);
    assert_eq!(status(&h), "running");
    let running = control_rects(&h);
    // The frame count grows a digit: nothing moves for it either.
    while timeline_frames(&h) < 100 {
        h.run_steps(10);
    }
    assert_eq!(control_rects(&h), running, "after the count grew a digit");
    click(&mut h, "⏸ Pause");
    assert_eq!(control_rects(&h), running, "paused");
    click_lane_at(&mut h, 0.5);
    assert!(status(&h).starts_with("viewing tick "), "{}", status(&h));
    assert_eq!(control_rects(&h), running, "viewing a past tick");
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert_eq!(control_rects(&h), running, "back to live");
}

/// The frames the timeline holds.
fn timeline_frames(h: &Harness<'_, Editor>) -> usize {
    h.state().published().frames.records().len()
}

#[test]
fn the_lane_area_reopens_at_its_top_after_a_restart() {
    let dir = scratch("lanes-restart");
    let file = dir.join("storage.json");
    let mut h = editor_with_storage(demo(), &file);
    h.run_steps(20);
    for lane in LaneId::ALL {
        crate::support::editor::set_lane_expanded(&mut h, lane, true);
    }
    h.run_steps(2);
    // Down to the markers lane, the last: the dt lane scrolls out of view.
    h.get_by_label("lane markers").scroll_to_me();
    h.run_steps(10);
    let tile = h
        .state()
        .workspace()
        .rect(Pane::Timeline)
        .expect("laid out");
    let dt = h.get_by_label("lane frame dt").rect();
    assert!(!tile.contains_rect(dt), "scrolled past the dt lane: {dt:?}");
    save(&mut h, &file);
    drop(h);

    let mut h = editor_with_storage(demo(), &file);
    h.run_steps(3);
    let tile = h
        .state()
        .workspace()
        .rect(Pane::Timeline)
        .expect("laid out");
    assert!(h.state().timeline().lane(LaneId::Markers).expanded);
    let dt = h.get_by_label("lane frame dt").rect();
    assert!(
        tile.contains_rect(dt),
        "the dt lane at {dt:?} is in view in the tile {tile:?}"
    );
}

/// Uncapped pacing once filled the one-hour ring (216,000 frames) in
/// seconds. The ring now grows to hold the last hour at the pacing's rate,
/// and the worker caps uncapped at 240 frames a second.
#[test]
fn the_ring_holds_an_hour_at_the_pacing_the_worker_runs() {
    use stepframe_app::editor::protocol::{Command, DisplayRate};
    let mut h = editor();
    h.run_steps(2);
    assert_eq!(h.state().published().frames.capacity(), 216_000, "60 Hz");
    for (pacing, frames) in [
        (DisplayRate::Hz(144), 144 * 3600),
        (DisplayRate::Uncapped, 240 * 3600),
        // Back to 60 Hz: nothing already held goes.
        (DisplayRate::Hz(60), 240 * 3600),
    ] {
        h.state_mut()
            .send(Command::Run(Run::SetDisplayRate(pacing)));
        h.run_steps(3);
        assert_eq!(
            h.state().published().frames.capacity(),
            frames,
            "{pacing:?}: an hour of frames"
        );
    }
}
