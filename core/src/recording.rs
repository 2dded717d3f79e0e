//! Tick-stamped input recordings: record live input, replay it at the same ticks.
//!
//! # Why ticks, not frames or wall time
//!
//! Fixed code sees input through the simulation snapshot, which is built at the
//! start of every tick (see [`crate::input`]). Which tick receives a live key press
//! depends on the display pacing: at 30 Hz a press lands on the first tick of a
//! two-tick frame, at 144 Hz it may wait through two frames that run no tick at
//! all. A recording therefore stores each raw event with the one-based tick it was
//! *delivered to*, and replay delivers it to that very tick, whatever the pacing,
//! the step strategy or the stalls of the replaying run. Worked example at 60 Hz:
//! a Space press recorded at tick 31 and its release at tick 31 (a tap inside one
//! frame) replays as `just_pressed` and `just_released` both true in tick 31's
//! FixedUpdate, whether tick 31 is run by frame 31 of a 60 Hz run, frame 16 of a
//! 30 Hz run, or frame 75 of a 144 Hz run.
//!
//! Replay is a [`TickInputSource`](crate::TickInputSource): events are looked up by tick, never consumed,
//! so rewinding to a snapshot and running the same ticks again (the sync test, the
//! editor's timeline) replays them again.
//!
//! # The file format (RON)
//!
//! ```ron
//! // stepframe input recording
//! (
//!     version: 1,
//!     fixed_hz: 60,   // the tick rate the ticks were counted at
//!     ticks: 900,     // how many ticks the recording covers
//!     events: [
//!         (tick: 31, source: Key("Space"), value: 1.0),
//!         (tick: 31, source: Key("Space"), value: 0.0),
//!         (tick: 40, source: GamepadAxis("LeftStickX"), value: -0.5),
//!     ],
//! )
//! ```
//!
//! Sources are [`InputSource`] values (`Key`, `MouseButton`, `GamepadButton`,
//! `GamepadAxis`); values are 1.0 pressed, 0.0 released, or an axis value. Events
//! of one tick are delivered in file order; events must be listed in tick order.
//! Loading errors name the file, line and column and say what was expected.
//!
//! # A session recording: input and edits
//!
//! The editor's *Save session recording* writes the same file with one more
//! list (version 2): every edit made from the editor and every settings
//! change, each stamped with the tick it applies before ([`crate::edit`]).
//! `stepframe play --input` applies each at the start of its tick, whatever
//! the display rate, so a bug report is one file anyone can replay:
//!
//! ```ron
//! (
//!     version: 2,
//!     fixed_hz: 60,
//!     ticks: 900,
//!     events: [(tick: 31, source: Key("Space"), value: 1.0)],
//!     edits: [
//!         (tick: 301, edit: Pose(object: 2, pose: (x: 0.0, y: 3.0, angle: 0.0))),
//!         (tick: 301, edit: Params(object: 2, index: 0, behaviour: "PlayerController",
//!                                  params: "(jump_impulse: 9.0)")),
//!         (tick: 420, edit: Enabled(object: 5, enabled: false)),
//!         (tick: 601, edit: Settings((fixed_hz: 50, max_delta: 0.25, max_steps: 4,
//!                                     time_scale: 1.0, substeps: 1, strategy: Accumulator))),
//!     ],
//! )
//! ```
//!
//! Version 1 files (input only) load as they always did.
//!
//! # Module map
//!
//! | module | concept |
//! |---|---|
//! | this file | the recording itself: its events and edits, each stamped with its tick |
//! | `file` | the RON file: reading it with every rule checked (errors name line and column), writing it atomically |
//! | `tape` | editing a recording as a tape (insert, move, delete, truncate, record a tick) and comparing two |
//! | `replay` | a recording at work: recording a session's ticks, replaying them |

use serde::{Deserialize, Serialize};

use crate::edit::Edit;
use crate::input::{InputEvent, InputSource};

mod file;
mod replay;
mod tape;

pub use replay::{Recorder, Replay};

/// The format version this code writes: 2 added the edits of a session
/// recording. Version 1 files (input only) are read as well.
pub const RECORDING_VERSION: u32 = 2;

/// The oldest format version this code reads.
pub const OLDEST_RECORDING_VERSION: u32 = 1;

/// One raw input event and the tick it was delivered to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedEvent {
    /// One-based fixed tick that received the event.
    pub tick: u64,
    /// What changed.
    pub source: InputSource,
    /// New value: 1.0 pressed, 0.0 released, or an axis value.
    pub value: f32,
}

impl RecordedEvent {
    /// The event as the input system receives it.
    pub fn event(&self) -> InputEvent {
        InputEvent {
            source: self.source.clone(),
            value: self.value,
        }
    }
}

/// An edit made from outside the hooks (the editor's inspector, a settings
/// change) and the tick it applies before.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedEdit {
    /// One-based tick the edit applies before: made while the session stood
    /// at the end of tick `tick - 1`.
    pub tick: u64,
    /// What changed.
    pub edit: Edit,
}

/// A file that names no version is a version 1 file (older than the field).
fn default_version() -> u32 {
    OLDEST_RECORDING_VERSION
}

/// A whole recording: what a session's fixed ticks received, tick by tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// Format version ([`RECORDING_VERSION`]).
    #[serde(default = "default_version")]
    pub version: u32,
    /// Tick rate the ticks were counted at: replaying at another rate delivers
    /// the same ticks at other times, which players should warn about.
    pub fixed_hz: u32,
    /// Ticks the recording covers (the last tick the recorder saw); players run
    /// at least this long by default.
    pub ticks: u64,
    /// Events in tick order; within a tick, in delivery order.
    pub events: Vec<RecordedEvent>,
    /// A session recording's edits, in tick order; within a tick, in the
    /// order they were made (module docs).
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_empty")]
    pub edits: Vec<RecordedEdit>,
}

impl Recording {
    /// An empty recording at a tick rate.
    pub fn new(fixed_hz: u32) -> Recording {
        Recording {
            version: RECORDING_VERSION,
            fixed_hz,
            ticks: 0,
            events: Vec::new(),
            edits: Vec::new(),
        }
    }

    /// The events stamped with `tick`, in delivery order.
    pub fn events_at(&self, tick: u64) -> &[RecordedEvent] {
        let start = self.events.partition_point(|e| e.tick < tick);
        let end = self.events.partition_point(|e| e.tick <= tick);
        &self.events[start..end]
    }
}
