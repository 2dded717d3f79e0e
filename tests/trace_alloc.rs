//! Writing the trace and the telemetry costs no heap allocation per tick or
//! frame in steady state: both writers format into one reused `String`. A
//! counting global allocator, in a test binary of its own so no other test's
//! allocations count.

use std::sync::{Arc, Mutex};

use stepframe_core::{
    BodyDesc, NoPhysics, ObjectDesc, Pipeline, Pose, Shape, TelemetryFormat, TelemetryWriter,
    TickObserver, TimeSettings, TraceWriter, World,
};

#[global_allocator]
static GLOBAL: stepframe_tests::CountingAllocator = stepframe_tests::CountingAllocator;

#[test]
fn steady_state_trace_and_telemetry_writing_allocates_nothing() {
    let mut world = World::new();
    for i in 0..100u64 {
        world.spawn(
            ObjectDesc::new(format!("b{i}"), Pose::new(i as f32 * 0.37, -1.25, 0.5))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.25 })),
        );
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(NoPhysics), 0);
    // Both writers go to io::sink(): only formatting is measured.
    let trace = Arc::new(Mutex::new(TraceWriter::new(std::io::sink())));
    let observers: Vec<Box<dyn TickObserver>> = vec![Box::new(trace.clone())];
    p.set_tick_observer(Some(Box::new(observers)));
    let mut telemetry = TelemetryWriter::new(std::io::sink(), TelemetryFormat::JsonLines);
    // Warm up: buffers grow to their largest line, the cohort settles. At
    // 144 Hz frames run 0 or 1 tick: both kinds of frame are covered.
    for _ in 0..50 {
        p.step_frame(1.0 / 144.0);
        telemetry
            .write_frame(&p.step_frame(1.0 / 30.0), p.clock())
            .expect("sink");
    }
    let ((), allocations) = stepframe_tests::count_allocations(|| {
        for _ in 0..200 {
            // step_frame returns its report by value (a copy, no heap data).
            let report = p.step_frame(1.0 / 144.0);
            let _ = telemetry.write_frame(&report, p.clock());
        }
    });
    let written = trace.lock().expect("lock").ticks();
    // Time fed, in flicks: 50 × (4,900,000 + 23,520,000) + 200 × 4,900,000 =
    // 2,401,000,000, which holds 204 whole 60 Hz ticks of 11,760,000 (no
    // frame owes more than the cap of 4).
    assert_eq!(written, 204);
    assert_eq!(allocations, 0, "allocations while writing {written} ticks");
}
