//! Reliability through the public API (docs/reliability.md): panics in every
//! hook kind, non-finite writes, stalls, and saves that a crash cannot tear.
//!
//! Faults come from scenes, through the `Faulty` behaviour of `stepframe-plugins`
//! (the same RON a user would write), except where a test needs a write that
//! `Faulty` does not offer. "The rest of the session is unchanged" is always
//! checked against a **control run**: the same scene with the fault taken out
//! (the faulty object kept, without its faulty behaviour, so every id, body and
//! random draw is the same), compared tick by tick on the bits of every other
//! object's committed pose and velocity.

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
            HookKind::Contact => {
                let t = first_contact(&control.rows, FAULTY);
                (t, t)
            }
        }
    }
}

const FRAMES: u32 = 120;

#[test]
fn a_panic_in_every_hook_kind_is_caught_logged_with_object_hook_and_tick_and_the_rest_runs_unchanged()
 {
    let registry = stepframe_plugins::registry();
    for case in &HOOK_CASES {
        let control = run(
            &case.control_scene(),
            &registry,
            FRAMES,
            FaultPolicy::Disable,
        );
        let faulty = run(
            &case.faulty_scene(),
            &registry,
            FRAMES,
            FaultPolicy::Disable,
        );
        let hook = case.hook;

        // The session kept running: every frame ran its tick.
        assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
        assert_eq!(faulty.rows.len(), FRAMES as usize, "{hook}");
        assert!(control.errors().is_empty(), "{:?}", control.errors());

        // Exactly one error although the fault repeats: the behaviour was
        // disabled (a routine that panicked was dropped) after the first panic.
        let errors = faulty.errors();
        assert_eq!(errors.len(), 1, "{hook}: {errors:?}");
        let e = errors[0];
        let (tick, frame) = case.expected_stamp(&control);
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(FAULTY), Some(hook), tick, frame),
            "{hook}: {e:?}"
        );
        assert!(
            e.message.contains("`Faulty` panicked")
                && e.message
                    .contains(&format!("injected panic in {hook} at tick {tick}")),
            "{hook}: {}",
            e.message
        );
        assert!(faulty.suspensions.is_empty());
        // The object stays (policy Disable); a ball keeps falling and resting.
        assert!(faulty.pipeline.world().get(FAULTY).is_some());

        // Every other object's trace is bit-identical to the control run's,
        // including the tick of the fault: the tick completed for them.
        assert_eq!(
            faulty.others(&[FAULTY]),
            control.others(&[FAULTY]),
            "{hook}: the other objects diverged"
        );
        // And the faulty object itself: Faulty has no physical effect, so its
        // body moves exactly as the control's.
        assert_eq!(faulty.rows, control.rows, "{hook}");
        assert_all_finite(&faulty.rows);
    }
}

#[test]
fn the_remove_policy_removes_only_the_faulty_object_and_the_rest_runs_unchanged() {
    let registry = stepframe_plugins::registry();
    for case in HOOK_CASES.iter().filter(|c| !c.ball) {
        let control = run(
            &case.control_scene(),
            &registry,
            FRAMES,
            FaultPolicy::Disable,
        );
        let faulty = run(&case.faulty_scene(), &registry, FRAMES, FaultPolicy::Remove);
        let hook = case.hook;
        let errors = faulty.errors();
        assert_eq!(errors.len(), 1, "{hook}: {errors:?}");
        let (tick, frame) = case.expected_stamp(&control);
        assert_eq!(
            (
                errors[0].object,
                errors[0].hook,
                errors[0].tick,
                errors[0].frame
            ),
            (Some(FAULTY), Some(hook), tick, frame)
        );
        assert!(faulty.pipeline.world().get(FAULTY).is_none(), "{hook}");
        assert_eq!(
            faulty.pipeline.world().len(),
            control.pipeline.world().len() - 1,
            "{hook}: only the faulty object went"
        );
        assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
        assert_eq!(
            faulty.others(&[FAULTY]),
            control.others(&[FAULTY]),
            "{hook}"
        );
    }
}

