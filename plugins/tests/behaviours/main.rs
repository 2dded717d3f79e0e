//! Each built-in behaviour against the part of the contract it exercises.
//!
//! Expected numbers come from the physics by hand: a 1 m × 1 m box of density 1
//! has mass 1 kg, so an impulse of J N·s gives it J m/s; a force F on mass m for
//! one 1/60 s tick gives F / m / 60 m/s; under gravity g, a body released at
//! rest falls g·h²·m(m+1)/2 after m of rapier's internal steps of length h
//! (4 per tick, see the spawner test).
//!
//! The mid-step behaviours (`OneWayPlatform`, `Conveyor`) in scenes of
//! their own: [`mid_step`].

mod mid_step;

use std::path::Path;
use std::sync::{Arc, Mutex};

use stepframe_core::scene::Registry;
use stepframe_core::{
    Behaviour, Breakpoint, ContactKind, Ctx, FrameKind, HookKind, InputEvent, InputSource,
    LogLevel, ObjectId, Pipeline, Scene, TimeSettings,
};

const DT: f64 = 1.0 / 60.0;

fn session(text: &str, registry: &Registry) -> Pipeline {
    let scene =
        Scene::parse(text, Path::new("test.ron"), registry).unwrap_or_else(|e| panic!("{e}"));
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline
        .load_scene(&scene, registry)
        .unwrap_or_else(|e| panic!("{e}"));
    pipeline
}

fn velocity(p: &Pipeline, id: u64) -> (f32, f32) {
    let v = p
        .world()
        .get(ObjectId(id))
        .and_then(|o| o.body.as_ref())
        .map(|b| b.velocity.linear)
        .expect("object with a body");
    (v.x, v.y)
}

fn position(p: &Pipeline, id: u64) -> (f32, f32) {
    let pose = p
        .world()
        .physics_simulation_pose(ObjectId(id))
        .expect("live object");
    (pose.x, pose.y)
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

fn key(name: &str) -> InputSource {
    InputSource::Key(name.into())
}

// ----- PlayerController --------------------------------------------------------

/// A 1 kg box in zero gravity with a controller that may jump in the air.
const HOPPER: &str = r#"(
    settings: (gravity: (x: 0.0, y: 0.0)),
    actions: (actions: [
        (name: "jump", sources: [Key("Space")]),
        (name: "charge", sources: [Key("ArrowDown")]),
        (name: "left", sources: [Key("A")]),
        (name: "right", sources: [Key("D")]),
    ]),
    objects: [
        (id: 1, name: "Hopper", body: (shapes: [Cuboid(hx: 0.5, hy: 0.5)], can_sleep: false),
         behaviours: [(name: "PlayerController", params: (
             jump_impulse: 3.0, charge_impulse_per_second: 2.0, max_charge_ms: 10000.0,
             move_force: 6.0, max_speed: 100.0, require_ground: false))]),
    ],
)"#;

#[test]
fn jump_is_one_impulse_on_the_fixed_press_edge_even_in_a_four_tick_frame() {
    let registry = stepframe_plugins::registry();
    let mut p = session(HOPPER, &registry);
    p.step_frame(DT);
    assert_eq!(velocity(&p, 1), (0.0, 0.0));

    // A press, then a frame of four ticks: the edge is seen by the first tick only.
    p.push_input(InputEvent::press(key("Space")));
    let report = p.step_frame(4.0 * DT);
    assert_eq!(report.ticks, 4);
    let (_, vy) = velocity(&p, 1);
    assert!(
        close(vy, 3.0, 1e-5),
        "one 3 N·s impulse on 1 kg is 3 m/s, got {vy}"
    );

    // Held, no new edge: no new impulse.
    p.step_frame(4.0 * DT);
    assert!(close(velocity(&p, 1).1, 3.0, 1e-5));

    // Release, then a press in a frame that runs no tick: it survives to the next
    // tick and jumps exactly once there.
    p.push_input(InputEvent::release(key("Space")));
    p.step_frame(DT);
    p.push_input(InputEvent::press(key("Space")));
    let report = p.step_frame(0.004);
    assert_eq!(report.ticks, 0);
    assert!(close(velocity(&p, 1).1, 3.0, 1e-5), "no tick, no jump yet");
    let report = p.step_frame(DT);
    assert_eq!(report.ticks, 1);
    assert!(close(velocity(&p, 1).1, 6.0, 1e-5));
}

