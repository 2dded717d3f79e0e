//! The scene and its files: Open, Reload, Save and Save As applied to the
//! session (the rules of what may be written are in `file`), the scene's
//! file watched on disk (`watch`), and each scene's behaviour registry.

mod file;
mod watch;

use std::path::Path;

use stepframe_core::{Edit, ObjectId, Pipeline, Registry, SceneObject, World};
use stepframe_plugins::ScriptHost;

use super::outbox::Outbox;
use super::{Registries, Worker};
use crate::protocol::{
    Event, HostError, JournalEntry, Notice, SaveRisk, SaveWhat, SceneCommand, SessionStart,
    SettingChange,
};
pub(super) use file::LoadedScene;
use file::SaveOutcome;
pub use watch::SUSPENDED_LOOK_EVERY;

/// The scene of the session and its file (module docs).
pub(super) struct SceneFiles {
    /// The scene as loaded (authored data, for Save and Reload), if any.
    loaded: Option<LoadedScene>,
    /// The file's version on disk the session knows (auto-reload).
    watch: watch::SceneWatch,
    /// The open scene's registry (its folder's scripts, the session's host).
    registry: Registry,
    /// How registries are made.
    registries: Registries,
    /// The files this host wrote (a Save or Save As): a save into any other
    /// shows what it writes first ([`SaveRisk::Review`]).
    written: std::collections::BTreeSet<std::path::PathBuf>,
}

/// The directory a scene's scripts resolve from.
fn scene_dir(scene: &Path) -> &Path {
    scene.parent().unwrap_or(Path::new("."))
}

impl SceneFiles {
    /// No scene yet, behaviours from `registries`, scripts on `host`.
    pub(super) fn new(registries: Registries, host: &ScriptHost) -> SceneFiles {
        SceneFiles {
            loaded: None,
            watch: watch::SceneWatch::default(),
            registry: registries(host, Path::new(".")),
            registries,
            written: Default::default(),
        }
    }

    /// The scene's file, if one is open.
    pub(super) fn path(&self) -> Option<&Path> {
        self.loaded.as_ref().map(|l| l.path.as_path())
    }

    /// The open scene's registry.
    pub(super) fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry for a scene file on the session's `host`.
    fn registry_for(&self, host: &ScriptHost, scene: &Path) -> Registry {
        (self.registries)(host, scene_dir(scene))
    }

    /// The open scene's registry on `host` (a fork's own host).
    pub(super) fn registry_on(&self, host: &ScriptHost) -> Registry {
        match self.path() {
            Some(path) => self.registry_for(host, path),
            None => (self.registries)(host, Path::new(".")),
        }
    }

    /// The scene as its file describes object `id` (a deleted object is
    /// named as its scene names it).
    pub(super) fn authored(&self, id: ObjectId) -> Option<&SceneObject> {
        self.loaded.as_ref()?.session.find(id.0)
    }

    /// An adopted branch's behaviour parameters (its *Set in B* edits)
    /// become the authored scene's, so Save writes them: each authored
    /// object alive in the session takes its behaviours' parameter text
    /// from the world, behaviour by behaviour, where names and priorities
    /// agree.
    pub(super) fn take_params_into_scene(&mut self, pipeline: &Pipeline, out: &mut Outbox) {
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        let world = pipeline.world();
        let mut scene = loaded.session.clone();
        fn visit(objects: &mut [SceneObject], world: &World) {
            for o in objects {
                if let Some(live) = world.get(ObjectId(o.id)) {
                    for (authored, info) in o.behaviours.iter_mut().zip(&live.behaviours) {
                        if authored.name == info.name && authored.priority == info.priority {
                            authored.params.clone_from(&info.params);
                        }
                    }
                }
                visit(&mut o.children, world);
            }
        }
        visit(&mut scene.objects, world);
        if scene != loaded.session {
            loaded.session = scene;
            out.notice(Notice::BParamsInScene);
        }
    }
}

