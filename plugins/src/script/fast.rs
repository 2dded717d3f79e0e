//! The compiled path: hook functions in a numeric subset of rhai, lowered to a
//! small typed tree that runs straight against the hook's [`Ctx`].
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
//! result or error message. `plugins/src/script/fast.rs` tests compare both
//! paths on generated expressions, and `plugins/tests/script.rs` compares whole
//! sessions.
//!
//! A call runs on the compiled path only when no line breakpoint is set in the
//! script (breakpoints need rhai's debugger); a session with breakpoints runs
//! the same script on rhai with the same results.

use rhai::{
    AST, ASTFlags, ASTNode, Dynamic, Expr, FLOAT, FnCallExpr, INT, ImmutableString, Position, Stmt,
    StmtBlock, Token,
};
use stepframe_core::{BodyCommand, Ctx, ObjectId, Pose, Rng, Vec2, Velocity};

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

/// The call cannot be finished here; rhai must run it (see module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bail;

type R<T> = Result<T, Bail>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    fn from_token(t: &Token) -> Option<Op> {
        Some(match t {
            Token::Plus => Op::Add,
            Token::Minus => Op::Sub,
            Token::Multiply => Op::Mul,
            Token::Divide => Op::Div,
            Token::Modulo => Op::Rem,
            Token::PowerOf => Op::Pow,
            Token::EqualsTo => Op::Eq,
            Token::NotEqualsTo => Op::Ne,
            Token::LessThan => Op::Lt,
            Token::LessThanEqualsTo => Op::Le,
            Token::GreaterThan => Op::Gt,
            Token::GreaterThanEqualsTo => Op::Ge,
            _ => return None,
        })
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
pub(crate) enum Math {
    Abs,
    Sqrt,
    Sin,
    Cos,
    Floor,
    Ceil,
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
    OpSet(Place, Op, Ex),
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

/// A source position as (line, column), for span tests.
fn at(p: Position) -> Option<(usize, usize)> {
    Some((p.line()?, p.position().unwrap_or(0)))
}

/// The top-level statements of each script function's body, in
/// `iter_fn_def` order.
///
/// rhai does not export the type of a function body, only `AST::walk`, which
/// visits the script's own top-level statements and then each function's, in
/// that order. A statement belongs to the function whose body span holds its
/// position. Every statement must land in exactly one function, or `None`:
/// nothing compiles, and rhai runs everything.
fn function_bodies(ast: &AST) -> Option<Vec<Vec<Stmt>>> {
    let spans: Vec<((usize, usize), (usize, usize))> = ast
        .iter_fn_def()
        .map(|f| Some((at(f.body.start_position())?, at(f.body.end_position())?)))
        .collect::<Option<_>>()?;
    let mut bodies = vec![Vec::new(); spans.len()];
    let main = ast.statements().len();
    let (mut seen, mut lost) = (0usize, false);
    ast.walk(&mut |path: &[ASTNode]| {
        let [ASTNode::Stmt(stmt)] = path else {
            return true;
        };
        seen += 1;
        if seen <= main {
            return true;
        }
        let owner = at(stmt.position()).and_then(|p| {
            let mut hits = spans
                .iter()
                .enumerate()
                .filter(|(_, (a, b))| *a <= p && p <= *b);
            match (hits.next(), hits.next()) {
                (Some((k, _)), None) => Some(k),
                _ => None,
            }
        });
        match owner {
            Some(k) => bodies[k].push((*stmt).clone()),
            None => lost = true,
        }
        !lost
    });
    (!lost).then_some(bodies)
}

/// Compiles every hook function of `ast` that is in the subset.
pub(crate) fn compile(ast: &AST) -> FastProgram {
    let mut program = FastProgram::default();
    let defs: Vec<(ImmutableString, Vec<ImmutableString>)> = ast
        .iter_fn_def()
        .map(|f| (f.name.clone(), f.params.iter().cloned().collect()))
        .collect();
    let Some(bodies) = function_bodies(ast) else {
        program
            .rejected
            .push(("*", "statements could not be matched to functions".into()));
        return program;
    };
    let script_fns: Vec<(ImmutableString, usize)> =
        defs.iter().map(|(n, p)| (n.clone(), p.len())).collect();
    for (i, (name, arity)) in HOOKS.iter().enumerate() {
        let Some(k) = defs
            .iter()
            .position(|(n, p)| n == name && p.len() == *arity)
        else {
            continue;
        };
        let params = &defs[k].1;
        // A function that fails must not leave its state names behind.
        let (state, written) = (program.state.len(), program.written.len());
        let mut c = Compiler {
            script_fns: &script_fns,
            state: &mut program.state,
            written: &mut program.written,
            locals: params
                .iter()
                .enumerate()
                .map(|(s, p)| (p.clone(), s as u16, false))
                .collect(),
            slots: params.len(),
            uses_rng: false,
        };
        match c.stmts(&bodies[k]) {
            Ok(body) => {
                let (locals, uses_rng) = (c.slots, c.uses_rng);
                program.hooks[i] = Some(FastFn {
                    body,
                    locals,
                    uses_rng,
                });
            }
            Err(why) => {
                program.state.truncate(state);
                program.written.truncate(written);
                program.rejected.push((name, why));
            }
        }
    }
    program
}

/// `line N: what`, for a reason a function stays on rhai.
fn at_line(pos: Position, what: &str) -> String {
    match pos.line() {
        // The innermost place that knew its line said it already.
        Some(_) if what.starts_with("line ") => what.to_string(),
        Some(line) => format!("line {line}: {what}"),
        None => what.to_string(),
    }
}

/// What a statement outside the subset is, in a script writer's words.
fn statement_kind(stmt: &Stmt) -> &'static str {
    match stmt {
        Stmt::While(..) | Stmt::Do(..) | Stmt::For(..) => "a loop",
        Stmt::Switch(..) => "a switch",
        Stmt::TryCatch(..) => "try/catch",
        Stmt::BreakLoop(..) => "break/continue",
        _ => "a statement outside the compiled subset",
    }
}

/// What an expression outside the subset is, in a script writer's words.
fn expression_kind(expr: &Expr) -> &'static str {
    match expr {
        Expr::StringConstant(..) | Expr::InterpolatedString(..) | Expr::CharConstant(..) => {
            "text (strings)"
        }
        Expr::Array(..) => "an array",
        Expr::Map(..) => "an object map",
        Expr::Index(..) => "indexing",
        Expr::MethodCall(..) => "a method call",
        Expr::Stmt(..) => "a block expression",
        Expr::Coalesce(..) => "`??`",
        _ => "an expression outside the compiled subset",
    }
}

