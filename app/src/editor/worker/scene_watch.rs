//! Auto-reload: when the open scene's file changes on disk, the worker
//! reloads it as Ctrl+R does (the time settings chosen in the toolbar, the
//! pacing and a pause stay) and says so in a notice. A change that does not
//! load changes nothing: the running session goes on and the error line
//! shows `file:line:column: what`, as File → Open does.
//!
//! # A modification-time check, not `notify`
//!
//! The file is watched the way the session's scripts already are
//! (`ScriptHost::changed_files`, `scripts.rs`): its modification time and
//! length are compared with the ones the session knows. Chosen over the
//! `notify` crate because:
//!
//! - the worker already looks between frames, so the check is one
//!   `metadata` call there (a few µs, against a 16.7 ms frame), with no
//!   watcher thread, no event channel and no new dependency;
//! - it works on every filesystem: `notify`'s inotify backend sees nothing
//!   on network mounts and in some containers and VMs' shared folders,
//!   where it falls back to polling anyway;
//! - an editor's save arrives as one change however it writes (in place,
//!   or a temporary file renamed over the scene, which an inotify watch on
//!   the file itself loses track of).
//!
//! What it gives up: a change that keeps both the length and the
//! modification time (within the filesystem's timestamp granularity, 1 s
//! on ext3 or HFS+, nanoseconds on ext4) is not seen until the next one.
//!
//! # When it looks
//!
//! - Running: once per outer frame, before the frame (as the scripts' check).
//! - Suspended: the paced thread waits on its command channel with a timeout
//!   of [`SUSPENDED_LOOK_EVERY`] instead of forever, and looks at each
//!   timeout. That is two `metadata` calls a second and nothing else (no
//!   frame, no view published unless the file changed), so a paused editor
//!   still idles at 0% CPU, and an opened scene's preview follows the file.
//!   Measured ([`super::WorkerThread::cpu_time`], a debug build, a paused
//!   preview, 2 shared cores): 2.8 ms of the worker thread's CPU in 10 s,
//!   0.03% of a core.
//! - The synchronous driver tests use ([`Worker::pump`]) looks at every pump.
//!
//! # Half-written files and the editor's own saves
//!
//! - A change is acted on only when two looks in a row see the same new
//!   time and length: a tool that writes in several pieces is read once it
//!   has stopped for a look's interval. One caught half-way anyway fails to
//!   load, which changes nothing (the rule above), and its last piece is a
//!   new change that reloads.
//! - A changed file whose text is the text the session has
//!   ([`LoadedScene::text`]: as read, or as Save wrote it) is no reload:
//!   a `touch`, or a save with no change. Save and Save As also take the
//!   stamp of the file they wrote, so the editor's own writes are never
//!   news, with or without that check.
//! - A missing file (deleted, or between an editor's delete and rename) is
//!   not a change: the session goes on, and the file is compared again once
//!   it is back.
//!
//! # Unsaved edits are never dropped by a file changed elsewhere
//!
//! A reload starts a new session, so the edits made in the editor since the
//! last load or Save (a body dragged, an object duplicated or deleted, new
//! parameters) would go with it. While there are such edits the file is not
//! reloaded: a notice says so and how many, and the user chooses: Ctrl+R
//! reloads (dropping them), Save asks before writing over the changed file.
//! Time-setting changes do not count: a reload keeps them anyway.

use std::path::Path;
use std::time::{Duration, SystemTime};

use stepframe_core::{Edit, RecordedEdit};

use super::Worker;
use crate::editor::protocol::Event;
use crate::editor::scene_file;

/// How often a suspended worker looks at the scene's file. 500 ms: a file
/// saved in another editor shows in the preview within about a second (a
/// change is acted on at the second look that sees it), and two `metadata`
/// calls a second cost nothing measurable.
pub const SUSPENDED_LOOK_EVERY: Duration = Duration::from_millis(500);

/// A file's modification time and length.
pub(super) type Stamp = (SystemTime, u64);