impl Worker {
    /// A scene command.
    pub(super) fn scene_command(&mut self, command: SceneCommand) {
        match command {
            SceneCommand::Load { path, play } => self.load(&path, None, play),
            SceneCommand::Reload => {
                let Some(path) = self.scene.path().map(Path::to_path_buf) else {
                    self.out.error(HostError::NoScene);
                    return;
                };
                if let Err(message) = self.reload_scene(&path, None) {
                    self.out.error(HostError::Scene(message));
                }
            }
            SceneCommand::Save { replace, reviewed } => {
                if !reviewed && let Some(risk) = self.review() {
                    let path = self.scene.path().map(Path::to_path_buf).unwrap_or_default();
                    self.out.event(Event::ConfirmSave {
                        path,
                        reason: risk,
                        what: SaveWhat::Scene,
                    });
                    return;
                }
                self.save(None, replace)
            }
            SceneCommand::SaveAs { path, overwrite } => self.save(Some(&path), overwrite),
        }
    }

    /// Opens `path` (or `text` as its text) as a new session, playing or
    /// shown suspended at tick 0 (the preview).
    pub(super) fn load(&mut self, path: &Path, text: Option<String>, play: bool) {
        // Hits so far are labelled in the world they happened in.
        self.breakpoints.take(self.run.session.pipeline());
        let selected = self.selected_by_name();
        let registry = self.scene.registry_for(&self.scripts.host, path);
        // Taken before the read: a change after it is news (`watch`).
        let stamp = watch::stamp(path);
        match file::open(&mut self.run.session, &registry, path, text) {
            Ok(scene) => {
                self.scene.registry = registry;
                self.scene.watch.knows(stamp);
                if !play {
                    // The preview: the world at tick 0, poses shown, nothing run.
                    self.run.session.pause();
                }
                self.after_new_session(scene, None, play, selected);
            }
            Err(message) => self.out.error(HostError::Scene(message)),
        }
    }

    /// Reloads the session from `path` (or `text` as its text), keeping the
    /// time settings in force and a pause (Ctrl+R and auto-reload alike). A
    /// file that does not load changes nothing and returns its error
    /// (`file:line:column: what`).
    pub(super) fn reload_scene(&mut self, path: &Path, text: Option<String>) -> Result<(), String> {
        let was_suspended = self.is_suspended();
        let settings = self.run.settings();
        self.breakpoints.take(self.run.session.pipeline());
        let selected = self.selected_by_name();
        let stamp = watch::stamp(path);
        let registry = self.scene.registry.clone();
        let scene = file::reload(&mut self.run.session, &registry, path, text)?;
        self.scene.watch.knows(stamp);
        if was_suspended {
            self.run.session.pause();
        }
        self.after_new_session(scene, Some(settings), !was_suspended, selected);
        Ok(())
    }

    /// The selected object and its name, before a new world replaces it.
    fn selected_by_name(&self) -> Option<(ObjectId, String)> {
        let id = self.selection?;
        let name = self.run.session.pipeline().world().get(id)?.name.clone();
        Some((id, name))
    }

    /// Every feature's share of a new world (a load, a reload). `selected`:
    /// the selection in the old world, kept only where the new world has
    /// the same object (its id and its name): ids are per scene, and
    /// another scene's #2 is another object.
    fn after_new_session(
        &mut self,
        scene: LoadedScene,
        reload: Option<stepframe_core::TimeSettings>,
        play: bool,
        selected: Option<(ObjectId, String)>,
    ) {
        self.out.journal(JournalEntry::Start(SessionStart {
            path: scene.path.clone(),
            text: scene.text.clone(),
            scripts: self.scripts.texts(),
            reload,
            play,
        }));
        self.end_branch(true);
        self.branch.new_world();
        self.run.new_world();
        self.reobserve();
        self.watches.stop_fills(&mut self.out);
        self.recording
            .reset(self.run.settings().fixed_hz, &mut self.out);
        // A new session: the file holds all of its (no) edits.
        self.scene.watch.saved(Vec::new());
        self.rewind.forget();
        let world = self.run.session.pipeline().world();
        let same = selected.is_some_and(|(id, name)| world.get(id).is_some_and(|o| o.name == name));
        if !same {
            self.selection = None;
        }
        let path = scene.path.clone();
        self.scene.loaded = Some(scene);
        // A breakpoint keeps its object (id and name) or is disabled.
        let file = file::name(&path);
        self.breakpoints
            .check_scene(&mut self.run, &file, &mut self.out);
        let pipeline = self.run.session.pipeline();
        let objects = pipeline.world().len();
        let clock = *pipeline.clock();
        self.out.event(Event::Loaded {
            path,
            objects,
            frame_index: clock.frame_index,
            frame_time: clock.frame_time,
        });
    }

