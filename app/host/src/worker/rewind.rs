//! Rewind and undo: everything that moves through the session's rewind
//! history. A past view (the time cursor's tick rebuilt in a scratch
//! pipeline, the live session untouched), "Resume from here" (the live
//! session rewound to the end of a kept tick, suspended there, the future
//! after it dropped), the live session's edits (each a call of the history,
//! so past views and rewinds repeat it), and Edit → Undo and Redo of them.
//!
//! Undo and Redo (Ctrl+Z, Ctrl+Shift+Z) of the editor's edits of objects:
//! pose, velocity, parameters, enabling, duplicate and delete. An undo
//! takes the edit's call out of the history: the session is then bit for bit
//! the one that never had the edit, and so is every past view, rewind and
//! saved session recording. Redo applies it again; any new edit clears what
//! could be redone. When: while suspended, at the tick the edit was made.
//! After that, Undo says which edit it would have undone and how to get
//! there instead (*Resume from here* at the edit's tick); it never
//! re-simulates or throws away ticks on its own. Time-setting changes and
//! script reloads are not undone here: the toolbar and the script file are
//! where they are changed back.

use stepframe_core::{Edit, ObjectId, Pipeline, SceneBehaviour, SceneObject, UndoError};

use super::Worker;
use super::view::{self, Moment};
use crate::protocol::{EditKind, EditLabel, HostError, Notice, RewindCommand, Target, UndoView};

/// Past views asked for.
#[derive(Debug, Default)]
pub(super) struct Rewind {
    /// The newest unanswered past-view request (a burst builds only the last).
    view_request: Option<u64>,
}

impl Rewind {
    /// A new world: no past view of the old one is built.
    pub(super) fn forget(&mut self) {
        self.view_request = None;
    }
}

impl Worker {
    /// A rewind-and-undo command.
    pub(super) fn rewind_command(&mut self, command: RewindCommand) {
        match command {
            RewindCommand::ViewTick(tick) => self.rewind.view_request = Some(tick),
            RewindCommand::RewindTo(tick) => {
                self.rewind(tick);
            }
            RewindCommand::ResumeFrom(tick) => self.resume_from(tick),
            RewindCommand::Undo => self.undo(),
            RewindCommand::Redo => self.redo(),
            RewindCommand::SetBudget(bytes) => self.run.session.set_history_budget(bytes),
        }
    }

    /// Builds the newest requested past tick in a scratch pipeline and
    /// sends its view (or says why it cannot). The live session is not
    /// touched.
    pub(super) fn answer_view_request(&mut self) {
        let Some(tick) = self.rewind.view_request.take() else {
            return;
        };
        let mut scratch = Pipeline::new(self.run.next_settings());
        match self.run.session.replay_into(&mut scratch, tick) {
            Ok(()) => {
                let past = view::world(
                    &scratch,
                    Moment {
                        revision: self.out.next_revision(),
                        at_tick: Some(tick),
                        state_hash: scratch.state_hash(),
                        selection: self.selection,
                        b: self.branch.at(tick),
                        registry: self.scene.registry(),
                    },
                );
                self.out.past(past);
            }
            Err(e) => self.out.error(HostError::PastView {
                tick,
                reason: e.to_string(),
            }),
        }
    }

    /// "Resume from here": rewinds to the end of `tick`, suspended there.
    /// Returns whether it did.
    pub(super) fn rewind(&mut self, tick: u64) -> bool {
        // Branch B followed the future being dropped.
        if self.branch.is_fork() {
            self.end_branch(true);
        }
        self.drain_ticks();
        self.run.drop_inputs();
        let settings_before = self.run.settings();
        let result = if self.at_untouched_start(tick) {
            // Nothing ran since the session began (a scene just opened or a
            // fork just adopted): it already stands at the end of `tick`.
            Ok(())
        } else {
            self.run.session.rewind_to_tick(tick)
        };
        match result {
            Ok(()) => {
                // The replay runs without the tick observer: the hash comes
                // from the pipeline.
                self.run.resync();
                self.branch_rewound(tick);
                self.recording.rewound(tick, &mut self.out);
                self.out.event(crate::protocol::Event::Rewound(tick));
                let dropped: Vec<EditLabel> = self
                    .recording
                    .edits_after(tick)
                    .iter()
                    .map(|e| self.label(e))
                    .collect();
                if !dropped.is_empty() {
                    self.out.notice(Notice::EditsDropped {
                        tick,
                        edits: dropped,
                    });
                }
                // The settings are the tick's too: a change made after it
                // is undone with the rest, and said, not done silently.
                let settings_after = self.run.settings();
                if settings_after != settings_before {
                    self.out.notice(Notice::SettingsBack {
                        tick,
                        from: settings_before,
                        to: settings_after,
                    });
                }
                true
            }
            Err(e) => {
                self.out.error(HostError::Rewind {
                    tick,
                    reason: e.to_string(),
                });
                false
            }
        }
    }