#[test]
fn running_pushes_with_a_force_per_tick() {
    let registry = stepframe_plugins::registry();
    let mut p = session(HOPPER, &registry);
    p.step_frame(DT);
    p.push_input(InputEvent::press(key("D")));
    // 6 N on 1 kg for 30 ticks of 1/60 s: 3 m/s.
    for _ in 0..30 {
        p.step_frame(DT);
    }
    let (vx, _) = velocity(&p, 1);
    assert!(close(vx, 3.0, 1e-4), "got {vx}");
}

/// Holds `charge` for 30 ticks, optionally with a long pause in the middle, and
/// returns the vertical speed after the release.
fn charged_jump(pause: bool) -> f32 {
    let registry = stepframe_plugins::registry();
    let mut p = session(HOPPER, &registry);
    p.step_frame(DT);
    p.push_input(InputEvent::press(key("ArrowDown")));
    for frame in 0..30 {
        p.step_frame(DT);
        if pause && frame == 10 {
            // A paused player or debugger does not run the pipeline: whatever
            // the host calls while suspended runs nothing.
            p.pause();
            for _ in 0..120 {
                assert_eq!(p.step_frame(DT).kind, FrameKind::NotRun);
            }
            p.resume();
        }
    }
    assert_eq!(velocity(&p, 1).1, 0.0, "no impulse while charging");
    p.push_input(InputEvent::release(key("ArrowDown")));
    p.step_frame(DT);
    velocity(&p, 1).1
}

#[test]
fn charged_jump_counts_simulation_milliseconds_and_ignores_a_pause() {
    // Held from the tick that saw the press through 30 ticks: 500 ms of
    // simulation; 2 N·s per second of charge × 0.5 s = 1 N·s on 1 kg = 1 m/s.
    let straight = charged_jump(false);
    assert!(close(straight, 1.0, 1e-4), "got {straight}");
    let paused = charged_jump(true);
    assert_eq!(paused, straight, "a pause adds nothing to the charge");
}

#[test]
fn a_tap_inside_one_tick_is_a_jump_edge_but_no_charge() {
    let registry = stepframe_plugins::registry();
    let mut p = session(HOPPER, &registry);
    p.step_frame(DT);
    p.push_input(InputEvent::press(key("ArrowDown")));
    p.push_input(InputEvent::release(key("ArrowDown")));
    p.step_frame(DT);
    assert_eq!(velocity(&p, 1).1, 0.0, "zero charge, no charged jump");
}

#[test]
fn a_grounded_controller_only_jumps_while_touching_something() {
    let text = r#"(
        actions: (actions: [(name: "jump", sources: [Key("Space")])]),
        objects: [
            (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 5.0, hy: 0.5)])),
            (id: 2, name: "Hopper", transform: (x: 0.0, y: 3.0), body: (shapes: [Cuboid(hx: 0.5, hy: 0.5)], can_sleep: false),
             behaviours: [(name: "PlayerController", params: (jump_impulse: 3.0))]),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    p.step_frame(DT);
    // In the air: the press is ignored.
    p.push_input(InputEvent::press(key("Space")));
    p.step_frame(DT);
    assert!(velocity(&p, 2).1 < 0.0, "still falling, no jump");
    p.push_input(InputEvent::release(key("Space")));
    for _ in 0..120 {
        p.step_frame(DT);
    }
    let (_, y) = position(&p, 2);
    assert!(close(y, 0.5, 0.05), "resting on the floor, y = {y}");
    p.push_input(InputEvent::press(key("Space")));
    p.step_frame(DT);
    let vy = velocity(&p, 2).1;
    // 3 m/s from the impulse, minus at most one tick of gravity (0.16 m/s).
    assert!(vy > 2.7 && vy < 3.05, "jumped off the floor, vy = {vy}");
}

// ----- Spawner -----------------------------------------------------------------

