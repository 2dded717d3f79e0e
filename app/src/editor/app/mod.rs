//! The eframe app: reads what the worker published, in order, handles the
//! shortcuts, lays out the menu bar, the toolbar and the docked workspace,
//! and applies the panels' UI actions in one place. It holds no session
//! state of its own (`shared`'s module docs): what the worker published, the
//! time cursor, the feedback, and each panel's own state.
//!
//! It also watches the worker: each frame it asks whether the worker thread
//! has ended (it only polls, never joins a live thread). A dead worker, which
//! only a bug in the worker itself can cause since hook panics are caught in
//! the pipeline, turns into a red banner with the panic message and a
//! "Restart from last snapshot" button: a new worker continues from the newest
//! [`RecoveryPoint`] the dead one sent, paused there.

mod events;
mod shortcuts;
mod stored;
mod stuck;

pub use crate::editor::shared::StuckHook;
pub use stuck::{STUCK_AFTER, Watchdog};

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use anyhow::Context as _;
use stepframe_core::LogLevel;

use super::files::files_ui;
use super::panels::Panels;
use super::panels::hierarchy::HierarchySettings;
use super::protocol::{Command, RecoveryPoint};
use super::shared::{
    Action, Commands, Feedback, Persisted, Published, TimeCursor, View, budget_bytes,
};
use super::timeline::TimelineSettings;
use super::worker::{self, UiEnd, Worker, WorkerThread};
use super::workspace::Workspace;
use crate::editor::panels::compare::compare_dialog_ui;
use crate::editor::panels::toolbar::{banners_ui, menu_bar_ui, toasts_ui, toolbar_ui};
use crate::editor::panels::watches::WatchesState;

/// Who calls the worker's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Driver {
    /// A worker thread paced to its own display rate (the real editor).
    Thread,
    /// The UI thread runs exactly one worker frame of `dt` seconds per UI frame
    /// (deterministic tests: `Harness::step` = one outer frame).
    Driven {
        /// Real seconds per frame handed to the pipeline.
        dt: f64,
    },
}

/// How to start the editor.
#[derive(Clone, Debug, PartialEq)]
pub struct EditorConfig {
    /// The scene opened at start-up.
    pub scene: PathBuf,
    /// Play the scene at once (the editor's default), or show its tick-0 preview.
    pub play_on_start: bool,
    /// Worker thread or synchronous driving.
    pub driver: Driver,
    /// The rewind history's byte budget for this run, MiB (`stepframe edit
    /// --history-mib`); `None`: the persisted one (256 MiB at first).
    pub history_mib: Option<u32>,
    /// The behaviours its scenes can name (a game's binary adds its own).
    pub behaviours: crate::Behaviours,
    /// When a hook call that has not returned counts as stuck, on which
    /// clock (threaded workers; `stuck`'s module docs).
    pub watchdog: Watchdog,
    /// The clock the worker's recovery cadence reads (the system's; a
    /// manual one in tests).
    pub recovery_clock: stepframe_core::WallClock,
}

impl EditorConfig {
    /// The real editor: worker thread, scene playing at start-up.
    pub fn threaded(scene: PathBuf) -> EditorConfig {
        EditorConfig {
            scene,
            play_on_start: true,
            driver: Driver::Thread,
            history_mib: None,
            behaviours: crate::Behaviours::built_in(),
            watchdog: Watchdog::default(),
            recovery_clock: stepframe_core::WallClock::system(),
        }
    }

    /// The test editor: one worker frame of `dt` per UI frame, same code paths.
    pub fn driven(scene: PathBuf, dt: f64) -> EditorConfig {
        EditorConfig {
            scene,
            play_on_start: true,
            driver: Driver::Driven { dt },
            history_mib: None,
            behaviours: crate::Behaviours::built_in(),
            watchdog: Watchdog::default(),
            recovery_clock: stepframe_core::WallClock::system(),
        }
    }
}

