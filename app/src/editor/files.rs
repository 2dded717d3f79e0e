//! The File menu's dialogs: Open (a path, with the scene files and folders
//! of its folder to pick from), Save As (a path), and the question Save or
//! Save As asks before replacing a hand-written, changed or existing file.
//!
//! There is no path field in the toolbar any more: the running scene's file
//! is shown as text, so a failed Open leaves it naming the scene that runs,
//! and Save can only ever write that file. Writing anywhere else is an
//! explicit Save As. (The dialogs are plain egui, so they work headless and
//! under tests; a native dialog crate needs a desktop portal. Of the egui
//! file dialog crates, egui-file-dialog 0.15 still needs egui 0.36, and
//! egui_file 0.29 is a free-floating window whose fields have no accessible
//! names and whose path field opens whatever it holds when it loses focus.)
//!
//! Open holds still: its width and its list's height are fixed, so no list
//! of another folder moves the button under the pointer. A click selects, a
//! double click or Open (or Return) opens, and the folder opened from is
//! where the next Open starts, in this run and the next.

use crate::editor::protocol::{RecordingCommand, SceneCommand};
use std::path::{Path, PathBuf};

use super::protocol::{Command, Event, SaveWhat};
use super::shared::{Commands, Reading, Shortcut};
use super::words;
use stepframe_host::protocol::SaveRisk;

/// What Save or Save As asked.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirmation {
    /// The file that would be replaced.
    pub path: PathBuf,
    /// Why the worker asks.
    pub reason: String,
    /// Which save asked (its confirmation re-sends that one).
    pub what: SaveWhat,
    /// It shows what a first save into the file writes (not a risk to
    /// the file's text): its yes sends the save on, to any other question.
    pub review: bool,
}

/// Which dialog is open, and its fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesState {
    /// The Open dialog's path field, while it is open.
    pub open: Option<String>,
    /// The folder the Open dialog last opened a file from: the next Open
    /// starts there (kept between runs, [`FilesState::save`]), so a user
    /// working in a folder of their own is not sent back to the running
    /// scene's every time.
    pub last_folder: Option<PathBuf>,
    /// The Save As dialog's path field, while it is open.
    pub save_as: Option<String>,
    /// A question from the worker, while it waits for an answer.
    pub confirm: Option<Confirmation>,
    /// The Save session recording dialog's path field, while it is open.
    pub recording: Option<String>,
}

/// The running scene's file, if any.
fn scene_path(reading: &Reading<'_>) -> Option<PathBuf> {
    reading.live().and_then(|v| v.scene_path.clone())
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
            || self.recording.is_some()
    }

    /// The remembered folder from an earlier run's storage.
    pub fn restore(&mut self, storage: Option<&dyn eframe::Storage>) {
        self.last_folder = storage
            .and_then(|s| eframe::get_value::<Option<PathBuf>>(s, LAST_FOLDER_KEY))
            .flatten();
    }

    /// Keeps the remembered folder for the next run.
    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, LAST_FOLDER_KEY, &self.last_folder);
    }

    /// Opens the Open dialog at the folder last opened from, if it is still
    /// there, else at the running scene's folder.
    pub fn start_open(&mut self, reading: &Reading<'_>) {
        let dir = self
            .last_folder
            .clone()
            .filter(|d| d.is_dir())
            .or_else(|| scene_path(reading).and_then(|p| p.parent().map(Path::to_path_buf)))
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let mut text = dir.display().to_string();
        if !text.ends_with(std::path::MAIN_SEPARATOR) {
            text.push(std::path::MAIN_SEPARATOR);
        }
        self.open = Some(text);
    }

    /// Opens the Save As dialog with the running scene's path.
    pub fn start_save_as(&mut self, reading: &Reading<'_>) {
        self.save_as = Some(
            scene_path(reading)
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        );
    }

    /// Opens the Save session recording dialog with the scene's
    /// `<scene>.session.ron` beside it.
    pub fn start_save_recording(&mut self, reading: &Reading<'_>) {
        let path = default_recording_path(scene_path(reading).as_deref());
        self.recording = Some(path.display().to_string());
    }

    /// Shows a question from the worker.
    fn ask(&mut self, path: PathBuf, reason: String, what: SaveWhat, review: bool) {
        self.confirm = Some(Confirmation {
            path,
            reason,
            what,
            review,
        });
    }

    /// Takes a shortcut: Ctrl+O opens the Open dialog, Ctrl+Shift+S the
    /// Save As one.
    pub fn on_shortcut(&mut self, shortcut: Shortcut, reading: &Reading<'_>) {
        match shortcut {
            Shortcut::Open => self.start_open(reading),
            Shortcut::SaveAs => self.start_save_as(reading),
            _ => {}
        }
    }

    /// Takes a host event: a save that asks before replacing a file
    /// opens the question.
    pub fn on_event(&mut self, event: &Event) {
        if let Event::ConfirmSave { path, reason, what } = event {
            let review = matches!(reason, SaveRisk::Review { .. });
            let reason = words::save_risk(path, reason);
            self.ask(path.clone(), reason, *what, review);
        }
    }
}

