//! The eframe app: reads what the worker published, in order, handles the
//! shortcuts, lays out the menu bar, the toolbar and the docked workspace,
//! and applies the panels' UI actions in one place. It holds no session
//! state of its own (`shared`'s module docs): what the worker published, the
//! time cursor, the feedback, and each panel's own state.
//!
//! It also watches the host: each frame it asks whether the worker thread
//! has ended (it only polls, never joins a live thread). A dead host turns
//! into a red banner with why and a "Restart" button: a new host does the
//! session's journal again (every frame, command and edit since the scene
//! was loaded, which the editor keeps as the host sends it) and stands,
//! suspended, where the dead one was.

/// What the panels read this frame ([`Reading`]), from `app`'s fields: a
/// macro rather than a method, so it borrows those fields alone and the
/// caller can still lend the panels and the commands mutably beside it.
macro_rules! reading_of {
    ($app:expr) => {
        Reading::new(
            &$app.published,
            &$app.cursor,
            &$app.bookmarks,
            &$app.feedback.log,
            $app.driven,
        )
    };
}

mod attach;
mod events;
mod host;
mod intake;
mod menu_bar;
mod rebuild;
mod shortcuts;
mod stored;
mod stuck;

pub use crate::editor::shared::StuckHook;
pub use host::{Driver, HostStopped};
pub use stuck::{STUCK_AFTER, Watchdog};

use host::Running;

use std::path::PathBuf;

use anyhow::Context as _;
use stepframe_core::LogLevel;
use stepframe_host::protocol::{RewindCommand, SceneCommand, WatchCommand};
use stepframe_host::worker::{FrontEnd, Registries, Waker};
use stepframe_plugins::WatchSpec;

use super::bookmarks::Bookmarks;
use super::files::files_ui;
use super::panels::Panels;
use super::panels::hierarchy::HierarchySettings;
use super::protocol::Command;
use super::shared::{
    Action, Commands, Feedback, Persisted, Published, Reading, TimeCursor, budget_bytes,
};
use super::timeline::{TimelineSettings, TimelineState};
use super::workspace::Workspace;
use crate::editor::panels::compare::compare_dialog_ui;
use crate::editor::panels::toolbar::{banners_ui, toasts_ui, toolbar_ui};

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
    /// Offer the first-run hint on the bundled demo until it is dismissed
    /// (the test driver starts without it, as after a dismissal, so no
    /// test's click lands on it by chance).
    pub welcome: bool,
    /// Arguments File → Run in player adds after `run SCENE --debug`
    /// (none for a user; tests pass `--headless`: a player with no window,
    /// on a machine without a display).
    pub player_args: Vec<String>,
}

impl EditorConfig {
    /// The real editor: the session host in a child process of this
    /// executable, the scene playing at start-up.
    pub fn new(scene: PathBuf) -> EditorConfig {
        EditorConfig {
            scene,
            play_on_start: true,
            driver: Driver::Process {
                program: None,
                limits: stepframe_host::supervise::Limits::default(),
            },
            history_mib: None,
            behaviours: crate::Behaviours::built_in(),
            watchdog: Watchdog::default(),
            welcome: true,
            player_args: Vec::new(),
        }
    }

    /// The host on a thread of this process, through the same codec
    /// (`edit --in-process`: one process for a native debugger).
    pub fn threaded(scene: PathBuf) -> EditorConfig {
        EditorConfig {
            driver: Driver::Thread,
            ..EditorConfig::new(scene)
        }
    }

    /// The host in a child process of `program` (tests: the binary cargo
    /// built for them).
    pub fn process(scene: PathBuf, program: PathBuf) -> EditorConfig {
        EditorConfig {
            driver: Driver::Process {
                program: Some(program),
                limits: stepframe_host::supervise::Limits::default(),
            },
            ..EditorConfig::new(scene)
        }
    }

    /// The test editor: one worker frame of `dt` per UI frame, same code paths.
    pub fn driven(scene: PathBuf, dt: f64) -> EditorConfig {
        EditorConfig {
            driver: Driver::Driven { dt },
            welcome: false,
            ..EditorConfig::threaded(scene)
        }
    }
}

