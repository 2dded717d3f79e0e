//! What every panel reads and how every panel asks: the UI side of "one
//! source of truth".
//!
//! The worker owns everything that describes the session. The UI keeps
//! three kinds of things and nothing else:
//!
//! - [`Published`]: what the worker last published, written only by the
//!   app's drain: the newest live [`WorldView`], the newest past view, the
//!   newest recovery point, the recorded frames (the timeline's records and
//!   live zones, which the Clock and Flame tabs read too), and the streams
//!   of run B (its records, the measured ticks) as they arrived;
//! - UI state: the [`TimeCursor`] (which tick the user looks at), the open
//!   scene's bookmarks (kept beside the scene, listed by one tab and drawn
//!   by the timeline), the
//!   [`Feedback`] (the error line, notices, the log book) and each panel's own
//!   fields (folds, text being typed, the camera);
//! - nothing that mirrors the worker: the selection, the fork, the
//!   comparison, the draft tape and the resume tick all come from the live view ([`Reading::live`]).
//!
//! A panel is a struct with its own state implementing [`Panel`]: its `ui`
//! reads a [`Reading`] and asks through [`Commands`]: a worker [`Command`] goes out at
//! once; a UI [`Action`] (view a tick, a notice) is applied by the app after
//! the frame, in one place (Rerun's command habit on both sides).

use std::collections::{BTreeMap, VecDeque};

use crossbeam_channel::Sender;
use serde::{Deserialize, Serialize};
use stepframe_core::{LogLevel, ObjectId};

use stepframe_core::Recording;
use stepframe_host::protocol::{
    Command, DisplayRate, Event, JournalEntry, LiveView, RunB, ScriptsView, WorldView,
};
use stepframe_host::traced::{TickDivergence, TracedFields};

use super::workspace::Pane;
use crate::editor::bookmarks::Bookmarks;
use crate::editor::frames::Frames;
use crate::editor::log_book::LogBook;

/// The rewind history's default byte budget, MiB (core's default).
pub const DEFAULT_HISTORY_MIB: u32 = (stepframe_core::history::DEFAULT_BUDGET_BYTES >> 20) as u32;

/// The budgets the Clock tab offers, MiB (Box2D's samples app allows 1 to
/// 4,096 MB).
pub const HISTORY_BUDGETS_MIB: [u32; 7] = [64, 128, 256, 512, 1024, 2048, 4096];

/// Seconds a notice stays on screen.
pub const NOTICE_SECONDS: f64 = 8.0;

/// Ticks of a fork's branch B the UI keeps (10 minutes at 60 Hz): the
/// inspector and the viewport show B at any of them.
pub const MAX_FORK_TICKS: usize = 36_000;

/// Settings that persist between runs (the panel layout persists beside
/// them). The stored form: the app gathers it from the panels and the live
/// view at save, and hands each its part at start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// The host's display rate (sent at start; saved from the live view).
    #[serde(alias = "pacing")]
    pub display_rate: DisplayRate,
    /// Draw committed poses as outlines over the interpolated ones.
    pub show_committed: bool,
    /// Draw touching pairs.
    pub show_contacts: bool,
    /// Centre the viewport on the scene's camera (FollowCamera) when it has one.
    pub follow_camera: bool,
    /// Viewport zoom, pixels per metre.
    pub zoom: f32,
    /// Only errors and warnings in the log.
    pub log_errors_only: bool,
    /// The rewind history's byte budget, MiB (sent at start; saved from the
    /// live view).
    pub history_budget_mib: u32,
    /// Replay the session with a new build of the host program as soon as
    /// one is noticed, without asking.
    pub replay_new_builds: bool,
    /// The first-run hint was dismissed.
    pub welcomed: bool,
}

impl Default for Persisted {
    fn default() -> Persisted {
        Persisted {
            display_rate: DisplayRate::default(),
            show_committed: false,
            show_contacts: false,
            follow_camera: true,
            zoom: 40.0,
            log_errors_only: false,
            history_budget_mib: DEFAULT_HISTORY_MIB,
            replay_new_builds: false,
            welcomed: false,
        }
    }
}

