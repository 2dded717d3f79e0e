//! The editor's panels: each tab of the workspace is a struct owning its UI
//! state that implements [`Panel`] (the egui demo's `View` shape): the
//! tiles look the pane's panel up and call `ui(ui, &Reading, &mut Commands)`
//! on it, the same call for every tab. A panel reads the host's published
//! views, the recorded frames and the time cursor through [`Reading`], and
//! asks for changes through [`Commands`], never holding session state.
//! Why one shape: when the Clock and Flame tabs were handed the timeline
//! panel to read its frames, and the inspector drew the comparison's
//! section, a change to one panel's state reached into others; now what
//! two panels read is in the [`Reading`], once, and each section is drawn by the
//! one panel that owns it.
//!
//! | panel | what |
//! |---|---|
//! | `toolbar` | Play/Pause, steps, the time settings, pacing, the status line and banners, the menu bar's right end |
//! | `edit_menu` | the menu bar's Edit menu: Undo and Redo |
//! | `viewport` | the world drawn from committed or presentation poses, selection, panning; `viewport/soft`: soft bodies |
//! | `hierarchy` | the object tree, enable boxes, Duplicate and Delete |
//! | `inspector` | the selected object: poses, behaviours and their fields, edits; `inspector/ab`: A and B side by side while comparing |
//! | `breakpoints` | the breakpoint list and form; `breakpoints/clock_form`: clock breakpoints |
//! | `clock_panel` | the Clock tab: every clock field, the history's reach and budget |
//! | [`log`] | the session log |
//! | [`input`] | the Input tab: the tick-stamped input tape, edited while suspended, replayed by Resume from here |
//! | [`attach`] | File → Attach…, Run in player, Detach: the editor on a game in a process of its own |
//! | [`compare`] | Compare with…: the File menu's items and the trace dialog |
//! | [`watches`] | watch expressions and what they do when they hold |
//! | [`bookmarks`] | the Bookmarks tab: the note field and the open scene's list ([`crate::editor::bookmarks`]) |
//! | [`flame`] | the Flame tab: a frame's zones on a time axis, live and replayed, the slowest listed |
//! | `code_pane` | rhai scripts: gutter breakpoints, editing with hot reload, Run in B; `code_pane/debug`: the breakpoint form, the hit's locals and stack |
//!
//! The timeline is a panel too, but big enough for its own folder
//! ([`crate::editor::timeline`]). The menu bar is the app's layout
//! (`shell/menu_bar`): each menu's items come from the module that owns them.
//!
//! [`Reading`]: crate::editor::Reading
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
pub mod input;
pub(crate) mod inspector;
pub mod log;
pub(crate) mod toolbar;
pub(crate) mod viewport;
pub mod watches;

use crate::editor::files::FilesState;
use crate::editor::protocol::Event;
pub use crate::editor::shared::Panel;
use crate::editor::shared::{Commands, Reading};
use crate::editor::timeline::TimelineState;
pub use crate::editor::words::count;
use crate::editor::workspace::Pane;
use bookmarks::BookmarksPanel;
use breakpoints::BreakpointForm;
use clock_panel::ClockPanel;
use code_pane::CodePaneState;
use flame::FlameState;
use hierarchy::HierarchyPanel;
use input::InputPanel;
use inspector::EditBuffers;
use log::LogPanel;
use viewport::ViewportState;
use watches::WatchesState;

/// Every panel's own state.
#[derive(Debug, Default)]
pub(crate) struct Panels {
    /// Camera and keyboard of the viewport.
    pub(crate) viewport: ViewportState,
    /// The hierarchy's last revealed selection.
    pub(crate) hierarchy: HierarchyPanel,
    /// The inspector's edit fields.
    pub(crate) edits: EditBuffers,
    /// The log's filter.
    pub(crate) log: LogPanel,
    /// The breakpoint form.
    pub(crate) breakpoint_form: BreakpointForm,
    /// The Clock tab (nothing of its own).
    pub(crate) clock: ClockPanel,
    /// The Bookmarks tab's note field (the list is the editor's, in the [`Reading`]).
    pub(crate) bookmarks: BookmarksPanel,
    /// The Watches tab: the fields being typed, what each watch reported.
    pub(crate) watches: WatchesState,
    /// The timeline: frame records, lanes, markers.
    pub(crate) timeline: TimelineState,
    /// The script code pane.
    pub(crate) code: CodePaneState,
    /// The Input tab: the tape list, its edit and file fields.
    pub(crate) input: InputPanel,
    /// The Flame tab: the newest replayed frame.
    pub(crate) flame: FlameState,
    /// Open / Save As / confirmation dialogs.
    pub(crate) files: FilesState,
    /// The Compare with trace dialog's path field, while it is open.
    pub(crate) compare_trace: Option<String>,
    /// The Attach… dialog's fields, while it is open.
    pub(crate) attach: Option<attach::AttachFields>,
}

impl Panels {
    /// Hands one host event to every panel, in [`Pane::ALL`] order, then to
    /// the File dialogs (the one place panels take events:
    /// [`Panel::on_event`]).
    pub(crate) fn on_event(&mut self, event: &Event, reading: &Reading<'_>, cmd: &mut Commands) {
        for pane in Pane::ALL {
            self.panel_mut(pane).on_event(event, reading, cmd);
        }
        self.files.on_event(event);
    }

    /// Hands a shortcut to every panel, then to the File dialogs (the one
    /// place panels take shortcuts: [`Panel::on_shortcut`]).
    pub(crate) fn on_shortcut(
        &mut self,
        shortcut: crate::editor::shared::Shortcut,
        reading: &Reading<'_>,
        cmd: &mut Commands,
    ) {
        for pane in Pane::ALL {
            self.panel_mut(pane).on_shortcut(shortcut, reading, cmd);
        }
        self.files.on_shortcut(shortcut, reading);
    }

    /// Whether a dialog is open (the editor's shortcuts wait).
    pub(crate) fn dialog_open(&self) -> bool {
        self.files.is_open() || self.compare_trace.is_some() || self.attach.is_some()
    }

    /// The panel a workspace tile shows.
    pub(crate) fn panel_mut(&mut self, pane: Pane) -> &mut dyn Panel {
        match pane {
            Pane::Viewport => &mut self.viewport,
            Pane::Hierarchy => &mut self.hierarchy,
            Pane::Inspector => &mut self.edits,
            Pane::Clock => &mut self.clock,
            Pane::Breakpoints => &mut self.breakpoint_form,
            Pane::Log => &mut self.log,
            Pane::Bookmarks => &mut self.bookmarks,
            Pane::Watches => &mut self.watches,
            Pane::Code => &mut self.code,
            Pane::Input => &mut self.input,
            Pane::Timeline => &mut self.timeline,
            Pane::Flame => &mut self.flame,
        }
    }
}
