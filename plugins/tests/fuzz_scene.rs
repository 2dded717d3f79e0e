//! Fuzzing the scene loader with proptest: real scenes, randomly damaged, must
//! never make the loader (or a session built from what it accepts) panic.
//!
//! `cargo-fuzz` needs a nightly toolchain; proptest runs on stable, in CI, and
//! shrinks a failure to a small list of mutations. The seeds are every bundled
//! scene (`assets/scenes/*.ron`) plus a small built-in scene (so the test has a
//! seed even when the directory is empty). Each case picks a seed and applies
//! one to six mutations (mostly one or two): bit flips, deletions, insertions of RON punctuation
//! (`( ) [ ] { } , : "`) and of awkward characters (multi-byte, BOM, NUL,
//! newlines), duplicated spans, truncation, numbers swapped for huge, tiny,
//! negative, NaN or infinite values or arbitrary `f64`/`i64`, identifiers swapped for other fields,
//! variants, behaviour names or junk, extension headers, and deep nesting.
//!
//! Three classes aim at input that is finite but that physics cannot
//! take: numbers swapped for *huge finite* values (sizes, densities,
//! transforms, velocities, gravity whose derived quantities overflow f32),
//! and *hostile objects* inserted into the scene: a body too large for
//! physics, a body whose pose composed with its parent's is infinite (an
//! unborn body at load), a spawner far out whose spawns do not fit in f32
//! (unborn bodies at run time), forces, impulses, velocities and kinematic
//! targets whose results overflow (an attractor, a mover, and the script
//! `scripts/fault_hostile.rhai`, which also spawns bodies physics refuses).
//!
//! The property, for every case:
//! - `Scene::parse` returns (no panic);
//! - an error names the file (`SceneError::file`, and its `Display` starts
//!   with the path), has line ≥ 1 and column ≥ 1 that point into the text (at
//!   most one past the end of a line), and a non-empty message;
//! - a scene it accepts loads into a `Pipeline` (`load_scene`, which
//!   instantiates it) and runs a few frames without panicking;
//! - nothing non-finite reaches the trace or the hash: no trace line of those
//!   frames has a `null` (a non-finite number), and every committed pose and
//!   velocity in the world is finite.
//!
//! Cases: `STEPFRAME_FUZZ_CASES` (default 256, a few seconds). A long run:
//!
//! ```text
//! STEPFRAME_FUZZ_CASES=200000 cargo test --release -p stepframe-plugins --test fuzz_scene
//! ```
//!
//! A failure prints the seed scene, the mutations and the mutated text (shrunk),
//! and proptest saves the case in `plugins/tests/fuzz_scene.proptest-regressions`
//! so it is replayed first on every later run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use std::sync::{Arc, Mutex};

use stepframe_core::{Pipeline, Registry, Scene, TimeSettings, TraceWriter};

/// A small scene using every part of the format: settings with every time
/// field, actions, nested children, bodies of several shapes and kinds, and
/// behaviours with and without parameters and priorities.
const SAMPLE: &str = r#"// sample.ron: the fuzzer's built-in seed.
#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.0, y: -9.81),
        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, substeps: 2, strategy: Accumulator),
        seed: 7,
    ),
    actions: (actions: [(name: "jump", sources: [Key("Space"), GamepadButton("South")])]),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -1.0),
         body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 1.0)], friction: 0.8)),
        (id: 2, name: "Player", transform: (x: 0.0, y: 2.0, angle: 0.1),
         body: (shapes: [Circle(radius: 0.5)], can_sleep: false),
         behaviours: [
            (name: "PlayerController", priority: Early, params: (jump_impulse: 4.0)),
            (name: "FollowCamera", priority: Camera),
         ],
         children: [(id: 3, name: "Hat", transform: (x: 0.0, y: 0.6))]),
        (id: 4, name: "Mover", transform: (x: 3.0, y: 0.5),
         body: (kind: Kinematic, shapes: [Cuboid(hx: 1.0, hy: 0.2)]),
         behaviours: [(name: "KinematicMover", priority: -50,
            params: (waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: PingPong))]),
        (id: 5, name: "Vortex", transform: (x: -3.0, y: 3.0),
         behaviours: [(name: "Attractor", params: (radius: 2.0, strength: 5.0))]),
        (id: 6, name: "Spawner", transform: (x: 0.0, y: 6.0),
         behaviours: [(name: "Spawner", params: (interval: 0.05, max_alive: 3, lifetime: 1.0))]),
        (id: 7, name: "Pit", transform: (x: 0.0, y: -8.0),
         body: (kind: Fixed, shapes: [Cuboid(hx: 30.0, hy: 1.0)], sensor: true),
         behaviours: [(name: "KillZone")]),
    ],
)
"#;

