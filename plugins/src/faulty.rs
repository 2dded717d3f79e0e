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
//!
//! Four faults nothing in the process survives, for the supervisor of a
//! headless run (and the editor's session host) to name from outside
//! (docs/reliability.md says what the user sees for each):
//!
//! - `Abort`: `std::process::abort()`, no unwinding, no message;
//! - `StackOverflow`: unbounded recursion, 512 bytes of stack a frame, until
//!   the guard page: Rust's handler prints "thread '…' has overflowed its
//!   stack" and aborts. Each frame's array goes through `black_box` and the
//!   call's result is used after it returns, so the optimiser can neither
//!   drop the frames nor turn the recursion into a loop;
//! - `Allocate`: 16 MiB blocks, each written through (one byte a 4 KiB page,
//!   so every page is really resident) and kept, until an allocation fails:
//!   Rust prints "memory allocation of 16777216 bytes failed" and aborts.
//!   Under a supervisor's memory limit that happens at the limit; without
//!   one, at whatever the system allows (or its out-of-memory killer ends the
//!   process first);
//! - `Spin`: an endless loop, the hook never returns (a `BusyWait` with no
//!   end): only a supervisor that kills the process ends it.

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
    /// The process aborts (`std::process::abort`).
    Abort,
    /// The hook recurses until its thread's stack overflows.
    StackOverflow,
    /// The hook allocates and touches memory until an allocation fails.
    Allocate,
    /// The hook never returns.
    Spin,
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
        Fault::Abort => std::process::abort(),
        Fault::StackOverflow => {
            std::hint::black_box(recurse(0));
        }
        Fault::Allocate => allocate_until_it_fails(),
        Fault::Spin => loop {
            std::hint::spin_loop();
        },
    }
}

/// Bytes of one stack frame of [`recurse`] (its array).
const FRAME_WORDS: usize = 64;

/// Recurses until the stack overflows (module docs): a frame holds an array
/// the optimiser must keep (`black_box`), and the sum after the call keeps
/// the call from being a tail call. The depth test never holds at run time
/// (`black_box` hides that), so the function is not unconditionally
/// recursive in the compiler's eyes.
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; FRAME_WORDS]);
    if std::hint::black_box(depth) == u64::MAX {
        return frame[0];
    }
    recurse(depth + 1).wrapping_add(frame[(depth % FRAME_WORDS as u64) as usize])
}

/// Bytes of one block of `Allocate`.
const BLOCK_BYTES: usize = 16 << 20;

/// Allocates [`BLOCK_BYTES`] blocks, writes one byte per 4 KiB page of each
/// (so the pages are resident, not just promised) and keeps them, until the
/// allocator fails and Rust's allocation-error handler aborts.
fn allocate_until_it_fails() -> ! {
    let mut kept: Vec<Vec<u8>> = Vec::new();
    loop {
        // Zeroed memory can be promised without being touched (calloc):
        // the write per page makes it resident.
        let mut block = vec![0u8; BLOCK_BYTES];
        for page in block.chunks_mut(4096) {
            page[0] = 1;
        }
        kept.push(std::hint::black_box(block));
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
