//! Scene format: positioned load errors, atomic save, lossless round trip,
//! instantiation, and loading / reloading a session.
//!
//! Every expected line and column below was counted by hand in the test text
//! (columns are 1-based characters, as in a compiler message).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stepframe_core::scene::{ParamsError, Registry};
use stepframe_core::{
    Behaviour, BodyDesc, Ctx, ObjectId, Pipeline, Pose, Priority, Scene, SceneBehaviour,
    SceneObject, Shape, TimeSettings, Vec2,
};
use stepframe_core::{SceneErrorKind, SettingsError};

mod support;
use support::Probe;

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

/// (what, text, line, column, substring of the message)
const BROKEN: &[(&str, &str, usize, usize, &str)] = &[
    (
        "syntax: missing comma",
        "(\n    objects: [\n        (id: 1 name: \"A\"),\n    ],\n)",
        3,
        16,
        "comma",
    ),
    (
        "unknown top-level field",
        "(\n    setings: (seed: 1),\n    objects: [],\n)",
        2,
        5,
        "setings",
    ),
    (
        "unknown object field",
        "(\n    objects: [\n        (id: 1, name: \"A\", colour: 3),\n    ],\n)",
        3,
        28,
        "colour",
    ),
    (
        "unknown body field",
        "(\n    objects: [\n        (id: 1, name: \"A\", body: (shapes: [Circle(radius: 1.0)], mass: 2.0)),\n    ],\n)",
        3,
        66,
        "mass",
    ),
    (
        "unknown field in behaviour params",
        "(\n    objects: [\n        (id: 1, name: \"A\", behaviours: [(name: \"Probe\", params: (sped: 1.0))]),\n    ],\n)",
        3,
        66,
        "sped",
    ),
    (
        "unknown field in multi-line params",
        "(\n    objects: [\n        (id: 1, name: \"A\", behaviours: [(name: \"Probe\", params: (\n            speed: 1.0,\n            colour: 2,\n        ))]),\n    ],\n)",
        5,
        13,
        "colour",
    ),
    (
        "wrong type: id is a string",
        "(\n    objects: [\n        (id: \"one\", name: \"A\"),\n    ],\n)",
        3,
        14,
        "integer",
    ),
    (
        "wrong type inside params",
        "(\n    objects: [\n        (id: 1, name: \"A\", behaviours: [(name: \"Probe\", params: (speed: \"fast\"))]),\n    ],\n)",
        3,
        73,
        "float",
    ),
    (
        "missing id",
        "(\n    objects: [\n        (name: \"A\"),\n    ],\n)",
        3,
        19,
        "id",
    ),
    (
        "unknown behaviour lists the registered names",
        "(\n    objects: [\n        (id: 1, name: \"A\", behaviours: [(name: \"Prob\")]),\n    ],\n)",
        3,
        48,
        "unknown behaviour `Prob`; registered behaviours: Noop, Probe",
    ),
    (
        "bad params value",
        "(\n    objects: [\n        (id: 1, name: \"A\", behaviours: [(name: \"Probe\", params: (speed: -1.0))]),\n    ],\n)",
        3,
        65,
        "speed must be >= 0",
    ),
    (
        "duplicate id in a nested child",
        "(\n    objects: [\n        (id: 1, name: \"A\"),\n        (id: 2, name: \"B\", children: [\n            (id: 1, name: \"C\"),\n        ]),\n    ],\n)",
        5,
        13,
        "duplicate id 1",
    ),
    (
        "unknown parent",
        "(\n    objects: [\n        (id: 1, name: \"A\"),\n        (id: 2, name: \"B\", parent: 9),\n    ],\n)",
        4,
        9,
        "unknown parent 9",
    ),
    (
        "parent cycle",
        "(\n    objects: [\n        (id: 1, name: \"A\", parent: 2),\n        (id: 2, name: \"B\", parent: 1),\n    ],\n)",
        3,
        9,
        "cycle",
    ),
    (
        "invalid time settings",
        "(\n    settings: (\n        seed: 3,\n        time: (fixed_hz: 0),\n    ),\n)",
        4,
        15,
        "fixed_hz must be",
    ),
    (
        "unknown time settings field",
        "(\n    settings: (\n        time: (fixed_hz: 60, hz: 5),\n    ),\n)",
        3,
        30,
        "hz",
    ),
    (
        "non-positive radius",
        "(\n    objects: [\n        (id: 1, name: \"A\"),\n        (id: 2, name: \"B\", body: (shapes: [Circle(radius: 0.0)])),\n    ],\n)",
        4,
        9,
        "radius must be positive",
    ),
    // Finite sizes whose derived quantities do not fit in f32: each
    // used to load and freeze the body or put NaN into the trace.
    (
        "circle whose inertia overflows f32 (r = 1e10: ½ m r² = 1.6e40)",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Circle(radius: 1e10)])),\n    ],\n)",
        3,
        9,
        "too large for physics: its angular inertia would be",
    ),
    (
        "cuboid whose area overflows f32",
        "(\n    objects: [\n        (id: 1, name: \"A\"),\n        (id: 2, name: \"B\", body: (kind: Fixed, shapes: [Cuboid(hx: 1e20, hy: 1e20)])),\n    ],\n)",
        4,
        9,
        "its area would be 4.00e40",
    ),
    (
        "density whose mass overflows f32",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Cuboid(hx: 2.0, hy: 2.0)], density: 3e38)),\n    ],\n)",
        3,
        9,
        "its mass would be",
    ),
    (
        "convex polygon too large for physics",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [ConvexPolygon(points: [(x: 0.0, y: 0.0), (x: 1e12, y: 0.0), (x: 0.0, y: 1e12)])])),\n    ],\n)",
        3,
        9,
        "too large for physics",
    ),
    (
        "capsule too large for physics",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Capsule(half_height: 1e19, radius: 1e19)])),\n    ],\n)",
        3,
        9,
        "too large for physics",
    ),
    (
        "a body whose weight overflows f32 under the scene's gravity",
        "(\n    settings: (gravity: (x: 0.0, y: -1000.0)),\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Cuboid(hx: 1.0, hy: 1.0)], density: 1e36)),\n    ],\n)",
        4,
        9,
        "too heavy for physics",
    ),
    (
        "an initial speed whose square overflows f32 (rapier would stop the body dead)",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Circle(radius: 1.0)], velocity: (linear: (x: 3e19, y: 0.0)))),\n    ],\n)",
        3,
        9,
        "initial speed 3.00e19 m/s is too fast for physics",
    ),
    (
        "gravity too strong for physics",
        "(\n    settings: (gravity: (x: 0.0, y: -1e20)),\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Circle(radius: 1.0)])),\n    ],\n)",
        4,
        9,
        "too fast for physics",
    ),
    (
        "restitution above 1 (found by the fuzzer: 1e20 put NaN velocities into the demo)",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Circle(radius: 0.25)], restitution: 1e20)),\n    ],\n)",
        3,
        9,
        "restitution must be within 0..=1, got 100000000000000000000",
    ),
    (
        "a body whose contact impulses at rapier's speed cap overflow f32",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Cuboid(hx: 1.0, hy: 1.0)], density: 1e36)),\n    ],\n)",
        3,
        9,
        "a head-on contact at rapier's speed cap",
    ),
    (
        "a dynamic body too thin for physics (found by the fuzzer: 1/inertia beyond f32)",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [Cuboid(hx: 5e-39, hy: 0.3)])),\n    ],\n)",
        3,
        9,
        "too small for physics",
    ),
    (
        "a body whose world pose overflows f32 through its parent",
        "(\n    objects: [\n        (id: 1, name: \"Far\", transform: (x: 3e38, y: 0.0), children: [\n            (id: 2, name: \"Farther\", transform: (x: 3e38, y: 0.0), body: (shapes: [Circle(radius: 1.0)])),\n        ]),\n    ],\n)",
        4,
        13,
        "its world pose (its transform composed with its parents') is not finite",
    ),
    (
        "polygon with two points",
        "(\n    objects: [\n        (id: 2, name: \"B\", body: (shapes: [ConvexPolygon(points: [(x: 0.0, y: 0.0), (x: 1.0, y: 0.0)])])),\n    ],\n)",
        3,
        9,
        "at least 3 points",
    ),
    (
        "id 0 is reserved",
        "(\n    objects: [\n        (id: 0, name: \"Zero\"),\n    ],\n)",
        3,
        9,
        "reserved",
    ),
    // Soft bodies: strict like the rest of a body.
    (
        "soft: a spring damping that puts NaN into rapier (found by the fuzzer in soft.ron)",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), material: (edge: (frequency: 40.0, damping: 1e19))))),\n    ],\n)",
        3,
        9,
        "material.edge.damping must be within 0..=1e6, got 10000000000000000000",
    ),
    (
        "soft: unknown field",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), stiffness: 3.0))),\n    ],\n)",
        3,
        95,
        "stiffness",
    ),
    (
        "soft: unknown field in a shape",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particls: 24)))),\n    ],\n)",
        3,
        79,
        "particls",
    ),
    (
        "soft: unknown material field",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), material: (edge: (frequency: 3.0), hardness: 2.0)))),\n    ],\n)",
        3,
        130,
        "hardness",
    ),
    (
        "soft: unknown shape",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Blob(radius: 0.8)))),\n    ],\n)",
        3,
        61,
        "Blob",
    ),
    (
        "soft: wrong type for particles",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Rope(to: (x: 1.0, y: 0.0), particles: \"many\")))),\n    ],\n)",
        3,
        99,
        "integer",
    ),
    (
        "soft: kind Soft without a soft description",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft)),\n    ],\n)",
        3,
        9,
        "a Soft body needs a `soft: (shape: ..)` description",
    ),
    (
        "soft: a soft description on a dynamic body",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (soft: (shape: Disk(radius: 0.8, particles: 24)))),\n    ],\n)",
        3,
        9,
        "a `soft` description needs `kind: Soft`, this body is Dynamic",
    ),
    (
        "soft: rigid shapes on a soft body",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, shapes: [Circle(radius: 1.0)], soft: (shape: Disk(radius: 0.8, particles: 24)))),\n    ],\n)",
        3,
        9,
        "leave `shapes` empty",
    ),
    (
        "soft: a disk of two particles",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 2)))),\n    ],\n)",
        3,
        9,
        "a soft Disk needs at least 3 particles, got 2",
    ),
    (
        "soft: a pinned particle that does not exist",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Rope(to: (x: 2.0, y: 0.0), particles: 5), pinned: [0, 5]))),\n    ],\n)",
        3,
        9,
        "pinned particle 5 does not exist: the soft body has 5 particles (0..=4)",
    ),
    (
        "soft: a negative particle radius",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), particle_radius: -0.05))),\n    ],\n)",
        3,
        9,
        "soft body particle_radius must be positive and finite, got -0.05",
    ),
    (
        "soft: a clockwise polygon",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Polygon(points: [(x: 0.0, y: 0.0), (x: 0.0, y: 1.0), (x: 1.0, y: 0.0)])))),\n    ],\n)",
        3,
        9,
        "counter-clockwise around an area, got a signed area of -0.5",
    ),
    (
        "soft: a rope to its own origin",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Rope(to: (x: 0.0, y: 0.0), particles: 5)))),\n    ],\n)",
        3,
        9,
        "a soft Rope's `to` must be a finite point other than the origin",
    ),
    (
        "soft: a grid too fine for physics",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Grid(hx: 1.0, hy: 1.0, nx: 200, ny: 200)))),\n    ],\n)",
        3,
        9,
        "at most 16384 particles, this one has 40000",
    ),
    (
        "soft: Poisson's ratio of 0.5 or more",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), material: (poisson_ratio: 0.7)))),\n    ],\n)",
        3,
        9,
        "material.poisson_ratio must be within [0, 0.5), got 0.7",
    ),
    (
        "soft: a non-positive tear strain",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), material: (tear_strain: 0.0)))),\n    ],\n)",
        3,
        9,
        "material.tear_strain must be positive, got 0",
    ),
    (
        "a ball placed where f32 cannot resolve it",
        "(\n    objects: [\n        (id: 2, name: \"Far\", transform: (x: 1e9, y: 0.0), body: (shapes: [Circle(radius: 0.5)])),\n    ],\n)",
        3,
        9,
        "cannot be placed 1.000e9 m from the origin",
    ),
    (
        "soft: a mass of zero",
        "(\n    objects: [\n        (id: 2, name: \"J\", body: (kind: Soft, soft: (shape: Disk(radius: 0.8, particles: 24), mass: 0.0))),\n    ],\n)",
        3,
        9,
        "soft body mass must be positive and finite, got 0",
    ),
];