#[test]
fn the_remove_policy_also_takes_the_body_out_of_physics() {
    // The contact case: the ball panics when it lands and is removed with its body.
    let registry = stepframe_plugins::registry();
    let case = &HOOK_CASES[4];
    assert_eq!(case.hook, HookKind::Contact);
    let control = run(
        &case.control_scene(),
        &registry,
        FRAMES,
        FaultPolicy::Disable,
    );
    let faulty = run(&case.faulty_scene(), &registry, FRAMES, FaultPolicy::Remove);
    let landed = first_contact(&control.rows, FAULTY);
    for row in &faulty.rows {
        let has_ball = row.bodies.iter().any(|(id, _)| *id == FAULTY);
        // The ball is removed in the contact callback of its landing tick, so
        // that tick's record (taken after the callbacks) lists it no more.
        assert_eq!(has_ball, row.tick < landed, "tick {}", row.tick);
    }
    assert_eq!(faulty.errors().len(), 1);
    assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
}

#[test]
fn the_break_policy_suspends_on_the_fault_and_resume_goes_on_unchanged() {
    let registry = stepframe_plugins::registry();
    for case in &HOOK_CASES {
        let control = run(
            &case.control_scene(),
            &registry,
            FRAMES,
            FaultPolicy::Disable,
        );
        let faulty = run(&case.faulty_scene(), &registry, FRAMES, FaultPolicy::Break);
        let hook = case.hook;
        let (tick, frame) = case.expected_stamp(&control);
        // One suspension: the behaviour was disabled before the session stopped.
        assert_eq!(
            faulty.suspensions.len(),
            1,
            "{hook}: {:?}",
            faulty.suspensions
        );
        let s = &faulty.suspensions[0];
        match &s.reason {
            SuspendReason::Fault {
                object,
                hook: h,
                message,
            } => {
                assert_eq!((*object, *h), (FAULTY, hook));
                assert!(message.contains("injected panic"), "{message}");
            }
            other => panic!("{hook}: expected a fault suspension, got {other:?}"),
        }
        // Fixed hooks suspend at the end of the tick (the tick completed);
        // update-phase and presentation hooks right after the hook.
        assert_eq!((s.tick, s.frame), (tick, frame), "{hook}");
        if hook.is_fixed() {
            assert!(s.end_of_tick, "{hook}");
        }
        if matches!(
            hook,
            HookKind::Start | HookKind::Update | HookKind::FlowTick
        ) {
            assert!(!s.end_of_tick, "{hook}");
        }
        assert_eq!(faulty.errors().len(), 1, "{hook}");
        assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
        assert_eq!(faulty.rows, control.rows, "{hook}");
    }
}

/// Whether a behaviour injects a fault: a `Faulty`, or a `Script` running one
/// of the fault scripts (`scripts/fault_*.rhai`).
fn injects_faults(b: &stepframe_core::SceneBehaviour) -> bool {
    b.name == "Faulty" || (b.name == "Script" && b.params.contains("scripts/fault_"))
}

/// `scene` with every fault-injecting behaviour taken out (objects kept).
fn without_faulty(scene: &Scene) -> Scene {
    fn strip(o: &mut SceneObject) {
        o.behaviours.retain(|b| !injects_faults(b));
        o.children.iter_mut().for_each(strip);
    }
    let mut control = scene.clone();
    control.objects.iter_mut().for_each(strip);
    control
}

