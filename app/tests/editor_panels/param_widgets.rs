//! A behaviour's parameters as typed widgets. The demo's Sliding Platform
//! runs a KinematicMover with
//! `(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: PingPong)`:
//! its speed is a drag value in m/s, its mode a combo box of the three
//! path modes, its `relative` flag (left to its default, true) a checkbox.
//! Editing them and pressing Apply sends the text with those values
//! changed and every other byte as written; the host runs with it from the
//! next tick. Every expected text and value is written out here by hand.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::Editor;
use stepframe_core::{FieldValue, ObjectId};

use crate::support::editor::{click, click_shown, editor, live_view};

/// The demo's Sliding Platform.
const PLATFORM: ObjectId = ObjectId(12);

/// Its parameters as demo.ron writes them.
const AUTHORED: &str =
    "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: PingPong)";

/// The platform's parameter text the live session runs with.
fn running_params(h: &Harness<'_, Editor>) -> String {
    let sel = live_view(h)
        .selected
        .as_ref()
        .expect("the platform is selected");
    assert_eq!(sel.id, PLATFORM);
    sel.behaviours[0].params.clone()
}

/// The platform's row `path` in the live view.
fn row(h: &Harness<'_, Editor>, path: &str) -> FieldValue {
    let sel = live_view(h)
        .selected
        .as_ref()
        .expect("the platform is selected");
    let field = sel.states[0].fields.iter().find(|f| f.path == path);
    field
        .unwrap_or_else(|| panic!("no row {path}"))
        .value
        .clone()
}

/// The editor paused with the platform selected.
fn paused_on_the_platform() -> Harness<'static, Editor> {
    let mut h = editor();
    h.run_steps(10);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Sliding Platform");
    h.run_steps(3);
    assert_eq!(running_params(&h), AUTHORED);
    h
}

/// Clicks the `nth` drag value labelled `label` (which opens it for
/// typing), types `text` over what it holds and presses Enter.
fn type_into_drag_value(h: &mut Harness<'_, Editor>, label: &str, nth: usize, text: &str) {
    h.get_all_by_label(label)
        .nth(nth)
        .expect("the widget")
        .scroll_to_me();
    h.run_steps(10);
    let at = h
        .get_all_by_label(label)
        .nth(nth)
        .expect("the widget")
        .rect()
        .center();
    crate::support::editor::press_release(h, at);
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_all_by_label(label)
        .nth(nth)
        .expect("open for typing")
        .type_text(text);
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
}

#[test]
fn typed_widgets_edit_the_platforms_parameters_and_apply_sends_exactly_the_edited_text() {
    let mut h = paused_on_the_platform();
    // The widgets hold the values the text writes, and the default the
    // text leaves out.
    let speed = h.get_by_label("speed");
    assert_eq!(speed.accesskit_node().numeric_value(), Some(1.0));
    assert_eq!(speed.accesskit_node().value().as_deref(), Some("1 m/s"));
    assert_eq!(
        h.get_by_label("relative").accesskit_node().toggled(),
        Some(egui::accesskit::Toggled::True)
    );
    // The RON field is folded away while widgets show: "edit params" is
    // only the label of the row with the Apply button.
    let heading = h.get_by_label("edit params");
    assert_eq!(heading.accesskit_node().role(), Role::Label);

    type_into_drag_value(&mut h, "speed", 0, "2.5");
    click_shown(&mut h, "mode");
    click(&mut h, "Once");
    click_shown(&mut h, "relative");
    // Nothing is sent before Apply.
    assert_eq!(running_params(&h), AUTHORED);
    click_shown(&mut h, "Apply parameters");
    h.run_steps(2);
    assert_eq!(
        running_params(&h),
        "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 2.5, mode: Once, relative: false)",
        "the three values changed where they stand (relative added at the end), \
         every other byte as demo.ron writes it"
    );
    // The behaviour runs with them.
    click(&mut h, "Step tick");
    h.run_steps(2);
    assert_eq!(row(&h, "KinematicMover.speed"), FieldValue::F32(2.5));
    assert_eq!(
        row(&h, "KinematicMover.mode"),
        FieldValue::Text("Once".into())
    );
    assert_eq!(row(&h, "KinematicMover.relative"), FieldValue::Bool(false));
}

