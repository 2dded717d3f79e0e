//! Bookmarks: ticks the user marks with a note ("jump pressed here", "the box
//! tunnels"), listed in their own tab (`panels::bookmarks`) and drawn on the
//! timeline's marker lane. One list for both, below the panels: each reads
//! it through the view, so neither keeps a copy of the other's.
//!
//! They belong to the scene, not to the editor, so they live beside it in a
//! sidecar file: `levels/demo.ron` keeps them in `levels/demo.bookmarks.ron`,
//! which a team can commit with the scene:
//!
//! ```ron
//! (bookmarks: [(tick: 412, note: "jump pressed"), (tick: 980, note: "box tunnels")])
//! ```
//!
//! The file is read when the scene is opened and written (atomically) each
//! time a bookmark is added or removed: adding one is the user asking for it
//! to be kept. Nothing is written before that, so opening a scene never
//! creates a file. A sidecar that cannot be read is reported with its line and
//! column and is never written over: its bookmarks work for the session, and
//! the tab says why they are not saved, until the file is fixed or deleted
//! and the scene reopened. After Save As the bookmarks follow the scene to
//! its new file (written beside it at their next change).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stepframe_core::FileError;

use stepframe_host::protocol::Event;

/// A tick marked with a note.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bookmark {
    /// The completed tick it marks.
    pub tick: u64,
    /// What the user wrote.
    pub note: String,
}

/// The sidecar file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BookmarkFile {
    bookmarks: Vec<Bookmark>,
}

