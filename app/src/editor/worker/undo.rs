//! Edit → Undo and Redo (Ctrl+Z, Ctrl+Shift+Z) of the editor's edits of
//! objects: pose, velocity, parameters, enabling, duplicate (and a moved
//! body, which is a pose edit) and delete. Each is a call of the session's
//! history, and an undo takes that call out of it
//! ([`stepframe_core::Session::undo`]): the session is then bit for bit the
//! one that never had the edit, and so is every past view, rewind and saved
//! session recording (the recording loses the edit too). Redo applies it
//! again; any new edit clears what could be redone.
//!
//! When: while suspended, at the tick the edit was made (before the session
//! ran on: a step, a resume, a rewind). After that, Undo says which edit it
//! would have undone and how to get there instead: *Resume from here* at
//! the edit's tick lands before the edit, and the future run from there
//! leaves it out. Undo never re-simulates or throws away ticks on its own:
//! a key pressed by habit must not cost the user a suspension they reached
//! with care (the core module's docs give the reasoning). Time-setting
//! changes and script reloads are not undone here: the toolbar and the
//! script file are where they are changed back.

use stepframe_core::{Edit, UndoError};

use super::Worker;
use crate::editor::protocol::{Event, UndoView};

impl Worker {
    /// Edit → Undo.
    pub(super) fn undo(&mut self) {
        if !self.is_suspended() {
            self.send_event(Event::Notice(
                "Undo works while suspended: pause (or stop at a breakpoint) first".to_string(),
            ));
            return;
        }
        match self.session.undo() {
            Ok(edit) => {
                let before = self.session.pipeline().stepper().completed_ticks() + 1;
                self.forget_recorded(before, &edit);
                self.unqueue(&edit);
                self.after_undo_or_redo();
                let what = self.describe(&edit);
                self.send_event(Event::Done(format!(
                    "undid {what} (before tick {before}): gone from the history, as if never \
                     made; Ctrl+Shift+Z redoes it"
                )));
            }
            Err(UndoError::RanOn { edit, made_at, now }) => {
                let what = self.describe(&edit);
                self.send_event(Event::Notice(format!(
                    "nothing undone: the last edit ({what}) was made at tick {made_at} and the \
                     session has run on to tick {now}. Undo works at the tick of an edit; to go \
                     back before it, resume from tick {made_at} (the timeline), where the \
                     future runs without it"
                )));
            }
            Err(UndoError::NothingToUndo) => {
                let tick = self.session.pipeline().stepper().completed_ticks();
                self.send_event(Event::Notice(format!(
                    "nothing to undo at tick {tick}: no edit was made here since the session \
                     last ran"
                )));
            }
            Err(e) => self.error(format!("undo: {e}")),
        }
    }

    /// Edit → Redo.
    pub(super) fn redo(&mut self) {
        if !self.is_suspended() {
            self.send_event(Event::Notice(
                "Redo works while suspended: pause (or stop at a breakpoint) first".to_string(),
            ));
            return;
        }
        match self.session.redo() {
            Ok(edit) => {
                self.queue(&edit);
                self.record_edit(edit.clone());
                self.after_undo_or_redo();
                let what = self.describe(&edit);
                let before = self.session.pipeline().stepper().completed_ticks() + 1;
                self.send_event(Event::Done(format!("redid {what} (before tick {before})")));
            }
            Err(UndoError::NothingToRedo) => self.send_event(Event::Notice(
                "nothing to redo: no edit was undone here since the last new edit".to_string(),
            )),
            Err(e) => self.error(format!("redo: {e}")),
        }
    }

    /// What the Edit menu shows of the next undo and redo.
    pub(super) fn undo_view(&self) -> UndoView {
        UndoView {
            undo: self.session.history().next_undo().map(|e| self.describe(e)),
            redo: self.session.history().next_redo().map(|e| self.describe(e)),
        }
    }

    /// An undone edit leaves the session recording too (a saved session
    /// replays the history's log, not the edits made and taken back).
    fn forget_recorded(&mut self, before: u64, edit: &Edit) {
        self.settle_branch();
        if self.tape.edits_at(before).iter().any(|e| e.edit == *edit) {
            std::sync::Arc::make_mut(&mut self.tape).remove_edit(before, edit);
        }
    }

    /// What the session shows after the state changed without a tick (the
    /// view's hash stays the last tick's, as after any edit).
    fn after_undo_or_redo(&mut self) {
        if let Some(id) = self.selected
            && self.session.pipeline().world().get(id).is_none()
        {
            // The undone duplicate was selected.
            self.selected = None;
        }
        self.dirty = true;
    }

    /// An edit in words: "pose of Ball (#1)", "deletion of Ball (#3)".
    fn describe(&self, edit: &Edit) -> String {
        // A deleted object is named as its scene names it.
        let authored = |object: stepframe_core::ObjectId| {
            let o = self.scene.as_ref()?.session.find(object.0)?;
            Some(format!("{} ({object})", o.name))
        };
        let label = |object| match (self.session.pipeline().world().get(object), edit) {
            (Some(_), _) => self.object_label(object),
            (None, Edit::Spawn(o)) => format!("{} ({object})", o.name),
            (None, _) => authored(object).unwrap_or_else(|| object.to_string()),
        };
        match edit {
            Edit::Pose { object, .. } => format!("pose of {}", label(*object)),
            Edit::Velocity { object, .. } => format!("velocity of {}", label(*object)),
            Edit::Params {
                object, behaviour, ..
            } => format!("{behaviour} parameters of {}", label(*object)),
            Edit::Enabled {
                object,
                enabled: true,
            } => format!("enabling {}", label(*object)),
            Edit::Enabled {
                object,
                enabled: false,
            } => format!("disabling {}", label(*object)),
            Edit::Spawn(o) => format!("duplicate {}", label(stepframe_core::ObjectId(o.id))),
            Edit::Remove { object } => format!("deletion of {}", label(*object)),
            Edit::Settings(_) => "time settings".to_string(),
            Edit::Reload { resource, .. } => format!("reload of {resource}"),
        }
    }
}