#[test]
fn faults_ron_injects_every_fault_from_the_scene_and_the_level_runs_as_without_them() {
    let registry = scene_registry();
    let scene =
        Scene::load(&repo_path("assets/scenes/faults.ron"), &registry).expect("faults.ron loads");
    let control_scene = without_faulty(&scene);
    assert_ne!(scene, control_scene);
    let faulty = run_scene(&scene, &registry, 600, FaultPolicy::Disable);
    let control = run_scene(&control_scene, &registry, 600, FaultPolicy::Disable);
    assert!(control.errors().is_empty());
    let landed = first_contact(&control.rows, ObjectId(56));

    // The table in the scene's header, with ticks and frames derived as in
    // HOOK_CASES: (object, hook, tick, frame, what the message says).
    let expected: Vec<(u64, HookKind, u64, u64, &str)> = vec![
        (50, HookKind::Start, 0, 1, "panicked"),
        (51, HookKind::Update, 5, 6, "panicked"),
        (52, HookKind::FlowTick, 10, 10, "panicked"),
        (53, HookKind::FixedUpdate, 15, 15, "panicked"),
        (54, HookKind::Routine, 20, 21, "panicked"),
        (55, HookKind::Present, 25, 25, "panicked"),
        (
            57,
            HookKind::FixedUpdate,
            30,
            30,
            "rejected non-finite body command: Force",
        ),
        (
            58,
            HookKind::FixedUpdate,
            40,
            40,
            "rejected non-finite body command: SetPose",
        ),
        (56, HookKind::Contact, landed, landed, "panicked"),
        (
            59,
            HookKind::Update,
            50,
            51,
            "rejected non-finite body command: SetVelocity",
        ),
        (12, HookKind::FixedUpdate, 70, 70, "panicked"),
        (
            57,
            HookKind::FixedUpdate,
            100,
            100,
            "rejected body command Impulse",
        ),
    ];
    let mut got: Vec<(u64, HookKind, u64, u64, String)> = faulty
        .errors()
        .iter()
        .map(|e| {
            (
                e.object.map_or(0, |o| o.0),
                e.hook.expect("every fault names its hook"),
                e.tick,
                e.frame,
                e.message.clone(),
            )
        })
        .collect();
    got.sort_by_key(|g| (g.2, g.0));
    let mut want = expected.clone();
    want.sort_by_key(|w| (w.2, w.0));
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.0, g.1, g.2, g.3), (w.0, w.1, w.2, w.3), "{g:?}");
        assert!(g.4.contains(w.4), "{g:?}");
    }
    // Only the Faulty behaviour of the platform was disabled: its mover, and
    // everything else, ran exactly as in the control run.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
    assert_eq!(faulty.pipeline.clock().simulation_tick, 600);
}

// ----- non-finite writes ---------------------------------------------------------

/// Writes all five body commands with a NaN or an infinity into each target's
/// body, in FixedUpdate at pending tick `tick` and in Update once `tick` ticks
/// are complete. Parameters: `(tick, [target ids])`.
#[derive(Clone, Debug)]
struct Vandal {
    tick: u64,
    targets: Vec<u64>,
}

impl Vandal {
    fn vandalise(&self, ctx: &mut Ctx) {
        for &t in &self.targets {
            let target = ObjectId(t);
            let accepted = [
                ctx.apply_force(target, Vec2::new(f32::INFINITY, 0.0)),
                ctx.apply_impulse(target, Vec2::new(0.0, f32::NAN)),
                ctx.set_pose(target, Pose::new(1.0, f32::NEG_INFINITY, 0.0)),
                ctx.set_velocity(
                    target,
                    Velocity {
                        linear: Vec2::new(f32::NAN, f32::NAN),
                        angular: 0.0,
                    },
                ),
                ctx.set_kinematic_target(target, Pose::new(0.0, 0.0, f32::NAN)),
            ];
            assert_eq!(accepted, [false; 5], "every write is refused at once");
        }
    }
}

impl Behaviour for Vandal {
    fn name(&self) -> &str {
        "Vandal"
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.vandalise(ctx);
        }
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.vandalise(ctx);
        }
    }
}

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

fn registry_with_vandal() -> Registry {
    let mut registry = stepframe_plugins::registry();
    registry.register("Vandal", "(0, [])", |text: &str| {
        let (tick, targets): (u64, Vec<u64>) = parse_params(text)?;
        if targets.is_empty() {
            return Err(ParamsError::new("name at least one target"));
        }
        Ok(Box::new(Vandal { tick, targets }) as Box<dyn Behaviour>)
    });
    registry
}

