//! The inspector's plot buttons: each adds one field of the committed state
//! to the timeline as a "show value" watch (see the inspector's module docs
//! for which fields and why), through [`WatchCommand::Plot`], so a plotted
//! field is an ordinary watch: listed in the Watches tab, persisted with it,
//! filled from the history by the worker.

use stepframe_core::ObjectId;

use crate::editor::protocol::{Command, SelectedView, WatchCommand};
use crate::editor::shared::Commands;

/// The plot buttons' text: egui's own line-chart icon (its demo labels its
/// plot window with it), in the default `emoji-icon-font`; a glyph outside
/// the default fonts would panic the UI (the test below checks it is there).
pub(super) const PLOT_ICON: &str = "🗠";

/// A plot button for `expr`, a watch expression reading one field; `what`
/// names the field in its accessible label (`plot y`) and `text` is what it
/// shows beside the icon.
pub(super) fn plot_button_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    expr: String,
    what: &str,
    text: &str,
) {
    let shown = if text.is_empty() {
        PLOT_ICON.to_string()
    } else {
        format!("{PLOT_ICON} {text}")
    };
    let resp = ui.small_button(shown).on_hover_text("Plot on the timeline");
    resp.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Button, true, format!("plot {what}"))
    });
    if resp.clicked() {
        cmd.send(Command::Watches(WatchCommand::Plot(expr)));
    }
}

/// The watch expression of one behaviour field: `field(20, "Mover.speed")`;
/// `None` for a path a rhai string literal would have to escape.
pub(super) fn field_expr(object: ObjectId, path: &str) -> Option<String> {
    (!path.contains(['"', '\\'])).then(|| format!("field({}, \"{path}\")", object.0))
}

/// The plot buttons of the committed pose and the velocity.
pub(super) fn plot_row_ui(ui: &mut egui::Ui, cmd: &mut Commands, sel: &SelectedView) {
    let id = sel.id.0;
    ui.horizontal_wrapped(|ui| {
        ui.weak("plot");
        for field in ["x", "y", "angle"] {
            plot_button_ui(ui, cmd, format!("obj({id}).{field}"), field, field);
        }
        if sel.velocity.is_some() {
            for (field, text) in [("vx", "vx"), ("vy", "vy"), ("w", "ω")] {
                plot_button_ui(ui, cmd, format!("obj({id}).{field}"), field, text);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_plot_icon_and_the_lanes_cross_are_in_eguis_default_fonts() {
        // egui panics on a glyph no installed font has (tofu is off), so an
        // icon outside the default set would take the inspector down.
        let ctx = egui::Context::default();
        // The fonts are built by the first frame.
        let mut out = ctx.run_ui(egui::RawInput::default(), |_| {});
        out.textures_delta.clear();
        for text in [super::PLOT_ICON, crate::editor::timeline::REMOVE_ICON] {
            let has = ctx.fonts_mut(|f| f.has_glyphs(&egui::FontId::proportional(14.0), text));
            assert!(has, "{text:?} is not in egui's default fonts");
        }
    }
}
