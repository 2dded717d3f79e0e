//! The timeline panel: the clock of every frame as stacked lanes, one time
//! cursor for the whole editor, markers and export.
//!
//! | module | what |
//! |---|---|
//! | this one | [`TimelineState`]: the ring of frame records, the x range, the lanes' state, markers, the cursor's record |
//! | `summary` | reducing the ring to one min/max pair per pixel column, through block summaries |
//! | `lanes` | [`timeline_ui`]: the label column and the egui_plot lanes, hover, click, pan, zoom, select |
//! | `draw` | inside one lane: its series and colours, the markers lane, a collapsed header |
//! | `controls` | [`timeline_controls_ui`], in the tab bar: axis, fit, follow live, budget, selection, export |
//! | `axes` | y marks with units, x labels, the tooltip's rows ([`hover_rows`]) |
//! | `export` | a range of records as a Chrome trace or CSV file |
//! | `bench` | synthetic records and the `timeline_ui_ms` measurement of `stepframe bench` |
//!
//! The records arrive in order with every event on one channel, so a marker
//! (breakpoint, error, session boundary) names the outer frame it belongs to
//! and is drawn at that frame's record: no guessing, no reordering.
//!
//! A new physics world (Open, Reload) starts a new ring: simulation time and
//! ticks restart at 0 with it, while frame time and the frame index carry on
//! (the contract: frame time counts active outer frames, simulation time
//! belongs to its physics world), so the first frame of the new world gets a
//! marker saying so, and the view follows the new session.
//!
//! The cursor is the session's ([`super::state::Session::cursor`], a tick);
//! the timeline only remembers which record the user put it on, so ←/→ on the
//! frame axis move one frame and on the tick axis one tick.

mod axes;
mod bench;
mod blocks;
mod controls;
mod draw;
mod export;
mod lanes;
mod summary;
mod watch_lanes;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use stepframe_core::{FrameRecord, LogLevel, SuspendReason, Telemetry};

pub use axes::hover_rows;
// The timeline's own benchmark helpers are public only with the `bench`
// feature (`stepframe bench` and the timeline tests use them); the shipped
// binary keeps them inside the crate.
#[cfg(not(feature = "bench"))]
pub(crate) use bench::{bench_timeline_ms, bench_timeline_ms_with};
#[cfg(feature = "bench")]
pub use bench::{bench_timeline_ms, bench_timeline_ms_with, synthetic_record};
pub use controls::timeline_controls_ui;
pub use export::{ExportFormat, ExportState};
pub use lanes::timeline_ui;
pub use summary::{decimate, decimate_many, decimate_with};
pub use watch_lanes::WatchLanes;

use super::protocol::{Event, FrameTelemetry};
use blocks::Blocks;
use summary::{Reduced, partition};

/// What the x axis shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum XAxis {
    /// One-based outer frame index.
    #[default]
    FrameIndex,
    /// Completed simulation ticks.
    Tick,
    /// `frame_time` at the end of the frame, seconds.
    FrameTime,
}

impl XAxis {
    /// Every axis, in the order the control offers them.
    pub const ALL: [XAxis; 3] = [XAxis::FrameIndex, XAxis::Tick, XAxis::FrameTime];

    /// The x value of a record on this axis.
    pub fn of(self, r: &FrameRecord) -> f64 {
        match self {
            XAxis::FrameIndex => r.frame_index as f64,
            XAxis::FrameTime => r.frame_time,
            XAxis::Tick => r.simulation_tick as f64,
        }
    }

    /// The control's text.
    pub fn label(self) -> &'static str {
        match self {
            XAxis::FrameIndex => "frames",
            XAxis::Tick => "ticks",
            XAxis::FrameTime => "seconds",
        }
    }
}

/// Kinds of timeline markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// A tick the user bookmarked (drawn from the bookmarks, not kept here).
    Bookmark,
    /// A breakpoint suspended the session.
    Breakpoint,
    /// A clock breakpoint suspended the session (the loop itself misbehaved).
    Clock,
    /// A watch held (a break or mark watch).
    Watch,
    /// An error: a caught hook panic, a rejected write, a failed request.
    Error,
    /// A new physics world began (Open, Reload).
    Session,
    /// A stall: the frame's raw dt reached `max_delta`.
    Stall,
    /// The first tick where run A and run B of a comparison differ (drawn
    /// from the comparison, not kept here).
    Divergence,
}