#[test]
fn non_finite_writes_are_rejected_before_rapier_reported_and_bodies_keep_their_last_good_state() {
    let registry = registry_with_vandal();
    // The vandal writes into the falling ball (2), a resting box (3) and the
    // kinematic lift (5) at tick 20; the control's vandal never fires.
    let vandal = |tick: u64| bodyless(&format!(r#"(name: "Vandal", params: ({tick}, [2, 3, 5]))"#));
    let (faulty, control) = faulty_and_control(&registry, vandal, 20);

    // 3 targets × 5 writes, in FixedUpdate of tick 20 (frame 20) and in
    // Update of frame 21 (20 ticks complete): 30 errors, each with object,
    // hook and tick.
    let errors = faulty.errors();
    assert_eq!(errors.len(), 30, "{errors:#?}");
    for (i, e) in errors.iter().enumerate() {
        let (hook, frame) = if i < 15 {
            (HookKind::FixedUpdate, 20)
        } else {
            (HookKind::Update, 21)
        };
        let target = [2, 3, 5][(i % 15) / 5];
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(ObjectId(target)), Some(hook), 20, frame),
            "{e:?}"
        );
        assert!(
            e.message.starts_with("rejected non-finite body command"),
            "{}",
            e.message
        );
    }
    // Nothing reached rapier: every body's trace is bit-identical to the
    // control's, tick 20 and 21 included, and every committed value is finite.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
    // "Continues normally": the ball was still falling at tick 20 and went on
    // falling (its height went down between tick 20 and tick 30).
    let y = |tick: u64| faulty.body(tick, 2)[1];
    assert!(y(30) < y(20), "{} then {}", y(20), y(30));
}

#[test]
fn faulty_nan_force_pose_and_velocity_from_a_scene_are_rejected() {
    let registry = stepframe_plugins::registry();
    for (fault, hook, kind, frame) in [
        ("NanForce", "FixedUpdate", "Force", 10),
        ("NanPose", "FixedUpdate", "SetPose", 10),
        ("NanVelocity", "Update", "SetVelocity", 11),
    ] {
        let behaviour = format!(
            r#"(name: "Faulty", params: (hook: {hook}, tick: 10, fault: {fault}, repeat: true))"#
        );
        let faulty = run(
            &scene_text(&dropped_ball(&behaviour)),
            &registry,
            60,
            FaultPolicy::Disable,
        );
        let control = run(
            &scene_text(&dropped_ball("")),
            &registry,
            60,
            FaultPolicy::Disable,
        );
        // `repeat`: a rejected write is not a panic, the behaviour stays
        // enabled and writes again every call from tick 10 on; every one is
        // rejected and logged (frames 10..=60 in fixed code, 11..=60 in Update).
        let errors = faulty.errors();
        assert_eq!(errors.len(), 61 - frame as usize, "{fault}");
        assert_eq!(
            (errors[0].object, errors[0].tick, errors[0].frame),
            (Some(FAULTY), 10, frame),
            "{fault}"
        );
        assert!(errors.iter().all(|e| e.message.contains(kind)), "{fault}");
        assert_eq!(faulty.rows, control.rows, "{fault}");
        assert_all_finite(&faulty.rows);
    }
}

// ----- finite writes whose result is not finite -------------------------------

/// Writes commands whose numbers are finite but whose *result* overflows f32,
/// in FixedUpdate at pending tick `tick` and in Update once `tick` ticks are
/// complete: an impulse of 3e38 N·s into the ball (2, 0.79 kg: 3.8e38 m/s)
/// and the box (3, 0.36 kg), a kinematic target 3e38 m away for the lift
/// (5: 1.8e40 m/s to get there in one tick), and a velocity of 2e19 m/s for
/// box B (4: finite, but its square, which rapier takes every substep, is
/// not; rapier would stop the box dead for good). With `forces`, instead two
/// forces of 5e20 N into the ball: one adds 1.06e19 m/s in a tick (its square,
/// 1.1e38, fits), two add 2.1e19 m/s (4.5e38 does not).
#[derive(Clone, Debug)]
struct Overdrive {
    tick: u64,
    forces: bool,
}

impl Overdrive {
    fn write(&self, ctx: &mut Ctx) {
        if self.forces {
            for _ in 0..2 {
                assert!(ctx.apply_force(ObjectId(2), Vec2::new(5e20, 0.0)));
            }
            return;
        }
        // Each number is finite, so each write is queued; the stage refuses it.
        assert!(ctx.apply_impulse(ObjectId(2), Vec2::new(3e38, 0.0)));
        assert!(ctx.apply_impulse(ObjectId(3), Vec2::new(0.0, 3e38)));
        assert!(ctx.set_kinematic_target(ObjectId(5), Pose::new(3e38, 0.2, 0.0)));
        let fast = Velocity {
            linear: Vec2::new(2e19, 0.0),
            angular: 0.0,
        };
        assert!(ctx.set_velocity(ObjectId(4), fast));
    }
}

