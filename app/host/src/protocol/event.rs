//! Host → front end, in order and never dropped: [`Event`]. What the host
//! has to say is data ([`Notice`], [`HostError`]); the front end chooses
//! the words.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use stepframe_core::{
    BreakpointId, Clock, Edit, FrameReport, FrameZones, HookKind, InputEvent, LogEntry, ObjectId,
    RecordedEdit, Recording, RewindReach, Suspension,
};
use stepframe_plugins::WatchEvent;

use crate::traced::TickDivergence;

/// Things that happened, delivered in order and never dropped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// Telemetry of the pipeline calls since the last batch, oldest first.
    Frames(Vec<FrameTelemetry>),
    /// The session stopped: a breakpoint, a step, a pause, a requested
    /// break or a fault.
    Suspended(Suspension),
    /// The session runs again.
    Resumed,
    /// A scene became the session (load or reload): a new physics world.
    /// Simulation time restarts at 0; frame time and frame index go on.
    Loaded {
        /// The file.
        path: PathBuf,
        /// Objects in the new world.
        objects: usize,
        /// Frames run so far (the new world's first frame is the next one).
        frame_index: u64,
        /// Frame time so far, seconds.
        frame_time: f64,
    },
    /// A scene was written.
    Saved(PathBuf),
    /// Save, Save As or Save session recording needs the user's word first.
    ConfirmSave {
        /// The file that would be replaced.
        path: PathBuf,
        /// What would be lost.
        reason: SaveRisk,
        /// Which save asked (the confirmation re-sends that one).
        what: SaveWhat,
    },
    /// Something worth telling the user.
    Notice(Notice),
    /// Something the user asked for failed; the session goes on unchanged.
    Error(HostError),
    /// What the watches did since the last batch, in tick order.
    Watch(Vec<WatchEvent>),
    /// The answer to a watch's Find previous.
    WatchFound {
        /// Which watch.
        watch: usize,
        /// Searched before this tick.
        before: u64,
        /// The tick it last held, if it held anywhere in the kept history.
        tick: Option<u64>,
    },
    /// Values of a plotted watch at ticks the rewind history keeps, found
    /// after the watch was added: one keyframe span, newest span first.
    WatchHistory(WatchFill),
    /// Log lines written by hooks and the runtime since the last batch.
    Log(Vec<LogEntry>),
    /// The session was rewound to the end of this tick (suspended there).
    Rewound(u64),
    /// The answer to a frame replay for the Flame tab.
    FrameReplayed(Box<ReplayedFrame>),
    /// Branch B began, changed or ended, or A and B were measured.
    BranchB(BranchEvent),
    /// The session recording grew or was cut: what the front end keeps of
    /// it, as it happens, so nothing lives only in the host.
    Recording(RecordingChange),
    /// The input tape in force changed (`None`: live input only).
    TapeInForce(Option<Recording>),
    /// The Input tab's edited tape, as the host keeps it for Resume from
    /// here (`None`: no draft).
    TapeDraft(Option<Recording>),
    /// The session's scripts as the code pane shows them, when they changed.
    Scripts(super::ScriptsView),
    /// What the host did to the session since the last batch, in order:
    /// the front end keeps the journal, so a new host can do it again.
    Journal(Vec<super::JournalEntry>),
    /// How far a host doing a journal again has got (sent a few times a
    /// second while it runs flat out: a progress bar's figures).
    Replaying {
        /// Journal entries done.
        done: usize,
        /// Journal entries in all.
        of: usize,
        /// The completed tick it has reached.
        tick: u64,
    },
    /// What went wrong while a journal was done again
    /// ([`Command::Restore`](super::Command::Restore)): the scene no longer
    /// loads, an edit no longer applies. `tick`: the completed tick the
    /// replay had reached.
    ReplayError {
        /// The tick.
        tick: u64,
        /// What went wrong.
        error: HostError,
    },
    /// A host replayed a journal ([`Command::Restore`](super::Command::Restore)) and stands,
    /// suspended, at the end of `tick`.
    Restored {
        /// The completed tick it stands at.
        tick: u64,
        /// Why it stopped there: at the tick asked for, or where the
        /// journal ran out first.
        asked: Option<u64>,
    },
}

