//! The menu bar, laid out by the app: each menu's items are drawn by the
//! part of the editor that owns what they do (the files' dialogs, the
//! comparison, attaching, undo, the workspace's tiles, the toolbar's
//! status), so no panel draws another's items, and a new menu item is
//! added where its feature lives.

use crate::editor::files::file_menu_ui;
use crate::editor::panels::{attach, compare, edit_menu, toolbar};
use crate::editor::shared::{Commands, Reading};

/// The menu bar: File, Edit, View, Help, and the running scene's file.
pub(super) fn menu_bar_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    parts: MenuParts<'_>,
) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            file_menu_ui(ui, reading, cmd, parts.files);
            ui.separator();
            compare::compare_menu_ui(ui, reading, cmd, parts.compare);
            attach::attach_menu_ui(ui, reading, cmd, parts.attach);
        });
        ui.menu_button("Edit", |ui| edit_menu::edit_menu_ui(ui, reading, cmd));
        ui.menu_button("View", |ui| parts.workspace.view_menu_ui(ui));
        ui.menu_button("Help", |ui| {
            toolbar::shortcuts_ui(ui);
            ui.separator();
            ui.weak("F1 shows this list in a window");
        });
        ui.separator();
        toolbar::scene_status_ui(ui, reading, cmd);
    });
}

/// What the menu bar's items change besides the host: each owner's own
/// dialog state and the workspace.
pub(super) struct MenuParts<'a> {
    /// Open, Save As, the recording's path, the save question.
    pub(super) files: &'a mut crate::editor::files::FilesState,
    /// The Compare with trace dialog's path field, while it is open.
    pub(super) compare: &'a mut Option<String>,
    /// The Attach… dialog's fields, while it is open.
    pub(super) attach: &'a mut Option<attach::AttachFields>,
    /// The docked tiles (the View menu opens and closes them).
    pub(super) workspace: &'a mut crate::editor::workspace::Workspace,
}
