//! The worker: the only owner of the pipeline and the world.
//!
//! [`Worker`] is plain logic: [`Worker::handle`] applies one [`Command`],
//! [`Worker::frame`] runs one outer frame of a given real dt (unless suspended:
//! a paused editor does not call `step_frame`, so paused time advances neither
//! clock) and publishes what changed. Tests drive it synchronously, one call
//! per UI frame with a fixed dt; the app runs it on a thread with
//! [`spawn`], which paces it to a target display rate with its own sleep loop
//! and measures the real dt of every frame. Both modes run the same code; only
//! the caller of `frame` differs.
//!
//! Pacing loop, at 60 Hz: the deadline of the next frame is the previous
//! deadline + 16.67 ms; until then the worker waits on the command channel
//! (so a step or pause takes effect within microseconds, not at the next
//! frame); at the deadline it runs a frame with the real time since the
//! previous one. A late frame moves the deadline to now + period rather than
//! bursting to catch up: the pipeline's accumulator already owes the ticks.
//! While suspended the worker blocks on the channel and burns no CPU, and the
//! first frame after a resume measures from the resume, not from the pause.
//!
//! Recovery: hook panics are caught inside the pipeline, but a bug in the
//! worker itself would end its thread. [`spawn`] catches that unwind at the top
//! of the thread, hands the panic message to [`WorkerThread::stopped`] and wakes
//! the UI; the UI shows it and can start a new worker with [`Worker::restart`]
//! from the newest [`RecoveryPoint`] the dead one sent (one after every load,
//! then at most one per [`RECOVERY_EVERY`] of running wall time).

use std::any::Any;
use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError, TrySendError};
use stepframe_core::{
    BodyCommand, Breakpoint, ContactEvent, ContactKind, FrameReport, History, HookKind, InputEvent,
    ObjectId, Pipeline, Pose, PoseHistory, Registry, Suspension, TickObserver, TickRecord,
    TimeSettings,
};

use super::protocol::{
    BodyView, Command, Event, FrameTelemetry, ObjectView, Pacing, RecoveryPoint, SelectedView,
    WorldView,
};
use super::session::{self, LoadedScene};

/// The UI's ends of the channels.
#[derive(Debug)]
pub struct UiEnd {
    /// Commands to the worker (unbounded: sending never blocks the UI).
    pub commands: Sender<Command>,
    /// Latest-wins views (capacity 1).
    pub views: Receiver<WorldView>,
    /// Telemetry batches, every frame.
    pub telemetry: Receiver<Vec<FrameTelemetry>>,
    /// Events, in order.
    pub events: Receiver<Event>,
    /// Latest-wins recovery points (capacity 1): what a restart starts from.
    pub recovery: Receiver<RecoveryPoint>,
}

/// The worker's ends of the channels.
#[derive(Debug)]
pub struct WorkerEnd {
    /// Commands from the UI.
    commands: Receiver<Command>,
    /// Where views go.
    views: Sender<WorldView>,
    /// A receiver on the view channel, used only to drop an unread view so the
    /// newest replaces it (the channel holds one).
    stale_views: Receiver<WorldView>,
    /// Where telemetry batches go.
    telemetry: Sender<Vec<FrameTelemetry>>,
    /// Where events go.
    events: Sender<Event>,
    /// Where recovery points go.
    recovery: Sender<RecoveryPoint>,
    /// A receiver on the recovery channel, used only to drop an unread point so
    /// the newest replaces it (the channel holds one).
    stale_recovery: Receiver<RecoveryPoint>,
}