/// Where a scene path given on the command line or typed in a dialog
/// points, made absolute for display and for reload (as typed if the
/// working folder cannot be read).
pub fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A budget in MiB as bytes.
pub fn budget_bytes(mib: u32) -> usize {
    (mib as usize) << 20
}

/// What the host last published (module docs). Written only by the app's
/// drain of what the host sends.
#[derive(Debug)]
pub struct Published {
    /// The newest view of the live session and what the host's features hold.
    pub live: Option<LiveView>,
    /// The newest view of a past tick (shown only while it is the cursor's).
    pub past: Option<WorldView>,
    /// The session's scripts as the code pane shows them.
    pub scripts: ScriptsView,
    /// The session recording (input and edits by tick), as it grew.
    pub recording: Recording,
    /// The input tape in force, if any.
    pub tape_in_force: Option<Recording>,
    /// The Input tab's draft tape, as the host keeps it.
    pub tape_draft: Option<Recording>,
    /// Ticks of A measured against run B, by tick, while there is a B.
    pub samples: BTreeMap<u64, TickDivergence>,
    /// What made the session, for a new host to do again after this one
    /// died (`stepframe_host::protocol::journal`).
    pub journal: Vec<JournalEntry>,
    /// How far a new host doing the journal again has got: entries done,
    /// entries in all, the tick reached (a progress bar), while it runs.
    pub replaying: Option<(usize, usize, u64)>,
    /// Why the host stopped, while it is dead.
    pub worker_stopped: Option<HostStopped>,
    /// The hook call the host has been stuck in past the watchdog's limit.
    pub worker_stuck: Option<StuckHook>,
    /// A new build of the host program, noticed on disk and not yet used.
    pub new_build: Option<NewBuild>,
    /// How far a replay with a new build has got, while it runs.
    pub rebuild: Option<RebuildProgress>,
    /// The address of the game the editor is attached to, while it is
    /// (File → Attach…, Run in player).
    pub attached: Option<String>,
    /// The recorded frames: the records and live zones the host streamed
    /// (`frames`' module docs).
    pub frames: Frames,
}

/// A new build of the host program (a `cargo build` rewrote it), as the
/// bar that offers it shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct NewBuild {
    /// The program's file name (`mygame`).
    pub program: String,
    /// Whether new builds are replayed without asking (the setting).
    pub automatic: bool,
}

/// A replay of the session with a new build, while it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RebuildProgress {
    /// The completed tick the new host has reached.
    pub tick: u64,
    /// The tick it replays to (where the user was).
    pub target: u64,
    /// Ticks replayed per second of real time so far.
    pub ticks_per_s: f64,
}

impl Default for Published {
    fn default() -> Published {
        Published {
            live: None,
            past: None,
            scripts: ScriptsView::default(),
            // Replaced by the host's at the first load.
            recording: Recording::new(60),
            tape_in_force: None,
            tape_draft: None,
            samples: BTreeMap::new(),
            journal: Vec::new(),
            replaying: None,
            worker_stopped: None,
            worker_stuck: None,
            new_build: None,
            rebuild: None,
            attached: None,
            frames: Frames::default(),
        }
    }
}

/// Which tick the user looks at (UI state: the session does not change).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeCursor {
    /// The viewed tick, if not live.
    pub tick: Option<u64>,
    /// The recorded frame (sequence number in [`Frames`]) the user put the
    /// cursor on, when a frame was picked and not only a tick: frames that
    /// ran no tick share their tick with the one before, and the Clock and
    /// Flame tabs show the frame picked.
    pub record: Option<u64>,
    /// The session was playing when the user went to the past: going back
    /// to live plays it again.
    pub resume_on_leave: bool,
}

/// A short message shown for [`NOTICE_SECONDS`] (and kept in the log).
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// Severity (colour).
    pub level: LogLevel,
    /// The text.
    pub text: String,
    /// UI time (`egui::InputState::time`) when it was posted; set at the first
    /// draw after it arrived.
    pub since: Option<f64>,
}

/// What the editor tells the user: the last error, recent notices and the
/// log book (UI state fed by the worker's events and the panels' actions).
#[derive(Debug, Default)]
pub struct Feedback {
    /// The last error, shown until dismissed.
    pub error: Option<String>,
    /// Recent notices, oldest first.
    pub notices: VecDeque<Notice>,
    /// Everything worth a line.
    pub log: LogBook,
}

