//! The rapier2d physics stage inside the fixed tick, through the public API only:
//! worlds built from `ObjectDesc`/`BodyDesc`, sessions loaded with
//! `Pipeline::load_session(world, Box::new(RapierStage::new(g)), seed)`, driven by
//! `step_frame`. Each test is named after the sentence of the contract it proves.
//!
//! Expected numbers are derived by hand. One rapier fact is used throughout: rapier's
//! solver splits every step into `num_solver_iterations` (4 by default) internal
//! substeps of semi-implicit Euler (`params.dt /= num_solver_iterations` in its
//! staged solver). So a free fall from rest, after `M` internal steps of length `h`,
//! has `v = -g M h` and `y = y0 - g h² M (M + 1) / 2`.

use std::sync::{Arc, Mutex};

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, ContactEvent, ContactKind, Ctx, Edit, Interpolation, LogLevel,
    ObjectDesc, ObjectId, Phase, PhysicsStage, Pipeline, Pose, Priority, RapierStage, Shape,
    StableHasher, TickObserver, TickRecord, TimeSettings, Vec2, Velocity, World,
};

/// Rapier's default `num_solver_iterations`: internal substeps per rapier step.
const RAPIER_INTERNAL_SUBSTEPS: u32 = 4;

/// Gravity used by most tests: a round number makes hand computations readable.
const G: f32 = 10.0;

type Log = Arc<Mutex<Vec<String>>>;

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn push(log: &Log, line: String) {
    log.lock().expect("log lock").push(line);
}

fn lines(log: &Log) -> Vec<String> {
    log.lock().expect("log lock").clone()
}

fn settings(fixed_hz: u32, substeps: u32) -> TimeSettings {
    TimeSettings {
        fixed_hz,
        substeps,
        ..TimeSettings::default()
    }
}

fn session(world: World, gravity: Vec2, settings: TimeSettings) -> Pipeline {
    let mut pipeline = Pipeline::new(settings);
    pipeline.load_session(world, Box::new(RapierStage::new(gravity)), 7);
    pipeline
}

/// A fixed ground slab 20 m wide whose top face is at y = 0.
fn ground() -> ObjectDesc {
    ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0)).with_body(BodyDesc::with_kind(
        BodyKind::Fixed,
        Shape::Cuboid { hx: 10.0, hy: 0.5 },
    ))
}

fn ball(name: &str, x: f32, y: f32, radius: f32) -> ObjectDesc {
    ObjectDesc::new(name, Pose::new(x, y, 0.0))
        .with_body(BodyDesc::dynamic(Shape::Circle { radius }))
}

fn pose_of(pipeline: &Pipeline, id: ObjectId) -> Pose {
    pipeline
        .world()
        .physics_simulation_pose(id)
        .expect("object is alive")
}

fn velocity_of(pipeline: &Pipeline, id: ObjectId) -> Velocity {
    pipeline
        .world()
        .get(id)
        .and_then(|o| o.body.as_ref())
        .map(|b| b.velocity)
        .expect("object has a body")
}

fn close(actual: f32, expected: f32, tol: f32) -> bool {
    (actual - expected).abs() <= tol
}

/// Committed pose and velocity of every body after each completed tick.
type TickPoses = Vec<(u64, Vec<(ObjectId, Pose, Velocity)>)>;

#[derive(Clone, Default)]
struct PoseRecorder(Arc<Mutex<TickPoses>>);

impl TickObserver for PoseRecorder {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let bodies = record
            .world
            .objects()
            .filter_map(|o| o.body.as_ref().map(|b| (o.id, b.committed, b.velocity)))
            .collect();
        self.0
            .lock()
            .expect("recorder lock")
            .push((record.clock.simulation_tick, bodies));
    }
}

impl PoseRecorder {
    /// Committed pose and velocity of `id` after tick `tick`.
    fn after(&self, tick: u64, id: ObjectId) -> Option<(Pose, Velocity)> {
        let ticks = self.0.lock().expect("recorder lock");
        let (_, bodies) = ticks.iter().find(|(t, _)| *t == tick)?;
        bodies
            .iter()
            .find(|(o, _, _)| *o == id)
            .map(|(_, p, v)| (*p, *v))
    }
}

// ---------------------------------------------------------------------------
// 1. FixedUpdate comes immediately before each rapier step.

/// Delegates to a real `RapierStage` and writes each call into the shared log.
#[derive(Debug)]
struct LoggingStage {
    inner: RapierStage,
    log: Log,
    /// Ticks committed so far (the pending tick is this + 1).
    ticks: u64,
}

impl PhysicsStage for LoggingStage {
    fn reconcile(&mut self, world: &mut World, fixed_dt: f64) {
        push(&self.log, format!("reconcile tick {}", self.ticks + 1));
        self.inner.reconcile(world, fixed_dt);
    }

    fn step(&mut self, fixed_dt: f64, substeps: u32, contacts: &mut Vec<ContactEvent>) {
        push(
            &self.log,
            format!("step tick {} substeps {substeps}", self.ticks + 1),
        );
        self.inner.step(fixed_dt, substeps, contacts);
    }

    fn commit(&mut self, world: &mut World) {
        self.ticks += 1;
        push(&self.log, format!("commit tick {}", self.ticks));
        self.inner.commit(world);
    }

    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(LoggingStage {
            inner: self.inner.clone(),
            log: self.log.clone(),
            ticks: self.ticks,
        })
    }
}

/// Logs Update and FixedUpdate calls with the clock they saw.
#[derive(Clone, Debug)]
struct Tracer {
    label: &'static str,
    log: Log,
}