/// Creates the channels between the UI and a worker.
pub fn channels() -> (UiEnd, WorkerEnd) {
    let (cmd_tx, cmd_rx) = crossbeam_channel::unbounded();
    let (view_tx, view_rx) = crossbeam_channel::bounded(1);
    let (tel_tx, tel_rx) = crossbeam_channel::unbounded();
    let (ev_tx, ev_rx) = crossbeam_channel::unbounded();
    let (rec_tx, rec_rx) = crossbeam_channel::bounded(1);
    (
        UiEnd {
            commands: cmd_tx,
            views: view_rx.clone(),
            telemetry: tel_rx,
            events: ev_rx,
            recovery: rec_rx.clone(),
        },
        WorkerEnd {
            commands: cmd_rx,
            views: view_tx,
            stale_views: view_rx,
            telemetry: tel_tx,
            events: ev_tx,
            recovery: rec_tx,
            stale_recovery: rec_rx,
        },
    )
}

/// What the tick observer passes back to the worker after each tick.
#[derive(Debug)]
struct TickTap {
    /// Contact events of the tick.
    contacts: Vec<ContactEvent>,
    /// State hash after the tick.
    hash: u64,
    /// The completed tick and the frame that ran it (for the pose history).
    tick: u64,
    /// The frame that ran the tick.
    frame: u64,
    /// Committed poses of every body after the tick (timeline scrubbing).
    poses: Vec<(ObjectId, Pose)>,
}

/// The observer installed in the pipeline: copies each tick's contacts and hash
/// into a channel the worker drains after the call (no lock, same thread).
struct TickForwarder {
    /// Where taps go.
    tx: Sender<TickTap>,
}

impl TickObserver for TickForwarder {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        // The receiver lives in the worker that owns this pipeline: a send only
        // fails while the worker is being dropped, when nobody needs the tap.
        let _ = self.tx.send(TickTap {
            contacts: record.contacts.to_vec(),
            hash: record.hash,
            tick: record.clock.simulation_tick,
            frame: record.clock.frame_index,
            poses: record
                .world
                .objects()
                .filter_map(|o| o.body.as_ref().map(|b| (o.id, b.committed)))
                .collect(),
        });
    }
}

/// Most log lines sent in one batch; a hook that logs more per frame (a runaway
/// loop) loses the oldest, so one bad frame cannot flood the UI.
const MAX_LOG_BATCH: usize = 4096;

/// Most wall time between two recovery points while the session runs: a
/// restart after a worker bug loses at most this much play. Measured (release,
/// 2 shared cores, `Pipeline::snapshot` 50 times in a row): demo.ron at tick
/// 600 takes 0.33 to 0.40 ms and about 306 KiB a snapshot; the 10,000-behaviour
/// panic scene of the worker soak 3.2 to 4.7 ms and about 2.3 MiB. Once a
/// second that is under 0.05% of the worker's time for the demo, under 0.5%
/// for the big scene.
pub const RECOVERY_EVERY: Duration = Duration::from_secs(1);

