//! What every panel shares: the command sender, the worker's latest views,
//! the one time cursor, the selection, errors and notices. Each panel keeps its
//! own state beside it (egui's habit of one struct per view); this is only the
//! common ground, read-only where it mirrors the worker.
//!
//! The time cursor: while the user views tick T ([`Session::view_tick`]), every
//! panel draws [`Session::shown`], the session as it was at the end of tick T,
//! rebuilt by the worker; Esc ([`Session::back_to_live`]) or anything that
//! moves the live session (resume, a step, a load, a rewind) returns them all
//! to the live view.

use std::collections::VecDeque;

use crossbeam_channel::Sender;
use serde::{Deserialize, Serialize};
use stepframe_core::{LogLevel, ObjectId, Recording};

use super::log::LogBook;
use super::protocol::{Command, Pacing, RecoveryPoint, WorldView};

/// The rewind history's default byte budget, MiB (core's default).
pub const DEFAULT_HISTORY_MIB: u32 = (stepframe_core::history::DEFAULT_BUDGET_BYTES >> 20) as u32;

/// The budgets the Clock tab offers, MiB (Box2D's samples app allows 1 to
/// 4,096 MB).
pub const HISTORY_BUDGETS_MIB: [u32; 7] = [64, 128, 256, 512, 1024, 2048, 4096];

/// Seconds a notice stays on screen.
pub const NOTICE_SECONDS: f64 = 8.0;

/// Settings that persist between runs (the panel layout persists beside them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// The worker's display rate.
    pub pacing: Pacing,
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
    /// The rewind history's byte budget, MiB (its keyframe spacing doubles to
    /// stay under it, then the oldest keyframes go).
    pub history_budget_mib: u32,
}

impl Default for Persisted {
    fn default() -> Persisted {
        Persisted {
            pacing: Pacing::default(),
            show_committed: false,
            show_contacts: false,
            follow_camera: true,
            zoom: 40.0,
            log_errors_only: false,
            history_budget_mib: DEFAULT_HISTORY_MIB,
        }
    }
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

/// The shared facts of the editor (see the module docs).
#[derive(Debug)]
pub struct Session {
    /// Sends commands to the worker.
    commands: Sender<Command>,
    /// The latest view of the live session.
    pub live: Option<WorldView>,
    /// The latest view of a past tick the worker sent (the cursor's, or the
    /// one before while the cursor's is being built).
    pub past: Option<WorldView>,
    /// The tick the user is viewing, if not live.
    pub cursor: Option<u64>,
    /// The selected object (UI copy; the worker has the same).
    pub selected: Option<ObjectId>,
    /// A new selection the hierarchy should unfold to and scroll to.
    pub reveal_selection: bool,
    /// The last error, shown under the toolbar until dismissed.
    pub error: Option<String>,
    /// Recent notices, oldest first.
    pub notices: VecDeque<Notice>,
    /// Everything worth a line: hooks' and the runtime's log, the editor's
    /// messages, every notice. Shared, since every panel may add to it.
    pub log: LogBook,
    /// Persisted settings.
    pub persisted: Persisted,
    /// True in the synchronous test driver (the pacing choice does not apply).
    pub driven: bool,
    /// The newest snapshot the worker sent: what "Restart from last snapshot"
    /// continues from.
    pub recovery: Option<RecoveryPoint>,
    /// Why the worker stopped (its panic message), while it is dead: the
    /// toolbar shows it in a red banner with the restart button.
    pub worker_stopped: Option<String>,
    /// The banner's button was clicked: the app restarts the worker at the end
    /// of this frame.
    pub restart_requested: bool,
    /// The input tape as the Input tab edited it, until Resume from here
    /// replays it (or Revert drops it). Shared here because every Resume from
    /// here (the timeline's, Enter) replays it.
    pub tape_draft: Option<Recording>,
    /// "Compare with…": run B and what the live session measured against it.
    pub compare: Option<super::compare::Comparison>,
    /// The tick a what-if branch B was forked at, while it runs.
    pub fork: Option<u64>,
}

impl Session {
    /// A session talking to a worker through `commands`.
    pub fn new(commands: Sender<Command>, persisted: Persisted, driven: bool) -> Session {
        Session {
            commands,
            live: None,
            past: None,
            cursor: None,
            selected: None,
            reveal_selection: false,
            error: None,
            notices: VecDeque::new(),
            log: LogBook::default(),
            persisted,
            driven,
            recovery: None,
            worker_stopped: None,
            restart_requested: false,
            tape_draft: None,
            compare: None,
            fork: None,
        }
    }

