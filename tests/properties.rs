//! Properties of the stepper over random frame-time sequences (stalls included):
//! both strategies give identical ticks; simulation time is exactly ticks × fixed
//! dt; dropped + simulated + accumulator equals the total clamped, scaled time.

use proptest::prelude::*;
use stepframe_core::{Flicks, Pipeline, StepStrategy, TimeSettings};

/// Frame times: mostly display-like, some zero, some stalls far past max_delta.
fn frame_time() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => 0.0f64..0.05,
        1 => Just(0.0),
        1 => 0.2f64..12.0,
    ]
}

fn settings() -> impl Strategy<Value = TimeSettings> {
    (
        prop::sample::select(vec![30u32, 50, 60, 120, 144]),
        1u32..8,
        prop::sample::select(vec![0.0, 0.25, 0.5, 1.0, 2.0, 4.0]),
        prop::sample::select(vec![0.1, 0.25, 1.0]),
    )
        .prop_map(
            |(fixed_hz, max_steps, time_scale, max_delta)| TimeSettings {
                fixed_hz,
                max_steps,
                time_scale,
                max_delta,
                ..TimeSettings::default()
            },
        )
}

/// Per frame: ticks run and time dropped.
fn run(settings: TimeSettings, dts: &[f64]) -> Vec<(u32, f64)> {
    let mut p = Pipeline::new(settings);
    dts.iter()
        .map(|dt| {
            let r = p.step_frame(*dt);
            (r.ticks, r.dropped_time)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn both_strategies_give_identical_tick_sequences(s in settings(), dts in prop::collection::vec(frame_time(), 1..300)) {
        let acc = run(TimeSettings { strategy: StepStrategy::Accumulator, ..s }, &dts);
        let stc = run(TimeSettings { strategy: StepStrategy::StepCounting, ..s }, &dts);
        prop_assert_eq!(acc, stc);
    }

    #[test]
    fn simulation_time_is_exactly_ticks_times_fixed_dt(s in settings(), dts in prop::collection::vec(frame_time(), 1..300)) {
        let mut p = Pipeline::new(s);
        let mut ticks = 0u64;
        let fixed = Flicks::per_hz(s.fixed_hz);
        for dt in &dts {
            ticks += u64::from(p.step_frame(*dt).ticks);
            prop_assert_eq!(p.clock().simulation_tick, ticks);
            prop_assert_eq!(p.stepper().simulation_time(), Flicks(fixed.0 * ticks));
            prop_assert_eq!(p.clock().simulation_time, Flicks(fixed.0 * ticks).as_secs_f64());
        }
    }

    #[test]
    fn dropped_plus_simulated_plus_accumulator_equals_total_clamped_scaled_time(s in settings(), dts in prop::collection::vec(frame_time(), 1..300)) {
        let mut p = Pipeline::new(s);
        let mut total = 0u64;
        for dt in &dts {
            p.step_frame(*dt);
            // Computed independently of the stepper: clamp, round to flicks, scale.
            total += Flicks::from_secs_f64(dt.min(s.max_delta)).scaled(s.time_scale).0;
            let st = p.stepper();
            prop_assert_eq!(st.dropped().0 + st.simulation_time().0 + st.accumulator().0, total);
            prop_assert!(st.accumulator() < Flicks::per_hz(s.fixed_hz), "after a frame, less than one tick waits");
        }
    }
}
