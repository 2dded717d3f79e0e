//! [`Session`]: a pipeline and its history, owned together, so that the
//! history sees every call it must repeat ("One driver" in the module docs
//! of [`crate::history`]).
//!
//! The methods fall in four groups:
//!
//! - **a new world**, which starts the history again from the session as it
//!   stands: [`Session::new`], [`Session::load_scene`],
//!   [`Session::reload_parsed`], [`Session::restore`],
//!   [`Session::start_over`];
//! - **the calls a replay repeats**, each run on the pipeline and logged:
//!   frames, resumes, single ticks, pauses, tapes, time settings, edits, and
//!   the rewind, undo and redo that move the session through the log;
//! - **reading**: the pipeline and the history by shared reference, how far
//!   rewind reaches, and past ticks or frames rebuilt in a scratch pipeline;
//! - **the host's own state**, which no replay repeats: the tick observer
//!   and watch, breakpoints, the hook beacon, flame zones and the log. Each
//!   is one narrow method, so nothing hands out `&mut Pipeline`.
//!
//! Worked example, the editor's "Resume from here" at tick 412 of a session
//! played at one tick a frame with the default history (a keyframe every
//! 120 frames, the first before frame 1):
//! [`Session::rewind_to_tick`] restores the keyframe of tick 360 and replays
//! the 52 logged frames after it, stopping at the end of tick 412; the next
//! [`Session::resume`] is logged as the first call of a new branch.

use super::*;
use crate::clock_breakpoint::{ClockBreakpoint, ClockRuleError};
use crate::condition::BreakpointId;
use crate::debugger::Breakpoint;
use crate::edit::Edit;
use crate::flame::ZoneDetail;
use crate::hook_beacon::HookBeacon;
use crate::pipeline::TickWatch;
use crate::scene::{Registry, Scene, SceneError};
use crate::trace::TickObserver;
use crate::world::{LogEntry, LogLevel};

/// A pipeline and the rewind history of every call made on it: the only
/// way to drive a session that can rewind, undo and show past ticks (module
/// docs). It lends the pipeline out for reading only.
#[derive(Debug)]
pub struct Session {
    /// The runtime; changed only by this session's methods.
    pipeline: Pipeline,
    /// Every call made on `pipeline` since its world began, with keyframes.
    history: History,
}

impl Session {
    /// `pipeline` as it stands, with `history`'s bounds: the history starts
    /// here (anything it held is forgotten), so a rewind never goes back
    /// past this state. Set the pipeline up first (scene, action map, fault
    /// policy, wall clock): what was done to it before is the starting
    /// state, not a call to repeat.
    pub fn new(pipeline: Pipeline, mut history: History) -> Session {
        history.clear();
        Session { pipeline, history }
    }

    /// Makes `pipeline` the session (the editor's "Adopt B") and returns the
    /// one it replaces. The history starts again from `pipeline` as it
    /// stands, with the same bounds.
    pub fn start_over(&mut self, pipeline: Pipeline) -> Pipeline {
        let old = std::mem::replace(&mut self.pipeline, pipeline);
        self.history.clear();
        old
    }

    /// [`Pipeline::load_scene`]: a new world, so the history starts again
    /// from it. A scene that does not load changes nothing, the history
    /// included.
    pub fn load_scene(&mut self, scene: &Scene, registry: &Registry) -> Result<(), SceneError> {
        self.pipeline.load_scene(scene, registry)?;
        self.history.clear();
        Ok(())
    }

    /// [`Pipeline::reload_parsed`] (a scene read again, the time settings
    /// in force kept): a new world, so the history starts again from it. A
    /// scene that does not load changes nothing, the history included.
    pub fn reload_parsed(&mut self, scene: &Scene, registry: &Registry) -> Result<(), SceneError> {
        self.pipeline.reload_parsed(scene, registry)?;
        self.history.clear();
        Ok(())
    }