impl MarkerKind {
    /// Every kind, in the marker lane's row order (top first).
    pub const ALL: [MarkerKind; 8] = [
        MarkerKind::Bookmark,
        MarkerKind::Breakpoint,
        MarkerKind::Clock,
        MarkerKind::Watch,
        MarkerKind::Error,
        MarkerKind::Session,
        MarkerKind::Stall,
        MarkerKind::Divergence,
    ];

    /// Legend name.
    pub fn name(self) -> &'static str {
        match self {
            MarkerKind::Bookmark => "bookmark",
            MarkerKind::Breakpoint => "breakpoint",
            MarkerKind::Clock => "clock breakpoint hit",
            MarkerKind::Watch => "watch held",
            MarkerKind::Error => "error",
            MarkerKind::Session => "new physics world",
            MarkerKind::Stall => "stall",
            MarkerKind::Divergence => "first divergence from B",
        }
    }
}

/// A marker on the timeline, on the record of the outer frame it belongs to.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// The outer frame (`frame_index`): the marker is drawn at its record.
    pub frame: u64,
    /// What happened.
    pub kind: MarkerKind,
    /// Hover text.
    pub text: String,
}

/// The lanes, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LaneId {
    /// Frame dt against the frame budget line, with the worst frames marked.
    Dt,
    /// Accumulator before and after the fixed phase, against one fixed dt.
    Accumulator,
    /// Interpolation alpha.
    Alpha,
    /// Ticks per frame, with the frames whose backlog the cap dropped.
    Ticks,
    /// Cumulative dropped time.
    Dropped,
    /// FixedUpdate wall time, stacked per priority.
    FixedUpdate,
    /// Physics wall time.
    Physics,
    /// Breakpoints hit, errors, session boundaries, stalls.
    Markers,
}

impl LaneId {
    /// Every lane, top to bottom.
    pub const ALL: [LaneId; 8] = [
        LaneId::Dt,
        LaneId::Accumulator,
        LaneId::Alpha,
        LaneId::Ticks,
        LaneId::Dropped,
        LaneId::FixedUpdate,
        LaneId::Physics,
        LaneId::Markers,
    ];

    /// The lane's name in its label column.
    pub fn title(self) -> &'static str {
        match self {
            LaneId::Dt => "frame dt",
            LaneId::Accumulator => "accumulator",
            LaneId::Alpha => "interpolation alpha",
            LaneId::Ticks => "ticks per frame",
            LaneId::Dropped => "dropped time",
            LaneId::FixedUpdate => "FixedUpdate",
            LaneId::Physics => "physics",
            LaneId::Markers => "markers",
        }
    }

    /// The unit of its y axis.
    pub fn unit(self) -> Unit {
        match self {
            LaneId::Dt | LaneId::Accumulator | LaneId::FixedUpdate | LaneId::Physics => Unit::Ms,
            LaneId::Alpha => Unit::Fraction,
            LaneId::Ticks => Unit::Ticks,
            LaneId::Dropped => Unit::Seconds,
            LaneId::Markers => Unit::None,
        }
    }

    /// The lanes a user reads first start expanded (and fit the default
    /// timeline tile); the rest start collapsed.
    pub fn expanded_by_default(self) -> bool {
        matches!(self, LaneId::Dt | LaneId::Ticks | LaneId::FixedUpdate)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A y axis unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds.
    Ms,
    /// Seconds.
    Seconds,
    /// Whole ticks.
    Ticks,
    /// A fraction of a tick, 0 to 1.
    Fraction,
    /// No unit (the markers lane).
    None,
}

impl Unit {
    /// The unit's name in a label column.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::Seconds => "s",
            Unit::Ticks => "ticks",
            Unit::Fraction => "0–1",
            Unit::None => "",
        }
    }
}

/// One lane's state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaneState {
    /// Drawn as a plot (else a one-line header).
    pub expanded: bool,
    /// A y range the user zoomed to (Alt+wheel); `None` fits the data.
    pub y_range: Option<(f64, f64)>,
    /// The y range the lane drew last frame (its axis as the user sees it).
    pub shown_y: Option<(f64, f64)>,
}

/// What of the timeline persists between runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimelineSettings {
    /// The x axis.
    pub axis: XAxis,
    /// Frame budget line of the dt lane, Hz.
    pub budget_hz: f64,
    /// The lanes shown expanded.
    pub expanded: Vec<LaneId>,
}