impl Behaviour for Overdrive {
    fn name(&self) -> &str {
        "Overdrive"
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.write(ctx);
        }
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.write(ctx);
        }
    }
}

/// At pending tick `tick`, spawns three objects whose bodies physics cannot
/// build, or (`bodies: false`, the control) the same objects without bodies:
/// one at an infinite pose, one whose finite pose composed with its parent's
/// (object 9, at x = 3e38) is infinite, and a circle of radius 1e10 (an
/// inertia of 1.6e40, beyond f32).
#[derive(Clone, Debug)]
struct Unborn {
    tick: u64,
    bodies: bool,
}

impl Behaviour for Unborn {
    fn name(&self) -> &str {
        "Unborn"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick != self.tick {
            return;
        }
        let ball = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        let huge = BodyDesc::dynamic(Shape::Circle { radius: 1e10 });
        let descs = [
            (Pose::new(f32::INFINITY, 0.0, 0.0), None, ball.clone()),
            (Pose::new(3e38, 0.0, 0.0), Some(ObjectId(9)), ball),
            (Pose::new(0.0, 30.0, 0.0), None, huge),
        ];
        for (pose, parent, body) in descs {
            let mut desc = stepframe_core::ObjectDesc::new("unborn", pose);
            desc.parent = parent;
            if self.bodies {
                desc = desc.with_body(body);
            }
            ctx.spawn(desc);
        }
    }
}

fn registry_with_overflows() -> Registry {
    let mut registry = stepframe_plugins::registry();
    registry.register("Overdrive", "(0, false)", |text: &str| {
        let (tick, forces): (u64, bool) = parse_params(text)?;
        Ok(Box::new(Overdrive { tick, forces }) as Box<dyn Behaviour>)
    });
    registry.register("Unborn", "(0, true)", |text: &str| {
        let (tick, bodies): (u64, bool) = parse_params(text)?;
        Ok(Box::new(Unborn { tick, bodies }) as Box<dyn Behaviour>)
    });
    registry
}

#[test]
fn finite_writes_whose_result_is_not_finite_are_rejected_reported_and_bodies_go_on() {
    let registry = registry_with_overflows();
    let overdrive =
        |tick: u64| bodyless(&format!(r#"(name: "Overdrive", params: ({tick}, false))"#));
    let (faulty, control) = faulty_and_control(&registry, overdrive, 20);
    // 4 writes in FixedUpdate of tick 20 (frame 20), 4 in Update of frame 21;
    // each refused at the reconcile of the tick it is for (20 and 21), with
    // its object and the hook that wrote it.
    let errors = faulty.errors();
    assert_eq!(errors.len(), 8, "{errors:#?}");
    for (i, e) in errors.iter().enumerate() {
        let (hook, tick, frame) = if i < 4 {
            (HookKind::FixedUpdate, 20, 20)
        } else {
            (HookKind::Update, 21, 21)
        };
        let target = [2, 3, 5, 4][i % 4];
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(ObjectId(target)), Some(hook), tick, frame),
            "{e:?}"
        );
        assert!(
            e.message.starts_with("rejected body command")
                && e.message.contains("its result is not finite"),
            "{}",
            e.message
        );
    }
    // The refused commands changed nothing: every body's trace is the
    // control's, bit for bit, and every value is finite.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
    let y = |tick: u64| faulty.body(tick, 2)[1];
    assert!(
        y(30) < y(20),
        "the ball goes on falling: {} then {}",
        y(20),
        y(30)
    );
}

#[test]
fn a_force_that_would_make_the_tick_s_forces_too_fast_is_rejected_and_the_first_still_acts() {
    let registry = registry_with_overflows();
    let forces = bodyless(r#"(name: "Overdrive", params: (10, true))"#);
    let faulty = run(&scene_text(&forces), &registry, 30, FaultPolicy::Disable);
    let errors = faulty.errors();
    // Two forces in FixedUpdate of tick 10 and two in Update of frame 11:
    // the second of each pair is refused, the first acts (rapier then caps
    // the ball's speed at 400 m/s).
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors
            .iter()
            .all(|e| e.object == Some(ObjectId(2)) && e.message.contains("speed would be 2.1")),
        "{errors:#?}"
    );
    assert_eq!(
        errors.iter().map(|e| (e.hook, e.tick)).collect::<Vec<_>>(),
        [
            (Some(HookKind::FixedUpdate), 10),
            (Some(HookKind::Update), 11)
        ]
    );
    assert_all_finite(&faulty.rows);
    let vx = |tick: u64| faulty.body(tick, 2)[3];
    assert!(
        vx(9) == 0.0 && vx(10) == 400.0,
        "pushed, then capped: {} {}",
        vx(9),
        vx(10)
    );
}