/// What happened to branch B.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BranchEvent {
    /// A comparison with a trace file or the run so far began.
    Comparing {
        /// The file name, or "this run" with its ticks.
        name: BName,
        /// The first and last tick B holds.
        ticks: (u64, u64),
    },
    /// A what-if branch was made at the end of this tick.
    Forked(u64),
    /// Ticks of A measured against B, in tick order (the kept history
    /// first, then the live ticks as they run).
    Measured(Vec<TickDivergence>),
    /// B became the live session (it had been forked at `forked_at`): A's
    /// frames after that tick never happened in the session now shown.
    Adopted {
        /// The tick B was forked at.
        forked_at: u64,
        /// The live tick B was adopted at.
        at: u64,
    },
    /// B is gone (discarded, a new scene, a rewind).
    Ended,
    /// A batch of the run so far, as [`BranchCommand::SendRun`](super::BranchCommand::SendRun)
    /// asked (oldest first; batches of at most [`RUN_BATCH_TICKS`] ticks,
    /// well under a frame's cap).
    Run {
        /// The batch's ticks.
        ticks: Vec<crate::traced::TracedTick>,
        /// The last batch.
        last: bool,
    },
}

/// Ticks in one [`BranchEvent::Run`] batch: 2,000 ticks of 1,000 bodies
/// are ~56 MB at most (six f32s and an id a body), under the wire's 64 MiB
/// frame; a scene of 100 bodies sends ~6 MB a batch.
pub const RUN_BATCH_TICKS: usize = 2_000;

/// What run B is called.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BName {
    /// A trace file, by name.
    Trace(String),
    /// The run so far, ticks first to last.
    ThisRun(u64, u64),
    /// A what-if branch forked at this tick.
    Fork(u64),
    /// The session as the previous build of the game ran it, by the name
    /// the front end gave it.
    OldBuild(String),
}

/// A change of the session recording (what every tick received and every
/// edit made), which the front end applies to its copy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RecordingChange {
    /// A new session (a load, an adopted branch): this is all of it.
    Reset(Recording),
    /// Ticks that received input.
    Ticks(Vec<(u64, Vec<InputEvent>)>),
    /// An edit, stamped with the tick it applies before.
    Edit(RecordedEdit),
    /// An edit taken back (Undo): it is gone from the recording.
    Unedit(RecordedEdit),
    /// A new future from the end of this tick: everything after it goes.
    CutAfter(u64),
}

/// One pipeline call as the timeline sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameTelemetry {
    /// The pipeline's own report (ticks, dropped time, accumulator, timings).
    pub report: FrameReport,
    /// The clock after the call.
    pub clock: Clock,
    /// The real time the host measured since its previous frame, seconds.
    pub real_dt: f64,
    /// Wall time of the call, milliseconds.
    pub call_ms: f64,
    /// The call's coarse flame zones, as the pipeline recorded them live.
    pub zones: Option<Box<FrameZones>>,
}

/// A frame replayed with fine flame zones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayedFrame {
    /// The outer frame asked for.
    pub frame: u64,
    /// Its zones and the names of the objects they ran for, or why the
    /// frame could not be replayed.
    pub result: Result<ReplayedZones, String>,
}

/// What a replay of one frame measured (the replay's times, not the live
/// run's: the Flame tab labels them "replayed").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayedZones {
    /// Coarse and per-call zones of the call that began the frame.
    pub zones: FrameZones,
    /// The name of every object a call zone ran for, in id order.
    pub objects: Vec<(ObjectId, String)>,
}

/// One keyframe span of a plotted watch's past values, from the history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WatchFill {
    /// The expression (a lane is its expression's).
    pub expr: String,
    /// `(tick, frame, value)` of every tick in the span, oldest first.
    pub values: Vec<(u64, u64, f64)>,
    /// The oldest tick filled so far (this span's first).
    pub from_tick: u64,
    /// The tick the fill started below (the live tick when it was added):
    /// later ticks arrive live.
    pub to_tick: u64,
    /// No older tick is kept: the fill is over.
    pub done: bool,
}

/// Which save asked for a confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaveWhat {
    /// Save, to the scene's own file.
    Scene,
    /// Save As, to another file.
    SceneAs,
    /// Save session recording.
    Recording,
}

