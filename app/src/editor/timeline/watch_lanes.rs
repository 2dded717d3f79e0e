//! Watch lanes under the clock lanes: plotted watches ("show value" in the
//! Watches tab, or an inspector plot button), one per watch, each drawn as
//! a [`super::value_lane`]. Which watches are plotted is the host's list
//! alone ([`plotted`]); the lanes keep the values they recorded. Each lane
//! shows, under the clock lanes, the watch's value after every tick, on the same x range and
//! cursor as every other lane. A click on one moves the time cursor like a
//! click on any lane; its 🗙 removes the watch.
//!
//! **One value per tick.** A lane keeps `(tick, value)`, not a value per
//! frame: 50 ticks stepped with F10 inside one frame are 50 points, and on
//! the ticks axis a point sits at its own tick, so frames that share a tick
//! (a 144 Hz display over 60 Hz ticks) never draw back and forth over one
//! x. On the frames and seconds axes a tick is drawn at the x of the frame
//! that ran it, as the clock lanes draw that frame.
//!
//! A lane belongs to its expression, not to its place in the Watches list:
//! removing the watch above it keeps its values. Its values come live after
//! every tick and, for the ticks played before it was added, from the
//! worker's history fill ([`WatchFill`]), merged in tick order. A lane whose
//! expression reads one field of one object (`obj(20).y`,
//! `field(20, "PlayerController.charge_ms")`, what the plot buttons write) is
//! titled by that object and field, with the field's unit as the host
//! reports it: `Player #20 · y (m)`. A title wider than the label column is
//! cut short (whole on hover), never pushed into the plot: the plot's left
//! edge is every lane's.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::TimelineState;
use super::value_lane::{LaneInput, ValueLane, value_lane_ui};
use crate::editor::bookmarks::Bookmark;
use crate::editor::frames::Frames;
use crate::editor::protocol::{LiveView, WatchFill};
use crate::editor::shared::{Reading, RunBReading};
use stepframe_plugins::WatchAction;

/// The values the timeline recorded for plotted watches, by expression.
///
/// Which watches are plotted, in what order, is the host's list alone
/// ([`plotted`] reads it from the live view at each use): the lanes keep
/// no copy of it, so a watch removed, reordered or re-plotted anywhere is
/// what the next draw and the next value follow.
#[derive(Debug)]
pub struct WatchLanes {
    /// Values kept per watch: twice as many ticks as the telemetry ring
    /// keeps frames (it grows with the ring,
    /// [`super::TimelineState::hold_an_hour`]), so the ring's hour at two
    /// ticks a frame still has its values.
    max_values: usize,
    /// The lane just added, which the lane area scrolls into view on its
    /// next draw: a plot button's lane otherwise lands below the fold at the
    /// default size, where the user has to look for it.
    reveal: Option<String>,
    /// The expressions whose lanes the last draw showed (`None` before the
    /// first draw with a live view: lanes that come with the stored layout
    /// are not "just added"). What the timeline has shown, not what is
    /// plotted: that is the host's list.
    shown: Option<BTreeSet<String>>,
    /// Per expression: `(tick, value)`, oldest first, one per tick.
    values: BTreeMap<String, VecDeque<(u64, f64)>>,
    /// Per expression: how far the history fill has got.
    fills: BTreeMap<String, FillProgress>,
}

impl Default for WatchLanes {
    fn default() -> WatchLanes {
        WatchLanes {
            max_values: 2 * stepframe_core::telemetry::DEFAULT_CAPACITY,
            reveal: None,
            shown: None,
            values: BTreeMap::new(),
            fills: BTreeMap::new(),
        }
    }
}

/// How far a lane's history fill has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillProgress {
    /// The oldest tick filled.
    pub from_tick: u64,
    /// The tick the fill started below (later ticks came live).
    pub to_tick: u64,
    /// No older tick is kept: done.
    pub done: bool,
}

pub use stepframe_plugins::watch::field_of;

/// What the lanes draw from the session beside the timeline's own state: the
/// panels' [`Reading`] of it, or a bare ring (the bench, unit tests).
#[derive(Clone, Copy)]
pub(super) struct LaneData<'a> {
    /// The recorded frames.
    pub frames: &'a Frames,
    /// The open scene's bookmarks.
    pub bookmarks: &'a [Bookmark],
    /// The cursor's tick and record, if not live.
    pub cursor: Option<(u64, u64)>,
    /// Run B, while there is one.
    pub compare: Option<RunBReading<'a>>,
    /// The host's live view: its list says which watches are plotted.
    pub live: Option<&'a LiveView>,
}

