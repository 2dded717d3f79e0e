//! `step_frame`: one active outer frame, update → fixed → Flow Tick → presentation.
//!
//! The editor's worker and the headless player both call
//! [`Pipeline::step_frame`]; nothing frame-related exists twice. One call:
//!
//! 1. **Clamp and scale**: `delta_time = min(raw_dt, max_delta) × time_scale`,
//!    rounded once to whole flicks. `frame_index` += 1, `frame_time` += delta.
//! 2. **Frame boundary**: the cohort is rebuilt (removed objects reclaimed,
//!    objects spawned last frame admitted) and the outer-frame input snapshot is
//!    taken.
//! 3. **Update phase**: Start for new behaviours, then Update, each across the
//!    cohort in priority order; then routines on the frame clock.
//! 4. **Fixed phase**: the stepper gains `delta_time` and says how many ticks the
//!    frame owes (at most `max_steps`; the excess is dropped and reported). Each
//!    tick: clock set to the pending tick, simulation input snapshot delivered,
//!    FixedUpdate across the cohort, fixed-clock routines, physics reconcile and
//!    step, clock set to the completed tick, commit, contact callbacks in pair
//!    order, tick observer.
//! 5. **Flow Tick** across the cohort in priority order, once, on the frame
//!    clock with the frame's clamped delta (the update phase's clock: the clock
//!    reads `Phase::Update`). It comes after the fixed phase because the
//!    contract skips it with the rest of a frame a fixed breakpoint interrupted.
//! 6. **Presentation**: `interpolation_alpha = accumulator / fixed_dt`, then the
//!    presentation hooks.
//!
//! # Where the commit sits: contact hooks read their tick's live pose
//!
//! The commit (rapier's poses become the committed poses) comes right after
//! the physics step, *before* the contact callbacks. So a contact hook of tick
//! `n`, whose clock already says tick `n` is complete, reads the pose and
//! velocity tick `n` ended with: exactly what the tick's trace record holds.
//! Contact hooks cannot move bodies directly (their commands are reconciled
//! before the next step), so nothing they do changes the committed poses; the
//! tick observer still runs after them, so the trace and the hash include what
//! they did to behaviour state, spawns and removals.
//!
//! Worked example (60 Hz, `conformance.rs`): a body pushed by 60 N at unit
//! mass starts at x = 1; tick 1 ends at x = 1 + 1/60. A contact of tick 1
//! reports `pose().x` = 1 + 1/60, the trace line of tick 1 says the same, and
//! the next FixedUpdate (tick 2) reads it as its committed pose.
//!
//! # A frame that stops part-way
//!
//! A suspended pipeline does not run: `step_frame` returns at once with
//! [`FrameKind::NotRun`] and no clock moves, which is how a paused editor or
//! player "does not call the shared pipeline". See [`crate::debugger`] for
//! where suspensions happen and what resume and step-tick do. Whenever the
//! pipeline stops outside presentation, `interpolation_alpha` is set to the
//! accumulator over fixed dt of the state it stopped in.
//!
//! A hook that panics is caught: the error (object, hook, tick, message) goes to
//! the log, the [`FaultPolicy`] decides what happens to the behaviour, and the
//! tick completes for every other object.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::behaviour::{
    Behaviour, Ctx, HookKind, HookRequests, Hooks, Rng, RoutineBody, RoutineSlot, TimeGroup, Wait,
};
use crate::body::ContactEvent;
use crate::clock::{Clock, Flicks, Phase};
use crate::clock_breakpoint::{ClockBreakpoint, FrameFacts, TickFacts};
use crate::debugger::{Breakpoint, BreakpointId, Debugger, SuspendReason, Suspension};
use crate::input::{ActionMap, Input, InputEvent};
use crate::physics::{NoPhysics, PhysicsStage};
pub use crate::report::{FrameKind, FrameReport, MAX_TIMED_PRIORITIES, PhaseTiming, PriorityTimes};
use crate::schedule::{Entry, Priority, Registration, Scheduler};
use crate::stepper::{FixedStepper, StepStrategy};
use crate::trace::{
    StableHasher, SubsystemHashes, SubsystemState, TickObserver, TickRecord, hash_world,
};
use crate::world::{LogEntry, LogLevel, ObjectId, World};

/// Supplies input events stamped with the tick they belong to: the replay of a
/// recording. Looked up by tick (not consumed), so rewinding replays them again.
pub trait TickInputSource: Send + std::fmt::Debug {
    /// Appends the events recorded for `tick` (one-based), in delivery order.
    fn events_for_tick(&self, tick: u64, out: &mut Vec<InputEvent>);
}

/// The timing settings of a session (scene world settings, player flags, editor
/// toolbar). Changes take effect at the next frame boundary.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimeSettings {
    /// Fixed ticks per second (60). Rates dividing 705,600,000 are exact.
    pub fixed_hz: u32,
    /// Longest frame delta accepted, seconds (0.25, Fiedler's clamp).
    pub max_delta: f64,
    /// Most ticks one frame may run (4); the backlog beyond is dropped.
    pub max_steps: u32,
    /// Multiplies the clamped delta (0 runs no tick and no FixedUpdate).
    pub time_scale: f64,
    /// Physics substeps per tick; each advances `fixed_dt / substeps`.
    pub substeps: u32,
    /// Accumulator or step counting: identical tick sequences.
    pub strategy: StepStrategy,
}

impl Default for TimeSettings {
    fn default() -> TimeSettings {
        TimeSettings {
            fixed_hz: 60,
            max_delta: 0.25,
            max_steps: 4,
            time_scale: 1.0,
            substeps: 1,
            strategy: StepStrategy::Accumulator,
        }
    }
}

impl TimeSettings {
    /// The time scales the toolbar offers.
    pub const TIME_SCALES: [f64; 6] = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0];

    /// Rejects settings that cannot run, with a reason.
    pub fn validate(&self) -> Result<(), String> {
        if self.fixed_hz == 0 || self.fixed_hz > 10_000 {
            return Err(format!("fixed_hz must be 1..=10000, got {}", self.fixed_hz));
        }
        if !(self.max_delta.is_finite() && self.max_delta > 0.0) {
            return Err(format!(
                "max_delta must be a positive number of seconds, got {}",
                self.max_delta
            ));
        }
        if self.max_steps == 0 {
            return Err("max_steps must be at least 1".into());
        }
        if !(self.time_scale.is_finite() && self.time_scale >= 0.0 && self.time_scale <= 64.0) {
            return Err(format!(
                "time_scale must be within 0..=64, got {}",
                self.time_scale
            ));
        }
        if self.substeps == 0 || self.substeps > 64 {
            return Err(format!("substeps must be 1..=64, got {}", self.substeps));
        }
        Ok(())
    }
}

/// What happens to a behaviour whose hook panicked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FaultPolicy {
    /// The behaviour gets no further callback; its object stays.
    #[default]
    Disable,
    /// The object is removed.
    Remove,
    /// The behaviour is disabled and the debugger suspends (end of tick in fixed code).
    Break,
}

