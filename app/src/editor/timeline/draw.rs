//! Drawing inside one lane: its series and colours, the markers lane's rows,
//! a collapsed lane's header (the pointer work is `lanes`).

use egui::{Color32, RichText};
use egui_plot::{HLine, Line, MarkerShape, PlotPoints, Points};
use stepframe_core::Priority;

use super::series::{
    SERIES_ACC_AFTER, SERIES_ACC_BEFORE, SERIES_ALPHA, SERIES_DROPPED, SERIES_DT,
    SERIES_FIRST_PRIORITY, SERIES_PHYSICS, SERIES_TICKS,
};
use super::{LaneId, MarkerKind};
use crate::editor::shared::B_COLOUR;

/// Width of every lane's y axis, points (the value lanes line up with it).
pub(super) const Y_AXIS_WIDTH: f32 = 58.0;
/// Half the height of a y label, points: 11-point text is 12.7 points tall,
/// and a label is centred on its mark.
pub(super) const LABEL_HALF_HEIGHT: f32 = 7.0;
/// The worst frames in the dt lane.
pub(super) const WORST: Color32 = Color32::from_rgb(235, 70, 70);
/// Frames whose backlog the cap dropped.
pub(super) const DROPPED: Color32 = Color32::from_rgb(255, 140, 0);

/// The series a lane draws: `(name, first series index, colour)`; the
/// FixedUpdate lane's come from the newest frame's priorities.
pub(super) fn lane_lines(lane: LaneId, priorities: &[Priority]) -> Vec<(String, usize, Color32)> {
    let c = |r, g, b| Color32::from_rgb(r, g, b);
    match lane {
        LaneId::Dt => vec![("dt".into(), SERIES_DT, c(90, 160, 240))],
        LaneId::Accumulator => vec![
            ("before".into(), SERIES_ACC_BEFORE, c(240, 160, 60)),
            ("after".into(), SERIES_ACC_AFTER, c(90, 200, 220)),
        ],
        LaneId::Alpha => vec![("alpha".into(), SERIES_ALPHA, c(180, 130, 230))],
        LaneId::Ticks => vec![("ticks".into(), SERIES_TICKS, c(120, 200, 120))],
        LaneId::Dropped => vec![("dropped".into(), SERIES_DROPPED, c(240, 110, 90))],
        LaneId::FixedUpdate => priorities
            .iter()
            .enumerate()
            .map(|(s, p)| {
                let hue = [
                    c(90, 160, 240),
                    c(120, 200, 120),
                    c(240, 160, 60),
                    c(180, 130, 230),
                ];
                (p.to_string(), SERIES_FIRST_PRIORITY + s, hue[s % hue.len()])
            })
            .collect(),
        LaneId::Physics => vec![("physics".into(), SERIES_PHYSICS, c(200, 200, 90))],
        LaneId::Markers => Vec::new(),
    }
}

pub(super) fn marker_colour(kind: MarkerKind) -> Color32 {
    match kind {
        MarkerKind::Bookmark => Color32::from_rgb(120, 220, 160),
        MarkerKind::Breakpoint => Color32::from_rgb(235, 70, 70),
        MarkerKind::Clock => Color32::from_rgb(255, 190, 60),
        MarkerKind::Watch => Color32::from_rgb(200, 140, 255),
        MarkerKind::Error => Color32::from_rgb(255, 130, 130),
        MarkerKind::Session => Color32::from_rgb(120, 180, 255),
        MarkerKind::Rate => Color32::from_rgb(180, 140, 255),
        MarkerKind::Stall => DROPPED,
        MarkerKind::Divergence => B_COLOUR,
        MarkerKind::Build => Color32::from_rgb(250, 230, 90),
    }
}

