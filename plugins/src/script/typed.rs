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

use std::cell::RefCell;

use rhai::{FLOAT, INT, ImmutableString};
use stepframe_core::{BodyCommand, Ctx, ObjectId, Pose, Vec2, Velocity};

use super::engine;
use super::ir::{Api, Ex, FastFn, Field, Input, Math, Op, Out, Place, St, Tag, Val};
use super::semantics::{
    Arith, Cmp, compare, finite_component, float_arith, float_math, int_arith, ordered, unit,
};

type Reg = u8;

/// Registers per call: operands are `u8`, so the register file is a
/// `[u64; 256]` and no access needs a bounds check.
const REGS: usize = 256;

/// Register 0 is always 0: the bits of `()`.
const ZERO: Reg = 0;

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
    code: Box<[Ins]>,
    /// The register of state variable 0; the others follow, so the state
    /// goes in and out in one copy each.
    state_base: usize,
    /// State variables (all of the program's, touched or not).
    state_len: usize,
    /// The constants, as the top registers hold them.
    consts: Box<[u64]>,
    /// The guard and the loads: (state variable, register, entry type).
    inputs: Box<[(usize, Reg, Tag)]>,
    /// Parameters: (register, type).
    params: Box<[(Reg, Tag)]>,
    /// Written state variables at exit: (state variable, register, type).
    outputs: Box<[(usize, Reg, Tag)]>,
    uses_rng: bool,
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

type C<T> = Result<T, String>;

/// Variable types at a point of the function (`None`: not known there).
#[derive(Clone, Debug, PartialEq)]
struct Types {
    locals: Vec<Option<Tag>>,
    state: Vec<Option<Tag>>,
}

impl Types {
    /// Where two paths meet: a type both agree on, else unknown.
    fn join(mut self, other: &Types) -> Types {
        for (a, b) in self.locals.iter_mut().zip(&other.locals) {
            if *a != *b {
                *a = None;
            }
        }
        for (a, b) in self.state.iter_mut().zip(&other.state) {
            if *a != *b {
                *a = None;
            }
        }
        self
    }
}

struct Spec {
    code: Vec<Ins>,
    regs: usize,
    /// The first temporary register (below: `()`, locals, state).
    first_temp: usize,
    locals: usize,
    /// Entry type of each state variable (of the whole program).
    entry: Vec<Tag>,
    touched: Vec<bool>,
    written: Vec<bool>,
    /// State types at each exit (returns and the end).
    exits: Vec<Vec<Option<Tag>>>,
    /// Constant `k` lives in register `REGS - 1 - k`.
    consts: Vec<u64>,
}

fn reg(i: usize) -> C<Reg> {
    Reg::try_from(i).map_err(|_| "more than 256 registers".to_string())
}

fn is_rec(t: Tag) -> bool {
    matches!(t, Tag::Pose | Tag::Velocity)
}

impl Spec {
    // Locals and state fit in registers: `specialise` checks it first.
    fn local_reg(&self, slot: u16) -> Reg {
        (1 + 3 * usize::from(slot)) as Reg
    }

    fn state_reg(&self, i: u16) -> Reg {
        (1 + 3 * self.locals + usize::from(i)) as Reg
    }

    fn temp(&mut self, n: usize) -> C<Reg> {
        let r = reg(self.regs)?;
        self.regs += n;
        reg(self.regs - 1)?;
        Ok(r)
    }

