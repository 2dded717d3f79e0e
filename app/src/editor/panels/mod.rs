//! The editor's panels: each one a struct owning its UI state, drawn with
//! `ui(&mut self, ui, &View, &mut Commands)` (the egui demo's `View::ui`
//! shape): it reads the worker's published views through [`View`] and asks
//! for changes through [`Commands`], never holding session state.
//!
//! | panel | what |
//! |---|---|
//! | `toolbar` | Play/Pause, steps, the time settings, pacing, the menu bar's File actions |
//! | `edit_menu` | the menu bar's Edit menu: Undo and Redo |
//! | `viewport` | the world drawn from committed or presentation poses, selection, panning; `viewport/soft`: soft bodies |
//! | `hierarchy` | the object tree, enable boxes, Duplicate and Delete |
//! | `inspector` | the selected object: poses, behaviours and their fields, edits |
//! | `breakpoints` | the breakpoint list and form; `breakpoints/clock_form`: clock breakpoints |
//! | `clock_panel` | the Clock tab: every clock field, the history's reach and budget |
//! | [`log`] | the session log |
//! | [`tape`] | the Input tab: the tick-stamped input tape, edited while suspended, replayed by Resume from here |
//! | [`attach`] | File → Attach…, Run in player, Detach: the editor on a game in a process of its own |
//! | [`compare`] | Compare with…: run B, the measured ticks, the inspector's A/B columns |
//! | [`watches`] | watch expressions and what they do when they hold |
//! | [`bookmarks`] | named ticks, kept beside the scene |
//! | [`flame`] | the Flame tab: a frame's zones on a time axis, live and replayed, the slowest listed |
//! | `code_pane` | rhai scripts: gutter breakpoints, editing with hot reload, Run in B; `code_pane/debug`: the breakpoint form, the hit's locals and stack |
//!
//! The timeline is a panel too, but big enough for its own folder
//! ([`crate::editor::timeline`]).
//!
//! [`View`]: crate::editor::View
//! [`Commands`]: crate::editor::Commands

pub mod attach;
pub mod bookmarks;
pub(crate) mod breakpoints;
pub(crate) mod clock_panel;
pub(crate) mod code_pane;
pub mod compare;
pub(crate) mod edit_menu;
pub mod flame;
pub(crate) mod hierarchy;
pub(crate) mod inspector;
pub mod log;
pub mod tape;
pub(crate) mod toolbar;
pub(crate) mod viewport;
pub mod watches;

use crate::editor::files::FilesState;
use crate::editor::timeline::TimelineState;
pub use crate::editor::words::count;
use bookmarks::BookmarksState;
use breakpoints::BreakpointForm;
use code_pane::CodePaneState;
use flame::FlameState;
use hierarchy::HierarchyPanel;
use inspector::EditBuffers;
use log::LogPanel;
use tape::TapeState;
use viewport::ViewportState;
use watches::WatchesState;

/// Every panel's own state.
#[derive(Debug, Default)]
pub struct Panels {
    /// Camera and keyboard of the viewport.
    pub viewport: ViewportState,
    /// The hierarchy's last revealed selection.
    pub hierarchy: HierarchyPanel,
    /// The inspector's edit fields.
    pub edits: EditBuffers,
    /// The log's filter.
    pub log: LogPanel,
    /// The breakpoint form.
    pub breakpoint_form: BreakpointForm,
    /// The open scene's bookmarks and the tab's note field.
    pub bookmarks: BookmarksState,
    /// The Watches tab: the fields being typed, what each watch reported.
    pub watches: WatchesState,
    /// The timeline: frame records, lanes, markers.
    pub timeline: TimelineState,
    /// The script code pane.
    pub code: CodePaneState,
    /// The Input tab: the tape list, its edit and file fields.
    pub tape: TapeState,
    /// The Flame tab: the newest replayed frame.
    pub flame: FlameState,
    /// Open / Save As / confirmation dialogs.
    pub files: FilesState,
}

impl Panels {
    /// The timeline draws the Bookmarks tab's list on its marker lane, and
    /// a lane for every plotted watch of the host's list (`live`).
    pub(crate) fn sync_bookmarks(&mut self, live: Option<&crate::editor::protocol::LiveView>) {
        let list = &self.bookmarks.list;
        let drawn = &mut self.timeline.bookmarks;
        let same = drawn.len() == list.len()
            && drawn
                .iter()
                .zip(list)
                .all(|((t, n), b)| *t == b.tick && *n == b.note);
        if !same {
            *drawn = list.iter().map(|b| (b.tick, b.note.clone())).collect();
        }
        let Some(live) = live else {
            return;
        };
        let plotted = live
            .watches
            .iter()
            .enumerate()
            .filter(|(_, w)| w.enabled && w.action == stepframe_plugins::WatchAction::Plot)
            .map(|(i, w)| (i, w.expr.clone()))
            .collect();
        self.timeline.watch_lanes.set_plotted(plotted);
    }
}
