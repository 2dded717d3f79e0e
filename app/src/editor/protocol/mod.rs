//! What the UI thread and the worker thread say to each other.
//!
//! The UI never touches the pipeline: it pushes [`Command`]s (Rerun's time
//! control habit: one enum, applied in one place) and reads what the worker
//! publishes. What must arrive in order travels on one channel; only pictures
//! of "the state now" are latest-wins:
//!
//! | stream | channel | delivery |
//! |---|---|---|
//! | [`Event`]: telemetry batches, suspended/resumed, loaded, saved, errors, log lines | unbounded | never lost, **in order**: a frame's telemetry comes before the log lines and the suspension it caused, a `Loaded` before the new session's first frame |
//! | [`WorldView`] of the live session: poses, clock, suspension, selection | `bounded(1)` | latest wins: the worker replaces an unread view, the UI drains to the newest |
//! | [`WorldView`] of a past tick (the time cursor, [`Command::ViewTick`]) | `bounded(1)` | latest wins, like live views |
//! | [`RecoveryPoint`]: a snapshot the editor can restart a dead worker from | `bounded(1)` | latest wins |
//!
//! A UI that repaints at 5 Hz therefore sees one view in five but every
//! telemetry frame and every event, in the order they happened; a worker that
//! runs at 144 Hz is never made to wait by the UI, because it never blocks on
//! a send.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use stepframe_core::{
    Breakpoint, BreakpointId, Clock, ClockBreakpoint, Edit, FrameReport, InputEvent, LogEntry,
    ObjectId, Pose, Recording, Snapshot, StepStrategy, Suspension, Velocity,
};
use stepframe_plugins::{WatchEvent, WatchSpec};

use super::scene_file::LoadedScene;

mod view;
use crate::compare::poses::{TickDivergence, TracePoses, TracedTick};
pub use view::{
    BodyView, BreakpointView, HitEntry, LoadedScript, ObjectView, RunB, ScriptsView, SelectedView,
    SoftView, UndoView, WorldView,
};

/// How often the worker runs an outer frame, independent of UI repaints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pacing {
    /// A fixed display rate, frames per second (30, 60, 144...).
    Hz(u32),
    /// As fast as the worker can go up to [`Pacing::UNCAPPED_MAX_HZ`] frames
    /// a second (still measuring real dt per frame), so the timeline's ring
    /// can hold an hour of them.
    Uncapped,
    /// Irregular frame lengths from a fixed-seed sequence (4 to 40 ms, with a
    /// 150 ms stall every 64 frames): the pacing the determinism tests use.
    Irregular,
}

impl Default for Pacing {
    fn default() -> Pacing {
        Pacing::Hz(60)
    }
}

impl Pacing {
    /// Most frames a second [`Pacing::Uncapped`] runs. Unbounded, the demo
    /// ran about 22,700 frames a second (issue 28): an hour of those is 82
    /// million frame records (13 GiB). 240 is the fastest common display
    /// rate, and a frame (4.2 ms) is still a quarter of a 60 Hz tick, which
    /// is what uncapped pacing is for: most frames run no tick, and
    /// interpolation alpha climbs between ticks (docs/timeline.md, *The
    /// data*).
    pub const UNCAPPED_MAX_HZ: u32 = 240;

    /// The choices the toolbar offers.
    pub const CHOICES: [Pacing; 5] = [
        Pacing::Hz(30),
        Pacing::Hz(60),
        Pacing::Hz(144),
        Pacing::Uncapped,
        Pacing::Irregular,
    ];

    /// The nominal frame length, seconds: what a step-frame command advances by.
    /// Uncapped and irregular pacing have no nominal length, so they use 1/60 s.
    pub fn nominal_dt(self) -> f64 {
        match self {
            Pacing::Hz(hz) if hz > 0 => 1.0 / f64::from(hz),
            _ => 1.0 / 60.0,
        }
    }

    /// The most frames a second this pacing runs on average: what the
    /// timeline's ring is sized by. Irregular frames are 4 to 40 ms (22 ms on
    /// average, plus a stall every 64), so fewer than 60 a second.
    pub fn max_rate(self) -> u32 {
        match self {
            Pacing::Hz(hz) => hz.max(1),
            Pacing::Uncapped => Pacing::UNCAPPED_MAX_HZ,
            Pacing::Irregular => 60,
        }
    }

