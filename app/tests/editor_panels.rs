//! The editor's panels as a user meets them: what the A/B inspector, the breakpoints tab, the Input tab, the notices and the
//! code pane say, and that their widgets stay where the pointer is. Driven
//! headless through egui_kittest in the synchronous driver (one worker frame
//! of 1/60 s per UI frame, one fixed tick at 60 Hz); what a panel shows is
//! read back from its widgets, and every expected value is worked out here
//! from the scene or the trace, not by the code under test.

use egui::accesskit::{Role, Toggled};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::{Action, Editor, Pane};

mod support;

#[path = "editor_panels/code_layout.rs"]
mod code_layout;
#[path = "editor_panels/flame.rs"]
mod flame;
#[path = "editor_panels/hierarchy.rs"]
mod hierarchy;
#[path = "editor_panels/hotkeys.rs"]
mod hotkeys;
#[path = "editor_panels/notices.rs"]
mod notices;
#[path = "editor_panels/param_widgets.rs"]
mod param_widgets;
#[path = "editor_panels/plot_field.rs"]
mod plot_field;
#[path = "editor_panels/time_readout.rs"]
mod time_readout;
#[path = "editor_panels/undo.rs"]
mod undo;
#[path = "editor_panels/viewport_drag.rs"]
mod viewport_drag;
#[path = "editor_panels/watches.rs"]
mod watches;
use support::editor::{
    DEFAULT_SIZE, add_frame_delta_over_10_ms_from, click, clock_tick, demo, editor, editor_sized,
    label_starting, open_scene, paused_comparing_from, show, status, status_once_suspended,
    step_until, type_into,
};
use support::{labels_starting, shown_text};

/// The texts of the widgets on the same row as the one showing exactly
/// `text`, to its right, left to right: the rest of a grid row.
fn rest_of_row(h: &Harness<'_, Editor>, text: &str) -> Vec<String> {
    let anchor = h
        .query_all_by(|n| shown_text(n).is_some_and(|t| t == text))
        .map(|n| n.rect())
        .next()
        .unwrap_or_else(|| panic!("no widget shows {text:?}"));
    let mut row: Vec<(f32, String)> = h
        .query_all_by(|n| {
            n.bounding_box().is_some_and(|b| {
                (b.y0 as f32 - anchor.top()).abs() < 3.0 && b.x0 as f32 > anchor.right() - 1.0
            })
        })
        .filter_map(|n| Some((n.rect().left(), shown_text(&n.accesskit_node())?)))
        .collect();
    row.sort_by(|a, b| a.0.total_cmp(&b.0));
    row.into_iter().map(|(_, t)| t).collect()
}

/// The distance in f32 steps between two values of one sign: the difference
/// of their bit patterns (IEEE 754 orders same-sign floats as their bits).
fn steps_between(a: f32, b: f32) -> u64 {
    assert_eq!(a.is_sign_negative(), b.is_sign_negative(), "{a} and {b}");
    u64::from(a.to_bits().abs_diff(b.to_bits()))
}

#[test]
fn the_ab_inspector_gives_the_ulps_of_every_differing_field() {
    let mut h = paused_comparing_from("ulps", 230, 200, 210);
    h.state_mut().act(Action::ViewTick(205));
    h.run_steps(3);
    click(&mut h, "Player");
    h.run_steps(3);
    let a = h
        .state()
        .reading()
        .shown()
        .and_then(|v| v.selected.clone())
        .expect("the player at tick 205");
    let b = h
        .state()
        .reading()
        .run_b()
        .and_then(|c| c.shown.filter(|t| t.tick == 205))
        .and_then(|t| t.object(20))
        .expect("B has the player at tick 205");
    // x differs by 0.25 m: a real count of f32 steps, not an empty cell.
    assert_ne!(a.committed.x, b[0]);
    let x_row = rest_of_row(&h, &format!("{:?}", b[0]));
    assert_eq!(
        x_row,
        vec![steps_between(a.committed.x, b[0]).to_string()],
        "the ULPs cell beside B's x"
    );
    // y is the same in A and B: 0 steps.
    assert_eq!(a.committed.y.to_bits(), b[1].to_bits());
    let y_row = rest_of_row(&h, "y");
    assert_eq!(
        y_row,
        vec![
            format!("{:?}", a.committed.y),
            format!("{:?}", b[1]),
            "0".to_string()
        ],
        "the y row: A, B, 0 ULPs"
    );
}