impl Feedback {
    /// Posts a short notice, which the log keeps too.
    pub fn notify(&mut self, level: LogLevel, text: impl Into<String>) {
        let text = text.into();
        self.log.push(level, None, text.clone());
        if self.notices.len() == 8 {
            self.notices.pop_front();
        }
        self.notices.push_back(Notice {
            level,
            text,
            since: None,
        });
    }

    /// Shows an error (and logs it).
    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.log.push(LogLevel::Error, None, text.clone());
        self.error = Some(text);
    }
}

/// Run B as a panel reads it: what the live view says of it, B at the tick
/// shown, and A's measured ticks.
#[derive(Clone, Copy, Debug)]
pub struct RunBReading<'a> {
    /// What B is, from the host.
    pub about: &'a RunB,
    /// B at the tick the panels show, if B holds it.
    pub shown: Option<&'a stepframe_host::traced::TracedTick>,
    /// The measured ticks, by tick.
    pub samples: &'a BTreeMap<u64, TickDivergence>,
}

impl RunBReading<'_> {
    /// B's fields of object `id` at the tick shown.
    pub fn b_fields(&self, id: u64) -> Option<TracedFields> {
        self.shown?.object(id)
    }
}

/// One frame's read-only window on the session, for every panel.
#[derive(Clone, Copy, Debug)]
pub struct Reading<'a> {
    /// What the worker published.
    published: &'a Published,
    /// The viewed tick, if not live.
    cursor: Option<u64>,
    /// The recorded frame the cursor was put on, if one was picked.
    cursor_pick: Option<u64>,
    /// The open scene's bookmarks.
    bookmarks: &'a Bookmarks,
    /// The log book (the Log tab draws it).
    log: &'a LogBook,
    /// True in the synchronous test driver (the pacing choice does not apply).
    driven: bool,
}

