//! The docked workspace: every panel is a tile (egui_tiles, Rerun's tiling
//! crate) the user can resize, drag into another place or next to another
//! tab, close and reopen from the View menu. The arrangement persists with
//! eframe's storage; "Reset layout" brings back the default one. A stored
//! layout that does not read (or lacks a pane) is reported with its line and
//! column and kept: the session shows the default layout, and the stored text
//! is not written over until the user picks Reset layout.
//!
//! The default layout, chosen so that at 1280×800 (the first window) and at
//! 1920×1080 the viewport is the largest tile and the timeline runs along the
//! bottom with at least a third of the window's height:
//!
//! ```text
//! ┌────────────┬────────────────────────────┬──────────────────┐
//! │ Hierarchy  │                            │ Inspector        │
//! │ (0.14)     │ Viewport (0.6 of width)    ├──────────────────┤
//! │            │                            │ Clock, Breakpoints, Log │
//! ├────────────┴────────────────────────────┴──────────────────┤
//! │ Timeline (0.36 of the height under the toolbar)             │
//! └────────────────────────────────────────────────────────────┘
//! ```
//!
//! The Flame tab is a tab beside the Timeline (the timeline is in front).
//! A layout stored before a pane existed gets it there, as a tab behind
//! the Timeline, instead of being refused.
//!
//! The code pane has a tile of its own right of the viewport, hidden until
//! opened (View menu, the toolbar's Code button, or a script breakpoint):
//! opening it narrows the viewport and never pushes another panel's
//! controls off the window. A closed panel keeps its place and comes back
//! there.

use egui_tiles::{Container, Tile, TileId, Tiles, Tree};
use serde::{Deserialize, Serialize};

/// A panel of the workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pane {
    /// The scene.
    Viewport,
    /// The object tree.
    Hierarchy,
    /// The selected object.
    Inspector,
    /// The clock fields.
    Clock,
    /// Hook breakpoints and their hits.
    Breakpoints,
    /// Log lines.
    Log,
    /// Ticks marked with a note, kept beside the scene.
    Bookmarks,
    /// Expressions over committed state, asked after every tick.
    Watches,
    /// The input tape: tick-stamped edges, edited while suspended.
    Input,
    /// Scripts, their line breakpoints and hits.
    Code,
    /// The timeline lanes.
    Timeline,
    /// A frame's zones on a time axis (a tab beside the timeline).
    Flame,
}

impl Pane {
    /// Every pane.
    pub const ALL: [Pane; 12] = [
        Pane::Viewport,
        Pane::Hierarchy,
        Pane::Inspector,
        Pane::Clock,
        Pane::Breakpoints,
        Pane::Log,
        Pane::Bookmarks,
        Pane::Watches,
        Pane::Input,
        Pane::Code,
        Pane::Timeline,
        Pane::Flame,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Viewport => "Viewport",
            Pane::Hierarchy => "Hierarchy",
            Pane::Inspector => "Inspector",
            Pane::Clock => "Clock",
            Pane::Breakpoints => "Breakpoints",
            Pane::Log => "Log",
            Pane::Bookmarks => "Bookmarks",
            Pane::Watches => "Watches",
            Pane::Input => "Input",
            Pane::Code => "Code",
            Pane::Timeline => "Timeline",
            Pane::Flame => "Flame",
        }
    }
}

/// Storage key of the layout.
pub const LAYOUT_KEY: &str = "stepframe-layout";

/// Share of the width the hierarchy gets in the default layout.
const LEFT_SHARE: f32 = 0.14;
/// Share of the width the viewport gets in the default layout.
const VIEWPORT_SHARE: f32 = 0.6;
/// Share of the height under the toolbar the timeline gets: a third of the
/// window and a little more once the menu bar and toolbar (about 50 points)
/// are taken off, at 800 and at 1080 points high.
const TIMELINE_SHARE: f32 = 0.36;

/// The tiles and what the View menu does with them.
#[derive(Debug)]
pub struct Workspace {
    /// The tile tree (serialised as the layout).
    pub tree: Tree<Pane>,
    /// Why the stored layout was not used, while it is kept: the stored text
    /// is not written over until the user picks View → Reset layout (a bad
    /// layout never costs the user what they had stored).
    pub kept: Option<StoredLayoutError>,
}

impl Default for Workspace {
    fn default() -> Workspace {
        Workspace {
            tree: default_tree(),
            kept: None,
        }
    }
}

