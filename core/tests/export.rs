//! Telemetry export: the Chrome trace parses back as the Trace Event Format with
//! properly nested slices and one set of clock counters per frame, and the CSV
//! parses back to the very records it was written from.
//!
//! The records come from a real session (three behaviours at priorities -100, 0
//! and 100 on rapier bodies) driven with hand-picked deltas so that the frames
//! run 1, 0, 1, 3, 4 (capped, with dropped backlog) and 0 ticks, then a paused
//! step-tick (a lone tick) and its continuation. Expected slice positions are
//! recomputed here from the records' own fields with the layout rules of the
//! `export` module docs (integer nanoseconds, frames back to back lasting
//! `max(delta_time, wall time)`), not read from the exporter.

use serde_json::Value;
use stepframe_core::export::{CSV_COLUMNS, csv};
use stepframe_core::telemetry::{FrameKindCode, RECORD_PRIORITIES};
use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Ctx, FrameKind, FrameRecord, ObjectDesc, Pipeline, Pose,
    Priority, RapierStage, Shape, Telemetry, TimeSettings, Vec2, World, chrome_trace, frame_range,
};

/// Pushes its body sideways every tick and does a little arithmetic in Update,
/// so every phase has measurable work.
#[derive(Clone, Debug)]
struct Pusher {
    /// Sideways force, N.
    force: f32,
    /// Busy-work result (kept so the loop is not optimised away).
    sum: u64,
}

impl Behaviour for Pusher {
    fn name(&self) -> &str {
        "Pusher"
    }
    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        for i in 0..200u64 {
            self.sum = self.sum.wrapping_mul(31).wrapping_add(i);
        }
    }
    fn flow_tick(&mut self, _ctx: &mut Ctx, _dt: f64) {
        for i in 0..150u64 {
            self.sum = self.sum.wrapping_mul(13).wrapping_add(i);
        }
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        for i in 0..100u64 {
            self.sum = self.sum.wrapping_mul(17).wrapping_add(i);
        }
        ctx.apply_force(ctx.me(), Vec2::new(self.force, 0.0));
    }
}

/// The priorities the session's behaviours run at, in dispatch order.
const PRIORITIES: [i32; 3] = [-100, 0, 100];

fn session() -> Pipeline {
    let mut world = World::new();
    world.spawn(
        ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0)).with_body(BodyDesc::with_kind(
            BodyKind::Fixed,
            Shape::Cuboid { hx: 20.0, hy: 0.5 },
        )),
    );
    for (i, p) in PRIORITIES.into_iter().enumerate() {
        world.spawn(
            ObjectDesc::new(format!("ball {i}"), Pose::new(i as f32 * 2.0, 1.0, 0.0))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }))
                .with_behaviour(
                    Box::new(Pusher {
                        force: 1.0 + i as f32,
                        sum: 0,
                    }),
                    Priority(p),
                ),
        );
    }
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_session(world, Box::new(RapierStage::new(Vec2::new(0.0, -9.81))), 3);
    pipeline
}

/// Records of a session whose frames cover every shape a record can take.
/// At 60 Hz with max_steps 4 and max_delta 0.25 (the defaults):
/// 1/60 → 1 tick; 1/120 → 0; 1/120 → 1; 3/60 → 3; 0.25 → 15 owed, 4 run, 11/60 s
/// dropped; 0 → 0; then pause + step_tick → a lone tick, resume → a continuation
/// with 0 ticks; then 20 frames at 1/60 and 1/144 alternately.
fn recorded() -> Telemetry {
    let mut pipeline = session();
    let mut telemetry = Telemetry::with_capacity(1000);
    for dt in [1.0 / 60.0, 1.0 / 120.0, 1.0 / 120.0, 3.0 / 60.0, 0.25, 0.0] {
        let r = pipeline.step_frame(dt);
        telemetry.record(&r, pipeline.clock());
    }
    pipeline.pause();
    let r = pipeline.step_tick();
    assert_eq!(r.kind, FrameKind::LoneTick);
    telemetry.record(&r, pipeline.clock());
    let r = pipeline.resume();
    assert_eq!(r.kind, FrameKind::Continuation);
    telemetry.record(&r, pipeline.clock());
    for i in 0..20 {
        let dt = if i % 2 == 0 { 1.0 / 60.0 } else { 1.0 / 144.0 };
        let r = pipeline.step_frame(dt);
        telemetry.record(&r, pipeline.clock());
    }
    telemetry
}