impl Default for TimelineSettings {
    fn default() -> TimelineSettings {
        TimelineSettings {
            axis: XAxis::FrameIndex,
            budget_hz: 60.0,
            expanded: LaneId::ALL
                .into_iter()
                .filter(|l| l.expanded_by_default())
                .collect(),
        }
    }
}

/// Most markers kept (stalls in a long irregular run would otherwise grow
/// without bound).
const MAX_MARKERS: usize = 10_000;

/// Frames shown while following live.
pub const LIVE_WINDOW_FRAMES: usize = 600;

/// The timeline's state (see the module docs).
#[derive(Debug)]
pub struct TimelineState {
    /// The ring of frame records of the current session, oldest first: the
    /// only copy of the telemetry on the UI side.
    pub telemetry: Telemetry,
    /// What the x axis shows.
    pub axis: XAxis,
    /// Frame budget line, Hz (60 → 16.67 ms).
    pub budget_hz: f64,
    /// `max_delta` of the session, for stall markers.
    pub max_delta: f64,
    /// Keep the newest frames in view.
    pub follow_live: bool,
    /// The x range shown while not following live.
    pub range: Option<(f64, f64)>,
    /// A range selected with Shift+drag, on the current axis.
    pub selection: Option<(f64, f64)>,
    /// One state per lane, in [`LaneId::ALL`] order.
    pub lanes: [LaneState; 8],
    /// Markers, oldest first.
    pub markers: VecDeque<Marker>,
    /// The open scene's bookmarks, `(tick, note)`: drawn on the marker lane
    /// at the frame that completed the tick (copied from the Bookmarks tab).
    pub bookmarks: Vec<(u64, String)>,
    /// Plotted watches and their values by frame.
    pub watch_lanes: WatchLanes,
    /// The record the user put the cursor on (its tick is the session's
    /// cursor), if any.
    pub cursor_seq: Option<u64>,
    /// The record under the pointer, if any.
    pub hover_seq: Option<u64>,
    /// The timeline had keyboard focus last frame (←/→ move the cursor).
    pub focused: bool,
    /// The export controls.
    pub export: ExportState,
    /// The decimated lanes of the last draw and what they were computed for.
    reduced: Reduced,
    /// Min/max summaries of blocks of records, for zoomed-out decimation.
    blocks: Blocks,
    /// Width of the plots' frames in the last draw, in points: the pixel
    /// columns the series are decimated to.
    plot_width: Option<f32>,
    /// Where a Shift+drag selection started, on the current axis.
    selecting_from: Option<f64>,
}

impl Default for TimelineState {
    fn default() -> TimelineState {
        TimelineState::with_capacity(stepframe_core::telemetry::DEFAULT_CAPACITY)
    }
}

impl TimelineState {
    /// A timeline keeping at most `capacity` frames.
    pub fn with_capacity(capacity: usize) -> TimelineState {
        let mut state = TimelineState {
            telemetry: Telemetry::with_capacity(capacity),
            axis: XAxis::FrameIndex,
            budget_hz: 60.0,
            max_delta: 0.25,
            follow_live: true,
            range: None,
            selection: None,
            lanes: [LaneState {
                expanded: false,
                y_range: None,
                shown_y: None,
            }; 8],
            markers: VecDeque::new(),
            bookmarks: Vec::new(),
            watch_lanes: WatchLanes::default(),
            cursor_seq: None,
            hover_seq: None,
            focused: false,
            export: ExportState::default(),
            reduced: Reduced::default(),
            blocks: Blocks::default(),
            plot_width: None,
            selecting_from: None,
        };
        state.apply_settings(&TimelineSettings::default());
        state
    }

    /// The persisted part of the state.
    pub fn settings(&self) -> TimelineSettings {
        TimelineSettings {
            axis: self.axis,
            budget_hz: self.budget_hz,
            expanded: LaneId::ALL
                .into_iter()
                .filter(|l| self.lane(*l).expanded)
                .collect(),
        }
    }

    /// Restores persisted settings.
    pub fn apply_settings(&mut self, settings: &TimelineSettings) {
        self.axis = settings.axis;
        self.budget_hz = settings.budget_hz.clamp(1.0, 1000.0);
        for lane in LaneId::ALL {
            self.lanes[lane.index()].expanded = settings.expanded.contains(&lane);
        }
    }

