//! Rewind to any recent tick: keyframe snapshots plus exact re-simulation.
//!
//! A [`Session`] owns a [`Pipeline`] and its [`History`]. Every call that
//! advances the session (`step_frame`, `resume`, `step_tick`,
//! `step_one_frame`, and `pause`, a tape, new time settings, an edit) is a
//! method of the session, which runs it on its pipeline and logs it in the
//! history with what it needs to be repeated: the frame's raw dt, the input
//! events pushed before it (with a frame, a single tick or a resume alike),
//! and the debugger the call ran with (so the same breakpoints suspend at
//! the same places, before-hook ones included). Every `keyframe_every`
//! frames the history also keeps a [`Snapshot`] taken between frames.
//!
//! # One driver
//!
//! A history can only repeat the calls it logged, so it must be the only
//! driver of its session, and the types see to it. A [`Session`] lends its
//! pipeline out as `&Pipeline` only, for reading; what changes state a
//! replay must repeat (frames, resumes, single ticks, pauses, input, tapes,
//! time settings, edits, a new world) exists only as the session's own
//! methods, each of which logs its call. What the host may still change is
//! not state a replay repeats, and has narrow methods of its own: the tick
//! observer and the tick watch (a replay runs without them), breakpoints
//! (each logged call carries the debugger it ran with), the hook beacon,
//! flame zones, the log. A call that would go around the history does not
//! compile:
//!
//! ```compile_fail,E0596
//! use stepframe_core::{History, Pipeline, Session, TimeSettings};
//! let mut session = Session::new(Pipeline::new(TimeSettings::default()), History::default());
//! // `pipeline()` is `&Pipeline`: stepping it is a type error, not a warning at run time.
//! session.pipeline().step_frame(1.0 / 60.0);
//! ```
//!
//! while the same frame through the session is logged:
//!
//! ```
//! use stepframe_core::{History, Pipeline, Session, TimeSettings};
//! let mut session = Session::new(Pipeline::new(TimeSettings::default()), History::new(30, 100_000));
//! for _ in 0..200 {
//!     session.step_frame(1.0 / 60.0, &[]);
//! }
//! // A keyframe before frames 1, 31, ..., 181: ticks 0, 30, ..., 180.
//! assert_eq!(session.history().keyframes(), 7);
//! // The keyframe of tick 150, then 25 frames replayed.
//! session.rewind_to_tick(175).expect("kept");
//! assert_eq!(session.pipeline().stepper().completed_ticks(), 175);
//! ```
//!
//! A new world (a scene loaded or reloaded, a snapshot restored, another
//! pipeline adopted: [`Session::load_scene`], [`Session::restore`],
//! [`Session::start_over`]) starts the history again from the session as it
//! stands: what came before cannot be replayed onto it. A session that keeps
//! no history (the player's, the sync test's, the editor's branch B) drives
//! its [`Pipeline`] directly.
//!
//! # Input tapes
//!
//! [`Session::set_tape`] installs a tick-stamped input tape (a [`Replay`], the
//! editor's edited input) as the session's tick input, and logs it like any
//! other call; every keyframe keeps the tape in force when it was taken. So a
//! rewind or a past view that replays across the installation installs it at
//! the same point, and one that starts from a later keyframe starts with it:
//! the tape's edges reach the same ticks in every replay. The worked case is
//! "what if I had pressed jump at tick 412": rewind to the end of tick 411,
//! install the recorded tape with the press added at 412, and run on; tick
//! 412 receives the press whatever the display rate (tests/tape.rs).
//!
//! [`Session::rewind_to_tick`] restores the newest keyframe at or before the
//! target, replays the logged calls with their recorded debuggers, and stops at
//! the end of the target tick (a tick a frame ran among others is reached
//! exactly, through [`Pipeline::set_stop_after_tick`]). The session is left
//! suspended there; resuming continues from it. Because the pipeline is
//! deterministic and the replay repeats every input and every suspension, the
//! rewound session is bit-identical to the original at that tick, and so is its
//! continuation when it gets the same input. Calls logged after the target are
//! discarded: the continuation is a new branch.
//!
//! # Undo
//!
//! [`Session::edit_undoable`] logs an edit that [`Session::undo`] takes out
//! of the log again, putting the session back bit for bit, while the session
//! still stands where it was made; [`Session::redo`] applies it again. An
//! edit the session has run past is refused rather than re-simulated around
//! (`undo`'s module docs: the stand, its base snapshot, and why).
//!
//! # Bounds
//!
//! A history is bounded one of two ways:
//!
//! - **By bytes** ([`History::with_budget`]; [`History::default`] keeps
//!   [`DEFAULT_BUDGET_BYTES`], 256 MiB, with a keyframe every 120 frames).
//!   Keyframes are kept from the start of the session. When the keyframes
//!   and the call log outgrow the budget, the spacing doubles, as in Box2D
//!   v3's samples app: every other keyframe goes (the oldest stays), so the
//!   same reach costs half the bytes, and new keyframes come twice as far
//!   apart. After [`MAX_SPACING_DOUBLINGS`] doublings (4x the spacing: 480
//!   frames, 8 s at 60 Hz by default, the longest replay a rewind then runs)
//!   the oldest keyframes go instead. Worked numbers (`stepframe bench`,
//!   docs/performance.md): 10 min of demo.ron hold 51.5 MiB (300 keyframes
//!   and the call log, ~0.17 MiB a keyframe), so 256 MiB reach ≈ 3 h 19 min
//!   once the spacing has doubled twice; [`Session::reach`] says how far back
//!   rewind reaches now and how far the budget reaches at this rate,
//!   "history holds 26 s; budget reaches ≈ 9 min at this rate".
//! - **By frames** ([`History::new`]): keyframes older than `retention_frames`
//!   are dropped with the calls before them (the spacing never changes).
//!
//! Either way memory stays flat however long the session runs.
//!
//! # Compact keyframes
//!
//! A keyframe keeps the physics engine's state as bytes, compressed, and
//! most keyframes as a delta against an anchor keyframe (`compact`'s
//! module docs, with the measurements behind the choice of zstd): a
//! 10,000-ball pile's engine packs from ~15 MB to ~5.5 MB. A keyframe's
//! bytes are [`Snapshot::memory_bytes`] of the rest of the session (an
//! estimate; `stepframe bench`'s `snapshot_heap_vs_estimate` checks it
//! against the heap a snapshot really allocates: 0.96-1.08x on the bundled
//! scenes, docs/performance.md) plus the packed bytes, and each anchor counts once
//! while any delta needs it. Rewinds stay exact: the bytes restore rapier's
//! sets bit for bit.
//!
//! [`PoseHistory`] is the scrubbing side: committed poses of every tick in a ring
//! bounded by bytes, so showing a past tick costs no re-simulation.

