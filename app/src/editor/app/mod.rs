//! The eframe app: reads what the worker published, in order, handles the
//! shortcuts, and lays out the menu bar, the toolbar and the docked workspace.
//! It holds no simulation state of its own: the shared facts are in
//! [`Session`], and each panel keeps its own state beside it.
//!
//! It also watches the worker: each frame it asks whether the worker thread
//! has ended (it only polls, never joins a live thread). A dead worker, which
//! only a bug in the worker itself can cause since hook panics are caught in
//! the pipeline, turns into a red banner with the panic message and a
//! "Restart from last snapshot" button: a new worker continues from the newest
//! [`RecoveryPoint`] the dead one sent, paused there.

mod events;
mod shortcuts;

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use anyhow::Context as _;
use stepframe_core::LogLevel;

use super::bookmarks::BookmarksState;
use super::breakpoints::BreakpointForm;
use super::code_pane::CodePaneState;
use super::files::{FilesState, files_ui};
use super::inspector::EditBuffers;
use super::protocol::{Command, RecoveryPoint};
use super::state::{Persisted, Session};
use super::tape::TapeState;
use super::timeline::{TimelineSettings, TimelineState};
use super::toolbar::{banners_ui, menu_bar_ui, toasts_ui, toolbar_ui};
use super::viewport::ViewportState;
use super::watches::WatchesState;
use super::worker::{self, UiEnd, Worker, WorkerThread};
use super::workspace::Workspace;

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

/// Every panel's own state.
#[derive(Debug, Default)]
pub struct Panels {
    /// Camera and keyboard of the viewport.
    pub viewport: ViewportState,
    /// The inspector's edit fields.
    pub edits: EditBuffers,
    /// The breakpoint form.
    pub breakpoint_form: BreakpointForm,
    /// The open scene's bookmarks and the tab's note field.
    pub bookmarks: BookmarksState,
    /// The watches (persisted) and what they last reported.
    pub watches: WatchesState,
    /// The timeline: frame records, lanes, markers.
    pub timeline: TimelineState,
    /// The script code pane.
    pub code: CodePaneState,
    /// The Input tab: the tape list, its edit and file fields.
    pub tape: TapeState,
    /// Open / Save As / confirmation dialogs.
    pub files: FilesState,
}

impl Panels {
    /// The timeline draws the Bookmarks tab's list on its marker lane, and
    /// a lane for every plotted watch.
    fn sync_bookmarks(&mut self) {
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
        let plotted = self
            .watches
            .specs
            .iter()
            .enumerate()
            .filter(|(_, w)| w.enabled && w.action == stepframe_plugins::WatchAction::Plot)
            .map(|(i, w)| (i, w.expr.clone()))
            .collect();
        self.timeline.watch_lanes.set_plotted(plotted);
    }
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
    /// The shared facts.
    session: Session,
    /// Each panel's state.
    panels: Panels,
    /// The docked tiles.
    workspace: Workspace,
}

impl std::fmt::Debug for EditorApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorApp")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// Key the persisted settings are stored under.
const STORAGE_KEY: &str = "stepframe-editor";
/// Key the timeline's settings are stored under.
const TIMELINE_KEY: &str = "stepframe-timeline";
/// Storage key of the watches: they persist with the layout.
const WATCHES_KEY: &str = "stepframe-watches";

