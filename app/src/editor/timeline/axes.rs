//! What the lanes' axes and tooltip say: a few round y marks with units, x
//! labels per axis, four significant figures.

use egui_plot::{GridInput, GridMark};
use stepframe_core::{FrameRecord, Priority};

use super::{Unit, XAxis};

/// Two or three y marks at a round step (whole ticks never get a mark
/// between them), so a lane of 56 points is labelled without its labels
/// touching; none on a unitless axis (the markers lane's is blank).
pub(super) fn few_marks_for(input: GridInput, unit: Unit) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let span = hi - lo;
    if unit == Unit::None || !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let magnitude = 10f64.powf((span / 2.5).log10().floor());
    let Some(mut step) = [1.0, 2.0, 5.0, 10.0, 20.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| span / s <= 3.0)
    else {
        return Vec::new();
    };
    if unit == Unit::Ticks {
        step = step.max(1.0).round();
    }
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + step * 1e-9 && out.len() < 4 {
        out.push(GridMark {
            value: v,
            step_size: step,
        });
        v += step;
    }
    out
}

/// A y label with its unit.
pub(super) fn y_label(unit: Unit, v: f64) -> String {
    // A mark at zero reached from below prints as "-0": it is 0.
    let v = if v.abs() < 1e-9 { 0.0 } else { v };
    match unit {
        Unit::Ms if v.abs() < 10.0 => format!("{v:.1} ms"),
        Unit::Ms => format!("{v:.0} ms"),
        Unit::Seconds if v.abs() < 10.0 => format!("{v:.2} s"),
        Unit::Seconds => format!("{v:.1} s"),
        Unit::Ticks if v == 1.0 => "1 tick".to_string(),
        Unit::Ticks => format!("{v:.0} ticks"),
        Unit::Fraction => format!("{v:.1}"),
        Unit::None => String::new(),
    }
}

/// An x label on an axis.
pub(super) fn x_label(axis: XAxis, v: f64) -> String {
    match axis {
        XAxis::FrameTime => format!("{v:.1} s"),
        _ => format!("{v:.0}"),
    }
}

/// `v` with four significant figures.
pub(super) fn sig4(v: f64) -> String {
    if v == 0.0 {
        // -0.0 too: a mark at zero reads "0", never "-0".
        return "0".to_string();
    }
    if !v.is_finite() {
        return format!("{v}");
    }
    let digits = 3 - v.abs().log10().floor() as i32;
    if digits > 0 {
        format!("{v:.*}", digits as usize)
    } else {
        format!("{v:.0}")
    }
}

/// An axis mark: four significant digits without trailing zeros, so round
/// marks read as round numbers ("1", "0.5", "2.5", not "1.000", "0.5000").
pub(super) fn mark(v: f64) -> String {
    let s = sig4(v);
    if s.contains('.') && v.is_finite() {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The tooltip rows for a record: frame, tick, every clock field with its unit.
pub fn hover_rows(r: &FrameRecord) -> Vec<String> {
    let ms = |s: f64| format!("{} ms", sig4(s * 1000.0));
    let row = |name: &str, value: String| format!("{name:<21}{value}");
    let priorities: Vec<String> = r
        .priorities()
        .iter()
        .map(|(p, t)| format!("{} {} ms", Priority(*p), sig4(f64::from(*t))))
        .collect();
    let fixed_update_ms: f64 = r.priorities().iter().map(|(_, t)| f64::from(*t)).sum();
    vec![
        format!(
            "frame {} · tick {} · {} tick(s) this frame",
            r.frame_index, r.simulation_tick, r.ticks
        ),
        row("delta_time", ms(r.delta_time)),
        row("frame_time", format!("{} s", sig4(r.frame_time))),
        row("frame_index", format!("{} frames", r.frame_index)),
        row("simulation_tick", format!("{} ticks", r.simulation_tick)),
        row("simulation_time", format!("{} s", sig4(r.simulation_time))),
        row("fixed_delta_time", ms(r.fixed_delta_time)),
        row(
            "interpolation_alpha",
            format!("{} (of a tick)", sig4(f64::from(r.interpolation_alpha))),
        ),
        row("dropped_time", format!("{} s", sig4(r.dropped_time))),
        row(
            "accumulator",
            format!(
                "{} before → {} after",
                ms(r.accumulator_before),
                ms(r.accumulator_after)
            ),
        ),
        row("dropped this frame", ms(f64::from(r.dropped_this_frame))),
        // The fixed phase holds FixedUpdate, physics and contacts: its total
        // is not the sum of the priorities beside it, so they get rows of
        // their own.
        row(
            "fixed phase",
            format!("{} ms in all", sig4(f64::from(r.fixed_ms))),
        ),
        row(
            "FixedUpdate",
            format!("{} ms ({})", sig4(fixed_update_ms), priorities.join(", ")),
        ),
        row("physics", format!("{} ms", sig4(f64::from(r.physics_ms)))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn y_axes_get_two_or_three_round_marks() {
        for (lo, hi) in [
            (0.0, 20.0),
            (0.0, 1.0),
            (0.0, 4.4),
            (0.0, 0.37),
            (-1.0, 150.0),
        ] {
            let input = || GridInput {
                bounds: (lo, hi),
                base_step_size: 1e-9,
            };
            let marks = few_marks_for(input(), Unit::Ms);
            assert!((2..=3).contains(&marks.len()), "{lo}..{hi}: {marks:?}");
            let ticks = few_marks_for(input(), Unit::Ticks);
            assert!(ticks.iter().all(|m| m.value.fract() == 0.0), "{ticks:?}");
        }
    }

    #[test]
    fn four_significant_figures() {
        assert_eq!(sig4(16.666666), "16.67");
        assert_eq!(sig4(0.0123456), "0.01235");
        assert_eq!(sig4(1234.6), "1235");
        assert_eq!(sig4(0.0), "0");
    }

    #[test]
    fn axis_marks_drop_trailing_zeros() {
        assert_eq!(mark(1.0), "1");
        assert_eq!(mark(0.5), "0.5");
        assert_eq!(mark(2000.0), "2000");
        assert_eq!(mark(2.5), "2.5");
        assert_eq!(mark(0.0125), "0.0125");
        assert_eq!(mark(16.666666), "16.67");
        assert_eq!(mark(0.0), "0");
    }
}
