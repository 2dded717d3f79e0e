//! The toolbar (play/pause, stepping, time settings, pacing), the status
//! line at the menu bar's right end, the Help menu's shortcut list, and the
//! banners under the toolbar: the viewed
//! tick, a dead worker with its restart button, the last error, and short
//! notices.

use crate::editor::protocol::{Run, TimeSetting};
use egui::{Color32, RichText};
use stepframe_core::{LogLevel, StepStrategy, SuspendReason, Suspension, TimeSettings};

use std::collections::VecDeque;

use crate::editor::protocol::{Command, DisplayRate, WorldView};
use crate::editor::shared::{Action, Commands, NOTICE_SECONDS, Notice, Reading};
use crate::editor::words;
use crate::editor::workspace::{Pane, Workspace};

/// Fixed rates offered; each divides 705,600,000 flicks per second, so every
/// tick length is a whole number of flicks (exact time, see `core::clock`).
pub const FIXED_RATES: [u32; 6] = [30, 50, 60, 120, 144, 240];

/// "running", or "suspended at tick T: reason".
pub fn status_text(view: &WorldView) -> String {
    match &view.suspension {
        None => "running".to_string(),
        Some(s) => suspension_text(s, Some(view)),
    }
}

/// "suspended at tick T: reason", with object names from the view.
pub fn suspension_text(s: &Suspension, view: Option<&WorldView>) -> String {
    let reason = match view {
        Some(v) => reason_text(s, v),
        None => s.reason.to_string(),
    };
    format!("suspended at tick {}: {reason}", s.tick)
}

fn reason_text(s: &Suspension, view: &WorldView) -> String {
    let name = |id| {
        view.objects
            .iter()
            .find(|o| o.id == id)
            .map(|o| format!("{} {}", o.name, o.id))
            .unwrap_or_else(|| id.to_string())
    };
    match &s.reason {
        SuspendReason::Breakpoint(hit) => {
            let place = if s.end_of_tick {
                "end of tick"
            } else {
                "before the hook"
            };
            format!(
                "breakpoint {} on {} {} ({}), {place}",
                hit.breakpoint.0,
                name(hit.object),
                hit.hook,
                hit.behaviour
            )
        }
        SuspendReason::Clock(hit) => {
            let place = if s.end_of_tick {
                "end of tick"
            } else {
                "end of frame"
            };
            format!("{hit}, {place}")
        }
        SuspendReason::Requested {
            object,
            hook,
            message,
        } => format!("break requested by {} {hook}: {message}", name(*object)),
        SuspendReason::Fault {
            object,
            hook,
            message,
        } => format!("fault in {} {hook}: {message}", name(*object)),
        other => other.to_string(),
    }
}

/// Every shortcut, one per line: the Help menu and the F1 window.
pub fn shortcuts_ui(ui: &mut egui::Ui) {
    for line in [
        "Space  play / pause (not while the viewport has the keyboard)",
        "F10 or .  step one fixed tick",
        "Shift+F10  step one outer frame",
        "F5  resume",
        "F9  FixedUpdate breakpoint on the selection",
        "Click the timeline  view that tick in every panel",
        // Words, not arrows: the default fonts have no "←" glyph.
        "Left/Right on the timeline  one frame or tick back or on (Ctrl+T gives it the keyboard)",
        "Ctrl+F  find an object (the hierarchy's filter)",
        "Esc  back to live · Enter  resume from the viewed tick",
        "Ctrl+B  bookmark the tick shown",
        "Ctrl+Shift+F  fork here (while suspended or viewing a past tick)",
        "Ctrl+wheel  zoom time · Alt+wheel  zoom a lane's y · Shift+drag  select",
        "Ctrl+O open · Ctrl+R reload · Ctrl+S save · Ctrl+Shift+S save as",
        "Ctrl+Shift+R  replay the session with a new build of the game",
        "Ctrl+F5  run the scene in a player window, attached",
        crate::editor::panels::edit_menu::HELP_LINE,
        "F1  this list",
    ] {
        ui.label(line);
    }
}

/// Draws the toolbar.
pub fn toolbar_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    workspace: &mut Workspace,
) {
    let settings = reading.live().map(|v| v.settings).unwrap_or_default();
    // A dead host runs nothing: its controls wait for Restart (the banner).
    let alive = reading.worker_stopped().is_none();
    let dead = "The session host stopped: Restart (in the banner) first";
    ui.horizontal_wrapped(|ui| {
        ui.add_enabled_ui(alive, |ui| controls_ui(ui, reading, cmd))
            .response
            .on_disabled_hover_text(dead);
        ui.separator();
        ui.add_enabled_ui(alive, |ui| settings_ui(ui, reading, cmd, settings))
            .response
            .on_disabled_hover_text(dead);
        ui.separator();
        let mut code = workspace.is_open(Pane::Code);
        if ui
            .toggle_value(&mut code, "📜 Code")
            .on_hover_text(
                "The script code pane: the scene's rhai scripts, line breakpoints, hits, editing",
            )
            .changed()
        {
            workspace.set_open(Pane::Code, code);
        }
    });
}