struct Compiler<'a> {
    script_fns: &'a [(ImmutableString, usize)],
    state: &'a mut Vec<ImmutableString>,
    written: &'a mut Vec<bool>,
    /// Visible locals, innermost last: (name, slot, constant).
    locals: Vec<(ImmutableString, u16, bool)>,
    /// Slots allocated so far. A slot is never reused: there are no loops, so
    /// each `let` runs at most once per call.
    slots: usize,
    uses_rng: bool,
}

type C<T> = Result<T, String>;

fn slot(i: usize) -> C<u16> {
    u16::try_from(i).map_err(|_| "too many variables".to_string())
}

impl Compiler<'_> {
    /// Where a name resolves: the innermost visible local, else the script's
    /// state. (rhai searches the call's scope from the end; the state is
    /// below the parameters and the locals.) Returns the place and whether it
    /// is a constant.
    fn resolve(&mut self, name: &ImmutableString) -> C<(Place, bool)> {
        if let Some((_, slot, constant)) = self.locals.iter().rev().find(|(n, ..)| n == name) {
            return Ok((Place::Local(*slot), *constant));
        }
        let i = match self.state.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.state.push(name.clone());
                self.written.push(false);
                self.state.len() - 1
            }
        };
        Ok((Place::State(slot(i)?), false))
    }

    fn block(&mut self, block: &StmtBlock) -> C<Box<[St]>> {
        self.stmts(block.statements())
    }

    /// A block: its `let`s are gone at its end, as rhai rewinds the scope.
    fn stmts(&mut self, stmts: &[Stmt]) -> C<Box<[St]>> {
        let visible = self.locals.len();
        let out = stmts
            .iter()
            .filter(|s| !s.is_noop())
            .map(|s| self.stmt(s))
            .collect::<C<Vec<St>>>();
        self.locals.truncate(visible);
        Ok(out?.into_boxed_slice())
    }

    fn stmt(&mut self, stmt: &Stmt) -> C<St> {
        Ok(match stmt {
            Stmt::Var(x, flags, _) => {
                let (ident, value, _) = &**x;
                if flags.contains(ASTFlags::EXPORTED) {
                    return Err("export".into());
                }
                // The value is evaluated before the new variable exists.
                let value = self.expr(value)?;
                let s = slot(self.slots)?;
                self.slots += 1;
                let constant = flags.contains(ASTFlags::CONSTANT);
                self.locals.push((ident.name.clone(), s, constant));
                St::Set(Place::Local(s), value)
            }
            Stmt::Assignment(x) => {
                let (op, bin) = &**x;
                let Expr::Variable(v, _, _) = &bin.lhs else {
                    return Err("assignment to something other than a variable".into());
                };
                if !v.2.is_empty() {
                    return Err("namespaced variable".into());
                }
                let value = self.expr(&bin.rhs)?;
                let (place, constant) = self.resolve(&v.1)?;
                if constant {
                    return Err("assignment to a constant".into());
                }
                if let Place::State(i) = place {
                    self.written[usize::from(i)] = true;
                }
                match op.get_op_assignment_info() {
                    None => St::Set(place, value),
                    Some((.., token, _)) => {
                        let op = Op::from_token(token)
                            .filter(|o| {
                                matches!(
                                    o,
                                    Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem | Op::Pow
                                )
                            })
                            .ok_or_else(|| format!("operator {token:?}="))?;
                        St::OpSet(place, op, value)
                    }
                }
            }
            Stmt::If(x, _) => {
                let cond = self.expr(&x.expr)?;
                let then = self.block(&x.body)?;
                let other = self.block(&x.branch)?;
                St::If(cond, then, other)
            }
            Stmt::Block(b) => St::If(
                Ex::Const(V::Bool(true).into()),
                self.block(b)?,
                Box::new([]),
            ),
            Stmt::Expr(e) => St::Eval(self.expr(e)?),
            Stmt::FnCall(call, pos) => St::Eval(self.call(call).map_err(|e| at_line(*pos, &e))?),
            Stmt::Return(value, flags, _) => {
                if !flags.is_empty() {
                    return Err("throw".into());
                }
                St::Return(value.as_deref().map(|e| self.expr(e)).transpose()?)
            }
            other => return Err(at_line(other.position(), statement_kind(other))),
        })
    }

    fn expr(&mut self, expr: &Expr) -> C<Ex> {
        Ok(match expr {
            Expr::Unit(_) => Ex::Const(V::Unit.into()),
            Expr::BoolConstant(b, _) => Ex::Const(V::Bool(*b).into()),
            Expr::IntegerConstant(i, _) => Ex::Const(V::Int(*i).into()),
            Expr::FloatConstant(f, _) => Ex::Const(V::Float(**f).into()),
            Expr::DynamicConstant(d, _) => {
                Ex::Const(Val::from_dynamic(d).ok_or("a non-scalar constant")?)
            }
            Expr::Variable(v, _, _) => {
                if !v.2.is_empty() {
                    return Err("namespaced variable".into());
                }
                match self.resolve(&v.1)?.0 {
                    Place::State(i) => Ex::State(i),
                    Place::Local(i) => Ex::Local(i),
                }
            }
            Expr::And(list, _) => Ex::And(list.iter().map(|e| self.expr(e)).collect::<C<_>>()?),
            Expr::Or(list, _) => Ex::Or(list.iter().map(|e| self.expr(e)).collect::<C<_>>()?),
            Expr::FnCall(call, pos) => self.call(call).map_err(|e| at_line(*pos, &e))?,
            Expr::Dot(bin, flags, _) => {
                if !flags.is_empty() {
                    return Err("`?.`".into());
                }
                let Expr::Property(p, _) = &bin.rhs else {
                    return Err("a method call or nested property".into());
                };
                let field = match p.2.as_str() {
                    "x" => Field::X,
                    "y" => Field::Y,
                    "angle" => Field::Angle,
                    "angular" => Field::Angular,
                    other => return Err(format!("property `{other}`")),
                };
                Ex::Field(Box::new(self.expr(&bin.lhs)?), field)
            }
            other => {
                return Err(at_line(other.start_position(), expression_kind(other)));
            }
        })
    }

    fn call(&mut self, call: &FnCallExpr) -> C<Ex> {
        if call.is_qualified() || call.capture_parent_scope {
            return Err(format!("call of `{}`", call.name));
        }
        let args = &call.args;
        if let Some(token) = &call.op_token {
            return match (token, args.len()) {
                (Token::Minus | Token::UnaryMinus, 1) => {
                    Ok(Ex::Neg(Box::new(self.expr(&args[0])?)))
                }
                (Token::Bang, 1) => Ok(Ex::Not(Box::new(self.expr(&args[0])?))),
                (t, 2) => {
                    let op = Op::from_token(t).ok_or_else(|| format!("operator {t:?}"))?;
                    let (a, b) = (self.expr(&args[0])?, self.expr(&args[1])?);
                    Ok(Ex::Bin(op, Box::new((a, b))))
                }
                (t, _) => Err(format!("operator {t:?}")),
            };
        }
        let name = call.name.as_str();
        if self
            .script_fns
            .iter()
            .any(|(n, arity)| n == name && *arity == args.len())
        {
            return Err(format!("call of the script's own `{name}`"));
        }
        let input = |kind| -> C<Api> {
            match args.first() {
                Some(Expr::StringConstant(s, _)) if args.len() == 1 => {
                    Ok(Api::Input(kind, s.clone()))
                }
                _ => Err(format!("`{name}` without one string literal")),
            }
        };
        let (api, arity) = match name {
            "me" => (Api::Me, 0),
            "tick" => (Api::Tick, 0),
            "frame" => (Api::Frame, 0),
            "sim_time" => (Api::SimTime, 0),
            "fixed_dt" => (Api::FixedDt, 0),
            "pose" => (Api::Pose, 0),
            "velocity" => (Api::Velocity, 0),
            "rand" => (Api::Rand, 0),
            "rand_range" => (Api::RandRange, 2),
            "set_kinematic_target" => (Api::KinematicTarget, 3),
            "apply_force" => (Api::Force, 2),
            "apply_impulse" => (Api::Impulse, 2),
            "set_velocity" => (Api::SetVelocity, 2),
            "remove" => (Api::Remove, 1),
            "pressed" => return input(Input::Pressed).map(|a| Ex::Call(a, Box::new([]))),
            "just_pressed" => {
                return input(Input::JustPressed).map(|a| Ex::Call(a, Box::new([])));
            }
            "just_released" => {
                return input(Input::JustReleased).map(|a| Ex::Call(a, Box::new([])));
            }
            "held_ms" => return input(Input::HeldMs).map(|a| Ex::Call(a, Box::new([]))),
            "axis" => return input(Input::Axis).map(|a| Ex::Call(a, Box::new([]))),
            "abs" => (Api::Math(Math::Abs), 1),
            "sqrt" => (Api::Math(Math::Sqrt), 1),
            "sin" => (Api::Math(Math::Sin), 1),
            "cos" => (Api::Math(Math::Cos), 1),
            "floor" => (Api::Math(Math::Floor), 1),
            "ceiling" => (Api::Math(Math::Ceil), 1),
            _ => return Err(format!("`{name}()`, not in the compiled subset")),
        };
        if args.len() != arity {
            return Err(format!("`{name}` with {} arguments", args.len()));
        }
        if matches!(api, Api::Rand | Api::RandRange) {
            self.uses_rng = true;
        }
        let args = args.iter().map(|e| self.expr(e)).collect::<C<_>>()?;
        Ok(Ex::Call(api, args))
    }
}

