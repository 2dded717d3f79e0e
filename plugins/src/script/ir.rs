//! The compiled path's intermediate form: hook functions in a numeric subset
//! of rhai, as a small tree with variables resolved to slots (made by
//! `lower.rs`), which `typed/` specialises to register code for the types
//! the script's state holds. The numbers' meaning is in `semantics.rs`.
//!
//! # Why
//!
//! rhai walks its AST with `Dynamic` values, resolves every call by hash, and
//! a hook call goes through `call_fn` (a fresh runtime state, the argument
//! list, the function lookup) and the thread-local call state of `engine.rs`.
//! For a patrol `fixed_update` that is about 4 µs a call, 100 times the same
//! logic in Rust. Most fixed logic in a game is exactly this kind of code:
//! numbers, comparisons, a pose read and a body command. This module runs that
//! kind of function directly, with typed values and variables resolved to
//! slots at compile time.
//!
//! # What compiles
//!
//! A hook function (`start`, `update`, `flow_tick`, `fixed_update`) compiles
//! when every statement and expression in it is one of:
//!
//! - `let` (not `const`), `=` and the arithmetic compound assignments on plain
//!   variables (locals, parameters, the script's state), `if`/`else`, `return`
//!   (not `throw`), expression statements and nested blocks;
//! - integer, float, boolean and `()` literals; variables;
//! - `+ - * / % **`, the six comparisons, unary `-` and `!`, `&&`, `||`;
//! - `.x`, `.y`, `.angle`, `.angular` on the value of `pose()` / `velocity()`;
//! - calls of `me`, `tick`, `frame`, `sim_time`, `fixed_dt`, `pose`,
//!   `velocity`, `rand`, `rand_range`, `set_kinematic_target`, `apply_force`,
//!   `apply_impulse`, `set_velocity`, `remove`, `pressed`, `just_pressed`,
//!   `just_released`, `held_ms`, `axis` (the input functions with a string
//!   literal), and `abs`, `sqrt`, `sin`, `cos`, `floor`, `ceiling`, unless the
//!   script defines a function with the same name.
//!
//! Anything else (loops, strings, maps, `log`, `spawn_body`, calls of the
//! script's own functions, `switch`, ...) leaves the whole function to rhai.
//! There are no loops and no script calls, so a compiled call always ends: the
//! [`MAX_OPERATIONS`](super::MAX_OPERATIONS) guard is not needed.
//!
//! # Same results as rhai, bit for bit
//!
//! The compiled path is an optimisation, never a dialect: every operation
//! computes what rhai 1.27 computes (checked integer arithmetic, mixed
//! integer/float arithmetic in f64, rhai's epsilon-relative float comparisons,
//! `powf`, the API's number conversions and finiteness checks). Whenever a
//! value is outside what this module handles (a type mismatch, an integer
//! overflow, a division by zero, a non-finite body command, an object with no
//! body, a map property that is not there, a non-scalar written to the script's
//! state), the call **bails**: it has changed nothing yet (state changes and
//! body commands are kept aside until the call ends, the random generator is a
//! copy), and the caller runs the same call on rhai, which produces rhai's own
//! result or error message. `plugins/tests/script_paths.rs` compares both
//! paths on generated expressions, and `plugins/tests/script/` compares whole
//! sessions.
//!
//! A call runs on the compiled path only when no line breakpoint is set in the
//! script (breakpoints need rhai's debugger); a session with breakpoints runs
//! the same script on rhai with the same results.

use rhai::{Dynamic, FLOAT, INT, ImmutableString};
use stepframe_core::{BodyCommand, ObjectId};

pub(crate) use super::semantics::{Arith, Math, Op};

/// A value on the compiled path, as code reads it ([`Val::view`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum V {
    Unit,
    Bool(bool),
    Int(INT),
    Float(FLOAT),
    /// The map `pose()` or `velocity()` returns: its fields are record `i`
    /// of the running call.
    Rec(Rec, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Tag {
    Unit,
    Bool,
    Int,
    Float,
    Pose,
    Velocity,
}

/// A value as it is stored and returned: a tag and 64 bits. Copy, so a
/// call's state can be set aside and put back for free when it bails. The
/// packed form (rather than the enum [`V`]) keeps every value two
/// registers wide with one layout, so results are returned in registers and
/// never copied piecewise; `view` and `from` compile to nothing but the
/// tag test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Val {
    pub(crate) tag: Tag,
    pub(crate) bits: u64,
}

impl Val {
    /// A float (a hook's `dt`).
    pub(crate) fn float(f: FLOAT) -> Val {
        V::Float(f).into()
    }