    /// Points the session at a new worker's command channel (a restart).
    pub fn reconnect(&mut self, commands: Sender<Command>) {
        self.commands = commands;
    }

    /// Queues a command for the worker. Never blocks. A command for a dead
    /// worker goes nowhere: the banner already says so; a worker gone before
    /// the app noticed is reported once as an error.
    pub fn send(&mut self, command: Command) {
        if self.commands.send(command).is_err()
            && self.error.is_none()
            && self.worker_stopped.is_none()
        {
            self.error = Some("the worker thread has stopped".to_string());
        }
    }

    /// Selects an object (or none) here and in the worker; a past view is
    /// rebuilt so the inspector shows the new object at the same tick.
    pub fn select(&mut self, id: Option<ObjectId>) {
        self.selected = id;
        self.reveal_selection = id.is_some();
        self.send(Command::Select(id));
        if let Some(tick) = self.cursor {
            self.send(Command::ViewTick(tick));
        }
    }

    /// Shows tick `tick` in every panel (pausing a running session first).
    pub fn view_tick(&mut self, tick: u64) {
        if !self.is_suspended() {
            self.send(Command::Pause);
        }
        if self.cursor != Some(tick) {
            self.cursor = Some(tick);
            self.send(Command::ViewTick(tick));
        }
    }

    /// Every panel back to the live session.
    pub fn back_to_live(&mut self) {
        self.cursor = None;
        self.past = None;
    }

    /// "Resume from here": rewinds the live session to the viewed tick. With
    /// an edited input tape that changes something, the rewind goes back to
    /// the tick before the first change if that is earlier, and the tape
    /// replays from there ([`Command::ApplyTape`]).
    pub fn resume_from_cursor(&mut self) {
        let Some(tick) = self.cursor else {
            return;
        };
        let from = match (&self.tape_draft, &self.live) {
            (Some(draft), Some(live)) => {
                super::tape::resume_tick(draft, &super::tape::session_tape(live), tick)
            }
            _ => None,
        };
        match (from, self.tape_draft.take()) {
            (Some(from), Some(tape)) => self.send(Command::ApplyTape { tape, from }),
            (_, draft) => {
                self.tape_draft = draft;
                self.send(Command::RewindTo(tick));
            }
        }
    }

    /// What the panels draw: the past view while viewing a tick (the newest
    /// one the worker built), else the live view.
    pub fn shown(&self) -> Option<&WorldView> {
        match (&self.cursor, &self.past) {
            (Some(_), Some(past)) => Some(past),
            _ => self.live.as_ref(),
        }
    }

    /// True while the panels show a past tick instead of the live session.
    pub fn viewing_past(&self) -> bool {
        self.cursor.is_some()
    }

    /// True while the live session is suspended.
    pub fn is_suspended(&self) -> bool {
        self.live.as_ref().is_some_and(|v| v.suspension.is_some())
    }

    /// The object's display name (`name id`), `#id` if it is gone.
    pub fn object_name(&self, id: ObjectId) -> String {
        self.shown()
            .and_then(|v| v.objects.iter().find(|o| o.id == id))
            .map(|o| format!("{} {}", o.name, o.id))
            .unwrap_or_else(|| id.to_string())
    }

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
}
