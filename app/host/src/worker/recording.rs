//! The session recording and the input tape: what every tick of the current
//! branch received (from the tick observer) and every edit made from the
//! editor, each stamped with the tick it applies before (File → Save
//! session recording writes both, and `stepframe play --input` replays
//! them); "Resume from here" with an edited tape: rewind to the end of the
//! tick before the first edit, then install the tape in the rewind history,
//! so its edges replay at their ticks in this run and in every later rewind
//! or past view. Live input typed after that is merged in, as it would be
//! without a tape; "Stop tape" goes back to live input only.
//!
//! The front end keeps a copy of the recording, kept current by
//! [`RecordingChange`]s: ticks and edits as they happen, and the whole
//! recording again after a rewind or a new session.

use std::path::Path;

use stepframe_core::{Edit, InputEvent, Recording, Replay};

use super::Worker;
use super::outbox::Outbox;
use crate::protocol::{
    Event, HostError, Notice, RecordingChange, RecordingCommand, SaveRisk, SaveWhat,
};

/// The session recording (module docs).
#[derive(Debug)]
pub(super) struct SessionRecording {
    /// What every tick of the session's branch received and every edit made.
    tape: Recording,
    /// The tick a rewind left the session at, until a call branches from
    /// it: `tape` still holds the rewound branch (another rewind may go
    /// forward again, as the history does).
    rewound_to: Option<u64>,
    /// `tape` cut at `rewound_to`, made once.
    rewound: Option<Recording>,
    /// The Input tab's edited tape, until Resume from here replays it.
    draft: Option<Recording>,
    /// Ticks with input since the last send.
    new_ticks: Vec<(u64, Vec<InputEvent>)>,
}

impl SessionRecording {
    /// An empty recording at `fixed_hz`.
    pub(super) fn new(fixed_hz: u32) -> SessionRecording {
        SessionRecording {
            tape: Recording::new(fixed_hz),
            rewound_to: None,
            rewound: None,
            draft: None,
            new_ticks: Vec::new(),
        }
    }

    /// The recording as far as the session stands: after a rewind that no
    /// call has branched from yet, the ticks up to the rewound one.
    pub(super) fn shown(&mut self) -> &Recording {
        let Some(tick) = self.rewound_to else {
            return &self.tape;
        };
        self.rewound.get_or_insert_with(|| {
            let mut cut = self.tape.clone();
            cut.truncate_after(tick);
            cut
        })
    }

    /// A tick received input.
    pub(super) fn record_tick(&mut self, tick: u64, inputs: &[InputEvent]) {
        self.tape.record_tick(tick, inputs);
        self.new_ticks.push((tick, inputs.to_vec()));
    }

    /// Sends the ticks with input recorded since the last send.
    pub(super) fn send_ticks(&mut self, out: &mut Outbox) {
        if !self.new_ticks.is_empty() {
            let ticks = std::mem::take(&mut self.new_ticks);
            out.event(Event::Recording(RecordingChange::Ticks(ticks)));
        }
    }

    /// Records an edit that applies before tick `before`.
    pub(super) fn record_edit_at(&mut self, before: u64, edit: Edit, out: &mut Outbox) {
        self.send_ticks(out);
        let recorded = stepframe_core::RecordedEdit { tick: before, edit };
        self.tape.record_edit(before, recorded.edit.clone());
        out.event(Event::Recording(RecordingChange::Edit(recorded)));
    }

    /// An undone edit leaves the recording too (a saved session replays
    /// the history's log, not the edits made and taken back).
    pub(super) fn forget_edit(&mut self, before: u64, edit: &Edit, out: &mut Outbox) {
        if self.tape.edits_at(before).iter().any(|e| e.edit == *edit) {
            self.tape.remove_edit(before, edit);
            out.event(Event::Recording(RecordingChange::Unedit(
                stepframe_core::RecordedEdit {
                    tick: before,
                    edit: edit.clone(),
                },
            )));
        }
    }

    /// The session was rewound to the end of `tick`: what the front end
    /// shows is the recording up to it.
    pub(super) fn rewound(&mut self, tick: u64, out: &mut Outbox) {
        self.send_ticks(out);
        self.rewound_to = Some(tick);
        self.rewound = None;
        let shown = self.shown().clone();
        out.event(Event::Recording(RecordingChange::Reset(shown)));
    }

    /// After a rewind, the first call that makes a new branch cuts the
    /// recording at the tick rewound to (`still_rewound`: the history still
    /// stands there).
    pub(super) fn settle(&mut self, still_rewound: bool) {
        let Some(tick) = self.rewound_to else {
            return;
        };
        if still_rewound {
            return;
        }
        self.rewound_to = None;
        self.rewound = None;
        self.tape.truncate_after(tick);
    }

    /// Edits made after the end of `tick`: what a new future from there
    /// leaves out.
    pub(super) fn edits_after(&self, tick: u64) -> Vec<Edit> {
        self.tape
            .edits
            .iter()
            .filter(|e| e.tick > tick)
            .map(|e| e.edit.clone())
            .collect()
    }

