//! Ctrl+Z undoes an inspector pose edit and Ctrl+Shift+Z
//! redoes it, through the real panels. What the session does after each is
//! compared with a run that never had the edit (a plain headless run) and
//! with one that made it once (a second editor), bit for bit.

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::Editor;

use crate::support::editor::{
    click, clock_tick, demo, editor, headless_pose_at, label_starting, parse_pose, same_bits,
};
use crate::support::labels_starting;

/// The x the edit moves the player to: 5 m, far from anywhere it walks in
/// the first second.
const EDITED_X: f32 = 5.0;

/// The editor run 20 frames, paused, the player selected.
fn paused_on_player() -> Harness<'static, Editor> {
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Player");
    h
}

/// Sets the inspector's pose x field to `EDITED_X` (as a screen reader
/// sets a spin button: the field's own value action) and clicks Apply pose.
fn edit_player_x(h: &mut Harness<'_, Editor>) {
    let x = parse_pose(&label_starting(h, "committed pose: ")).x;
    // The pose x field is the drag value showing the committed x, in metres.
    let field = |h: &Harness<'_, Editor>, value: f32| {
        h.query_all_by_role(Role::SpinButton)
            .filter(|n| n.accesskit_node().label().as_deref() == Some("m"))
            .filter(|n| n.accesskit_node().numeric_value() == Some(f64::from(value)))
            .count()
    };
    assert_eq!(field(h, x), 1, "one pose field shows x = {x}");
    h.query_all_by_role(Role::SpinButton)
        .find(|n| n.accesskit_node().numeric_value() == Some(f64::from(x)))
        .expect("the x field")
        .set_value_accesskit(f64::from(EDITED_X));
    h.run_steps(1);
    assert_eq!(field(h, EDITED_X), 1, "the field shows the new x");
    // At 1280×800 the button is below the fold of the inspector's scroll
    // area, where a pointer click lands on the tile drawn over it: clicked
    // as a screen reader clicks it (egui's `clicked()` either way).
    h.get_by_label("Apply pose").click_accesskit();
    h.run_steps(2);
}

/// Opens the menu bar's Edit menu (the inspector has an "Edit" heading too).
fn open_edit_menu(h: &mut Harness<'_, Editor>) {
    h.query_all_by_label("Edit")
        .find(|n| n.accesskit_node().role() == Role::Button)
        .expect("the Edit menu")
        .click();
    h.run_steps(2);
}

/// The inspector's "queued: SetPose …" lines.
fn queued(h: &Harness<'_, Editor>) -> Vec<String> {
    labels_starting(h, "queued: SetPose")
}

/// The newest notice's text.
fn notice(h: &Harness<'_, Editor>) -> String {
    h.state()
        .feedback()
        .notices
        .back()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

fn keys(h: &mut Harness<'_, Editor>, modifiers: Modifiers, key: Key) {
    h.key_press_modifiers(modifiers, key);
    h.run_steps(2);
}

/// F10, and the player's committed pose after it.
fn step_tick(h: &mut Harness<'_, Editor>) -> stepframe_core::Pose {
    h.key_press(Key::F10);
    h.run_steps(2);
    parse_pose(&label_starting(h, "committed pose: "))
}

/// The live view's state hash.
fn hash(h: &Harness<'_, Editor>) -> u64 {
    h.state()
        .published()
        .live
        .as_ref()
        .expect("a view")
        .world
        .state_hash
}

#[test]
fn ctrl_z_undoes_an_inspector_pose_edit_and_the_next_tick_is_as_if_it_was_never_made() {
    let mut h = paused_on_player();
    let tick = clock_tick(&h);
    edit_player_x(&mut h);
    let shown = queued(&h);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].starts_with(&format!("queued: SetPose x {EDITED_X:?} m")),
        "{shown:?}"
    );

    keys(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(queued(&h).is_empty(), "the edit is no longer queued");
    assert_eq!(
        notice(&h),
        format!(
            "undid pose of Player (#20) (before tick {}): gone from the history, as if never \
             made; Ctrl+Shift+Z redoes it",
            tick + 1
        )
    );
    // The tick after is a plain run's, bit for bit: the edit never happened.
    let after = step_tick(&mut h);
    let plain = headless_pose_at(&demo(), "Player", tick + 1);
    assert!(same_bits(after, plain), "{after:?} vs {plain:?}");
    // Run on, an undo finds nothing: the edit was taken out, not left behind.
    keys(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(
        notice(&h).starts_with("nothing to undo at tick "),
        "{}",
        notice(&h)
    );
}

#[test]
fn ctrl_shift_z_redoes_it_exactly_as_the_edit_made_once() {
    let (mut redone, mut once) = (paused_on_player(), paused_on_player());
    let tick = clock_tick(&redone);
    assert_eq!(clock_tick(&once), tick, "both stopped at the same tick");
    for h in [&mut redone, &mut once] {
        edit_player_x(h);
    }
    keys(&mut redone, Modifiers::COMMAND, Key::Z);
    assert!(queued(&redone).is_empty());
    keys(&mut redone, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    assert_eq!(queued(&redone), queued(&once), "queued again");
    assert_eq!(
        notice(&redone),
        format!("redid pose of Player (#20) (before tick {})", tick + 1)
    );
    let (a, b) = (step_tick(&mut redone), step_tick(&mut once));
    assert!(same_bits(a, b), "{a:?} vs {b:?}");
    assert_eq!(hash(&redone), hash(&once), "the same session, bit for bit");
    // And the edit took effect: one tick from x = 5 m moves it a few cm at most.
    assert!((a.x - EDITED_X).abs() < 0.1, "x = {}", a.x);
}

#[test]
fn the_edit_menu_names_what_undo_and_redo_would_do_and_help_lists_the_keys() {
    let mut h = paused_on_player();
    edit_player_x(&mut h);
    open_edit_menu(&mut h);
    // The items name the edit, as the worker describes it in its notices.
    let undo = h.get_by_label("Undo pose of Player (#20)  (Ctrl+Z)");
    assert!(!undo.accesskit_node().is_disabled(), "something to undo");
    let redo = h.get_by_label("Redo  (Ctrl+Shift+Z)");
    assert!(redo.accesskit_node().is_disabled(), "nothing undone yet");
    click(&mut h, "Undo pose of Player (#20)  (Ctrl+Z)");
    assert!(queued(&h).is_empty(), "the menu item undoes too");
    open_edit_menu(&mut h);
    assert!(
        h.get_by_label("Undo  (Ctrl+Z)")
            .accesskit_node()
            .is_disabled()
    );
    assert!(
        !h.get_by_label("Redo pose of Player (#20)  (Ctrl+Shift+Z)")
            .accesskit_node()
            .is_disabled()
    );
    h.key_press(Key::Escape);
    h.run_steps(2);
    click(&mut h, "Help");
    assert_eq!(
        labels_starting(&h, "Ctrl+Z undo"),
        vec!["Ctrl+Z undo · Ctrl+Shift+Z redo an edit (while suspended, at its tick)".to_string()]
    );
}