    /// Save (to the scene's own file, in place) or Save As (`to`), of what
    /// the session's edits (as far as the session stands: a rewound future
    /// is not saved) made of its scene, following the rules of `file`:
    /// nothing is written that the user did not mean to write.
    /// What a Save into the scene's own file writes, when this host has
    /// not written that file yet and the save changes it: the edits that go
    /// in (and those it leaves out), an adopted branch's parameters, and the
    /// time settings (the toolbar's) that differ from the file's. `None`
    /// when there is nothing to ask.
    fn review(&mut self) -> Option<SaveRisk> {
        let loaded = self.scene.loaded.as_ref()?;
        if self.scene.written.contains(&loaded.path) {
            return None;
        }
        let all_edits = self.recording.edits();
        let folded = loaded.session.with_edits(all_edits.iter());
        let mut written = folded.scene.clone();
        written.settings.time = self.run.settings();
        if written == loaded.scene {
            return None;
        }
        let adopted = loaded.session.objects != loaded.scene.objects;
        let from = loaded.scene.settings.time;
        let to = self.run.settings();
        let mut settings = Vec::new();
        let mut differ = |setting: &str, a: String, b: String| {
            if a != b {
                settings.push(SettingChange {
                    setting: setting.to_string(),
                    from: a,
                    to: b,
                });
            }
        };
        differ(
            "fixed_hz",
            from.fixed_hz.to_string(),
            to.fixed_hz.to_string(),
        );
        differ(
            "time_scale",
            from.time_scale.to_string(),
            to.time_scale.to_string(),
        );
        differ(
            "max_steps",
            from.max_steps.to_string(),
            to.max_steps.to_string(),
        );
        differ(
            "max_delta",
            from.max_delta.to_string(),
            to.max_delta.to_string(),
        );
        differ(
            "substeps",
            from.substeps.to_string(),
            to.substeps.to_string(),
        );
        differ(
            "strategy",
            format!("{:?}", from.strategy),
            format!("{:?}", to.strategy),
        );
        let (mut edits, mut left_out) = (Vec::new(), Vec::new());
        for (e, placed) in all_edits.iter().zip(&folded.placed) {
            if matches!(e, Edit::Settings(_) | Edit::Reload { .. }) {
                continue;
            }
            if *placed {
                edits.push(self.label(e));
            } else {
                left_out.push(self.label(e));
            }
        }
        Some(SaveRisk::Review {
            edits,
            settings,
            adopted,
            left_out,
        })
    }

    fn save(&mut self, to: Option<&Path>, confirmed: bool) {
        let Some(mut loaded) = self.scene.loaded.clone() else {
            self.out.error(HostError::NoScene);
            return;
        };
        let edits = self.recording.edits();
        let edits: Vec<&stepframe_core::Edit> = edits.iter().collect();
        let settings = self.run.settings();
        let outcome = match to {
            None => file::save(
                &mut loaded,
                &edits,
                settings,
                &self.scene.registry,
                confirmed,
            ),
            Some(path) => {
                // The new file's folder resolves its script paths.
                let registry = self.scene.registry_for(&self.scripts.host, path);
                let saved =
                    file::save_as(&mut loaded, &edits, settings, &registry, path, confirmed);
                if matches!(saved, Ok(SaveOutcome::Written(_))) {
                    self.scene.registry = registry;
                }
                saved
            }
        };
        let scene_edits = watch::scene_edits(self.recording.shown());
        match outcome {
            Ok(SaveOutcome::Written(notes)) => {
                let path = loaded.path.clone();
                self.scene.written.insert(path.clone());
                // The editor's own write is no change to reload, and it
                // holds the session's edits (`watch`).
                self.scene.watch.knows(watch::stamp(&path));
                self.scene.watch.saved(scene_edits);
                self.scene.loaded = Some(loaded);
                self.out.event(Event::Saved(path));
                for note in notes {
                    self.out.notice(Notice::NotSaved(note));
                }
            }
            Ok(SaveOutcome::Unchanged) => {
                self.scene.watch.saved(scene_edits);
                self.out.notice(Notice::NoChangesToSave(loaded.path));
            }
            Ok(SaveOutcome::NeedsConfirmation(reason)) => self.out.event(Event::ConfirmSave {
                path: to.map_or(loaded.path, Path::to_path_buf),
                reason,
                what: if to.is_some() {
                    SaveWhat::SceneAs
                } else {
                    SaveWhat::Scene
                },
            }),
            Err(message) => self.out.error(HostError::Save(message)),
        }
    }
}
