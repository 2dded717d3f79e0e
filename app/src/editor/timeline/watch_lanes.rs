//! Value lanes under the clock lanes: plotted watches ("show value" in the
//! Watches tab, or an inspector plot button), one per watch, and a
//! comparison's divergence lanes. Each watch lane shows, under the clock
//! lanes, the watch's value after the last tick of each frame, on the same x
//! range and cursor as every other lane. A click on one moves the time cursor
//! like a click on any lane; its 🗙 removes the watch.
//!
//! A lane belongs to its expression, not to its place in the Watches list:
//! removing the watch above it keeps its values. Its values come live after
//! every tick and, for the ticks played before it was added, from the
//! worker's history fill ([`WatchFill`]), merged in frame order. A lane whose
//! expression reads one field of one object (`obj(20).y`,
//! `field(20, "PlayerController.charge_ms")`, what the plot buttons write) is
//! titled by that object and field: `Player #20 · y`.

use std::collections::{BTreeMap, VecDeque};

use egui_plot::{AxisHints, Line, Plot, PlotPoints, VLine};
use stepframe_core::ObjectId;

use super::TimelineState;
use super::draw::LABEL_HALF_HEIGHT;
use crate::editor::protocol::WatchFill;
use crate::editor::shared::B_COLOUR;
use crate::editor::shared::RunBView;
use crate::editor::words;

/// The text of a watch lane's remove button: egui's own close icon, in the
/// default `emoji-icon-font` (✕, U+2715, is in none of the default fonts,
/// and egui panics on a missing glyph).
pub(crate) const REMOVE_ICON: &str = "🗙";

/// The plotted watches and their values.
#[derive(Debug)]
pub struct WatchLanes {
    /// Values kept per watch: as many frames as the telemetry ring keeps
    /// (it grows with the ring, [`super::TimelineState::hold_an_hour`]).
    pub max_values: usize,
    /// The lane just added, which the lane area scrolls into view on its
    /// next draw: a plot button's lane otherwise lands below the fold at the
    /// default size, where the user has to look for it.
    pub reveal: Option<String>,
    /// The plotted list was taken once: lanes that come with the stored
    /// layout are not "just added".
    synced: bool,
    /// `(watch index, expression)` of each plotted watch, in list order
    /// (copied from the Watches tab).
    pub plotted: Vec<(usize, String)>,
    /// Per expression: `(frame, value)`, oldest first, one per frame.
    pub values: BTreeMap<String, VecDeque<(u64, f64)>>,
    /// Per expression: how far the history fill has got.
    pub fills: BTreeMap<String, FillProgress>,
    /// Per expression that reads one object's field: the lane's title, named
    /// after the object as the live view has it (see [`field_of`]).
    pub titles: BTreeMap<String, String>,
}