/// What a save would lose, so it asks first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SaveRisk {
    /// The file exists.
    Exists,
    /// The file changed on disk since it was loaded or saved.
    ChangedOnDisk,
    /// Some changes have no place in the hand-written text, so the file
    /// would be rewritten in stepframe's layout, dropping its comments.
    Rewrite {
        /// Comment lines the file has.
        comments: usize,
        /// Why the changes cannot be placed in its text.
        why: String,
    },
    /// The first save into a file this host has not written: what it
    /// writes into the scene, for the user to see before it does (the
    /// toolbar's experiments go in too, which surprised a user once).
    Review {
        /// The edits that go into the file, oldest first.
        edits: Vec<EditLabel>,
        /// The time settings that change: `(setting, in the file, saved)`.
        settings: Vec<SettingChange>,
        /// An adopted branch B's parameters go in too (they are not edits).
        adopted: bool,
        /// Edits a scene cannot hold, which the save leaves out (a
        /// velocity, an edit of an object spawned at run time).
        left_out: Vec<EditLabel>,
    },
}

/// A time setting whose value a save changes in the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingChange {
    /// The setting, as the scene's `time` section names it (`fixed_hz`).
    pub setting: String,
    /// Its value in the file now.
    pub from: String,
    /// The value the save writes.
    pub to: String,
}

/// An edit as the user made it, for a menu item or a notice: what it did
/// and to which object (its name then).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditLabel {
    /// What the edit did.
    pub kind: EditKind,
    /// Its object by id and name, if it has one.
    pub object: Option<(ObjectId, String)>,
}

/// What an edit did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EditKind {
    /// A body's pose.
    Pose,
    /// A body's velocity.
    Velocity,
    /// A behaviour's parameters, by its registered name.
    Params(String),
    /// Enabled (true) or disabled.
    Enabled(bool),
    /// A duplicate of an object.
    Duplicate,
    /// An object deleted.
    Delete,
    /// Time settings.
    Settings,
    /// A script's new text, by key.
    Reload(String),
}

/// Something worth telling the user that is not an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Notice {
    /// After a load: a breakpoint whose object (id and name) the new scene
    /// lacks was disabled, never moved to whatever has the id now.
    BreakpointDisabled {
        /// The breakpoint.
        id: BreakpointId,
        /// Its hook (`None`: any).
        hook: Option<HookKind>,
        /// Its object's id and the name it had when set.
        object: (ObjectId, String),
        /// The scene's file name.
        scene: String,
        /// What the new scene has under that id, if anything.
        there: Option<String>,
    },
    /// A breakpoint whose object is not in this scene stays disabled.
    BreakpointStaysDisabled(BreakpointId),
    /// F9 on an object with neither a FixedUpdate nor a MidStep hook: no
    /// breakpoint was set.
    NoFixedUpdate {
        /// The object and its name.
        object: (ObjectId, String),
        /// Its behaviours' names.
        behaviours: Vec<String>,
    },
    /// New parameters took effect.
    ParamsApplied {
        /// Which session.
        target: super::Target,
        /// The behaviour's registered name.
        behaviour: String,
        /// Its object and name.
        object: (ObjectId, String),
        /// The parameter text in force.
        params: String,
        /// The first tick that runs with them.
        from_tick: u64,
    },
    /// B's input tape changed.
    BTapeChanged {
        /// Edges after B's tick.
        edges: usize,
        /// The first tick they reach.
        from_tick: u64,
    },
    /// B runs an edited script from its next frame (the file unchanged).
    BScriptChanged(String),
    /// B became the live session.
    BAdopted {
        /// The tick B was forked at.
        forked_at: u64,
        /// The new history's reach.
        reach: RewindReach,
    },
    /// An adopted branch's parameter changes are in the scene now.
    BParamsInScene,
    /// B was dropped.
    BDiscarded,
    /// Undo and Redo work while suspended.
    UndoNeedsSuspension {
        /// Redo (true) or Undo.
        redo: bool,
    },
    /// An edit was undone.
    Undone {
        /// The edit.
        edit: EditLabel,
        /// The tick it applied before.
        before: u64,
    },
    /// An edit was done again.
    Redone {
        /// The edit.
        edit: EditLabel,
        /// The tick it applies before.
        before: u64,
    },
    /// Nothing undone: the session has run on since the last edit.
    UndoRanOn {
        /// The edit Undo would have taken out.
        edit: EditLabel,
        /// The tick it was made at.
        made_at: u64,
        /// The tick the session stands at.
        now: u64,
    },
    /// Nothing to undo at this tick.
    NothingToUndo(u64),
    /// Nothing to redo.
    NothingToRedo,
    /// A tape counted at another tick rate.
    TapeRate {
        /// The tape's rate.
        tape_hz: u32,
        /// The session's.
        session_hz: u32,
    },
    /// An edited tape is in force.
    TapeInForce {
        /// Edges still to replay.
        edges: usize,
        /// The first tick they reach.
        from_tick: u64,
    },
    /// The tape in force stopped.
    TapeStopped,
    /// Resume from here dropped edits made after the tick.
    EditsDropped {
        /// The tick resumed from.
        tick: u64,
        /// The edits that are no longer in the new future.
        edits: Vec<EditLabel>,
    },
    /// A rewind (Resume from here) brought back the time settings the
    /// session had at that tick.
    SettingsBack {
        /// The tick rewound to.
        tick: u64,
        /// The settings before the rewind.
        from: stepframe_core::TimeSettings,
        /// The tick's settings, in force again.
        to: stepframe_core::TimeSettings,
    },
    /// Save found nothing to write.
    NoChangesToSave(PathBuf),
    /// A save left these edits out (a scene cannot hold them).
    NotSaved(String),
    /// The session recording was written.
    RecordingSaved {
        /// The file.
        path: PathBuf,
        /// Input edges in it.
        edges: usize,
        /// Edits in it.
        edits: usize,
        /// Ticks it covers.
        ticks: u64,
    },
    /// The scene's file changed on disk but the session has edits it lacks.
    SceneChangedKept {
        /// The file name.
        file: String,
        /// Unsaved edits.
        unsaved: usize,
    },
    /// The scene's file changed on disk and was reloaded.
    SceneReloadedFromDisk(String),
    /// The scene's file changed on disk and does not load.
    SceneChangedBroken(String),
    /// A script file was recompiled: its Script behaviours adopt it at
    /// their next frame boundary.
    ScriptReloaded(String),
}

