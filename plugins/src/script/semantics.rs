//! rhai's number semantics, in one place: what every arithmetic operator,
//! comparison, math function, body-command component and random draw
//! computes in rhai 1.27, as the typed path (`typed/`) computes it.
//!
//! The rest of the compiled path decides *which* of these to call (by the
//! operand types it has proven); this module says what each computes, so a
//! change of rhai's rules is made here and checked here: the tests below run
//! every operator on every pair of a set of awkward values (integer limits,
//! signed zeros, NaN, infinities, neighbours of rhai's epsilon) through rhai
//! itself and demand the same type and the same bits, or a bail where rhai
//! raises an error.
//!
//! Worked numbers: `0.1 + 0.2 == 0.3` is true in a script (rhai compares
//! floats within a relative `FLOAT::EPSILON`: |0.30000000000000004 − 0.3| /
//! 0.30000000000000004 ≈ 1.85e-16 ≤ 2.22e-16); `i64::MAX + 1` is an error
//! (checked arithmetic), so [`int_arith`] returns `None` and the call goes to
//! rhai, which reports it; `2 ** -1` is an error too (a negative exponent).

use rhai::{FLOAT, INT, Token};
use stepframe_core::Rng;

/// An arithmetic operator: `+ - * / % **` (and their compound assignments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
}

/// A comparison: `== != < <= > >=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A binary operator as written: arithmetic or a comparison, kept apart so
/// no code can hand a comparison to an arithmetic rule or the other way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Arith(Arith),
    Cmp(Cmp),
}

impl Op {
    /// The operator of a rhai token, if the compiled path has it.
    pub(crate) fn from_token(t: &Token) -> Option<Op> {
        Some(match t {
            Token::Plus => Op::Arith(Arith::Add),
            Token::Minus => Op::Arith(Arith::Sub),
            Token::Multiply => Op::Arith(Arith::Mul),
            Token::Divide => Op::Arith(Arith::Div),
            Token::Modulo => Op::Arith(Arith::Rem),
            Token::PowerOf => Op::Arith(Arith::Pow),
            Token::EqualsTo => Op::Cmp(Cmp::Eq),
            Token::NotEqualsTo => Op::Cmp(Cmp::Ne),
            Token::LessThan => Op::Cmp(Cmp::Lt),
            Token::LessThanEqualsTo => Op::Cmp(Cmp::Le),
            Token::GreaterThan => Op::Cmp(Cmp::Gt),
            Token::GreaterThanEqualsTo => Op::Cmp(Cmp::Ge),
            _ => return None,
        })
    }
}

/// The standard library's float functions the subset calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Math {
    Abs,
    Sqrt,
    Sin,
    Cos,
    Floor,
    Ceil,
}

/// What a [`Math`] function computes on a float.
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

/// rhai's float comparison (checked build): equal within a relative
/// `FLOAT::EPSILON`, so `0.1 + 0.2 == 0.3` holds in a script.
pub(crate) fn compare(op: Cmp, x: FLOAT, y: FLOAT) -> bool {
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
            Cmp::Eq => false,
            Cmp::Ne => true,
            Cmp::Gt | Cmp::Ge => d > 0.0,
            Cmp::Lt | Cmp::Le => d < 0.0,
        };
    }
    match op {
        Cmp::Eq => max == 0.0 || (x - y).abs() / max <= FLOAT::EPSILON,
        Cmp::Ne => max != 0.0 && (x - y).abs() / max > FLOAT::EPSILON,
        Cmp::Gt => max != 0.0 && (x - y) / max > FLOAT::EPSILON,
        Cmp::Ge => max == 0.0 || (x - y) / max > -FLOAT::EPSILON,
        Cmp::Lt => max != 0.0 && (y - x) / max > FLOAT::EPSILON,
        Cmp::Le => max == 0.0 || (y - x) / max > -FLOAT::EPSILON,
    }
}

/// rhai's float arithmetic (mixed integer/float operands are converted to
/// float first, as rhai does).
pub(crate) fn float_arith(op: Arith, x: FLOAT, y: FLOAT) -> FLOAT {
    match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
        Arith::Rem => x % y,
        Arith::Pow => x.powf(y),
    }
}

/// rhai's checked integer arithmetic; `None` where rhai raises an error
/// (overflow, division by zero, a negative or huge exponent).
pub(crate) fn int_arith(op: Arith, x: INT, y: INT) -> Option<INT> {
    match op {
        Arith::Add => x.checked_add(y),
        Arith::Sub => x.checked_sub(y),
        Arith::Mul => x.checked_mul(y),
        Arith::Div => x.checked_div(y),
        Arith::Rem => x.checked_rem(y),
        Arith::Pow => u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
    }
}

/// A comparison of two integers or two booleans (exact, as rhai's are).
pub(crate) fn ordered<T: PartialOrd>(op: Cmp, x: T, y: T) -> bool {
    match op {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
    }
}

#[cfg(test)]
mod tests {
    use rhai::{Dynamic, Engine, Scope};

    use super::super::ir::V;
    use super::*;

    /// The call leaves the engines here; rhai runs it.
    #[derive(Debug, PartialEq)]
    struct Bail;

    /// A binary operator on two values, the way the typed path's lowering
    /// picks an instruction for the operand types (`typed/`, `binary`)
    /// and the instruction computes it; the pairs it does not cover go to
    /// rhai.
    fn binary(op: Op, a: V, b: V) -> Result<V, Bail> {
        let float = |x: FLOAT, y: FLOAT| match op {
            Op::Cmp(c) => V::Bool(compare(c, x, y)),
            Op::Arith(o) => V::Float(float_arith(o, x, y)),
        };
        Ok(match (op, a, b) {
            (Op::Cmp(c), V::Int(x), V::Int(y)) => V::Bool(ordered(c, x, y)),
            (Op::Arith(o), V::Int(x), V::Int(y)) => V::Int(int_arith(o, x, y).ok_or(Bail)?),
            (_, V::Float(x), V::Float(y)) => float(x, y),
            (_, V::Float(x), V::Int(y)) => float(x, y as FLOAT),
            (_, V::Int(x), V::Float(y)) => float(x as FLOAT, y),
            (Op::Cmp(c), V::Bool(x), V::Bool(y)) => V::Bool(ordered(c, x, y)),
            _ => return Err(Bail),
        })
    }

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
        let engine: &Engine = &super::super::engines::engines().plain;
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
        (Op::Arith(Arith::Add), "+"),
        (Op::Arith(Arith::Sub), "-"),
        (Op::Arith(Arith::Mul), "*"),
        (Op::Arith(Arith::Div), "/"),
        (Op::Arith(Arith::Rem), "%"),
        (Op::Arith(Arith::Pow), "**"),
        (Op::Cmp(Cmp::Eq), "=="),
        (Op::Cmp(Cmp::Ne), "!="),
        (Op::Cmp(Cmp::Lt), "<"),
        (Op::Cmp(Cmp::Le), "<="),
        (Op::Cmp(Cmp::Gt), ">"),
        (Op::Cmp(Cmp::Ge), ">="),
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
            for (op, text) in OPS.iter().filter(|(op, _)| matches!(op, Op::Cmp(_))) {
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
        assert_eq!(binary(Op::Cmp(Cmp::Gt), a, b), Ok(V::Bool(false)));
        assert_eq!(binary(Op::Cmp(Cmp::Eq), a, b), Ok(V::Bool(true)));
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

    /// The float math functions the way the typed path computes them.
    fn math(m: Math, v: V) -> Option<V> {
        let V::Float(x) = v else { return None };
        Some(V::Float(float_math(m, x)))
    }
}
