//! The behaviour API: the hooks user code implements and the context they get.
//!
//! A behaviour is attached to an object with a priority. The pipeline calls its
//! hooks in priority order (lower value first, registration order within a
//! priority):
//!
//! | hook | phase | clock it sees |
//! |---|---|---|
//! | [`Behaviour::start`] | update, first frame the object is in the cohort, before its first Update | frame |
//! | [`Behaviour::update`] | update, once per outer frame | frame (`dt` = `delta_time`) |
//! | [`Behaviour::fixed_update`] | fixed, once per tick, right before the physics step | pending tick |
//! | [`Behaviour::mid_step`] | fixed, inside the physics step: per contact pair of its object and substep, after collision detection, before the solver | pending tick, `delta_time` = the substep's dt |
//! | [`Behaviour::on_contact`] | fixed, after the physics step and its commit | completed tick, its live poses |
//! | [`Behaviour::flow_tick`] | update clock, once per frame, after the fixed phase; skipped with the rest of a frame a fixed breakpoint interrupted | frame (`dt` = `delta_time`) |
//! | [`Behaviour::present`] | presentation, once per frame | frame, interpolated poses |
//!
//! Within one frame the hooks run in the order of this table (routines on the
//! frame clock run after Update, those on the fixed clock after each tick's
//! FixedUpdate).
//!
//! Hooks never write physics directly: [`Ctx`] queues body commands, which are
//! reconciled before the next step. Behaviours must be `Clone` (a blanket impl
//! of [`CloneBehaviour`] gives every `Clone` behaviour its
//! [`Behaviour::clone_box`]) because a session snapshot is a copy of every
//! behaviour's state: that is what makes rewind and the sync test cover user code.
//!
//! ```
//! use stepframe_core::{Behaviour, Ctx, Hooks, Inspect, Vec2};
//!
//! /// Pushes its body right while "right" is held, in fixed code.
//! #[derive(Clone, Debug, Inspect)]
//! struct Thruster {
//!     /// Push while "right" is held.
//!     #[inspect(unit = "N")]
//!     force: f32,
//! }
//!
//! #[stepframe_core::behaviour]
//! impl Behaviour for Thruster {
//!     fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
//!         if ctx.input().pressed("right") {
//!             ctx.apply_force(ctx.me(), Vec2::new(self.force, 0.0));
//!         }
//!     }
//! }
//!
//! let thruster = Thruster { force: 3.0 };
//! // The hook set is read from the methods the block defines...
//! assert_eq!(thruster.hooks(), Hooks::FIXED_UPDATE);
//! // ...and the inspector's table from the struct's fields.
//! let mut table = stepframe_core::Fields::new("Thruster");
//! thruster.inspect(&mut table);
//! let rows = table.into_rows();
//! assert_eq!(rows[0].path, "Thruster.force");
//! assert_eq!(rows[0].unit.as_deref(), Some("N"));
//! // ...and its name from the type.
//! assert_eq!(thruster.name(), "Thruster");
//! ```
//!
//! # Which hooks a behaviour has
//!
//! [`Behaviour::hooks`] is the set dispatch puts the behaviour's object in:
//! it is called, timed and hit by breakpoints in those hooks and no others.
//! The [`macro@behaviour`] attribute on the `impl Behaviour` block fills it
//! in from the hook methods the block defines, so it cannot say more (a
//! phantom FixedUpdate hit on a behaviour with no FixedUpdate) or less (a
//! hook that is never called) than the code. Without the attribute the
//! default is [`Hooks::ALL`], which is correct but calls every empty
//! default; a hand-written `hooks()` still works, and is what a behaviour
//! whose set changes at run time (a script reloaded with other functions,
//! [`Ctx::hooks_changed`]) writes.
//!
//! # What the inspector shows
//!
//! [`Behaviour::inspect`] writes the behaviour's state as rows with stable
//! paths, units and doc lines ([`Fields`], see `behaviour/fields`); the
//! attribute fills it from `#[derive(Inspect)]` on the struct.
//! [`Behaviour::state_text`] stays the plain-text view of the same state.
//!
//! # Its name, its hash and its parameters
//!
//! The attribute derives three more facts the struct already states (see
//! `behaviour/derived`): the registered name ([`Named`], the type's name),
//! [`Behaviour::hash_state`] over every field ([`HashState`];
//! `#[inspect(skip_hash = "why")]` leaves one out), and
//! [`Behaviour::adopt_params`] from the fields marked `#[inspect(params)]`
//! ([`AdoptParams`]). Each is written by hand only when the fact is not
//! in the fields: a script's variables, a name chosen at run time.
//!
//! # The context
//!
//! Every hook gets a [`Ctx`] (see `behaviour/ctx`): its object, the clock,
//! the input, the world's poses, body commands, the session's [`Rng`],
//! routines, the log and break requests. The mid-step hook is the
//! exception: it runs while the engine holds the world, so it gets one
//! contact pair as plain data instead ([`MidStepPair`], see
//! `behaviour/mid_step` for what it sees and when).