#[test]
fn spawned_body_steps_in_its_tick_and_its_behaviour_starts_next_frame() {
    let text = r#"(
        objects: [
            (id: 1, name: "Spawner", transform: (x: 0.0, y: 5.0),
             behaviours: [(name: "Spawner", params: (interval: 100.0, max_alive: 5, lifetime: 0.0, spread: 0.0))]),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    // The projectile will be object 2 (the next free id).
    p.add_breakpoint(Breakpoint::on(HookKind::FixedUpdate, ObjectId(2)));

    // Frame 1 runs four ticks. Start (update phase) starts the routine on the
    // fixed clock; it spawns during tick 1, and the body joins that tick's step.
    let report = p.step_frame(4.0 * DT);
    assert_eq!(report.ticks, 4);
    assert!(
        report.suspended.is_none(),
        "no Projectile FixedUpdate in frame 1"
    );
    assert_eq!(p.debugger().hits().count(), 0);
    let (x, y) = position(&p, 2);
    // Fell for all four ticks. Rapier integrates each tick as 4 internal
    // semi-implicit Euler steps of h = dt/4, so after n ticks (m = 4n steps) the
    // fall is g·h²·m(m+1)/2 = g·dt²·n(4n+1)/8: factor 8.5 for n = 4. Had the body
    // joined in tick 2 (n = 3), the factor would be 4.875.
    let expected = 5.0 - 9.81 * 8.5 * (DT * DT) as f32;
    assert_eq!(x, 0.0);
    assert!(close(y, expected, 1e-4), "y = {y}, expected {expected}");

    // Frame 2: the projectile's FixedUpdate runs, first in tick 5.
    let report = p.step_frame(DT);
    assert!(report.suspended.is_some());
    let hit = p.debugger().hits().next().expect("a hit").clone();
    assert_eq!((hit.tick, hit.frame), (5, 2));
    assert_eq!(hit.behaviour, "Projectile");
}

/// A lone `Spawner` with `params` in zero gravity, run for 600 frames of
/// 1/60 s (10 s): the session after them and the most objects alive at once.
fn spawner_for_ten_seconds(params: &str) -> (Pipeline, usize) {
    let text = format!(
        r#"(
        settings: (gravity: (x: 0.0, y: 0.0)),
        objects: [
            (id: 1, name: "Spawner",
             behaviours: [(name: "Spawner", params: ({params}))]),
        ],
    )"#
    );
    let registry = stepframe_plugins::registry();
    let mut p = session(&text, &registry);
    let mut most = 0;
    for _ in 0..600 {
        p.step_frame(DT);
        most = most.max(p.world().len());
    }
    (p, most)
}

#[test]
fn spawner_population_stays_bounded_by_its_cap() {
    let (p, most) =
        spawner_for_ten_seconds("interval: 0.05, max_alive: 4, lifetime: 0.0, spread: 20.0");
    assert_eq!(most, 1 + 4, "the spawner and at most 4 projectiles");
    // 10 s at one burst per 0.05 s: about 200 spawned in all, ids keep growing.
    let newest = p.world().objects().map(|o| o.id.0).max().unwrap();
    assert!(newest > 150, "newest id {newest}");
}

#[test]
fn projectiles_remove_themselves_after_their_lifetime() {
    let (_, most) =
        spawner_for_ten_seconds("interval: 1.0, max_alive: 100, lifetime: 0.5, spread: 20.0");
    // One projectile per second, each living half a second: never two at once.
    assert_eq!(most, 2);
}

// ----- KillZone ----------------------------------------------------------------

/// Records every callback its object receives: (hook, tick).
#[derive(Clone, Debug)]
struct Recorder {
    calls: Arc<Mutex<Vec<(HookKind, u64)>>>,
}

