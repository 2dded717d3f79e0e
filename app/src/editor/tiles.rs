//! The workspace's tiles as the app draws them: each pane's panel with its
//! own state, the timeline's controls in its tab bar, closable tabs that only
//! hide (the View menu brings them back where they were).

use super::app::Panels;
use super::bookmarks::bookmarks_ui;
use super::breakpoints::breakpoints_ui;
use super::clock_panel::clock_panel_ui;
use super::code_pane::code_pane_ui;
use super::hierarchy::hierarchy_ui;
use super::inspector::inspector_ui;
use super::log::log_ui;
use super::state::Session;
use super::tape::tape_ui;
use super::timeline::{timeline_controls_ui, timeline_ui};
use super::viewport::viewport_ui;
use super::watches::watches_ui;
use super::workspace::Pane;

/// The panels as the workspace's tiles draw them.
pub(super) struct TileUi<'a> {
    /// The shared facts.
    pub(super) session: &'a mut Session,
    /// Every panel's own state.
    pub(super) panels: &'a mut Panels,
    /// Tabs whose close button was clicked this frame.
    pub(super) closed: Vec<Pane>,
}

impl egui_tiles::Behavior<Pane> for TileUi<'_> {
    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        pane: &mut Pane,
    ) -> egui_tiles::UiResponse {
        let session = &mut *self.session;
        let p = &mut *self.panels;
        // egui_tiles leaves a pane's background nearly black, the fill egui
        // gives text fields, so an empty field could not be seen at all
        // (the breakpoint form's From tick): panes get the panel colour.
        ui.painter()
            .rect_filled(ui.max_rect(), 0.0, ui.visuals().panel_fill);
        egui::Frame::new()
            .inner_margin(egui::Margin::same(4))
            .show(ui, |ui| match pane {
                Pane::Viewport => viewport_ui(ui, session, &mut p.viewport),
                Pane::Hierarchy => hierarchy_ui(ui, session),
                Pane::Inspector => inspector_ui(ui, session, &mut p.edits),
                Pane::Clock => clock_panel_ui(ui, session, &p.timeline),
                Pane::Breakpoints => breakpoints_ui(ui, session, &mut p.breakpoint_form),
                Pane::Log => log_ui(ui, session),
                Pane::Bookmarks => bookmarks_ui(ui, session, &mut p.bookmarks),
                Pane::Watches => watches_ui(ui, session, &mut p.watches),
                Pane::Code => code_pane_ui(ui, session, &mut p.code),
                Pane::Input => tape_ui(ui, session, &mut p.tape),
                Pane::Timeline => timeline_ui(ui, &mut p.timeline, session),
            });
        egui_tiles::UiResponse::None
    }

    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        pane.title().into()
    }

    fn is_tab_closable(
        &self,
        _tiles: &egui_tiles::Tiles<Pane>,
        _tile_id: egui_tiles::TileId,
    ) -> bool {
        true
    }

    fn on_tab_close(
        &mut self,
        tiles: &mut egui_tiles::Tiles<Pane>,
        tile_id: egui_tiles::TileId,
    ) -> bool {
        // Hidden, not removed: the View menu brings it back in its place.
        if let Some(pane) = tiles.get_pane(&tile_id) {
            self.closed.push(*pane);
        }
        false
    }

    /// The timeline's controls sit in its tab bar, so its lanes keep the
    /// whole tile.
    fn top_bar_right_ui(
        &mut self,
        tiles: &egui_tiles::Tiles<Pane>,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        tabs: &egui_tiles::Tabs,
        _scroll_offset: &mut f32,
    ) {
        let active = tabs.active.and_then(|id| tiles.get_pane(&id));
        if active == Some(&Pane::Timeline) {
            // This ui lays out right to left from the bar's end.
            timeline_controls_ui(ui, &mut self.panels.timeline, self.session);
        }
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            all_panes_must_have_tabs: true,
            ..Default::default()
        }
    }

    fn tab_bar_height(&self, _style: &egui::Style) -> f32 {
        22.0
    }

    fn gap_width(&self, _style: &egui::Style) -> f32 {
        3.0
    }
}
