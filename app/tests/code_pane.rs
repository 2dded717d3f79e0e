//! The script code pane, driven headless through egui_kittest (logic only: no
//! screenshots). The app runs in its synchronous test driver: one worker frame
//! of exactly 1/60 s per UI frame, so every running UI frame is one fixed tick
//! of `scripts.ron` (60 Hz).
//!
//! Each editor has its own session, so its own script host: breakpoints and
//! compiled scripts never cross from one test to another. Each test still
//! works on its own copy of `assets/` in a temporary directory (the scene's
//! relative script paths resolve there), because a Save writes the file.

use std::path::{Path, PathBuf};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::{Editor, EditorConfig};

mod support;
use support::labels_starting;

/// Seconds per UI frame (= per worker frame = one tick at 60 Hz).
const DT: f64 = 1.0 / 60.0;

/// Line 22 of `patrol.rhai`: `let next = x + dir * speed * dt;`, the first
/// statement of `fixed_update` after the `started` block.
const PATROL_LINE: usize = 22;

fn repo_assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets")
}

/// Copies `scripts.ron` and the bundled scripts into a fresh directory laid
/// out like `assets/`; returns the scene file.
fn scene_copy(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sf_code_pane_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("scenes")).expect("scenes dir");
    std::fs::create_dir_all(root.join("scripts")).expect("scripts dir");
    for name in ["patrol.rhai", "pickup.rhai", "dropper.rhai"] {
        std::fs::copy(
            repo_assets().join("scripts").join(name),
            root.join("scripts").join(name),
        )
        .expect("copy script");
    }
    let scene = root.join("scenes/scripts.ron");
    std::fs::copy(repo_assets().join("scenes/scripts.ron"), &scene).expect("copy scene");
    scene
}

fn editor(scene: PathBuf, play: bool) -> Harness<'static, Editor> {
    editor_sized(scene, play, egui::vec2(1800.0, 1100.0))
}

fn editor_sized(scene: PathBuf, play: bool, size: egui::Vec2) -> Harness<'static, Editor> {
    let mut h = Harness::builder()
        .with_size(size)
        .with_step_dt(DT as f32)
        // Other panels (timeline, breakpoint form) are checked by their own
        // tests; this file is about the code pane's logic.
        .with_accessibility_check(false)
        .build_eframe(move |cc| {
            let config = EditorConfig {
                play_on_start: play,
                ..EditorConfig::driven(scene, DT)
            };
            Editor::new(cc, config).expect("the editor starts")
        });
    h.run_steps(3);
    h
}

fn status(h: &Harness<'_, Editor>) -> String {
    let mut found = labels_starting(h, "suspended at tick ");
    found.extend(
        labels_starting(h, "running")
            .into_iter()
            .filter(|l| l == "running"),
    );
    found.sort();
    found.dedup();
    assert_eq!(found.len(), 1, "one status line: {found:?}");
    found[0].clone()
}

/// The gutter button of a line: its text is a marker and the line number.
fn click_gutter(h: &mut Harness<'_, Editor>, line: usize) {
    let want = line.to_string();
    h.get_by(|n| {
        n.role() == Role::Button
            && n.label().is_some_and(|l| {
                l.trim_start_matches(|c: char| c == ' ' || "●○◆".contains(c)) == want
            })
    })
    .click();
    h.run();
}

/// The text of the program the session runs for the code pane's script
/// (what the live view says is in force, whatever the pane shows).
fn program_in_force(h: &Harness<'_, Editor>) -> Option<String> {
    let (_, key) = h.state().code_pane_script().expect("a script");
    let scripts = &h.state().published().scripts;
    scripts.script(key).map(|s| s.text.to_string())
}

fn open_pane_on_patrol(h: &mut Harness<'_, Editor>) {
    h.get_by_label("📜 Code").click();
    h.run();
    h.get_by_label("patrol.rhai").click();
    h.run();
}