/// Punctuation RON gives meaning to.
const PUNCT: &[u8] = b"()[]{},:\"";

/// Characters that trip byte/char confusions and line counting.
const AWKWARD: &[&str] = &[
    "é", "€", "𝄞", "\u{feff}", "\0", "\n", "\r\n", "\r", "\t", " ", "'", "\\", "#", "/", "//",
    "/*", "*/", "r#\"", "b\"", "-", "+", ".", "_", "e",
];

/// Values a number is swapped for.
const NUMBERS: &[&str] = &[
    "0",
    "-0.0",
    "-1",
    "-1.0",
    "1e308",
    "-1e308",
    "1e999",
    "1e-320",
    "NaN",
    "inf",
    "-inf",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "340282366920938463463374607431768211456",
    "0x7fffffff",
    "1_000",
    "0.0000001",
    "3.4028236e38",
    "1.",
    ".5",
    "1e",
];

/// Finite values whose derived quantities overflow f32 somewhere: an area, a
/// mass, an inertia, a weight, a speed's square, a composed pose.
const HUGE: &[&str] = &[
    "5e9",
    "1e10",
    "1e19",
    "2e19",
    "1e20",
    "1e30",
    "1e36",
    "1e38",
    "3e38",
    "3.4028235e38",
    "-3e38",
];

/// Objects inserted at the start of the scene's object list (ids no scene
/// uses), each one of the classes of the module docs.
const HOSTILE: &[&str] = &[
    // A body whose world pose (its parent's composed with its own) is infinite.
    r#"(id: 9001, name: "Far", transform: (x: 3e38, y: 0.0), children: [(id: 9002, name: "Farther", transform: (x: 3e38, y: 0.0), body: (shapes: [Circle(radius: 0.5)]))]),"#,
    // Too large for physics: an inertia of 1.6e40.
    r#"(id: 9003, name: "Huge", transform: (x: 0.0, y: 5.0), body: (shapes: [Circle(radius: 1e10)])),"#,
    // A mass of 1.2e39.
    r#"(id: 9004, name: "Heavy", body: (shapes: [Cuboid(hx: 1.0, hy: 1.0)], density: 3e38)),"#,
    // Spawns far out, some beyond f32, and too fast: refused at run time.
    r#"(id: 9005, name: "Far Rain", transform: (x: 3e38, y: 3e38), behaviours: [(name: "Spawner", params: (interval: 0.02, spread: 3e38, velocity: (x: 3e38, y: 0.0)))]),"#,
    // Writes every kind of overflowing command and spawn, every tick.
    r#"(id: 9006, name: "Hostile", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.3)]), behaviours: [(name: "Script", params: (path: "scripts/fault_hostile.rhai"))]),"#,
    // Forces whose results overflow on every body it reaches.
    r#"(id: 9007, name: "Storm", behaviours: [(name: "Attractor", params: (radius: 3e38, strength: 3e38))]),"#,
    // Kinematic targets whose velocities overflow.
    r#"(id: 9008, name: "Rush", transform: (x: 0.0, y: 1.0), body: (kind: Kinematic, shapes: [Cuboid(hx: 0.5, hy: 0.1)]), behaviours: [(name: "KinematicMover", params: (waypoints: [(x: 0.0, y: 0.0), (x: 3e38, y: 0.0)], speed: 3e38))]),"#,
];

