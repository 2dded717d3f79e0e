//! One past frame again, instrumented: [`Session::replay_frame`] restores
//! the newest keyframe taken before an outer frame, replays the logged
//! calls up to the frame's boundary as a rewind would, then runs the call
//! that began the frame with flame zones at the detail asked for (fine:
//! one zone per hook call, naming the object and the behaviour).
//!
//! This is how the editor's Flame tab gets per-behaviour timings at no cost
//! to the live run: the live session records only coarse zones (a few
//! clock reads a tick), and the fine ones come from this replay, on the
//! worker's scratch pipeline, only for the frame the user looks at. Their
//! times are the replay's, not the live run's (the replay runs the same
//! hooks on the same state, but on a warm or cold cache and a busy or idle
//! core of its own), so the editor labels them "replayed".
//!
//! Worked numbers: keyframes every 120 frames; the user clicks frame 250;
//! the keyframe after frame 240 is restored, frames 241 to 249 are
//! replayed without zones, and frame 250 with them.

use super::*;
use crate::clock::Phase;
use crate::flame::ZoneDetail;

/// Why a frame could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameReplayError {
    /// No keyframe kept is old enough.
    #[error("frame {frame} is no longer in the history (oldest kept: frame {oldest})")]
    TooOld {
        /// The frame asked for.
        frame: u64,
        /// The first frame a replay can reach.
        oldest: u64,
    },
    /// The log holds no call that began that frame (it has not run yet, or
    /// it belongs to a branch a rewind abandoned).
    #[error("frame {frame} is not in the history's log")]
    NotLogged {
        /// The frame asked for.
        frame: u64,
    },
    /// A keyframe did not decode (a bug: the bytes never leave the process).
    #[error("the keyframe of tick {tick} did not decode: {error}")]
    Corrupt {
        /// The keyframe's tick.
        tick: u64,
        /// Which step of the decoding failed.
        error: KeyframeError,
    },
}

impl History {
    /// [`Session::replay_frame`].
    pub(super) fn replay_frame(
        &self,
        scratch: &mut Pipeline,
        frame: u64,
        detail: ZoneDetail,
    ) -> Result<FrameReport, FrameReplayError> {
        let Some(k) = self
            .keyframes
            .iter()
            .rposition(|k| k.snapshot.frame_index() < frame)
        else {
            let oldest = self
                .keyframes
                .front()
                .map_or(frame, |k| k.snapshot.frame_index() + 1);
            return Err(FrameReplayError::TooOld { frame, oldest });
        };
        let keyframe = &self.keyframes[k];
        keyframe
            .restore_into(scratch)
            .map_err(|error| FrameReplayError::Corrupt {
                tick: keyframe.snapshot.tick(),
                error,
            })?;
        if self.manages_tape {
            rewind::install(scratch, &keyframe.tape);
        }
        scratch.set_zone_detail(ZoneDetail::Off);
        let start = (keyframe.call - self.first_call) as usize;
        for logged in self.calls.iter().take(self.position).skip(start) {
            if let Some(d) = &logged.debugger {
                scratch.set_debugger(d.for_replay());
            }
            scratch.set_stop_after_tick(logged.stop_after);
            // A frame begins with a frame call between frames (a suspended
            // session's `step_frame` runs nothing).
            let between = scratch.clock().phase == Phase::Idle;
            let begins_frame = match logged.call {
                Call::Frame { .. } => between && scratch.suspension().is_none(),
                Call::StepOneFrame { .. } => between,
                _ => false,
            };
            let next = scratch.clock().frame_index + 1;
            if begins_frame && next == frame {
                scratch.set_zone_detail(detail);
                let report = rewind::replay(scratch, &logged.call);
                scratch.set_stop_after_tick(None);
                return Ok(report);
            }
            if begins_frame && next > frame {
                break;
            }
            rewind::replay(scratch, &logged.call);
        }
        scratch.set_stop_after_tick(None);
        Err(FrameReplayError::NotLogged { frame })
    }
}
