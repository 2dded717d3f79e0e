//! The typed path: a compiled hook function specialised to the types its
//! state variables hold, run as register code.
//!
//! # Why
//!
//! Walking the compiled tree (`ir.rs`) and checking every value's type as it
//! goes costs about 3 ns a node, so a patrol tick would cost several times
//! the same logic in Rust (that evaluator existed, and was measured at 3.2x
//! this code's time per call before it was removed). But the types in a hook
//! function are
//! almost always fixed: `dt` is a float, the state variables keep the type
//! they were born with, and every operator's result type follows from its
//! operands'. So, given the types of the state variables at entry, the types
//! of every expression are known before the call, and the function can be
//! compiled once for those types into flat register code where every
//! instruction already knows it adds two floats or compares two integers.
//!
//! # Specialisation and guard
//!
//! [`specialise`] types a [`FastFn`] for the entry types of the state
//! variables it touches (read or written) and emits [`Ins`] over a register
//! file of `u64`s (floats by bits). Each variable has a fixed register (three
//! for a `pose()`/`velocity()` value, one per field). Typing is
//! flow-sensitive: an assignment gives the variable the assigned value's type;
//! after `if`/`else`, a variable whose type differs between the branches is
//! unknown, and reading it, or leaving it in the state with an unknown type,
//! rejects the specialisation. Everything a type check at run time would bail on for a type
//! reason is rejected here at specialisation time; what can only be known at
//! run time (integer overflow, division by zero, a non-finite body command,
//! an object with no body, a negative id) still bails, with the same rule:
//! nothing has been changed yet, and rhai runs the call.
//!
//! [`run`] first checks the guard: every touched state variable still has the
//! type the code was specialised for. If not it returns [`Exit::Miss`], and
//! the caller specialises again for the new types (or, after a few misses,
//! leaves the hook to rhai). A call ends by writing the written state variables
//! back with their types at exit (which must agree on every path).

//!
//! # Files
//!
//! - this file: the instruction set ([`Ins`]), the specialised code
//!   ([`Typed`]) and what each instruction may do that orders it against body
//!   commands ([`effects`]);
//! - `specialise.rs`: typing a [`FastFn`](super::ir::FastFn) for given state
//!   and argument types, and emitting the register code;
//! - `run.rs`: the register machine that runs it.

use rhai::ImmutableString;

use super::ir::{Input, Tag};
use super::semantics::{Arith, Cmp, Math};

mod run;
mod specialise;

pub(crate) use run::run;
pub(crate) use specialise::specialise;

pub(crate) type Reg = u8;

/// Registers per call: operands are `u8`, so the register file is a
/// `[u64; 256]` and no access needs a bounds check.
pub(crate) const REGS: usize = 256;

/// Register 0 is always 0: the bits of `()`.
pub(crate) const ZERO: Reg = 0;

/// One instruction; operands are registers (`dst` first).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ins {
    Mov(Reg, Reg),
    /// Integer to float.
    IToF(Reg, Reg),
    FAdd(Reg, Reg, Reg),
    FSub(Reg, Reg, Reg),
    FMul(Reg, Reg, Reg),
    FDiv(Reg, Reg, Reg),
    FRem(Reg, Reg, Reg),
    FPow(Reg, Reg, Reg),
    /// rhai's float comparison ([`compare`]).
    FCmp(Cmp, Reg, Reg, Reg),
    FNeg(Reg, Reg),
    /// Checked integer arithmetic (bails on overflow / division by zero).
    IArith(Arith, Reg, Reg, Reg),
    ICmp(Cmp, Reg, Reg, Reg),
    INeg(Reg, Reg),
    BCmp(Cmp, Reg, Reg, Reg),
    Not(Reg, Reg),
    Jump(u32),
    JumpIfNot(Reg, u32),
    JumpIf(Reg, u32),
    /// Jump when the float comparison is false (a compare and a
    /// `JumpIfNot` fused).
    FJumpIfNot(Cmp, Reg, Reg, u32),
    /// Jump when the integer comparison is false.
    IJumpIfNot(Cmp, Reg, Reg, u32),
    Return,
    /// Three registers: x, y, angle (bails if the object has no body).
    Pose(Reg),
    /// Three registers: x, y, angular.
    Velocity(Reg),
    Me(Reg),
    Tick(Reg),
    Frame(Reg),
    SimTime(Reg),
    FixedDt(Reg),
    Rand(Reg),
    RandRange(Reg, Reg, Reg),
    /// Body commands and removal. `true`: nothing after it can bail, so it
    /// (and what is queued before it) goes straight to the context.
    KinematicTarget(Reg, Reg, Reg, bool),
    Force(Reg, Reg, bool),
    Impulse(Reg, Reg, bool),
    SetVelocity(Reg, Reg, bool),
    Remove(Reg, bool),
    Input(Input, ImmutableString, Reg),
    IAbs(Reg, Reg),
    FMath(Math, Reg, Reg),
}

