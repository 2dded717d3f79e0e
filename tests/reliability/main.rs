//! Reliability through the public API (docs/reliability.md): panics in every
//! hook kind, non-finite writes, stalls, and saves that a crash cannot tear
//! (and the hook beacon, which names the hook a crash happened in).
//!
//! Faults come from scenes, through the `Faulty` behaviour of `stepframe-plugins`
//! (the same RON a user would write), except where a test needs a write that
//! `Faulty` does not offer. "The rest of the session is unchanged" is always
//! checked against a **control run**: the same scene with the fault taken out
//! (the faulty object kept, without its faulty behaviour, so every id, body and
//! random draw is the same), compared tick by tick on the bits of every other
//! object's committed pose and velocity.

mod hook_beacon;
mod non_finite_results;
mod non_finite_writes;
mod panics;
mod physics_churn;
mod saves;
mod stalls;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use stepframe_core::scene::parse_params;
use stepframe_core::{
    Behaviour, BodyDesc, ContactEvent, ContactKind, Ctx, FLICKS_PER_SECOND, FaultPolicy, Flicks,
    HookKind, LogEntry, LogLevel, ObjectId, ParamsError, Pipeline, Pose, Registry, Scene,
    SceneObject, Shape, StepStrategy, SuspendReason, Suspension, TickObserver, TickRecord,
    TimeSettings, Vec2, Velocity,
};

const DT: f64 = 1.0 / 60.0;

/// The fixed tick at 60 Hz in flicks: 705,600,000 / 60.
const TICK_60HZ: u64 = 11_760_000;

/// The faulty object of the generated scenes.
const FAULTY: ObjectId = ObjectId(8);

/// A small level that keeps moving: ground, a ball dropped in free fall, two
/// stacked boxes, a lift on waypoints (FixedUpdate, priority Late), a spawner
/// (a fixed-clock routine spawning projectiles) and an attractor.
const LEVEL: &str = r#"
    (id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 12.0, hy: 0.5)])),
    (id: 2, name: "Ball", transform: (x: -3.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)], restitution: 0.5)),
    (id: 3, name: "Box A", transform: (x: 2.0, y: 0.3), body: (shapes: [Cuboid(hx: 0.3, hy: 0.3)])),
    (id: 4, name: "Box B", transform: (x: 2.0, y: 0.91), body: (shapes: [Cuboid(hx: 0.3, hy: 0.3)])),
    (id: 5, name: "Lift", transform: (x: -7.0, y: 0.2), body: (kind: Kinematic, shapes: [Cuboid(hx: 1.0, hy: 0.2)]),
     behaviours: [(name: "KinematicMover", priority: Late, params: (waypoints: [(x: 0.0, y: 0.0), (x: 0.0, y: 2.0)], speed: 1.5))]),
    (id: 6, name: "Rain", transform: (x: 0.5, y: 6.0), behaviours: [(name: "Spawner", params: (interval: 0.2, max_alive: 12, lifetime: 2.0, spread: 3.0))]),
    (id: 7, name: "Vortex", transform: (x: 0.5, y: 3.0), behaviours: [(name: "Attractor", params: (radius: 2.5, strength: 6.0))]),
"#;

/// A scene: the level plus object 8, `faulty_object` (RON of one object).
fn scene_text(faulty_object: &str) -> String {
    format!(
        "(settings: (gravity: (x: 0.0, y: -9.81), seed: 11), objects: [{LEVEL} {faulty_object}])"
    )
}

/// Object 8 without a body, with the given behaviours (RON list contents).
fn bodyless(behaviours: &str) -> String {
    format!(r#"(id: 8, name: "Faulty", transform: (x: 9.0, y: 9.0), behaviours: [{behaviours}])"#)
}

/// Object 8 as a ball dropped 1.5 m onto the east end of the ground, alone there.
fn dropped_ball(behaviours: &str) -> String {
    format!(
        r#"(id: 8, name: "Faulty", transform: (x: 9.0, y: 2.0), body: (shapes: [Circle(radius: 0.5)], restitution: 0.2), behaviours: [{behaviours}])"#
    )
}

/// The registry of a session loading the bundled scenes: a script host of its
/// own, script paths resolved from `assets/scenes`.
fn scene_registry() -> stepframe_core::Registry {
    let scenes = repo_path("assets/scenes");
    stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes)
}

fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// One completed tick as the trace sees it: committed pose and velocity bits
/// of every live body, and the tick's contacts.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    tick: u64,
    bodies: Vec<(ObjectId, [u32; 6])>,
    contacts: Vec<ContactEvent>,
}

impl Row {
    fn without(&self, excluded: &[ObjectId]) -> Row {
        Row {
            tick: self.tick,
            bodies: self
                .bodies
                .iter()
                .filter(|(id, _)| !excluded.contains(id))
                .cloned()
                .collect(),
            contacts: self
                .contacts
                .iter()
                .filter(|c| !excluded.contains(&c.a) && !excluded.contains(&c.b))
                .copied()
                .collect(),
        }
    }
}

fn bits(p: Pose, v: Velocity) -> [u32; 6] {
    [
        p.x.to_bits(),
        p.y.to_bits(),
        p.angle.to_bits(),
        v.linear.x.to_bits(),
        v.linear.y.to_bits(),
        v.angular.to_bits(),
    ]
}

/// Records a [`Row`] per completed tick.
struct Rows(Arc<Mutex<Vec<Row>>>);

impl TickObserver for Rows {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let bodies = record
            .world
            .objects()
            .filter_map(|o| {
                o.body
                    .as_ref()
                    .map(|b| (o.id, bits(b.committed, b.velocity)))
            })
            .collect();
        let row = Row {
            tick: record.clock.simulation_tick,
            bodies,
            contacts: record.contacts.to_vec(),
        };
        self.0.lock().expect("rows lock").push(row);
    }
}

/// What a run did.
struct Run {
    rows: Vec<Row>,
    log: Vec<LogEntry>,
    suspensions: Vec<Suspension>,
    pipeline: Pipeline,
}

impl Run {
    fn errors(&self) -> Vec<&LogEntry> {
        self.log
            .iter()
            .filter(|e| e.level == LogLevel::Error)
            .collect()
    }

    fn others(&self, excluded: &[ObjectId]) -> Vec<Row> {
        self.rows.iter().map(|r| r.without(excluded)).collect()
    }

    /// Body `id`'s committed state after `tick`: `[x, y, angle, vx, vy, w]`.
    fn body(&self, tick: u64, id: u64) -> [f32; 6] {
        let (_, b) = self.rows[tick as usize - 1]
            .bodies
            .iter()
            .find(|(o, _)| *o == ObjectId(id))
            .expect("the body is in the tick's poses");
        b.map(f32::from_bits)
    }
}

/// Loads scene text and runs `frames` frames of `dt` under `policy`. A
/// suspension (the `Break` policy) is recorded and resumed at once.
fn run(text: &str, registry: &Registry, frames: u32, policy: FaultPolicy) -> Run {
    let scene = Scene::parse(text, Path::new("generated.ron"), registry).expect("scene parses");
    run_scene(&scene, registry, frames, policy)
}

fn run_scene(scene: &Scene, registry: &Registry, frames: u32, policy: FaultPolicy) -> Run {
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_scene(scene, registry).expect("scene loads");
    pipeline.set_fault_policy(policy);
    let rows = Arc::new(Mutex::new(Vec::new()));
    pipeline.set_tick_observer(Some(Box::new(Rows(rows.clone()))));
    let mut log = Vec::new();
    let mut suspensions = Vec::new();
    for _ in 0..frames {
        pipeline.step_frame(DT);
        while let Some(s) = pipeline.suspension().cloned() {
            suspensions.push(s);
            pipeline.resume();
        }
        log.extend(pipeline.drain_log());
    }
    pipeline.set_tick_observer(None);
    let rows = std::mem::take(&mut *rows.lock().expect("rows lock"));
    Run {
        rows,
        log,
        suspensions,
        pipeline,
    }
}

/// Every committed pose and velocity of every tick is finite.
fn assert_all_finite(rows: &[Row]) {
    for row in rows {
        for (id, b) in &row.bodies {
            assert!(
                b.iter().all(|&x| f32::from_bits(x).is_finite()),
                "tick {}: {id} committed a non-finite value {:?}",
                row.tick,
                b.map(f32::from_bits)
            );
        }
    }
}

/// The first tick whose contacts include a `Started` contact of `id`.
fn first_contact(rows: &[Row], id: ObjectId) -> u64 {
    rows.iter()
        .find(|r| {
            r.contacts
                .iter()
                .any(|c| (c.a == id || c.b == id) && c.kind == ContactKind::Started)
        })
        .map(|r| r.tick)
        .expect("the dropped ball touches the ground")
}

