//! A scene in and out of files and sessions: [`Scene::load`] and
//! [`Scene::parse`] (strict, positioned errors), [`Scene::save`] (atomic,
//! lossless), and [`Pipeline::load_scene`] / [`Pipeline::reload_scene`].

use super::*;

impl Scene {
    /// Reads and checks a scene file (see [`Scene::parse`]).
    pub fn load(path: &Path, registry: &Registry) -> Result<Scene, SceneError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            SceneError::unplaced(
                SceneErrorKind::Io,
                path,
                format!("cannot read the scene: {e}"),
            )
        })?;
        Scene::parse(&text, path, registry)
    }

    /// Parses scene text and checks it: unknown fields, wrong types, behaviour
    /// names and parameters (through the registry's factories), duplicate ids,
    /// unknown parents, shapes and settings. `origin` names the file in errors.
    pub fn parse(text: &str, origin: &Path, registry: &Registry) -> Result<Scene, SceneError> {
        let mut reader = Reader::new(text, origin)?;
        let scene = reader.read_scene()?;
        build(&scene, registry).map_err(|f| reader.place(f))?;
        Ok(scene)
    }

    /// The scene `text` holds, read but not checked (no registry), and the
    /// ron options it is read with: for rewriting text that already loaded.
    pub(super) fn parse_unchecked(
        text: &str,
        origin: &Path,
    ) -> Result<(Scene, ron::Options), SceneError> {
        let mut reader = Reader::new(text, origin)?;
        let scene = reader.read_scene()?;
        Ok((scene, reader.options))
    }

    /// The scene as pretty RON, the format [`Scene::parse`] reads.
    pub fn to_ron(&self) -> Result<String, SceneError> {
        let config = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .indentor("    ")
            .depth_limit(3)
            .extensions(Extensions::IMPLICIT_SOME);
        let mut text = ron::Options::default()
            .to_string_pretty(self, config)
            .map_err(|e| {
                SceneError::unplaced(
                    SceneErrorKind::Io,
                    Path::new(""),
                    format!("cannot write RON: {e}"),
                )
            })?;
        text.push('\n');
        Ok(text)
    }

    /// Writes the scene atomically: a temporary file in the same directory,
    /// synced, then renamed over `path`. On failure the temporary file is removed
    /// and an existing file at `path` is untouched.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        let text = self.to_ron().map_err(|e| SceneError {
            file: path.to_path_buf(),
            ..e
        })?;
        crate::atomic_file::write(path, text.as_bytes()).map_err(|e| {
            SceneError::unplaced(
                SceneErrorKind::Io,
                path,
                format!("cannot save the scene: {e}"),
            )
        })
    }

    /// Builds the world: one object per scene object, ids kept, parents before
    /// their children, behaviours made by the registry. Checks the scene the way
    /// loading does (a scene edited in memory may have become invalid).
    pub fn instantiate(&self, registry: &Registry) -> Result<World, SceneError> {
        let descs = build(self, registry).map_err(|f| self.describe(f))?;
        let mut world = World::new();
        for desc in descs {
            world.spawn(desc);
        }
        Ok(world)
    }

    /// Every object, parents before children (pre-order).
    pub fn all_objects(&self) -> Vec<&SceneObject> {
        flatten(self).into_iter().map(|(o, _, _)| o).collect()
    }

    /// The object with this id, anywhere in the tree.
    pub fn find(&self, id: u64) -> Option<&SceneObject> {
        flatten(self)
            .into_iter()
            .map(|(o, _, _)| o)
            .find(|o| o.id == id)
    }

    /// A fault in an in-memory scene: no file position, so the message names
    /// the object or behaviour instead.
    fn describe(&self, f: Fault) -> SceneError {
        let flat = flatten(self);
        let object = |i: usize| {
            flat.get(i).map_or_else(String::new, |(o, _, _)| {
                format!("object {} `{}`", o.id, o.name)
            })
        };
        let message = match f.site {
            Site::Time | Site::Settings => format!("settings: {}", f.message),
            Site::Actions | Site::ActionSource(..) => format!("actions: {}", f.message),
            Site::Object(_) => f.message,
            Site::BehaviourName(i, _) => format!("{}: {}", object(i), f.message),
            Site::Params(i, _, at) => match at {
                Some((l, c)) => format!(
                    "{}: {} (at {l}:{c} of the parameters)",
                    object(i),
                    f.message
                ),
                None => format!("{}: {}", object(i), f.message),
            },
        };
        SceneError::unplaced(f.kind, Path::new(""), message)
    }
}

impl Pipeline {
    /// Starts a fresh session from a scene: its world, a rapier stage with its
    /// gravity, its time settings (applied at the next frame boundary), its action
    /// map and its seed. Frame time goes on; simulation time restarts.
    pub fn load_scene(&mut self, scene: &Scene, registry: &Registry) -> Result<(), SceneError> {
        self.start_scene(scene, registry, Times::FromScene)
    }

    /// Re-reads a scene file into this session, keeping the time settings in
    /// force (the toolbar's, not the file's). Simulation time restarts, frame
    /// time does not. A file that does not load returns its error and leaves the
    /// running session exactly as it was.
    pub fn reload_scene(&mut self, path: &Path, registry: &Registry) -> Result<Scene, SceneError> {
        let scene = Scene::load(path, registry)?;
        self.reload_parsed(&scene, registry)?;
        Ok(scene)
    }

    /// [`Pipeline::reload_scene`] with a scene already parsed (the editor
    /// keeps the exact text it parsed, to know what Save would replace).
    pub fn reload_parsed(&mut self, scene: &Scene, registry: &Registry) -> Result<(), SceneError> {
        self.start_scene(scene, registry, Times::Kept)
    }

    /// The one way a scene becomes the session: everything is checked (the
    /// world built, the settings validated) before anything is replaced, so
    /// a scene that fails leaves the running session as it was.
    fn start_scene(
        &mut self,
        scene: &Scene,
        registry: &Registry,
        times: Times,
    ) -> Result<(), SceneError> {
        let world = scene.instantiate(registry)?;
        let fresh = times == Times::FromScene;
        if fresh {
            self.set_settings(scene.settings.time).map_err(|e| {
                SceneError::unplaced(
                    SceneErrorKind::Time(e),
                    Path::new(""),
                    format!("settings: {e}"),
                )
            })?;
        }
        // A reload keeps the input state (held keys) when the map is the same.
        if fresh || self.input().map() != &scene.actions {
            self.set_action_map(scene.actions.clone());
        }
        self.load_session(
            world,
            Box::new(RapierStage::new(scene.settings.gravity)),
            scene.settings.seed,
        );
        Ok(())
    }
}

/// Whose time settings a scene load uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Times {
    /// The scene file's: a fresh session.
    FromScene,
    /// Those in force: a reload keeps the toolbar's.
    Kept,
}
