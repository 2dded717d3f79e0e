//! Scene format, one test binary by concern:
//!
//! | module | what |
//! |---|---|
//! | `errors` | positioned load errors, and their kinds |
//! | `actions` | key, button and axis names: unknown ones refused where they stand, `Shift` either side |
//! | `round_trip` | every field read, lossless load-save-load, atomic save |
//! | `sessions` | instantiation, loading and reloading a session, the registry |
//! | `params` | parameter edits mid-run |
//!
//! Every expected line and column was counted by hand in the test text
//! (columns are 1-based characters, as in a compiler message).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stepframe_core::scene::{ParamsError, Registry};
use stepframe_core::{
    Behaviour, BodyDesc, Ctx, ObjectId, Pipeline, Pose, Priority, Scene, SceneBehaviour,
    SceneObject, Shape, TimeSettings, Vec2,
};
use stepframe_core::{SceneErrorKind, SettingsError};

#[path = "../support/mod.rs"]
mod support;
use support::Probe;

mod actions;
mod errors;
mod params;
mod round_trip;
mod sessions;

/// Parameters of the test behaviour: typed, defaults, unknown fields rejected.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct ProbeParams {
    speed: f32,
    label: String,
}

#[derive(Clone, Debug)]
struct Noop;

impl Behaviour for Noop {
    fn name(&self) -> &str {
        "Noop"
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.register_typed::<ProbeParams, _>("Probe", |p| Probe::build(p.speed));
    r.register("Noop", "()", |_| Ok(Box::new(Noop)));
    r
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stepframe-scene-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A scene with every feature of the format once (`round_trip`, `sessions`).
const FULL: &str = r#"// Every feature of the format once.
#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.5, y: -3.25),
        time: (fixed_hz: 120, max_delta: 0.1, max_steps: 6, time_scale: 0.5, substeps: 2, strategy: StepCounting),
        seed: 99,
    ),
    actions: (
        actions: [
            (name: "jump", sources: [Key("Space"), GamepadButton("South")]),
            (name: "fire", sources: [MouseButton(0)]),
        ],
    ),
    objects: [
        (
            id: 10,
            name: "Root",
            transform: (x: 10.0, y: 0.0),
            children: [
                (id: 3, name: "Child", transform: (x: 1.0, y: 0.0), enabled: false,
                 body: (shapes: [Circle(radius: 0.25), Cuboid(hx: 0.1, hy: 0.2)], density: 2.0, restitution: 0.5, ccd: true)),
            ],
        ),
        (
            id: 20,
            name: "Adopted",
            parent: 10,
            transform: (x: 0.0, y: 2.0, angle: 0.5),
            body: (kind: Kinematic, shapes: [Capsule(half_height: 0.5, radius: 0.25)]),
            behaviours: [
                (name: "Probe", priority: -50, params: (
                    speed: 2.5,   // a comment inside the parameters
                    label: "x",
                )),
                (name: "Noop", priority: Late),
                (name: "Probe", params: (speed: 0.1e1)),
            ],
        ),
        (id: 30, name: "Wedge", body: (kind: Fixed, shapes: [ConvexPolygon(points: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0), (x: 0.0, y: 1.0)])])),
    ],
)
"#;