#[test]
fn the_ron_field_stays_under_edit_as_ron_and_edits_the_same_text() {
    let mut h = paused_on_the_platform();
    click_shown(&mut h, "Edit as RON");
    let field = h.get_by_label("edit params");
    assert_eq!(field.accesskit_node().value().as_deref(), Some(AUTHORED));
    // A widget's change shows in the RON at once: one text, two views.
    click_shown(&mut h, "mode");
    click(&mut h, "Loop");
    assert_eq!(
        h.get_by_label("edit params")
            .accesskit_node()
            .value()
            .as_deref(),
        Some("(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: Loop)")
    );
}

#[test]
fn a_drag_moves_the_speed_and_the_host_runs_with_exactly_the_f32_written() {
    let mut h = paused_on_the_platform();
    h.get_by_label("speed").scroll_to_me();
    h.run_steps(10);
    let from = h.get_by_label("speed").rect().center();
    // 100 points to the right, in four moves, the button held.
    h.event(egui::Event::PointerMoved(from));
    h.run_steps(1);
    for (pressed, to) in [(true, from), (false, from + egui::vec2(100.0, 0.0))] {
        if !pressed {
            for k in 1..=4 {
                h.event(egui::Event::PointerMoved(
                    from + egui::vec2(25.0 * k as f32, 0.0),
                ));
                h.run_steps(1);
            }
        }
        h.event(egui::Event::PointerButton {
            pos: to,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(1);
    }
    click_shown(&mut h, "Apply parameters");
    h.run_steps(2);
    let text = running_params(&h);
    let literal = text
        .split("speed: ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("no speed in {text}"));
    let written: f32 = literal.parse().expect("a float");
    assert!(
        written > 1.0,
        "a drag to the right makes it faster: {literal}"
    );
    assert_eq!(
        text,
        format!(
            "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: {literal}, mode: PingPong)"
        ),
        "only the speed changed"
    );
    assert_eq!(
        literal,
        format!("{written:?}"),
        "the shortest text of the f32"
    );
    click(&mut h, "Step tick");
    h.run_steps(2);
    assert_eq!(row(&h, "KinematicMover.speed"), FieldValue::F32(written));
}

#[test]
fn b_gets_the_same_widgets_over_its_own_text_and_set_in_b_changes_b_alone() {
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    let at = crate::support::editor::clock_tick(&h);
    click_shown(&mut h, "Fork here");
    h.run_steps(2);
    click(&mut h, "Sliding Platform");
    h.run_steps(3);
    // A's widgets (Apply parameters), then B's (Set in B).
    assert_eq!(h.get_all_by_label("speed").count(), 2);
    type_into_drag_value(&mut h, "speed", 1, "3.0");
    click_shown(&mut h, "Edit B as RON");
    let b_text = h.get_by_label("B params of KinematicMover");
    assert_eq!(
        b_text.accesskit_node().value().as_deref(),
        Some("(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 3.0, mode: PingPong)")
    );
    click_shown(&mut h, "Set in B");
    h.run_steps(2);
    click(&mut h, "▶ Play");
    crate::support::editor::step_until(&mut h, 60, "A and B part", |h| {
        h.state()
            .reading()
            .run_b()
            .and_then(|c| c.about.first)
            .is_some()
    });
    let first = h
        .state()
        .reading()
        .run_b()
        .and_then(|c| c.about.first)
        .expect("parted");
    // The platform moves faster from B's next tick; nothing differs before.
    assert_eq!((first.tick, first.first_object), (at + 1, Some(PLATFORM.0)));
    assert_eq!(running_params(&h), AUTHORED, "A runs as authored");
}
