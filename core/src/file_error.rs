//! Why a file of one of the project's own formats (an input or session
//! recording, a trace) could not be read, written or understood: one error
//! for all of them, so a tool or the editor reports every file the same way
//! (`file:line:column: message`) and a caller matches the same variants.

use std::path::PathBuf;

/// A file that could not be read, written or understood.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read or written.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The text is not in the format, at a position.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Parse {
        /// The file.
        file: PathBuf,
        /// One-based line.
        line: usize,
        /// One-based column.
        column: usize,
        /// What was expected (the parser's message).
        message: String,
    },
    /// The text parsed but breaks a rule of the format (tick order, tick 0,
    /// a non-finite value).
    #[error("{}:{line}:{column}: {message}", file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// One-based line of the offending record (best effort).
        line: usize,
        /// One-based column.
        column: usize,
        /// What is wrong and what was expected.
        message: String,
    },
    /// The value could not be turned into text.
    #[error("cannot write {what}: {message}")]
    Serialize {
        /// What was being written ("recording").
        what: &'static str,
        /// The serialiser's message.
        message: String,
    },
}