impl<'a> LaneData<'a> {
    /// What the panels read this frame.
    pub fn of(reading: &Reading<'a>) -> LaneData<'a> {
        LaneData {
            frames: reading.frames(),
            bookmarks: reading.bookmarks().list(),
            cursor: reading.cursor().zip(reading.cursor_seq()),
            compare: reading.run_b(),
            live: reading.live(),
        }
    }

    /// Frames alone: no bookmark, cursor, run B or watch.
    pub fn frames_only(frames: &'a Frames) -> LaneData<'a> {
        LaneData {
            frames,
            bookmarks: &[],
            cursor: None,
            compare: None,
            live: None,
        }
    }
}

/// `(watch index, expression)` of each plotted watch of the host's list
/// (`live`), in list order: the enabled watches whose action is Plot.
pub fn plotted(live: Option<&LiveView>) -> Vec<(usize, &str)> {
    live.map_or_else(Vec::new, |live| {
        live.watches
            .iter()
            .enumerate()
            .filter(|(_, w)| w.enabled && w.action == WatchAction::Plot)
            .map(|(i, w)| (i, w.expr.as_str()))
            .collect()
    })
}

/// The title of watch `index`'s lane: for an expression that reads one
/// object's field, that object as the live view names it (the id alone if
/// it is gone) and the field with its unit as the host reports it;
/// `watch #n` otherwise.
fn title(live: &LiveView, index: usize, expr: &str) -> String {
    let Some((id, field)) = field_of(expr) else {
        return format!("watch #{}", index + 1);
    };
    let name = live
        .world
        .objects
        .iter()
        .find(|o| o.id == id)
        .map_or_else(|| id.to_string(), |o| format!("{} {}", o.name, o.id));
    let mut title = format!("{name} · {field}");
    let unit = live
        .plot_units
        .get(expr)
        .map(String::as_str)
        .or_else(|| stepframe_plugins::watch::known_unit(expr).flatten());
    if let Some(unit) = unit {
        title.push_str(&format!(" ({unit})"));
    }
    title
}

impl WatchLanes {
    /// The lanes as the host's list has them now (`plotted`, see
    /// [`plotted`]), at a draw: values of expressions no longer plotted go,
    /// and a lane that was not shown at the last draw is revealed.
    pub(super) fn follow(&mut self, plotted: &[(usize, &str)]) {
        // Every draw calls this: the usual case, nothing changed, costs no
        // allocation.
        if let Some(shown) = &self.shown
            && shown.len() == plotted.len()
            && plotted.iter().all(|p| shown.contains(p.1))
            && self
                .values
                .keys()
                .chain(self.fills.keys())
                .all(|e| shown.contains(e))
        {
            return;
        }
        let now: BTreeSet<String> = plotted.iter().map(|p| p.1.to_string()).collect();
        if let Some(shown) = &self.shown
            && let Some((_, added)) = plotted.iter().rfind(|p| !shown.contains(p.1))
        {
            self.reveal = Some(added.to_string());
        }
        self.values.retain(|e, _| now.contains(e));
        self.fills.retain(|e, _| now.contains(e));
        self.shown = Some(now);
    }

    /// The value of the plotted expression `expr` after tick `tick`.
    pub(super) fn push(&mut self, expr: &str, tick: u64, value: f64) {
        let v = match self.values.get_mut(expr) {
            Some(v) => v,
            None => self.values.entry(expr.to_string()).or_default(),
        };
        match v.back_mut() {
            Some(last) if last.0 == tick => last.1 = value,
            Some(last) if last.0 > tick => merge(v, &[(tick, value)], self.max_values),
            _ => {
                if v.len() >= self.max_values {
                    v.pop_front();
                }
                v.push_back((tick, value));
            }
        }
    }

    /// Merges one span of a history fill of a plotted expression. A tick
    /// that already has a value keeps it: it came live, so after the
    /// history was taken.
    pub(super) fn fill(&mut self, fill: &WatchFill) {
        let by_tick: Vec<(u64, f64)> = fill.values.iter().map(|&(t, _, v)| (t, v)).collect();
        let v = self.values.entry(fill.expr.clone()).or_default();
        merge(v, &by_tick, self.max_values);
        self.fills.insert(
            fill.expr.clone(),
            FillProgress {
                from_tick: fill.from_tick,
                to_tick: fill.to_tick,
                done: fill.done,
            },
        );
    }

    /// A new physics world: no value, and no history fill's caption, of
    /// the old one (the lanes stay, and are not new).
    pub(super) fn restart(&mut self) {
        self.values.clear();
        self.fills.clear();
    }

    /// Drops values after `tick`, which belong to an abandoned branch.
    pub(super) fn drop_after(&mut self, tick: u64) {
        for v in self.values.values_mut() {
            let keep = v.partition_point(|(t, _)| *t <= tick);
            v.truncate(keep);
        }
    }

    /// The lane to reveal was scrolled to.
    pub(super) fn revealed(&mut self) {
        self.reveal = None;
    }

    /// Keeps `values` ticks per lane at least (the recorded frames grew).
    pub(super) fn hold(&mut self, values: usize) {
        self.max_values = self.max_values.max(values);
    }

    /// The values of the plotted expression `expr`, `(tick, value)`, oldest
    /// first.
    pub fn values_of(&self, expr: &str) -> Option<&VecDeque<(u64, f64)>> {
        self.values.get(expr)
    }

    /// How far the history fill of `expr`'s lane has got, if one ran.
    pub fn fill_of(&self, expr: &str) -> Option<FillProgress> {
        self.fills.get(expr).copied()
    }
}

/// Merges `older` (tick order) into `values` (tick order), keeping
/// `values`' own at a tick both have, and at most `max` (the oldest go).
fn merge(values: &mut VecDeque<(u64, f64)>, older: &[(u64, f64)], max: usize) {
    let Some(last) = older.last() else {
        return;
    };
    if values.front().is_none_or(|f| last.0 < f.0) {
        // The usual case: a span older than everything kept.
        for &p in older.iter().rev() {
            if values.len() >= max {
                return;
            }
            values.push_front(p);
        }
        return;
    }
    let mut merged: Vec<(u64, f64)> = Vec::with_capacity(values.len() + older.len());
    let mut a = values.iter().copied().peekable();
    let mut b = older.iter().copied().peekable();
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.0 < y.0 => merged.extend(a.next()),
            (Some(x), Some(y)) if x.0 > y.0 => merged.extend(b.next()),
            (Some(_), Some(_)) => {
                merged.extend(a.next());
                b.next();
            }
            (Some(_), None) => merged.extend(a.next()),
            (None, Some(_)) => merged.extend(b.next()),
            (None, None) => break,
        }
    }
    let skip = merged.len().saturating_sub(max);
    *values = merged.into_iter().skip(skip).collect();
}