fn ns(secs: f64) -> u64 {
    (secs * 1e9).round() as u64
}

fn ms_ns(ms: f32) -> u64 {
    (f64::from(ms) * 1e6).round() as u64
}

/// A parsed complete event, times in integer nanoseconds.
#[derive(Clone, Debug)]
struct Slice {
    name: String,
    start: u64,
    len: u64,
}

impl Slice {
    fn end(&self) -> u64 {
        self.start + self.len
    }
    fn contains(&self, other: &Slice) -> bool {
        self.start <= other.start && other.end() <= self.end()
    }
}

fn us_to_ns(v: &Value) -> u64 {
    let us = v.as_f64().expect("a number of microseconds");
    assert!(us >= 0.0, "negative time {us}");
    (us * 1e3).round() as u64
}

fn export_json(records: &[FrameRecord]) -> Value {
    let mut out = Vec::new();
    chrome_trace(records.iter(), &mut out).expect("writing into a Vec succeeds");
    serde_json::from_slice(&out).expect("the trace is valid JSON")
}

fn events(trace: &Value) -> &Vec<Value> {
    trace["traceEvents"].as_array().expect("traceEvents array")
}

/// Checks the keys every event must have, per phase type.
fn check_required_keys(events: &[Value]) {
    for e in events {
        assert!(e["name"].is_string(), "name missing: {e}");
        let ph = e["ph"].as_str().expect("ph is a string");
        assert!(e["pid"].is_u64(), "pid missing: {e}");
        assert!(e["tid"].is_u64(), "tid missing: {e}");
        assert!(e["ts"].is_number(), "ts missing: {e}");
        match ph {
            "X" => {
                assert!(e["dur"].is_number(), "dur missing: {e}");
                assert!(e["dur"].as_f64().unwrap_or(-1.0) >= 0.0);
            }
            "C" => {
                let args = e["args"].as_object().expect("counter args");
                assert!(!args.is_empty());
                assert!(
                    args.values().all(Value::is_number),
                    "counter not numeric: {e}"
                );
            }
            "M" => assert!(e["args"].is_object(), "metadata args: {e}"),
            "i" => assert!(e["s"].is_string(), "instant scope: {e}"),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
}

/// Complete events on the frame thread, in file order.
fn slices(events: &[Value]) -> Vec<Slice> {
    events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| Slice {
            name: e["name"].as_str().expect("name").to_string(),
            start: us_to_ns(&e["ts"]),
            len: us_to_ns(&e["dur"]),
        })
        .collect()
}

/// Splits the slices into per-frame groups: each frame slice followed by its
/// descendants (the writer's documented order).
fn per_frame(slices: &[Slice]) -> Vec<(Slice, Vec<Slice>)> {
    let mut groups: Vec<(Slice, Vec<Slice>)> = Vec::new();
    for s in slices {
        if s.name.starts_with("frame ") {
            groups.push((s.clone(), Vec::new()));
        } else {
            groups
                .last_mut()
                .expect("a frame slice comes before its children")
                .1
                .push(s.clone());
        }
    }
    groups
}

fn expected_frame_name(r: &FrameRecord) -> String {
    match r.kind {
        FrameKindCode::Frame => format!("frame {}", r.frame_index),
        FrameKindCode::Continuation => format!("frame {} (continuation)", r.frame_index),
        FrameKindCode::LoneTick => format!("frame {} (lone tick)", r.frame_index),
    }
}

/// Siblings one after another, each ending before the next starts.
fn assert_sequential(siblings: &[&Slice]) {
    for w in siblings.windows(2) {
        assert!(
            w[0].end() <= w[1].start,
            "siblings overlap: {:?} and {:?}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn the_session_produces_every_kind_of_frame() {
    let telemetry = recorded();
    let records: Vec<FrameRecord> = telemetry.records().iter().copied().collect();
    assert_eq!(records.len(), 28);
    let ticks: Vec<u16> = records.iter().take(8).map(|r| r.ticks).collect();
    assert_eq!(ticks, [1, 0, 1, 3, 4, 0, 1, 0]);
    // The capped frame: 15 ticks owed, 4 run, 11 × (1/60) s dropped.
    assert!((f64::from(records[4].dropped_this_frame) - 11.0 / 60.0).abs() < 1e-6);
    assert_eq!(records[6].kind, FrameKindCode::LoneTick);
    assert_eq!(records[7].kind, FrameKindCode::Continuation);
    // Every frame that ran a tick timed the three priorities in dispatch order.
    for r in records.iter().filter(|r| r.ticks > 0) {
        let prios: Vec<i32> = r.priorities().iter().map(|p| p.0).collect();
        assert_eq!(prios, PRIORITIES, "frame {}", r.frame_index);
    }
}

#[test]
fn chrome_trace_has_the_format_keys_and_metadata() {
    let telemetry = recorded();
    let records: Vec<FrameRecord> = telemetry.records().iter().copied().collect();
    let trace = export_json(&records);
    assert_eq!(trace["displayTimeUnit"], "ms");
    let events = events(&trace);
    check_required_keys(events);

    let meta: Vec<(&str, &Value)> = events
        .iter()
        .filter(|e| e["ph"] == "M")
        .map(|e| (e["name"].as_str().unwrap_or(""), &e["args"]))
        .collect();
    assert!(
        meta.iter()
            .any(|(n, a)| *n == "process_name" && a["name"] == "stepframe")
    );
    assert!(
        meta.iter()
            .any(|(n, a)| *n == "thread_name" && a["name"] == "frame loop")
    );
}

#[test]
fn chrome_trace_slices_nest_frame_phase_tick_work() {
    let telemetry = recorded();
    let records: Vec<FrameRecord> = telemetry.records().iter().copied().collect();
    let trace = export_json(&records);
    let all = slices(events(&trace));

    // No two slices partly overlap: each pair is disjoint or one holds the other
    // (what the viewers need to draw a stack).
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            let partial = (a.start < b.start && b.start < a.end() && a.end() < b.end())
                || (b.start < a.start && a.start < b.end() && b.end() < a.end());
            assert!(!partial, "partial overlap: {a:?} and {b:?}");
        }
    }

    let groups = per_frame(&all);
    assert_eq!(groups.len(), records.len(), "one frame slice per record");

    let mut frame_start = 0u64;
    let mut previous_end = 0u64;
    for ((frame, children), r) in groups.iter().zip(&records) {
        // The frame: named after the record, back to back, max(delta, wall) long.
        assert_eq!(frame.name, expected_frame_name(r));
        let (update, fixed, flow, present) = (
            ms_ns(r.update_ms),
            ms_ns(r.fixed_ms),
            ms_ns(r.flow_ms),
            ms_ns(r.present_ms),
        );
        let wall = update + fixed + flow + present;
        assert_eq!(frame.start, frame_start, "{}", frame.name);
        assert_eq!(frame.len, ns(r.delta_time).max(wall), "{}", frame.name);
        assert!(previous_end <= frame.start);
        previous_end = frame.end();
        frame_start += frame.len;

        // The four phases, in the order they run, each its recorded length,
        // inside the frame: Flow Tick comes after the fixed phase.
        let phases: Vec<&Slice> = children
            .iter()
            .filter(|s| ["update", "fixed", "flow", "present"].contains(&s.name.as_str()))
            .collect();
        let names: Vec<&str> = phases.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["update", "fixed", "flow", "present"],
            "{}",
            frame.name
        );
        assert_eq!(phases[0].start, frame.start);
        assert_eq!(phases[0].len, update);
        assert_eq!(phases[1].len, fixed);
        assert_eq!(phases[2].len, flow);
        assert_eq!(phases[3].len, present);
        for p in &phases {
            assert!(frame.contains(p), "{p:?} outside {frame:?}");
        }
        assert_sequential(&phases);
        let fixed_slice = phases[1];

        // One tick slice per completed tick, numbered by simulation_tick.
        let tick_slices: Vec<&Slice> = children
            .iter()
            .filter(|s| s.name.starts_with("tick "))
            .collect();
        let first = r.simulation_tick + 1 - u64::from(r.ticks);
        let expected: Vec<String> = (first..=r.simulation_tick)
            .map(|t| format!("tick {t}"))
            .collect();
        let names: Vec<&String> = tick_slices.iter().map(|s| &s.name).collect();
        assert_eq!(names, expected.iter().collect::<Vec<_>>(), "{}", frame.name);
        for t in &tick_slices {
            assert!(fixed_slice.contains(t), "{t:?} outside {fixed_slice:?}");
        }
        assert_sequential(&tick_slices);
        if let Some(last) = tick_slices.last() {
            // The ticks tile the fixed phase.
            assert_eq!(tick_slices[0].start, fixed_slice.start);
            assert_eq!(last.end(), fixed_slice.end());
        }

        // Inside each tick: FixedUpdate per priority in dispatch order, then
        // physics; each a 1/ticks share of the frame's recorded sum.
        let work: Vec<&Slice> = children
            .iter()
            .filter(|s| s.name.starts_with("FixedUpdate priority ") || s.name == "physics")
            .collect();
        if r.ticks == 0 {
            assert!(work.is_empty(), "{}: work without a tick", frame.name);
            continue;
        }
        let per_tick = PRIORITIES.len() + 1;
        assert_eq!(
            work.len(),
            usize::from(r.ticks) * per_tick,
            "{}",
            frame.name
        );
        for (k, (tick, chunk)) in tick_slices.iter().zip(work.chunks(per_tick)).enumerate() {
            let names: Vec<&str> = chunk.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "FixedUpdate priority Early",
                    "FixedUpdate priority Default",
                    "FixedUpdate priority Late",
                    "physics"
                ]
            );
            for w in chunk {
                assert!(tick.contains(w), "{w:?} outside {tick:?}");
            }
            assert_sequential(chunk);
            assert_eq!(chunk[0].start, tick.start);
            let n = u64::from(r.ticks);
            let k = k as u64;
            let share = |total: u64| total / n + u64::from(k < total % n);
            for (w, (_, ms)) in chunk.iter().zip(r.priorities()) {
                assert!(w.len <= share(ms_ns(*ms)));
            }
            assert!(chunk[3].len <= share(ms_ns(r.physics_ms)));
        }
    }
}

