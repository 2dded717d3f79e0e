//! The docked workspace: the default layout at the first window size and
//! maximised, panels closed and reopened from the View menu, the code pane in
//! a tile of its own, and the layout kept across a restart through eframe's
//! storage (here a file in a scratch folder).

use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::Pane;
use stepframe_app::editor::protocol::{Run, TimeSetting};
use stepframe_app::editor::timeline::LaneId;
use stepframe_app::editor::workspace::LAYOUT_KEY;

mod support;
use support::editor::{DEFAULT_SIZE, click, demo, editor_sized, log_line, show, type_into};
use support::scratch;
use support::storage::{editor_with_storage, save_settings, store};

/// The viewport gets the largest tile and the timeline runs along the bottom
/// with at least a third of the window's height.
fn check_default_layout(size: egui::Vec2) {
    let mut h = editor_sized(demo(), size);
    h.run_steps(5);
    let w = h.state().workspace();
    let rect = |pane| {
        w.rect(pane)
            .unwrap_or_else(|| panic!("{pane:?} is laid out"))
    };
    let timeline = rect(Pane::Timeline);
    assert!(
        timeline.height() >= size.y / 3.0,
        "{size:?}: timeline {timeline:?} is a third of the height"
    );
    assert!(
        (timeline.bottom() - size.y).abs() <= 2.0 && timeline.width() >= size.x - 4.0,
        "{size:?}: timeline {timeline:?} runs along the bottom"
    );
    let viewport = rect(Pane::Viewport);
    let area = |r: egui::Rect| r.width() * r.height();
    for pane in Pane::ALL {
        if pane == Pane::Viewport || !w.is_open(pane) {
            continue;
        }
        if let Some(r) = w.rect(pane) {
            assert!(
                area(viewport) > area(r),
                "{size:?}: the viewport {viewport:?} is larger than {pane:?} {r:?}"
            );
            // Every tab is on screen whole inside its tile: a tab strip
            // wider than its tile hides the last tabs.
            let tab = h
                .get_all_by_label(pane.title())
                .map(|n| n.rect())
                .find(|t| t.top() <= r.top() + 1.0 && t.bottom() <= r.top() + 40.0)
                .unwrap_or_else(|| panic!("{size:?}: {pane:?} has a tab"));
            assert!(
                tab.left() >= r.left() - 1.0 && tab.right() <= r.right() + 1.0,
                "{size:?}: the {pane:?} tab {tab:?} lies inside its tile {r:?}"
            );
        }
    }
}

#[test]
fn the_default_layout_gives_the_viewport_the_largest_tile_and_the_timeline_a_third() {
    check_default_layout(DEFAULT_SIZE);
    check_default_layout(egui::vec2(1920.0, 1080.0));
}

#[test]
fn a_closed_panel_comes_back_from_the_view_menu_and_reset_layout_restores_all() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    assert!(h.state().workspace().is_open(Pane::Inspector));
    // The Inspector tab's close button.
    let tab = h.get_by_label("Inspector").rect();
    let close = h
        .get_all_by_label("Close")
        .find(|n| tab.contains(n.rect().center()))
        .expect("the Inspector tab has a close button");
    close.click();
    h.run_steps(2);
    assert!(!h.state().workspace().is_open(Pane::Inspector));
    assert!(h.query_by_label("Inspector").is_none(), "its tab is gone");
    click(&mut h, "View");
    h.get_by_label("Inspector").click();
    h.run_steps(2);
    assert!(h.state().workspace().is_open(Pane::Inspector));
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    // Reset layout: every default pane open again, the code pane hidden.
    support::editor::set_open(&mut h, Pane::Log, false);
    support::editor::set_open(&mut h, Pane::Code, true);
    h.run_steps(1);
    click(&mut h, "View");
    click(&mut h, "Reset layout");
    for pane in Pane::ALL {
        assert_eq!(
            h.state().workspace().is_open(pane),
            pane != Pane::Code,
            "{pane:?}"
        );
    }
}