/// Something the user asked for failed; the session goes on unchanged.
/// Reasons from lower layers (a scene's `file:line:column: what`, an
/// expression's compile error) travel as their text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum HostError {
    /// A scene did not load or reload.
    Scene(String),
    /// No scene is open (Reload, Save).
    NoScene,
    /// A save failed.
    Save(String),
    /// The session recording was not written.
    RecordingNotSaved(String),
    /// Pose, velocity and parameter edits wait for a suspension.
    EditNeedsSuspension,
    /// An edit was refused.
    EditRefused {
        /// Which session.
        target: super::Target,
        /// Why.
        reason: String,
        /// A Script's parameters name another file: edit its code instead.
        script_file: bool,
    },
    /// No such object.
    NoObject(ObjectId),
    /// The object has no behaviour at that place.
    NoBehaviour {
        /// The object.
        object: ObjectId,
        /// The place asked for.
        index: usize,
    },
    /// A B edit without a B.
    NoBranch,
    /// The fork could not be made.
    Fork {
        /// The tick asked for.
        tick: u64,
        /// Why.
        reason: String,
    },
    /// B could not follow A.
    BranchStuck {
        /// The tick A is at.
        tick: u64,
        /// Why.
        reason: String,
    },
    /// A comparison could not start.
    Compare(String),
    /// A trace file holds no tick.
    CompareEmpty(PathBuf),
    /// Compare with this run before anything ran.
    NothingToKeep,
    /// The kept history could not be measured or kept.
    History(String),
    /// A clock breakpoint that cannot be added.
    ClockBreakpoint(String),
    /// Watches that do not compile (the old list stays).
    Watches(String),
    /// No watch at that place.
    NoWatch(usize),
    /// Find previous failed.
    FindPrevious {
        /// The watch's expression.
        expr: String,
        /// Why.
        reason: String,
    },
    /// A past tick could not be shown.
    PastView {
        /// The tick.
        tick: u64,
        /// Why.
        reason: String,
    },
    /// Resume from here could not rewind.
    Rewind {
        /// The tick.
        tick: u64,
        /// Why.
        reason: String,
    },
    /// Undo or Redo failed.
    Undo(String),
    /// Time settings that cannot run.
    TimeSettings(String),
    /// A script's new text does not compile or load (the old one runs on).
    Script {
        /// Which session.
        target: super::Target,
        /// Why, with line and column.
        reason: String,
    },
}

/// A pose or velocity edit queued for the next reconcile, listed under the
/// inspector's fields until that tick runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueuedEdit {
    /// The edit.
    pub edit: Edit,
    /// The tick whose reconcile applies it.
    pub before: u64,
}