    /// [`Pipeline::restore`] (the editor's restart from a recovery point):
    /// the history starts again from the restored state.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        self.pipeline.restore(snapshot);
        self.history.clear();
    }

    /// The pipeline, for a host that is done with the history.
    pub fn into_pipeline(self) -> Pipeline {
        self.pipeline
    }

    /// The pipeline, to read: clock, world, suspension, state hash, zones.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The history, to read: keyframes, bytes, the tape in force, what undo
    /// and redo would do.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// How far back rewind reaches, in simulated time, what it costs, and
    /// how far the budget would reach at this rate: the editor's "history
    /// holds 26 s; budget reaches ≈ 9 min at this rate" (`RewindReach`'s
    /// `Display`).
    pub fn reach(&self) -> RewindReach {
        self.history.reach(&self.pipeline)
    }

    /// Puts `scratch` in the exact state the session had at the end of
    /// `target`, suspended there, without touching the session or the log:
    /// what the editor shows when the user views a past tick (every panel
    /// reads the same state a headless run has at that tick). `scratch` is
    /// any pipeline: its state is replaced by a keyframe's; its observer,
    /// watch and debugger are left as they were after the replay's (none
    /// for a fresh pipeline).
    pub fn replay_into(&self, scratch: &mut Pipeline, target: u64) -> Result<(), RewindError> {
        let live = self.pipeline.stepper().completed_ticks();
        self.history.replay_into(scratch, live, target)
    }

    /// [`Session::replay_into`] for several scratch pipelines at once, each
    /// job `(pipeline, from, target)` replayed from the newest keyframe at
    /// or before `from` to the end of `target` (a fill of a plotted lane
    /// gives each of two threads a run of keyframe spans, replayed from
    /// its oldest keyframe in one go): the keyframes are restored one after
    /// the other, then `at_keyframe` sees each pipeline at its keyframe
    /// (job index and pipeline: install a watch there, read the keyframe's
    /// tick), then the replays run at once, a thread each, and each lands
    /// as [`Session::replay_into`] lands it. A job's error is its own; the
    /// others still run.
    pub fn replay_into_each(
        &self,
        jobs: &mut [(&mut Pipeline, u64, u64)],
        at_keyframe: impl FnMut(usize, &mut Pipeline),
    ) -> Vec<Result<(), RewindError>> {
        let live = self.pipeline.stepper().completed_ticks();
        self.history.replay_into_each(live, jobs, at_keyframe)
    }

    /// Puts `scratch` just before outer frame `frame` of the session's
    /// branch and runs the call that began it with zones at `detail` (see
    /// `frame_replay`'s module docs); returns that call's report, and
    /// [`Pipeline::zones`] of `scratch` holds its zones. A frame a
    /// breakpoint interrupted is replayed up to the same suspension (the
    /// recorded debugger is put back, as a rewind does). The session and
    /// the log are not touched.
    pub fn replay_frame(
        &self,
        scratch: &mut Pipeline,
        frame: u64,
        detail: ZoneDetail,
    ) -> Result<FrameReport, FrameReplayError> {
        self.history.replay_frame(scratch, frame, detail)
    }

    /// [`Pipeline::step_frame`] with `inputs` pushed before it, logged (and
    /// a keyframe first when one is due).
    pub fn step_frame(&mut self, dt: f64, inputs: &[InputEvent]) -> FrameReport {
        let inputs = inputs.to_vec();
        self.history
            .live(&mut self.pipeline, Call::Frame { dt, inputs })
    }

    /// [`Pipeline::step_one_frame`], logged, with the inputs given while
    /// suspended: they reach the next tick that begins (the frame may be the
    /// rest of an interrupted one, which begins no frame).
    pub fn step_one_frame(&mut self, dt: f64, inputs: &[InputEvent]) -> FrameReport {
        let inputs = inputs.to_vec();
        self.history
            .live(&mut self.pipeline, Call::StepOneFrame { dt, inputs })
    }

    /// [`Pipeline::resume`], logged, with the inputs given while suspended:
    /// they reach the next tick that begins.
    pub fn resume(&mut self, inputs: &[InputEvent]) -> FrameReport {
        let inputs = inputs.to_vec();
        self.history
            .live(&mut self.pipeline, Call::Resume { inputs })
    }

    /// [`Pipeline::step_tick`], logged, with the inputs given while
    /// suspended: the stepped tick receives them (a lone tick begins no
    /// frame).
    pub fn step_tick(&mut self, inputs: &[InputEvent]) -> FrameReport {
        let inputs = inputs.to_vec();
        self.history
            .live(&mut self.pipeline, Call::StepTick { inputs })
    }

    /// [`Pipeline::pause`], logged.
    pub fn pause(&mut self) {
        self.history.live(&mut self.pipeline, Call::Pause);
    }

    /// Installs `tape` as the session's tick input from here on (none: live
    /// input only), logged so every replay installs it at the same point
    /// (module docs of [`crate::history`], "Input tapes"). Rewind first to
    /// make it start at an earlier tick.
    pub fn set_tape(&mut self, tape: Option<Replay>) {
        self.history.set_tape(&mut self.pipeline, tape);
    }

    /// [`Pipeline::set_settings`], logged: a rewind across the change
    /// replays it at the same point, so the frames after it run with the new
    /// settings again. Settings that cannot run are refused and not logged.
    pub fn set_settings(&mut self, settings: TimeSettings) -> Result<(), SettingsError> {
        self.history.set_settings(&mut self.pipeline, settings)
    }

    /// [`Pipeline::apply_edit`], logged: a past view of any later tick, a
    /// rewind across it and its replay all repeat it at the same point (the
    /// editor's inspector edits, enable toggles, spawns and removals). An
    /// edit the session refuses changes nothing and is not logged. A new
    /// edit clears the redo stack; [`Session::edit_undoable`] makes one
    /// that can be undone.
    pub fn edit(&mut self, edit: PreparedEdit) -> Result<(), EditError> {
        self.history.edit(&mut self.pipeline, edit)
    }

    /// [`Session::edit`], undoable while the session stands where it is
    /// (`undo`'s module docs): the editor's pose, velocity, parameter,
    /// enable, duplicate and delete edits. The first of a stand takes a
    /// snapshot of the session before it; the others cost nothing more.
    pub fn edit_undoable(&mut self, edit: PreparedEdit) -> Result<(), EditError> {
        self.history.edit_undoable(&mut self.pipeline, edit)
    }

    /// Takes the newest undoable edit of the stand out of the log and puts
    /// the session back as it would be without it, bit for bit (`undo`'s
    /// module docs). Returns the edit. Refused, with the session unchanged,
    /// when there is none or the session ran on since
    /// ([`UndoError::RanOn`]).
    pub fn undo(&mut self) -> Result<Edit, UndoError> {
        self.history.undo(&mut self.pipeline)
    }

    /// Applies the newest undone edit again, as a new call at the end of
    /// the stand (undoable again). Returns it.
    pub fn redo(&mut self) -> Result<Edit, UndoError> {
        self.history.redo(&mut self.pipeline)
    }

    /// Rewinds the session to the end of `target` (a completed tick) and
    /// leaves it suspended there. The user's current breakpoints, tick
    /// observer and tick watch are kept (the replay runs without the
    /// observer and the watch). The log is kept too, so another rewind can
    /// go forward again; the next call that runs makes the new branch.
    pub fn rewind_to_tick(&mut self, target: u64) -> Result<(), RewindError> {
        self.history.rewind_to_tick(&mut self.pipeline, target)
    }

    /// Caps every call from now on at the end of `tick` (`None`: no cap):
    /// a frame that would run past it stops there, suspended, the rest of
    /// it skipped as at a breakpoint. The calls are logged with the cap, so
    /// a replay stops at the same place. What a host doing a journal again
    /// after a fault uses to stop before the tick that faulted.
    pub fn set_stop_after_tick(&mut self, tick: Option<u64>) {
        self.pipeline.set_stop_after_tick(tick);
    }

    /// Changes the history's byte budget (`None`: bounded by frames only). A
    /// smaller budget applies at once: the spacing doubles, or old
    /// keyframes go.
    pub fn set_history_budget(&mut self, budget_bytes: Option<usize>) {
        self.history.set_budget(budget_bytes);
    }
}

