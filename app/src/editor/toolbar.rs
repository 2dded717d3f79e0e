//! The toolbar: play/pause, stepping, time settings, pacing, the status line,
//! and the scene path field with open, reload and save; under it, the red
//! banner of a dead worker with its restart button.

use std::path::PathBuf;

use egui::{Color32, RichText};
use stepframe_core::{StepStrategy, SuspendReason, Suspension, TimeSettings};

use super::app::EditorState;
use super::protocol::{Command, Pacing, WorldView};

/// Fixed rates offered; each divides 705,600,000 flicks per second, so every
/// tick length is a whole number of flicks (exact time, see `core::clock`).
pub const FIXED_RATES: [u32; 6] = [30, 50, 60, 120, 144, 240];

/// "running", or "suspended at tick T: reason".
pub fn status_text(view: &WorldView) -> String {
    match &view.suspension {
        None => "running".to_string(),
        Some(s) => suspension_text(s, Some(view)),
    }
}

/// "suspended at tick T: reason", with object names from the view.
pub fn suspension_text(s: &Suspension, view: Option<&WorldView>) -> String {
    let reason = match view {
        Some(v) => reason_text(s, v),
        None => s.reason.to_string(),
    };
    format!("suspended at tick {}: {reason}", s.tick)
}

fn reason_text(s: &Suspension, view: &WorldView) -> String {
    let name = |id| {
        view.objects
            .iter()
            .find(|o| o.id == id)
            .map(|o| format!("{} {}", o.name, o.id))
            .unwrap_or_else(|| id.to_string())
    };
    match &s.reason {
        SuspendReason::Breakpoint(hit) => {
            let place = if s.end_of_tick {
                "end of tick"
            } else {
                "before the hook"
            };
            format!(
                "breakpoint {} on {} {} ({}), {place}",
                hit.breakpoint.0,
                name(hit.object),
                hit.hook,
                hit.behaviour
            )
        }
        SuspendReason::Requested {
            object,
            hook,
            message,
        } => format!("break requested by {} {hook}: {message}", name(*object)),
        SuspendReason::Fault {
            object,
            hook,
            message,
        } => format!("fault in {} {hook}: {message}", name(*object)),
        other => other.to_string(),
    }
}

/// Draws the toolbar.
pub fn toolbar_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    let settings = state.view.as_ref().map(|v| v.settings).unwrap_or_default();
    ui.horizontal(|ui| {
        controls_ui(ui, state);
        ui.separator();
        let (text, colour) = match &state.view {
            _ if state.worker_stopped.is_some() => {
                ("worker stopped".to_string(), ui.visuals().error_fg_color)
            }
            None => ("starting".to_string(), ui.visuals().weak_text_color()),
            Some(v) if v.suspension.is_some() => (status_text(v), Color32::from_rgb(230, 160, 40)),
            Some(v) => (status_text(v), Color32::from_rgb(90, 190, 90)),
        };
        ui.label(RichText::new(text).color(colour).strong())
            .on_hover_text(
                "Session state: running, or suspended with the completed tick and the reason",
            );
    });
    ui.horizontal_wrapped(|ui| {
        settings_ui(ui, state, settings);
        ui.separator();
        scene_row_ui(ui, state);
    });
    if state.worker_stopped.is_some() {
        worker_stopped_ui(ui, state);
    }
    if let Some(error) = state.error.clone() {
        ui.horizontal(|ui| {
            ui.colored_label(ui.visuals().error_fg_color, format!("error: {error}"))
                .on_hover_text("The last failed request; the session goes on unchanged");
            if ui
                .small_button("Dismiss")
                .on_hover_text("Hide this error (it stays in the log)")
                .clicked()
            {
                state.error = None;
            }
        });
    }
}

/// Dark red, readable under white text in both themes.
const BANNER_FILL: Color32 = Color32::from_rgb(150, 25, 25);

/// The dead worker's banner: its panic message and the restart button.
fn worker_stopped_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    let message = state.worker_stopped.clone().unwrap_or_default();
    egui::Frame::new()
        .fill(BANNER_FILL)
        .inner_margin(egui::Margin::symmetric(8, 6))
        .corner_radius(4.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_wrapped(|ui| {
                ui.label(
                    RichText::new(format!("Worker thread stopped: {message}"))
                        .color(Color32::WHITE)
                        .strong(),
                )
                .on_hover_text(
                    "A bug in the worker itself ended its thread (hook panics are caught \
                     and logged instead); nothing runs until a restart",
                );
                let (enabled, hover) = match &state.recovery {
                    Some(p) => (
                        true,
                        format!(
                            "Start a new worker from the snapshot at tick {} (frame {}), \
                             paused there; breakpoints and time settings are kept",
                            p.tick(),
                            p.frame()
                        ),
                    ),
                    None => (
                        false,
                        "The worker sent no snapshot before it died".to_string(),
                    ),
                };
                if ui
                    .add_enabled(enabled, egui::Button::new("Restart from last snapshot"))
                    .on_hover_text(hover.clone())
                    .on_disabled_hover_text(hover)
                    .clicked()
                {
                    state.restart_requested = true;
                }
            });
        });
}

