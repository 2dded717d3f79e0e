//! The names everything else refers to: object ids, dispatch priorities,
//! hook kinds and time groups.
//!
//! This module is the bottom of the crate's layering and imports nothing
//! from it: the world stores [`ObjectId`]s and [`Priority`]s, behaviours
//! name [`HookKind`]s, the scheduler orders by [`Priority`], the debugger
//! and the log name all of them, and none of those needs another to say
//! which object, which hook or which order. `Priority(-50)` runs after
//! [`NamedPriority::Early`] (-100) and before [`NamedPriority::Default`]
//! (0); `HookKind::FixedUpdate` is written `FixedUpdate` in the log and in
//! breakpoints; `ObjectId(3)` prints `#3`.

use serde::{Deserialize, Serialize};

/// A stable object id: written in scenes, traces and recordings, as the
/// plain number (`object: 20`, not `object: (20)`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ObjectId(pub u64);

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Dispatch order: lower runs first. Named levels with room between them, like
/// Unity's script execution order: `Priority(-50)` runs after `Early`
/// (-100) and before `Default` (0).
///
/// A file writes a named level by its name; a binary frame (the editor's
/// wire) writes the number, since "a name or a number" needs a reader that
/// can look ahead ([`crate::binary_form`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Priority(pub i32);

impl Serialize for Priority {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            PriorityRepr::from(*self).serialize(s)
        } else {
            s.serialize_i32(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Priority {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Priority, D::Error> {
        if d.is_human_readable() {
            PriorityRepr::deserialize(d).map(Priority::from)
        } else {
            i32::deserialize(d).map(Priority)
        }
    }
}

/// The named priority levels, in their explicit order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum NamedPriority {
    /// -1000: before everything (input routing, clocks).
    First,
    /// -500: reads devices, writes intents.
    Input,
    /// -100: early gameplay (controllers).
    Early,
    /// 0: the default.
    Default,
    /// 100: reacts to what gameplay did.
    Late,
    /// 500: cameras and followers.
    Camera,
    /// 1000: after everything (diagnostics).
    Last,
}

impl NamedPriority {
    /// Every name, in order.
    pub const ALL: [NamedPriority; 7] = [
        NamedPriority::First,
        NamedPriority::Input,
        NamedPriority::Early,
        NamedPriority::Default,
        NamedPriority::Late,
        NamedPriority::Camera,
        NamedPriority::Last,
    ];

    /// The numeric value of the name.
    pub const fn value(self) -> i32 {
        match self {
            NamedPriority::First => -1000,
            NamedPriority::Input => -500,
            NamedPriority::Early => -100,
            NamedPriority::Default => 0,
            NamedPriority::Late => 100,
            NamedPriority::Camera => 500,
            NamedPriority::Last => 1000,
        }
    }
}

impl From<NamedPriority> for Priority {
    fn from(n: NamedPriority) -> Priority {
        Priority(n.value())
    }
}

impl Priority {
    /// The default level.
    pub const DEFAULT: Priority = Priority(0);

    /// The name of this exact value, if it has one.
    pub fn name(self) -> Option<NamedPriority> {
        NamedPriority::ALL.into_iter().find(|n| n.value() == self.0)
    }
}

impl std::fmt::Display for Priority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n:?}"),
            None => write!(f, "{}", self.0),
        }
    }
}

/// Scenes write a priority as a name (`Early`) or a number (`-50`).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum PriorityRepr {
    Named(NamedPriority),
    Value(i32),
}

impl From<PriorityRepr> for Priority {
    fn from(r: PriorityRepr) -> Priority {
        match r {
            PriorityRepr::Named(n) => n.into(),
            PriorityRepr::Value(v) => Priority(v),
        }
    }
}

impl From<Priority> for PriorityRepr {
    fn from(p: Priority) -> PriorityRepr {
        match p.name() {
            Some(n) => PriorityRepr::Named(n),
            None => PriorityRepr::Value(p.0),
        }
    }
}