#[test]
fn broken_scenes_report_file_line_column_and_what_was_expected() {
    let registry = registry();
    let origin = Path::new("levels/broken.ron");
    for (what, text, line, column, expected) in BROKEN {
        let err = match Scene::parse(text, origin, &registry) {
            Ok(_) => panic!("{what}: loaded a broken scene"),
            Err(e) => e,
        };
        assert_eq!(
            (err.line, err.column),
            (*line, *column),
            "{what}: wrong position for `{}`",
            err.message
        );
        assert!(
            err.message.contains(expected),
            "{what}: message `{}` lacks `{expected}`",
            err.message
        );
        assert_eq!(err.file, origin);
        assert_eq!(
            err.to_string(),
            format!("levels/broken.ron:{line}:{column}: {}", err.message)
        );
    }
}

#[test]
fn a_missing_file_names_the_file() {
    let err = Scene::load(Path::new("/no/such/dir/scene.ron"), &registry()).unwrap_err();
    assert_eq!(err.file, Path::new("/no/such/dir/scene.ron"));
    assert_eq!(err.line, 0);
    assert!(
        err.to_string()
            .starts_with("/no/such/dir/scene.ron: cannot read")
    );
}

/// A caller can tell the faults apart without reading the message: the
/// editor and tools match on the kind (a missing file, a typo, a rate out of
/// range, a behaviour the build does not have).
#[test]
fn errors_say_their_kind() {
    let registry = registry();
    let cases: &[(&str, SceneErrorKind)] = &[
        (
            "(\n    objects: [\n        (id: 1 name: \"A\"),\n    ],\n)",
            SceneErrorKind::Syntax,
        ),
        ("(setings: (seed: 1), objects: [])", SceneErrorKind::Syntax),
        (
            "(settings: (time: (fixed_hz: 0)))",
            SceneErrorKind::Time(SettingsError::FixedHz(0)),
        ),
        (
            "(settings: (gravity: (x: 0.0, y: inf)))",
            SceneErrorKind::WorldSettings,
        ),
        (
            "(actions: (actions: [(name: \"\", sources: [])]))",
            SceneErrorKind::Actions,
        ),
        (
            "(objects: [(id: 1, name: \"A\"), (id: 1, name: \"B\")])",
            SceneErrorKind::Object,
        ),
        (
            "(objects: [(id: 1, name: \"A\", behaviours: [(name: \"Nope\")])])",
            SceneErrorKind::UnknownBehaviour,
        ),
        (
            "(objects: [(id: 1, name: \"A\", behaviours: [(name: \"Probe\", params: (speed: \"fast\"))])])",
            SceneErrorKind::Params,
        ),
    ];
    for (text, kind) in cases {
        match Scene::parse(text, Path::new("kinds.ron"), &registry) {
            Ok(_) => panic!("loaded `{text}`"),
            Err(e) => assert_eq!(e.kind, *kind, "`{text}`: {e}"),
        }
    }
    let missing = Scene::load(Path::new("/no/such/dir/scene.ron"), &registry).unwrap_err();
    assert_eq!(missing.kind, SceneErrorKind::Io);
}

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

