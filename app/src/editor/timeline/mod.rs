//! The timeline panel: the clock of every frame as stacked lanes, one time
//! cursor for the whole editor, markers and export.
//!
//! | module | what |
//! |---|---|
//! | this one | [`TimelineState`] and what it talks about: axes, lanes and their units, markers, the persisted settings |
//! | `cursor` | finding records by sequence number, tick, frame or x; moving the cursor |
//! | `events` | the worker's stream into the ring and the markers: records, stalls, breakpoints, errors, a new world, a rewind |
//! | `series` | the values the lanes plot, one array per record: what everything below reads |
//! | `blocks` | min/max summaries of blocks of records, kept as records arrive |
//! | `summary` | reducing the ring to one min/max pair per pixel column, through block summaries |
//! | `lanes` | [`timeline_ui`]: the label column and the egui_plot lanes, hover, click, pan, zoom, select |
//! | `draw` | inside one lane: its series and colours, the markers lane, a collapsed header |
//! | `watch_lanes` | the plotted watches' lanes: the values each recorded, by tick; which are plotted is the host's list |
//! | `value_lane` | one lane of values on the shared x axis (a watch's, or a comparison's divergence lanes) |
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
//! The cursor is the app's (`shared::TimeCursor`, a tick);
//! the timeline only remembers which record the user put it on, so ←/→ on the
//! frame axis move one frame and on the tick axis one tick.

mod axes;
mod bench;
mod blocks;
mod controls;
mod cursor;
mod draw;
mod events;
mod export;
mod lanes;
mod series;
mod summary;
mod value_lane;
mod watch_lanes;

use crate::editor::shared::Panel;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use stepframe_core::FrameRecord;

pub use axes::hover_rows;
// The timeline's own benchmark helpers are public only with the `bench`
// feature (`stepframe bench` and the timeline tests use them); the shipped
// binary keeps them inside the crate.
#[cfg(not(feature = "bench"))]
pub(crate) use bench::{bench_timeline_ms, bench_timeline_ms_with};
#[cfg(feature = "bench")]
pub use bench::{bench_timeline_ms, bench_timeline_ms_with, synthetic_record};
use controls::fork_here_key;
pub use controls::timeline_controls_ui;
pub use export::{ExportFormat, ExportState};
pub use lanes::timeline_ui;
pub use summary::{decimate, decimate_many, decimate_with};
#[cfg(test)]
pub(crate) use value_lane::REMOVE_ICON;
pub use watch_lanes::{FillProgress, WatchLanes, field_of, plotted};

use blocks::Blocks;
use summary::Reduced;

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
    /// The fixed rate, the strategy or the substeps changed (the tick
    /// counter goes on).
    Rate,
    /// A stall: the frame's raw dt reached `max_delta`.
    Stall,
    /// The first tick where run A and run B of a comparison differ (drawn
    /// from the comparison, not kept here).
    Divergence,
    /// The session was replayed with a new build of the game: from here on
    /// the live session runs the new code.
    Build,
}

impl MarkerKind {
    /// Every kind, in the marker lane's row order (top first).
    pub const ALL: [MarkerKind; 10] = [
        MarkerKind::Bookmark,
        MarkerKind::Breakpoint,
        MarkerKind::Clock,
        MarkerKind::Watch,
        MarkerKind::Error,
        MarkerKind::Session,
        MarkerKind::Rate,
        MarkerKind::Stall,
        MarkerKind::Divergence,
        MarkerKind::Build,
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
            MarkerKind::Rate => "fixed rate change",
            MarkerKind::Stall => "stall",
            MarkerKind::Divergence => "first divergence from B",
            MarkerKind::Build => "new build",
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
    /// For a watch marker: the watch and the first tick of the run of
    /// ticks it marks.
    pub watch_run: Option<(usize, u64)>,
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
    /// Export paths the user typed, in [`ExportFormat::ALL`] order (`None`:
    /// propose one named after the scene).
    pub export_paths: [Option<String>; 2],
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
            export_paths: [None, None],
        }
    }
}

/// Frames shown while following live.
pub const LIVE_WINDOW_FRAMES: usize = 600;

/// The timeline's state (see the module docs).
#[derive(Debug)]
pub struct TimelineState {
    /// What the x axis shows.
    axis: XAxis,
    /// Frame budget line, Hz (60 → 16.67 ms).
    budget_hz: f64,
    /// `max_delta` of the session, for stall markers.
    max_delta: f64,
    /// Keep the newest frames in view.
    follow_live: bool,
    /// The x range shown while not following live.
    range: Option<(f64, f64)>,
    /// A range selected with Shift+drag, on the current axis.
    selection: Option<(f64, f64)>,
    /// One state per lane, in [`LaneId::ALL`] order.
    lanes: [LaneState; 8],
    /// Markers, oldest first.
    markers: VecDeque<Marker>,
    /// Each watch's newest run of consecutive held ticks (first, last).
    watch_runs: std::collections::BTreeMap<usize, (u64, u64)>,
    /// Plotted watches and their values by frame.
    watch_lanes: WatchLanes,
    /// The session's cursor as the lanes last saw it: a new one outside
    /// the range shown is brought into view.
    seen_cursor: Option<u64>,
    /// The record under the pointer, if any.
    hover_seq: Option<u64>,
    /// The timeline had keyboard focus last frame (←/→ move the cursor).
    focused: bool,
    /// Ctrl+T asked for the keyboard (the first lane takes it at the next
    /// draw).
    focus_requested: bool,
    /// The export controls.
    export: ExportState,
    /// The decimated lanes of the last draw and what they were computed for.
    reduced: Reduced,
    /// Min/max summaries of blocks of records, for zoomed-out decimation.
    blocks: Blocks,
    /// Width of the plots' frames in the last draw, in points: the pixel
    /// columns the series are decimated to.
    plot_width: Option<f32>,
    /// Where a Shift+drag selection started, on the current axis.
    selecting_from: Option<f64>,
    /// The lane area was drawn this session: its first draw starts at the
    /// top, whatever scroll offset egui's memory kept from the last run.
    lanes_drawn: bool,
}

