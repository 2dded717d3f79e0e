//! Scene files in and out of the worker's pipeline: the one place the editor
//! touches the scene format, and where "no lost work" is decided.
//!
//! Save writes what the session's edits made of its scene
//! ([`Scene::with_edits`]: a body moved, an object duplicated or deleted,
//! parameters, enabling, the toolbar's time settings) into the scene's own
//! file **in place** ([`Scene::rewrite_in_place`]): only the changed values
//! are rewritten where they stand, new objects are appended in the file's
//! style, and every comment stays. It never writes a file the user did not
//! mean to write:
//!
//! | the file on disk | Save |
//! |---|---|
//! | already holds exactly the running scene (settings included) | writes nothing: "no changes to save" |
//! | changed since it was loaded (edited elsewhere) | asks: saving would replace those changes |
//! | every change has a place in the text | rewrites those values in place, atomically |
//! | some change has no place (named in the question) | asks: saving would rewrite the file in stepframe's layout and drop its comments |
//!
//! Edits a scene cannot hold (a velocity, a move of an object spawned at
//! run time) are named in a notice after the save, as is a move whose
//! transform lands within an ulp of its pose rather than on it.
//!
//! Save As writes the same in-place rewrite of the loaded text to the new
//! file (comments and layout kept; stepframe's layout only when some change
//! has no place, said in a notice), and asks only when the target exists;
//! the new file then becomes the session's own. Into another folder, a
//! script path the scene names relative to its folder would no longer reach
//! the script, so it is rewritten relative to the new file (absolute when
//! no relative path leads there) and a notice says so.

use std::path::{Path, PathBuf};

use stepframe_core::{Edit, InPlace, Registry, Scene, SceneObject, Session, TimeSettings};
use stepframe_plugins::script::resolve_in;

/// The scene of a session, kept for save and reload.
#[derive(Clone, Debug)]
pub struct LoadedScene {
    /// The file it came from (or was last saved as).
    pub path: PathBuf,
    /// The scene the file holds, as loaded or last saved.
    pub scene: Scene,
    /// The file's text as it was parsed or written: what is on disk unless
    /// someone changed the file since.
    pub text: String,
    /// The scene the session started from (with the behaviour parameters
    /// of an adopted fork): the session's edits fold onto it, so a second
    /// Save never applies the first one's edits twice.
    pub session: Scene,
}

impl LoadedScene {
    /// A scene as read from `path`, the start of a session.
    pub fn new(path: PathBuf, scene: Scene, text: String) -> LoadedScene {
        LoadedScene {
            path,
            session: scene.clone(),
            scene,
            text,
        }
    }
}

/// What a save did, or why it waits for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveOutcome {
    /// The file was written; these edits are not in it (one line each, for
    /// a notice).
    Written(Vec<String>),
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
/// and seed, with its rewind history starting there. Returns the scene's time
/// settings (the pipeline applies them at the next frame boundary). On error
/// the session is untouched and the message says where (`path:line:col:
/// what`).
pub fn open(
    session: &mut Session,
    registry: &Registry,
    path: &Path,
) -> Result<(LoadedScene, TimeSettings), String> {
    let (scene, text) = read(path, registry)?;
    session
        .load_scene(&scene, registry)
        .map_err(|e| e.to_string())?;
    let settings = scene.settings.time;
    let loaded = LoadedScene::new(path.to_path_buf(), scene, text);
    Ok((loaded, settings))
}

