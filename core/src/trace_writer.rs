//! Writers for the two text outputs of a run: the per-tick trace and the
//! per-frame telemetry, both JSON Lines (telemetry also CSV).
//!
//! # The trace: one line per completed fixed tick
//!
//! ```json
//! {"tick":1,"sim_time":0.0,"frame":1,"inputs":[{"key":"Space","value":1.0}],"contacts":[{"a":3,"b":7,"kind":"started"}],"poses":[{"id":3,"x":0.0,"y":1.9972222,"angle":0.0,"vx":0.0,"vy":-0.16666667,"w":0.0}],"hash":"8c3f0e5a1b2d4c6e"}
//! ```
//!
//! | field | meaning |
//! |---|---|
//! | `tick` | one-based index of the completed tick |
//! | `sim_time` | START time of the tick, seconds: `(tick - 1) × fixed_dt`, exactly what FixedUpdate saw as `simulation_time` |
//! | `frame` | the outer frame that ran the tick (depends on pacing; `trace-diff` ignores it) |
//! | `inputs` | raw events the tick delivered to fixed code, in delivery order: `{"key":name}`, `{"mouse":n}`, `{"button":name}` or `{"axis":name}`, plus `"value"` (1.0 pressed, 0.0 released, or the axis value) |
//! | `contacts` | contact events of the tick, sorted by pair then kind; `a < b`; `kind` is `started` or `stopped` |
//! | `poses` | every live object with a body, in id order: committed pose (`x`, `y`, `angle`) and velocity (`vx`, `vy`, `w`); a soft body's pose is its centroid pose ([`crate::soft_pose()`]) and it adds its particle count, `particles` |
//! | `hash` | the pipeline's stable state hash after the tick, 16 lower-case hex digits |
//!
//! The keys always appear in this order and nothing else is written, so two
//! traces of the same ticks are byte-identical apart from `frame`.
//!
//! # Subsystem hashes (opt-in)
//!
//! A writer made [`TraceWriter::with_subsystem_hashes`] (`play
//! --trace-subsystems`) adds one member after `hash`, the tick's
//! [`SubsystemHashes`] in the order a tick touches them:
//!
//! ```json
//! "hash":"8c3f0e5a1b2d4c6e","subsystems":{"clock":"…","input":"…","behaviours":[{"id":3,"hash":"…"}],"rng":"…","physics":"…"}}
//! ```
//!
//! Each value is 16 lower-case hex digits; `behaviours` has one entry per
//! object with behaviours, in id order. Without the option nothing of this is
//! written and the line is exactly the one above.
//!
//! # Numbers
//!
//! Floats are written in shortest round-trip form: the fewest decimal digits that
//! parse back to the same bits (`f32` poses as `f32`, `f64` times as `f64`). The
//! form is Rust's `{:?}` for floats: a whole number keeps a `.0` (`0.0`, `-2.0`),
//! magnitudes at or above 1e16 or below 1e-4 use an exponent (`1e-7`,
//! `1.5e20`), and `-0.0` stays `-0.0` (its bits differ from `0.0`, and so does
//! the hash). A non-finite value, which the pipeline never commits, would be
//! written as `null`. Integers (`tick`, `frame`, ids) are plain decimals.
//!
//! # Telemetry: one line per `step_frame` call
//!
//! ```json
//! {"frame":3,"delta_time":0.016666666666666666,"frame_time":0.05,"ticks":1,"simulation_tick":3,"simulation_time":0.05,"accumulator":0.0,"interpolation_alpha":0.0,"dropped_time":0.0,"fixed_ms_by_priority":{"-100":0.0123,"0":0.004},"physics_ms":0.21,"update_ms":0.05,"fixed_ms":0.3,"flow_ms":0.01,"present_ms":0.02}
//! ```
//!
//! `frame`, `delta_time` (clamped and scaled), `ticks` (completed by the call),
//! `fixed_ms_by_priority` (FixedUpdate wall time per priority, keyed by the
//! priority's number, in dispatch order), `physics_ms` and the wall time of
//! each phase in the order the phases run (`update_ms`: Start, Update and
//! frame routines; `fixed_ms`; `flow_ms`: Flow Tick, which runs after the
//! fixed phase; `present_ms`) come from the [`FrameReport`]; `frame_time`, `simulation_tick`, `simulation_time`,
//! `accumulator`, `interpolation_alpha` and `dropped_time` (cumulative) from the
//! [`Clock`] after the call. The CSV form has the same columns in the same order
//! with a header line; `fixed_ms_by_priority` becomes one field of
//! `priority=ms` pairs joined by `;` (`-100=0.0123;0=0.004`).
//!
//! # Cost
//!
//! Both writers format into one reused `String` and hand it to the output in a
//! single `write_all`: in steady state (buffer grown to its largest line) a tick
//! allocates nothing. Give them a buffered output (`BufWriter`, or a `Vec<u8>`).

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::body::ContactEvent;
use crate::clock::{Clock, Flicks};
use crate::input::{InputEvent, InputSource};
use crate::pipeline::FrameReport;
use crate::trace::{SubsystemHashes, TickObserver, TickRecord};
use crate::world::World;

