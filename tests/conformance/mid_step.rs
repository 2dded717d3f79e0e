//! Mid-step hooks: code inside the physics step keeps the fixed trace
//! independent of the display. A small level on rapier with the built-in
//! one-way platform and conveyor (`stepframe-plugins`), a player driven by
//! a tick-stamped recording and crates dropped onto both, at 2 substeps, is
//! played at 30, 60 and 144 Hz, under irregular pacing and across a stall;
//! every run's trace of ticks 1..=TICKS, less each line's `frame` member
//! (the one pacing-dependent field), must be byte for byte the 60 Hz one.
//!
//! So the comparison cannot pass vacuously, the reference run must show the
//! hooks at work: the player goes up through the platform and stands on it,
//! and a crate is carried along the belt.

use std::path::Path;
use std::sync::{Arc, Mutex};

use stepframe_core::{
    FramePacer, InputSource, Pacing, Pipeline, RecordedEvent, Recording, Replay, Scene, Stall,
    TraceWriter,
};

/// Ticks every comparison covers: 6 s at 60 Hz, past the last event.
const TICKS: u64 = 360;

/// The level: a floor, a one-way platform (top at y = 2.1) over the
/// player's start, a belt (top at y = 0.1, from x = 4 to 20) to the right
/// carrying things at its default 2 m/s, the player (a 1 kg ball) and two crates, one dropped
/// on the platform and one on the belt.
const LEVEL: &str = r#"(
    settings: (
        gravity: (x: 0.0, y: -10.0),
        time: (fixed_hz: 60, substeps: 2),
        seed: 3,
    ),
    actions: (actions: [
        (name: "left", sources: [Key("ArrowLeft")]),
        (name: "right", sources: [Key("ArrowRight")]),
        (name: "jump", sources: [Key("Space")]),
    ]),
    objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5),
         body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 0.5)])),
        (id: 2, name: "Platform", transform: (x: 0.0, y: 2.0),
         body: (kind: Fixed, shapes: [Cuboid(hx: 2.0, hy: 0.1)]),
         behaviours: [(name: "OneWayPlatform")]),
        (id: 3, name: "Belt", transform: (x: 12.0, y: 0.05),
         body: (kind: Fixed, shapes: [Cuboid(hx: 8.0, hy: 0.05)]),
         behaviours: [(name: "Conveyor")]),
        (id: 4, name: "Player", transform: (x: 0.0, y: 0.3),
         body: (shapes: [Circle(radius: 0.3)], density: 3.54, can_sleep: false),
         behaviours: [(name: "PlayerController", priority: Early,
                       params: (jump_impulse: 8.0, move_force: 10.0, max_speed: 2.0))]),
        (id: 5, name: "Crate on the platform", transform: (x: 1.0, y: 4.0),
         body: (shapes: [Cuboid(hx: 0.2, hy: 0.2)], can_sleep: false)),
        (id: 6, name: "Crate on the belt", transform: (x: 5.0, y: 1.0),
         body: (shapes: [Cuboid(hx: 0.2, hy: 0.2)], can_sleep: false)),
    ],
)"#;

/// A jump under the platform at tick 20, a walk right off it from tick 150.
fn recording() -> Recording {
    let mut r = Recording::new(60);
    for (tick, key, value) in [
        (20, "Space", 1.0),
        (24, "Space", 0.0),
        (150, "ArrowRight", 1.0),
        (200, "ArrowRight", 0.0),
    ] {
        r.insert(RecordedEvent {
            tick,
            source: InputSource::Key(key.into()),
            value,
        });
    }
    r
}

