//! Flame zones: a frame's coarse zones nest as the
//! pipeline runs them, with the times a manual wall clock says each piece
//! of work took (worked out here by hand, nothing sleeps); zones on or off
//! leave the simulation bit for bit the same; a frame replayed from the
//! history with fine zones names every hook call's object and behaviour;
//! and the Chrome trace writes the recorded zones.

use std::time::Duration;

use stepframe_core::flame::{FrameZones, ZoneDetail, ZoneKind};
use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, ContactEvent, ContactKind, Ctx, FrameKind, History, HookKind,
    ManualTime, NoPhysics, ObjectDesc, ObjectId, PhysicsStage, Pipeline, Pose, Priority,
    RapierStage, Session, Shape, TimeSettings, Vec2, World,
};

/// Advances a manual wall clock by a set number of microseconds in each
/// hook, so each zone's length is known in advance.
#[derive(Clone, Debug)]
struct Clocked {
    name: &'static str,
    time: ManualTime,
    update_us: u64,
    fixed_us: u64,
    contact_us: u64,
    flow_us: u64,
    present_us: u64,
}

impl Clocked {
    fn spend(&self, us: u64) {
        self.time.advance(Duration::from_micros(us));
    }
}

impl Behaviour for Clocked {
    fn name(&self) -> &str {
        self.name
    }
    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.spend(self.update_us);
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.spend(self.fixed_us);
    }
    fn on_contact(&mut self, _ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {
        self.spend(self.contact_us);
    }
    fn flow_tick(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.spend(self.flow_us);
    }
    fn present(&mut self, _ctx: &mut Ctx) {
        self.spend(self.present_us);
    }
}

/// No engine: each step takes 3 ms of manual time and reports objects 1
/// and 2 starting to touch, so every tick has contact callbacks.
#[derive(Clone, Debug)]
struct TimedStep {
    time: ManualTime,
}

impl PhysicsStage for TimedStep {
    fn reconcile(&mut self, world: &mut World, dt: f64) {
        NoPhysics.reconcile(world, dt);
    }
    fn step(&mut self, _dt: f64, _substeps: u32, contacts: &mut Vec<ContactEvent>) {
        self.time.advance(Duration::from_millis(3));
        contacts.push(ContactEvent::new(
            ObjectId(1),
            ObjectId(2),
            ContactKind::Started,
        ));
    }
    fn commit(&mut self, world: &mut World) {
        NoPhysics.commit(world);
    }
    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }
}

const TICK: f64 = 1.0 / 60.0;