impl Behaviour for Recorder {
    fn name(&self) -> &str {
        "Recorder"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let tick = ctx.clock().simulation_tick;
        self.calls
            .lock()
            .unwrap()
            .push((HookKind::FixedUpdate, tick));
    }
    fn on_contact(&mut self, ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {
        let tick = ctx.clock().simulation_tick;
        self.calls.lock().unwrap().push((HookKind::Contact, tick));
    }
}

fn registry_with_recorder(calls: &Arc<Mutex<Vec<(HookKind, u64)>>>) -> Registry {
    let mut registry = stepframe_plugins::registry();
    let calls = calls.clone();
    registry.register("Recorder", "()", move |_| {
        Ok(Box::new(Recorder {
            calls: calls.clone(),
        }))
    });
    registry
}

#[test]
fn kill_zone_removes_what_enters_and_it_gets_no_further_callback() {
    let text = r#"(
        objects: [
            (id: 1, name: "Pit", transform: (x: 0.0, y: -2.0),
             body: (kind: Fixed, shapes: [Cuboid(hx: 2.0, hy: 0.5)], sensor: true),
             behaviours: [(name: "KillZone")]),
            (id: 5, name: "Victim", body: (shapes: [Circle(radius: 0.25)]),
             behaviours: [(name: "Recorder")]),
        ],
    )"#;
    let calls = Arc::new(Mutex::new(Vec::new()));
    let registry = registry_with_recorder(&calls);
    let mut p = session(text, &registry);
    let mut removed_at = None;
    for _ in 0..120 {
        p.step_frame(DT);
        if p.world().get(ObjectId(5)).is_none() {
            removed_at = Some(p.clock().simulation_tick);
            break;
        }
    }
    // Falls 1.25 m before touching: about sqrt(2·1.25/9.81) = 0.5 s, 30 ticks.
    let removed_at = removed_at.expect("the victim was removed");
    assert!(
        (28..=34).contains(&removed_at),
        "removed at tick {removed_at}"
    );
    for _ in 0..30 {
        p.step_frame(DT);
    }
    let calls = calls.lock().unwrap().clone();
    // The pit (id 1) hears the contact first and removes the victim, so the
    // victim's own contact callback for that same event never runs.
    assert!(
        calls.iter().all(|(hook, _)| *hook == HookKind::FixedUpdate),
        "{calls:?}"
    );
    let last = calls.last().map(|c| c.1);
    assert_eq!(
        last,
        Some(removed_at),
        "FixedUpdate ran up to the removal tick only"
    );
    assert_eq!(
        calls.len() as u64,
        removed_at,
        "one FixedUpdate per tick before that"
    );
}

#[test]
fn kill_zone_puts_respawn_objects_back_instead() {
    let text = r#"(
        objects: [
            (id: 1, name: "Pit", transform: (x: 0.0, y: -2.0),
             body: (kind: Fixed, shapes: [Cuboid(hx: 2.0, hy: 0.5)], sensor: true),
             behaviours: [(name: "KillZone", params: (respawn: [5], respawn_at: (x: 10.0, y: 3.0)))]),
            (id: 5, name: "Player", body: (shapes: [Circle(radius: 0.25)])),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    for _ in 0..60 {
        p.step_frame(DT);
    }
    let (x, y) = position(&p, 5);
    assert_eq!(x, 10.0, "teleported to the respawn point");
    assert!(y < 3.0 && y > 0.0, "falling again from y = 3, at {y}");
}

// ----- Attractor ---------------------------------------------------------------

#[test]
fn attractor_pulls_bodies_inside_its_radius_only() {
    let text = r#"(
        settings: (gravity: (x: 0.0, y: 0.0)),
        objects: [
            (id: 1, name: "Field", behaviours: [(name: "Attractor", params: (radius: 5.0, strength: 10.0))]),
            (id: 2, name: "Inside", transform: (x: 3.0, y: 0.0), body: (shapes: [Circle(radius: 0.5)])),
            (id: 3, name: "Outside", transform: (x: 8.0, y: 0.0), body: (shapes: [Circle(radius: 0.5)])),
            (id: 4, name: "Above", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)])),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    p.step_frame(DT);
    // Mass of a disc of radius 0.5, density 1: π/4 kg.
    let m = std::f32::consts::FRAC_PI_4;
    // At 3 m: 10 × (1 − 3/5) = 4 N towards −x, for one tick.
    let (vx, vy) = velocity(&p, 2);
    assert!(
        close(vx, -4.0 / m / 60.0, 1e-5) && vy == 0.0,
        "({vx}, {vy})"
    );
    // At 4 m above: 10 × (1 − 4/5) = 2 N towards −y.
    let (vx, vy) = velocity(&p, 4);
    assert!(
        vx == 0.0 && close(vy, -2.0 / m / 60.0, 1e-5),
        "({vx}, {vy})"
    );
    // At 8 m: outside, untouched.
    assert_eq!(velocity(&p, 3), (0.0, 0.0));
}

// ----- KinematicMover ----------------------------------------------------------