/// A body command or removal a compiled call queued, applied when it ends.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Out {
    Body(BodyCommand),
    Remove(ObjectId),
}

/// What a running compiled call works on.
struct Env<'a, 'c> {
    ctx: &'a mut Ctx<'c>,
    me: ObjectId,
    rng: Rng,
    state: &'a mut [Val],
    locals: &'a mut [Val],
    out: &'a mut Vec<Out>,
    recs: &'a mut Vec<[FLOAT; 3]>,
}

impl Env<'_, '_> {
    fn record(&mut self, kind: Rec, fields: [FLOAT; 3]) -> V {
        self.recs.push(fields);
        V::Rec(kind, (self.recs.len() - 1) as u32)
    }
}

enum Flow {
    Next,
    Return,
}

/// Runs `f` with `args` against `state` (the script's state slots, in the
/// order of [`FastProgram::state`]). On success the state holds the new
/// values, `out` the commands to apply, and the session's generator has the
/// draws; on [`Bail`] the state and the generator are as they were (`out` is
/// the caller's to clear). `locals` and `backup` are scratch space.
pub(crate) fn run(
    f: &FastFn,
    ctx: &mut Ctx,
    args: &[Val],
    state: &mut [Val],
    scratch: &mut Scratch,
) -> Result<(), Bail> {
    let Scratch {
        locals,
        backup,
        out,
        recs,
        ..
    } = scratch;
    recs.clear();
    locals.clear();
    locals.extend_from_slice(args);
    locals.resize(f.locals, V::Unit.into());
    backup.clear();
    backup.extend_from_slice(state);
    let me = ctx.me();
    let rng = *ctx.rng();
    let mut env = Env {
        ctx,
        me,
        rng,
        state,
        locals,
        out,
        recs,
    };
    match exec(&f.body, &mut env) {
        Ok(_) => {
            if f.uses_rng {
                *env.ctx.rng() = env.rng;
            }
            Ok(())
        }
        Err(Bail) => {
            env.state.copy_from_slice(backup);
            Err(Bail)
        }
    }
}

