//! Driving the real editor headless: a harness in the synchronous driver (one
//! worker frame of exactly `DT` per UI frame), and reading what the panels
//! show back from their widgets, as a user reads them.

use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::{Editor, EditorConfig, Pane, WorldView};
use stepframe_core::{Pipeline, Pose, Scene, TimeSettings};

use super::labels_starting;

/// Seconds per UI frame (= per worker frame): one fixed tick at 60 Hz
/// (1/60 s is exactly 11,760,000 flicks).
pub const DT: f64 = 1.0 / 60.0;

/// The window the editor opens at with no stored layout.
pub const DEFAULT_SIZE: egui::Vec2 = egui::vec2(1280.0, 800.0);

/// The bundled demo scene.
pub fn demo() -> PathBuf {
    stepframe_app::default_scene()
}

/// The editor on `scene` in a window of `size`, driven one frame per step,
/// after the frames that load and publish the scene.
pub fn editor_sized(scene: PathBuf, size: egui::Vec2) -> Harness<'static, Editor> {
    let mut h = Harness::builder()
        .with_size(size)
        .with_step_dt(DT as f32)
        .build_eframe(move |cc| {
            Editor::new(cc, EditorConfig::driven(scene, DT)).expect("the editor starts")
        });
    h.run_steps(3);
    h
}

/// The editor on the demo at the default window size.
pub fn editor() -> Harness<'static, Editor> {
    editor_sized(demo(), DEFAULT_SIZE)
}

/// The one label whose text starts with `prefix`.
pub fn label_starting(h: &Harness<'_, Editor>, prefix: &str) -> String {
    let found = labels_starting(h, prefix);
    assert_eq!(found.len(), 1, "labels starting with {prefix:?}: {found:?}");
    found[0].clone()
}

/// Clicks the widget labelled `label` and lets two frames run.
pub fn click(h: &mut Harness<'_, Editor>, label: &str) {
    h.get_by_label(label).click();
    h.run_steps(2);
}

/// Clicks the field labelled `label` and types `text` into it.
pub fn type_into(h: &mut Harness<'_, Editor>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.run_steps(1);
    h.get_by_label(label).type_text(text);
    h.run_steps(1);
}

/// Brings a pane's tab to the front, as a user does: a click on its tab
/// (a button named after the pane in its tab bar), or, for a closed pane,
/// its box in the View menu.
pub fn show(h: &mut Harness<'_, Editor>, pane: Pane) {
    if h.state().workspace().is_open(pane) {
        // A pointer click on the tab (a tab takes the pointer, not an
        // accessibility click).
        let tab = h
            .query_all_by_role_and_label(egui::accesskit::Role::Button, pane.title())
            .next()
            .unwrap_or_else(|| panic!("no tab named {}", pane.title()))
            .rect();
        h.hover_at(tab.center());
        h.run_steps(1);
        press_release(h, tab.center());
        h.run_steps(2);
    } else {
        set_open(h, pane, true);
    }
}

/// Opens or closes a pane with its box in the View menu, then closes the
/// menu.
pub fn set_open(h: &mut Harness<'_, Editor>, pane: Pane, open: bool) {
    click(h, "View");
    if h.state().workspace().is_open(pane) != open {
        h.get_by_role_and_label(egui::accesskit::Role::CheckBox, pane.title())
            .click();
        h.run_steps(2);
    }
    // Esc closes the menu, as in the View menu's own test; it also takes
    // the time cursor back to live, so none may be set.
    assert_eq!(h.state().cursor(), None, "Esc would also leave the past");
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    assert!(
        h.query_by_label("Reset layout").is_none(),
        "the View menu closed"
    );
    assert_eq!(h.state().workspace().is_open(pane), open, "{pane:?}");
}