    /// Every scene edit recorded (what Save folds into the file).
    pub(super) fn edits(&mut self) -> Vec<Edit> {
        self.shown().edits.iter().map(|e| e.edit.clone()).collect()
    }

    /// A new session at `fixed_hz`: nothing recorded.
    pub(super) fn reset(&mut self, fixed_hz: u32, out: &mut Outbox) {
        self.reset_to(Recording::new(fixed_hz), out);
        self.set_draft(None, out);
    }

    /// The session's recording is `tape` now (an adopted branch's).
    pub(super) fn reset_to(&mut self, tape: Recording, out: &mut Outbox) {
        self.new_ticks.clear();
        self.tape = tape;
        self.rewound_to = None;
        self.rewound = None;
        out.event(Event::Recording(RecordingChange::Reset(self.tape.clone())));
    }

    /// The Input tab's draft.
    fn set_draft(&mut self, draft: Option<Recording>, out: &mut Outbox) {
        if self.draft != draft {
            self.draft = draft.clone();
            out.event(Event::TapeDraft(draft));
        }
    }
}

impl Worker {
    /// A recording command.
    pub(super) fn recording_command(&mut self, command: RecordingCommand) {
        match command {
            RecordingCommand::SetDraft(draft) => self.recording.set_draft(draft, &mut self.out),
            RecordingCommand::Apply { tape, from } => self.apply_tape(tape, from),
            RecordingCommand::StopTape => self.stop_tape(),
            RecordingCommand::Save { path, overwrite } => self.save_recording(&path, overwrite),
        }
    }

    /// Takes in the ticks the observer reported: the hash of the last, the
    /// input of each into the recording, and what branch B makes of them.
    pub(super) fn drain_ticks(&mut self) {
        let still = self.run.session.history().rewound();
        self.recording.settle(still);
        for mut news in self.run.tick_news() {
            self.branch.take_a(&mut news);
            if !news.inputs.is_empty() {
                self.recording.record_tick(news.tick, &news.inputs);
            }
        }
        self.recording.send_ticks(&mut self.out);
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
        let session_hz = self.run.settings().fixed_hz;
        if tape.fixed_hz != session_hz {
            self.out.notice(Notice::TapeRate {
                tape_hz: tape.fixed_hz,
                session_hz,
            });
        }
        let edges = tape.events.iter().filter(|e| e.tick > from).count();
        self.run.session.set_tape(Some(Replay::new(tape.clone())));
        self.out.event(Event::TapeInForce(Some(tape)));
        self.out.notice(Notice::TapeInForce {
            edges,
            from_tick: from + 1,
        });
    }

    /// The tape the session plays: what the ticks up to now received, then
    /// the edges still to come of a tape in force.
    pub(super) fn playing_tape(&mut self) -> Recording {
        let live = self.run.completed_ticks();
        let mut tape = self.recording.shown().clone();
        tape.truncate_after(live);
        tape.ticks = live;
        if let Some(in_force) = self.run.session.history().tape() {
            for e in in_force.recording().events.iter().filter(|e| e.tick > live) {
                tape.insert(e.clone());
            }
        }
        tape
    }

    /// "Resume from here" at `tick` (the timeline's, Enter): with the draft
    /// tape if it changes something, from the end of the tick before its
    /// first change or `tick`, whichever is earlier; else a plain rewind.
    pub(super) fn resume_from(&mut self, tick: u64) {
        let playing = self.playing_tape();
        let from = self.recording.draft.as_ref().and_then(|draft| {
            let first = draft.first_difference(&playing)?;
            Some(tick.min(first - 1))
        });
        match (from, self.recording.draft.clone()) {
            (Some(from), Some(draft)) => {
                self.recording.set_draft(None, &mut self.out);
                self.apply_tape(draft, from);
            }
            _ => {
                self.rewind(tick);
            }
        }
    }

    /// Live input only from here on.
    fn stop_tape(&mut self) {
        if self.run.session.history().tape().is_some() {
            self.run.session.set_tape(None);
            self.out.event(Event::TapeInForce(None));
            self.out.notice(Notice::TapeStopped);
        }
    }

    /// File → Save session recording: the recording of the session as it
    /// stands, written atomically, so a crash leaves the old file or the
    /// new one. An existing file is replaced only once the user said so.
    fn save_recording(&mut self, path: &Path, overwrite: bool) {
        if path.exists() && !overwrite {
            self.out.event(Event::ConfirmSave {
                path: path.to_path_buf(),
                reason: SaveRisk::Exists,
                what: SaveWhat::Recording,
            });
            return;
        }
        let mut recording = self.recording.shown().clone();
        recording.ticks = recording.ticks.max(self.run.completed_ticks());
        match recording.save(path) {
            Ok(()) => self.out.notice(Notice::RecordingSaved {
                path: path.to_path_buf(),
                edges: recording.events.len(),
                edits: recording.edits.len(),
                ticks: recording.ticks,
            }),
            Err(e) => self.out.error(HostError::RecordingNotSaved(e.to_string())),
        }
    }
}