/// Where an interrupted frame stands. A frame walks these states in order:
/// `Update` (Start, then Update, then frame-clock routines), `Fixed`, `Flow`,
/// `Presentation`, back to `Idle`; a suspension keeps the state it stopped in,
/// and resume, step-tick and step-frame go on from there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Cursor {
    /// Between frames.
    #[default]
    Idle,
    /// In the update phase, at `next` in the cohort for `hook` (Start or
    /// Update); `past_break` means the call at `next` already fired its
    /// breakpoint and must now run.
    Update {
        hook: HookKind,
        next: usize,
        past_break: bool,
    },
    /// In the fixed phase. `advanced`: the stepper already has this frame's delta.
    /// `interrupted`: a tick suspended, so Flow Tick and presentation are skipped.
    Fixed { advanced: bool, interrupted: bool },
    /// Fixed phase done; Flow Tick at `next` in the cohort (`past_break` as for
    /// `Update`).
    Flow { next: usize, past_break: bool },
    /// Flow Tick done; presentation pending.
    Presentation,
}

impl Cursor {
    /// Where a frame stands at position `next` of an update-clock hook's pass.
    fn at(hook: HookKind, next: usize, past_break: bool) -> Cursor {
        if hook == HookKind::FlowTick {
            Cursor::Flow { next, past_break }
        } else {
            Cursor::Update {
                hook,
                next,
                past_break,
            }
        }
    }
}

/// When `drive` must stop besides the end of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    FrameEnd,
    AfterOneTick,
}

/// Everything a snapshot restores: the whole simulation state of a session.
#[derive(Clone, Debug)]
pub struct Snapshot {
    world: World,
    scheduler: Scheduler,
    physics: Box<dyn PhysicsStage>,
    stepper: FixedStepper,
    clock: Clock,
    frame_time: Flicks,
    frame_index: u64,
    delta: Flicks,
    input: Input,
    rng: Rng,
    routines: Vec<RoutineSlot>,
    cursor: Cursor,
    settings: TimeSettings,
}

impl Snapshot {
    /// Completed ticks at the moment of the snapshot.
    pub fn tick(&self) -> u64 {
        self.stepper.completed_ticks()
    }

    /// Outer frame at the moment of the snapshot.
    pub fn frame_index(&self) -> u64 {
        self.frame_index
    }

    /// Simulated seconds at the moment of the snapshot.
    pub fn simulation_time(&self) -> f64 {
        self.stepper.simulation_time().as_secs_f64()
    }

    /// About how many bytes the snapshot holds (what [`crate::History`]'s
    /// byte budget counts): the world's objects and the cohort's entries
    /// with their heap parts, plus the physics stage's own estimate
    /// ([`PhysicsStage::memory_bytes`]). Behaviours count their inline size
    /// only (a script's shared compiled code is not copied per snapshot).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Snapshot>()
            + self.world.memory_bytes()
            + self.scheduler.memory_bytes()
            + self.physics.memory_bytes()
            + self.routines.capacity() * std::mem::size_of::<RoutineSlot>()
    }
}

/// A question asked of the committed state at the end of every tick ("is the
/// player below 0?"), by the editor's watches. It sees the whole session, read
/// only, after the tick observer; `Some(reason)` suspends at the end of that
/// tick with committed state, as a FixedUpdate breakpoint does.
pub trait TickWatch: Send {
    /// Called once per completed tick, at its end.
    fn after_tick(&mut self, session: &Pipeline) -> Option<String>;
}

/// The runtime: world, cohort, clock, stepper, physics, input and debugger.
pub struct Pipeline {
    settings: TimeSettings,
    /// Applied at the next frame boundary.
    pending_settings: Option<TimeSettings>,
    stepper: FixedStepper,
    clock: Clock,
    frame_time: Flicks,
    frame_index: u64,
    /// This frame's clamped, scaled delta.
    delta: Flicks,
    world: World,
    scheduler: Scheduler,
    physics: Box<dyn PhysicsStage>,
    input: Input,
    rng: Rng,
    routines: Vec<RoutineSlot>,
    debugger: Debugger,
    fault_policy: FaultPolicy,
    cursor: Cursor,
    suspended: Option<Suspension>,
    /// A suspension decided during the current tick, taking effect at its end.
    pending_suspend: Option<SuspendReason>,
    /// A frame is under way (not a lone tick): its end checks the clock
    /// breakpoints' frame rules.
    in_frame: bool,
    /// What the frame under way has done so far, for those rules.
    frame_facts: FrameFacts,
    /// Alpha at the end of the previous frame (`None` before the first).
    last_alpha: Option<f64>,
    observer: Option<Box<dyn TickObserver>>,
    /// Watches over committed state, checked at the end of every tick.
    watch: Option<Box<dyn TickWatch>>,
    /// Suspend at the end of this tick (rewind target, replayed stops).
    stop_after_tick: Option<u64>,
    tick_input: Option<Box<dyn TickInputSource>>,
    /// Scratch for replayed events.
    replay_scratch: Vec<InputEvent>,
    requests: HookRequests,
    /// The last update-phase hook asked to be re-run on resume
    /// ([`Ctx::request_break_and_rerun`]).
    rerun_hook: bool,
    contacts: Vec<ContactEvent>,
    /// Scratch: the tick's soft-body tears.
    tears: Vec<crate::soft_body::SoftTear>,
    report: FrameReport,
    /// A hook said its behaviour's hook set changed: the dispatch lists are
    /// rebuilt before the next pass that could call it.
    hooks_changed: bool,
}

