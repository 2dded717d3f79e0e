//! The File menu's dialogs: Open (a path, with the scene files of its
//! folder to pick from), Save As (a path), and the question Save or Save As
//! asks before replacing a hand-written, changed or existing file.
//!
//! There is no path field in the toolbar any more: the running scene's file
//! is shown as text, so a failed Open leaves it naming the scene that runs,
//! and Save can only ever write that file. Writing anywhere else is an
//! explicit Save As. (The dialogs are plain egui, so they work headless and
//! under tests; a native dialog crate needs a desktop portal.)

use std::path::{Path, PathBuf};

use super::protocol::{Command, SaveWhat};
use super::shared::{Commands, View};

/// What Save or Save As asked.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirmation {
    /// The file that would be replaced.
    pub path: PathBuf,
    /// Why the worker asks.
    pub reason: String,
    /// Which save asked (its confirmation re-sends that one).
    pub what: SaveWhat,
}

/// Which dialog is open, and its fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesState {
    /// The Open dialog's path field, while it is open.
    pub open: Option<String>,
    /// The Save As dialog's path field, while it is open.
    pub save_as: Option<String>,
    /// A question from the worker, while it waits for an answer.
    pub confirm: Option<Confirmation>,
    /// The Compare with trace dialog's path field, while it is open.
    pub compare: Option<String>,
    /// The Save session recording dialog's path field, while it is open.
    pub recording: Option<String>,
}

/// The running scene's file, if any.
fn scene_path(view: &View<'_>) -> Option<PathBuf> {
    view.live().and_then(|v| v.scene_path.clone())
}

/// The default session recording of a scene: `level.ron` →
/// `level.session.ron` beside it.
pub fn default_recording_path(scene: Option<&Path>) -> PathBuf {
    match scene {
        Some(scene) => {
            let stem = scene
                .file_stem()
                .map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
            scene.with_file_name(format!("{stem}.session.ron"))
        }
        None => PathBuf::from("session.ron"),
    }
}

impl FilesState {
    /// Whether a dialog is open (the editor's shortcuts wait).
    pub fn is_open(&self) -> bool {
        self.open.is_some()
            || self.save_as.is_some()
            || self.confirm.is_some()
            || self.compare.is_some()
            || self.recording.is_some()
    }

    /// Opens the Open dialog at the running scene's folder.
    pub fn start_open(&mut self, view: &View<'_>) {
        let dir = scene_path(view)
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let mut text = dir.display().to_string();
        if !text.ends_with(std::path::MAIN_SEPARATOR) {
            text.push(std::path::MAIN_SEPARATOR);
        }
        self.open = Some(text);
    }

    /// Opens the Save As dialog with the running scene's path.
    pub fn start_save_as(&mut self, view: &View<'_>) {
        self.save_as = Some(
            scene_path(view)
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        );
    }

    /// Opens the Save session recording dialog with the scene's
    /// `<scene>.session.ron` beside it.
    pub fn start_save_recording(&mut self, view: &View<'_>) {
        let path = default_recording_path(scene_path(view).as_deref());
        self.recording = Some(path.display().to_string());
    }

    /// Shows a question from the worker.
    pub fn ask(&mut self, path: PathBuf, reason: String, what: SaveWhat) {
        self.confirm = Some(Confirmation { path, reason, what });
    }
}

