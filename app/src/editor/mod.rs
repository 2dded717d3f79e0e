//! The eframe editor: the pipeline on a worker thread, debugged live.
//!
//! | module | what |
//! |---|---|
//! | [`protocol`] | commands UI → worker; views, telemetry, events worker → UI |
//! | [`worker`] | the session owner, its pacing loop, the channels |
//! | [`app`] | the eframe app: drains the channels, shortcuts, layout |
//! | `toolbar`, `viewport`, `hierarchy`, `inspector`, `breakpoints`, `clock_panel`, `log` | one panel each (`*_ui`) |
//! | `code_pane` | rhai scripts: gutter breakpoints, the hit's locals and stack, editing with hot reload |
//! | [`timeline`] | telemetry lanes, scrubbing, resume from here, markers, export |
//! | `geometry` | shape outlines, hit tests, the world ↔ screen camera |
//!
//! The worker thread owns the pipeline and the world; the UI thread never
//! touches them (Rerun's time-control habit: the UI pushes commands that are
//! applied in one place). The worker paces itself to a display rate of its
//! own, so a slow UI never slows the simulation and a busy worker never
//! freezes the UI: the UI only ever `try_recv`s.
//!
//! Start-up choice: launched from the command line the editor **plays** the
//! scene at once (the README's `cargo run --release` should show the demo
//! moving); a scene opened from the path field is shown as a **preview**,
//! suspended at tick 0 with its poses, until Play.

pub mod app;
mod breakpoints;
mod clock_panel;
mod code_pane;
mod geometry;
mod hierarchy;
mod inspector;
mod log;
pub mod protocol;
mod session;
pub mod timeline;
mod toolbar;
mod viewport;
pub mod worker;

use std::path::PathBuf;
use std::process::ExitCode;

pub use app::{Driver, EditorApp, EditorConfig};
pub use protocol::{Command, Event, Pacing, WorldView};

/// Opens the editor window on a scene, playing it. Returns when the window closes.
pub fn run(scene: PathBuf) -> ExitCode {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("stepframe")
            .with_inner_size([1500.0, 920.0]),
        ..eframe::NativeOptions::default()
    };
    let result = eframe::run_native(
        "stepframe",
        options,
        Box::new(move |cc| {
            let app = EditorApp::new(cc, EditorConfig::threaded(scene))?;
            Ok(Box::new(app))
        }),
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stepframe: cannot open the editor window: {e}");
            ExitCode::FAILURE
        }
    }
}