/// The trace of ticks `1..=TICKS` of the level driven by `pacer`, less
/// each line's `frame` member.
fn trace(mut pacer: FramePacer) -> Vec<String> {
    let registry = stepframe_plugins::registry();
    let scene =
        Scene::parse(LEVEL, Path::new("mid_step.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut p = Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    p.set_tick_input(Some(Box::new(Replay::new(recording()))));
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    p.set_tick_observer(Some(Box::new(writer.clone())));
    while p.stepper().completed_ticks() < TICKS {
        p.step_frame(pacer.next_dt());
    }
    p.set_tick_observer(None);
    let bytes = Arc::try_unwrap(writer)
        .expect("the pipeline let the writer go")
        .into_inner()
        .expect("a lock nobody poisoned")
        .into_inner()
        .expect("writes into memory cannot fail");
    String::from_utf8(bytes)
        .expect("the trace is UTF-8")
        .lines()
        .take(TICKS as usize)
        .map(without_frame)
        .collect()
}

/// A trace line without its `"frame":N` member.
fn without_frame(line: &str) -> String {
    let at = line.find(",\"frame\":").expect("every line has a frame");
    let rest = &line[at + ",\"frame\":".len()..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    format!("{}{}", &line[..at], &rest[digits..])
}

/// `(x, y)` of object `id` in a trace line (`{"id":4,"x":0.5,"y":2.4,...}`).
fn position(line: &str, id: u64) -> (f64, f64) {
    let key = format!("{{\"id\":{id},\"x\":");
    let at = line.find(&key).expect("the object is in the line") + key.len();
    let mut fields = line[at..].split(',');
    let x = fields.next().expect("x").parse().expect("a number");
    let y = fields
        .next()
        .and_then(|f| f.strip_prefix("\"y\":"))
        .expect("y")
        .parse()
        .expect("a number");
    (x, y)
}

fn pacer(pacing: Pacing, stalls: &[Stall]) -> FramePacer {
    FramePacer::new(&pacing, stalls).expect("a valid pacing")
}

#[test]
fn traces_stay_identical_at_30_60_144_hz_and_irregular_pacing_with_mid_step_hooks_active() {
    let reference = trace(pacer(Pacing::Rate(60.0), &[]));
    assert_eq!(reference.len(), TICKS as usize);

    // The hooks were at work. The player (radius 0.3) went from under the
    // platform (bottom face 1.9) to standing on it (centre at 2.4)...
    let player: Vec<(f64, f64)> = reference.iter().map(|l| position(l, 4)).collect();
    let under = player
        .iter()
        .position(|&(x, y)| x.abs() < 2.0 && y + 0.3 < 1.9)
        .expect("under the platform");
    let stood = player[under..]
        .iter()
        .position(|&(x, y)| x.abs() < 2.0 && (y - 2.4).abs() < 0.01)
        .expect("then standing on it");
    assert!(
        player[under..under + stood]
            .iter()
            .all(|&(x, _)| x.abs() < 2.0),
        "through the platform, not round it"
    );
    // ...and the crate on the belt (top at 0.1, so resting at y = 0.3) was
    // carried right, 2 m in the last second.
    let (x_end, y_end) = position(&reference[TICKS as usize - 1], 6);
    let (x_before, _) = position(&reference[TICKS as usize - 61], 6);
    assert!((y_end - 0.3).abs() < 0.01, "on the belt: {y_end}");
    assert!(
        (x_end - x_before - 2.0).abs() < 0.05,
        "{x_before} -> {x_end}"
    );

    let stall = Stall {
        frame: 90,
        seconds: 0.4,
    };
    for (what, run) in [
        ("30 Hz", pacer(Pacing::Rate(30.0), &[])),
        ("144 Hz", pacer(Pacing::Rate(144.0), &[])),
        ("irregular:7", pacer(Pacing::Irregular(7), &[])),
        ("irregular:11", pacer(Pacing::Irregular(11), &[])),
        (
            "60 Hz with a 0.4 s stall",
            pacer(Pacing::Rate(60.0), &[stall]),
        ),
    ] {
        let other = trace(run);
        if let Some(k) = (0..reference.len()).find(|&k| reference[k] != other[k]) {
            panic!(
                "{what}: tick {} differs\n  60 Hz: {}\n  {what}: {}",
                k + 1,
                reference[k],
                other[k]
            );
        }
    }
}