    /// When the last instruction computes temporary `r` (and nothing else
    /// reads it), makes it write `to` instead, saving a move.
    fn retarget(&mut self, r: Reg, to: Reg) -> bool {
        if usize::from(r) < self.first_temp {
            return false;
        }
        let Some(last) = self.code.last_mut() else {
            return false;
        };
        let dst = match last {
            Ins::IToF(d, _)
            | Ins::FAdd(d, ..)
            | Ins::FSub(d, ..)
            | Ins::FMul(d, ..)
            | Ins::FDiv(d, ..)
            | Ins::FRem(d, ..)
            | Ins::FPow(d, ..)
            | Ins::FCmp(_, d, ..)
            | Ins::FNeg(d, _)
            | Ins::IArith(_, d, ..)
            | Ins::ICmp(_, d, ..)
            | Ins::INeg(d, _)
            | Ins::BCmp(_, d, ..)
            | Ins::Not(d, _)
            | Ins::Pose(d)
            | Ins::Velocity(d)
            | Ins::Me(d)
            | Ins::Tick(d)
            | Ins::Frame(d)
            | Ins::SimTime(d)
            | Ins::FixedDt(d)
            | Ins::Rand(d)
            | Ins::RandRange(d, ..)
            | Ins::Input(_, _, d)
            | Ins::IAbs(d, _)
            | Ins::FMath(_, d, _) => d,
            _ => return false,
        };
        if *dst != r {
            return false;
        }
        *dst = to;
        true
    }

    /// Jumps to be patched when the condition in `c` is false; fuses the
    /// comparison that computed it when it is the last instruction.
    fn jump_if_not(&mut self, c: Reg) -> usize {
        let fused = if usize::from(c) >= self.first_temp {
            match self.code.last() {
                Some(Ins::FCmp(op, d, a, b)) if *d == c => Some(Ins::FJumpIfNot(*op, *a, *b, 0)),
                Some(Ins::ICmp(op, d, a, b)) if *d == c => Some(Ins::IJumpIfNot(*op, *a, *b, 0)),
                Some(Ins::Not(d, a)) if *d == c => Some(Ins::JumpIf(*a, 0)),
                _ => None,
            }
        } else {
            None
        };
        match fused {
            Some(ins) => *self.code.last_mut().expect("fused") = ins,
            None => self.code.push(Ins::JumpIfNot(c, 0)),
        }
        self.code.len() - 1
    }

