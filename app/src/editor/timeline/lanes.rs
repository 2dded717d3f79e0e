//! Drawing the timeline: its controls, a label column and one egui_plot per
//! lane, and what the pointer and keys do there.
//!
//! | input | does |
//! |---|---|
//! | hover | a tooltip with the frame's clock fields; a line in every lane |
//! | click, ←/→ (timeline focused) | the time cursor: every panel shows that tick (one frame or one tick per key press, by the x axis) |
//! | drag | pans time |
//! | Ctrl+wheel | zooms time around the pointer |
//! | Alt+wheel | zooms the lane's y axis (the plain wheel scrolls the lanes, never an axis) |
//! | double-click | the lane's y axis fits its data again ("Fit all" resets every lane) |
//! | Shift+drag | selects a range, which Export writes |
//! | Enter | resume from the viewed tick |
//!
//! Every expanded lane gets the same height, at least [`MIN_LANE_HEIGHT`];
//! when they do not all fit, the lane area scrolls. The x axis is drawn once,
//! under the last expanded lane, and every lane's y axis is
//! [`Y_AXIS_WIDTH`] wide, so their data areas line up.

use egui::{Color32, RichText};
use egui_plot::{AxisHints, Plot, Span, VLine};
use stepframe_core::Priority;

use super::axes::{few_marks_for, hover_rows, x_label, y_label};
use super::draw::{LABEL_HALF_HEIGHT, Y_AXIS_WIDTH};
use super::draw::{draw_lane, header_ui, lane_lines};
use super::summary::{SeriesKey, view_span};
use super::watch_lanes::LaneData;
use super::{LIVE_WINDOW_FRAMES, LaneId, MarkerKind, TimelineState, XAxis};
use crate::editor::bookmarks::Bookmark;
use crate::editor::frames::Frames;
use crate::editor::protocol::{Command, WatchCommand};
use crate::editor::shared::{Commands, Reading};

/// Smallest plot height of an expanded lane, points: room for three y labels.
pub const MIN_LANE_HEIGHT: f32 = 56.0;
/// Largest plot height of an expanded lane, points.
const MAX_LANE_HEIGHT: f32 = 220.0;
/// Width of the label column, points.
const LABEL_WIDTH: f32 = 150.0;
/// Height of the x axis under the last expanded lane, points.
const X_AXIS_HEIGHT: f32 = 18.0;
/// Space between two collapsed lanes' headers in their row, points.
const HEADER_GAP: f32 = 14.0;
/// Room past either end of the x range for a marker centred on the first or
/// last frame in view (the diamonds' radius is 4), points.
const MARKER_ROOM: f32 = 6.0;
/// Vertical space between lane rows, points.
const ROW_GAP: f32 = 2.0;

const CURSOR: Color32 = Color32::from_rgb(250, 210, 60);
const HOVER: Color32 = Color32::from_rgb(150, 150, 160);
pub(super) const SELECTION: Color32 = Color32::from_rgba_premultiplied(60, 110, 200, 50);

/// What the lanes did with the pointer this frame.
#[derive(Debug, Default)]
pub(super) struct LanesOutput {
    /// A click put the cursor on this tick (and record).
    pub clicked: Option<(u64, u64)>,
    /// A watch lane's 🗙 was clicked: its expression.
    pub remove: Option<String>,
}