mod telemetry_file;
pub use telemetry_file::{TELEMETRY_COLUMNS, TelemetryFormat, TelemetryWriter};

/// Appends a float in shortest round-trip form (see the module docs).
fn push_f64(out: &mut String, v: f64) {
    if v.is_finite() {
        let _ = write!(out, "{v:?}");
    } else {
        out.push_str("null");
    }
}

/// Appends an `f32` in its own shortest round-trip form (not widened to `f64`).
fn push_f32(out: &mut String, v: f32) {
    if v.is_finite() {
        let _ = write!(out, "{v:?}");
    } else {
        out.push_str("null");
    }
}

/// Appends a JSON string literal.
fn push_str_literal(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_input(out: &mut String, e: &InputEvent) {
    match &e.source {
        InputSource::Key(name) => {
            out.push_str("{\"key\":");
            push_str_literal(out, name);
        }
        InputSource::MouseButton(n) => {
            let _ = write!(out, "{{\"mouse\":{n}");
        }
        InputSource::GamepadButton(name) => {
            out.push_str("{\"button\":");
            push_str_literal(out, name);
        }
        InputSource::GamepadAxis(name) => {
            out.push_str("{\"axis\":");
            push_str_literal(out, name);
        }
    }
    out.push_str(",\"value\":");
    push_f32(out, e.value);
    out.push('}');
}

fn push_contact(out: &mut String, c: &ContactEvent) {
    let _ = write!(
        out,
        "{{\"a\":{},\"b\":{},\"kind\":\"{}\"}}",
        c.a.0,
        c.b.0,
        c.kind.name()
    );
}

fn push_poses(out: &mut String, world: &World) {
    out.push('[');
    let mut first = true;
    for object in world.objects() {
        let Some(body) = &object.body else { continue };
        if !first {
            out.push(',');
        }
        first = false;
        let (p, v) = (body.committed, body.velocity);
        let _ = write!(out, "{{\"id\":{},\"x\":", object.id.0);
        push_f32(out, p.x);
        out.push_str(",\"y\":");
        push_f32(out, p.y);
        out.push_str(",\"angle\":");
        push_f32(out, p.angle);
        out.push_str(",\"vx\":");
        push_f32(out, v.linear.x);
        out.push_str(",\"vy\":");
        push_f32(out, v.linear.y);
        out.push_str(",\"w\":");
        push_f32(out, v.angular);
        if let Some(soft) = &body.soft {
            let _ = write!(out, ",\"particles\":{}", soft.particles.len());
        }
        out.push('}');
    }
    out.push(']');
}

/// Start time of the tick `clock` describes as completed, seconds, computed in
/// flicks exactly as the pipeline computes `simulation_time` during that
/// tick's FixedUpdate.
fn tick_start_secs(clock: &crate::clock::Clock) -> f64 {
    // The clock describes the completed tick: it ended at `simulation_time`
    // and lasted `fixed_delta_time` (a rate change mid-run keeps earlier
    // ticks at the length they had, so this is not `(tick - 1) × dt`).
    let end = Flicks::from_secs_f64(clock.simulation_time);
    let fixed = Flicks::from_secs_f64(clock.fixed_delta_time);
    if clock.simulation_tick == 0 {
        return 0.0;
    }
    (end - fixed).as_secs_f64()
}

/// Appends one trace line for a completed tick (without the newline): the
/// format in the module docs. Public so the editor and benches format ticks
/// exactly as the player does.
pub fn write_trace_line(out: &mut String, record: &TickRecord<'_>) {
    push_members(out, record);
    out.push('}');
}

/// [`write_trace_line`] with the opt-in `subsystems` member after `hash`
/// (module docs): for the sync test's and `check`'s reports, which name the
/// subsystem that diverged first.
pub fn write_trace_line_with_subsystems(
    out: &mut String,
    record: &TickRecord<'_>,
    hashes: &SubsystemHashes,
) {
    push_members(out, record);
    let _ = write!(
        out,
        ",\"subsystems\":{{\"clock\":\"{:016x}\",\"input\":\"{:016x}\",\"behaviours\":[",
        hashes.clock, hashes.input
    );
    for (i, (id, hash)) in hashes.behaviours.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{{\"id\":{},\"hash\":\"{hash:016x}\"}}", id.0);
    }
    let _ = write!(
        out,
        "],\"rng\":\"{:016x}\",\"physics\":\"{:016x}\"}}}}",
        hashes.rng, hashes.physics
    );
}

/// Every member of the default line, without the closing brace.
fn push_members(out: &mut String, record: &TickRecord<'_>) {
    let clock = record.clock;
    let tick = clock.simulation_tick;
    let _ = write!(out, "{{\"tick\":{tick},\"sim_time\":");
    push_f64(out, tick_start_secs(clock));
    let _ = write!(out, ",\"frame\":{},\"inputs\":[", clock.frame_index);
    for (i, e) in record.inputs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_input(out, e);
    }
    out.push_str("],\"contacts\":[");
    for (i, c) in record.contacts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_contact(out, c);
    }
    out.push_str("],\"poses\":");
    push_poses(out, record.world);
    let _ = write!(out, ",\"hash\":\"{:016x}\"", record.hash);
}