#[test]
fn chrome_trace_has_every_clock_counter_for_every_frame() {
    let telemetry = recorded();
    let records: Vec<FrameRecord> = telemetry.records().iter().copied().collect();
    let trace = export_json(&records);
    let events = events(&trace);
    let frames: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "frame")
        .collect();
    assert_eq!(frames.len(), records.len());

    for (frame, r) in frames.iter().zip(&records) {
        let at = us_to_ns(&frame["ts"]);
        let value = |name: &str| -> &Value {
            let found: Vec<&Value> = events
                .iter()
                .filter(|e| e["ph"] == "C" && e["name"] == name && us_to_ns(&e["ts"]) == at)
                .collect();
            assert_eq!(found.len(), 1, "counter {name} at frame {}", r.frame_index);
            &found[0]["args"]["value"]
        };
        let f64_of = |name: &str| value(name).as_f64().expect("number");
        let u64_of = |name: &str| value(name).as_u64().expect("integer");
        assert_eq!(f64_of("delta_time"), r.delta_time);
        assert_eq!(f64_of("frame_time"), r.frame_time);
        assert_eq!(u64_of("frame_index"), r.frame_index);
        assert_eq!(f64_of("simulation_time"), r.simulation_time);
        assert_eq!(u64_of("simulation_tick"), r.simulation_tick);
        assert_eq!(f64_of("fixed_delta_time"), r.fixed_delta_time);
        assert_eq!(f64_of("interpolation_alpha") as f32, r.interpolation_alpha);
        assert_eq!(f64_of("dropped_time"), r.dropped_time);
        assert_eq!(f64_of("accumulator_before"), r.accumulator_before);
        assert_eq!(f64_of("accumulator_after"), r.accumulator_after);
        assert_eq!(u64_of("ticks"), u64::from(r.ticks));
        assert_eq!(f64_of("dropped_this_frame") as f32, r.dropped_this_frame);

        // The frame slice's args carry the same fields.
        assert_eq!(frame["args"]["frame_index"], r.frame_index);
        assert_eq!(frame["args"]["ticks"], r.ticks);
        assert_eq!(frame["args"]["delta_time"].as_f64(), Some(r.delta_time));
    }

    // The capped frame (the fifth) marks its dropped backlog.
    let dropped: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "i" && e["name"] == "backlog dropped")
        .collect();
    assert_eq!(dropped.len(), 1);
    let capped = records[4];
    assert_eq!(
        dropped[0]["args"]["dropped_this_frame"]
            .as_f64()
            .map(|v| v as f32),
        Some(capped.dropped_this_frame)
    );
}

