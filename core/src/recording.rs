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
//! Replay is a [`TickInputSource`]: events are looked up by tick, never consumed,
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

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::edit::{Edit, EditError, PreparedEdit};
use crate::file_error::FileError;
use crate::input::{InputEvent, InputSource};
use crate::pipeline::{Pipeline, TickInputSource};
use crate::scene::Registry;
use crate::trace::{TickObserver, TickRecord};

mod replay;
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
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

    /// Reads and validates a recording file.
    pub fn load(path: &Path) -> Result<Recording, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        Recording::parse(&text, path)
    }

    /// Parses and validates recording text; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Recording, FileError> {
        let recording: Recording =
            ron::Options::default()
                .from_str(text)
                .map_err(|e| FileError::Parse {
                    file: file.to_path_buf(),
                    line: e.span.start.line,
                    column: e.span.start.col,
                    message: e.code.to_string(),
                })?;
        recording.validate(text, file)?;
        Ok(recording)
    }

    /// Checks the rules serde cannot: version, one-based ticks in order, finite
    /// values, `ticks` covering every event.
    fn validate(&self, text: &str, file: &Path) -> Result<(), FileError> {
        let invalid = |index: Option<usize>, message: String| {
            let (line, column) = index
                .and_then(|i| entry_position(text, "events", i))
                .unwrap_or((1, 1));
            FileError::Invalid {
                file: file.to_path_buf(),
                line,
                column,
                message,
            }
        };
        if !(OLDEST_RECORDING_VERSION..=RECORDING_VERSION).contains(&self.version) {
            return Err(invalid(
                None,
                format!(
                    "unsupported recording version {}: expected {OLDEST_RECORDING_VERSION} to \
                     {RECORDING_VERSION}",
                    self.version
                ),
            ));
        }
        if self.fixed_hz == 0 {
            return Err(invalid(None, "fixed_hz must be at least 1".into()));
        }
        let mut previous = 0;
        for (i, e) in self.events.iter().enumerate() {
            if e.tick == 0 {
                return Err(invalid(
                    Some(i),
                    format!("event {i}: tick 0: expected a one-based tick (1 or more)"),
                ));
            }
            if e.tick < previous {
                return Err(invalid(
                    Some(i),
                    format!(
                        "event {i}: tick {} comes after tick {previous}: expected events in tick order",
                        e.tick
                    ),
                ));
            }
            if !e.value.is_finite() {
                return Err(invalid(
                    Some(i),
                    format!("event {i}: value must be a finite number"),
                ));
            }
            previous = e.tick;
        }
        let mut previous_edit = 0;
        for (i, e) in self.edits.iter().enumerate() {
            let at = || entry_position(text, "edits", i).unwrap_or((1, 1));
            let edit_invalid = |message: String| {
                let (line, column) = at();
                FileError::Invalid {
                    file: file.to_path_buf(),
                    line,
                    column,
                    message,
                }
            };
            if e.tick == 0 {
                return Err(edit_invalid(format!(
                    "edit {i}: tick 0: expected the one-based tick it applies before (1 or more)"
                )));
            }
            if e.tick < previous_edit {
                return Err(edit_invalid(format!(
                    "edit {i}: tick {} comes after tick {previous_edit}: expected edits in tick order",
                    e.tick
                )));
            }
            if let Err(message) = check_edit(&e.edit) {
                return Err(edit_invalid(format!("edit {i}: {message}")));
            }
            previous_edit = e.tick;
        }
        if previous > self.ticks {
            return Err(invalid(
                None,
                format!(
                    "ticks is {} but an event is stamped with tick {previous}: expected ticks >= {previous}",
                    self.ticks
                ),
            ));
        }
        Ok(())
    }

    /// The recording as RON text, one event per line (the format above).
    pub fn to_ron(&self) -> Result<String, FileError> {
        use std::fmt::Write as _;
        let mut out = String::with_capacity(64 + self.events.len() * 48);
        out.push_str("// stepframe input recording: each event is stamped with the fixed tick it was delivered to.\n");
        let _ = writeln!(
            out,
            "(\n    version: {},\n    fixed_hz: {},\n    ticks: {},\n    events: [",
            // Edits need version 2 to be read back.
            if self.edits.is_empty() {
                self.version
            } else {
                self.version.max(RECORDING_VERSION)
            },
            self.fixed_hz,
            self.ticks
        );
        for e in &self.events {
            let source = ron::to_string(&e.source).map_err(|err| FileError::Serialize {
                what: "recording",
                message: err.to_string(),
            })?;
            let _ = writeln!(
                out,
                "        (tick: {}, source: {source}, value: {:?}),",
                e.tick, e.value
            );
        }
        out.push_str("    ],\n");
        if !self.edits.is_empty() {
            out.push_str(
                "    // edits made from the editor, each stamped with the tick it applies before\n    edits: [\n",
            );
            for e in &self.edits {
                let edit = ron::Options::default().to_string(&e.edit).map_err(|err| {
                    FileError::Serialize {
                        what: "recording",
                        message: err.to_string(),
                    }
                })?;
                let _ = writeln!(out, "        (tick: {}, edit: {edit}),", e.tick);
            }
            out.push_str("    ],\n");
        }
        out.push_str(")\n");
        Ok(out)
    }

    /// Writes the recording as RON, atomically (a crash leaves the old file or
    /// the new one, never half of one).
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let text = self.to_ron()?;
        crate::atomic_file::write(path, text.as_bytes()).map_err(|source| FileError::Io {
            file: path.to_path_buf(),
            source,
        })
    }

    /// The events stamped with `tick`, in delivery order.
    pub fn events_at(&self, tick: u64) -> &[RecordedEvent] {
        let start = self.events.partition_point(|e| e.tick < tick);
        let end = self.events.partition_point(|e| e.tick <= tick);
        &self.events[start..end]
    }
}

