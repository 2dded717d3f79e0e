//! A whole-session snapshot, taken between frames, and restoring one: what
//! rewinds, the sync test and the editor's recovery points stand on.

use super::*;
use crate::physics::EngineBytesError;

/// The whole simulated state of a session: what a [`Snapshot`] holds and a
/// restore puts back, in one place, so a new piece of simulated state is one
/// field here, with its initial value in [`SimulationState::new`] beside it,
/// to be covered by rewind, the sync test and the editor's recovery points. What is *not* here is the host's
/// (breakpoints, observer, watches, fault policy), a suspension (lifted by a
/// restore), or scratch rebuilt every tick.
#[derive(Clone, Debug)]
pub(super) struct SimulationState {
    /// Timing settings in force.
    pub(super) settings: TimeSettings,
    /// Settings to apply at the next frame boundary ([`Pipeline::set_settings`]):
    /// a snapshot taken between the change and that boundary carries it.
    pub(super) pending_settings: Option<TimeSettings>,
    /// Accumulator or step counter, and the completed ticks.
    pub(super) stepper: FixedStepper,
    /// The clock's eight fields as of the last phase change.
    pub(super) clock: Clock,
    /// Outer frame time, the sum of the clamped, scaled deltas.
    pub(super) frame_time: Flicks,
    /// Outer frames begun.
    pub(super) frame_index: u64,
    /// This frame's clamped, scaled delta.
    pub(super) delta: Flicks,
    /// Objects, committed poses and the queues hooks write into.
    pub(super) world: World,
    /// The cohort and its dispatch lists.
    pub(super) scheduler: Scheduler,
    /// The physics engine, with its own state.
    pub(super) physics: Box<dyn PhysicsStage>,
    /// Devices, actions, and the fixed side's input memory.
    pub(super) input: Input,
    /// The session's random generator.
    pub(super) rng: Rng,
    /// Timed routines waiting on their clocks.
    pub(super) routines: Vec<RoutineSlot>,
    /// Where in a frame the session is (between frames, or after a tick).
    pub(super) cursor: Cursor,
    /// The last tick whose edits the tick input source applied
    /// ([`TickInputSource::apply_edits`]): each tick's once.
    pub(super) edits_done: u64,
}

impl SimulationState {
    /// A session before its first frame: an empty world, no physics engine,
    /// no actions, the generator seeded with 0, the clock at zero.
    pub(super) fn new(settings: TimeSettings) -> SimulationState {
        SimulationState {
            settings,
            pending_settings: None,
            stepper: FixedStepper::new(settings.strategy, Flicks::per_hz(settings.fixed_hz)),
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
            cursor: Cursor::Idle,
            edits_done: 0,
        }
    }
}

impl SimulationState {
    /// A copy with `physics` in place of the physics stage (a compact
    /// keyframe's, whose engine state went to bytes). Every field is
    /// listed, so a new one cannot be forgotten here.
    fn clone_with_physics(&self, physics: Box<dyn PhysicsStage>) -> SimulationState {
        SimulationState {
            settings: self.settings,
            pending_settings: self.pending_settings,
            stepper: self.stepper.clone(),
            clock: self.clock,
            frame_time: self.frame_time,
            frame_index: self.frame_index,
            delta: self.delta,
            world: self.world.clone(),
            scheduler: self.scheduler.clone(),
            physics,
            input: self.input.clone(),
            rng: self.rng,
            routines: self.routines.clone(),
            cursor: self.cursor,
            edits_done: self.edits_done,
        }
    }
}

/// Everything a snapshot restores: the whole simulation state of a session.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The state as of the moment of the snapshot.
    state: SimulationState,
    /// Whether the physics engine's state is held outside, as bytes
    /// ([`Pipeline::snapshot_detached`]): then only
    /// [`Pipeline::restore_detached`] with those bytes restores it.
    detached: bool,
}

impl Snapshot {
    /// Completed ticks at the moment of the snapshot.
    pub fn tick(&self) -> u64 {
        self.state.stepper.completed_ticks()
    }

    /// Outer frame at the moment of the snapshot.
    pub fn frame_index(&self) -> u64 {
        self.state.frame_index
    }

    /// Simulated seconds at the moment of the snapshot.
    pub fn simulation_time(&self) -> f64 {
        self.state.stepper.simulation_time().as_secs_f64()
    }