/// A stored layout the editor could not use: where in its text and why.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredLayoutError {
    /// One-based line in the stored text (1 for a layout that parsed but
    /// does not hold every pane once).
    pub line: usize,
    /// One-based column.
    pub column: usize,
    /// What was expected.
    pub message: String,
}

impl std::fmt::Display for StoredLayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the stored layout (key `{LAYOUT_KEY}` of the editor's settings file) at line {}, \
             column {}: {}; the default layout is shown and the stored one kept until View, Reset \
             layout",
            self.line, self.column, self.message
        )
    }
}

/// The layout in a stored text, or where and why it is not one.
fn parse_layout(text: &str) -> Result<Tree<Pane>, StoredLayoutError> {
    let mut tree: Tree<Pane> = ron::from_str(text).map_err(|e| StoredLayoutError {
        line: e.span.start.line.max(1),
        column: e.span.start.col.max(1),
        message: e.code.to_string(),
    })?;
    add_new_panes(&mut tree);
    if !shares_are_sizes(&tree) {
        // egui_tiles divides each share by their sum: an infinite, negative
        // or all-zero set makes a NaN rectangle, which egui refuses with a
        // panic (`1e99999` parses to infinity; the layout fuzzer found it).
        return Err(StoredLayoutError {
            line: 1,
            column: 1,
            message: "a layout whose split shares are finite, non-negative numbers with a \
                      positive sum"
                .to_string(),
        });
    }
    if !is_complete(&tree) {
        return Err(StoredLayoutError {
            line: 1,
            column: 1,
            message: "a layout that holds every pane exactly once".to_string(),
        });
    }
    Ok(tree)
}

fn set_shares(tiles: &mut Tiles<Pane>, container: TileId, shares: &[(TileId, f32)]) {
    if let Some(Tile::Container(Container::Linear(linear))) = tiles.get_mut(container) {
        for &(id, share) in shares {
            linear.shares.set_share(id, share);
        }
    }
}

fn default_tree() -> Tree<Pane> {
    let mut tiles = Tiles::default();
    let pane = |tiles: &mut Tiles<Pane>, p| tiles.insert_pane(p);
    let hierarchy = pane(&mut tiles, Pane::Hierarchy);
    let left = tiles.insert_tab_tile(vec![hierarchy]);
    let viewport = pane(&mut tiles, Pane::Viewport);
    let center = tiles.insert_tab_tile(vec![viewport]);
    let code = pane(&mut tiles, Pane::Code);
    let code_tabs = tiles.insert_tab_tile(vec![code]);
    let inspector = pane(&mut tiles, Pane::Inspector);
    let bookmarks = pane(&mut tiles, Pane::Bookmarks);
    let input = pane(&mut tiles, Pane::Input);
    let inspector_tabs = tiles.insert_tab_tile(vec![inspector, bookmarks, input]);
    let clock = pane(&mut tiles, Pane::Clock);
    let breakpoints = pane(&mut tiles, Pane::Breakpoints);
    let log = pane(&mut tiles, Pane::Log);
    let watches = pane(&mut tiles, Pane::Watches);
    // Four tabs are what the right column shows whole at 1280 points wide.
    let clock_tabs = tiles.insert_tab_tile(vec![clock, breakpoints, watches, log]);
    let right = tiles.insert_vertical_tile(vec![inspector_tabs, clock_tabs]);
    set_shares(
        &mut tiles,
        right,
        &[(inspector_tabs, 0.5), (clock_tabs, 0.5)],
    );
    let top = tiles.insert_horizontal_tile(vec![left, center, code_tabs, right]);
    set_shares(
        &mut tiles,
        top,
        &[
            (left, LEFT_SHARE),
            (center, VIEWPORT_SHARE),
            (code_tabs, 0.4),
            (right, 1.0 - LEFT_SHARE - VIEWPORT_SHARE),
        ],
    );
    let timeline = pane(&mut tiles, Pane::Timeline);
    // The Flame tab shares the timeline's full width: a frame's zones on
    // a time axis want it, and the default layout gets no new tile.
    let flame = pane(&mut tiles, Pane::Flame);
    let timeline_tabs = tiles.insert_tab_tile(vec![timeline, flame]);
    let root = tiles.insert_vertical_tile(vec![top, timeline_tabs]);
    set_shares(
        &mut tiles,
        root,
        &[(top, 1.0 - TIMELINE_SHARE), (timeline_tabs, TIMELINE_SHARE)],
    );
    tiles.set_visible(code, false);
    Tree::new(egui::Id::unique("stepframe_workspace"), root, tiles)
}

