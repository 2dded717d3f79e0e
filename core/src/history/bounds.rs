//! Keyframes and the history's bounds: a keyframe every `keyframe_every`
//! frames, and the byte budget (doubling the spacing, then dropping the
//! oldest) or the frame retention that keeps memory flat (see "Bounds" in
//! the module docs of [`crate::history`]).

use super::*;

impl History {
    pub(super) fn maybe_keyframe(&mut self, p: &Pipeline) {
        self.frames_since_keyframe = self.frames_since_keyframe.saturating_add(1);
        if self.frames_since_keyframe < self.keyframe_every {
            return;
        }
        self.frames_since_keyframe = 0;
        let call = self.first_call + self.calls.len() as u64;
        // The replay must start with the debugger in force at the keyframe.
        self.last_debugger = None;
        let (snapshot, engine) = self.packer.take(p);
        let bytes = snapshot.memory_bytes();
        self.keyframes.push_back(Keyframe {
            call,
            snapshot,
            tape: self.tape.clone(),
            engine,
            bytes,
        });
        self.enforce_bounds();
        self.position = self.calls.len();
    }

    /// Drops keyframes past the frame bound, then (with a budget) thins them
    /// while over it: doubling the spacing up to [`MAX_SPACING_DOUBLINGS`]
    /// times, then dropping the oldest. Calls before the oldest keyframe go.
    pub(super) fn enforce_bounds(&mut self) {
        let max_keyframes = (self.retention_frames / self.keyframe_every).max(1) as usize;
        while self.keyframes.len() > max_keyframes {
            self.pop_oldest();
        }
        if let Some(budget) = self.budget {
            if self.memory_bytes() > budget {
                // A keyframe still being packed counts its full length:
                // thin on what the packed ones hold, as before the packing
                // moved to its own thread.
                for k in &self.keyframes {
                    if let Some(packed) = &k.engine {
                        packed.settle(|| self.packer.packing());
                    }
                }
            }
            while self.keyframes.len() > 1 && self.memory_bytes() > budget {
                if self.keyframe_every < self.base_every << MAX_SPACING_DOUBLINGS {
                    // Every other keyframe, counting from the oldest (which
                    // stays, so the reach does not shrink).
                    let mut i = 0;
                    self.keyframes.retain(|_| {
                        i += 1;
                        i % 2 == 1
                    });
                    self.keyframe_every *= 2;
                } else {
                    self.pop_oldest();
                }
            }
        }
        let mut removed = 0;
        if let Some(oldest) = self.keyframes.front() {
            while self.first_call < oldest.call {
                if let Some(c) = self.calls.pop_front() {
                    self.call_bytes -= c.bytes();
                }
                self.first_call += 1;
                removed += 1;
            }
        }
        // Positions in the log move with its front (a budget lowered after a
        // rewind trims a log the session stands inside).
        self.position = self.position.saturating_sub(removed);
        self.partial = self
            .partial
            .and_then(|(i, tick)| Some((i.checked_sub(removed)?, tick)));
    }

    pub(super) fn pop_oldest(&mut self) {
        self.keyframes.pop_front();
    }
}
