//! One lane of values over the clock lanes' x axis, drawn the same way for a
//! plotted watch ([`super::watch_lanes`]) and for a comparison's two
//! divergence lanes (how many objects differ, how far apart): its label
//! column (title cut short to the column, detail, a link to a tick, a 🗙
//! for a watch's), its plot on the shared x range with the cursor's and
//! the hover's lines, and what the pointer did there.

use egui_plot::{AxisHints, Line, Plot, PlotPoints, VLine};

use super::TimelineState;
use super::draw::LABEL_HALF_HEIGHT;
use crate::editor::frames::Frames;
use crate::editor::shared::{B_COLOUR, RunBReading};
use crate::editor::words;

/// The text of a watch lane's remove button: egui's own close icon, in the
/// default `emoji-icon-font` (✕, U+2715, is in none of the default fonts,
/// and egui panics on a missing glyph).
pub(crate) const REMOVE_ICON: &str = "🗙";

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
    /// `[x, value]`, in x order, in runs with no tick missing: a line
    /// joins the points of one run only, so ticks the lane has no value for
    /// (A's after a fork B was adopted from, which B ran unrecorded) are a
    /// gap, not a straight line across.
    pub points: Vec<Vec<[f64; 2]>>,
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

/// A lane's title on one line, cut short to the label column (whole on
/// hover): a long field path never widens the column and so never moves
/// the plot off the x every other lane's plot starts at.
fn title_ui(ui: &mut egui::Ui, title: &str) {
    ui.add(egui::Label::new(title).truncate())
        .on_hover_text(title);
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
                            title_ui(ui, &lane.title);
                        });
                    }
                    None => title_ui(ui, &lane.title),
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
                for run in &lane.points {
                    let mut line = Line::new(lane.title.clone(), PlotPoints::new(run.clone()));
                    if let Some(c) = lane.colour {
                        line = line.color(c);
                    }
                    pui.line(line);
                }
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

/// A comparison's two lanes: how many objects differ, and how far apart the
/// furthest are, per measured tick inside `range` (at most two points per
/// point of width).
pub(super) fn divergence_lanes(
    c: &RunBReading<'_>,
    state: &TimelineState,
    frames: &Frames,
    range: (f64, f64),
    x_of_tick: &dyn Fn(u64) -> Option<f64>,
) -> [ValueLane; 2] {
    let tick_at = |x: f64| {
        state
            .nearest(frames, x)
            .and_then(|s| frames.record(s))
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
            points: vec![objects],
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
            points: vec![distance],
            colour: Some(B_COLOUR),
            goto: None,
            // A centimetre: below it, a distance is a rounding matter.
            y_floor: 0.01,
            remove: None,
        },
    ]
}
