//! The Flame tab (Tracy's zones): the frame under the
//! time cursor (the newest frame while live) as nested zones on a time
//! axis: Update, each fixed tick and inside it FixedUpdate by priority,
//! physics and contacts, then Flow Tick and presentation. Hovering a zone
//! names its hook, object and behaviour and gives its milliseconds; the
//! slowest zones are listed beside the flame.
//!
//! Two flames, two sources (`stepframe_core::flame`):
//!
//! - **Live**: the coarse zones the pipeline recorded while the frame ran,
//!   kept for the newest frames in the recorded frames' zone ring
//!   ([`Reading::frames`]).
//! - **Replayed**: one zone per hook call, naming the object and the
//!   behaviour. The live run never records those (a clock read costs more
//!   than a FixedUpdate call); while the cursor is on a past frame or the
//!   session is suspended, the tab asks the worker to replay that frame
//!   from the rewind history with them on ([`FlameCommand::ReplayFrame`]), and
//!   labels every such zone and time "replayed": they are the replay's
//!   times, not the live run's.

use crate::editor::protocol::FlameCommand;
use crate::editor::shared::Panel;
use egui::{Align2, Color32, FontId, Rect, Role, Sense, Stroke, StrokeKind, Ui, WidgetInfo};
use stepframe_core::telemetry::FrameKindCode;
use stepframe_core::{FrameKind, FrameRecord, FrameZones, ObjectId, Zone, ZoneKind};

use crate::editor::protocol::{Command, Event, ReplayedFrame};
use crate::editor::shared::{Commands, Reading};

/// Height of one row of zones (one nesting depth), points.
const ROW: f32 = 16.0;
/// Width of the slowest-zones list beside the flame, points.
const LIST_WIDTH: f32 = 300.0;
/// Slowest zones listed per flame.
const SLOWEST: usize = 6;

/// The Flame tab's own state: the newest replay the worker sent and what
/// was last asked for (the zones themselves are the worker's, published).
#[derive(Debug, Default)]
pub struct FlameState {
    /// The newest answer to a [`Command::ReplayFrame`].
    replayed: Option<ReplayedFrame>,
    /// The frame last asked to be replayed, so each is asked once.
    requested: Option<u64>,
}

impl FlameState {
    /// Forgets the replay (a new session, a rewind: frame numbers mean
    /// other frames now).
    fn forget(&mut self) {
        self.replayed = None;
        self.requested = None;
    }
}

impl Panel for FlameState {
    /// Takes the worker's answer to a replay request; forgets it at a new
    /// session or a rewind.
    fn on_event(&mut self, event: &Event, _reading: &Reading<'_>, _cmd: &mut Commands) {
        match event {
            Event::FrameReplayed(replayed) => self.replayed = Some((**replayed).clone()),
            Event::Rewound(_) | Event::Loaded { .. } => self.forget(),
            _ => {}
        }
    }

    /// Draws the tab: the frame's live flame, its replayed one, each with
    /// its slowest zones beside it.
    fn ui(&mut self, ui: &mut Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        let Some(record) = shown_record(reading) else {
            ui.label("No frame yet: play or step the session, then click a frame on the timeline.");
            return;
        };
        let frame = record.frame_index;
        let kind = frame_kind(record.kind);
        let settled = reading.cursor().is_some() || reading.is_suspended();
        if settled && self.requested != Some(frame) {
            cmd.send(Command::Flame(FlameCommand::ReplayFrame(frame)));
            self.requested = Some(frame);
        }
        ui.label(format!(
            "Frame {frame}{}: {} · {:.3} ms of work recorded{}",
            match kind {
                FrameKind::Continuation => " (continuation)",
                FrameKind::LoneTick => " (lone tick)",
                _ => "",
            },
            crate::editor::words::count(u64::from(record.ticks), "tick", "ticks"),
            record.total_ms(),
            if reading.cursor().is_some() {
                " · the time cursor's frame"
            } else {
                " · newest frame (click one on the timeline to pick it)"
            },
        ));
        ui.separator();
        ui.strong("Live zones (recorded while the frame ran)");
        match reading.frames().zones().get(frame, kind) {
            Some(zones) => flame_with_list_ui(ui, zones, &Labels::Live, "flame-live"),
            None => {
                ui.label("No live zones kept for this frame (the editor keeps the newest minute).");
            }
        }
        ui.separator();
        ui.strong(format!(
            "Replayed frame {frame}: per behaviour (replayed timings, not the live run's)"
        ));
        match self.replayed.as_ref().filter(|r| r.frame == frame) {
            Some(ReplayedFrame {
                result: Ok(replayed),
                ..
            }) => flame_with_list_ui(
                ui,
                &replayed.zones,
                &Labels::Replayed(&replayed.objects),
                "flame-replayed",
            ),
            Some(ReplayedFrame { result: Err(e), .. }) => {
                ui.label(format!("not replayed: {e}"));
            }
            None if settled => {
                ui.label("replaying…");
            }
            None => {
                ui.label(
                    "Pause, or click a frame on the timeline, to replay it with a zone per hook call.",
                );
            }
        }
    }
}