/// The bundled scene with the jelly disk (object 6 there; in the demo, 6 is
/// Ledge A).
fn soft_scene() -> std::path::PathBuf {
    demo().with_file_name("soft.ron")
}

#[test]
fn a_breakpoint_names_its_object_and_a_scene_without_that_pair_disables_it_with_a_notice() {
    let mut h = editor_sized(soft_scene(), DEFAULT_SIZE);
    click(&mut h, "JellyDisk");
    show(&mut h, Pane::Breakpoints);
    h.key_press(egui::Key::F9);
    step_until(&mut h, 30, "the jelly's breakpoint hit", |h| {
        status(h).starts_with("suspended at tick ")
    });
    let rows = labels_starting(&h, "FixedUpdate on ");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].starts_with("FixedUpdate on JellyDisk #6"),
        "{rows:?}"
    );
    let hits = labels_starting(&h, "tick ");
    let jelly_hits: Vec<&String> = hits.iter().filter(|l| l.contains("JellyDisk #6")).collect();
    assert_eq!(jelly_hits.len(), 1, "one hit, on the jelly: {hits:?}");
    let hit = jelly_hits[0].clone();

    // The demo's object 6 is Ledge A: not the breakpoint's object.
    open_scene(&mut h, &demo().canonicalize().expect("the demo"));
    h.run_steps(3);
    assert!(label_starting(&h, "scene: ").ends_with("demo.ron"));
    let rows = labels_starting(&h, "FixedUpdate on ");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].starts_with("FixedUpdate on JellyDisk #6"),
        "still the jelly's, not Ledge A's: {rows:?}"
    );
    assert_eq!(
        h.get_by_role_and_label(Role::CheckBox, "#1")
            .accesskit_node()
            .toggled(),
        Some(Toggled::False),
        "its checkbox is cleared: disabled"
    );
    let notices = labels_starting(&h, "breakpoint 1 ");
    assert!(
        notices
            .iter()
            .any(|n| n.contains("disabled") && n.contains("JellyDisk #6")),
        "a notice says why: {notices:?}"
    );
    // The hit keeps the label it was recorded with.
    assert!(
        labels_starting(&h, "tick ").contains(&hit),
        "{hit:?} is still listed as it was"
    );
    assert!(
        labels_starting(&h, "tick ")
            .iter()
            .all(|l| !l.contains("Ledge A")),
        "no hit is relabelled to Ledge A"
    );
    // It cannot be enabled while its object is not there, and F9 on the
    // demo's #6 is about Ledge A, not the jelly's breakpoint.
    let toggled = |h: &Harness<'_, Editor>| {
        h.get_by_role_and_label(Role::CheckBox, "#1")
            .accesskit_node()
            .toggled()
    };
    h.get_by_role_and_label(Role::CheckBox, "#1").click();
    h.run_steps(3);
    assert_eq!(toggled(&h), Some(Toggled::False), "it stays disabled");
    click(&mut h, "Ledge A");
    h.key_press(egui::Key::F9);
    h.run_steps(3);
    let rows = labels_starting(&h, "FixedUpdate on ");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("FixedUpdate on JellyDisk #6")),
        "F9 on Ledge A #6 left the jelly's breakpoint: {rows:?}"
    );
    // Back in the jelly's scene it can be enabled again.
    open_scene(&mut h, &soft_scene().canonicalize().expect("soft.ron"));
    h.run_steps(3);
    h.get_by_role_and_label(Role::CheckBox, "#1").click();
    h.run_steps(3);
    assert_eq!(toggled(&h), Some(Toggled::True), "enabled again");
}

#[test]
fn a_clock_breakpoint_hit_is_listed_under_hits() {
    // One tick per UI frame of 1/60 s: every frame's delta is 16.667 ms, so
    // "delta > 10 ms from tick T" holds first at the end of the frame that
    // completes tick T.
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    let from = clock_tick(&h) + 4;
    show(&mut h, Pane::Breakpoints);
    add_frame_delta_over_10_ms_from(&mut h, from);
    click(&mut h, "▶ Play");
    status_once_suspended(&mut h, 100, "the clock breakpoint hit");
    h.run_steps(2);
    let listed = labels_starting(&h, &format!("tick {from} frame "));
    assert_eq!(listed.len(), 1, "one hit listed: {listed:?}");
    assert!(
        listed[0].contains("frame delta > 10 ms"),
        "it names the rule: {listed:?}"
    );
    assert!(labels_starting(&h, "none yet").is_empty(), "{listed:?}");
}

