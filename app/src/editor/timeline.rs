//! The timeline panel: stacked egui_plot lanes over the telemetry ring, one
//! shared time cursor, scrubbing, "resume from here", markers and export.
//!
//! The UI keeps its own [`Telemetry`] ring, fed from the worker's telemetry
//! batches ([`TimelineState::ingest`]). Every lane reduces its series to one
//! min/max pair per pixel column ([`decimate`], as Rerun does) before handing
//! it to egui_plot, so an hour of frames (216,000) draws in a few ms. The lanes
//! share one x axis (linked), which switches between frame index, frame time
//! and simulation tick.
//!
//! Zoomed out, decimation reads min/max summaries of blocks of 16, 32 or 64
//! records (`LEVELS`) that carry the x of each extreme, never the ring
//! itself: one read per record of the 36 MiB ring is a cache miss. The
//! reduced series live in buffers reused from one UI frame to the next, lent
//! to egui_plot, not copied, and reduced again only when the records in view
//! change. Measured with [`bench_timeline_ms`] (an hour, 1600 px, the view
//! sliding every frame): the reduction is ~0.25 ms of a ~2.5 ms UI frame; the
//! rest is egui_plot and epaint drawing ~31,000 line points and the markers.
//!
//! Markers: stalls as records arrive; breakpoints, faults and every
//! error-level log line (a caught hook panic, a rejected non-finite write)
//! on the record of the outer frame they happened in, placed when that
//! record arrives if it has not yet.
//!
//! The panel never talks to the worker directly: what it wants (pause, scrub,
//! rewind) goes into [`TimelineState::outbox`], which the app sends. Tests push
//! the same commands through [`TimelineState::scrub_to`].

use std::collections::VecDeque;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoint, PlotPoints, Points, VLine};
use stepframe_core::telemetry::FrameKindCode;
use stepframe_core::{FrameRecord, LogLevel, Telemetry, TickPoses};

use super::protocol::{Command, Event, WorldView};

/// What the x axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    /// One-based outer frame index.
    FrameIndex,
    /// `frame_time` at the end of the frame, seconds.
    FrameTime,
    /// Completed simulation ticks.
    Tick,
}

impl XAxis {
    /// The x value of a record on this axis.
    pub fn of(self, r: &FrameRecord) -> f64 {
        match self {
            XAxis::FrameIndex => r.frame_index as f64,
            XAxis::FrameTime => r.frame_time,
            XAxis::Tick => r.simulation_tick as f64,
        }
    }

    fn label(self) -> &'static str {
        match self {
            XAxis::FrameIndex => "frame",
            XAxis::FrameTime => "frame time (s)",
            XAxis::Tick => "tick",
        }
    }
}

/// Kinds of timeline markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// A breakpoint suspended the session.
    Breakpoint,
    /// An error event (or a fault).
    Error,
    /// The scene was (re)loaded.
    Reload,
    /// A stall: the frame's dt reached `max_delta`.
    Stall,
}

/// A marker on the timeline, anchored to a record by its sequence number
/// (records ever ingested before it), which stays valid as the ring drops old
/// records.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Sequence number of the record the marker belongs to.
    pub seq: u64,
    /// What happened.
    pub kind: MarkerKind,
    /// Hover text.
    pub text: String,
}

/// Most markers kept (stalls in a long irregular run would otherwise grow without bound).
const MAX_MARKERS: usize = 10_000;

/// Frames shown while following live.
const LIVE_WINDOW_FRAMES: usize = 600;

/// Worst frames highlighted in the dt lane.
const WORST_FRAMES: usize = 10;

/// The timeline's UI-side state.
#[derive(Debug)]
pub struct TimelineState {
    /// The UI's own ring of records.
    pub telemetry: Telemetry,
    /// The cursor: sequence number of the selected record, if any.
    pub cursor: Option<u64>,
    /// Keep the newest frames in view.
    pub follow_live: bool,
    /// What the x axis shows.
    pub axis: XAxis,
    /// Frame budget line, Hz (60 → 16.67 ms).
    pub budget_hz: f64,
    /// `max_delta` of the session, for stall markers.
    pub max_delta: f64,
    /// Markers, oldest first.
    pub markers: VecDeque<Marker>,
    /// Markers for outer frames whose record has not arrived yet (the worker
    /// sends log lines and suspensions before the frame's telemetry), as
    /// `(frame_index, kind, text)`, oldest first.
    pending: VecDeque<(u64, MarkerKind, String)>,
    /// Sequence number of the first record of a session whose `Loaded`
    /// event has not been seen yet (the app drains telemetry before events,
    /// so a new session's first frames can arrive before its `Loaded`).
    unannounced: Option<u64>,
    /// Whether a `Loaded` event has been seen (before it, the first record
    /// starts the session still to be announced).
    seen_load: bool,
    /// Committed poses of the scrubbed tick, once the worker sent them.
    pub scrub: Option<TickPoses>,
    /// Export path field.
    pub export_path: String,
    /// Last export result or error.
    pub status: Option<String>,
    /// Commands for the worker; the app sends and clears them.
    pub outbox: Vec<Command>,
    /// Visible x range of the last drawn frame (export and decimation use it).
    pub visible: Option<(f64, f64)>,
    /// The decimated lanes of the last draw and what they were computed for.
    reduced: Reduced,
    /// Min/max summaries of blocks of records, for zoomed-out decimation.
    blocks: Blocks,
    /// Width of the plots' frames in the last draw, in points: the pixel
    /// columns the series are decimated to.
    plot_width: Option<f32>,
}

impl Default for TimelineState {
    fn default() -> TimelineState {
        TimelineState::with_capacity(stepframe_core::telemetry::DEFAULT_CAPACITY)
    }
}

impl TimelineState {
    /// A timeline keeping at most `capacity` frames.
    pub fn with_capacity(capacity: usize) -> TimelineState {
        TimelineState {
            telemetry: Telemetry::with_capacity(capacity),
            cursor: None,
            follow_live: true,
            axis: XAxis::FrameIndex,
            budget_hz: 60.0,
            max_delta: 0.25,
            markers: VecDeque::new(),
            pending: VecDeque::new(),
            unannounced: None,
            seen_load: false,
            scrub: None,
            export_path: "timeline.json".to_string(),
            status: None,
            outbox: Vec::new(),
            visible: None,
            reduced: Reduced::default(),
            blocks: Blocks::default(),
            plot_width: None,
        }
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
        self.record(self.cursor?)
    }