/// The record the tab shows: the time cursor's frame, else the newest.
fn shown_record<'a>(reading: &Reading<'a>) -> Option<&'a FrameRecord> {
    match reading.cursor() {
        Some(_) => reading.cursor_record(),
        None => reading.frames().newest(),
    }
}

/// The call kind a record stands for.
fn frame_kind(kind: FrameKindCode) -> FrameKind {
    match kind {
        FrameKindCode::Frame => FrameKind::Frame,
        FrameKindCode::Continuation => FrameKind::Continuation,
        FrameKindCode::LoneTick => FrameKind::LoneTick,
    }
}

/// How a flame names its zones.
enum Labels<'a> {
    /// The live run's coarse zones.
    Live,
    /// A replay's zones, with the names of the objects its calls ran for.
    Replayed(&'a [(ObjectId, String)]),
}

impl Labels<'_> {
    /// The zone's name: "FixedUpdate priority Early", or for a replay
    /// "replayed FixedUpdate PlayerController on Player #20".
    fn name(&self, zones: &FrameZones, zone: &Zone) -> String {
        let what = match zone.kind {
            ZoneKind::Call { hook, object, .. } => format!(
                "{hook} {} on {}",
                zones.behaviour(zone).unwrap_or("?"),
                self.object(object)
            ),
            kind => kind.label(),
        };
        match self {
            Labels::Live => what,
            Labels::Replayed(_) => format!("replayed {what}"),
        }
    }

    fn object(&self, id: ObjectId) -> String {
        let name = match self {
            Labels::Replayed(objects) => objects
                .iter()
                .find(|(o, _)| *o == id)
                .map(|(_, n)| n.as_str()),
            Labels::Live => None,
        };
        match name {
            Some(n) if !n.is_empty() => format!("{n} #{}", id.0),
            _ => format!("#{}", id.0),
        }
    }

    /// The hover text: what ran (hook, object, behaviour) and how long.
    fn details(&self, zones: &FrameZones, zone: &Zone) -> Vec<String> {
        let mut lines = vec![format!(
            "{}: {}{}",
            self.name(zones, zone),
            crate::editor::words::duration_ms(zone.ms()),
            match self {
                Labels::Live => " (live)",
                Labels::Replayed(_) => " (replayed)",
            }
        )];
        match zone.kind {
            ZoneKind::Call { hook, object, .. } => {
                lines.push(format!("hook: {hook}"));
                lines.push(format!("object: {}", self.object(object)));
                lines.push(format!(
                    "behaviour: {}",
                    zones.behaviour(zone).unwrap_or("?")
                ));
            }
            ZoneKind::FixedUpdate(p) => {
                lines.push(format!(
                    "hook: FixedUpdate, every behaviour of priority {p}"
                ));
            }
            ZoneKind::Update => lines.push("hooks: Start, Update, frame routines".into()),
            ZoneKind::Flow => lines.push("hook: Flow Tick".into()),
            ZoneKind::Present => lines.push("hook: Present".into()),
            ZoneKind::Contacts => lines.push("hooks: contacts and tears".into()),
            ZoneKind::Physics => lines.push("reconcile, physics step, commit".into()),
            ZoneKind::MidStep(p) => {
                lines.push(format!(
                    "hook: MidStep, every call of priority {p} in the step (their total)"
                ));
            }
            ZoneKind::Tick(_) | ZoneKind::Fixed => {}
        }
        lines
    }
}