/// Editing a recording as a tape: the editor's input panel inserts, moves and
/// deletes edges, then replays the result from the first tick it changed.
/// Every edit keeps the events in tick order (and, within a tick, in delivery
/// order) and `ticks` covering every event, so an edited tape is still a valid
/// recording: it saves and loads like one.
impl Recording {
    /// Adds `event` after the events already stamped with its tick (delivered
    /// last in that tick) and returns its index. Tick 0 does not exist (ticks
    /// are one-based): it is stamped on tick 1.
    pub fn insert(&mut self, mut event: RecordedEvent) -> usize {
        event.tick = event.tick.max(1);
        let at = self.events.partition_point(|e| e.tick <= event.tick);
        self.ticks = self.ticks.max(event.tick);
        self.events.insert(at, event);
        at
    }

    /// Removes the event at `index` (in [`Recording::events`] order).
    pub fn remove(&mut self, index: usize) -> Option<RecordedEvent> {
        (index < self.events.len()).then(|| self.events.remove(index))
    }

    /// Restamps the event at `index` with `tick` (delivered last in its new
    /// tick) and returns its new index.
    pub fn move_to(&mut self, index: usize, tick: u64) -> Option<usize> {
        let mut event = self.remove(index)?;
        event.tick = tick;
        Some(self.insert(event))
    }

    /// Forgets everything after `tick`: a session rewound to the end of
    /// `tick` has received only that much (its edits stamped `tick + 1` or
    /// later were made after that moment). Returns how many edits went.
    pub fn truncate_after(&mut self, tick: u64) -> usize {
        let keep = self.events.partition_point(|e| e.tick <= tick);
        self.events.truncate(keep);
        self.ticks = self.ticks.min(tick);
        let keep = self.edits.partition_point(|e| e.tick <= tick);
        let dropped = self.edits.len() - keep;
        self.edits.truncate(keep);
        dropped
    }

