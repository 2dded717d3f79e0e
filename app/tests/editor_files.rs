//! No lost work: a failed Open leaves the editor naming (and saving) the
//! scene that runs, Save writes a change into a hand-written file in place
//! (its comments kept), and Save As writes only where the user said, asking
//! before it replaces.
//! Every scene here is a scratch copy: the real assets are never written.

use std::path::Path;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::Editor;

mod support;
use support::editor::{
    DEFAULT_SIZE, click, demo_copy, editor_sized, label_starting, open_scene, status, type_over,
    type_path_over,
};
use support::{labels_starting, scratch};

fn running_scene(h: &Harness<'_, Editor>) -> String {
    label_starting(h, "scene: ")
}

/// The toolbar's time scale set to 0.5×: a change Save has to write.
fn set_time_scale_half(h: &mut Harness<'_, Editor>) {
    h.get_by_label("Time scale").click();
    h.run_steps(2);
    click(h, "0.5×");
}

fn save(h: &mut Harness<'_, Editor>) {
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(3);
}

#[test]
fn after_a_failed_open_the_editor_names_and_saves_the_running_scene_never_the_broken_file() {
    let dir = scratch("failed-open");
    let scene = demo_copy(&dir);
    let broken = dir.join("scenes").join("broken.ron");
    // Line 3 lacks the comma between `id: 1` and `name`.
    let broken_text = "(\n    objects: [\n        (id: 1 name: \"x\"),\n    ],\n)\n";
    std::fs::write(&broken, broken_text).expect("write the broken scene");
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(5);
    let before = running_scene(&h);
    assert!(before.ends_with("demo.ron"), "{before}");

    open_scene(&mut h, &broken);
    let error = label_starting(&h, "error: ");
    let place = format!("{}:3:", broken.display());
    assert!(error.contains(&place), "{error:?} names {place}");
    // The old scene keeps running, and the editor still names it.
    assert_eq!(status(&h), "running");
    assert_eq!(running_scene(&h), before);

    // Ctrl+S is about the running scene's own file, never the file that
    // failed to open: unchanged, it writes nothing and says which file.
    save(&mut h);
    let notice = label_starting(&h, "no changes to save: ");
    assert!(notice.contains(&scene.display().to_string()), "{notice}");
    // Changed, it writes its own file in place: the one literal changes.
    let original = std::fs::read_to_string(&scene).expect("the scene is there");
    set_time_scale_half(&mut h);
    save(&mut h);
    review_then_save(&mut h, &scene, &original);
    assert!(labels_starting(&h, "Replace the file?").is_empty());
    assert_eq!(
        std::fs::read_to_string(&broken).expect("the broken file is there"),
        broken_text,
        "the file that failed to open is untouched"
    );
    let written = std::fs::read_to_string(&scene).expect("the scene is there");
    assert_eq!(written, in_place_half(&original));
}

/// Ctrl+S's first save into `scene`: the editor shows what it writes (the
/// toolbar's time scale, which a user once did not expect in the file) and
/// writes nothing until "Save" is clicked.
fn review_then_save(h: &mut Harness<'_, Editor>, scene: &Path, before: &str) {
    let file = scene.file_name().expect("a file").to_string_lossy();
    assert_eq!(
        labels_starting(h, &format!("Save into {file}?")).len(),
        1,
        "the first save shows what it writes"
    );
    let what = label_starting(h, "The first save into ");
    assert!(
        what.contains("• time setting time_scale: 1 in the file, 0.5 saved"),
        "{what}"
    );
    assert_eq!(
        std::fs::read_to_string(scene).expect("read"),
        before,
        "nothing written before the user says so"
    );
    click(h, "Save");
    h.run_steps(3);
}

fn click_time_scale(h: &mut Harness<'_, Editor>, scale: &str) {
    h.get_by_label("Time scale").click();
    h.run_steps(2);
    click(h, scale);
}