/// The editor. See the module docs.
pub struct Editor {
    /// The host's channels: commands out, everything it sends in.
    front: FrontEnd,
    /// The worker.
    running: Running,
    /// How workers are run (a restarted one is run the same way).
    driver: Driver,
    /// How the editor's own session host is run: `driver`, or after an
    /// attach, what Detach goes back to (`attach`).
    home: Driver,
    /// How each scene's behaviour registry is made (the built-ins and a
    /// game's own), for every host started.
    registries: Registries,
    /// Wakes the UI when a threaded host sends something.
    waker: Waker,
    /// What the host last published (written only by `drain`).
    published: Published,
    /// The tick the user views.
    cursor: TimeCursor,
    /// The open scene's bookmarks (UI state every panel reads).
    bookmarks: Bookmarks,
    /// The error line, notices and the log book.
    feedback: Feedback,
    /// The host's command channel and the panels' UI actions.
    commands: Commands,
    /// The synchronous test driver runs the worker (the display rate does
    /// not apply).
    driven: bool,
    /// What persists besides the panels: sent to the host at start, saved
    /// from the live view.
    persisted: Persisted,
    /// Each panel's state.
    panels: Panels,
    /// The docked tiles.
    workspace: Workspace,
    /// When a hook call counts as stuck.
    watchdog: Watchdog,
    /// The hook call the watchdog is timing.
    sighting: Option<stuck::Sighting>,
    /// Stored settings that did not read: not written back.
    stored_unread: stored::Unread,
    /// The host program's file, looked at for a new build (a host process
    /// only).
    build_watch: Option<rebuild::BuildWatch>,
    /// A replay of the session with a new build, while it runs.
    rebuild: Option<rebuild::Rebuild>,
    /// The shortcut list's window (F1) is open.
    help_open: bool,
    /// Offer the first-run hint (`EditorConfig::welcome`).
    welcome: bool,
    /// What Run in player adds to the player's arguments
    /// (`EditorConfig::player_args`).
    player_args: Vec<String>,
}

impl std::fmt::Debug for Editor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Editor")
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

/// The watches as stored (the host owns the list while it runs; the
/// editor keeps it between runs).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
struct StoredWatches {
    /// The list, in order.
    specs: Vec<WatchSpec>,
}

impl Editor {
    /// Starts the worker and opens `config.scene` (playing it, or showing its
    /// tick-0 preview). Settings and the layout come from `cc.storage` when
    /// present.
    pub fn new(cc: &eframe::CreationContext<'_>, config: EditorConfig) -> anyhow::Result<Editor> {
        let mut unread = stored::Unread::default();
        let persisted: Persisted = unread.read(cc.storage, STORAGE_KEY);
        let timeline_settings: TimelineSettings = unread.read(cc.storage, TIMELINE_KEY);
        let workspace = Workspace::load(cc.storage);
        let watches: StoredWatches = unread.read(cc.storage, WATCHES_KEY);
        let hierarchy: HierarchySettings = unread.read(cc.storage, HIERARCHY_KEY);
        let ctx = cc.egui_ctx.clone();
        let waker: Waker = std::sync::Arc::new(move || ctx.request_repaint());
        let registries = config.behaviours.registries();
        let mut config = config;
        // The program is named once, now: after a `cargo build` replaces
        // this executable, `current_exe` names a deleted file.
        if let Driver::Process { program, .. } = &mut config.driver
            && program.is_none()
        {
            *program = Some(std::env::current_exe().context("finding this executable")?);
        }
        let build_watch = match &config.driver {
            Driver::Process {
                program: Some(program),
                ..
            } => Some(rebuild::BuildWatch::new(program.clone())),
            _ => None,
        };
        let (front, running) =
            host::start(&config.driver, persisted.display_rate, &registries, &waker)
                .context("starting the session host")?;
        let driven = matches!(config.driver, Driver::Driven { .. });
        let attached = match &config.driver {
            Driver::Attach { addr, .. } => Some(addr.to_string()),
            _ => None,
        };
        let home = match &config.driver {
            Driver::Attach { .. } => Driver::Process {
                program: Some(std::env::current_exe().context("finding this executable")?),
                limits: stepframe_host::supervise::Limits::default(),
            },
            driver => driver.clone(),
        };
        let mut persisted = persisted;
        if let Some(mib) = config.history_mib {
            persisted.history_budget_mib = mib;
        }
        let mut commands = Commands::new(front.commands.clone());
        let mut panels = Panels::default();
        panels.timeline.apply_settings(&timeline_settings);
        panels.hierarchy.apply_settings(hierarchy);
        panels.viewport.restore(&persisted);
        panels.log.errors_only = persisted.log_errors_only;
        panels.files.restore(cc.storage);
        // The stored list becomes the host's, which the Watches tab shows.
        if !watches.specs.is_empty() {
            commands.send(Command::Watches(WatchCommand::Set(watches.specs)));
        }
        if let Some(why) = &workspace.kept {
            commands.notify(LogLevel::Warning, format!("layout not read: {why}"));
        }
        for why in &unread.why {
            commands.notify(
                LogLevel::Warning,
                format!("settings not read (defaults used, the stored text kept): {why}"),
            );
        }
        commands.send(Command::Rewind(RewindCommand::SetBudget(Some(
            budget_bytes(persisted.history_budget_mib),
        ))));
        let scene = std::path::absolute(&config.scene).unwrap_or(config.scene);
        // An attached game has its scene already.
        if attached.is_none() {
            commands.send(Command::Scene(SceneCommand::Load {
                path: scene,
                play: config.play_on_start,
            }));
        }
        Ok(Editor {
            front,
            running,
            driver: config.driver,
            home,
            registries,
            waker,
            published: Published {
                attached,
                ..Published::default()
            },
            cursor: TimeCursor::default(),
            bookmarks: Bookmarks::default(),
            feedback: Feedback::default(),
            commands,
            driven,
            persisted,
            panels,
            workspace,
            watchdog: config.watchdog,
            sighting: None,
            stored_unread: unread,
            build_watch,
            rebuild: None,
            help_open: false,
            welcome: config.welcome,
            player_args: config.player_args,
        })
    }