/// The session owner. See the module docs.
pub struct Worker {
    /// The runtime; nobody else touches it.
    pipeline: Pipeline,
    /// Behaviour factories scenes name.
    registry: Registry,
    /// The scene of the session (authored data, for save and reload), shared
    /// with the recovery points sent to the UI.
    scene: Option<Arc<LoadedScene>>,
    /// Time settings as chosen (the pipeline applies them at a frame boundary).
    settings: TimeSettings,
    /// Display rate (used by the thread wrapper and for step-frame).
    pacing: Pacing,
    /// The inspector's object.
    selected: Option<ObjectId>,
    /// Inspector edits waiting for the next tick's reconcile.
    pending_edits: Vec<String>,
    /// Completed ticks when `pending_edits` were queued.
    pending_edits_tick: u64,
    /// Taps from the tick observer.
    taps: Receiver<TickTap>,
    /// The observer's sender, reinstalled after a new session.
    tap_tx: Sender<TickTap>,
    /// Pairs touching now.
    touching: BTreeSet<(ObjectId, ObjectId)>,
    /// Hash after the last tick.
    state_hash: u64,
    /// The suspension last published, to emit suspended/resumed events once.
    last_suspension: Option<Suspension>,
    /// Views published so far.
    revision: u64,
    /// Something changed since the last publish.
    dirty: bool,
    /// Telemetry not yet sent.
    batch: Vec<FrameTelemetry>,
    /// Every call that advanced the session, with keyframes: "resume from
    /// here" rewinds through it.
    history: History,
    /// Committed poses per tick: what a timeline scrub shows.
    poses: PoseHistory,
    /// Input events from the UI, handed to the next frame through the history
    /// (so a rewind replays them).
    pending_inputs: Vec<InputEvent>,
    /// Channels to the UI.
    out: WorkerEnd,
    /// Asked to repaint after each publish (absent in tests).
    repaint: Option<egui::Context>,
    /// When the last recovery point was sent.
    last_recovery: Instant,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("pipeline", &self.pipeline)
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
        let (tap_tx, taps) = crossbeam_channel::unbounded();
        let mut pipeline = Pipeline::new(settings);
        pipeline.set_tick_observer(Some(Box::new(TickForwarder { tx: tap_tx.clone() })));
        pipeline.pause();
        let initial = pipeline.suspension().cloned();
        Worker {
            pipeline,
            registry: stepframe_plugins::registry(),
            scene: None,
            settings,
            pacing,
            selected: None,
            pending_edits: Vec::new(),
            pending_edits_tick: 0,
            taps,
            tap_tx,
            touching: BTreeSet::new(),
            state_hash: 0,
            // The empty session starts paused; that is not news.
            last_suspension: initial,
            revision: 0,
            dirty: true,
            batch: Vec::new(),
            history: History::default(),
            poses: PoseHistory::default(),
            pending_inputs: Vec::new(),
            out,
            repaint,
            last_recovery: Instant::now(),
        }
    }

    /// A worker that continues a session from `point` (the editor's restart
    /// after its worker died): the snapshot restored, the scene kept for Save
    /// and Reload, suspended (paused) at the snapshot's tick. The rewind and
    /// pose histories start empty there. It sends `point`'s state back at once
    /// as its first recovery point. Breakpoints, selection and time settings
    /// changed since the point are the UI's to send again. Build it on the
    /// worker's own thread ([`spawn_with`]): restoring clones every behaviour.
    pub fn restart(
        out: WorkerEnd,
        pacing: Pacing,
        repaint: Option<egui::Context>,
        point: RecoveryPoint,
    ) -> Worker {
        let mut worker = Worker::new(out, pacing, repaint);
        worker.pipeline.restore(&point.snapshot);
        worker.pipeline.pause();
        worker.settings = *worker.pipeline.settings();
        worker.state_hash = worker.pipeline.state_hash();
        worker.scene = point.scene;
        worker.send_recovery_point();
        worker
    }

    /// The display rate the thread wrapper paces to.
    pub fn pacing(&self) -> Pacing {
        self.pacing
    }

    /// True while the session is suspended (paused, stepped, at a breakpoint).
    pub fn is_suspended(&self) -> bool {
        self.pipeline.suspension().is_some()
    }

    /// Applies every command waiting in the channel, then runs one frame of
    /// `raw_dt` seconds and publishes: the synchronous driver tests use.
    /// Returns false once a [`Command::Shutdown`] arrived or the UI is gone.
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
        self.frame(raw_dt);
        true
    }

    /// Applies one command. Returns false for [`Command::Shutdown`].
    pub fn handle(&mut self, command: Command) -> bool {
        self.dirty = true;
        match command {
            Command::Play => self.play(),
            Command::Pause => self.history.pause(&mut self.pipeline),
            Command::TogglePlay => {
                if self.is_suspended() {
                    self.play();
                } else {
                    self.history.pause(&mut self.pipeline);
                }
            }
            Command::StepTick => {
                let t0 = Instant::now();
                self.flush_inputs();
                let report = self.history.step_tick(&mut self.pipeline);
                self.record(report, 0.0, t0);
            }
            Command::StepFrame => {
                let t0 = Instant::now();
                let dt = self.pacing.nominal_dt();
                let inputs = std::mem::take(&mut self.pending_inputs);
                let report = self.history.step_one_frame(&mut self.pipeline, dt, &inputs);
                self.record(report, dt, t0);
            }
            Command::Scrub(tick) => {
                self.drain_taps(true);
                let poses = self.poses.at(tick).cloned();
                self.send_event(Event::Poses(poses));
            }
            Command::RewindTo(tick) => self.rewind(tick),
            Command::SetTimeScale(scale) => self.change_settings(|s| s.time_scale = scale),
            Command::SetFixedRate(hz) => self.change_settings(|s| s.fixed_hz = hz),
            Command::SetMaxSteps(n) => self.change_settings(|s| s.max_steps = n),
            Command::SetStrategy(strategy) => self.change_settings(|s| s.strategy = strategy),
            Command::SetPacing(pacing) => self.pacing = pacing,
            Command::AddBreakpoint(breakpoint) => {
                self.pipeline.add_breakpoint(breakpoint);
            }
            Command::RemoveBreakpoint(id) => {
                self.pipeline.remove_breakpoint(id);
            }
            Command::EnableBreakpoint(id, enabled) => {
                self.pipeline.set_breakpoint_enabled(id, enabled)
            }
            Command::ToggleFixedBreakpoint(object) => self.toggle_fixed_breakpoint(object),
            Command::Input(event) => self.pending_inputs.push(event),
            Command::Load(path) => self.load(&path, false),
            Command::LoadAndPlay(path) => self.load(&path, true),
            Command::Reload => self.reload(),
            Command::Save(path) => self.save(&path),
            Command::Select(id) => self.selected = id,
            Command::SetEnabled(id, enabled) => self.pipeline.world_mut().set_enabled(id, enabled),
            Command::EditPose(id, pose) => {
                self.edit(id, BodyCommand::SetPose { target: id, pose }, || {
                    format!(
                        "SetPose x {:?} m, y {:?} m, angle {:?} rad",
                        pose.x, pose.y, pose.angle
                    )
                })
            }
            Command::EditVelocity(id, velocity) => self.edit(
                id,
                BodyCommand::SetVelocity {
                    target: id,
                    velocity,
                },
                || {
                    format!(
                        "SetVelocity ({:?}, {:?}) m/s, {:?} rad/s",
                        velocity.linear.x, velocity.linear.y, velocity.angular
                    )
                },
            ),
            Command::ReloadScript(path) => {
                if let Err(e) = stepframe_plugins::script::reload(&path) {
                    self.error(format!("script not reloaded: {e}"));
                }
            }
            Command::Shutdown => return false,
            Command::DebugCrashWorker => {
                panic!("DebugCrashWorker: deliberate fault injection (a bug in the worker itself)")
            }
        }
        true
    }

    /// Runs one outer frame of `raw_dt` real seconds unless suspended, then
    /// publishes if anything changed.
    pub fn frame(&mut self, raw_dt: f64) {
        if !self.is_suspended() {
            let t0 = Instant::now();
            let inputs = std::mem::take(&mut self.pending_inputs);
            let report = self.history.step_frame(&mut self.pipeline, raw_dt, &inputs);
            self.record(report, raw_dt, t0);
            self.dirty = true;
            // A frame that ran to its end leaves the session between frames:
            // the only state a recovery point is taken in.
            if !self.is_suspended() && self.last_recovery.elapsed() >= RECOVERY_EVERY {
                self.send_recovery_point();
            }
        }
        self.publish();
    }

    /// Sends a snapshot of the session, between frames, to the UI (latest wins).
    fn send_recovery_point(&mut self) {
        self.last_recovery = Instant::now();
        let point = RecoveryPoint {
            snapshot: self.pipeline.snapshot(),
            scene: self.scene.clone(),
        };
        match self.out.recovery.try_send(point) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(point)) => {
                let _ = self.out.stale_recovery.try_recv();
                let _ = self.out.recovery.try_send(point);
            }
        }
    }

    fn play(&mut self) {
        if self.is_suspended() {
            let t0 = Instant::now();
            self.flush_inputs();
            let report = self.history.resume(&mut self.pipeline);
            self.record(report, 0.0, t0);
        }
    }

    /// Input that must reach a call the history logs without inputs (a lone
    /// tick, a resume): pushed straight to the pipeline. Such input is not
    /// replayed by a rewind; frames carry theirs through the history.
    fn flush_inputs(&mut self) {
        for e in std::mem::take(&mut self.pending_inputs) {
            self.pipeline.push_input(e);
        }
    }

    /// Applies the tick observer's taps: contacts and hash always, poses into
    /// the pose history when `record_poses` (a rewind's replay re-runs known
    /// ticks: their poses are already there, and later ones stay scrubbable
    /// until the new branch overwrites them).
    fn drain_taps(&mut self, record_poses: bool) {
        while let Ok(tap) = self.taps.try_recv() {
            self.state_hash = tap.hash;
            for c in tap.contacts {
                match c.kind {
                    ContactKind::Started => self.touching.insert((c.a, c.b)),
                    ContactKind::Stopped => self.touching.remove(&(c.a, c.b)),
                };
            }
            if record_poses {
                self.poses
                    .record(tap.tick, tap.frame, tap.poses.into_iter());
            }
        }
    }

    /// "Resume from here": rewinds to the end of `tick`, suspended there.
    fn rewind(&mut self, tick: u64) {
        self.drain_taps(true);
        self.pending_inputs.clear();
        match self.history.rewind_to_tick(&mut self.pipeline, tick) {
            Ok(()) => {
                // The replay runs without the tick observer: the hash comes
                // from the pipeline; the touching set is rebuilt by the ticks
                // that follow (contacts that started before the target and
                // still touch are not shown until they change).
                self.drain_taps(false);
                self.touching.clear();
                self.state_hash = self.pipeline.state_hash();
                self.send_event(Event::Rewound(tick));
            }
            Err(e) => self.error(format!("cannot resume from tick {tick}: {e}")),
        }
    }

    fn change_settings(&mut self, change: impl FnOnce(&mut TimeSettings)) {
        let mut next = self.settings;
        change(&mut next);
        match self.pipeline.set_settings(next) {
            Ok(()) => self.settings = next,
            Err(reason) => self.error(format!("time settings rejected: {reason}")),
        }
    }

    fn toggle_fixed_breakpoint(&mut self, object: ObjectId) {
        let existing = self
            .pipeline
            .debugger()
            .breakpoints()
            .iter()
            .find(|b| {
                b.hook == Some(HookKind::FixedUpdate)
                    && b.object == Some(object)
                    && b.priority.is_none()
                    && b.condition == Default::default()
                    && b.hit_count == Default::default()
            })
            .map(|b| b.id);
        match existing {
            Some(id) => {
                self.pipeline.remove_breakpoint(id);
            }
            None => {
                self.pipeline
                    .add_breakpoint(Breakpoint::on(HookKind::FixedUpdate, object));
            }
        }
    }

    fn edit(&mut self, id: ObjectId, command: BodyCommand, describe: impl FnOnce() -> String) {
        if !self.is_suspended() {
            self.error("edits apply while suspended: pause first".to_string());
            return;
        }
        let has_body = self
            .pipeline
            .world()
            .get(id)
            .is_some_and(|o| o.body.is_some());
        if !has_body {
            self.error(format!("object {id} has no body to edit"));
            return;
        }
        let clock = *self.pipeline.clock();
        if self
            .pipeline
            .world_mut()
            .command(command, clock.simulation_tick, clock.frame_index)
        {
            if self.pending_edits.is_empty() {
                self.pending_edits_tick = clock.simulation_tick;
            }
            self.pending_edits.push(format!(
                "{} (reconciled before tick {})",
                describe(),
                clock.simulation_tick + 1
            ));
        } else {
            self.error(format!("edit of {id} rejected: not a finite value"));
        }
    }

    fn load(&mut self, path: &Path, play: bool) {
        match session::open(&mut self.pipeline, &self.registry, path) {
            Ok((scene, settings)) => {
                self.settings = settings;
                self.after_new_session(scene, path);
                if !play {
                    // The preview: the world at tick 0, poses shown, nothing run.
                    self.pipeline.pause();
                }
            }
            Err(message) => self.error(message),
        }
    }

    fn reload(&mut self) {
        let Some(path) = self.scene.as_ref().map(|s| s.path.clone()) else {
            self.error("no scene to reload".to_string());
            return;
        };
        let was_suspended = self.is_suspended();
        match session::reload(&mut self.pipeline, &self.registry, &path) {
            Ok(scene) => {
                self.after_new_session(scene, &path);
                if was_suspended {
                    self.pipeline.pause();
                }
            }
            Err(message) => self.error(message),
        }
    }

    fn after_new_session(&mut self, scene: LoadedScene, path: &Path) {
        self.pipeline
            .set_tick_observer(Some(Box::new(TickForwarder {
                tx: self.tap_tx.clone(),
            })));
        while self.taps.try_recv().is_ok() {}
        self.history.clear();
        self.poses = PoseHistory::default();
        self.pending_inputs.clear();
        self.touching.clear();
        self.state_hash = 0;
        self.pending_edits.clear();
        if let Some(id) = self.selected
            && self.pipeline.world().get(id).is_none()
        {
            self.selected = None;
        }
        self.scene = Some(Arc::new(scene));
        // A new session is at tick 0 between frames: its first recovery point.
        self.send_recovery_point();
        let objects = self.pipeline.world().len();
        self.send_event(Event::Loaded {
            path: path.to_path_buf(),
            objects,
        });
    }

    fn save(&mut self, path: &Path) {
        let Some(scene) = self.scene.as_ref() else {
            self.error("no scene to save".to_string());
            return;
        };
        match session::save(scene.as_ref(), self.settings, path) {
            Ok(()) => self.send_event(Event::Saved(path.to_path_buf())),
            Err(message) => self.error(message),
        }
    }

    fn error(&mut self, message: String) {
        self.send_event(Event::Error(message));
    }

    fn send_event(&mut self, event: Event) {
        // A closed channel means the UI is gone; the thread ends at the next recv.
        let _ = self.out.events.send(event);
    }

    fn record(&mut self, report: FrameReport, real_dt: f64, t0: Instant) {
        if report.kind == stepframe_core::FrameKind::NotRun {
            return;
        }
        self.batch.push(FrameTelemetry {
            report,
            clock: *self.pipeline.clock(),
            real_dt,
            call_ms: t0.elapsed().as_secs_f64() * 1000.0,
        });
    }

    /// Sends the telemetry batch, log lines, suspension events and (latest wins)
    /// the view, if anything changed since the last publish.
    fn publish(&mut self) {
        self.drain_taps(true);
        let mut log = self.pipeline.drain_log();
        if !log.is_empty() {
            if log.len() > MAX_LOG_BATCH {
                log.drain(..log.len() - MAX_LOG_BATCH);
            }
            self.send_event(Event::Log(log));
        }
        let now = self.pipeline.suspension().cloned();
        if now != self.last_suspension {
            match &now {
                Some(s) => self.send_event(Event::Suspended(s.clone())),
                None => self.send_event(Event::Resumed),
            }
            self.last_suspension = now;
            self.dirty = true;
        }
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            let _ = self.out.telemetry.send(batch);
        }
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.revision += 1;
        let view = self.view();
        match self.out.views.try_send(view) {
            Ok(()) => {}
            Err(TrySendError::Full(view)) => {
                // Latest wins: drop the unread view and put the new one in its place.
                let _ = self.out.stale_views.try_recv();
                let _ = self.out.views.try_send(view);
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
        if let Some(ctx) = &self.repaint {
            ctx.request_repaint();
        }
    }

    /// The view of the session now. While suspended every pose shown is the
    /// committed pose of the completed tick, exactly.
    fn view(&mut self) -> WorldView {
        let world = self.pipeline.world();
        let clock = *self.pipeline.clock();
        let suspended = self.pipeline.suspension().is_some();
        let pose_now = |id: ObjectId| {
            if suspended {
                world.physics_simulation_pose(id)
            } else {
                world.presentation_pose(id, clock.interpolation_alpha, clock.fixed_delta_time)
            }
        };
        let objects: Vec<ObjectView> = world
            .objects()
            .map(|o| {
                let committed = world.physics_simulation_pose(o.id).unwrap_or(o.local);
                ObjectView {
                    id: o.id,
                    name: o.name.clone(),
                    parent: o.parent,
                    enabled: o.is_enabled(),
                    presentation: pose_now(o.id).unwrap_or(committed),
                    committed,
                    body: o.body.as_ref().map(|b| BodyView {
                        kind: b.desc.kind,
                        shapes: b.desc.shapes.clone(),
                        sensor: b.desc.sensor,
                    }),
                }
            })
            .collect();
        if clock.simulation_tick != self.pending_edits_tick {
            self.pending_edits.clear();
        }
        let selected = self.selected.and_then(|id| {
            let o = world.get(id)?;
            let committed = world.physics_simulation_pose(id)?;
            Some(SelectedView {
                id,
                name: o.name.clone(),
                enabled: o.is_enabled(),
                committed,
                presentation: pose_now(id).unwrap_or(committed),
                previous: o.body.as_ref().map(|b| b.previous),
                velocity: o.body.as_ref().map(|b| b.velocity),
                body: o.body.as_ref().map(|b| b.desc.clone()),
                behaviours: o.behaviours.clone(),
                pending_edits: self.pending_edits.clone(),
            })
        });
        let actions = self
            .pipeline
            .input()
            .map()
            .actions
            .iter()
            .map(|a| {
                let keys = a
                    .sources
                    .iter()
                    .filter_map(|s| match s {
                        stepframe_core::InputSource::Key(k) => Some(k.clone()),
                        _ => None,
                    })
                    .collect();
                (a.name.clone(), keys)
            })
            .collect();
        WorldView {
            revision: self.revision,
            clock,
            settings: self.settings,
            pacing: self.pacing,
            suspension: self.pipeline.suspension().cloned(),
            scene_path: self.scene.as_ref().map(|s| s.path.clone()),
            objects,
            contacts: self.touching.iter().copied().collect(),
            camera: world.camera,
            breakpoints: self.pipeline.debugger().breakpoints().to_vec(),
            hits: self.pipeline.debugger().hits().cloned().collect(),
            selected,
            state_hash: self.state_hash,
            actions,
        }
    }
}