#[test]
fn a_body_physics_cannot_build_is_refused_and_its_object_lives_on_without_one() {
    let registry = registry_with_overflows();
    let scene = |bodies: bool| {
        scene_text(&format!(
            r#"(id: 8, name: "Unborn", behaviours: [(name: "Unborn", params: (10, {bodies}))]),
               (id: 9, name: "Far", transform: (x: 3e38, y: 0.0))"#
        ))
    };
    let faulty = run(&scene(true), &registry, 40, FaultPolicy::Disable);
    let control = run(&scene(false), &registry, 40, FaultPolicy::Disable);
    assert!(control.errors().is_empty());
    // The three objects exist (the next free ids, in spawn order), without
    // bodies.
    let errors = faulty.errors();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    let first = errors[0].object.expect("an object").0;
    for (e, id) in errors.iter().zip(first..) {
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(ObjectId(id)), Some(HookKind::FixedUpdate), 10, 10),
            "{e:?}"
        );
        assert!(e.message.starts_with("body not created"), "{}", e.message);
        let object = faulty
            .pipeline
            .world()
            .get(ObjectId(id))
            .expect("it exists");
        assert!(object.body.is_none(), "#{id} has no body");
    }
    assert!(
        errors[2].message.contains("angular inertia"),
        "{}",
        errors[2].message
    );
    // Not in any tick's poses, and everything else as in the control run,
    // where the same objects were spawned without bodies.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
}

// ----- stalls -------------------------------------------------------------------

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

// ----- saves --------------------------------------------------------------------

/// A fresh directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "stepframe-reliability-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A scene of `n` balls, `variant` moving every one of them: big enough that
/// a save takes a while, and two variants differ everywhere.
fn big_scene(n: u64, variant: u64) -> Scene {
    let mut scene = Scene::default();
    scene.settings.seed = variant;
    for i in 0..n {
        let x = (i % 100) as f32 * 0.7 + variant as f32;
        let y = (i / 100) as f32 * 0.7;
        scene.objects.push(
            SceneObject::new(
                i + 1,
                format!("Ball {i} of variant {variant}"),
                Pose::new(x, y, 0.0),
            )
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.3 })),
        );
    }
    scene
}

