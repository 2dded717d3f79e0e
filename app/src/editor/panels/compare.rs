//! "Compare with…": the live session is run A, a trace file (or the run so
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
//!   f32 ULPs;
//! - the viewport outlines B's bodies that differ from A's over A's, in
//!   magenta.
//!
//! A rewind drops the measurements after its tick (that future is being run
//! again); a new physics world (Open, Reload) drops them all and keeps B, so
//! a reload after a code change compares the new run with the old one.

use egui::{Color32, RichText};

use crate::compare::poses::{FIELD_NAMES, Fields};
use crate::compare::tick::ulps_between;
use crate::editor::protocol::{Command, WorldView};
use crate::editor::shared::{Commands, View};

use crate::editor::shared::B_COLOUR;
/// The colour of a differing value.
const DIFFERS: Color32 = Color32::from_rgb(255, 110, 110);

/// The traced fields of the selected object in a view (A's side).
fn a_fields(view: &WorldView) -> Option<(u64, Fields)> {
    let sel = view.selected.as_ref()?;
    sel.body.as_ref()?;
    let (p, v) = (sel.committed, sel.velocity?);
    Some((
        sel.id.0,
        [p.x, p.y, p.angle, v.linear.x, v.linear.y, v.angular],
    ))
}

/// The inspector's A/B section for the selected object at the tick shown.
pub fn compare_section_ui(ui: &mut egui::Ui, shown: &View<'_>) {
    let (Some(c), Some(view)) = (shown.run_b(), shown.shown()) else {
        return;
    };
    let tick = view.clock.simulation_tick;
    let Some((id, a)) = a_fields(view) else {
        return;
    };
    ui.separator();
    ui.label(RichText::new(format!("A / B at tick {tick}")).strong())
        .on_hover_text(format!("A: the live session; B: {}", c.about.name));
    let Some(b) = c.b_fields(tick, id) else {
        ui.weak(format!("B has no record of this object at tick {tick}"));
        return;
    };
    egui::Grid::new("compare_ab")
        .num_columns(4)
        .spacing([10.0, 2.0])
        .show(ui, |ui| {
            ui.weak("field");
            ui.weak("A");
            ui.label(RichText::new("B").color(B_COLOUR));
            ui.weak("ulps");
            ui.end_row();
            for (i, name) in FIELD_NAMES.iter().enumerate() {
                let differs = a[i].to_bits() != b[i].to_bits();
                let colour = |t: String| {
                    let r = RichText::new(t).monospace();
                    if differs { r.color(DIFFERS) } else { r }
                };
                ui.label(colour(name.to_string()));
                ui.label(colour(format!("{:?}", a[i])));
                ui.label(colour(format!("{:?}", b[i])));
                // Both sides are f32s as the runs hold them: their distance
                // is taken on the bits (a trip through JSON numbers, as
                // trace-diff reads text, finds no f32 for most values).
                ui.label(colour(ulps_between(a[i], b[i]).to_string()));
                ui.end_row();
            }
        });
}

/// The File menu's comparison entries.
pub fn compare_menu_ui(
    ui: &mut egui::Ui,
    view: &View<'_>,
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
        let dir = view
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
        cmd.send(Command::CompareWithRun);
        ui.close();
    }
    if view.run_b().is_some() && ui.button("Stop comparing").clicked() {
        cmd.send(Command::StopCompare);
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
            cmd.send(Command::CompareWith(crate::editor::protocol::absolute(
                &path,
            )));
        }
    }
}
