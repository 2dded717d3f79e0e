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
    BehaviourInfo, BehaviourState, BodyCommand, BodyDesc, BodyKind, Breakpoint, BreakpointHit,
    BreakpointId, Clock, ClockBreakpoint, FrameReport, InputEvent, LogEntry, ObjectId, Pose,
    Recording, RewindReach, Shape, Snapshot, StepStrategy, Suspension, TimeSettings, Vec2,
    Velocity,
};

use stepframe_plugins::script::{HookEngine, LineBreakpoint, ScriptError, ScriptHit};
use stepframe_plugins::{WatchEvent, WatchSpec};

use super::session::LoadedScene;
use crate::tools::trace_poses::{TickDivergence, TracePoses, TracedTick};

/// How often the worker runs an outer frame, independent of UI repaints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pacing {
    /// A fixed display rate, frames per second (30, 60, 144...).
    Hz(u32),
    /// As fast as the worker can go (still measuring real dt per frame).
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
    /// F9: removes the plain FixedUpdate breakpoint on this object, or adds one.
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
    /// "Resume from here": rewind the live session to the end of this tick
    /// (keyframe + exact re-simulation) and leave it suspended there; Play
    /// continues from it. Answered by [`Event::Rewound`] or an error.
    RewindTo(u64),
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
    /// A body command for B (reconciled before B's next tick).
    ForkEdit(BodyCommand),
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

/// One object as the viewport and hierarchy need it.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectView {
    /// Stable id.
    pub id: ObjectId,
    /// Display name.
    pub name: String,
    /// Parent in the hierarchy.
    pub parent: Option<ObjectId>,
    /// Whether callbacks run for it.
    pub enabled: bool,
    /// The pose to draw: interpolated while running, exactly the committed pose
    /// while suspended.
    pub presentation: Pose,
    /// `physics_simulation_pose`: the committed world pose of the completed tick.
    pub committed: Pose,
    /// Body kind and shapes, if it has a body.
    pub body: Option<BodyView>,
}

/// What the viewport draws of a body.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyView {
    /// Dynamic, kinematic or fixed (drawn in different colours).
    pub kind: BodyKind,
    /// Shapes in the body's frame.
    pub shapes: Vec<Shape>,
    /// Sensors are drawn unfilled.
    pub sensor: bool,
    /// A soft body's particles and outline (soft bodies have no shapes).
    pub soft: Option<SoftView>,
}

/// What the viewport draws of a soft body, and the inspector lists.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftView {
    /// The particles as drawn now: blended previous → committed by alpha
    /// while running, the committed ones while suspended.
    pub particles: Vec<Vec2>,
    /// The committed particles (the viewport's "Committed poses" overlay).
    pub committed: Vec<Vec2>,
    /// Boundary loops, particle indices in order (`true`: closed, a jelly;
    /// `false`: open, a rope).
    pub outlines: Vec<(Vec<u32>, bool)>,
    /// Particle radius, m.
    pub radius: f32,
    /// Pinned particle indices, ascending.
    pub pinned: Vec<u32>,
    /// Pieces after tears (1 if it never tore).
    pub pieces: u32,
    /// It has torn.
    pub torn: bool,
}

/// Everything the inspector shows of the selected object.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectedView {
    /// Which object.
    pub id: ObjectId,
    /// Display name.
    pub name: String,
    /// Whether callbacks run for it.
    pub enabled: bool,
    /// `physics_simulation_pose`: committed world pose of the completed tick.
    pub committed: Pose,
    /// The pose presentation draws now.
    pub presentation: Pose,
    /// The committed pose of the tick before (interpolation start), bodies only.
    pub previous: Option<Pose>,
    /// Velocity at the end of the completed tick, bodies only.
    pub velocity: Option<Velocity>,
    /// The authored body, if any.
    pub body: Option<BodyDesc>,
    /// Behaviours with priority and parameters, as authored.
    pub behaviours: Vec<BehaviourInfo>,
    /// The same behaviours as they are now (at the viewed tick): hooks,
    /// whether started or faulted, and their state.
    pub states: Vec<BehaviourState>,
    /// Inspector edits queued since the last tick, waiting for its reconcile.
    pub pending_edits: Vec<String>,
}