/// Opens the code pane on `patrol.rhai` and returns the file it shows and
/// the text it holds now.
fn open_patrol_file(h: &mut Harness<'_, Editor>) -> (PathBuf, String) {
    open_pane_on_patrol(h);
    let path = h
        .state()
        .code_pane_script()
        .expect("a script")
        .0
        .to_path_buf();
    let text = std::fs::read_to_string(&path).expect("patrol");
    (path, text)
}

/// Replaces everything in the edit mode's script text with `text`, as a
/// user selects all and types.
fn type_script(h: &mut Harness<'_, Editor>, text: &str) {
    h.get_by_label("Script text").click();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Script text").type_text(text);
    h.run();
}

#[test]
fn gutter_breakpoint_in_fixed_update_suspends_and_the_pane_shows_line_and_locals() {
    let scene = scene_copy("hit");
    let mut h = editor(scene.clone(), false);
    assert!(status(&h).starts_with("suspended at tick 0"), "the preview");
    open_pane_on_patrol(&mut h);
    click_gutter(&mut h, PATROL_LINE);
    let key = h
        .state()
        .code_pane_script()
        .expect("a script")
        .1
        .to_string();
    let scripts = h.state().published().scripts.clone();
    let lines = scripts.lines(&key);
    assert_eq!(
        lines.iter().map(|b| b.line).collect::<Vec<_>>(),
        vec![PATROL_LINE],
        "the gutter click set one breakpoint"
    );

    h.get_by_label("▶ Play").click();
    let mut frames = 0;
    while !status(&h).starts_with("suspended") {
        h.step();
        frames += 1;
        assert!(
            frames < 30,
            "the breakpoint never suspended: {}",
            status(&h)
        );
    }
    h.run();
    // The guard's first fixed_update is tick 1; a FixedUpdate line suspends at
    // the end of that tick.
    assert!(
        status(&h).starts_with("suspended at tick 1:"),
        "{}",
        status(&h)
    );
    assert_eq!(
        labels_starting(&h, "stopped line ").len(),
        1,
        "one line highlighted"
    );
    assert_eq!(
        labels_starting(&h, &format!("stopped line {PATROL_LINE}: ")).len(),
        1,
        "line {PATROL_LINE} highlighted"
    );
    let stopped = labels_starting(&h, "stopped at line ");
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert!(
        stopped[0].starts_with(&format!("stopped at line {PATROL_LINE}:5 in fixed_update")),
        "line 22 starts with four spaces, so its statement is at column 5: {stopped:?}"
    );
    // By line 22 of the first call the started block has run: x is the
    // guard's authored x (-2, exact in f32), started is true, no turn yet.
    assert_eq!(labels_starting(&h, "x = "), vec!["x = -2.0".to_string()]);
    assert_eq!(
        labels_starting(&h, "started = "),
        vec!["started = true".to_string()]
    );
    assert_eq!(labels_starting(&h, "legs = "), vec!["legs = 0".to_string()]);
    assert_eq!(labels_starting(&h, "dir = "), vec!["dir = 1.0".to_string()]);
    let dt: Vec<f64> = labels_starting(&h, "dt = ")
        .iter()
        .map(|l| l["dt = ".len()..].parse().expect("a number"))
        .collect();
    assert_eq!(dt, vec![1.0 / 60.0], "fixed_delta_time at 60 Hz");
    // The call stack and the committed pose of the completed tick: the guard
    // was told to go to x = -2 + 1.5/60 = -1.975 during tick 1.
    assert!(
        labels_starting(&h, "fixed_update").contains(&"fixed_update".to_string()),
        "the call stack lists fixed_update"
    );
    let pose = labels_starting(&h, "pose x ");
    assert_eq!(
        pose,
        vec!["pose x -1.9750 y 0.5000 angle 0.0000".to_string()]
    );

    let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("root"));
}

