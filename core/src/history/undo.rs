//! Undo and redo of edits: an undone edit is gone from the log, so no past
//! view, rewind or saved session replays it.
//!
//! # Why not an inverse edit
//!
//! Undoing "lift ball 10 to y = 8" by logging a second edit that puts it
//! back at y = 1 leaves the lift in the log: a past view of a later tick
//! replays both, a session recording carries both, and rapier's state after
//! two teleports is not the state after none (a body woken, contact
//! caches invalidated). The user asked for the edit not to have happened,
//! so [`Session::undo`] takes its call out of the log and puts the session
//! back, bit for bit, in the state it had without it.
//!
//! # The stand
//!
//! An edit can be undone while the session still stands where it was made:
//! from the first call after one that ran hooks (a frame, a resume, a
//! single tick, a frame step), a rewind or a new session, until the next
//! such call. Inside a stand nothing runs: the calls there (edits, pauses,
//! time settings, a tape) only change state between two ticks. So the
//! stand's first undoable edit ([`Session::edit_undoable`]) snapshots the
//! session just before it (the *base*: one per stand, whatever the number of
//! edits; `Pipeline::snapshot` of demo.ron costs ~0.35 ms and ~300 KiB,
//! measured for the editor's recovery points), and an undo:
//!
//! 1. removes the newest undoable edit's call from the log,
//! 2. restores the base, keeping the suspension (no call ran since it),
//! 3. replays the stand's other calls after the base, in order, with the
//!    same `replay` arm a live call and a rewind use.
//!
//! Worked example: paused at the end of tick 200, the user lifts ball 10
//! (call 412, the base is taken before it), changes the fixed rate (call
//! 413) and disables ball 14 (call 414). Undo removes call 414, restores
//! the base and replays 412 and 413; Undo again removes 412 and replays
//! 413: the session is the one that only had the rate change, hash for
//! hash. [`Session::redo`] applies the newest undone edit again as a new
//! call at the end of the stand; any other new edit clears the redo stack.
//!
//! # After the session ran on
//!
//! Once a call has run hooks after the edit, [`Session::undo`] refuses it
//! ([`UndoError::RanOn`], naming the edit and its tick) and the stand's
//! undo and redo stacks go. Undoing it then could only mean one of two
//! things, both what a rewind does, and neither something a key press
//! should do unasked: re-simulating the ticks since without it (a different
//! future, run with live input the user gave the old one, with breakpoints
//! that may now fire elsewhere), or throwing those ticks away. "Resume from
//! here" at the edit's tick lands before the edit (a rewind stops at the
//! end of the tick, before the edits made there), and the future run from
//! there leaves it out: the same result, asked for explicitly. So Ctrl+Z
//! never discards simulated time.

use super::*;
use crate::edit::Edit;

/// Why an undo or a redo did nothing (the session is unchanged).
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    /// No undoable edit was made where the session stands.
    #[error("nothing to undo here: no edit was made at this tick since the session last ran")]
    NothingToUndo,
    /// No edit was undone since the last new edit or the last call that ran.
    #[error("nothing to redo")]
    NothingToRedo,
    /// The newest edit was made before the session ran on (module docs:
    /// undo works at the tick of the edit).
    #[error(
        "the last edit was made at the end of tick {made_at} and the session has run on to \
         tick {now}: undo works at the tick of an edit (resume from tick {made_at} to go back \
         before it)"
    )]
    RanOn {
        /// The edit.
        edit: Box<Edit>,
        /// Completed ticks when it was made (it applied before tick `made_at + 1`).
        made_at: u64,
        /// Completed ticks now.
        now: u64,
    },
    /// A redone edit did not apply again.
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// The undo state of the stand the session is at (module docs).
#[derive(Debug, Default)]
pub(super) struct Undo {
    /// The session just before the stand's first undoable edit.
    base: Option<Base>,
    /// Log indices (since the session began) of the stand's undoable edits,
    /// oldest first.
    done: Vec<u64>,
    /// Undone edits; the last is the next redo.
    undone: Vec<PreparedEdit>,
    /// The newest undoable edit of an earlier stand and the completed ticks
    /// it was made at: what a refused undo names.
    ran_past: Option<(Edit, u64)>,
}

/// A stand's base.
#[derive(Debug)]
struct Base {
    /// Log index (since the session began) of the stand's first undoable edit.
    call: u64,
    /// Completed ticks at the stand.
    tick: u64,
    /// The session just before that edit.
    snapshot: Snapshot,
}

impl Undo {
    /// Bytes held: the base snapshot and the undone edits.
    pub(super) fn bytes(&self) -> usize {
        self.base.as_ref().map_or(0, |b| b.snapshot.memory_bytes())
            + self.undone.len() * size_of::<PreparedEdit>()
    }

    /// A new edit: what was undone cannot be redone any more.
    pub(super) fn forget_redo(&mut self) {
        self.undone.clear();
    }
}

