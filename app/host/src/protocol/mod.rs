//! What a front end and the host say to each other: plain data, every type
//! `Serialize + Deserialize`, so the same messages cross a thread, a
//! process or a socket unchanged.
//!
//! A front end pushes [`Command`]s (Rerun's time-control habit: the UI never
//! touches the session, it asks) and reads what the host publishes. What
//! must arrive in order travels as one stream; only pictures of "the state
//! now" are latest-wins:
//!
//! | message | delivery |
//! |---|---|
//! | [`Event`]: telemetry batches, suspended/resumed, loaded, saved, notices, errors, log lines, the session recording as it grows | never lost, **in order**: a frame's telemetry comes before the log lines and the suspension it caused, a `Loaded` before the new session's first frame |
//! | [`LiveView`]: the live session and what the host's features hold | latest wins, **at most one in flight**: the host sends the next only after the front end said [`Command::ViewTaken`] |
//! | a past [`WorldView`] (an answer to [`RewindCommand::ViewTick`]) | latest wins, like the live view |
//!
//! So a UI that repaints at 5 Hz is sent five views a second, however fast
//! the host runs, yet sees every telemetry frame and every event in the
//! order they happened; and a host never waits for a slow UI, because it
//! never blocks on a send: a view it cannot send yet is rebuilt from the
//! newest state once the front end takes the last one.
//!
//! Nothing here holds live session state (no `Arc` of it): a message is a
//! copy of what was true when it was built. What the host has to say is
//! data ([`Notice`], [`HostError`]); the front end writes the words.
//!
//! | file | what |
//! |---|---|
//! | `command` | [`Command`] and its per-feature enums |
//! | `event` | [`Event`], [`Notice`], [`HostError`] and what they carry |
//! | `view` | [`WorldView`], [`LiveView`] and what they show |
//! | `journal` | [`JournalEntry`]: what made the session, for a new host to do again |

mod command;
mod event;
mod journal;
mod view;

use serde::{Deserialize, Serialize};

pub use command::{
    BranchCommand, BreakpointCommand, Command, EditCommand, FlameCommand, RecordingCommand,
    RewindCommand, Run, SceneCommand, ScriptCommand, Target, TimeSetting, WatchCommand,
};
pub use event::{
    BName, BranchEvent, EditKind, EditLabel, Event, FrameTelemetry, HostError, Notice, QueuedEdit,
    RUN_BATCH_TICKS, RecordingChange, ReplayedFrame, ReplayedZones, SaveRisk, SaveWhat,
    SettingChange, WatchFill,
};
pub use journal::{JournalEntry, SessionStart};
pub use view::{
    BodyView, BreakpointView, HitEntry, LiveView, LoadedScript, ObjectView, RunB, ScriptsView,
    SelectedView, SoftView, UndoView, WorldView,
};

/// What the host sends, in the one order it happened: events, and the
/// latest-wins views between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Outbound {
    /// An event (never dropped; boxed: most are small, a few carry a
    /// notice's fields).
    Event(Box<Event>),
    /// The newest live view.
    Live(Box<LiveView>),
    /// The newest past view asked for.
    Past(Box<WorldView>),
}

/// How often the host runs an outer frame, independent of any UI's repaints:
/// the display rate the session is paced to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DisplayRate {
    /// A fixed display rate, frames per second (30, 60, 144...).
    Hz(u32),
    /// As fast as the host can go, up to [`DisplayRate::UNCAPPED_MAX_HZ`]
    /// frames a second (still measuring real dt per frame).
    Uncapped,
    /// Irregular frame lengths from a fixed-seed sequence (4 to 40 ms, with
    /// a 150 ms stall every 64 frames): the pacing the determinism tests use.
    Irregular,
}

impl Default for DisplayRate {
    fn default() -> DisplayRate {
        DisplayRate::Hz(60)
    }
}

impl DisplayRate {
    /// Most frames a second [`DisplayRate::Uncapped`] runs. Unbounded, the
    /// demo ran about 22,700 frames a second: an hour of those is 82
    /// million frame records (13 GiB). 240 is the fastest common display
    /// rate, and a frame (4.2 ms) is still a quarter of a 60 Hz tick, which
    /// is what uncapped pacing is for: most frames run no tick, and
    /// interpolation alpha climbs between ticks (docs/timeline.md, *The
    /// data*).
    pub const UNCAPPED_MAX_HZ: u32 = 240;

    /// The choices the toolbar offers.
    pub const CHOICES: [DisplayRate; 5] = [
        DisplayRate::Hz(30),
        DisplayRate::Hz(60),
        DisplayRate::Hz(144),
        DisplayRate::Uncapped,
        DisplayRate::Irregular,
    ];

    /// The nominal frame length, seconds: what a step-frame command
    /// advances by. Uncapped and irregular rates have none, so they use 1/60 s.
    pub fn nominal_dt(self) -> f64 {
        match self {
            DisplayRate::Hz(hz) if hz > 0 => 1.0 / f64::from(hz),
            _ => 1.0 / 60.0,
        }
    }

    /// The most frames a second this rate runs on average: what the
    /// timeline's ring is sized by. Irregular frames are 4 to 40 ms (22 ms
    /// on average, plus a stall every 64), so fewer than 60 a second.
    pub fn max_rate(self) -> u32 {
        match self {
            DisplayRate::Hz(hz) => hz.max(1),
            DisplayRate::Uncapped => DisplayRate::UNCAPPED_MAX_HZ,
            DisplayRate::Irregular => 60,
        }
    }

    /// Frame records the timeline keeps so that it holds the last hour at
    /// this rate: one hour at [`DisplayRate::max_rate`], and never fewer
    /// than the default ring (an hour at 60 Hz).
    pub fn hour_of_frames(self) -> usize {
        let hour = 3600 * self.max_rate() as usize;
        hour.max(stepframe_core::telemetry::DEFAULT_CAPACITY)
    }
}
