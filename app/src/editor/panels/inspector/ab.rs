//! The inspector's A/B section: while a run B is compared with the live
//! session (run A), the selected object's six traced fields of both at the
//! tick shown, side by side, the differing ones in red with their distance
//! in f32 ULPs. It is the inspector's own section (the comparison itself,
//! its menu items and dialog, is `panels::compare`'s): it reads run B from
//! the view, as every panel does.

use egui::{Color32, RichText};

use crate::compare::poses::{FIELD_NAMES, TracedFields};
use crate::compare::tick::ulps_between;
use crate::editor::protocol::WorldView;
use crate::editor::shared::{B_COLOUR, Reading};

/// The colour of a differing value.
const DIFFERS: Color32 = Color32::from_rgb(255, 110, 110);

/// The traced fields of the selected object in a view (A's side).
fn a_fields(view: &WorldView) -> Option<(u64, TracedFields)> {
    let sel = view.selected.as_ref()?;
    sel.body.as_ref()?;
    let (p, v) = (sel.committed, sel.velocity?);
    Some((
        sel.id.0,
        [p.x, p.y, p.angle, v.linear.x, v.linear.y, v.angular],
    ))
}

/// The inspector's A/B section for the selected object at the tick shown.
pub(super) fn ab_section_ui(ui: &mut egui::Ui, shown: &Reading<'_>) {
    let (Some(c), Some(view)) = (shown.run_b(), shown.shown()) else {
        return;
    };
    let tick = view.clock.simulation_tick;
    let Some((id, a)) = a_fields(view) else {
        return;
    };
    ui.separator();
    ui.label(RichText::new(format!("A / B at tick {tick}")).strong())
        .on_hover_text(format!(
            "A: the live session; B: {}",
            crate::editor::words::b_name(&c.about.name)
        ));
    let Some(b) = c.b_fields(id) else {
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