    /// The register holding constant `bits`: constants live at the top of
    /// the register file, filled in one copy per call (no instruction each).
    fn constant(&mut self, bits: u64) -> C<Reg> {
        let k = match self.consts.iter().position(|&c| c == bits) {
            Some(k) => k,
            None => {
                self.consts.push(bits);
                self.consts.len() - 1
            }
        };
        if k + self.first_temp >= REGS {
            return Err("more than 256 registers".into());
        }
        reg(REGS - 1 - k)
    }

    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at] {
            Ins::Jump(t)
            | Ins::JumpIfNot(_, t)
            | Ins::JumpIf(_, t)
            | Ins::FJumpIfNot(.., t)
            | Ins::IJumpIfNot(.., t) => *t = target,
            _ => unreachable!("not a jump"),
        }
    }

    /// A block; `None` when every path through it returns.
    fn block(&mut self, stmts: &[St], mut ty: Types) -> C<Option<Types>> {
        for s in stmts {
            match s {
                St::Set(place, e) => {
                    let (r, t) = self.expr(e, &ty)?;
                    self.assign(*place, r, t, &mut ty)?;
                }
                St::OpSet(place, op, e) => {
                    let (rr, tr) = self.expr(e, &ty)?;
                    let (rl, tl) = self.read(*place, &ty)?;
                    let (r, t) = self.binary(Op::Arith(*op), (rl, tl), (rr, tr))?;
                    self.assign(*place, r, t, &mut ty)?;
                }
                St::If(cond, then, other) => {
                    let (rc, tc) = self.expr(cond, &ty)?;
                    if tc != Tag::Bool {
                        return Err("a condition that is not a bool".into());
                    }
                    let to_else = self.jump_if_not(rc);
                    let after_then = self.block(then, ty.clone())?;
                    // No jump over an empty `else`.
                    let to_end = (!other.is_empty()).then(|| {
                        self.code.push(Ins::Jump(0));
                        self.code.len() - 1
                    });
                    let at_else = self.here();
                    self.patch(to_else, at_else);
                    let after_else = self.block(other, ty.clone())?;
                    let end = self.here();
                    if let Some(to_end) = to_end {
                        self.patch(to_end, end);
                    }
                    ty = match (after_then, after_else) {
                        (Some(a), Some(b)) => a.join(&b),
                        (Some(a), None) | (None, Some(a)) => a,
                        (None, None) => return Ok(None),
                    };
                }
                St::Eval(e) => {
                    self.expr(e, &ty)?;
                }
                St::Return(e) => {
                    if let Some(e) = e {
                        self.expr(e, &ty)?;
                    }
                    self.exits.push(ty.state.clone());
                    self.code.push(Ins::Return);
                    return Ok(None);
                }
            }
        }
        Ok(Some(ty))
    }

    fn read(&mut self, place: Place, ty: &Types) -> C<(Reg, Tag)> {
        let (r, t) = match place {
            Place::Local(s) => (self.local_reg(s), ty.locals[usize::from(s)]),
            Place::State(i) => {
                self.touched[usize::from(i)] = true;
                (self.state_reg(i), ty.state[usize::from(i)])
            }
        };
        Ok((r, t.ok_or("a variable whose type depends on the path")?))
    }

    fn assign(&mut self, place: Place, r: Reg, t: Tag, ty: &mut Types) -> C<()> {
        match place {
            Place::Local(s) => {
                let dst = self.local_reg(s);
                let n = if is_rec(t) { 3 } else { 1 };
                if dst != r && !self.retarget(r, dst) {
                    for k in 0..n {
                        self.code.push(Ins::Mov(dst + k, r + k));
                    }
                }
                ty.locals[usize::from(s)] = Some(t);
            }
            Place::State(i) => {
                if is_rec(t) {
                    return Err("a map written to the script's state".into());
                }
                self.touched[usize::from(i)] = true;
                self.written[usize::from(i)] = true;
                let dst = self.state_reg(i);
                if dst != r && !self.retarget(r, dst) {
                    self.code.push(Ins::Mov(dst, r));
                }
                ty.state[usize::from(i)] = Some(t);
            }
        }
        Ok(())
    }

    /// A float register holding `(r, t)` as rhai's `as FLOAT` would.
    fn float(&mut self, (r, t): (Reg, Tag)) -> C<Reg> {
        match t {
            Tag::Float => Ok(r),
            Tag::Int => {
                let d = self.temp(1)?;
                self.code.push(Ins::IToF(d, r));
                Ok(d)
            }
            _ => Err("a number expected".into()),
        }
    }

    /// The instruction for `op` on operands of these types (rhai's rules:
    /// two integers stay integers, a float makes both floats, booleans only
    /// compare); what each computes is in `semantics.rs`.
    fn binary(&mut self, op: Op, a: (Reg, Tag), b: (Reg, Tag)) -> C<(Reg, Tag)> {
        let d = self.temp(1)?;
        match (op, a.1, b.1) {
            (Op::Cmp(c), Tag::Int, Tag::Int) => {
                self.code.push(Ins::ICmp(c, d, a.0, b.0));
                Ok((d, Tag::Bool))
            }
            (Op::Arith(o), Tag::Int, Tag::Int) => {
                self.code.push(Ins::IArith(o, d, a.0, b.0));
                Ok((d, Tag::Int))
            }
            (_, Tag::Int | Tag::Float, Tag::Int | Tag::Float) => {
                let (x, y) = (self.float(a)?, self.float(b)?);
                let (ins, tag) = match op {
                    Op::Arith(Arith::Add) => (Ins::FAdd(d, x, y), Tag::Float),
                    Op::Arith(Arith::Sub) => (Ins::FSub(d, x, y), Tag::Float),
                    Op::Arith(Arith::Mul) => (Ins::FMul(d, x, y), Tag::Float),
                    Op::Arith(Arith::Div) => (Ins::FDiv(d, x, y), Tag::Float),
                    Op::Arith(Arith::Rem) => (Ins::FRem(d, x, y), Tag::Float),
                    Op::Arith(Arith::Pow) => (Ins::FPow(d, x, y), Tag::Float),
                    Op::Cmp(c) => (Ins::FCmp(c, d, x, y), Tag::Bool),
                };
                self.code.push(ins);
                Ok((d, tag))
            }
            (Op::Cmp(c), Tag::Bool, Tag::Bool) => {
                self.code.push(Ins::BCmp(c, d, a.0, b.0));
                Ok((d, Tag::Bool))
            }
            _ => Err(format!("{op:?} on {:?} and {:?}", a.1, b.1)),
        }
    }

    fn expr(&mut self, e: &Ex, ty: &Types) -> C<(Reg, Tag)> {
        Ok(match e {
            Ex::Const(v) => {
                if v.tag == Tag::Unit {
                    return Ok((ZERO, Tag::Unit));
                }
                (self.constant(v.bits)?, v.tag)
            }
            Ex::State(i) => self.read(Place::State(*i), ty)?,
            Ex::Local(s) => self.read(Place::Local(*s), ty)?,
            Ex::Neg(a) => {
                let (r, t) = self.expr(a, ty)?;
                let d = self.temp(1)?;
                match t {
                    Tag::Int => self.code.push(Ins::INeg(d, r)),
                    Tag::Float => self.code.push(Ins::FNeg(d, r)),
                    _ => return Err("`-` on a non-number".into()),
                }
                (d, t)
            }
            Ex::Not(a) => {
                let (r, t) = self.expr(a, ty)?;
                if t != Tag::Bool {
                    return Err("`!` on a non-bool".into());
                }
                let d = self.temp(1)?;
                self.code.push(Ins::Not(d, r));
                (d, Tag::Bool)
            }
            Ex::Bin(op, ab) => {
                let a = self.expr(&ab.0, ty)?;
                let b = self.expr(&ab.1, ty)?;
                self.binary(*op, a, b)?
            }
            Ex::And(list) | Ex::Or(list) => {
                // d takes each operand in turn; the first false (true for
                // `||`) jumps to the end with it, as rhai stops there.
                let and = matches!(e, Ex::And(_));
                let d = self.temp(1)?;
                let mut jumps = Vec::new();
                for operand in list.iter() {
                    let (r, t) = self.expr(operand, ty)?;
                    if t != Tag::Bool {
                        return Err("`&&`/`||` on a non-bool".into());
                    }
                    self.code.push(Ins::Mov(d, r));
                    jumps.push(self.code.len());
                    self.code.push(if and {
                        Ins::JumpIfNot(d, 0)
                    } else {
                        Ins::JumpIf(d, 0)
                    });
                }
                let end = self.here();
                for j in jumps {
                    self.patch(j, end);
                }
                (d, Tag::Bool)
            }
            Ex::Field(a, field) => {
                let (r, t) = self.expr(a, ty)?;
                let k = match (t, field) {
                    (Tag::Pose | Tag::Velocity, Field::X) => 0,
                    (Tag::Pose | Tag::Velocity, Field::Y) => 1,
                    (Tag::Pose, Field::Angle) | (Tag::Velocity, Field::Angular) => 2,
                    _ => return Err(format!("{field:?} of a {t:?}")),
                };
                (r + k, Tag::Float)
            }
            Ex::Call(api, args) => self.call(api, args, ty)?,
        })
    }

    fn call(&mut self, api: &Api, args: &[Ex], ty: &Types) -> C<(Reg, Tag)> {
        let mut a = Vec::with_capacity(args.len());
        for e in args {
            a.push(self.expr(e, ty)?);
        }
        let unit = (ZERO, Tag::Unit);
        let out = |s: &mut Spec, make: fn(Reg) -> Ins, t: Tag| -> C<(Reg, Tag)> {
            let n = if is_rec(t) { 3 } else { 1 };
            let d = s.temp(n)?;
            s.code.push(make(d));
            Ok((d, t))
        };
        Ok(match api {
            Api::Me => out(self, Ins::Me, Tag::Int)?,
            Api::Tick => out(self, Ins::Tick, Tag::Int)?,
            Api::Frame => out(self, Ins::Frame, Tag::Int)?,
            Api::SimTime => out(self, Ins::SimTime, Tag::Float)?,
            Api::FixedDt => out(self, Ins::FixedDt, Tag::Float)?,
            Api::Pose => out(self, Ins::Pose, Tag::Pose)?,
            Api::Velocity => out(self, Ins::Velocity, Tag::Velocity)?,
            Api::Rand => out(self, Ins::Rand, Tag::Float)?,
            Api::RandRange => {
                let (lo, hi) = (self.float(a[0])?, self.float(a[1])?);
                let d = self.temp(1)?;
                self.code.push(Ins::RandRange(d, lo, hi));
                (d, Tag::Float)
            }
            Api::KinematicTarget => {
                let (x, y, r) = (self.float(a[0])?, self.float(a[1])?, self.float(a[2])?);
                self.code.push(Ins::KinematicTarget(x, y, r, false));
                unit
            }
            Api::Force | Api::Impulse | Api::SetVelocity => {
                let (x, y) = (self.float(a[0])?, self.float(a[1])?);
                self.code.push(match api {
                    Api::Force => Ins::Force(x, y, false),
                    Api::Impulse => Ins::Impulse(x, y, false),
                    _ => Ins::SetVelocity(x, y, false),
                });
                unit
            }
            Api::Remove => {
                if a[0].1 != Tag::Int {
                    return Err("`remove` of a non-integer".into());
                }
                self.code.push(Ins::Remove(a[0].0, false));
                unit
            }
            Api::Input(kind, action) => {
                let d = self.temp(1)?;
                self.code.push(Ins::Input(*kind, action.clone(), d));
                let t = match kind {
                    Input::Pressed | Input::JustPressed | Input::JustReleased => Tag::Bool,
                    Input::HeldMs | Input::Axis => Tag::Float,
                };
                (d, t)
            }
            Api::Math(m) => {
                let d = self.temp(1)?;
                match (m, a[0].1) {
                    (Math::Abs, Tag::Int) => {
                        self.code.push(Ins::IAbs(d, a[0].0));
                        (d, Tag::Int)
                    }
                    (_, Tag::Float) => {
                        self.code.push(Ins::FMath(*m, d, a[0].0));
                        (d, Tag::Float)
                    }
                    (m, t) => return Err(format!("{m:?} of a {t:?}")),
                }
            }
        })
    }
}