    /// Frame records the timeline keeps so that it holds the last hour at
    /// this pacing: one hour at [`Pacing::max_rate`], and never fewer than
    /// the default ring (an hour at 60 Hz). The ring is bounded in time this
    /// way, not only in frames (docs/timeline.md, *The data*).
    pub fn hour_of_frames(self) -> usize {
        let hour = 3600 * self.max_rate() as usize;
        hour.max(stepframe_core::telemetry::DEFAULT_CAPACITY)
    }

    /// Toolbar text.
    pub fn label(self) -> String {
        match self {
            Pacing::Hz(hz) => format!("{hz} Hz"),
            Pacing::Uncapped => "uncapped".to_string(),
            Pacing::Irregular => "irregular".to_string(),
        }
    }
}

/// UI → worker. Applied by [`super::worker::Worker::handle`], in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run: lift any suspension (finishing an interrupted frame) and keep going.
    Play,
    /// Suspend between frames.
    Pause,
    /// Play when suspended, pause when running (the Space shortcut).
    TogglePlay,
    /// Run exactly one fixed tick, then stay suspended.
    StepTick,
    /// Run one outer frame of the pacing's nominal length, then stay suspended.
    StepFrame,
    /// Time scale, applied at the next frame boundary.
    SetTimeScale(f64),
    /// Fixed ticks per second, applied at the next frame boundary.
    SetFixedRate(u32),
    /// Step cap per frame, applied at the next frame boundary.
    SetMaxSteps(u32),
    /// Accumulator or step counting, applied at the next frame boundary.
    SetStrategy(StepStrategy),
    /// The worker's own display rate.
    SetPacing(Pacing),
    /// Adds a breakpoint (its id is assigned by the debugger).
    AddBreakpoint(Breakpoint),
    /// Replaces the watches checked after every tick (an expression that does
    /// not compile leaves the old ones and reports the error).
    SetWatches(Vec<WatchSpec>),
    /// Searches the history backward for the last tick before `before` at
    /// which watch `watch` holds; answered with [`Event::WatchFound`].
    FindPrevious {
        /// Index in the last [`Command::SetWatches`] list.
        watch: usize,
        /// Search strictly before this tick.
        before: u64,
    },
    /// Adds a clock breakpoint (a rule on the shape of a frame or a tick).
    AddClockBreakpoint(ClockBreakpoint),
    /// Removes a breakpoint (hook or clock).
    RemoveBreakpoint(BreakpointId),
    /// Enables or disables a breakpoint.
    EnableBreakpoint(BreakpointId, bool),
    /// F9: removes the plain FixedUpdate (or MidStep) breakpoint on this
    /// object, or adds one on the first of those hooks it has.
    ToggleFixedBreakpoint(ObjectId),
    /// A device event from the viewport, for the game.
    Input(InputEvent),
    /// Opens a scene: a fresh session shown at tick 0, suspended (the preview).
    Load(PathBuf),
    /// Opens a scene and plays it at once (the editor's start-up).
    LoadAndPlay(PathBuf),
    /// Reloads the current scene from disk, keeping the time settings; a broken
    /// file changes nothing.
    Reload,
    /// Writes the running scene (authored data, current time settings) to its
    /// own file. Nothing is written when the file already holds exactly that
    /// scene; a hand-written file (comments, its own layout) or one changed on
    /// disk since it was loaded is only replaced when `replace` is set: without
    /// it the worker asks first ([`Event::ConfirmSave`]).
    Save {
        /// The user confirmed that the file's comments and layout (or its
        /// changes on disk) may be lost.
        replace: bool,
    },
    /// Writes the running scene, freshly formatted, to another file, which
    /// becomes the session's own file (Save writes there from now on). An
    /// existing file is only replaced when `overwrite` is set: without it the
    /// worker asks first ([`Event::ConfirmSave`]).
    SaveAs {
        /// The new file.
        path: PathBuf,
        /// The user confirmed replacing an existing file.
        overwrite: bool,
    },
    /// The object the inspector shows.
    Select(Option<ObjectId>),
    /// Enables or disables an object (hierarchy check box).
    SetEnabled(ObjectId, bool),
    /// Teleports a body (inspector edit while suspended), reconciled before the
    /// next tick as a `BodyCommand::SetPose`.
    EditPose(ObjectId, Pose),
    /// Overwrites a body's velocity (inspector edit while suspended), reconciled
    /// before the next tick as a `BodyCommand::SetVelocity`.
    EditVelocity(ObjectId, Velocity),
    /// New parameters (RON, checked as a scene load checks them) for one
    /// behaviour of an object, from its next hook call on; the behaviour
    /// keeps its state. An edit through the history, like the pose.
    EditParams {
        /// The object.
        object: ObjectId,
        /// The behaviour's place in the inspector's list.
        index: usize,
        /// The whole parameter text.
        params: String,
    },
    /// A copy of an object (hierarchy → Duplicate), with the next free id.
    Duplicate(ObjectId),
    /// Removes an object and its children (hierarchy → Delete).
    Remove(ObjectId),
    /// Edit → Undo (Ctrl+Z): takes the newest edit made where the session
    /// stands out of the history, as if it had never been made (the
    /// worker's `undo` module says when it can).
    Undo,
    /// Edit → Redo (Ctrl+Shift+Z): applies the newest undone edit again.
    Redo,
    /// Recompiles a script file between frames (the code pane's Save); every
    /// Script running it adopts the new version at its next frame boundary, and
    /// a syntax error keeps the old one running.
    ReloadScript(PathBuf),
    /// A change to the session's script line breakpoints (the code pane's
    /// gutter and form): the table belongs to the session's script host, which
    /// the worker owns, so the pane asks and reads the result in
    /// [`WorldView::scripts`].
    Script(ScriptCommand),
    /// The time cursor: build the session as it was at the end of this
    /// completed tick (keyframe + exact re-simulation in a scratch pipeline,
    /// the live session untouched) and publish it as a past [`WorldView`].
    /// Latest wins: a burst of requests (a drag, a held arrow key) builds only
    /// the last one.
    ViewTick(u64),
    /// The time cursor left the past: the worker stops rebuilding past views
    /// (a selection change rebuilds the last one asked for until then).
    ViewLive,
    /// Replay outer frame N from the history in a scratch pipeline with a
    /// flame zone per hook call (the Flame tab's per-behaviour zones), the
    /// live session untouched. Answered by [`Event::FrameReplayed`]; latest
    /// wins, like [`Command::ViewTick`].
    ReplayFrame(u64),
    /// "Resume from here": rewind the live session to the end of this tick
    /// (keyframe + exact re-simulation) and leave it suspended there; Play
    /// continues from it. Answered by [`Event::Rewound`] or an error.
    RewindTo(u64),
    /// "Resume from here" at the viewed tick as the user means it: with the
    /// Input tab's edited tape, if it changes something, from the tick
    /// before its first change or the cursor, whichever is earlier
    /// ([`Command::ApplyTape`]); else a plain [`Command::RewindTo`].
    ResumeFrom(u64),
    /// The Input tab's edited tape (`None`: reverted), kept by the worker
    /// until Resume from here replays it.
    SetTapeDraft(Option<Recording>),
    /// "Resume from here" with an edited input tape: rewind to the end of tick
    /// `from` (the tick before the tape's first change, or the cursor if that
    /// is earlier) and replay `tape` from tick `from + 1` on, through the rewind
    /// history (so later rewinds and past views replay it too). Live input is
    /// merged in as usual. Answered by [`Event::Rewound`] and a notice.
    ApplyTape {
        /// The edited tape (a whole recording: its ticks up to `from` are not
        /// replayed again).
        tape: Recording,
        /// Rewind to the end of this tick.
        from: u64,
    },
    /// Live input only from here on (the tape in force stops).
    StopTape,
    /// Measures the live session (run A) against a trace file (run B, a
    /// `stepframe play --trace` JSON Lines file) at every tick, the kept
    /// history included: answered by [`Event::Comparing`] and
    /// [`Event::Divergence`] batches, or an error naming line and column.
    CompareWith(PathBuf),
    /// Keeps the run so far, as far back as rewind reaches, as run B.
    CompareWithRun,
    /// Ends the comparison.
    StopCompare,
    /// "Fork here": branch B from the end of this tick beside the live
    /// session, run in lockstep with it (`worker::fork`). Answered by
    /// [`Event::Forked`], then [`Event::ForkTicks`] and [`Event::Divergence`].
    ForkHere(u64),
    /// B's input from now on: `tape` stands for what A's ticks receive up to
    /// `recorded_to` (A's tape with the user's changes), and adds its later
    /// edges to A's input after it.
    ForkTape {
        /// A's tape, edited.
        tape: Recording,
        /// The tick up to which it stands for A's input.
        recorded_to: u64,
    },
    /// A pose or velocity edit of B (reconciled before B's next tick).
    ForkEdit(Edit),
    /// New parameters (RON, checked as a scene load checks them) for one
    /// behaviour of an object in B, from B's next tick on; the behaviour
    /// keeps its state. A refusal is an error event and changes nothing.
    ForkParams {
        /// The object.
        object: ObjectId,
        /// The behaviour's place in the inspector's list
        /// ([`stepframe_core::Pipeline::behaviour_states`]'s order).
        index: usize,
        /// The whole parameter text.
        params: String,
    },
    /// A new version of a running script for B only (the code pane's Run in
    /// B): compiled into B's script host, the file untouched; a syntax error
    /// keeps B's old version and is reported with its line and column.
    ForkScript {
        /// The script's key (its resolved path).
        key: String,
        /// The new text.
        text: String,
    },
    /// B becomes the live session, paused; its rewind history starts there.
    AdoptFork,
    /// B is dropped.
    DiscardFork,
    /// File → Save session recording: writes the input every tick received
    /// and every edit and settings change made from the editor, each stamped
    /// with its tick, as one RON file `stepframe play --input` replays
    /// (docs/player.md). An existing file is only replaced when `overwrite`
    /// is set: without it the worker asks first ([`Event::ConfirmSave`]).
    SaveRecording {
        /// The file.
        path: PathBuf,
        /// The user confirmed replacing an existing file.
        overwrite: bool,
    },
    /// The rewind history's byte budget (`None`: unbounded in bytes).
    SetHistoryBudget(Option<usize>),
    /// Ends the worker thread.
    Shutdown,
    /// Deliberate fault injection, for tests of the editor's recovery: the
    /// worker panics in its own command handling, outside every hook's
    /// `catch_unwind`, as a bug in the worker itself would. The thread dies;
    /// the editor shows that and offers a restart from the last
    /// [`RecoveryPoint`]. The toolbar has no button for it, and the shipped
    /// binary does not have it at all: it exists with the `test-hooks`
    /// feature, which the app's own tests turn on.
    #[cfg(feature = "test-hooks")]
    DebugCrashWorker,
}

