//! A recording at work: [`Recorder`] writes the input every tick received
//! as it runs (a tick observer), [`Replay`] feeds a recording back to the
//! ticks that received it (a tick input source), whatever the frame pacing.

use super::*;

/// Replays a recording: a [`TickInputSource`] that delivers each event to the tick
/// it is stamped with. Install it with [`crate::Pipeline::set_tick_input`].
///
/// Cloning is cheap (the recording is shared): the rewind history keeps the
/// tape in force with every keyframe ([`crate::History::set_tape`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The recording, events sorted by tick (stably: delivery order kept).
    recording: Arc<Recording>,
}

impl Replay {
    /// A replay of `recording`. Events are sorted by tick, keeping the order of
    /// events within a tick, so a hand-built recording need not be pre-sorted.
    pub fn new(mut recording: Recording) -> Replay {
        recording.events.sort_by_key(|e| e.tick);
        Replay {
            recording: Arc::new(recording),
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

impl TickInputSource for Replay {
    fn events_for_tick(&self, tick: u64, out: &mut Vec<InputEvent>) {
        out.extend(
            self.recording
                .events_at(tick)
                .iter()
                .map(RecordedEvent::event),
        );
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
