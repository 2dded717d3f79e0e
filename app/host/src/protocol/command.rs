//! Front end → host: [`Command`], a small enum of per-feature commands,
//! each handled by the feature that owns what it changes.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use stepframe_core::{
    Breakpoint, BreakpointId, ClockBreakpoint, InputEvent, ObjectId, Pose, Recording, StepStrategy,
    Velocity,
};
use stepframe_plugins::WatchSpec;

use super::DisplayRate;

/// Front end → host, applied in order by the host's one command handler,
/// which hands each to the feature that owns it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Running and stepping the live session, its time settings and input.
    Run(Run),
    /// A change to the session, of the live session or of branch B.
    Edit {
        /// Which session it changes.
        target: Target,
        /// The change.
        edit: EditCommand,
    },
    /// Hook and clock breakpoints.
    Breakpoints(BreakpointCommand),
    /// Watch expressions.
    Watches(WatchCommand),
    /// Past views, rewinds, undo and redo: the rewind history.
    Rewind(RewindCommand),
    /// Branch B: a what-if fork or a run compared with the live one.
    BranchB(BranchCommand),
    /// The input tape and the session recording.
    Recording(RecordingCommand),
    /// The scene and its files.
    Scene(SceneCommand),
    /// Script line breakpoints.
    Scripts(ScriptCommand),
    /// A past frame replayed with a flame zone per hook call.
    Flame(FlameCommand),
    /// The object the inspector shows (its data comes with every view).
    Select(Option<ObjectId>),
    /// Does a journal again in this (new) host: the session it describes,
    /// brought to `stop_after` (the end of that tick) or to the journal's
    /// end, and left suspended there. What a front end sends a host it
    /// started after the old one died, or one built from a new executable.
    Restore {
        /// The journal, from its last `Start` on (earlier entries only for
        /// the breakpoints, watches and settings they left).
        journal: Vec<super::JournalEntry>,
        /// Stop at the end of this tick (the tick before a fault), if given.
        stop_after: Option<u64>,
        /// Read the scene and scripts from their files again instead of
        /// the journal's texts (a new build: new parameters and defaults
        /// take effect).
        fresh_files: bool,
    },
    /// The front end took the newest view: the host may send the next one.
    /// At most one view is in flight, so a UI that draws five times a
    /// second is sent five views a second, never a backlog
    /// (`crate::protocol`'s delivery rules).
    ViewTaken,
    /// Ends the host.
    Shutdown,
    /// Deliberate fault injection for the front end's recovery tests: the
    /// host panics in its own command handling, outside every hook's
    /// `catch_unwind`, as a bug in the host itself would. Only with the
    /// `test-hooks` feature; the shipped binary has no such command.
    #[cfg(feature = "test-hooks")]
    DebugCrash,
}

/// Which session a [`Command::Edit`] changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// The live session, through its history (undoable while suspended,
    /// recorded, repeated by every past view and rewind).
    #[default]
    Live,
    /// Branch B of a what-if fork (applied to B alone, from its next tick).
    B,
}

/// Running and stepping (the stepping feature).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Run {
    /// Lift any suspension (finishing an interrupted frame) and keep going.
    Play,
    /// Suspend between frames.
    Pause,
    /// Play when suspended, pause when running (the Space shortcut).
    TogglePlay,
    /// Run exactly one fixed tick, then stay suspended.
    StepTick,
    /// Run one outer frame of the display rate's nominal length, then stay
    /// suspended.
    StepFrame,
    /// A time setting, applied at the next frame boundary (at once, as an
    /// edit before the next tick, while suspended).
    Set(TimeSetting),
    /// How often the host runs an outer frame.
    SetDisplayRate(DisplayRate),
    /// A device event from the front end (the viewport, a player window),
    /// for the game's next tick.
    Input(InputEvent),
}

/// One of the session's time settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum TimeSetting {
    /// Time scale.
    TimeScale(f64),
    /// Fixed ticks per second.
    FixedRate(u32),
    /// Step cap per frame.
    MaxSteps(u32),
    /// Accumulator or step counting.
    Strategy(StepStrategy),
}