/// Draws the timeline (controls and lanes) and applies what the user did to
/// it: the cursor goes to the session (every panel follows), exports write
/// files and say where.
pub fn timeline_ui(
    ui: &mut egui::Ui,
    state: &mut TimelineState,
    reading: &Reading<'_>,
    cmd: &mut Commands,
) {
    let frames = reading.frames();
    // A cursor put on a tick from elsewhere (Find previous, a bookmark, the
    // inspector) is brought into view: the lanes once kept showing frames
    // around it with no cursor in sight.
    if reading.cursor() != state.seen_cursor {
        state.seen_cursor = reading.cursor();
        if let Some(tick) = reading.cursor() {
            bring_into_view(state, frames, tick);
        }
    }
    if let Some(live) = reading.live() {
        state.max_delta = live.settings.max_delta;
    }
    if let Some(live) = reading.live() {
        // The lanes are the host's plotted watches, as its list is now.
        state
            .watch_lanes
            .follow(&super::watch_lanes::plotted(Some(live)));
    }
    let out = lanes_ui(ui, state, LaneData::of(reading));
    if let Some(expr) = out.remove {
        cmd.send(Command::Watches(WatchCommand::Unplot(expr)));
    }
    if let Some((tick, seq)) = out.clicked {
        cmd.view_frame(tick, seq);
    }
    if state.focused {
        let (left, right) = ui.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowLeft),
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowRight),
            )
        });
        let mut current = reading
            .cursor()
            .or_else(|| frames.newest().map(|r| r.simulation_tick))
            .map(|tick| (tick, reading.cursor_seq()));
        for (pressed, dir) in [(left, -1), (right, 1)] {
            if pressed
                && let Some((now, seq)) = current
                && let Some((tick, seq)) = state.step_cursor(frames, now, seq, dir)
            {
                cmd.view_frame(tick, seq);
                current = Some((tick, Some(seq)));
            }
        }
    }
}

/// Centres the lanes on `tick` when it is outside the x range they show,
/// keeping the range's width (a tick already in view moves nothing).
fn bring_into_view(state: &mut TimelineState, frames: &Frames, tick: u64) {
    let (Some((lo, hi)), Some(x)) = (shown_range(state, frames), state.x_of_tick(frames, tick))
    else {
        return;
    };
    if (lo..=hi).contains(&x) {
        return;
    }
    let half = (hi - lo) / 2.0;
    state.follow_live = false;
    state.range = Some((x - half, x + half));
}

/// The x range the lanes show now.
fn shown_range(state: &TimelineState, frames: &Frames) -> Option<(f64, f64)> {
    let records = frames.records();
    let (first, last) = (records.front()?, records.back()?);
    let axis = state.axis;
    let full = (axis.of(first), axis.of(last).max(axis.of(first) + 1.0));
    if state.follow_live {
        let n = records.len();
        let lo = axis.of(&records[n.saturating_sub(LIVE_WINDOW_FRAMES)]);
        return Some((lo, full.1.max(lo + 1.0)));
    }
    Some(state.range.unwrap_or(full))
}