/// A worker running on its own thread; dropping it stops the thread.
#[derive(Debug)]
pub struct WorkerThread {
    /// For the shutdown command on drop.
    commands: Sender<Command>,
    /// The thread, joined on drop.
    join: Option<JoinHandle<()>>,
    /// How the thread ended: one message, sent as it ends.
    exit: Receiver<String>,
}

impl WorkerThread {
    /// `None` while the worker runs; once its thread has ended, why: the panic
    /// message of a worker bug, or a note that it returned. Never blocks (the
    /// thread is joined on drop, not here), so the UI can ask every frame.
    pub fn stopped(&self) -> Option<String> {
        match self.exit.try_recv() {
            Ok(message) => Some(message),
            Err(TryRecvError::Empty) => self
                .join
                .as_ref()
                .filter(|j| j.is_finished())
                .map(|_| "the worker thread ended without saying why".to_string()),
            Err(TryRecvError::Disconnected) => {
                Some("the worker thread ended without saying why".to_string())
            }
        }
    }
}

impl Drop for WorkerThread {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Shutdown);
        if let Some(join) = self.join.take() {
            let _ = join.join();
        }
    }
}

/// Starts `worker` on a thread that paces itself (see the module docs).
/// `commands` is a sender on the worker's command channel, kept for shutdown.
/// A panic anywhere in the worker (outside the pipeline's own `catch_unwind`
/// around hooks) is caught at the top of the thread, after the worker and its
/// channels are dropped: its message goes to [`WorkerThread::stopped`] and the
/// UI is asked to repaint so it notices at once.
pub fn spawn(worker: Worker, commands: Sender<Command>) -> std::io::Result<WorkerThread> {
    let repaint = worker.repaint.clone();
    spawn_with(move || worker, commands, repaint)
}