#[test]
fn the_code_pane_is_a_tile_of_its_own_and_pushes_no_controls_off_the_window() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    h.run_steps(3);
    let viewport_before = h
        .state()
        .workspace()
        .rect(Pane::Viewport)
        .expect("laid out");
    click(&mut h, "📜 Code");
    h.run_steps(2);
    let w = h.state().workspace();
    let code = w.rect(Pane::Code).expect("the code pane has a tile");
    let viewport = w.rect(Pane::Viewport).expect("laid out");
    assert!(!code.intersects(viewport.shrink(1.0)), "its own tile");
    assert!(
        viewport.width() < viewport_before.width(),
        "beside the viewport"
    );
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, DEFAULT_SIZE);
    for control in ["Export…", "Fit all", "Follow live", "⏸ Pause", "Step tick"] {
        let r = h.get_by_label(control).rect();
        assert!(
            window.contains_rect(r),
            "{control} at {r:?} is inside the window"
        );
    }
}

#[test]
fn the_layout_the_timeline_lanes_and_the_watches_persist_across_a_restart() {
    let file = scratch("layout").join("storage.json");
    let mut h = editor_with_storage(demo(), &file);
    // A watch added in the Watches tab, as a user adds one (the host holds
    // the list while it runs).
    click(&mut h, "Watches");
    type_into(&mut h, "Watch", "obj(20).y < 0");
    h.get_by_label("Action").click();
    h.run_steps(2);
    click(&mut h, "mark");
    click(&mut h, "Add watch");
    support::editor::set_open(&mut h, Pane::Log, false);
    support::editor::set_open(&mut h, Pane::Code, true);
    support::editor::set_lane_expanded(&mut h, LaneId::Physics, true);
    h.run_steps(2);
    let code_before = h.state().workspace().rect(Pane::Code).expect("open");
    save_settings(&mut h, &file);
    drop(h);

    let h = editor_with_storage(demo(), &file);
    let w = h.state().workspace();
    assert!(!w.is_open(Pane::Log), "closed panels stay closed");
    assert!(w.is_open(Pane::Code), "opened ones stay open");
    let code_after = w.rect(Pane::Code).expect("laid out");
    assert!(
        (code_after.width() - code_before.width()).abs() <= 1.0,
        "same place and size: {code_before:?} vs {code_after:?}"
    );
    assert!(h.state().timeline().lane(LaneId::Physics).expanded);
    // The new host was given them: the list the Watches tab shows is the
    // one the session evaluates (the tab holds no list of its own).
    let live = h.state().published().live.as_ref().expect("a live view");
    let watches = &live.watches;
    assert_eq!(watches.len(), 1, "watches persist with the layout");
    assert_eq!(watches[0].expr, "obj(20).y < 0");
    assert_eq!(watches[0].action, stepframe_plugins::WatchAction::Mark);
}

#[test]
fn an_unreadable_stored_layout_is_reported_with_line_and_column_and_kept_until_reset() {
    let file = scratch("layout-broken").join("storage.json");
    // A layout cut short on line 2: what a crash mid-write or a hand edit leaves.
    let broken = "(\n    id: (14869877084423508223), root: Some((20)), tiles: (".to_string();
    store(&file, LAYOUT_KEY, &broken);

    let mut h = editor_with_storage(demo(), &file);
    let notice = log_line(&h, "layout not read: ").expect("a notice");
    assert!(
        notice.contains("key `stepframe-layout` of the editor's settings file) at line 2, column "),
        "{notice}"
    );
    assert!(notice.contains("kept until View, Reset layout"), "{notice}");
    // The default layout is shown; the user moves a pane and the editor
    // saves its settings, as it does on exit: the stored layout is kept.
    assert!(h.state().workspace().is_open(Pane::Log));
    support::editor::set_open(&mut h, Pane::Log, false);
    h.run_steps(2);
    let stored = save_settings(&mut h, &file);
    assert_eq!(
        eframe::Storage::get_string(&stored, LAYOUT_KEY).as_deref(),
        Some(broken.as_str()),
        "the stored layout is byte for byte what it was"
    );

    // Reset layout is the user choosing a new one: it is stored from then on.
    support::editor::reset_layout(&mut h);
    let stored = save_settings(&mut h, &file);
    let text = eframe::Storage::get_string(&stored, LAYOUT_KEY).expect("a layout");
    assert_ne!(text, broken);
    drop(h);
    let h = editor_with_storage(demo(), &file);
    assert!(h.state().workspace().kept.is_none(), "the new one reads");
}

