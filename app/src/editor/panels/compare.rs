//! "Compare with…" (the File menu's comparison items and the trace dialog;
//! the menu bar lays them out): the live session is run A, a trace file (or the run so
//! far, kept) is run B, and every tick A completes is measured against B's
//! record of that tick (the worker does it, [`crate::editor::worker`]; the numbers are
//! [`crate::compare::poses`]). The worker says what B is and where A and
//! B first part (the view's `run_b`); the UI keeps B's records and the
//! measured ticks as they arrive (`shared::RunBStreams`):
//!
//! - the timeline draws two divergence lanes (objects that differ, largest
//!   distance) and a marker at the first tick that differs; a click on the
//!   marker puts the time cursor on that very tick;
//! - the inspector shows the selected object's six traced fields for A and
//!   for B side by side, the differing ones in red with their distance in
//!   f32 ULPs (its own section, `inspector::ab`);
//! - the viewport outlines B's bodies that differ from A's over A's, in
//!   magenta.
//!
//! A rewind drops the measurements after its tick (that future is being run
//! again); a new physics world (Open, Reload) drops them all and keeps B, so
//! a reload after a code change compares the new run with the old one.

use crate::editor::protocol::BranchCommand;

use crate::editor::protocol::Command;
use crate::editor::shared::{Commands, Reading};

/// The File menu's comparison entries.
pub fn compare_menu_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    dialog: &mut Option<String>,
) {
    if ui
        .button("Compare with trace…")
        .on_hover_text(
            "Measure the live session against a trace (stepframe play --trace) at every tick: \
             divergence lanes, a marker at the first difference, A and B in the inspector",
        )
        .clicked()
    {
        let dir = reading
            .live()
            .and_then(|v| {
                v.scene_path
                    .as_ref()?
                    .parent()
                    .map(|p| p.display().to_string())
            })
            .unwrap_or_default();
        *dialog = Some(if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}{}", std::path::MAIN_SEPARATOR)
        });
        ui.close();
    }
    if ui
        .button("Compare with this run")
        .on_hover_text(
            "Keep the run so far (as far back as rewind reaches) as B: rewind, change an input \
             or a value, and see where the new branch parts from it",
        )
        .clicked()
    {
        cmd.send(Command::BranchB(BranchCommand::CompareWithRun));
        ui.close();
    }
    if reading.run_b().is_some() && ui.button("Stop comparing").clicked() {
        cmd.send(Command::BranchB(BranchCommand::Discard));
        ui.close();
    }
}

/// The "Compare with trace" dialog, while open.
pub fn compare_dialog_ui(ctx: &egui::Context, dialog: &mut Option<String>, cmd: &mut Commands) {
    let Some(field) = dialog.as_mut() else {
        return;
    };
    let done = crate::editor::files::path_modal(
        ctx,
        field,
        crate::editor::files::PathModal {
            id: "compare_with_trace",
            heading: "Compare with a trace",
            explanation: "A JSON Lines trace, as stepframe play --trace writes it.",
            field_label: "Trace file",
            action: "Compare",
        },
    );
    if let Some(choice) = done {
        *dialog = None;
        if let Some(path) = choice.filter(|p| !p.as_os_str().is_empty()) {
            cmd.send(Command::BranchB(BranchCommand::CompareWith(
                crate::editor::shared::absolute(&path),
            )));
        }
    }
}