impl SubsystemState for Pipeline {
    fn subsystem_hashes(&self, out: &mut SubsystemHashes) {
        Pipeline::subsystem_hashes(self, out);
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("clock", &self.clock)
            .field("objects", &self.world.len())
            .field("suspended", &self.suspended)
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline with an empty world, no physics engine and no actions.
    pub fn new(settings: TimeSettings) -> Pipeline {
        let stepper = FixedStepper::new(settings.strategy, Flicks::per_hz(settings.fixed_hz));
        let mut p = Pipeline {
            settings,
            pending_settings: None,
            stepper,
            clock: Clock::default(),
            frame_time: Flicks::ZERO,
            frame_index: 0,
            delta: Flicks::ZERO,
            world: World::new(),
            scheduler: Scheduler::default(),
            physics: Box::new(NoPhysics),
            input: Input::default(),
            rng: Rng::new(0),
            routines: Vec::new(),
            debugger: Debugger::default(),
            fault_policy: FaultPolicy::default(),
            cursor: Cursor::Idle,
            suspended: None,
            pending_suspend: None,
            in_frame: false,
            frame_facts: FrameFacts::default(),
            last_alpha: None,
            observer: None,
            watch: None,
            stop_after_tick: None,
            tick_input: None,
            replay_scratch: Vec::new(),
            requests: HookRequests::default(),
            rerun_hook: false,
            contacts: Vec::new(),
            tears: Vec::new(),
            report: FrameReport::default(),
            hooks_changed: false,
        };
        p.sync_clock(Phase::Idle, false);
        p
    }

    /// Starts a new physics session: a new world and engine, fresh simulation
    /// time, dropped time and fixed input memory. Frame time and frame index go
    /// on (the contract: simulation time restarts with its physics world, frame
    /// time does not). Any suspension is cleared.
    pub fn load_session(&mut self, world: World, physics: Box<dyn PhysicsStage>, seed: u64) {
        self.world = world;
        self.physics = physics;
        self.scheduler = Scheduler::default();
        self.routines.clear();
        self.stepper.reset();
        // Settings queued for this session (a scene's) apply now: no frame is in
        // progress, and a step-tick before the first frame must use them.
        if let Some(settings) = self.pending_settings.take() {
            self.stepper = FixedStepper::new(settings.strategy, Flicks::per_hz(settings.fixed_hz));
            self.settings = settings;
        }
        self.input.reset_simulation();
        self.rng = Rng::new(seed);
        self.cursor = Cursor::Idle;
        self.suspended = None;
        self.pending_suspend = None;
        self.scheduler.rebuild(&mut self.world);
        self.sync_clock(Phase::Idle, false);
    }

    /// Replaces the action map (the input state restarts).
    pub fn set_action_map(&mut self, map: ActionMap) {
        self.input = Input::new(map);
    }

    /// Installs (or removes) the observer that receives every completed tick.
    pub fn set_tick_observer(&mut self, observer: Option<Box<dyn TickObserver>>) {
        self.observer = observer;
    }

    /// Takes the observer back out.
    pub fn take_tick_observer(&mut self) -> Option<Box<dyn TickObserver>> {
        self.observer.take()
    }

    /// Installs (or with `None` removes) the watch checked at the end of every
    /// tick: a `Some(reason)` from it suspends there, like a FixedUpdate
    /// breakpoint. Not part of snapshots; rewinds take it out while they
    /// replay, so a watch stops live runs only.
    pub fn set_tick_watch(&mut self, watch: Option<Box<dyn TickWatch>>) {
        self.watch = watch;
    }

    /// Removes the watch and returns it.
    pub fn take_tick_watch(&mut self) -> Option<Box<dyn TickWatch>> {
        self.watch.take()
    }

    /// Suspends at the end of `tick` (once, then the request clears): how a rewind
    /// lands exactly on a tick that a frame runs among others.
    pub fn set_stop_after_tick(&mut self, tick: Option<u64>) {
        self.stop_after_tick = tick;
    }

    /// The pending stop request.
    pub fn stop_after_tick(&self) -> Option<u64> {
        self.stop_after_tick
    }

    /// Replaces the debugger (breakpoints and their match counts): a replay puts
    /// back the debugger each recorded call ran with, so its suspensions repeat.
    pub fn set_debugger(&mut self, debugger: Debugger) {
        self.debugger = debugger;
    }

    /// Installs (or removes) a source of tick-stamped input (replay). Its events
    /// are delivered to the simulation snapshot at the start of their tick.
    pub fn set_tick_input(&mut self, source: Option<Box<dyn TickInputSource>>) {
        self.tick_input = source;
    }

    /// What happens to a behaviour that panics.
    pub fn set_fault_policy(&mut self, policy: FaultPolicy) {
        self.fault_policy = policy;
    }

    /// New timing settings, applied at the next frame boundary.
    pub fn set_settings(&mut self, settings: TimeSettings) -> Result<(), String> {
        settings.validate()?;
        self.pending_settings = Some(settings);
        Ok(())
    }

    /// The settings in force (pending changes not included).
    pub fn settings(&self) -> &TimeSettings {
        &self.settings
    }

    /// The clock as of now.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The world (committed poses, objects).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, mutably: editor edits while suspended. Body edits must go
    /// through [`World::command`] so they are reconciled before the next tick.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// Breakpoints and hits.
    pub fn debugger(&self) -> &Debugger {
        &self.debugger
    }

    /// Adds a breakpoint.
    pub fn add_breakpoint(&mut self, breakpoint: Breakpoint) -> BreakpointId {
        self.debugger.add(breakpoint)
    }

    /// Adds a clock breakpoint (see [`crate::clock_breakpoint`]); a rule that
    /// could never hold is refused with the reason.
    pub fn add_clock_breakpoint(
        &mut self,
        breakpoint: ClockBreakpoint,
    ) -> Result<BreakpointId, String> {
        breakpoint.rule.validate()?;
        Ok(self.debugger.add_clock(breakpoint))
    }

    /// Removes a breakpoint (hook or clock).
    pub fn remove_breakpoint(&mut self, id: BreakpointId) -> bool {
        self.debugger.remove(id)
    }

    /// Enables or disables a breakpoint.
    pub fn set_breakpoint_enabled(&mut self, id: BreakpointId, enabled: bool) {
        self.debugger.set_enabled(id, enabled);
    }

    /// Registers a host behaviour (see [`Scheduler::register`]).
    pub fn register(&mut self, priority: Priority, behaviour: Box<dyn Behaviour>) -> Registration {
        self.scheduler.register(priority, behaviour)
    }

    /// The input devices and snapshots.
    pub fn input(&self) -> &Input {
        &self.input
    }

    /// Queues a device event: Update sees it next frame, fixed code next tick.
    pub fn push_input(&mut self, event: InputEvent) {
        self.input.push(event);
    }

    /// Queues a raw input event for the next tick to begin, even one that no
    /// outer frame precedes (a single step while suspended): see
    /// [`crate::input::Input::push_to_next_tick`]. Update sees it next frame.
    pub fn push_input_to_next_tick(&mut self, event: InputEvent) {
        self.input.push_to_next_tick(event);
    }

    /// The stepper (accumulator, owed ticks).
    pub fn stepper(&self) -> &FixedStepper {
        &self.stepper
    }

    /// The physics stage.
    pub fn physics(&self) -> &dyn PhysicsStage {
        self.physics.as_ref()
    }

    /// The suspension in force, if any.
    pub fn suspension(&self) -> Option<&Suspension> {
        self.suspended.as_ref()
    }

    /// Takes the log lines written since the last drain.
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        self.world.drain_log()
    }

    /// Stable hash of the committed state (world and engine and behaviours).
    pub fn state_hash(&self) -> u64 {
        let mut h = StableHasher::new();
        self.hash_into(&mut h);
        h.finish()
    }

    fn hash_into(&self, h: &mut StableHasher) {
        h.write_u64(self.stepper.completed_ticks());
        hash_world(&self.world, h);
        for (object, behaviour) in self.hashed_behaviours() {
            h.write_u64(object.0);
            behaviour.hash_state(h);
        }
        self.physics.hash_state(h);
    }

