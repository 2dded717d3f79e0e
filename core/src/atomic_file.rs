//! Writing a file so that a reader (or a crash) only ever sees the old file
//! or the new one, never half of one: the one way stepframe writes the files a
//! user keeps (scenes, scripts from the code pane, timeline exports).
//!
//! A temporary file in the same directory (same file system, so the rename is
//! atomic) is written, fsynced and renamed over the target, then the directory
//! is fsynced so the rename itself is durable. On failure the temporary file is
//! removed and an existing file at the target is untouched (`app/tests/
//! reliability.rs` kills a saving process at random moments to check it).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |file| file.write_all(bytes))
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
    let result = (|| {
        let mut file = File::create(&tmp)?;
        fill(&mut file)?;
        file.flush()?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        // Best effort: the temp file may not even exist.
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    // Durability of the rename; not every platform can open a directory.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
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