mod ctx;
mod derived;
mod fields;
pub mod mid_step;

pub use ctx::Ctx;
pub(crate) use ctx::{Caller, HookRequests};
pub use derived::{AdoptParams, HashState, Named, adopt_derived_params};
pub use fields::{
    DebugText, Field, FieldMeta, FieldValue, Fields, Inspect, MAX_LIST_ROWS, readable_f32,
    readable_f64,
};
pub use stepframe_macros::{Inspect, behaviour};

use serde::{Deserialize, Serialize};

use crate::body::ContactKind;
use crate::clock::Flicks;
use crate::ids::{Hooks, TimeGroup};
use crate::ids::{ObjectId, Priority};
use mid_step::MidStepPair;

/// How a behaviour is copied into a snapshot. Implemented for every `Clone`
/// behaviour by the blanket impl below, so a behaviour derives `Clone` and
/// writes no copying code of its own.
pub trait CloneBehaviour {
    /// A boxed copy with the current state.
    fn clone_behaviour(&self) -> Box<dyn Behaviour>;
}

impl<T: Behaviour + Clone + 'static> CloneBehaviour for T {
    fn clone_behaviour(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
}

/// User code attached to an object. Every hook has an empty default.
///
/// `Any` is a supertrait so a host can reach the concrete type of a boxed
/// behaviour ([`downcast_ref`](trait.Behaviour.html#method.downcast_ref)):
/// the editor's fork rebinds the Script behaviours of branch B to B's own
/// script host that way, and [`Behaviour::adopt_params`] reads the fresh
/// instance's parameters.
pub trait Behaviour: std::any::Any + Send + std::fmt::Debug + CloneBehaviour {
    /// The hooks this behaviour implements: the only ones it is called,
    /// timed and hit by breakpoints in. Let [`macro@behaviour`] derive it
    /// from the methods the `impl` block defines (see the module docs);
    /// write it by hand only when the set changes at run time. The default,
    /// [`Hooks::ALL`], is always correct but calls every empty default (a
    /// FixedUpdate-only behaviour then costs a call in every phase).
    fn hooks(&self) -> Hooks {
        Hooks::ALL
    }

    /// Registered name, shown in the editor and in error reports.
    /// [`macro@behaviour`] writes it from [`Named`] (the type's name), so
    /// the name a scene uses and the one this returns are one fact; the
    /// registry refuses a behaviour whose `name()` is not the name it was
    /// made under.
    fn name(&self) -> &str;

    /// A copy of this behaviour with its current state (for snapshots). The
    /// default is the `Clone` copy ([`CloneBehaviour`]); there is no reason
    /// to override it.
    fn clone_box(&self) -> Box<dyn Behaviour> {
        self.clone_behaviour()
    }

    /// First frame the object is in the cohort, before its first Update.
    fn start(&mut self, _ctx: &mut Ctx) {}

    /// Once per outer frame with the clamped, scaled frame delta.
    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {}

    /// Once per outer frame, after the fixed phase, with the frame's clamped
    /// delta: graph and state-machine logic. A fixed breakpoint skips it for the
    /// frame it interrupted.
    fn flow_tick(&mut self, _ctx: &mut Ctx, _dt: f64) {}

    /// Once per fixed tick, immediately before the physics step.
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {}

    /// Inside the physics step, for each contact pair this object is part
    /// of, in every substep: after the engine found the pair's contacts and
    /// before its solver uses them. Drop the pair or single points, set the
    /// pair's friction and restitution, or give this object's surface a
    /// speed (a conveyor); see [`MidStepPair`] and the `behaviour/mid_step`
    /// docs for the order of the substep and what the pair holds.
    ///
    /// Named for when it runs, like `fixed_update` and `flow_tick`: it is
    /// the one hook between the engine's collision detection and its solver,
    /// where [`Behaviour::on_contact`] runs after the whole step. It takes
    /// `&self`: a call is a function of the behaviour's state as the step
    /// began and of the pair, so the calls' order (the engine's) can change
    /// nothing but the pair. Its [`HookKind`](crate::ids::HookKind) is
    /// `MidStep` and its bit [`Hooks::MID_STEP`], which only a behaviour
    /// that defines it has.
    fn mid_step(&self, _pair: &mut MidStepPair) {}