/// Who runs the worker.
enum Running {
    /// On its own thread (stopped and joined when this is dropped).
    Thread {
        /// Asked every frame whether it has ended; joined on drop.
        thread: WorkerThread,
    },
    /// Here, one frame per UI frame.
    Driven {
        /// The worker.
        worker: Box<Worker>,
        /// Seconds per frame.
        dt: f64,
    },
    /// The worker died; nothing runs until a restart.
    Stopped,
}

/// The editor. See the module docs.
pub struct EditorApp {
    /// Receiving ends of the worker's channels.
    ui_end: UiEnd,
    /// The worker.
    running: Running,
    /// How workers are run (a restarted one is run the same way).
    driver: Driver,
    /// The behaviours every worker's sessions can name.
    behaviours: crate::Behaviours,
    /// The UI's context, handed to a threaded worker to request repaints.
    repaint: egui::Context,
    /// What the worker last published (written only by `drain`).
    published: Published,
    /// The tick the user views.
    cursor: TimeCursor,
    /// The error line, notices and the log book.
    feedback: Feedback,
    /// The worker's command channel and the panels' UI actions.
    commands: Commands,
    /// The synchronous test driver runs the worker (the pacing choice does
    /// not apply).
    driven: bool,
    /// What persists besides the panels: sent to the worker at start, saved
    /// from the live view.
    persisted: Persisted,
    /// Each panel's state.
    panels: Panels,
    /// The docked tiles.
    workspace: Workspace,
    /// When a hook call counts as stuck.
    watchdog: Watchdog,
    /// The recovery cadence's clock, for every worker started.
    recovery_clock: stepframe_core::WallClock,
    /// The hook call the watchdog is timing.
    sighting: Option<stuck::Sighting>,
    /// Stored settings that did not read: not written back.
    stored_kept: stored::Kept,
}

impl std::fmt::Debug for EditorApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorApp")
            .field("cursor", &self.cursor)
            .finish_non_exhaustive()
    }
}

/// Key the persisted settings are stored under.
const STORAGE_KEY: &str = "stepframe-editor";
/// Key the timeline's settings are stored under.
const TIMELINE_KEY: &str = "stepframe-timeline";
/// Storage key of the watches: they persist with the layout.
const WATCHES_KEY: &str = "stepframe-watches";
/// Key the hierarchy's folds (per scene file) are stored under.
const HIERARCHY_KEY: &str = "stepframe-hierarchy";

