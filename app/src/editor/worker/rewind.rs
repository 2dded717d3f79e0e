//! "Resume from here": the session rewound through its history to the end
//! of a kept tick, suspended there, the future after it dropped.

use super::Worker;
use crate::editor::protocol::Event;

impl Worker {
    /// "Resume from here": rewinds to the end of `tick`, suspended there.
    /// Returns whether it did.
    pub(super) fn rewind(&mut self, tick: u64) -> bool {
        // Branch B followed the future being dropped.
        self.discard_fork(true);
        self.drain_ticks();
        self.pending_inputs.clear();
        let result = if self.at_untouched_start(tick) {
            // Nothing ran since the session began (a scene just opened or a
            // fork just adopted): it already stands at the end of `tick`.
            Ok(())
        } else {
            self.session.rewind_to_tick(tick)
        };
        match result {
            Ok(()) => {
                // The replay runs without the tick observer: the hash comes
                // from the pipeline. The recording keeps the rewound branch
                // until the session runs on from here (`tape`).
                self.state_hash = self.session.pipeline().state_hash();
                self.settings_in_force = *self.session.pipeline().settings();
                self.rewound_to = Some(tick);
                self.rewound_tape = None;
                self.viewing = None;
                // What A measured after the tick is being run again.
                if let Some(b) = self.run_b.as_mut()
                    && b.first.is_some_and(|f| f.tick > tick)
                {
                    b.first = None;
                }
                self.send_event(Event::Rewound(tick));
                let dropped = self.edits_after(tick);
                if dropped > 0 {
                    self.send_event(Event::Notice(format!(
                        "resumed from tick {tick}: {dropped} {} made after it {} out of the new \
                         future, as the tape's later edges do",
                        if dropped == 1 { "edit" } else { "edits" },
                        if dropped == 1 { "drops" } else { "drop" },
                    )));
                }
                true
            }
            Err(e) => {
                self.error(format!("cannot resume from tick {tick}: {e}"));
                false
            }
        }
    }

    /// Whether the session stands at the end of `tick` with nothing run
    /// since its history began: the history then holds no keyframe yet (the
    /// first is taken by the first frame), and the state to go back to, or
    /// to fork from, is the session as it is.
    pub(super) fn at_untouched_start(&self, tick: u64) -> bool {
        self.session.history().oldest_tick().is_none()
            && self.session.pipeline().stepper().completed_ticks() == tick
    }
}