impl Workspace {
    /// The stored layout if it reads and holds every pane exactly once,
    /// else the default one, with [`Workspace::kept`] saying why (a layout
    /// from another version is not trusted either).
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Workspace {
        let Some(text) = storage.and_then(|s| s.get_string(LAYOUT_KEY)) else {
            return Workspace::default();
        };
        match parse_layout(&text) {
            Ok(tree) => Workspace { tree, kept: None },
            Err(why) => Workspace {
                kept: Some(why),
                ..Workspace::default()
            },
        }
    }

    /// Writes the layout to `storage`, unless a stored one is kept.
    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        if self.kept.is_none() {
            eframe::set_value(storage, LAYOUT_KEY, &self.tree);
        }
    }

    /// The tile of a pane.
    fn tile_of(&self, pane: Pane) -> Option<TileId> {
        self.tree.tiles.find_pane(&pane)
    }

    /// Whether a pane is shown (it may be a tab behind another).
    pub fn is_open(&self, pane: Pane) -> bool {
        self.tile_of(pane)
            .is_some_and(|id| self.tree.tiles.is_visible(id))
    }

    /// Shows (and brings to the front of its tabs) or hides a pane. A hidden
    /// pane keeps its place.
    pub fn set_open(&mut self, pane: Pane, open: bool) {
        let Some(id) = self.tile_of(pane) else {
            return;
        };
        if self.tree.tiles.is_visible(id) != open {
            self.trade_width_with_viewport(id, open);
        }
        self.tree.tiles.set_visible(id, open);
        if open
            && let Some(parent) = self.tree.tiles.parent_of(id)
            && let Some(Tile::Container(Container::Tabs(tabs))) = self.tree.tiles.get_mut(parent)
        {
            tabs.set_active(id);
        }
    }

    /// A pane that has a split of its own in the viewport's row (the code
    /// pane, by default) takes half the viewport's width when it opens and
    /// gives it back when it closes: the columns beside them keep their
    /// widths, so their rows stay under the pointer. Left alone, egui_tiles
    /// would share the row anew and narrow every column.
    fn trade_width_with_viewport(&mut self, id: TileId, open: bool) {
        let tiles = &self.tree.tiles;
        // The pane's own tile in the row: the pane, or tabs holding only it.
        let mut own = id;
        if let Some(parent) = tiles.parent_of(id)
            && let Some(Tile::Container(Container::Tabs(tabs))) = tiles.get(parent)
            && tabs.children.len() == 1
        {
            own = parent;
        }
        let Some(row) = tiles.parent_of(own) else {
            return;
        };
        let Some(mut viewport) = self.tile_of(Pane::Viewport) else {
            return;
        };
        while let Some(parent) = tiles.parent_of(viewport)
            && parent != row
        {
            viewport = parent;
        }
        if viewport == own || tiles.parent_of(viewport) != Some(row) {
            return;
        }
        if let Some(Tile::Container(Container::Linear(linear))) = self.tree.tiles.get_mut(row) {
            let (own_share, viewport_share) = (linear.shares[own], linear.shares[viewport]);
            if open {
                linear.shares.set_share(own, viewport_share / 2.0);
                linear.shares.set_share(viewport, viewport_share / 2.0);
            } else {
                linear
                    .shares
                    .set_share(viewport, viewport_share + own_share);
            }
        }
    }

    /// The default layout again.
    pub fn reset(&mut self) {
        self.tree = default_tree();
        // The user chose a new layout: the stored one may be replaced now.
        self.kept = None;
    }

    /// The screen rectangle of a pane's tile in the last layout: its tab
    /// bar and its content, as the user sees the tile.
    pub fn rect(&self, pane: Pane) -> Option<egui::Rect> {
        let id = self.tile_of(pane)?;
        let tile = match self.tree.tiles.parent_of(id) {
            Some(parent)
                if matches!(
                    self.tree.tiles.get(parent),
                    Some(Tile::Container(Container::Tabs(_)))
                ) =>
            {
                parent
            }
            _ => id,
        };
        self.tree.tiles.rect(tile)
    }

    /// The View menu: a check box per pane and "Reset layout".
    pub fn view_menu_ui(&mut self, ui: &mut egui::Ui) {
        for pane in Pane::ALL {
            let mut open = self.is_open(pane);
            if ui.checkbox(&mut open, pane.title()).changed() {
                self.set_open(pane, open);
            }
        }
        ui.separator();
        if ui
            .button("Reset layout")
            .on_hover_text("Every panel back where it started, at its first size")
            .clicked()
        {
            self.reset();
            ui.close();
        }
    }
}