    /// A contact involving this object started or stopped during the tick.
    /// Runs after the tick's physics step and commit: poses and velocities read
    /// here are the ones the tick ended with (what its trace record holds).
    fn on_contact(&mut self, _ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {}

    /// This object's soft body tore during the tick: runs in the fixed phase,
    /// after the tick's contact callbacks, as a
    /// [`HookKind::Contact`](crate::ids::HookKind::Contact) hook (so it needs
    /// [`Hooks::CONTACT`], and a contact breakpoint stops it).
    /// `tear` says which tick, and which runs of the object's particles are
    /// the pieces it split off; they stay part of this object.
    fn on_tear(&mut self, _ctx: &mut Ctx, _tear: &crate::soft_body::SoftTear) {}

    /// Presentation phase: read interpolated poses, drive cameras and effects.
    fn present(&mut self, _ctx: &mut Ctx) {}

    /// A named routine of this behaviour ([`Ctx::start_named_routine`]) is
    /// due: run its next slice and say when to resume it ([`Wait::Seconds`]
    /// on the same time group) or that it is finished ([`Wait::Done`], the
    /// default). Runs with [`HookKind::Routine`](crate::ids::HookKind::Routine),
    /// after Update for the frame clock and after each tick's FixedUpdate for
    /// the fixed clock.
    ///
    /// This is how code whose state lives in the behaviour (a script's
    /// variables) has timed routines: the pipeline keeps only the routine's
    /// name, owner and wake time, plain data that a snapshot copies, and the
    /// behaviour's own state (copied by `clone_box`) does the rest, so rewind
    /// and the sync test cover routines exactly.
    fn routine(&mut self, _ctx: &mut Ctx, _name: &str) -> Wait {
        Wait::Done
    }

    /// A resource this behaviour runs (a script file, by its key) has new
    /// text: adopt it now, keeping what state carries over, or say why not
    /// (the text does not compile; the old version keeps running). A
    /// reload edit ([`crate::Edit::Reload`]) calls this on every behaviour,
    /// and the session's history logs and replays it, so every past view
    /// and rewind runs each tick with the version it ran live. The default
    /// runs no resource.
    fn reload(&mut self, _resource: &str, _text: &str) -> Reload {
        Reload::NotMine
    }

    /// Feeds behaviour state into the tick hash (traces, sync test).
    /// [`macro@behaviour`] derives it from every field ([`HashState`], the
    /// `behaviour/derived` module docs say what is left out and why), so a
    /// field added later is covered without anyone remembering it. Write it
    /// by hand only for state that is not plain fields (a script's
    /// variables); the default, without the attribute, feeds nothing.
    fn hash_state(&self, _hasher: &mut crate::hash::StableHasher) {}

    /// The behaviour's state as the editor's inspector shows it, one
    /// `name: value` per line. The default is the pretty `Debug` text, which
    /// every behaviour has; override it when `Debug` would hide the live
    /// state (a script keeps its variables in compiled registers) or print
    /// too much.
    fn state_text(&self) -> String {
        format!("{self:#?}")
    }

    /// The behaviour's state as rows (path, value, unit, doc) under the
    /// path `out` starts at (the behaviour's name): what the inspector's
    /// table shows and a timeline lane plots by path. [`macro@behaviour`]
    /// fills it from the type's [`Inspect`] (`#[derive(Inspect)]`); the
    /// default writes nothing, and the inspector then falls back to
    /// [`Behaviour::state_text`]. Write it by hand for state that is not
    /// plain fields (a script's variables).
    fn inspect(&self, _out: &mut Fields) {}

    /// Takes the parameters of `fresh`, a behaviour the registry just made
    /// from edited parameter text, and keeps this one's own state (contacts
    /// seen, counters, a charge held): what a parameter edit does mid-run
    /// ([`crate::Pipeline::set_behaviour_params`]), so the behaviour goes on
    /// as if it had been loaded with the new parameters and lived the same
    /// past. Returns false when it cannot (the default, and whenever `fresh`
    /// is another type): the edit is refused and nothing changes.
    /// [`macro@behaviour`] derives it from the fields `#[derive(Inspect)]`
    /// marks `#[inspect(params)]` or `#[inspect(param)]` ([`AdoptParams`]):
    /// they are copied from `fresh`, every other field stays. Write it by
    /// hand when parameters must be carried into other state (a script's
    /// variables).
    fn adopt_params(&mut self, _fresh: &dyn Behaviour) -> bool {
        false
    }
}

impl dyn Behaviour {
    /// The concrete behaviour, if it is a `T`.
    pub fn downcast_ref<T: Behaviour>(&self) -> Option<&T> {
        let any: &dyn std::any::Any = self;
        any.downcast_ref()
    }