    /// Whether the session stands at the end of `tick` with nothing run
    /// since its history began: the history then holds no keyframe yet (the
    /// first is taken by the first frame), and the state to go back to, or
    /// to fork from, is the session as it is.
    pub(super) fn at_untouched_start(&self, tick: u64) -> bool {
        self.run.session.history().oldest_tick().is_none() && self.run.completed_ticks() == tick
    }

    /// An edit of the live session through the history (so past views and
    /// rewinds repeat it) and into the session recording. Pose, velocity
    /// and parameter edits wait for a suspension: the values they start
    /// from are the committed ones of the tick shown. Returns whether it
    /// applied.
    pub(super) fn apply_live(&mut self, edit: Edit) -> bool {
        let needs_suspension = matches!(
            edit,
            Edit::Pose { .. } | Edit::Velocity { .. } | Edit::Params { .. }
        );
        if needs_suspension && !self.is_suspended() {
            self.out.error(HostError::EditNeedsSuspension);
            return false;
        }
        let refused = |reason: String| HostError::EditRefused {
            target: Target::Live,
            reason,
            script_file: false,
        };
        let prepared = match edit.clone().prepare(self.scene.registry()) {
            Ok(prepared) => prepared,
            Err(e) => {
                self.out.error(refused(e.to_string()));
                return false;
            }
        };
        // The user's edits of objects can be undone while suspended; a
        // settings change is the toolbar's to change back, and an edit made
        // while running (enabling, Duplicate, Delete) is past undoing at the
        // next frame, so it costs the history no snapshot.
        let settings = matches!(edit, Edit::Settings(_));
        let undoable = self.is_suspended() && !settings;
        let applied = if undoable {
            self.run.session.edit_undoable(prepared)
        } else {
            self.run.session.edit(prepared)
        };
        if let Err(e) = applied {
            self.out.error(refused(e.to_string()));
            return false;
        }
        if settings {
            self.run.settings_applied();
        }
        let before = self.run.completed_ticks() + 1;
        self.recording.record_edit_at(before, edit, &mut self.out);
        true
    }

    /// New parameters for behaviour `index` of `object` (the inspector's
    /// Apply parameters), from the next hook call on; the behaviour keeps
    /// its state. The notice that they run comes only when they do.
    pub(super) fn edit_params(&mut self, object: ObjectId, index: usize, params: String) {
        let Some(behaviour) = self
            .run
            .session
            .pipeline()
            .behaviour_states(object)
            .get(index)
            .map(|b| b.name.clone())
        else {
            self.out.error(HostError::NoBehaviour { object, index });
            return;
        };
        let applied = self.apply_live(Edit::Params {
            object,
            index,
            behaviour: behaviour.clone(),
            params: params.clone(),
        });
        if applied {
            self.out.notice(Notice::ParamsApplied {
                target: Target::Live,
                behaviour,
                object: (object, self.name_of(object)),
                params,
                from_tick: self.run.completed_ticks() + 1,
            });
        }
    }

    /// A copy of `object` (no children), as its scene describes it with
    /// the parameters it runs with now, half a metre to its right, with the
    /// next free id: an edit like any other, so past views and rewinds
    /// repeat it.
    pub(super) fn duplicate(&mut self, object: ObjectId) {
        let world = self.run.session.pipeline().world();
        let Some(o) = world.get(object) else {
            self.out.error(HostError::NoObject(object));
            return;
        };
        let id = world.objects().map(|o| o.id.0).max().unwrap_or(0) + 1;
        let mut pose = world.physics_simulation_pose(object).unwrap_or(o.local);
        if o.parent.is_some() {
            pose = o.local;
        }
        pose.x += 0.5;
        let mut copy = SceneObject::new(id, format!("{} copy", o.name), pose);
        copy.parent = o.parent.map(|p| p.0);
        copy.enabled = o.is_enabled();
        copy.body = o.body.as_ref().map(|b| (*b.desc).clone());
        copy.time_group = o.time_group;
        copy.behaviours = o
            .behaviours
            .iter()
            .map(|b| SceneBehaviour::new(b.name.clone(), b.priority, b.params.clone()))
            .collect();
        self.apply_live(Edit::Spawn(Box::new(copy)));
    }

