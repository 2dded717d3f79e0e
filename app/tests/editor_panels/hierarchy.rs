//! A hierarchy that scales. The Filter field narrows the
//! tree to the objects whose name, id or behaviour name contains the text;
//! only the rows on screen are laid out, so at 10,000 objects a row far down
//! is not there until it is scrolled to or filtered for. Expected rows come
//! from the scene file and the published world, never from the panel.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::{Command, Editor};
use stepframe_core::{ObjectId, Scene, SceneObject};

use crate::support;
use crate::support::editor::{
    DEFAULT_SIZE, click, demo, editor, editor_sized, label_starting, live_view, type_into,
};

/// The ids (`#20`) of the hierarchy rows laid out now, top to bottom: the
/// id labels under the Filter field, in the hierarchy's column.
fn rows(h: &Harness<'_, Editor>) -> Vec<String> {
    let field = h.get_by_label("Filter").rect();
    let mut found: Vec<(f32, String)> = h
        .query_all_by(|n| {
            n.role() == Role::Label
                && n.value().is_some_and(|v| v.starts_with('#'))
                && n.bounding_box()
                    .is_some_and(|b| (b.x0 as f32) < field.right() && b.y0 as f32 > field.bottom())
        })
        .filter_map(|n| Some((n.rect().top(), n.accesskit_node().value()?)))
        .collect();
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    found.into_iter().map(|(_, id)| id).collect()
}

/// Every object of a scene, children included.
fn flatten(objects: &[SceneObject], out: &mut Vec<SceneObject>) {
    for o in objects {
        out.push(o.clone());
        flatten(&o.children, out);
    }
}

/// The demo's authored objects.
fn demo_objects() -> Vec<SceneObject> {
    let registry = stepframe_app::player::registry(&demo());
    let scene = Scene::load(&demo(), &registry).expect("the demo loads");
    let mut all = Vec::new();
    flatten(&scene.objects, &mut all);
    all
}

/// The editor on the demo, paused, so the world holds still while filtering.
fn paused_demo() -> Harness<'static, Editor> {
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    h
}

/// How many objects the live world has (what "of M" counts).
fn alive(h: &Harness<'_, Editor>) -> usize {
    live_view(h).objects.len()
}

#[test]
fn the_filter_finds_objects_by_name_in_any_case_and_says_how_many_of_all() {
    let mut h = paused_demo();
    let all = alive(&h);
    assert_eq!(
        label_starting(&h, &format!("{all} objects")),
        format!("{all} objects")
    );
    // The scene has "Ledge A" and "Ledge B" (ids from the file).
    let mut ledges: Vec<u64> = demo_objects()
        .iter()
        .filter(|o| o.name.to_lowercase().contains("ledge"))
        .map(|o| o.id)
        .collect();
    ledges.sort();
    assert!(ledges.len() >= 2, "the demo has ledges: {ledges:?}");
    type_into(&mut h, "Filter", "lEdGe");
    let expected: Vec<String> = ledges.iter().map(|id| format!("#{id}")).collect();
    assert_eq!(rows(&h), expected);
    assert_eq!(
        label_starting(&h, &format!("{} of ", ledges.len())),
        format!("{} of {all} objects", ledges.len())
    );
    // An empty filter (spaces only) shows the whole tree again.
    h.get_by_label("Filter").click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label("Filter").type_text("  ");
    h.run_steps(2);
    assert_eq!(
        label_starting(&h, &format!("{all} objects")),
        format!("{all} objects")
    );
    assert!(rows(&h).len() > ledges.len(), "{:?}", rows(&h));
}

#[test]
fn the_filter_finds_an_object_by_its_id_and_a_click_on_the_row_selects_it() {
    let mut h = paused_demo();
    // "#2" is in "#2", "#20", "#215"…: every live id whose digits start with 2.
    let expected: Vec<String> = live_view(&h)
        .objects
        .iter()
        .map(|o| format!("#{}", o.id.0))
        .filter(|id| id.contains("#2"))
        .collect();
    type_into(&mut h, "Filter", "#2");
    let all = alive(&h);
    assert_eq!(
        label_starting(&h, &format!("{} of ", expected.len())),
        format!("{} of {all} objects", expected.len())
    );
    // More than a screenful: the first ones, in id order.
    let shown = rows(&h);
    assert!(!shown.is_empty());
    assert_eq!(shown, expected[..shown.len()]);
    // "#20" alone is the player (id 20 in demo.ron), and its row still selects.
    h.get_by_label("Filter").type_text("0");
    h.run_steps(2);
    let twenties: Vec<String> = expected
        .into_iter()
        .filter(|id| id.contains("#20"))
        .collect();
    let shown = rows(&h);
    assert_eq!(shown, twenties[..shown.len()]);
    assert_eq!(twenties[0], "#20");
    click(&mut h, "Player");
    h.run_steps(2);
    assert_eq!(h.state().reading().selection(), Some(ObjectId(20)));
}