/// [`spawn`], with the worker built by `build` on the new thread (a restart
/// restores its snapshot there, under the same catch). `repaint` is woken when
/// the thread ends.
pub fn spawn_with(
    build: impl FnOnce() -> Worker + Send + 'static,
    commands: Sender<Command>,
    repaint: Option<egui::Context>,
) -> std::io::Result<WorkerThread> {
    let (exit_tx, exit) = crossbeam_channel::bounded(1);
    let join = std::thread::Builder::new()
        .name("stepframe-worker".into())
        .spawn(move || {
            // The worker is dropped by the unwind and never used again.
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| run_paced(build())));
            let message = match outcome {
                Ok(()) => "the worker thread returned".to_string(),
                Err(payload) => panic_text(payload.as_ref()),
            };
            let _ = exit_tx.send(message);
            if let Some(ctx) = repaint {
                ctx.request_repaint();
            }
        })?;
    Ok(WorkerThread {
        commands,
        join: Some(join),
        exit,
    })
}

/// The message of a panic payload (`panic!` with a literal or a format string),
/// or a placeholder for any other payload.
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".to_string()
    }
}

/// Frame lengths for [`Pacing::Irregular`]: a fixed-seed xorshift between 4 and
/// 40 ms, with a 150 ms stall every 64 frames (longer than `max_delta` × 0.5, so
/// the step cap and dropped time show up in the timeline).
#[derive(Debug)]
struct IrregularClock {
    /// Generator state.
    state: u64,
    /// Frames so far.
    n: u64,
}

