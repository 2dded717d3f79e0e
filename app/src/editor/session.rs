//! Scene files in and out of the worker's pipeline: the one place the editor
//! touches the scene format.

use std::path::{Path, PathBuf};

use stepframe_core::{Pipeline, Registry, Scene, TimeSettings};

/// The scene of a session, kept for save and reload.
#[derive(Debug)]
pub struct LoadedScene {
    /// The file it came from.
    pub path: PathBuf,
    /// The authored scene as loaded (what Save writes back).
    pub scene: Scene,
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
    let scene = Scene::load(path, registry).map_err(|e| e.to_string())?;
    pipeline
        .load_scene(&scene, registry)
        .map_err(|e| e.to_string())?;
    let settings = scene.settings.time;
    Ok((
        LoadedScene {
            path: path.to_path_buf(),
            scene,
        },
        settings,
    ))
}

/// Reloads `path` into the session, keeping the time settings in force. A
/// broken file returns its error and changes nothing.
pub fn reload(
    pipeline: &mut Pipeline,
    registry: &Registry,
    path: &Path,
) -> Result<LoadedScene, String> {
    let scene = pipeline
        .reload_scene(path, registry)
        .map_err(|e| e.to_string())?;
    Ok(LoadedScene {
        path: path.to_path_buf(),
        scene,
    })
}

/// Writes the scene, with the time settings chosen in the toolbar, to `path`
/// (atomically: a failed save leaves an existing file as it was).
pub fn save(loaded: &LoadedScene, settings: TimeSettings, path: &Path) -> Result<(), String> {
    let mut scene = loaded.scene.clone();
    scene.settings.time = settings;
    scene.save(path).map_err(|e| e.to_string())
}