#[test]
fn a_save_with_a_syntax_error_shows_line_and_column_and_the_session_keeps_running() {
    let scene = scene_copy("save");
    let mut h = editor(scene.clone(), true);
    let (path, original) = open_patrol_file(&mut h);

    h.get_by_label("✏ Edit").click();
    h.run();
    // The edit mode numbers its lines, as error messages do.
    let (field, starts) = line_starts(&h, "Script text");
    assert_eq!(
        gutter_number_at(&h, field.left(), starts[0]),
        Some(1),
        "a line-number gutter beside the text"
    );
    // Line 3 is broken: `let y = ;` has no expression after `=`.
    let broken = "let a = 1;\nfn fixed_update(dt) {\n    let y = ;\n}\n";
    type_script(&mut h, broken);
    h.get_by_label("💾 Save").click();
    h.run();
    h.step();
    h.run();

    assert_eq!(
        std::fs::read_to_string(&path).expect("saved"),
        broken,
        "Save wrote the edited text"
    );
    let errors = labels_starting(&h, "syntax error at ");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let at = errors[0]["syntax error at ".len()..]
        .split(':')
        .take(2)
        .map(|n| n.trim().parse::<usize>().expect("line:column"))
        .collect::<Vec<_>>();
    assert_eq!(at[0], 3, "the error is on line 3: {errors:?}");
    // `    let y = ;`: the statement starts at column 5, the missing
    // expression is at column 13 (`;`).
    assert!(
        (5..=13).contains(&at[1]),
        "a column inside the broken statement: {errors:?}"
    );

    // The old program still runs: its source is still the original, and the
    // guard keeps walking (x grows 0.025 m per tick).
    assert_eq!(
        program_in_force(&h),
        Some(original.clone()),
        "the program in force is still the original"
    );
    let guard = |h: &Harness<'_, Editor>| {
        let view = &h.state().published().live.as_ref().expect("a view").world;
        let x = view
            .objects
            .iter()
            .find(|o| o.name == "Guard")
            .map(|o| o.committed.x)
            .expect("the guard");
        (view.clock.simulation_tick, x)
    };
    assert_eq!(status(&h), "running");
    let (tick0, x0) = guard(&h);
    for _ in 0..10 {
        h.step();
    }
    assert_eq!(status(&h), "running");
    let (tick1, x1) = guard(&h);
    assert!(tick1 >= tick0 + 10, "ten more ticks: {tick0} -> {tick1}");
    let expected = (tick1 - tick0) as f32 * 0.025;
    assert!(
        ((x1 - x0) - expected).abs() < 1e-3,
        "1.5 m/s x 1/60 s per tick over {} ticks: moved {}",
        tick1 - tick0,
        x1 - x0
    );
    // The toolbar's error banner names the failed reload; fixing the script
    // and saving again clears it, and the syntax error line with it.
    assert_eq!(labels_starting(&h, "error: script not reloaded").len(), 1);
    type_script(&mut h, &original);
    h.get_by_label("💾 Save").click();
    h.run();
    h.step();
    h.run();
    assert!(
        labels_starting(&h, "error: ").is_empty(),
        "the banner cleared"
    );
    assert!(labels_starting(&h, "syntax error at ").is_empty());
    let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("root"));
}

#[test]
fn the_pane_says_which_hooks_run_compiled_and_why_the_others_run_on_rhai() {
    let scene = scene_copy("engines");
    let mut h = editor(scene, false);
    open_pane_on_patrol(&mut h);
    // The patrol's fixed_update is numbers only: compiled.
    assert!(
        h.query_by_label("⚡ fixed_update").is_some(),
        "patrol's fixed_update is shown as compiled"
    );
    // The pickup's on_contact takes text: rhai, with the reason on hover.
    h.get_by_label("pickup.rhai").click();
    h.run();
    assert!(h.query_by_label("on_contact: rhai").is_some());
    assert!(h.query_by_label("⚡ fixed_update").is_none());
    // A script the scene does not load (the dropper) shows no claim at all.
    h.get_by_label("dropper.rhai").click();
    h.run();
    assert!(h.query_all_by_label_contains(": rhai").next().is_none());
    assert!(h.query_all_by_label_contains("⚡").next().is_none());
}