    /// What the host last published (tests read the views through it).
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
    pub fn reading(&self) -> Reading<'_> {
        reading_of!(self)
    }

    /// Sends a command to the host, as a panel does (tests).
    pub fn send(&mut self, command: Command) {
        self.commands.send(command);
        self.apply_actions();
    }

    /// Does what a panel asks, at once (tests: view a tick, back to live).
    pub fn act(&mut self, action: Action) {
        self.commands.act(action);
        self.apply_actions();
    }

    /// The docked tiles, read-only: where each pane was laid out and
    /// whether it is open (tests read the rectangles; a user opens and
    /// closes panes with the View menu and the tabs).
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The timeline panel's state, read-only: its lanes, markers, ranges and
    /// plotted values are drawn as plots, which no label reads, so tests
    /// read them here (and change them only through the UI).
    pub fn timeline(&self) -> &TimelineState {
        &self.panels.timeline
    }

    /// Whether the user folded (`Some(false)`) or unfolded (`Some(true)`)
    /// object `id` in the hierarchy of the scene shown, or left it as its
    /// size says (`None`). Read-only: a fold kept for an object with no
    /// children shows on no row, and whether one scene's folds leaked into
    /// another is a fact about that (`HierarchyPanel`'s module docs).
    pub fn hierarchy_fold(&self, id: stepframe_core::ObjectId) -> Option<bool> {
        self.panels.hierarchy.fold_of(id)
    }

    /// The file and the breakpoint key (its canonical path) of the script
    /// the code pane shows, read-only: the pane names it by file name
    /// only, and a test compares the key with what the host published.
    pub fn code_pane_script(&self) -> Option<(&std::path::Path, &str)> {
        let entry = self.panels.code.current_entry()?;
        Some((entry.path.as_path(), entry.key.as_str()))
    }

    /// The viewport's camera of the last frame drawn: where a world point
    /// is on screen, so a test can click a body as a user aims at it
    /// (`None` before the viewport was drawn).
    pub fn viewport_camera(&self) -> Option<crate::editor::geometry::Camera> {
        self.panels.viewport.camera
    }

    /// Applies the UI actions the panels asked for, in order (module docs).
    fn apply_actions(&mut self) {
        for action in self.commands.take_actions() {
            match action {
                Action::ViewTick(tick) => {
                    self.view_tick(tick);
                    self.cursor.record = None;
                }
                Action::ViewFrame { tick, seq } => {
                    self.view_tick(tick);
                    self.cursor.record = Some(seq);
                }
                Action::BackToLive => self.back_to_live(),
                Action::ResumeFromCursor => {
                    if let Some(tick) = self.cursor.tick {
                        // Resume from here is a new start: no replay of the
                        // pause the visit made.
                        self.cursor.resume_on_leave = false;
                        self.commands
                            .send(Command::Rewind(RewindCommand::ResumeFrom(tick)));
                    }
                }
                Action::Reselect => {
                    // The past view on screen shows the new object at its tick.
                    if let Some(tick) = self.cursor.tick {
                        self.commands
                            .send(Command::Rewind(RewindCommand::ViewTick(tick)));
                    }
                }
                Action::AddBookmark { tick, note } => {
                    let added = self.bookmarks.add(tick, &note);
                    self.bookmarks_saved(added, "added a bookmark");
                }
                Action::RemoveBookmark(index) => {
                    let removed = self.bookmarks.remove(index);
                    self.bookmarks_saved(removed, "removed a bookmark");
                }
                Action::Notify(level, text) => self.feedback.notify(level, text),
                Action::Log(level, text) => self.feedback.log.push(level, None, text),
                Action::ClearLog => self.feedback.log.lines.clear(),
                Action::Error(text) => self.feedback.error(text),
                Action::DismissError => self.feedback.error = None,
                Action::RestartWorker => self.restart_worker(None),
                Action::AbandonWorker => self.abandon_worker(),
                Action::OpenPane(pane) => self.workspace.set_open(pane, true),
                Action::ReplayNewBuild => self.replay_new_build(),
                Action::CancelRebuild => self.cancel_rebuild("cancelled"),
                Action::Attach { addr, token } => self.attach_typed(&addr, &token),
                Action::RunInPlayer => self.run_in_player(),
                Action::Detach => self.detach(),
                Action::ReplayNewBuildsAutomatically(on) => {
                    self.persisted.replay_new_builds = on;
                    if on {
                        self.replay_new_build();
                    }
                }
            }
        }
    }

    /// Logs where the bookmarks went, or says why they did not.
    fn bookmarks_saved(
        &mut self,
        result: Result<PathBuf, crate::editor::bookmarks::BookmarkError>,
        what: &str,
    ) {
        match result {
            Ok(path) => self.feedback.log.push(
                LogLevel::Info,
                None,
                format!("{what}: saved to {}", path.display()),
            ),
            Err(e) => self.feedback.notify(LogLevel::Error, e.to_string()),
        }
    }

    /// Shows `tick` in every panel, pausing a running session first (and
    /// playing it again when the user goes back to live).
    fn view_tick(&mut self, tick: u64) {
        let playing = self
            .published
            .live
            .as_ref()
            .is_some_and(|v| v.world.suspension.is_none());
        if playing {
            self.commands
                .send(Command::Run(stepframe_host::protocol::Run::Pause));
            if self.cursor.tick.is_none() {
                self.cursor.resume_on_leave = true;
            }
        }
        if self.cursor.tick != Some(tick) {
            self.cursor.tick = Some(tick);
            self.commands
                .send(Command::Rewind(RewindCommand::ViewTick(tick)));
        }
    }

    /// Every panel back to the live session: playing again if the visit to
    /// the past paused it.
    fn back_to_live(&mut self) {
        self.cursor.tick = None;
        self.cursor.record = None;
        self.published.past = None;
        if std::mem::take(&mut self.cursor.resume_on_leave) {
            self.commands
                .send(Command::Run(stepframe_host::protocol::Run::Play));
        }
    }

    /// The live session moved on by itself (a resume, a load, a rewind):
    /// every panel follows it, with nothing to play again.
    fn follow_live(&mut self) {
        self.cursor.resume_on_leave = false;
        self.back_to_live();
    }

    /// The first-run hint, on the bundled demo until dismissed (the
    /// dismissal persists): what stepframe is for and three things to try.
    fn welcome_ui(&mut self, ctx: &egui::Context) {
        let on_demo = self
            .published
            .live
            .as_ref()
            .and_then(|l| l.scene_path.as_ref())
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "demo.ron");
        if !self.welcome || self.persisted.welcomed || !on_demo {
            return;
        }
        egui::Window::new("Welcome to stepframe")
            .anchor(egui::Align2::CENTER_TOP, [0.0, 120.0])
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.set_max_width(460.0);
                ui.label(
                    "stepframe runs a game's loop (update, fixed ticks with their physics \
                     step, presentation) and shows every tick of it, exactly. The demo is \
                     playing. Three things to try:",
                );
                ui.label(
                    "1. Click the Player (the labelled circle) and press F9: the session \
                     stops at the end of the next tick in which its FixedUpdate ran.",
                );
                ui.label(
                    "2. Press F10 to step exactly one fixed tick, and read the committed \
                     pose in the Inspector.",
                );
                ui.label(
                    "3. Click the timeline: every panel shows that tick. Esc returns to live.",
                );
                ui.weak("F1 lists every shortcut; docs/editor.md walks through the rest.");
                if ui.button("Got it").clicked() {
                    self.persisted.welcomed = true;
                }
            });
    }

    /// The stored settings: the panels' and what the live view says of the
    /// host's display rate and budget.
    fn persisted_now(&self) -> Persisted {
        let mut p = self.persisted.clone();
        if let Some(live) = &self.published.live {
            p.display_rate = live.display_rate;
            if let Some(budget) = live.rewind.budget {
                p.history_budget_mib = u32::try_from(budget >> 20).unwrap_or(u32::MAX);
            }
        }
        self.panels.viewport.store(&mut p);
        p.log_errors_only = self.panels.log.errors_only;
        p
    }
}