    /// One lane's state.
    pub fn lane(&self, lane: LaneId) -> &LaneState {
        &self.lanes[lane.index()]
    }

    /// One lane's state, writable.
    pub fn lane_mut(&mut self, lane: LaneId) -> &mut LaneState {
        &mut self.lanes[lane.index()]
    }

    /// Sequence number of the oldest record kept.
    fn first_seq(&self) -> u64 {
        self.telemetry.pushed() - self.telemetry.len() as u64
    }

    /// The record with sequence number `seq`, if still kept.
    pub fn record(&self, seq: u64) -> Option<&FrameRecord> {
        let i = seq.checked_sub(self.first_seq())?;
        self.telemetry.records().get(usize::try_from(i).ok()?)
    }

    /// The record under the cursor.
    pub fn cursor_record(&self) -> Option<&FrameRecord> {
        self.record(self.cursor_seq?)
    }

    /// Sequence number of the first record whose call completed tick `tick`
    /// or a later one: the frame that ran it.
    pub fn seq_of_tick(&self, tick: u64) -> Option<u64> {
        let records = self.telemetry.records();
        let i = partition(records.len(), |i| records[i].simulation_tick < tick);
        (i < records.len()).then(|| self.first_seq() + i as u64)
    }

    /// Sequence number of the last record of outer frame `frame`.
    pub(super) fn seq_of_frame(&self, frame: u64) -> Option<u64> {
        let records = self.telemetry.records();
        let i = partition(records.len(), |i| records[i].frame_index <= frame);
        (i > 0 && records[i - 1].frame_index == frame).then(|| self.first_seq() + i as u64 - 1)
    }

    /// Follows the session's cursor: the record the user chose while it still
    /// completes the cursor's tick, else the frame that ran that tick.
    pub fn sync_cursor(&mut self, tick: Option<u64>) {
        let Some(tick) = tick else {
            self.cursor_seq = None;
            return;
        };
        if self.cursor_record().map(|r| r.simulation_tick) != Some(tick) {
            self.cursor_seq = self.seq_of_tick(tick);
        }
    }

    /// The tick one step from the cursor (`dir` = -1 or 1): one tick on the
    /// tick axis, the previous or next frame's tick on the others. Moves the
    /// cursor's record too. `None` at either end.
    pub fn step_cursor(&mut self, current: u64, dir: i64) -> Option<u64> {
        let records = self.telemetry.records();
        let (first, last) = (records.front()?, records.back()?);
        if self.axis == XAxis::Tick {
            let lo = first.simulation_tick.saturating_sub(u64::from(first.ticks));
            let next = current.checked_add_signed(dir)?;
            if next < lo.max(1) || next > last.simulation_tick {
                return None;
            }
            self.cursor_seq = self.seq_of_tick(next);
            return Some(next);
        }
        let seq = self.cursor_seq.or_else(|| self.seq_of_tick(current))?;
        let next = seq.checked_add_signed(dir)?;
        let tick = self.record(next)?.simulation_tick;
        self.cursor_seq = Some(next);
        Some(tick)
    }

    /// Sequence number of the record nearest to `x` on the current axis.
    pub fn nearest(&self, x: f64) -> Option<u64> {
        let records = self.telemetry.records();
        if records.is_empty() {
            return None;
        }
        let axis = self.axis;
        let i = partition(records.len(), |i| axis.of(&records[i]) < x);
        let best = if i == 0 {
            0
        } else if i == records.len() {
            i - 1
        } else if (axis.of(&records[i]) - x).abs() < (x - axis.of(&records[i - 1])).abs() {
            i
        } else {
            i - 1
        };
        Some(self.first_seq() + best as u64)
    }

    /// Adds one record from the worker (stalls are marked here).
    pub fn ingest(&mut self, record: FrameRecord) {
        if record.delta_time >= self.max_delta && self.max_delta > 0.0 {
            self.mark(
                record.frame_index,
                MarkerKind::Stall,
                format!(
                    "stall: frame {} dt {:.1} ms",
                    record.frame_index,
                    record.delta_time * 1000.0
                ),
            );
        }
        self.telemetry.push(record);
    }

    fn mark(&mut self, frame: u64, kind: MarkerKind, text: String) {
        if self.markers.len() == MAX_MARKERS {
            self.markers.pop_front();
        }
        self.markers.push_back(Marker { frame, kind, text });
    }