/// Two objects: "early" at priority -10 (Update 0.5 ms, FixedUpdate 1 ms,
/// a contact 0.25 ms, Flow Tick 0.25 ms, presentation 0.125 ms) and "late"
/// at priority 0 (FixedUpdate 2 ms, nothing else), on the manual clock.
fn clocked_pipeline(time: &ManualTime) -> Pipeline {
    let hooked = |name, update_us, fixed_us, contact_us, flow_us, present_us| Clocked {
        name,
        time: time.clone(),
        update_us,
        fixed_us,
        contact_us,
        flow_us,
        present_us,
    };
    let mut w = World::new();
    w.spawn(
        ObjectDesc::new("early", Pose::default())
            .with_id(ObjectId(1))
            .with_behaviour(
                Box::new(hooked("Early", 500, 1000, 250, 250, 125)),
                Priority(-10),
            ),
    );
    w.spawn(
        ObjectDesc::new("late", Pose::default())
            .with_id(ObjectId(2))
            .with_behaviour(Box::new(hooked("Late", 0, 2000, 0, 0, 0)), Priority(0)),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_wall_clock(time.clock());
    p.load_session(w, Box::new(TimedStep { time: time.clone() }), 1);
    p
}

/// (depth, label, start µs, end µs) of every zone, in order.
fn layout(z: &FrameZones) -> Vec<(u8, String, u64, u64)> {
    z.zones()
        .iter()
        .map(|z| (z.depth, z.kind.label(), z.start_ns / 1000, z.end_ns / 1000))
        .collect()
}

#[test]
fn a_frame_of_three_ticks_nests_each_tick_in_the_fixed_phase_and_its_groups_in_priority_order() {
    let time = ManualTime::new();
    let mut p = clocked_pipeline(&time);
    p.set_zone_detail(ZoneDetail::Coarse);
    // Frame 1 runs tick 1; frame 2 is three fixed steps long (3/60 s, a
    // whole number of flicks), so it runs ticks 2, 3 and 4.
    p.step_frame(TICK);
    let report = p.step_frame(3.0 * TICK);
    assert_eq!(report.ticks, 3);
    let z = p.zones();
    assert_eq!((z.frame_index(), z.kind()), (2, FrameKind::Frame));
    // Each tick: FixedUpdate -10 (1 ms), FixedUpdate 0 (2 ms), physics
    // (3 ms), contacts (early's 0.25 ms): 6.25 ms, from 0.5 ms on (after
    // Update's 0.5 ms).
    let mut want = vec![
        (0, "Update".to_string(), 0, 500),
        (0, "Fixed".into(), 500, 19_250),
    ];
    for (i, tick) in [2u64, 3, 4].into_iter().enumerate() {
        let t = 500 + 6_250 * i as u64;
        want.extend([
            (1, format!("tick {tick}"), t, t + 6_250),
            (2, "FixedUpdate priority -10".into(), t, t + 1_000),
            (
                2,
                "FixedUpdate priority Default".into(),
                t + 1_000,
                t + 3_000,
            ),
            (2, "physics".into(), t + 3_000, t + 6_000),
            (2, "contacts".into(), t + 6_000, t + 6_250),
        ]);
    }
    want.extend([
        (0, "Flow Tick".into(), 19_250, 19_500),
        (0, "presentation".into(), 19_500, 19_625),
    ]);
    assert_eq!(layout(z), want);
    assert_eq!(z.dropped(), 0);
    // The zones are the phase timings' own readings: the report agrees.
    assert_eq!(report.timing.fixed_ms, 18.75);
    assert_eq!(report.timing.physics_ms, 9.0);
    // Children of the fixed phase are exactly its three ticks.
    let ticks: Vec<ZoneKind> = z.children(1).map(|i| z.zones()[i].kind).collect();
    assert_eq!(
        ticks,
        vec![ZoneKind::Tick(2), ZoneKind::Tick(3), ZoneKind::Tick(4)]
    );
}

#[test]
fn a_frame_without_a_tick_has_an_empty_fixed_phase_and_zones_are_off_by_default() {
    let time = ManualTime::new();
    let mut p = clocked_pipeline(&time);
    p.step_frame(TICK);
    assert!(p.zones().is_empty(), "off unless asked for");
    p.set_zone_detail(ZoneDetail::Coarse);
    // Half a tick: no tick runs.
    let report = p.step_frame(TICK / 2.0);
    assert_eq!(report.ticks, 0);
    let labels: Vec<String> = layout(p.zones()).into_iter().map(|z| z.1).collect();
    assert_eq!(labels, ["Update", "Fixed", "Flow Tick", "presentation"]);
}

/// Pushes its ball sideways by a seeded random force: real contacts and
/// a state that moves every tick.
#[derive(Clone, Debug)]
struct Pusher;

impl Behaviour for Pusher {
    fn name(&self) -> &str {
        "Pusher"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let nudge = ctx.rng().range(-3.0, 3.0);
        ctx.apply_force(ctx.me(), Vec2::new(nudge, 0.0));
    }
    fn on_contact(&mut self, ctx: &mut Ctx, _other: ObjectId, _kind: ContactKind) {
        ctx.apply_impulse(ctx.me(), Vec2::new(0.0, 0.5));
    }
}

/// Twelve balls over three priorities falling on a ground, in rapier.
fn rapier_pipeline() -> Pipeline {
    let mut w = World::new();
    w.spawn(
        ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0))
            .with_id(ObjectId(1))
            .with_body(BodyDesc::with_kind(
                BodyKind::Fixed,
                Shape::Cuboid { hx: 20.0, hy: 0.5 },
            )),
    );
    for i in 0..12u64 {
        w.spawn(
            ObjectDesc::new(format!("ball{i}"), Pose::new(i as f32 - 6.0, 1.0, 0.0))
                .with_id(ObjectId(i + 2))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.4 }))
                .with_behaviour(Box::new(Pusher), Priority((i % 3) as i32 * 10 - 10)),
        );
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(w, Box::new(RapierStage::new(Vec2::new(0.0, -9.81))), 7);
    p
}

