//! A recording at work: [`Recorder`] writes the input every tick received
//! as it runs (a tick observer), [`Replay`] feeds a recording back to the
//! ticks that received it (a tick input source), whatever the frame pacing.

use std::sync::{Arc, Mutex, PoisonError};

use super::{RecordedEvent, Recording};
use crate::edit::{EditError, PreparedEdit};
use crate::input::InputEvent;
use crate::pipeline::{Pipeline, TickInputSource};
use crate::scene::Registry;
use crate::trace::{TickObserver, TickRecord};

/// Replays a recording: a [`TickInputSource`] that delivers each event to the tick
/// it is stamped with. Install it with [`crate::Pipeline::set_tick_input`].
///
/// Cloning is cheap (the recording is shared): the rewind history keeps the
/// tape in force with every keyframe ([`crate::Session::set_tape`]).
#[derive(Clone, Debug)]
pub struct Replay {
    /// The recording, events sorted by tick (stably: delivery order kept).
    recording: Arc<Recording>,
    /// Its edits, prepared, in the recording's order (tick, edit). Behind a
    /// lock because a prepared edit holds a behaviour (`Send`, not `Sync`);
    /// it is taken only at a tick that has edits.
    edits: Arc<Mutex<Vec<(u64, PreparedEdit)>>>,
}

impl Replay {
    /// A replay of `recording`. Events are sorted by tick, keeping the order of
    /// events within a tick, so a hand-built recording need not be pre-sorted.
    /// Its edits that need the scene's registry (parameters, spawns) are
    /// refused when their tick comes, with a log line: replay a session
    /// recording with [`Replay::with_registry`].
    pub fn new(recording: Recording) -> Replay {
        let edits = recording
            .edits
            .iter()
            .map(|e| (e.tick, PreparedEdit::from(e.edit.clone())))
            .collect();
        Replay::sorted(recording, edits)
    }

    /// A replay of a session recording, its edits prepared with the scene's
    /// `registry` ([`Edit::prepare`](crate::Edit::prepare)), so each applies at the start of its
    /// tick. An edit the registry refuses is an error naming it.
    pub fn with_registry(recording: Recording, registry: &Registry) -> Result<Replay, EditError> {
        let edits = recording
            .edits
            .iter()
            .map(|e| Ok((e.tick, e.edit.clone().prepare(registry)?)))
            .collect::<Result<Vec<_>, EditError>>()?;
        Ok(Replay::sorted(recording, edits))
    }

    fn sorted(mut recording: Recording, mut edits: Vec<(u64, PreparedEdit)>) -> Replay {
        recording.events.sort_by_key(|e| e.tick);
        recording.edits.sort_by_key(|e| e.tick);
        edits.sort_by_key(|(tick, _)| *tick);
        Replay {
            recording: Arc::new(recording),
            edits: Arc::new(Mutex::new(edits)),
        }
    }

    /// The recording replayed.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// The recording, shared (the editor shows the tape in force without
    /// copying it).
    pub fn shared(&self) -> Arc<Recording> {
        Arc::clone(&self.recording)
    }
}

impl PartialEq for Replay {
    /// Two replays are the same when they replay the same recording (the
    /// prepared edits are made from it).
    fn eq(&self, other: &Replay) -> bool {
        self.recording == other.recording
    }
}

impl TickInputSource for Replay {
    fn events_for_tick(&self, tick: u64, out: &mut Vec<InputEvent>) {
        out.extend(
            self.recording
                .events_at(tick)
                .iter()
                .map(RecordedEvent::event),
        );
    }

    fn apply_edits(&self, tick: u64, session: &mut Pipeline) {
        if self.recording.edits_at(tick).is_empty() {
            return;
        }
        // A panic while the lock was held cannot leave the list half-changed
        // (nothing writes it after construction).
        let edits = self.edits.lock().unwrap_or_else(PoisonError::into_inner);
        let start = edits.partition_point(|(t, _)| *t < tick);
        for (_, edit) in edits[start..].iter().take_while(|(t, _)| *t == tick) {
            if let Err(e) = session.apply_edit(edit) {
                session.log_line(
                    crate::world::LogLevel::Error,
                    format!("recorded edit before tick {tick} not applied: {e}"),
                );
            }
        }
    }
}

/// Records what every tick received: a [`TickObserver`] that stamps each raw
/// event of [`TickRecord::inputs`] with the completed tick's index.
///
/// A tick that comes again (the session was rewound to a snapshot and re-run)
/// replaces everything recorded from that tick on, so the recording always
/// describes the timeline that was kept.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// What has been recorded so far.
    recording: Recording,
}

impl Recorder {
    /// A recorder for a session ticking at `fixed_hz`.
    pub fn new(fixed_hz: u32) -> Recorder {
        Recorder {
            recording: Recording::new(fixed_hz),
        }
    }

    /// What has been recorded so far.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// A recorder that goes on from `recording` (a branch that shares its
    /// past with another session).
    pub fn continuing(recording: Recording) -> Recorder {
        Recorder { recording }
    }

    /// The finished recording.
    pub fn into_recording(self) -> Recording {
        self.recording
    }
}

impl TickObserver for Recorder {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        self.recording
            .record_tick(record.clock.simulation_tick, record.inputs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::InputSource;

    fn key(name: &str) -> InputSource {
        InputSource::Key(name.into())
    }

    #[test]
    fn replay_sorts_stably_and_is_not_consumed() {
        let mut r = Recording::new(60);
        r.ticks = 5;
        for (tick, value) in [(5, 1.0), (2, 1.0), (2, 0.0)] {
            r.events.push(RecordedEvent {
                tick,
                source: key("A"),
                value,
            });
        }
        let replay = Replay::new(r);
        let mut out = Vec::new();
        replay.events_for_tick(2, &mut out);
        replay.events_for_tick(2, &mut out);
        let values: Vec<f32> = out.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![1.0, 0.0, 1.0, 0.0]);
    }
}