/// Specialises `f` for the state types `state` (the tags of the script's
/// state slots) and the argument types `args`; the reason when it cannot.
pub(crate) fn specialise(f: &FastFn, state: &[Tag], args: &[Tag]) -> C<Typed> {
    let fixed = 1 + 3 * f.locals + state.len();
    if fixed > REGS {
        return Err("more than 256 registers".into());
    }
    let mut spec = Spec {
        code: Vec::new(),
        regs: fixed,
        first_temp: fixed,
        locals: f.locals,
        entry: state.to_vec(),
        touched: vec![false; state.len()],
        written: vec![false; state.len()],
        exits: Vec::new(),
        consts: Vec::new(),
    };
    let mut locals = vec![None; f.locals];
    for (slot, t) in locals.iter_mut().zip(args) {
        *slot = Some(*t);
    }
    let ty = Types {
        locals,
        state: state.iter().map(|t| Some(*t)).collect(),
    };
    if let Some(end) = spec.block(&f.body, ty)? {
        spec.exits.push(end.state);
    }
    let mut outputs = Vec::new();
    for (i, written) in spec.written.iter().enumerate() {
        if !written {
            continue;
        }
        let mut types = spec.exits.iter().map(|e| e[i]);
        let first = types.next().flatten();
        match first {
            Some(t) if types.all(|o| o == Some(t)) => {
                outputs.push((i, spec.state_reg(i as u16), t));
            }
            _ => return Err("a state variable whose type at exit depends on the path".into()),
        }
    }
    let inputs = (0..state.len())
        .filter(|&i| spec.touched[i])
        .map(|i| Ok((i, spec.state_reg(i as u16), spec.entry[i])))
        .collect::<C<_>>()?;
    let params = args
        .iter()
        .enumerate()
        .map(|(s, t)| (spec.local_reg(s as u16), *t))
        .collect();
    if spec.regs + spec.consts.len() > REGS {
        return Err("more than 256 registers".into());
    }
    let mut code = spec.code;
    mark_direct(&mut code);
    let consts: Box<[u64]> = spec.consts.iter().rev().copied().collect();
    let stable = outputs
        .iter()
        .all(|&(i, _, t)| !spec.touched[i] || spec.entry[i] == t);
    Ok(Typed {
        stable,
        code: code.into_boxed_slice(),
        state_base: 1 + 3 * f.locals,
        consts,
        state_len: state.len(),
        inputs,
        params,
        outputs: outputs.into_boxed_slice(),
        uses_rng: f.uses_rng,
    })
}

