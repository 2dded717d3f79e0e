//! The register machine: runs [`Typed`] code against the hook's context
//! (see the parent module's docs).

use std::cell::RefCell;

use rhai::{FLOAT, INT};
use stepframe_core::{BodyCommand, Ctx, ObjectId, Pose, Vec2, Velocity};

use super::super::engine;
use super::super::ir::{Out, Tag, Val};
use super::super::semantics::{
    Arith, compare, finite_component, float_arith, float_math, int_arith, ordered, unit,
};
use super::{Exit, Input, Ins, REGS, Typed};

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
