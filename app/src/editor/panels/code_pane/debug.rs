//! The code pane's debugging side: the breakpoint form (a line's condition
//! and log message, sent to the session's script host as
//! [`ScriptCommand`]s) and the hit panel (where the session stopped, the
//! locals and call stack at that line, and the object's committed pose).

use egui::{Color32, RichText};
use stepframe_plugins::script::LineBreakpoint;

use super::{CodePaneState, RED, ScriptEntry};
use crate::editor::protocol::{Command, ScriptCommand, ScriptsView};
use crate::editor::shared::{Commands, Reading};

/// Width of the form's two fields: a condition such as
/// `x > 0.5 && tick > 100` with room to spare.
const FORM_FIELD_WIDTH: f32 = 240.0;

pub(super) fn open_breakpoint_form(
    code: &mut CodePaneState,
    lines: &[LineBreakpoint],
    line: usize,
) {
    let existing = lines.iter().find(|b| b.line == line);
    code.form_line = Some(line);
    code.condition_field = existing
        .and_then(|b| b.condition.clone())
        .unwrap_or_default();
    code.message_field = existing
        .and_then(|b| b.log_message.clone())
        .unwrap_or_default();
}

/// The script's breakpoints as one row of line buttons (a click opens the
/// form for that line), there with or without breakpoints and scrolled
/// sideways rather than wrapped, so toggling one never moves the code.
pub(super) fn breakpoint_row_ui(
    ui: &mut egui::Ui,
    code: &mut CodePaneState,
    scripts: &ScriptsView,
    entry: &ScriptEntry,
) {
    let lines = scripts.lines(&entry.key);
    let mut open = None;
    ui.horizontal(|ui| {
        ui.set_min_height(ui.spacing().interact_size.y);
        ui.label("Breakpoints:");
        egui::ScrollArea::horizontal()
            .id_salt("code_bp_row")
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    if lines.is_empty() {
                        ui.weak("none (click a line number)");
                    }
                    for b in lines {
                        let mut text = format!("line {}", b.line);
                        if b.condition.is_some() {
                            text.push_str(" if…");
                        }
                        if b.is_logpoint() {
                            text.push_str(" (log)");
                        }
                        if ui
                            .selectable_label(code.form_line == Some(b.line), text)
                            .on_hover_text("Edit this breakpoint's condition or log message")
                            .clicked()
                        {
                            open = Some(b.line);
                        }
                    }
                });
            });
    });
    if let Some(line) = open {
        open_breakpoint_form(code, lines, line);
    }
}

/// The small form for one line's condition and log message, while open
/// (drawn in a popup frame over the code by the caller).
pub(super) fn breakpoint_form_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    code: &mut CodePaneState,
    scripts: &ScriptsView,
    entry: &ScriptEntry,
) {
    let Some(line) = code.form_line else {
        return;
    };
    {
        ui.label(format!("Breakpoint on line {line}"));
        egui::Grid::new("code_bp_form").num_columns(2).show(ui, |ui| {
            let label = ui.label("Condition");
            ui.add(egui::TextEdit::singleline(&mut code.condition_field).desired_width(FORM_FIELD_WIDTH).hint_text("x > 0.5 && tick > 100"))
                .labelled_by(label.id)
                .on_hover_text("A rhai expression over the visible variables and tick, frame, sim_time...; empty: always stop");
            ui.end_row();
            let label = ui.label("Log message");
            ui.add(egui::TextEdit::singleline(&mut code.message_field).desired_width(FORM_FIELD_WIDTH).hint_text("x = {x}"))
                .labelled_by(label.id)
                .on_hover_text("A logpoint template ({expr} parts are evaluated): logs instead of stopping; empty: a breakpoint that stops");
            ui.end_row();
        });
        ui.horizontal(|ui| {
            if ui
                .button("Apply")
                .on_hover_text(
                    "Set this line's condition and log message (creates the breakpoint if needed)",
                )
                .clicked()
            {
                let condition = code.condition_field.trim().to_string();
                let message = code.message_field.trim().to_string();
                cmd.send(Command::Scripts(ScriptCommand::Edit {
                    key: entry.key.clone(),
                    line,
                    condition: (!condition.is_empty()).then_some(condition),
                    log_message: (!message.is_empty()).then_some(message),
                }));
            }
            if ui
                .button("Remove")
                .on_hover_text("Remove the breakpoint on this line")
                .clicked()
            {
                cmd.send(Command::Scripts(ScriptCommand::Remove {
                    key: entry.key.clone(),
                    line,
                }));
                code.form_line = None;
            }
            if ui
                .button("Close")
                .on_hover_text("Close this form")
                .clicked()
            {
                code.form_line = None;
            }
        });
        // The worker's answer to the last Apply of this line, if it failed.
        if let Some((_, _, e)) = scripts
            .rejected
            .as_ref()
            .filter(|(key, at, _)| *key == entry.key && *at == line)
        {
            ui.colored_label(RED, e);
        }
    }
}

/// Where the session stopped: line, hook, object, the call stack, the locals
/// at that line, and the object's committed pose of the completed tick.
pub(super) fn hit_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    code: &mut CodePaneState,
) {
    let Some(hit) = code.hit.clone() else {
        return;
    };
    let function = hit.stack.first().cloned().unwrap_or_default();
    let object = reading.object_name(hit.object);
    ui.colored_label(
        Color32::from_rgb(240, 210, 90),
        format!(
            "stopped at line {}:{} in {function} ({object}, {:?}, tick {})",
            hit.line, hit.column, hit.hook, hit.tick
        ),
    );
    ui.label(if hit.rerun {
        "The hook was aborted at this line and runs again on Resume; its effects happen once, after the pause."
    } else {
        "The tick has finished (end-of-tick suspension); the locals are those of the moment the line was reached."
    });
    ui.columns(2, |cols| {
        cols[0].strong("Locals");
        for (name, value) in &hit.locals {
            cols[0].label(RichText::new(format!("{name} = {value}")).monospace());
        }
        cols[1].strong("Call stack");
        for frame in &hit.stack {
            cols[1].label(RichText::new(frame).monospace());
        }
        cols[1].strong("Committed state");
        let committed = reading
            .live()
            .and_then(|v| v.world.objects.iter().find(|o| o.id == hit.object))
            .map(|o| o.committed);
        match committed {
            Some(p) => {
                cols[1].label(
                    RichText::new(format!(
                        "pose x {:.4} y {:.4} angle {:.4}",
                        p.x, p.y, p.angle
                    ))
                    .monospace(),
                );
            }
            None => {
                cols[1].label("the object is gone");
            }
        }
        if cols[1]
            .button("Inspect object")
            .on_hover_text("Select the object: the inspector shows its committed pose, velocity and behaviours")
            .clicked()
        {
            cmd.select(Some(hit.object));
        }
    });
}