/// A [`TickObserver`] that writes the JSON Lines trace of every completed tick.
///
/// Write errors do not stop the simulation: the first one is kept, later ticks
/// are not written, and [`TraceWriter::flush`] returns it.
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    /// Where lines go.
    out: W,
    /// The reused line buffer.
    line: String,
    /// Ticks written.
    ticks: u64,
    /// The first write error, if any.
    error: Option<io::Error>,
    /// With the opt-in `subsystems` member: the reused hash buffer.
    subsystems: Option<SubsystemHashes>,
}

impl<W: Write> TraceWriter<W> {
    /// A writer into `out` (give it a buffered output).
    pub fn new(out: W) -> TraceWriter<W> {
        TraceWriter {
            out,
            line: String::with_capacity(1024),
            ticks: 0,
            error: None,
            subsystems: None,
        }
    }

    /// Adds the opt-in `subsystems` member to every line (module docs). Off
    /// by default: the documented trace stays byte-identical.
    pub fn with_subsystem_hashes(mut self) -> TraceWriter<W> {
        self.subsystems = Some(SubsystemHashes::default());
        self
    }

    /// Ticks written so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Flushes the output; returns the first write error of the run, if any.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }

    /// The output (for in-memory traces).
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// The output, mutably (to take an in-memory trace without a copy).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Flushes and gives the output back.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.flush()?;
        Ok(self.out)
    }
}

impl<W: Write + Send> TickObserver for TraceWriter<W> {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        if self.error.is_some() {
            return;
        }
        self.line.clear();
        match self.subsystems.as_mut() {
            Some(hashes) => {
                record.state.subsystem_hashes(hashes);
                write_trace_line_with_subsystems(&mut self.line, record, hashes);
            }
            None => write_trace_line(&mut self.line, record),
        }
        self.line.push('\n');
        match self.out.write_all(self.line.as_bytes()) {
            Ok(()) => self.ticks += 1,
            Err(e) => self.error = Some(e),
        }
    }
}

/// A shared observer: the pipeline owns one handle, the host keeps another to
/// read results or flush after the run (the pipeline's observer slot is a
/// `Box<dyn TickObserver>`, which cannot be downcast back).
impl<T: TickObserver> TickObserver for Arc<Mutex<T>> {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        // A poisoned lock means a host thread panicked while holding it; the
        // observer's data is still the best record there is, so keep going.
        let mut inner = self.lock().unwrap_or_else(|p| p.into_inner());
        inner.on_tick(record);
    }

    fn wants_hash(&self) -> bool {
        let inner = self.lock().unwrap_or_else(|p| p.into_inner());
        inner.wants_hash()
    }
}