/// Buffers a compiled call reuses (kept by the behaviour so a call does not
/// allocate). Empty between calls, so a copy (a snapshot of the behaviour)
/// starts empty rather than copying buffers.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    locals: Vec<Val>,
    backup: Vec<Val>,
    recs: Vec<[FLOAT; 3]>,
    /// The commands of the last call, in call order.
    pub(crate) out: Vec<Out>,
}

impl Clone for Scratch {
    fn clone(&self) -> Scratch {
        Scratch::default()
    }
}

fn exec(stmts: &[St], env: &mut Env) -> R<Flow> {
    for s in stmts {
        match s {
            St::Set(place, e) => {
                let v = eval(e, env)?;
                set(env, *place, v)?;
            }
            St::OpSet(place, op, e) => {
                let rhs = eval(e, env)?;
                let lhs = get(env, *place);
                let v = binary(*op, lhs.view(), rhs.view())?.into();
                set(env, *place, v)?;
            }
            St::If(cond, then, other) => {
                let V::Bool(c) = eval(cond, env)?.view() else {
                    return Err(Bail);
                };
                let flow = exec(if c { then } else { other }, env)?;
                if let Flow::Return = flow {
                    return Ok(Flow::Return);
                }
            }
            St::Eval(e) => {
                eval(e, env)?;
            }
            St::Return(e) => {
                if let Some(e) = e {
                    eval(e, env)?;
                }
                return Ok(Flow::Return);
            }
        }
    }
    Ok(Flow::Next)
}