#[test]
fn a_full_scene_reads_every_field() {
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry()).unwrap();
    assert_eq!(scene.settings.gravity, Vec2::new(0.5, -3.25));
    assert_eq!(scene.settings.seed, 99);
    let t = scene.settings.time;
    assert_eq!((t.fixed_hz, t.max_steps, t.substeps), (120, 6, 2));
    assert_eq!((t.max_delta, t.time_scale), (0.1, 0.5));
    assert_eq!(t.strategy, stepframe_core::StepStrategy::StepCounting);
    assert_eq!(scene.actions.actions.len(), 2);
    let child = scene.find(3).unwrap();
    assert_eq!(
        child.parent,
        Some(10),
        "the loader sets a nested child's parent"
    );
    assert!(!child.enabled, "a scene object's flag is a plain field");
    let body = child.body.as_ref().unwrap();
    assert_eq!(body.shapes.len(), 2);
    assert!(body.ccd);
    assert_eq!(
        (body.density, body.restitution, body.friction),
        (2.0, 0.5, 0.5)
    );
    let adopted = scene.find(20).unwrap();
    assert_eq!(adopted.parent, Some(10));
    assert_eq!(adopted.behaviours[0].priority, Priority(-50));
    assert_eq!(adopted.behaviours[1].priority, Priority(100));
    assert_eq!(
        adopted.behaviours[1].params, "()",
        "left-out params are `()`"
    );
    assert!(adopted.behaviours[0].params.contains("// a comment"));
    let order: Vec<u64> = scene.all_objects().iter().map(|o| o.id).collect();
    assert_eq!(order, vec![10, 3, 20, 30]);
}

