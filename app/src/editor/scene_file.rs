//! Scene files in and out of the worker's pipeline: the one place the editor
//! touches the scene format, and where "no lost work" is decided.
//!
//! Save never writes a file the user did not mean to write, and never drops
//! what a hand-written scene holds without asking first:
//!
//! | the file on disk | Save |
//! |---|---|
//! | already holds exactly the running scene (settings included) | writes nothing: "no changes to save" |
//! | changed since it was loaded (edited elsewhere) | asks: saving would replace those changes |
//! | hand-written: comments, or a layout other than stepframe's own | asks: saving would drop them |
//! | written by stepframe (its own layout, no comments) | writes, atomically |
//!
//! Save As writes a fresh file (stepframe's layout) and asks only when the
//! target exists; the new file then becomes the session's own.

use std::path::{Path, PathBuf};

use stepframe_core::{Pipeline, Registry, Scene, TimeSettings};

/// The scene of a session, kept for save and reload.
#[derive(Clone, Debug)]
pub struct LoadedScene {
    /// The file it came from (or was last saved as).
    pub path: PathBuf,
    /// The authored scene as loaded or last saved.
    pub scene: Scene,
    /// The file's text as it was parsed or written: what is on disk unless
    /// someone changed the file since.
    pub text: String,
    /// The session's authored data when it differs from `scene` (behaviour
    /// parameters an adopted fork changed): what Save writes.
    pub running: Option<Scene>,
}

impl LoadedScene {
    /// A scene as read from or written to `path`.
    pub fn new(path: PathBuf, scene: Scene, text: String) -> LoadedScene {
        LoadedScene {
            path,
            scene,
            text,
            running: None,
        }
    }

    /// The authored data of the running session (what Save writes).
    pub fn running(&self) -> &Scene {
        self.running.as_ref().unwrap_or(&self.scene)
    }
}

/// What a save did, or why it waits for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveOutcome {
    /// The file was written.
    Written,
    /// The file already holds the running scene: nothing was written.
    Unchanged,
    /// Nothing was written: the user must confirm first, for this reason.
    NeedsConfirmation(String),
}

/// Reads and parses a scene file, keeping its exact text.
fn read(path: &Path, registry: &Registry) -> Result<(Scene, String), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read the scene: {e}", path.display()))?;
    let scene = Scene::parse(&text, path, registry).map_err(|e| e.to_string())?;
    Ok((scene, text))
}

/// Opens `path` as a fresh session: its world, physics, time settings, actions
/// and seed. Returns the scene's time settings (the pipeline applies them at the
/// next frame boundary). On error the pipeline is untouched and the message
/// says where (`path:line:col: what`).
pub fn open(
    pipeline: &mut Pipeline,
    registry: &Registry,
    path: &Path,
) -> Result<(LoadedScene, TimeSettings), String> {
    let (scene, text) = read(path, registry)?;
    pipeline
        .load_scene(&scene, registry)
        .map_err(|e| e.to_string())?;
    let settings = scene.settings.time;
    let loaded = LoadedScene::new(path.to_path_buf(), scene, text);
    Ok((loaded, settings))
}

/// Reloads `path` into the session, keeping the time settings in force. A
/// broken file returns its error and changes nothing.
pub fn reload(
    pipeline: &mut Pipeline,
    registry: &Registry,
    path: &Path,
) -> Result<LoadedScene, String> {
    let (scene, text) = read(path, registry)?;
    pipeline
        .reload_parsed(&scene, registry)
        .map_err(|e| e.to_string())?;
    Ok(LoadedScene::new(path.to_path_buf(), scene, text))
}

/// Comment lines (`//` or `/* */`, outside strings) in a RON text, counted
/// once per line they start on.
pub fn comment_lines(text: &str) -> usize {
    let mut lines = std::collections::BTreeSet::new();
    let bytes = text.as_bytes();
    let (mut i, mut line) = (0, 1usize);
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
        } else if in_string {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            lines.insert(line);
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            lines.insert(line);
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                if bytes[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    lines.len()
}

/// The file's name for messages.
pub fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Writes the running scene (with the toolbar's time settings) to its own
/// file, following the table in the module docs; `replace` is the user's
/// confirmation that what the file holds beyond the scene may go.
pub fn save(
    loaded: &mut LoadedScene,
    settings: TimeSettings,
    replace: bool,
) -> Result<SaveOutcome, String> {
    let mut scene = loaded.running().clone();
    scene.settings.time = settings;
    let on_disk = std::fs::read_to_string(&loaded.path).ok();
    if !replace {
        match &on_disk {
            Some(text) if *text != loaded.text => {
                return Ok(SaveOutcome::NeedsConfirmation(format!(
                    "{} changed on disk since it was loaded; saving replaces those changes \
                     with the running scene",
                    name(&loaded.path)
                )));
            }
            Some(_) if scene == loaded.scene => return Ok(SaveOutcome::Unchanged),
            Some(text) => {
                let ours = loaded.scene.to_ron().map_err(|e| e.to_string())?;
                if *text != ours {
                    let comments = comment_lines(text);
                    let what = if comments > 0 {
                        format!("its {comments} comment line(s) and hand-written layout")
                    } else {
                        "its hand-written layout".to_string()
                    };
                    return Ok(SaveOutcome::NeedsConfirmation(format!(
                        "{} is hand-written: saving rewrites it in stepframe's own layout and \
                         drops {what} (Save As writes a new file instead)",
                        name(&loaded.path)
                    )));
                }
            }
            None => {}
        }
    }
    write(loaded, scene, loaded.path.clone())
}

/// Writes the running scene to `path`, freshly formatted; `path` becomes the
/// session's own file. An existing file other than the session's own is only
/// replaced with `overwrite`.
pub fn save_as(
    loaded: &mut LoadedScene,
    settings: TimeSettings,
    path: &Path,
    overwrite: bool,
) -> Result<SaveOutcome, String> {
    if !overwrite && path.exists() {
        return Ok(SaveOutcome::NeedsConfirmation(format!(
            "{} already exists; saving replaces it with the running scene",
            path.display()
        )));
    }
    let mut scene = loaded.running().clone();
    scene.settings.time = settings;
    write(loaded, scene, path.to_path_buf())
}

fn write(loaded: &mut LoadedScene, scene: Scene, path: PathBuf) -> Result<SaveOutcome, String> {
    let text = scene.to_ron().map_err(|e| e.to_string())?;
    scene.save(&path).map_err(|e| e.to_string())?;
    *loaded = LoadedScene::new(path, scene, text);
    Ok(SaveOutcome::Written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_lines_counts_line_and_block_comments_outside_strings() {
        let text = "// one\n(a: \"// not a comment\", /* two */ b: 1,\n /* three\n still */ c: 2) // four\n";
        assert_eq!(comment_lines(text), 4, "lines 1 to 4 each start a comment");
        assert_eq!(
            comment_lines("(a: \"\\\"//\")"),
            0,
            "escaped quote inside a string"
        );
    }
}