use std::collections::VecDeque;

use crate::debugger::{Debugger, SuspendReason};
use crate::edit::{EditError, PreparedEdit};
use crate::input::InputEvent;
use crate::pipeline::{
    FrameReport, Pipeline, SettingsError, Snapshot, TickInputSource, TimeSettings,
};
use crate::recording::Replay;

mod bounds;
mod calls;
mod compact;
mod frame_replay;
mod poses;
mod reach;
mod rewind;
mod session;
mod undo;
use calls::{Call, Logged};
pub use compact::{ANCHOR_EVERY, KeyframeError};
pub use frame_replay::FrameReplayError;
pub use poses::{DEFAULT_POSE_BUDGET, PoseHistory, TickPoses};
pub use reach::RewindReach;
use rewind::{replay, same_breakpoints};
pub use session::Session;
pub use undo::UndoError;

/// A snapshot and the index of the call it precedes.
#[derive(Clone, Debug)]
struct Keyframe {
    call: u64,
    snapshot: Snapshot,
    /// The tape in force when the snapshot was taken.
    tape: Option<Replay>,
    /// The physics engine's state, packed (see `compact`); `None`: the
    /// snapshot holds it (a stage with no byte form).
    engine: Option<std::sync::Arc<compact::Packed>>,
    /// [`Snapshot::memory_bytes`], taken once (the packed engine's own
    /// bytes are asked each time: they shrink when its packing is done).
    bytes: usize,
}