/// A script line breakpoint change, by script key (the resolved, canonical
/// path: see `stepframe_plugins::script::script_key`) and 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScriptCommand {
    /// The gutter click: removes the line's breakpoint, or sets a plain one.
    Toggle {
        /// The script.
        key: String,
        /// 1-based line.
        line: usize,
    },
    /// The form's Apply: sets the line's condition and log message (empty:
    /// none), creating the breakpoint if needed. A condition or template that
    /// does not compile changes nothing and is reported in
    /// [`ScriptsView::rejected`].
    Edit {
        /// The script.
        key: String,
        /// 1-based line.
        line: usize,
        /// A rhai expression; `None`: always stop.
        condition: Option<String>,
        /// A logpoint template; `None`: a breakpoint that stops.
        log_message: Option<String>,
    },
    /// Removes the line's breakpoint.
    Remove {
        /// The script.
        key: String,
        /// 1-based line.
        line: usize,
    },
}

/// Which save asked for a confirmation ([`Event::ConfirmSave`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveWhat {
    /// Save, to the scene's own file.
    Scene,
    /// Save As, to another file.
    SceneAs,
    /// Save session recording.
    Recording,
}

/// One pipeline call as the timeline sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTelemetry {
    /// The pipeline's own report (ticks, dropped time, accumulator, timings).
    pub report: FrameReport,
    /// The clock after the call.
    pub clock: Clock,
    /// The real time the worker measured since its previous frame, seconds.
    pub real_dt: f64,
    /// Wall time of the call, milliseconds.
    pub call_ms: f64,
    /// The call's coarse flame zones (phases, ticks, priority groups), as
    /// the pipeline recorded them live; `None` if it recorded none.
    pub zones: Option<Box<stepframe_core::FrameZones>>,
}