impl IrregularClock {
    fn next(&mut self) -> Duration {
        self.n += 1;
        if self.n.is_multiple_of(64) {
            return Duration::from_millis(150);
        }
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        Duration::from_micros(4_000 + self.state % 36_000)
    }
}

fn period(pacing: Pacing, irregular: &mut IrregularClock) -> Duration {
    match pacing {
        Pacing::Hz(hz) => Duration::from_secs_f64(1.0 / f64::from(hz.max(1))),
        Pacing::Uncapped => Duration::ZERO,
        Pacing::Irregular => irregular.next(),
    }
}

fn run_paced(mut worker: Worker) {
    let commands = worker.out.commands.clone();
    let mut irregular = IrregularClock {
        state: 0x9e37_79b9_7f4a_7c15,
        n: 0,
    };
    let mut last = Instant::now();
    let mut deadline = last;
    loop {
        if worker.is_suspended() {
            // Nothing runs while suspended: block until a command arrives.
            worker.publish();
            match commands.recv() {
                Ok(command) => {
                    if !worker.handle(command) {
                        return;
                    }
                }
                Err(_) => return,
            }
            // Drain whatever else arrived, then publish the result at once.
            while let Ok(command) = commands.try_recv() {
                if !worker.handle(command) {
                    return;
                }
            }
            worker.publish();
            last = Instant::now();
            deadline = last;
            continue;
        }
        // Running: wait for the deadline, applying commands as they come.
        loop {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            match commands.recv_timeout(deadline - now) {
                Ok(command) => {
                    if !worker.handle(command) {
                        return;
                    }
                    if worker.is_suspended() {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if worker.is_suspended() {
            continue;
        }
        let now = Instant::now();
        let dt = now.duration_since(last).as_secs_f64();
        last = now;
        worker.frame(dt);
        let p = period(worker.pacing(), &mut irregular);
        deadline += p;
        if deadline < now {
            deadline = now + p;
        }
        if p.is_zero() {
            // Uncapped: still let commands in between frames.
            while let Ok(command) = commands.try_recv() {
                if !worker.handle(command) {
                    return;
                }
            }
        }
    }
}

/// Where a scene path given on the command line or typed in the path field
/// points, made absolute for display and for reload.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