#[test]
fn the_filter_finds_objects_by_behaviour_name() {
    let mut h = paused_demo();
    let objects = demo_objects();
    let with = |name: &str| -> Vec<String> {
        let mut ids: Vec<u64> = objects
            .iter()
            .filter(|o| o.behaviours.iter().any(|b| b.name == name))
            .map(|o| o.id)
            .collect();
        ids.sort();
        ids.iter().map(|id| format!("#{id}")).collect()
    };
    type_into(&mut h, "Filter", "playercontroller");
    assert_eq!(rows(&h), with("PlayerController"));
    assert_eq!(rows(&h), vec!["#20".to_string()], "the player alone");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label("Filter").type_text("SCRIPT");
    h.run_steps(2);
    let scripted = with("Script");
    assert!(scripted.len() >= 3, "the guard and two coins: {scripted:?}");
    assert_eq!(rows(&h), scripted);
}

/// A scene of `n` bodiless root objects, "Crate 1" to "Crate n".
fn crates(n: u64) -> std::path::PathBuf {
    let dir = support::scratch("crates");
    let mut text = String::from("(\n    objects: [\n");
    for id in 1..=n {
        text.push_str(&format!("        (id: {id}, name: \"Crate {id}\"),\n"));
    }
    text.push_str("    ],\n)\n");
    let path = dir.join("crates.ron");
    std::fs::write(&path, text).expect("scene written");
    path
}

#[test]
fn at_ten_thousand_objects_only_a_screenful_of_rows_is_laid_out() {
    let mut h = editor_sized(crates(10_000), DEFAULT_SIZE);
    click(&mut h, "⏸ Pause");
    assert_eq!(label_starting(&h, "10000 objects"), "10000 objects");
    let shown = rows(&h);
    // The hierarchy's tile is about 450 points tall: some 20 rows of 22.
    assert!(
        (10..60).contains(&shown.len()),
        "a screenful, not 10,000: {} rows",
        shown.len()
    );
    assert_eq!(shown[0], "#1");
    assert!(h.query_by_label("Crate 1").is_some());
    assert!(
        h.query_by_label("Crate 9000").is_none(),
        "row 9000 is not laid out"
    );

    // A selection made elsewhere (as the viewport or the log makes it) is
    // scrolled to: its row is laid out then, and the top ones are not.
    h.state_mut().send(Command::Select(Some(ObjectId(9000))));
    h.run_steps(4);
    assert!(
        h.query_by_label("Crate 9000").is_some(),
        "revealed: {:?}",
        rows(&h)
    );
    assert!(h.query_by_label("Crate 1").is_none());
    let shown = rows(&h);
    assert!(shown.len() < 60, "still a screenful: {}", shown.len());
    assert!(shown.contains(&"#9000".to_string()), "{shown:?}");

    // Filtered, a far row is the only one.
    type_into(&mut h, "Filter", "crate 4321");
    assert_eq!(rows(&h), vec!["#4321".to_string()]);
    assert_eq!(label_starting(&h, "1 of "), "1 of 10000 objects");
}

/// Two faults once found here: folds were forgotten on restart, and one scene's folds
/// (by object id) applied to another scene's objects. Each scene now opens
/// folded as the user left it, this session or the last.
#[test]
fn folds_belong_to_their_scene_and_come_back_after_a_restart() {
    let file = support::scratch("hierarchy-folds").join("storage.json");
    let soft = demo().with_file_name("soft.ron");
    let mut h = support::storage::editor_with_storage(demo(), &file);
    h.run_steps(5);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Fold Level");
    assert!(h.query_by_label("Unfold Level").is_some(), "folded");
    assert!(
        h.query_by_label("Ground West").is_none(),
        "its children hidden"
    );

    // soft.ron has an object #1 too: the demo's fold is not its.
    support::editor::open_scene(&mut h, &soft);
    h.run_steps(5);
    assert_eq!(h.state().hierarchy_fold(ObjectId(1)), None);
    // Back to the demo: folded as it was left.
    support::editor::open_scene(&mut h, &demo());
    h.run_steps(5);
    assert!(
        h.query_by_label("Unfold Level").is_some(),
        "the demo's fold came back"
    );
    support::storage::save(&mut h, &file);
    drop(h);

    let mut h = support::storage::editor_with_storage(demo(), &file);
    h.run_steps(5);
    assert!(
        h.query_by_label("Unfold Level").is_some(),
        "after a restart, Level is still folded"
    );
    assert!(h.query_by_label("Ground West").is_none());
}

#[test]
fn at_the_default_size_every_visible_rows_id_lies_inside_the_hierarchy() {
    let h = editor_sized(demo(), DEFAULT_SIZE);
    let tile = h
        .state()
        .workspace()
        .rect(stepframe_app::editor::Pane::Hierarchy)
        .expect("the hierarchy is laid out");
    let field = h.get_by_label("Filter").rect();
    let ids: Vec<egui::Rect> = h
        .query_all_by(|n| {
            n.role() == Role::Label
                && n.value().is_some_and(|v| v.starts_with('#'))
                && n.bounding_box().is_some_and(|b| {
                    (b.x0 as f32) < tile.right()
                        && (b.y0 as f32) > field.bottom()
                        && (b.y1 as f32) < tile.bottom()
                })
        })
        .map(|n| n.rect())
        .collect();
    assert!(ids.len() > 10, "rows are shown: {}", ids.len());
    for id in ids {
        assert!(
            id.right() <= tile.right() + 0.5,
            "an id cut at the hierarchy's edge: {id:?} in {tile:?}"
        );
    }
}