/// A lane's name, unit and legend (the label column, or the whole one-line
/// header of a collapsed lane). Returns true when its toggle was clicked.
pub(super) fn header_ui(
    ui: &mut egui::Ui,
    lane: LaneId,
    lines: &[(String, usize, Color32)],
    expanded: bool,
) -> bool {
    let arrow = if expanded { "⏷" } else { "⏵" };
    let unit = lane.unit().name();
    let name = if unit.is_empty() || lane.title().contains(unit) {
        format!("{arrow} {}", lane.title())
    } else {
        format!("{arrow} {} ({unit})", lane.title())
    };
    let hover = if expanded {
        "Collapse this lane to a one-line header"
    } else {
        "Expand this lane"
    };
    let mut clicked = false;
    let draw = |ui: &mut egui::Ui| {
        clicked = ui
            .add(egui::Button::new(RichText::new(name).strong()).frame(false))
            .on_hover_text(hover)
            .clicked();
        for (label, _, colour) in lines {
            // A swatch of the series' colour, then its name.
            let (swatch, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(swatch.shrink2(egui::vec2(0.0, 3.5)), 0.0, *colour);
            ui.label(RichText::new(label).small().color(*colour));
        }
    };
    if expanded {
        ui.horizontal_wrapped(draw);
    } else {
        draw(ui);
    }
    clicked
}

/// The items of one lane.
pub(super) fn draw_lane<'a>(
    pui: &mut egui_plot::PlotUi<'a>,
    lane: LaneId,
    lines: &[(String, usize, Color32)],
    reduced: &'a super::summary::Reduced,
    markers: &[(MarkerKind, f64, &str)],
    budget_ms: f64,
    fixed_ms: f64,
) {
    // A series is drawn as one line per run between gaps (frames never
    // recorded here): no line joins the two sides of a gap.
    let runs = |i: usize| reduced.runs(reduced.series[i].as_slice());
    match lane {
        LaneId::FixedUpdate => {
            // Stacked: the sums, drawn from the top down, each filled to 0.
            for (name, i, colour) in lines.iter().rev() {
                for run in runs(*i) {
                    pui.line(
                        Line::new(name.clone(), PlotPoints::Borrowed(run))
                            .color(*colour)
                            .fill(0.0)
                            .fill_alpha(0.35),
                    );
                }
            }
        }
        LaneId::Markers => {
            for (row, kind) in MarkerKind::ALL.into_iter().enumerate() {
                let y = (MarkerKind::ALL.len() - 1 - row) as f64;
                let pts: Vec<[f64; 2]> = markers
                    .iter()
                    .filter(|m| m.0 == kind)
                    .map(|m| [m.1, y])
                    .collect();
                pui.points(
                    Points::new(kind.name(), PlotPoints::new(pts))
                        .color(marker_colour(kind))
                        .radius(4.0)
                        .shape(MarkerShape::Diamond),
                );
            }
            pui.points(
                Points::new(
                    "worst frames",
                    PlotPoints::new(reduced.worst.iter().map(|p| [p.x, -0.3]).collect()),
                )
                .color(WORST)
                .radius(2.5),
            );
        }
        _ => {
            for (name, i, colour) in lines {
                for run in runs(*i) {
                    pui.line(Line::new(name.clone(), PlotPoints::Borrowed(run)).color(*colour));
                }
            }
        }
    }
    match lane {
        LaneId::Dt => {
            pui.hline(HLine::new("budget", budget_ms).color(Color32::from_rgb(90, 190, 90)));
            pui.points(
                Points::new("worst frames", PlotPoints::Borrowed(&reduced.worst))
                    .color(WORST)
                    .radius(3.0)
                    .shape(MarkerShape::Circle),
            );
        }
        LaneId::Accumulator => {
            pui.hline(HLine::new("fixed dt", fixed_ms).color(Color32::GRAY));
        }
        LaneId::Ticks => {
            pui.points(
                Points::new(
                    "cap dropped backlog",
                    PlotPoints::Borrowed(&reduced.dropped_marks),
                )
                .color(DROPPED)
                .radius(3.0),
            );
        }
        _ => {}
    }
}