/// A change of a session from the inspector, the hierarchy or the code
/// pane, for [`Target::Live`] or [`Target::B`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EditCommand {
    /// Teleports a body, reconciled before the next tick.
    Pose(ObjectId, Pose),
    /// Overwrites a body's velocity, reconciled before the next tick.
    Velocity(ObjectId, Velocity),
    /// New parameters (RON, checked as a scene load checks them) for one
    /// behaviour of an object, from its next hook call on; the behaviour
    /// keeps its state.
    Params {
        /// The object.
        object: ObjectId,
        /// The behaviour's place in the inspector's list.
        index: usize,
        /// The whole parameter text.
        params: String,
    },
    /// Enables or disables an object (and its subtree).
    Enabled(ObjectId, bool),
    /// A copy of an object, with the next free id.
    Duplicate(ObjectId),
    /// Removes an object and its children.
    Remove(ObjectId),
    /// A new version of a running script, by key (its resolved path): the
    /// live session's is the text just saved to its file (the code pane's
    /// Save), B's is only B's (Run in B, the file untouched). A syntax error
    /// keeps the old version and is reported with its line and column.
    Script {
        /// The script's key.
        key: String,
        /// The new text.
        text: String,
    },
    /// B's input from now on: `tape` stands for what the live session's
    /// ticks receive up to `recorded_to` (its recording with the user's
    /// changes), and adds its later edges after it. B only.
    Tape {
        /// The edited recording.
        tape: Recording,
        /// The tick up to which it stands for the live session's input.
        recorded_to: u64,
    },
}

/// Hook and clock breakpoints (the breakpoints feature).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BreakpointCommand {
    /// Adds a hook breakpoint (its id is assigned by the debugger).
    Add(Breakpoint),
    /// Adds a clock breakpoint (a rule on the shape of a frame or a tick).
    AddClock(ClockBreakpoint),
    /// Removes a breakpoint (hook or clock).
    Remove(BreakpointId),
    /// Enables or disables a breakpoint.
    Enable(BreakpointId, bool),
    /// F9: removes the plain FixedUpdate (or MidStep) breakpoint on this
    /// object, or adds one on the first of those hooks it has.
    ToggleFixed(ObjectId),
}

/// Watch expressions (the breakpoints feature: a watch is a condition on
/// the committed state of every tick).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WatchCommand {
    /// Replaces the list (an expression that does not compile leaves the
    /// old list and reports the error).
    Set(Vec<WatchSpec>),
    /// Adds a "show value" watch of this expression (an inspector's plot
    /// button), unless the list has one.
    Plot(String),
    /// Removes the "show value" watch of this expression (a lane's 🗙).
    Unplot(String),
    /// Searches the history backward for the last tick before `before` at
    /// which watch `watch` holds.
    FindPrevious {
        /// Index in the list.
        watch: usize,
        /// Search strictly before this tick.
        before: u64,
    },
}

/// The rewind history: past views, rewinds, undo and redo.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RewindCommand {
    /// Build the session as it was at the end of this completed tick and
    /// publish it as a past view. Latest wins: a burst builds only the last.
    ViewTick(u64),
    /// "Resume from here": rewind the live session to the end of this tick,
    /// suspended there.
    RewindTo(u64),
    /// "Resume from here" at the viewed tick as the user means it: with
    /// the draft tape if it changes something, from the tick before its
    /// first change or this one, whichever is earlier; else a plain rewind.
    ResumeFrom(u64),
    /// Edit → Undo: takes the newest edit made where the session stands out
    /// of the history, as if it had never been made.
    Undo,
    /// Edit → Redo: applies the newest undone edit again.
    Redo,
    /// The rewind history's byte budget (`None`: unbounded in bytes).
    SetBudget(Option<usize>),
}