/// Why a rewind could not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewindError {
    /// The target is older than the oldest keyframe kept.
    #[error("tick {target} is no longer in the history (oldest kept: {oldest})")]
    TooOld {
        /// Requested tick.
        target: u64,
        /// Oldest tick that can be reached.
        oldest: u64,
    },
    /// The target is in the future.
    #[error("tick {target} has not happened yet (latest: {latest})")]
    InTheFuture {
        /// Requested tick.
        target: u64,
        /// Latest completed tick.
        latest: u64,
    },
    /// A keyframe's packed engine state did not decode (a bug: the bytes
    /// never leave the process).
    #[error("the keyframe of tick {tick} did not decode: {error}")]
    Corrupt {
        /// The keyframe's tick.
        tick: u64,
        /// Which step of the decoding failed.
        error: KeyframeError,
    },
    /// The replay did not reach the target (history inconsistent with the session).
    #[error("the replay ended at tick {reached} before reaching tick {target}")]
    NotReached {
        /// Requested tick.
        target: u64,
        /// Where the replay ended.
        reached: u64,
    },
}

/// Default frames between keyframes: 2 s at 60 Hz. Measured on demo.ron after
/// 10 minutes (`stepframe bench`): a rewind replays at most 120 frames (about
/// 20 ms) and the 300 keyframes take about half the memory of one a second.
pub const DEFAULT_KEYFRAME_EVERY: u64 = 120;
/// Default retention: 10 minutes at 60 frames per second.
pub const DEFAULT_RETENTION_FRAMES: u64 = 36_000;
/// Default byte budget of [`History::default`]: 256 MiB (the target: at
/// least 10 min of demo.ron within it; `rewind_reach_min` in
/// docs/performance.md).
pub const DEFAULT_BUDGET_BYTES: usize = 256 << 20;
/// How many times a byte-bounded history may double its keyframe spacing
/// before it drops its oldest keyframes instead: the spacing, and so the
/// longest replay a rewind runs, stays within 4x the initial one.
pub const MAX_SPACING_DOUBLINGS: u32 = 2;

/// The call log and keyframes of one session: what a [`Session`] keeps
/// of every call it makes on its pipeline (module docs). A history is made
/// with its bounds ([`History::new`], [`History::with_budget`]) and handed
/// to [`Session::new`]; from then on it is read through
/// [`Session::history`] and changed only by the session's calls.
#[derive(Debug)]
pub struct History {
    calls: VecDeque<Logged>,
    /// Index (since the session began) of `calls[0]`.
    first_call: u64,
    keyframes: VecDeque<Keyframe>,
    keyframe_every: u64,
    /// The spacing the history started with (doublings are counted from it).
    base_every: u64,
    retention_frames: u64,
    /// Byte bound on keyframes and call log, if any (see the module docs).
    budget: Option<usize>,
    /// Packs each keyframe's engine against the last anchor.
    packer: compact::Packer,
    /// Sum of the logged calls' bytes ([`Logged::bytes`]).
    call_bytes: usize,
    frames_since_keyframe: u64,
    /// The debugger state logged last, to log only changes.
    last_debugger: Option<Debugger>,
    /// Where the session stands in the log: `calls.len()` when live, earlier
    /// after a rewind. The next live call cuts the log here (a new branch).
    position: usize,
    /// After a rewind that stopped part-way through a call: that call's index and
    /// the tick it stopped after (it must stop there again in later replays once
    /// the session branches from here).
    partial: Option<(usize, u64)>,
    /// Latest tick the log reaches (the end of the current branch).
    latest_tick: u64,
    /// The tape in force at `position`.
    tape: Option<Replay>,
    /// Whether this history installs tapes: until [`Session::set_tape`] is
    /// first called it leaves the pipeline's tick input alone (a player may
    /// have installed its own replay).
    manages_tape: bool,
    /// Undo and redo of the edits made where the session stands (`undo`).
    undo: undo::Undo,
}

impl Default for History {
    /// Byte-bounded at [`DEFAULT_BUDGET_BYTES`].
    fn default() -> History {
        History::with_budget(DEFAULT_KEYFRAME_EVERY, DEFAULT_BUDGET_BYTES)
    }
}