#[test]
fn run_in_b_gives_the_edited_script_to_a_fork_only_and_leaves_the_file_alone() {
    let scene = scene_copy("run_in_b");
    let mut h = editor(scene.clone(), true);
    for _ in 0..10 {
        h.step();
    }
    h.get_by_label("⏸ Pause").click();
    h.run();
    let at = support::editor::live_tick(&h);
    h.get_by_label("Fork here").click();
    h.run();
    assert_eq!(h.state().reading().fork(), Some(at));
    let (path, original) = open_patrol_file(&mut h);
    // Twice the pace: the guard's step line with speed doubled.
    let step = "let next = x + dir * speed * dt;";
    assert!(original.contains(step));
    let fast = original.replace(step, "let next = x + dir * speed * 2.0 * dt;");
    h.get_by_label("✏ Edit").click();
    h.run();
    type_script(&mut h, &fast);
    h.get_by_label("▶ Run in B").click();
    h.run();
    h.get_by_label("▶ Play").click();
    for _ in 0..10 {
        h.step();
    }
    let first = h
        .state()
        .reading()
        .run_b()
        .and_then(|c| c.about.first)
        .expect("A and B part");
    // B adopts the text at its next frame boundary: the guard parts at the
    // first tick after the fork, and nothing else before it.
    assert_eq!((first.tick, first.first_object), (at + 1, Some(3)));
    assert_eq!(
        std::fs::read_to_string(&path).expect("patrol"),
        original,
        "Run in B writes no file"
    );
    assert_eq!(
        program_in_force(&h),
        Some(original),
        "A runs the file's version"
    );
    let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("root"));
}

/// Where each source line of a multi-line field starts on screen: the
/// middle height of its first row. AccessKit gives the field one text run per
/// laid-out row; a row that does not end in a newline wraps into the next.
fn line_starts(h: &Harness<'_, Editor>, field: &str) -> (egui::Rect, Vec<f32>) {
    let node = h.get_by_label(field);
    let mut starts = Vec::new();
    let mut new_line = true;
    for run in node
        .accesskit_node()
        .children()
        .filter(|c| c.role() == Role::TextRun)
    {
        let b = run.bounding_box().expect("a text run has bounds");
        if new_line {
            starts.push(((b.y0 + b.y1) / 2.0) as f32);
        }
        new_line = run.value().is_some_and(|v| v.ends_with('\n'));
    }
    (node.rect(), starts)
}

/// The number the gutter left of `left` shows at height `y`: gutter labels
/// hold only digits (one number a row, several rows a label), so the row of
/// the label that spans `y` is read.
fn gutter_number_at(h: &Harness<'_, Editor>, left: f32, y: f32) -> Option<usize> {
    let is_gutter = |t: &str| {
        !t.trim().is_empty()
            && t.chars()
                .all(|c| c.is_ascii_digit() || c == ' ' || c == '\n')
    };
    h.query_all_by(|n| {
        support::shown_text(n).is_some_and(|t| is_gutter(&t))
            && n.bounding_box()
                .is_some_and(|b| b.x1 as f32 <= left + 1.0 && (b.y0 as f32) <= y && y < b.y1 as f32)
    })
    .find_map(|n| {
        let text = support::shown_text(&n.accesskit_node())?;
        let rows: Vec<&str> = text.split('\n').collect();
        let r = n.rect();
        let row = ((y - r.top()) / (r.height() / rows.len() as f32)) as usize;
        rows.get(row.min(rows.len() - 1))?.trim().parse().ok()
    })
}