fn get(env: &Env, place: Place) -> Val {
    match place {
        Place::State(i) => env.state[usize::from(i)],
        Place::Local(i) => env.locals[usize::from(i)],
    }
}

fn set(env: &mut Env, place: Place, v: Val) -> R<()> {
    match place {
        // The script's state stays scalar (it is hashed and snapshotted as
        // rhai values); a map written there is rhai's business.
        Place::State(_) if matches!(v.view(), V::Rec(..)) => return Err(Bail),
        Place::State(i) => env.state[usize::from(i)] = v,
        Place::Local(i) => env.locals[usize::from(i)] = v,
    }
    Ok(())
}

fn eval(e: &Ex, env: &mut Env) -> R<Val> {
    Ok(match e {
        Ex::Const(v) => return Ok(*v),
        Ex::State(i) => return Ok(env.state[usize::from(*i)]),
        Ex::Local(i) => return Ok(env.locals[usize::from(*i)]),
        Ex::Neg(a) => match eval(a, env)?.view() {
            V::Int(i) => V::Int(i.checked_neg().ok_or(Bail)?),
            V::Float(f) => V::Float(-f),
            _ => return Err(Bail),
        },
        Ex::Not(a) => match eval(a, env)?.view() {
            V::Bool(b) => V::Bool(!b),
            _ => return Err(Bail),
        },
        Ex::Bin(op, ab) => {
            let a = eval(&ab.0, env)?;
            let b = eval(&ab.1, env)?;
            binary(*op, a.view(), b.view())?
        }
        // rhai stops at the first false (`&&`) or true (`||`) operand.
        Ex::And(list) => V::Bool(!short_circuit(list, false, env)?),
        Ex::Or(list) => V::Bool(short_circuit(list, true, env)?),
        Ex::Field(a, field) => match (eval(a, env)?.view(), field) {
            (V::Rec(_, i), Field::X) => V::Float(env.recs[i as usize][0]),
            (V::Rec(_, i), Field::Y) => V::Float(env.recs[i as usize][1]),
            (V::Rec(Rec::Pose, i), Field::Angle) => V::Float(env.recs[i as usize][2]),
            (V::Rec(Rec::Velocity, i), Field::Angular) => V::Float(env.recs[i as usize][2]),
            _ => return Err(Bail),
        },
        Ex::Call(api, args) => call(api, args, env)?,
    }
    .into())
}

/// Whether any operand is `stop` (evaluating them in order and no further);
/// every operand evaluated must be a bool.
fn short_circuit(list: &[Ex], stop: bool, env: &mut Env) -> R<bool> {
    for e in list {
        match eval(e, env)?.view() {
            V::Bool(b) if b == stop => return Ok(true),
            V::Bool(_) => {}
            _ => return Err(Bail),
        }
    }
    Ok(false)
}

/// The standard library's float functions the subset calls.
pub(crate) fn float_math(m: Math, x: FLOAT) -> FLOAT {
    match m {
        Math::Abs => x.abs(),
        Math::Sqrt => x.sqrt(),
        Math::Sin => x.sin(),
        Math::Cos => x.cos(),
        Math::Floor => x.floor(),
        Math::Ceil => x.ceil(),
    }
}

/// A number the way the API's `num` reads it: floats as they are, integers
/// converted.
fn num(v: V) -> R<FLOAT> {
    match v {
        V::Float(f) => Ok(f),
        V::Int(i) => Ok(i as FLOAT),
        _ => Err(Bail),
    }
}

/// A pose or force component the way the API's `finite` takes it.
fn finite(v: V) -> R<f32> {
    finite_component(num(v)?).ok_or(Bail)
}

/// A body command's component as f32, or `None` when it is not finite (the
/// API rejects it; every engine applies this one rule).
pub(crate) fn finite_component(x: FLOAT) -> Option<f32> {
    x.is_finite().then_some(x as f32)
}

/// `rand()`: 53 random bits, so every value in [0, 1) is exactly
/// representable (every engine draws with this).
pub(crate) fn unit(rng: &mut Rng) -> FLOAT {
    (rng.next_u64() >> 11) as FLOAT * (1.0 / (1u64 << 53) as FLOAT)
}

