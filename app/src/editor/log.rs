//! The log: errors from hooks with their object, hook and tick, runtime
//! messages, and the editor's own errors. Clicking a line selects its object.

use egui::Color32;
use stepframe_core::LogLevel;

use super::app::EditorState;

/// Draws the log panel.
pub fn log_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    ui.horizontal(|ui| {
        ui.heading("Log");
        ui.checkbox(&mut state.persisted.log_errors_only, "Errors only")
            .on_hover_text("Hide informational lines");
        if ui
            .small_button("Clear")
            .on_hover_text("Forget the lines shown so far")
            .clicked()
        {
            state.log.clear();
        }
    });
    let errors_only = state.persisted.log_errors_only;
    let mut clicked = None;
    egui::ScrollArea::vertical()
        .id_salt("log_scroll")
        .stick_to_bottom(true)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for line in state
                .log
                .iter()
                .filter(|l| !errors_only || l.level != LogLevel::Info)
            {
                let (tag, colour) = match line.level {
                    LogLevel::Info => ("info", ui.visuals().text_color()),
                    LogLevel::Warning => ("warn", Color32::from_rgb(230, 180, 60)),
                    LogLevel::Error => ("error", ui.visuals().error_fg_color),
                };
                let text = egui::RichText::new(format!("[{tag}] {}", line.text)).color(colour);
                let selected = line.object.is_some() && line.object == state.selected;
                let r = ui.selectable_label(selected, text);
                let r = if line.object.is_some() {
                    r.on_hover_text("Click to select the object")
                } else {
                    r.on_hover_text("Editor or runtime message")
                };
                if r.clicked()
                    && let Some(id) = line.object
                {
                    clicked = Some(id);
                }
            }
        });
    if let Some(id) = clicked {
        state.select(Some(id));
    }
}