#[test]
fn a_save_that_fails_part_way_leaves_the_old_file_byte_for_byte() {
    let registry = stepframe_plugins::registry();
    let dir = temp_dir("io-failure");
    let path = dir.join("level.ron");
    let old = big_scene(50, 1);
    old.save(&path).expect("first save");
    let old_bytes = std::fs::read(&path).expect("read");

    // Inject an I/O failure: the temporary file `Scene::save` writes first
    // (`.level.ron.<pid>.tmp` beside the target) cannot be created, because a
    // directory already has its name. Root or not, that create fails.
    let tmp = dir.join(format!(".level.ron.{}.tmp", std::process::id()));
    std::fs::create_dir(&tmp).expect("blocker");
    let new = big_scene(50, 2);
    let err = new.save(&path).expect_err("the save must fail");
    assert!(err.to_string().contains("cannot save the scene"), "{err}");
    assert!(err.to_string().contains("level.ron"), "{err}");
    assert_eq!(
        std::fs::read(&path).expect("read"),
        old_bytes,
        "old file intact"
    );
    assert_eq!(Scene::load(&path, &registry).expect("still loads"), old);

    // Without the blocker the same save goes through and leaves no temp file.
    std::fs::remove_dir(&tmp).expect("unblock");
    new.save(&path).expect("second save");
    assert_eq!(Scene::load(&path, &registry).expect("loads"), new);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name() != "level.ron")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn killing_a_process_mid_save_never_leaves_a_half_written_scene() {
    // The child saves two scenes over the target in turn (`b` first, since
    // the target starts as `a`). `STEPFRAME_SAVE_PAUSE` stops one of its
    // saves at a named point (core's `atomic_file`, `test-hooks` feature);
    // the child says `paused <point>` and waits, and is killed with SIGKILL
    // exactly there. Every point of a save is covered, in the first save and
    // in later ones, with no sleep and no race.
    let registry = stepframe_plugins::registry();
    let dir = temp_dir("kill");
    let target = dir.join("level.ron");
    let a = big_scene(50, 1);
    let b = big_scene(50, 2);
    let (a_path, b_path) = (dir.join("a.ron"), dir.join("b.ron"));
    a.save(&a_path).expect("a");
    b.save(&b_path).expect("b");
    let a_bytes = std::fs::read(&a_path).expect("a bytes");
    let b_bytes = std::fs::read(&b_path).expect("b bytes");
    assert_ne!(a_bytes, b_bytes);
    let half = b_bytes.len() / 2;
    let last = b_bytes.len() - 1;
    // (where the save stops, what the target must hold, what the temporary
    // file holds if it is still there)
    type Case<'a> = (String, &'a [u8], Option<&'a [u8]>);
    let cases: Vec<Case> = vec![
        ("created".into(), &a_bytes, Some(&[])),
        ("bytes:1".into(), &a_bytes, Some(&b_bytes[..1])),
        (format!("bytes:{half}"), &a_bytes, Some(&b_bytes[..half])),
        (format!("bytes:{last}"), &a_bytes, Some(&b_bytes[..last])),
        ("written".into(), &a_bytes, Some(&b_bytes)),
        ("synced".into(), &a_bytes, Some(&b_bytes)),
        ("renamed".into(), &b_bytes, None),
        // The second save writes `a` over `b`; the third `b` over `a`.
        ("renamed@2".into(), &a_bytes, None),
        ("synced@3".into(), &a_bytes, Some(&b_bytes)),
    ];
    for (point, expected, tmp_holds) in cases {
        std::fs::copy(&a_path, &target).expect("the old file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_stepframe-save-loop"))
            .arg(&target)
            .arg(&a_path)
            .arg(&b_path)
            .env("STEPFRAME_SAVE_PAUSE", &point)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the save loop starts");
        let tmp = dir.join(format!(".level.ron.{}.tmp", child.id()));
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let mut line = || lines.next().expect("a line").expect("readable");
        assert_eq!(line(), "saving", "{point}: the child's first line");
        let shown = point.split('@').next().unwrap_or_default();
        assert_eq!(
            line(),
            format!("paused {shown}"),
            "{point}: where it stopped"
        );
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");

        let bytes = std::fs::read(&target).expect("the target always exists");
        assert!(
            bytes == expected,
            "{point}: the target is not the scene it should be ({} bytes)",
            bytes.len()
        );
        let scene = Scene::load(&target, &registry).expect("the target always parses");
        assert!(scene == a || scene == b, "{point}");
        match tmp_holds {
            Some(held) => {
                let left = std::fs::read(&tmp).expect("the temporary file is left");
                assert!(
                    left == held,
                    "{point}: the temporary file holds {} bytes",
                    left.len()
                );
                std::fs::remove_file(&tmp).expect("clean up");
            }
            None => assert!(!tmp.exists(), "{point}: renamed away"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes finite but absurd values (3e38, near `f32::MAX`) at tick 10: a
/// force on the ball (2), a velocity on box A (3), a teleport of box B (4).
#[derive(Clone, Debug)]
struct Brute;

impl Behaviour for Brute {
    fn name(&self) -> &str {
        "Brute"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == 10 {
            let huge = 3e38;
            assert!(ctx.apply_force(ObjectId(2), Vec2::new(huge, huge)));
            let linear = Vec2::new(huge, -huge);
            let velocity = Velocity {
                linear,
                angular: huge,
            };
            assert!(ctx.set_velocity(ObjectId(3), velocity));
            assert!(ctx.set_pose(ObjectId(4), Pose::new(huge, huge, huge)));
        }
    }
}

#[test]
fn huge_finite_writes_never_commit_a_non_finite_value() {
    // Each number is finite, so each write is queued. 3e38 N on the 0.79 kg
    // ball for 1/60 s would be 6.4e36 m/s, whose square is infinite (rapier
    // would stop the ball dead, for good): refused at the reconcile, like the
    // velocity of 3e38 m/s. The teleport to 3e38 m is a finite result and is
    // applied. No infinity or NaN comes back out of rapier, and the ball goes
    // on falling under gravity.
    let mut registry = stepframe_plugins::registry();
    registry.register("Brute", "()", |_: &str| {
        Ok(Box::new(Brute) as Box<dyn Behaviour>)
    });
    let r = run(
        &scene_text(&bodyless(r#"(name: "Brute")"#)),
        &registry,
        FRAMES,
        FaultPolicy::Disable,
    );
    assert_eq!(r.rows.len(), FRAMES as usize);
    assert_all_finite(&r.rows);
    let refused: Vec<(Option<ObjectId>, Option<HookKind>, u64)> = r
        .errors()
        .iter()
        .map(|e| (e.object, e.hook, e.tick))
        .collect();
    let fixed = Some(HookKind::FixedUpdate);
    assert_eq!(
        refused,
        [
            (Some(ObjectId(2)), fixed, 10),
            (Some(ObjectId(3)), fixed, 10)
        ]
    );
    let at = |tick: u64, id: u64| r.body(tick, id);
    assert!(at(30, 2)[1] < at(10, 2)[1], "the ball falls on");
    assert_eq!(at(10, 4)[0], 3e38, "the teleport is applied");
}

// ----- bounded physics state under spawn/remove churn ----------------------------

thread_local! {
    /// Bytes allocated by this thread (frees not subtracted).
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

/// Counts the bytes each thread allocates, so a test can measure what one
/// call allocates on its own thread while other tests run on theirs.
struct ThreadCounting;

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is a const-initialised thread local (no allocation, no destructor).
unsafe impl GlobalAlloc for ThreadCounting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|c| c.set(c.get() + layout.size() as u64));
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|c| c.set(c.get() + new_size as u64));
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: ThreadCounting = ThreadCounting;

/// Bytes a copy of the physics engine state takes (what every rewind
/// keyframe holds).
fn physics_copy_bytes(p: &Pipeline) -> u64 {
    let before = ALLOCATED.with(Cell::get);
    let copy = p.physics().clone_box();
    let bytes = ALLOCATED.with(Cell::get) - before;
    drop(copy);
    bytes
}

#[test]
fn the_physics_state_stays_the_same_size_under_endless_spawn_and_removal() {
    // A spawner over a long floor: a ball every 3 ticks, at most 12 alive
    // (the 13th spawn removes the oldest in the same tick), spread over 70 m
    // so they land on the floor and seldom on each other. After 36 ticks the
    // population is constant: the floor, the spawner and 12 balls. Before the fix
    // in `RapierStage::reconcile` (bodies added before removals), rapier's
    // broad phase kept a stale pair for many of the freed colliders and this
    // copy grew by kilobytes every few thousand ticks (the soak's 160 MiB).
    let text = r#"(settings: (seed: 3), objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 40.0, hy: 0.5)])),
        (id: 4, name: "Tap", transform: (x: 0.0, y: 1.0), behaviours: [(name: "Spawner", params: (interval: 0.05, max_alive: 12, lifetime: 0.0, spread: 35.0, shapes: [Circle(radius: 0.2)]))]),
    ])"#;
    let registry = stepframe_plugins::registry();
    let scene = Scene::parse(text, Path::new("churn.ron"), &registry).expect("scene");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("loads");
    let mut sizes = Vec::new();
    for checkpoint in [1_200u64, 15_000, 30_000, 45_000, 60_000] {
        while p.stepper().completed_ticks() < checkpoint {
            p.step_frame(DT);
        }
        assert_eq!(p.world().len(), 2 + 12, "constant population");
        sizes.push(physics_copy_bytes(&p));
    }
    // The same bodies, colliders and (nearly) the same contacts: the copy may
    // differ by the contact manifolds of a few touching pairs, not grow.
    let first = sizes[0];
    for &s in &sizes[1..] {
        assert!(
            s <= first + first / 20,
            "the physics copy grew from {first} to {s} bytes: {sizes:?}"
        );
    }
}