/// Draws a lane for every plotted watch of the host's list (`data.live`);
/// `label_width` and `height` as the clock lanes, `range` the shared x
/// range, `x_of_tick` where a tick is on it.
pub(super) fn watch_lanes_ui(
    ui: &mut egui::Ui,
    state: &TimelineState,
    data: &LaneData<'_>,
    range: (f64, f64),
    dims: (f32, f32),
    xs: (Option<f64>, Option<f64>),
    x_of_tick: &dyn Fn(u64) -> Option<f64>,
) -> LaneInput {
    let mut input = LaneInput::default();
    let (frames, live) = (data.frames, data.live);
    let lanes = &state.watch_lanes;
    for (watch, expr) in plotted(live) {
        let mut detail = expr.to_string();
        // A field of an object the session does not hold (another scene's,
        // or one removed): an empty lane says why it is empty.
        if let (Some(live), Some((id, _))) = (live, field_of(expr))
            && !live.world.objects.iter().any(|o| o.id == id)
        {
            detail.push_str(&format!("\nno object {id} in the session now"));
        }
        if let Some(f) = lanes.fills.get(expr) {
            if !f.done {
                detail.push_str(&format!(
                    "\nfilling from the history: ticks {} to {}…",
                    f.from_tick, f.to_tick
                ));
            } else if f.from_tick > 1 {
                // The history did not reach the session's start.
                detail.push_str(&format!("\nfrom tick {}", f.from_tick));
            }
        }
        let lane = ValueLane {
            id: ("timeline_watch", stable_id(expr)),
            title: live.map_or_else(String::new, |live| title(live, watch, expr)),
            detail,
            points: visible_points(state, frames, expr, range, x_of_tick),
            colour: None,
            goto: None,
            y_floor: 0.0,
            remove: Some(expr.to_string()),
        };
        let top = ui.cursor().min.y;
        input.merge(value_lane_ui(ui, &lane, range, dims, xs));
        if lanes.reveal.as_deref() == Some(expr) {
            let x = ui.max_rect().x_range();
            ui.scroll_to_rect(
                egui::Rect::from_x_y_ranges(x, top..=ui.cursor().min.y),
                None,
            );
        }
    }
    input
}