impl History {
    /// A history with a keyframe every `keyframe_every` frames, keeping about
    /// `retention_frames` frames.
    pub fn new(keyframe_every: u64, retention_frames: u64) -> History {
        History {
            calls: VecDeque::new(),
            first_call: 0,
            keyframes: VecDeque::new(),
            keyframe_every: keyframe_every.max(1),
            base_every: keyframe_every.max(1),
            retention_frames: retention_frames.max(keyframe_every.max(1)),
            budget: None,
            packer: compact::Packer::default(),
            call_bytes: 0,
            frames_since_keyframe: u64::MAX,
            last_debugger: None,
            position: 0,
            partial: None,
            latest_tick: 0,
            tape: None,
            manages_tape: false,
            undo: undo::Undo::default(),
        }
    }

    /// A history bounded by bytes rather than frames: a keyframe every
    /// `keyframe_every` frames at first, the spacing doubling as the budget
    /// fills (module docs).
    pub fn with_budget(keyframe_every: u64, budget_bytes: usize) -> History {
        let mut h = History::new(keyframe_every, u64::MAX);
        h.budget = Some(budget_bytes);
        h
    }

    /// Changes the byte budget (`None`: bounded by frames only). A smaller
    /// budget applies at once: the spacing doubles, or old keyframes go.
    pub fn set_budget(&mut self, budget_bytes: Option<usize>) {
        self.budget = budget_bytes;
        self.enforce_bounds();
    }

    /// The byte budget, if any.
    pub fn budget(&self) -> Option<usize> {
        self.budget
    }

    /// Frames between keyframes now.
    pub fn keyframe_every(&self) -> u64 {
        self.keyframe_every
    }

    /// Bytes the history holds: its keyframes ([`Snapshot::memory_bytes`])
    /// and its call log.
    pub fn memory_bytes(&self) -> usize {
        compact::keyframe_bytes(&self.keyframes)
            + self.call_bytes
            + self.packer.memory_bytes()
            + self.undo.bytes()
    }

    /// How far back rewind reaches from the live session `live`
    /// ([`Session::reach`]).
    fn reach(&self, live: &Pipeline) -> RewindReach {
        let now = live.stepper().simulation_time().as_secs_f64();
        let oldest = self
            .keyframes
            .front()
            .map_or(now, |k| k.snapshot.simulation_time());
        RewindReach {
            seconds: (now - oldest).max(0.0),
            // With no keyframe yet the session can still go back to where
            // it stands (nothing ran since the history began).
            oldest_tick: Some(
                self.oldest_tick()
                    .unwrap_or_else(|| live.stepper().completed_ticks()),
            ),
            bytes: self.memory_bytes(),
            budget: self.budget,
            keyframe_every: self.keyframe_every,
            widest_every: reach::widest_every(self.base_every),
        }
    }

    /// Forgets everything (a new world: [`Session::start_over`]); the
    /// bounds stay, the spacing starts again from the initial one.
    fn clear(&mut self) {
        let budget = self.budget;
        *self = History::new(self.base_every, self.retention_frames);
        self.budget = budget;
    }

    /// The oldest tick a rewind can reach.
    pub fn oldest_tick(&self) -> Option<u64> {
        self.keyframes.front().map(|k| k.snapshot.tick())
    }

    /// Keyframes kept.
    pub fn keyframes(&self) -> usize {
        self.keyframes.len()
    }

    /// The ticks of the kept keyframes, oldest first: where a search backward
    /// through the history can restart its replays.
    pub fn keyframe_ticks(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.keyframes.iter().map(|k| k.snapshot.tick())
    }

    /// [`Session::set_tape`].
    fn set_tape(&mut self, p: &mut Pipeline, tape: Option<Replay>) {
        self.manages_tape = true;
        self.live(p, Call::SetTape(tape));
    }

    /// [`Session::set_settings`].
    fn set_settings(
        &mut self,
        p: &mut Pipeline,
        settings: TimeSettings,
    ) -> Result<(), SettingsError> {
        settings.validate()?;
        self.live(p, Call::SetSettings(settings));
        Ok(())
    }