#[test]
fn zones_off_coarse_or_fine_leave_the_state_hash_the_same_after_every_frame() {
    let mut runs: Vec<Pipeline> = [ZoneDetail::Off, ZoneDetail::Coarse, ZoneDetail::Fine]
        .into_iter()
        .map(|detail| {
            let mut p = rapier_pipeline();
            p.set_zone_detail(detail);
            p
        })
        .collect();
    // Irregular frames: none, one, two and three ticks.
    let dts = [TICK, 2.0 * TICK, TICK / 2.0, 3.0 * TICK, TICK / 3.0];
    let mut ticks = 0;
    for frame in 0..120 {
        let dt = dts[frame % dts.len()];
        let reports: Vec<_> = runs.iter_mut().map(|p| p.step_frame(dt)).collect();
        ticks += reports[0].ticks;
        let hashes: Vec<u64> = runs.iter().map(|p| p.state_hash()).collect();
        assert_eq!(hashes[0], hashes[1], "coarse zones, frame {}", frame + 1);
        assert_eq!(hashes[0], hashes[2], "fine zones, frame {}", frame + 1);
        assert!(reports.iter().all(|r| r.ticks == reports[0].ticks));
    }
    assert!(ticks >= 150, "the runs ran ticks ({ticks})");
    assert!(runs[0].zones().is_empty());
    assert!(!runs[1].zones().is_empty() && !runs[2].zones().is_empty());
    let calls = |p: &Pipeline| {
        p.zones()
            .zones()
            .iter()
            .filter(|z| matches!(z.kind, ZoneKind::Call { .. }))
            .count()
    };
    assert_eq!(calls(&runs[1]), 0, "coarse zones time no single call");
    assert!(calls(&runs[2]) >= 12, "fine zones time every call");
}