#[test]
fn a_selected_range_starts_the_timeline_at_its_first_frame() {
    let telemetry = recorded();
    // Frames 4..=6: the 3-tick frame, the capped frame and the zero-delta frame
    // (the lone tick is frame 6 too: it ran no outer frame of its own, and the
    // continuation after it carries the same index).
    let selected: Vec<FrameRecord> = frame_range(telemetry.records(), 4..=6).copied().collect();
    let indices: Vec<u64> = selected.iter().map(|r| r.frame_index).collect();
    assert_eq!(indices, [4, 5, 6, 6, 6]);
    let trace = export_json(&selected);
    let frames: Vec<Slice> = slices(events(&trace))
        .into_iter()
        .filter(|s| s.name.starts_with("frame "))
        .collect();
    assert_eq!(frames.len(), 5);
    assert_eq!(frames[0].name, "frame 4");
    assert_eq!(frames[0].start, 0);
    // Frame 4 lasted its 3/60 s delta (its work takes far less).
    assert_eq!(frames[1].start, ns(3.0 / 60.0));
}

/// Hand-made records for the layout edge cases, with numbers checked by hand.
#[test]
fn overrunning_frames_stretch_and_rounded_children_are_cut_at_the_parent() {
    let mut by_priority = [(0, 0.0); RECORD_PRIORITIES];
    by_priority[0] = (-100, 1.5);
    by_priority[1] = (0, 1.0);
    // Frame 1: delta 10 ms but 2 + 3 + 0.5 + 1 = 6.5 ms of work: lasts 10 ms.
    // Two ticks: fixed (3 ms) splits into 1.5 ms ticks; per tick -100 gets
    // 0.75 ms, 0 gets 0.5 ms, physics gets 0.5 ms: 1.75 ms > 1.5 ms, so physics
    // is cut to the 0.25 ms left in the tick.
    let a = FrameRecord {
        frame_index: 1,
        simulation_tick: 2,
        delta_time: 0.010,
        update_ms: 2.0,
        fixed_ms: 3.0,
        physics_ms: 1.0,
        flow_ms: 0.5,
        present_ms: 1.0,
        by_priority,
        priorities: 2,
        ticks: 2,
        ..FrameRecord::default()
    };
    // Frame 2: delta 5 ms, 8 ms of work (a stall): lasts 8 ms.
    let b = FrameRecord {
        frame_index: 2,
        simulation_tick: 2,
        delta_time: 0.005,
        update_ms: 8.0,
        ..FrameRecord::default()
    };
    let trace = export_json(&[a, b]);
    let all = slices(events(&trace));
    let find = |name: &str| -> Vec<(u64, u64)> {
        all.iter()
            .filter(|s| s.name == name)
            .map(|s| (s.start, s.len))
            .collect()
    };
    const MS: u64 = 1_000_000;
    assert_eq!(find("frame 1"), [(0, 10 * MS)]);
    assert_eq!(find("update"), [(0, 2 * MS), (10 * MS, 8 * MS)]);
    assert_eq!(find("fixed"), [(2 * MS, 3 * MS), (18 * MS, 0)]);
    assert_eq!(find("flow"), [(5 * MS, MS / 2), (18 * MS, 0)]);
    assert_eq!(find("present"), [(5_500_000, MS), (18 * MS, 0)]);
    assert_eq!(find("tick 1"), [(2 * MS, 1_500_000)]);
    assert_eq!(find("tick 2"), [(3_500_000, 1_500_000)]);
    assert_eq!(
        find("FixedUpdate priority Early"),
        [(2 * MS, 750_000), (3_500_000, 750_000)]
    );
    assert_eq!(
        find("FixedUpdate priority Default"),
        [(2_750_000, 500_000), (4_250_000, 500_000)]
    );
    assert_eq!(
        find("physics"),
        [(3_250_000, 250_000), (4_750_000, 250_000)]
    );
    assert_eq!(find("frame 2"), [(10 * MS, 8 * MS)]);
}