    /// Adds one record from the worker (stalls are marked here, and the
    /// markers waiting for this frame are placed on it).
    pub fn ingest(&mut self, record: FrameRecord) {
        let seq = self.telemetry.pushed();
        // A fresh session counts frames from 1 again; within a session only
        // a continuation or a lone tick repeats the previous frame's index.
        let restart = match self.telemetry.records().back() {
            Some(prev) => {
                record.frame_index < prev.frame_index
                    || (record.frame_index == prev.frame_index
                        && record.kind == FrameKindCode::Frame)
            }
            None => !self.seen_load,
        };
        if restart {
            self.unannounced = Some(seq);
            self.pending.clear();
        }
        while let Some((_, kind, text)) = self
            .pending
            .pop_front_if(|(frame, _, _)| *frame <= record.frame_index)
        {
            self.mark(seq, kind, text);
        }
        if record.delta_time >= self.max_delta && self.max_delta > 0.0 {
            self.mark(
                seq,
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

    fn mark(&mut self, seq: u64, kind: MarkerKind, text: String) {
        if self.markers.len() == MAX_MARKERS {
            self.markers.pop_front();
        }
        self.markers.push_back(Marker { seq, kind, text });
    }

    /// Marks outer frame `frame`: on its first record if it has arrived,
    /// else on that record when it arrives. A frame the ring no longer
    /// holds gets no marker.
    fn mark_frame(&mut self, frame: u64, kind: MarkerKind, text: String) {
        let records = self.telemetry.records();
        let i = partition(records.len(), |i| records[i].frame_index < frame);
        if i == records.len() {
            if self.pending.len() == MAX_MARKERS {
                self.pending.pop_front();
            }
            self.pending.push_back((frame, kind, text));
        } else if i > 0 || records[0].frame_index == frame {
            self.mark(self.first_seq() + i as u64, kind, text);
        }
    }

    /// Notes an editor event: markers, and the end of a scrub. Breakpoints,
    /// faults and every error-level log line (a caught hook panic, a rejected
    /// non-finite write) mark the outer frame they happened in.
    pub fn on_event(&mut self, event: &Event) {
        let last = self.telemetry.pushed().saturating_sub(1);
        match event {
            Event::Suspended(s) => match &s.reason {
                stepframe_core::SuspendReason::Breakpoint(_) => self.mark_frame(
                    s.frame,
                    MarkerKind::Breakpoint,
                    format!("breakpoint at tick {}", s.tick),
                ),
                stepframe_core::SuspendReason::Fault { .. } => self.mark_frame(
                    s.frame,
                    MarkerKind::Error,
                    format!("fault at tick {}", s.tick),
                ),
                _ => {}
            },
            Event::Log(entries) => {
                for e in entries.iter().filter(|e| e.level == LogLevel::Error) {
                    self.mark_frame(
                        e.frame,
                        MarkerKind::Error,
                        format!("tick {}: {}", e.tick, e.message),
                    );
                }
            }
            Event::Resumed => self.scrub = None,
            Event::Loaded { path, .. } => {
                // Keep the new session's frames that arrived before this
                // event; drop the old session's.
                let kept: Vec<FrameRecord> = match self.unannounced.take() {
                    Some(start) => {
                        let skip = start.saturating_sub(self.first_seq());
                        let skip = usize::try_from(skip).unwrap_or(usize::MAX);
                        self.telemetry
                            .records()
                            .iter()
                            .skip(skip)
                            .copied()
                            .collect()
                    }
                    None => Vec::new(),
                };
                self.telemetry.clear();
                self.blocks = Blocks::default();
                self.reduced.key = None;
                self.markers.clear();
                self.pending.clear();
                self.cursor = None;
                self.scrub = None;
                self.seen_load = true;
                let seq = self.telemetry.pushed();
                self.mark(
                    seq,
                    MarkerKind::Reload,
                    format!("loaded {}", path.display()),
                );
                for r in kept {
                    self.ingest(r);
                }
            }
            Event::Error(message) => self.mark(last, MarkerKind::Error, message.clone()),
            Event::Poses(poses) => self.scrub = poses.clone(),
            Event::Rewound(tick) => self.rewound(*tick),
            _ => {}
        }
    }

    /// After a rewind to `tick`: later frames belong to an abandoned branch.
    fn rewound(&mut self, tick: u64) {
        let first = self.first_seq();
        let mut kept = Telemetry::with_capacity(self.telemetry.capacity());
        for r in self.telemetry.records() {
            if r.simulation_tick <= tick {
                kept.push(*r);
            }
        }
        let end = kept.pushed();
        self.telemetry = kept;
        self.blocks = Blocks::default();
        self.reduced.key = None;
        self.pending.clear();
        self.unannounced = None;
        self.markers.retain_mut(|m| {
            if m.seq < first || m.seq - first >= end {
                return false;
            }
            m.seq -= first;
            true
        });
        self.cursor = end.checked_sub(1);
        self.scrub = None;
        self.follow_live = true;
    }

    /// Moves the cursor to record `seq`: pauses the session (once) and asks the
    /// worker for the committed poses of that record's tick. This is what a
    /// click or drag on the plot does.
    pub fn scrub_to(&mut self, seq: u64, suspended: bool) {
        let Some(tick) = self.record(seq).map(|r| r.simulation_tick) else {
            return;
        };
        if !suspended && !self.outbox.contains(&Command::Pause) {
            self.outbox.push(Command::Pause);
        }
        self.follow_live = false;
        if self.cursor != Some(seq) {
            self.cursor = Some(seq);
            self.outbox.push(Command::Scrub(tick));
        }
    }

    /// "Resume from here": rewinds the live session to the cursor's tick.
    pub fn resume_from_cursor(&mut self) {
        if let Some(r) = self.cursor_record() {
            let tick = r.simulation_tick;
            self.outbox.push(Command::RewindTo(tick));
        }
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

    /// Shows the scrubbed tick's committed poses in `view` (viewport and
    /// inspector), while the session is suspended.
    pub fn apply_scrub(&self, view: &mut WorldView) {
        let Some(scrub) = &self.scrub else { return };
        if view.suspension.is_none() {
            return;
        }
        for (id, pose) in &scrub.poses {
            if let Some(o) = view.objects.iter_mut().find(|o| o.id == *id) {
                o.presentation = *pose;
                o.committed = *pose;
            }
            if let Some(s) = view.selected.as_mut().filter(|s| s.id == *id) {
                s.presentation = *pose;
                s.committed = *pose;
            }
        }
    }

    /// Writes the visible range as Chrome trace JSON (`.json`) or CSV, atomically
    /// (a temporary file renamed into place).
    pub fn export(&self, path: &Path, chrome: bool) -> std::io::Result<usize> {
        let axis = self.axis;
        let (lo, hi) = self.visible.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let records = || {
            self.telemetry
                .records()
                .iter()
                .filter(move |r| (lo..=hi).contains(&axis.of(r)))
        };
        let n = records().count();
        let mut tmp = PathBuf::from(path);
        tmp.as_mut_os_string().push(".tmp");
        {
            let mut file = std::fs::File::create(&tmp)?;
            if chrome {
                stepframe_core::export::chrome_trace(records(), &mut file)?;
            } else {
                stepframe_core::export::csv(records(), &mut file)?;
            }
            file.flush()?;
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)?;
        Ok(n)
    }
}

/// First index in `0..n` where `before(i)` is false (`before` must be true then
/// false along the slice, as for sorted x).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Reduces the series `(xs[i], ys[i])` (xs non-decreasing) to at most one
/// min/max pair per pixel column of `x_range` split into `columns`, in x order,
/// plus the nearest point on each side of the range so the line runs to the
/// edges. A column's min and max are kept exactly, so no spike disappears when
/// zoomed out.
pub fn decimate(xs: &[f64], ys: &[f64], x_range: (f64, f64), columns: usize) -> Vec<[f64; 2]> {
    decimate_with(
        xs.len().min(ys.len()),
        |i| xs[i],
        |i| ys[i],
        x_range,
        columns,
    )
}

/// [`decimate`] over accessors (no intermediate arrays: the timeline reads its
/// ring directly).
pub fn decimate_with(
    n: usize,
    x: impl Fn(usize) -> f64,
    y: impl Fn(usize) -> f64,
    x_range: (f64, f64),
    columns: usize,
) -> Vec<[f64; 2]> {
    decimate_many(n, &x, &[&y], x_range, columns)
        .pop()
        .unwrap_or_default()
}

/// [`decimate_with`] for several series sharing one x, in a single pass (each
/// record is read once: at an hour of frames the cost is memory traffic, so
/// one pass over the ring instead of one per series).
pub fn decimate_many(
    n: usize,
    x: &dyn Fn(usize) -> f64,
    ys: &[&dyn Fn(usize) -> f64],
    (lo, hi): (f64, f64),
    columns: usize,
) -> Vec<Vec<[f64; 2]>> {
    let columns = columns.max(1);
    let start = partition(n, |i| x(i) < lo);
    let end = partition(n, |i| x(i) <= hi);
    let mut outs: Vec<Vec<[f64; 2]>> = ys
        .iter()
        .map(|_| Vec::with_capacity(2 * columns.min(end - start) + 4))
        .collect();
    if start > 0 {
        for (out, y) in outs.iter_mut().zip(ys) {
            out.push([x(start - 1), y(start - 1)]);
        }
    }
    let width = if hi > lo {
        (hi - lo) / columns as f64
    } else {
        1.0
    };
    // Per series: (min index, min value, max index, max value).
    let mut acc = vec![(0usize, 0f64, 0usize, 0f64); ys.len()];
    let mut column = usize::MAX;
    let flush = |outs: &mut [Vec<[f64; 2]>], acc: &[(usize, f64, usize, f64)]| {
        for (out, &(a, av, b, bv)) in outs.iter_mut().zip(acc) {
            let ((first, fv), (second, sv)) = if a <= b {
                ((a, av), (b, bv))
            } else {
                ((b, bv), (a, av))
            };
            out.push([x(first), fv]);
            if second != first {
                out.push([x(second), sv]);
            }
        }
    };
    for i in start..end {
        let c = (((x(i) - lo) / width) as usize).min(columns - 1);
        if c != column {
            if column != usize::MAX {
                flush(&mut outs, &acc);
            }
            column = c;
            for (a, y) in acc.iter_mut().zip(ys) {
                let v = y(i);
                *a = (i, v, i, v);
            }
        } else {
            for (a, y) in acc.iter_mut().zip(ys) {
                let v = y(i);
                if v < a.1 {
                    a.0 = i;
                    a.1 = v;
                } else if v > a.3 {
                    a.2 = i;
                    a.3 = v;
                }
            }
        }
    }
    if column != usize::MAX {
        flush(&mut outs, &acc);
    }
    if end < n {
        for (out, y) in outs.iter_mut().zip(ys) {
            out.push([x(end), y(end)]);
        }
    }
    outs
}

/// Text of one read-out row: `name value` (values printed exactly, so a test
/// can compare them with the record).
pub fn readout(r: &FrameRecord) -> Vec<String> {
    vec![
        format!("at frame_index {}", r.frame_index),
        format!("at simulation_tick {}", r.simulation_tick),
        format!("at delta_time {}", r.delta_time),
        format!("at frame_time {}", r.frame_time),
        format!("at simulation_time {}", r.simulation_time),
        format!("at fixed_delta_time {}", r.fixed_delta_time),
        format!("at interpolation_alpha {}", r.interpolation_alpha),
        format!("at accumulator_before {}", r.accumulator_before),
        format!("at accumulator_after {}", r.accumulator_after),
        format!("at ticks {}", r.ticks),
        format!("at dropped_this_frame {}", r.dropped_this_frame),
        format!("at dropped_time {}", r.dropped_time),
    ]
}

/// Draws the timeline: controls, read-out and the stacked lanes. `suspended`
/// says whether the session is suspended (a scrub pauses it otherwise).
pub fn timeline_ui(ui: &mut egui::Ui, state: &mut TimelineState, suspended: bool) {
    ui.horizontal(|ui| {
        ui.checkbox(&mut state.follow_live, "follow live");
        let label = ui.label("x axis");
        egui::ComboBox::from_id_salt("timeline_axis")
            .selected_text(state.axis.label())
            .show_ui(ui, |ui| {
                for axis in [XAxis::FrameIndex, XAxis::FrameTime, XAxis::Tick] {
                    ui.selectable_value(&mut state.axis, axis, axis.label());
                }
            })
            .response
            .labelled_by(label.id);
        let label = ui.label("budget Hz");
        ui.add(
            egui::DragValue::new(&mut state.budget_hz)
                .range(1.0..=1000.0)
                .speed(1.0),
        )
        .labelled_by(label.id)
        .on_hover_text("Frame budget line of the dt lane: 60 Hz draws it at 16.67 ms");
        ui.label(format!("{} frames", state.telemetry.len()));
        if state.cursor_record().is_some() && ui.button("Resume from here").clicked() {
            state.resume_from_cursor();
        }
        let label = ui.label("export to");
        ui.add(egui::TextEdit::singleline(&mut state.export_path).desired_width(160.0))
            .labelled_by(label.id);
        for (label, chrome) in [("Chrome trace", true), ("CSV", false)] {
            if ui.button(label).clicked() {
                let path = PathBuf::from(state.export_path.trim());
                state.status = Some(match state.export(&path, chrome) {
                    Ok(n) => format!("wrote {n} frames to {}", path.display()),
                    Err(e) => format!("export to {} failed: {e}", path.display()),
                });
            }
        }
        if let Some(status) = &state.status {
            ui.label(status);
        }
    });
    if let Some(r) = state.cursor_record().copied() {
        ui.horizontal_wrapped(|ui| {
            for row in readout(&r) {
                ui.monospace(row);
            }
        });
    }
    draw_lanes(ui, state, suspended);
}

/// Indices into [`lane_series`]'s output.
const SERIES_DT: usize = 0;
const SERIES_ACC_BEFORE: usize = 1;
const SERIES_ACC_AFTER: usize = 2;
const SERIES_ALPHA: usize = 3;
const SERIES_TICKS: usize = 4;
const SERIES_DROPPED: usize = 5;
/// `ticks` where the cap dropped backlog, -1 elsewhere (markers keep y ≥ 0).
const SERIES_DROPPED_MARK: usize = 6;
const SERIES_PHYSICS: usize = 7;
const SERIES_FIRST_PRIORITY: usize = 8;

/// What the decimated series were computed for (the cache key). They depend
/// on the records in view and their two neighbours only, so a view that
/// stays put while the session runs (new frames land right of it) is not
/// reduced again every frame.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SeriesKey {
    /// Sequence numbers of the records in view, `first..end`.
    span: (u64, u64),
    /// Whether the neighbours left and right of the view are kept.
    neighbours: (bool, bool),
    /// The x range, as bits.
    range: (u64, u64),
    /// Pixel columns.
    columns: usize,
    /// The x axis.
    axis: XAxis,
    /// Priority slots drawn.
    slots: usize,
}

/// Records per summary block at each level, finest first. Decimation reads
/// the coarsest level whose blocks a pixel column holds at least two of
/// (a block goes to the column its first record is in, so a point moves by
/// less than half a pixel), and records where it holds fewer than two of
/// the finest. An hour of frames (216,000) is ~3,400 blocks of 64 over a
/// 1,565-column plot, ~6,800 blocks of 32 over a 2,560-column one (a
/// maximised editor on a 1440p screen) and ~13,500 blocks of 16 over a
/// 3,840-column one; reading the records instead (36 MiB) cost 12.8 and
/// 16.4 ms per UI frame at those widths. Each level doubles the one below,
/// so a column reads two to four blocks (more past 256 records a column). A
/// block is 552 bytes: 13 MB for a full ring, next to its 36 MiB.
const LEVELS: [u64; 3] = [16, 32, 64];

/// Series values kept per record: the fixed series plus every priority slot.
const SERIES: usize = SERIES_FIRST_PRIORITY + stepframe_core::telemetry::RECORD_PRIORITIES;

/// Every series value of a record, in `SERIES_*` order; priority slot `s` is
/// the sum of slots `0..=s` (stacked).
fn series_values(r: &FrameRecord) -> [f64; SERIES] {
    let mut v = [0.0; SERIES];
    v[SERIES_DT] = r.delta_time * 1000.0;
    v[SERIES_ACC_BEFORE] = r.accumulator_before * 1000.0;
    v[SERIES_ACC_AFTER] = r.accumulator_after * 1000.0;
    v[SERIES_ALPHA] = f64::from(r.interpolation_alpha);
    v[SERIES_TICKS] = f64::from(r.ticks);
    v[SERIES_DROPPED] = r.dropped_time;
    v[SERIES_DROPPED_MARK] = if r.dropped_this_frame > 0.0 {
        f64::from(r.ticks)
    } else {
        -1.0
    };
    v[SERIES_PHYSICS] = f64::from(r.physics_ms);
    let mut sum = 0.0;
    for (s, p) in r.by_priority.iter().enumerate() {
        if s < usize::from(r.priorities) {
            sum += f64::from(p.1);
        }
        v[SERIES_FIRST_PRIORITY + s] = sum;
    }
    v
}

/// Min and max of every series over a block of consecutive records, with
/// the x of the records holding them, so that decimating through blocks
/// never reads the ring: at 216,000 records (36 MiB) each record read is a
/// cache miss, and reading x from the ring (for every block and every
/// column's pair) was ~1 ms of the 4 ms UI frame under perf.
#[derive(Clone, Debug)]
struct Block {
    /// x of the block's first record: the pixel column the block goes to.
    x0: f64,
    /// Per series: `[x of min, min, x of max, max]`, of the first record
    /// holding each.
    ext: [[f64; 4]; SERIES],
    /// Per series: offsets in the block of those records (they order a
    /// column's pair of points as sequence numbers do).
    at: [[u8; 2]; SERIES],
}

impl Block {
    /// Folds in `b`, the next block `off` records further: extremes of
    /// equal value keep the earlier record, as a scan in order would.
    fn merge(&mut self, b: &Block, off: u8) {
        for (((e, at), be), bat) in self.ext.iter_mut().zip(&mut self.at).zip(&b.ext).zip(&b.at) {
            if be[1] < e[1] {
                (e[0], e[1], at[0]) = (be[0], be[1], bat[0] + off);
            }
            if be[3] > e[3] {
                (e[2], e[3], at[1]) = (be[2], be[3], bat[1] + off);
            }
        }
    }
}

/// The blocks of one size, built incrementally, oldest first.
#[derive(Clone, Debug, Default)]
struct Level {
    /// Records per block.
    size: u64,
    /// Block index (sequence number / size) of `blocks[0]`.
    first: u64,
    /// The summaries, oldest first.
    blocks: VecDeque<Block>,
    /// Sequence number up to which records are summarised.
    built: u64,
}

impl Level {
    fn new(size: u64, first_seq: u64) -> Level {
        let first = first_seq.div_ceil(size);
        Level {
            size,
            first,
            blocks: VecDeque::new(),
            built: first * size,
        }
    }

    /// Forgets the blocks the ring (from `first_seq` on) no longer fully holds.
    fn forget_before(&mut self, first_seq: u64) {
        let first = first_seq.div_ceil(self.size);
        while self.first < first && !self.blocks.is_empty() {
            self.blocks.pop_front();
            self.first += 1;
        }
        if self.blocks.is_empty() {
            self.built = self.built.max(first * self.size);
            self.first = self.built / self.size;
        }
    }

    /// The summary of the block starting at sequence number `seq`, if built.
    fn at(&self, seq: u64) -> Option<&Block> {
        let b = (seq / self.size).checked_sub(self.first)?;
        self.blocks.get(usize::try_from(b).ok()?)
    }
}

/// Block summaries of the ring at every size of [`LEVELS`], built
/// incrementally as records arrive, for one x axis (rebuilt when the axis
/// changes, about 15 ms for a full hour).
#[derive(Clone, Debug)]
struct Blocks {
    /// The axis the x values are on.
    axis: XAxis,
    /// One level per size of [`LEVELS`], finest first.
    levels: [Level; LEVELS.len()],
}

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks::new(XAxis::FrameIndex, 0)
    }
}

impl Blocks {
    fn new(axis: XAxis, first_seq: u64) -> Blocks {
        Blocks {
            axis,
            levels: LEVELS.map(|size| Level::new(size, first_seq)),
        }
    }