impl Default for WatchLanes {
    fn default() -> WatchLanes {
        WatchLanes {
            max_values: stepframe_core::telemetry::DEFAULT_CAPACITY,
            reveal: None,
            synced: false,
            plotted: Vec::new(),
            values: BTreeMap::new(),
            fills: BTreeMap::new(),
            titles: BTreeMap::new(),
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

/// What a plot button's expression reads: the object, and the field's name
/// in a lane title (`obj(20).y` → `(20, "y")`, `field(20, "Mover.speed")` →
/// `(20, "Mover.speed")`). `None` for any other expression.
pub fn field_of(expr: &str) -> Option<(ObjectId, String)> {
    if let Some(rest) = expr.strip_prefix("obj(") {
        let (id, field) = rest.split_once(").")?;
        let ok = !field.is_empty() && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        return ok.then(|| Some((ObjectId(id.parse().ok()?), field.to_string())))?;
    }
    let rest = expr.strip_prefix("field(")?.strip_suffix("\")")?;
    let (id, path) = rest.split_once(", \"")?;
    (!path.contains('"')).then(|| Some((ObjectId(id.parse().ok()?), path.to_string())))?
}

impl WatchLanes {
    /// Takes the Watches tab's plotted list; values of expressions no longer
    /// plotted go.
    pub fn set_plotted(&mut self, plotted: Vec<(usize, String)>) {
        let first = !std::mem::replace(&mut self.synced, true);
        if plotted == self.plotted {
            return;
        }
        if !first {
            let added = plotted
                .iter()
                .rfind(|p| !self.plotted.iter().any(|o| o.1 == p.1));
            if let Some((_, expr)) = added {
                self.reveal = Some(expr.clone());
            }
        }
        let kept = |e: &String| plotted.iter().any(|p| &p.1 == e);
        self.values.retain(|e, _| kept(e));
        self.fills.retain(|e, _| kept(e));
        self.titles.retain(|e, _| kept(e));
        self.plotted = plotted;
    }

    /// Names the lanes that read one object's field after that object
    /// (`name` gives its display name, `None` if it is gone).
    pub fn name_lanes(&mut self, name: impl Fn(ObjectId) -> Option<String>) {
        for (_, expr) in &self.plotted {
            let Some((id, field)) = field_of(expr) else {
                continue;
            };
            let title = format!("{} · {field}", name(id).unwrap_or_else(|| id.to_string()));
            if self.titles.get(expr) != Some(&title) {
                self.titles.insert(expr.clone(), title);
            }
        }
    }

    /// The title of watch `index`'s lane: its field's, else `watch #n`.
    pub fn title(&self, index: usize, expr: &str) -> String {
        self.titles
            .get(expr)
            .cloned()
            .unwrap_or_else(|| format!("watch #{}", index + 1))
    }

    /// A value of watch `watch` (its index in the plotted list's numbering)
    /// after a tick of `frame` (the frame's last tick wins).
    pub fn push(&mut self, watch: usize, frame: u64, value: f64) {
        let Some((_, expr)) = self.plotted.iter().find(|p| p.0 == watch) else {
            return;
        };
        let v = self.values.entry(expr.clone()).or_default();
        match v.back_mut() {
            Some(last) if last.0 == frame => last.1 = value,
            Some(last) if last.0 > frame => merge(v, &[(frame, value)], self.max_values),
            _ => {
                if v.len() >= self.max_values {
                    v.pop_front();
                }
                v.push_back((frame, value));
            }
        }
    }

    /// Merges one span of a history fill. A frame that already has a value
    /// keeps it: it came live, or from a newer span, so from a later tick.
    pub fn fill(&mut self, fill: &WatchFill) {
        if !self.plotted.iter().any(|p| p.1 == fill.expr) {
            return;
        }
        // The last tick of each frame: what a live lane keeps.
        let mut by_frame: Vec<(u64, f64)> = Vec::with_capacity(fill.values.len());
        for &(_, frame, value) in &fill.values {
            match by_frame.last_mut() {
                Some(last) if last.0 == frame => last.1 = value,
                _ => by_frame.push((frame, value)),
            }
        }
        let v = self.values.entry(fill.expr.clone()).or_default();
        merge(v, &by_frame, self.max_values);
        self.fills.insert(
            fill.expr.clone(),
            FillProgress {
                from_tick: fill.from_tick,
                to_tick: fill.to_tick,
                done: fill.done,
            },
        );
    }

    /// The values of the plotted expression `expr`, oldest frame first.
    pub fn values_of(&self, expr: &str) -> Option<&VecDeque<(u64, f64)>> {
        self.values.get(expr)
    }
}

/// Merges `older` (frame order) into `values` (frame order), keeping
/// `values`' own at a frame both have, and at most `max` (the oldest go).
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

/// What the pointer did on the watch lanes: the x it hovers and clicks.
#[derive(Debug, Default)]
pub struct LaneInput {
    /// x under the pointer.
    pub hovered: Option<f64>,
    /// x clicked.
    pub clicked: Option<f64>,
    /// A tick the label column's link asked for.
    pub goto: Option<u64>,
    /// The expression whose lane's 🗙 was clicked.
    pub remove: Option<String>,
}

/// Draws every plotted watch's lane; `label_width` and `height` as the clock
/// lanes, `range` the shared x range.
pub fn watch_lanes_ui(
    ui: &mut egui::Ui,
    state: &TimelineState,
    range: (f64, f64),
    dims: (f32, f32),
    xs: (Option<f64>, Option<f64>),
) -> LaneInput {
    let mut input = LaneInput::default();
    let lanes = &state.watch_lanes;
    for (watch, expr) in &lanes.plotted {
        let mut detail = expr.clone();
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
            title: lanes.title(*watch, expr),
            detail,
            points: visible_points(state, expr, range),
            colour: None,
            goto: None,
            y_floor: 0.0,
            remove: Some(expr.clone()),
        };
        let top = ui.cursor().min.y;
        input.merge(value_lane_ui(ui, &lane, range, dims, xs));
        if lanes.reveal.as_ref() == Some(expr) {
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

/// One lane of values over the shared x axis: a watch's, or a comparison's.
#[derive(Debug)]
pub struct ValueLane {
    /// The plot's id.
    pub id: (&'static str, u64),
    /// The first line of its label column (also its accessible name, after
    /// "lane ").
    pub title: String,
    /// The small lines under the title, wrapped to the label column.
    pub detail: String,
    /// `[x, value]`, in x order.
    pub points: Vec<[f64; 2]>,
    /// The line's colour, if not the plot's first.
    pub colour: Option<egui::Color32>,
    /// A link under the title that puts the cursor on a tick.
    pub goto: Option<(String, u64)>,
    /// The y axis always spans 0 to at least this, so a lane of zeros
    /// ("no object differs") reads 0 to 1, not an arbitrary band around 0.
    pub y_floor: f64,
    /// A watch lane's expression: the lane gets a 🗙 that removes its watch.
    pub remove: Option<String>,
}

impl LaneInput {
    /// The first hover and click of two lanes.
    pub fn merge(&mut self, other: LaneInput) {
        self.hovered = self.hovered.or(other.hovered);
        self.clicked = self.clicked.or(other.clicked);
        self.goto = self.goto.or(other.goto);
        self.remove = self.remove.take().or(other.remove);
    }
}

/// Draws one value lane; `label_width` and `height` as the clock lanes,
/// `range` the shared x range, the cursor's and the hover's x.
pub fn value_lane_ui(
    ui: &mut egui::Ui,
    lane: &ValueLane,
    range: (f64, f64),
    (label_width, height): (f32, f32),
    (cursor_x, hover_x): (Option<f64>, Option<f64>),
) -> LaneInput {
    let mut input = LaneInput::default();
    ui.horizontal(|ui| {
        ui.allocate_ui_with_layout(
            egui::vec2(label_width, height),
            egui::Layout::top_down(egui::Align::Min),
            |ui| {
                ui.set_width(label_width);
                match &lane.remove {
                    Some(expr) => {
                        ui.horizontal(|ui| {
                            let x = ui
                                .small_button(REMOVE_ICON)
                                .on_hover_text("Remove this lane (and its watch)");
                            x.widget_info(|| {
                                egui::WidgetInfo::labeled(
                                    egui::Role::Button,
                                    true,
                                    format!("remove lane {}", lane.title),
                                )
                            });
                            if x.clicked() {
                                input.remove = Some(expr.clone());
                            }
                            ui.label(&lane.title);
                        });
                    }
                    None => {
                        ui.label(&lane.title);
                    }
                }
                if let Some((text, tick)) = &lane.goto
                    && ui
                        .link(egui::RichText::new(text).small())
                        .on_hover_text(&lane.detail)
                        .clicked()
                {
                    input.goto = Some(*tick);
                    return;
                }
                // Wrapped, never cut short: the column is narrow, and a
                // caption that ends in "…" hides what B is.
                ui.add(
                    egui::Label::new(egui::RichText::new(&lane.detail).monospace().small()).wrap(),
                )
                .on_hover_text(&lane.detail);
            },
        );
        let resp = Plot::new(lane.id)
            .height(height)
            .show_axes([false, true])
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .show_x(false)
            // The same y-axis width as the clock lanes, so the data areas
            // (and the cursor line) line up.
            .custom_y_axes(vec![
                AxisHints::new_y()
                    .formatter(|m, _| super::axes::mark(m.value))
                    .min_thickness(super::draw::Y_AXIS_WIDTH)
                    .label_spacing(8.0..=12.0)
                    .tick_label_font(egui::FontId::proportional(11.0)),
            ])
            // Two or three round marks, as on the clock lanes.
            .y_grid_spacer(|input| super::axes::few_marks_for(input, super::Unit::Fraction))
            .include_y(0.0)
            .include_y(lane.y_floor)
            // Half a label of room at either end, as on the clock lanes.
            .set_margin_fraction(egui::vec2(
                0.0,
                LABEL_HALF_HEIGHT / (height - 2.0 * LABEL_HALF_HEIGHT),
            ))
            .show(ui, |pui| {
                pui.set_plot_bounds_x(range.0..=range.1);
                pui.set_auto_bounds([false, true]);
                let mut line = Line::new(lane.title.clone(), PlotPoints::new(lane.points.clone()));
                if let Some(c) = lane.colour {
                    line = line.color(c);
                }
                pui.line(line);
                if let Some(x) = hover_x {
                    pui.vline(VLine::new("hover", x));
                }
                if let Some(x) = cursor_x {
                    pui.vline(VLine::new("cursor", x).width(1.5));
                }
            });
        let label = format!("lane {}", lane.title);
        resp.response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, &label));
        let x_at = |p: egui::Pos2| resp.transform.value_from_position(p).x;
        if let Some(p) = resp.response.hover_pos() {
            input.hovered = Some(x_at(p));
        }
        if resp.response.clicked()
            && let Some(p) = resp.response.interact_pointer_pos()
        {
            input.clicked = Some(x_at(p));
        }
    });
    input
}

/// The watch's values inside `range`, at their frames' x on the current
/// axis, at most two per point of width.
fn visible_points(state: &TimelineState, expr: &str, range: (f64, f64)) -> Vec<[f64; 2]> {
    let Some(values) = state.watch_lanes.values.get(expr) else {
        return Vec::new();
    };
    let frame_at = |x: f64| {
        state
            .nearest(x)
            .and_then(|s| state.record(s))
            .map(|r| r.frame_index)
    };
    let (Some(lo), Some(hi)) = (frame_at(range.0), frame_at(range.1)) else {
        return Vec::new();
    };
    let first = values.partition_point(|(f, _)| *f < lo);
    let last = values.partition_point(|(f, _)| *f <= hi);
    let n = last.saturating_sub(first);
    let budget = (2.0 * state.plot_width.unwrap_or(1600.0)) as usize;
    let step = n.div_ceil(budget.max(1)).max(1);
    values
        .range(first..last)
        .step_by(step)
        .filter_map(|(frame, v)| {
            let seq = state.seq_of_frame(*frame)?;
            let r = state.record(seq)?;
            Some([state.axis.of(r), *v])
        })
        .collect()
}

/// A comparison's two lanes: how many objects differ, and how far apart the
/// furthest are, per measured tick inside `range` (at most two points per
/// point of width).
pub(super) fn divergence_lanes(
    c: &RunBView<'_>,
    state: &TimelineState,
    range: (f64, f64),
    x_of_tick: &dyn Fn(u64) -> Option<f64>,
) -> [ValueLane; 2] {
    let tick_at = |x: f64| {
        state
            .nearest(x)
            .and_then(|s| state.record(s))
            .map(|r| r.simulation_tick)
    };
    let (lo, hi) = (tick_at(range.0).unwrap_or(0), tick_at(range.1).unwrap_or(0));
    let samples: Vec<_> = c
        .samples
        .range(lo.saturating_sub(1)..=hi)
        .map(|(_, d)| *d)
        .collect();
    let budget = (2.0 * state.plot_width.unwrap_or(1600.0)) as usize;
    let step = samples.len().div_ceil(budget.max(1)).max(1);
    let mut objects = Vec::new();
    let mut distance = Vec::new();
    for d in samples.iter().step_by(step) {
        if let Some(x) = x_of_tick(d.tick) {
            objects.push([x, f64::from(d.objects)]);
            distance.push([x, d.distance]);
        }
    }
    let detail = match c.about.first {
        Some(_) => format!("B: {}", words::b_name(&c.about.name)),
        None => format!("B: {}; no difference yet", words::b_name(&c.about.name)),
    };
    [
        ValueLane {
            id: ("timeline_divergence", 0),
            title: "divergence: objects".to_string(),
            detail: detail.clone(),
            points: objects,
            colour: Some(B_COLOUR),
            goto: c
                .about
                .first
                .map(|f| (format!("first at tick {}", f.tick), f.tick)),
            y_floor: 1.0,
            remove: None,
        },
        ValueLane {
            id: ("timeline_divergence", 1),
            title: "divergence: distance (m)".to_string(),
            detail: "largest A–B distance of an object".to_string(),
            points: distance,
            colour: Some(B_COLOUR),
            goto: None,
            // A centimetre: below it, a distance is a rounding matter.
            y_floor: 0.01,
            remove: None,
        },
    ]
}