    /// Adds an edit applying before `tick`, after the edits already stamped
    /// with it (the order they were made in).
    pub fn record_edit(&mut self, tick: u64, edit: Edit) {
        let tick = tick.max(1);
        let at = self.edits.partition_point(|e| e.tick <= tick);
        self.edits.insert(at, RecordedEdit { tick, edit });
    }

    /// Takes out the newest edit stamped with `tick` that equals `edit`
    /// (one undone through [`History::undo`](crate::History::undo): a saved
    /// session must not replay it either). Returns whether one was there.
    pub fn remove_edit(&mut self, tick: u64, edit: &Edit) -> bool {
        let tick = tick.max(1);
        match self
            .edits
            .iter()
            .rposition(|e| e.tick == tick && e.edit == *edit)
        {
            Some(i) => {
                self.edits.remove(i);
                true
            }
            None => false,
        }
    }

    /// The edits stamped with `tick`, in the order they were made.
    pub fn edits_at(&self, tick: u64) -> &[RecordedEdit] {
        let start = self.edits.partition_point(|e| e.tick < tick);
        let end = self.edits.partition_point(|e| e.tick <= tick);
        &self.edits[start..end]
    }

    /// Records what tick `tick` received. A tick that comes again (after a
    /// rewind) replaces everything recorded from it on.
    pub fn record_tick(&mut self, tick: u64, inputs: &[InputEvent]) {
        if tick <= self.ticks {
            let keep = self.events.partition_point(|e| e.tick < tick);
            self.events.truncate(keep);
        }
        self.ticks = tick;
        self.events.extend(inputs.iter().map(|e| RecordedEvent {
            tick,
            source: e.source.clone(),
            value: e.value,
        }));
    }

    /// The first tick whose events differ between the two tapes (sources,
    /// values or their order within the tick), if any: where a replay of one
    /// instead of the other starts to matter. `ticks` beyond the last event
    /// do not count.
    pub fn first_difference(&self, other: &Recording) -> Option<u64> {
        let (mut a, mut b) = (self.events.as_slice(), other.events.as_slice());
        loop {
            let tick = match (a.first(), b.first()) {
                (None, None) => return None,
                (Some(x), None) => return Some(x.tick),
                (None, Some(y)) => return Some(y.tick),
                (Some(x), Some(y)) => x.tick.min(y.tick),
            };
            let split = |events: &[RecordedEvent]| events.partition_point(|e| e.tick <= tick);
            let (na, nb) = (split(a), split(b));
            if a[..na] != b[..nb] {
                return Some(tick);
            }
            a = &a[na..];
            b = &b[nb..];
        }
    }
}