impl Behaviour for Tracer {
    fn name(&self) -> &str {
        "Tracer"
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        push(
            &self.log,
            format!("update {} frame {}", self.label, ctx.clock().frame_index),
        );
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        push(
            &self.log,
            format!("fixed {} tick {}", self.label, ctx.clock().simulation_tick),
        );
    }
}

#[test]
fn fixed_update_comes_immediately_before_each_rapier_step() {
    let log = new_log();
    let mut world = World::new();
    world.spawn(ground());
    let tracer = |label| Tracer {
        label,
        log: log.clone(),
    };
    // "late" has the higher priority value, so it runs after "early" although it
    // was spawned first.
    let late = world
        .spawn(ball("late", 0.0, 5.0, 0.5).with_behaviour(Box::new(tracer("late")), Priority(10)));
    world.spawn(
        ObjectDesc::new("early", Pose::IDENTITY)
            .with_behaviour(Box::new(tracer("early")), Priority(-5)),
    );
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_session(
        world,
        Box::new(LoggingStage {
            inner: RapierStage::new(Vec2::new(0.0, -G)),
            log: log.clone(),
            ticks: 0,
        }),
        1,
    );

    // 60 Hz ticks: half a tick (0 ticks), half a tick (1 tick), three ticks.
    let reports: Vec<u32> = [0.5 / 60.0, 0.5 / 60.0, 3.0 / 60.0]
        .into_iter()
        .map(|dt| pipeline.step_frame(dt).ticks)
        .collect();
    assert_eq!(reports, vec![0, 1, 3]);

    let tick = |n: u64| {
        vec![
            format!("fixed early tick {n}"),
            format!("fixed late tick {n}"),
            format!("reconcile tick {n}"),
            format!("step tick {n} substeps 1"),
            format!("commit tick {n}"),
        ]
    };
    let mut expected = vec![
        "update early frame 1".to_string(),
        "update late frame 1".into(),
    ];
    expected.extend([
        "update early frame 2".to_string(),
        "update late frame 2".into(),
    ]);
    expected.extend(tick(1));
    expected.extend([
        "update early frame 3".to_string(),
        "update late frame 3".into(),
    ]);
    expected.extend(tick(2));
    expected.extend(tick(3));
    expected.extend(tick(4));
    assert_eq!(lines(&log), expected);

    // Those were real rapier steps: 4 ticks of free fall moved the ball down.
    assert!(pose_of(&pipeline, late).y < 5.0);
}

// ---------------------------------------------------------------------------
// 2. Contact callbacks fire in the fixed phase with the right tick.

/// Records contact callbacks with the clock they saw.
#[derive(Clone, Debug)]
struct ContactProbe {
    log: Log,
}

impl Behaviour for ContactProbe {
    fn name(&self) -> &str {
        "ContactProbe"
    }
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        let c = ctx.clock();
        push(
            &self.log,
            format!(
                "{} {:?} tick {} phase {:?} with {}",
                ctx.me(),
                kind,
                c.simulation_tick,
                c.phase,
                other
            ),
        );
    }
}

#[test]
fn contact_callbacks_fire_in_the_fixed_phase_with_the_right_tick() {
    let log = new_log();
    let mut world = World::new();
    let ground_id = world.spawn(ground());
    let radius = 0.5;
    let ball_id = world.spawn(
        ball("ball", 0.0, 3.0, radius)
            .with_behaviour(Box::new(ContactProbe { log: log.clone() }), Priority(0)),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));
    for _ in 0..90 {
        pipeline.step_frame(1.0 / 60.0);
    }

    let calls = lines(&log);
    assert_eq!(calls.len(), 1, "exactly one contact callback: {calls:?}");
    let (prefix, rest) = calls[0]
        .split_once(" tick ")
        .expect("callback line has a tick");
    assert_eq!(prefix, format!("{ball_id} Started"));
    let (tick, rest) = rest.split_once(' ').expect("tick then phase");
    let tick: u64 = tick.parse().expect("tick is a number");
    assert_eq!(rest, format!("phase {:?} with {ground_id}", Phase::Fixed));

    // Which tick is right: rapier finds contacts at the start of each step, from the
    // poses the previous tick committed, and resolves them in that step. So the
    // callback's tick T is the first tick whose step felt the ground: until T-1 the
    // ball is in exact free fall (v = -g t, hand formula), after T it is not; and
    // the pose committed by T-1 is the first one touching the ground (within
    // rapier's 0.02 m prediction distance), while the one before is clear of it.
    let dt = 1.0 / 60.0_f32;
    let (pose_before, vel_before) = recorder
        .after(tick - 1, ball_id)
        .expect("tick T-1 recorded");
    let (_, vel_at) = recorder.after(tick, ball_id).expect("tick T recorded");
    let (pose_earlier, _) = recorder
        .after(tick - 2, ball_id)
        .expect("tick T-2 recorded");
    let free_fall = -G * dt * (tick - 1) as f32;
    assert!(
        close(vel_before.linear.y, free_fall, 1e-3),
        "{vel_before:?} vs {free_fall}"
    );
    assert!(
        vel_at.linear.y > free_fall - G * dt + 0.5,
        "the step of tick {tick} stopped the fall: {vel_at:?}"
    );
    let gap = |p: Pose| p.y - radius; // ground top is y = 0
    assert!(
        gap(pose_before) <= 0.02,
        "touching after T-1: gap {}",
        gap(pose_before)
    );
    assert!(
        gap(pose_earlier) > 0.02,
        "clear after T-2: gap {}",
        gap(pose_earlier)
    );
}

// ---------------------------------------------------------------------------
// 3. The cohort and removal rules hold with real bodies.

/// Spawns one falling ball (with a Tracer) in the FixedUpdate of its first tick.
#[derive(Clone, Debug)]
struct Spawner {
    log: Log,
    done: bool,
}