impl eframe::App for Editor {
    // While the window is covered or minimised eframe draws nothing and
    // calls only this, when the host's messages ask for a repaint: the
    // editor still takes them (`take_while_hidden`).
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        if crate::editor::window_hidden(ctx) {
            self.take_while_hidden();
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let stopped = self.poll_worker();
        // Whatever a dead worker sent before it died is still read.
        self.drain();
        if let Some(message) = stopped {
            self.on_worker_stopped(message);
        }
        let ctx = ui.ctx().clone();
        self.watch_hooks(&ctx);
        self.watch_build(&ctx);
        self.shortcuts(&ctx);
        self.apply_actions();

        self.welcome_ui(&ctx);
        let time = ctx.input(|i| i.time);
        let reading = reading_of!(self);
        let cmd = &mut self.commands;
        egui::Panel::top("toolbar").show(ui, |ui| {
            let parts = menu_bar::MenuParts {
                files: &mut self.panels.files,
                compare: &mut self.panels.compare_trace,
                attach: &mut self.panels.attach,
                workspace: &mut self.workspace,
            };
            menu_bar::menu_bar_ui(ui, &reading, cmd, parts);
            toolbar_ui(ui, &reading, cmd, &mut self.workspace);
            banners_ui(ui, &reading, cmd);
        });
        compare_dialog_ui(&ctx, &mut self.panels.compare_trace, cmd);
        egui::Window::new("Shortcuts")
            .open(&mut self.help_open)
            .collapsible(false)
            .resizable(false)
            .show(&ctx, crate::editor::panels::toolbar::shortcuts_ui);
        crate::editor::panels::attach::attach_dialog_ui(&ctx, &mut self.panels.attach, cmd);
        files_ui(&ctx, &reading, cmd, &mut self.panels.files);
        egui::CentralPanel::default()
            .frame(egui::Frame::new())
            .show(ui, |ui| {
                // Over the game's picture when it is shown (no panel's
                // controls under them), else under the tab bars.
                let over = match self.panels.viewport.canvas {
                    Some(r)
                        if self.workspace.is_open(crate::editor::Pane::Viewport)
                            && r.width() >= 240.0 =>
                    {
                        r
                    }
                    _ => {
                        let mut r = ui.max_rect();
                        r.min.y += 20.0;
                        r
                    }
                };
                toasts_ui(
                    &ctx,
                    &mut self.feedback.notices,
                    self.feedback.error.as_deref(),
                    cmd,
                    over,
                    time,
                );
                let mut tiles = super::tiles::TileUi {
                    reading,
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
        let unread = &self.stored_unread;
        unread.write(storage, STORAGE_KEY, &self.persisted_now());
        unread.write(storage, TIMELINE_KEY, &self.panels.timeline.settings());
        if let Some(live) = &self.published.live {
            let watches = StoredWatches {
                specs: live.watches.clone(),
            };
            unread.write(storage, WATCHES_KEY, &watches);
        }
        unread.write(storage, HIERARCHY_KEY, &self.panels.hierarchy.settings());
        self.panels.files.save(storage);
        self.workspace.save(storage);
    }
}
