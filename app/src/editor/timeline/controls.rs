//! The timeline's controls, in its tab bar: x axis, fit all, follow live,
//! the budget line, the selection, export (a path field and a button per
//! format), resume from here.

use crate::editor::protocol::BranchCommand;
use egui::containers::menu::{MenuButton, MenuConfig};
use stepframe_core::LogLevel;

use super::export::{self, ExportFormat};
use super::{LIVE_WINDOW_FRAMES, TimelineState, XAxis};
use crate::editor::protocol::Command;
use crate::editor::shared::{Action, Commands, Reading};

/// The timeline's controls, drawn in its tab bar (so the lanes keep every
/// point of the tile's height): x axis, fit all, follow live, budget, the
/// selection, export, resume from here.
pub fn timeline_controls_ui(
    ui: &mut egui::Ui,
    state: &mut TimelineState,
    reading: &Reading<'_>,
    cmd: &mut Commands,
) {
    state
        .export
        .propose(reading.live().and_then(|v| v.scene_path.as_deref()));
    // Right to left: the last control first. The controls that come and go
    // with the session (fork, resume) keep their place as disabled buttons,
    // and the ones whose width changes on their own (the frame count, the
    // selection) come last, so nothing moves under the pointer.
    fork_controls_ui(ui, reading, cmd);
    let resume = ui
        .add_enabled(
            reading.cursor().is_some(),
            egui::Button::new("Resume from here"),
        )
        .on_hover_text("Rewind the live session to the viewed tick; Play continues from it (Enter)")
        .on_disabled_hover_text("Click a past frame in a lane first: this resumes from it");
    if resume.clicked() {
        cmd.act(Action::ResumeFromCursor);
    }
    // Clicking the path fields must not close the menu: only a click outside.
    let config = MenuConfig::new().close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
    MenuButton::new("Export…")
        .config(config)
        .ui(ui, |ui| export_ui(ui, state, reading, cmd))
        .0
        .on_hover_text(
            "Write the selection (Shift+drag), or the visible range, as a Chrome trace or CSV",
        );
    axis_ui(ui, state);
    if ui
        .button("Fit all")
        .on_hover_text("Show every frame kept and fit every lane's y axis to its data")
        .clicked()
    {
        state.follow_live = false;
        state.range = None;
        for lane in &mut state.lanes {
            lane.y_range = None;
        }
    }
    ui.toggle_value(&mut state.follow_live, "Follow live")
        .on_hover_text(format!(
            "Keep the newest {LIVE_WINDOW_FRAMES} frames in view (dragging or zooming time turns this off)"
        ));
    ui.add(
        egui::DragValue::new(&mut state.budget_hz)
            .range(1.0..=1000.0)
            .speed(1.0)
            .prefix("budget ")
            .suffix(" Hz"),
    )
    .on_hover_text("Frame budget line of the dt lane: 60 Hz draws it at 16.67 ms");
    ui.weak(format!("{} frames", reading.frames().records().len()));
    if let Some((a, b)) = state.selection {
        if ui
            .small_button("Clear")
            .on_hover_text("Clear the selection")
            .clicked()
        {
            state.selection = None;
        }
        ui.label(format!("selected {}", range_text(state.axis, a, b)));
    }
}

/// The x axis: frames, ticks or seconds (a new axis drops the range and the
/// selection, which are in the old one's units).
fn axis_ui(ui: &mut egui::Ui, state: &mut TimelineState) {
    let before = state.axis;
    egui::ComboBox::from_id_salt("timeline_axis")
        .selected_text(format!("x: {}", state.axis.label()))
        .show_ui(ui, |ui| {
            for axis in XAxis::ALL {
                ui.selectable_value(&mut state.axis, axis, axis.label());
            }
        })
        .response
        .on_hover_text(
            "The x axis: frames (frame_index), ticks (simulation_tick) or seconds (frame_time)",
        );
    if state.axis != before {
        state.range = None;
        state.selection = None;
    }
}

/// "frames 120–720", "ticks 5–9", "seconds 1.20–3.40".
fn range_text(axis: XAxis, a: f64, b: f64) -> String {
    match axis {
        XAxis::FrameTime => format!("{} {a:.2}–{b:.2}", axis.label()),
        _ => format!("{} {}–{}", axis.label(), a.round(), b.round()),
    }
}