impl EditorApp {
    /// Starts the worker and opens `config.scene` (playing it, or showing its
    /// tick-0 preview). Settings and the layout come from `cc.storage` when
    /// present.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        config: EditorConfig,
    ) -> anyhow::Result<EditorApp> {
        let persisted: Persisted = cc
            .storage
            .and_then(|s| eframe::get_value(s, STORAGE_KEY))
            .unwrap_or_default();
        let timeline_settings: TimelineSettings = cc
            .storage
            .and_then(|s| eframe::get_value(s, TIMELINE_KEY))
            .unwrap_or_default();
        let workspace = Workspace::load(cc.storage);
        let watches: WatchesState = cc
            .storage
            .and_then(|s| eframe::get_value(s, WATCHES_KEY))
            .unwrap_or_default();
        let (ui_end, worker_end) = worker::channels();
        let running = match config.driver {
            Driver::Thread => {
                let worker = Worker::new(worker_end, persisted.pacing, Some(cc.egui_ctx.clone()))
                    .with_behaviours(config.behaviours.clone());
                let thread = worker::spawn(worker, ui_end.commands.clone())
                    .context("starting the worker thread")?;
                Running::Thread { thread }
            }
            Driver::Driven { dt } => Running::Driven {
                worker: Box::new(
                    Worker::new(worker_end, persisted.pacing, None)
                        .with_behaviours(config.behaviours.clone()),
                ),
                dt,
            },
        };
        let driven = matches!(config.driver, Driver::Driven { .. });
        let mut session = Session::new(ui_end.commands.clone(), persisted, driven);
        let mut panels = Panels::default();
        panels.timeline.apply_settings(&timeline_settings);
        panels.watches = watches;
        if !panels.watches.specs.is_empty() {
            panels.watches.sync(&mut session);
        }
        if let Some(mib) = config.history_mib {
            session.persisted.history_budget_mib = mib;
        }
        let budget = super::clock_panel::budget_bytes(session.persisted.history_budget_mib);
        session.send(Command::SetHistoryBudget(Some(budget)));
        let scene = worker::absolute(&config.scene);
        session.send(if config.play_on_start {
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
            session,
            panels,
            workspace,
        })
    }

    /// The shared facts (read by tests).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The shared facts, writable (tests send commands and select).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
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
        while let Ok(event) = self.ui_end.events.try_recv() {
            self.panels.timeline.on_event(&event);
            self.panels.watches.on_event(&event, &mut self.session);
            self.on_event(event);
        }
        while let Ok(view) = self.ui_end.views.try_recv() {
            self.session.live = Some(view);
        }
        while let Ok(view) = self.ui_end.past_views.try_recv() {
            // A view of a tick the user has left since is not shown.
            if self.session.cursor.is_some() {
                self.session.past = Some(view);
            }
        }
        while let Ok(point) = self.ui_end.recovery.try_recv() {
            self.session.recovery = Some(point);
        }
        if let Some(view) = &self.session.live
            && let Some(id) = self.session.selected
            && !view.objects.iter().any(|o| o.id == id)
            && self.session.cursor.is_none()
        {
            self.session.selected = None;
        }
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
        let offer = match &self.session.recovery {
            Some(p) => format!(
                "Restart from last snapshot continues from tick {} (frame {})",
                p.tick(),
                p.frame()
            ),
            None => "no snapshot to restart from".to_string(),
        };
        self.session.log.push(
            LogLevel::Error,
            None,
            format!("worker thread stopped: {message}; {offer}"),
        );
        self.session.worker_stopped = Some(message);
    }

    /// Starts a new worker from the last recovery point, suspended (paused) at
    /// its tick, run the way the first one was. The UI re-sends what its latest
    /// view shows and the point may predate: breakpoints, time settings, and
    /// the selection.
    fn restart_worker(&mut self) {
        self.session.restart_requested = false;
        if !matches!(self.running, Running::Stopped) {
            return;
        }
        // The point moves to the new worker, which restores it on its own
        // thread and sends it straight back as its first recovery point.
        let Some(point): Option<RecoveryPoint> = self.session.recovery.take() else {
            self.session.error = Some("no snapshot to restart the worker from".to_string());
            return;
        };
        let (ui_end, worker_end) = worker::channels();
        let pacing = self.session.persisted.pacing;
        let running = match self.driver {
            Driver::Thread => {
                let ctx = self.repaint.clone();
                let repaint = Some(ctx.clone());
                let behaviours = self.behaviours.clone();
                let build = move || {
                    Worker::restart(worker_end, pacing, Some(ctx), point)
                        .with_behaviours(behaviours)
                };
                match worker::spawn_with(build, ui_end.commands.clone(), repaint) {
                    Ok(thread) => Running::Thread { thread },
                    Err(e) => {
                        self.session.error = Some(format!("cannot start a worker thread: {e}"));
                        return;
                    }
                }
            }
            Driver::Driven { dt } => {
                let behaviours = self.behaviours.clone();
                let build =
                    || Worker::restart(worker_end, pacing, None, point).with_behaviours(behaviours);
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
        self.session.reconnect(self.ui_end.commands.clone());
        // The new worker brings back breakpoints, settings, the selection
        // and the history budget from the point itself, and says so with
        // Event::Restarted.
        self.session.worker_stopped = None;
        self.session.error = None;
        self.session.back_to_live();
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
        self.shortcuts(&ctx);

        let time = ctx.input(|i| i.time);
        egui::Panel::top("toolbar").show(ui, |ui| {
            menu_bar_ui(
                ui,
                &mut self.session,
                &mut self.panels.files,
                &mut self.workspace,
            );
            toolbar_ui(ui, &mut self.session, &mut self.workspace);
            banners_ui(ui, &mut self.session);
        });
        files_ui(&ctx, &mut self.panels.files, &mut self.session);
        self.panels.sync_bookmarks();
        egui::CentralPanel::default()
            .frame(egui::Frame::new())
            .show(ui, |ui| {
                toasts_ui(&ctx, &mut self.session, ui.max_rect(), time);
                let mut tiles = super::tiles::TileUi {
                    session: &mut self.session,
                    panels: &mut self.panels,
                    closed: Vec::new(),
                };
                self.workspace.tree.ui(&mut tiles, ui);
                for pane in std::mem::take(&mut tiles.closed) {
                    self.workspace.set_open(pane, false);
                }
            });
        if self.session.restart_requested {
            self.restart_worker();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.session.persisted);
        eframe::set_value(storage, TIMELINE_KEY, &self.panels.timeline.settings());
        eframe::set_value(storage, WATCHES_KEY, &self.panels.watches);
        self.workspace.save(storage);
    }
}