    /// The concrete behaviour, if it is a `T`, to change it in place.
    pub fn downcast_mut<T: Behaviour>(&mut self) -> Option<&mut T> {
        let any: &mut dyn std::any::Any = self;
        any.downcast_mut()
    }
}

/// One behaviour of an object as the inspector shows it, read from the
/// cohort (or from the behaviours waiting for the next frame boundary).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BehaviourState {
    /// Registered name.
    pub name: String,
    /// Dispatch priority.
    pub priority: Priority,
    /// The hooks it implements: the only ones it is called (and hit) in.
    pub hooks: Hooks,
    /// [`Behaviour::state_text`] now.
    pub state: String,
    /// [`Behaviour::inspect`] now: the rows, with paths starting at the
    /// behaviour's name (`Name[1]` for the second of that name on the
    /// object); empty when the behaviour writes none.
    pub fields: Vec<Field>,
    /// Its Start has run (it has joined the cohort and started).
    pub started: bool,
    /// A hook panicked and the fault policy disabled it.
    pub faulted: bool,
}

impl Clone for Box<dyn Behaviour> {
    fn clone(&self) -> Box<dyn Behaviour> {
        self.clone_box()
    }
}

/// What a behaviour did with a reload ([`Behaviour::reload`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reload {
    /// It does not run that resource.
    NotMine,
    /// It runs the new text now; `hooks_changed` when its hook set changed.
    Adopted {
        /// The set of hooks it implements changed (dispatch lists rebuild).
        hooks_changed: bool,
    },
    /// It could not (the text does not compile, its top level failed): the
    /// old version keeps running.
    Refused(String),
}

/// What a routine asks for when it yields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wait {
    /// Resume after this many seconds of its time group's clock.
    Seconds(f64),
    /// The routine is finished.
    Done,
}

/// How a routine is copied into a snapshot: every `Clone` routine has it
/// (blanket impl), as for [`CloneBehaviour`].
pub trait CloneRoutine {
    /// A boxed copy with the current state.
    fn clone_routine(&self) -> Box<dyn Routine>;
}

impl<T: Routine + Clone + 'static> CloneRoutine for T {
    fn clone_routine(&self) -> Box<dyn Routine> {
        Box::new(self.clone())
    }
}

/// A timed routine (a coroutine written as a state machine): `resume` runs until
/// the next wait.
pub trait Routine: Send + std::fmt::Debug + CloneRoutine {
    /// Runs one slice of the routine.
    fn resume(&mut self, ctx: &mut Ctx) -> Wait;

    /// A copy with the current state (for snapshots); the default is the
    /// `Clone` copy ([`CloneRoutine`]).
    fn clone_box(&self) -> Box<dyn Routine> {
        self.clone_routine()
    }
}

/// What runs when a routine is due.
#[derive(Debug)]
pub(crate) enum RoutineBody {
    /// A routine object with its own state ([`Ctx::start_routine`]).
    Boxed(Box<dyn Routine>),
    /// A named routine of a behaviour ([`Ctx::start_named_routine`]): the
    /// pipeline calls [`Behaviour::routine`] on the scheduler entry with this
    /// sequence number (unique, kept by snapshots).
    Named {
        entry: u64,
        name: std::sync::Arc<str>,
    },
}

/// A routine waiting on its group's clock.
#[derive(Debug)]
pub(crate) struct RoutineSlot {
    pub(crate) owner: ObjectId,
    pub(crate) group: TimeGroup,
    /// Wake time on the group's clock.
    pub(crate) wake_at: Flicks,
    /// Wait asked for at the start, seconds; added to the group's clock when
    /// the pipeline files the routine.
    pub(crate) delay: f64,
    pub(crate) routine: RoutineBody,
}

impl Clone for RoutineSlot {
    fn clone(&self) -> RoutineSlot {
        RoutineSlot {
            owner: self.owner,
            group: self.group,
            wake_at: self.wake_at,
            delay: self.delay,
            routine: match &self.routine {
                RoutineBody::Boxed(r) => RoutineBody::Boxed(r.clone_box()),
                RoutineBody::Named { entry, name } => RoutineBody::Named {
                    entry: *entry,
                    name: name.clone(),
                },
            },
        }
    }
}

/// Deterministic random numbers (SplitMix64): seeded by the scene, saved in
/// snapshots, identical on every platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }
}
