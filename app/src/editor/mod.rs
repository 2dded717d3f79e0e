//! The eframe editor: the pipeline on a worker thread, debugged live, in a
//! docked workspace with one time cursor for every panel.
//!
//! | module | what |
//! |---|---|
//! | [`shell`] | the editor window: [`Editor`], the eframe app, draining what the host sends, shortcuts, the menu bar, applying UI actions in one place |
//! | [`panels`] | one struct per panel (toolbar, viewport, hierarchy, inspector, breakpoints, clock, log, Input tape, compare, watches, bookmarks, code pane), each with its own UI state, drawn through the `Panel` trait |
//! | [`timeline`] | telemetry lanes, the cursor, markers, export |
//! | [`bookmarks`] | the open scene's bookmarks and their sidecar file, which the Bookmarks tab lists and the timeline draws |
//! | [`frames`] | the recorded frames: the records and live zones the host streams, which the timeline, the Clock and the Flame tabs read |
//! | [`shared`] | what every panel is (`Panel`), what it reads ([`Reading`]: what the host published, the time cursor) and how it asks ([`Commands`]: host commands, UI actions); no session state |
//! | [`words`] | the sentences for what the host says (its notices and errors are data) |
//! | [`workspace`], `tiles` | the docked tiles (egui_tiles), the View menu, the default layout; drawing each tile's panel |
//! | `files` | Open, Save, Save As dialogs |
//! | [`geometry`] | shape outlines, hit tests, the world ↔ screen camera |
//! | [`log_book`] | every line the Log tab shows, below the panels and the shared state that write it |
//! | `words` | counts in words (`1 match`, `3 matches`), for the panels and the worker alike |
//!
//! The session host (`stepframe_host`: its worker owns the pipeline and
//! the world; re-exported here as [`worker`] and [`protocol`]) runs on a
//! thread of its own; the UI never touches the session (Rerun's
//! time-control habit: the UI pushes commands that are applied in one
//! place). The host paces itself to a display rate of its own, so a slow
//! UI never slows the simulation and a busy host never freezes the UI: the
//! UI only ever `try_recv`s.
//!
//! Start-up choice: launched from the command line the editor **plays** the
//! scene at once (the README's `cargo run --release` should show the demo
//! moving); a scene opened with File → Open is shown as a **preview**,
//! suspended at tick 0 with its poses, until Play.

pub mod bookmarks;
mod files;
pub mod frames;
pub mod geometry;
pub mod log_book;
pub mod panels;
pub mod shared;
pub mod shell;
mod tiles;
pub mod timeline;
pub mod words;
pub mod workspace;

/// What the editor and its session host say to each other (the host's crate).
pub use stepframe_host::protocol;
/// The session host's worker (the host's crate).
pub use stepframe_host::worker;

use std::path::PathBuf;
use std::process::ExitCode;

pub use log_book::{LogBook, LogLine};
pub use protocol::{Command, DisplayRate, Event, LiveView, WorldView};
pub use shared::{Action, Commands, Published, Reading};
pub use shell::{Driver, Editor, EditorConfig};
pub use workspace::{Pane, StoredLayoutError, Workspace};

/// Opens the editor window of the game `name` on a scene, playing it,
/// with the rewind history's byte budget `history_mib` if given and the
/// scenes' behaviours from `behaviours`. Returns when the window closes,
/// or after the first drawn frame with `exit_after_first_frame` (the start-up
/// figure: the editor closes after that frame and prints `first_frame_ms`).
pub fn run(
    name: &str,
    scene: PathBuf,
    history_mib: Option<u32>,
    in_process: bool,
    behaviours: crate::Behaviours,
    exit_after_first_frame: bool,
) -> ExitCode {
    let result = eframe::run_native(
        name,
        native_options(name),
        Box::new(move |cc| {
            let base = if in_process {
                EditorConfig::threaded(scene)
            } else {
                EditorConfig::new(scene)
            };
            let config = EditorConfig {
                history_mib,
                behaviours,
                ..base
            };
            let app = Editor::new(cc, config)?;
            if exit_after_first_frame {
                return Ok(Box::new(FirstFrame {
                    app,
                    drawn: false,
                    printed: false,
                }));
            }
            Ok(Box::new(app))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: cannot open the editor window: {e}");
            ExitCode::FAILURE
        }
    }
}

/// When the process started, as near as the program can tell: the first
/// thing [`crate::Game::run`] does is [`mark_start`].
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Notes the process's start for `--exit-after-first-frame` (the first
/// call counts).
pub fn mark_start() {
    STARTED.get_or_init(std::time::Instant::now);
}

/// `edit --exit-after-first-frame`: the editor, closed right after its
/// first frame is drawn, with `first_frame_ms <ms>` printed on stdout, the
/// milliseconds from [`mark_start`] to then (the `startup_first_frame_ms`
/// bench figure reads it). The first frame is drawn once its `ui` call has
/// returned (eframe paints and presents between calls), so the time is
/// taken at the start of the second call, which a repaint asks for at once.
/// Nothing is saved: a measuring run leaves the layout and settings alone.
struct FirstFrame {
    /// The editor.
    app: Editor,
    /// Its first frame has been laid out (and is drawn by the next call).
    drawn: bool,
    /// The time was printed (the close takes a frame or two more).
    printed: bool,
}

impl eframe::App for FirstFrame {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        if self.printed {
            return;
        }
        if self.drawn {
            self.printed = true;
            let ms = STARTED
                .get()
                .map_or(f64::NAN, |t| t.elapsed().as_secs_f64() * 1000.0);
            println!("first_frame_ms {ms:.1}");
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        eframe::App::ui(&mut self.app, ui, frame);
        self.drawn = true;
        ui.ctx().request_repaint();
    }

    fn persist_egui_memory(&self) -> bool {
        false
    }
}

/// Whether the window is covered or minimised: eframe then draws nothing
/// and calls only `App::logic` (where the editor still takes its host's
/// messages and the player's game plays on).
pub(crate) fn window_hidden(ctx: &egui::Context) -> bool {
    ctx.input(|i| {
        let v = i.viewport();
        v.occluded == Some(true) || v.minimized == Some(true)
    })
}

/// The editor window of the game `name`: its title, and its app id, from
/// which eframe picks the folder the layout and settings are saved in
/// ([`eframe::storage_dir`]), so each game keeps its own.
fn native_options(name: &str) -> eframe::NativeOptions {
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(name)
            .with_app_id(name)
            .with_inner_size([1280.0, 800.0]),
        ..eframe::NativeOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_games_window_carries_its_name_and_keeps_its_own_settings() {
        let options = native_options("platformer");
        assert_eq!(options.viewport.title.as_deref(), Some("platformer"));
        assert_eq!(options.viewport.app_id.as_deref(), Some("platformer"));
        // The folder eframe saves into follows the app id: another game's
        // layout and settings are not stepframe's.
        let ours = eframe::storage_dir("platformer");
        assert!(ours.is_some(), "a storage folder on this platform");
        assert_ne!(ours, eframe::storage_dir("stepframe"));
    }
}