fn call(api: &Api, args: &[Ex], env: &mut Env) -> R<V> {
    // Arguments left to right, as rhai evaluates them.
    let mut a = [V::Unit; 3];
    for (slot, e) in a.iter_mut().zip(args) {
        *slot = eval(e, env)?.view();
    }
    let me = env.me;
    Ok(match api {
        Api::Me => V::Int(me.0 as INT),
        Api::Tick => V::Int(env.ctx.clock().simulation_tick as INT),
        Api::Frame => V::Int(env.ctx.clock().frame_index as INT),
        Api::SimTime => V::Float(env.ctx.clock().simulation_time),
        Api::FixedDt => V::Float(env.ctx.clock().fixed_delta_time),
        Api::Pose => {
            // No body: rhai's `pose()` is an empty map; leave that to rhai.
            let p = env.ctx.physics_simulation_pose(me).ok_or(Bail)?;
            env.record(
                Rec::Pose,
                [FLOAT::from(p.x), FLOAT::from(p.y), FLOAT::from(p.angle)],
            )
        }
        Api::Velocity => {
            let v = env.ctx.velocity(me).unwrap_or_default();
            env.record(
                Rec::Velocity,
                [
                    FLOAT::from(v.linear.x),
                    FLOAT::from(v.linear.y),
                    FLOAT::from(v.angular),
                ],
            )
        }
        Api::Rand => V::Float(unit(&mut env.rng)),
        Api::RandRange => {
            let (lo, hi) = (num(a[0])?, num(a[1])?);
            V::Float(lo + (hi - lo) * unit(&mut env.rng))
        }
        Api::KinematicTarget => {
            let pose = Pose::new(finite(a[0])?, finite(a[1])?, finite(a[2])?);
            env.out
                .push(Out::Body(BodyCommand::KinematicTarget { target: me, pose }));
            V::Unit
        }
        Api::Force => {
            let force = Vec2::new(finite(a[0])?, finite(a[1])?);
            env.out
                .push(Out::Body(BodyCommand::Force { target: me, force }));
            V::Unit
        }
        Api::Impulse => {
            let impulse = Vec2::new(finite(a[0])?, finite(a[1])?);
            env.out.push(Out::Body(BodyCommand::Impulse {
                target: me,
                impulse,
            }));
            V::Unit
        }
        Api::SetVelocity => {
            let linear = Vec2::new(finite(a[0])?, finite(a[1])?);
            let angular = env.ctx.velocity(me).map_or(0.0, |v| v.angular);
            env.out.push(Out::Body(BodyCommand::SetVelocity {
                target: me,
                velocity: Velocity { linear, angular },
            }));
            V::Unit
        }
        Api::Remove => {
            // rhai's `remove` takes an INT; anything else is rhai's error.
            let V::Int(id) = a[0] else {
                return Err(Bail);
            };
            let id = u64::try_from(id).map_err(|_| Bail)?;
            env.out.push(Out::Remove(ObjectId(id)));
            V::Unit
        }
        Api::Input(kind, action) => {
            let input = env.ctx.input();
            match kind {
                Input::Pressed => V::Bool(input.pressed(action)),
                Input::JustPressed => V::Bool(input.just_pressed(action)),
                Input::JustReleased => V::Bool(input.just_released(action)),
                Input::HeldMs => V::Float(input.held_ms(action)),
                Input::Axis => V::Float(FLOAT::from(input.value(action))),
            }
        }
        Api::Math(m) => match (m, a[0]) {
            (Math::Abs, V::Int(i)) => V::Int(i.checked_abs().ok_or(Bail)?),
            (_, V::Float(f)) => V::Float(float_math(*m, f)),
            _ => return Err(Bail),
        },
    })
}

/// rhai's float comparison (checked build): equal within a relative
/// `FLOAT::EPSILON`, so `0.1 + 0.2 == 0.3` holds in a script.
pub(crate) fn compare(op: Op, x: FLOAT, y: FLOAT) -> bool {
    let max = if x * y == 0.0 {
        1.0
    } else {
        x.abs().max(y.abs())
    };
    // Far apart, the sign of the difference decides, without the division:
    // |d| > 4 EPSILON max means |d / max| > EPSILON after rounding, so every
    // operator below gives what the exact comparison gives. (Limited to a
    // finite `max` well clear of underflow, where `4 EPSILON max` is exact
    // to a rounding; NaN differences fail the test and take the long way.)
    let d = x - y;
    if d.abs() > 4.0 * FLOAT::EPSILON * max && (1e-290..=FLOAT::MAX).contains(&max) {
        return match op {
            Op::Eq => false,
            Op::Ne => true,
            Op::Gt | Op::Ge => d > 0.0,
            Op::Lt | Op::Le => d < 0.0,
            _ => unreachable!("not a comparison"),
        };
    }
    match op {
        Op::Eq => max == 0.0 || (x - y).abs() / max <= FLOAT::EPSILON,
        Op::Ne => max != 0.0 && (x - y).abs() / max > FLOAT::EPSILON,
        Op::Gt => max != 0.0 && (x - y) / max > FLOAT::EPSILON,
        Op::Ge => max == 0.0 || (x - y) / max > -FLOAT::EPSILON,
        Op::Lt => max != 0.0 && (y - x) / max > FLOAT::EPSILON,
        Op::Le => max == 0.0 || (y - x) / max > -FLOAT::EPSILON,
        _ => unreachable!("not a comparison"),
    }
}