/// Where the widget labelled `label` is.
fn rect_of(h: &Harness<'_, Editor>, label: &str) -> egui::Rect {
    h.get_by_label(label).rect()
}

/// The tile a pane is drawn in (its tab bar included).
fn tile_of(h: &Harness<'_, Editor>, pane: Pane) -> egui::Rect {
    h.state()
        .workspace()
        .rect(pane)
        .unwrap_or_else(|| panic!("{pane:?} is laid out"))
}

/// Inserts an edge on the Input tab: `press` or release of `key` at `tick`.
fn insert_edge(h: &mut Harness<'_, Editor>, key: &str, press: bool, tick: u64) {
    support::editor::pick_insert_key(h, key);
    click(h, if press { "press" } else { "release" });
    support::editor::set_insert_tick(h, tick);
    h.run_steps(2);
    click(h, "Insert");
    h.run_steps(2);
}

#[test]
fn the_input_tabs_buttons_stay_put_whatever_the_key_the_edge_or_the_tick() {
    for size in [DEFAULT_SIZE, egui::vec2(1920.0, 1040.0)] {
        let mut h = editor_sized(demo(), size);
        h.run_steps(5);
        click(&mut h, "⏸ Pause");
        let at = clock_tick(&h);
        show(&mut h, Pane::Input);
        // Two edges whose texts differ in width: "press A" and
        // "release ArrowRight", one tick and ten thousand ticks on.
        insert_edge(&mut h, "A", true, at + 1);
        let insert = rect_of(&h, "Insert");
        let delete = rect_of(&h, "Delete");
        let moved = rect_of(&h, "Move");
        let tile = tile_of(&h, Pane::Input);
        for r in [insert, delete, moved] {
            assert!(tile.contains_rect(r), "{size:?}: {r:?} inside {tile:?}");
        }
        insert_edge(&mut h, "ArrowRight", false, at + 10_000);
        assert_eq!(
            rect_of(&h, "Insert"),
            insert,
            "{size:?}: Insert stays put for a longer key and tick"
        );
        // The new edge is selected: its row reads "release ArrowRight at".
        assert_eq!(rect_of(&h, "Delete"), delete, "{size:?}: Delete stays put");
        assert_eq!(rect_of(&h, "Move"), moved, "{size:?}: Move stays put");
        // The first edge is still to come: "tick T: press A (to come)".
        let first = label_starting(&h, &format!("tick {}: press A", at + 1));
        click(&mut h, &first);
        assert_eq!(rect_of(&h, "Delete"), delete, "{size:?}: Delete stays put");
        assert_eq!(rect_of(&h, "Insert"), insert, "{size:?}: Insert stays put");
        // Running (the rows disabled, a hint to pause) moves nothing either.
        click(&mut h, "▶ Play");
        h.run_steps(2);
        assert_eq!(rect_of(&h, "Insert"), insert, "{size:?}: running");
        assert_eq!(rect_of(&h, "Delete"), delete, "{size:?}: running");
    }
}

#[test]
fn the_tapes_replace_prompt_lies_inside_its_tile_at_the_default_size() {
    let dir = support::scratch("tape-replace");
    let existing = dir.join("taken.tape.ron");
    std::fs::write(&existing, "(fixed_hz: 60, events: [])\n").expect("a file to replace");
    let mut h = editor();
    h.run_steps(5);
    click(&mut h, "⏸ Pause");
    show(&mut h, Pane::Input);
    support::editor::type_tape_path(&mut h, &existing);
    h.run_steps(2);
    support::editor::click_shown(&mut h, "Save");
    h.run_steps(3);
    let tile = tile_of(&h, Pane::Input);
    for label in ["Replace", "Cancel"] {
        let r = rect_of(&h, label);
        assert!(
            tile.contains_rect(r),
            "{label} {r:?} inside the Input tile {tile:?}"
        );
    }
}