impl Behaviour for Spawner {
    fn name(&self) -> &str {
        "Spawner"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if self.done {
            return;
        }
        self.done = true;
        let child = ball("spawned", 2.0, 10.0, 0.25)
            .with_id(ObjectId(100))
            .with_behaviour(
                Box::new(Tracer {
                    label: "spawned",
                    log: self.log.clone(),
                }),
                Priority(0),
            );
        ctx.spawn(child);
    }
}

#[test]
fn an_object_spawned_in_fixed_update_gets_a_body_that_tick_and_its_fixed_update_next_frame() {
    let log = new_log();
    let mut world = World::new();
    world.spawn(ObjectDesc::new("spawner", Pose::IDENTITY).with_behaviour(
        Box::new(Spawner {
            log: log.clone(),
            done: false,
        }),
        Priority(0),
    ));
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));

    // Frame 1 runs ticks 1 and 2; the ball is spawned in tick 1's FixedUpdate.
    assert_eq!(pipeline.step_frame(2.0 / 60.0).ticks, 2);
    let spawned = ObjectId(100);
    let h = 1.0 / 60.0 / RAPIER_INTERNAL_SUBSTEPS as f32;
    let fall = |m: u32| 10.0 - G * h * h * (m * (m + 1)) as f32 / 2.0;
    let (after1, v1) = recorder
        .after(1, spawned)
        .expect("body committed after tick 1");
    // Stepped in tick 1 itself: one tick of free fall, by hand.
    assert!(close(after1.y, fall(4), 1e-5), "{after1:?} vs {}", fall(4));
    assert!(close(v1.linear.y, -G / 60.0, 1e-5));
    let (after2, _) = recorder
        .after(2, spawned)
        .expect("body committed after tick 2");
    assert!(close(after2.y, fall(8), 1e-5));
    // ...but no FixedUpdate for it in ticks 1 or 2 (nor Update in frame 1).
    assert_eq!(lines(&log), Vec::<String>::new());

    // Next outer frame: it joins the cohort.
    assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
    assert_eq!(
        lines(&log),
        vec![
            "update spawned frame 2".to_string(),
            "fixed spawned tick 3".into()
        ]
    );
}

/// Logs every callback it receives; optionally removes `victim` when it touches it.
#[derive(Clone, Debug)]
struct Remover {
    log: Log,
    victim: Option<ObjectId>,
}

impl Behaviour for Remover {
    fn name(&self) -> &str {
        "Remover"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        push(
            &self.log,
            format!("{} fixed tick {}", ctx.me(), ctx.clock().simulation_tick),
        );
    }
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        push(
            &self.log,
            format!(
                "{} {:?} with {} tick {}",
                ctx.me(),
                kind,
                other,
                ctx.clock().simulation_tick
            ),
        );
        if kind == ContactKind::Started && Some(other) == self.victim {
            ctx.remove(other);
        }
    }
}

#[test]
fn an_object_removed_by_a_contact_callback_gets_no_further_callback_and_loses_its_body() {
    // Two balls (ids 1 and 3) land on a platform (id 2) in the same tick. Contacts
    // are delivered in pair order, so ball 1 hears (1, 2) first and removes the
    // platform; the platform must not hear (1, 2) nor, later in the same tick, (2, 3).
    let log = new_log();
    let remover = |victim| Remover {
        log: log.clone(),
        victim,
    };
    let mut world = World::new();
    let left = world.spawn(
        ball("left", -1.0, 1.0, 0.5)
            .with_id(ObjectId(1))
            .with_behaviour(Box::new(remover(Some(ObjectId(2)))), Priority(0)),
    );
    let platform = world.spawn(
        ground()
            .with_id(ObjectId(2))
            .with_behaviour(Box::new(remover(None)), Priority(0)),
    );
    let right = world.spawn(
        ball("right", 1.0, 1.0, 0.5)
            .with_id(ObjectId(3))
            .with_behaviour(Box::new(remover(None)), Priority(0)),
    );
    assert_eq!(
        (left, platform, right),
        (ObjectId(1), ObjectId(2), ObjectId(3))
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));
    // One tick per frame, until the removal happened, then two more ticks.
    let mut removal_tick = None;
    for _ in 0..60 {
        pipeline.step_frame(1.0 / 60.0);
        if removal_tick.is_none() && pipeline.world().get(platform).is_none() {
            removal_tick = Some(pipeline.clock().simulation_tick);
            break;
        }
    }
    let t = removal_tick.expect("the balls landed on the platform within a second");
    pipeline.step_frame(1.0 / 60.0);
    pipeline.step_frame(1.0 / 60.0);

    let calls = lines(&log);
    let platform_calls: Vec<&String> = calls.iter().filter(|l| l.starts_with("#2 ")).collect();
    // The platform heard FixedUpdate up to the removal tick, and nothing else.
    let expected: Vec<String> = (1..=t).map(|k| format!("#2 fixed tick {k}")).collect();
    assert_eq!(platform_calls, expected.iter().collect::<Vec<_>>());
    assert!(calls.contains(&format!("#1 Started with #2 tick {t}")));
    assert!(calls.contains(&format!("#3 Started with #2 tick {t}")));

    // Its body is gone from physics next tick: tick t resolved the landing, tick
    // t+1 is free fall again (Δv = -g dt, by hand) for both balls.
    let dt = 1.0 / 60.0_f32;
    for id in [left, right] {
        let (_, at_t) = recorder.after(t, id).expect("tick t recorded");
        let (_, at_next) = recorder.after(t + 1, id).expect("tick t+1 recorded");
        assert!(
            at_t.linear.y.abs() < 1.0,
            "{id} was resting after tick {t}: {at_t:?}"
        );
        assert!(
            close(at_next.linear.y - at_t.linear.y, -G * dt, 1e-4),
            "{id} falls freely in tick {}: {at_t:?} → {at_next:?}",
            t + 1
        );
    }
    // The survivors still hear that the removed body stopped touching them.
    assert!(
        calls.contains(&format!("#1 Stopped with #2 tick {}", t + 1)),
        "{calls:?}"
    );
    assert!(
        calls.contains(&format!("#3 Stopped with #2 tick {}", t + 1)),
        "{calls:?}"
    );
}

