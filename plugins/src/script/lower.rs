//! Lowering: rhai's AST (its `internals`: `Stmt`, `Expr`, `FnCallExpr`) to
//! the compiled path's tree ([`super::ir`]), for the hook functions in the
//! subset listed there. A function outside the subset is left to rhai with
//! the reason and its line (the editor's code pane shows it).
//!
//! This is the one module that reads rhai's volatile internals, which is why
//! `Cargo.toml` pins rhai exactly.

use rhai::{
    AST, ASTFlags, ASTNode, Expr, FnCallExpr, ImmutableString, Position, Stmt, StmtBlock, Token,
};

use super::ir::{Api, Ex, FastFn, FastProgram, Field, HOOKS, Input, Math, Op, Place, St, V, Val};

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
                        // Compound assignments are arithmetic only.
                        let Some(Op::Arith(op)) = Op::from_token(token) else {
                            return Err(format!("operator {token:?}="));
                        };
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
