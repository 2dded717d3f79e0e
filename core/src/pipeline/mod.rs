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
//!    step (the mid-step hooks run inside it, see `mid_step`), clock set to the
//!    completed tick, commit, contact callbacks in pair order, tick observer.
//! 5. **Flow Tick** across the cohort in priority order, once, on the frame
//!    clock with the frame's clamped delta (the update phase's clock: the clock
//!    reads `Phase::Update`). It comes after the fixed phase because the
//!    contract skips it with the rest of a frame a fixed breakpoint interrupted.
//!    Its clock's `interpolation_alpha = accumulator / fixed_dt` is already the
//!    frame's: it is set as soon as the fixed phase has drained the accumulator.
//! 6. **Presentation**: the presentation hooks, with that same alpha.
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
//! Worked example (60 Hz, `tests/conformance/`): a body pushed by 60 N at unit
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
//!
//! | module | what |
//! |---|---|
//! | this one | [`Pipeline`]: its state, set-up, accessors, hashes and the public stepping calls |
//! | `settings` | [`TimeSettings`] and [`FaultPolicy`] |
//! | `snapshot` | [`Snapshot`], [`Pipeline::snapshot`] and [`Pipeline::restore`] |
//! | `drive` | one frame's walk: boundary, update phase, ticks, end of frame, where it stops |
//! | `dispatch` | calling behaviours: FixedUpdate batches, contacts, tears, presentation, routines, the guarded call |
//! | `mid_step` | the tick's physics step, and the mid-step hooks inside it: who is called back, what their calls leave |
//! | `inspect` | reading a session without stepping it: the state hash and its subsystems, the inspector's view of behaviours |
//! | `params` | reaching into running behaviours: all of them, or one by its place (a parameter edit) |

mod dispatch;
mod drive;
mod inspect;
mod mid_step;
mod params;
mod settings;
mod snapshot;

pub use settings::{FaultPolicy, SettingsError, TimeSettings};
use snapshot::SimulationState;
pub use snapshot::Snapshot;

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::behaviour::{Behaviour, Ctx, HookRequests, Rng, RoutineBody, RoutineSlot, Wait};
use crate::body::ContactEvent;
use crate::clock::{Clock, Flicks, Phase};
use crate::clock_breakpoint::{ClockBreakpoint, ClockRuleError, FrameFacts, TickFacts};
use crate::condition::BreakpointId;
use crate::debugger::{Breakpoint, Debugger, SuspendReason, Suspension};
use crate::flame::{FrameZones, ZoneDetail, ZoneId, ZoneKind};
use crate::hash::StableHasher;
use crate::ids::ObjectId;
use crate::ids::Priority;
use crate::ids::{HookKind, Hooks, TimeGroup};
use crate::input::{ActionMap, Input, InputEvent};
use crate::physics::{NoPhysics, PhysicsStage};
pub use crate::report::{
    ClockChange, FrameKind, FrameReport, MAX_TIMED_PRIORITIES, PhaseTiming, PriorityTimes,
};
use crate::schedule::{Entry, Registration, Scheduler};
use crate::stepper::FixedStepper;
use crate::trace::{SubsystemHashes, SubsystemState, TickObserver, TickRecord, hash_world};
use crate::world::{LogEntry, LogLevel, World};

/// Supplies input events stamped with the tick they belong to: the replay of a
/// recording. Looked up by tick (not consumed), so rewinding replays them again.
pub trait TickInputSource: Send + std::fmt::Debug {
    /// Appends the events recorded for `tick` (one-based), in delivery order.
    fn events_for_tick(&self, tick: u64, out: &mut Vec<InputEvent>);

