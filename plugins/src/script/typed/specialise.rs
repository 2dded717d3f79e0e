//! Specialisation: a [`FastFn`] typed for the entry types of the state
//! variables it touches and the argument types, emitted as register code
//! (see the parent module's docs, "Specialisation and guard").

use super::super::ir::{Api, Ex, FastFn, Field, Input, Math, Op, Place, St, Tag};
use super::super::semantics::Arith;
use super::{Ins, REGS, Reg, Typed, ZERO, mark_direct};

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