/// The file's stamp now, `None` if it cannot be read.
pub(super) fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// What the worker knows of the scene's file on disk.
#[derive(Debug, Default)]
pub(super) struct SceneWatch {
    /// The stamp of the version the session has seen (loaded, written, or
    /// found broken): another one is news.
    known: Option<Stamp>,
    /// A new stamp seen at the last look, acted on if the next sees it too.
    settling: Option<Stamp>,
    /// The session's scene edits the file holds (at the last load or Save).
    /// The list, not its length: after a Save, an Undo and a new edit the
    /// count is the same, but the file holds the undone edit, not the new one.
    saved_edits: Vec<RecordedEdit>,
}

/// The edits of a session a reload would lose: all but time settings
/// (kept by a reload) and script reloads (the script file has them).
pub(super) fn scene_edits(tape: &stepframe_core::Recording) -> Vec<RecordedEdit> {
    tape.edits
        .iter()
        .filter(|e| !matches!(e.edit, Edit::Settings(_) | Edit::Reload { .. }))
        .cloned()
        .collect()
}

/// How many edits of `now` the file does not hold, or of the file's the
/// session no longer has (after an undo): past the lists' common start.
fn unsaved_count(now: &[RecordedEdit], saved: &[RecordedEdit]) -> usize {
    let common = now.iter().zip(saved).take_while(|(a, b)| a == b).count();
    (now.len() - common).max(saved.len() - common)
}

/// What one look found.
#[derive(Debug, PartialEq, Eq)]
enum Look {
    /// Nothing new (or nothing to read).
    Same,
    /// A new stamp, seen for the first time: wait for the next look.
    Settling,
    /// A new stamp seen twice in a row: read the file.
    Changed(Stamp),
}

impl SceneWatch {
    /// The session now has the version of the file with stamp `known`.
    pub(super) fn knows(&mut self, known: Option<Stamp>) {
        self.known = known;
        self.settling = None;
    }

    /// The file now holds the scene edits `edits` (none after a load; all
    /// of the session's after a Save).
    pub(super) fn saved(&mut self, edits: Vec<RecordedEdit>) {
        self.saved_edits = edits;
    }

    /// Compares the stamp `now` with what is known (see the module docs).
    fn look(&mut self, now: Option<Stamp>) -> Look {
        let Some(now) = now else {
            self.settling = None;
            return Look::Same;
        };
        if self.known == Some(now) {
            self.settling = None;
            return Look::Same;
        }
        if self.settling == Some(now) {
            self.settling = None;
            return Look::Changed(now);
        }
        self.settling = Some(now);
        Look::Settling
    }
}

impl Worker {
    /// Looks at the scene's file and reloads it if it changed (module docs).
    pub(super) fn look_at_scene_file(&mut self) {
        let Some(path) = self.scene.as_ref().map(|s| s.path.clone()) else {
            return;
        };
        let Look::Changed(now) = self.scene_watch.look(stamp(&path)) else {
            return;
        };
        // Whatever happens next, this version of the file has been seen.
        self.scene_watch.knows(Some(now));
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        if self.scene.as_ref().is_some_and(|s| s.text == text) {
            return;
        }
        let file = scene_file::name(&path);
        let n = unsaved_count(
            &scene_edits(&self.shown_tape()),
            &self.scene_watch.saved_edits,
        );
        if n > 0 {
            self.send_event(Event::Notice(format!(
                "{file} changed on disk: not reloaded, the session has {} the file does not \
                 (Ctrl+R reloads and drops them; Save asks before writing over the file)",
                crate::editor::words::count(n as u64, "unsaved edit", "unsaved edits")
            )));
            return;
        }
        match self.reload_scene(&path) {
            Ok(()) => {
                self.send_event(Event::Notice(format!(
                    "{file} changed on disk: reloaded, keeping the time settings (as Ctrl+R)"
                )));
            }
            Err(message) => {
                self.error(message);
                self.send_event(Event::Notice(format!(
                    "{file} changed on disk and does not load (the error line says where): \
                     the running session goes on, and the file reloads once it loads"
                )));
            }
        }
    }
}