#[test]
fn the_edit_gutter_numbers_source_lines_not_wrapped_rows_at_both_window_sizes() {
    for (tag, size) in [
        ("gutter_default", egui::vec2(1280.0, 800.0)),
        ("gutter_max", egui::vec2(1920.0, 1040.0)),
    ] {
        let scene = scene_copy(tag);
        let mut h = editor_sized(scene.clone(), false, size);
        let (_, source) = open_patrol_file(&mut h);
        let line_count = source.split('\n').count();
        h.get_by_label("✏ Edit").click();
        h.run();
        let (field, starts) = line_starts(&h, "Script text");
        assert_eq!(starts.len(), line_count, "one start per source line");
        // Line 2 of patrol.rhai is a long comment: at these widths it wraps,
        // so counting rows would label line 12 with a later number.
        let visible: Vec<(usize, f32)> = starts
            .iter()
            .enumerate()
            .map(|(i, y)| (i + 1, *y))
            .filter(|(_, y)| *y < field.bottom() && *y < size.y)
            .collect();
        assert!(
            visible.iter().any(|(n, _)| *n == 12),
            "{size:?}: line 12 is on screen: {visible:?}"
        );
        for (n, y) in visible {
            assert_eq!(
                gutter_number_at(&h, field.left(), y),
                Some(n),
                "{size:?}: the gutter beside source line {n}"
            );
        }
        // The read-only view: each gutter button sits on the row of the
        // source line it names.
        h.get_by_label("✏ Edit").click();
        h.run();
        let lines: Vec<&str> = source.lines().collect();
        let mut checked = 0;
        for n in 1..=lines.len() {
            let Some(button) = gutter_button(&h, n) else {
                continue;
            };
            let want = lines[n - 1];
            if want.trim().is_empty() || button.bottom() > size.y {
                continue;
            }
            let beside = h
                .query_all_by(|node| {
                    node.role() == Role::Label
                        && node.bounding_box().is_some_and(|b| {
                            // The grid's next cell: right of the button,
                            // not another panel further right.
                            (button.right() - 1.0..button.right() + 20.0).contains(&(b.x0 as f32))
                                && (b.y0 as f32 - button.top()).abs() < 4.0
                        })
                })
                .filter_map(|node| support::shown_text(&node.accesskit_node()))
                .collect::<Vec<_>>();
            assert_eq!(
                beside,
                vec![want.to_string()],
                "{size:?}: the row of line {n}"
            );
            checked += 1;
        }
        assert!(checked >= 12, "{size:?}: {checked} lines on screen");
        let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("root"));
    }
}

/// The read-only view's gutter button of line `n`, if it is laid out.
fn gutter_button(h: &Harness<'_, Editor>, n: usize) -> Option<egui::Rect> {
    let want = n.to_string();
    h.query_by(|node| {
        node.role() == Role::Button
            && node.label().is_some_and(|l| {
                l.trim_start_matches(|c: char| c == ' ' || "●○◆".contains(c)) == want
            })
    })
    .map(|node| node.rect())
}