/// Identifiers an identifier is swapped for.
const IDENTS: &[&str] = &[
    "Some",
    "None",
    "true",
    "false",
    "Fixed",
    "Dynamic",
    "Kinematic",
    "Circle",
    "Cuboid",
    "Capsule",
    "ConvexPolygon",
    "First",
    "Input",
    "Early",
    "Default",
    "Late",
    "Camera",
    "Last",
    "Accumulator",
    "StepCounting",
    "Key",
    "MouseButton",
    "GamepadButton",
    "GamepadAxis",
    "PingPong",
    "Loop",
    "Spawner",
    "Attractor",
    "KillZone",
    "Faulty",
    "Script",
    "PlayerController",
    "FollowCamera",
    "KinematicMover",
    "Projectile",
    "Panic",
    "NanForce",
    "NanPose",
    "BusyWait",
    "id",
    "name",
    "transform",
    "body",
    "behaviours",
    "children",
    "params",
    "priority",
    "settings",
    "gravity",
    "time",
    "seed",
    "actions",
    "objects",
    "sources",
    "shapes",
    "kind",
    "x",
    "y",
    "angle",
    "fixed_hz",
    "max_steps",
    "substeps",
    "time_scale",
    "max_delta",
    "strategy",
    "interval",
    "max_alive",
    "r#type",
    "enable",
    "implicit_some",
    "_",
    "é",
    "A",
];

/// Extensions a header may enable.
const EXTENSIONS: &[&str] = &[
    "implicit_some",
    "unwrap_newtypes",
    "unwrap_variant_newtypes",
    "explicit_struct_names",
    "no_such_extension",
];

/// One edit of the scene bytes. Positions are [`Index`]es, resolved against the
/// text as it is when the edit applies.
#[derive(Clone, Debug)]
enum Mutation {
    /// Flips one bit of one byte.
    FlipBit(Index, u8),
    /// Deletes up to `len` bytes.
    Delete(Index, usize),
    /// Inserts one RON punctuation byte.
    Punct(Index, Index),
    /// Inserts an awkward character or sequence.
    Awkward(Index, Index),
    /// Copies a span (up to `len` bytes) to another place.
    Duplicate(Index, usize, Index),
    /// Cuts the text short.
    Truncate(Index),
    /// Replaces the n-th number with another value.
    Number(Index, Index),
    /// Replaces the n-th number with an arbitrary `f64` (any class: NaN,
    /// infinities, subnormals, huge), written as Rust prints it.
    Float(Index, f64),
    /// Replaces the n-th number with an arbitrary `i64`.
    Int(Index, i64),
    /// Replaces the n-th identifier with another.
    Ident(Index, Index),
    /// Prepends an `#![enable(...)]` header.
    Header(Index),
    /// Inserts `depth` opening brackets (and as many closing ones right after).
    Nest(Index, usize, bool),
    /// Replaces the n-th number with a huge finite value ([`HUGE`]).
    Huge(Index, Index),
    /// Inserts a hostile object ([`HOSTILE`]) at the start of the object list.
    Hostile(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        (any::<Index>(), 1usize..32).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, c)| Mutation::Punct(i, c)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, c)| Mutation::Awkward(i, c)),
        (any::<Index>(), 1usize..256, any::<Index>())
            .prop_map(|(f, n, t)| Mutation::Duplicate(f, n, t)),
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), any::<Index>()).prop_map(|(n, v)| Mutation::Number(n, v)),
        (any::<Index>(), any::<f64>()).prop_map(|(n, v)| Mutation::Float(n, v)),
        (any::<Index>(), any::<i64>()).prop_map(|(n, v)| Mutation::Int(n, v)),
        (any::<Index>(), any::<Index>()).prop_map(|(n, v)| Mutation::Ident(n, v)),
        any::<Index>().prop_map(Mutation::Header),
        (any::<Index>(), 1usize..2000, any::<bool>()).prop_map(|(i, d, c)| Mutation::Nest(i, d, c)),
        (any::<Index>(), any::<Index>()).prop_map(|(n, v)| Mutation::Huge(n, v)),
        any::<Index>().prop_map(Mutation::Hostile),
    ]
}