/// Whether an instruction can bail at run time. Exhaustive on purpose: a new
/// instruction must say whether it can bail, since one wrongly marked `false`
/// would let a command before it reach the world ahead of a bail, and the
/// call would then differ from rhai's.
fn can_bail(ins: &Ins) -> bool {
    match ins {
        // Checked integer arithmetic: overflow, division by zero.
        Ins::IArith(..) | Ins::INeg(..) | Ins::IAbs(..) => true,
        // No body: rhai's `pose()` is an empty map.
        Ins::Pose(_) => true,
        // Non-finite components; a negative id.
        Ins::KinematicTarget(..)
        | Ins::Force(..)
        | Ins::Impulse(..)
        | Ins::SetVelocity(..)
        | Ins::Remove(..) => true,
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
        | Ins::Velocity(_)
        | Ins::Me(_)
        | Ins::Tick(_)
        | Ins::Frame(_)
        | Ins::SimTime(_)
        | Ins::FixedDt(_)
        | Ins::Rand(_)
        | Ins::RandRange(..)
        | Ins::Input(..)
        | Ins::FMath(..) => false,
    }
}

/// Whether an instruction reads the object's body from the world: a removal
/// applied before it would change what it reads (rhai reads the state from
/// before the call). Exhaustive for the same reason as [`can_bail`].
fn reads_body(ins: &Ins) -> bool {
    match ins {
        // `SetVelocity` keeps the body's angular velocity.
        Ins::Pose(_) | Ins::Velocity(_) | Ins::SetVelocity(..) => true,
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
        | Ins::IArith(..)
        | Ins::ICmp(..)
        | Ins::INeg(..)
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
        | Ins::KinematicTarget(..)
        | Ins::Force(..)
        | Ins::Impulse(..)
        | Ins::Remove(..)
        | Ins::Input(..)
        | Ins::IAbs(..)
        | Ins::FMath(..) => false,
    }
}