    /// Applies the edits recorded before `tick` (a session recording's
    /// inspector edits and settings changes), at the start of that tick,
    /// before its input is delivered: once per tick, whatever the frame
    /// structure. The default has none.
    fn apply_edits(&self, _tick: u64, _session: &mut Pipeline) {}
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

/// A question asked of the committed state at the end of every tick ("is the
/// player below 0?"), by the editor's watches. It sees the whole session, read
/// only, after the tick observer; `Some(reason)` suspends at the end of that
/// tick with committed state, as a FixedUpdate breakpoint does.
pub trait TickWatch: Send {
    /// Called once per completed tick, at its end.
    fn after_tick(&mut self, session: &Pipeline) -> Option<String>;
}

/// The runtime: world, cohort, clock, stepper, physics, input and debugger.
/// The simulated part is one `SimulationState` (what a [`Snapshot`] is);
/// the rest is the host's (breakpoints, observers, fault policy) or scratch.
pub struct Pipeline {
    /// Everything a snapshot copies and a restore puts back.
    sim: SimulationState,
    debugger: Debugger,
    fault_policy: FaultPolicy,
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
    /// A clock change made between two calls (a settings edit while
    /// suspended): the next call's report carries it, so the timeline marks
    /// it like one made at a frame boundary.
    carried_clock_change: Option<ClockChange>,
    /// A hook said its behaviour's hook set changed: the dispatch lists are
    /// rebuilt before the next pass that could call it.
    hooks_changed: bool,
    /// Where the phase timings read wall time ([`Pipeline::set_wall_clock`]).
    wall: crate::clock_breakpoint::WallClock,
    /// Announces every hook call to a watcher on another thread
    /// ([`Pipeline::set_hook_beacon`]); `None` in sessions nobody watches.
    beacon: Option<crate::hook_beacon::HookBeacon>,
    /// The last call's flame zones ([`Pipeline::set_zone_detail`]).
    zones: FrameZones,
    /// Scratch: the behaviours the tick's mid-step hooks call, by object.
    mid_entries: Vec<crate::behaviour::mid_step::MidStepEntry>,
    /// Scratch: their objects, in id order.
    mid_objects: Vec<ObjectId>,
    /// The last step's mid-step hook time per priority (for its zones).
    mid_times: crate::behaviour::mid_step::MidStepTimes,
    /// The mechanism is off (`set_mid_step_bypass`, for one bench figure).
    mid_step_bypass: bool,
}

impl SubsystemState for Pipeline {
    fn subsystem_hashes(&self, out: &mut SubsystemHashes) {
        Pipeline::subsystem_hashes(self, out);
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("clock", &self.sim.clock)
            .field("objects", &self.sim.world.len())
            .field("suspended", &self.suspended)
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline with an empty world, no physics engine and no actions.
    pub fn new(settings: TimeSettings) -> Pipeline {
        let mut p = Pipeline {
            sim: SimulationState::new(settings),
            debugger: Debugger::default(),
            fault_policy: FaultPolicy::default(),
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
            carried_clock_change: None,
            hooks_changed: false,
            wall: crate::clock_breakpoint::WallClock::system(),
            beacon: None,
            zones: FrameZones::default(),
            mid_entries: Vec::new(),
            mid_objects: Vec::new(),
            mid_times: Default::default(),
            mid_step_bypass: false,
        };
        p.sync_clock(Phase::Idle, false);
        p
    }

    /// Starts a new physics session: a new world and engine, fresh simulation
    /// time, dropped time and fixed input memory. Frame time and frame index go
    /// on (the contract: simulation time restarts with its physics world, frame
    /// time does not). Any suspension is cleared.
    pub fn load_session(&mut self, world: World, physics: Box<dyn PhysicsStage>, seed: u64) {
        self.sim.world = world;
        self.sim.physics = physics;
        self.sim.scheduler = Scheduler::default();
        self.sim.routines.clear();
        self.sim.stepper.reset();
        // Settings queued for this session (a scene's) apply now: no frame is in
        // progress, and a step-tick before the first frame must use them.
        if let Some(settings) = self.sim.pending_settings.take() {
            self.sim.stepper =
                FixedStepper::new(settings.strategy, Flicks::per_hz(settings.fixed_hz));
            self.sim.settings = settings;
        }
        self.sim.input.reset_simulation();
        self.sim.rng = Rng::new(seed);
        self.sim.cursor = Cursor::Idle;
        self.sim.edits_done = 0;
        self.suspended = None;
        self.pending_suspend = None;
        self.sim.scheduler.rebuild(&mut self.sim.world);
        self.sync_clock(Phase::Idle, false);
        if let Some(b) = &self.beacon {
            // A new world: whichever scene file the beacon named is not it
            // (whoever loaded a scene announces it after this).
            b.announce_session("");
        }
    }

    /// Records each call's flame zones at `detail` from the next call on
    /// (see [`crate::flame`]): coarse zones cost a few clock reads a tick
    /// and no allocation, so a host that shows them (the editor) keeps them
    /// on; fine zones time every hook call and are meant for replays. Zones
    /// are telemetry and change nothing a replay must repeat.
    pub fn set_zone_detail(&mut self, detail: ZoneDetail) {
        if self.zones.detail() != detail {
            self.zones = FrameZones::with_detail(detail);
        }
    }

    /// The zones of the last call that ran ([`FrameZones::frame_index`] and
    /// [`FrameZones::kind`] say which); empty while zones are off.
    pub fn zones(&self) -> &FrameZones {
        &self.zones
    }

    /// Replaces the action map (the input state restarts).
    pub fn set_action_map(&mut self, map: ActionMap) {
        self.sim.input = Input::new(map);
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
    pub fn set_settings(&mut self, settings: TimeSettings) -> Result<(), SettingsError> {
        settings.validate()?;
        self.sim.pending_settings = Some(settings);
        Ok(())
    }

    /// The settings in force (pending changes not included).
    pub fn settings(&self) -> &TimeSettings {
        &self.sim.settings
    }

    /// The settings the next frame runs with: a change waiting for the frame
    /// boundary, else the ones in force. What a toolbar shows after a rewind
    /// or a restore, which bring back the settings of their tick.
    pub fn next_settings(&self) -> &TimeSettings {
        self.sim
            .pending_settings
            .as_ref()
            .unwrap_or(&self.sim.settings)
    }

    /// The clock as of now.
    pub fn clock(&self) -> &Clock {
        &self.sim.clock
    }

    /// The world (committed poses, objects).
    pub fn world(&self) -> &World {
        &self.sim.world
    }

    /// The world, mutably, inside the crate. Nothing outside it changes the
    /// world but hooks (through their [`Ctx`]) and edits
    /// ([`Pipeline::apply_edit`]), so a [`Session`](crate::Session), which
    /// makes every edit of its pipeline, logs every change it must repeat.
    pub(crate) fn world_mut(&mut self) -> &mut World {
        &mut self.sim.world
    }

    /// The world, mutably, for tests that tamper with state on purpose (one
    /// soft-body particle moved by one ulp, to show the hash sees it).
    /// Only with the `test-hooks` feature, which the shipped crates never
    /// turn on.
    #[cfg(feature = "test-hooks")]
    pub fn world_mut_for_tests(&mut self) -> &mut World {
        &mut self.sim.world
    }

    /// Appends a line to the session's log, stamped with the tick and frame
    /// the session is at: for hosts (the editor's worker) that have
    /// something to tell the user. The log is not state a replay must
    /// repeat.
    pub fn log_line(&mut self, level: LogLevel, message: String) {
        self.sim.world.log_now(level, None, None, message);
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
    ) -> Result<BreakpointId, ClockRuleError> {
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
        self.sim.scheduler.register(priority, behaviour)
    }

    /// The input devices and snapshots.
    pub fn input(&self) -> &Input {
        &self.sim.input
    }

    /// Queues a device event: Update sees it next frame, fixed code next tick.
    pub fn push_input(&mut self, event: InputEvent) {
        self.sim.input.push(event);
    }

    /// Queues a raw input event for the next tick to begin, even one that no
    /// outer frame precedes (a single step while suspended): see
    /// [`crate::input::Input::push_to_next_tick`]. Update sees it next frame.
    pub fn push_input_to_next_tick(&mut self, event: InputEvent) {
        self.sim.input.push_to_next_tick(event);
    }

    /// The stepper (accumulator, owed ticks).
    pub fn stepper(&self) -> &FixedStepper {
        &self.sim.stepper
    }

    /// The physics stage.
    pub fn physics(&self) -> &dyn PhysicsStage {
        self.sim.physics.as_ref()
    }

    /// The suspension in force, if any.
    pub fn suspension(&self) -> Option<&Suspension> {
        self.suspended.as_ref()
    }

    /// Takes the log lines written since the last drain.
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        self.sim.world.drain_log()
    }

    /// One active outer frame of `raw_dt` seconds (see the module docs). Returns
    /// at once, running nothing, while suspended.
    pub fn step_frame(&mut self, raw_dt: f64) -> FrameReport {
        if self.suspended.is_some() {
            return FrameReport {
                kind: FrameKind::NotRun,
                frame_index: self.sim.frame_index,
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
        let ran_frame_part = self.sim.cursor != Cursor::Idle;
        if ran_frame_part {
            self.drive(Stop::AfterOneTick);
        }
        if self.report.ticks == 0 && self.suspended.is_none() {
            // The frame (if any) ended without a tick: a lone tick, no outer frame.
            if !ran_frame_part {
                self.report.kind = FrameKind::LoneTick;
            }
            self.sim.stepper.owe_one_more();
            self.sim.cursor = Cursor::Fixed {
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
        if self.sim.cursor == Cursor::Idle {
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

    // ----- internals -------------------------------------------------------
}