#[test]
fn csv_has_a_header_and_parses_back_to_the_records() {
    let telemetry = recorded();
    let records: Vec<FrameRecord> = telemetry.records().iter().copied().collect();
    let mut out = Vec::new();
    csv(records.iter(), &mut out).expect("writing into a Vec succeeds");
    let text = String::from_utf8(out).expect("UTF-8");
    let mut lines = text.lines();
    let header = lines.next().expect("a header line");
    assert_eq!(
        header,
        "frame_index,kind,suspended,simulation_tick,ticks,delta_time,frame_time,\
         simulation_time,fixed_delta_time,dropped_time,dropped_this_frame,\
         accumulator_before,accumulator_after,interpolation_alpha,update_ms,fixed_ms,\
         physics_ms,flow_ms,present_ms,fixed_ms_by_priority"
    );
    assert_eq!(header.split(',').count(), CSV_COLUMNS.len());
    let body: Vec<&str> = lines.collect();
    assert_eq!(body.len(), records.len());

    for (line, r) in body.iter().zip(&records) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), CSV_COLUMNS.len(), "{line}");
        let f64_at = |i: usize| f[i].parse::<f64>().expect("f64 field");
        let f32_at = |i: usize| f[i].parse::<f32>().expect("f32 field");
        let mut by_priority = [(0i32, 0f32); RECORD_PRIORITIES];
        let mut priorities = 0u8;
        if !f[19].is_empty() {
            for (slot, pair) in f[19].split(';').enumerate() {
                let (p, ms) = pair.split_once('=').expect("priority=ms");
                by_priority[slot] = (
                    p.parse().expect("priority"),
                    ms.parse().expect("milliseconds"),
                );
                priorities += 1;
            }
        }
        let parsed = FrameRecord {
            frame_index: f[0].parse().expect("frame_index"),
            kind: match f[1] {
                "frame" => FrameKindCode::Frame,
                "continuation" => FrameKindCode::Continuation,
                "lone_tick" => FrameKindCode::LoneTick,
                other => panic!("unknown kind {other}"),
            },
            suspended: f[2].parse().expect("bool"),
            simulation_tick: f[3].parse().expect("simulation_tick"),
            ticks: f[4].parse().expect("ticks"),
            delta_time: f64_at(5),
            frame_time: f64_at(6),
            simulation_time: f64_at(7),
            fixed_delta_time: f64_at(8),
            dropped_time: f64_at(9),
            dropped_this_frame: f32_at(10),
            accumulator_before: f64_at(11),
            accumulator_after: f64_at(12),
            interpolation_alpha: f32_at(13),
            update_ms: f32_at(14),
            fixed_ms: f32_at(15),
            physics_ms: f32_at(16),
            flow_ms: f32_at(17),
            present_ms: f32_at(18),
            by_priority,
            priorities,
        };
        assert_eq!(&parsed, r, "{line}");
    }
    // The lone tick and the continuation keep their kinds.
    assert!(body[6].starts_with("6,lone_tick,true,"), "{}", body[6]);
    assert!(body[7].starts_with("6,continuation,false,"), "{}", body[7]);
}

#[test]
fn empty_ranges_export_a_valid_empty_trace_and_a_header_only_csv() {
    let trace = export_json(&[]);
    let events = events(&trace);
    assert!(events.iter().all(|e| e["ph"] == "M"));
    assert_eq!(trace["displayTimeUnit"], "ms");
    let mut out = Vec::new();
    csv(std::iter::empty(), &mut out).expect("writing into a Vec succeeds");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(text.lines().count(), 1);
}