/// The host's own state: what a replay does not repeat, one narrow method
/// each (module docs).
impl Session {
    /// Installs (or removes) the observer that receives every completed
    /// tick of the live session ([`Pipeline::set_tick_observer`]).
    pub fn set_tick_observer(&mut self, observer: Option<Box<dyn TickObserver>>) {
        self.pipeline.set_tick_observer(observer);
    }

    /// Takes the tick observer back out.
    pub fn take_tick_observer(&mut self) -> Option<Box<dyn TickObserver>> {
        self.pipeline.take_tick_observer()
    }

    /// Installs (or removes) the watch checked at the end of every live
    /// tick ([`Pipeline::set_tick_watch`]); rewinds take it out while they
    /// replay.
    pub fn set_tick_watch(&mut self, watch: Option<Box<dyn TickWatch>>) {
        self.pipeline.set_tick_watch(watch);
    }

    /// Removes the tick watch and returns it.
    pub fn take_tick_watch(&mut self) -> Option<Box<dyn TickWatch>> {
        self.pipeline.take_tick_watch()
    }

    /// Adds a breakpoint. The next logged call carries the new debugger, so
    /// replays stop where the live session did.
    pub fn add_breakpoint(&mut self, breakpoint: Breakpoint) -> BreakpointId {
        self.pipeline.add_breakpoint(breakpoint)
    }