    /// [`Session::edit`]: a new edit also clears the redo stack (`undo`).
    fn edit(&mut self, p: &mut Pipeline, edit: PreparedEdit) -> Result<(), EditError> {
        self.log_edit(p, edit)?;
        self.undo.forget_redo();
        Ok(())
    }

    /// `History::edit` without touching the redo stack (a redo is no new edit).
    fn log_edit(&mut self, p: &mut Pipeline, edit: PreparedEdit) -> Result<(), EditError> {
        p.apply_edit(&edit)?;
        self.branch_here();
        self.log(p, Call::Edit(Box::new(edit)));
        self.position = self.calls.len();
        self.latest_tick = p.stepper().completed_ticks();
        Ok(())
    }

    /// The tape in force, if [`Session::set_tape`] installed one.
    pub fn tape(&self) -> Option<&Replay> {
        self.tape.as_ref()
    }

    /// Every logged call made live, the frame case included: it branches
    /// the log if the session was rewound, takes a keyframe between whole
    /// frames, logs the call and runs it the way a replay of the log will
    /// (the same [`replay`] arm), so live and replayed calls cannot differ.
    fn live(&mut self, p: &mut Pipeline, call: Call) -> FrameReport {
        if call.runs_hooks() {
            self.end_stand();
        }
        self.branch_here();
        if matches!(call, Call::Frame { .. }) && p.suspension().is_none() {
            self.maybe_keyframe(p);
        }
        self.log(p, call.clone());
        if let Call::SetTape(tape) = &call {
            self.tape = tape.clone();
        }
        let report = replay(p, &call);
        self.note_wall_clock_stop(p);
        self.position = self.calls.len();
        self.latest_tick = p.stepper().completed_ticks();
        report
    }

    /// Cuts the log where a rewind left the session: what followed is another
    /// branch now. The call the rewind stopped part-way through keeps that stop.
    fn branch_here(&mut self) {
        if self.position >= self.calls.len() && self.partial.is_none() {
            return;
        }
        let partial = self.partial.take();
        self.calls.truncate(self.position);
        self.call_bytes = self.calls.iter().map(Logged::bytes).sum();
        if let Some((i, tick)) = partial
            && let Some(call) = self.calls.get_mut(i)
        {
            call.stop_after = Some(call.stop_after.map_or(tick, |s| s.min(tick)));
        }
        let position = self.first_call + self.position as u64;
        // Keyframes taken after this point belong to the discarded branch; one
        // taken exactly here is still valid only if no call stopped part-way.
        self.keyframes
            .retain(|k| k.call < position || (k.call == position && partial.is_none()));
        self.packer.reset();
        self.last_debugger = None;
        self.frames_since_keyframe = 0;
    }

    /// A clock breakpoint on wall time (a slow physics step) stopped the
    /// call just logged: replays run without such rules (they may not hold
    /// again), so the call keeps the stop as a stop-after-tick, and a replay
    /// stops at the end of the same tick, skipping the same Flow Tick and
    /// presentation.
    fn note_wall_clock_stop(&mut self, p: &Pipeline) {
        let Some(SuspendReason::Clock(hit)) = p.suspension().map(|s| &s.reason) else {
            return;
        };
        if !hit.rule.measures_wall_time() {
            return;
        }
        if let Some(call) = self.calls.back_mut() {
            call.stop_after = Some(call.stop_after.map_or(hit.tick, |s| s.min(hit.tick)));
        }
    }

    fn log(&mut self, p: &Pipeline, call: Call) {
        let debugger = p.debugger();
        let changed = self
            .last_debugger
            .as_ref()
            .is_none_or(|d| !same_breakpoints(d, debugger));
        let logged = Logged {
            call,
            debugger: changed.then(|| debugger.clone()),
            stop_after: p.stop_after_tick(),
        };
        if changed {
            self.last_debugger = Some(debugger.clone());
        }
        self.call_bytes += logged.bytes();
        self.calls.push_back(logged);
        self.position = self.calls.len();
        if self.budget.is_some_and(|b| self.memory_bytes() > b) {
            self.enforce_bounds();
            self.position = self.calls.len();
        }
    }
}