fn controls_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    if state.is_suspended() {
        if ui
            .button("▶ Play")
            .on_hover_text("Resume the session (Space, or F5 to continue from a breakpoint)")
            .clicked()
        {
            state.send(Command::Play);
        }
    } else if ui
        .button("⏸ Pause")
        .on_hover_text("Suspend between frames (Space)")
        .clicked()
    {
        state.send(Command::Pause);
    }
    if ui
        .button("Step tick")
        .on_hover_text("Run exactly one fixed tick, then stay suspended (F10 or .)")
        .clicked()
    {
        state.send(Command::StepTick);
    }
    if ui
        .button("Step frame")
        .on_hover_text("Run one outer frame (or the rest of the interrupted one), then stay suspended (Shift+F10)")
        .clicked()
    {
        state.send(Command::StepFrame);
    }
}

fn settings_ui(ui: &mut egui::Ui, state: &mut EditorState, settings: TimeSettings) {
    let mut scale = settings.time_scale;
    let label = ui.label("Time scale");
    egui::ComboBox::from_id_salt("time_scale")
        .selected_text(format!("{scale}×"))
        .show_ui(ui, |ui| {
            for s in TimeSettings::TIME_SCALES {
                ui.selectable_value(&mut scale, s, format!("{s}×"));
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Multiplies the frame delta; 0 runs no fixed tick at all");
    if scale != settings.time_scale {
        state.send(Command::SetTimeScale(scale));
    }

    let mut hz = settings.fixed_hz;
    let label = ui.label("Fixed rate");
    egui::ComboBox::from_id_salt("fixed_rate")
        .selected_text(format!("{hz} Hz"))
        .show_ui(ui, |ui| {
            for r in FIXED_RATES {
                ui.selectable_value(&mut hz, r, format!("{r} Hz"));
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Fixed ticks per second (applies at the next frame boundary)");
    if hz != settings.fixed_hz {
        state.send(Command::SetFixedRate(hz));
    }

    let mut strategy = settings.strategy;
    let label = ui.label("Strategy");
    egui::ComboBox::from_id_salt("strategy")
        .selected_text(strategy.name())
        .show_ui(ui, |ui| {
            for s in StepStrategy::ALL {
                ui.selectable_value(&mut strategy, s, s.name());
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Accumulator (Fiedler/Unity) or step counting (s&box): same tick sequence");
    if strategy != settings.strategy {
        state.send(Command::SetStrategy(strategy));
    }

    let mut max_steps = settings.max_steps;
    let label = ui
        .label("Max steps")
        .on_hover_text("Most ticks one frame may run; the backlog beyond is dropped");
    ui.add(egui::DragValue::new(&mut max_steps).range(1..=16))
        .labelled_by(label.id)
        .on_hover_text("Most ticks one frame may run; the backlog beyond is dropped and counted in dropped_time");
    if max_steps != settings.max_steps {
        state.send(Command::SetMaxSteps(max_steps));
    }

    if state.driven {
        ui.label("Pacing: driven")
            .on_hover_text("Test driver: one worker frame per UI frame with a fixed dt");
    } else {
        let mut pacing = state.persisted.pacing;
        let label = ui.label("Pacing");
        egui::ComboBox::from_id_salt("pacing")
            .selected_text(pacing.label())
            .show_ui(ui, |ui| {
                for p in Pacing::CHOICES {
                    ui.selectable_value(&mut pacing, p, p.label());
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text(
                "The worker's own display rate, independent of how often this window repaints",
            );
        if pacing != state.persisted.pacing {
            state.persisted.pacing = pacing;
            state.send(Command::SetPacing(pacing));
        }
    }
}

fn scene_row_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    let label = ui.label("Scene path");
    let field = ui
        .add(
            egui::TextEdit::singleline(&mut state.path_field)
                .desired_width(360.0)
                .hint_text("assets/scenes/demo.ron"),
        )
        .labelled_by(label.id)
        .on_hover_text(
            "A scene file (RON). Enter or Open loads it as a preview at tick 0 (Ctrl+O)",
        );
    if state.focus_path_field {
        field.request_focus();
        state.focus_path_field = false;
    }
    let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    if ui
        .button("Open")
        .on_hover_text(
            "Load the scene in the path field, shown paused at tick 0 (Ctrl+O focuses the field)",
        )
        .clicked()
        || entered
    {
        let p = PathBuf::from(state.path_field.trim());
        state.send(Command::Load(p));
    }
    if ui
        .button("Reload")
        .on_hover_text("Reload the current scene from disk, keeping the time settings; a broken file changes nothing (Ctrl+R)")
        .clicked()
    {
        state.send(Command::Reload);
    }
    if ui
        .button("Save")
        .on_hover_text("Write the current scene, with the current time settings, to the path in the field (Ctrl+S)")
        .clicked()
    {
        let p = PathBuf::from(state.path_field.trim());
        state.send(Command::Save(p));
    }
}