#[test]
fn load_save_load_is_lossless() {
    let registry = registry();
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    let text = scene.to_ron().unwrap();
    let again = Scene::parse(&text, Path::new("saved.ron"), &registry).unwrap();
    assert_eq!(scene, again);
    assert_eq!(text, again.to_ron().unwrap(), "saving is a fixed point");

    let dir = temp_dir("roundtrip");
    let path = dir.join("full.ron");
    scene.save(&path).unwrap();
    assert_eq!(Scene::load(&path, &registry).unwrap(), scene);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_scene_built_in_code_round_trips() {
    let registry = registry();
    let scene = Scene {
        objects: vec![
            SceneObject::new(1, "Floor", Pose::new(0.0, -1.0, 0.0)).with_body(BodyDesc::with_kind(
                stepframe_core::BodyKind::Fixed,
                Shape::Cuboid { hx: 5.0, hy: 1.0 },
            )),
            SceneObject::new(2, "Mover", Pose::new(0.1, 0.2, 0.3))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 1.0 / 3.0 }))
                .with_behaviour(SceneBehaviour::new("Probe", Priority(7), "(speed: 1.5)"))
                .with_child(SceneObject::new(5, "Tip", Pose::new(0.0, 1.0, 0.0))),
        ],
        ..Scene::default()
    };
    let text = scene.to_ron().unwrap();
    let again = Scene::parse(&text, Path::new("code.ron"), &registry).unwrap();
    assert_eq!(scene, again);
}