// ---------------------------------------------------------------------------
// 4. physics_simulation_pose.

/// Reads its own pose, writes a new one, and reads again, in tick 1's
/// FixedUpdate.
#[derive(Clone, Debug)]
struct ReadWriteRead {
    log: Arc<Mutex<Vec<Pose>>>,
}

impl Behaviour for ReadWriteRead {
    fn name(&self) -> &str {
        "ReadWriteRead"
    }
    fn clone_box(&self) -> Box<dyn Behaviour> {
        Box::new(self.clone())
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick != 1 {
            return;
        }
        let me = ctx.me();
        let before = ctx.physics_simulation_pose(me).expect("alive");
        assert!(ctx.set_pose(me, Pose::new(5.0, 5.0, 0.5)));
        let after = ctx.physics_simulation_pose(me).expect("alive");
        self.log.lock().expect("lock").extend([before, after]);
    }
}

#[test]
fn physics_simulation_pose_is_a_copy_of_the_committed_pose() {
    // A write in a hook is a command for the next reconcile: the committed
    // pose the hook reads is the completed tick's until the tick commits, and
    // a copy taken before stays what it was.
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut world = World::new();
    let id = world.spawn(ball("ball", 0.0, 2.0, 0.5).with_behaviour(
        Box::new(ReadWriteRead { log: log.clone() }),
        Priority::DEFAULT,
    ));
    let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
    let start = pose_of(&pipeline, id);
    assert_eq!(start, Pose::new(0.0, 2.0, 0.0));
    pipeline.step_frame(1.0 / 60.0);
    let seen = log.lock().expect("lock").clone();
    assert_eq!(
        seen,
        vec![start, start],
        "read, write, read: the same committed pose"
    );
    // The tick committed the written pose (no gravity, no velocity: exactly).
    assert_eq!(pose_of(&pipeline, id), Pose::new(5.0, 5.0, 0.5));
    assert_eq!(
        seen[0],
        Pose::new(0.0, 2.0, 0.0),
        "the copy did not follow the world"
    );
}

#[test]
fn a_bodyless_child_follows_its_physics_parent_committed_transform() {
    let mut world = World::new();
    let mut desc = BodyDesc::dynamic(Shape::Cuboid { hx: 0.5, hy: 0.25 });
    desc.velocity = Velocity {
        linear: Vec2::new(1.0, 0.5),
        angular: 2.0,
    };
    let parent = world.spawn(ObjectDesc::new("cart", Pose::new(1.0, 2.0, 0.25)).with_body(desc));
    let local = Pose::new(1.0, 0.5, 0.3);
    let child = world.spawn(ObjectDesc::new("lamp", local).with_parent(parent));
    let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
    for _ in 0..30 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let p = pose_of(&pipeline, parent);
    // No gravity, no contact: constant velocities for half a second.
    assert!(close(p.x, 1.0 + 0.5, 1e-4), "{p:?}");
    assert!(close(p.y, 2.0 + 0.25, 1e-4), "{p:?}");
    assert!(close(p.angle, 0.25 + 1.0, 1e-4), "{p:?}");
    // The child: parent ∘ local, by hand.
    let (s, c) = (p.angle.sin(), p.angle.cos());
    let expected = Pose::new(
        p.x + c * local.x - s * local.y,
        p.y + s * local.x + c * local.y,
        p.angle + local.angle,
    );
    let got = pose_of(&pipeline, child);
    assert!(close(got.x, expected.x, 1e-5), "{got:?} vs {expected:?}");
    assert!(close(got.y, expected.y, 1e-5), "{got:?} vs {expected:?}");
    assert!(
        close(got.angle, expected.angle, 1e-5),
        "{got:?} vs {expected:?}"
    );
}

#[test]
fn presentation_pose_interpolates_by_alpha_per_mode_on_the_shortest_arc() {
    let mut world = World::new();
    let spinner = |mode| {
        let mut desc = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        desc.velocity = Velocity {
            linear: Vec2::new(3.0, 0.0),
            angular: 3.0,
        };
        desc.interpolation = mode;
        desc
    };
    // Start at 3.1 rad spinning at 3 rad/s: one 60 Hz tick (+0.05 rad) crosses +π,
    // so rapier reports the committed angle as 3.15 - 2π.
    let start = Pose::new(0.0, 0.0, 3.1);
    let none = world.spawn(ObjectDesc::new("none", start).with_body(spinner(Interpolation::None)));
    let lerp = world.spawn(
        ObjectDesc::new("lerp", Pose::new(0.0, 5.0, 3.1))
            .with_body(spinner(Interpolation::Interpolate)),
    );
    let extra = world.spawn(
        ObjectDesc::new("extra", Pose::new(0.0, 10.0, 3.1))
            .with_body(spinner(Interpolation::Extrapolate)),
    );
    let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
    // 1.5 ticks: one tick runs, half a tick stays in the accumulator.
    assert_eq!(pipeline.step_frame(1.5 / 60.0).ticks, 1);
    let alpha = pipeline.clock().interpolation_alpha;
    assert!((alpha - 0.5).abs() < 1e-9, "alpha {alpha}");
    let dt = 1.0 / 60.0;
    let w = pipeline.world();
    let state = |id: ObjectId| w.get(id).and_then(|o| o.body.clone()).expect("body");

    let s = state(lerp);
    let tau = std::f32::consts::TAU;
    assert!(close(s.previous.angle, 3.1, 1e-6));
    assert!(
        close(s.committed.angle, 3.15 - tau, 1e-4),
        "{:?}",
        s.committed
    );
    let shown = w.presentation_pose(lerp, alpha, dt).expect("alive");
    assert!(close(shown.x, 0.5 * (s.previous.x + s.committed.x), 1e-6));
    // Shortest arc: halfway from 3.1 to 3.15 is 3.125, not the naive average near 0.
    let arc = s.committed.angle + tau - s.previous.angle;
    assert!(
        close(shown.angle, s.previous.angle + 0.5 * arc, 1e-5),
        "{shown:?}"
    );
    assert!(close(shown.angle, 3.125, 1e-4), "{shown:?}");

    let s = state(none);
    assert_eq!(w.presentation_pose(none, alpha, dt), Some(s.committed));

    let s = state(extra);
    let shown = w.presentation_pose(extra, alpha, dt).expect("alive");
    let ahead = (alpha * dt) as f32;
    assert!(close(
        shown.x,
        s.committed.x + s.velocity.linear.x * ahead,
        1e-6
    ));
    assert!(close(
        shown.angle,
        s.committed.angle + s.velocity.angular * ahead,
        1e-6
    ));
    assert!(close(s.velocity.linear.x, 3.0, 1e-5));
}