impl EditorApp {
    /// Starts the worker and opens `config.scene` (playing it, or showing its
    /// tick-0 preview). Settings and the layout come from `cc.storage` when
    /// present.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        config: EditorConfig,
    ) -> anyhow::Result<EditorApp> {
        let mut kept = stored::Kept::default();
        let persisted: Persisted = kept.read(cc.storage, STORAGE_KEY);
        let timeline_settings: TimelineSettings = kept.read(cc.storage, TIMELINE_KEY);
        let workspace = Workspace::load(cc.storage);
        let watches: WatchesState = kept.read(cc.storage, WATCHES_KEY);
        let hierarchy: HierarchySettings = kept.read(cc.storage, HIERARCHY_KEY);
        let (ui_end, worker_end) = worker::channels();
        let running = match config.driver {
            Driver::Thread => {
                let worker = Worker::new(worker_end, persisted.pacing, Some(cc.egui_ctx.clone()))
                    .with_behaviours(config.behaviours.clone())
                    .with_wall_clock(config.recovery_clock.clone());
                let thread = worker::spawn(worker, ui_end.commands.clone())
                    .context("starting the worker thread")?;
                Running::Thread { thread }
            }
            Driver::Driven { dt } => Running::Driven {
                worker: Box::new(
                    Worker::new(worker_end, persisted.pacing, None)
                        .with_behaviours(config.behaviours.clone())
                        .with_wall_clock(config.recovery_clock.clone()),
                ),
                dt,
            },
        };
        let driven = matches!(config.driver, Driver::Driven { .. });
        let mut persisted = persisted;
        if let Some(mib) = config.history_mib {
            persisted.history_budget_mib = mib;
        }
        let mut commands = Commands::new(ui_end.commands.clone());
        let mut panels = Panels::default();
        panels.timeline.apply_settings(&timeline_settings);
        panels.hierarchy.apply_settings(hierarchy);
        panels.viewport.restore(&persisted);
        panels.log.errors_only = persisted.log_errors_only;
        panels.files.restore(cc.storage);
        panels.watches = watches;
        if !panels.watches.specs.is_empty() {
            panels.watches.sync(&mut commands);
        }
        if let Some(why) = &workspace.kept {
            commands.notify(LogLevel::Warning, format!("layout not read: {why}"));
        }
        for why in &kept.why {
            commands.notify(
                LogLevel::Warning,
                format!("settings not read (defaults used, the stored text kept): {why}"),
            );
        }
        commands.send(Command::SetHistoryBudget(Some(budget_bytes(
            persisted.history_budget_mib,
        ))));
        let scene = super::protocol::absolute(&config.scene);
        commands.send(if config.play_on_start {
            Command::LoadAndPlay(scene)
        } else {
            Command::Load(scene)
        });
        Ok(EditorApp {
            ui_end,
            running,
            driver: config.driver,
            behaviours: config.behaviours,
            repaint: cc.egui_ctx.clone(),
            published: Published::default(),
            cursor: TimeCursor::default(),
            feedback: Feedback::default(),
            commands,
            driven,
            persisted,
            panels,
            workspace,
            watchdog: config.watchdog,
            recovery_clock: config.recovery_clock,
            sighting: None,
            stored_kept: kept,
        })
    }

    /// What the worker last published (tests read the views through it).
    pub fn published(&self) -> &Published {
        &self.published
    }

    /// The tick every panel shows, if not live.
    pub fn cursor(&self) -> Option<u64> {
        self.cursor.tick
    }

    /// The error line, notices and the log book.
    pub fn feedback(&self) -> &Feedback {
        &self.feedback
    }

    /// What the panels read this frame.
    pub fn view(&self) -> View<'_> {
        View::new(
            &self.published,
            self.cursor.tick,
            &self.feedback.log,
            self.driven,
        )
    }

    /// Sends a command to the worker, as a panel does (tests).
    pub fn send(&mut self, command: Command) {
        self.commands.send(command);
        self.apply_actions();
    }

    /// Does what a panel asks, at once (tests: view a tick, back to live).
    pub fn act(&mut self, action: Action) {
        self.commands.act(action);
        self.apply_actions();
    }

    /// The panels' own state (read by tests).
    pub fn panels(&self) -> &Panels {
        &self.panels
    }

    /// The panels' own state, writable.
    pub fn panels_mut(&mut self) -> &mut Panels {
        &mut self.panels
    }

    /// The docked tiles (tests read their rectangles, open and close panes).
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The docked tiles, writable.
    pub fn workspace_mut(&mut self) -> &mut Workspace {
        &mut self.workspace
    }

    /// Takes everything the worker published: every event in order, the
    /// newest live view, the newest past view, the newest recovery point.
    fn drain(&mut self) {
        // The timeline's lanes follow the Watches list as the last frame left
        // it, before any value for a watch added then arrives.
        self.panels.sync_bookmarks();
        while let Ok(event) = self.ui_end.events.try_recv() {
            self.panels.timeline.on_event(&event);
            self.panels.watches.on_event(&event, &mut self.commands);
            self.on_event(event);
        }
        while let Ok(view) = self.ui_end.views.try_recv() {
            self.published.live = Some(view);
        }
        if let Some(live) = &self.published.live {
            self.panels.timeline.hold_an_hour(live.pacing);
        }
        while let Ok(view) = self.ui_end.past_views.try_recv() {
            self.published.past = Some(view);
        }
        while let Ok(point) = self.ui_end.recovery.try_recv() {
            self.published.recovery = Some(point);
        }
    }

    /// Applies the UI actions the panels asked for, in order (module docs).
    fn apply_actions(&mut self) {
        for action in self.commands.take_actions() {
            match action {
                Action::ViewTick(tick) => self.view_tick(tick),
                Action::BackToLive => self.back_to_live(),
                Action::ResumeFromCursor => {
                    if let Some(tick) = self.cursor.tick {
                        // Resume from here is a new start: no replay of the
                        // pause the visit made.
                        self.cursor.resume_on_leave = false;
                        self.commands.send(Command::ResumeFrom(tick));
                    }
                }
                Action::Notify(level, text) => self.feedback.notify(level, text),
                Action::Log(level, text) => self.feedback.log.push(level, None, text),
                Action::ClearLog => self.feedback.log.lines.clear(),
                Action::Error(text) => self.feedback.error(text),
                Action::DismissError => self.feedback.error = None,
                Action::RestartWorker => self.restart_worker(),
                Action::AbandonWorker => self.abandon_worker(),
                Action::OpenPane(pane) => self.workspace.set_open(pane, true),
                Action::PlotWatch(expr) => self.panels.watches.plot(expr, &mut self.commands),
                Action::UnplotWatch(expr) => {
                    self.panels.watches.unplot(&expr, &mut self.commands);
                }
            }
        }
    }

    /// Shows `tick` in every panel, pausing a running session first (and
    /// playing it again when the user goes back to live).
    fn view_tick(&mut self, tick: u64) {
        let playing = self
            .published
            .live
            .as_ref()
            .is_some_and(|v| v.suspension.is_none());
        if playing {
            self.commands.send(Command::Pause);
            if self.cursor.tick.is_none() {
                self.cursor.resume_on_leave = true;
            }
        }
        if self.cursor.tick != Some(tick) {
            self.cursor.tick = Some(tick);
            self.commands.send(Command::ViewTick(tick));
        }
    }

    /// Every panel back to the live session: playing again if the visit to
    /// the past paused it.
    fn back_to_live(&mut self) {
        if self.cursor.tick.take().is_some() {
            self.commands.send(Command::ViewLive);
        }
        self.published.past = None;
        if std::mem::take(&mut self.cursor.resume_on_leave) {
            self.commands.send(Command::Play);
        }
    }

    /// The live session moved on by itself (a resume, a load, a rewind):
    /// every panel follows it, with nothing to play again.
    fn follow_live(&mut self) {
        self.cursor.resume_on_leave = false;
        self.back_to_live();
    }

    /// Runs the driven worker's frame, or asks the worker thread whether it
    /// has ended. Returns why the worker died, if it just did. Never waits.
    fn poll_worker(&mut self) -> Option<String> {
        match &mut self.running {
            Running::Driven { worker, dt } => {
                let dt = *dt;
                // Same catch as the thread's: a worker bug must not take the UI down.
                std::panic::catch_unwind(AssertUnwindSafe(|| worker.pump(dt)))
                    .err()
                    .map(|payload| worker::panic_text(payload.as_ref()))
            }
            Running::Thread { thread } => thread.stopped(),
            Running::Stopped => None,
        }
    }

    /// The worker died: show it, keep what it sent, and stop sending to it.
    fn on_worker_stopped(&mut self, message: String) {
        self.running = Running::Stopped;
        let offer = match &self.published.recovery {
            Some(p) => format!(
                "Restart from last snapshot continues from tick {} (frame {})",
                p.tick(),
                p.frame()
            ),
            None => "no snapshot to restart from".to_string(),
        };
        self.feedback.log.push(
            LogLevel::Error,
            None,
            format!("worker thread stopped: {message}; {offer}"),
        );
        self.published.worker_stopped = Some(message);
    }

    /// Starts a new worker from the last recovery point, suspended (paused)
    /// at its tick, run the way the first one was. The point carries the dead
    /// worker's breakpoints, settings, selection and budget; the new worker
    /// brings them back and says so with `Event::Restarted`.
    fn restart_worker(&mut self) {
        if !matches!(self.running, Running::Stopped) {
            return;
        }
        // The point moves to the new worker, which restores it on its own
        // thread and sends it straight back as its first recovery point.
        let Some(point): Option<RecoveryPoint> = self.published.recovery.take() else {
            self.feedback
                .error("no snapshot to restart the worker from");
            return;
        };
        let (ui_end, worker_end) = worker::channels();
        let pacing = self
            .published
            .live
            .as_ref()
            .map_or(self.persisted.pacing, |v| v.pacing);
        let running = match self.driver {
            Driver::Thread => {
                let ctx = self.repaint.clone();
                let repaint = Some(ctx.clone());
                let behaviours = self.behaviours.clone();
                let clock = self.recovery_clock.clone();
                let build = move || {
                    Worker::restart(worker_end, pacing, Some(ctx), point)
                        .with_behaviours(behaviours)
                        .with_wall_clock(clock)
                };
                match worker::spawn_with(build, ui_end.commands.clone(), repaint) {
                    Ok(thread) => Running::Thread { thread },
                    Err(e) => {
                        self.feedback
                            .error(format!("cannot start a worker thread: {e}"));
                        return;
                    }
                }
            }
            Driver::Driven { dt } => {
                let behaviours = self.behaviours.clone();
                let clock = self.recovery_clock.clone();
                let build = || {
                    Worker::restart(worker_end, pacing, None, point)
                        .with_behaviours(behaviours)
                        .with_wall_clock(clock)
                };
                match std::panic::catch_unwind(AssertUnwindSafe(build)) {
                    Ok(worker) => Running::Driven {
                        worker: Box::new(worker),
                        dt,
                    },
                    Err(payload) => {
                        self.on_worker_stopped(worker::panic_text(payload.as_ref()));
                        return;
                    }
                }
            }
        };
        self.ui_end = ui_end;
        self.running = running;
        self.commands.reconnect(self.ui_end.commands.clone());
        self.published.worker_stopped = None;
        self.feedback.error = None;
        self.follow_live();
    }

    /// The stored settings: the panels' and what the live view says of the
    /// worker's pacing and budget.
    fn persisted_now(&self) -> Persisted {
        let mut p = self.persisted.clone();
        if let Some(live) = &self.published.live {
            p.pacing = live.pacing;
            if let Some(budget) = live.rewind.budget {
                p.history_budget_mib = u32::try_from(budget >> 20).unwrap_or(u32::MAX);
            }
        }
        self.panels.viewport.store(&mut p);
        p.log_errors_only = self.panels.log.errors_only;
        p
    }
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let stopped = self.poll_worker();
        // Whatever a dead worker sent before it died is still read.
        self.drain();
        if let Some(message) = stopped {
            self.on_worker_stopped(message);
        }
        let ctx = ui.ctx().clone();
        self.watch_hooks(&ctx);
        self.shortcuts(&ctx);
        self.apply_actions();

        let time = ctx.input(|i| i.time);
        let view = View::new(
            &self.published,
            self.cursor.tick,
            &self.feedback.log,
            self.driven,
        );
        let cmd = &mut self.commands;
        egui::Panel::top("toolbar").show(ui, |ui| {
            menu_bar_ui(ui, &view, cmd, &mut self.panels.files, &mut self.workspace);
            toolbar_ui(ui, &view, cmd, &mut self.workspace);
            banners_ui(ui, &view, cmd);
        });
        compare_dialog_ui(&ctx, &mut self.panels.files.compare, cmd);
        files_ui(&ctx, &view, cmd, &mut self.panels.files);
        self.panels.sync_bookmarks();
        egui::CentralPanel::default()
            .frame(egui::Frame::new())
            .show(ui, |ui| {
                toasts_ui(
                    &ctx,
                    &mut self.feedback.notices,
                    self.feedback.error.as_deref(),
                    cmd,
                    ui.max_rect(),
                    time,
                );
                let mut tiles = super::tiles::TileUi {
                    view,
                    cmd,
                    panels: &mut self.panels,
                    closed: Vec::new(),
                };
                self.workspace.tree.ui(&mut tiles, ui);
                for pane in std::mem::take(&mut tiles.closed) {
                    self.workspace.set_open(pane, false);
                }
            });
        self.apply_actions();
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let kept = &self.stored_kept;
        kept.write(storage, STORAGE_KEY, &self.persisted_now());
        kept.write(storage, TIMELINE_KEY, &self.panels.timeline.settings());
        kept.write(storage, WATCHES_KEY, &self.panels.watches);
        kept.write(storage, HIERARCHY_KEY, &self.panels.hierarchy.settings());
        self.panels.files.save(storage);
        self.workspace.save(storage);
    }
}
