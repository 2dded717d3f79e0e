//! The session journal: everything that made the live session what it is,
//! as plain data, in the order it happened, so a new host (after the old
//! one died, or built from a new executable) can be brought to the same
//! tick by doing it all again.
//!
//! The pipeline is deterministic: the same scene, the same frames (each
//! with its real dt) and the same commands at the same points give the same
//! session bit for bit. So the journal does not hold state; it holds the
//! host's inputs:
//!
//! - [`JournalEntry::Start`]: the scene's text as it was read, and every
//!   script's text as the session compiled it (a restart must not pick up a
//!   file changed on disk since);
//! - [`JournalEntry::Command`]: every command that changes the session (a
//!   step, a pause, an edit, a breakpoint, a rewind, a fork...), as the
//!   host applied it; commands that only read (a past view, a flame replay,
//!   a save) are not in it;
//! - [`JournalEntry::Frame`]: every outer frame the host ran, with its dt;
//! - [`JournalEntry::FileChanged`]: what the host read from disk by itself
//!   (a script file saved in another editor), with the text it read.
//!
//! It is append-only: a rewind is a command like any other, so the journal
//! of a session that went back and took another branch holds both, and a
//! replay goes back too. Worked example: load demo.ron, 600 frames, pause,
//! a pose edit, Resume from here at tick 300, 60 frames. The journal is
//! `Start`, 600 `Frame`s, `Pause`, `Edit`, `RewindTo(300)`, `Play`, 60
//! `Frame`s: a replay runs 660 frames and one rewind, and ends at tick 360
//! with the edit dropped, as the live session did.
//!
//! Its size is a few bytes a frame (a dt and, rarely, input), so a front
//! end keeps it whole: an hour at 60 Hz is about 216,000 entries.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Command;

/// One thing the host did to the session (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JournalEntry {
    /// A new session: the scene as read and the scripts as compiled.
    Start(SessionStart),
    /// A command that changed the session, as applied.
    Command(Command),
    /// An outer frame, `dt` real seconds long.
    Frame {
        /// The frame's real delta, seconds.
        dt: f64,
    },
    /// A script file the host saw change on disk, with the text it read:
    /// every Script running it took that text before the frame that came
    /// next.
    FileChanged {
        /// The script's key (its resolved path).
        key: String,
        /// The text read.
        text: String,
    },
}

/// What a session started from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionStart {
    /// The scene file.
    pub path: PathBuf,
    /// Its text as the session read it.
    pub text: String,
    /// Every script's key and text as the session compiled it, in key order.
    pub scripts: Vec<(String, String)>,
    /// Reloaded (Ctrl+R, or a change on disk), keeping the time settings
    /// then in force; else opened (its own settings).
    pub reload: Option<stepframe_core::TimeSettings>,
    /// Played at once (the editor's start-up), or shown suspended at tick 0.
    pub play: bool,
}