/// demo.ron with its time scale changed to 0.5, as written by hand: line 11
/// `time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, …)`.
fn in_place_half(original: &str) -> String {
    let line = "        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, \
                substeps: 1, strategy: Accumulator),";
    assert_eq!(original.lines().nth(10), Some(line), "demo.ron's line 11");
    original.replacen(line, &line.replace("time_scale: 1.0", "time_scale: 0.5"), 1)
}

#[test]
fn save_writes_a_change_into_a_hand_written_scene_in_place_and_save_as_writes_a_fresh_file() {
    let dir = scratch("comments");
    let scene = demo_copy(&dir);
    let original = std::fs::read_to_string(&scene).expect("the copy");
    assert!(original.contains("//"), "the demo scene has comments");
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(3);

    // Unchanged: nothing to save, nothing written.
    save(&mut h);
    assert!(
        !labels_starting(&h, "no changes to save").is_empty(),
        "an unchanged scene is not rewritten"
    );
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), original);

    // Change a time setting: the first Save shows what it writes, then
    // writes it where it stands, every comment kept.
    set_time_scale_half(&mut h);
    save(&mut h);
    review_then_save(&mut h, &scene, &original);
    assert!(labels_starting(&h, "Replace the file?").is_empty());
    let saved = std::fs::read_to_string(&scene).expect("read");
    assert_eq!(saved, in_place_half(&original));
    // The file is the editor's now: the next save writes without asking.
    click_time_scale(&mut h, "2×");
    save(&mut h);
    assert!(labels_starting(&h, "Save into ").is_empty());
    assert!(
        std::fs::read_to_string(&scene)
            .expect("read")
            .contains("time_scale: 2.0"),
        "the second save wrote at once"
    );
    click_time_scale(&mut h, "0.5×");
    save(&mut h);
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), saved);

    // Save As writes a fresh file instead; the scene's file stays as saved.
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::S,
    );
    // A new window is measured invisibly for one frame first.
    h.run_steps(1);
    let copy = dir.join("scenes").join("demo-copy.ron");
    type_path_over(&mut h, "New file", &copy);
    click(&mut h, "Save");
    h.run_steps(2);
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), saved);
    let fresh = std::fs::read_to_string(&copy).expect("Save As wrote the new file");
    assert!(
        fresh.contains("time_scale: 0.5"),
        "the changed setting is in it"
    );
    assert!(
        running_scene(&h).ends_with("demo-copy.ron"),
        "{}",
        running_scene(&h)
    );

    // The new file is the scene's own now, and stepframe's layout: Save
    // writes it without asking, and not the original.
    save(&mut h);
    assert!(labels_starting(&h, "Replace the file?").is_empty());
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), saved);
}

#[test]
fn save_as_onto_an_existing_file_asks_first() {
    let dir = scratch("save-as-existing");
    let scene = demo_copy(&dir);
    let other = dir.join("scenes").join("other.ron");
    std::fs::write(&other, "// someone's file\n").expect("write");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(3);
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::S,
    );
    h.run_steps(2);
    type_path_over(&mut h, "New file", &other);
    click(&mut h, "Save");
    h.run_steps(2);
    assert_eq!(labels_starting(&h, "Replace the file?").len(), 1);
    click(&mut h, "Cancel");
    assert_eq!(
        std::fs::read_to_string(&other).expect("read"),
        "// someone's file\n"
    );
}

fn pause(h: &mut Harness<'_, Editor>) {
    click(h, "⏸ Pause");
}