/// Marks the commands after which nothing can bail or read the body: they
/// need not wait in the buffer. Jumps only go forward (there are no loops), so
/// what can run after an instruction is further down the code.
fn mark_direct(code: &mut [Ins]) {
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
        must_wait |= can_bail(ins) || reads_body(ins);
    }
}

impl Typed {
    /// Whether the state has the entry types this code was specialised for.
    pub(crate) fn fits(&self, tags: &[Tag]) -> bool {
        tags.len() == self.state_len && self.inputs.iter().all(|&(i, _, t)| tags[i] == t)
    }
}

thread_local! {
    /// The register file, one per thread for every script: it stays in the
    /// L1 cache however many scripted objects there are (no call runs inside
    /// another, so one is enough). Safe outside the session: [`run`] loads
    /// register 0, the state, the parameters and the constants at the start
    /// of every call, and the lowering writes every other register before it
    /// reads it, so no value crosses from one call (or session) to the next.
    static REGISTERS: RefCell<[u64; REGS]> = const { RefCell::new([0; REGS]) };
}

/// Runs specialised code (see module docs); the caller has checked
/// [`Typed::fits`]. On `Ok`, `state` has the new values, the commands have
/// been applied (or wait in `out` for the caller to apply), and the
/// session generator has the draws; otherwise nothing has changed (`out` is
/// the caller's to clear).
pub(crate) fn run(
    t: &Typed,
    ctx: &mut Ctx,
    args: &[Val],
    tags: &mut [Tag],
    bits: &mut [u64],
    out: &mut Vec<Out>,
) -> Result<(), Exit> {
    if t.params.iter().zip(args).any(|(p, a)| p.1 != a.tag) {
        return Err(Exit::Miss);
    }
    REGISTERS.with_borrow_mut(|regs| {
        let state = t.state_base..t.state_base + t.state_len;
        regs[0] = 0;
        regs[state.clone()].copy_from_slice(bits);
        regs[REGS - t.consts.len()..].copy_from_slice(&t.consts);
        for (&(r, _), a) in t.params.iter().zip(args) {
            regs[usize::from(r)] = a.bits;
        }
        let me = ctx.me();
        let mut rng = *ctx.rng();
        exec(t, ctx, me, &mut rng, regs, out)?;
        // Untouched variables go back as they came.
        bits.copy_from_slice(&regs[state]);
        if !t.stable {
            for &(i, _, tag) in t.outputs.iter() {
                tags[i] = tag;
            }
        }
        if t.uses_rng {
            *ctx.rng() = rng;
        }
        Ok(())
    })
}