/// The status line and its colour.
fn status(reading: &Reading<'_>, ui: &egui::Ui) -> (String, Color32) {
    if reading.worker_stopped().is_some() {
        return ("host stopped".to_string(), ui.visuals().error_fg_color);
    }
    if reading.worker_stuck().is_some() {
        return (
            "host stuck in a hook".to_string(),
            Color32::from_rgb(235, 150, 40),
        );
    }
    let Some(live) = reading.live() else {
        return ("starting".to_string(), ui.visuals().weak_text_color());
    };
    if let Some(tick) = reading.cursor() {
        let frame = reading
            .shown()
            .filter(|v| v.at_tick == Some(tick))
            .map_or_else(
                || " (building…)".to_string(),
                |v| format!(" (frame {})", v.clock.frame_index),
            );
        let live = match &live.world.suspension {
            Some(s) => format!("suspended at {}", s.tick),
            None => "running".to_string(),
        };
        return (
            format!("viewing tick {tick}{frame} · live: {live}"),
            Color32::from_rgb(120, 180, 255),
        );
    }
    let colour = if live.world.suspension.is_some() {
        Color32::from_rgb(230, 160, 40)
    } else {
        Color32::from_rgb(90, 190, 90)
    };
    (status_text(&live.world), colour)
}

/// Dark red, readable under white text in both themes.
const BANNER_FILL: Color32 = Color32::from_rgb(150, 25, 25);
/// Dark blue of the viewed-tick banner.
const VIEWING_FILL: Color32 = Color32::from_rgb(30, 60, 110);

/// The banner under the toolbar when the worker has died (the editor's one
/// mode where nothing runs until the user acts).
pub fn banners_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    if let Some((done, of, tick)) = reading.published().replaying {
        // A new host doing the session again: how far it has got.
        ui.horizontal(|ui| {
            ui.label(format!("Doing the session again: tick {tick}"));
            ui.add(
                egui::ProgressBar::new(done as f32 / of.max(1) as f32)
                    .desired_width(240.0)
                    .text(format!("{done} of {of} steps")),
            );
        });
    }
    if let Some(progress) = reading.rebuild() {
        rebuild_ui(ui, progress, cmd);
    } else if let Some(build) = reading.new_build() {
        new_build_ui(ui, build, cmd);
    }
    if reading.worker_stopped().is_some() {
        worker_stopped_ui(ui, reading, cmd);
    } else if let Some(stuck) = reading.worker_stuck() {
        worker_stuck_ui(ui, stuck, cmd);
    }
}

/// A banner under the toolbar: the full width, `fill` behind one wrapped
/// row of what `add` draws (the new-build, stuck-hook and stopped-host
/// banners share it).
fn banner_ui(ui: &mut egui::Ui, fill: Color32, add: impl FnOnce(&mut egui::Ui)) {
    egui::Frame::new()
        .fill(fill)
        .inner_margin(egui::Margin::symmetric(8, 6))
        .corner_radius(4.0)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_wrapped(add);
        });
}

/// Green: a new build of the game is ready to replay the session with.
const NEW_BUILD_FILL: Color32 = Color32::from_rgb(30, 100, 55);

/// The bar that offers a new build (`shell::rebuild`).
fn new_build_ui(ui: &mut egui::Ui, build: &crate::editor::shared::NewBuild, cmd: &mut Commands) {
    banner_ui(ui, NEW_BUILD_FILL, |ui| {
        ui.label(
            RichText::new(format!("A new build of {} is ready", build.program))
                .color(Color32::WHITE)
                .strong(),
        );
        if ui
            .button("Replay with the new build (Ctrl+Shift+R)")
            .on_hover_text(
                "Start the new build beside this one and do the session again with it, \
                 to where this one stands, paused there (a past tick on screen stays on \
                 screen); the scene is read again from its \
                 file. This build's run becomes B, so the timeline shows where the two \
                 first differ. Breakpoints, watches and the layout stay",
            )
            .clicked()
        {
            cmd.act(Action::ReplayNewBuild);
        }
        let mut automatic = build.automatic;
        if ui
            .checkbox(&mut automatic, "Replay new builds automatically")
            .changed()
        {
            cmd.act(Action::ReplayNewBuildsAutomatically(automatic));
        }
    });
}