/// The state of the session, published after every worker frame or command
/// (the live view), or rebuilt for a past tick ([`Command::ViewTick`]). Latest
/// wins: the UI may skip views, never telemetry or events.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldView {
    /// Increases with every publish; the UI uses it to tell views apart.
    pub revision: u64,
    /// `None` for the live session; `Some(T)` for the session as it was at the
    /// end of completed tick T (every field then describes that moment).
    pub at_tick: Option<u64>,
    /// The clock after the frame (completed-tick values), with the accumulator.
    pub clock: Clock,
    /// Time settings as chosen (they apply at the next frame boundary).
    pub settings: TimeSettings,
    /// The worker's display rate.
    pub pacing: Pacing,
    /// Why the session is suspended, if it is.
    pub suspension: Option<Suspension>,
    /// The scene file of the session, if it came from one.
    pub scene_path: Option<PathBuf>,
    /// Live objects in id order.
    pub objects: Vec<ObjectView>,
    /// Pairs touching at the end of the completed tick, in id order.
    pub contacts: Vec<(ObjectId, ObjectId)>,
    /// Camera centre set by a presentation hook (FollowCamera), if any.
    pub camera: Option<stepframe_core::Vec2>,
    /// Breakpoints with their match counts.
    pub breakpoints: Vec<Breakpoint>,
    /// The clock breakpoints, in creation order (ids shared with the above).
    pub clock_breakpoints: Vec<ClockBreakpoint>,
    /// The most recent breakpoint hits, oldest first.
    pub hits: Vec<BreakpointHit>,
    /// The inspector's object.
    pub selected: Option<SelectedView>,
    /// Stable hash of the committed state after the last tick (0 before the first).
    pub state_hash: u64,
    /// Action names and the keys bound to them, for the viewport's help line.
    pub actions: Vec<(String, Vec<String>)>,
    /// Outer frames per second the worker ran over its last 60 frames (its own
    /// pacing, independent of the UI's repaints); `None` before any frame.
    pub worker_fps: Option<f64>,
    /// The input tape: what every tick of the session's branch received, tick
    /// by tick (shared, not copied, from view to view). Its `ticks` may lag
    /// the clock: ticks without input are not written into it.
    pub tape: Arc<Recording>,
    /// The input tape in force (Resume from here with an edited tape), whose
    /// edges after the current tick are still to be replayed.
    pub tape_in_force: Option<Arc<Recording>>,
    /// The session's scripts as the code pane shows them.
    pub scripts: ScriptsView,
    /// How far back rewind reaches, in how many bytes ("rewind reaches 9 min
    /// 40 s in 256 MiB").
    pub rewind: RewindReach,
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

/// What the code pane reads of the session's scripts (the worker's
/// [`stepframe_plugins::ScriptHost`]), published with every view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScriptsView {
    /// Line breakpoints of every script, by key, in key order.
    pub breakpoints: Vec<(String, Vec<LineBreakpoint>)>,
    /// The newest script breakpoint hit (what a script-breakpoint suspension
    /// stopped at).
    pub last_hit: Option<ScriptHit>,
    /// Every script the session has loaded, in key order.
    pub loaded: Vec<LoadedScript>,
    /// The last [`ScriptCommand::Edit`] that was rejected, if no edit of that
    /// line succeeded since: (key, line, why).
    pub rejected: Option<(String, usize, String)>,
}

impl ScriptsView {
    /// The breakpoints of one script, in line order.
    pub fn lines(&self, key: &str) -> &[LineBreakpoint] {
        self.breakpoints
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&[], |(_, lines)| lines.as_slice())
    }

    /// A loaded script, by key.
    pub fn script(&self, key: &str) -> Option<&LoadedScript> {
        self.loaded.iter().find(|s| s.key == key)
    }
}

/// A script the session has compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedScript {
    /// Its key.
    pub key: String,
    /// The text of the program in force (what its line numbers refer to).
    pub text: Arc<str>,
    /// The last failed compile, if no good one came after it.
    pub compile_error: Option<ScriptError>,
    /// Which engine each hook function runs on.
    pub engines: Vec<HookEngine>,
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
    /// Save or Save As needs the user's word first: the file is hand-written
    /// (its comments and layout would go), changed on disk, or exists.
    ConfirmSave {
        /// The file that would be replaced.
        path: PathBuf,
        /// What would be lost, in a sentence.
        reason: String,
        /// Whether it was a Save As (the confirmation re-sends that).
        save_as: bool,
    },
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
    /// Something the user asked for failed (load, save, settings); the session
    /// goes on unchanged.
    Error(String),
    /// Log lines written by hooks and the runtime since the last batch.
    Log(Vec<LogEntry>),
    /// The session was rewound to the end of this tick (suspended there).
    Rewound(u64),
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
/// between two outer frames, and the scene the session came from (for Save
/// and Reload). The worker sends one after every load and then at most one per
/// [`super::worker::RECOVERY_EVERY`] of running wall time; the UI keeps the
/// newest. Breakpoints, time settings and the selection are not in it: the UI
/// re-sends the ones its latest view shows.
#[derive(Clone)]
pub struct RecoveryPoint {
    /// The session between two frames (cursor idle, no suspension).
    pub(super) snapshot: Snapshot,
    /// The scene of the session, shared with the worker that sent it.
    pub(super) scene: Option<Arc<LoadedScene>>,
    /// The session's scripts: the snapshot's Script behaviours use this host,
    /// so the restarted worker keeps it (and its breakpoints).
    pub(super) scripts: stepframe_plugins::ScriptHost,
}

impl RecoveryPoint {
    /// Completed ticks at the snapshot.
    pub fn tick(&self) -> u64 {
        self.snapshot.tick()
    }

    /// Outer frames run at the snapshot.
    pub fn frame(&self) -> u64 {
        self.snapshot.frame_index()
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
