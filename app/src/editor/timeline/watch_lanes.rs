//! Value lanes under the clock lanes: plotted watches ("show value" in the
//! Watches tab), one per watch, and a comparison's divergence lanes. Each
//! watch lane shows under the clock lanes, the watch's value after the last tick of
//! each frame, on the same x range and cursor as every other lane. A click on
//! one moves the time cursor like a click on any lane.

use std::collections::{BTreeMap, VecDeque};

use egui_plot::{AxisHints, Line, Plot, PlotPoints, VLine};

use super::TimelineState;
use super::draw::LABEL_HALF_HEIGHT;
use crate::editor::shared::B_COLOUR;
use crate::editor::shared::RunBView;

/// Values kept per watch: as many frames as the telemetry ring keeps.
const MAX_VALUES: usize = 216_000;

/// The plotted watches and their values.
#[derive(Debug, Default)]
pub struct WatchLanes {
    /// `(watch index, expression)` of each plotted watch, in list order
    /// (copied from the Watches tab).
    pub plotted: Vec<(usize, String)>,
    /// Per watch index: `(frame, value)`, oldest first, one per frame.
    pub values: BTreeMap<usize, VecDeque<(u64, f64)>>,
}

impl WatchLanes {
    /// Takes the Watches tab's plotted list; a watch whose index now names
    /// another expression starts over.
    pub fn set_plotted(&mut self, plotted: Vec<(usize, String)>) {
        if plotted == self.plotted {
            return;
        }
        let old = &self.plotted;
        self.values.retain(|i, _| {
            let now = plotted.iter().find(|p| p.0 == *i);
            let before = old.iter().find(|p| p.0 == *i);
            match (now, before) {
                (None, _) => false,
                (Some(n), Some(b)) => n.1 == b.1,
                // Values that arrived just before the list did.
                (Some(_), None) => true,
            }
        });
        self.plotted = plotted;
    }

    /// A value after a tick of `frame` (the frame's last tick wins).
    pub fn push(&mut self, watch: usize, frame: u64, value: f64) {
        let v = self.values.entry(watch).or_default();
        match v.back_mut() {
            Some(last) if last.0 == frame => last.1 = value,
            _ => {
                if v.len() == MAX_VALUES {
                    v.pop_front();
                }
                v.push_back((frame, value));
            }
        }
    }
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
    for (watch, expr) in &state.watch_lanes.plotted {
        let lane = ValueLane {
            id: ("timeline_watch", *watch as u64),
            title: format!("watch #{}", watch + 1),
            detail: expr.clone(),
            points: visible_points(state, *watch, range),
            colour: None,
            goto: None,
            y_floor: 0.0,
        };
        input.merge(value_lane_ui(ui, &lane, range, dims, xs));
    }
    input
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
}

impl LaneInput {
    /// The first hover and click of two lanes.
    pub fn merge(&mut self, other: LaneInput) {
        self.hovered = self.hovered.or(other.hovered);
        self.clicked = self.clicked.or(other.clicked);
        self.goto = self.goto.or(other.goto);
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
                ui.label(&lane.title);
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
fn visible_points(state: &TimelineState, watch: usize, range: (f64, f64)) -> Vec<[f64; 2]> {
    let Some(values) = state.watch_lanes.values.get(&watch) else {
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
        .streams
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
        Some(_) => format!("B: {}", c.about.name),
        None => format!("B: {}; no difference yet", c.about.name),
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
        },
    ]
}