#[test]
fn save_is_atomic_and_leaves_no_temporary_file() {
    let registry = registry();
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    let dir = temp_dir("atomic");
    let path = dir.join("level.ron");
    std::fs::write(&path, "old content\n").unwrap();

    // A scene that cannot be written (its parameters are not RON) fails before
    // anything touches the disk: the old file stays byte-identical.
    let mut broken = scene.clone();
    broken.objects[1].behaviours[0].params = "(speed: ".into();
    assert!(broken.save(&path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"old content\n");

    // The rename fails (the target is a non-empty directory): no temp file left.
    let blocker = dir.join("taken.ron");
    std::fs::create_dir_all(blocker.join("inside")).unwrap();
    let err = scene.save(&blocker).unwrap_err();
    assert_eq!(err.file, blocker);
    assert!(blocker.join("inside").is_dir());

    // A directory that does not exist: an error naming the file, nothing created.
    let nowhere = dir.join("missing").join("level.ron");
    assert!(scene.save(&nowhere).is_err());
    assert!(!dir.join("missing").exists());

    // A good save replaces the old file whole.
    scene.save(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        scene.to_ron().unwrap()
    );

    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        vec!["level.ron", "taken.ron"],
        "no temporary file remains"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn instantiate_keeps_ids_sets_parents_and_composes_body_poses() {
    let registry = registry();
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    let world = scene.instantiate(&registry).unwrap();
    let ids: Vec<u64> = world.objects().map(|o| o.id.0).collect();
    assert_eq!(ids, vec![3, 10, 20, 30]);
    let child = world.get(ObjectId(3)).unwrap();
    assert_eq!(child.parent, Some(ObjectId(10)));
    assert!(!child.is_enabled());
    // Root at (10, 0) with no rotation, child at local (1, 0): world (11, 0).
    assert_eq!(
        world.physics_simulation_pose(ObjectId(3)),
        Some(Pose::new(11.0, 0.0, 0.0))
    );
    // Adopted: parent (10, 0), local (0, 2) rotated by nothing: (10, 2), angle 0.5.
    assert_eq!(
        world.physics_simulation_pose(ObjectId(20)),
        Some(Pose::new(10.0, 2.0, 0.5))
    );
    let adopted = world.get(ObjectId(20)).unwrap();
    let names: Vec<&str> = adopted.behaviours.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, vec!["Probe", "Noop", "Probe"]);
    assert_eq!(adopted.behaviours[2].params, "(speed: 0.1e1)");
    assert_eq!(adopted.behaviours[0].priority, Priority(-50));
}

#[test]
fn instantiate_checks_a_scene_edited_in_memory() {
    let registry = registry();
    let mut scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    scene.objects[1].behaviours[0].params = "(speed: -2.0)".into();
    let err = scene.instantiate(&registry).unwrap_err();
    assert!(
        err.message.contains("object 20 `Adopted`"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("speed must be >= 0"),
        "{}",
        err.message
    );

    let mut scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    scene.objects[2].id = 10;
    let err = scene.instantiate(&registry).unwrap_err();
    assert!(err.message.contains("duplicate id 10"), "{}", err.message);
}

const SESSION_A: &str = "(
    settings: (time: (fixed_hz: 60), seed: 5),
    actions: (actions: [(name: \"jump\", sources: [Key(\"Space\")])]),
    objects: [
        (id: 1, name: \"Floor\", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 5.0, hy: 0.5)])),
        (id: 2, name: \"Ball\", transform: (x: 0.0, y: 3.0), body: (shapes: [Circle(radius: 0.5)])),
    ],
)";

const SESSION_B: &str = "(
    settings: (time: (fixed_hz: 60), seed: 5),
    objects: [
        (id: 7, name: \"Only\", transform: (x: 0.0, y: 3.0), body: (shapes: [Circle(radius: 0.5)])),
    ],
)";

#[test]
fn load_scene_starts_a_session_with_the_scene_settings() {
    let registry = registry();
    let mut text = SESSION_A.replace("fixed_hz: 60", "fixed_hz: 50");
    text = text.replace("seed: 5", "seed: 6");
    let scene = Scene::parse(&text, Path::new("a.ron"), &registry).unwrap();
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_scene(&scene, &registry).unwrap();
    assert_eq!(pipeline.world().len(), 2);
    assert_eq!(pipeline.input().map(), &scene.actions);
    // Settings apply at the next frame boundary: 0.05 s is 2 ticks at 50 Hz
    // (it would be 3 at the previous 60 Hz).
    let report = pipeline.step_frame(0.05);
    assert_eq!(pipeline.settings().fixed_hz, 50);
    assert_eq!(report.ticks, 2);
    // Gravity acts (rapier stage): the ball fell.
    let y = pipeline
        .world()
        .physics_simulation_pose(ObjectId(2))
        .unwrap()
        .y;
    assert!(y < 3.0, "ball at {y}");
}

#[test]
fn reload_with_a_broken_file_changes_nothing_and_a_good_one_restarts_simulation_time() {
    let registry = registry();
    let dir = temp_dir("reload");
    let path = dir.join("level.ron");
    std::fs::write(&path, SESSION_A).unwrap();
    let scene = Scene::load(&path, &registry).unwrap();
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_scene(&scene, &registry).unwrap();
    for _ in 0..30 {
        pipeline.step_frame(1.0 / 60.0);
    }
    // The toolbar changes the timing: 120 Hz, taking effect next frame.
    let toolbar = TimeSettings {
        fixed_hz: 120,
        ..TimeSettings::default()
    };
    pipeline.set_settings(toolbar).unwrap();
    pipeline.step_frame(1.0 / 60.0);
    assert_eq!(*pipeline.settings(), toolbar);

    // Broken file: error with position, session untouched.
    std::fs::write(
        &path,
        "(\n    objects: [\n        (id: 1, nme: \"x\"),\n    ],\n)",
    )
    .unwrap();
    let tick = pipeline.clock().simulation_tick;
    let frame_time = pipeline.clock().frame_time;
    let hash = pipeline.state_hash();
    let err = pipeline.reload_scene(&path, &registry).unwrap_err();
    assert_eq!((err.line, err.column), (3, 17), "{err}");
    assert_eq!(err.file, path);
    assert_eq!(pipeline.clock().simulation_tick, tick);
    assert_eq!(pipeline.state_hash(), hash);
    assert_eq!(pipeline.world().len(), 2);
    assert!(pipeline.world().get(ObjectId(2)).is_some());
    // ...and it keeps running.
    pipeline.step_frame(1.0 / 60.0);
    assert_eq!(pipeline.clock().simulation_tick, tick + 2);

    // Good file: new world, simulation time from zero, frame time goes on, the
    // toolbar's settings stay (the file says 60 Hz).
    std::fs::write(&path, SESSION_B).unwrap();
    let frame_time = frame_time + 1.0 / 60.0;
    let loaded = pipeline.reload_scene(&path, &registry).unwrap();
    assert_eq!(loaded.objects.len(), 1);
    assert_eq!(pipeline.clock().simulation_tick, 0);
    assert_eq!(pipeline.clock().simulation_time, 0.0);
    assert!((pipeline.clock().frame_time - frame_time).abs() < 1e-9);
    let ids: Vec<u64> = pipeline.world().objects().map(|o| o.id.0).collect();
    assert_eq!(ids, vec![7]);
    // 1/60 s at the kept 120 Hz is 2 ticks.
    let report = pipeline.step_frame(1.0 / 60.0);
    assert_eq!(report.ticks, 2);
    assert_eq!(*pipeline.settings(), toolbar);
    assert!(pipeline.clock().frame_time > frame_time);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn registry_names_are_sorted_and_defaults_parse() {
    let registry = registry();
    assert_eq!(registry.names(), vec!["Noop", "Probe"]);
    assert!(registry.contains("Probe") && !registry.contains("probe"));
    let defaults = registry.default_params("Probe").unwrap();
    assert!(registry.create("Probe", defaults).is_ok(), "{defaults}");
    assert!(registry.create("Probe", "()").is_ok());
}

// ----- parameter edits mid-run --------------------------------------------------

/// Counts its ticks (state) and pushes with `speed` (a parameter).
#[derive(Clone, Debug)]
struct Counter {
    speed: f32,
    ticks: u64,
}

impl Behaviour for Counter {
    fn name(&self) -> &str {
        "Counter"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.ticks += 1;
    }
    fn adopt_params(&mut self, fresh: &dyn Behaviour) -> bool {
        fresh
            .downcast_ref::<Self>()
            .map(|f| self.speed = f.speed)
            .is_some()
    }
}

#[test]
fn a_parameter_edit_keeps_the_behaviours_state_and_a_refused_one_changes_nothing() {
    let mut registry = registry();
    registry.register_typed::<ProbeParams, _>("Counter", |p| {
        if p.speed < 0.0 {
            return Err(ParamsError::new(format!(
                "speed must be >= 0, got {}",
                p.speed
            )));
        }
        Ok(Box::new(Counter {
            speed: p.speed,
            ticks: 0,
        }))
    });
    let scene = Scene::parse(
        "(objects: [(id: 1, name: \"A\", behaviours: [(name: \"Counter\", params: (speed: 1.0)), (name: \"Noop\")])])",
        Path::new("t.ron"),
        &registry,
    )
    .expect("scene");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("session");
    for _ in 0..10 {
        p.step_frame(1.0 / 60.0);
    }
    let state = |p: &Pipeline| p.behaviour_states(ObjectId(1))[0].state.clone();
    let authored = |p: &Pipeline| {
        p.world().get(ObjectId(1)).expect("A").behaviours[0]
            .params
            .clone()
    };
    assert!(state(&p).contains("ticks: 10"), "{}", state(&p));

    p.set_behaviour_params(ObjectId(1), 0, "(speed: 2.5)", &registry)
        .expect("Counter adopts parameters");
    let s = state(&p);
    assert!(s.contains("speed: 2.5") && s.contains("ticks: 10"), "{s}");
    assert_eq!(authored(&p), "(speed: 2.5)");
    p.step_frame(1.0 / 60.0);
    assert!(state(&p).contains("ticks: 11"));

    // Refusals: nothing changes.
    let before = (state(&p), authored(&p));
    let e = p
        .set_behaviour_params(ObjectId(1), 0, "(sped: 1.0)", &registry)
        .expect_err("unknown field");
    match &e {
        stepframe_core::ParamsEditError::Create {
            source: stepframe_core::scene::CreateError::Params(params),
            ..
        } => assert_eq!(params.position, Some((1, 2)), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("sped"), "{e}");
    let e = p
        .set_behaviour_params(ObjectId(1), 0, "(speed: -1.0)", &registry)
        .expect_err("out of range");
    assert!(e.to_string().contains("speed must be >= 0"), "{e}");
    let e = p
        .set_behaviour_params(ObjectId(1), 1, "()", &registry)
        .expect_err("Noop keeps no parameters");
    assert!(
        matches!(e, stepframe_core::ParamsEditError::NotAdjustable(ref n) if n == "Noop"),
        "{e}"
    );
    let e = p
        .set_behaviour_params(ObjectId(1), 2, "()", &registry)
        .expect_err("no third behaviour");
    assert!(
        matches!(
            e,
            stepframe_core::ParamsEditError::NoSuchBehaviour { index: 2, .. }
        ),
        "{e}"
    );
    assert_eq!((state(&p), authored(&p)), before);
}
