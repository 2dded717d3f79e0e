//! The eframe app: drains what the worker published, handles shortcuts, lays
//! out the panels. It holds no simulation state of its own, only the latest
//! [`WorldView`] and what the panels need to draw (camera, form fields).
//!
//! It also watches the worker: each frame it asks whether the worker thread
//! has ended (it only polls, never joins a live thread). A dead worker, which
//! only a bug in the worker itself can cause since hook panics are caught in
//! the pipeline, turns into a red banner with the panic message and a
//! "Restart from last snapshot" button: a new worker continues from the newest
//! [`RecoveryPoint`] the dead one sent, paused there.

use std::collections::{BTreeSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use anyhow::Context as _;
use crossbeam_channel::Sender;
use egui::{Key, KeyboardShortcut, Modifiers};
use serde::{Deserialize, Serialize};
use stepframe_core::{LogEntry, LogLevel, ObjectId, Pose, Velocity};

use super::breakpoints::{BreakpointForm, breakpoints_ui};
use super::clock_panel::clock_panel_ui;
use super::code_pane::{CodePaneState, code_pane_ui, code_toggle_ui};
use super::hierarchy::hierarchy_ui;
use super::inspector::inspector_ui;
use super::log::log_ui;
use super::protocol::{Command, Event, FrameTelemetry, Pacing, RecoveryPoint, WorldView};
use super::timeline::{TimelineState, timeline_ui};
use super::toolbar::toolbar_ui;
use super::viewport::viewport_ui;
use super::worker::{self, UiEnd, Worker, WorkerThread};

/// Telemetry frames kept for the timeline: ten minutes at 60 Hz.
pub const TELEMETRY_CAPACITY: usize = 36_000;

/// Log lines kept; older ones scroll away.
pub const LOG_CAPACITY: usize = 5_000;

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
}

impl EditorConfig {
    /// The real editor: worker thread, scene playing at start-up.
    pub fn threaded(scene: PathBuf) -> EditorConfig {
        EditorConfig {
            scene,
            play_on_start: true,
            driver: Driver::Thread,
        }
    }

    /// The test editor: one worker frame of `dt` per UI frame, same code paths.
    pub fn driven(scene: PathBuf, dt: f64) -> EditorConfig {
        EditorConfig {
            scene,
            play_on_start: true,
            driver: Driver::Driven { dt },
        }
    }
}

/// What persists between runs (the panel layout persists through egui's memory).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// The worker's display rate.
    pub pacing: Pacing,
    /// Draw committed poses as outlines over the interpolated ones.
    pub show_committed: bool,
    /// Draw touching pairs.
    pub show_contacts: bool,
    /// Centre the viewport on the scene's camera (FollowCamera) when it has one.
    pub follow_camera: bool,
    /// Viewport zoom, pixels per metre.
    pub zoom: f32,
    /// Only errors and warnings in the log.
    pub log_errors_only: bool,
}

impl Default for Persisted {
    fn default() -> Persisted {
        Persisted {
            pacing: Pacing::default(),
            show_committed: false,
            show_contacts: false,
            follow_camera: true,
            zoom: 40.0,
            log_errors_only: false,
        }
    }
}

/// One line of the log panel: from a hook or the runtime, or from the editor.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Severity.
    pub level: LogLevel,
    /// Object to select when the line is clicked.
    pub object: Option<ObjectId>,
    /// The text shown, with hook and tick.
    pub text: String,
}

/// Viewport camera and keyboard state.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewportState {
    /// World point at the centre of the viewport, metres.
    pub center: egui::Vec2,
    /// Fit the view to the scene at the next frame (after a load).
    pub needs_fit: bool,
    /// Keys the game currently sees held (released when focus goes).
    pub held_keys: BTreeSet<String>,
    /// The viewport had keyboard focus last frame (Space goes to the game).
    pub focused: bool,
}