impl<'a> Reading<'a> {
    /// The window on `published` with the cursor at `cursor`.
    pub fn new(
        published: &'a Published,
        cursor: &TimeCursor,
        bookmarks: &'a Bookmarks,
        log: &'a LogBook,
        driven: bool,
    ) -> Reading<'a> {
        Reading {
            published,
            cursor: cursor.tick,
            cursor_pick: cursor.record,
            bookmarks,
            log,
            driven,
        }
    }

    /// The newest live view and what the host's features hold.
    pub fn live(&self) -> Option<&'a LiveView> {
        self.published.live.as_ref()
    }

    /// What the panels draw: the past view of the cursor's tick, else the
    /// live session. A past view of another tick (one the user has left) is
    /// never shown.
    pub fn shown(&self) -> Option<&'a WorldView> {
        match (self.cursor, &self.published.past) {
            (Some(t), Some(past)) if past.at_tick == Some(t) => Some(past),
            _ => self.live().map(|l| &l.world),
        }
    }

    /// Everything the host published.
    pub fn published(&self) -> &'a Published {
        self.published
    }

    /// The viewed tick, if not live.
    pub fn cursor(&self) -> Option<u64> {
        self.cursor
    }

    /// The open scene's bookmarks (the Bookmarks tab lists them, the
    /// timeline draws them).
    pub fn bookmarks(&self) -> &'a Bookmarks {
        self.bookmarks
    }

    /// The recorded frames (the timeline's lanes, the Clock and Flame tabs).
    pub fn frames(&self) -> &'a Frames {
        &self.published.frames
    }

    /// Sequence number of the record under the time cursor: the frame the
    /// user picked while it still completes the cursor's tick, else the
    /// frame that ran that tick. `None` while live.
    pub fn cursor_seq(&self) -> Option<u64> {
        let tick = self.cursor?;
        let frames = self.frames();
        self.cursor_pick
            .filter(|s| frames.record(*s).map(|r| r.simulation_tick) == Some(tick))
            .or_else(|| frames.seq_of_tick(tick))
    }

    /// The record under the time cursor (`cursor_seq`).
    pub fn cursor_record(&self) -> Option<&'a stepframe_core::FrameRecord> {
        self.frames().record(self.cursor_seq()?)
    }

    /// True while the user views a past tick.
    pub fn viewing_past(&self) -> bool {
        self.cursor.is_some()
    }

    /// True while the live session is suspended.
    pub fn is_suspended(&self) -> bool {
        self.live().is_some_and(|v| v.world.suspension.is_some())
    }

    /// The worker's selection.
    pub fn selection(&self) -> Option<ObjectId> {
        self.live().and_then(|v| v.selection)
    }

    /// The tick a what-if fork was made at, while B runs.
    pub fn fork(&self) -> Option<u64> {
        self.live()?.branch_b.as_ref()?.forked_at
    }

    /// Run B, while there is one.
    pub fn run_b(&self) -> Option<RunBReading<'a>> {
        let about = self.live()?.branch_b.as_ref()?;
        Some(RunBReading {
            about,
            shown: self.shown().and_then(|w| w.b.as_ref()),
            samples: &self.published.samples,
        })
    }

    /// The object's display name (`name id`) in the view shown, `#id` if it
    /// is gone.
    pub fn object_name(&self, id: ObjectId) -> String {
        self.shown()
            .and_then(|v| v.objects.iter().find(|o| o.id == id))
            .map(|o| format!("{} {}", o.name, o.id))
            .unwrap_or_else(|| id.to_string())
    }

    /// The log book.
    pub fn log(&self) -> &'a LogBook {
        self.log
    }

    /// True in the synchronous test driver.
    pub fn driven(&self) -> bool {
        self.driven
    }

    /// A new build of the host program, if one is waiting.
    pub fn new_build(&self) -> Option<&'a NewBuild> {
        self.published.new_build.as_ref()
    }

    /// A replay with a new build, while it runs.
    pub fn rebuild(&self) -> Option<&'a RebuildProgress> {
        self.published.rebuild.as_ref()
    }

    /// The address of the game the editor is attached to, while it is.
    pub fn attached(&self) -> Option<&'a str> {
        self.published.attached.as_deref()
    }

    /// Why the host stopped, while it is dead.
    pub fn worker_stopped(&self) -> Option<&'a HostStopped> {
        self.published.worker_stopped.as_ref()
    }

    /// The hook the worker is stuck in, past the watchdog's limit.
    pub fn worker_stuck(&self) -> Option<&'a StuckHook> {
        self.published.worker_stuck.as_ref()
    }

    /// The session's journal (what a restart does again).
    pub fn journal(&self) -> &'a [JournalEntry] {
        &self.published.journal
    }
}

/// What every tab of the workspace is: a struct owning its UI state, drawn
/// the same way as every other (egui demo's `View::ui`).
///
/// `reading` is everything a panel may read that is not its own: what the host
/// published (the live and past views, the recorded frames, run B), the time
/// cursor and the log book. `cmd` is the only way it changes anything
/// beyond itself: host commands at once, UI actions after the frame. A
/// panel never takes or draws another panel: what two panels both read
/// lives in the [`Reading`], once.
pub trait Panel {
    /// Draws the panel into its tile.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands);