/// Expands or collapses a timeline lane with a click on its header, as a
/// user does (the Timeline tab must be open).
pub fn set_lane_expanded(
    h: &mut Harness<'_, Editor>,
    lane: stepframe_app::editor::timeline::LaneId,
    expanded: bool,
) {
    if h.state().timeline().lane(lane).expanded == expanded {
        return;
    }
    // The header's text, as the timeline writes it: an arrow, the title
    // and its unit (unless the title names it).
    let arrow = if expanded { "⏵" } else { "⏷" };
    let unit = lane.unit().name();
    let name = if unit.is_empty() || lane.title().contains(unit) {
        format!("{arrow} {}", lane.title())
    } else {
        format!("{arrow} {} ({unit})", lane.title())
    };
    h.get_by_label(&name).click();
    // The toggle applies after the frame that took the click: one frame
    // more draws the lanes as they are now (the next header's id with them).
    h.run_steps(2);
    assert_eq!(
        h.state().timeline().lane(lane).expanded,
        expanded,
        "{lane:?}"
    );
}

/// Sets the Input tab's insert tick ("at"), as a screen reader sets a
/// number field (the tab must be shown).
pub fn set_insert_tick(h: &mut Harness<'_, Editor>, tick: u64) {
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "at")
        .set_value_accesskit(tick as f64);
    h.run_steps(1);
}

/// Picks `key` in the Input tab's key box (the tab must be shown).
pub fn pick_insert_key(h: &mut Harness<'_, Editor>, key: &str) {
    // The key box: the combo box beside "at", which shows the key picked.
    let at = h
        .get_by_role_and_label(egui::accesskit::Role::SpinButton, "at")
        .rect();
    let key_box = h
        .get_all_by_role(egui::accesskit::Role::ComboBox)
        .filter(|n| (n.rect().center().y - at.center().y).abs() < at.height())
        .min_by(|a, b| {
            let d = |n: &egui_kittest::Node<'_>| (at.left() - n.rect().right()).abs();
            d(a).total_cmp(&d(b))
        })
        .expect("the key box")
        .rect();
    // A pointer click: the box opens its list on the pointer's click.
    h.hover_at(key_box.center());
    h.run_steps(1);
    press_release(h, key_box.center());
    h.run_steps(2);
    let option = format!("{key} (");
    h.query_all_by(|n| super::shown_text(n).is_some_and(|l| l.starts_with(&option)))
        .next()
        .unwrap_or_else(|| panic!("no key {key} offered"))
        .click();
    h.run_steps(1);
}

/// Types `path` over the Input tab's File field (the tab must be shown).
pub fn type_tape_path(h: &mut Harness<'_, Editor>, path: &Path) {
    h.get_by_role_and_label(egui::accesskit::Role::TextInput, "File")
        .click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_role_and_label(egui::accesskit::Role::TextInput, "File")
        .type_text(&path.display().to_string());
    h.run_steps(1);
}

/// View → Reset layout.
pub fn reset_layout(h: &mut Harness<'_, Editor>) {
    click(h, "View");
    click(h, "Reset layout");
}

/// A clock panel row's value without its unit: `simulation_tick  42 ticks` → "42".
pub fn clock_field(h: &Harness<'_, Editor>, name: &str, unit: &str) -> String {
    let rows: Vec<String> = labels_starting(h, name)
        .into_iter()
        .filter(|r| r[name.len()..].starts_with(' '))
        .collect();
    assert_eq!(rows.len(), 1, "clock rows {name}: {rows:?}");
    let value = rows[0][name.len()..].trim();
    value
        .strip_suffix(unit)
        .unwrap_or_else(|| panic!("no unit {unit:?} in {:?}", rows[0]))
        .trim()
        .to_string()
}

/// The open scene's bookmarks as `(tick, note)`: the one list the
/// Bookmarks tab and the timeline's marker lane draw.
pub fn bookmarks_listed(h: &Harness<'_, Editor>) -> Vec<(u64, String)> {
    h.state()
        .reading()
        .bookmarks()
        .list()
        .iter()
        .map(|b| (b.tick, b.note.clone()))
        .collect()
}

/// `simulation_tick` as the clock panel shows it.
pub fn clock_tick(h: &Harness<'_, Editor>) -> u64 {
    clock_field(h, "simulation_tick", "ticks")
        .parse()
        .expect("a tick count")
}