    /// Summarises the complete blocks not yet summarised, and forgets blocks
    /// the ring no longer fully holds. The finest level reads the records,
    /// each coarser one merges blocks of the level below.
    fn update(&mut self, telemetry: &Telemetry, axis: XAxis) {
        let pushed = telemetry.pushed();
        let first_seq = pushed - telemetry.len() as u64;
        if self.axis != axis || self.levels.iter().any(|l| l.built > pushed) {
            *self = Blocks::new(axis, first_seq);
        }
        for level in &mut self.levels {
            level.forget_before(first_seq);
        }
        let records = telemetry.records();
        let fine = &mut self.levels[0];
        while fine.built + fine.size <= pushed {
            let base = fine.built;
            let r0 = &records[(base - first_seq) as usize];
            let (x0, v0) = (axis.of(r0), series_values(r0));
            let mut b = Block {
                x0,
                ext: std::array::from_fn(|k| [x0, v0[k], x0, v0[k]]),
                at: [[0; 2]; SERIES],
            };
            for off in 1..fine.size as u8 {
                let r = &records[(base + u64::from(off) - first_seq) as usize];
                let x = axis.of(r);
                let v = series_values(r);
                for ((v, e), at) in v.into_iter().zip(&mut b.ext).zip(&mut b.at) {
                    if v < e[1] {
                        (e[0], e[1], at[0]) = (x, v, off);
                    }
                    if v > e[3] {
                        (e[2], e[3], at[1]) = (x, v, off);
                    }
                }
            }
            fine.blocks.push_back(b);
            fine.built += fine.size;
        }
        // A coarser level starts no earlier than the finer one (both start
        // at the ring's first whole block), so its parts are there.
        for l in 1..self.levels.len() {
            let (finer, coarser) = self.levels.split_at_mut(l);
            let (fine, coarse) = (&finer[l - 1], &mut coarser[0]);
            'blocks: while coarse.built + coarse.size <= fine.built {
                let base = coarse.built;
                let Some(mut b) = fine.at(base).cloned() else {
                    break;
                };
                for off in (fine.size..coarse.size).step_by(fine.size as usize) {
                    let Some(next) = fine.at(base + off) else {
                        break 'blocks;
                    };
                    b.merge(next, off as u8);
                }
                coarse.blocks.push_back(b);
                coarse.built += coarse.size;
            }
        }
    }
}

