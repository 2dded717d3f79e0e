//! The worker's scene files: Open, Reload, Save and Save As, applied to the
//! session it owns (the rules of what may be written are in
//! [`crate::editor::session`]).

use std::path::Path;
use std::sync::Arc;

use super::{Worker, scene_watch};
use crate::editor::protocol::{Event, SaveWhat};
use crate::editor::scene_file::{self, LoadedScene, SaveOutcome};
use crate::editor::words::count;

impl Worker {
    pub(super) fn load(&mut self, path: &Path, play: bool) {
        // Hits so far are labelled in the world they happened in.
        self.book.take(self.session.pipeline());
        let registry = self.registry_for_scene(path);
        // Taken before the read: a change after it is news (`scene_watch`).
        let stamp = scene_watch::stamp(path);
        match scene_file::open(&mut self.session, &registry, path) {
            Ok((scene, _settings)) => {
                self.registry = registry;
                self.scene_watch.knows(stamp);
                self.after_new_session(scene, path);
                if !play {
                    // The preview: the world at tick 0, poses shown, nothing run.
                    self.session.pause();
                }
            }
            Err(message) => self.error(message),
        }
    }

    /// Ctrl+R: the scene's file read again, keeping the time settings.
    pub(super) fn reload(&mut self) {
        let Some(path) = self.scene.as_ref().map(|s| s.path.clone()) else {
            self.error("no scene to reload".to_string());
            return;
        };
        if let Err(message) = self.reload_scene(&path) {
            self.error(message);
        }
    }

    /// Reloads the session from `path`, keeping the time settings in force
    /// and a pause (Ctrl+R and auto-reload alike). A file that does not load
    /// changes nothing and returns its error (`file:line:column: what`).
    pub(super) fn reload_scene(&mut self, path: &Path) -> Result<(), String> {
        let was_suspended = self.is_suspended();
        self.book.take(self.session.pipeline());
        let stamp = scene_watch::stamp(path);
        let scene = scene_file::reload(&mut self.session, &self.registry, path)?;
        self.scene_watch.knows(stamp);
        self.after_new_session(scene, path);
        if was_suspended {
            self.session.pause();
        }
        // Auto-reload runs outside any command: the new world is news.
        self.dirty = true;
        Ok(())
    }

    fn after_new_session(&mut self, scene: LoadedScene, path: &Path) {
        self.install_observer();
        self.discard_fork(true);
        while self.ticks.try_recv().is_ok() {}
        self.stop_fills();
        self.reset_tape();
        // A new session: the file holds all of its (no) edits.
        self.scene_watch.saved(Vec::new());
        self.view_request = None;
        self.viewing = None;
        // A draft tape belongs to the session it was edited in; a
        // comparison measures the new world from its first tick.
        self.tape_draft = None;
        if let Some(b) = self.run_b.as_mut() {
            b.first = None;
        }
        self.pending_inputs.clear();
        self.state_hash = 0;
        self.pending_edits.clear();
        if let Some(id) = self.selected
            && self.session.pipeline().world().get(id).is_none()
        {
            self.selected = None;
        }
        self.scene = Some(Arc::new(scene));
        // A breakpoint keeps its object (id and name) or is disabled.
        let file = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        for notice in self.book.check_scene(&mut self.session, &file) {
            self.send_event(Event::Notice(notice));
        }
        // A new session is at tick 0 between frames: its first recovery point.
        self.send_recovery_point();
        let objects = self.session.pipeline().world().len();
        let clock = *self.session.pipeline().clock();
        self.send_event(Event::Loaded {
            path: path.to_path_buf(),
            objects,
            frame_index: clock.frame_index,
            frame_time: clock.frame_time,
        });
    }

    /// Save (to the scene's own file, in place) or Save As (`to`), of what
    /// the session's edits (as far as the session stands: a rewound future
    /// is not saved) made of its scene, following the rules of
    /// [`scene_file`]: nothing is written that the user did not mean to
    /// write.
    pub(super) fn save(&mut self, to: Option<&Path>, confirmed: bool) {
        let Some(loaded) = self.scene.as_ref() else {
            self.error("no scene to save".to_string());
            return;
        };
        let mut loaded = LoadedScene::clone(loaded);
        let tape = self.shown_tape();
        let edits: Vec<&stepframe_core::Edit> = tape.edits.iter().map(|e| &e.edit).collect();
        let outcome = match to {
            None => scene_file::save(
                &mut loaded,
                &edits,
                self.settings(),
                &self.registry,
                confirmed,
            ),
            Some(path) => {
                // The new file's folder resolves its script paths.
                let registry = self.registry_for_scene(path);
                let saved = scene_file::save_as(
                    &mut loaded,
                    &edits,
                    self.settings(),
                    &registry,
                    path,
                    confirmed,
                );
                if matches!(saved, Ok(SaveOutcome::Written(_))) {
                    self.registry = registry;
                }
                saved
            }
        };
        match outcome {
            Ok(SaveOutcome::Written(notes)) => {
                let path = loaded.path.clone();
                // The editor's own write is no change to reload, and it
                // holds the session's edits (`scene_watch`).
                self.scene_watch.knows(scene_watch::stamp(&path));
                self.scene_watch.saved(scene_watch::scene_edits(&tape));
                // Recovery points share the old scene; the session's is new.
                self.scene = Some(Arc::new(loaded));
                self.send_event(Event::Saved(path));
                for note in notes {
                    self.send_event(Event::Notice(note));
                }
            }
            Ok(SaveOutcome::Unchanged) => {
                self.scene_watch.saved(scene_watch::scene_edits(&tape));
                self.send_event(Event::Notice(format!(
                    "no changes to save: {} already holds the running scene",
                    loaded.path.display()
                )))
            }
            Ok(SaveOutcome::NeedsConfirmation(reason)) => self.send_event(Event::ConfirmSave {
                path: to.map_or(loaded.path, Path::to_path_buf),
                reason,
                what: if to.is_some() {
                    SaveWhat::SceneAs
                } else {
                    SaveWhat::Scene
                },
            }),
            Err(message) => self.error(message),
        }
    }

    /// File → Save session recording (see [`crate::editor::protocol::Command::SaveRecording`]):
    /// the recording of the session as it stands, written atomically, so a
    /// crash leaves the old file or the new one. An existing file is
    /// replaced only once the user said so.
    pub(super) fn save_recording(&mut self, path: &Path, overwrite: bool) {
        if path.exists() && !overwrite {
            self.send_event(Event::ConfirmSave {
                path: path.to_path_buf(),
                reason: format!(
                    "{} exists: replace it with this session's recording?",
                    path.display()
                ),
                what: SaveWhat::Recording,
            });
            return;
        }
        let mut recording = (*self.shown_tape()).clone();
        recording.ticks = recording
            .ticks
            .max(self.session.pipeline().stepper().completed_ticks());
        match recording.save(path) {
            Ok(()) => self.send_event(Event::Done(format!(
                "saved the session recording to {}: {} and {} over {} \
                 (stepframe play <scene> --input {} replays it)",
                path.display(),
                count(recording.events.len() as u64, "input edge", "input edges"),
                count(recording.edits.len() as u64, "edit", "edits"),
                count(recording.ticks, "tick", "ticks"),
                path.display()
            ))),
            Err(e) => self.error(format!("session recording not saved: {e}")),
        }
    }
}
