//! The workspace's tiles as the app draws them: each pane's panel with its
//! own state, the timeline's controls in its tab bar, closable tabs that only
//! hide (the View menu brings them back where they were).

use super::panels::Panels;
use super::shared::{Commands, Reading};
use super::workspace::Pane;

/// The panels as the workspace's tiles draw them.
pub(super) struct TileUi<'a> {
    /// What every panel reads.
    pub(super) reading: Reading<'a>,
    /// How every panel asks.
    pub(super) cmd: &'a mut Commands,
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
        let (reading, cmd) = (&self.reading, &mut *self.cmd);
        let p = &mut *self.panels;
        // egui_tiles leaves a pane's background nearly black, the fill egui
        // gives text fields, so an empty field could not be seen at all
        // (the breakpoint form's From tick): panes get the panel colour.
        ui.painter()
            .rect_filled(ui.max_rect(), 0.0, ui.visuals().panel_fill);
        egui::Frame::new()
            .inner_margin(egui::Margin::same(4))
            .show(ui, |ui| p.panel_mut(*pane).ui(ui, reading, cmd));
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
            self.panels
                .timeline
                .controls_ui(ui, &self.reading, self.cmd);
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
