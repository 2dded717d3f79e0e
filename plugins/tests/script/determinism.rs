//! Scripted sessions are deterministic: identical tick hashes at any display
//! rate and pacing under both strategies, a snapshot restored mid-run
//! continues bit for bit with the scripts' state, and that state is in the
//! hash.

use super::*;

fn load_with(text: &str, settings: TimeSettings) -> Pipeline {
    let registry = stepframe_plugins::registry();
    let scene =
        Scene::parse(text, Path::new("test.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut pipeline = Pipeline::new(settings);
    pipeline
        .load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    pipeline.set_settings(settings).expect("valid settings");
    pipeline
}

/// The bundled scripts together: a guard, a coin, a dropper spawning balls at
/// random x (the session generator), and a ball pushed by input-free force.
fn determinism_scene() -> String {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts");
    let script = |name: &str| assets.join(name).to_string_lossy().into_owned();
    format!(
        r#"#![enable(implicit_some)]
(
    settings: (gravity: (x: 0.0, y: -9.81), time: (fixed_hz: 60), seed: 99),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 12.0, hy: 0.5)])),
        (id: 2, name: "Player", transform: (x: 3.0, y: 3.0), body: (shapes: [Circle(radius: 0.4)], can_sleep: false)),
        (id: 3, name: "Guard", transform: (x: -2.0, y: 0.5), body: (kind: Kinematic, shapes: [Cuboid(hx: 0.4, hy: 0.5)]),
         behaviours: [(name: "Script", params: (path: {patrol:?}, vars: {{"left": -6.0, "right": 1.0, "speed": 1.5}}))]),
        (id: 4, name: "Coin", transform: (x: 3.0, y: 0.6), body: (kind: Fixed, shapes: [Circle(radius: 0.3)], sensor: true),
         behaviours: [(name: "Script", params: (path: {pickup:?}, vars: {{"player": 2, "value": 10}}))]),
        (id: 5, name: "Dropper", transform: (x: -2.0, y: 6.0),
         behaviours: [(name: "Script", params: (path: {dropper:?}, vars: {{"every": 15, "spread": 3.0, "max": 10}}))]),
    ],
)"#,
        patrol = script("patrol.rhai"),
        pickup = script("pickup.rhai"),
        dropper = script("dropper.rhai"),
    )
}

/// Collects (tick, state hash) after every completed tick.
#[derive(Clone, Default)]
struct Hashes(Arc<Mutex<Vec<(u64, u64)>>>);

impl TickObserver for Hashes {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        self.0
            .lock()
            .expect("hash list")
            .push((record.clock.simulation_tick, record.hash));
    }
}

impl Hashes {
    fn take(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut *self.0.lock().expect("hash list"))
    }
}

/// Irregular display pacing: a fixed pseudo-random walk of frame times between
/// 2 ms and 60 ms, with a 300 ms stall every 50 frames.
fn irregular(frame: usize) -> f64 {
    if frame % 50 == 49 {
        return 0.3;
    }
    let x = (frame as u64)
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    0.002 + (x >> 33) as f64 / (1u64 << 31) as f64 * 0.058
}

fn hashes_under(
    strategy: StepStrategy,
    pacing: &dyn Fn(usize) -> f64,
    ticks: u64,
) -> Vec<(u64, u64)> {
    let settings = TimeSettings {
        strategy,
        max_steps: 32,
        ..TimeSettings::default()
    };
    let mut pipeline = load_with(&determinism_scene(), settings);
    let hashes = Hashes::default();
    pipeline.set_tick_observer(Some(Box::new(hashes.clone())));
    let mut frame = 0;
    while pipeline.clock().simulation_tick < ticks {
        pipeline.step_frame(pacing(frame));
        frame += 1;
    }
    // Every 15 ticks a drop, at most 10 (ticks 15..=150); the coin is gone:
    // 5 authored objects - 1 + 10.
    assert_eq!(pipeline.world().len(), 14, "{strategy:?}");
    let mut all = hashes.take();
    all.truncate(ticks as usize);
    all
}

#[test]
fn scripted_scene_gives_identical_tick_hashes_at_30_60_144_hz_and_irregular_pacing_under_both_strategies()
 {
    const TICKS: u64 = 240;
    let reference = hashes_under(StepStrategy::Accumulator, &|_| DT, TICKS);
    assert_eq!(reference.len(), TICKS as usize);
    assert_eq!(
        reference.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        (1..=TICKS).collect::<Vec<_>>()
    );
    let paces: [(&str, &dyn Fn(usize) -> f64); 4] = [
        ("30 Hz", &|_| 1.0 / 30.0),
        ("60 Hz", &|_| 1.0 / 60.0),
        ("144 Hz", &|_| 1.0 / 144.0),
        ("irregular", &irregular),
    ];
    for strategy in [StepStrategy::Accumulator, StepStrategy::StepCounting] {
        for (name, pace) in paces {
            let got = hashes_under(strategy, pace, TICKS);
            if let Some(at) = got.iter().zip(&reference).position(|(a, b)| a != b) {
                panic!("{strategy:?} at {name}: first mismatch at tick {}", at + 1);
            }
        }
    }
}

#[test]
fn snapshot_restore_mid_run_continues_bit_identically_with_script_state() {
    let mut pipeline = load(&determinism_scene());
    let hashes = Hashes::default();
    pipeline.set_tick_observer(Some(Box::new(hashes.clone())));
    for _ in 0..50 {
        pipeline.step_frame(DT);
    }
    let snapshot = pipeline.snapshot();
    let at_snapshot = pipeline.state_hash();
    hashes.take();
    for _ in 0..100 {
        pipeline.step_frame(DT);
    }
    let first = hashes.take();
    assert_ne!(
        pipeline.state_hash(),
        at_snapshot,
        "scripts and bodies moved on"
    );

    pipeline.restore(&snapshot);
    assert_eq!(pipeline.state_hash(), at_snapshot);
    for _ in 0..100 {
        pipeline.step_frame(DT);
    }
    assert_eq!(
        hashes.take(),
        first,
        "the re-run after restore is bit-identical"
    );
}

#[test]
fn script_state_is_in_the_hash() {
    // Two sessions that differ only in a script variable that nothing else
    // reads have different hashes.
    let dir = temp_dir("hash");
    let text = "let n = 0;\nfn fixed_update(dt) {\n    n += step;\n}\n";
    let path = write_script(&dir, "idle.rhai", text);
    let mut a = load(&scene_text(&path, r#"{"step": 1}"#, "", ""));
    let mut b = load(&scene_text(&path, r#"{"step": 2}"#, "", ""));
    let (ha, hb) = (a.state_hash(), b.state_hash());
    assert_ne!(ha, hb, "vars are state");
    a.step_frame(DT);
    b.step_frame(DT);
    assert_ne!(a.state_hash(), b.state_hash());
    std::fs::remove_dir_all(&dir).ok();
}