/// A frame replayed with fine flame zones ([`Command::ReplayFrame`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayedFrame {
    /// The outer frame asked for.
    pub frame: u64,
    /// Its zones and the names of the objects they ran for, or why the
    /// frame could not be replayed (too old for the history, not logged).
    pub result: Result<ReplayedZones, String>,
}

/// What a replay of one frame measured. Its times are the replay's, not
/// the live run's: the Flame tab labels them "replayed".
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayedZones {
    /// Coarse and per-call zones of the call that began the frame.
    pub zones: stepframe_core::FrameZones,
    /// The name of every object a call zone ran for, at the end of the
    /// replayed call, in id order.
    pub objects: Vec<(ObjectId, String)>,
}

/// One keyframe span of a plotted watch's past values, from the history.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchFill {
    /// The expression (a lane is its expression's, whatever its index in the
    /// list is by the time this arrives).
    pub expr: String,
    /// `(frame, value)` of the last tick of each frame in the span, oldest
    /// first.
    pub values: Vec<(u64, f64)>,
    /// The oldest tick filled so far (this span's first).
    pub from_tick: u64,
    /// The tick the fill started below (the live tick when it was added):
    /// later ticks arrive live.
    pub to_tick: u64,
    /// No older tick is kept: the fill is over.
    pub done: bool,
}

