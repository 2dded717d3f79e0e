//! Helpers the app's test binaries share: where the workspace is, scratch
//! directories, running the `stepframe` binary, and reading what the editor's
//! widgets show through AccessKit. Each test binary compiles this module and
//! uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::EditorApp;

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
pub fn labels_starting(h: &Harness<'_, EditorApp>, prefix: &str) -> Vec<String> {
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
pub mod storage;