#[test]
fn a_breakpoint_rows_remove_button_lies_inside_its_tile_at_the_default_size() {
    let mut h = editor();
    click(&mut h, "Player");
    show(&mut h, Pane::Breakpoints);
    // Every filter: the longest description the form makes.
    type_into(&mut h, "From tick", "1000");
    type_into(&mut h, "To tick", "200000");
    type_into(&mut h, "Every N ticks", "5");
    type_into(&mut h, "Priority", "Early");
    click(&mut h, "Add breakpoint");
    let rows = labels_starting(&h, "FixedUpdate on Player");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let tile = tile_of(&h, Pane::Breakpoints);
    let remove = h
        .query_all_by_label("Remove")
        .map(|n| n.rect())
        .next()
        .expect("a Remove button");
    assert!(
        tile.contains_rect(remove),
        "Remove {remove:?} inside the Breakpoints tile {tile:?}"
    );
}

#[test]
fn the_input_tab_counts_one_edge_in_the_singular() {
    let mut h = editor();
    h.run_steps(5);
    click(&mut h, "⏸ Pause");
    let at = clock_tick(&h);
    show(&mut h, Pane::Input);
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "±")
        .set_value_accesskit(10.0);
    h.run_steps(1);
    // One edge 100 ticks on: outside ±10 ticks of the cursor.
    insert_edge(&mut h, "Space", true, at + 100);
    assert_eq!(
        labels_starting(&h, "1 later edge"),
        vec!["1 later edge".to_string()]
    );
}

/// A game's own behaviour without `Inspect`: the inspector has only its
/// `Debug` text (`state_text`'s default) to show.
#[derive(Clone, Debug)]
struct Tally {
    count: u64,
    step: u64,
    #[expect(dead_code, reason = "read through Debug: what the inspector shows")]
    last: Option<(f32, f32)>,
}

/// Tally's scene parameters.
#[derive(Default, serde::Deserialize, serde::Serialize)]
struct TallyParams {
    step: u64,
}

impl stepframe_core::Behaviour for Tally {
    fn hooks(&self) -> stepframe_core::Hooks {
        stepframe_core::Hooks::FIXED_UPDATE
    }

    fn name(&self) -> &str {
        "Tally"
    }

    fn fixed_update(&mut self, _ctx: &mut stepframe_core::Ctx, _dt: f64) {
        self.count += self.step;
    }
}

#[test]
fn a_behaviours_state_without_fields_is_a_table_of_its_fields() {
    let dir = support::scratch("tally");
    let scene = dir.join("tally.ron");
    std::fs::write(
        &scene,
        r#"#![enable(implicit_some)]
(
    objects: [
        (id: 1, name: "Counter", transform: (x: 0.0, y: 0.0), behaviours: [(name: "Tally", params: (step: 2))]),
    ],
)
"#,
    )
    .expect("the scene");
    let behaviours =
        stepframe_app::Behaviours::built_in().behaviour_named("Tally", |p: TallyParams| {
            Ok::<_, std::io::Error>(Tally {
                count: 0,
                step: p.step,
                last: Some((1.5, 2.0)),
            })
        });
    let mut h = Harness::builder()
        .with_size(DEFAULT_SIZE)
        .with_step_dt(support::editor::DT as f32)
        .build_eframe(move |cc| {
            let config = stepframe_app::editor::EditorConfig {
                behaviours,
                ..stepframe_app::editor::EditorConfig::driven(scene, support::editor::DT)
            };
            Editor::new(cc, config).expect("the editor starts")
        });
    h.run_steps(10);
    click(&mut h, "⏸ Pause");
    let tick = support::editor::live_tick(&h);
    click(&mut h, "Counter");
    h.run_steps(2);
    // Two a tick, every tick so far; the rest as authored.
    assert_eq!(rest_of_row(&h, "count"), vec![(2 * tick).to_string()]);
    assert_eq!(rest_of_row(&h, "step"), vec!["2".to_string()]);
    assert_eq!(
        rest_of_row(&h, "last"),
        vec!["Some((1.5, 2.0))".to_string()]
    );
    assert!(
        labels_starting(&h, "Tally {").is_empty(),
        "no raw Debug text"
    );
}

