//! F1 (the shortcut list), and the keys for "Fork here" (Ctrl+Shift+F) and "Add
//! bookmark" (Ctrl+B). Each does what its button does, compared side by side
//! with a second editor that clicks the button at the same moment; Fork here
//! with nothing stopped forks nothing and says why.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::protocol::BName;
use stepframe_app::editor::{Action, Editor, Pane};

use crate::support;
use crate::support::editor::{
    DEFAULT_SIZE, bookmarks_listed, click, click_shown, clock_tick, demo_copy, editor,
    editor_sized, show, status,
};
use crate::support::labels_starting;

/// Ctrl+Shift+F, then the frames the fork takes.
fn fork_key(h: &mut Harness<'_, Editor>) {
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::F);
    h.run_steps(2);
}

/// The live view's state hash and tick, and branch B's name.
fn session(h: &Harness<'_, Editor>) -> (u64, u64, Option<BName>) {
    let live = h.state().published().live.as_ref().expect("a live view");
    (
        live.world.state_hash,
        live.world.clock.simulation_tick,
        live.branch_b.as_ref().map(|b| b.name.clone()),
    )
}

#[test]
fn ctrl_shift_f_while_suspended_forks_exactly_as_the_fork_here_button() {
    let (mut keyed, mut clicked) = (editor(), editor());
    for h in [&mut keyed, &mut clicked] {
        h.run_steps(20);
        click(h, "⏸ Pause");
    }
    let at = clock_tick(&keyed);
    assert_eq!(clock_tick(&clicked), at, "both stopped at the same tick");
    fork_key(&mut keyed);
    click_shown(&mut clicked, "Fork here");
    clicked.run_steps(2);
    assert_eq!(keyed.state().reading().fork(), Some(at));
    assert_eq!(clicked.state().reading().fork(), Some(at));
    assert!(
        keyed
            .query_by_label(&format!("B forked at tick {at}"))
            .is_some()
    );
    // Both play on the same: A and B alike, tick for tick.
    for h in [&mut keyed, &mut clicked] {
        click(h, "▶ Play");
        h.run_steps(10);
        click(h, "⏸ Pause");
    }
    assert_eq!(session(&keyed), session(&clicked));
    assert_eq!(
        keyed.state().reading().run_b().map(|b| b.about.clone()),
        clicked.state().reading().run_b().map(|b| b.about.clone())
    );
}

#[test]
fn ctrl_shift_f_while_viewing_a_past_tick_forks_at_that_tick() {
    let mut h = editor();
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    let at = clock_tick(&h) - 10;
    h.state_mut().act(Action::ViewTick(at));
    h.run_steps(3);
    fork_key(&mut h);
    h.run_steps(2);
    assert_eq!(h.state().reading().fork(), Some(at));
}

#[test]
fn ctrl_shift_f_while_running_forks_nothing_and_a_notice_says_why() {
    let mut h = editor();
    h.run_steps(5);
    assert_eq!(status(&h), "running");
    let before = clock_tick(&h);
    fork_key(&mut h);
    h.run_steps(3);
    assert_eq!(h.state().reading().fork(), None, "no branch");
    assert!(h.state().reading().run_b().is_none());
    assert_eq!(status(&h), "running", "the session was not stopped");
    assert!(clock_tick(&h) > before, "and it went on playing");
    let why = "Ctrl+Shift+F: nothing to fork while the session runs; pause it, stop at a \
               breakpoint or view a past tick, then Fork here";
    assert_eq!(
        h.state().feedback().notices.back().map(|n| n.text.as_str()),
        Some(why)
    );
    assert_eq!(labels_starting(&h, why), vec![why.to_string()], "shown");
}

/// The editor on a fresh copy of the demo in scratch folder `name`, run 20
/// frames, paused, with the Bookmarks tab showing and `note` typed in its
/// Note field (which keeps the keyboard).
fn paused_with_note(name: &str, note: &str) -> (Harness<'static, Editor>, std::path::PathBuf) {
    let scene = demo_copy(&support::scratch(name));
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    show(&mut h, Pane::Bookmarks);
    h.get_by_label("Note").click();
    h.run_steps(1);
    h.get_by_label("Note").type_text(note);
    h.run_steps(1);
    (h, scene.with_extension("bookmarks.ron"))
}

