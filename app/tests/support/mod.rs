//! Helpers the app's test binaries share: where the workspace is, scratch
//! directories, running the `stepframe` binary, and reading what the editor's
//! widgets show through AccessKit. Each test binary compiles this module and
//! uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::Editor;

/// The workspace root (the binary runs from there, as the README's commands do).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the app crate sits in the workspace")
        .to_path_buf()
}

/// A fresh scratch directory for one test, named after the test binary and
/// `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-{name}", env!("CARGO_CRATE_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs the `stepframe` binary from the workspace root.
pub fn stepframe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stepframe"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The text a widget shows: a button's or a selectable line's label, or a label
/// widget's text (AccessKit carries that as the value of a `Label` node).
pub fn shown_text(n: &egui_kittest::kittest::AccessKitNode<'_>) -> Option<String> {
    if n.role() == egui::accesskit::Role::Label {
        n.value()
    } else if n.role() == egui::accesskit::Role::TextRun {
        None
    } else {
        n.label()
    }
}

/// The text of every widget (label, read-out, selectable line) that starts
/// with `prefix`.
pub fn labels_starting(h: &Harness<'_, Editor>, prefix: &str) -> Vec<String> {
    h.query_all_by(|n| shown_text(n).is_some_and(|t| t.starts_with(prefix)))
        .filter_map(|n| shown_text(&n.accesskit_node()))
        .collect()
}

/// Runs the `stepframe` binary like [`stepframe`], but kills it after
/// `seconds`: `None` when it had not exited by then (a run that never ends).
pub fn stepframe_within(args: &[&str], seconds: u64) -> Option<Output> {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_stepframe"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while std::time::Instant::now() < deadline {
        if child
            .try_wait()
            .expect("the child can be waited on")
            .is_some()
        {
            return Some(child.wait_with_output().expect("its output"));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

pub mod editor;
pub mod host;
pub mod storage;

/// What a run printed on stdout, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a run printed on stderr, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run's exit code (it must have exited, not been killed by a signal).
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

/// Asserts that `text` contains `part`, showing all of `text` when it does
/// not: a failing run's output says why.
#[track_caller]
pub fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{text}");
}

/// Runs the `stepframe` binary with `args` and asserts that it exits 0
/// (showing both streams when not) and that its stdout contains `part`.
#[track_caller]
pub fn stepframe_saying(args: &[&str], part: &str) -> Output {
    let out = stepframe(args);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_contains(&stdout(&out), part);
    out
}

/// The text of a scene at 60 Hz (seed 1, the default time settings written
/// out) with gravity `gravity_y` m/s² and one `objects` entry per line: the
/// small levels the editor tests write into their scratch directories.
pub fn scene_text(gravity_y: &str, objects: &[&str]) -> String {
    let objects: String = objects.iter().map(|o| format!("        {o},\n")).collect();
    format!(
        r#"#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.0, y: {gravity_y}),
        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, substeps: 1, strategy: Accumulator),
        seed: 1,
    ),
    objects: [
{objects}    ],
)
"#
    )
}

/// A fixed ground 16 m wide whose top is at y = 0 (object 1).
pub const GROUND: &str = r#"(id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 8.0, hy: 0.5)]))"#;

/// A ball of radius 0.5 m dropped from y = 4 m onto [`GROUND`] (object 2).
pub const BALL: &str = r#"(id: 2, name: "Ball", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)], restitution: 0.5))"#;

/// [`GROUND`] and [`BALL`] under 9.81 m/s², plus `more` objects: a small
/// level with something to select.
pub fn ball_scene_text(more: &[&str]) -> String {
    let mut objects = vec![GROUND, BALL];
    objects.extend_from_slice(more);
    scene_text("-9.81", &objects)
}
pub mod held;

/// Runs the `stepframe` binary with `args`, asserts that it exits 0
/// (showing its stderr when not), and returns the text of the file `written`
/// that the run was to write.
#[track_caller]
pub fn stepframe_writing(args: &[&str], written: &Path) -> String {
    let out = stepframe(args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::read_to_string(written).expect("the run wrote its file")
}