/// The live view the worker last sent (what every panel reads while the
/// time cursor is live).
pub fn live_view<'h>(h: &'h Harness<'_, Editor>) -> &'h WorldView {
    &h.state()
        .published()
        .live
        .as_ref()
        .expect("a live view")
        .world
}

/// `simulation_tick` of the live view the worker last sent: for when a tab
/// covers the Clock panel, or the test needs the tick without a frame.
pub fn live_tick(h: &Harness<'_, Editor>) -> u64 {
    live_view(h).clock.simulation_tick
}

/// The status line: "running", "suspended at tick T: reason", or
/// "viewing tick T (frame F) · live: ...".
pub fn status(h: &Harness<'_, Editor>) -> String {
    let mut found = labels_starting(h, "suspended at tick ");
    found.extend(
        labels_starting(h, "viewing tick ")
            .into_iter()
            .filter(|l| l.contains("· live:")),
    );
    found.extend(
        labels_starting(h, "running")
            .into_iter()
            .filter(|l| l == "running"),
    );
    assert_eq!(found.len(), 1, "status labels: {found:?}");
    found[0].clone()
}

/// T of "suspended at tick T: ...".
pub fn suspended_tick(status: &str) -> Option<u64> {
    let rest = status.strip_prefix("suspended at tick ")?;
    rest.split(':').next()?.parse().ok()
}

/// Parses "committed pose: x 1.5 m, y -2 m, angle 0.25 rad".
pub fn parse_pose(text: &str) -> Pose {
    let body = text.split_once(": ").map(|(_, b)| b).unwrap_or(text);
    let parts: Vec<&str> = body.split(", ").collect();
    assert_eq!(parts.len(), 3, "pose text {text:?}");
    let num = |part: &str, name: &str, unit: &str| -> f32 {
        part.strip_prefix(name)
            .and_then(|p| p.strip_suffix(unit))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("cannot read {name} in {text:?}"))
    };
    Pose::new(
        num(parts[0], "x", " m"),
        num(parts[1], "y", " m"),
        num(parts[2], "angle", " rad"),
    )
}

/// Bit-for-bit equal poses.
pub fn same_bits(a: Pose, b: Pose) -> bool {
    (a.x.to_bits(), a.y.to_bits(), a.angle.to_bits())
        == (b.x.to_bits(), b.y.to_bits(), b.angle.to_bits())
}

/// A plain pipeline on `scene_path`, run with frames of `DT` to the end of
/// `tick`: what a headless run has there.
pub fn headless_at(scene_path: &Path, tick: u64) -> Pipeline {
    let registry = stepframe_app::player::registry(scene_path);
    let scene = Scene::load(scene_path, &registry).expect("the scene loads");
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline
        .load_scene(&scene, &registry)
        .expect("the scene instantiates");
    while pipeline.clock().simulation_tick < tick {
        let report = pipeline.step_frame(DT);
        assert_eq!(report.ticks, 1, "one tick per 1/60 s frame at 60 Hz");
    }
    assert_eq!(pipeline.clock().simulation_tick, tick);
    pipeline
}

/// The committed pose of the object named `name` at the end of `tick` of a
/// headless run.
pub fn headless_pose_at(scene_path: &Path, name: &str, tick: u64) -> Pose {
    let pipeline = headless_at(scene_path, tick);
    let id = pipeline
        .world()
        .objects()
        .find(|o| o.name == name)
        .map(|o| o.id)
        .expect("the object exists");
    pipeline
        .world()
        .physics_simulation_pose(id)
        .expect("a committed pose")
}

