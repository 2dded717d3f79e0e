//! The worker: the only owner of the pipeline and the world.
//!
//! [`Worker`] is plain logic: [`Worker::handle`] applies one [`Command`],
//! [`Worker::frame`] runs one outer frame of a given real dt (unless suspended:
//! a paused editor does not call `step_frame`, so paused time advances neither
//! clock) and publishes what changed. Tests drive it synchronously, one call
//! per UI frame with a fixed dt ([`Worker::pump`]); the app runs it on a thread
//! with [`spawn`], which paces it to a target display rate (`thread`). Both
//! modes run the same code; only the caller of `frame` differs.
//!
//! Every call that advances the session goes through the rewind [`History`],
//! so "Resume from here" and the time cursor can rebuild any kept tick: the
//! cursor's [`Command::ViewTick`] replays the history into a scratch pipeline
//! (the live session is not touched) and publishes that past state through the
//! same view builder the live session uses (`view`).
//!
//! Ordering: telemetry and events go out on one channel in the order they
//! happened. A frame's telemetry is queued when the frame ends and flushed
//! before any event is sent, so the UI always has the record of the frame a
//! log line, a suspension or a load belongs to before it reads them.
//!
//! | module | what |
//! |---|---|
//! | this one | [`Worker`]: commands, frames, the time settings, the tick observer |
//! | `publish` | telemetry, events and views to the UI, in order |
//! | `recovery` | recovery points to the UI, and the worker restarted from one |
//! | `rewind` | Resume from here: back to the end of a kept tick through the history |
//! | `view` | a [`WorldView`](super::protocol::WorldView) built from a pipeline (live or past) |
//! | `tap` | the one tick observer of live session, fork and history scan; a tick measured against run B |
//! | `scene` | Open, Reload, Save, Save As |
//! | `scene_watch` | auto-reload: the scene's file watched by modification time and length |
//! | `edits` | inspector edits and F9 |
//! | `undo` | Edit → Undo and Redo of those edits, through the history |
//! | `breakpoints` | each breakpoint's object by id and name across loads, the hits labelled as they happened |
//! | `tape` | the recorded input tape, Resume from here with an edited one |
//! | `compare` | Compare with…: run B measured against every tick |
//! | `fork` | what-if branch B run in lockstep |
//! | `flame` | a frame replayed with a flame zone per hook call, for the Flame tab |
//! | `scripts` | the code pane's breakpoints through the session's script host |
//! | `watches` | the watches installed as the tick watch, Find previous, a plotted watch's lane filled from the history |
//! | `thread` | the paced thread and the channels |

mod breakpoints;
mod compare;
mod edits;
mod flame;
mod fork;
mod publish;
mod recovery;
mod rewind;
mod scene;
mod scene_watch;
mod scripts;
mod tap;
mod tape;
mod thread;
mod undo;
mod view;
mod watches;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use stepframe_core::{
    Edit, History, HookBeacon, InputEvent, ObjectId, Pipeline, Recording, Registry, Session,
    Suspension, TimeSettings, WallClock,
};
use stepframe_plugins::ScriptHost;

pub use recovery::RECOVERY_EVERY;
pub use thread::{UiEnd, WorkerEnd, WorkerThread, channels, panic_text, spawn, spawn_with};

use super::protocol::{BreakpointBook, Command, FrameTelemetry, Pacing, RecoveryPoint};
use super::scene_file::LoadedScene;
use tap::{TickNews, TickTap};

use crate::compare::poses::{TickDivergence, TracePoses, TracedTick};

/// Most log lines sent in one batch; a hook that logs more per frame (a runaway
/// loop) loses the oldest, so one bad frame cannot flood the UI.
const MAX_LOG_BATCH: usize = 4096;

/// Real frame times kept for the worker's own rate (one second at 60 Hz).
const RATE_WINDOW: usize = 60;

