//! `Faulty`: fault injection for reliability tests.
//!
//! Its parameters pick a hook, a tick and a fault. The fault fires once, in the
//! first call of that hook at which `simulation_tick >= tick` (the pending tick
//! in FixedUpdate and contact hooks, the completed tick count elsewhere), or in
//! every such call with `repeat: true`. Every hook kind can be chosen: `Routine`
//! makes Start launch a frame-clock routine that resumes once per outer frame
//! and carries the fault, `Present` fires in the presentation phase.
//!
//! - `Panic`: the hook panics; the pipeline catches it, logs it and applies its
//!   fault policy, and the tick completes for every other object;
//! - `NanForce`: a force with a NaN component, which the world rejects and logs;
//! - `NanPose`: a teleport to a NaN pose, rejected the same way;
//! - `NanVelocity`: a velocity with an infinite and a NaN component, rejected
//!   the same way;
//! - `BusyWait(ms)`: the hook spins for that many wall-clock milliseconds, to
//!   exercise frame budgets, the step cap and a UI that must not freeze. The wait
//!   only costs time: it changes no simulation state, so runs stay deterministic.

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::behaviour::{HashState, Named, adopt_derived_params};
use stepframe_core::hash::StableHasher;
use stepframe_core::{
    Behaviour, ContactKind, Ctx, Fields, Hooks, Inspect, ObjectId, Pose, Routine, TimeGroup, Vec2,
    Velocity, Wait,
};

/// The hook a fault is injected into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Inspect)]
pub enum FaultHook {
    /// Start.
    Start,
    /// Update.
    Update,
    /// Flow Tick.
    FlowTick,
    /// FixedUpdate.
    #[default]
    FixedUpdate,
    /// A contact callback.
    Contact,
    /// A routine Start launches on the frame clock (resumes once per frame).
    Routine,
    /// The presentation hook.
    Present,
}

/// What goes wrong.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, Inspect)]
pub enum Fault {
    /// The hook panics.
    #[default]
    Panic,
    /// A NaN force is written (and rejected).
    NanForce,
    /// A NaN pose is written (and rejected).
    NanPose,
    /// A non-finite velocity is written (and rejected).
    NanVelocity,
    /// The hook busy-waits this many wall-clock milliseconds.
    BusyWait(f64),
}

/// Parameters of [`Faulty`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct FaultyParams {
    /// Hook to inject into.
    pub hook: FaultHook,
    /// First tick at which it fires.
    pub tick: u64,
    /// The fault.
    pub fault: Fault,
    /// Fire on every call from `tick` on, not just once.
    pub repeat: bool,
}

/// Injects one fault into one hook (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct Faulty {
    #[inspect(params)]
    params: FaultyParams,
    /// Times the fault fired.
    fired: u64,
}

impl Faulty {
    /// Checks the parameters.
    pub fn new(params: FaultyParams) -> Result<Faulty, InvalidParams> {
        if let Fault::BusyWait(ms) = params.fault
            && !(ms.is_finite() && (0.0..=60_000.0).contains(&ms))
        {
            return Err(InvalidParams::new(format!(
                "BusyWait must be 0..=60000 ms, got {ms}"
            )));
        }
        Ok(Faulty { params, fired: 0 })
    }

    fn maybe_fire(&mut self, ctx: &mut Ctx, hook: FaultHook) {
        fire(&self.params, &mut self.fired, ctx, hook);
    }
}

/// Fires `p.fault` if `hook` is the chosen one and its tick has come (shared by
/// the behaviour and its routine).
fn fire(p: &FaultyParams, fired: &mut u64, ctx: &mut Ctx, hook: FaultHook) {
    if hook != p.hook || ctx.clock().simulation_tick < p.tick || (*fired > 0 && !p.repeat) {
        return;
    }
    *fired += 1;
    let me = ctx.me();
    match p.fault {
        Fault::Panic => panic!(
            "Faulty: injected panic in {hook:?} at tick {}",
            ctx.clock().simulation_tick
        ),
        Fault::NanForce => {
            ctx.apply_force(me, Vec2::new(f32::NAN, 0.0));
        }
        Fault::NanPose => {
            ctx.set_pose(me, Pose::new(f32::NAN, 0.0, 0.0));
        }
        Fault::NanVelocity => {
            let velocity = Velocity {
                linear: Vec2::new(f32::INFINITY, 0.0),
                angular: f32::NAN,
            };
            ctx.set_velocity(me, velocity);
        }
        Fault::BusyWait(ms) => {
            let until = std::time::Duration::from_secs_f64(ms / 1000.0);
            let t0 = std::time::Instant::now();
            while t0.elapsed() < until {
                std::hint::spin_loop();
            }
        }
    }
}

/// Not `#[stepframe_core::behaviour]`: Faulty defines every hook method so
/// any one can carry the fault, but its parameters choose the one that
/// does, so its hook set is a function of its parameters, not of its
/// methods, and is written by hand.
impl Named for Faulty {
    const NAME: &'static str = "Faulty";
}

impl Behaviour for Faulty {
    /// The derived adoption (`#[derive(Inspect)]`'s, from the `params`
    /// field), called by hand since the attribute is not on this block.
    fn adopt_params(&mut self, fresh: &dyn Behaviour) -> bool {
        adopt_derived_params(self, fresh)
    }

    /// The one hook the fault goes into (Start for a routine fault, which
    /// Start launches): the others would be empty calls.
    fn hooks(&self) -> Hooks {
        match self.params.hook {
            FaultHook::Start | FaultHook::Routine => Hooks::START,
            FaultHook::Update => Hooks::UPDATE,
            FaultHook::FlowTick => Hooks::FLOW_TICK,
            FaultHook::FixedUpdate => Hooks::FIXED_UPDATE,
            FaultHook::Contact => Hooks::CONTACT,
            FaultHook::Present => Hooks::PRESENT,
        }
    }

    fn name(&self) -> &str {
        Self::NAME
    }

    fn start(&mut self, ctx: &mut Ctx) {
        if self.params.hook == FaultHook::Routine {
            ctx.start_routine(
                TimeGroup::Frame,
                Box::new(FaultyRoutine {
                    params: self.params.clone(),
                    fired: 0,
                }),
            );
        }
        self.maybe_fire(ctx, FaultHook::Start);
    }

    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.maybe_fire(ctx, FaultHook::Update);
    }

    fn flow_tick(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.maybe_fire(ctx, FaultHook::FlowTick);
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.maybe_fire(ctx, FaultHook::FixedUpdate);
    }

    fn on_contact(&mut self, ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {
        self.maybe_fire(ctx, FaultHook::Contact);
    }

    fn present(&mut self, ctx: &mut Ctx) {
        self.maybe_fire(ctx, FaultHook::Present);
    }

    fn hash_state(&self, hasher: &mut StableHasher) {
        HashState::hash_into(self, hasher);
    }

    fn inspect(&self, out: &mut Fields) {
        Inspect::inspect_into(self, out);
    }
}

/// The routine of `hook: Routine`: resumes every outer frame until its fault
/// has fired (for good with `repeat`, where only a panic, which ends the
/// routine, stops it).
#[derive(Clone, Debug)]
struct FaultyRoutine {
    params: FaultyParams,
    /// Times the fault fired.
    fired: u64,
}

impl Routine for FaultyRoutine {
    fn resume(&mut self, ctx: &mut Ctx) -> Wait {
        fire(&self.params, &mut self.fired, ctx, FaultHook::Routine);
        if self.fired > 0 && !self.params.repeat {
            Wait::Done
        } else {
            Wait::Seconds(0.0)
        }
    }
}