/// A plot id from an expression that stays the same across runs (the lane
/// keeps its egui state when the watch above it is removed).
fn stable_id(expr: &str) -> u64 {
    let mut h = stepframe_core::StableHasher::new();
    h.write(expr.as_bytes());
    h.finish()
}

/// The watch's values inside `range`, each at its tick's x
/// (`x_of_tick`), at most two per point of width, in runs without a
/// missing tick ([`ValueLane::points`]).
fn visible_points(
    state: &TimelineState,
    frames: &Frames,
    expr: &str,
    range: (f64, f64),
    x_of_tick: &dyn Fn(u64) -> Option<f64>,
) -> Vec<Vec<[f64; 2]>> {
    let Some(values) = state.watch_lanes.values.get(expr) else {
        return Vec::new();
    };
    let record_at = |x: f64| state.nearest(frames, x).and_then(|s| frames.record(s));
    let (Some(lo), Some(hi)) = (record_at(range.0), record_at(range.1)) else {
        return Vec::new();
    };
    // From the first tick of the first frame in view to the last one's.
    let lo = lo.simulation_tick.saturating_sub(u64::from(lo.ticks));
    let hi = hi.simulation_tick;
    let first = values.partition_point(|(t, _)| *t < lo);
    let last = values.partition_point(|(t, _)| *t <= hi);
    let n = last.saturating_sub(first);
    let budget = (2.0 * state.plot_width.unwrap_or(1600.0)) as usize;
    let step = n.div_ceil(budget.max(1)).max(1);
    let mut runs: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut previous: Option<u64> = None;
    for &(tick, v) in values.range(first..last).step_by(step) {
        let Some(x) = x_of_tick(tick) else {
            continue;
        };
        // `step` ticks apart in a run; farther, some ticks have no value.
        let joined = previous.is_some_and(|p| tick - p <= step as u64 * 2);
        match runs.last_mut() {
            Some(run) if joined => run.push([x, v]),
            _ => runs.push(vec![[x, v]]),
        }
        previous = Some(tick);
    }
    runs
}

#[cfg(test)]
mod tests {
    use stepframe_core::FrameRecord;

    use super::*;
    use crate::editor::timeline::XAxis;

    /// A frame record: outer frame `frame`, `ticks` run in it, `tick` done.
    fn rec(frame: u64, tick: u64, ticks: u16) -> FrameRecord {
        FrameRecord {
            frame_index: frame,
            simulation_tick: tick,
            ticks,
            frame_time: frame as f64 / 144.0,
            ..FrameRecord::default()
        }
    }

    /// A 144 Hz display over 60 Hz ticks (frames 1-5: ticks 1, -, 2, -, -),
    /// then ticks 3-5 stepped inside frame 5 (one record each, no new frame).
    fn state() -> (TimelineState, Frames) {
        let mut s = TimelineState::default();
        let mut frames = Frames::default();
        for r in [
            rec(1, 1, 1),
            rec(2, 1, 0),
            rec(3, 2, 1),
            rec(4, 2, 0),
            rec(5, 2, 0),
            rec(5, 3, 1),
            rec(5, 4, 1),
            rec(5, 5, 1),
        ] {
            frames.push(r);
        }
        for tick in 1..=5 {
            s.watch_lanes.push("obj(20).y", tick, tick as f64 * 10.0);
        }
        (s, frames)
    }

