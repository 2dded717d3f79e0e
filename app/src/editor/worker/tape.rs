//! The worker's side of the input tape and the session recording: what
//! every tick of the current branch received (recorded from the tick
//! observer) and every edit made from the editor, each stamped with the tick
//! it applies before (File → Save session recording writes both), and
//! "Resume from here" with an edited tape: rewind to the end of the tick
//! before the first edit, then install the tape in the rewind history, so the
//! edges replay at their ticks in this run and in every later rewind or past
//! view. Live input typed after that is merged in, as it would be without a
//! tape; "Stop tape" goes back to live input only.

use std::sync::Arc;

use stepframe_core::{Edit, Recording, Replay};

use super::Worker;
use crate::editor::protocol::Event;

impl Worker {
    /// Takes in the ticks the observer reported: the hash of the last, and
    /// the input of each into the recorded tape. The tape is shared with the
    /// views sent so far: it is copied only when a tick brings input.
    pub(super) fn drain_ticks(&mut self) {
        self.settle_branch();
        while let Ok(news) = self.ticks.try_recv() {
            self.state_hash = news.hash;
            if let Some(d) = news.divergence {
                self.divergences.push(d);
            }
            self.fork_takes(news.tick, &news.inputs, news.traced);
            if !news.inputs.is_empty() {
                Arc::make_mut(&mut self.tape).record_tick(news.tick, &news.inputs);
            }
        }
    }

    /// Records an edit the history just applied, stamped with the tick it
    /// applies before (the session stands at the end of the tick before).
    pub(super) fn record_edit(&mut self, edit: Edit) {
        let before = self.session.pipeline().stepper().completed_ticks() + 1;
        self.record_edit_at(before, edit);
    }

    /// Records an edit that applies before tick `before`.
    pub(super) fn record_edit_at(&mut self, before: u64, edit: Edit) {
        self.settle_branch();
        Arc::make_mut(&mut self.tape).record_edit(before, edit);
        self.dirty = true;
    }

    /// A settings change that took effect in the call just made is an edit
    /// of the session recording, stamped with the first tick it ran:
    /// settings apply at a frame boundary, before any tick of the frame,
    /// so that is the tick after the ticks before the call.
    pub(super) fn record_settings_change(&mut self, ticks_of_call: u32) {
        let now = *self.session.pipeline().settings();
        if now == self.settings_in_force {
            return;
        }
        self.settings_in_force = now;
        let completed = self.session.pipeline().stepper().completed_ticks();
        let first = completed.saturating_sub(u64::from(ticks_of_call)) + 1;
        self.record_edit_at(first, Edit::Settings(now));
    }

    /// After a rewind the recording keeps the rewound branch until the
    /// session runs on (another rewind may go forward again, as the history
    /// does); the first call that makes a new branch cuts it at the tick
    /// rewound to.
    pub(super) fn settle_branch(&mut self) {
        let Some(tick) = self.rewound_to else {
            return;
        };
        if self.session.history().rewound() {
            return;
        }
        self.rewound_to = None;
        self.rewound_tape = None;
        if self.tape.events.last().is_some_and(|e| e.tick > tick)
            || self.tape.ticks > tick
            || self.tape.edits.last().is_some_and(|e| e.tick > tick)
        {
            Arc::make_mut(&mut self.tape).truncate_after(tick);
        }
    }

    /// The session's recording as far as the session stands: after a rewind
    /// that no call has branched from yet, the ticks up to the rewound one.
    pub(super) fn shown_tape(&mut self) -> Arc<Recording> {
        let Some(tick) = self.rewound_to else {
            return self.tape.clone();
        };
        if let Some(cut) = &self.rewound_tape
            && cut.0 == tick
        {
            return cut.1.clone();
        }
        let mut cut = (*self.tape).clone();
        cut.truncate_after(tick);
        let cut = Arc::new(cut);
        self.rewound_tape = Some((tick, cut.clone()));
        cut
    }

    /// Edits of the recording made after the end of `tick`: what a new
    /// future from there leaves out.
    pub(super) fn edits_after(&self, tick: u64) -> usize {
        self.tape.edits.iter().filter(|e| e.tick > tick).count()
    }

    /// A new session: nothing recorded, no tape in force, at this tick rate.
    pub(super) fn reset_tape(&mut self) {
        self.tape = Arc::new(Recording::new(self.settings().fixed_hz));
        self.rewound_to = None;
        self.rewound_tape = None;
        self.settings_in_force = *self.session.pipeline().settings();
        self.session.set_tape(None);
    }

    /// "Resume from here" with an edited tape: rewinds to the end of `from`
    /// and replays `tape` from tick `from + 1` on. The session stays
    /// suspended there, as after any rewind.
    pub(super) fn apply_tape(&mut self, mut tape: Recording, from: u64) {
        if !self.rewind(from) {
            return;
        }
        // The history repeats the session's edits itself: the tape installed
        // is input only.
        tape.edits.clear();
        if tape.fixed_hz != self.settings().fixed_hz {
            self.send_event(Event::Notice(format!(
                "the tape's ticks were counted at {} Hz; the session ticks at {} Hz, so its \
                 edges reach the same tick numbers at other times",
                tape.fixed_hz,
                self.settings().fixed_hz
            )));
        }
        let edges = tape.events.iter().filter(|e| e.tick > from).count();
        self.session.set_tape(Some(Replay::new(tape)));
        self.send_event(Event::Notice(format!(
            "input tape in force: {edges} {} from tick {}",
            if edges == 1 {
                "edge replays"
            } else {
                "edges replay"
            },
            from + 1
        )));
    }

    /// The tape the session plays: what the ticks up to now received, then
    /// the edges still to come of a tape in force.
    pub(super) fn playing_tape(&mut self) -> Recording {
        let live = self.session.pipeline().stepper().completed_ticks();
        let mut tape = (*self.shown_tape()).clone();
        tape.truncate_after(live);
        tape.ticks = live;
        if let Some(in_force) = self.session.history().tape() {
            for e in in_force.recording().events.iter().filter(|e| e.tick > live) {
                tape.insert(e.clone());
            }
        }
        tape
    }

    /// "Resume from here" at `tick` (the timeline's, Enter): with the edited
    /// tape if it changes something, from the end of the tick before its
    /// first change or `tick`, whichever is earlier; else a plain rewind.
    pub(super) fn resume_from(&mut self, tick: u64) {
        let playing = self.playing_tape();
        let from = self.tape_draft.as_ref().and_then(|draft| {
            let first = draft.first_difference(&playing)?;
            Some(tick.min(first - 1))
        });
        match (from, self.tape_draft.take()) {
            (Some(from), Some(draft)) => self.apply_tape((*draft).clone(), from),
            (_, draft) => {
                self.tape_draft = draft;
                self.rewind(tick);
            }
        }
    }

    /// Live input only from here on.
    pub(super) fn stop_tape(&mut self) {
        if self.session.history().tape().is_some() {
            self.session.set_tape(None);
            self.send_event(Event::Notice(
                "input tape stopped: live input only from here".to_string(),
            ));
        }
    }
}