    /// Takes one host event, in stream order, whether the panel is shown or
    /// not: what it keeps of its own from the event (markers, a replayed
    /// flame, folds of a newly loaded scene). `reading` is what the host
    /// published before the event, but for the recorded frames, which took
    /// it first; the app's own part (the published data, the feedback, the
    /// time cursor) comes after every panel's. Most panels take none.
    fn on_event(&mut self, _event: &Event, _reading: &Reading<'_>, _cmd: &mut Commands) {}

    /// Takes a shortcut the app read for a panel (the panel it is for
    /// acts on it, the others ignore it), after the app brought that
    /// panel's pane to the front. Most panels take none.
    fn on_shortcut(&mut self, _shortcut: Shortcut, _reading: &Reading<'_>, _cmd: &mut Commands) {}
}

/// A key the app reads for one panel's sake, whatever has the keyboard,
/// and hands to every panel ([`Panel::on_shortcut`]), so the app never
/// reaches into a panel's state to do what the key asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortcut {
    /// Ctrl+F: the hierarchy's filter takes the keyboard.
    Find,
    /// Ctrl+T: the timeline's lanes take the keyboard.
    FocusTimeline,
    /// Ctrl+Shift+F: Fork here, as the timeline's button does.
    ForkHere,
    /// Ctrl+B: bookmark the tick shown, with the Bookmarks tab's note.
    Bookmark,
    /// Ctrl+O: File → Open….
    Open,
    /// Ctrl+Shift+S: File → Save As….
    SaveAs,
}

/// Something for the UI itself to do after the frame (module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show this tick in every panel (pausing a running session first).
    ViewTick(u64),
    /// Show the tick of this recorded frame (sequence number in
    /// [`Frames`]), the frame itself in the Clock and Flame tabs.
    ViewFrame {
        /// The tick.
        tick: u64,
        /// The record's sequence number.
        seq: u64,
    },
    /// Every panel back to the live session (playing again if the visit to
    /// the past paused it).
    BackToLive,
    /// "Resume from here" at the viewed tick.
    ResumeFromCursor,
    /// The selection changed: a past view on screen is asked for again.
    Reselect,
    /// Bookmark `tick` with `note` (saved beside the scene).
    AddBookmark {
        /// The completed tick.
        tick: u64,
        /// What the user wrote.
        note: String,
    },
    /// Remove the `index`-th bookmark (saved beside the scene).
    RemoveBookmark(usize),
    /// A short notice.
    Notify(LogLevel, String),
    /// A line in the log only.
    Log(LogLevel, String),
    /// Forget the log's lines so far.
    ClearLog,
    /// An error line.
    Error(String),
    /// Hide the error line.
    DismissError,
    /// Start a new host that does the session's journal again.
    RestartWorker,
    /// Walk away from a host stuck in a hook: detach it, restart one.
    AbandonWorker,
    /// Bring a pane to the front.
    OpenPane(Pane),
    /// Replay the session with the new build of the host program.
    ReplayNewBuild,
    /// Stop a replay with a new build: the old session stays.
    CancelRebuild,
    /// Replay new builds as soon as they are noticed (the setting).
    ReplayNewBuildsAutomatically(bool),
    /// File → Attach…: attach to a listening game (`run --debug`, or a
    /// game's own loop) at this address with this token, as typed.
    Attach {
        /// `127.0.0.1:PORT`.
        addr: String,
        /// 32 hex digits.
        token: String,
    },
    /// File → Run in player (Ctrl+F5): start the scene in a player window
    /// and attach to it.
    RunInPlayer,
    /// File → Detach: let the attached game go on by itself; the editor
    /// opens the scene in a session host of its own.
    Detach,
}

/// How a panel asks for things: worker commands at once, UI actions after
/// the frame (module docs).
#[derive(Debug)]
pub struct Commands {
    /// The worker's command channel.
    tx: Sender<Command>,
    /// UI actions asked for this frame, in order.
    actions: Vec<Action>,
    /// A send failed (the worker is gone): said once.
    dead: bool,
}

impl Commands {
    /// Commands to the worker at the other end of `tx`.
    pub fn new(tx: Sender<Command>) -> Commands {
        Commands {
            tx,
            actions: Vec::new(),
            dead: false,
        }
    }

    /// Points at a new worker's channel (a restart).
    pub fn reconnect(&mut self, tx: Sender<Command>) {
        self.tx = tx;
        self.dead = false;
    }

    /// Queues a command for the worker. Never blocks. A command for a dead
    /// worker goes nowhere; the first one says so.
    pub fn send(&mut self, command: Command) {
        if self.tx.send(command).is_err() && !self.dead {
            self.dead = true;
            self.actions
                .push(Action::Error("the worker thread has stopped".to_string()));
        }
    }

    /// Asks the UI for something after this frame.
    pub fn act(&mut self, action: Action) {
        self.actions.push(action);
    }

    /// Selects an object (or none): the host's selection, which the next
    /// views show (a past view on screen is asked for again, with it).
    pub fn select(&mut self, id: Option<ObjectId>) {
        self.send(Command::Select(id));
        self.act(Action::Reselect);
    }

    /// Shows tick `tick` in every panel.
    pub fn view_tick(&mut self, tick: u64) {
        self.act(Action::ViewTick(tick));
    }

