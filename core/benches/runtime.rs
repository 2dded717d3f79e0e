//! Micro-benchmarks of the runtime's hot paths (divan): `cargo bench -p stepframe-core`.
//! The targets with ratios live in `stepframe bench`; these track each piece alone.

use std::hint::black_box;

use stepframe_core::trace_writer::TraceWriter;
use stepframe_core::{
    Behaviour, BodyDesc, Ctx, FixedStepper, Flicks, NoPhysics, ObjectDesc, ObjectId, Pipeline,
    Pose, Priority, Shape, StepStrategy, Telemetry, TimeSettings, Vec2, World,
};

fn main() {
    divan::main();
}

/// One frame of the stepper: advance by an irregular delta, expend every owed tick.
#[divan::bench(args = [StepStrategy::Accumulator, StepStrategy::StepCounting])]
fn stepper_frame(bencher: divan::Bencher, strategy: StepStrategy) {
    let mut s = FixedStepper::new(strategy, Flicks::per_hz(60));
    let deltas = [
        Flicks(4_900_000),
        Flicks(11_760_000),
        Flicks(30_000_000),
        Flicks(0),
    ];
    let mut i = 0;
    bencher.bench_local(|| {
        let owed = s.advance(black_box(deltas[i % 4]), 4).owed;
        for _ in 0..owed {
            s.expend();
        }
        i += 1;
    });
}

#[derive(Clone, Debug, stepframe_core::Inspect)]
struct Work(f32);

#[stepframe_core::behaviour]
impl Behaviour for Work {
    fn name(&self) -> &str {
        "Work"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, dt: f64) {
        self.0 = self.0 * 0.999 + dt as f32;
    }
}

fn session(behaviours: usize, bodies: bool) -> Pipeline {
    let mut w = World::new();
    for i in 0..behaviours {
        let mut o = ObjectDesc::new(format!("o{i}"), Pose::new(i as f32, 0.0, 0.0))
            .with_id(ObjectId(i as u64 + 1))
            .with_behaviour(Box::new(Work(0.0)), Priority((i % 8) as i32));
        if bodies {
            o = o.with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }));
        }
        w.spawn(o);
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(w, Box::new(NoPhysics), 1);
    p.step_frame(1.0 / 60.0);
    p
}

/// One tick of scheduler dispatch over N FixedUpdate behaviours in 8 priorities.
#[divan::bench(args = [100, 1_000, 10_000])]
fn scheduler_tick(bencher: divan::Bencher, n: usize) {
    let mut p = session(n, false);
    bencher.bench_local(|| p.step_frame(black_box(1.0 / 60.0)));
}

/// One tick with the JSONL trace writer observing 200 bodies (into memory).
#[divan::bench]
fn trace_writer_tick(bencher: divan::Bencher) {
    let mut p = session(200, true);
    p.set_tick_observer(Some(Box::new(TraceWriter::new(std::io::sink()))));
    bencher.bench_local(|| p.step_frame(black_box(1.0 / 60.0)));
}

/// Recording one frame into the telemetry ring.
#[divan::bench]
fn telemetry_record(bencher: divan::Bencher) {
    let mut p = Pipeline::new(TimeSettings::default());
    let report = p.step_frame(1.0 / 60.0);
    let clock = *p.clock();
    let mut t = Telemetry::default();
    bencher.bench_local(|| t.record(black_box(&report), black_box(&clock)));
}

/// A state hash of 1,000 bodies (what every traced tick pays).
#[divan::bench]
fn state_hash_1000_bodies(bencher: divan::Bencher) {
    let p = session(1_000, true);
    let _ = Vec2::ZERO;
    bencher.bench_local(|| black_box(p.state_hash()));
}
