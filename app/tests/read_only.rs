//! A scene opened from a place the editor cannot write: adding a bookmark
//! (its sidecar beside the scene), File → Save session recording (beside the
//! scene by default) and a timeline export into that folder each fail with a
//! notice that names the path and the reason; nothing already there is
//! touched, the bookmark is kept for the session, and the editor goes on.
//!
//! Where the folder comes from: a scratch folder made read-only (mode 0555).
//! Tests may run as root, whom a mode does not stop (CAP_DAC_OVERRIDE); the
//! test checks by trying to create a file there, and if that works it opens
//! the scene through `/proc/self/fd/<n>` instead: a link to the scene file
//! in a folder no process can create files in, root included (procfs). The
//! reason the OS gives then is "No such file or directory" rather than
//! "Permission denied"; the test checks the path and that a reason follows.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;

mod support;
use support::editor::{DEFAULT_SIZE, click, clock_tick, editor_sized, log_line};
use support::scratch;

/// A scene in a place the process cannot write, and what keeps it so.
struct ReadOnly {
    /// The scene as the editor opens it.
    scene: PathBuf,
    /// The folder files would be written into (`scene`'s parent).
    folder: PathBuf,
    /// The real folder, made writable again on drop (chmod mode).
    restore: Option<PathBuf>,
    /// The open scene file `/proc/self/fd/<n>` points at (procfs mode).
    _file: Option<File>,
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if let Some(dir) = &self.restore {
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn read_only_scene(name: &str) -> ReadOnly {
    let dir = scratch(name).join("levels");
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let scene = dir.join("level.ron");
    // A small scene with no scripts (nothing else to find beside it).
    std::fs::write(&scene, support::ball_scene_text(&[])).expect("scene written");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let probe = dir.join("probe");
    if File::create(&probe).is_err() {
        return ReadOnly {
            folder: dir.clone(),
            scene,
            restore: Some(dir),
            _file: None,
        };
    }
    // The mode did not stop us (root): through procfs instead.
    let _ = std::fs::remove_file(&probe);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let file = File::open(&scene).expect("scene opens");
    let linked = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    assert!(
        File::create(Path::new("/proc/self/fd/stepframe-probe")).is_err(),
        "procfs took a new file"
    );
    ReadOnly {
        folder: PathBuf::from("/proc/self/fd"),
        scene: linked,
        restore: None,
        _file: Some(file),
    }
}

/// `line` names `path`, then the folder it could not write and the OS's
/// reason.
fn names_path_and_reason(line: &str, prefix: &str, path: &Path, folder: &Path) {
    let rest = line
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{line:?} does not start with {prefix:?}"));
    let rest = rest
        .strip_prefix(&path.display().to_string())
        .unwrap_or_else(|| panic!("{line:?} does not name {}", path.display()));
    let reason = rest
        .strip_prefix(&format!(": cannot create a file in {}: ", folder.display()))
        .unwrap_or_else(|| panic!("{line:?} does not name the folder"));
    assert!(
        reason.contains("os error"),
        "{line:?}: the OS's reason follows"
    );
}

#[test]
fn writes_beside_a_scene_in_a_read_only_folder_fail_with_a_notice_and_lose_nothing() {
    let place = read_only_scene("read-only");
    let before: Vec<PathBuf> = list(&place.folder);
    let scene_bytes = std::fs::read(&place.scene).expect("the scene reads");
    let mut h = editor_sized(place.scene.clone(), DEFAULT_SIZE);
    h.run_steps(10);
    click(&mut h, "⏸ Pause");
    let tick = clock_tick(&h);

    // A bookmark: refused on disk, kept for the session.
    click(&mut h, "Bookmarks");
    click(&mut h, &format!("Bookmark tick {tick}"));
    let sidecar = place.scene.with_extension("bookmarks.ron");
    let line = log_line(&h, "bookmarks not saved to ").expect("the bookmark notice");
    names_path_and_reason(&line, "bookmarks not saved to ", &sidecar, &place.folder);
    assert_eq!(
        h.query_all_by_label(&format!("tick {tick}")).count(),
        1,
        "kept for the session: listed"
    );

    // File → Save session recording, to the default beside the scene.
    click(&mut h, "File");
    click(&mut h, "Save session recording…");
    click(&mut h, "Save");
    h.run_steps(3);
    let stem = place
        .scene
        .file_stem()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    let recording = place.folder.join(format!("{stem}.session.ron"));
    let line = log_line(&h, "session recording not saved: ").expect("the recording error");
    names_path_and_reason(
        &line,
        "session recording not saved: ",
        &recording,
        &place.folder,
    );

    // A timeline export into the folder.
    let export = place.folder.join("frames.csv");
    click(&mut h, "Export…");
    h.run_steps(1);
    support::editor::type_over(&mut h, "CSV (.csv)", &export.display().to_string());
    click(&mut h, "Export csv");
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    let line = log_line(&h, "export to ").expect("the export notice");
    let reason = line
        .strip_prefix(&format!(
            "export to {} failed: cannot create a file in {}: ",
            export.display(),
            place.folder.display()
        ))
        .unwrap_or_else(|| panic!("{line:?} names the file, the folder and why"));
    assert!(reason.contains("os error"), "{line}");

    // Nothing written, nothing lost: the folder as it was, the scene byte for
    // byte, and the editor goes on.
    assert_eq!(list(&place.folder), before, "no file appeared");
    assert_eq!(std::fs::read(&place.scene).expect("reads"), scene_bytes);
    click(&mut h, "Step tick");
    h.run_steps(2);
    assert_eq!(clock_tick(&h), tick + 1, "the editor goes on");
    assert!(h.state().published().worker_stopped.is_none());
}

/// The names in a folder, sorted (for procfs: its open descriptors' names
/// are not files anyone wrote, so only non-numeric names count).
fn list(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the folder lists")
        .filter_map(|e| e.ok().map(|e| PathBuf::from(e.file_name())))
        .filter(|n| n.to_str().is_none_or(|s| s.parse::<u32>().is_err()))
        .collect();
    names.sort();
    names
}