/// One row of the hook table: a `Faulty` that panics in `hook` from `tick` on,
/// on every call (`repeat: true`, so a behaviour that was not disabled would
/// panic again), and where the one error must be stamped.
struct HookCase {
    hook: HookKind,
    /// `Faulty`'s name for the hook.
    name: &'static str,
    /// Its `tick` parameter.
    tick: u64,
    /// Needs a body (contact).
    ball: bool,
}

/// At 60 Hz with frames of 1/60 s, frame `f` runs tick `f`: the update phase
/// and routines of frame f see `f - 1` completed ticks, FixedUpdate sees
/// pending tick `f`, Flow Tick (after the fixed phase) and presentation see `f`
/// completed. A fault "from tick 5" therefore fires in frame 6 for Update and
/// routines, and in frame 5 for FixedUpdate, Flow Tick and Present, all
/// stamped tick 5; Start runs once,
/// in frame 1, at tick 0. Contact fires in the tick the ball lands, which the
/// control run tells.
const HOOK_CASES: [HookCase; 7] = [
    HookCase {
        hook: HookKind::Start,
        name: "Start",
        tick: 0,
        ball: false,
    },
    HookCase {
        hook: HookKind::Update,
        name: "Update",
        tick: 5,
        ball: false,
    },
    HookCase {
        hook: HookKind::FlowTick,
        name: "FlowTick",
        tick: 5,
        ball: false,
    },
    HookCase {
        hook: HookKind::FixedUpdate,
        name: "FixedUpdate",
        tick: 5,
        ball: false,
    },
    HookCase {
        hook: HookKind::Contact,
        name: "Contact",
        tick: 0,
        ball: true,
    },
    HookCase {
        hook: HookKind::Routine,
        name: "Routine",
        tick: 5,
        ball: false,
    },
    HookCase {
        hook: HookKind::Present,
        name: "Present",
        tick: 5,
        ball: false,
    },
];

impl HookCase {
    fn faulty_scene(&self) -> String {
        let behaviour = format!(
            r#"(name: "Faulty", priority: Early, params: (hook: {}, tick: {}, fault: Panic, repeat: true))"#,
            self.name, self.tick
        );
        self.scene_with(&behaviour)
    }

    fn control_scene(&self) -> String {
        self.scene_with("")
    }

    /// The control scene run with the `Disable` policy, and the faulty one
    /// with `policy`, both for [`FRAMES`] frames: what each panic test
    /// compares.
    fn control_and_faulty(&self, registry: &Registry, policy: FaultPolicy) -> (Run, Run) {
        let control = run(
            &self.control_scene(),
            registry,
            FRAMES,
            FaultPolicy::Disable,
        );
        let faulty = run(&self.faulty_scene(), registry, FRAMES, policy);
        (control, faulty)
    }

    fn scene_with(&self, behaviours: &str) -> String {
        scene_text(&if self.ball {
            dropped_ball(behaviours)
        } else {
            bodyless(behaviours)
        })
    }

    /// `(tick, frame)` the error must carry (see [`HOOK_CASES`]).
    fn expected_stamp(&self, control: &Run) -> (u64, u64) {
        match self.hook {
            HookKind::Start => (0, 1),
            HookKind::Update | HookKind::Routine => (5, 6),
            // Flow Tick runs after the fixed phase: frame 5 has completed tick 5.
            HookKind::FlowTick | HookKind::FixedUpdate | HookKind::Present => (5, 5),
            // A mid-step hook runs in the step that finds the contact: the
            // same pending tick.
            HookKind::Contact | HookKind::MidStep => {
                let t = first_contact(&control.rows, FAULTY);
                (t, t)
            }
        }
    }
}

const FRAMES: u32 = 120;

/// Runs the level with object 8 from `object(tick)` firing at `tick`, and its
/// control, where it is `object(u64::MAX)` (it never fires); the control must
/// log no error.
fn faulty_and_control(
    registry: &Registry,
    object: impl Fn(u64) -> String,
    tick: u64,
) -> (Run, Run) {
    let faulty = run(
        &scene_text(&object(tick)),
        registry,
        FRAMES,
        FaultPolicy::Disable,
    );
    let control = run(
        &scene_text(&object(u64::MAX)),
        registry,
        FRAMES,
        FaultPolicy::Disable,
    );
    assert!(control.errors().is_empty(), "{:?}", control.errors());
    (faulty, control)
}