/// The replay with a new build, while it runs: a bar in ticks and ticks
/// per second, and the way out.
fn rebuild_ui(
    ui: &mut egui::Ui,
    progress: &crate::editor::shared::RebuildProgress,
    cmd: &mut Commands,
) {
    ui.horizontal(|ui| {
        ui.label(format!(
            "Replaying with the new build: tick {} of {}",
            progress.tick, progress.target
        ));
        ui.add(
            egui::ProgressBar::new(progress.tick as f32 / progress.target.max(1) as f32)
                .desired_width(240.0)
                .text(format!("{:.0} ticks/s", progress.ticks_per_s)),
        );
        if ui
            .button("Cancel (Esc)")
            .on_hover_text("Stop the new build's host; this session stays as it is")
            .clicked()
        {
            cmd.act(Action::CancelRebuild);
        }
    });
}

/// Orange: the worker is alive but has not come back from one hook.
const STUCK_FILL: Color32 = Color32::from_rgb(160, 90, 10);

/// The stuck worker's banner: the hook that has not returned, its thread's
/// CPU, and the way out (`shell::stuck`).
fn worker_stuck_ui(
    ui: &mut egui::Ui,
    stuck: &crate::editor::shared::StuckHook,
    cmd: &mut Commands,
) {
    banner_ui(ui, STUCK_FILL, |ui| {
        let text = format!(
            "Session host stuck for {:.0} s in {}: the hook has not returned; {}",
            stuck.running_for.as_secs_f64(),
            stuck.call_text(),
            stuck.cpu_text()
        );
        ui.label(RichText::new(text).color(Color32::WHITE).strong())
            .on_hover_text(if stuck.process {
                "An endless loop in a behaviour never returns. Abandoning kills the \
                 session host's process and continues in a new one"
            } else {
                "An endless loop in a behaviour cannot be stopped from outside it. \
                 Abandoning leaves its thread running (it keeps its core busy until \
                 the editor exits) and continues in a new host"
            });
        if ui
            .button("Abandon and restart")
            .on_hover_text(
                "A new session host does the session again up to where this one \
                 stands, paused there; the stuck one is walked away from",
            )
            .clicked()
        {
            cmd.act(Action::AbandonWorker);
        }
    });
}

/// The last error (until dismissed) and recent notices (for
/// [`NOTICE_SECONDS`]), floating at the top right of `area` (the viewport's
/// picture, where no panel control is under them) so that showing or
/// hiding them never moves a panel under the pointer. `time` is the UI's
/// clock.
pub fn toasts_ui(
    ctx: &egui::Context,
    notices: &mut VecDeque<Notice>,
    error: Option<&str>,
    cmd: &mut Commands,
    area: egui::Rect,
    time: f64,
) {
    for notice in notices.iter_mut() {
        notice.since.get_or_insert(time);
    }
    notices.retain(|n| n.since.is_none_or(|t| time - t < NOTICE_SECONDS));
    // A paused session asks for no frames: without one when the oldest
    // notice is due, it would stay (over a panel) until the mouse moved.
    if let Some(due) = notices
        .iter()
        .filter_map(|n| n.since)
        .map(|t| t + NOTICE_SECONDS - time)
        .reduce(f64::min)
    {
        ctx.request_repaint_after(std::time::Duration::from_secs_f64(due.max(0.0)));
    }
    if error.is_none() && notices.is_empty() {
        return;
    }
    let width = (area.width() * 0.6).max(240.0);
    let mut top = area.right_top() + egui::vec2(-12.0, 8.0);
    if let Some(error) = error {
        let shown = egui::Area::new(egui::Id::unique("stepframe_error_toast"))
            .order(egui::Order::Foreground)
            .fixed_pos(top)
            .pivot(egui::Align2::RIGHT_TOP)
            .show(ctx, |ui| {
                ui.set_max_width(width);
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal_wrapped(|ui| {
                        ui.colored_label(ui.visuals().error_fg_color, format!("error: {error}"))
                            .on_hover_text(
                                "The last failed request; the session goes on unchanged",
                            );
                        if ui
                            .small_button("Dismiss")
                            .on_hover_text("Hide this error (it stays in the log)")
                            .clicked()
                        {
                            cmd.act(Action::DismissError);
                        }
                    });
                });
            });
        top.y = shown.response.rect.bottom() + 4.0;
    }
    if notices.is_empty() {
        return;
    }
    // Notices only inform: the pointer goes through them to the panel
    // beneath, so a button under a fresh notice still takes its click.
    egui::Area::new(egui::Id::unique("stepframe_notice_toasts"))
        .order(egui::Order::Foreground)
        .interactable(false)
        .fixed_pos(top)
        .pivot(egui::Align2::RIGHT_TOP)
        .show(ctx, |ui| {
            ui.set_max_width(width);
            for notice in notices.iter() {
                let colour = match notice.level {
                    LogLevel::Info => Color32::from_rgb(120, 200, 120),
                    LogLevel::Warning => Color32::from_rgb(230, 180, 60),
                    LogLevel::Error => ui.visuals().error_fg_color,
                };
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.label(RichText::new(&notice.text).color(colour));
                });
            }
        });
}

