//! The log: errors from hooks with their object, hook, tick and frame, runtime
//! messages, and the editor's own (loads, saves, exports, notices). Clicking a
//! line selects its object.

use crate::editor::shared::Panel;
use egui::Color32;
use stepframe_core::LogLevel;

use crate::editor::shared::{Action, Commands, Reading};

/// The Log tab's own state: its filter (persisted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogPanel {
    /// Only errors and warnings.
    pub errors_only: bool,
}

impl Panel for LogPanel {
    /// Draws the log panel.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        let log = reading.log();
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.errors_only, "Errors only")
                .on_hover_text("Hide informational lines");
            if ui
                .small_button("Clear")
                .on_hover_text("Forget the lines shown so far")
                .clicked()
            {
                cmd.act(Action::ClearLog);
            }
            ui.weak(crate::editor::words::count(
                log.lines.len() as u64,
                "line",
                "lines",
            ));
        });
        let errors_only = self.errors_only;
        let selection = reading.selection();
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("log_scroll")
            .stick_to_bottom(true)
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for line in log
                    .lines
                    .iter()
                    .filter(|l| !errors_only || l.level != LogLevel::Info)
                {
                    let colour = match line.level {
                        LogLevel::Info => ui.visuals().text_color(),
                        LogLevel::Warning => Color32::from_rgb(230, 180, 60),
                        LogLevel::Error => ui.visuals().error_fg_color,
                    };
                    let text = egui::RichText::new(&line.text).color(colour);
                    let selected = line.object.is_some() && line.object == selection;
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
            cmd.select(Some(id));
        }
    }
}
