//! Writing a file so that a reader (or a crash) only ever sees the old file
//! or the new one, never half of one: the one way stepframe writes the files a
//! user keeps (scenes, scripts from the code pane, timeline exports).
//!
//! A temporary file in the same directory (same file system, so the rename is
//! atomic) is written, fsynced and renamed over the target, then the directory
//! is fsynced so the rename itself is durable. On failure the temporary file is
//! removed and an existing file at the target is untouched.
//!
//! `tests/reliability/` checks that by killing a saving process with
//! SIGKILL at each point of a save in turn: with the crate's `test-hooks`
//! feature (which only the tests crate enables), `STEPFRAME_SAVE_PAUSE` names
//! a point ([`PausePoint`]); a write that reaches it prints
//! `paused <point>` on stdout and waits forever, to be killed exactly there.
//! Without the feature the variable is not even read.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |file| {
        #[cfg(feature = "test-hooks")]
        if let Some(n) = pause::partial_bytes() {
            // Half a file on disk, then the pause (see the module docs).
            let n = n.min(bytes.len());
            file.write_all(&bytes[..n])?;
            file.flush()?;
            pause::at(pause::Point::Bytes(n));
            return file.write_all(&bytes[n..]);
        }
        file.write_all(bytes)
    })
}

/// Writes `path` atomically with `fill`, which writes the whole content to
/// the temporary file (streamed, not held in memory).
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    #[cfg(feature = "test-hooks")]
    pause::begin_write();
    let result = (|| {
        // The reason a write fails in a read-only folder is here: say where.
        let mut file = File::create(&tmp).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot create a file in {}: {e}", dir.display()),
            )
        })?;
        #[cfg(feature = "test-hooks")]
        pause::at(pause::Point::Created);
        fill(&mut file)?;
        file.flush()?;
        #[cfg(feature = "test-hooks")]
        pause::at(pause::Point::Written);
        file.sync_all()?;
        drop(file);
        #[cfg(feature = "test-hooks")]
        pause::at(pause::Point::Synced);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        // Best effort: the temp file may not even exist.
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    #[cfg(feature = "test-hooks")]
    pause::at(pause::Point::Renamed);
    // Durability of the rename; not every platform can open a directory.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The points of a write where `STEPFRAME_SAVE_PAUSE` can stop it, as the
/// variable spells them: `created` (the temporary file exists, empty),
/// `bytes:N` (its first N bytes written), `written` (all written, not yet
/// fsynced), `synced` (fsynced, not yet renamed) and `renamed` (renamed over
/// the target, the directory not yet fsynced). `@K` after a point pauses the
/// K-th write of the process instead of the first: `synced@3`.
#[cfg(feature = "test-hooks")]
pub use pause::Point as PausePoint;

#[cfg(feature = "test-hooks")]
mod pause {
    use std::io::Write;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// See [`super::PausePoint`].
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Point {
        /// The temporary file exists, empty.
        Created,
        /// Its first N bytes are written.
        Bytes(usize),
        /// All written, not yet fsynced.
        Written,
        /// Fsynced, not yet renamed.
        Synced,
        /// Renamed over the target.
        Renamed,
    }

    impl Point {
        fn parse(text: &str) -> Option<Point> {
            Some(match text {
                "created" => Point::Created,
                "written" => Point::Written,
                "synced" => Point::Synced,
                "renamed" => Point::Renamed,
                _ => Point::Bytes(text.strip_prefix("bytes:")?.parse().ok()?),
            })
        }

        fn name(self) -> String {
            match self {
                Point::Created => "created".into(),
                Point::Bytes(n) => format!("bytes:{n}"),
                Point::Written => "written".into(),
                Point::Synced => "synced".into(),
                Point::Renamed => "renamed".into(),
            }
        }
    }

    /// The point asked for and the write it applies to (1-based).
    fn wanted() -> Option<(Point, u32)> {
        static WANTED: OnceLock<Option<(Point, u32)>> = OnceLock::new();
        *WANTED.get_or_init(|| {
            let text = std::env::var("STEPFRAME_SAVE_PAUSE").ok()?;
            let (point, nth) = match text.split_once('@') {
                Some((p, n)) => (p, n.parse().ok()?),
                None => (text.as_str(), 1),
            };
            Some((Point::parse(point)?, nth))
        })
    }

    /// Writes begun by this process.
    static WRITES: AtomicU32 = AtomicU32::new(0);

    pub fn begin_write() {
        WRITES.fetch_add(1, Ordering::SeqCst);
    }

    fn this_write(point: Point) -> bool {
        wanted().is_some_and(|(p, nth)| {
            let same = match (p, point) {
                (Point::Bytes(_), Point::Bytes(_)) => true,
                (a, b) => a == b,
            };
            same && WRITES.load(Ordering::SeqCst) == nth
        })
    }

    /// N when this write is to pause after its first N bytes.
    pub fn partial_bytes() -> Option<usize> {
        match wanted() {
            Some((Point::Bytes(n), _)) if this_write(Point::Bytes(n)) => Some(n),
            _ => None,
        }
    }

    /// Pauses for good if this is the point asked for (see the module docs).
    pub fn at(point: Point) {
        if !this_write(point) {
            return;
        }
        let mut out = std::io::stdout();
        let _ = writeln!(out, "paused {}", point.name());
        let _ = out.flush();
        loop {
            std::thread::park();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sf_atomic_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("a.txt");
        std::fs::write(&file, "old").expect("write");
        write(&file, b"new text").expect("atomic write");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "new text");
        let failed = write_with(&file, |_| Err(std::io::Error::other("disk full")));
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "new text");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "only the file itself: {names:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