    /// The registered name of `object`'s behaviour with registration number
    /// `seq` ([`crate::HookCall::seq`]), if it was in the cohort then: how a
    /// watcher names a behaviour the beacon reported, without the pipeline
    /// (whose thread may be stuck in that very behaviour).
    pub fn behaviour_name(&self, object: ObjectId, seq: u64) -> Option<String> {
        let s = &self.state.scheduler;
        let i = s
            .entries
            .iter()
            .position(|e| e.seq == seq && e.object == object)?;
        Some(s.behaviours[i].name().to_string())
    }

    /// About how many bytes the snapshot holds (what [`crate::History`]'s
    /// byte budget counts): the world's objects and the cohort's entries
    /// with their heap parts, plus the physics stage's own estimate
    /// ([`PhysicsStage::memory_bytes`]). Behaviours count their inline size
    /// only (a script's shared compiled code is not copied per snapshot).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Snapshot>()
            + self.state.world.memory_bytes()
            + self.state.scheduler.memory_bytes()
            + self.state.physics.memory_bytes()
            + self.state.routines.capacity() * std::mem::size_of::<RoutineSlot>()
    }
}

impl Pipeline {
    /// A copy of the whole simulation state.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.sim.clone(),
            detached: false,
        }
    }

    /// A snapshot with the physics engine's state written to `engine` as
    /// bytes rather than copied ([`PhysicsStage::clone_to_bytes`]): what
    /// the rewind history delta-encodes and compresses. `None` when the
    /// stage has no byte form (take [`Pipeline::snapshot`] then).
    pub fn snapshot_detached(&self, engine: &mut Vec<u8>) -> Option<Snapshot> {
        let physics = self.sim.physics.clone_to_bytes(engine)?;
        Some(Snapshot {
            state: self.sim.clone_with_physics(physics),
            detached: true,
        })
    }

    /// Restores a snapshot from [`Pipeline::snapshot_detached`] with the
    /// engine bytes it wrote (a plain snapshot ignores `engine`). On an
    /// error (bytes that do not decode, [`EngineBytesError`]) the session
    /// is left as it was: the bytes load into a copy of the stage, which
    /// replaces the session's only once they all decoded.
    pub fn restore_detached(
        &mut self,
        snapshot: &Snapshot,
        engine: &[u8],
    ) -> Result<(), EngineBytesError> {
        if !snapshot.detached {
            self.restore(snapshot);
            return Ok(());
        }
        let mut physics = snapshot.state.physics.clone_box();
        physics.load_engine(engine)?;
        self.sim = snapshot.state.clone_with_physics(physics);
        self.after_restore();
        Ok(())
    }

    /// Puts the state of a snapshot back. Breakpoints, observer and fault policy
    /// are the host's and stay; any suspension is lifted.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        debug_assert!(
            !snapshot.detached,
            "a detached snapshot restores through restore_detached"
        );
        self.sim = snapshot.state.clone();
        self.after_restore();
    }

    /// Restores `snapshot`, a state of the session taken where it stands
    /// now, with no call run since that ran hooks (the rewind history's
    /// undo: the state before an edit made at this very suspension). Unlike
    /// [`Pipeline::restore`] the suspension stays, with what the interrupted
    /// frame has done so far: they still describe where the session is, and
    /// Resume finishes that frame as it would have. The log lines written
    /// since the snapshot stay too (the log is not state a replay repeats).
    pub fn restore_at_suspension(&mut self, snapshot: &Snapshot) {
        let log = self.sim.world.drain_log();
        let suspended = self.suspended.take();
        let pending_suspend = self.pending_suspend.take();
        let in_frame = self.in_frame;
        let frame_facts = std::mem::take(&mut self.frame_facts);
        let last_alpha = self.last_alpha;
        self.restore(snapshot);
        self.sim.world.log = log;
        self.suspended = suspended;
        self.pending_suspend = pending_suspend;
        self.in_frame = in_frame;
        self.frame_facts = frame_facts;
        self.last_alpha = last_alpha;
    }

    /// What every restore does after the state is back.
    fn after_restore(&mut self) {
        self.suspended = None;
        self.pending_suspend = None;
        // A snapshot taken at the end of a tick may be in the middle of a
        // frame; the frame's own facts so far are not in it.
        self.in_frame = self.sim.cursor != Cursor::Idle;
        self.frame_facts = FrameFacts::default();
        self.last_alpha = None;
    }
}