#[test]
fn ctrl_b_while_suspended_bookmarks_the_tick_with_the_note_exactly_as_the_button() {
    let (mut keyed, keyed_file) = paused_with_note("ctrl-b-key", "jump here");
    let (mut clicked, clicked_file) = paused_with_note("ctrl-b-button", "jump here");
    let tick = clock_tick(&keyed);
    assert_eq!(clock_tick(&clicked), tick);
    // The Note field has the keyboard: a Ctrl combination still reaches the editor.
    keyed.key_press_modifiers(Modifiers::COMMAND, Key::B);
    keyed.run_steps(2);
    click(&mut clicked, &format!("Bookmark tick {tick}"));
    let keyed_text = std::fs::read_to_string(&keyed_file).expect("Ctrl+B wrote the sidecar");
    let clicked_text = std::fs::read_to_string(&clicked_file).expect("the button wrote it");
    assert_eq!(keyed_text, clicked_text, "the same file");
    assert!(
        keyed_text.ends_with(")\n"),
        "a text file's last line ends: {keyed_text:?}"
    );
    assert!(
        keyed_text.contains(&format!("tick: {tick}")) && keyed_text.contains("\"jump here\""),
        "{keyed_text}"
    );
    for h in [&keyed, &clicked] {
        assert_eq!(
            bookmarks_listed(h),
            vec![(tick, "jump here".to_string())],
            "the one list the timeline's marker lane draws"
        );
        assert_eq!(
            labels_starting(h, &format!("tick {tick}")).len(),
            1,
            "listed"
        );
        assert_eq!(
            h.get_by_label("Note").accesskit_node().value().as_deref(),
            Some(""),
            "the Note field emptied"
        );
    }
}

#[test]
fn ctrl_b_reaches_the_editor_while_the_viewport_has_the_keyboard() {
    let scene = demo_copy(&support::scratch("ctrl-b-viewport"));
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(10);
    h.get_by_role_and_label(egui::accesskit::Role::Canvas, "Viewport")
        .click();
    h.run_steps(2);
    assert!(
        h.get_by_role_and_label(egui::accesskit::Role::Canvas, "Viewport")
            .accesskit_node()
            .is_focused(),
        "the game has the keyboard"
    );
    let tick = clock_tick(&h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::B);
    h.run_steps(2);
    let marks = bookmarks_listed(&h);
    assert_eq!(marks.len(), 1, "{marks:?}");
    // Live and playing: the bookmark is on the tick shown when the key came.
    assert!(
        (tick..=tick + 2).contains(&marks[0].0),
        "{marks:?} from tick {tick}"
    );
}

#[test]
fn the_help_menu_lists_both_keys() {
    let mut h = editor();
    click(&mut h, "Help");
    assert_eq!(
        labels_starting(&h, "Ctrl+B "),
        vec!["Ctrl+B  bookmark the tick shown".to_string()]
    );
    assert_eq!(
        labels_starting(&h, "Ctrl+Shift+F "),
        vec!["Ctrl+Shift+F  fork here (while suspended or viewing a past tick)".to_string()]
    );
}

#[test]
fn f1_opens_the_shortcut_list_and_f1_closes_it() {
    let mut h = editor();
    h.run_steps(3);
    let line = "F10 or .  step one fixed tick";
    assert!(h.query_by_label(line).is_none(), "no list before F1");
    h.key_press(Key::F1);
    h.run_steps(2);
    assert!(
        h.query_by_label("Shortcuts").is_some(),
        "the window's title"
    );
    assert!(h.query_by_label(line).is_some(), "the list, in a window");
    assert!(
        h.query_by_label("Ctrl+Shift+R  replay the session with a new build of the game")
            .is_some()
    );
    h.key_press(Key::F1);
    h.run_steps(2);
    assert!(h.query_by_label(line).is_none(), "F1 again closes it");
}

#[test]
fn ctrl_f_types_into_the_hierarchy_filter_at_once() {
    let mut h = editor();
    h.run_steps(3);
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run_steps(2);
    // Typed with no click: the filter has the keyboard.
    h.input_mut().events.push(egui::Event::Text("play".into()));
    h.run_steps(2);
    assert_eq!(
        h.get_by_label("Filter").value().as_deref(),
        Some("play"),
        "the keys went to the filter"
    );
    assert!(
        h.query_by_label("Player").is_some(),
        "the tree narrowed to the player"
    );
    assert!(h.query_by_label("Ground West").is_none());
}

#[test]
fn ctrl_t_gives_the_timeline_the_keyboard_so_left_moves_the_cursor() {
    let mut h = editor();
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    assert_eq!(h.state().cursor(), None);
    h.key_press_modifiers(Modifiers::COMMAND, Key::T);
    h.run_steps(2);
    h.key_press(Key::ArrowLeft);
    h.run_steps(3);
    assert!(
        h.state().cursor().is_some(),
        "Left moved the time cursor with no click on the timeline"
    );
}
