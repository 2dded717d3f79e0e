//! The timeline across a session (kittest, headless): Esc after a timeline
//! click giving back what the click interrupted; the lane area reopening at
//! its top.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::timeline::LaneId;
use stepframe_app::editor::{EditorApp, Pane};

mod support;
use support::editor::{click, clock_tick, editor, status};
use support::scratch;
use support::storage::{editor_with_storage, save};

/// Clicks the dt lane at `fraction` of its width.
fn click_lane_at(h: &mut Harness<'_, EditorApp>, fraction: f32) {
    let r = h.get_by_label("lane frame dt").rect();
    let p = egui::pos2(r.left() + r.width() * fraction, r.center().y);
    h.hover_at(p);
    h.run_steps(1);
    support::editor::press_release(h, p);
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

#[test]
fn the_lane_area_reopens_at_its_top_after_a_restart() {
    let dir = scratch("lanes-restart");
    let file = dir.join("storage.json");
    let mut h = editor_with_storage(&file);
    h.run_steps(20);
    for lane in LaneId::ALL {
        h.state_mut().panels_mut().timeline.lane_mut(lane).expanded = true;
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

    let mut h = editor_with_storage(&file);
    h.run_steps(3);
    let tile = h
        .state()
        .workspace()
        .rect(Pane::Timeline)
        .expect("laid out");
    assert!(h.state().panels().timeline.lane(LaneId::Markers).expanded);
    let dt = h.get_by_label("lane frame dt").rect();
    assert!(
        tile.contains_rect(dt),
        "the dt lane at {dt:?} is in view in the tile {tile:?}"
    );
}
