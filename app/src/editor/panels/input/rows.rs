//! The Input tab's rows under the list: move or delete the selected edge,
//! insert a new one, and the file row (save, load, and the question before
//! replacing a file, in the file row's place). Each row starts with its
//! buttons, and what changes width (an edge, a key, a tick) comes after
//! them or sits in a field of fixed width, so no button moves under the
//! pointer when the selection, the key or the tick changes.

use crate::editor::protocol::RecordingCommand;
use std::path::{Path, PathBuf};

use stepframe_core::{InputSource, LogLevel, RecordedEvent, Recording};

use super::{InputPanel, edge_text};
use crate::editor::protocol::Command;
use crate::editor::shared::Commands;

/// Width of a tick field: seven digits at the body font (about 7 px each).
const TICK_WIDTH: f32 = 56.0;
/// Width of the key choice: the longest key name a scene binds
/// ("ArrowRight", about 62 px) and the combo box's arrow. With the tick
/// field, the insert row fits the Input tab at the default window size
/// (331 px wide at 1280×800).
const KEY_WIDTH: f32 = 76.0;

/// A tick field of fixed width, named by the label `name` drawn before it
/// (for a screen reader, and the tests that drive it as one); true when
/// the user changed it.
fn tick_field(ui: &mut egui::Ui, tick: &mut u64, name: &egui::Response, hover: &str) -> bool {
    let height = ui.spacing().interact_size.y;
    ui.add_sized(
        [TICK_WIDTH, height],
        egui::DragValue::new(tick).range(1..=u64::MAX),
    )
    .labelled_by(name.id)
    .on_hover_text(hover)
    .changed()
}

/// Delete or move the selected edge: the buttons are there, disabled, while
/// nothing is selected.
pub(super) fn move_row_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    st: &mut InputPanel,
    shown: &Recording,
) {
    let selected = st.selected.filter(|i| *i < shown.events.len());
    ui.horizontal(|ui| {
        let some = selected.is_some();
        let mut button = |label: &str, hover: &str| {
            ui.add_enabled(some, egui::Button::new(label))
                .on_hover_text(hover)
                .clicked()
        };
        let delete = button("Delete", "Delete the selected edge");
        let move_it = button("Move", "Move the selected edge to the tick beside it");
        if let Some(i) = selected
            && (delete || move_it)
        {
            let mut draft = shown.clone();
            st.selected = if delete {
                draft.remove(i);
                None
            } else {
                draft.move_to(i, st.move_tick)
            };
            cmd.send(Command::Recording(RecordingCommand::SetDraft(Some(draft))));
        }
        let to = ui.label("to");
        ui.add_enabled_ui(some, |ui| {
            tick_field(ui, &mut st.move_tick, &to, "The tick to move it to");
        });
        let what = match selected {
            Some(i) => edge_text(&shown.events[i]),
            None => "select an edge to move or delete it".to_string(),
        };
        ui.add(egui::Label::new(egui::RichText::new(&what).weak()).truncate())
            .on_hover_text(what);
    });
}

/// Insert a press or release of a bound key at a tick.
pub(super) fn insert_row_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    st: &mut InputPanel,
    shown: &Recording,
    keys: &[(String, String)],
    fixed_hz: u32,
) {
    ui.horizontal(|ui| {
        // Closer than the default 8 px: the row must fit the narrow column.
        ui.spacing_mut().item_spacing.x = 4.0;
        if ui
            .button("Insert")
            .on_hover_text("Insert this press or release into the tape")
            .clicked()
        {
            let mut draft = shown.clone();
            if draft.events.is_empty() {
                draft.fixed_hz = fixed_hz;
            }
            st.selected = Some(draft.insert(RecordedEvent {
                tick: st.insert_tick,
                source: InputSource::Key(st.insert_key.clone()),
                value: if st.insert_press { 1.0 } else { 0.0 },
            }));
            st.move_tick = st.insert_tick;
            cmd.send(Command::Recording(RecordingCommand::SetDraft(Some(draft))));
        }
        ui.selectable_value(&mut st.insert_press, true, "press");
        ui.selectable_value(&mut st.insert_press, false, "release");
        // The key box gives up width before "at" and the tick field are cut
        // at a narrow tile's side (1280×800's right column is ~330 px). Its
        // width follows the tile, never the key's name, so nothing moves.
        // `after`: the box's own arrow and padding (~28 px beyond its
        // width), "at", the tick field and the gaps between them.
        let after = TICK_WIDTH + 3.0 * ui.spacing().item_spacing.x + 42.0;
        egui::ComboBox::from_id_salt("tape_key")
            .width((ui.available_width() - after).clamp(24.0, KEY_WIDTH))
            .truncate()
            .selected_text(st.insert_key.clone())
            .show_ui(ui, |ui| {
                for (key, action) in keys {
                    ui.selectable_value(
                        &mut st.insert_key,
                        key.clone(),
                        format!("{key} ({action})"),
                    );
                }
            });
        let at = ui.label("at");
        if tick_field(
            ui,
            &mut st.insert_tick,
            &at,
            "The tick to stamp it with (follows the cursor until changed)",
        ) {
            st.insert_tick_picked = true;
        }
    });
}

/// The file row: save the shown tape, load one as a draft; while a Save
/// waits to replace a file, the question in its place.
pub(super) fn file_row_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    st: &mut InputPanel,
    shown: &Recording,
) {
    if let Some(path) = st.confirm_replace.clone() {
        ui.horizontal(|ui| {
            if ui.button("Replace").clicked() {
                save(cmd, shown, &path);
                st.confirm_replace = None;
            }
            if ui.button("Cancel").clicked() {
                st.confirm_replace = None;
            }
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!("{name} exists: replace it?"))
                        .color(ui.visuals().warn_fg_color),
                )
                .truncate(),
            )
            .on_hover_text(path.display().to_string());
        });
        return;
    }
    ui.horizontal(|ui| {
        let label = ui.label("File");
        ui.add(
            egui::TextEdit::singleline(&mut st.path)
                .desired_width((ui.available_width() - 110.0).max(80.0)),
        )
        .labelled_by(label.id)
        .on_hover_text("A recording (RON): stepframe play --input reads it too");
        let path = PathBuf::from(st.path.trim());
        if ui.button("Save").clicked() {
            if path.exists() {
                st.confirm_replace = Some(path.clone());
            } else {
                save(cmd, shown, &path);
            }
        }
        if ui.button("Load").clicked() {
            st.confirm_replace = None;
            match Recording::load(&path) {
                Ok(tape) => {
                    cmd.notify(
                        LogLevel::Info,
                        format!(
                            "loaded {} from {}: Resume from here replays them",
                            crate::editor::words::count(tape.events.len() as u64, "edge", "edges"),
                            path.display()
                        ),
                    );
                    cmd.send(Command::Recording(RecordingCommand::SetDraft(Some(tape))));
                    st.selected = None;
                }
                Err(e) => cmd.error(format!("tape not loaded: {e}")),
            }
        }
    });
}

/// Saves the input tape shown (its edges only: File → Save session
/// recording writes the edits too).
fn save(cmd: &mut Commands, tape: &Recording, path: &Path) {
    let mut tape = tape.clone();
    tape.edits.clear();
    tape.ticks = tape.ticks.max(tape.events.last().map_or(0, |e| e.tick));
    match tape.save(path) {
        Ok(()) => cmd.notify(
            LogLevel::Info,
            format!(
                "saved {} to {}",
                crate::editor::words::count(tape.events.len() as u64, "edge", "edges"),
                path.display()
            ),
        ),
        Err(e) => cmd.error(format!("tape not saved: {e}")),
    }
}
