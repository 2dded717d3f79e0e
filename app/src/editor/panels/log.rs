//! The log: errors from hooks with their object, hook, tick and frame, runtime
//! messages, and the editor's own (loads, saves, exports, notices). Clicking a
//! line selects its object.

use std::collections::VecDeque;

use egui::Color32;
use stepframe_core::{LogEntry, LogLevel, ObjectId};

use crate::editor::shared::{Action, Commands, View};

/// Log lines kept; older ones scroll away.
pub const LOG_CAPACITY: usize = 5_000;

/// One line of the log panel: from a hook or the runtime, or from the editor.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Severity.
    pub level: LogLevel,
    /// Object to select when the line is clicked.
    pub object: Option<ObjectId>,
    /// The text shown.
    pub text: String,
}

/// The lines, oldest first, at most [`LOG_CAPACITY`].
#[derive(Clone, Debug, Default)]
pub struct LogBook {
    /// The lines.
    pub lines: VecDeque<LogLine>,
}

impl LogBook {
    /// Appends a line.
    pub fn push(&mut self, level: LogLevel, object: Option<ObjectId>, text: String) {
        if self.lines.len() == LOG_CAPACITY {
            self.lines.pop_front();
        }
        self.lines.push_back(LogLine {
            level,
            object,
            text,
        });
    }

    /// Appends an editor message.
    pub fn info(&mut self, text: String) {
        self.push(LogLevel::Info, None, text);
    }

    /// Appends a line a hook or the runtime wrote (core's one format).
    pub fn entry(&mut self, entry: &LogEntry) {
        self.push(entry.level, entry.object, entry.to_string());
    }

    /// Whether any line contains `text`.
    pub fn contains(&self, text: &str) -> bool {
        self.lines.iter().any(|l| l.text.contains(text))
    }
}

/// The Log tab's own state: its filter (persisted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogPanel {
    /// Only errors and warnings.
    pub errors_only: bool,
}

impl LogPanel {
    /// Draws the log panel.
    pub fn ui(&mut self, ui: &mut egui::Ui, view: &View<'_>, cmd: &mut Commands) {
        let log = view.log();
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
            ui.weak(format!("{} lines", log.lines.len()));
        });
        let errors_only = self.errors_only;
        let selection = view.selection();
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