/// Storage key of the Open dialog's remembered folder.
const LAST_FOLDER_KEY: &str = "stepframe-open-folder";

/// One line of the Open dialog's list.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    /// The file or folder.
    path: PathBuf,
    /// A folder (a click goes into it) rather than a scene file.
    folder: bool,
}

/// The folder a path field points into: the field itself when it names a
/// folder, else its parent.
fn folder_of(field: &str) -> PathBuf {
    let p = Path::new(field);
    if p.is_dir() {
        p.to_path_buf()
    } else {
        p.parent().unwrap_or(Path::new(".")).to_path_buf()
    }
}

/// The sub-folders, then the scene files, of the folder a path field
/// points into, each sorted by name; hidden entries left out. A scene is a
/// `.ron` file that is not one of the files the editor writes beside a
/// scene (its bookmarks, a saved session): those are RON too, but opening
/// one as a scene only gives an error.
fn entries_near(field: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = std::fs::read_dir(folder_of(field))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    !p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .filter_map(|p| {
                    let folder = p.is_dir();
                    (folder || is_scene_file(&p)).then_some(Entry { path: p, folder })
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| b.folder.cmp(&a.folder).then_with(|| a.path.cmp(&b.path)));
    out
}

/// Whether `path` names a scene: `.ron`, and not a sidecar the editor
/// writes beside one (`demo.bookmarks.ron`, `demo.session.ron`,
/// `demo.tape.ron`).
fn is_scene_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.ends_with(".ron") && !SIDECARS.iter().any(|s| name.ends_with(s))
}

/// The endings of the files the editor writes beside a scene: bookmarks,
/// a saved session recording, the Input tab's tape.
const SIDECARS: [&str; 3] = [".bookmarks.ron", ".session.ron", ".tape.ron"];

/// A folder as the path field holds it: with a trailing separator, so the
/// list shows what is inside.
fn folder_field(dir: &Path) -> String {
    let mut text = dir.display().to_string();
    if !text.ends_with(std::path::MAIN_SEPARATOR) {
        text.push(std::path::MAIN_SEPARATOR);
    }
    text
}

/// The Open dialog's width and its list's height, fixed: a dialog that
/// sized itself to its list moved its buttons whenever the folder changed
/// (a click aimed at Open landed on a file), and grew for a few frames
/// after it appeared.
const OPEN_WIDTH: f32 = 520.0;
/// Rows of the list shown at once (the rest scroll).
const OPEN_LIST_ROWS: f32 = 10.0;

/// The Open dialog: a click on a listed file selects it (its path in the
/// field), a click on a folder goes into it; a double click on a file,
/// Open, or Return in the field opens the path. Returns `Some(Some(path))`
/// when opened, `Some(None)` when cancelled.
fn open_dialog_ui(ctx: &egui::Context, field: &mut String) -> Option<Option<PathBuf>> {
    let mut done: Option<Option<PathBuf>> = None;
    egui::Modal::new(egui::Id::unique("open_scene")).show(ctx, |ui| {
        ui.set_width(OPEN_WIDTH);
        ui.heading("Open a scene");
        ui.label("The running session keeps running if the file does not load.");
        let label = ui.label("Scene file");
        let edit = ui
            .add(egui::TextEdit::singleline(field).desired_width(f32::INFINITY))
            .labelled_by(label.id);
        if edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            done = Some(Some(PathBuf::from(field.trim())));
        }
        take_focus_when_free(ui, &edit);
        let folder = folder_of(field);
        ui.horizontal(|ui| {
            if ui
                .add_enabled(folder.parent().is_some(), egui::Button::new("⬆ Up"))
                .on_hover_text("The folder above")
                .clicked()
                && let Some(up) = folder.parent()
            {
                *field = folder_field(up);
            }
            let where_ = if folder.is_dir() {
                format!("in {}", folder.display())
            } else {
                format!("no folder {}", folder.display())
            };
            ui.add(egui::Label::new(where_).truncate());
        });
        let row = ui.spacing().interact_size.y;
        let height = row * OPEN_LIST_ROWS;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            egui::ScrollArea::vertical()
                .min_scrolled_height(height)
                .max_height(height)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for entry in entries_near(field) {
                        if let Some(choice) = entry_ui(ui, field, &entry) {
                            done = Some(Some(choice));
                        }
                    }
                });
        });
        ui.horizontal(|ui| {
            if ui
                .button("Open")
                .on_hover_text("Open the file in the field (Return)")
                .clicked()
            {
                done = Some(Some(PathBuf::from(field.trim())));
            }
            if ui.button("Cancel").on_hover_text("Esc").clicked()
                || ui.input(|i| i.key_pressed(egui::Key::Escape))
            {
                done = Some(None);
            }
        });
    });
    done
}

