//! The Bookmarks tab: a note field and "Bookmark tick T" for the tick on
//! screen, then the open scene's bookmarks (a click puts the time cursor on
//! one's tick). The list and its sidecar file are
//! [`crate::editor::bookmarks`]'s: the tab reads them through the view and
//! asks for changes, so the timeline draws the same list.

use stepframe_core::LogLevel;

use crate::editor::shared::{Action, Commands, Panel, Reading, Shortcut};

/// The Bookmarks tab's own state: the note being typed.
#[derive(Debug, Default)]
pub struct BookmarksPanel {
    /// The note field of the "Bookmark" button.
    note: String,
}

impl BookmarksPanel {
    /// Asks for a bookmark on the tick every panel shows (the time
    /// cursor's, or live) with the note typed, and empties the Note field:
    /// the Bookmark button and its shortcut (Ctrl+B) both. With no tick
    /// shown (no scene) it only says so.
    fn add_shown(&mut self, reading: &Reading<'_>, cmd: &mut Commands) {
        match reading.shown().map(|v| v.clock.simulation_tick) {
            Some(tick) => {
                let note = std::mem::take(&mut self.note);
                cmd.act(Action::AddBookmark { tick, note });
            }
            None => cmd.notify(LogLevel::Warning, "no tick to bookmark: open a scene first"),
        }
    }
}

/// Draws the Bookmarks tab: a note field and "Bookmark tick T" for the tick on
/// screen, then the list (a click moves the time cursor there).
impl Panel for BookmarksPanel {
    /// Ctrl+B: the tick shown is bookmarked with the note typed.
    fn on_shortcut(&mut self, shortcut: Shortcut, reading: &Reading<'_>, cmd: &mut Commands) {
        if shortcut == Shortcut::Bookmark {
            self.add_shown(reading, cmd);
        }
    }

    /// Draws the Bookmarks tab.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        bookmarks_ui(ui, reading, cmd, self);
    }
}

fn bookmarks_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    state: &mut BookmarksPanel,
) {
    let tick = reading.shown().map(|v| v.clock.simulation_tick);
    let marks = reading.bookmarks();
    if let Some(why) = marks.broken() {
        ui.colored_label(ui.visuals().error_fg_color, why)
            .on_hover_text("This file is not written over: these bookmarks last this session only");
    }
    ui.horizontal(|ui| {
        let label = ui.label("Note");
        // The button first, from the right edge: it grows with the tick's
        // digits, and the note field takes what is left, so the button is
        // never cut at the tile's side.
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let text = match tick {
                Some(t) => format!("Bookmark tick {t}"),
                None => "Bookmark".to_string(),
            };
            let add = ui
                .add_enabled(tick.is_some() && marks.scene().is_some(), egui::Button::new(text))
                .on_hover_text("Mark the tick every panel shows (the time cursor's, or live), saved beside the scene (Ctrl+B)");
            if add.clicked() {
                state.add_shown(reading, cmd);
            }
            ui.add(
                egui::TextEdit::singleline(&mut state.note)
                    .hint_text("what happens here")
                    .desired_width(ui.available_width().min(240.0)),
            )
            .labelled_by(label.id);
        });
    });
    ui.separator();
    if marks.list().is_empty() {
        ui.weak("No bookmarks. Put the time cursor on a tick (click the timeline), write a note and press Bookmark.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("bookmarks_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (i, b) in marks.list().iter().enumerate() {
                ui.horizontal(|ui| {
                    let here = reading.cursor() == Some(b.tick);
                    if ui
                        .selectable_label(here, format!("tick {}", b.tick))
                        .on_hover_text("Show this tick in every panel")
                        .clicked()
                    {
                        cmd.view_tick(b.tick);
                    }
                    ui.label(&b.note);
                    if ui
                        .small_button("Remove")
                        .on_hover_text(
                            "Delete this bookmark (the file beside the scene is rewritten)",
                        )
                        .clicked()
                    {
                        cmd.act(Action::RemoveBookmark(i));
                    }
                });
            }
        });
}