/// Byte ranges of the number tokens of `text` (digits, signs, dots, exponents).
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let starts = text[i].is_ascii_digit()
            || (text[i] == b'-' && text.get(i + 1).is_some_and(u8::is_ascii_digit));
        let inside_word = i > 0 && (text[i - 1].is_ascii_alphanumeric() || text[i - 1] == b'_');
        if starts && !inside_word {
            let start = i;
            i += 1;
            while i < text.len()
                && (text[i].is_ascii_digit()
                    || matches!(text[i], b'.' | b'e' | b'E' | b'_')
                    || (matches!(text[i], b'-' | b'+') && matches!(text[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the identifiers of `text` (also inside strings: behaviour
/// names are strings).
fn identifiers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_alphabetic() || text[i] == b'_' {
            let start = i;
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                i += 1;
            }
            out.push((start, i));
        } else if text[i].is_ascii_digit() {
            // Skip numbers whole, so `1e5` is not an identifier `e5`.
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Where position `i` falls in a text of `len` bytes (0..=len).
fn at(i: &Index, len: usize) -> usize {
    i.index(len + 1)
}

/// Replaces the n-th number token of `text` with `value`.
fn replace_number(text: &mut Vec<u8>, n: &Index, value: &str) {
    let found = numbers(text);
    if !found.is_empty() {
        let (s, e) = found[n.index(found.len())];
        text.splice(s..e, value.bytes());
    }
}

fn apply(text: &mut Vec<u8>, m: &Mutation) {
    let len = text.len();
    match m {
        Mutation::FlipBit(i, bit) => {
            if len > 0 {
                text[i.index(len)] ^= 1 << bit;
            }
        }
        Mutation::Delete(i, n) => {
            let start = at(i, len);
            let end = (start + n).min(len);
            text.drain(start..end);
        }
        Mutation::Punct(i, c) => {
            let byte = PUNCT[c.index(PUNCT.len())];
            text.insert(at(i, len), byte);
        }
        Mutation::Awkward(i, c) => {
            let s = AWKWARD[c.index(AWKWARD.len())];
            let p = at(i, len);
            text.splice(p..p, s.bytes());
        }
        Mutation::Duplicate(from, n, to) => {
            let start = at(from, len);
            let end = (start + n).min(len);
            let span = text[start..end].to_vec();
            let p = at(to, len);
            text.splice(p..p, span);
        }
        Mutation::Truncate(i) => text.truncate(at(i, len)),
        Mutation::Number(n, v) => replace_number(text, n, NUMBERS[v.index(NUMBERS.len())]),
        Mutation::Float(n, v) => replace_number(text, n, &format!("{v:?}")),
        Mutation::Int(n, v) => replace_number(text, n, &v.to_string()),
        Mutation::Ident(n, v) => {
            let found = identifiers(text);
            if !found.is_empty() {
                let (s, e) = found[n.index(found.len())];
                text.splice(s..e, IDENTS[v.index(IDENTS.len())].bytes());
            }
        }
        Mutation::Header(e) => {
            let header = format!("#![enable({})]\n", EXTENSIONS[e.index(EXTENSIONS.len())]);
            text.splice(0..0, header.into_bytes());
        }
        Mutation::Huge(n, v) => replace_number(text, n, HUGE[v.index(HUGE.len())]),
        Mutation::Hostile(h) => {
            let object = HOSTILE[h.index(HOSTILE.len())];
            let key = b"objects: [";
            if let Some(at) = text.windows(key.len()).position(|w| w == key) {
                let p = at + key.len();
                text.splice(p..p, object.bytes());
            }
        }
        Mutation::Nest(i, depth, square) => {
            let (open, close) = if *square { (b'[', b']') } else { (b'(', b')') };
            let p = at(i, len);
            let mut nest = vec![open; *depth];
            nest.extend(std::iter::repeat_n(close, *depth));
            text.splice(p..p, nest);
        }
    }
}

/// The seeds: `(file name, text)`, bundled scenes first (sorted), then the
/// built-in sample.
fn seeds() -> &'static [(String, String)] {
    static SEEDS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "ron"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let mut seeds: Vec<(String, String)> = files
            .iter()
            .filter_map(|p| {
                let text = std::fs::read_to_string(p).ok()?;
                let name = p.file_name()?.to_string_lossy().into_owned();
                Some((name, text))
            })
            .collect();
        seeds.push(("sample.ron".to_string(), SAMPLE.to_string()));
        seeds
    })
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    // One session's registry for every case: the bundled scenes name their
    // scripts relative to `assets/`.
    REGISTRY.get_or_init(|| {
        let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
        stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes)
    })
}

fn cases() -> u32 {
    std::env::var("STEPFRAME_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Does (line, column) point into `text`: an existing line, at most one
/// column past its last character? Lines end at `\n` (ron's own counting).
fn points_into(text: &str, line: usize, column: usize) -> bool {
    let Some(l) = text.split('\n').nth(line - 1) else {
        return false;
    };
    column <= l.chars().count() + 1
}

/// How a case that kept every property ended.
#[derive(Debug)]
enum Outcome {
    /// The loader rejected the text with a positioned error.
    Rejected,
    /// The loader accepted it; it loaded and ran.
    Loaded,
}

/// Runs one mutated text through the loader and, if it loads, a short session.
/// Returns a description of a broken property, if any.
fn check(text: &str, path: &Path) -> Result<Outcome, String> {
    let registry = registry();
    match Scene::parse(text, path, registry) {
        Err(e) => {
            if e.file != path {
                return Err(format!("error names {:?}, not {path:?}: {e}", e.file));
            }
            let shown = e.to_string();
            if !shown.starts_with(&*path.to_string_lossy()) {
                return Err(format!("Display does not start with the file: {shown}"));
            }
            if e.line == 0 || e.column == 0 {
                return Err(format!("no position: {shown}"));
            }
            if !points_into(text, e.line, e.column) {
                return Err(format!("position outside the text: {shown}"));
            }
            if e.message.trim().is_empty() {
                return Err(format!("empty message: {shown}"));
            }
            Ok(Outcome::Rejected)
        }
        Ok(scene) => {
            let mut pipeline = Pipeline::new(TimeSettings::default());
            pipeline
                .load_scene(&scene, registry)
                .map_err(|e| format!("parsed but did not load: {e}"))?;
            // A mutated scene may ask for up to 10,000 Hz, 64× time scale and
            // 2³²−1 steps per frame (all valid): cap the steps at 8 so a case
            // stays fast; every other setting is the scene's.
            let capped = TimeSettings {
                max_steps: scene.settings.time.max_steps.min(8),
                ..scene.settings.time
            };
            pipeline
                .set_settings(capped)
                .map_err(|e| format!("valid settings refused after capping: {e}"))?;
            // A few frames of one tick each, then a slow one that hits the cap.
            // A Faulty behaviour may busy-wait up to 60 s by design, or end the
            // process (abort, stack overflow, allocation, an endless loop):
            // such a scene is loaded but not run.
            let slow = scene.all_objects().iter().any(|o| {
                o.behaviours.iter().any(|b| {
                    b.name == "Faulty"
                        && ["BusyWait", "Abort", "StackOverflow", "Allocate", "Spin"]
                            .iter()
                            .any(|f| b.params.contains(f))
                })
            });
            if !slow {
                let trace = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
                pipeline.set_tick_observer(Some(Box::new(trace.clone())));
                for dt in [1.0 / 60.0, 1.0 / 60.0, 1.0 / 60.0, 0.25] {
                    pipeline.step_frame(dt);
                }
                pipeline.set_tick_observer(None);
                let trace = trace.lock().map_err(|_| "trace lock".to_string())?;
                let text = String::from_utf8_lossy(trace.get_ref());
                if let Some(line) = text.lines().find(|l| l.contains("null")) {
                    return Err(format!("a non-finite number reached the trace: {line}"));
                }
                for o in pipeline.world().objects() {
                    if let Some(b) = &o.body
                        && !(b.committed.is_finite() && b.velocity.is_finite())
                    {
                        return Err(format!("{} committed a non-finite state: {b:?}", o.id));
                    }
                }
            }
            Ok(Outcome::Loaded)
        }
    }
}

#[test]
fn every_seed_is_a_valid_scene_or_reports_where_it_is_not() {
    // The built-in seed must load, so the fuzzer always starts from a scene the
    // loader accepts; bundled scenes are checked by `tests/scenes.rs`, but a
    // broken one must at least be reported properly.
    for (name, text) in seeds() {
        let path = PathBuf::from(name);
        check(text, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let (_, sample) = seeds().last().expect("the sample seed");
    assert!(Scene::parse(sample, Path::new("sample.ron"), registry()).is_ok());
}

/// Found by this fuzzer (a `Number` edit of `contract.ron`): an object id of
/// `u64::MAX` passed the loader, and `World::spawn`, which numbers later objects
/// from the largest id + 1, overflowed. The loader now reserves that id, the
/// way it reserves 0, and points at the object.
#[test]
fn an_id_of_u64_max_is_rejected_at_its_object() {
    let text = "(objects: [(id: 18446744073709551615, name: \"A\")])";
    let err =
        Scene::parse(text, Path::new("max.ron"), registry()).expect_err("id u64::MAX is reserved");
    // The object's `(` is the 12th character of line 1.
    assert_eq!((err.line, err.column), (1, 12));
    assert!(
        err.message.contains("id 18446744073709551615 is reserved"),
        "{err}"
    );
    assert!(err.to_string().starts_with("max.ron:1:12: "), "{err}");
}

/// Each hostile object, inserted into the built-in seed, on its own: the
/// first three must be refused by the loader with a position (they cannot be
/// built), the others load and run with every bad write and spawn refused, so
/// nothing non-finite reaches the trace.
#[test]
fn every_hostile_object_is_refused_at_load_or_runs_with_nothing_non_finite() {
    let (_, sample) = seeds().last().expect("the sample seed");
    for (i, object) in HOSTILE.iter().enumerate() {
        let text = sample.replacen("objects: [", &format!("objects: [{object}"), 1);
        let path = PathBuf::from(format!("hostile-{i}.ron"));
        let outcome = check(&text, &path).unwrap_or_else(|e| panic!("{object}: {e}"));
        match (i < 3, outcome) {
            (true, Outcome::Rejected) | (false, Outcome::Loaded) => {}
            (_, other) => panic!("{object}: {other:?}"),
        }
    }
}

/// What the cases of a run did (printed at the end, for the docs' figures).
#[derive(Default)]
struct Tally {
    /// Texts the loader rejected with a positioned error.
    rejected: AtomicU64,
    /// Texts the loader accepted, which then loaded and ran.
    loaded: AtomicU64,
}

#[test]
fn mutated_scenes_never_panic_and_errors_have_positions() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    });
    let tally = Tally::default();
    // Mostly one or two edits (which the loader often still accepts, so the
    // session code runs on odd values), sometimes up to six.
    let edits = prop_oneof![
        3 => prop::collection::vec(mutation(), 1..=2),
        1 => prop::collection::vec(mutation(), 3..=6),
    ];
    let input = (any::<Index>(), edits);
    let result = runner.run(&input, |(seed, mutations)| {
        let seeds = seeds();
        let (name, text) = &seeds[seed.index(seeds.len())];
        let mut bytes = text.clone().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let mutated = String::from_utf8_lossy(&bytes).into_owned();
        let path = PathBuf::from(format!("fuzz/{name}"));
        match std::panic::catch_unwind(|| check(&mutated, &path)) {
            Ok(Ok(Outcome::Rejected)) => {
                tally.rejected.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Ok(Outcome::Loaded)) => {
                tally.loaded.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Err(broken)) => {
                prop_assert!(false, "{broken}\n--- mutated {name} ---\n{mutated}");
            }
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                prop_assert!(false, "panic: {message}\n--- mutated {name} ---\n{mutated}");
            }
        }
        Ok(())
    });
    let (rejected, loaded) = (
        tally.rejected.load(Ordering::Relaxed),
        tally.loaded.load(Ordering::Relaxed),
    );
    eprintln!(
        "fuzz_scene: {} cases asked, {} checked: {rejected} rejected with a positioned error, \
         {loaded} accepted, loaded and run",
        cases(),
        rejected + loaded
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        rejected > 0 && loaded > 0,
        "the mutations should reach both outcomes"
    );
}