    /// The x of marker `m` on the current axis, if its frame's record is kept.
    fn marker_x(&self, m: &Marker) -> Option<f64> {
        self.record(self.seq_of_frame(m.frame)?)
            .map(|r| self.axis.of(r))
    }

    /// Takes an event from the worker, in stream order: records, markers on
    /// the frame they belong to, a new ring for a new physics world, the
    /// abandoned branch dropped after a rewind.
    pub fn on_event(&mut self, event: &Event) {
        match event {
            Event::Frames(batch) => {
                for FrameTelemetry { report, clock, .. } in batch {
                    self.ingest(FrameRecord::new(report, clock));
                }
            }
            Event::Suspended(s) => match &s.reason {
                SuspendReason::Breakpoint(hit) => self.mark(
                    s.frame,
                    MarkerKind::Breakpoint,
                    format!(
                        "breakpoint {} hit at tick {} ({} {})",
                        hit.breakpoint.0, s.tick, hit.behaviour, hit.hook
                    ),
                ),
                SuspendReason::Clock(hit) => self.mark(
                    s.frame,
                    MarkerKind::Clock,
                    format!("{hit} at tick {}", s.tick),
                ),
                SuspendReason::Fault { message, .. } => self.mark(
                    s.frame,
                    MarkerKind::Error,
                    format!("fault at tick {}: {message}", s.tick),
                ),
                _ => {}
            },
            Event::Watch(batch) => {
                for e in batch {
                    match e {
                        stepframe_plugins::WatchEvent::Held { watch, tick, frame } => self.mark(
                            *frame,
                            MarkerKind::Watch,
                            format!("watch #{} held at tick {tick}", watch + 1),
                        ),
                        stepframe_plugins::WatchEvent::Value {
                            watch,
                            frame,
                            value,
                            ..
                        } => self.watch_lanes.push(*watch, *frame, *value),
                        stepframe_plugins::WatchEvent::Failed { .. } => {}
                    }
                }
            }
            Event::Log(entries) => {
                for e in entries.iter().filter(|e| e.level == LogLevel::Error) {
                    self.mark(
                        e.frame,
                        MarkerKind::Error,
                        format!("tick {}: {}", e.tick, e.message),
                    );
                }
            }
            Event::Loaded {
                path,
                frame_index,
                frame_time,
                ..
            } => self.new_session(path, *frame_index, *frame_time),
            Event::Error(message) => {
                if let Some(r) = self.telemetry.records().back() {
                    let frame = r.frame_index;
                    self.mark(frame, MarkerKind::Error, message.clone());
                }
            }
            Event::Rewound(tick) => self.rewound(*tick),
            _ => {}
        }
    }

    /// A new physics world: a new ring, whose first frame is marked.
    fn new_session(&mut self, path: &std::path::Path, frame_index: u64, frame_time: f64) {
        let capacity = self.telemetry.capacity();
        self.telemetry = Telemetry::with_capacity(capacity);
        self.blocks = Blocks::default();
        self.reduced.key = None;
        self.markers.clear();
        self.cursor_seq = None;
        self.hover_seq = None;
        self.selection = None;
        self.range = None;
        self.follow_live = true;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        self.mark(
            frame_index + 1,
            MarkerKind::Session,
            format!(
                "new physics world ({name}): simulation time restarts at 0; frame time \
                 continues from {frame_time:.3} s (frame {})",
                frame_index + 1
            ),
        );
    }

    /// After a rewind to `tick`: later frames belong to an abandoned branch.
    fn rewound(&mut self, tick: u64) {
        let mut kept = Telemetry::with_capacity(self.telemetry.capacity());
        for r in self.telemetry.records() {
            if r.simulation_tick <= tick {
                kept.push(*r);
            }
        }
        let last_frame = kept.records().back().map(|r| r.frame_index);
        self.telemetry = kept;
        self.blocks = Blocks::default();
        self.reduced.key = None;
        self.markers
            .retain(|m| last_frame.is_some_and(|f| m.frame <= f) || m.kind == MarkerKind::Session);
        // Watch values of the abandoned branch go too (the frames run again).
        for values in self.watch_lanes.values.values_mut() {
            let keep = values.partition_point(|(f, _)| last_frame.is_some_and(|l| *f <= l));
            values.truncate(keep);
        }
        self.cursor_seq = None;
        self.selection = None;
        self.follow_live = true;
    }
}