#[test]
fn a_bookmark_is_kept_beside_the_scene_moves_the_cursor_and_comes_back_on_reopen() {
    let dir = scratch("bookmarks");
    let scene = demo_copy(&dir);
    let sidecar = scene.with_extension("bookmarks.ron");
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(10);
    assert!(!sidecar.exists(), "opening a scene writes nothing");
    pause(&mut h);
    let tick = support::editor::clock_tick(&h);
    click(&mut h, "Bookmarks");
    h.get_by_label("Note").click();
    h.run_steps(1);
    h.get_by_label("Note").type_text("jump here");
    h.run_steps(1);
    click(&mut h, &format!("Bookmark tick {tick}"));
    let text = std::fs::read_to_string(&sidecar).expect("the sidecar is written");
    assert!(
        text.contains(&format!("tick: {tick}")) && text.contains("\"jump here\""),
        "{text}"
    );
    // The list the timeline's marker lane draws.
    let drawn = support::editor::bookmarks_listed(&h);
    assert_eq!(drawn, vec![(tick, "jump here".to_string())]);
    // Three ticks on, a click on the bookmark shows its tick in every panel.
    for _ in 0..3 {
        click(&mut h, "Step tick");
    }
    click(&mut h, &format!("tick {tick}"));
    assert_eq!(h.state().cursor(), Some(tick));
    h.run_steps(3);
    assert!(
        status(&h).starts_with(&format!("viewing tick {tick}")),
        "{}",
        status(&h)
    );
    drop(h);
    // A new editor on the same scene lists it again.
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(2);
    click(&mut h, "Bookmarks");
    assert_eq!(labels_starting(&h, &format!("tick {tick}")).len(), 1);
    assert_eq!(labels_starting(&h, "jump here").len(), 1);
}

#[test]
fn an_unreadable_bookmarks_file_is_reported_with_line_and_column_and_never_written_over() {
    let dir = scratch("bookmarks-broken");
    let scene = demo_copy(&dir);
    let sidecar = scene.with_extension("bookmarks.ron");
    // Line 2 misspells the field.
    let broken = "(\n    bookmark: [(tick: 4, note: \"x\")],\n)\n";
    std::fs::write(&sidecar, broken).expect("write the sidecar");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(5);
    let logged = h.state().feedback().log.lines.iter().any(|l| {
        l.text.contains("bookmarks not read")
            && l.text.contains(&format!("{}:2:", sidecar.display()))
    });
    assert!(logged, "{:#?}", h.state().feedback().log.lines);
    pause(&mut h);
    let tick = support::editor::clock_tick(&h);
    click(&mut h, "Bookmarks");
    click(&mut h, &format!("Bookmark tick {tick}"));
    assert_eq!(
        std::fs::read_to_string(&sidecar).expect("still there"),
        broken,
        "the user's file is untouched"
    );
    assert_eq!(
        labels_starting(&h, &format!("tick {tick}")).len(),
        1,
        "kept for the session"
    );
    assert!(
        h.state()
            .feedback()
            .log
            .lines
            .iter()
            .any(|l| l.text.starts_with("bookmarks not saved"))
    );
}

/// Where the Open dialog's field and buttons are: what a user aims at.
fn open_dialog_rects(h: &Harness<'_, Editor>) -> Vec<egui::Rect> {
    ["Scene file", "Open", "Cancel"]
        .iter()
        .map(|l| h.get_by_label(l).rect())
        .collect()
}

fn start_open(h: &mut Harness<'_, Editor>) {
    click(h, "File");
    click(h, "Open…  (Ctrl+O)");
}

/// Replaces the Open dialog's path with `text`, typed.
fn type_path(h: &mut Harness<'_, Editor>, text: &str) {
    type_over(h, "Scene file", text);
    h.run_steps(1);
}

/// Two clicks a frame apart on the widget labelled `label`, half a second
/// after any click before (egui counts a third click within 0.3 s of a
/// double click's first as a triple click).
fn double_click(h: &mut Harness<'_, Editor>, label: &str) {
    let at = h.get_by_label(label).rect().center();
    h.hover_at(at);
    h.run_steps(30);
    support::editor::press_release(h, at);
    h.run_steps(1);
    support::editor::press_release(h, at);
    h.run_steps(3);
}