/// A function specialised for the entry types of its state variables.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Typed {
    pub(super) code: Box<[Ins]>,
    /// The register of state variable 0; the others follow, so the state
    /// goes in and out in one copy each.
    pub(super) state_base: usize,
    /// State variables (all of the program's, touched or not).
    pub(super) state_len: usize,
    /// The constants, as the top registers hold them.
    pub(super) consts: Box<[u64]>,
    /// The guard and the loads: (state variable, register, entry type).
    pub(super) inputs: Box<[(usize, Reg, Tag)]>,
    /// Parameters: (register, type).
    pub(super) params: Box<[(Reg, Tag)]>,
    /// Written state variables at exit: (state variable, register, type).
    pub(super) outputs: Box<[(usize, Reg, Tag)]>,
    pub(super) uses_rng: bool,
    /// Every output leaves with the type it came in with, so a call keeps the
    /// state fitting this code (the caller need not check the guard again).
    pub(crate) stable: bool,
}

/// How a typed call ended, when it did not finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The state (or argument) types differ from the specialisation's.
    Miss,
    /// A run-time case the typed code does not handle: rhai runs the call.
    Bail,
}

/// What an instruction may do that a body command queued before it must
/// wait for: bail at run time (then rhai runs the whole call, so nothing may
/// have reached the world), or read the object's body from the world (a
/// removal applied before it would change what it reads; rhai reads the state
/// from before the call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Effects {
    can_bail: bool,
    reads_body: bool,
}

impl Effects {
    const NONE: Effects = Effects {
        can_bail: false,
        reads_body: false,
    };
    const BAILS: Effects = Effects {
        can_bail: true,
        reads_body: false,
    };
    const READS_BODY: Effects = Effects {
        can_bail: false,
        reads_body: true,
    };
    const BOTH: Effects = Effects {
        can_bail: true,
        reads_body: true,
    };
}

/// The [`Effects`] of an instruction. Exhaustive on purpose: a new
/// instruction must say whether it can bail or read the body, since one
/// wrongly marked would let a command before it reach the world ahead of a
/// bail (or of the read), and the call would then differ from rhai's.
fn effects(ins: &Ins) -> Effects {
    match ins {
        // Checked integer arithmetic: overflow, division by zero.
        Ins::IArith(..) | Ins::INeg(..) | Ins::IAbs(..) => Effects::BAILS,
        // Bails with no body (rhai's `pose()` is then an empty map).
        Ins::Pose(_) => Effects::BOTH,
        Ins::Velocity(_) => Effects::READS_BODY,
        // Bails on a non-finite component; keeps the body's angular velocity.
        Ins::SetVelocity(..) => Effects::BOTH,
        // Non-finite components; a negative id.
        Ins::KinematicTarget(..) | Ins::Force(..) | Ins::Impulse(..) | Ins::Remove(..) => {
            Effects::BAILS
        }
        Ins::Mov(..)
        | Ins::IToF(..)
        | Ins::FAdd(..)
        | Ins::FSub(..)
        | Ins::FMul(..)
        | Ins::FDiv(..)
        | Ins::FRem(..)
        | Ins::FPow(..)
        | Ins::FCmp(..)
        | Ins::FNeg(..)
        | Ins::ICmp(..)
        | Ins::BCmp(..)
        | Ins::Not(..)
        | Ins::Jump(_)
        | Ins::JumpIfNot(..)
        | Ins::JumpIf(..)
        | Ins::FJumpIfNot(..)
        | Ins::IJumpIfNot(..)
        | Ins::Return
        | Ins::Me(_)
        | Ins::Tick(_)
        | Ins::Frame(_)
        | Ins::SimTime(_)
        | Ins::FixedDt(_)
        | Ins::Rand(_)
        | Ins::RandRange(..)
        | Ins::Input(..)
        | Ins::FMath(..) => Effects::NONE,
    }
}

/// Marks the commands after which nothing can bail or read the body: they
/// need not wait in the buffer. Jumps only go forward (there are no loops), so
/// what can run after an instruction is further down the code.
pub(super) fn mark_direct(code: &mut [Ins]) {
    let mut must_wait = false;
    for ins in code.iter_mut().rev() {
        match ins {
            Ins::KinematicTarget(.., direct)
            | Ins::Force(.., direct)
            | Ins::Impulse(.., direct)
            | Ins::SetVelocity(.., direct)
            | Ins::Remove(_, direct) => *direct = !must_wait,
            _ => {}
        }
        let e = effects(ins);
        must_wait |= e.can_bail || e.reads_body;
    }
}

impl Typed {
    /// Whether the state has the entry types this code was specialised for.
    pub(crate) fn fits(&self, tags: &[Tag]) -> bool {
        tags.len() == self.state_len && self.inputs.iter().all(|&(i, _, t)| tags[i] == t)
    }
}