// ---------------------------------------------------------------------------
// 5. Force and impulse scaling.

/// Applies a force or an impulse to its own body in its first FixedUpdate only.
#[derive(Clone, Debug)]
struct Pusher {
    impulse: bool,
    amount: Vec2,
    done: bool,
}

impl Behaviour for Pusher {
    fn name(&self) -> &str {
        "Pusher"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if self.done {
            return;
        }
        self.done = true;
        let me = ctx.me();
        let accepted = if self.impulse {
            ctx.apply_impulse(me, self.amount)
        } else {
            ctx.apply_force(me, self.amount)
        };
        assert!(accepted);
    }
}

/// Velocity of a 2 kg box after each of the first two ticks at `hz`.
fn push_box(hz: u32, impulse: bool, amount: Vec2) -> (Velocity, Velocity) {
    let mut world = World::new();
    // 1 m × 1 m at 2 kg/m²: mass 2 kg.
    let mut desc = BodyDesc::dynamic(Shape::Cuboid { hx: 0.5, hy: 0.5 });
    desc.density = 2.0;
    let id = world.spawn(
        ObjectDesc::new("box", Pose::IDENTITY)
            .with_body(desc)
            .with_behaviour(
                Box::new(Pusher {
                    impulse,
                    amount,
                    done: false,
                }),
                Priority(0),
            ),
    );
    let mut pipeline = session(world, Vec2::ZERO, settings(hz, 1));
    assert_eq!(pipeline.step_frame(1.0 / f64::from(hz)).ticks, 1);
    let first = velocity_of(&pipeline, id);
    assert_eq!(pipeline.step_frame(1.0 / f64::from(hz)).ticks, 1);
    (first, velocity_of(&pipeline, id))
}

#[test]
fn a_force_is_scaled_by_the_tick_and_does_not_persist() {
    let mass = 2.0;
    let force = Vec2::new(10.0, -4.0);
    for hz in [60, 120] {
        let dt = 1.0 / hz as f32;
        let (first, second) = push_box(hz, false, force);
        let expected = force * (dt / mass);
        assert!(
            close(first.linear.x, expected.x, 1e-6),
            "{hz} Hz: {first:?} vs {expected:?}"
        );
        assert!(
            close(first.linear.y, expected.y, 1e-6),
            "{hz} Hz: {first:?} vs {expected:?}"
        );
        assert_eq!(first.angular, 0.0);
        // The next tick had no force: the velocity is unchanged.
        assert_eq!(
            second, first,
            "{hz} Hz: the force leaked into the next tick"
        );
    }
}

#[test]
fn an_impulse_is_not_scaled_by_the_tick() {
    let mass = 2.0;
    let impulse = Vec2::new(3.0, 1.0);
    for hz in [60, 120] {
        let (first, second) = push_box(hz, true, impulse);
        let expected = impulse * (1.0 / mass);
        assert!(
            close(first.linear.x, expected.x, 1e-6),
            "{hz} Hz: {first:?}"
        );
        assert!(
            close(first.linear.y, expected.y, 1e-6),
            "{hz} Hz: {first:?}"
        );
        assert_eq!(second, first);
    }
}

// ---------------------------------------------------------------------------
// 6. Substeps.

#[test]
fn with_substeps_a_tick_still_advances_exactly_fixed_dt() {
    let dt = 1.0 / 60.0_f32;
    let ticks = 30u32;
    let mut fallen = Vec::new();
    for substeps in [1u32, 4] {
        let mut world = World::new();
        let id = world.spawn(ball("ball", 0.0, 20.0, 0.5));
        let mut pipeline = session(world, Vec2::new(0.0, -G), settings(60, substeps));
        for _ in 0..ticks {
            assert_eq!(pipeline.step_frame(f64::from(dt)).ticks, 1);
        }
        // Velocity after half a second of free fall: -g t, whatever the substeps.
        let v = velocity_of(&pipeline, id);
        assert!(
            close(v.linear.y, -G * dt * ticks as f32, 1e-4),
            "{substeps}: {v:?}"
        );
        // Position: semi-implicit Euler with M internal steps of h = dt / (substeps × 4).
        let m = ticks * substeps * RAPIER_INTERNAL_SUBSTEPS;
        let h = dt / (substeps * RAPIER_INTERNAL_SUBSTEPS) as f32;
        let expected = 20.0 - G * h * h * (m as f32) * (m as f32 + 1.0) / 2.0;
        let y = pose_of(&pipeline, id).y;
        assert!(
            close(y, expected, 1e-4),
            "{substeps} substeps: y {y} vs {expected}"
        );
        fallen.push(20.0 - y);
    }
    // Both fell about ½ g t² = 1.25 m; finer substeps get closer to it.
    let exact = 0.5 * G * 0.25;
    assert!((fallen[1] - exact).abs() < (fallen[0] - exact).abs());
    assert!((fallen[1] - fallen[0]).abs() < 0.01);
}