/// Indices in the ring of the records with x in `lo..=hi`, `start..end`.
fn view_span(telemetry: &Telemetry, axis: XAxis, (lo, hi): (f64, f64)) -> (usize, usize) {
    let records = telemetry.records();
    let x = |i: usize| axis.of(&records[i]);
    let start = partition(records.len(), |i| x(i) < lo);
    let end = partition(records.len(), |i| x(i) <= hi);
    (start, end)
}

/// A series' smallest and largest value in the current pixel column, with
/// the sequence number and x of the record holding each.
#[derive(Clone, Copy, Debug)]
struct Extremes {
    min: (u64, f64, f64),
    max: (u64, f64, f64),
}

/// Every lane's series, decimated to min/max per pixel column, into `outs`
/// (in `SERIES_*` order, as many series as `outs` holds, at most [`SERIES`];
/// their allocations are reused). Record by record where a column spans few
/// records, block summary by block summary where it spans many (see
/// [`LEVELS`]).
fn lane_series(
    telemetry: &Telemetry,
    blocks: &Blocks,
    axis: XAxis,
    (lo, hi): (f64, f64),
    columns: usize,
    outs: &mut [Vec<PlotPoint>],
) {
    let records = telemetry.records();
    let n = records.len();
    let first_seq = telemetry.pushed() - n as u64;
    let x = |i: usize| axis.of(&records[i]);
    let columns = columns.max(1);
    let (start, end) = view_span(telemetry, axis, (lo, hi));
    for out in outs.iter_mut() {
        out.clear();
        out.reserve(2 * columns.min(end - start) + 4);
    }
    let push_record = |outs: &mut [Vec<PlotPoint>], i: usize| {
        let v = series_values(&records[i]);
        for (out, v) in outs.iter_mut().zip(v) {
            out.push(PlotPoint::new(x(i), v));
        }
    };
    if start > 0 {
        push_record(outs, start - 1);
    }
    let width = if hi > lo {
        (hi - lo) / columns as f64
    } else {
        1.0
    };
    // The coarsest level a column holds two blocks of, if any.
    let level = blocks
        .levels
        .iter()
        .rev()
        .find(|l| (end - start) as u64 >= 2 * l.size * columns as u64)
        .filter(|_| axis == blocks.axis);
    let size = level.map_or(1, |l| l.size);
    let mut acc = [Extremes {
        min: (0, 0.0, 0.0),
        max: (0, 0.0, 0.0),
    }; SERIES];
    let acc = &mut acc[..outs.len()];
    let mut column = usize::MAX;
    let flush = |outs: &mut [Vec<PlotPoint>], acc: &[Extremes]| {
        for (out, e) in outs.iter_mut().zip(acc) {
            let (first, second) = if e.min.0 <= e.max.0 {
                (e.min, e.max)
            } else {
                (e.max, e.min)
            };
            out.push(PlotPoint::new(first.1, first.2));
            if second.0 != first.0 {
                out.push(PlotPoint::new(second.1, second.2));
            }
        }
    };
    let mut i = start;
    while i < end {
        let seq = first_seq + i as u64;
        let block = match level {
            Some(l) if seq.is_multiple_of(size) && i + size as usize <= end => l.at(seq),
            _ => None,
        };
        let xi = block.map_or_else(|| x(i), |b| b.x0);
        let c = (((xi - lo) / width) as usize).min(columns - 1);
        let new_column = c != column;
        if new_column && column != usize::MAX {
            flush(outs, acc);
        }
        column = c;
        if let Some(b) = block {
            for ((a, e), at) in acc.iter_mut().zip(&b.ext).zip(&b.at) {
                let min = (seq + u64::from(at[0]), e[0], e[1]);
                let max = (seq + u64::from(at[1]), e[2], e[3]);
                if new_column {
                    *a = Extremes { min, max };
                } else {
                    if min.2 < a.min.2 {
                        a.min = min;
                    }
                    if max.2 > a.max.2 {
                        a.max = max;
                    }
                }
            }
            i += size as usize;
        } else {
            let v = series_values(&records[i]);
            for (a, v) in acc.iter_mut().zip(v) {
                let p = (seq, xi, v);
                if new_column {
                    *a = Extremes { min: p, max: p };
                } else if v < a.min.2 {
                    a.min = p;
                } else if v > a.max.2 {
                    a.max = p;
                }
            }
            i += 1;
        }
    }
    if column != usize::MAX {
        flush(outs, acc);
    }
    if end < n {
        push_record(outs, end);
    }
}