/// One line of the list: a click selects a file (or goes into a folder), a
/// double click on a file opens it.
fn entry_ui(ui: &mut egui::Ui, field: &mut String, entry: &Entry) -> Option<PathBuf> {
    let name = entry
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let selected = !entry.folder && Path::new(field.trim()) == entry.path;
    let text = if entry.folder {
        format!("📁 {name}")
    } else {
        name
    };
    let row = ui.add(egui::Button::selectable(selected, text).truncate());
    if entry.folder {
        if row.on_hover_text("Click to go into this folder").clicked() {
            *field = folder_field(&entry.path);
        }
        return None;
    }
    let row = row.on_hover_text("Click to select, double-click to open");
    if row.double_clicked() {
        return Some(entry.path.clone());
    }
    if row.clicked() {
        *field = entry.path.display().to_string();
    }
    None
}

/// Gives a dialog's field the keyboard when nothing else has it (the frame
/// the dialog opens): asked every frame, it would take the focus back the
/// moment Return gave it up, and Return would never submit.
fn take_focus_when_free(ui: &egui::Ui, edit: &egui::Response) {
    if ui.memory(|m| m.focused().is_none()) {
        edit.request_focus();
    }
}

/// Draws whichever dialog is open.
pub fn files_ui(
    ctx: &egui::Context,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    files: &mut FilesState,
) {
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
                cmd.send(Command::Recording(RecordingCommand::Save {
                    path: crate::editor::shared::absolute(&path),
                    overwrite: false,
                }));
            }
        }
    }
    if let Some(field) = files.open.as_mut()
        && let Some(choice) = open_dialog_ui(ctx, field)
    {
        files.open = None;
        if let Some(path) = choice.filter(|p| !p.as_os_str().is_empty()) {
            let path = crate::editor::shared::absolute(&path);
            files.last_folder = Some(folder_of(&path.display().to_string()));
            cmd.send(Command::Scene(SceneCommand::Load { path, play: false }));
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
                cmd.send(Command::Scene(SceneCommand::SaveAs {
                    path: crate::editor::shared::absolute(&path),
                    overwrite: false,
                }));
            }
        }
    }
    if let Some(question) = files.confirm.clone() {
        let mut answer: Option<Answer> = None;
        egui::Modal::new(egui::Id::unique("confirm_save")).show(ctx, |ui| {
            if question.review {
                let file = question.path.file_name().map_or_else(
                    || question.path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                ui.heading(format!("Save into {file}?"));
            } else {
                ui.heading("Replace the file?");
            }
            ui.label(&question.reason);
            ui.horizontal(|ui| {
                let yes = if question.review {
                    "Save"
                } else if question.what == SaveWhat::Scene {
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
                    SaveWhat::SceneAs => Command::Scene(SceneCommand::SaveAs {
                        path: question.path,
                        overwrite: true,
                    }),
                    // A review's yes lets the save go on to any question
                    // about the file's text; that one's yes replaces it.
                    SaveWhat::Scene => Command::Scene(SceneCommand::Save {
                        replace: !question.review,
                        reviewed: true,
                    }),
                    SaveWhat::Recording => Command::Recording(RecordingCommand::Save {
                        path: question.path,
                        overwrite: true,
                    }),
                });
            }
            Some(Answer::SaveAs) => {
                files.confirm = None;
                files.start_save_as(reading);
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
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        take_focus_when_free(ui, &edit);
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

/// The File menu's own items: Open, Reload, Save, Save As, Save session
/// recording (the menu bar adds the comparison's and the attach items
/// after them).
pub fn file_menu_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    files: &mut FilesState,
) {
    if ui.button("Open…  (Ctrl+O)").clicked() {
        files.start_open(reading);
        ui.close();
    }
    if ui
        .button("Reload  (Ctrl+R)")
        .on_hover_text("Read the running scene's file again, keeping the time settings; a broken file changes nothing")
        .clicked()
    {
        cmd.send(Command::Scene(SceneCommand::Reload));
        ui.close();
    }
    ui.separator();
    if ui
        .button("Save  (Ctrl+S)")
        .on_hover_text("Write the running scene to its own file; a hand-written file is only replaced after you confirm")
        .clicked()
    {
        cmd.send(Command::Scene(SceneCommand::Save {
            replace: false,
            reviewed: false,
        }));
        ui.close();
    }
    if ui
        .button("Save As…  (Ctrl+Shift+S)")
        .on_hover_text("Write the running scene to another file, which becomes its own")
        .clicked()
    {
        files.start_save_as(reading);
        ui.close();
    }
    if ui
        .button("Save session recording…")
        .on_hover_text(
            "Write the input every tick received and every edit and settings change \
             made here, tick-stamped, in one file: stepframe play <scene> --input \
             <file> replays it headless, bit for bit (docs/player.md)",
        )
        .clicked()
    {
        files.start_save_recording(reading);
        ui.close();
    }
}