/// The viewed-tick banner (in the menu bar, right-aligned: right to left).
fn viewing_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands, tick: u64) {
    let live = reading
        .live()
        .map(|v| v.world.clock.simulation_tick)
        .unwrap_or(0);
    if ui
        .small_button("Back to live")
        .on_hover_text(
            "Every panel back to the live session (Esc); a session the visit paused plays again",
        )
        .clicked()
    {
        cmd.back_to_live();
    }
    egui::Frame::new()
        .fill(VIEWING_FILL)
        .inner_margin(egui::Margin::symmetric(6, 1))
        .corner_radius(3.0)
        .show(ui, |ui| {
            ui.label(
                RichText::new(format!(
                    "viewing tick {tick} · live is at tick {live} · Esc: back to live · Enter: resume from here"
                ))
                .color(Color32::WHITE)
                .strong(),
            )
            .on_hover_text(
                "Every panel shows the session as it was at the end of this tick, rebuilt \
                 exactly from the rewind history; the live session waits, paused, and plays \
                 again on Esc if it was playing",
            );
        });
}

/// The dead host's banner: the fault that ended it (kind, object, hook,
/// tick) or its panic message, and the restart button.
fn worker_stopped_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    let Some(stopped) = reading.worker_stopped() else {
        return;
    };
    let (title, why, restart) = match stopped {
        crate::editor::shared::HostStopped::Fault(fault) => (
            format!("Your code took the session host down: {fault}"),
            "A fault no process survives (an abort, a stack overflow, memory exhausted, a hook \
             that never returned) ended the session's process; the editor, its panels and \
             your unsaved edits are here",
            format!("Restart at tick {}", fault.tick.saturating_sub(1)),
        ),
        crate::editor::shared::HostStopped::Ended(why) => (
            format!("The session host stopped: {why}"),
            "A bug in the host itself ended it (hook panics are caught and logged instead); \
             nothing runs until a restart",
            "Restart".to_string(),
        ),
        crate::editor::shared::HostStopped::GameGone(why) => {
            game_gone_ui(ui, why, cmd);
            return;
        }
    };
    banner_ui(ui, BANNER_FILL, |ui| {
        ui.label(RichText::new(title).color(Color32::WHITE).strong())
            .on_hover_text(why);
        let hover = format!(
            "Start a new session host and do the session again ({}), up to where \
             this one stood (before the tick that faulted), paused there: \
             breakpoints, edits and the selection are kept, and Save writes the edits",
            crate::editor::words::count(reading.journal().len() as u64, "step", "steps")
        );
        if ui.button(restart).on_hover_text(hover).clicked() {
            cmd.act(Action::RestartWorker);
        }
    });
}

/// The attached game's banner: why it is gone, and Detach (Restart does
/// not apply: the game is another program, started by someone else).
fn game_gone_ui(ui: &mut egui::Ui, why: &str, cmd: &mut Commands) {
    banner_ui(ui, BANNER_FILL, |ui| {
        ui.label(
            RichText::new(format!("The game you attached to is gone: {why}"))
                .color(Color32::WHITE)
                .strong(),
        )
        .on_hover_text(
            "Restart does not apply to a game you attached to: start it again and \
             attach, or Detach to open the scene in a session of the editor's own",
        );
        if ui
            .button("Detach")
            .on_hover_text("Open the scene in a session host of the editor's own")
            .clicked()
        {
            cmd.act(Action::Detach);
        }
    });
}

fn controls_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    if reading.is_suspended() {
        if ui
            .button("▶ Play")
            .on_hover_text("Resume the session (Space, or F5 to continue from a breakpoint)")
            .clicked()
        {
            cmd.send(Command::Run(Run::Play));
        }
    } else if ui
        .button("⏸ Pause")
        .on_hover_text("Suspend between frames (Space)")
        .clicked()
    {
        cmd.send(Command::Run(Run::Pause));
    }
    if ui
        .button("Step tick")
        .on_hover_text("Run exactly one fixed tick, then stay suspended (F10 or .)")
        .clicked()
    {
        cmd.send(Command::Run(Run::StepTick));
    }
    if ui
        .button("Step frame")
        .on_hover_text("Run one outer frame (or the rest of the interrupted one), then stay suspended (Shift+F10)")
        .clicked()
    {
        cmd.send(Command::Run(Run::StepFrame));
    }
}

