//! The player's window: one [`Debugger::frame`] per eframe frame (eframe
//! waits for vsync between them; while the window is covered or
//! minimised, one every 60 Hz period, so the game plays on behind the
//! editor), the scene drawn with its presentation poses, keys and
//! gamepads to the scene's action map, F3's clock overlay and F6's pause
//! (module docs of `run`).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

use egui::{Color32, Pos2, Stroke};
use stepframe_core::{BodyKind, InputEvent, InputSource, Shape, Vec2};
use stepframe_host::debug::Debugger;
use stepframe_host::protocol::{Command, Run, WorldView};

use super::pacing::FramePacing;
use crate::editor::geometry::{self, Camera};

/// Metres of the world the window's height shows.
const VIEW_HEIGHT_M: f32 = 22.0;
/// Where the camera looks when the scene has no camera hook.
const DEFAULT_CENTRE: Vec2 = Vec2::new(0.0, 5.0);
/// A frame's period while the window is hidden and no vsync paces it.
const HIDDEN_FRAME: std::time::Duration = std::time::Duration::from_micros(16_667);

/// Opens the player window on `debugger`'s session until it closes (or
/// `end` passes). `name` is the game's ([`crate::Game::new`]): the window
/// is the game's own, so it carries the game's name, not stepframe's.
pub(super) fn run(
    name: &str,
    debugger: Debugger,
    scene: &Path,
    end: Option<Instant>,
    pacing: Option<Rc<RefCell<FramePacing>>>,
) -> ExitCode {
    let options = player_options(name, scene);
    let player = PlayerWindow {
        debugger,
        last: None,
        overlay: false,
        held: BTreeSet::new(),
        gamepads: super::gamepad::Gamepads::start(),
        end,
        pacing,
        failed: false,
    };
    let failed = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = failed.clone();
    let result = eframe::run_native(
        &player_app_id(name),
        options,
        Box::new(move |_cc| {
            Ok(Box::new(Reporting {
                player,
                failed: seen,
            }))
        }),
    );
    match result {
        Ok(()) if failed.get() => ExitCode::FAILURE,
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name} run: cannot open the player window: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The player window's app id and the name eframe keeps its window
/// geometry under: the game's name with `-player`, so a game's player
/// keeps its own and never writes into the file its editor (app id
/// `name`, which may be open beside it) keeps its layout in.
fn player_app_id(name: &str) -> String {
    format!("{name}-player")
}

/// The player window's options: its title (the game's name and the
/// scene's file), its app id and size.
fn player_options(name: &str, scene: &Path) -> eframe::NativeOptions {
    let title = format!(
        "{name}: {}",
        scene.file_name().map_or_else(
            || scene.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    );
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(title)
            .with_app_id(player_app_id(name))
            .with_inner_size([1280.0, 800.0]),
        // eframe presents with vsync by default (wgpu's AutoVsync): one frame per refresh.
        ..eframe::NativeOptions::default()
    }
}

/// The window and whether it closed because the scene failed.
struct Reporting {
    /// The player.
    player: PlayerWindow,
    /// Set when the scene did not load.
    failed: std::rc::Rc<std::cell::Cell<bool>>,
}

impl eframe::App for Reporting {
    // The session runs here, not in `ui`: eframe calls `logic` while the
    // window is covered or minimised too (and `ui` only when it draws), so
    // a game behind the editor's window plays on and the editor attached
    // to it sees it move.
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.player.logic(ctx);
        if self.player.failed {
            self.failed.set(true);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.player.ui(ui);
    }
}

/// The player window's state.
pub struct PlayerWindow {
    /// The session, stepped once per frame.
    debugger: Debugger,
    /// When the last frame ran.
    last: Option<Instant>,
    /// F3's overlay is shown.
    overlay: bool,
    /// Keys held down (released when the window loses focus).
    held: BTreeSet<String>,
    /// The gamepads, read once a frame.
    gamepads: super::gamepad::Gamepads,
    /// When the run ends, if bounded.
    end: Option<Instant>,
    /// Every frame's interval, for `--pacing-report`.
    pacing: Option<Rc<RefCell<FramePacing>>>,
    /// The scene did not load.
    failed: bool,
}

impl PlayerWindow {
    /// One frame of the game: keys, gamepads, the session's frame. While
    /// the window is hidden (covered, minimised) nothing presents with
    /// vsync, so the next frame is asked for one 60 Hz period on; its keys
    /// are released (egui's input then is the last shown frame's).
    fn logic(&mut self, ctx: &egui::Context) {
        let hidden = crate::editor::window_hidden(ctx);
        let now = Instant::now();
        if self.end.is_some_and(|end| now >= end) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        // The first frame has no time before it: one display frame.
        let raw_dt = self
            .last
            .map_or(1.0 / 60.0, |last| now.duration_since(last).as_secs_f64());
        if let Some(pacing) = &self.pacing
            && self.last.is_some()
        {
            pacing.borrow_mut().record(raw_dt);
        }
        self.last = Some(now);
        if hidden {
            self.release_keys();
        } else {
            self.keys(ctx);
        }
        for input in self.gamepads.poll() {
            self.debugger.send(Command::Run(Run::Input(input)));
        }
        if !self.debugger.frame(raw_dt) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        if super::report_errors(&mut self.debugger) {
            self.failed = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        if hidden {
            ctx.request_repaint_after(HIDDEN_FRAME);
        } else {
            ctx.request_repaint();
        }
    }

    /// The drawing of the newest view (after [`PlayerWindow::logic`]).
    fn ui(&mut self, ui: &mut egui::Ui) {
        egui::CentralPanel::default()
            .frame(egui::Frame::new().fill(Color32::from_gray(24)))
            .show(ui, |ui| {
                if let Some(live) = self.debugger.live() {
                    draw_world(ui, &live.world);
                    status_ui(ui, &live.world, self.debugger.attached());
                    if self.overlay {
                        overlay_ui(ui, &live.world);
                    }
                }
            });
    }

    /// Releases every key held (the window lost focus or is hidden).
    fn release_keys(&mut self) {
        for name in std::mem::take(&mut self.held) {
            self.debugger
                .send(Command::Run(Run::Input(InputEvent::release(
                    InputSource::Key(name),
                ))));
        }
    }

    /// F3, F6, and every other key to the scene's action map.
    fn keys(&mut self, ctx: &egui::Context) {
        let focused = ctx.input(|i| i.focused);
        if !focused {
            self.release_keys();
            return;
        }
        let events = ctx.input(|i| i.events.clone());
        for event in events {
            let egui::Event::Key {
                key,
                pressed,
                repeat,
                ..
            } = event
            else {
                continue;
            };
            if repeat {
                continue;
            }
            match key {
                egui::Key::F3 if pressed => self.overlay = !self.overlay,
                egui::Key::F6 if pressed => self.debugger.send(Command::Run(Run::TogglePlay)),
                egui::Key::F3 | egui::Key::F6 => {}
                _ => {
                    // The name a scene binds: egui's key variant (`Space`).
                    let name = format!("{key:?}");
                    if pressed && self.held.insert(name.clone()) {
                        self.debugger
                            .send(Command::Run(Run::Input(InputEvent::press(
                                InputSource::Key(name),
                            ))));
                    } else if !pressed && self.held.remove(&name) {
                        self.debugger
                            .send(Command::Run(Run::Input(InputEvent::release(
                                InputSource::Key(name),
                            ))));
                    }
                }
            }
        }
    }
}

/// Every body at its presentation pose.
fn draw_world(ui: &egui::Ui, world: &WorldView) {
    let rect = ui.max_rect();
    let camera = Camera {
        center: world.camera.unwrap_or(DEFAULT_CENTRE),
        screen_center: (rect.center().x, rect.center().y),
        zoom: rect.height() / VIEW_HEIGHT_M,
    };
    let painter = ui.painter_at(rect);
    let to = |p: Vec2| {
        let (x, y) = camera.to_screen(p);
        Pos2::new(x, y)
    };
    for object in &world.objects {
        let Some(body) = &object.body else { continue };
        let colour = match body.kind {
            BodyKind::Dynamic => Color32::from_rgb(110, 170, 240),
            BodyKind::Kinematic => Color32::from_rgb(230, 180, 90),
            BodyKind::Fixed => Color32::from_gray(120),
            BodyKind::Soft => Color32::from_rgb(200, 120, 200),
        };
        let (fill, stroke) = if body.sensor {
            (Color32::TRANSPARENT, Stroke::new(1.0, colour))
        } else {
            (colour, Stroke::NONE)
        };
        if let Some(soft) = &body.soft {
            for p in &soft.particles {
                painter.circle_filled(to(*p), soft.radius * camera.zoom, colour);
            }
            continue;
        }
        let pose = object.presentation;
        for shape in &body.shapes {
            match (shape, geometry::local_outline(shape)) {
                (Shape::Circle { radius }, _) => {
                    let c = to(pose.position());
                    painter.circle(c, radius * camera.zoom, fill, stroke);
                    // A spoke, so rotation shows.
                    let rim = to(geometry::local_to_world(pose, Vec2::new(*radius, 0.0)));
                    painter.line_segment([c, rim], Stroke::new(1.0, Color32::from_gray(30)));
                }
                (_, Some(outline)) => {
                    let points = outline
                        .into_iter()
                        .map(|p| to(geometry::local_to_world(pose, p)))
                        .collect();
                    painter.add(egui::Shape::convex_polygon(points, fill, stroke));
                }
                (_, None) => {}
            }
        }
    }
}

/// A line at the top: paused or suspended, and whether an editor is attached.
fn status_ui(ui: &egui::Ui, world: &WorldView, attached: bool) {
    let mut text = match &world.suspension {
        Some(_) => format!(
            "{} · F6 resumes",
            crate::editor::panels::toolbar::status_text(world)
        ),
        None => String::new(),
    };
    if attached {
        if !text.is_empty() {
            text.push_str(" · ");
        }
        text.push_str("editor attached");
    }
    if text.is_empty() {
        return;
    }
    ui.painter().text(
        ui.max_rect().center_top() + egui::vec2(0.0, 8.0),
        egui::Align2::CENTER_TOP,
        text,
        egui::FontId::proportional(16.0),
        Color32::from_rgb(240, 200, 80),
    );
}

/// F3: the clock's fields, the accumulator and the time dropped.
fn overlay_ui(ui: &egui::Ui, world: &WorldView) {
    let c = &world.clock;
    let lines = [
        format!("frame_index      {}", c.frame_index),
        format!("frame_time       {:.4} s", c.frame_time),
        format!("delta_time       {:.4} s", c.delta_time),
        format!("simulation_tick  {}", c.simulation_tick),
        format!("simulation_time  {:.4} s", c.simulation_time),
        format!("fixed_delta_time {:.4} s", c.fixed_delta_time),
        format!("alpha            {:.3}", c.interpolation_alpha),
        format!("accumulator      {:.4} s", c.accumulator),
        format!("dropped_time     {:.4} s", c.dropped_time),
    ];
    let font = egui::FontId::monospace(14.0);
    let mut at = ui.max_rect().left_top() + egui::vec2(10.0, 10.0);
    for line in lines {
        ui.painter().text(
            at,
            egui::Align2::LEFT_TOP,
            line,
            font.clone(),
            Color32::WHITE,
        );
        at.y += 18.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stepframe_host::protocol::DisplayRate;

    fn player() -> PlayerWindow {
        let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/demo.ron");
        let mut debugger = Debugger::new(
            crate::Behaviours::built_in().registries(),
            DisplayRate::Hz(60),
        );
        debugger.load(scene, true);
        PlayerWindow {
            debugger,
            last: None,
            overlay: false,
            held: BTreeSet::new(),
            gamepads: super::super::gamepad::Gamepads::start(),
            end: None,
            pacing: None,
            failed: false,
        }
    }

    #[test]
    fn a_covered_window_plays_on() {
        let mut player = player();
        let ctx = egui::Context::default();
        // What eframe runs while the window is covered: `logic` alone,
        // no `ui` (the session used to run in `ui`, so a covered player
        // stood still).
        let mut raw = egui::RawInput::default();
        raw.viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .occluded = Some(true);
        for _ in 0..12 {
            let _ = ctx.run_logic(&raw, |ctx| player.logic(ctx));
            std::thread::sleep(std::time::Duration::from_millis(17));
        }
        let live = player.debugger.live().expect("a view");
        assert!(
            live.world.clock.simulation_tick >= 5,
            "the game played on while covered: tick {}",
            live.world.clock.simulation_tick
        );
        assert!(!player.failed);
    }

    #[test]
    fn a_games_player_window_carries_the_games_name_and_keeps_its_own_geometry() {
        let options = player_options("platformer", Path::new("/games/assets/level1.ron"));
        assert_eq!(
            options.viewport.title.as_deref(),
            Some("platformer: level1.ron")
        );
        assert_eq!(
            options.viewport.app_id.as_deref(),
            Some("platformer-player")
        );
        // Not the editor's app id (the game's name), whose file the
        // editor beside it writes its layout into.
        assert_ne!(player_app_id("platformer"), "platformer");
    }
}