/// Things that happened, delivered in order and never dropped.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Telemetry of the pipeline calls since the last batch, oldest first.
    Frames(Vec<FrameTelemetry>),
    /// The session stopped: breakpoint B on object O's hook H at tick T, a step,
    /// a pause, a requested break or a fault.
    Suspended(Suspension),
    /// The session runs again.
    Resumed,
    /// A scene became the session (load or reload): a new physics world.
    /// Simulation time restarts at 0; frame time and frame index go on (the
    /// contract: frame time counts active outer frames, simulation time belongs
    /// to its physics world).
    Loaded {
        /// The file.
        path: PathBuf,
        /// Objects in the new world.
        objects: usize,
        /// Frames run so far (the first frame of the new world is the next one).
        frame_index: u64,
        /// Frame time so far, seconds.
        frame_time: f64,
    },
    /// A scene was written.
    Saved(PathBuf),
    /// Save, Save As or Save session recording needs the user's word first:
    /// the file is hand-written (its comments and layout would go), changed
    /// on disk, or exists.
    ConfirmSave {
        /// The file that would be replaced.
        path: PathBuf,
        /// What would be lost, in a sentence.
        reason: String,
        /// Which save asked (the confirmation re-sends that one).
        what: SaveWhat,
    },
    /// Something done that the user asked for ("saved the session recording
    /// to …"): shown for a moment and kept in the log.
    Done(String),
    /// A script file was recompiled ([`Command::ReloadScript`]): its Script
    /// behaviours adopt it at their next frame boundary.
    ScriptReloaded(PathBuf),
    /// Something worth telling the user that is not an error ("no changes to
    /// save", "no FixedUpdate on this object").
    Notice(String),
    /// What the watches did since the last batch (held, values, failures),
    /// in tick order.
    Watch(Vec<WatchEvent>),
    /// The answer to [`Command::FindPrevious`].
    WatchFound {
        /// Which watch.
        watch: usize,
        /// Searched before this tick.
        before: u64,
        /// The tick it last held, if it held anywhere in the kept history.
        tick: Option<u64>,
    },
    /// Values of plotted watches at ticks the rewind history keeps, found
    /// after the watch was added: one keyframe span of the fill, newest span
    /// first (see `worker/watches.rs`).
    WatchHistory(WatchFill),
    /// Something the user asked for failed (load, save, settings); the session
    /// goes on unchanged.
    Error(String),
    /// Log lines written by hooks and the runtime since the last batch.
    Log(Vec<LogEntry>),
    /// The session was rewound to the end of this tick (suspended there).
    Rewound(u64),
    /// The answer to a [`Command::ReplayFrame`].
    FrameReplayed(Box<ReplayedFrame>),
    /// A new worker took over the session from the last recovery point
    /// (after the old one died), paused at its tick; what the dead worker
    /// ran after that point is gone.
    Restarted {
        /// Completed ticks at the point.
        tick: u64,
        /// Outer frames run at the point.
        frame: u64,
    },
    /// A comparison began: run B, by name, shared with the UI (the
    /// inspector's B column and the viewport's B outlines read it).
    Comparing {
        /// The file name, or "this run, ticks 1–600".
        name: String,
        /// B's pose records by tick.
        trace: Arc<TracePoses>,
    },
    /// Ticks of run A measured against B, in tick order (the kept history
    /// first, then the live ticks as they run).
    Divergence(Vec<TickDivergence>),
    /// The comparison ended (a fork's too: adopted or discarded).
    CompareStopped,
    /// Branch B was made at the end of this tick.
    Forked(u64),
    /// B's records of the ticks it ran since the last batch, in tick order.
    ForkTicks(Vec<TracedTick>),
}