#[test]
fn the_open_dialog_holds_still_a_click_selects_a_double_click_opens_and_return_submits() {
    let dir = scratch("open-dialog");
    let scene = demo_copy(&dir);
    let scenes = scene.parent().expect("scenes/").to_path_buf();
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(3);
    start_open(&mut h);
    let first = open_dialog_rects(&h);
    // The pointer wanders over it for a second: nothing it aims at moves.
    for i in 0..60 {
        h.hover_at(first[1].center() + egui::vec2(i as f32, 0.0));
        h.run_steps(1);
    }
    assert_eq!(open_dialog_rects(&h), first, "the dialog holds still");
    // Typing a path into a folder with other files (scripts/ has no scene)
    // changes the list, not where the buttons are.
    for folder in [dir.join("scripts"), scenes.clone()] {
        type_path(
            &mut h,
            &format!("{}{}", folder.display(), std::path::MAIN_SEPARATOR),
        );
        assert_eq!(
            open_dialog_rects(&h),
            first,
            "the dialog holds still in {}",
            folder.display()
        );
    }

    // One click on a listed file selects it: its path in the field, nothing
    // opened yet.
    click(&mut h, "push.ron");
    h.run_steps(3);
    assert!(
        running_scene(&h).ends_with("demo.ron"),
        "a click opens nothing"
    );
    assert_eq!(
        h.get_by_label("Scene file").value(),
        Some(scenes.join("push.ron").display().to_string()),
        "the click put the file in the field"
    );
    assert_eq!(open_dialog_rects(&h), first, "and the dialog stays");
    // Open takes the selection.
    click(&mut h, "Open");
    h.run_steps(3);
    assert!(running_scene(&h).ends_with("push.ron"));
    assert!(
        h.query_by_label("Scene file").is_none(),
        "the dialog closed"
    );

    // A double click opens at once.
    start_open(&mut h);
    double_click(&mut h, "soft.ron");
    assert!(running_scene(&h).ends_with("soft.ron"));
    assert!(
        h.query_by_label("Scene file").is_none(),
        "the dialog closed"
    );

    // Return submits the typed path.
    start_open(&mut h);
    type_path(&mut h, &scenes.join("demo.ron").display().to_string());
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert!(running_scene(&h).ends_with("demo.ron"));
    assert!(
        h.query_by_label("Scene file").is_none(),
        "the dialog closed"
    );
}

#[test]
fn the_open_dialog_starts_in_the_folder_last_opened_from_even_after_a_restart() {
    let dir = scratch("open-folder");
    let scene = demo_copy(&dir);
    let other = dir.join("elsewhere");
    std::fs::create_dir_all(&other).expect("a second folder");
    // A scene there that does not load: the folder counts all the same.
    let broken = other.join("broken.ron");
    std::fs::write(&broken, "(objects: [(id: 1 name: \"x\")])\n").expect("write");
    let storage = dir.join("storage.json");
    let mut h = support::storage::editor_with_storage(scene.clone(), &storage);
    h.run_steps(3);
    open_scene(&mut h, &broken);
    assert!(running_scene(&h).ends_with("demo.ron"), "it did not load");
    start_open(&mut h);
    let field = h.get_by_label("Scene file").value().expect("a path");
    assert_eq!(Path::new(&field), other, "the folder last opened from");
    click(&mut h, "Cancel");

    let mut file = support::storage::FileStorage::open(&storage);
    eframe::App::save(h.state_mut(), &mut file);
    eframe::Storage::flush(&mut file);
    drop(h);
    let mut h = support::storage::editor_with_storage(scene, &storage);
    h.run_steps(3);
    start_open(&mut h);
    let field = h.get_by_label("Scene file").value().expect("a path");
    assert_eq!(Path::new(&field), other, "remembered across a restart");
}

#[test]
fn the_open_dialog_lists_scenes_and_not_the_files_written_beside_them() {
    let dir = scratch("open-sidecars");
    let scene = demo_copy(&dir);
    let scenes = scene.parent().expect("scenes/").to_path_buf();
    // What the editor writes beside a scene: bookmarks, a saved session.
    std::fs::write(scenes.join("demo.bookmarks.ron"), "(bookmarks: [])\n").expect("write");
    std::fs::write(scenes.join("demo.session.ron"), "()\n").expect("write");
    // And the Input tab's tape (a session recording).
    std::fs::write(scenes.join("demo.tape.ron"), "()\n").expect("write");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(3);
    start_open(&mut h);
    type_path(
        &mut h,
        &format!("{}{}", scenes.display(), std::path::MAIN_SEPARATOR),
    );
    h.run_steps(2);
    assert!(h.query_by_label("push.ron").is_some(), "a scene is listed");
    assert!(
        h.query_by_label("demo.bookmarks.ron").is_none(),
        "bookmarks are not a scene"
    );
    assert!(
        h.query_by_label("demo.session.ron").is_none(),
        "a session is not a scene"
    );
    assert!(
        h.query_by_label("demo.tape.ron").is_none(),
        "an input tape is not a scene"
    );
}