/// One path field and button per format.
fn export_ui(
    ui: &mut egui::Ui,
    state: &mut TimelineState,
    reading: &Reading<'_>,
    cmd: &mut Commands,
) {
    let (lo, hi) = state
        .selection
        .or(state.range)
        .unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let what = match state.selection {
        Some((a, b)) => format!("the selection ({})", range_text(state.axis, a, b)),
        None => "the visible range".to_string(),
    };
    ui.label(format!("Writes {what}."));
    for format in ExportFormat::ALL {
        ui.horizontal(|ui| {
            let label = ui.label(format.label());
            ui.add(egui::TextEdit::singleline(state.export.path_mut(format)).desired_width(320.0))
                .labelled_by(label.id)
                .on_hover_text(format!(
                    "The file to write; it ends in .{}",
                    format.extension()
                ));
            let path = export::export_path(&state.export.paths[format as usize], format);
            let confirm = state.export.confirm_overwrite.as_ref() == Some(&path);
            let text = if confirm {
                format!("Replace {}", format.extension())
            } else {
                format!("Export {}", format.extension())
            };
            if !ui.button(text).clicked() {
                return;
            }
            if path.exists() && !confirm {
                state.export.confirm_overwrite = Some(path.clone());
                cmd.notify(
                    LogLevel::Warning,
                    format!("{} exists: click Replace to overwrite it", path.display()),
                );
                return;
            }
            state.export.confirm_overwrite = None;
            let axis = state.axis;
            let frames = reading.frames();
            let records = frames
                .records()
                .iter()
                .filter(move |r| (lo..=hi).contains(&axis.of(r)));
            match export::write(records, frames.zones(), &path, format) {
                Ok(n) => cmd.notify(
                    LogLevel::Info,
                    format!("exported {n} frames ({what}) to {}", path.display()),
                ),
                Err(e) => cmd.notify(
                    LogLevel::Error,
                    format!("export to {} failed: {e}", path.display()),
                ),
            }
        });
    }
}

/// What-if forks: "Fork here" while suspended (at the cursor's tick, or the
/// live one), "Adopt B" and "Discard B" while a branch runs.
fn fork_controls_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    if let Some(at) = reading.fork() {
        if ui
            .button("Discard B")
            .on_hover_text("Drop branch B; the live session goes on as it was")
            .clicked()
        {
            cmd.send(Command::BranchB(BranchCommand::Discard));
        }
        if ui
            .button("Adopt B")
            .on_hover_text(
                "Branch B becomes the live session (paused; its rewind history starts here)",
            )
            .clicked()
        {
            cmd.send(Command::BranchB(BranchCommand::Adopt));
        }
        ui.label(
            egui::RichText::new(format!("B forked at tick {at}"))
                .color(crate::editor::shared::B_COLOUR),
        );
        return;
    }
    let at = fork_tick(reading);
    // Always shown (disabled while nothing is suspended or selected), so the
    // controls to its left do not shift when the session stops.
    let button = ui.add_enabled(at.is_some(), egui::Button::new("Fork here"));
    let button = match at {
        Some(at) => button.on_hover_text(format!(
            "Branch B from the end of tick {at}: change an input or a body in B, then Play \
             runs the live session and B side by side, with the divergence lanes showing \
             where they part (Ctrl+Shift+F)"
        )),
        None => button.on_disabled_hover_text(
            "Suspend (breakpoint, Pause) or click a past frame first (Ctrl+Shift+F)",
        ),
    };
    if let (Some(at), true) = (at, button.clicked()) {
        cmd.send(Command::BranchB(BranchCommand::ForkHere(at)));
    }
}

/// The tick "Fork here" branches from: the viewed tick, else the live one
/// while suspended. `None` while the session runs: a branch starts from a
/// tick that holds still, so there is nothing to fork from.
fn fork_tick(reading: &Reading<'_>) -> Option<u64> {
    reading.cursor().or_else(|| {
        let live = reading.live()?;
        live.world
            .suspension
            .as_ref()
            .map(|_| live.world.clock.simulation_tick)
    })
}

/// Ctrl+Shift+F: what the Fork here button does, where the button would be
/// shown; where it would not, nothing but a notice saying why, so a key
/// pressed at the wrong moment is never silently lost.
pub(super) fn fork_here_key(reading: &Reading<'_>, cmd: &mut Commands) {
    if let Some(at) = reading.fork() {
        cmd.notify(
            LogLevel::Warning,
            format!(
                "Ctrl+Shift+F: branch B already runs (forked at tick {at}); Adopt B or Discard B first"
            ),
        );
        return;
    }
    match fork_tick(reading) {
        Some(at) => cmd.send(Command::BranchB(BranchCommand::ForkHere(at))),
        None => cmd.notify(
            LogLevel::Warning,
            "Ctrl+Shift+F: nothing to fork while the session runs; pause it, stop at a \
             breakpoint or view a past tick, then Fork here",
        ),
    }
}