/// Reloads `path` into the session, keeping the time settings in force; its
/// rewind history starts again there. A broken file returns its error and
/// changes nothing.
pub fn reload(
    session: &mut Session,
    registry: &Registry,
    path: &Path,
) -> Result<LoadedScene, String> {
    let (scene, text) = read(path, registry)?;
    session
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

/// The scene Save writes: the session's scene with `edits` folded in and
/// the toolbar's time settings, and what it leaves out (for a notice).
fn edited(loaded: &LoadedScene, edits: &[&Edit], settings: TimeSettings) -> (Scene, Vec<String>) {
    let folded = loaded.session.with_edits(edits.iter().copied());
    let mut scene = folded.scene;
    scene.settings.time = settings;
    let mut notes: Vec<String> = folded
        .left_out
        .into_iter()
        .map(|l| format!("not saved: {l}"))
        .collect();
    notes.extend(folded.inexact);
    (scene, notes)
}

/// Writes what the session's `edits` made of its scene (with the toolbar's
/// time settings) into its own file, in place, following the table in the
/// module docs; `replace` is the user's confirmation (of replacing a file
/// changed on disk, or of rewriting it in stepframe's layout when some
/// change has no place in it).
pub fn save(
    loaded: &mut LoadedScene,
    edits: &[&Edit],
    settings: TimeSettings,
    registry: &Registry,
    replace: bool,
) -> Result<SaveOutcome, String> {
    let (scene, notes) = edited(loaded, edits, settings);
    let on_disk = std::fs::read_to_string(&loaded.path).ok();
    let file = name(&loaded.path);
    if !replace
        && let Some(text) = &on_disk
        && *text != loaded.text
    {
        return Ok(SaveOutcome::NeedsConfirmation(format!(
            "{file} changed on disk since it was loaded; saving replaces those changes \
             with the running scene"
        )));
    }
    if on_disk.as_ref() == Some(&loaded.text) && scene == loaded.scene {
        return Ok(SaveOutcome::Unchanged);
    }
    let why = match Scene::rewrite_in_place(&loaded.text, &loaded.path, &scene, registry) {
        Ok(InPlace::Placed(text)) => {
            stepframe_core::atomic_file::write(&loaded.path, text.as_bytes())
                .map_err(|e| format!("{}: cannot save the scene: {e}", loaded.path.display()))?;
            loaded.scene = scene;
            loaded.text = text;
            return Ok(SaveOutcome::Written(notes));
        }
        Ok(InPlace::Unplaced(what)) => format!("Save cannot place {}", what.join("; ")),
        Err(e) => format!("Save cannot rewrite it in place ({e})"),
    };
    if !replace {
        let comments = comment_lines(&loaded.text);
        let what = if comments > 0 {
            format!("its {comments} comment line(s) and hand-written layout")
        } else {
            "its hand-written layout".to_string()
        };
        return Ok(SaveOutcome::NeedsConfirmation(format!(
            "{file}: {why}. Saving anyway rewrites it in stepframe's own layout and drops \
             {what} (Save As writes a new file instead)"
        )));
    }
    write(loaded, scene, loaded.path.clone())?;
    Ok(SaveOutcome::Written(notes))
}

/// Writes what the session's `edits` made of its scene to `path`, freshly
/// formatted; `path` becomes the session's own file. An existing file
/// other than the session's own is only replaced with `overwrite`.
pub fn save_as(
    loaded: &mut LoadedScene,
    edits: &[&Edit],
    settings: TimeSettings,
    registry: &Registry,
    path: &Path,
    overwrite: bool,
) -> Result<SaveOutcome, String> {
    if !overwrite && path.exists() {
        return Ok(SaveOutcome::NeedsConfirmation(format!(
            "{} already exists; saving replaces it with the running scene",
            path.display()
        )));
    }
    let (mut scene, mut notes) = edited(loaded, edits, settings);
    let old_dir = folder_of(&loaded.path);
    let new_dir = folder_of(path);
    notes.extend(rebase_script_paths(&mut scene.objects, &old_dir, &new_dir));
    // Checked against the new folder's registry: the rewrite must load there.
    let mut laid_out = |why: String| -> Result<String, String> {
        notes.push(format!(
            "{} is in stepframe's layout, without the comments of {} ({why})",
            name(path),
            name(&loaded.path)
        ));
        scene.to_ron().map_err(|e| e.to_string())
    };
    let text = match Scene::rewrite_in_place(&loaded.text, path, &scene, registry) {
        Ok(InPlace::Placed(text)) => text,
        Ok(InPlace::Unplaced(what)) => laid_out(format!("no place for {}", what.join("; ")))?,
        Err(e) => laid_out(e.to_string())?,
    };
    stepframe_core::atomic_file::write(path, text.as_bytes())
        .map_err(|e| format!("{}: cannot save the scene: {e}", path.display()))?;
    loaded.path = path.to_path_buf();
    loaded.scene = scene;
    loaded.text = text;
    Ok(SaveOutcome::Written(notes))
}

/// The folder a scene file is in (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Rewrites every Script behaviour's relative `path` that would reach a
/// different script (or none) from `new_dir` than it does from `old_dir`, so
/// that it reaches the same script again: relative to `new_dir`, or absolute
/// when no relative path leads there. One note per rewritten path.
fn rebase_script_paths(objects: &mut [SceneObject], old_dir: &Path, new_dir: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let canonical = |p: PathBuf| std::fs::canonicalize(&p).ok();
    let new_abs = canonical(new_dir.to_path_buf());
    for object in objects {
        for b in object.behaviours.iter_mut().filter(|b| b.name == "Script") {
            let Some((start, end)) = quoted_path(&b.params) else {
                continue;
            };
            let named = PathBuf::from(&b.params[start..end]);
            if named.is_absolute() || named.to_string_lossy().starts_with("inline:") {
                continue;
            }
            let Some(script) = canonical(resolve_in(old_dir, &named)) else {
                continue;
            };
            if canonical(resolve_in(new_dir, &named)).as_ref() == Some(&script) {
                continue;
            }
            let rebased = new_abs
                .as_ref()
                .and_then(|dir| pathdiff::diff_paths(&script, dir))
                .unwrap_or_else(|| script.clone());
            let text = rebased.to_string_lossy().replace('\\', "/");
            if text.contains('"') {
                continue;
            }
            notes.push(format!(
                "{} #{}: script path {} rewritten as {text}, relative to the new file",
                object.name,
                object.id,
                named.display()
            ));
            b.params.replace_range(start..end, &text);
        }
        notes.extend(rebase_script_paths(&mut object.children, old_dir, new_dir));
    }
    notes
}

/// Where the string after the `path:` field stands in a Script's parameter
/// text (`(path: "scripts/patrol.rhai", vars: ...)`), without its quotes: the
/// first `path` followed by `:` and a quoted string, so a variable whose name
/// merely contains "path" is passed over.
fn quoted_path(params: &str) -> Option<(usize, usize)> {
    params.match_indices("path").find_map(|(key, _)| {
        let word_start = params[..key]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if !word_start {
            return None;
        }
        let after = key + "path".len();
        let rest = params[after..].trim_start();
        let rest = rest.strip_prefix(':')?.trim_start();
        let value = rest.strip_prefix('"')?;
        let open = params.len() - value.len();
        let close = open + value.find('"')?;
        Some((open, close))
    })
}

/// Writes `scene` freshly formatted to `path`, which becomes the file the
/// session's scene is in (the session itself is unchanged).
fn write(loaded: &mut LoadedScene, scene: Scene, path: PathBuf) -> Result<(), String> {
    let text = scene.to_ron().map_err(|e| e.to_string())?;
    scene.save(&path).map_err(|e| e.to_string())?;
    loaded.path = path;
    loaded.scene = scene;
    loaded.text = text;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_path_is_found_after_the_path_field_only() {
        let at = |p: &str| quoted_path(p).map(|(a, b)| p[a..b].to_string());
        assert_eq!(
            at(r#"(path: "scripts/patrol.rhai", vars: {"speed": 1.5})"#).as_deref(),
            Some("scripts/patrol.rhai")
        );
        assert_eq!(
            at(r#"(vars: {"xpath": 1.0, "pathway": 2.0}, path : "a.rhai")"#).as_deref(),
            Some("a.rhai")
        );
        assert_eq!(at(r#"(vars: {"speed": 1.5})"#), None);
    }
    use stepframe_core::{ObjectId, Pose};

    /// A commented scene in a scratch file, loaded as a session's.
    fn loaded(name: &str) -> (LoadedScene, Registry) {
        let dir = std::env::temp_dir().join(format!(
            "stepframe-scene-file-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("scratch");
        let path = dir.join("s.ron");
        let text = "// two boxes\n(objects: [\n    (id: 1, name: \"A\", transform: (x: 0.0, y: 1.0)), // first\n    (id: 2, name: \"B\", transform: (x: 2.0, y: 1.0)),\n])\n";
        std::fs::write(&path, text).expect("write");
        let registry = Registry::new();
        let scene = Scene::parse(text, &path, &registry).expect("loads");
        (LoadedScene::new(path, scene, text.to_string()), registry)
    }

    #[test]
    fn save_rewrites_a_move_in_place_and_names_what_it_leaves_out() {
        let (mut l, registry) = loaded("move");
        let edits = [
            Edit::Pose {
                object: ObjectId(2),
                pose: Pose::new(2.5, 1.0, 0.0),
            },
            Edit::Velocity {
                object: ObjectId(2),
                velocity: Default::default(),
            },
        ];
        let edits: Vec<&Edit> = edits.iter().collect();
        let outcome = save(&mut l, &edits, TimeSettings::default(), &registry, false);
        assert_eq!(
            outcome,
            Ok(SaveOutcome::Written(vec![
                "not saved: 1 velocity edit: a scene holds no velocity at a later tick".to_string()
            ]))
        );
        let written = std::fs::read_to_string(&l.path).expect("read");
        assert_eq!(
            written,
            "// two boxes\n(objects: [\n    (id: 1, name: \"A\", transform: (x: 0.0, y: 1.0)), // first\n    (id: 2, name: \"B\", transform: (x: 2.5, y: 1.0)),\n])\n"
        );
        // Saved again with the same edits: nothing new.
        let again = save(&mut l, &edits, TimeSettings::default(), &registry, false);
        assert_eq!(again, Ok(SaveOutcome::Unchanged));
    }

    #[test]
    fn a_change_with_no_place_is_named_in_the_question_and_save_anyway_writes_stepframes_layout() {
        let (mut l, registry) = loaded("unplaced");
        // A rename: no edit makes one, so it has no place in the text.
        l.session.objects[0].name = "Renamed".to_string();
        let before = std::fs::read_to_string(&l.path).expect("read");
        let outcome = save(&mut l, &[], TimeSettings::default(), &registry, false);
        let Ok(SaveOutcome::NeedsConfirmation(reason)) = outcome else {
            panic!("asks: {outcome:?}");
        };
        assert_eq!(
            reason,
            "s.ron: Save cannot place object 1 `A`: its name changed. Saving anyway \
             rewrites it in stepframe's own layout and drops its 2 comment line(s) and \
             hand-written layout (Save As writes a new file instead)"
        );
        assert_eq!(std::fs::read_to_string(&l.path).expect("read"), before);
        let outcome = save(&mut l, &[], TimeSettings::default(), &registry, true);
        assert_eq!(outcome, Ok(SaveOutcome::Written(Vec::new())));
        let written = std::fs::read_to_string(&l.path).expect("read");
        assert!(
            written.contains("\"Renamed\"") && !written.contains("//"),
            "{written}"
        );
    }

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