    /// Shows recorded frame `seq`, which completed tick `tick`, in every
    /// panel.
    pub fn view_frame(&mut self, tick: u64, seq: u64) {
        self.act(Action::ViewFrame { tick, seq });
    }

    /// Every panel back to the live session.
    pub fn back_to_live(&mut self) {
        self.act(Action::BackToLive);
    }

    /// A short notice.
    pub fn notify(&mut self, level: LogLevel, text: impl Into<String>) {
        self.act(Action::Notify(level, text.into()));
    }

    /// An error line.
    pub fn error(&mut self, text: impl Into<String>) {
        self.act(Action::Error(text.into()));
    }

    /// The actions asked for since the last call.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }
}

/// The colour of run B wherever it is drawn (viewport, inspector, timeline).
pub const B_COLOUR: egui::Color32 = egui::Color32::from_rgb(240, 90, 220);

/// A hook call that has not returned, as the banner shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct StuckHook {
    /// The object the hook runs for.
    pub object: stepframe_core::ObjectId,
    /// Its name, from the last view (empty if it had none).
    pub object_name: String,
    /// The behaviour's registered name, from the last view (`None` for a
    /// behaviour added since).
    pub behaviour: Option<String>,
    /// The hook.
    pub hook: stepframe_core::HookKind,
    /// The tick it runs in (the pending tick of a fixed hook).
    pub tick: u64,
    /// The host is a child process, which Abandon kills (else a thread of
    /// the editor's, which nothing can stop).
    pub process: bool,
    /// How long the call has run, on the watchdog's clock.
    pub running_for: std::time::Duration,
    /// The stuck thread's share of one core since the call was first seen
    /// (1.0: a whole core), measured on the real clock; `None` where the
    /// thread's CPU time cannot be read.
    pub cpu_share: Option<f64>,
}

impl StuckHook {
    /// "FixedUpdate of #3 `Spinner` (Spinner) at tick 120": the call as
    /// the log names hooks.
    pub fn call_text(&self) -> String {
        let behaviour = self
            .behaviour
            .clone()
            .unwrap_or_else(|| "a behaviour added since the last view".to_string());
        format!(
            "{:?} of #{} `{}` ({behaviour}) at tick {}",
            self.hook, self.object.0, self.object_name, self.tick
        )
    }

    /// What runs the hook: "its process" or "its thread".
    fn runner(&self) -> &'static str {
        if self.process {
            "its process"
        } else {
            "its thread"
        }
    }

    /// "its process keeps 98% of a core busy", or why no figure.
    pub fn cpu_text(&self) -> String {
        match self.cpu_share {
            Some(share) => format!(
                "{} keeps {:.0}% of a core busy",
                self.runner(),
                share * 100.0
            ),
            None => format!("{}'s CPU time cannot be read here", self.runner()),
        }
    }

    /// What Abandon does to the stuck host, for the log.
    pub fn abandon_text(&self) -> &'static str {
        if self.process {
            "its process was killed"
        } else {
            "its thread is left running (nothing in a process can stop a hook)"
        }
    }
}

/// Why a host stopped, as the banner shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum HostStopped {
    /// A fault in user code ended the host process: what, where and when.
    Fault(stepframe_host::supervise::Fault),
    /// The host ended otherwise (a bug in the host itself: its panic
    /// message, or how the process exited).
    Ended(String),
    /// The game the editor attached to is gone (it exited, was killed,
    /// or closed the connection): why, as far as the editor can tell.
    /// Restart does not apply; Detach opens the scene in a session of the
    /// editor's own.
    GameGone(String),
}

impl HostStopped {
    /// The tick the host was at: a restart stops before it (a fault's tick
    /// is its hook's; a fixed hook's is the pending tick).
    pub fn tick(&self) -> Option<u64> {
        match self {
            HostStopped::Fault(f) => Some(f.tick),
            HostStopped::Ended(_) | HostStopped::GameGone(_) => None,
        }
    }
}

impl std::fmt::Display for HostStopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostStopped::Fault(fault) => write!(f, "{fault}"),
            HostStopped::Ended(why) => f.write_str(why),
            HostStopped::GameGone(why) => write!(f, "the game you attached to is gone: {why}"),
        }
    }
}