/// Queues a command, or applies it (after what is queued) when nothing after
/// it can bail.
fn emit(ctx: &mut Ctx, out: &mut Vec<Out>, command: Out, direct: bool) {
    if direct {
        engine::commit_fast(ctx, out);
        engine::apply_out(ctx, command);
    } else {
        out.push(command);
    }
}

fn exec(
    t: &Typed,
    ctx: &mut Ctx,
    me: ObjectId,
    rng: &mut stepframe_core::Rng,
    r: &mut [u64; REGS],
    out: &mut Vec<Out>,
) -> Result<(), Exit> {
    macro_rules! f {
        ($i:expr) => {
            FLOAT::from_bits(r[usize::from(*$i)])
        };
    }
    macro_rules! int {
        ($i:expr) => {
            r[usize::from(*$i)] as INT
        };
    }
    macro_rules! set {
        ($d:expr, $v:expr) => {{
            let v = $v;
            r[usize::from(*$d)] = v;
        }};
    }
    let finite = |bits: u64| finite_component(FLOAT::from_bits(bits)).ok_or(Exit::Bail);
    let code = &t.code[..];
    let mut pc = 0usize;
    while let Some(ins) = code.get(pc) {
        pc += 1;
        match ins {
            Ins::Mov(d, a) => set!(d, r[usize::from(*a)]),
            Ins::IToF(d, a) => set!(d, (int!(a) as FLOAT).to_bits()),
            Ins::FAdd(d, a, b) => set!(d, (f!(a) + f!(b)).to_bits()),
            Ins::FSub(d, a, b) => set!(d, (f!(a) - f!(b)).to_bits()),
            Ins::FMul(d, a, b) => set!(d, (f!(a) * f!(b)).to_bits()),
            Ins::FDiv(d, a, b) => set!(d, (f!(a) / f!(b)).to_bits()),
            Ins::FRem(d, a, b) => set!(d, float_arith(Arith::Rem, f!(a), f!(b)).to_bits()),
            Ins::FPow(d, a, b) => set!(d, float_arith(Arith::Pow, f!(a), f!(b)).to_bits()),
            Ins::FCmp(op, d, a, b) => set!(d, u64::from(compare(*op, f!(a), f!(b)))),
            Ins::FNeg(d, a) => set!(d, (-f!(a)).to_bits()),
            Ins::IArith(op, d, a, b) => {
                let v = int_arith(*op, int!(a), int!(b)).ok_or(Exit::Bail)?;
                set!(d, v as u64);
            }
            Ins::ICmp(op, d, a, b) => set!(d, u64::from(ordered(*op, int!(a), int!(b)))),
            Ins::INeg(d, a) => set!(d, int!(a).checked_neg().ok_or(Exit::Bail)? as u64),
            Ins::BCmp(op, d, a, b) => {
                let (x, y) = (r[usize::from(*a)] != 0, r[usize::from(*b)] != 0);
                set!(d, u64::from(ordered(*op, x, y)));
            }
            Ins::Not(d, a) => set!(d, u64::from(r[usize::from(*a)] == 0)),
            Ins::Jump(to) => pc = *to as usize,
            Ins::JumpIfNot(c, to) => {
                if r[usize::from(*c)] == 0 {
                    pc = *to as usize;
                }
            }
            Ins::JumpIf(c, to) => {
                if r[usize::from(*c)] != 0 {
                    pc = *to as usize;
                }
            }
            Ins::FJumpIfNot(op, a, b, to) => {
                if !compare(*op, f!(a), f!(b)) {
                    pc = *to as usize;
                }
            }
            Ins::IJumpIfNot(op, a, b, to) => {
                if !ordered(*op, int!(a), int!(b)) {
                    pc = *to as usize;
                }
            }
            Ins::Return => return Ok(()),
            Ins::Pose(d) => {
                let p = ctx.physics_simulation_pose(me).ok_or(Exit::Bail)?;
                let d = usize::from(*d);
                r[d] = FLOAT::from(p.x).to_bits();
                r[(d + 1) % REGS] = FLOAT::from(p.y).to_bits();
                r[(d + 2) % REGS] = FLOAT::from(p.angle).to_bits();
            }
            Ins::Velocity(d) => {
                let v = ctx.velocity(me).unwrap_or_default();
                let d = usize::from(*d);
                r[d] = FLOAT::from(v.linear.x).to_bits();
                r[(d + 1) % REGS] = FLOAT::from(v.linear.y).to_bits();
                r[(d + 2) % REGS] = FLOAT::from(v.angular).to_bits();
            }
            Ins::Me(d) => set!(d, me.0 as INT as u64),
            Ins::Tick(d) => set!(d, ctx.clock().simulation_tick as INT as u64),
            Ins::Frame(d) => set!(d, ctx.clock().frame_index as INT as u64),
            Ins::SimTime(d) => set!(d, ctx.clock().simulation_time.to_bits()),
            Ins::FixedDt(d) => set!(d, ctx.clock().fixed_delta_time.to_bits()),
            Ins::Rand(d) => set!(d, unit(rng).to_bits()),
            Ins::RandRange(d, lo, hi) => {
                let (lo, hi) = (f!(lo), f!(hi));
                set!(d, (lo + (hi - lo) * unit(rng)).to_bits());
            }
            Ins::KinematicTarget(x, y, a, direct) => {
                let pose = Pose::new(
                    finite(r[usize::from(*x)])?,
                    finite(r[usize::from(*y)])?,
                    finite(r[usize::from(*a)])?,
                );
                let command = Out::Body(BodyCommand::KinematicTarget { target: me, pose });
                emit(ctx, out, command, *direct);
            }
            Ins::Force(x, y, direct) => {
                let force = Vec2::new(finite(r[usize::from(*x)])?, finite(r[usize::from(*y)])?);
                let command = Out::Body(BodyCommand::Force { target: me, force });
                emit(ctx, out, command, *direct);
            }
            Ins::Impulse(x, y, direct) => {
                let impulse = Vec2::new(finite(r[usize::from(*x)])?, finite(r[usize::from(*y)])?);
                let command = Out::Body(BodyCommand::Impulse {
                    target: me,
                    impulse,
                });
                emit(ctx, out, command, *direct);
            }
            Ins::SetVelocity(x, y, direct) => {
                let linear = Vec2::new(finite(r[usize::from(*x)])?, finite(r[usize::from(*y)])?);
                let angular = ctx.velocity(me).map_or(0.0, |v| v.angular);
                let velocity = Velocity { linear, angular };
                let command = Out::Body(BodyCommand::SetVelocity {
                    target: me,
                    velocity,
                });
                emit(ctx, out, command, *direct);
            }
            Ins::Remove(a, direct) => {
                let id = u64::try_from(int!(a)).map_err(|_| Exit::Bail)?;
                emit(ctx, out, Out::Remove(ObjectId(id)), *direct);
            }
            Ins::Input(kind, action, d) => {
                let input = ctx.input();
                set!(
                    d,
                    match kind {
                        Input::Pressed => u64::from(input.pressed(action)),
                        Input::JustPressed => u64::from(input.just_pressed(action)),
                        Input::JustReleased => u64::from(input.just_released(action)),
                        Input::HeldMs => input.held_ms(action).to_bits(),
                        Input::Axis => FLOAT::from(input.value(action)).to_bits(),
                    }
                );
            }
            Ins::IAbs(d, a) => set!(d, int!(a).checked_abs().ok_or(Exit::Bail)? as u64),
            Ins::FMath(m, d, a) => set!(d, float_math(*m, f!(a)).to_bits()),
        }
    }
    Ok(())
}
