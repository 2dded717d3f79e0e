//! Broken scenes: each error names the file, the line and the column, what
//! was expected, and its kind.

use super::*;

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
