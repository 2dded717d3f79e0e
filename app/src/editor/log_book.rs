//! The editor's log book: every line the Log tab shows, kept by the UI's
//! feedback ([`crate::editor::shared::Feedback`]) and drawn by the Log panel.
//! It sits below both, so the panels and the shared state do not import
//! each other.

use std::collections::VecDeque;

use stepframe_core::{LogEntry, LogLevel, ObjectId};

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