/// Several observers in one slot (trace writer, recorder, sync-test checker),
/// called in order.
impl TickObserver for Vec<Box<dyn TickObserver>> {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        for observer in self.iter_mut() {
            observer.on_tick(record);
        }
    }

    fn wants_hash(&self) -> bool {
        self.iter().any(|o| o.wants_hash())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_shortest_round_trip_with_a_point() {
        let mut s = String::new();
        for v in [0.0f32, -0.0, 1.0, 0.1, 1.9972222, 1e-7, 3.0e20] {
            push_f32(&mut s, v);
            s.push(' ');
        }
        assert_eq!(s, "0.0 -0.0 1.0 0.1 1.9972222 1e-7 3e20 ");
        let mut t = String::new();
        push_f64(&mut t, 1.0 / 60.0);
        assert_eq!(t, "0.016666666666666666");
        let mut n = String::new();
        push_f32(&mut n, f32::NAN);
        assert_eq!(n, "null");
    }

    #[test]
    fn tick_start_is_exact_in_flicks() {
        let completed = |tick: u64, end: f64, dt: f64| crate::clock::Clock {
            simulation_tick: tick,
            simulation_time: end,
            fixed_delta_time: dt,
            ..crate::clock::Clock::default()
        };
        // Tick 1 starts at 0; tick 61 starts at exactly 60 × 11,760,000 flicks = 1 s.
        assert_eq!(tick_start_secs(&completed(1, 1.0 / 60.0, 1.0 / 60.0)), 0.0);
        assert_eq!(
            tick_start_secs(&completed(61, 61.0 / 60.0, 1.0 / 60.0)),
            1.0
        );
        assert_eq!(tick_start_secs(&completed(4, 4.0 / 60.0, 1.0 / 60.0)), 0.05);
        // 600 ticks at 60 Hz, then 50 Hz: tick 601 ends at 10.02 s, started at 10 s.
        assert_eq!(tick_start_secs(&completed(601, 10.02, 0.02)), 10.0);
    }

    #[test]
    fn strings_are_escaped() {
        let mut s = String::new();
        push_str_literal(&mut s, "a\"b\\c\u{1}");
        assert_eq!(s, "\"a\\\"b\\\\c\\u0001\"");
    }

    /// Hands out fixed subsystem hashes, as the pipeline hands out its own.
    #[derive(Debug)]
    struct Fixed(SubsystemHashes);

    impl crate::trace::SubsystemState for Fixed {
        fn subsystem_hashes(&self, out: &mut SubsystemHashes) {
            out.clone_from(&self.0);
        }
    }

    #[test]
    fn subsystem_hashes_follow_the_hash_member_only_when_asked() {
        let clock = Clock {
            simulation_tick: 2,
            simulation_time: 2.0 / 60.0,
            fixed_delta_time: 1.0 / 60.0,
            frame_index: 3,
            ..Clock::default()
        };
        let world = World::new();
        let state = Fixed(SubsystemHashes {
            clock: 1,
            input: 0x22,
            behaviours: vec![
                (crate::ids::ObjectId(3), 0xabc),
                (crate::ids::ObjectId(7), 0),
            ],
            rng: u64::MAX,
            physics: 0x10,
        });
        let record = TickRecord {
            clock: &clock,
            inputs: &[],
            contacts: &[],
            world: &world,
            hash: 0xaa,
            state: &state,
        };
        let line = |mut w: TraceWriter<Vec<u8>>| {
            w.on_tick(&record);
            String::from_utf8(w.into_inner().expect("in memory")).expect("UTF-8")
        };
        let plain = r#"{"tick":2,"sim_time":0.016666666666666666,"frame":3,"inputs":[],"contacts":[],"poses":[],"hash":"00000000000000aa"}"#;
        assert_eq!(line(TraceWriter::new(Vec::new())), format!("{plain}\n"));
        assert_eq!(
            line(TraceWriter::new(Vec::new()).with_subsystem_hashes()),
            format!(
                "{},{}}}\n",
                plain.strip_suffix('}').expect("an object"),
                r#""subsystems":{"clock":"0000000000000001","input":"0000000000000022","behaviours":[{"id":3,"hash":"0000000000000abc"},{"id":7,"hash":"0000000000000000"}],"rng":"ffffffffffffffff","physics":"0000000000000010"}"#
            )
        );
    }

    #[test]
    fn telemetry_format_follows_the_extension() {
        assert_eq!(
            TelemetryFormat::for_path(Path::new("t.CSV")),
            TelemetryFormat::Csv
        );
        assert_eq!(
            TelemetryFormat::for_path(Path::new("t.jsonl")),
            TelemetryFormat::JsonLines
        );
    }
}