/// The lanes themselves. `cursor` is the session's cursor: its tick and
/// the record it stands on. Also what the bench draws.
pub(super) fn lanes_ui(
    ui: &mut egui::Ui,
    state: &mut TimelineState,
    data: LaneData<'_>,
) -> LanesOutput {
    let LaneData {
        frames,
        bookmarks,
        cursor,
        compare,
        ..
    } = data;
    let mut out = LanesOutput::default();
    // Ctrl+T: the first lane drawn takes the keyboard.
    let mut focus_first = std::mem::take(&mut state.focus_requested);
    let Some(range) = shown_range(state, frames) else {
        ui.weak("no frames yet");
        return out;
    };
    let axis = state.axis;
    let records = frames.records();
    let n = records.len();
    let last = records[n - 1];
    // The FixedUpdate lane's series are named after the newest frame that ran
    // a tick (a frame that ran none timed no priority).
    let priorities: Vec<Priority> = records
        .iter()
        .rev()
        .take(LIVE_WINDOW_FRAMES)
        .find(|r| r.priorities > 0)
        .map_or(&[][..], |r| r.priorities())
        .iter()
        .map(|(p, _)| Priority(*p))
        .collect();
    // One min/max pair per pixel column of the plots' data areas as drawn
    // last UI frame.
    let columns = state
        .plot_width
        .unwrap_or_else(|| ui.available_width() - LABEL_WIDTH - Y_AXIS_WIDTH)
        .max(1.0) as usize;
    let (start, end) = view_span(frames.telemetry(), axis, range);
    let first_seq = frames.first_seq();
    let key = SeriesKey {
        span: (first_seq + start as u64, first_seq + end as u64),
        neighbours: (start > 0, end < n),
        range: (range.0.to_bits(), range.1.to_bits()),
        columns,
        axis,
        slots: priorities.len(),
    };
    state.blocks.update(frames.telemetry(), axis);
    if state.reduced.key != Some(key) {
        state.reduced.refill(
            key,
            frames.telemetry(),
            &state.blocks,
            frames.breaks(),
            range,
        );
    }
    let x_of_seq = |seq: Option<u64>| seq.and_then(|s| frames.record(s)).map(|r| axis.of(r));
    let cursor_x = match (axis, cursor) {
        (XAxis::Tick, Some((t, _))) => Some(t as f64),
        (_, Some((_, seq))) => x_of_seq(Some(seq)),
        _ => None,
    };
    let hover_x = x_of_seq(state.hover_seq);
    let x_of_tick = |tick: u64| state.x_of_tick(frames, tick);
    // The first divergence of a comparison: its x, and the tick a click on it
    // goes to (that very tick, not its frame's last).
    let divergence_marker: Option<(f64, String)> = compare.and_then(|c| {
        let f = c.about.first?;
        Some((
            x_of_tick(f.tick)?,
            format!(
                "A and B part at tick {}: {} objects differ, up to {:.6} m apart (B: {})",
                f.tick,
                f.objects,
                f.distance,
                crate::editor::words::b_name(&c.about.name)
            ),
        ))
    });
    let divergence_lanes =
        compare.map(|c| super::value_lane::divergence_lanes(&c, state, frames, range, &x_of_tick));
    let markers: Vec<(MarkerKind, f64, &str)> = state
        .markers
        .iter()
        .filter_map(|m| Some((m.kind, state.marker_x(frames, m)?, m.text.as_str())))
        .chain(bookmarks.iter().filter_map(|Bookmark { tick, note }| {
            let x = match axis {
                XAxis::Tick => *tick as f64,
                _ => x_of_seq(frames.seq_of_tick(*tick))?,
            };
            Some((MarkerKind::Bookmark, x, note.as_str()))
        }))
        .chain(
            divergence_marker
                .iter()
                .map(|(x, text)| (MarkerKind::Divergence, *x, text.as_str())),
        )
        .filter(|(_, x, _)| (range.0..=range.1).contains(x))
        .collect();
    let expanded: Vec<LaneId> = LaneId::ALL
        .into_iter()
        .filter(|l| state.lane(*l).expanded)
        .collect();
    let mut toggles: Vec<LaneId> = Vec::new();
    // The collapsed lanes' headers: one row above the lanes, outside the
    // scrolling area, so every lane is a click away whatever the tile's height.
    if expanded.len() < LaneId::ALL.len() {
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = HEADER_GAP;
            for lane in LaneId::ALL.into_iter().filter(|l| !state.lane(*l).expanded) {
                if header_ui(ui, lane, &[], false) {
                    toggles.push(lane);
                }
            }
        });
    }
    let free = ui.available_height() - expanded.len() as f32 * ROW_GAP - X_AXIS_HEIGHT;
    let lane_height = (free / expanded.len().max(1) as f32).clamp(MIN_LANE_HEIGHT, MAX_LANE_HEIGHT);
    // Room for the y labels at the ends of the axis (each is centred on its
    // mark): the auto-fitted range gets a margin of half a label at either end.
    let y_margin = LABEL_HALF_HEIGHT / (lane_height - 2.0 * LABEL_HALF_HEIGHT);
    // A marker on the newest or oldest frame in view is drawn whole: the
    // plots' x bounds reach a marker's radius past the range.
    let per_point = (range.1 - range.0)
        / f64::from(
            state
                .plot_width
                .unwrap_or_else(|| ui.available_width() - LABEL_WIDTH - Y_AXIS_WIDTH)
                .max(1.0),
        );
    let bounds_x = (
        range.0 - per_point * f64::from(MARKER_ROOM),
        range.1 + per_point * f64::from(MARKER_ROOM),
    );
    let budget = 1000.0 / state.budget_hz.max(1e-3);
    let fixed_ms = last.fixed_delta_time * 1000.0;

    let mut hovered: Option<f64> = None;
    let mut clicked: Option<f64> = None;
    let mut goto: Option<u64> = None;
    let mut pan: f64 = 0.0;
    let mut zoom: Option<(f64, f64)> = None;
    let mut plot_width: Option<f32> = None;
    let mut any_focus = false;
    let mut selecting: Option<(f64, bool)> = None;
    let mut y_changes: Vec<(LaneId, Option<(f64, f64)>)> = Vec::new();
    let mut shown_y: Vec<(LaneId, (f64, f64))> = Vec::new();
    let reduced = &state.reduced;
    let lanes = &state.lanes;
    let selection = state.selection;
    let mut area = egui::ScrollArea::vertical()
        .id_salt("timeline_lanes")
        .auto_shrink([false, false]);
    if !state.lanes_drawn {
        // egui's memory keeps a scroll offset across a restart, but not the
        // lanes it was measured on: a new session starts at the top.
        area = area.vertical_scroll_offset(0.0);
    }
    area.show(ui, |ui| {
        ui.spacing_mut().item_spacing.y = ROW_GAP;
        // A comparison the user asked for comes first, in view.
        for lane in divergence_lanes.iter().flatten() {
            let input = super::value_lane::value_lane_ui(
                ui,
                lane,
                bounds_x,
                (LABEL_WIDTH, MIN_LANE_HEIGHT),
                (cursor_x, hover_x),
            );
            hovered = hovered.or(input.hovered);
            clicked = clicked.or(input.clicked);
            goto = goto.or(input.goto);
        }
        for &lane in &expanded {
            let lane_state = lanes[lane as usize];
            let lines = lane_lines(lane, &priorities);
            let is_last = expanded.last() == Some(&lane);
            let mut toggle = false;
            let resp = ui
                .horizontal(|ui| {
                    ui.allocate_ui_with_layout(
                        egui::vec2(LABEL_WIDTH, lane_height),
                        egui::Layout::top_down(egui::Align::Min),
                        |ui| {
                            ui.set_width(LABEL_WIDTH);
                            toggle = header_ui(ui, lane, &lines, true);
                        },
                    );
                    let unit = lane.unit();
                    let mut plot = Plot::new(("timeline_lane", lane.title()))
                        .height(lane_height + if is_last { X_AXIS_HEIGHT } else { 0.0 })
                        // The markers lane too has a (blank) y axis, so
                        // its data area lines up with every other lane's.
                        .show_axes([is_last, true])
                        .set_margin_fraction(egui::vec2(0.0, y_margin))
                        .allow_drag(false)
                        .allow_zoom(false)
                        .allow_scroll(false)
                        .allow_boxed_zoom(false)
                        .allow_double_click_reset(false)
                        .show_x(false)
                        .show_y(false)
                        .custom_y_axes(vec![
                            AxisHints::new_y()
                                .formatter(move |m, _| y_label(unit, m.value))
                                .min_thickness(Y_AXIS_WIDTH)
                                // Two or three marks on 56 points are
                                // ~20 points apart: show them, unfaded.
                                .label_spacing(8.0..=12.0)
                                .tick_label_font(egui::FontId::proportional(11.0)),
                        ])
                        .y_grid_spacer(move |input| few_marks_for(input, unit))
                        .x_axis_formatter(move |m, _| x_label(axis, m.value))
                        .include_y(0.0);
                    plot = match lane {
                        LaneId::Alpha => plot.include_y(1.0),
                        LaneId::Markers => plot
                            .include_y(-0.5)
                            .include_y(MarkerKind::ALL.len() as f64 - 0.5)
                            .show_grid(false),
                        LaneId::Ticks => plot.include_y(1.0),
                        // A lane with nothing in it yet (no FixedUpdate
                        // hook, no drop) shows 0 up to a small round
                        // value (marks a whole label digit apart), not
                        // egui_plot's ±200 around 0.
                        LaneId::FixedUpdate | LaneId::Physics => plot.include_y(0.2),
                        LaneId::Dropped => plot.include_y(0.02),
                        _ => plot,
                    };
                    let y_range = lane_state.y_range;
                    let resp = plot.show(ui, |pui| {
                        pui.set_plot_bounds_x(bounds_x.0..=bounds_x.1);
                        if let Some((lo, hi)) = y_range {
                            pui.set_plot_bounds_y(lo..=hi);
                        } else {
                            pui.set_auto_bounds([false, true]);
                        }
                        if let Some((a, b)) = selection {
                            pui.span(Span::new("selection", a..=b).fill(SELECTION));
                        }
                        draw_lane(pui, lane, &lines, reduced, &markers, budget, fixed_ms);
                        if let Some(x) = hover_x {
                            pui.vline(VLine::new("hover", x).color(HOVER));
                        }
                        if let Some(x) = cursor_x {
                            pui.vline(VLine::new("cursor", x).color(CURSOR).width(1.5));
                        }
                    });
                    let title = lane.title();
                    resp.response.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::Role::Canvas, true, format!("lane {title}"))
                    });
                    resp
                })
                .inner;
            if toggle {
                toggles.push(lane);
            }
            let b = resp.transform.bounds();
            shown_y.push((lane, (b.min()[1], b.max()[1])));
            let w = resp.transform.frame().width();
            plot_width = Some(plot_width.map_or(w, |p: f32| p.max(w)));
            let r = &resp.response;
            let x_at = |p: egui::Pos2| resp.transform.value_from_position(p).x;
            if std::mem::take(&mut focus_first) {
                r.request_focus();
            }
            if r.has_focus() {
                any_focus = true;
            }
            if let Some(p) = r.hover_pos() {
                hovered = Some(x_at(p));
                let (zoom_delta, scroll, alt) =
                    ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta.y, i.modifiers.alt));
                if zoom_delta != 1.0 {
                    zoom = Some((x_at(p), f64::from(zoom_delta)));
                }
                if alt && scroll != 0.0 {
                    // Alt+wheel: this lane's y; the lane area must not scroll too.
                    ui.input_mut(|i| i.smooth_scroll_delta = egui::Vec2::ZERO);
                    let b = resp.transform.bounds();
                    let (lo, hi) = (b.min()[1], b.max()[1]);
                    let y = resp.transform.value_from_position(p).y;
                    let f = f64::from((-scroll * 0.004).exp());
                    y_changes.push((lane, Some((y - (y - lo) * f, y + (hi - y) * f))));
                }
            }
            if r.double_clicked() {
                y_changes.push((lane, None));
            }
            let shift = ui.input(|i| i.modifiers.shift);
            if r.drag_started() && shift {
                selecting = r.interact_pointer_pos().map(|p| (x_at(p), true));
            } else if r.dragged() {
                if let (Some(p), true) = (r.interact_pointer_pos(), shift) {
                    selecting = Some((x_at(p), false));
                } else if !shift {
                    pan -= f64::from(r.drag_delta().x) / resp.transform.dpos_dvalue_x();
                }
            }
            if r.clicked()
                && let Some(p) = r.interact_pointer_pos()
            {
                clicked = Some(x_at(p));
                r.request_focus();
            }
            if r.has_focus() {
                let id = r.id;
                ui.memory_mut(|m| {
                    m.set_focus_lock_filter(
                        id,
                        egui::EventFilter {
                            horizontal_arrows: true,
                            ..Default::default()
                        },
                    )
                });
            }
            if let Some(p) = r.hover_pos()
                && let Some(rec) = state
                    .nearest(frames, x_at(p))
                    .and_then(|s| frames.record(s))
            {
                // The tooltip for the frame under the pointer.
                let rows = hover_rows(rec);
                r.clone().on_hover_ui_at_pointer(|ui| {
                    for row in rows {
                        ui.add(
                            egui::Label::new(RichText::new(row).monospace())
                                .wrap_mode(egui::TextWrapMode::Extend),
                        );
                    }
                });
            }
        }
        let watched = super::watch_lanes::watch_lanes_ui(
            ui,
            state,
            &data,
            bounds_x,
            (LABEL_WIDTH, MIN_LANE_HEIGHT),
            (cursor_x, hover_x),
            &x_of_tick,
        );
        hovered = hovered.or(watched.hovered);
        clicked = clicked.or(watched.clicked);
        out.remove = watched.remove;
    });
    // Apply what happened, now that nothing borrows the state.
    if let Some(w) = plot_width.filter(|w| *w >= 1.0) {
        state.plot_width = Some(w);
    }
    state.focused = any_focus;
    state.lanes_drawn = true;
    // Scrolled to once, on the draw after it was added.
    state.watch_lanes.revealed();
    state.hover_seq = hovered.and_then(|x| state.nearest(frames, x));
    for lane in toggles {
        let l = state.lane_mut(lane);
        l.expanded = !l.expanded;
    }
    for (lane, y) in shown_y {
        state.lane_mut(lane).shown_y = Some(y);
    }
    for (lane, y) in y_changes {
        state.lane_mut(lane).y_range = y;
    }
    let (lo, hi) = range;
    if state.follow_live {
        // Unticking "Follow live" leaves the view where it is.
        state.range = Some(range);
    }
    if pan != 0.0 {
        state.follow_live = false;
        state.range = Some((lo + pan, hi + pan));
    }
    if let Some((x, factor)) = zoom {
        state.follow_live = false;
        state.range = Some((x - (x - lo) / factor, x + (hi - x) / factor));
    }
    match selecting {
        Some((x, true)) => {
            state.selecting_from = Some(x);
            state.selection = None;
        }
        Some((x, false)) => {
            if let Some(from) = state.selecting_from {
                state.selection = Some((from.min(x), from.max(x)));
            }
        }
        None => state.selecting_from = None,
    }
    // A click within a few points of the divergence marker goes to its tick.
    let near = |x: f64, at: f64| {
        let per_point =
            (range.1 - range.0) / f64::from(state.plot_width.unwrap_or(1600.0).max(1.0));
        (x - at).abs() <= 6.0 * per_point
    };
    let divergence_click = clicked.and_then(|x| {
        let (at, _) = divergence_marker.as_ref()?;
        let f = compare?.about.first?;
        near(x, *at).then(|| frames.seq_of_tick(f.tick).map(|seq| (f.tick, seq)))?
    });
    if let Some(tick) = goto {
        out.clicked = frames.seq_of_tick(tick).map(|seq| (tick, seq));
        // The link may point outside the lanes' view: centre it there.
        let x = out.clicked.and_then(|(t, seq)| match axis {
            XAxis::Tick => Some(t as f64),
            _ => frames.record(seq).map(|r| axis.of(r)),
        });
        if let Some(x) = x.filter(|x| !(range.0..=range.1).contains(x)) {
            let half = (range.1 - range.0) / 2.0;
            state.follow_live = false;
            state.range = Some((x - half, x + half));
        }
    } else if divergence_click.is_some() {
        out.clicked = divergence_click;
    } else if let Some(x) = clicked {
        out.clicked = match axis {
            XAxis::Tick => {
                let (lo, hi) = (
                    records[0].simulation_tick.max(1),
                    records[n - 1].simulation_tick,
                );
                let tick = (x.round().max(0.0) as u64).clamp(lo.min(hi), hi);
                frames.seq_of_tick(tick).map(|seq| (tick, seq))
            }
            _ => state
                .nearest(frames, x)
                .and_then(|seq| Some((frames.record(seq)?.simulation_tick, seq))),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::bench::synthetic_record;
    use super::*;

    /// One headless UI frame of the timeline, 1600×900.
    fn draw(ctx: &egui::Context, state: &mut TimelineState, frames: &Frames) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 900.0),
            )),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| {
            egui::CentralPanel::default()
                .show(ui, |ui| lanes_ui(ui, state, LaneData::frames_only(frames)));
        });
        out.textures_delta.clear();
    }

    #[test]
    fn a_view_that_stays_put_is_not_reduced_again_as_frames_arrive() {
        let mut state = TimelineState::new();
        let mut frames = Frames::with_capacity(10_000);
        for i in 1..=5_000 {
            frames.push(synthetic_record(i));
        }
        let ctx = egui::Context::default();
        // Following live, then "follow live" unticked: the view stays on the
        // last 600 frames while the session runs on.
        for _ in 0..3 {
            draw(&ctx, &mut state, &frames);
        }
        state.follow_live = false;
        for _ in 0..3 {
            draw(&ctx, &mut state, &frames);
        }
        // The first frame right of the view is its right neighbour (the
        // line runs to the edge); later ones change nothing in view.
        frames.push(synthetic_record(5_001));
        draw(&ctx, &mut state, &frames);
        let key = state.reduced.key.expect("reduced");
        assert_eq!(key.span.1 - key.span.0, LIVE_WINDOW_FRAMES as u64);
        for i in 5_002..=5_100 {
            frames.push(synthetic_record(i));
            draw(&ctx, &mut state, &frames);
            assert_eq!(state.reduced.key, Some(key), "frame {i}");
        }
        // Following live again: the view moves, the lanes are reduced again.
        state.follow_live = true;
        draw(&ctx, &mut state, &frames);
        assert_ne!(state.reduced.key, Some(key));
    }
}