/// The session owner. See the module docs.
pub struct Worker {
    /// The runtime and every call that advanced it, with keyframes: "resume
    /// from here" rewinds through it and the time cursor replays it; nobody
    /// else touches it.
    session: Session,
    /// Behaviour factories scenes name, for the current scene's directory.
    registry: Registry,
    /// Where `registry` comes from: the built-ins and a game's own.
    behaviours: crate::Behaviours,
    /// The session's scripts: compile cache, line breakpoints, hits (see
    /// [`scripts`]).
    scripts: ScriptHost,
    /// The breakpoints' object names and the hits, labelled (see
    /// [`breakpoints`]).
    book: BreakpointBook,
    /// The last rejected script breakpoint edit (key, line, why).
    script_rejected: Option<(String, usize, String)>,
    /// The scene of the session (authored data, for save and reload), shared
    /// with the recovery points sent to the UI.
    scene: Option<Arc<LoadedScene>>,
    /// The scene file's version on disk the session knows (auto-reload).
    scene_watch: scene_watch::SceneWatch,
    /// The settings in force after the last call: a change between two
    /// calls is a settings edit of the session recording.
    settings_in_force: TimeSettings,
    /// Display rate (used by the thread wrapper and for step-frame).
    pacing: Pacing,
    /// The inspector's object.
    selected: Option<ObjectId>,
    /// Inspector edits waiting for the next tick's reconcile.
    pending_edits: Vec<String>,
    /// Completed ticks when `pending_edits` were queued.
    pending_edits_tick: u64,
    /// Tick hashes and inputs from the observer.
    ticks: Receiver<TickNews>,
    /// The observer's sender, reinstalled after a new session.
    hash_tx: Sender<TickNews>,
    /// What every tick of the current branch received and every edit made
    /// from the editor: the session recording (shared with the views).
    tape: Arc<Recording>,
    /// The tick a rewind left the session at, until a call branches from
    /// it: `tape` still holds the rewound branch (see `tape`).
    rewound_to: Option<u64>,
    /// `tape` cut at `rewound_to`, made once for the views.
    rewound_tape: Option<(u64, Arc<Recording>)>,
    /// Run B of "Compare with…", while comparing.
    comparing: Option<Arc<TracePoses>>,
    /// Divergences measured since the last publish.
    divergences: Vec<TickDivergence>,
    /// Branch B of a what-if fork.
    fork: Option<fork::Fork>,
    /// B's records since the last publish.
    fork_ticks: Vec<TracedTick>,
    /// Hash after the last tick.
    state_hash: u64,
    /// The suspension last published, to emit suspended/resumed events once.
    last_suspension: Option<Suspension>,
    /// Views published so far.
    revision: u64,
    /// Something changed since the last publish.
    dirty: bool,
    /// Telemetry not yet sent (flushed before every event, so order holds).
    batch: Vec<FrameTelemetry>,
    /// Real dt of the last frames, for the worker's rate in the view.
    rates: VecDeque<f64>,
    /// The tick the UI views, as it last asked ([`Command::ViewTick`], until
    /// [`Command::ViewLive`]): a selection change rebuilds its view.
    viewing: Option<u64>,
    /// Run B of a comparison or a fork, as the views show it.
    run_b: Option<super::protocol::RunB>,
    /// The Input tab's edited tape, until Resume from here replays it.
    tape_draft: Option<Arc<Recording>>,
    /// The newest unanswered [`Command::ViewTick`] (a burst builds only the last).
    view_request: Option<u64>,
    /// The newest unanswered [`Command::ReplayFrame`].
    flame_request: Option<u64>,
    /// Input events from the UI, handed to the next call through the history
    /// (so a rewind replays them).
    pending_inputs: Vec<InputEvent>,
    /// Channels to the UI.
    out: WorkerEnd,
    /// Asked to repaint after each publish (absent in tests).
    repaint: Option<egui::Context>,
    /// The wall time the recovery cadence reads (the system clock unless a
    /// test injects a manual one: [`Worker::with_wall_clock`]).
    wall: WallClock,
    /// When the last recovery point was sent, on `wall`.
    last_recovery: Duration,
    /// The last recovery point sent (sent again with new host state).
    last_point: Option<RecoveryPoint>,
    /// The watches as the UI last sent them, and what the installed set
    /// reports (drained at every publish).
    watches: watches::Watches,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("pipeline", self.session.pipeline())
            .field("pacing", &self.pacing)
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// A worker with an empty session; send [`Command::Load`] or
    /// [`Command::LoadAndPlay`] to open a scene. `repaint` is the UI's context,
    /// asked to repaint whenever a new view is published.
    pub fn new(out: WorkerEnd, pacing: Pacing, repaint: Option<egui::Context>) -> Worker {
        let settings = TimeSettings::default();
        let (hash_tx, ticks) = crossbeam_channel::unbounded();
        let mut pipeline = Pipeline::new(settings);
        // The Flame tab's live zones: a few clock reads a tick, no
        // allocation (`stepframe_core::flame`).
        pipeline.set_zone_detail(stepframe_core::ZoneDetail::Coarse);
        pipeline.set_tick_observer(Some(Box::new(TickTap {
            tx: hash_tx.clone(),
            compare: None,
            trace: false,
        })));
        pipeline.pause();
        let initial = pipeline.suspension().cloned();
        // The history chooses each Script's version: a changed file becomes
        // a reload edit (`scripts.rs`), never a silent swap a replay misses.
        let scripts = ScriptHost::new();
        scripts.set_managed(true);
        Worker {
            session: Session::new(pipeline, History::default()),
            registry: stepframe_plugins::registry_for(&scripts, Path::new(".")),
            behaviours: crate::Behaviours::built_in(),
            scripts,
            book: BreakpointBook::default(),
            script_rejected: None,
            scene: None,
            scene_watch: scene_watch::SceneWatch::default(),
            settings_in_force: settings,
            pacing,
            selected: None,
            pending_edits: Vec::new(),
            pending_edits_tick: 0,
            ticks,
            hash_tx,
            tape: Arc::new(Recording::new(settings.fixed_hz)),
            rewound_to: None,
            rewound_tape: None,
            comparing: None,
            divergences: Vec::new(),
            fork: None,
            fork_ticks: Vec::new(),
            state_hash: 0,
            // The empty session starts paused; that is not news.
            last_suspension: initial,
            revision: 0,
            dirty: true,
            batch: Vec::new(),
            rates: VecDeque::with_capacity(RATE_WINDOW),
            view_request: None,
            flame_request: None,
            viewing: None,
            run_b: None,
            tape_draft: None,
            pending_inputs: Vec::new(),
            out,
            repaint,
            wall: WallClock::system(),
            last_recovery: Duration::ZERO,
            last_point: None,
            watches: watches::Watches::default(),
        }
    }