/// A zone's fill: phases blue, ticks grey, FixedUpdate orange, physics
/// green with its mid-step hooks light orange, contacts violet, single
/// calls by their hook.
fn colour(kind: ZoneKind) -> Color32 {
    match kind {
        ZoneKind::Update | ZoneKind::Flow | ZoneKind::Present | ZoneKind::Fixed => {
            Color32::from_rgb(70, 110, 170)
        }
        ZoneKind::Tick(_) => Color32::from_rgb(95, 95, 105),
        ZoneKind::FixedUpdate(_) => Color32::from_rgb(200, 130, 50),
        ZoneKind::Physics => Color32::from_rgb(70, 150, 90),
        ZoneKind::MidStep(_) => Color32::from_rgb(220, 165, 80),
        ZoneKind::Contacts => Color32::from_rgb(140, 90, 170),
        ZoneKind::Call { hook, .. } if hook.is_fixed() => Color32::from_rgb(220, 165, 80),
        ZoneKind::Call { .. } => Color32::from_rgb(110, 150, 210),
    }
}

/// A flame and, beside it, its slowest zones.
fn flame_with_list_ui(ui: &mut Ui, zones: &FrameZones, labels: &Labels<'_>, salt: &str) {
    ui.horizontal_top(|ui| {
        let width = (ui.available_width() - LIST_WIDTH - 8.0).max(120.0);
        ui.allocate_ui(egui::vec2(width, 0.0), |ui| {
            flame_ui(ui, zones, labels, salt)
        });
        ui.vertical(|ui| {
            ui.set_width(LIST_WIDTH);
            ui.label("Slowest zones");
            for i in slowest(zones) {
                let zone = &zones.zones()[i];
                ui.small(format!(
                    "{} · {}",
                    crate::editor::words::duration_ms(zone.ms()),
                    labels.name(zones, zone)
                ));
            }
        });
    });
    if zones.dropped() > 0 {
        ui.label(format!(
            "{} zones did not fit the buffer and are not shown",
            zones.dropped()
        ));
    }
}

/// The zones with nothing timed inside them (the work itself, not the
/// phases and ticks around it), slowest first, at most [`SLOWEST`].
fn slowest(zones: &FrameZones) -> Vec<usize> {
    let all = zones.zones();
    let mut leaves: Vec<usize> = (0..all.len())
        .filter(|&i| all.get(i + 1).is_none_or(|next| next.depth <= all[i].depth))
        .collect();
    leaves.sort_by(|&a, &b| all[b].len_ns().cmp(&all[a].len_ns()).then(a.cmp(&b)));
    leaves.truncate(SLOWEST);
    leaves
}

/// The part of a frame a flame shows, as fractions of the frame's span
/// (Tracy's zoom): the wheel (or Ctrl+wheel, or a pinch) zooms around the
/// pointer, a drag pans, a double click shows the whole frame again. Kept
/// per flame in egui's memory, so it stays while the cursor moves from
/// frame to frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlameWindow {
    /// Start of the shown part, 0 = the frame's first zone.
    pub lo: f64,
    /// End of the shown part, 1 = the frame's last end.
    pub hi: f64,
}

impl FlameWindow {
    /// The whole frame.
    pub const WHOLE: FlameWindow = FlameWindow { lo: 0.0, hi: 1.0 };
    /// The narrowest part shown, as a fraction of the frame: a 10 ms frame
    /// zooms down to 100 ns across the tab.
    const NARROWEST: f64 = 1e-5;

    /// Zoomed by `factor` (> 1 zooms in) around the fraction `at`.
    fn zoomed(self, factor: f64, at: f64) -> FlameWindow {
        let width = self.hi - self.lo;
        let new = (width / factor).clamp(FlameWindow::NARROWEST, 1.0);
        let lo = at - (at - self.lo) * new / width;
        FlameWindow { lo, hi: lo + new }.clamped()
    }

    /// Moved by `by` (a fraction of the frame), kept inside it.
    fn panned(self, by: f64) -> FlameWindow {
        FlameWindow {
            lo: self.lo + by,
            hi: self.hi + by,
        }
        .clamped()
    }

    fn clamped(self) -> FlameWindow {
        let width = (self.hi - self.lo).clamp(FlameWindow::NARROWEST, 1.0);
        let lo = self.lo.clamp(0.0, 1.0 - width);
        FlameWindow { lo, hi: lo + width }
    }
}

/// The zoom and pan of the flame `salt` in the tab drawn by `ui`.
pub fn flame_window(ctx: &egui::Context, id: egui::Id) -> FlameWindow {
    ctx.data(|d| d.get_temp(id)).unwrap_or(FlameWindow::WHOLE)
}