/// Steps until `done` holds (at most `max` frames).
pub fn step_until(
    h: &mut Harness<'_, Editor>,
    max: usize,
    what: &str,
    done: impl Fn(&Harness<'_, Editor>) -> bool,
) {
    for _ in 0..max {
        if done(h) {
            return;
        }
        h.run_steps(1);
    }
    assert!(done(h), "{what} did not happen within {max} frames");
}

/// File → Open…, the path typed into the dialog, Open.
pub fn open_scene(h: &mut Harness<'_, Editor>, path: &Path) {
    click(h, "File");
    click(h, "Open…  (Ctrl+O)");
    type_path_over(h, "Scene file", path);
    click(h, "Open");
    h.run_steps(2);
}

/// A copy of the demo scene and its scripts in a scratch folder laid out like
/// `assets/` (scenes/ and scripts/), so saving never touches the real assets.
pub fn demo_copy(dir: &Path) -> PathBuf {
    let assets = demo()
        .parent()
        .and_then(Path::parent)
        .expect("assets/scenes/demo.ron")
        .to_path_buf();
    for sub in ["scenes", "scripts"] {
        std::fs::create_dir_all(dir.join(sub)).expect("scratch folders");
        for entry in std::fs::read_dir(assets.join(sub))
            .expect("assets")
            .flatten()
        {
            std::fs::copy(entry.path(), dir.join(sub).join(entry.file_name())).expect("copy");
        }
    }
    dir.join("scenes").join("demo.ron")
}

/// A primary-button press and release at `pos`, queued for the same frame
/// (two of them a frame apart make a double-click).
pub fn press_release(h: &mut Harness<'_, Editor>, pos: egui::Pos2) {
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
}

/// Scrolls the widget labelled `label` into view, as a user scrolls a tab
/// taller than its tile, then clicks it.
pub fn click_shown(h: &mut Harness<'_, Editor>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    // Scrolling is animated: let it settle before the click.
    h.run_steps(10);
    click(h, label);
}

/// Like [`click_shown`] for a label that two widgets carry, one of them
/// disabled (the timeline's "Resume from here" is always drawn, disabled
/// while no past tick is viewed, beside the Input tab's): clicks the enabled
/// one, as a user does.
pub fn click_enabled(h: &mut Harness<'_, Editor>, label: &str) {
    fn enabled<'t>(h: &'t Harness<'_, Editor>, label: &'t str) -> egui_kittest::Node<'t> {
        use egui_kittest::kittest::NodeT;
        h.get_all_by_label(label)
            .find(|n| !n.accesskit_node().is_disabled())
            .unwrap_or_else(|| panic!("no enabled widget labelled {label:?}"))
    }
    enabled(h, label).scroll_to_me();
    // Scrolling is animated: let it settle before the click.
    h.run_steps(10);
    let at = enabled(h, label).rect().center();
    press_release(h, at);
    h.run_steps(2);
}

/// The demo's trace of `ticks` ticks as a headless run writes it, with the
/// player (object 20) moved 0.25 m to the right from tick `from` on: a run B
/// that parts from the live session at exactly that tick.
pub fn demo_trace_moved_from(ticks: u64, from: u64) -> String {
    use std::sync::{Arc, Mutex};
    let registry = stepframe_app::player::registry(&demo());
    let scene = Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    let writer = Arc::new(Mutex::new(stepframe_core::TraceWriter::new(
        Vec::<u8>::new(),
    )));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    while p.stepper().completed_ticks() < ticks {
        p.step_frame(DT);
    }
    p.set_tick_observer(None);
    let text = String::from_utf8(writer.lock().expect("lock").get_ref().clone()).expect("UTF-8");
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).expect("a trace line");
        if v["tick"].as_u64().expect("tick") >= from {
            for pose in v["poses"].as_array_mut().expect("poses") {
                if pose["id"] == 20 {
                    let x = pose["x"].as_f64().expect("x") as f32 + 0.25;
                    pose["x"] = serde_json::json!(x);
                }
            }
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

/// Clicks the text field labelled `label`, selects what it holds and types
/// `path` over it, as a user replaces the path a dialog offers.
pub fn type_path_over(h: &mut Harness<'_, Editor>, label: &str, path: &Path) {
    type_over(h, label, &path.display().to_string());
}

/// Clicks the text field labelled `label`, selects what it holds and types
/// `text` over it.
pub fn type_over(h: &mut Harness<'_, Editor>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label(label).type_text(text);
    h.run_steps(1);
}

/// File → Compare with trace…, `trace` typed into the dialog, Compare.
pub fn compare_with_trace(h: &mut Harness<'_, Editor>, trace: &Path) {
    click(h, "File");
    click(h, "Compare with trace…");
    type_path_over(h, "Trace file", trace);
    click(h, "Compare");
}

/// The editor on the demo comparing with a run B of `ticks` ticks whose
/// player moves 0.25 m from tick `from` on ([`demo_trace_moved_from`], written
/// to the scratch directory `scratch_name`), run past tick `past` and paused.
pub fn paused_comparing_from(
    scratch_name: &str,
    ticks: u64,
    from: u64,
    past: u64,
) -> Harness<'static, Editor> {
    let trace = super::scratch(scratch_name).join("b.jsonl");
    std::fs::write(&trace, demo_trace_moved_from(ticks, from)).expect("write B");
    let mut h = editor();
    compare_with_trace(&mut h, &trace);
    step_until(&mut h, 300, &format!("the run passed tick {past}"), |h| {
        clock_tick(h) >= past
    });
    click(&mut h, "⏸ Pause");
    h
}

