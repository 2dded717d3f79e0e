//! The worker's scene files: Open, Reload, Save and Save As, applied to the
//! session it owns (the rules of what may be written are in
//! [`crate::editor::session`]).

use std::path::Path;
use std::sync::Arc;

use super::Worker;
use crate::editor::panels::count;
use crate::editor::protocol::{Event, SaveWhat};
use crate::editor::scene_file::{self, LoadedScene, SaveOutcome};

impl Worker {
    pub(super) fn load(&mut self, path: &Path, play: bool) {
        // Hits so far are labelled in the world they happened in.
        self.book.take(&self.pipeline);
        let registry = self.registry_for_scene(path);
        match scene_file::open(&mut self.pipeline, &registry, path) {
            Ok((scene, _settings)) => {
                self.registry = registry;
                self.after_new_session(scene, path);
                if !play {
                    // The preview: the world at tick 0, poses shown, nothing run.
                    self.pipeline.pause();
                }
            }
            Err(message) => self.error(message),
        }
    }

    pub(super) fn reload(&mut self) {
        let Some(path) = self.scene.as_ref().map(|s| s.path.clone()) else {
            self.error("no scene to reload".to_string());
            return;
        };
        let was_suspended = self.is_suspended();
        self.book.take(&self.pipeline);
        match scene_file::reload(&mut self.pipeline, &self.registry, &path) {
            Ok(scene) => {
                self.after_new_session(scene, &path);
                if was_suspended {
                    self.pipeline.pause();
                }
            }
            Err(message) => self.error(message),
        }
    }

    fn after_new_session(&mut self, scene: LoadedScene, path: &Path) {
        self.install_observer();
        self.discard_fork(true);
        while self.ticks.try_recv().is_ok() {}
        self.history.clear();
        self.stop_fills();
        self.reset_tape();
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
            && self.pipeline.world().get(id).is_none()
        {
            self.selected = None;
        }
        self.scene = Some(Arc::new(scene));
        // A breakpoint keeps its object (id and name) or is disabled.
        let file = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        for notice in self.book.check_scene(&mut self.pipeline, &file) {
            self.send_event(Event::Notice(notice));
        }
        // A new session is at tick 0 between frames: its first recovery point.
        self.send_recovery_point();
        let objects = self.pipeline.world().len();
        let clock = *self.pipeline.clock();
        self.send_event(Event::Loaded {
            path: path.to_path_buf(),
            objects,
            frame_index: clock.frame_index,
            frame_time: clock.frame_time,
        });
    }

    /// Save (to the scene's own file) or Save As (`to`), following the rules
    /// of [`session`]: nothing is written that the user did not mean to write.
    pub(super) fn save(&mut self, to: Option<&Path>, confirmed: bool) {
        let Some(loaded) = self.scene.as_ref() else {
            self.error("no scene to save".to_string());
            return;
        };
        let mut loaded = LoadedScene::clone(loaded);
        let outcome = match to {
            None => scene_file::save(&mut loaded, self.settings(), confirmed),
            Some(path) => scene_file::save_as(&mut loaded, self.settings(), path, confirmed),
        };
        match outcome {
            Ok(SaveOutcome::Written) => {
                let path = loaded.path.clone();
                // Recovery points share the old scene; the session's is new.
                self.scene = Some(Arc::new(loaded));
                self.send_event(Event::Saved(path));
            }
            Ok(SaveOutcome::Unchanged) => self.send_event(Event::Notice(format!(
                "no changes to save: {} already holds the running scene",
                loaded.path.display()
            ))),
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
            .max(self.pipeline.stepper().completed_ticks());
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