/// Branch B (the branch-B feature).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BranchCommand {
    /// "Fork here": branch B from the end of this tick beside the live
    /// session, run in lockstep with it.
    ForkHere(u64),
    /// Measures the live session against a trace file (a `stepframe play
    /// --trace` JSON Lines file) at every tick, the kept history included.
    CompareWith(PathBuf),
    /// Keeps the run so far, as far back as rewind reaches, as run B.
    CompareWithRun,
    /// B becomes the live session, paused; its rewind history starts there.
    Adopt,
    /// B is dropped (a comparison ends).
    Discard,
    /// Sends the run so far, up to the end of tick `upto` and as far back
    /// as rewind reaches, as [`BranchEvent::Run`](super::BranchEvent::Run)
    /// batches: what a front end keeps of an old build's session, to
    /// compare a new build's with. Reads only.
    SendRun {
        /// The last tick sent.
        upto: u64,
    },
    /// One batch of a run kept elsewhere (an old build's, sent as
    /// [`BranchEvent::Run`](super::BranchEvent::Run)); with `last`, the
    /// batches so far become run B, named `name`, measured against the live
    /// session at every tick, the kept history included.
    CompareWithTicks {
        /// What B is called: the old build, as the front end names it.
        name: String,
        /// The batch's ticks, in order.
        ticks: Vec<crate::traced::TracedTick>,
        /// The last batch.
        last: bool,
    },
}

/// The input tape and the session recording (the recording feature).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RecordingCommand {
    /// The Input tab's edited tape, kept by the host until Resume from here
    /// replays it (`None`: no edits).
    SetDraft(Option<Recording>),
    /// "Resume from here" with an edited tape: rewind to the end of tick
    /// `from` and replay `tape` from tick `from + 1` on, suspended there.
    Apply {
        /// The edited tape.
        tape: Recording,
        /// Rewind to the end of this tick.
        from: u64,
    },
    /// Live input only from here on (the tape in force stops).
    StopTape,
    /// Writes the input every tick received and every edit made, each
    /// stamped with its tick, as one RON file `stepframe play --input`
    /// replays. An existing file is replaced only when `overwrite` is set.
    Save {
        /// The file.
        path: PathBuf,
        /// The user confirmed replacing an existing file.
        overwrite: bool,
    },
}

/// The scene and its files (the scene feature).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SceneCommand {
    /// Opens a scene: a fresh session, playing (`play`) or shown at tick 0,
    /// suspended (the preview).
    Load {
        /// The file.
        path: PathBuf,
        /// Play at once (the editor's start-up) or show the preview.
        play: bool,
    },
    /// Reloads the scene from disk, keeping the time settings; a broken
    /// file changes nothing.
    Reload,
    /// Writes the running scene to its own file (nothing when the file
    /// already holds it); a hand-written or changed file is replaced only
    /// when `replace` is set, else the host asks first.
    Save {
        /// The user confirmed losing the file's comments or changes.
        replace: bool,
        /// The user saw what the save writes ([`SaveRisk::Review`]): the
        /// first save into a file this host has not written asks first.
        ///
        /// [`SaveRisk::Review`]: super::SaveRisk::Review
        reviewed: bool,
    },
    /// Writes the running scene to another file, which becomes the
    /// session's own; an existing one is replaced only when `overwrite` is
    /// set, else the host asks first.
    SaveAs {
        /// The new file.
        path: PathBuf,
        /// The user confirmed replacing it.
        overwrite: bool,
    },
}

/// A script line breakpoint change, by script key and 1-based line (the
/// scripts feature).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScriptCommand {
    /// The gutter click: removes the line's breakpoint, or sets a plain one.
    Toggle {
        /// The script.
        key: String,
        /// 1-based line.
        line: usize,
    },
    /// The form's Apply: the line's condition and log message (`None`:
    /// none), creating the breakpoint if needed. One that does not compile
    /// changes nothing and is reported in the scripts' view.
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

/// The Flame tab (the flame feature).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FlameCommand {
    /// Replay outer frame N from the history with a flame zone per hook
    /// call. Latest wins, like a past view.
    ReplayFrame(u64),
}