/// Adds the panes a layout stored by an older editor lacks (the Flame
/// tab) as tabs behind the Timeline's, so an upgrade keeps the user's
/// layout. A layout without a Timeline is left as it is (and refused).
fn add_new_panes(tree: &mut Tree<Pane>) {
    let Some(timeline) = tree.tiles.find_pane(&Pane::Timeline) else {
        return;
    };
    let Some(parent) = tree.tiles.parent_of(timeline) else {
        return;
    };
    for pane in Pane::ALL {
        if tree.tiles.find_pane(&pane).is_some() {
            continue;
        }
        let id = tree.tiles.insert_pane(pane);
        match tree.tiles.get_mut(parent) {
            Some(Tile::Container(Container::Tabs(tabs))) => tabs.add_child(id),
            _ => {
                tree.tiles.remove(id);
            }
        }
    }
}

/// Whether every split's shares can size its children: each finite and
/// non-negative, their sum finite and positive.
fn shares_are_sizes(tree: &Tree<Pane>) -> bool {
    tree.tiles.tiles().all(|tile| match tile {
        Tile::Container(Container::Linear(linear)) => {
            let shares: Vec<f32> = linear.shares.iter().map(|(_, s)| *s).collect();
            let sum: f32 = shares.iter().sum();
            shares.iter().all(|s| s.is_finite() && *s >= 0.0)
                && (shares.is_empty() || (sum.is_finite() && sum > 0.0))
        }
        _ => true,
    })
}

/// Whether a tree holds every pane exactly once.
fn is_complete(tree: &Tree<Pane>) -> bool {
    Pane::ALL.iter().all(|pane| {
        tree.tiles
            .tiles()
            .filter(|t| matches!(t, Tile::Pane(p) if p == pane))
            .count()
            == 1
    }) && tree.root().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_layout_with_an_infinite_or_negative_share_is_refused_not_drawn() {
        let stored = ron::to_string(&default_tree()).expect("the default layout writes");
        // The default layout's first share, as written.
        let at = stored.find("shares:(shares:{").expect("a split") + "shares:(shares:{".len();
        let colon = at + stored[at..].find("):").expect("a share") + 2;
        let end = colon + stored[colon..].find([',', '}']).expect("its end");
        for bad in ["1e99999", "-0.5", "inf", "NaN"] {
            let text = format!("{}{bad}{}", &stored[..colon], &stored[end..]);
            let err = parse_layout(&text).expect_err(bad);
            assert!(err.message.contains("finite"), "{bad}: {}", err.message);
        }
        parse_layout(&stored).expect("the default layout reads back");
    }

    #[test]
    fn a_layout_stored_before_the_flame_tab_gets_it_beside_the_timeline() {
        // The default layout as an editor without the Flame tab stored it.
        let mut old = default_tree();
        let flame = old.tiles.find_pane(&Pane::Flame).expect("in the default");
        let parent = old.tiles.parent_of(flame).expect("in the timeline's tabs");
        if let Some(Tile::Container(c)) = old.tiles.get_mut(parent) {
            c.remove_child(flame);
        }
        old.tiles.remove(flame);
        assert!(old.tiles.find_pane(&Pane::Flame).is_none());
        let text = ron::to_string(&old).expect("serialises");

        let tree = parse_layout(&text).expect("an older layout is used, not refused");
        assert!(is_complete(&tree));
        let timeline = tree.tiles.find_pane(&Pane::Timeline).expect("kept");
        let flame = tree.tiles.find_pane(&Pane::Flame).expect("added");
        assert_eq!(tree.tiles.parent_of(flame), tree.tiles.parent_of(timeline));
    }

    #[test]
    fn the_default_layout_holds_every_pane_once_with_code_hidden() {
        let w = Workspace::default();
        assert!(is_complete(&w.tree));
        for pane in Pane::ALL {
            assert_eq!(w.is_open(pane), pane != Pane::Code, "{pane:?}");
        }
    }
}