/// What serde cannot check of a recorded edit: finite numbers, settings that
/// can run.
fn check_edit(edit: &Edit) -> Result<(), String> {
    match edit {
        Edit::Pose { pose, .. } if !pose.is_finite() => Err("the pose must be finite".into()),
        Edit::Velocity { velocity, .. } if !velocity.is_finite() => {
            Err("the velocity must be finite".into())
        }
        Edit::Settings(settings) => settings.validate().map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}

/// Best-effort position of the `i`-th entry of the list `section`
/// (`events` or `edits`): the `i`-th `tick:` key after the list's name.
fn entry_position(text: &str, section: &str, i: usize) -> Option<(usize, usize)> {
    let list_at = text.find(section)?;
    let (offset, _) = text[list_at..].match_indices("tick").nth(i)?;
    let at = list_at + offset;
    let line = 1 + text[..at].matches('\n').count();
    let column = 1 + text[..at].rfind('\n').map_or(at, |nl| at - nl - 1);
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> InputSource {
        InputSource::Key(name.into())
    }

    #[test]
    fn events_at_returns_one_ticks_events_in_file_order() {
        let text = "(fixed_hz: 60, ticks: 9, events: [
            (tick: 3, source: Key(\"Space\"), value: 1.0),
            (tick: 3, source: Key(\"Space\"), value: 0.0),
            (tick: 7, source: MouseButton(1), value: 1.0),
        ])";
        let r = Recording::parse(text, Path::new("t.ron")).expect("valid");
        assert_eq!(r.version, 1, "version defaults to 1");
        let at3: Vec<f32> = r.events_at(3).iter().map(|e| e.value).collect();
        assert_eq!(at3, vec![1.0, 0.0]);
        assert!(r.events_at(4).is_empty());
        assert_eq!(r.events_at(7)[0].source, InputSource::MouseButton(1));
        assert!(r.events_at(8).is_empty());
    }

    #[test]
    fn parse_errors_name_file_line_and_column() {
        // Line 3, column 13 is where `tock` stands instead of a known field.
        let text = "(fixed_hz: 60, ticks: 9, events: [\n  (tick: 3, source: Key(\"A\"), value: 1.0),\n  (tick: 4, tock: 1),\n])";
        let err = Recording::parse(text, Path::new("rec.ron")).expect_err("bad field");
        let msg = err.to_string();
        assert!(msg.starts_with("rec.ron:3:"), "{msg}");
        assert!(msg.contains("tock"), "{msg}");
    }

    #[test]
    fn out_of_order_ticks_are_rejected_at_the_event() {
        let text = "(fixed_hz: 60, ticks: 9, events: [\n  (tick: 5, source: Key(\"A\"), value: 1.0),\n  (tick: 4, source: Key(\"A\"), value: 0.0),\n])";
        let err = Recording::parse(text, Path::new("rec.ron")).expect_err("out of order");
        assert_eq!(
            err.to_string(),
            "rec.ron:3:4: event 1: tick 4 comes after tick 5: expected events in tick order"
        );
    }

    #[test]
    fn tick_zero_and_short_ticks_are_rejected() {
        let zero = "(fixed_hz: 60, ticks: 9, events: [(tick: 0, source: Key(\"A\"), value: 1.0)])";
        let msg = Recording::parse(zero, Path::new("z.ron"))
            .expect_err("tick 0")
            .to_string();
        assert!(msg.contains("one-based"), "{msg}");
        let short = "(fixed_hz: 60, ticks: 2, events: [(tick: 3, source: Key(\"A\"), value: 1.0)])";
        let msg = Recording::parse(short, Path::new("s.ron"))
            .expect_err("ticks too small")
            .to_string();
        assert!(msg.contains("ticks >= 3"), "{msg}");
    }

    #[test]
    fn to_ron_round_trips() {
        let r = Recording {
            version: 1,
            fixed_hz: 60,
            ticks: 12,
            events: vec![
                RecordedEvent {
                    tick: 2,
                    source: key("ArrowLeft"),
                    value: 1.0,
                },
                RecordedEvent {
                    tick: 12,
                    source: InputSource::GamepadAxis("LeftStickX".into()),
                    value: -0.25,
                },
            ],
            edits: Vec::new(),
        };
        let text = r.to_ron().expect("serialisable");
        assert!(text.contains("(tick: 2, source: Key(\"ArrowLeft\"), value: 1.0),"));
        assert_eq!(Recording::parse(&text, Path::new("x")).expect("parses"), r);
    }

    #[test]
    fn replay_sorts_stably_and_is_not_consumed() {
        let mut r = Recording::new(60);
        r.ticks = 5;
        for (tick, value) in [(5, 1.0), (2, 1.0), (2, 0.0)] {
            r.events.push(RecordedEvent {
                tick,
                source: key("A"),
                value,
            });
        }
        let replay = Replay::new(r);
        let mut out = Vec::new();
        replay.events_for_tick(2, &mut out);
        replay.events_for_tick(2, &mut out);
        let values: Vec<f32> = out.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![1.0, 0.0, 1.0, 0.0]);
    }

    fn ev(tick: u64, name: &str, value: f32) -> RecordedEvent {
        RecordedEvent {
            tick,
            source: key(name),
            value,
        }
    }

    fn tape() -> Recording {
        Recording {
            version: 1,
            fixed_hz: 60,
            ticks: 50,
            events: vec![ev(10, "D", 1.0), ev(20, "Space", 1.0), ev(20, "Space", 0.0)],
            edits: Vec::new(),
        }
    }

    fn stamps(r: &Recording) -> Vec<(u64, f32)> {
        r.events.iter().map(|e| (e.tick, e.value)).collect()
    }

    #[test]
    fn an_inserted_edge_goes_last_in_its_tick_and_extends_the_tape() {
        let mut r = tape();
        assert_eq!(
            r.insert(ev(20, "A", 1.0)),
            3,
            "after both Space edges of tick 20"
        );
        assert_eq!(r.insert(ev(15, "A", 0.0)), 1);
        assert_eq!(r.insert(ev(412, "Space", 1.0)), 5);
        assert_eq!(r.ticks, 412, "ticks covers the new edge");
        assert_eq!(r.insert(ev(0, "A", 1.0)), 0, "tick 0 is stamped on tick 1");
        assert_eq!(r.events[0].tick, 1);
        assert_eq!(
            stamps(&r),
            vec![
                (1, 1.0),
                (10, 1.0),
                (15, 0.0),
                (20, 1.0),
                (20, 0.0),
                (20, 1.0),
                (412, 1.0)
            ]
        );
    }

    #[test]
    fn moving_and_deleting_keep_tick_order() {
        let mut r = tape();
        // The press of tick 10 moved to tick 30: now after tick 20's edges.
        assert_eq!(r.move_to(0, 30), Some(2));
        assert_eq!(stamps(&r), vec![(20, 1.0), (20, 0.0), (30, 1.0)]);
        // The release of tick 20 moved earlier, before the press.
        assert_eq!(r.move_to(1, 5), Some(0));
        assert_eq!(stamps(&r), vec![(5, 0.0), (20, 1.0), (30, 1.0)]);
        assert_eq!(r.remove(1), Some(ev(20, "Space", 1.0)));
        assert_eq!(r.remove(9), None);
        assert_eq!(stamps(&r), vec![(5, 0.0), (30, 1.0)]);
        let text = r.to_ron().expect("serialisable");
        assert_eq!(
            Recording::parse(&text, Path::new("t")).expect("still valid"),
            r
        );
    }

    #[test]
    fn the_first_difference_is_the_first_tick_whose_edges_differ() {
        let base = tape();
        assert_eq!(base.first_difference(&base.clone()), None);
        let mut later = base.clone();
        later.insert(ev(412, "Space", 1.0));
        assert_eq!(base.first_difference(&later), Some(412));
        assert_eq!(later.first_difference(&base), Some(412));
        let mut swapped = base.clone();
        swapped.events.swap(1, 2);
        assert_eq!(
            base.first_difference(&swapped),
            Some(20),
            "order within a tick"
        );
        let mut moved = base.clone();
        moved.move_to(0, 12);
        assert_eq!(base.first_difference(&moved), Some(10), "the tick it left");
        let mut longer = base.clone();
        longer.ticks = 900;
        assert_eq!(
            base.first_difference(&longer),
            None,
            "ticks alone do not count"
        );
    }

    #[test]
    fn truncating_keeps_what_the_ticks_up_to_the_cut_received() {
        let mut r = tape();
        r.truncate_after(19);
        assert_eq!(stamps(&r), vec![(10, 1.0)]);
        assert_eq!(r.ticks, 19);
        r.record_tick(20, &[InputEvent::press(key("A"))]);
        assert_eq!(stamps(&r), vec![(10, 1.0), (20, 1.0)]);
        r.record_tick(10, &[]);
        assert!(r.events.is_empty(), "tick 10 came again without its press");
        assert_eq!(r.ticks, 10);
    }
}