    #[inline(always)]
    pub(crate) fn view(self) -> V {
        match self.tag {
            Tag::Unit => V::Unit,
            Tag::Bool => V::Bool(self.bits != 0),
            Tag::Int => V::Int(self.bits as INT),
            Tag::Float => V::Float(FLOAT::from_bits(self.bits)),
            Tag::Pose => V::Rec(Rec::Pose, self.bits as u32),
            Tag::Velocity => V::Rec(Rec::Velocity, self.bits as u32),
        }
    }
}

impl From<V> for Val {
    #[inline(always)]
    fn from(v: V) -> Val {
        let (tag, bits) = match v {
            V::Unit => (Tag::Unit, 0),
            V::Bool(b) => (Tag::Bool, u64::from(b)),
            V::Int(i) => (Tag::Int, i as u64),
            V::Float(f) => (Tag::Float, f.to_bits()),
            V::Rec(Rec::Pose, i) => (Tag::Pose, u64::from(i)),
            V::Rec(Rec::Velocity, i) => (Tag::Velocity, u64::from(i)),
        };
        Val { tag, bits }
    }
}

/// Which map a [`V::Rec`] stands for (its field names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rec {
    /// `#{x, y, angle}`.
    Pose,
    /// `#{x, y, angular}`.
    Velocity,
}

impl Val {
    /// The value of a rhai variable, when it is a scalar with no tag (the only
    /// kind the compiled path keeps in state).
    pub(crate) fn from_dynamic(d: &Dynamic) -> Option<Val> {
        if d.tag() != 0 {
            return None;
        }
        let v = if d.is_unit() {
            V::Unit
        } else if let Ok(b) = d.as_bool() {
            V::Bool(b)
        } else if let Ok(i) = d.as_int() {
            V::Int(i)
        } else if let Ok(f) = d.as_float() {
            V::Float(f)
        } else {
            return None;
        };
        Some(v.into())
    }

    /// The rhai value rhai itself would hold (state is only ever scalar).
    pub(crate) fn to_dynamic(self) -> Dynamic {
        match self.view() {
            V::Unit => Dynamic::UNIT,
            V::Bool(b) => Dynamic::from_bool(b),
            V::Int(i) => Dynamic::from_int(i),
            V::Float(f) => Dynamic::from_float(f),
            V::Rec(..) => unreachable!("records never reach the script's state"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    X,
    Y,
    Angle,
    Angular,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Input {
    Pressed,
    JustPressed,
    JustReleased,
    HeldMs,
    Axis,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Api {
    Me,
    Tick,
    Frame,
    SimTime,
    FixedDt,
    Pose,
    Velocity,
    Rand,
    RandRange,
    KinematicTarget,
    Force,
    Impulse,
    SetVelocity,
    Remove,
    Input(Input, ImmutableString),
    Math(Math),
}

/// An expression, variables resolved to slots.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ex {
    Const(Val),
    /// The script's state variable `i`.
    State(u16),
    /// Local slot `i` (parameters first).
    Local(u16),
    Neg(Box<Ex>),
    Not(Box<Ex>),
    Bin(Op, Box<(Ex, Ex)>),
    And(Box<[Ex]>),
    Or(Box<[Ex]>),
    Field(Box<Ex>, Field),
    Call(Api, Box<[Ex]>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    State(u16),
    Local(u16),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum St {
    /// `let` or `=`.
    Set(Place, Ex),
    /// `x op= e`: `x = x op e`, which is what rhai's built-in compound
    /// assignments compute.
    OpSet(Place, Arith, Ex),
    If(Ex, Box<[St]>, Box<[St]>),
    Eval(Ex),
    Return(Option<Ex>),
}

/// One compiled hook function.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FastFn {
    pub(crate) body: Box<[St]>,
    /// Local slots (parameters first).
    pub(crate) locals: usize,
    /// Whether it draws random numbers (the generator is copied back).
    pub(crate) uses_rng: bool,
}

/// The compiled hook functions of one program, sharing one table of the
/// script's state variables they touch.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FastProgram {
    /// `start`, `update`, `flow_tick`, `fixed_update`.
    pub(crate) hooks: [Option<FastFn>; 4],
    /// Why a defined hook function did not compile (for tests and docs).
    pub(crate) rejected: Vec<(&'static str, String)>,
    /// State variable names, by state slot.
    pub(crate) state: Vec<ImmutableString>,
    /// Whether a compiled function assigns state slot `i`.
    pub(crate) written: Vec<bool>,
}

/// The hooks the compiled path can run, by index, with their arity.
pub(crate) const HOOKS: [(&str, usize); 4] = [
    ("start", 0),
    ("update", 1),
    ("flow_tick", 1),
    ("fixed_update", 1),
];

/// A body command or removal a compiled call queued, applied when it ends.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Out {
    Body(BodyCommand),
    Remove(ObjectId),
}
