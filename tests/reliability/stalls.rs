//! stalls.

use super::*;

/// One stall: settings, a frame of `before` seconds, then a frame of `stall`
/// seconds; the ticks the stall frame must run and the time it must drop, in
/// flicks, derived by hand in each case's comment.
struct StallCase {
    max_delta: f64,
    max_steps: u32,
    before: f64,
    stall: f64,
    ticks: u32,
    dropped: Flicks,
    /// Accumulator after the stall frame, flicks.
    left: Flicks,
}

#[test]
fn a_ten_second_stall_runs_at_most_max_steps_ticks_and_reports_exactly_the_dropped_time() {
    let cases = [
        // 10 s clamped to 0.25 s = 176,400,000 flicks = 15 ticks of
        // 11,760,000; 4 run, 11 dropped = 129,360,000 flicks = 11/60 s.
        StallCase {
            max_delta: 0.25,
            max_steps: 4,
            before: DT,
            stall: 10.0,
            ticks: 4,
            dropped: Flicks(11 * TICK_60HZ),
            left: Flicks(0),
        },
        // The same after a 10 ms frame that ran no tick: the accumulator holds
        // 7,056,000 + 176,400,000 = 183,456,000 = 15 ticks + 7,056,000; 11
        // ticks dropped, 4 run, the 10 ms remainder stays.
        StallCase {
            max_delta: 0.25,
            max_steps: 4,
            before: 0.010,
            stall: 10.0,
            ticks: 4,
            dropped: Flicks(11 * TICK_60HZ),
            left: Flicks(7_056_000),
        },
        // A larger clamp: 10 s accepted whole = 600 ticks; 4 run, 596 dropped
        // = 596/60 s = 7,008,960,000 flicks.
        StallCase {
            max_delta: 10.0,
            max_steps: 4,
            before: DT,
            stall: 10.0,
            ticks: 4,
            dropped: Flicks(596 * TICK_60HZ),
            left: Flicks(0),
        },
        // Clamp 1 s, cap 8: 60 ticks owed, 8 run, 52 dropped = 52/60 s.
        StallCase {
            max_delta: 1.0,
            max_steps: 8,
            before: DT,
            stall: 10.0,
            ticks: 8,
            dropped: Flicks(52 * TICK_60HZ),
            left: Flicks(0),
        },
    ];
    let registry = scene_registry();
    let demo = Scene::load(&repo_path("assets/scenes/demo.ron"), &registry).expect("demo loads");
    for strategy in StepStrategy::ALL {
        for c in &cases {
            let settings = TimeSettings {
                max_delta: c.max_delta,
                max_steps: c.max_steps,
                strategy,
                ..TimeSettings::default()
            };
            let mut p = Pipeline::new(settings);
            p.load_scene(&demo, &registry).expect("demo loads");
            p.set_settings(settings).expect("valid settings");
            // 30 ordinary frames, then the frame before the stall.
            for _ in 0..30 {
                assert_eq!(p.step_frame(DT).ticks, 1);
            }
            let before = p.step_frame(c.before);
            let ticks_before = p.stepper().completed_ticks();
            assert_eq!(ticks_before, 30 + u64::from(before.ticks));
            let report = p.step_frame(c.stall);
            assert_eq!(report.ticks, c.ticks, "{strategy:?} {}", c.max_delta);
            assert_eq!(
                p.stepper().dropped(),
                c.dropped,
                "{strategy:?} {}",
                c.max_delta
            );
            assert_eq!(report.dropped_time, c.dropped.as_secs_f64());
            assert_eq!(p.clock().dropped_time, c.dropped.as_secs_f64());
            assert_eq!(p.stepper().accumulator(), c.left);
            // 11 ticks of 1/60 s are 11/60 s to the last bit (both divisions
            // are correctly rounded quotients of the same rational).
            if c.dropped == Flicks(11 * TICK_60HZ) {
                assert_eq!(report.dropped_time, 11.0 / 60.0);
            }
            // Simulation time advanced by the ticks that ran, nothing more.
            let done = ticks_before + u64::from(c.ticks);
            assert_eq!(p.stepper().completed_ticks(), done);
            assert_eq!(
                p.clock().simulation_time,
                Flicks(done * TICK_60HZ).as_secs_f64()
            );
            // The accounting identity: fed = simulated + dropped + accumulator.
            let fed = Flicks::from_secs_f64(DT).0 * 30
                + Flicks::from_secs_f64(c.before).0
                + Flicks::from_secs_f64(c.stall.min(c.max_delta)).0;
            assert_eq!(fed, done * TICK_60HZ + c.dropped.0 + c.left.0);
            // No death spiral: the stall frame ran its `c.ticks` ticks of work
            // (checked above, by count rather than by a wall-clock bound),
            // and the next frame is an ordinary one.
            assert_eq!(p.step_frame(DT).ticks, 1);
            assert_eq!(p.stepper().dropped(), c.dropped, "nothing more dropped");
        }
    }
    assert_eq!(FLICKS_PER_SECOND / 60, TICK_60HZ);
}