impl Default for TimelineState {
    fn default() -> TimelineState {
        TimelineState::new()
    }
}

impl TimelineState {
    /// Draws the timeline's controls (in its tab bar).
    pub fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        reading: &crate::editor::shared::Reading<'_>,
        cmd: &mut crate::editor::shared::Commands,
    ) {
        timeline_controls_ui(ui, self, reading, cmd);
    }

    /// The recorded frames grew to hold `frames` (an hour at the display
    /// rate): the watch lanes keep values for as long.
    pub fn hold_an_hour(&mut self, frames: usize) {
        self.watch_lanes.hold(2 * frames);
    }

    /// The lane area starts again at its top at the next draw: where a
    /// comparison's divergence lanes and their "first at tick" link are
    /// (they came into a lane area scrolled down, out of sight).
    pub fn scroll_lanes_to_top(&mut self) {
        self.lanes_drawn = false;
    }

    /// A timeline's state, settings at their defaults.
    pub fn new() -> TimelineState {
        let mut state = TimelineState {
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
            watch_runs: std::collections::BTreeMap::new(),
            watch_lanes: WatchLanes::default(),
            seen_cursor: None,
            hover_seq: None,
            focused: false,
            focus_requested: false,
            export: ExportState::default(),
            reduced: Reduced::default(),
            blocks: Blocks::default(),
            plot_width: None,
            selecting_from: None,
            lanes_drawn: false,
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
            export_paths: self.export.typed(),
        }
    }

    /// Restores persisted settings.
    pub fn apply_settings(&mut self, settings: &TimelineSettings) {
        self.axis = settings.axis;
        self.budget_hz = settings.budget_hz.clamp(1.0, 1000.0);
        for lane in LaneId::ALL {
            self.lanes[lane.index()].expanded = settings.expanded.contains(&lane);
        }
        self.export.restore(&settings.export_paths);
    }

    /// One lane's state.
    pub fn lane(&self, lane: LaneId) -> &LaneState {
        &self.lanes[lane.index()]
    }

    /// The x range shown while not following live, on the current axis.
    pub fn range(&self) -> Option<(f64, f64)> {
        self.range
    }

    /// Whether the newest frames are kept in view.
    pub fn follow_live(&self) -> bool {
        self.follow_live
    }

    /// The range selected with Shift+drag, on the current axis.
    pub fn selection(&self) -> Option<(f64, f64)> {
        self.selection
    }

    /// The record under the pointer, if any.
    pub fn hover_seq(&self) -> Option<u64> {
        self.hover_seq
    }

    /// What the x axis shows.
    pub fn axis(&self) -> XAxis {
        self.axis
    }

    /// The markers, oldest first.
    pub fn markers(&self) -> &VecDeque<Marker> {
        &self.markers
    }

    /// The values recorded for the plotted watches.
    pub fn watch_lanes(&self) -> &WatchLanes {
        &self.watch_lanes
    }

    /// One lane's state, writable.
    fn lane_mut(&mut self, lane: LaneId) -> &mut LaneState {
        &mut self.lanes[lane.index()]
    }
}

impl Panel for TimelineState {
    /// Ctrl+T: the lanes take the keyboard at the next draw; Ctrl+Shift+F:
    /// Fork here.
    fn on_shortcut(
        &mut self,
        shortcut: crate::editor::shared::Shortcut,
        reading: &crate::editor::shared::Reading<'_>,
        cmd: &mut crate::editor::shared::Commands,
    ) {
        match shortcut {
            crate::editor::shared::Shortcut::FocusTimeline => self.focus_requested = true,
            crate::editor::shared::Shortcut::ForkHere => fork_here_key(reading, cmd),
            _ => {}
        }
    }

    fn on_event(
        &mut self,
        event: &crate::editor::protocol::Event,
        reading: &crate::editor::shared::Reading<'_>,
        _cmd: &mut crate::editor::shared::Commands,
    ) {
        self.take_event(event, reading.frames(), reading.live());
    }

    /// Draws the timeline's lanes (the tile's body).
    fn ui(
        &mut self,
        ui: &mut egui::Ui,
        reading: &crate::editor::shared::Reading<'_>,
        cmd: &mut crate::editor::shared::Commands,
    ) {
        timeline_ui(ui, self, reading, cmd);
    }
}