    /// This worker with scenes naming `behaviours` (a game's binary: its own
    /// beside the built-ins) from now on, including the open scene's
    /// parameter edits and a fork's branch.
    pub fn with_behaviours(mut self, behaviours: crate::Behaviours) -> Worker {
        self.behaviours = behaviours;
        self.registry = self.registry_on(&self.scripts);
        self
    }

    /// Announces every hook call of the session on `beacon`, for a watcher
    /// on another thread ([`WorkerThread::hook_running`]).
    pub fn set_hook_beacon(&mut self, beacon: HookBeacon) {
        self.session.set_hook_beacon(Some(beacon));
    }

    /// The display rate the thread wrapper paces to.
    pub fn pacing(&self) -> Pacing {
        self.pacing
    }

    /// True while the session is suspended (paused, stepped, at a breakpoint).
    pub fn is_suspended(&self) -> bool {
        self.session.pipeline().suspension().is_some()
    }

    /// Applies every command waiting in the channel, answers the newest view
    /// request, then runs one frame of `raw_dt` seconds and publishes: the
    /// synchronous driver tests use. Returns false once a
    /// [`Command::Shutdown`] arrived or the UI is gone.
    pub fn pump(&mut self, raw_dt: f64) -> bool {
        loop {
            match self.out.commands.try_recv() {
                Ok(command) => {
                    if !self.handle(command) {
                        return false;
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return false,
            }
        }
        self.answer_view_request();
        self.frame(raw_dt);
        // One span of a plotted watch's history fill a frame, as on the
        // thread (`watches`).
        self.fill_step();
        true
    }

    /// Applies one command. Returns false for [`Command::Shutdown`].
    pub fn handle(&mut self, command: Command) -> bool {
        self.dirty = true;
        match command {
            Command::Play => self.play(),
            Command::Pause => self.session.pause(),
            Command::TogglePlay => {
                if self.is_suspended() {
                    self.play();
                } else {
                    self.session.pause();
                }
            }
            Command::StepTick => {
                let t0 = Instant::now();
                let inputs = std::mem::take(&mut self.pending_inputs);
                let report = self.session.step_tick(&inputs);
                self.record(report, 0.0, t0);
            }
            Command::StepFrame => {
                let t0 = Instant::now();
                let dt = self.pacing.nominal_dt();
                let inputs = std::mem::take(&mut self.pending_inputs);
                let report = self.session.step_one_frame(dt, &inputs);
                self.record(report, dt, t0);
            }
            Command::ViewTick(tick) => {
                self.view_request = Some(tick);
                self.viewing = Some(tick);
            }
            Command::ViewLive => {
                self.view_request = None;
                self.viewing = None;
            }
            Command::ReplayFrame(frame) => self.flame_request = Some(frame),
            Command::ResumeFrom(tick) => self.resume_from(tick),
            Command::SetTapeDraft(draft) => self.tape_draft = draft.map(Arc::new),
            Command::RewindTo(tick) => {
                self.rewind(tick);
            }
            Command::ApplyTape { tape, from } => self.apply_tape(tape, from),
            Command::StopTape => self.stop_tape(),
            Command::CompareWith(path) => self.compare_with(&path),
            Command::CompareWithRun => self.compare_with_run(),
            Command::StopCompare => self.stop_comparing(),
            Command::ForkHere(tick) => self.fork_here(tick),
            Command::ForkTape { tape, recorded_to } => self.fork_tape(tape, recorded_to),
            Command::ForkEdit(command) => self.fork_edit(command),
            Command::ForkParams {
                object,
                index,
                params,
            } => self.fork_params(object, index, &params),
            Command::ForkScript { key, text } => self.fork_script(&key, &text),
            Command::AdoptFork => self.adopt_fork(),
            Command::DiscardFork => self.discard_fork(true),
            Command::SetTimeScale(scale) => self.change_settings(|s| s.time_scale = scale),
            Command::SetFixedRate(hz) => self.change_settings(|s| s.fixed_hz = hz),
            Command::SetMaxSteps(n) => self.change_settings(|s| s.max_steps = n),
            Command::SetStrategy(strategy) => self.change_settings(|s| s.strategy = strategy),
            Command::SetPacing(pacing) => self.pacing = pacing,
            Command::AddBreakpoint(breakpoint) => {
                self.session.add_breakpoint(breakpoint);
            }
            Command::AddClockBreakpoint(breakpoint) => {
                if let Err(e) = self.session.add_clock_breakpoint(breakpoint) {
                    self.error(format!("clock breakpoint not added: {e}"));
                }
            }
            Command::RemoveBreakpoint(id) => {
                self.session.remove_breakpoint(id);
            }
            Command::EnableBreakpoint(id, enabled) => self.enable_breakpoint(id, enabled),
            Command::ToggleFixedBreakpoint(object) => self.toggle_fixed_breakpoint(object),
            Command::Input(event) => self.pending_inputs.push(event),
            Command::Load(path) => self.load(&path, false),
            Command::LoadAndPlay(path) => self.load(&path, true),
            Command::Reload => self.reload(),
            Command::Save { replace } => self.save(None, replace),
            Command::SaveAs { path, overwrite } => self.save(Some(&path), overwrite),
            Command::Select(id) => {
                self.selected = id;
                // The past view on screen shows the new object at its tick.
                if self.viewing.is_some() {
                    self.view_request = self.viewing;
                }
            }
            Command::SetWatches(specs) => self.set_watches(specs),
            Command::FindPrevious { watch, before } => self.find_previous(watch, before),
            Command::SetEnabled(object, enabled) => self.edit(Edit::Enabled { object, enabled }),
            Command::EditPose(object, pose) => self.edit(Edit::Pose { object, pose }),
            Command::EditVelocity(object, velocity) => {
                self.edit(Edit::Velocity { object, velocity })
            }
            Command::EditParams {
                object,
                index,
                params,
            } => self.edit_params(object, index, params),
            Command::Duplicate(object) => self.duplicate(object),
            Command::Remove(object) => self.edit(Edit::Remove { object }),
            Command::Undo => self.undo(),
            Command::Redo => self.redo(),
            Command::Script(command) => self.script_command(command),
            Command::ReloadScript(path) => self.reload_script_file(&path),
            Command::SaveRecording { path, overwrite } => self.save_recording(&path, overwrite),
            Command::SetHistoryBudget(bytes) => self.session.set_history_budget(bytes),
            Command::Shutdown => return false,
            #[cfg(feature = "test-hooks")]
            Command::DebugCrashWorker => {
                panic!("DebugCrashWorker: deliberate fault injection (a bug in the worker itself)")
            }
        }
        // A new breakpoint names its object as the world has it now.
        self.book.take(self.session.pipeline());
        // A worker that dies at its next command restarts with this one's
        // breakpoints, settings and selection.
        self.refresh_recovery_point();
        true
    }

    /// Runs one outer frame of `raw_dt` real seconds unless suspended, then
    /// publishes if anything changed.
    pub fn frame(&mut self, raw_dt: f64) {
        self.look_at_scene_file();
        if !self.is_suspended() {
            self.reload_changed_scripts();
            let t0 = Instant::now();
            let inputs = std::mem::take(&mut self.pending_inputs);
            let report = self.session.step_frame(raw_dt, &inputs);
            self.record(report, raw_dt, t0);
            if self.rates.len() == RATE_WINDOW {
                self.rates.pop_front();
            }
            self.rates.push_back(raw_dt);
            self.dirty = true;
            // A frame that ran to its end leaves the session between frames:
            // the only state a recovery point is taken in.
            let since = self.wall.now().saturating_sub(self.last_recovery);
            if !self.is_suspended() && since >= RECOVERY_EVERY {
                self.send_recovery_point();
            }
        }
        self.publish();
    }

    /// Builds the newest requested past tick in a scratch pipeline and
    /// publishes its view (or says why it cannot), after the newest
    /// requested frame replay for the Flame tab. The live session is not
    /// touched.
    pub fn answer_view_request(&mut self) {
        self.answer_flame_request();
        let Some(tick) = self.view_request.take() else {
            return;
        };
        let mut scratch = Pipeline::new(self.settings());
        match self.session.replay_into(&mut scratch, tick) {
            Ok(()) => {
                let tape = self.shown_tape();
                let facts = self.view_facts(Some(tick), scratch.state_hash(), tape);
                let past = view::build(&scratch, facts);
                self.out.past_views.send(past);
                if let Some(ctx) = &self.repaint {
                    ctx.request_repaint();
                }
            }
            Err(e) => self.error(format!("cannot show tick {tick}: {e}")),
        }
    }

    fn play(&mut self) {
        if self.is_suspended() {
            let t0 = Instant::now();
            // Input typed while suspended reaches the next tick, through the
            // history (a rewind replays it).
            let inputs = std::mem::take(&mut self.pending_inputs);
            let report = self.session.resume(&inputs);
            self.record(report, 0.0, t0);
        }
    }

    /// Time settings as chosen: the ones the next frame runs with (a change
    /// waits for the frame boundary).
    fn settings(&self) -> TimeSettings {
        *self.session.pipeline().next_settings()
    }

    /// A toolbar change of the time settings. Running, it waits for the
    /// next frame boundary (the contract's moment for it). Suspended, the
    /// session stands between two ticks, so it applies at once, as an edit
    /// before the next tick: the tick F10 steps runs at the rate the toolbar
    /// shows, and a replay of the session recording applies it there too.
    fn change_settings(&mut self, change: impl FnOnce(&mut TimeSettings)) {
        let mut next = self.settings();
        change(&mut next);
        if let Err(reason) = next.validate() {
            self.error(format!("time settings rejected: {reason}"));
            return;
        }
        if !self.is_suspended() {
            if let Err(reason) = self.session.set_settings(next) {
                self.error(format!("time settings rejected: {reason}"));
            }
            return;
        }
        if next == *self.session.pipeline().settings() {
            return;
        }
        self.edit(stepframe_core::Edit::Settings(next));
        self.settings_in_force = *self.session.pipeline().settings();
    }
}

impl Worker {
    /// Installs the tick observer: hashes and input for the view, and run B
    /// of a comparison if one is going on.
    fn install_observer(&mut self) {
        self.session.set_tick_observer(Some(Box::new(TickTap {
            tx: self.hash_tx.clone(),
            compare: self.comparing.clone(),
            trace: self.fork.is_some(),
        })));
    }
}