#[test]
fn kinematic_mover_reaches_each_waypoint_in_simulation_time() {
    let text = r#"(
        objects: [
            (id: 1, name: "Platform", transform: (x: 1.0, y: 1.0), body: (kind: Kinematic, shapes: [Cuboid(hx: 1.0, hy: 0.2)]),
             behaviours: [(name: "KinematicMover", params: (waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0), (x: 2.0, y: 1.0)], speed: 1.0, mode: Once))]),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    // 1 m/s: after 1 s halfway along the first 2 m leg, at 2 s the corner,
    // at 3 s the end, where a `Once` path stays.
    let checkpoints = [
        (60, (2.0, 1.0)),
        (120, (3.0, 1.0)),
        (180, (3.0, 2.0)),
        (240, (3.0, 2.0)),
    ];
    let mut ticks = 0;
    for (at, (x, y)) in checkpoints {
        while ticks < at {
            ticks += p.step_frame(DT).ticks;
        }
        let (px, py) = position(&p, 1);
        assert!(
            close(px, x, 1e-3) && close(py, y, 1e-3),
            "tick {at}: ({px}, {py})"
        );
    }
}

#[test]
fn kinematic_mover_ping_pongs_at_any_display_rate() {
    let text = r#"(
        objects: [
            (id: 1, name: "Platform", body: (kind: Kinematic, shapes: [Cuboid(hx: 1.0, hy: 0.2)]),
             behaviours: [(name: "KinematicMover", params: (waypoints: [(x: 0.0, y: 0.0), (x: 1.0, y: 0.0)], speed: 1.0, mode: PingPong))]),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    for hz in [30.0, 60.0, 144.0] {
        let mut p = session(text, &registry);
        // 1.5 s of frames: out 1 m, back 0.5 m.
        for _ in 0..(1.5 * hz) as usize {
            p.step_frame(1.0 / hz);
        }
        assert_eq!(p.clock().simulation_tick, 90, "{hz} Hz");
        let (x, _) = position(&p, 1);
        assert!(close(x, 0.5, 1e-3), "{hz} Hz: x = {x}");
    }
}

// ----- FollowCamera ------------------------------------------------------------

#[test]
fn follow_camera_runs_in_presentation_only_on_the_interpolated_pose() {
    let text = r#"(
        settings: (gravity: (x: 0.0, y: 0.0)),
        objects: [
            (id: 1, name: "Runner", body: (shapes: [Circle(radius: 0.5)], velocity: (linear: (x: 6.0, y: 0.0))),
             behaviours: [(name: "FollowCamera", priority: Camera, params: (offset: (x: 0.0, y: 1.0)))]),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    assert_eq!(p.world().camera, None);

    // A lone debugger tick runs the fixed phase and no presentation.
    let report = p.step_tick();
    assert_eq!((report.kind, report.ticks), (FrameKind::LoneTick, 1));
    assert!(close(position(&p, 1).0, 0.1, 1e-5), "6 m/s for 1/60 s");
    assert_eq!(p.world().camera, None, "no presentation, no camera");
    p.resume();

    // One and a half ticks of frame: one tick (committed x 0.2, previous 0.1),
    // alpha 0.5, so the drawn pose is x = 0.15.
    let report = p.step_frame(1.5 * DT);
    assert_eq!(report.ticks, 1);
    let camera = p.world().camera.expect("presentation set the camera");
    assert!(close(camera.x, 0.15, 1e-5) && camera.y == 1.0, "{camera:?}");

    // FollowCamera has no FixedUpdate: a FixedUpdate breakpoint on its object
    // never fires (it would only if the camera were called in the fixed phase).
    let bp = p.add_breakpoint(Breakpoint::on(HookKind::FixedUpdate, ObjectId(1)));
    let report = p.step_frame(DT);
    assert_eq!(report.ticks, 1);
    assert!(report.suspended.is_none(), "no FixedUpdate call, no hit");
    p.remove_breakpoint(bp);
    let camera = p.world().camera.expect("presented");

    // A frame interrupted at the end of a tick skips presentation: the body
    // moves, the camera does not, not even after resume.
    let next = p.clock().simulation_tick + 1;
    p.set_stop_after_tick(Some(next));
    let report = p.step_frame(DT);
    assert!(report.suspended.is_some_and(|s| s.end_of_tick));
    p.resume();
    assert_eq!(p.world().camera, Some(camera));
    p.step_frame(DT);
    assert!(p.world().camera.unwrap().x > camera.x);
}

// ----- Faulty ------------------------------------------------------------------

#[test]
fn faulty_injects_a_panic_a_nan_and_a_slow_hook() {
    let text = r#"(
        settings: (gravity: (x: 0.0, y: 0.0)),
        objects: [
            (id: 1, name: "Panics", behaviours: [(name: "Faulty", params: (hook: FixedUpdate, tick: 3, fault: Panic))]),
            (id: 2, name: "NaN", body: (shapes: [Circle(radius: 0.5)]),
             behaviours: [(name: "Faulty", params: (hook: Update, tick: 2, fault: NanForce))]),
            (id: 3, name: "Slow", behaviours: [(name: "Faulty", params: (hook: FlowTick, tick: 4, fault: BusyWait(30.0)))]),
        ],
    )"#;
    let registry = stepframe_plugins::registry();
    let mut p = session(text, &registry);
    let mut slow_frames = Vec::new();
    for frame in 1..=8 {
        let report = p.step_frame(DT);
        if report.timing.flow_ms >= 30.0 {
            slow_frames.push(frame);
        }
    }
    assert_eq!(p.clock().simulation_tick, 8, "the session kept running");
    let log = p.drain_log();
    let errors: Vec<_> = log.iter().filter(|l| l.level == LogLevel::Error).collect();
    let panic = errors
        .iter()
        .find(|l| l.message.contains("injected panic"))
        .expect("the panic was caught and logged");
    assert_eq!(
        (panic.object, panic.hook, panic.tick),
        (Some(ObjectId(1)), Some(HookKind::FixedUpdate), 3)
    );
    let nan = errors
        .iter()
        .find(|l| l.message.contains("non-finite"))
        .expect("the NaN force was rejected");
    assert_eq!(nan.object, Some(ObjectId(2)));
    assert_eq!(velocity(&p, 2), (0.0, 0.0), "the NaN never reached physics");
    // Update of frame 3 is the first with 2 completed ticks; Flow Tick, which
    // runs after the fixed phase, sees 4 in frame 4. Each fires once, and the
    // busy Flow Tick's time is Flow Tick's, not the update phase's.
    assert_eq!(nan.frame, 3);
    assert_eq!(slow_frames, vec![4]);
    assert_eq!(errors.len(), 2, "{errors:?}");
}

// ----- snapshots cover behaviour state -----------------------------------------

#[test]
fn restoring_a_snapshot_replays_the_contract_scene_bit_identically() {
    let registry = stepframe_plugins::registry();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/contract.ron");
    let scene = Scene::load(&path, &registry).unwrap();
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).unwrap();
    p.push_input(InputEvent::press(key("D")));
    for _ in 0..90 {
        p.step_frame(DT);
    }
    let snapshot = p.snapshot();
    let run = |p: &mut Pipeline| -> Vec<u64> {
        (0..240)
            .map(|i| {
                if i == 30 {
                    p.push_input(InputEvent::press(key("Space")));
                }
                p.step_frame(DT);
                p.state_hash()
            })
            .collect()
    };
    let first = run(&mut p);
    p.restore(&snapshot);
    let second = run(&mut p);
    assert_eq!(first, second);
}

#[test]
fn the_registry_has_every_built_in_and_rejects_unknown_names_with_the_list() {
    // The Script's default path (`scripts/patrol.rhai`) is relative to a
    // scene's assets: a registry for the bundled scenes finds it.
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
    let registry = stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes);
    let names = registry.names();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "names() is sorted");
    for built_in in [
        "Attractor",
        "Faulty",
        "FollowCamera",
        "KillZone",
        "KinematicMover",
        "OneWayPlatform",
        "Conveyor",
        "PlayerController",
        "Projectile",
        "Spawner",
    ] {
        assert!(names.contains(&built_in), "{built_in} is not registered");
    }
    for name in registry.names() {
        let defaults = registry.default_params(name).unwrap();
        assert!(
            registry.create(name, defaults).is_ok(),
            "{name}: {defaults}"
        );
    }
    let err = registry.create("Spawnr", "()").unwrap_err().to_string();
    assert!(
        err.contains("Spawnr") && err.contains("Attractor, Conveyor, Faulty"),
        "{err}"
    );
}