/// What the editor restarts a dead worker from: a whole-session snapshot taken
/// between two outer frames, the scene the session came from (for Save
/// and Reload), and the worker's own state beside the session (breakpoints,
/// time settings, selection, history budget). The worker sends one after
/// every load and then at most one per [`super::worker::RECOVERY_EVERY`] of
/// running wall time, and the same snapshot again with new host state
/// whenever that changes; the UI keeps the newest and hands it back to a
/// new worker untouched. The UI re-sends nothing: the worker owns it all.
#[derive(Clone)]
pub struct RecoveryPoint {
    /// The session between two frames (cursor idle, no suspension), shared
    /// by the points that differ only in host state (behind a lock because
    /// a snapshot's behaviours are `Send`, not `Sync`).
    pub(super) snapshot: Arc<std::sync::Mutex<Snapshot>>,
    /// Completed ticks and outer frames at the snapshot.
    pub(super) at: (u64, u64),
    /// The worker's state beside the session, as of the newest point.
    pub(super) host: HostState,
    /// The scene of the session, shared with the worker that sent it.
    pub(super) scene: Option<Arc<LoadedScene>>,
    /// The session's scripts: the snapshot's Script behaviours use this host,
    /// so the restarted worker keeps it (and its breakpoints).
    pub(super) scripts: stepframe_plugins::ScriptHost,
}

/// What a worker keeps beside the session that a restart must bring back.
#[derive(Clone, Debug)]
pub(super) struct HostState {
    /// Breakpoints (hook and clock) with their match counts.
    pub(super) debugger: stepframe_core::Debugger,
    /// The time settings the next frame runs with.
    pub(super) settings: stepframe_core::TimeSettings,
    /// The inspector's object.
    pub(super) selected: Option<ObjectId>,
    /// The rewind history's byte budget.
    pub(super) budget: Option<usize>,
    /// The breakpoints' object names and the labelled hits.
    pub(super) book: BreakpointBook,
}

/// What the worker keeps beside the pipeline's breakpoints: each object
/// breakpoint's object name as it was when set, and the hits labelled as
/// they happened (the worker's `breakpoints` module fills and reads it; a
/// restart brings it back with the rest of [`HostState`]).
#[derive(Clone, Debug, Default)]
pub(in crate::editor) struct BreakpointBook {
    /// Each object breakpoint's object name, as it was when the breakpoint
    /// was set.
    pub(in crate::editor) names: std::collections::BTreeMap<stepframe_core::BreakpointId, String>,
    /// The hits, oldest first, at most [`stepframe_core::debugger::MAX_HITS`].
    pub(in crate::editor) hits: std::collections::VecDeque<HitEntry>,
    /// The debugger's [`stepframe_core::Debugger::recorded`] count already in
    /// `hits`.
    pub(in crate::editor) seen: u64,
    /// The clock hit already in `hits` (breakpoint, tick, frame): the
    /// suspension it caused is seen at every call until the session moves.
    pub(in crate::editor) last_clock: Option<(stepframe_core::BreakpointId, u64, u64)>,
}

impl RecoveryPoint {
    /// Completed ticks at the snapshot.
    pub fn tick(&self) -> u64 {
        self.at.0
    }

    /// Outer frames run at the snapshot.
    pub fn frame(&self) -> u64 {
        self.at.1
    }

    /// The scene file of the session, if it came from one.
    pub fn scene_path(&self) -> Option<&Path> {
        self.scene.as_ref().map(|s| s.path.as_path())
    }
}

impl std::fmt::Debug for RecoveryPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The snapshot is a whole world: name it, do not print it.
        f.debug_struct("RecoveryPoint")
            .field("tick", &self.tick())
            .field("frame", &self.frame())
            .field("scene", &self.scene_path())
            .finish_non_exhaustive()
    }
}