/// Ctrl+S once wrote the toolbar's experiments (30 Hz, ×2, max steps 1)
/// into the scene without a word. The first save into a file shows every
/// edit and setting it writes, and writes nothing when cancelled.
#[test]
fn the_first_save_into_a_file_lists_its_edits_and_settings_and_cancel_writes_nothing() {
    use stepframe_app::editor::Command;
    use stepframe_app::editor::protocol::{EditCommand, Target};
    let dir = scratch("review");
    let scene = demo_copy(&dir);
    let original = std::fs::read_to_string(&scene).expect("the copy");
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(3);
    click(&mut h, "⏸ Pause");
    h.state_mut().send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(
            stepframe_core::ObjectId(20),
            stepframe_core::Pose {
                x: 1.5,
                y: 2.0,
                angle: 0.0,
            },
        ),
    });
    h.run_steps(3);
    // A velocity is no part of a scene: the review says it stays out.
    h.state_mut().send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Velocity(
            stepframe_core::ObjectId(20),
            stepframe_core::Velocity::default(),
        ),
    });
    h.run_steps(3);
    click_time_scale(&mut h, "2×");
    save(&mut h);
    let what = label_starting(&h, "The first save into ");
    assert!(what.contains("• pose of Player (#20)"), "{what}");
    let (writes, leaves) = what
        .split_once("It leaves out what a scene cannot hold:")
        .expect("the left-out edits are named");
    assert!(!writes.contains("velocity"), "{what}");
    assert!(leaves.contains("• velocity of Player (#20)"), "{what}");
    assert!(
        what.contains("• time setting time_scale: 1 in the file, 2 saved"),
        "{what}"
    );
    click(&mut h, "Cancel");
    h.run_steps(2);
    assert!(labels_starting(&h, "Save into ").is_empty());
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), original);
    // Asked again, yes writes both.
    save(&mut h);
    click(&mut h, "Save");
    h.run_steps(3);
    let written = std::fs::read_to_string(&scene).expect("read");
    assert!(written.contains("time_scale: 2.0"), "{written}");
    assert_ne!(written, original);
}

/// After *Adopt B* the session's recording starts again, so the first save
/// found no edit to show and wrote B's parameters without a word. It shows
/// them.
#[test]
fn the_first_save_after_adopting_b_shows_bs_parameters() {
    use stepframe_app::editor::protocol::{EditCommand, Target};
    use stepframe_app::editor::{Action, Command};
    let dir = scratch("review-adopt");
    let scene = demo_copy(&dir);
    let original = std::fs::read_to_string(&scene).expect("the copy");
    let mut h = editor_sized(scene.clone(), DEFAULT_SIZE);
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    h.state_mut().act(Action::ViewTick(10));
    h.run_steps(3);
    support::editor::click_shown(&mut h, "Fork here");
    h.run_steps(2);
    h.state_mut().send(Command::Edit {
        target: Target::B,
        edit: EditCommand::Params {
            object: stepframe_core::ObjectId(20),
            index: 0,
            params: "(jump_impulse: 9.0)".to_string(),
        },
    });
    h.run_steps(3);
    support::editor::click_shown(&mut h, "Adopt B");
    h.run_steps(3);
    save(&mut h);
    let what = label_starting(&h, "The first save into ");
    assert!(
        what.contains("• the behaviour parameters of the adopted branch B"),
        "{what}"
    );
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), original);
    click(&mut h, "Save");
    h.run_steps(3);
    assert!(
        std::fs::read_to_string(&scene)
            .expect("read")
            .contains("jump_impulse: 9.0"),
        "B's parameters saved"
    );
}
