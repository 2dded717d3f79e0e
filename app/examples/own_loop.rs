//! Your own loop: a game that owns its main loop and its renderer, and
//! lets the stepframe editor attach to it (docs/embedding.md, "Your own
//! loop").
//!
//! The game calls one thing once per frame, `debugger.frame(raw_dt)`,
//! then draws the newest view's presentation poses however it likes (here
//! a few lines of egui painting; winit + wgpu or macroquad would do the
//! same with their own calls). `Debugger::listen` opens a loopback port
//! and the game prints `attach 127.0.0.1:PORT token HEX`: paste that line
//! into the editor's File → Attach….
//!
//! ```text
//! cargo run --example own_loop -- [SCENE] [--headless] [--seconds N]
//! ```
//!
//! `--headless` runs the same loop without a window, at 60 frames a second
//! (a machine without a display); `--seconds N` ends it after N seconds.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stepframe_host::debug::Debugger;
use stepframe_host::protocol::{DisplayRate, WorldView};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut scene, mut headless, mut seconds) = (None, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--headless" => headless = true,
            "--seconds" => seconds = args.next().and_then(|s| s.parse::<f64>().ok()),
            _ => scene = Some(PathBuf::from(arg)),
        }
    }
    let scene = scene.unwrap_or_else(stepframe_app::default_scene);
    let Ok(scene) = std::path::absolute(&scene) else {
        eprintln!("own_loop: no path {}", scene.display());
        return ExitCode::FAILURE;
    };

    // The session: the built-in behaviours (a game adds its own), the
    // scene playing, and a port the editor can attach to.
    let registries = stepframe_app::Behaviours::built_in().registries();
    let mut debugger = Debugger::new(registries, DisplayRate::Hz(60));
    debugger.load(scene, true);
    match debugger.listen() {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("own_loop: cannot listen: {e}");
            return ExitCode::FAILURE;
        }
    }
    let end = seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));

    if headless {
        let mut last = Instant::now();
        while end.is_none_or(|end| Instant::now() < end) {
            std::thread::sleep(Duration::from_millis(16));
            let now = Instant::now();
            debugger.frame(now.duration_since(last).as_secs_f64());
            last = now;
        }
        return ExitCode::SUCCESS;
    }

    let mut last = Instant::now();
    let result = eframe::run_ui_native(
        "own loop",
        eframe::NativeOptions::default(),
        move |ui, _frame| {
            // The game's frame: real time since the last one, to the session.
            let now = Instant::now();
            debugger.frame(now.duration_since(last).as_secs_f64());
            last = now;
            if let Some(live) = debugger.live() {
                draw(ui, &live.world);
            }
            if end.is_some_and(|end| now >= end) {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ui.ctx().request_repaint();
        },
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("own_loop: no window: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The game's own drawing: every body a dot at its presentation pose,
/// 20 pixels a metre, y up.
fn draw(ui: &egui::Ui, world: &WorldView) {
    let rect = ui.max_rect();
    let painter = ui.painter();
    painter.rect_filled(rect, 0.0, egui::Color32::BLACK);
    for object in world.objects.iter().filter(|o| o.body.is_some()) {
        let p = object.presentation;
        let at = rect.center() + egui::vec2(p.x * 20.0, -p.y * 20.0);
        painter.circle_filled(at, 4.0, egui::Color32::LIGHT_GREEN);
    }
    let status = match &world.suspension {
        Some(s) => format!("tick {} · suspended by the editor", s.tick),
        None => format!("tick {}", world.clock.simulation_tick),
    };
    painter.text(
        rect.left_top() + egui::vec2(8.0, 8.0),
        egui::Align2::LEFT_TOP,
        status,
        egui::FontId::monospace(14.0),
        egui::Color32::WHITE,
    );
}