#[test]
fn a_gutter_toggle_the_breakpoint_form_or_a_notice_moves_no_line_of_code() {
    for (tag, size) in [
        ("still_default", egui::vec2(1280.0, 800.0)),
        ("still_max", egui::vec2(1920.0, 1040.0)),
    ] {
        let scene = scene_copy(tag);
        let mut h = editor_sized(scene.clone(), false, size);
        open_pane_on_patrol(&mut h);
        // Lines on screen at both sizes (the timeline covers the rest);
        // line 13 is `let dir = 1.0;`.
        let line = 13;
        let lines = [2, line, 14];
        let where_ = |h: &Harness<'_, Editor>| -> Vec<egui::Rect> {
            lines
                .iter()
                .map(|n| gutter_button(h, *n).expect("the line is laid out"))
                .collect()
        };
        let before = where_(&h);
        click_gutter(&mut h, line);
        assert_eq!(
            labels_starting(&h, "line "),
            vec![format!("line {line}")],
            "the click set a breakpoint"
        );
        assert_eq!(where_(&h), before, "{size:?}: setting a breakpoint");
        h.get_by(|n| {
            n.role() == Role::Button
                && n.label()
                    .is_some_and(|l| l.trim_start_matches(['●', ' ']) == line.to_string())
        })
        .click_secondary();
        h.run();
        assert_eq!(
            labels_starting(&h, "Breakpoint on line "),
            vec![format!("Breakpoint on line {line}")],
            "the form is open"
        );
        assert_eq!(where_(&h), before, "{size:?}: opening the form");
        let form = h
            .get_by(|n| {
                n.role() == Role::Label
                    && n.value().as_deref() == Some(&format!("Breakpoint on line {line}"))
            })
            .rect();
        let row = before[1];
        assert!(
            form.top() >= row.bottom() - 1.0 || form.bottom() <= row.top() + 1.0,
            "{size:?}: the form {form:?} leaves its line {row:?} in sight"
        );
        click_gutter(&mut h, line);
        assert_eq!(where_(&h), before, "{size:?}: removing the breakpoint");

        // Edit mode: a save's notice and a syntax error move no text.
        h.get_by_label("✏ Edit").click();
        h.run();
        // The heading above the field's scroll area: what a notice pushed
        // down would move (the field itself scrolls to its cursor).
        let heading = |h: &Harness<'_, Editor>| {
            h.get_by(|n| n.role() == Role::Label && n.value().as_deref() == Some("Script text"))
                .rect()
        };
        let field = heading(&h);
        // The field is taller than the tile: focus it rather than click its
        // middle, which the timeline covers.
        h.get_by_label("Script text").focus();
        h.run();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.get_by_label("Script text")
            .type_text("fn fixed_update(dt) {\n    let y = ;\n}\n");
        h.run();
        h.get_by_label("💾 Save").click();
        h.run();
        h.step();
        h.run();
        assert_eq!(labels_starting(&h, "syntax error at ").len(), 1);
        assert_eq!(
            heading(&h),
            field,
            "{size:?}: the notices take no room from the text"
        );
        let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("root"));
    }
}

#[test]
fn a_script_that_fails_at_run_time_is_an_error_on_screen_naming_its_object_and_line() {
    let scene = scene_copy("runtime_error");
    let script = scene
        .parent()
        .expect("scenes/")
        .join("../scripts/patrol.rhai");
    let text = std::fs::read_to_string(&script).expect("patrol.rhai");
    // A division by zero from tick 6 on: rhai reports it at run time.
    let failing = text.replacen(
        "fn fixed_update(dt) {",
        "fn fixed_update(dt) {\n    if tick() > 5 { let z = 1 / (tick() - tick()); }",
        1,
    );
    assert_ne!(failing, text, "the hook was found");
    std::fs::write(&script, &failing).expect("write the script");
    let mut h = editor(scene, true);
    h.run_steps(20);
    let error = h
        .state()
        .feedback()
        .error
        .clone()
        .expect("an error on screen");
    assert!(error.contains("patrol.rhai:"), "{error}");
    assert!(error.contains("fixed_update failed"), "{error}");
    assert!(
        error.contains("Guard #"),
        "the object by name and id: {error}"
    );
    // The code pane marks it as it marks a syntax error: the status in
    // place of "saved … reloads", and the line that failed.
    let line = failing
        .lines()
        .position(|l| l.contains("let z = 1 /"))
        .expect("the failing line")
        + 1;
    open_pane_on_patrol(&mut h);
    let failed = labels_starting(&h, "fixed_update failed at ");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].starts_with(&format!("fixed_update failed at {line}:")),
        "{failed:?}"
    );
    assert!(failed[0].contains("on Guard #"), "{failed:?}");
    assert_eq!(
        labels_starting(&h, &format!("failed line {line}: ")).len(),
        1,
        "the failing line is marked"
    );
    // The error floats over the game's picture, never over a panel's
    // controls: its Dismiss button once sat on the code pane's Edit button
    // and took the click meant for it.
    let canvas = h
        .get_by(|n| n.role() == Role::Canvas && n.label().as_deref() == Some("Viewport"))
        .rect();
    let toast = h
        .query_all_by(|n| n.value().is_some_and(|v| v.starts_with("error: ")))
        .map(|n| n.rect())
        .reduce(|a, b| a.union(b))
        .expect("the error on screen");
    assert!(
        canvas.contains_rect(toast),
        "the error at {toast:?} is not over the viewport's picture {canvas:?}"
    );
    let dismiss = h.get_by_label("Dismiss").rect();
    assert!(!dismiss.intersects(h.get_by_label("✏ Edit").rect()));
    // Saving the script again (fixed) clears both.
    h.get_by_label("✏ Edit").click();
    h.run();
    type_script(&mut h, &text);
    h.get_by_label("💾 Save").click();
    h.run();
    h.step();
    h.run();
    h.get_by_label("✏ Edit").click();
    h.run();
    assert!(labels_starting(&h, "fixed_update failed at ").is_empty());
    assert!(labels_starting(&h, "failed line ").is_empty());
}