/// The zones as boxes, one row per depth, on an axis over the shown part of
/// the frame ([`FlameWindow`]); each box a hoverable widget named after its
/// zone.
fn flame_ui(ui: &mut Ui, zones: &FrameZones, labels: &Labels<'_>, salt: &str) {
    let all = zones.zones();
    let depth = all.iter().map(|z| z.depth).max().map_or(1, |d| d + 1);
    let height = f32::from(depth) * ROW + 16.0;
    let base = ui.scope_id().with(salt);
    let (area, response) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), height),
        Sense::click_and_drag(),
    );
    response.widget_info(|| WidgetInfo::labeled(Role::Group, true, format!("flame {salt}")));
    let window_id = base.with("window");
    let mut window = flame_window(ui.ctx(), window_id);
    if response.double_clicked() {
        window = FlameWindow::WHOLE;
    }
    let width = f64::from(area.width().max(1.0));
    if response.dragged() {
        window =
            window.panned(-f64::from(response.drag_delta().x) / width * (window.hi - window.lo));
    }
    if let Some(pointer) = response.hover_pos() {
        let (wheel, pinch) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
        let factor = (f64::from(wheel) * 0.006).exp() * f64::from(pinch);
        if factor != 1.0 {
            let at =
                window.lo + f64::from(pointer.x - area.left()) / width * (window.hi - window.lo);
            window = window.zoomed(factor, at);
            // The wheel zooms here; the tab does not scroll as well.
            ui.input_mut(|i| i.smooth_scroll_delta = egui::Vec2::ZERO);
        }
    }
    ui.data_mut(|d| d.insert_temp(window_id, window));
    let span = zones.span_ns().max(1) as f64;
    let (from_ns, to_ns) = (window.lo * span, window.hi * span);
    let scale = width / (to_ns - from_ns);
    let x_of = |ns: u64| area.left() + ((ns as f64 - from_ns) * scale) as f32;
    let painter = ui.painter_at(area);
    let font = FontId::proportional(11.0);
    for (i, zone) in all.iter().enumerate() {
        if (zone.end_ns as f64) < from_ns || (zone.start_ns as f64) > to_ns {
            continue;
        }
        // Clipped to the tab, so a zone zoomed far past its edges is a
        // box on screen, not one thousands of points wide.
        let x0 = x_of(zone.start_ns).max(area.left() - 1.0);
        let x1 = x_of(zone.end_ns).min(area.right() + 1.0).max(x0 + 1.0);
        let y0 = area.top() + f32::from(zone.depth) * ROW;
        let rect = Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y0 + ROW - 1.0));
        let name = labels.name(zones, zone);
        let response = ui.interact(rect, base.with(i), Sense::hover());
        response.widget_info(|| WidgetInfo::labeled(Role::Label, true, &name));
        let fill = if response.hovered() {
            colour(zone.kind).gamma_multiply(1.4)
        } else {
            colour(zone.kind)
        };
        painter.rect_filled(rect, 2.0, fill);
        painter.rect_stroke(
            rect,
            2.0,
            Stroke::new(1.0, ui.visuals().panel_fill),
            StrokeKind::Inside,
        );
        let galley = painter.layout_no_wrap(name.clone(), font.clone(), Color32::WHITE);
        if galley.size().x + 6.0 < rect.width() {
            painter.galley(
                egui::pos2(rect.left() + 3.0, rect.center().y - galley.size().y / 2.0),
                galley,
                Color32::WHITE,
            );
        }
        let details = labels.details(zones, zone);
        response.on_hover_ui(|ui| {
            for line in &details {
                ui.label(line);
            }
        });
    }
    let axis_y = area.bottom() - 8.0;
    let text = ui.visuals().weak_text_color();
    painter.text(
        egui::pos2(area.left(), axis_y),
        Align2::LEFT_CENTER,
        format!("{:.3} ms", from_ns / 1e6),
        font.clone(),
        text,
    );
    let hint = if window == FlameWindow::WHOLE {
        "wheel: zoom · drag: pan · double-click: whole frame"
    } else {
        "zoomed: double-click for the whole frame"
    };
    painter.text(
        egui::pos2(area.center().x, axis_y),
        Align2::CENTER_CENTER,
        hint,
        font.clone(),
        text,
    );
    painter.text(
        egui::pos2(area.right(), axis_y),
        Align2::RIGHT_CENTER,
        format!("{:.3} ms", to_ns / 1e6),
        font,
        text,
    );
}