/// Inspector edit fields, refreshed from the committed state when the
/// selection or the tick changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditBuffers {
    /// The object and tick the fields were loaded from.
    pub key: Option<(ObjectId, u64)>,
    /// Pose being edited.
    pub pose: Pose,
    /// Velocity being edited.
    pub velocity: Velocity,
}

/// Everything the panels read and write on the UI thread.
#[derive(Debug)]
pub struct EditorState {
    /// Sends commands to the worker.
    commands: Sender<Command>,
    /// The latest view, once the worker has published one.
    pub view: Option<WorldView>,
    /// Telemetry of recent frames, oldest first (for the timeline).
    pub telemetry: VecDeque<FrameTelemetry>,
    /// Telemetry frames received in total.
    pub telemetry_total: u64,
    /// Log lines, oldest first.
    pub log: VecDeque<LogLine>,
    /// The last error, shown under the toolbar until dismissed.
    pub error: Option<String>,
    /// The selected object (UI copy; the worker has the same).
    pub selected: Option<ObjectId>,
    /// The scene path field.
    pub path_field: String,
    /// Ctrl+O asks the toolbar to focus the path field.
    pub focus_path_field: bool,
    /// Persisted settings.
    pub persisted: Persisted,
    /// Camera and keyboard.
    pub viewport: ViewportState,
    /// The breakpoint form.
    pub breakpoint_form: BreakpointForm,
    /// Inspector edit fields.
    pub edits: EditBuffers,
    /// True in the synchronous test driver (the pacing choice does not apply).
    pub driven: bool,
    /// A new selection the hierarchy should unfold to and scroll to.
    pub reveal_selection: bool,
    /// The timeline panel: its own telemetry ring, cursor, markers.
    pub timeline: TimelineState,
    /// Whether the timeline panel is shown.
    pub timeline_open: bool,
    /// The script code pane.
    pub code: CodePaneState,
    /// The newest snapshot the worker sent: what "Restart from last snapshot"
    /// continues from.
    pub recovery: Option<RecoveryPoint>,
    /// Why the worker stopped (its panic message), while it is dead: the
    /// toolbar shows it in a red banner with the restart button.
    pub worker_stopped: Option<String>,
    /// The banner's button was clicked: the app restarts the worker at the end
    /// of this frame.
    pub restart_requested: bool,
}

impl EditorState {
    /// Queues a command for the worker. Never blocks. A command for a dead
    /// worker goes nowhere: the banner already says so; a worker gone before
    /// the app noticed is reported once as an error.
    pub fn send(&mut self, command: Command) {
        if self.commands.send(command).is_err()
            && self.error.is_none()
            && self.worker_stopped.is_none()
        {
            self.error = Some("the worker thread has stopped".to_string());
        }
    }

    /// Selects an object (or none) here and in the worker.
    pub fn select(&mut self, id: Option<ObjectId>) {
        self.selected = id;
        self.reveal_selection = id.is_some();
        self.send(Command::Select(id));
    }

    /// True while the session is suspended.
    pub fn is_suspended(&self) -> bool {
        self.view.as_ref().is_some_and(|v| v.suspension.is_some())
    }

    /// The object's display name, `#id` if it is gone.
    pub fn object_name(&self, id: ObjectId) -> String {
        self.view
            .as_ref()
            .and_then(|v| v.objects.iter().find(|o| o.id == id))
            .map(|o| format!("{} {}", o.name, o.id))
            .unwrap_or_else(|| id.to_string())
    }

    fn push_log(&mut self, line: LogLine) {
        if self.log.len() == LOG_CAPACITY {
            self.log.pop_front();
        }
        self.log.push_back(line);
    }