/// The other stored settings get the layout's treatment: a text that does
/// not read is reported, the defaults are used, and saving does not write
/// over it (before, eframe's `get_value` dropped it in silence and the next
/// exit replaced it).
#[test]
fn unreadable_stored_settings_are_reported_and_kept_byte_for_byte() {
    let file = scratch("settings-broken").join("storage.json");
    let broken = "(specs: [(expr: \"player.x\", ".to_string();
    store(&file, "stepframe-watches", &broken);

    let mut h = editor_with_storage(demo(), &file);
    let notice = log_line(&h, "settings not read").expect("a notice");
    assert!(notice.contains("stepframe-watches"), "{notice}");
    let stored = save_settings(&mut h, &file);
    assert_eq!(
        eframe::Storage::get_string(&stored, "stepframe-watches").as_deref(),
        Some(broken.as_str()),
        "the stored watches are what they were"
    );
    assert!(
        eframe::Storage::get_string(&stored, "stepframe-editor").is_some(),
        "the settings that did read are saved as always"
    );
}

/// At the default size, with each tab brought to the
/// front in turn, no button, field, box or link is cut at its tile's side
/// (a cut one is half a control, or none). Ticks in the thousands: a
/// "Bookmark tick 1281" ran past the Bookmarks tile's right edge.
#[test]
fn at_the_default_size_no_control_is_cut_at_its_tiles_side() {
    for size in [DEFAULT_SIZE, egui::vec2(1920.0, 1040.0)] {
        no_control_is_cut(size);
    }
}

fn no_control_is_cut(size: egui::Vec2) {
    use egui::accesskit::Role;
    let mut h = editor_sized(demo(), size);
    // Four ticks a frame, to four-digit ticks quickly.
    h.state_mut()
        .send(stepframe_app::editor::Command::Run(Run::Set(
            TimeSetting::TimeScale(4.0),
        )));
    h.run_steps(300);
    click(&mut h, "⏸ Pause");
    assert!(
        h.state()
            .published()
            .live
            .as_ref()
            .expect("a view")
            .world
            .clock
            .simulation_tick
            >= 1000,
        "four-digit ticks"
    );
    let controls = [
        Role::Button,
        Role::TextInput,
        Role::CheckBox,
        Role::ComboBox,
        Role::Link,
        Role::Slider,
        Role::SpinButton,
    ];
    for pane in Pane::ALL {
        if !h.state().workspace().is_open(pane) {
            continue;
        }
        show(&mut h, pane);
        h.run_steps(2);
        let Some(tile) = h.state().workspace().rect(pane) else {
            continue;
        };
        for role in controls {
            for node in h.query_all(egui_kittest::kittest::By::new().role(role)) {
                let r = node.rect();
                let inside_vertically = r.top() >= tile.top() && r.bottom() <= tile.bottom();
                if !inside_vertically || !r.intersects(tile) {
                    continue;
                }
                assert!(
                    r.left() >= tile.left() - 0.5 && r.right() <= tile.right() + 0.5,
                    "{size:?}, {pane:?}: the {role:?} {:?} at {r:?} is cut at its tile's side {tile:?}",
                    node.accesskit_node().label()
                );
            }
        }
    }
}

/// Drags the tab at `from` to `to` as a hand does: press, a few moves, let go.
fn drag_tab(
    h: &mut egui_kittest::Harness<'_, stepframe_app::editor::Editor>,
    from: egui::Pos2,
    to: egui::Pos2,
) {
    h.event(egui::Event::PointerMoved(from));
    h.run_steps(2);
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(2);
    for i in 1..=12 {
        let p = from + (to - from) * (i as f32 / 12.0);
        h.event(egui::Event::PointerMoved(p));
        h.run_steps(1);
    }
    h.run_steps(3);
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(3);
}

/// The first tab dragged after start-up once landed in the bottom tile
/// (the timeline's), not the one under the pointer. Dropped on the middle
/// of the viewport, the Bookmarks tab joins the viewport's tabs, the first
/// time and every time.
#[test]
fn the_first_tab_dragged_lands_in_the_tile_under_the_pointer() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    h.run_steps(5);
    let tab = h
        .query_all_by_label("Bookmarks")
        .next()
        .expect("the Bookmarks tab")
        .rect()
        .center();
    let viewport = h
        .state()
        .workspace()
        .rect(Pane::Viewport)
        .expect("the viewport's tile");
    drag_tab(&mut h, tab, viewport.center());
    let ws = h.state().workspace();
    assert_eq!(
        ws.rect(Pane::Bookmarks),
        ws.rect(Pane::Viewport),
        "Bookmarks dropped on the viewport is one of its tabs (timeline's tile: {:?})",
        ws.rect(Pane::Timeline)
    );
}