#[test]
fn after_adopt_b_the_notice_says_what_the_clock_tab_says_the_history_holds() {
    let mut h = editor();
    h.run_steps(200);
    click(&mut h, "⏸ Pause");
    // A fork from a past tick: A goes back there too, B runs on from it.
    h.state_mut().act(Action::ViewTick(10));
    h.run_steps(3);
    support::editor::click_shown(&mut h, "Fork here");
    h.run_steps(2);
    assert_eq!(h.state().reading().fork(), Some(10));
    click(&mut h, "▶ Play");
    h.run_steps(10);
    support::editor::click_shown(&mut h, "Adopt B");
    h.run_steps(2);
    show(&mut h, Pane::Clock);
    let adopted_at = clock_tick(&h);
    let held = label_starting(&h, "history holds ");
    // The Clock tab: nothing kept before the adoption.
    assert_eq!(held, format!("history holds 0 s (from tick {adopted_at})"));
    let notice = label_starting(&h, "branch B (forked at tick 10)");
    assert!(
        notice.contains(&held),
        "the notice {notice:?} says what the Clock tab says: {held:?}"
    );
}

/// After *Adopt B* the session is one history: the timeline holds one
/// record per frame (A's frames after the fork are gone, a marker says
/// where B took over), every panel is on the live tick, and the live flame
/// zones go on arriving.
#[test]
fn after_adopt_b_the_timeline_cursor_and_flame_follow_one_session() {
    let mut h = editor();
    h.run_steps(120);
    click(&mut h, "⏸ Pause");
    h.state_mut().act(Action::ViewTick(60));
    h.run_steps(3);
    support::editor::click_shown(&mut h, "Fork here");
    h.run_steps(2);
    click(&mut h, "▶ Play");
    h.run_steps(30);
    support::editor::click_shown(&mut h, "Adopt B");
    h.run_steps(2);
    let flames_at_adoption = h
        .state()
        .published()
        .frames
        .zones()
        .newest()
        .map(|z| z.frame_index());

    // The cursor is on live, and the status and the clock agree on it.
    assert_eq!(h.state().cursor(), None, "every panel on the live session");
    let live = support::editor::live_tick(&h);
    show(&mut h, Pane::Clock);
    assert_eq!(clock_tick(&h), live, "the clock shows the live tick");
    assert!(
        labels_starting(&h, "viewing tick").is_empty(),
        "no banner of a viewed tick"
    );

    // It plays on as one session.
    click(&mut h, "▶ Play");
    h.run_steps(30);
    let timeline = &h.state().timeline();
    let frames = &h.state().published().frames;
    let records: Vec<_> = frames.records().iter().copied().collect();
    for pair in records.windows(2) {
        // A frame interrupted (by the pause, the fork) has its rest as a
        // continuation record of the same frame; otherwise one a frame.
        let continued = pair[1].kind == stepframe_core::telemetry::FrameKindCode::Continuation;
        assert!(
            pair[0].frame_index < pair[1].frame_index
                || (continued && pair[0].frame_index == pair[1].frame_index),
            "one record a frame: {:?} then {:?}",
            (pair[0].frame_index, pair[0].kind),
            (pair[1].frame_index, pair[1].kind)
        );
        assert!(
            pair[0].simulation_tick <= pair[1].simulation_tick,
            "one history: tick {} then {} (frames {}, {})",
            pair[0].simulation_tick,
            pair[1].simulation_tick,
            pair[0].frame_index,
            pair[1].frame_index
        );
    }
    assert!(
        timeline
            .markers()
            .iter()
            .any(|m| m.text.contains("became the live session")),
        "a marker where B took over"
    );
    // The flame records the frames after the adoption too.
    let newest_flame = frames.zones().newest().map(|z| z.frame_index());
    let newest_frame = records.last().map(|r| r.frame_index);
    assert!(
        newest_flame > flames_at_adoption,
        "flame zones after the adoption"
    );
    assert_eq!(newest_flame, newest_frame, "the newest frame has its zones");
}

#[test]
fn the_breakpoint_forms_rows_hold_still_when_the_clock_rule_changes() {
    let mut h = editor();
    h.run_steps(3);
    show(&mut h, Pane::Breakpoints);
    click(&mut h, "the clock");
    let add = |h: &Harness<'_, Editor>| h.get_by_label("Add breakpoint").rect();
    let mut seen = Vec::new();
    for rule in [
        "frame delta > X ms",
        "frame dropped time",
        "alpha crosses a threshold",
        "frame dropped time",
    ] {
        h.get_by_label("Rule").click();
        h.run_steps(2);
        click(&mut h, rule);
        h.run_steps(2);
        seen.push((rule, add(&h)));
    }
    let first = seen[0].1;
    for (rule, rect) in &seen {
        assert_eq!(*rect, first, "Add breakpoint moved with the rule {rule:?}");
    }
}