#[test]
fn with_substeps_contacts_still_fire() {
    let log = new_log();
    let mut world = World::new();
    let ground_id = world.spawn(ground());
    let ball_id = world.spawn(
        ball("ball", 0.0, 2.0, 0.5)
            .with_behaviour(Box::new(ContactProbe { log: log.clone() }), Priority(0)),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), settings(60, 4));
    for _ in 0..90 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let calls = lines(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(calls[0].starts_with(&format!("{ball_id} Started tick ")));
    assert!(calls[0].ends_with(&format!("phase Fixed with {ground_id}")));
    // And the ball rests on the ground instead of falling through it.
    let y = pose_of(&pipeline, ball_id).y;
    assert!(close(y, 0.5, 0.02), "resting centre at one radius: {y}");
}

/// Moves its kinematic body 0.1 m right per tick by target, from x = 0.
#[derive(Clone, Debug)]
struct Slider;

impl Behaviour for Slider {
    fn name(&self) -> &str {
        "Slider"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        let x = 0.1 * ctx.clock().simulation_tick as f32;
        ctx.set_kinematic_target(me, Pose::new(x, 0.0, 0.0));
    }
}

#[test]
fn with_substeps_a_kinematic_body_reaches_its_target_at_the_end_of_the_tick_at_constant_speed() {
    for substeps in [1u32, 4] {
        let mut world = World::new();
        let id = world.spawn(
            ObjectDesc::new("slider", Pose::IDENTITY)
                .with_body(BodyDesc::with_kind(
                    BodyKind::Kinematic,
                    Shape::Circle { radius: 0.5 },
                ))
                .with_behaviour(Box::new(Slider), Priority(0)),
        );
        let mut pipeline = session(world, Vec2::new(0.0, -G), settings(60, substeps));
        for tick in 1..=5u32 {
            assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
            // At the target when the tick ends...
            let p = pose_of(&pipeline, id);
            assert!(close(p.x, 0.1 * tick as f32, 1e-5), "{substeps}: {p:?}");
            // ...having moved at 0.1 m / (1/60 s) = 6 m/s through every substep, so the
            // last substep's velocity is the tick's average, not a jump then a stop.
            let v = velocity_of(&pipeline, id);
            assert!(
                close(v.linear.x, 6.0, 1e-3),
                "{substeps} substeps, tick {tick}: {v:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// 7. Snapshot and restore.

/// Sweeps a kinematic paddle left and right through the pile, and pushes a box.
#[derive(Clone, Debug)]
struct Stirrer {
    pushed: ObjectId,
}

impl Behaviour for Stirrer {
    fn name(&self) -> &str {
        "Stirrer"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let t = ctx.clock().simulation_time as f32;
        let me = ctx.me();
        ctx.set_kinematic_target(me, Pose::new(3.0 * (2.0 * t).sin(), 0.4, 0.0));
        let pushed = self.pushed;
        ctx.apply_force(pushed, Vec2::new(5.0, 0.0));
    }
}

fn pile_world() -> World {
    let mut world = World::new();
    world.spawn(ground());
    for (x, hy) in [(-6.0, 3.0), (6.0, 3.0)] {
        world.spawn(
            ObjectDesc::new("wall", Pose::new(x, hy, 0.0)).with_body(BodyDesc::with_kind(
                BodyKind::Fixed,
                Shape::Cuboid { hx: 0.25, hy },
            )),
        );
    }
    let mut first = None;
    for row in 0..6 {
        for col in 0..5 {
            let x = -3.0 + 1.3 * col as f32 + 0.1 * row as f32;
            let y = 1.5 + 1.1 * row as f32;
            let mut desc = if (row + col) % 2 == 0 {
                BodyDesc::dynamic(Shape::Circle { radius: 0.45 })
            } else {
                BodyDesc::dynamic(Shape::Cuboid { hx: 0.4, hy: 0.35 })
            };
            desc.restitution = 0.2;
            let id = world
                .spawn(ObjectDesc::new("piece", Pose::new(x, y, 0.1 * col as f32)).with_body(desc));
            first.get_or_insert(id);
        }
    }
    let paddle = BodyDesc::with_kind(
        BodyKind::Kinematic,
        Shape::Capsule {
            half_height: 0.3,
            radius: 0.2,
        },
    );
    let pushed = first.expect("pile is not empty");
    world.spawn(
        ObjectDesc::new("paddle", Pose::new(0.0, 0.4, 0.0))
            .with_body(paddle)
            .with_behaviour(Box::new(Stirrer { pushed }), Priority(0)),
    );
    world
}

/// Bit patterns of every body's committed, previous pose and velocity.
fn bits(pipeline: &Pipeline) -> Vec<(u64, [u32; 9])> {
    pipeline
        .world()
        .objects()
        .filter_map(|o| {
            let b = o.body.as_ref()?;
            let (c, p, v) = (b.committed, b.previous, b.velocity);
            let all = [
                c.x, c.y, c.angle, p.x, p.y, p.angle, v.linear.x, v.linear.y, v.angular,
            ];
            Some((o.id.0, all.map(f32::to_bits)))
        })
        .collect()
}

/// One frame of a run: completed tick, state hash, every body's bits.
type FrameBits = (u64, u64, Vec<(u64, [u32; 9])>);

/// Runs one-tick frames until tick `until`, recording hash and bits per frame.
fn run_to(pipeline: &mut Pipeline, until: u64) -> Vec<FrameBits> {
    let mut out = Vec::new();
    while pipeline.clock().simulation_tick < until {
        assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
        out.push((
            pipeline.clock().simulation_tick,
            pipeline.state_hash(),
            bits(pipeline),
        ));
    }
    out
}

#[test]
fn a_snapshot_restores_the_whole_engine_and_continues_bit_identically() {
    let mut pipeline = session(pile_world(), Vec2::new(0.0, -9.81), TimeSettings::default());
    let mut snapshots = Vec::new();
    let mut reference = Vec::new();
    for at in [10, 60, 120] {
        reference.extend(run_to(&mut pipeline, at));
        snapshots.push(pipeline.snapshot());
    }
    reference.extend(run_to(&mut pipeline, 200));
    assert_eq!(reference.len(), 200);

    // The pile is busy at the snapshot ticks: bodies moving, contacts between them.
    for (tick, _, bodies) in &reference {
        if [10, 60, 120].contains(tick) {
            let moving = bodies
                .iter()
                .filter(|(_, b)| f32::from_bits(b[6]).abs() + f32::from_bits(b[7]).abs() > 0.01)
                .count();
            assert!(moving >= 3, "tick {tick}: only {moving} bodies moving");
        }
    }

    let from = |tick: u64| {
        reference
            .iter()
            .filter(move |(t, _, _)| *t > tick)
            .cloned()
            .collect::<Vec<_>>()
    };
    for snapshot in &snapshots {
        let at = snapshot.tick();
        // Back into the same pipeline...
        pipeline.restore(snapshot);
        assert_eq!(pipeline.clock().simulation_tick, at);
        let again = run_to(&mut pipeline, 200);
        assert!(
            again == from(at),
            "restore at tick {at} diverged at tick {:?}",
            first_divergence(&again, &from(at))
        );
        // ...and into a fresh one.
        let mut fresh = Pipeline::new(TimeSettings::default());
        fresh.restore(snapshot);
        let again = run_to(&mut fresh, 200);
        assert!(
            again == from(at),
            "fresh restore at tick {at} diverged at tick {:?}",
            first_divergence(&again, &from(at))
        );
    }

    // Two fresh runs of the same world agree bit for bit.
    let mut other = session(pile_world(), Vec2::new(0.0, -9.81), TimeSettings::default());
    let second = run_to(&mut other, 200);
    assert!(
        second == reference,
        "fresh runs diverged at tick {:?}",
        first_divergence(&second, &reference)
    );
}

fn first_divergence(a: &[FrameBits], b: &[FrameBits]) -> Option<u64> {
    a.iter().zip(b).find(|(x, y)| x != y).map(|(x, _)| x.0)
}

#[test]
fn the_rapier_state_feeds_the_state_hash() {
    // Two balls at rest with no gravity, the same committed pose and
    // velocity bit for bit; one may sleep and falls asleep (rapier sleeps a
    // body still for about 2 s), the other may not. The stage's hash covers
    // rapier's state, not the authored description, so only the hidden
    // sleeping state tells them apart, and the hash must see it.
    let run = |awake: bool| {
        let mut world = World::new();
        let mut body = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        body.can_sleep = !awake;
        let id = world.spawn(ObjectDesc::new("ball", Pose::new(1.0, 1.0, 0.0)).with_body(body));
        let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
        for _ in 0..600 {
            pipeline.step_frame(1.0 / 60.0);
        }
        let mut hasher = StableHasher::new();
        pipeline.physics().hash_state(&mut hasher);
        (
            pose_of(&pipeline, id),
            velocity_of(&pipeline, id),
            hasher.finish(),
        )
    };
    let (asleep_pose, asleep_velocity, asleep_hash) = run(false);
    let (awake_pose, awake_velocity, awake_hash) = run(true);
    assert_eq!(asleep_pose, awake_pose);
    assert_eq!(asleep_pose, Pose::new(1.0, 1.0, 0.0));
    assert_eq!(asleep_velocity, awake_velocity);
    assert_ne!(asleep_hash, awake_hash, "sleeping and awake hash alike");
}

// ---------------------------------------------------------------------------
// 8. Non-finite writes never reach rapier.

/// Writes NaN and infinity through every command kind.
#[derive(Clone, Debug)]
struct Vandal;

impl Behaviour for Vandal {
    fn name(&self) -> &str {
        "Vandal"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        assert!(!ctx.apply_force(me, Vec2::new(f32::NAN, 0.0)));
        assert!(!ctx.apply_impulse(me, Vec2::new(0.0, f32::INFINITY)));
        assert!(!ctx.set_pose(me, Pose::new(0.0, f32::NAN, 0.0)));
        assert!(!ctx.set_velocity(
            me,
            Velocity {
                linear: Vec2::ZERO,
                angular: f32::NEG_INFINITY
            }
        ));
    }
}

#[test]
fn a_non_finite_write_is_rejected_before_it_reaches_rapier() {
    let mut world = World::new();
    world.spawn(ground());
    let id = world.spawn(ball("ball", 0.0, 0.5, 0.5).with_behaviour(Box::new(Vandal), Priority(0)));
    // A body authored at a non-finite pose is not created at all: the
    // object lives on without one (not in traces, never in rapier).
    let broken = world.spawn(ball("broken", f32::NAN, 1.0, 0.5));
    assert!(world.get(broken).expect("the object exists").body.is_none());
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    for _ in 0..10 {
        assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
        let p = pose_of(&pipeline, id);
        assert!(p.is_finite(), "{p:?}");
        assert!(velocity_of(&pipeline, id).is_finite());
    }
    // Resting on the ground, where it started.
    assert!(close(pose_of(&pipeline, id).y, 0.5, 0.02));
    let log = pipeline.drain_log();
    let rejected = log
        .iter()
        .filter(|e| {
            e.level == LogLevel::Error && e.object == Some(id) && e.message.contains("non-finite")
        })
        .count();
    assert_eq!(rejected, 4 * 10, "four rejected writes per tick: {log:?}");
    assert!(log.iter().any(|e| {
        e.level == LogLevel::Error
            && e.object == Some(broken)
            && e.message
                .contains("body not created: its world pose does not fit in f32")
    }));
    assert!(pipeline.world().get(broken).expect("alive").body.is_none());
}

// ---------------------------------------------------------------------------
// Contact hooks read the live pose of their tick (issue 16).

/// Records, in each contact callback, the tick and the pose and velocity it reads.
#[derive(Clone, Debug)]
struct ContactPose {
    seen: Arc<Mutex<Vec<(u64, Pose, Velocity)>>>,
}

impl Behaviour for ContactPose {
    fn name(&self) -> &str {
        "ContactPose"
    }
    fn on_contact(&mut self, ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {
        let me = ctx.me();
        let pose = ctx.physics_simulation_pose(me).expect("a body");
        let velocity = ctx.velocity(me).expect("a body");
        let tick = ctx.clock().simulation_tick;
        self.seen.lock().expect("lock").push((tick, pose, velocity));
    }
}

#[test]
fn a_contact_hook_reads_the_pose_and_velocity_its_tick_commits() {
    // The ball of `contact_callbacks_fire_in_the_fixed_phase_with_the_right_tick`:
    // its step of tick T stops the fall, so tick T's pose differs from T-1's.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut world = World::new();
    world.spawn(ground());
    let ball_id = world.spawn(
        ball("ball", 0.0, 3.0, 0.5)
            .with_behaviour(Box::new(ContactPose { seen: seen.clone() }), Priority(0)),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    pipeline.set_tick_observer(Some(Box::new(recorder.clone())));
    for _ in 0..90 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (tick, pose, velocity) = seen[0];
    let (committed, committed_v) = recorder.after(tick, ball_id).expect("tick T");
    let (before, _) = recorder.after(tick - 1, ball_id).expect("tick T-1");
    assert_eq!(
        (pose, velocity),
        (committed, committed_v),
        "the tick's own record"
    );
    assert_ne!(pose, before, "not the previous tick's pose");
}

// ---------------------------------------------------------------------------
// Hierarchy and enabled (Unity's activeInHierarchy).

/// Contacts of every tick, as `(tick, event)`.
#[derive(Clone, Default)]
struct ContactLog(Arc<Mutex<Vec<(u64, ContactEvent)>>>);

impl TickObserver for ContactLog {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let tick = record.clock.simulation_tick;
        let mut log = self.0.lock().expect("lock");
        log.extend(record.contacts.iter().map(|c| (tick, *c)));
    }
}

#[test]
fn a_disabled_parent_takes_its_subtrees_bodies_out_of_the_simulation_until_enabled_again() {
    // A ball falls from y = 5 (object 2); its child (3), a ball resting on the
    // ground 3 m to the right, touches the ground from the start.
    let mut world = World::new();
    let ground_id = world.spawn(ground());
    let parent = world.spawn(ball("parent", 0.0, 5.0, 0.5));
    let child = world.spawn(ball("child", 3.0, -4.5, 0.5).with_parent(parent));
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    let contacts = ContactLog::default();
    let observers: Vec<Box<dyn TickObserver>> =
        vec![Box::new(recorder.clone()), Box::new(contacts.clone())];
    pipeline.set_tick_observer(Some(Box::new(observers)));
    for _ in 0..20 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let touching = ContactEvent::new(ground_id, child, ContactKind::Started);
    assert!(
        contacts
            .0
            .lock()
            .expect("lock")
            .iter()
            .any(|(_, c)| *c == touching)
    );

    // Disabled after tick 20: ticks 21..=40 change neither body, not even by
    // gravity, and the child's contact with the ground stops in tick 21.
    pipeline
        .apply_edit(
            &Edit::Enabled {
                object: parent,
                enabled: false,
            }
            .into(),
        )
        .expect("a live object");
    for _ in 0..20 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let at20 = |id| recorder.after(20, id).expect("tick 20");
    for tick in 21..=40 {
        assert_eq!(
            recorder.after(tick, parent),
            Some(at20(parent)),
            "tick {tick}"
        );
        assert_eq!(
            recorder.after(tick, child),
            Some(at20(child)),
            "tick {tick}"
        );
    }
    let stopped = ContactEvent::new(ground_id, child, ContactKind::Stopped);
    assert!(
        contacts.0.lock().expect("lock").contains(&(21, stopped)),
        "{:?}",
        contacts.0.lock().expect("lock")
    );

    // Enabled again: the parent falls on from the velocity it had (one more
    // tick of gravity: v -= g dt), and the child touches the ground again.
    pipeline
        .apply_edit(
            &Edit::Enabled {
                object: parent,
                enabled: true,
            }
            .into(),
        )
        .expect("a live object");
    pipeline.step_frame(1.0 / 60.0);
    let (p41, v41) = recorder.after(41, parent).expect("tick 41");
    let (p20, v20) = at20(parent);
    assert!(
        close(v41.linear.y, v20.linear.y - G / 60.0, 1e-3),
        "{v20:?} then {v41:?}"
    );
    assert!(p41.y < p20.y);
    assert!(
        contacts.0.lock().expect("lock").contains(&(41, touching)),
        "{:?}",
        contacts.0.lock().expect("lock")
    );
}