    fn on_event(&mut self, event: Event) {
        self.timeline.on_event(&event);
        match event {
            Event::Poses(_) => {}
            Event::Rewound(tick) => self.push_log(LogLine {
                level: LogLevel::Info,
                object: None,
                text: format!("rewound to tick {tick}: Play continues from here"),
            }),
            Event::Suspended(s) => {
                let text = super::toolbar::suspension_text(&s, self.view.as_ref());
                self.push_log(LogLine {
                    level: LogLevel::Info,
                    object: None,
                    text,
                });
            }
            Event::Resumed => {}
            Event::Loaded { path, objects } => {
                self.viewport.needs_fit = true;
                self.path_field = path.display().to_string();
                self.error = None;
                self.push_log(LogLine {
                    level: LogLevel::Info,
                    object: None,
                    text: format!("loaded {} ({objects} objects)", path.display()),
                });
            }
            Event::Saved(path) => self.push_log(LogLine {
                level: LogLevel::Info,
                object: None,
                text: format!("saved {}", path.display()),
            }),
            Event::Error(message) => {
                self.push_log(LogLine {
                    level: LogLevel::Error,
                    object: None,
                    text: message.clone(),
                });
                self.error = Some(message);
            }
            Event::Log(entries) => {
                for entry in entries {
                    let line = log_line(&entry);
                    self.push_log(line);
                }
            }
        }
    }
}