/// The `WORST_FRAMES` highest points of `points` with x in `range`, highest
/// first (ties in x order), one per x: the same as a stable sort by
/// descending y, dropping a point whose predecessor has its x, and
/// truncating, but without sorting every column's pair each frame.
fn worst_frames(points: &[PlotPoint], (lo, hi): (f64, f64), out: &mut Vec<PlotPoint>) {
    let in_range = || points.iter().filter(|p| (lo..=hi).contains(&p.x));
    let dedup_truncate = |out: &mut Vec<PlotPoint>| {
        out.dedup_by(|a, b| a.x == b.x);
        out.truncate(WORST_FRAMES);
    };
    // The top `KEEP` by stable insertion: enough for `WORST_FRAMES` after
    // dropping repeated x, unless many repeat (then sort them all).
    const KEEP: usize = 2 * WORST_FRAMES;
    out.clear();
    for p in in_range() {
        if out.len() == KEEP && out[KEEP - 1].y.total_cmp(&p.y).is_ge() {
            continue;
        }
        let at = out.partition_point(|q| q.y.total_cmp(&p.y).is_ge());
        out.insert(at, *p);
        out.truncate(KEEP);
    }
    let complete = out.len() < KEEP;
    dedup_truncate(out);
    if out.len() < WORST_FRAMES && !complete {
        out.clear();
        out.extend(in_range());
        out.sort_by(|a, b| b.y.total_cmp(&a.y));
        dedup_truncate(out);
    }
}

