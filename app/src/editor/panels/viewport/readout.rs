//! The time readout in the viewport's top-left corner: where the live
//! session is (tick and outer frame) and whether it runs, is paused or is
//! stopped by a breakpoint, and which tick the panels show while the time
//! cursor is in the past: `Paused · tick 601 · frame 602 · viewing tick 218`.
//! The status line says the same at the top of the window; the readout puts
//! it where the eyes are while watching the game. Its state is capitalised
//! (`Running`, `Paused`, `Suspended at breakpoint`, `Host stopped` or
//! `Stuck in a hook` with the last tick the host showed): a plate of its own, not a line to be
//! read as the status line's `running`.
//!
//! It sits inside the scene's canvas, under the viewport's own controls row
//! (so it covers none of them), on a small dark, semi-transparent plate that
//! lets the scene show through, and it senses no click, so a click or drag
//! there still reaches the scene.

use egui::{Align, Color32, Layout, Margin, Rect, RichText, UiBuilder};
use stepframe_core::{SuspendReason, Suspension};

use crate::editor::shared::Reading;

/// The plate behind the text: black at 63 % (160 of 255), enough for light
/// text over the bright bodies and thin enough for the grid to show.
const PLATE: Color32 = Color32::from_black_alpha(160);

/// Points between the canvas's corner and the plate.
const INSET: f32 = 6.0;

/// The readout's text (module docs); `None` before the first view.
pub(super) fn readout_text(reading: &Reading<'_>) -> Option<String> {
    let live = reading.live()?;
    // A dead host's last view is where it stood, not a session that runs.
    let state = if reading.worker_stopped().is_some() {
        "Host stopped"
    } else if reading.worker_stuck().is_some() {
        // Its last view is from before the call that has not returned.
        "Stuck in a hook"
    } else {
        play_state(live.world.suspension.as_ref())
    };
    let mut text = format!(
        "{} · tick {} · frame {}",
        state, live.world.clock.simulation_tick, live.world.clock.frame_index
    );
    if let Some(tick) = reading.cursor() {
        text.push_str(&format!(" · viewing tick {tick}"));
    }
    Some(text)
}

/// Running, paused (Pause, a step, a reached tick) or suspended, and by what.
fn play_state(suspension: Option<&Suspension>) -> &'static str {
    let Some(s) = suspension else {
        return "Running";
    };
    match s.reason {
        SuspendReason::Breakpoint(_) | SuspendReason::Clock(_) => "Suspended at breakpoint",
        SuspendReason::Watch(_) => "Suspended by a watch",
        SuspendReason::Requested { .. } => "Suspended: break requested",
        SuspendReason::Fault { .. } => "Suspended at a fault",
        SuspendReason::StepTick
        | SuspendReason::StepFrame
        | SuspendReason::Pause
        | SuspendReason::ReachedTick(_) => "Paused",
    }
}

/// Draws the readout in the top-left corner of `canvas`.
pub(super) fn readout_ui(ui: &mut egui::Ui, canvas: Rect, reading: &Reading<'_>) {
    let Some(text) = readout_text(reading) else {
        return;
    };
    let mut corner = ui.new_child(
        UiBuilder::new()
            .id_salt("viewport_readout")
            .max_rect(canvas.shrink(INSET))
            .layout(Layout::top_down(Align::Min)),
    );
    egui::Frame::new()
        .fill(PLATE)
        .corner_radius(3.0)
        .inner_margin(Margin::symmetric(6, 2))
        .show(&mut corner, |ui| {
            ui.add(
                egui::Label::new(
                    RichText::new(text)
                        .monospace()
                        .size(11.0)
                        .color(Color32::from_gray(225)),
                )
                .selectable(false)
                .wrap_mode(egui::TextWrapMode::Extend),
            );
        });
}