/// The gutter button of line `n`, if it is drawn.
fn gutter_rect(h: &Harness<'_, Editor>, n: usize) -> Option<egui::Rect> {
    let want = n.to_string();
    h.query_all_by(|node| {
        node.role() == Role::Button
            && node.label().is_some_and(|l| {
                l.trim_start_matches(|c: char| c == ' ' || "●○◆".contains(c)) == want
            })
    })
    .next()
    .map(|node| node.rect())
}

/// At 1280×800 a line hit's panel (where, locals, stack) took the code
/// pane's height and was drawn over the code: the stopped line could not be
/// seen. The hit gets at most half the pane, scrolls inside it, and the
/// stopped line is in view above it.
#[test]
fn at_1280x800_a_line_hit_leaves_the_stopped_line_in_view_above_it() {
    let scene = scene_copy("hit-1280");
    let mut h = editor_sized(scene, false, egui::vec2(1280.0, 800.0));
    open_pane_on_patrol(&mut h);
    // Scrolled to first, as a hand does: at this size it is below the fold.
    let want = PATROL_LINE.to_string();
    h.get_by(|n| {
        n.role() == Role::Button
            && n.label().is_some_and(|l| {
                l.trim_start_matches(|c: char| c == ' ' || "●○◆".contains(c)) == want
            })
    })
    .scroll_to_me();
    h.run_steps(10);
    click_gutter(&mut h, PATROL_LINE);
    h.get_by_label("▶ Play").click();
    let mut frames = 0;
    while !status(&h).starts_with("suspended at tick 1:") {
        h.step();
        frames += 1;
        assert!(
            frames < 60,
            "the breakpoint never suspended: {}",
            status(&h)
        );
    }
    h.run();
    let header = h
        .query_all_by(|n| support::shown_text(n).is_some_and(|t| t.starts_with("stopped at line ")))
        .map(|n| n.rect())
        .reduce(|a, b| a.union(b))
        .expect("the hit's header");
    let line = gutter_rect(&h, PATROL_LINE).expect("the stopped line is drawn");
    assert!(
        line.bottom() <= header.top(),
        "the stopped line {line:?} is above the hit {header:?}, not under it"
    );
    let pane = h
        .state()
        .workspace()
        .rect(stepframe_app::editor::Pane::Code)
        .expect("the code pane");
    assert!(pane.contains_rect(line), "{line:?} in {pane:?}");
    // Every code line drawn whole above the hit is clear of it.
    for n in 1..=40 {
        if let Some(r) = gutter_rect(&h, n)
            && r.bottom() <= header.top() + 1.0
        {
            assert!(
                !r.intersects(header.shrink(1.0)),
                "line {n} {r:?} under {header:?}"
            );
        }
    }
}