    /// Edit → Undo.
    fn undo(&mut self) {
        if !self.is_suspended() {
            self.out.notice(Notice::UndoNeedsSuspension { redo: false });
            return;
        }
        match self.run.session.undo() {
            Ok(edit) => {
                let before = self.run.completed_ticks() + 1;
                self.recording.forget_edit(before, &edit, &mut self.out);
                self.after_undo_or_redo();
                let edit = self.label(&edit);
                self.out.notice(Notice::Undone { edit, before });
            }
            Err(UndoError::RanOn { edit, made_at, now }) => {
                let edit = self.label(&edit);
                self.out.notice(Notice::UndoRanOn { edit, made_at, now });
            }
            Err(UndoError::NothingToUndo) => {
                let tick = self.run.completed_ticks();
                self.out.notice(Notice::NothingToUndo(tick));
            }
            Err(e) => self.out.error(HostError::Undo(e.to_string())),
        }
    }

    /// Edit → Redo.
    fn redo(&mut self) {
        if !self.is_suspended() {
            self.out.notice(Notice::UndoNeedsSuspension { redo: true });
            return;
        }
        match self.run.session.redo() {
            Ok(edit) => {
                let before = self.run.completed_ticks() + 1;
                self.recording
                    .record_edit_at(before, edit.clone(), &mut self.out);
                self.after_undo_or_redo();
                let edit = self.label(&edit);
                self.out.notice(Notice::Redone { edit, before });
            }
            Err(UndoError::NothingToRedo) => self.out.notice(Notice::NothingToRedo),
            Err(e) => self.out.error(HostError::Undo(e.to_string())),
        }
    }

    /// What the Edit menu shows of the next undo and redo.
    pub(super) fn undo_view(&self) -> UndoView {
        let history = self.run.session.history();
        UndoView {
            undo: history.next_undo().map(|e| self.label(e)),
            redo: history.next_redo().map(|e| self.label(e)),
        }
    }

    /// The state changed without a tick: an undone duplicate that was
    /// selected is gone.
    fn after_undo_or_redo(&mut self) {
        if let Some(id) = self.selection
            && self.run.session.pipeline().world().get(id).is_none()
        {
            self.selection = None;
        }
        self.out.touch();
    }

    /// An object's name now, empty if it is gone.
    fn name_of(&self, object: ObjectId) -> String {
        self.run
            .session
            .pipeline()
            .world()
            .get(object)
            .map_or_else(String::new, |o| o.name.clone())
    }

    /// An edit as the menus and notices name it: what it did, to which
    /// object (a deleted object named as its scene names it, a duplicate
    /// by the copy's name).
    pub(super) fn label(&self, edit: &Edit) -> EditLabel {
        let named = |object: ObjectId| {
            let world = self.run.session.pipeline().world();
            let name = match (world.get(object), edit) {
                (Some(o), _) => o.name.clone(),
                (None, Edit::Spawn(o)) => o.name.clone(),
                (None, _) => self
                    .scene
                    .authored(object)
                    .map_or_else(String::new, |o| o.name.clone()),
            };
            Some((object, name))
        };
        let (kind, object) = match edit {
            Edit::Pose { object, .. } => (EditKind::Pose, named(*object)),
            Edit::Velocity { object, .. } => (EditKind::Velocity, named(*object)),
            Edit::Params {
                object, behaviour, ..
            } => (EditKind::Params(behaviour.clone()), named(*object)),
            Edit::Enabled { object, enabled } => (EditKind::Enabled(*enabled), named(*object)),
            Edit::Spawn(o) => (EditKind::Duplicate, named(ObjectId(o.id))),
            Edit::Remove { object } => (EditKind::Delete, named(*object)),
            Edit::Settings(_) => (EditKind::Settings, None),
            Edit::Reload { resource, .. } => (EditKind::Reload(resource.clone()), None),
        };
        EditLabel { kind, object }
    }
}