/// The decimated lanes of the last draw, kept while their key holds (a
/// paused or scrubbed timeline redraws without touching the ring), and
/// refilled in place otherwise (no allocation per UI frame).
#[derive(Debug, Default)]
struct Reduced {
    /// What they were computed for.
    key: Option<SeriesKey>,
    /// Decimated series in `SERIES_*` order (only the drawn priority slots
    /// are filled).
    series: Vec<Vec<PlotPoint>>,
    /// The worst frames in view (top of the decimated dt series).
    worst: Vec<PlotPoint>,
    /// Frames where the step cap dropped backlog, at their `ticks`.
    dropped_marks: Vec<PlotPoint>,
}

impl Reduced {
    /// Recomputes everything for `key`.
    fn refill(
        &mut self,
        key: SeriesKey,
        telemetry: &Telemetry,
        blocks: &Blocks,
        range: (f64, f64),
    ) {
        self.series.resize_with(SERIES, Vec::new);
        let used = SERIES_FIRST_PRIORITY + key.slots.min(SERIES - SERIES_FIRST_PRIORITY);
        lane_series(
            telemetry,
            blocks,
            key.axis,
            range,
            key.columns,
            &mut self.series[..used],
        );
        for unused in &mut self.series[used..] {
            unused.clear();
        }
        // The worst frames: every frame worse than all others in its pixel
        // column is a column maximum, so the top of the decimated dt series
        // finds them.
        worst_frames(&self.series[SERIES_DT], range, &mut self.worst);
        self.dropped_marks.clear();
        self.dropped_marks.extend(
            self.series[SERIES_DROPPED_MARK]
                .iter()
                .filter(|p| p.y >= 0.0),
        );
        self.key = Some(key);
    }
}