/// The `.ron` files in the folder a path field points into, sorted.
fn scenes_near(field: &str) -> Vec<PathBuf> {
    let p = Path::new(field);
    let dir = if p.is_dir() {
        p
    } else {
        p.parent().unwrap_or(Path::new("."))
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Draws whichever dialog is open.
pub fn files_ui(ctx: &egui::Context, view: &View<'_>, cmd: &mut Commands, files: &mut FilesState) {
    if let Some(field) = files.recording.as_mut() {
        let done = path_modal(
            ctx,
            field,
            PathModal {
                id: "save_recording",
                heading: "Save the session recording",
                explanation: "Writes the input every tick received and every edit and settings \
                              change made in the editor, tick-stamped: stepframe play <scene> \
                              --input <file> replays it headless.",
                field_label: "Recording file",
                action: "Save",
            },
        );
        if let Some(choice) = done {
            files.recording = None;
            if let Some(path) = choice.filter(|p| !p.as_os_str().is_empty()) {
                cmd.send(Command::SaveRecording {
                    path: super::worker::absolute(&path),
                    overwrite: false,
                });
            }
        }
    }
    if let Some(field) = files.open.as_mut() {
        let mut done: Option<Option<PathBuf>> = None;
        egui::Modal::new(egui::Id::unique("open_scene")).show(ctx, |ui| {
            ui.heading("Open a scene");
            ui.label("The running session keeps running if the file does not load.");
            let label = ui.label("Scene file");
            let edit = ui
                .add(egui::TextEdit::singleline(field).desired_width(480.0))
                .labelled_by(label.id);
            edit.request_focus();
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            egui::ScrollArea::vertical()
                .max_height(200.0)
                .show(ui, |ui| {
                    for path in scenes_near(field) {
                        let name = path
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        if ui.selectable_label(false, name).clicked() {
                            done = Some(Some(path));
                        }
                    }
                });
            ui.horizontal(|ui| {
                if ui.button("Open").clicked() || enter {
                    done = Some(Some(PathBuf::from(field.trim())));
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    done = Some(None);
                }
            });
        });
        if let Some(choice) = done {
            files.open = None;
            if let Some(path) = choice {
                cmd.send(Command::Load(super::worker::absolute(&path)));
            }
        }
    }
    if let Some(field) = files.save_as.as_mut() {
        let done = path_modal(
            ctx,
            field,
            PathModal {
                id: "save_scene_as",
                heading: "Save the scene as",
                explanation: "Writes the running scene, freshly formatted; the new file becomes the scene's own.",
                field_label: "New file",
                action: "Save",
            },
        );
        if let Some(choice) = done {
            files.save_as = None;
            if let Some(path) = choice.filter(|p| !p.as_os_str().is_empty()) {
                cmd.send(Command::SaveAs {
                    path: super::worker::absolute(&path),
                    overwrite: false,
                });
            }
        }
    }
    if let Some(question) = files.confirm.clone() {
        let mut answer: Option<Answer> = None;
        egui::Modal::new(egui::Id::unique("confirm_save")).show(ctx, |ui| {
            ui.heading("Replace the file?");
            ui.label(&question.reason);
            ui.horizontal(|ui| {
                let yes = if question.what == SaveWhat::Scene {
                    "Save anyway"
                } else {
                    "Replace it"
                };
                if ui.button(yes).clicked() {
                    answer = Some(Answer::Replace);
                }
                if question.what == SaveWhat::Scene && ui.button("Save As…").clicked() {
                    answer = Some(Answer::SaveAs);
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    answer = Some(Answer::Cancel);
                }
            });
        });
        match answer {
            Some(Answer::Replace) => {
                files.confirm = None;
                cmd.send(match question.what {
                    SaveWhat::SceneAs => Command::SaveAs {
                        path: question.path,
                        overwrite: true,
                    },
                    SaveWhat::Scene => Command::Save { replace: true },
                    SaveWhat::Recording => Command::SaveRecording {
                        path: question.path,
                        overwrite: true,
                    },
                });
            }
            Some(Answer::SaveAs) => {
                files.confirm = None;
                files.start_save_as(view);
            }
            Some(Answer::Cancel) => files.confirm = None,
            None => {}
        }
    }
}

/// The words of a one-path dialog (Save As, Compare with trace).
pub(super) struct PathModal {
    /// The modal's id.
    pub(super) id: &'static str,
    /// Its heading.
    pub(super) heading: &'static str,
    /// What the action does, in a sentence.
    pub(super) explanation: &'static str,
    /// The path field's label (its accessible name).
    pub(super) field_label: &'static str,
    /// The button that takes the path.
    pub(super) action: &'static str,
}

/// A modal with one path field, its action button (or Enter) and Cancel (or
/// Esc): `Some(Some(path))` when taken, `Some(None)` when cancelled, `None`
/// while it stays open.
pub(super) fn path_modal(
    ctx: &egui::Context,
    field: &mut String,
    words: PathModal,
) -> Option<Option<PathBuf>> {
    let mut done = None;
    egui::Modal::new(egui::Id::unique(words.id)).show(ctx, |ui| {
        ui.heading(words.heading);
        ui.label(words.explanation);
        let label = ui.label(words.field_label);
        let edit = ui
            .add(egui::TextEdit::singleline(field).desired_width(480.0))
            .labelled_by(label.id);
        edit.request_focus();
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.horizontal(|ui| {
            if ui.button(words.action).clicked() || enter {
                done = Some(Some(PathBuf::from(field.trim())));
            }
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                done = Some(None);
            }
        });
    });
    done
}

/// The user's answer to a [`Confirmation`].
enum Answer {
    Replace,
    SaveAs,
    Cancel,
}
