//! Log lines: what hooks, the physics stage and the loader tell the user,
//! stamped with tick, frame, object and hook, and their one text format
//! (`error: tick 31 (frame 31) #3 FixedUpdate: message`), shared by the
//! player's stderr and the editor's log.

use crate::ids::{HookKind, ObjectId};

/// A line for the log panel and the player's stderr.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LogEntry {
    /// Severity.
    pub level: LogLevel,
    /// The object whose hook wrote it, if any.
    pub object: Option<ObjectId>,
    /// The hook that was running, if any.
    pub hook: Option<HookKind>,
    /// Completed (or pending, in fixed code) tick when written.
    pub tick: u64,
    /// Outer frame when written.
    pub frame: u64,
    /// The text.
    pub message: String,
}

/// `error: tick 31 (frame 31) #3 FixedUpdate: message`: the one format of a
/// log line, for the player's stderr and the editor's log alike.
impl std::fmt::Display for LogEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: tick {} (frame {})",
            self.level, self.tick, self.frame
        )?;
        if let Some(object) = self.object {
            write!(f, " {object}")?;
        }
        if let Some(hook) = self.hook {
            write!(f, " {hook}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Severity of a [`LogEntry`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum LogLevel {
    /// Informational, from `log(...)`.
    Info,
    /// Something was rejected or clamped.
    Warning,
    /// A hook failed.
    Error,
}

impl std::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LogLevel::Info => "info",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
        })
    }
}
