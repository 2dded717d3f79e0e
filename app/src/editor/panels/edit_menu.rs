//! The menu bar's Edit menu: Undo and Redo of the editor's edits (Ctrl+Z,
//! Ctrl+Shift+Z). The worker's history holds what can be undone; the menu
//! shows it from the live view ([`crate::editor::protocol::UndoView`]) and
//! sends [`Command::Rewind(RewindCommand::Undo)`] or [`Command::Rewind(RewindCommand::Redo)`].

use crate::editor::protocol::Command;
use crate::editor::protocol::RewindCommand;
use crate::editor::shared::{Commands, Reading};
use crate::editor::words;

/// What Help lists for these keys.
pub const HELP_LINE: &str =
    "Ctrl+Z undo · Ctrl+Shift+Z redo an edit (while suspended, at its tick)";

/// Draws the Edit menu's items. Each is enabled while the live session is
/// suspended and has something to undo (or redo); its tooltip names the
/// edit, or says why there is none.
pub fn edit_menu_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    let live = reading.live();
    let suspended = live.is_some_and(|v| v.world.suspension.is_some());
    let undo = live
        .and_then(|v| v.undo.undo.as_ref())
        .map(words::edit_label);
    let redo = live
        .and_then(|v| v.undo.redo.as_ref())
        .map(words::edit_label);
    let why_not = if suspended {
        "no edit made at this tick since the session last ran"
    } else {
        "pause (or stop at a breakpoint) first"
    };
    // The item names the edit it would take back or apply again, as a text
    // editor's "Undo Typing" does: `Undo pose of Player (#20)  (Ctrl+Z)`.
    let item = |ui: &mut egui::Ui, keys: &str, what: Option<String>, verb: &str| {
        let label = match &what {
            Some(what) => format!("{verb} {what}  ({keys})"),
            None => format!("{verb}  ({keys})"),
        };
        let hover = match &what {
            Some(what) => format!("{verb} {what}"),
            None => format!("Nothing to {}: {why_not}", verb.to_lowercase()),
        };
        ui.add_enabled(suspended && what.is_some(), egui::Button::new(label))
            .on_hover_text(hover)
            .on_disabled_hover_text(format!("Nothing to {}: {why_not}", verb.to_lowercase()))
            .clicked()
    };
    if item(ui, "Ctrl+Z", undo, "Undo") {
        cmd.send(Command::Rewind(RewindCommand::Undo));
        ui.close();
    }
    if item(ui, "Ctrl+Shift+Z", redo, "Redo") {
        cmd.send(Command::Rewind(RewindCommand::Redo));
        ui.close();
    }
    ui.separator();
    ui.weak(
        "Undo takes an edit out of the history: past views, rewinds and saved \
         sessions never see it. It works at the tick the edit was made.",
    );
}