/// One-based line and column (in characters) of byte `at` of `bytes`, whose
/// first `at` bytes are UTF-8.
fn position_of(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// Where the bookmarks of `scene` are kept: beside it, `.ron` becoming
/// `.bookmarks.ron`.
pub fn sidecar_path(scene: &Path) -> PathBuf {
    scene.with_extension("bookmarks.ron")
}

/// The bookmarks of the open scene: one list, which the Bookmarks tab
/// lists and the timeline draws on its marker lane, both reading it through
/// [`Reading::bookmarks`](crate::editor::shared::Reading::bookmarks). The app
/// holds it (it is the UI's, like the time cursor) and changes it when the
/// tab asks
/// ([`Action::AddBookmark`](crate::editor::shared::Action::AddBookmark),
/// [`Action::RemoveBookmark`](crate::editor::shared::Action::RemoveBookmark))
/// or a scene is opened or saved as another file.
#[derive(Debug, Default)]
pub struct Bookmarks {
    /// The scene they belong to (none before the first load).
    scene: Option<PathBuf>,
    /// By tick, oldest first.
    list: Vec<Bookmark>,
    /// Why the sidecar could not be read (file:line:column: what): it is not
    /// written over while this is set.
    broken: Option<String>,
}

/// Why a bookmark change could not be saved: the list stays as the user
/// made it, and the tab says which of these it was.
#[derive(Debug, thiserror::Error)]
pub enum BookmarkError {
    /// No scene file to put the sidecar beside.
    #[error("no scene is open: bookmarks are kept beside a scene file")]
    NoScene,
    /// The sidecar did not read when the scene opened: writing it would
    /// lose what it holds.
    #[error("bookmarks not saved: {0} (fix or delete the file, then reopen the scene)")]
    Unreadable(String),
    /// The list could not be turned into RON.
    #[error("bookmarks not saved: {0}")]
    Serialize(String),
    /// The sidecar could not be written.
    #[error("bookmarks not saved to {}: {source}", path.display())]
    Write {
        /// The sidecar.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
}

impl Bookmarks {
    /// The bookmarks, by tick, oldest first.
    pub fn list(&self) -> &[Bookmark] {
        &self.list
    }

    /// The scene they belong to (none before the first load).
    pub fn scene(&self) -> Option<&Path> {
        self.scene.as_deref()
    }

    /// Why the sidecar could not be read, while it is not written over.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// Takes a host event: a loaded scene's bookmarks are read from beside
    /// it (the words of a sidecar that did not read are returned, to
    /// report); after Save As the scene is the new file, and its bookmarks
    /// go with it (written beside it at the next change).
    pub fn on_event(&mut self, event: &Event) -> Option<String> {
        match event {
            Event::Loaded { path, .. } => {
                return self
                    .load_for(path)
                    .map(|why| format!("bookmarks not read: {why}"));
            }
            Event::Saved(path) => self.follow_save_as(path),
            _ => {}
        }
        None
    }

    /// Reads the bookmarks of a newly opened scene (none if it has no
    /// sidecar). Returns the error to report, if the sidecar is unreadable.
    pub fn load_for(&mut self, scene: &Path) -> Option<FileError> {
        self.scene = Some(scene.to_path_buf());
        self.list.clear();
        self.broken = None;
        match read_sidecar(&sidecar_path(scene)) {
            Ok(list) => {
                self.list = list;
                self.list.sort_by_key(|b| b.tick);
                None
            }
            Err(e) => {
                self.broken = Some(e.to_string());
                Some(e)
            }
        }
    }

    /// The running scene was saved as `path`: the bookmarks belong to that
    /// file now, and are written beside it at the next change (a sidecar the
    /// old file had is left as it was). If `path` already has a sidecar, its
    /// bookmarks are read instead, so they are never written over.
    pub fn follow_save_as(&mut self, path: &Path) {
        if self.scene.as_deref() == Some(path) {
            return;
        }
        if sidecar_path(path).exists() {
            // The file saved over had bookmarks of its own: those are the
            // scene's now, and they are not written over.
            let _ = self.load_for(path);
        } else {
            self.scene = Some(path.to_path_buf());
            self.broken = None;
        }
    }

    /// Adds a bookmark on `tick` (after any already on it) and saves.
    pub fn add(&mut self, tick: u64, note: &str) -> Result<PathBuf, BookmarkError> {
        let at = self.list.partition_point(|b| b.tick <= tick);
        self.list.insert(
            at,
            Bookmark {
                tick,
                note: note.trim().to_string(),
            },
        );
        self.save()
    }

    /// Removes the `index`-th bookmark and saves.
    pub fn remove(&mut self, index: usize) -> Result<PathBuf, BookmarkError> {
        if index < self.list.len() {
            self.list.remove(index);
        }
        self.save()
    }

    /// Writes the sidecar, unless it was unreadable (then it says why).
    fn save(&self) -> Result<PathBuf, BookmarkError> {
        let scene = self.scene.as_ref().ok_or(BookmarkError::NoScene)?;
        if let Some(why) = &self.broken {
            return Err(BookmarkError::Unreadable(why.clone()));
        }
        let path = sidecar_path(scene);
        let file = BookmarkFile {
            bookmarks: self.list.clone(),
        };
        // Ends with a newline, as a text file should (diff, cat, git).
        let text = ron::ser::to_string_pretty(&file, ron::ser::PrettyConfig::default())
            .map(|t| t + "\n")
            .map_err(|e| BookmarkError::Serialize(e.to_string()))?;
        stepframe_core::atomic_file::write(&path, text.as_bytes()).map_err(|source| {
            BookmarkError::Write {
                path: path.clone(),
                source,
            }
        })?;
        Ok(path)
    }
}

/// The bookmarks a sidecar holds (none when there is no sidecar), or where
/// and why it does not read.
fn read_sidecar(path: &Path) -> Result<Vec<Bookmark>, FileError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(FileError::Io {
                file: path.to_path_buf(),
                source,
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let (line, column) = position_of(e.as_bytes(), e.utf8_error().valid_up_to());
        FileError::Parse {
            file: path.to_path_buf(),
            line,
            column,
            message: "expected UTF-8 text, found a byte that is not".into(),
        }
    })?;
    ron::from_str::<BookmarkFile>(&text)
        .map(|file| file.bookmarks)
        .map_err(|e| FileError::Parse {
            file: path.to_path_buf(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidecar_sits_beside_the_scene() {
        assert_eq!(
            sidecar_path(Path::new("levels/demo.ron")),
            PathBuf::from("levels/demo.bookmarks.ron")
        );
    }
}