impl History {
    /// [`Session::edit_undoable`] on the session's pipeline `p`.
    pub(super) fn edit_undoable(
        &mut self,
        p: &mut Pipeline,
        edit: PreparedEdit,
    ) -> Result<(), EditError> {
        let snapshot = self.undo.base.is_none().then(|| p.snapshot());
        self.edit(p, edit)?;
        self.push_done(p, snapshot);
        Ok(())
    }

    /// [`Session::undo`] on the session's pipeline `p`.
    pub(super) fn undo(&mut self, p: &mut Pipeline) -> Result<Edit, UndoError> {
        let now = p.stepper().completed_ticks();
        let (Some(&index), Some(base_call)) = (
            self.undo.done.last(),
            self.undo.base.as_ref().map(|b| b.call),
        ) else {
            return Err(match &self.undo.ran_past {
                Some((edit, made_at)) => UndoError::RanOn {
                    edit: Box::new(edit.clone()),
                    made_at: *made_at,
                    now,
                },
                None => UndoError::NothingToUndo,
            });
        };
        if base_call < self.first_call {
            // The budget dropped the stand's calls (it keeps at least one
            // keyframe before them, so this is not expected).
            self.undo = Undo::default();
            return Err(UndoError::NothingToUndo);
        }
        let i = (index - self.first_call) as usize;
        let bytes = match self.calls.get(i) {
            Some(
                logged @ Logged {
                    call: Call::Edit(_),
                    ..
                },
            ) => logged.bytes(),
            // Only edits are pushed on the undo stack: not expected.
            _ => {
                self.undo = Undo::default();
                return Err(UndoError::NothingToUndo);
            }
        };
        let Some(Logged {
            call: Call::Edit(edit),
            debugger,
            ..
        }) = self.calls.remove(i)
        else {
            self.undo = Undo::default();
            return Err(UndoError::NothingToUndo);
        };
        self.undo.done.pop();
        self.call_bytes -= bytes;
        // The log records a debugger with the call it changed at: the call
        // after the removed one (or the next one logged) carries it now.
        if let Some(debugger) = debugger {
            match self.calls.get_mut(i) {
                Some(next) if next.debugger.is_none() => next.debugger = Some(debugger),
                Some(_) => {}
                None => self.last_debugger = None,
            }
        }
        for k in &mut self.keyframes {
            if k.call > index {
                k.call -= 1;
            }
        }
        if let Some(base) = &self.undo.base {
            p.restore_at_suspension(&base.snapshot);
        }
        let start = (base_call - self.first_call) as usize;
        for logged in self.calls.iter().skip(start) {
            replay(p, &logged.call);
        }
        self.position = self.calls.len();
        self.latest_tick = now;
        let data = edit.edit().clone();
        self.undo.undone.push(*edit);
        Ok(data)
    }

    /// [`Session::redo`] on the session's pipeline `p`.
    pub(super) fn redo(&mut self, p: &mut Pipeline) -> Result<Edit, UndoError> {
        let Some(edit) = self.undo.undone.pop() else {
            return Err(UndoError::NothingToRedo);
        };
        let data = edit.edit().clone();
        let snapshot = self.undo.base.is_none().then(|| p.snapshot());
        self.log_edit(p, edit)?;
        self.push_done(p, snapshot);
        Ok(data)
    }

    /// The edit [`Session::undo`] would take out now, if any.
    pub fn next_undo(&self) -> Option<&Edit> {
        let index = *self.undo.done.last()?;
        let i = usize::try_from(index.checked_sub(self.first_call)?).ok()?;
        match &self.calls.get(i)?.call {
            Call::Edit(edit) => Some(edit.edit()),
            _ => None,
        }
    }

    /// The edit [`Session::redo`] would apply again now, if any.
    pub fn next_redo(&self) -> Option<&Edit> {
        self.undo.undone.last().map(PreparedEdit::edit)
    }

    /// The edit just logged is the stand's newest undoable one; `snapshot`
    /// (the session before it) is the stand's base if it has none yet.
    fn push_done(&mut self, p: &Pipeline, snapshot: Option<Snapshot>) {
        let Some(call) = (self.first_call + self.calls.len() as u64).checked_sub(1) else {
            return;
        };
        if let Some(snapshot) = snapshot
            && self.undo.base.is_none()
        {
            self.undo.base = Some(Base {
                call,
                tick: p.stepper().completed_ticks(),
                snapshot,
            });
        }
        self.undo.done.push(call);
    }

    /// A call that runs hooks ends the stand (module docs): its edits can
    /// no longer be undone, and the newest is kept to name in a refusal.
    pub(super) fn end_stand(&mut self) {
        let newest = self.next_undo().cloned();
        let tick = self.undo.base.as_ref().map(|b| b.tick);
        if let (Some(edit), Some(tick)) = (newest, tick) {
            self.undo.ran_past = Some((edit, tick));
        }
        let ran_past = self.undo.ran_past.take();
        self.undo = Undo {
            ran_past,
            ..Undo::default()
        };
    }

    /// A rewind: the session stands somewhere else; nothing there was
    /// edited yet.
    pub(super) fn forget_undo(&mut self) {
        self.undo = Undo::default();
    }
}
