//! The worker's side of the input tape: what every tick of the current branch
//! received (recorded from the tick observer, cut back on a rewind), and
//! "Resume from here" with an edited tape: rewind to the end of the tick
//! before the first edit, then install the tape in the rewind history, so the
//! edges replay at their ticks in this run and in every later rewind or past
//! view. Live input typed after that is merged in, as it would be without a
//! tape; "Stop tape" goes back to live input only.

use std::sync::Arc;

use stepframe_core::{InputEvent, Recording, Replay};

use super::Worker;
use crate::editor::protocol::Event;
use crate::tools::trace_poses::{TickDivergence, TracedTick};

/// What one completed tick tells the worker: its hash and the raw input it
/// received (empty for most ticks, so sending it allocates nothing then).
#[derive(Debug)]
pub(super) struct TickNews {
    pub tick: u64,
    pub hash: u64,
    pub inputs: Vec<InputEvent>,
    /// The tick against run B, while comparing.
    pub divergence: Option<TickDivergence>,
    /// The tick's records, while forked.
    pub traced: Option<TracedTick>,
}

impl Worker {
    /// Takes in the ticks the observer reported: the hash of the last, and
    /// the input of each into the recorded tape. The tape is shared with the
    /// views sent so far: it is copied only when a tick brings input.
    pub(super) fn drain_ticks(&mut self) {
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

    /// The recorded tape after a rewind to the end of `tick`: the ticks after
    /// it have not happened in this branch.
    pub(super) fn cut_tape(&mut self, tick: u64) {
        if self.tape.events.last().is_some_and(|e| e.tick > tick) || self.tape.ticks > tick {
            Arc::make_mut(&mut self.tape).truncate_after(tick);
        }
    }

    /// A new session: nothing recorded, no tape in force, at this tick rate.
    pub(super) fn reset_tape(&mut self) {
        self.tape = Arc::new(Recording::new(self.settings.fixed_hz));
        self.pipeline.set_tick_input(None);
    }

    /// "Resume from here" with an edited tape: rewinds to the end of `from`
    /// and replays `tape` from tick `from + 1` on. The session stays
    /// suspended there, as after any rewind.
    pub(super) fn apply_tape(&mut self, tape: Recording, from: u64) {
        if !self.rewind(from) {
            return;
        }
        if tape.fixed_hz != self.settings.fixed_hz {
            self.send_event(Event::Notice(format!(
                "the tape's ticks were counted at {} Hz; the session ticks at {} Hz, so its \
                 edges reach the same tick numbers at other times",
                tape.fixed_hz, self.settings.fixed_hz
            )));
        }
        let edges = tape.events.iter().filter(|e| e.tick > from).count();
        self.history
            .set_tape(&mut self.pipeline, Some(Replay::new(tape)));
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

    /// Live input only from here on.
    pub(super) fn stop_tape(&mut self) {
        if self.history.tape().is_some() {
            self.history.set_tape(&mut self.pipeline, None);
            self.send_event(Event::Notice(
                "input tape stopped: live input only from here".to_string(),
            ));
        }
    }
}