#[test]
fn a_frame_replayed_from_the_history_with_fine_zones_names_each_call_and_lands_on_the_same_state() {
    let mut p = rapier_pipeline();
    p.set_zone_detail(ZoneDetail::Coarse);
    let mut history = Session::new(p, History::new(10, 10_000));
    let dts = [TICK, 2.0 * TICK, TICK / 2.0];
    let mut hash_after = Vec::new();
    let mut ticks_of = Vec::new();
    for i in 0..30 {
        let report = history.step_frame(dts[i % 3], &[]);
        hash_after.push(history.pipeline().state_hash());
        ticks_of.push(report.ticks);
    }
    // Frame 26 is a two-tick frame (index 25: 25 % 3 == 1).
    let frame = 26u64;
    let mut scratch = Pipeline::new(TimeSettings::default());
    let report = history
        .replay_frame(&mut scratch, frame, ZoneDetail::Fine)
        .expect("kept");
    assert_eq!(report.frame_index, frame);
    assert_eq!(report.ticks, 2);
    assert_eq!(report.ticks, ticks_of[frame as usize - 1]);
    assert_eq!(
        scratch.state_hash(),
        hash_after[frame as usize - 1],
        "the replay ends where the live frame ended"
    );
    let z = scratch.zones();
    assert_eq!(z.frame_index(), frame);
    // Inside each tick's priority group, one FixedUpdate call per ball of
    // that priority (four each), each named Pusher, in object order.
    let zones = z.zones();
    let mut groups = 0;
    for (i, zone) in zones.iter().enumerate() {
        let ZoneKind::FixedUpdate(priority) = zone.kind else {
            continue;
        };
        groups += 1;
        let calls: Vec<(HookKind, ObjectId, &str)> = z
            .children(i)
            .map(|k| match zones[k].kind {
                ZoneKind::Call { hook, object, .. } => {
                    (hook, object, z.behaviour(&zones[k]).unwrap_or("?"))
                }
                other => panic!("{other:?} inside a priority group"),
            })
            .collect();
        let want: Vec<(HookKind, ObjectId, &str)> = (0..12u64)
            .filter(|i| (i % 3) as i32 * 10 - 10 == priority.0)
            .map(|i| (HookKind::FixedUpdate, ObjectId(i + 2), "Pusher"))
            .collect();
        assert_eq!(calls, want, "priority {}", priority.0);
        for k in z.children(i) {
            assert!(zones[k].start_ns >= zone.start_ns && zones[k].end_ns <= zone.end_ns);
        }
    }
    assert_eq!(groups, 2 * 3, "three groups in each of two ticks");
    // A frame the history never logged is refused with the reason.
    let err = history
        .replay_frame(&mut scratch, 31, ZoneDetail::Fine)
        .expect_err("not run yet");
    assert_eq!(err.to_string(), "frame 31 is not in the history's log");
}

#[test]
fn the_chrome_trace_writes_the_recorded_zones_at_their_offsets() {
    let time = ManualTime::new();
    let mut p = clocked_pipeline(&time);
    p.set_zone_detail(ZoneDetail::Coarse);
    let mut ring = stepframe_core::Telemetry::default();
    let mut zones = stepframe_core::ZoneRing::default();
    for dt in [TICK, 3.0 * TICK] {
        let report = p.step_frame(dt);
        ring.record(&report, p.clock());
        zones.push(p.zones());
    }
    let mut out = Vec::new();
    stepframe_core::export::chrome_trace_with_zones(ring.records().iter(), &zones, &mut out)
        .expect("written");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let events = json["traceEvents"].as_array().expect("events");
    // Frame 2 starts where frame 1's slice ends: 1/60 s (its work, 7.125 ms
    // of manual time, fits in its delta).
    let frame2 = 1e6 / 60.0;
    let slice = |name: &str, nth: usize| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["name"] == name)
            .nth(nth)
            .unwrap_or_else(|| panic!("a slice {name} #{nth}"))
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-3;
    for (name, nth, start_us, dur_us) in [
        ("tick 3", 0, 500.0 + 6_250.0, 6_250.0),
        (
            "FixedUpdate priority Default",
            2,
            500.0 + 6_250.0 + 1_000.0,
            2_000.0,
        ),
        ("physics", 3, 500.0 + 6_250.0 * 2.0 + 3_000.0, 3_000.0),
        ("contacts", 3, 500.0 + 6_250.0 * 2.0 + 6_000.0, 250.0),
        ("flow", 1, 19_250.0, 250.0),
    ] {
        let e = slice(name, nth);
        let ts = e["ts"].as_f64().expect("ts");
        let dur = e["dur"].as_f64().expect("dur");
        assert!(close(ts, frame2 + start_us), "{name}: ts {ts}");
        assert!(close(dur, dur_us), "{name}: dur {dur}");
        assert_eq!(e["args"]["zones"], "recorded", "{name}");
    }
    // Frame 1 ran tick 1, frame 2 ticks 2 to 4: one tick slice each.
    let tick_slices = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"].as_str().is_some_and(|n| n.starts_with("tick ")))
        .count();
    assert_eq!(tick_slices, 4);
}