fn settings_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    settings: TimeSettings,
) {
    let mut scale = settings.time_scale;
    let label = ui.label("Time scale");
    egui::ComboBox::from_id_salt("time_scale")
        .selected_text(format!("{scale}×"))
        .show_ui(ui, |ui| {
            for s in TimeSettings::TIME_SCALES {
                ui.selectable_value(&mut scale, s, format!("{s}×"));
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Multiplies the frame delta; 0 runs no fixed tick at all");
    if scale != settings.time_scale {
        cmd.send(Command::Run(Run::Set(TimeSetting::TimeScale(scale))));
    }

    let mut hz = settings.fixed_hz;
    let label = ui.label("Fixed rate");
    egui::ComboBox::from_id_salt("fixed_rate")
        .selected_text(format!("{hz} Hz"))
        .show_ui(ui, |ui| {
            for r in FIXED_RATES {
                ui.selectable_value(&mut hz, r, format!("{r} Hz"));
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Fixed ticks per second (applies at the next frame boundary)");
    if hz != settings.fixed_hz {
        cmd.send(Command::Run(Run::Set(TimeSetting::FixedRate(hz))));
    }

    let mut strategy = settings.strategy;
    let label = ui.label("Strategy");
    egui::ComboBox::from_id_salt("strategy")
        .selected_text(strategy.name())
        .show_ui(ui, |ui| {
            for s in StepStrategy::ALL {
                ui.selectable_value(&mut strategy, s, s.name());
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Accumulator (Fiedler/Unity) or step counting (s&box): same tick sequence");
    if strategy != settings.strategy {
        cmd.send(Command::Run(Run::Set(TimeSetting::Strategy(strategy))));
    }

    let mut max_steps = settings.max_steps;
    let label = ui
        .label("Max steps")
        .on_hover_text("Most ticks one frame may run; the backlog beyond is dropped");
    ui.add(egui::DragValue::new(&mut max_steps).range(1..=16))
        .labelled_by(label.id)
        .on_hover_text("Most ticks one frame may run; the backlog beyond is dropped and counted in dropped_time");
    if max_steps != settings.max_steps {
        cmd.send(Command::Run(Run::Set(TimeSetting::MaxSteps(max_steps))));
    }

    if reading.driven() {
        ui.label("Pacing: driven")
            .on_hover_text("Test driver: one worker frame per UI frame with a fixed dt");
    } else {
        let current = reading.live().map(|v| v.display_rate).unwrap_or_default();
        let mut pacing = current;
        let label = ui.label("Pacing");
        egui::ComboBox::from_id_salt("pacing")
            .selected_text(words::display_rate(pacing))
            .show_ui(ui, |ui| {
                for p in DisplayRate::CHOICES {
                    ui.selectable_value(&mut pacing, p, words::display_rate(p));
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text(
                "The worker's own display rate, independent of how often this window repaints",
            );
        if pacing != current {
            cmd.send(Command::Run(Run::SetDisplayRate(pacing)));
        }
    }
}

/// The menu bar's right end: the viewed-tick banner, then the running
/// scene's file, the game attached to, and the session's status.
pub fn scene_status_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
        if let Some(tick) = reading.cursor() {
            viewing_ui(ui, reading, cmd, tick);
        }
        let path = reading.live().and_then(|v| v.scene_path.clone());
        let name = path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "no scene".to_string());
        let full = path
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "no scene loaded".to_string());
        ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
            ui.label(RichText::new(format!("scene: {name}")).weak())
                .on_hover_text(format!(
                    "{full}\n\nThe running scene's file: what Save writes and Reload reads"
                ));
            if let Some(addr) = reading.attached() {
                ui.separator();
                ui.label(RichText::new(format!("attached to {addr}")).strong())
                    .on_hover_text(
                        "Every panel reads a game running in a process of its own; \
                         File → Detach lets it go on by itself",
                    );
            }
            ui.separator();
            let (text, colour) = status(reading, ui);
            // One line: a long reason is cut, in full on hover.
            ui.add(egui::Label::new(RichText::new(&text).color(colour).strong()).truncate())
                .on_hover_text(format!(
                    "{text}\n\nSession state: running, suspended with the completed tick and the reason, or the tick every panel shows"
                ));
        });
    });
}