/// One lane: a name, its lines, threshold lines and marker points (borrowed
/// from [`Reduced`]: nothing is copied per UI frame).
struct Lane<'a> {
    id: &'static str,
    series: Vec<(String, &'a [PlotPoint])>,
    hlines: Vec<(&'static str, f64)>,
    points: Vec<(&'static str, &'a [PlotPoint], egui::Color32)>,
}

fn draw_lanes(ui: &mut egui::Ui, state: &mut TimelineState, suspended: bool) {
    let records = state.telemetry.records();
    let axis = state.axis;
    let n = records.len();
    let (Some(first), Some(last)) = (records.front(), records.back()) else {
        ui.label("no frames yet");
        return;
    };
    let full = (axis.of(first), axis.of(last).max(axis.of(first) + 1e-9));
    let live = (
        axis.of(&records[n.saturating_sub(LIVE_WINDOW_FRAMES)]),
        full.1,
    );
    let range = if state.follow_live {
        live
    } else {
        state.visible.unwrap_or(full)
    };
    // One min/max pair per pixel column of the plots themselves (their
    // frames as drawn last UI frame: the panel less the y axes and the
    // scroll bar), not of the whole panel.
    let columns = state
        .plot_width
        .unwrap_or_else(|| ui.available_width())
        .max(1.0) as usize;
    let fixed_dt = last.fixed_delta_time;
    // FixedUpdate priorities as the newest frame has them (slots are in
    // dispatch order, so they line up frame to frame).
    let priority_labels: Vec<String> = last
        .priorities()
        .iter()
        .map(|p| format!("priority {}", p.0))
        .collect();
    let (start, end) = view_span(&state.telemetry, axis, range);
    let first_seq = state.first_seq();
    let key = SeriesKey {
        span: (first_seq + start as u64, first_seq + end as u64),
        neighbours: (start > 0, end < n),
        range: (range.0.to_bits(), range.1.to_bits()),
        columns,
        axis,
        slots: priority_labels.len(),
    };
    state.blocks.update(&state.telemetry, axis);
    if state.reduced.key != Some(key) {
        state
            .reduced
            .refill(key, &state.telemetry, &state.blocks, range);
    }
    let reduced = &state.reduced;
    let series = |i: usize| reduced.series[i].as_slice();
    // Series order: see `lane_series`.
    let stacked: Vec<(String, &[PlotPoint])> = priority_labels
        .into_iter()
        .enumerate()
        .map(|(s, label)| (label, series(SERIES_FIRST_PRIORITY + s)))
        .collect();
    let lanes = [
        Lane {
            id: "dt (ms)",
            series: vec![("dt".into(), series(SERIES_DT))],
            hlines: vec![("budget", 1000.0 / state.budget_hz.max(1e-3))],
            points: vec![("worst frames", &reduced.worst, egui::Color32::RED)],
        },
        Lane {
            id: "accumulator (ms)",
            series: vec![
                ("before".into(), series(SERIES_ACC_BEFORE)),
                ("after".into(), series(SERIES_ACC_AFTER)),
            ],
            hlines: vec![("fixed_dt", fixed_dt * 1000.0)],
            points: vec![],
        },
        Lane {
            id: "alpha",
            series: vec![("alpha".into(), series(SERIES_ALPHA))],
            hlines: vec![],
            points: vec![],
        },
        Lane {
            id: "ticks",
            series: vec![("ticks".into(), series(SERIES_TICKS))],
            hlines: vec![],
            points: vec![(
                "cap dropped backlog",
                &reduced.dropped_marks,
                egui::Color32::from_rgb(255, 140, 0),
            )],
        },
        Lane {
            id: "dropped (s)",
            series: vec![("dropped".into(), series(SERIES_DROPPED))],
            hlines: vec![],
            points: vec![],
        },
        Lane {
            id: "FixedUpdate (ms)",
            series: stacked,
            hlines: vec![],
            points: vec![],
        },
        Lane {
            id: "physics (ms)",
            series: vec![("physics".into(), series(SERIES_PHYSICS))],
            hlines: vec![],
            points: vec![],
        },
    ];
    let cursor_x = state.cursor_record().map(|r| axis.of(r));
    let marker_points: Vec<(MarkerKind, f64, &str)> = state
        .markers
        .iter()
        .filter_map(|m| {
            let r = state.record(m.seq)?;
            let x = axis.of(r);
            (range.0..=range.1)
                .contains(&x)
                .then_some((m.kind, x, m.text.as_str()))
        })
        .collect();

    let link = ui.scope_id().with("timeline_link");
    let lane_height = ((ui.available_height() - 40.0) / 8.0).clamp(40.0, 90.0);
    let mut clicked_x: Option<f64> = None;
    let mut new_range: Option<(f64, f64)> = None;
    let mut plot_width: Option<f32> = None;
    let mut scrolled = false;
    egui::ScrollArea::vertical()
        .id_salt("timeline_lanes")
        .show(ui, |ui| {
            for (k, lane) in lanes.into_iter().enumerate() {
                let resp = Plot::new(lane.id)
                    .height(lane_height)
                    .link_axis(link, [true, false])
                    .link_cursor(link, [true, false])
                    .allow_drag(false)
                    .allow_boxed_zoom(false)
                    .allow_double_click_reset(false)
                    .y_axis_label(lane.id)
                    .show_x(true)
                    .legend(Legend::default())
                    .show(ui, |pui| {
                        if k == 0 {
                            pui.set_plot_bounds_x(range.0..=range.1);
                        }
                        for (name, pts) in lane.series {
                            pui.line(Line::new(name, PlotPoints::Borrowed(pts)));
                        }
                        for (name, y) in lane.hlines {
                            pui.hline(egui_plot::HLine::new(name, y));
                        }
                        for (name, pts, color) in lane.points {
                            pui.points(
                                Points::new(name, PlotPoints::Borrowed(pts))
                                    .color(color)
                                    .radius(3.0)
                                    .shape(MarkerShape::Circle),
                            );
                        }
                        if let Some(cx) = cursor_x {
                            pui.vline(VLine::new("cursor", cx).color(egui::Color32::YELLOW));
                        }
                        pui.plot_bounds()
                    });
                let b = resp.inner;
                new_range = Some((b.min()[0], b.max()[0]));
                let w = resp.transform.frame().width();
                plot_width = Some(plot_width.map_or(w, |p: f32| p.max(w)));
                let r = &resp.response;
                if r.hovered() && ui.input(|i| i.smooth_scroll_delta != egui::Vec2::ZERO) {
                    scrolled = true;
                }
                if (r.clicked() || r.dragged())
                    && let Some(p) = r.interact_pointer_pos()
                {
                    clicked_x = Some(resp.transform.value_from_position(p).x);
                }
            }
            // Markers lane: click a marker to jump to it.
            let resp = Plot::new("markers")
                .height(lane_height * 0.6)
                .link_axis(link, [true, false])
                .link_cursor(link, [true, false])
                .allow_drag(false)
                .allow_boxed_zoom(false)
                .allow_double_click_reset(false)
                .y_axis_label("markers")
                .legend(Legend::default())
                .show(ui, |pui| {
                    for (kind, name, y, color) in [
                        (
                            MarkerKind::Breakpoint,
                            "breakpoint",
                            3.0,
                            egui::Color32::RED,
                        ),
                        (MarkerKind::Error, "error", 2.0, egui::Color32::LIGHT_RED),
                        (MarkerKind::Reload, "reload", 1.0, egui::Color32::LIGHT_BLUE),
                        (
                            MarkerKind::Stall,
                            "stall",
                            0.0,
                            egui::Color32::from_rgb(255, 140, 0),
                        ),
                    ] {
                        let pts: Vec<[f64; 2]> = marker_points
                            .iter()
                            .filter(|m| m.0 == kind)
                            .map(|m| [m.1, y])
                            .collect();
                        pui.points(
                            Points::new(name, PlotPoints::new(pts))
                                .color(color)
                                .radius(4.0)
                                .shape(MarkerShape::Diamond),
                        );
                    }
                    if let Some(cx) = cursor_x {
                        pui.vline(VLine::new("cursor", cx).color(egui::Color32::YELLOW));
                    }
                });
            if resp.response.clicked()
                && let Some(p) = resp.response.interact_pointer_pos()
            {
                // Snap to the nearest marker within 8 px, else to the frame.
                let px = p.x;
                let near = marker_points
                    .iter()
                    .map(|m| {
                        let sx = resp
                            .transform
                            .position_from_point(&egui_plot::PlotPoint::new(m.1, 0.0))
                            .x;
                        ((sx - px).abs(), m.1)
                    })
                    .filter(|(d, _)| *d <= 8.0)
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                clicked_x =
                    Some(near.map_or_else(|| resp.transform.value_from_position(p).x, |(_, x)| x));
            }
        });
    if let Some(w) = plot_width.filter(|w| *w >= 1.0) {
        state.plot_width = Some(w);
    }
    if scrolled {
        state.follow_live = false;
    }
    if !state.follow_live {
        state.visible = new_range.or(state.visible);
    } else {
        state.visible = Some(range);
    }
    if let Some(x) = clicked_x
        && let Some(seq) = state.nearest(x)
    {
        state.scrub_to(seq, suspended);
    }
}

/// A plausible synthetic record of frame `i` (1-based) at 60 Hz, with a stall
/// every 64 frames: for the bench and tests.
pub fn synthetic_record(i: u64) -> FrameRecord {
    let stall = i.is_multiple_of(64);
    let dt = if stall {
        0.15
    } else {
        0.004 + (i * 7919 % 36) as f64 / 1000.0
    };
    let fixed = 1.0 / 60.0;
    let ticks = if stall {
        4
    } else {
        ((dt / fixed) as u16).min(4)
    };
    let mut by_priority = [(0i32, 0f32); stepframe_core::telemetry::RECORD_PRIORITIES];
    by_priority[0] = (-100, 0.05 + (i % 13) as f32 / 100.0);
    by_priority[1] = (0, 0.1 + (i % 7) as f32 / 50.0);
    by_priority[2] = (100, 0.02);
    FrameRecord {
        frame_index: i,
        simulation_tick: i,
        delta_time: dt,
        frame_time: i as f64 / 60.0,
        simulation_time: i as f64 / 60.0,
        fixed_delta_time: fixed,
        dropped_time: (i / 64) as f64 * 0.083,
        accumulator_before: dt % fixed + fixed,
        accumulator_after: dt % fixed,
        interpolation_alpha: ((dt % fixed) / fixed) as f32,
        dropped_this_frame: if stall { 0.083 } else { 0.0 },
        update_ms: 0.2,
        fixed_ms: 0.5,
        physics_ms: 0.3 + (i % 5) as f32 / 10.0,
        present_ms: 0.1,
        by_priority,
        priorities: 3,
        ticks,
        ..FrameRecord::default()
    }
}

/// CPU ms per UI frame of [`timeline_ui`] over `frames` synthetic records,
/// drawn headless (`Context::run` + `tessellate`) at 1600×900, following live
/// over the whole range zoomed out (the worst case: every record visible), one
/// new record per UI frame so no caching can help (the view slides and the
/// lanes are reduced again every frame). The best of the rounds' means; the
/// first round also pays the one-off summary of the whole ring (~15 ms).
pub fn bench_timeline_ms(frames: usize) -> f64 {
    bench_timeline_ms_with(frames, frames, 1600.0)
}

/// [`bench_timeline_ms`] with `frames` records in a ring holding `capacity`
/// (more: a ring still filling, whose view grows by a frame every UI frame)
/// and a panel `width` points wide (more pixel columns, so more points).
pub fn bench_timeline_ms_with(frames: usize, capacity: usize, width: f32) -> f64 {
    let mut state = TimelineState::with_capacity(capacity.max(frames).max(1));
    for i in 1..=frames as u64 {
        state.ingest(synthetic_record(i));
    }
    state.follow_live = false;
    let ctx = egui::Context::default();
    let mut next = frames as u64 + 1;
    let mut best = f64::INFINITY;
    for _round in 0..3 {
        let rounds = 10;
        let t0 = std::time::Instant::now();
        for _ in 0..rounds {
            state.ingest(synthetic_record(next));
            next += 1;
            let (lo, hi) = (state.axis.of(&state.telemetry.records()[0]), next as f64);
            state.visible = Some((lo, hi));
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(width, 900.0),
                )),
                ..Default::default()
            };
            let out = ctx.run_ui(input, |ui| {
                egui::CentralPanel::default().show(ui, |ui| timeline_ui(ui, &mut state, true));
            });
            let mut out = out;
            // Nobody uploads textures headless: mark the font atlas handled.
            out.textures_delta.clear();
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        }
        best = best.min(t0.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimate_keeps_each_columns_min_and_max_in_order() {
        // One column over x 0..4: min 1 at x=1, max 9 at x=2, in x order.
        let out = decimate(&[0.0, 1.0, 2.0, 3.0], &[5.0, 1.0, 9.0, 2.0], (0.0, 4.0), 1);
        assert_eq!(out, vec![[1.0, 1.0], [2.0, 9.0]]);
    }

    #[test]
    fn zoomed_out_lanes_use_block_summaries_and_keep_the_extremes() {
        let mut t = Telemetry::with_capacity(100_000);
        for i in 1..=100_000u64 {
            let mut r = synthetic_record(i);
            // One spike and one dip, far from block edges.
            r.delta_time = match i {
                50_001 => 2.0,
                70_033 => 0.0001,
                _ => 0.016,
            };
            t.push(r);
        }
        let mut blocks = Blocks::default();
        blocks.update(&t, XAxis::FrameIndex);
        for (level, size) in blocks.levels.iter().zip(LEVELS) {
            assert_eq!(level.blocks.len() as u64, 100_000 / size);
        }
        // 500 records per column read blocks of 64, 80 blocks of 32, 40
        // blocks of 16, 20 the records.
        for columns in [200, 1250, 2500, 5000] {
            let mut out = vec![Vec::new(); SERIES];
            let range = (1.0, 100_000.0);
            lane_series(&t, &blocks, XAxis::FrameIndex, range, columns, &mut out);
            let dt = &out[SERIES_DT];
            assert!(dt.len() <= 2 * columns, "{} points", dt.len());
            assert!(
                dt.contains(&PlotPoint::new(50_001.0, 2000.0)),
                "the spike is kept"
            );
            assert!(
                dt.contains(&PlotPoint::new(70_033.0, 0.1)),
                "the dip is kept"
            );
            assert!(dt.windows(2).all(|w| w[0].x <= w[1].x));
        }
    }

    #[test]
    fn worst_frames_match_a_stable_sort_with_repeated_x_dropped() {
        // Ties in y, repeated x (the tick axis repeats x across frames with
        // no tick) and points outside the range, against the definition.
        let reference = |points: &[PlotPoint], (lo, hi): (f64, f64)| {
            let mut v: Vec<PlotPoint> = points
                .iter()
                .copied()
                .filter(|p| (lo..=hi).contains(&p.x))
                .collect();
            v.sort_by(|a, b| b.y.total_cmp(&a.y));
            v.dedup_by(|a, b| a.x == b.x);
            v.truncate(WORST_FRAMES);
            v
        };
        let mut out = Vec::new();
        for (n, repeat) in [(5usize, 1u64), (40, 1), (300, 1), (300, 7), (300, 300)] {
            let points: Vec<PlotPoint> = (0..n as u64)
                .map(|i| PlotPoint::new((i / repeat) as f64, ((i * 7919) % 13) as f64))
                .collect();
            for range in [(0.0, 1e9), (3.0, 200.0)] {
                worst_frames(&points, range, &mut out);
                assert_eq!(out, reference(&points, range), "n {n} repeat {repeat}");
            }
        }
    }

    /// One headless UI frame of the timeline, 1600×900.
    fn draw(ctx: &egui::Context, state: &mut TimelineState) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 900.0),
            )),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| timeline_ui(ui, state, true));
        });
        out.textures_delta.clear();
    }

    #[test]
    fn a_view_that_stays_put_is_not_reduced_again_as_frames_arrive() {
        let mut state = TimelineState::with_capacity(10_000);
        for i in 1..=5_000 {
            state.ingest(synthetic_record(i));
        }
        let ctx = egui::Context::default();
        // Following live, then "follow live" unticked: the view stays on the
        // last 600 frames while the session runs on.
        for _ in 0..3 {
            draw(&ctx, &mut state);
        }
        state.follow_live = false;
        for _ in 0..3 {
            draw(&ctx, &mut state);
        }
        // The first frame right of the view is its right neighbour (the
        // line runs to the edge); later ones change nothing in view.
        state.ingest(synthetic_record(5_001));
        draw(&ctx, &mut state);
        let key = state.reduced.key.expect("reduced");
        assert_eq!(key.span.1 - key.span.0, LIVE_WINDOW_FRAMES as u64);
        for i in 5_002..=5_100 {
            state.ingest(synthetic_record(i));
            draw(&ctx, &mut state);
            assert_eq!(state.reduced.key, Some(key), "frame {i}");
        }
        // Following live again: the view moves, the lanes are reduced again.
        state.follow_live = true;
        draw(&ctx, &mut state);
        assert_ne!(state.reduced.key, Some(key));
    }

    #[test]
    fn decimate_adds_the_neighbours_outside_the_range() {
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0];
        let ys = [7.0, 1.0, 2.0, 3.0, 8.0];
        // Range 1..3 in 2 columns: [1,2) holds x=1, [2,3] holds x=2,3.
        let out = decimate(&xs, &ys, (1.0, 3.0), 2);
        assert_eq!(
            out,
            vec![[0.0, 7.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 8.0]]
        );
    }
}
