//! A whole-session snapshot, taken between frames, and restoring one: what
//! rewinds, the sync test and the editor's recovery points stand on.

use super::*;

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

impl Pipeline {
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
}