    /// The behaviours of `object` in dispatch order, with their state now
    /// (the editor's inspector): those in the cohort, then those waiting for
    /// the next frame boundary (spawned this frame).
    pub fn behaviour_states(&self, object: ObjectId) -> Vec<crate::behaviour::BehaviourState> {
        let state = |e: &Entry| crate::behaviour::BehaviourState {
            name: e.behaviour.name().to_string(),
            priority: e.priority,
            hooks: e.hooks,
            state: e.behaviour.state_text(),
            started: e.started,
            faulted: e.faulted,
        };
        let mut out: Vec<_> = self
            .scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| state(&self.scheduler.entries[i as usize]))
            .collect();
        out.extend(
            self.world
                .pending
                .iter()
                .filter(|p| p.object == object)
                .map(|p| crate::behaviour::BehaviourState {
                    name: p.behaviour.name().to_string(),
                    priority: p.priority,
                    hooks: p.behaviour.hooks(),
                    state: p.behaviour.state_text(),
                    started: false,
                    faulted: false,
                }),
        );
        out
    }

    /// The union of the hooks `object`'s behaviours implement (F9 on an object
    /// with no FixedUpdate says so instead of arming a breakpoint that never
    /// fires).
    pub fn hooks_of(&self, object: ObjectId) -> Hooks {
        let cohort = self
            .scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| self.scheduler.entries[i as usize].hooks);
        let pending = self
            .world
            .pending
            .iter()
            .filter(|p| p.object == object)
            .map(|p| p.behaviour.hooks());
        cohort.chain(pending).fold(Hooks::NONE, Hooks::and)
    }

    /// The committed state hashed by subsystem (see [`SubsystemHashes`]):
    /// what the sync test and `trace-diff` use to name the subsystem, and the
    /// object, whose state changed first. `out`'s buffer is reused.
    pub fn subsystem_hashes(&self, out: &mut SubsystemHashes) {
        let mut h = StableHasher::new();
        h.write_u64(self.stepper.completed_ticks());
        h.write_u64(self.clock.simulation_tick);
        h.write_f64(self.clock.simulation_time);
        h.write_f64(self.clock.fixed_delta_time);
        out.clock = h.finish();

        let mut h = StableHasher::new();
        self.input.hash_simulation_memory(&mut h);
        out.input = h.finish();

        out.behaviours.clear();
        let mut current: Option<(ObjectId, StableHasher)> = None;
        for (object, behaviour) in self.hashed_behaviours() {
            match &mut current {
                Some((id, h)) if *id == object => behaviour.hash_state(h),
                _ => {
                    if let Some((id, h)) = current.take() {
                        out.behaviours.push((id, h.finish()));
                    }
                    let mut h = StableHasher::new();
                    behaviour.hash_state(&mut h);
                    current = Some((object, h));
                }
            }
        }
        if let Some((id, h)) = current {
            out.behaviours.push((id, h.finish()));
        }

        // SplitMix64's output is a bijection of its state, so the next draw
        // (taken from a copy) stands for the state without exposing it.
        let mut rng = self.rng;
        let mut h = StableHasher::new();
        h.write_u64(rng.next_u64());
        out.rng = h.finish();

        let mut h = StableHasher::new();
        hash_world(&self.world, &mut h);
        self.physics.hash_state(&mut h);
        out.physics = h.finish();
    }

    /// The behaviours whose state is hashed, by object id: whether the
    /// behaviour has joined the cohort or waits for the next frame boundary,
    /// and never for removed objects whose entries linger until then: cohort
    /// membership follows frame boundaries, which depend on pacing, and the
    /// hash must not (traces at 30, 60 and 144 Hz are compared hash for hash).
    /// Spawned ids are larger than every existing one, so admitted-then-pending
    /// is id order.
    fn hashed_behaviours(&self) -> impl Iterator<Item = (ObjectId, &dyn Behaviour)> + '_ {
        let admitted = self.scheduler.by_object.iter().filter_map(|&(object, i)| {
            let e = &self.scheduler.entries[i as usize];
            (!e.is_retired(&self.world)).then_some((object, &*e.behaviour))
        });
        let pending = self
            .world
            .pending
            .iter()
            .filter(|p| self.world.get(p.object).is_some())
            .map(|p| (p.object, &*p.behaviour));
        admitted.chain(pending)
    }

    /// One active outer frame of `raw_dt` seconds (see the module docs). Returns
    /// at once, running nothing, while suspended.
    pub fn step_frame(&mut self, raw_dt: f64) -> FrameReport {
        if self.suspended.is_some() {
            return FrameReport {
                kind: FrameKind::NotRun,
                frame_index: self.frame_index,
                suspended: self.suspended.clone(),
                ..FrameReport::default()
            };
        }
        self.begin_frame(raw_dt);
        self.drive(Stop::FrameEnd);
        self.finish_report()
    }

    /// Suspends between frames (the pause button). A pause requested while a
    /// frame is interrupted keeps the existing suspension.
    pub fn pause(&mut self) {
        if self.suspended.is_none() {
            self.suspend(SuspendReason::Pause);
        }
    }

    /// Lifts the suspension and finishes the interrupted frame, if any: owed
    /// ticks run, a fixed-interrupted frame skips its presentation, an
    /// update-interrupted frame runs the hook it stopped before and goes on.
    pub fn resume(&mut self) -> FrameReport {
        self.suspended = None;
        self.start_continuation();
        self.drive(Stop::FrameEnd);
        self.finish_report()
    }

    /// Runs exactly one fixed tick, then suspends (see [`crate::debugger`]).
    pub fn step_tick(&mut self) -> FrameReport {
        self.suspended = None;
        self.start_continuation();
        let ran_frame_part = self.cursor != Cursor::Idle;
        if ran_frame_part {
            self.drive(Stop::AfterOneTick);
        }
        if self.report.ticks == 0 && self.suspended.is_none() {
            // The frame (if any) ended without a tick: a lone tick, no outer frame.
            if !ran_frame_part {
                self.report.kind = FrameKind::LoneTick;
            }
            self.stepper.owe_one_more();
            self.cursor = Cursor::Fixed {
                advanced: true,
                interrupted: true,
            };
            self.drive(Stop::AfterOneTick);
        }
        if self.suspended.is_none() {
            self.suspend(SuspendReason::StepTick);
        }
        self.finish_report()
    }

    /// Runs one outer frame (or the rest of the interrupted one), then suspends.
    pub fn step_one_frame(&mut self, raw_dt: f64) -> FrameReport {
        self.suspended = None;
        if self.cursor == Cursor::Idle {
            self.begin_frame(raw_dt);
        } else {
            self.start_continuation();
        }
        self.drive(Stop::FrameEnd);
        if self.suspended.is_none() {
            self.suspend(SuspendReason::StepFrame);
        }
        self.finish_report()
    }

    /// A copy of the whole simulation state.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            world: self.world.clone(),
            scheduler: self.scheduler.clone(),
            physics: self.physics.clone(),
            stepper: self.stepper.clone(),
            clock: self.clock,
            frame_time: self.frame_time,
            frame_index: self.frame_index,
            delta: self.delta,
            input: self.input.clone(),
            rng: self.rng,
            routines: self.routines.clone(),
            cursor: self.cursor,
            settings: self.settings,
        }
    }

    /// Puts the state of a snapshot back. Breakpoints, observer and fault policy
    /// are the host's and stay; any suspension is lifted.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        let s = snapshot.clone();
        self.world = s.world;
        self.scheduler = s.scheduler;
        self.physics = s.physics;
        self.stepper = s.stepper;
        self.clock = s.clock;
        self.frame_time = s.frame_time;
        self.frame_index = s.frame_index;
        self.delta = s.delta;
        self.input = s.input;
        self.rng = s.rng;
        self.routines = s.routines;
        self.cursor = s.cursor;
        self.settings = s.settings;
        self.pending_settings = None;
        self.suspended = None;
        self.pending_suspend = None;
        // A snapshot taken at the end of a tick may be in the middle of a
        // frame; the frame's own facts so far are not in it.
        self.in_frame = self.cursor != Cursor::Idle;
        self.frame_facts = FrameFacts::default();
        self.last_alpha = None;
    }

    // ----- internals -------------------------------------------------------

    /// Suspends where the cursor says the frame stands. The clock's
    /// `interpolation_alpha` becomes the accumulator over fixed dt of the state
    /// it stopped in, so every reader of the clock (telemetry, the clock panel)
    /// sees the same alpha as the accumulator beside it.
    fn suspend(&mut self, reason: SuspendReason) {
        self.suspended = Some(self.suspension_now(reason));
        self.settle_alpha();
    }

    /// `interpolation_alpha = accumulator / fixed_dt` for the state the
    /// pipeline stops in outside presentation (a suspension, or a frame whose
    /// presentation was skipped). Above 1 while a frame still owes ticks: 2.25
    /// is two owed ticks and a quarter. Not clamped, so it always matches the
    /// accumulator; presentation never sees more than 1, because a presented
    /// frame has run every tick it owed.
    fn settle_alpha(&mut self) {
        let acc = self.stepper.accumulator();
        let fixed = self.stepper.fixed_dt();
        self.clock.accumulator = acc.as_secs_f64();
        self.clock.interpolation_alpha = acc.0 as f64 / fixed.0 as f64;
    }

    fn suspension_now(&self, reason: SuspendReason) -> Suspension {
        Suspension {
            end_of_tick: matches!(self.cursor, Cursor::Fixed { .. } | Cursor::Presentation)
                && matches!(
                    reason,
                    SuspendReason::StepTick
                        | SuspendReason::Breakpoint(_)
                        | SuspendReason::Clock(_)
                        | SuspendReason::Watch(_)
                        | SuspendReason::ReachedTick(_)
                        | SuspendReason::Requested { .. }
                        | SuspendReason::Fault { .. }
                ),
            reason,
            tick: self.stepper.completed_ticks(),
            frame: self.frame_index,
        }
    }

    fn reset_report(&mut self, kind: FrameKind) {
        let r = &mut self.report;
        r.kind = kind;
        r.frame_index = self.frame_index;
        r.delta_time = self.delta.as_secs_f64();
        r.ticks = 0;
        r.dropped_time = 0.0;
        r.accumulator_before = self.stepper.accumulator().as_secs_f64();
        r.accumulator_after = r.accumulator_before;
        r.suspended = None;
        r.timing.update_ms = 0.0;
        r.timing.fixed_ms = 0.0;
        r.timing.physics_ms = 0.0;
        r.timing.flow_ms = 0.0;
        r.timing.present_ms = 0.0;
        r.timing.fixed_by_priority.clear();
    }

    fn finish_report(&mut self) -> FrameReport {
        self.report.accumulator_after = self.stepper.accumulator().as_secs_f64();
        self.report.suspended = self.suspended.clone();
        self.report.clone()
    }

    fn start_continuation(&mut self) {
        self.reset_report(FrameKind::Continuation);
    }

    fn begin_frame(&mut self, raw_dt: f64) {
        if let Some(s) = self.pending_settings.take() {
            self.stepper
                .reconfigure(s.strategy, Flicks::per_hz(s.fixed_hz));
            self.settings = s;
        }
        let clamped = Flicks::from_secs_f64(raw_dt.min(self.settings.max_delta));
        self.delta = clamped.scaled(self.settings.time_scale);
        self.frame_index += 1;
        self.frame_time += self.delta;
        self.in_frame = true;
        self.frame_facts = FrameFacts {
            delta_ms: self.delta.as_secs_f64() * 1000.0,
            ..FrameFacts::default()
        };
        self.reset_report(FrameKind::Frame);
        self.scheduler.rebuild(&mut self.world);
        self.refresh_hooks_if_changed();
        self.input
            .begin_frame(self.frame_time.as_secs_f64() * 1000.0);
        self.cursor = Cursor::Update {
            hook: HookKind::Start,
            next: 0,
            past_break: false,
        };
    }

    /// Rebuilds the dispatch lists if a hook reported a changed hook set.
    fn refresh_hooks_if_changed(&mut self) {
        if std::mem::take(&mut self.hooks_changed) {
            self.scheduler.refresh_hooks();
        }
    }

    /// Sets every clock field from the integer state. `pending`: inside a tick
    /// before its physics step (tick = pending one-based index, time = its start).
    fn sync_clock(&mut self, phase: Phase, pending: bool) {
        let fixed = self.stepper.fixed_dt();
        let completed = self.stepper.completed_ticks();
        let (tick, sim) = if pending {
            (completed + 1, fixed * completed)
        } else {
            (completed, fixed * completed)
        };
        let c = &mut self.clock;
        c.delta_time = self.delta.as_secs_f64();
        c.frame_time = self.frame_time.as_secs_f64();
        c.frame_index = self.frame_index;
        c.simulation_tick = tick;
        c.simulation_time = sim.as_secs_f64();
        c.fixed_delta_time = fixed.as_secs_f64();
        c.dropped_time = self.stepper.dropped().as_secs_f64();
        c.accumulator = self.stepper.accumulator().as_secs_f64();
        c.phase = phase;
        self.world.stamp = (tick, self.frame_index);
    }

    /// Runs the frame from the cursor until it ends, a suspension, or `stop`.
    fn drive(&mut self, stop: Stop) {
        loop {
            match self.cursor {
                Cursor::Idle => return,
                Cursor::Update { .. } => {
                    let t0 = Instant::now();
                    let done = self.run_update_phase();
                    self.report.timing.update_ms += ms_since(t0);
                    if !done {
                        return;
                    }
                    self.refresh_hooks_if_changed();
                    self.cursor = Cursor::Fixed {
                        advanced: false,
                        interrupted: false,
                    };
                }
                Cursor::Fixed {
                    advanced,
                    interrupted,
                } => {
                    let t0 = Instant::now();
                    if !advanced {
                        let adv = self.stepper.advance(self.delta, self.settings.max_steps);
                        self.report.dropped_time += adv.dropped.as_secs_f64();
                        self.frame_facts.dropped_ms += adv.dropped.as_secs_f64() * 1000.0;
                        self.report.accumulator_before = self.stepper.accumulator().as_secs_f64();
                        self.cursor = Cursor::Fixed {
                            advanced: true,
                            interrupted,
                        };
                    }
                    while self.stepper.owed() > 0 {
                        self.run_tick();
                        self.report.ticks += 1;
                        self.frame_facts.ticks += 1;
                        let completed = self.stepper.completed_ticks();
                        let reached = if self.stop_after_tick == Some(completed) {
                            self.stop_after_tick = None;
                            Some(SuspendReason::ReachedTick(completed))
                        } else {
                            None
                        };
                        let suspend = self.pending_suspend.take().or(reached).or(match stop {
                            Stop::AfterOneTick => Some(SuspendReason::StepTick),
                            Stop::FrameEnd => None,
                        });
                        if let Some(reason) = suspend {
                            self.cursor = Cursor::Fixed {
                                advanced: true,
                                interrupted: true,
                            };
                            self.suspend(reason);
                            self.report.timing.fixed_ms += ms_since(t0);
                            return;
                        }
                    }
                    self.report.timing.fixed_ms += ms_since(t0);
                    let interrupted = matches!(
                        self.cursor,
                        Cursor::Fixed {
                            interrupted: true,
                            ..
                        }
                    );
                    if interrupted {
                        // The rest of a frame interrupted in its fixed phase
                        // (its Flow Tick and its presentation) is skipped.
                        self.cursor = Cursor::Idle;
                        self.sync_clock(Phase::Idle, false);
                        self.settle_alpha();
                        self.end_frame();
                        return;
                    }
                    self.cursor = Cursor::Flow {
                        next: 0,
                        past_break: false,
                    };
                }
                Cursor::Flow { next, past_break } => {
                    let t0 = Instant::now();
                    self.sync_clock(Phase::Update, false);
                    let done = self.hook_pass(HookKind::FlowTick, next, past_break);
                    self.report.timing.flow_ms += ms_since(t0);
                    if !done {
                        return;
                    }
                    self.cursor = Cursor::Presentation;
                }
                Cursor::Presentation => {
                    let t0 = Instant::now();
                    self.run_presentation();
                    self.report.timing.present_ms += ms_since(t0);
                    self.cursor = Cursor::Idle;
                    if let Some(reason) = self.pending_suspend.take() {
                        self.suspend(reason);
                    }
                    self.sync_clock(Phase::Idle, false);
                    self.end_frame();
                    return;
                }
            }
        }
    }

    /// Start, Update, then frame routines. Returns false when suspended.
    fn run_update_phase(&mut self) -> bool {
        self.sync_clock(Phase::Update, false);
        let Cursor::Update {
            mut hook,
            mut next,
            mut past_break,
        } = self.cursor
        else {
            return true;
        };
        loop {
            if !self.hook_pass(hook, next, past_break) {
                return false;
            }
            if hook != HookKind::Start {
                break;
            }
            hook = HookKind::Update;
            next = 0;
            past_break = false;
        }
        let now = self.frame_time;
        self.run_routines(TimeGroup::Frame, now);
        if let Some(reason) = self.pending_suspend.take() {
            self.cursor = Cursor::Fixed {
                advanced: false,
                interrupted: false,
            };
            self.suspend(reason);
            return false;
        }
        true
    }

    /// One update-clock hook (Start, Update or Flow Tick) across the cohort,
    /// from position `next`. A breakpoint suspends before its call (`past_break`
    /// says the call at `next` already fired its breakpoint and now runs); a
    /// requested break or a fault suspends after the call. Returns false when
    /// suspended, with the cursor on the position to go on from.
    fn hook_pass(&mut self, hook: HookKind, mut next: usize, mut past_break: bool) -> bool {
        let n = self.scheduler.list(hook).len();
        while next < n {
            if hook == HookKind::Start && self.scheduler.unstarted == 0 {
                break;
            }
            let i = self.scheduler.list(hook)[next] as usize;
            let entry = &self.scheduler.entries[i];
            let wanted =
                entry.is_active(&self.world) && (hook != HookKind::Start || !entry.started);
            if !wanted {
                next += 1;
                continue;
            }
            if !past_break && self.debugger.armed() {
                let (obj, prio) = (entry.object, entry.priority);
                let name = entry.behaviour.name().to_string();
                if let Some(hit) = self.debugger.check(hook, obj, prio, &name, &self.clock) {
                    // Before-hook suspension: this call runs on resume.
                    self.cursor = Cursor::at(hook, next, true);
                    self.suspend(SuspendReason::Breakpoint(hit));
                    return false;
                }
            }
            past_break = false;
            let dt = self.clock.delta_time;
            self.call(i, hook, |b, ctx| match hook {
                HookKind::Start => b.start(ctx),
                HookKind::Update => b.update(ctx, dt),
                _ => b.flow_tick(ctx, dt),
            });
            if std::mem::take(&mut self.rerun_hook)
                && let Some(reason) = self.pending_suspend.take()
            {
                // The hook undid itself and asked to break before it: the
                // call runs again on resume (Start not marked started).
                self.cursor = Cursor::at(hook, next, true);
                self.suspend(reason);
                return false;
            }
            if hook == HookKind::Start {
                self.scheduler.entries[i].started = true;
                self.scheduler.unstarted = self.scheduler.unstarted.saturating_sub(1);
            }
            next += 1;
            if let Some(reason) = self.pending_suspend.take() {
                // A requested break (or fault) in update-clock code: stop after the hook.
                self.cursor = Cursor::at(hook, next, false);
                self.suspend(reason);
                return false;
            }
        }
        true
    }

    /// One fixed tick, from pending to committed.
    fn run_tick(&mut self) {
        self.sync_clock(Phase::Fixed, true);
        let tick_start = self.stepper.simulation_time();
        self.input.begin_tick(tick_start.as_secs_f64() * 1000.0);
        if let Some(source) = self.tick_input.as_ref() {
            source.events_for_tick(self.clock.simulation_tick, &mut self.replay_scratch);
            for event in self.replay_scratch.drain(..) {
                self.input.deliver_to_tick(event);
            }
        }

        // FixedUpdate across the frozen cohort, timing each priority group.
        let timed_before = self
            .debugger
            .clock_armed()
            .then_some(self.report.timing.fixed_by_priority);
        let dt = self.clock.fixed_delta_time;
        let mut from = 0;
        while let Some(next) = self.fixed_update_batch(from, dt) {
            from = next;
        }
        self.run_routines(TimeGroup::Fixed, tick_start);

        // Physics: reconcile what hooks wrote, then step.
        let t0 = Instant::now();
        self.physics.reconcile(&mut self.world, dt);
        self.contacts.clear();
        self.physics
            .step(dt, self.settings.substeps, &mut self.contacts);

        // After physics the clock describes the completed tick, and the
        // committed poses are the tick's: contact hooks read both (module docs).
        self.physics.commit(&mut self.world);
        let physics_ms = ms_since(t0);
        self.report.timing.physics_ms += physics_ms;
        self.stepper.expend();
        self.sync_clock(Phase::Fixed, false);
        self.contacts.sort_unstable();
        self.deliver_contacts();
        self.deliver_tears();
        if let Some(before) = timed_before {
            self.check_tick_rules(&before, physics_ms);
        }

        if let Some(mut observer) = self.observer.take() {
            let hash = self.state_hash();
            observer.on_tick(&TickRecord {
                clock: &self.clock,
                inputs: self.input.delivered_this_tick(),
                contacts: &self.contacts,
                world: &self.world,
                hash,
                state: &*self,
            });
            self.observer = Some(observer);
        }
        if let Some(mut watch) = self.watch.take() {
            if let Some(reason) = watch.after_tick(self)
                && self.pending_suspend.is_none()
            {
                self.pending_suspend = Some(SuspendReason::Watch(reason));
            }
            self.watch = Some(watch);
        }
    }

    /// FixedUpdate for the cohort from entry `from` on, in one panic guard and
    /// one context: the hot loop of the runtime, so per call it only checks the
    /// hook mask and the gate, times priority groups, checks breakpoints when
    /// any exist, and calls. It leaves the batch (returning where to go on) when
    /// a hook panicked or asked for something (a break, a routine), which are
    /// handled outside with the whole pipeline at hand.
    fn fixed_update_batch(&mut self, from: usize, dt: f64) -> Option<usize> {
        let Pipeline {
            scheduler,
            world,
            clock,
            input,
            rng,
            requests,
            debugger,
            pending_suspend,
            report,
            ..
        } = self;
        let gates_read = scheduler.fixed_gates(world);
        let list = &scheduler.lists[HookKind::FixedUpdate as usize];
        let skip = &scheduler.fixed_skip;
        let entries = &mut scheduler.entries;
        let n = list.len();
        let mut current = from;
        let mut group: Option<(Priority, Instant)> = None;
        let outcome = {
            let mut ctx = Ctx {
                world,
                clock,
                input: input.fixed_snapshot(),
                rng,
                requests,
                me: ObjectId(0),
                hook: HookKind::FixedUpdate,
                entry: 0,
            };
            catch_unwind(AssertUnwindSafe(|| {
                while current < n {
                    let e = &mut entries[list[current] as usize];
                    // The gates read before the pass hold until a hook
                    // changes one (a removal, a disable): from then on,
                    // every call checks its own (module docs of `schedule`).
                    let callable = if gates_read && !ctx.world.gates_changed.0 {
                        !skip[current]
                    } else {
                        e.is_active(ctx.world)
                    };
                    if !callable {
                        current += 1;
                        continue;
                    }
                    if group.is_none_or(|(p, _)| p != e.priority) {
                        if let Some((p, t0)) = group {
                            report.timing.fixed_by_priority.add(p, ms_since(t0));
                        }
                        group = Some((e.priority, Instant::now()));
                    }
                    if debugger.armed()
                        && let Some(hit) = debugger.check(
                            HookKind::FixedUpdate,
                            e.object,
                            e.priority,
                            e.behaviour.name(),
                            ctx.clock,
                        )
                        && pending_suspend.is_none()
                    {
                        *pending_suspend = Some(SuspendReason::Breakpoint(hit));
                    }
                    ctx.me = e.object;
                    ctx.entry = e.seq;
                    e.behaviour.fixed_update(&mut ctx, dt);
                    current += 1;
                    if ctx.requests.any {
                        return true;
                    }
                }
                false
            }))
        };
        if let Some((p, t0)) = group {
            self.report.timing.fixed_by_priority.add(p, ms_since(t0));
        }
        match outcome {
            Ok(false) => None,
            Ok(true) => {
                let i = self.scheduler.list(HookKind::FixedUpdate)[current - 1] as usize;
                let object = self.scheduler.entries[i].object;
                self.take_requests(object, HookKind::FixedUpdate);
                Some(current)
            }
            Err(payload) => {
                // `current` is the position of the entry whose hook panicked.
                let i = self.scheduler.list(HookKind::FixedUpdate)[current] as usize;
                let object = self.scheduler.entries[i].object;
                self.scheduler.set_faulted(i);
                self.report_fault(object, HookKind::FixedUpdate, &payload);
                self.take_requests(object, HookKind::FixedUpdate);
                Some(current + 1)
            }
        }
    }

    /// Fixed-phase breakpoints record the hit now and suspend at the end of the tick.
    fn check_fixed_breakpoint(&mut self, i: usize, hook: HookKind) {
        if !self.debugger.armed() {
            return;
        }
        let entry = &self.scheduler.entries[i];
        let (obj, prio) = (entry.object, entry.priority);
        let name = entry.behaviour.name().to_string();
        if let Some(hit) = self.debugger.check(hook, obj, prio, &name, &self.clock)
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Breakpoint(hit));
        }
    }

    /// The clock breakpoints' tick rules, at the end of the tick: this tick's
    /// FixedUpdate time per priority is the frame's running total now less
    /// what it was before the tick.
    fn check_tick_rules(&mut self, before: &PriorityTimes, physics_ms: f64) {
        let mut this_tick = [(Priority::DEFAULT, 0.0); MAX_TIMED_PRIORITIES];
        let mut n = 0;
        for (priority, total) in self.report.timing.fixed_by_priority.iter() {
            let earlier = before
                .iter()
                .find(|(p, _)| *p == priority)
                .map_or(0.0, |(_, ms)| ms);
            this_tick[n] = (priority, total - earlier);
            n += 1;
        }
        let facts = TickFacts {
            physics_ms,
            fixed_by_priority: &this_tick[..n],
        };
        if let Some(hit) = self.debugger.check_tick(&self.clock, &facts)
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Clock(hit));
        }
    }

    /// The frame is over (presented, or its remainder skipped): checks the
    /// clock breakpoints' frame rules, and suspends between frames on a hit.
    fn end_frame(&mut self) {
        if !std::mem::take(&mut self.in_frame) {
            return;
        }
        let facts = FrameFacts {
            alpha: self.clock.interpolation_alpha,
            previous_alpha: self.last_alpha,
            ..self.frame_facts
        };
        self.last_alpha = Some(facts.alpha);
        if self.debugger.clock_armed()
            && let Some(hit) = self.debugger.check_frame(&self.clock, &facts)
            && self.suspended.is_none()
        {
            self.suspend(SuspendReason::Clock(hit));
        }
    }

    fn deliver_contacts(&mut self) {
        for c in 0..self.contacts.len() {
            let event = self.contacts[c];
            for (me, other) in [(event.a, event.b), (event.b, event.a)] {
                let count = self.scheduler.entries_of(me).len();
                for k in 0..count {
                    let i = self.scheduler.entries_of(me)[k].1 as usize;
                    let e = &self.scheduler.entries[i];
                    if !e.hooks.contains(Hooks::CONTACT) || !e.is_active(&self.world) {
                        continue;
                    }
                    self.check_fixed_breakpoint(i, HookKind::Contact);
                    self.call(i, HookKind::Contact, |b, ctx| {
                        b.on_contact(ctx, other, event.kind)
                    });
                }
            }
        }
    }

    /// The tick's soft-body tears, to the torn objects' contact-hook
    /// behaviours, in the order they happened.
    fn deliver_tears(&mut self) {
        let mut tears = std::mem::take(&mut self.tears);
        self.physics.take_tears(&mut tears);
        for tear in &mut tears {
            tear.tick = self.clock.simulation_tick;
            let count = self.scheduler.entries_of(tear.object).len();
            for k in 0..count {
                let i = self.scheduler.entries_of(tear.object)[k].1 as usize;
                let e = &self.scheduler.entries[i];
                if !e.hooks.contains(Hooks::CONTACT) || !e.is_active(&self.world) {
                    continue;
                }
                self.check_fixed_breakpoint(i, HookKind::Contact);
                self.call(i, HookKind::Contact, |b, ctx| b.on_tear(ctx, tear));
            }
        }
        tears.clear();
        self.tears = tears;
    }

    fn run_presentation(&mut self) {
        let fixed = self.stepper.fixed_dt();
        let acc = self.stepper.accumulator();
        self.sync_clock(Phase::Presentation, false);
        self.clock.interpolation_alpha = (acc.0 as f64 / fixed.0 as f64).clamp(0.0, 1.0);
        let n = self.scheduler.list(HookKind::Present).len();
        for k in 0..n {
            let i = self.scheduler.list(HookKind::Present)[k] as usize;
            if self.scheduler.entries[i].is_active(&self.world) {
                self.call(i, HookKind::Present, |b, ctx| b.present(ctx));
            }
        }
    }

    /// Resumes due routines of one time group, in start order. A named
    /// routine calls back into its behaviour ([`Behaviour::routine`]); it is
    /// dropped with its object, or when its behaviour is gone or faulted, and
    /// waits (like any routine) while its object is disabled.
    fn run_routines(&mut self, group: TimeGroup, now: Flicks) {
        if self.routines.is_empty() {
            return;
        }
        let mut list = std::mem::take(&mut self.routines);
        let mut k = 0;
        while k < list.len() {
            let slot = &list[k];
            if self.world.get(slot.owner).is_none() {
                list.remove(k);
                continue;
            }
            if slot.group != group || slot.wake_at > now || !self.world.is_active(slot.owner) {
                k += 1;
                continue;
            }
            let owner = slot.owner;
            let target = match &slot.routine {
                RoutineBody::Boxed(_) => None,
                RoutineBody::Named { entry, .. } => match self.entry_index(owner, *entry) {
                    Some(i) if !self.scheduler.entries[i].faulted => Some(i),
                    _ => {
                        list.remove(k);
                        continue;
                    }
                },
            };
            let input = match group {
                TimeGroup::Frame => self.input.frame_snapshot(),
                TimeGroup::Fixed => self.input.fixed_snapshot(),
            };
            let mut ctx = Ctx {
                world: &mut self.world,
                clock: &self.clock,
                input,
                rng: &mut self.rng,
                requests: &mut self.requests,
                me: owner,
                hook: HookKind::Routine,
                entry: target.map_or(0, |i| self.scheduler.entries[i].seq),
            };
            let result = match (&mut list[k].routine, target) {
                (RoutineBody::Named { name, .. }, Some(i)) => {
                    let behaviour = self.scheduler.entries[i].behaviour.as_mut();
                    catch_unwind(AssertUnwindSafe(|| behaviour.routine(&mut ctx, name)))
                }
                (RoutineBody::Boxed(routine), _) => {
                    catch_unwind(AssertUnwindSafe(|| routine.resume(&mut ctx)))
                }
                (RoutineBody::Named { .. }, None) => Ok(Wait::Done),
            };
            match result {
                Ok(Wait::Seconds(s)) => {
                    list[k].wake_at = now + Flicks::from_secs_f64(s);
                    k += 1;
                }
                Ok(Wait::Done) => {
                    list.remove(k);
                }
                Err(payload) => {
                    if let Some(i) = target {
                        // A behaviour that panics in a routine faults like in a hook.
                        self.scheduler.set_faulted(i);
                    }
                    self.report_fault(owner, HookKind::Routine, &payload);
                    list.remove(k);
                }
            }
            self.take_requests(owner, HookKind::Routine);
        }
        // Routines started while this group ran are appended after the old ones.
        list.append(&mut self.routines);
        self.routines = list;
    }

    /// The index of `object`'s scheduler entry with sequence number `seq`.
    fn entry_index(&self, object: ObjectId, seq: u64) -> Option<usize> {
        self.scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| i as usize)
            .find(|&i| self.scheduler.entries[i].seq == seq)
    }

    /// Calls one hook of entry `i` with panic isolation, then applies what the
    /// hook requested.
    fn call(&mut self, i: usize, hook: HookKind, f: impl FnOnce(&mut dyn Behaviour, &mut Ctx)) {
        let entry: &mut Entry = &mut self.scheduler.entries[i];
        let object = entry.object;
        let input = if hook.is_fixed() {
            self.input.fixed_snapshot()
        } else {
            self.input.frame_snapshot()
        };
        let mut ctx = Ctx {
            world: &mut self.world,
            clock: &self.clock,
            input,
            rng: &mut self.rng,
            requests: &mut self.requests,
            me: object,
            hook,
            entry: entry.seq,
        };
        let behaviour = entry.behaviour.as_mut();
        let result = catch_unwind(AssertUnwindSafe(|| f(behaviour, &mut ctx)));
        if let Err(payload) = result {
            self.scheduler.set_faulted(i);
            self.report_fault(object, hook, &payload);
        }
        self.take_requests(object, hook);
    }

    /// Applies a hook's requests: a break, routines it started.
    #[inline]
    fn take_requests(&mut self, object: ObjectId, hook: HookKind) {
        if !self.requests.any {
            return; // the common case: the hook asked for nothing
        }
        self.requests.any = false;
        self.take_requests_slow(object, hook);
    }

    #[cold]
    fn take_requests_slow(&mut self, object: ObjectId, hook: HookKind) {
        if std::mem::take(&mut self.requests.hooks_changed) {
            self.hooks_changed = true;
        }
        let rerun = std::mem::take(&mut self.requests.rerun);
        if let Some(message) = self.requests.break_request.take()
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Requested {
                object,
                hook,
                message,
            });
            // Only update-phase hooks can be re-run; elsewhere it is a plain break.
            self.rerun_hook = rerun
                && matches!(
                    hook,
                    HookKind::Start | HookKind::Update | HookKind::FlowTick
                );
        }
        if !self.requests.routines.is_empty() {
            for mut slot in self.requests.routines.drain(..) {
                let now = match slot.group {
                    TimeGroup::Frame => self.frame_time,
                    TimeGroup::Fixed => self.stepper.simulation_time(),
                };
                slot.wake_at = now + Flicks::from_secs_f64(slot.delay);
                self.routines.push(slot);
            }
        }
    }

    fn report_fault(
        &mut self,
        object: ObjectId,
        hook: HookKind,
        payload: &Box<dyn std::any::Any + Send>,
    ) {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-string payload".to_string());
        let name = self
            .world
            .get(object)
            .map(|o| o.name.clone())
            .unwrap_or_default();
        self.world.log(LogEntry {
            level: LogLevel::Error,
            object: Some(object),
            hook: Some(hook),
            tick: self.clock.simulation_tick,
            frame: self.frame_index,
            message: format!("{hook} of {object} `{name}` panicked: {message}"),
        });
        match self.fault_policy {
            FaultPolicy::Disable => {}
            FaultPolicy::Remove => self.world.remove(object),
            FaultPolicy::Break => {
                if self.pending_suspend.is_none() {
                    self.pending_suspend = Some(SuspendReason::Fault {
                        object,
                        hook,
                        message,
                    });
                }
            }
        }
    }
}

fn ms_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1000.0
}