/// rhai's float arithmetic (`op` is not a comparison).
pub(crate) fn float_arith(op: Op, x: FLOAT, y: FLOAT) -> FLOAT {
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Rem => x % y,
        Op::Pow => x.powf(y),
        _ => unreachable!("not arithmetic"),
    }
}

/// rhai's checked integer arithmetic (`op` is not a comparison); `None` where
/// rhai raises an error (overflow, division by zero, a negative or huge
/// exponent).
pub(crate) fn int_arith(op: Op, x: INT, y: INT) -> Option<INT> {
    match op {
        Op::Add => x.checked_add(y),
        Op::Sub => x.checked_sub(y),
        Op::Mul => x.checked_mul(y),
        Op::Div => x.checked_div(y),
        Op::Rem => x.checked_rem(y),
        Op::Pow => u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
        _ => unreachable!("not arithmetic"),
    }
}

/// A comparison of two integers or two booleans (`op` is a comparison).
pub(crate) fn ordered<T: PartialOrd>(op: Op, x: T, y: T) -> bool {
    match op {
        Op::Eq => x == y,
        Op::Ne => x != y,
        Op::Lt => x < y,
        Op::Le => x <= y,
        Op::Gt => x > y,
        Op::Ge => x >= y,
        _ => unreachable!("not a comparison"),
    }
}

impl Op {
    pub(crate) fn is_comparison(self) -> bool {
        matches!(self, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge)
    }
}

/// A binary operator on two values, as rhai's built-in operators compute it;
/// any pair of types this module does not cover bails.
pub(crate) fn binary(op: Op, a: V, b: V) -> R<V> {
    let float = |x: FLOAT, y: FLOAT| {
        if op.is_comparison() {
            V::Bool(compare(op, x, y))
        } else {
            V::Float(float_arith(op, x, y))
        }
    };
    Ok(match (a, b) {
        (V::Int(x), V::Int(y)) if op.is_comparison() => V::Bool(ordered(op, x, y)),
        (V::Int(x), V::Int(y)) => V::Int(int_arith(op, x, y).ok_or(Bail)?),
        (V::Float(x), V::Float(y)) => float(x, y),
        (V::Float(x), V::Int(y)) => float(x, y as FLOAT),
        (V::Int(x), V::Float(y)) => float(x as FLOAT, y),
        (V::Bool(x), V::Bool(y)) if op.is_comparison() => V::Bool(ordered(op, x, y)),
        _ => return Err(Bail),
    })
}

#[cfg(test)]
mod tests {
    use rhai::{Engine, Scope};

    use super::*;

    fn values() -> Vec<V> {
        let ints = [
            0,
            1,
            -1,
            2,
            -3,
            7,
            64,
            1 << 32,
            INT::MAX,
            INT::MIN,
            INT::MIN + 1,
        ];
        let floats = [
            0.0,
            -0.0,
            0.1,
            0.2,
            0.3,
            0.1 + 0.2,
            1.0,
            1.0 + FLOAT::EPSILON,
            1.0 - FLOAT::EPSILON / 2.0,
            -2.5,
            7.0,
            1e300,
            -1e300,
            1e-310,
            FLOAT::MIN_POSITIVE,
            FLOAT::INFINITY,
            FLOAT::NEG_INFINITY,
            FLOAT::NAN,
        ];
        let mut all: Vec<V> = ints.iter().map(|&i| V::Int(i)).collect();
        all.extend(floats.iter().map(|&f| V::Float(f)));
        all.extend([V::Bool(true), V::Bool(false), V::Unit]);
        all
    }

    fn dynamic(v: V) -> Dynamic {
        match v {
            V::Unit => Dynamic::UNIT,
            V::Bool(b) => Dynamic::from_bool(b),
            V::Int(i) => Dynamic::from_int(i),
            V::Float(f) => Dynamic::from_float(f),
            V::Rec(..) => unreachable!(),
        }
    }

    /// rhai's own result for `script` with `x` (and `y`) in scope: the
    /// engine scripts run on, so the same packages and operators.
    fn rhai(script: &str, x: V, y: Option<V>) -> Option<Dynamic> {
        let engine: &Engine = &super::super::engine::engines().plain;
        let mut scope = Scope::new();
        scope.push_dynamic("x", dynamic(x));
        if let Some(y) = y {
            scope.push_dynamic("y", dynamic(y));
        }
        engine.eval_with_scope::<Dynamic>(&mut scope, script).ok()
    }

    /// Same type and the same bits (NaN included).
    fn same(ours: V, theirs: &Dynamic) -> bool {
        match ours {
            V::Unit => theirs.is_unit(),
            V::Bool(b) => theirs.as_bool() == Ok(b),
            V::Int(i) => theirs.as_int() == Ok(i),
            V::Float(f) => theirs.as_float().map(FLOAT::to_bits) == Ok(f.to_bits()),
            V::Rec(..) => false,
        }
    }