    fn points((s, frames): &(TimelineState, Frames)) -> Vec<[f64; 2]> {
        let x_of_tick = |tick| s.x_of_tick(frames, tick);
        let runs = visible_points(s, frames, "obj(20).y", (0.0, 10.0), &x_of_tick);
        assert_eq!(runs.len(), 1, "no tick missing: one run");
        runs.concat()
    }

    #[test]
    fn on_the_ticks_axis_a_lane_has_one_point_a_tick_at_its_tick() {
        let mut s = state();
        s.0.axis = XAxis::Tick;
        assert_eq!(
            points(&s),
            vec![
                [1.0, 10.0],
                [2.0, 20.0],
                [3.0, 30.0],
                [4.0, 40.0],
                [5.0, 50.0]
            ]
        );
    }

    #[test]
    fn on_the_frames_axis_a_tick_sits_at_the_frame_that_ran_it_stepped_ones_too() {
        let mut s = state();
        s.0.axis = XAxis::FrameIndex;
        assert_eq!(
            points(&s),
            vec![
                [1.0, 10.0],
                [3.0, 20.0],
                [5.0, 30.0],
                [5.0, 40.0],
                [5.0, 50.0]
            ]
        );
    }

    #[test]
    fn ticks_with_no_value_are_a_gap_not_a_line_across() {
        // Ticks 1-2, then (after Adopt B) 5: B's 3 and 4 ran unrecorded.
        let mut s = TimelineState::default();
        let mut frames = Frames::default();
        for r in [rec(1, 1, 1), rec(2, 2, 1), rec(3, 5, 1)] {
            frames.push(r);
        }
        for tick in [1, 2, 5] {
            s.watch_lanes.push("obj(20).y", tick, tick as f64);
        }
        s.axis = XAxis::Tick;
        let x_of_tick = |t| s.x_of_tick(&frames, t);
        let runs = visible_points(&s, &frames, "obj(20).y", (0.0, 10.0), &x_of_tick);
        assert_eq!(runs, vec![vec![[1.0, 1.0], [2.0, 2.0]], vec![[5.0, 5.0]]]);
    }

    #[test]
    fn a_lane_added_to_the_list_is_revealed_and_one_removed_loses_its_values() {
        let mut lanes = WatchLanes::default();
        // The first list the lanes see came with the stored layout: no
        // lane is "just added".
        lanes.follow(&[(0, "obj(20).y")]);
        assert_eq!(lanes.reveal, None);
        lanes.push("obj(20).y", 1, 1.0);
        lanes.follow(&[(0, "obj(20).y"), (1, "obj(20).x")]);
        assert_eq!(lanes.reveal.as_deref(), Some("obj(20).x"));
        lanes.revealed();
        lanes.push("obj(20).x", 1, 2.0);
        // y goes: its values with it; x keeps its own under its new index.
        lanes.follow(&[(0, "obj(20).x")]);
        assert_eq!(lanes.reveal, None, "nothing new");
        assert!(lanes.values_of("obj(20).y").is_none());
        assert_eq!(
            lanes
                .values_of("obj(20).x")
                .map(|v| v.iter().copied().collect()),
            Some(vec![(1, 2.0)])
        );
        // Plotted again, y is a new lane with no old value.
        lanes.follow(&[(0, "obj(20).x"), (1, "obj(20).y")]);
        assert_eq!(lanes.reveal.as_deref(), Some("obj(20).y"));
        assert!(lanes.values_of("obj(20).y").is_none());
    }

    #[test]
    fn a_fill_keeps_every_tick_and_a_live_value_wins_over_the_history() {
        let (mut s, _) = state();
        s.watch_lanes.fill(&WatchFill {
            expr: "obj(20).y".to_string(),
            values: vec![(0, 1, -1.0), (1, 1, -2.0), (2, 3, -3.0)],
            from_tick: 0,
            to_tick: 2,
            done: true,
        });
        let values: Vec<(u64, f64)> = s
            .watch_lanes
            .values_of("obj(20).y")
            .into_iter()
            .flatten()
            .copied()
            .collect();
        assert_eq!(
            values,
            vec![
                (0, -1.0),
                (1, 10.0),
                (2, 20.0),
                (3, 30.0),
                (4, 40.0),
                (5, 50.0)
            ]
        );
    }
}