fn log_line(entry: &LogEntry) -> LogLine {
    let mut text = format!("tick {} frame {}", entry.tick, entry.frame);
    if let Some(object) = entry.object {
        text.push_str(&format!(" {object}"));
    }
    if let Some(hook) = entry.hook {
        text.push_str(&format!(" {hook}"));
    }
    text.push_str(": ");
    text.push_str(&entry.message);
    LogLine {
        level: entry.level,
        object: entry.object,
        text,
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
    /// The UI's context, handed to a threaded worker to request repaints.
    repaint: egui::Context,
    /// The panels' state.
    state: EditorState,
}

impl std::fmt::Debug for EditorApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorApp")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// Key the persisted settings are stored under.
const STORAGE_KEY: &str = "stepframe-editor";

impl EditorApp {
    /// Starts the worker and opens `config.scene` (playing it, or showing its
    /// tick-0 preview). Persisted settings come from `cc.storage` when present.
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        config: EditorConfig,
    ) -> anyhow::Result<EditorApp> {
        let persisted: Persisted = cc
            .storage
            .and_then(|s| eframe::get_value(s, STORAGE_KEY))
            .unwrap_or_default();
        let (ui_end, worker_end) = worker::channels();
        let running = match config.driver {
            Driver::Thread => {
                let worker = Worker::new(worker_end, persisted.pacing, Some(cc.egui_ctx.clone()));
                let thread = worker::spawn(worker, ui_end.commands.clone())
                    .context("starting the worker thread")?;
                Running::Thread { thread }
            }
            Driver::Driven { dt } => Running::Driven {
                worker: Box::new(Worker::new(worker_end, persisted.pacing, None)),
                dt,
            },
        };
        let scene = worker::absolute(&config.scene);
        let mut state = EditorState {
            commands: ui_end.commands.clone(),
            view: None,
            telemetry: VecDeque::new(),
            telemetry_total: 0,
            log: VecDeque::new(),
            error: None,
            selected: None,
            path_field: scene.display().to_string(),
            focus_path_field: false,
            viewport: ViewportState {
                center: egui::Vec2::ZERO,
                needs_fit: true,
                held_keys: BTreeSet::new(),
                focused: false,
            },
            breakpoint_form: BreakpointForm::default(),
            edits: EditBuffers::default(),
            driven: matches!(config.driver, Driver::Driven { .. }),
            reveal_selection: false,
            timeline: TimelineState::default(),
            timeline_open: true,
            code: CodePaneState::default(),
            recovery: None,
            worker_stopped: None,
            restart_requested: false,
            persisted,
        };
        state.send(if config.play_on_start {
            Command::LoadAndPlay(scene)
        } else {
            Command::Load(scene)
        });
        Ok(EditorApp {
            ui_end,
            running,
            driver: config.driver,
            repaint: cc.egui_ctx.clone(),
            state,
        })
    }

    /// The panels' state (read by tests and by the timeline).
    pub fn state(&self) -> &EditorState {
        &self.state
    }

    /// The panels' state, writable (tests drive the timeline's actions).
    pub fn state_mut(&mut self) -> &mut EditorState {
        &mut self.state
    }

    /// Takes everything the worker published: every event and telemetry batch,
    /// and the newest view (older unread views are skipped).
    fn drain(&mut self) {
        while let Ok(batch) = self.ui_end.telemetry.try_recv() {
            for frame in batch {
                if self.state.telemetry.len() == TELEMETRY_CAPACITY {
                    self.state.telemetry.pop_front();
                }
                self.state.timeline.ingest(stepframe_core::FrameRecord::new(
                    &frame.report,
                    &frame.clock,
                ));
                self.state.telemetry.push_back(frame);
                self.state.telemetry_total += 1;
            }
        }
        while let Ok(event) = self.ui_end.events.try_recv() {
            self.state.on_event(event);
        }
        while let Ok(view) = self.ui_end.views.try_recv() {
            self.state.timeline.max_delta = view.settings.max_delta;
            self.state.view = Some(view);
        }
        while let Ok(point) = self.ui_end.recovery.try_recv() {
            self.state.recovery = Some(point);
        }
        if let Some(view) = self.state.view.as_mut() {
            self.state.timeline.apply_scrub(view);
        }
        if let Some(view) = &self.state.view
            && let Some(id) = self.state.selected
            && !view.objects.iter().any(|o| o.id == id)
        {
            self.state.selected = None;
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
        let offer = match &self.state.recovery {
            Some(p) => format!(
                "Restart from last snapshot continues from tick {} (frame {})",
                p.tick(),
                p.frame()
            ),
            None => "no snapshot to restart from".to_string(),
        };
        self.state.push_log(LogLine {
            level: LogLevel::Error,
            object: None,
            text: format!("worker thread stopped: {message}; {offer}"),
        });
        self.state.worker_stopped = Some(message);
    }

    /// Starts a new worker from the last recovery point, suspended (paused) at
    /// its tick, run the way the first one was. The UI re-sends what its latest
    /// view shows and the point may predate: breakpoints, time settings, and
    /// the selection.
    fn restart_worker(&mut self) {
        self.state.restart_requested = false;
        if !matches!(self.running, Running::Stopped) {
            return;
        }
        // The point moves to the new worker, which restores it on its own
        // thread and sends it straight back as its first recovery point.
        let Some(point) = self.state.recovery.take() else {
            self.state.error = Some("no snapshot to restart the worker from".to_string());
            return;
        };
        let (tick, frame) = (point.tick(), point.frame());
        let (ui_end, worker_end) = worker::channels();
        let pacing = self.state.persisted.pacing;
        let running = match self.driver {
            Driver::Thread => {
                let ctx = self.repaint.clone();
                let repaint = Some(ctx.clone());
                let build = move || Worker::restart(worker_end, pacing, Some(ctx), point);
                match worker::spawn_with(build, ui_end.commands.clone(), repaint) {
                    Ok(thread) => Running::Thread { thread },
                    Err(e) => {
                        self.state.error = Some(format!("cannot start a worker thread: {e}"));
                        return;
                    }
                }
            }
            Driver::Driven { dt } => {
                let build = || Worker::restart(worker_end, pacing, None, point);
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
        self.state.commands = self.ui_end.commands.clone();
        self.state.worker_stopped = None;
        self.state.error = None;
        if let Some(view) = self.state.view.clone() {
            let s = view.settings;
            self.state.send(Command::SetTimeScale(s.time_scale));
            self.state.send(Command::SetFixedRate(s.fixed_hz));
            self.state.send(Command::SetMaxSteps(s.max_steps));
            self.state.send(Command::SetStrategy(s.strategy));
            for breakpoint in view.breakpoints {
                self.state.send(Command::AddBreakpoint(breakpoint));
            }
        }
        let selected = self.state.selected;
        self.state.send(Command::Select(selected));
        // Frames after the snapshot belong to an abandoned branch, as after a
        // rewind: the timeline drops them.
        self.state.timeline.on_event(&Event::Rewound(tick));
        self.state.push_log(LogLine {
            level: LogLevel::Info,
            object: None,
            text: format!(
                "worker restarted from the snapshot at tick {tick} (frame {frame}), paused there: Play continues"
            ),
        });
    }

    /// The editor's shortcuts. Space and `.` go to the game while the viewport
    /// has focus and to text while a field has; F-keys and Ctrl combos always
    /// reach the editor.
    fn shortcuts(&mut self, ctx: &egui::Context) {
        let free = !self.state.viewport.focused && !ctx.text_edit_focused();
        let shift_f10 = KeyboardShortcut::new(Modifiers::SHIFT, Key::F10);
        let mut commands = Vec::new();
        let mut toggle_bp = false;
        let mut save = false;
        ctx.input_mut(|i| {
            if i.consume_shortcut(&shift_f10) {
                commands.push(Command::StepFrame);
            }
            if i.consume_key(Modifiers::NONE, Key::F10) {
                commands.push(Command::StepTick);
            }
            if i.consume_key(Modifiers::NONE, Key::F5) {
                commands.push(Command::Play);
            }
            if i.consume_key(Modifiers::NONE, Key::F9) {
                toggle_bp = true;
            }
            if i.consume_key(Modifiers::COMMAND, Key::R) {
                commands.push(Command::Reload);
            }
            if i.consume_key(Modifiers::COMMAND, Key::S) {
                save = true;
            }
            if i.consume_key(Modifiers::COMMAND, Key::O) {
                self.state.focus_path_field = true;
            }
            if free {
                if i.consume_key(Modifiers::NONE, Key::Space) {
                    commands.push(Command::TogglePlay);
                }
                if i.consume_key(Modifiers::NONE, Key::Period) {
                    commands.push(Command::StepTick);
                }
            }
        });
        for command in commands {
            self.state.send(command);
        }
        if toggle_bp {
            match self.state.selected {
                Some(id) => self.state.send(Command::ToggleFixedBreakpoint(id)),
                None => {
                    self.state.error =
                        Some("F9: select an object first (viewport or hierarchy)".into())
                }
            }
        }
        if save {
            let path = PathBuf::from(self.state.path_field.trim());
            self.state.send(Command::Save(path));
        }
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

        let state = &mut self.state;
        egui::Panel::top("toolbar").show(ui, |ui| toolbar_ui(ui, state));
        egui::Panel::left("hierarchy")
            .default_size(240.0)
            .show(ui, |ui| hierarchy_ui(ui, state));
        egui::Panel::right("inspector")
            .default_size(360.0)
            .show(ui, |ui| {
                clock_panel_ui(ui, state);
                ui.separator();
                egui::ScrollArea::vertical()
                    .id_salt("inspector_scroll")
                    .auto_shrink([false, false])
                    .show(ui, |ui| inspector_ui(ui, state));
            });
        egui::Panel::bottom("debug")
            .resizable(true)
            .default_size(230.0)
            .show(ui, |ui| {
                code_toggle_ui(ui, state);
                ui.columns(2, |cols| {
                    breakpoints_ui(&mut cols[0], state);
                    log_ui(&mut cols[1], state);
                });
            });
        if state.code.open {
            egui::Panel::right("code")
                .resizable(true)
                .default_size(480.0)
                .show(ui, |ui| code_pane_ui(ui, state));
        }
        if state.timeline_open {
            let suspended = state.is_suspended();
            egui::Panel::bottom("timeline")
                .resizable(true)
                .default_size(320.0)
                // Eight lanes need room to be read; the viewport keeps the rest.
                .min_size(240.0)
                .show(ui, |ui| timeline_ui(ui, &mut state.timeline, suspended));
            for command in std::mem::take(&mut state.timeline.outbox) {
                state.send(command);
            }
        }
        egui::CentralPanel::default().show(ui, |ui| viewport_ui(ui, state));
        if self.state.restart_requested {
            self.restart_worker();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.state.persisted);
    }
}