    const OPS: [(Op, &str); 12] = [
        (Op::Add, "+"),
        (Op::Sub, "-"),
        (Op::Mul, "*"),
        (Op::Div, "/"),
        (Op::Rem, "%"),
        (Op::Pow, "**"),
        (Op::Eq, "=="),
        (Op::Ne, "!="),
        (Op::Lt, "<"),
        (Op::Le, "<="),
        (Op::Gt, ">"),
        (Op::Ge, ">="),
    ];

    #[test]
    fn every_operator_on_every_pair_computes_what_rhai_computes_or_bails() {
        let (mut checked, mut bailed) = (0, 0);
        for a in values() {
            for b in values() {
                for (op, text) in OPS {
                    let theirs = rhai(&format!("x {text} y"), a, Some(b));
                    match binary(op, a, b) {
                        Ok(ours) => {
                            let theirs = theirs.unwrap_or_else(|| {
                                panic!("{a:?} {text} {b:?}: rhai fails, we gave {ours:?}")
                            });
                            assert!(
                                same(ours, &theirs),
                                "{a:?} {text} {b:?}: rhai gives {theirs:?}, we gave {ours:?}"
                            );
                            checked += 1;
                        }
                        Err(Bail) => bailed += 1,
                    }
                }
            }
        }
        // Every number pair runs here; only other types and integer errors
        // go to rhai.
        assert!(checked > 8000, "{checked} compared, {bailed} bailed");
    }

    #[test]
    fn comparisons_near_rhai_s_epsilon_match_rhai() {
        // Pairs around the threshold, where the shortcut must step aside.
        let mut rng = Rng::new(42);
        let mut pairs = 0;
        for _ in 0..3000 {
            let exp = (rng.next_u64() % 1400) as i32 - 700;
            let x = (unit(&mut rng) + 0.5)
                * 2f64.powi(exp)
                * if rng.next_u64().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
            let k = (rng.next_u64() % 33) as f64 - 16.0;
            let y = x * (1.0 + k * FLOAT::EPSILON / 2.0);
            for (op, text) in OPS.iter().filter(|(op, _)| op.is_comparison()) {
                let theirs = rhai(&format!("x {text} y"), V::Float(x), Some(V::Float(y)));
                let ours = binary(*op, V::Float(x), V::Float(y)).expect("floats compare");
                assert!(
                    same(ours, &theirs.expect("rhai compares")),
                    "{x:e} {text} {y:e}"
                );
                pairs += 1;
            }
        }
        assert_eq!(pairs, 18000);
    }

    #[test]
    fn near_equal_floats_compare_within_rhai_s_epsilon() {
        // Exact comparison would say 0.1 + 0.2 > 0.3; rhai (and we) do not.
        let (a, b) = (V::Float(0.1 + 0.2), V::Float(0.3));
        assert_eq!(binary(Op::Gt, a, b), Ok(V::Bool(false)));
        assert_eq!(binary(Op::Eq, a, b), Ok(V::Bool(true)));
        assert!(same(
            V::Bool(true),
            &rhai("x == y", a, Some(b)).expect("runs")
        ));
    }

    #[test]
    fn unary_and_math_functions_compute_what_rhai_computes() {
        type Ours = fn(V) -> Option<V>;
        let env_free: [(&str, Ours); 8] = [
            ("-x", |v| match v {
                V::Int(i) => i.checked_neg().map(V::Int),
                V::Float(f) => Some(V::Float(-f)),
                _ => None,
            }),
            ("!x", |v| match v {
                V::Bool(b) => Some(V::Bool(!b)),
                _ => None,
            }),
            ("abs(x)", |v| match v {
                V::Int(i) => i.checked_abs().map(V::Int),
                V::Float(f) => Some(V::Float(f.abs())),
                _ => None,
            }),
            ("sqrt(x)", |v| math(Math::Sqrt, v)),
            ("sin(x)", |v| math(Math::Sin, v)),
            ("cos(x)", |v| math(Math::Cos, v)),
            ("floor(x)", |v| math(Math::Floor, v)),
            ("ceiling(x)", |v| math(Math::Ceil, v)),
        ];
        for (script, ours) in env_free {
            for v in values() {
                if let Some(ours) = ours(v) {
                    let theirs = rhai(script, v, None).unwrap_or_else(|| {
                        panic!("{script} of {v:?}: rhai fails, we gave {ours:?}")
                    });
                    assert!(
                        same(ours, &theirs),
                        "{script} of {v:?}: {theirs:?} vs {ours:?}"
                    );
                }
            }
        }
    }

    /// The float math functions the way `call` computes them.
    fn math(m: Math, v: V) -> Option<V> {
        let V::Float(x) = v else { return None };
        Some(V::Float(float_math(m, x)))
    }
}