/// Which hook is running: breakpoints, errors and the log name hooks by this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HookKind {
    /// First frame in the cohort.
    Start,
    /// Once per outer frame.
    Update,
    /// Once per outer frame, after the fixed phase (frame clock).
    FlowTick,
    /// Once per fixed tick, before physics.
    FixedUpdate,
    /// Inside the physics step, per contact pair and substep, after collision
    /// detection and before the solver ([`crate::Behaviour::mid_step`]).
    MidStep,
    /// Contact started/stopped, after physics.
    Contact,
    /// A timed routine resuming.
    Routine,
    /// Presentation phase.
    Present,
}

impl HookKind {
    /// Every hook kind, in declaration order (an index of per-hook tables; the
    /// order hooks run in is the module docs' table: Flow Tick runs after the
    /// fixed phase).
    pub const ALL: [HookKind; 8] = [
        HookKind::Start,
        HookKind::Update,
        HookKind::FlowTick,
        HookKind::FixedUpdate,
        HookKind::MidStep,
        HookKind::Contact,
        HookKind::Routine,
        HookKind::Present,
    ];

    /// Fixed-phase hooks suspend at the end of the tick; the others before the hook.
    pub fn is_fixed(self) -> bool {
        matches!(
            self,
            HookKind::FixedUpdate | HookKind::MidStep | HookKind::Contact
        )
    }

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            HookKind::Start => "Start",
            HookKind::Update => "Update",
            HookKind::FlowTick => "FlowTick",
            HookKind::FixedUpdate => "FixedUpdate",
            HookKind::MidStep => "MidStep",
            HookKind::Contact => "Contact",
            HookKind::Routine => "Routine",
            HookKind::Present => "Present",
        }
    }
}

impl std::fmt::Display for HookKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The set of hooks a behaviour implements, so dispatch skips the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Hooks(u8);

impl Hooks {
    /// Start.
    pub const START: Hooks = Hooks(1);
    /// Update.
    pub const UPDATE: Hooks = Hooks(1 << 1);
    /// Flow Tick.
    pub const FLOW_TICK: Hooks = Hooks(1 << 2);
    /// FixedUpdate.
    pub const FIXED_UPDATE: Hooks = Hooks(1 << 3);
    /// Contact callbacks.
    pub const CONTACT: Hooks = Hooks(1 << 4);
    /// Presentation.
    pub const PRESENT: Hooks = Hooks(1 << 5);
    /// The mid-step hook ([`crate::Behaviour::mid_step`]), called from inside
    /// the physics step. Not in [`Hooks::ALL`]: an object with it has the
    /// engine call back for every contact pair it is in, and rapier then
    /// treats those pairs differently (it recomputes their contacts every
    /// step instead of reusing them), so an empty default would not be free
    /// or invisible. A behaviour has it only when it defines the method.
    pub const MID_STEP: Hooks = Hooks(1 << 6);
    /// Every hook the pipeline calls itself, which is the default set: always
    /// correct, never skipped. It leaves out [`Hooks::MID_STEP`], which only
    /// a behaviour that defines `mid_step` has (see there why).
    pub const ALL: Hooks = Hooks(0x3f);
    /// No hook.
    pub const NONE: Hooks = Hooks(0);

    /// Both sets.
    pub const fn and(self, other: Hooks) -> Hooks {
        Hooks(self.0 | other.0)
    }

    /// Whether every hook of `other` is in the set.
    pub const fn contains(self, other: Hooks) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bit of a hook kind (routines are not dispatched per behaviour).
    pub const fn of(kind: HookKind) -> Hooks {
        match kind {
            HookKind::Start => Hooks::START,
            HookKind::Update => Hooks::UPDATE,
            HookKind::FlowTick => Hooks::FLOW_TICK,
            HookKind::FixedUpdate => Hooks::FIXED_UPDATE,
            HookKind::MidStep => Hooks::MID_STEP,
            HookKind::Contact => Hooks::CONTACT,
            HookKind::Routine => Hooks::NONE,
            HookKind::Present => Hooks::PRESENT,
        }
    }
}

/// Which clock a routine's waits are measured on. Every object has one
/// (`time_group` in a scene, the frame clock by default): its routines wait on
/// it, whichever hook started them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TimeGroup {
    /// The outer frame clock (`frame_time`): the default, even for routines started
    /// from FixedUpdate, as the contract requires.
    #[default]
    Frame,
    /// Simulation time: resumes inside the fixed phase, after FixedUpdate.
    Fixed,
}
