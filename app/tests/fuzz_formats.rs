//! Fuzzing the editor's own files with the mutator of the plugins' format
//! fuzzers (`plugins/tests/fuzz_support`): random byte edits of a bookmark
//! sidecar (`Bookmarks::load_for`) and of the stored layout
//! (`Workspace::load`) never panic; a rejected file gets an error with a
//! line and column inside its text, and is never written over: the sidecar
//! is byte for byte the same after a bookmark is added, and the stored layout
//! after the workspace saves. An accepted sidecar lists its bookmarks by
//! tick; an accepted layout is drawn. Cases: `STEPFRAME_FUZZ_CASES`
//! (default 256).

use std::collections::BTreeMap;
use std::path::Path;

use stepframe_app::editor::Workspace;
use stepframe_app::editor::bookmarks::{Bookmarks, sidecar_path};
use stepframe_app::editor::workspace::LAYOUT_KEY;

#[path = "../../plugins/tests/fuzz_support/mod.rs"]
mod fuzz_support;
mod support;
use fuzz_support::{points_into, run_bytes};

/// `"<path>:<line>:<column>: <what>"` split after the path.
fn position(message: &str, path: &Path) -> Option<(usize, usize, String)> {
    let rest = message.strip_prefix(&format!("{}:", path.display()))?;
    let mut parts = rest.splitn(3, ':');
    let line = parts.next()?.parse().ok()?;
    let column = parts.next()?.parse().ok()?;
    Some((line, column, parts.next()?.trim().to_string()))
}

#[test]
fn mutated_bookmark_sidecars_never_panic_are_placed_and_are_never_written_over() {
    let dir = support::scratch("fuzz-bookmarks");
    let scene = dir.join("level.ron");
    let sidecar = sidecar_path(&scene);
    let seeds = [
        "(bookmarks: [(tick: 412, note: \"jump pressed\"), (tick: 980, note: \"box tunnels\")])\n"
            .to_string(),
        "(\n    bookmarks: [\n        (\n            tick: 3,\n            note: \"é \\\"quoted\\\"\",\n        ),\n    ],\n)"
            .to_string(),
    ];
    run_bytes("sidecar", &seeds, |bytes| {
        std::fs::write(&sidecar, bytes).map_err(|e| e.to_string())?;
        let mut state = Bookmarks::default();
        match state.load_for(&scene) {
            None => {
                if !state.list().is_sorted_by_key(|b| b.tick) {
                    return Err(format!("not by tick: {:?}", state.list()));
                }
                Ok(())
            }
            Some(why) => {
                let why = why.to_string();
                let text = String::from_utf8_lossy(bytes);
                let Some((line, column, what)) = position(&why, &sidecar) else {
                    return Err(format!("no line and column: {why}"));
                };
                if !points_into(&text, line, column) || what.is_empty() {
                    return Err(format!("{line}:{column} is not in the text: {why}"));
                }
                // Adding a bookmark is refused, and the file stays the user's.
                if state.add(5, "after").is_ok() {
                    return Err("a bookmark was saved over an unreadable sidecar".into());
                }
                let after = std::fs::read(&sidecar).map_err(|e| e.to_string())?;
                if after != bytes {
                    return Err("the unreadable sidecar was written over".into());
                }
                Ok(())
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// eframe storage in memory.
#[derive(Default)]
struct Memory(BTreeMap<String, String>);

impl eframe::Storage for Memory {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

/// Draws every pane as a label: what the editor's tiles do, minus the panels.
struct Labels;

impl egui_tiles::Behavior<stepframe_app::editor::Pane> for Labels {
    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile: egui_tiles::TileId,
        pane: &mut stepframe_app::editor::Pane,
    ) -> egui_tiles::UiResponse {
        ui.label(pane.title());
        egui_tiles::UiResponse::None
    }
    fn tab_title_for_pane(&mut self, pane: &stepframe_app::editor::Pane) -> egui::WidgetText {
        pane.title().into()
    }
}

#[test]
fn mutated_stored_layouts_never_panic_are_placed_and_are_never_written_over() {
    let tree = &Workspace::default().tree;
    let seeds = [
        ron::to_string(tree).expect("the default layout serialises"),
        ron::ser::to_string_pretty(tree, ron::ser::PrettyConfig::default())
            .expect("the default layout serialises"),
    ];
    let ctx = egui::Context::default();
    run_bytes("layout", &seeds, |bytes| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let mut storage = Memory::default();
        storage.0.insert(LAYOUT_KEY.to_string(), text.clone());
        let mut workspace = Workspace::load(Some(&storage));
        match &workspace.kept {
            None => {
                // It is drawn.
                let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
                    workspace.tree.ui(&mut Labels, ui);
                });
                // No renderer takes the font atlas here.
                out.textures_delta.clear();
            }
            Some(why) => {
                if !points_into(&text, why.line, why.column) || why.message.is_empty() {
                    return Err(format!(
                        "{}:{} is not in the text: {why}",
                        why.line, why.column
                    ));
                }
            }
        }
        let kept = workspace.kept.is_some();
        workspace.save(&mut storage);
        if kept && storage.0.get(LAYOUT_KEY) != Some(&text) {
            return Err("the unreadable layout was written over".into());
        }
        Ok(())
    });
}