    /// Adds a clock breakpoint; a rule that could never hold is refused
    /// with the reason ([`Pipeline::add_clock_breakpoint`]).
    pub fn add_clock_breakpoint(
        &mut self,
        breakpoint: ClockBreakpoint,
    ) -> Result<BreakpointId, ClockRuleError> {
        self.pipeline.add_clock_breakpoint(breakpoint)
    }

    /// Removes a breakpoint (hook or clock).
    pub fn remove_breakpoint(&mut self, id: BreakpointId) -> bool {
        self.pipeline.remove_breakpoint(id)
    }

    /// Enables or disables a breakpoint.
    pub fn set_breakpoint_enabled(&mut self, id: BreakpointId, enabled: bool) {
        self.pipeline.set_breakpoint_enabled(id, enabled);
    }

    /// Replaces the debugger (the editor's restart puts back the dead
    /// worker's breakpoints).
    pub fn set_debugger(&mut self, debugger: Debugger) {
        self.pipeline.set_debugger(debugger);
    }

    /// Announces every hook call on `beacon` from now on (`None`: stop), for
    /// a watchdog on another thread ([`Pipeline::set_hook_beacon`]).
    pub fn set_hook_beacon(&mut self, beacon: Option<HookBeacon>) {
        self.pipeline.set_hook_beacon(beacon);
    }

    /// Records each call's flame zones at `detail` from the next call on
    /// ([`Pipeline::set_zone_detail`]).
    pub fn set_zone_detail(&mut self, detail: ZoneDetail) {
        self.pipeline.set_zone_detail(detail);
    }

    /// Takes the log lines written since the last drain.
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        self.pipeline.drain_log()
    }

    /// Appends a line to the session's log, stamped with the tick and frame
    /// the session is at ([`Pipeline::log_line`]).
    pub fn log_line(&mut self, level: LogLevel, message: String) {
        self.pipeline.log_line(level, message);
    }
}