/// The first log line starting with `prefix`, if any.
pub fn log_line(h: &Harness<'_, Editor>, prefix: &str) -> Option<String> {
    h.state()
        .feedback()
        .log
        .lines
        .iter()
        .find(|l| l.text.starts_with(prefix))
        .map(|l| l.text.clone())
}

/// Steps until the session is suspended (at most `max` frames; `what`
/// names what should suspend it) and returns the status line then.
pub fn status_once_suspended(h: &mut Harness<'_, Editor>, max: usize, what: &str) -> String {
    step_until(h, max, what, |h| status(h).starts_with("suspended"));
    status(h)
}

/// In the open Breakpoints tab: adds the clock breakpoint "frame delta >
/// 10 ms" from tick `from`, through the form as a user fills it.
pub fn add_frame_delta_over_10_ms_from(h: &mut Harness<'_, Editor>, from: u64) {
    click(h, "the clock");
    h.get_by_label("Rule").click();
    h.run_steps(2);
    click(h, "frame delta > X ms");
    h.get_by_label("Milliseconds").click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    type_into(h, "Milliseconds", "10");
    type_into(h, "From tick", &from.to_string());
    click(h, "Add breakpoint");
}

/// The editor under `config` in a 1600×1000 window, frames of [`DT`], not
/// yet stepped: for the threaded worker, whose views come in their own time.
pub fn harness_for(config: EditorConfig) -> Harness<'static, Editor> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(DT as f32)
        .build_eframe(move |cc| Editor::new(cc, config).expect("the editor starts"))
}

/// The live view the worker last sent, if it sent one.
pub fn latest_live<'h>(h: &'h Harness<'_, Editor>) -> Option<&'h stepframe_app::editor::WorldView> {
    h.state().published().live.as_ref().map(|l| &l.world)
}

/// The tick of the live view the host last sent, if it sent one.
pub fn latest_tick(h: &Harness<'_, Editor>) -> Option<u64> {
    latest_live(h).map(|v| v.clock.simulation_tick)
}

/// Whether the live view the host last sent is suspended.
pub fn latest_suspended(h: &Harness<'_, Editor>) -> bool {
    latest_live(h).is_some_and(|v| v.suspension.is_some())
}

/// Runs UI frames (napping `nap` between them, as a display would) until
/// `done` holds; panics naming `what` after `timeout` of real time (a bound
/// on a hang, not on speed).
pub fn step_until_within(
    h: &mut Harness<'_, Editor>,
    what: &str,
    timeout: std::time::Duration,
    nap: std::time::Duration,
    mut done: impl FnMut(&Harness<'_, Editor>) -> bool,
) {
    let t0 = std::time::Instant::now();
    loop {
        h.step();
        if done(h) {
            return;
        }
        if t0.elapsed() >= timeout {
            // What the editor logged says why (a host that died, a refusal).
            let log: Vec<String> = h
                .state()
                .feedback()
                .log
                .lines
                .iter()
                .rev()
                .take(12)
                .map(|l| l.text.clone())
                .collect();
            panic!("timed out waiting for {what}; the Log's newest lines: {log:#?}");
        }
        std::thread::sleep(nap);
    }
}
