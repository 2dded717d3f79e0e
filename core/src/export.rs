//! Exporting telemetry: a Chrome trace (JSON) for Perfetto or `chrome://tracing`,
//! and a CSV with every field of every [`FrameRecord`].
//!
//! Both take any iterator of records, so the caller exports exactly the range it
//! selected ([`frame_range`] picks frames by index from the ring).
//!
//! # The trace's timeline is synthetic
//!
//! A [`FrameRecord`] holds durations (the clock's `delta_time`, the wall time of
//! each phase) but no wall-clock start times, so the exporter lays the frames out
//! on a timeline of its own, in integer nanoseconds starting at 0 with the first
//! exported record:
//!
//! - Frames are back to back. A frame's slice lasts its `delta_time` (the time
//!   the game clock advanced), or its measured wall time (`update_ms + fixed_ms +
//!   flow_ms + present_ms`) when the work took longer than that. So while the work fits in
//!   the frame, a frame starts exactly at its `frame_time - delta_time` measured
//!   from the first exported frame, and the slices line up with the game clock; a
//!   frame that overran its delta (a stall, a busy hook, a tiny delta from a slow
//!   time scale) stretches to its wall time and moves every later frame right.
//!   The gap between a frame's phases and its end is the idle part of the frame.
//! - Inside a frame the phases start at the frame's start and follow each other
//!   in the order they run: `update`, `fixed`, `flow` (Flow Tick, which runs
//!   after the fixed phase), `present`, each lasting its recorded wall time.
//! - Inside `fixed`, each completed tick gets a `tick N` slice (N is its
//!   one-based `simulation_tick`), and inside each tick the FixedUpdate work of
//!   each priority, in dispatch order (`FixedUpdate priority -100`, ...), then
//!   `physics`, as the pipeline runs them. The record keeps only the frame's
//!   sums over its ticks, so the exporter splits each sum evenly across the
//!   ticks: the tick slices show how the work was laid out, the `args` of every
//!   slice carry the recorded sums exactly (`frame_ms`), and a single slow tick
//!   among several shows up as a slow frame, not as a slow tick.
//! - A child never leaves its parent: a child that would end after its parent
//!   (only possible through the `f32` rounding of the recorded milliseconds) is
//!   cut at the parent's end, and a zero-length phase is still written, so every
//!   frame has the same slices.
//!
//! Timestamps are written in microseconds with nanosecond resolution
//! (`"ts":16666.667`), which the viewers read back as the same integer
//! nanoseconds, so nesting survives the round trip exactly.
//!
//! # What the trace holds
//!
//! | event | `ph` | where |
//! |---|---|---|
//! | `process_name` `stepframe`, `thread_name` `frame loop`, sort indices | `M` | metadata |
//! | `frame 12` (`frame 12 (continuation)`, `frame 12 (lone tick)`) | `X` | one per record; args: every clock field of the record |
//! | `update`, `fixed`, `flow`, `present` | `X` | inside the frame |
//! | `tick 34` | `X` | inside `fixed`, one per tick the frame completed |
//! | `FixedUpdate priority -100`, `physics` | `X` | inside each tick (directly inside `fixed` if a record has work but no tick) |
//! | `backlog dropped` | `i` | at the start of `fixed`, when the step cap dropped time in the frame |
//! | `delta_time`, `frame_time`, `frame_index`, `simulation_time`, `simulation_tick`, `fixed_delta_time`, `interpolation_alpha`, `dropped_time`, `accumulator_before`, `accumulator_after`, `ticks`, `dropped_this_frame` | `C` | one of each per frame, at the frame's start, holding the value the record has for that frame (so hovering a frame shows its values) |
//!
//! Every counter is its own event with one series named `value` (Perfetto
//! shows the track as `delta_time value`; `chrome://tracing` would stack the
//! series of a multi-series counter, which means nothing for fields in
//! different units). Slices and counters share process 1; slices are on
//! thread 1.
//!
//! # Size
//!
//! A one-tick frame with three priorities is 22 events, about 3.5 KB of JSON
//! (measured on the export test's session); export a range rather than a whole
//! hour (216,000 such frames would be about 750 MB). The writers stream: memory
//! does not grow with the range.
//!
//! Events are written frame by frame: the frame's slice, its counters, then
//! each slice before the slices inside it, in time order, so a reader can
//! group a frame's events without comparing times.
//!
//! # CSV
//!
//! A header line ([`CSV_COLUMNS`]) and one line per record, every field of the
//! record in the header's order. Floats use Rust's shortest round-trip form
//! (`0.016666666666666666`, `1e-5`; `f32` fields in `f32`'s own form), so they
//! parse back to the same bits; `kind` is `frame`, `continuation` or
//! `lone_tick`; `suspended` is `true` or `false`; `fixed_ms_by_priority` is
//! `priority=ms` pairs in dispatch order joined by `;` (`-100=0.0123;0=0.004`),
//! the same form the per-frame telemetry writer uses. No field can hold a
//! comma or a quote, so nothing is quoted.

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::ops::RangeInclusive;

use serde::Serialize;

use crate::ids::Priority;
use crate::telemetry::{FrameKindCode, FrameRecord};

/// The CSV header's columns, in order: every [`FrameRecord`] field.
pub const CSV_COLUMNS: [&str; 20] = [
    "frame_index",
    "kind",
    "suspended",
    "simulation_tick",
    "ticks",
    "delta_time",
    "frame_time",
    "simulation_time",
    "fixed_delta_time",
    "dropped_time",
    "dropped_this_frame",
    "accumulator_before",
    "accumulator_after",
    "interpolation_alpha",
    "update_ms",
    "fixed_ms",
    "physics_ms",
    "flow_ms",
    "present_ms",
    "fixed_ms_by_priority",
];

/// The trace's process id (one process: the session).
const PID: u32 = 1;
/// The thread id the frame slices are on.
const TID: u32 = 1;

/// The records of the frames whose index lies in `frames`, in the order given.
/// A continuation shares its interrupted frame's index, so it is selected with
/// it.
pub fn frame_range<'a>(
    records: impl IntoIterator<Item = &'a FrameRecord>,
    frames: RangeInclusive<u64>,
) -> impl Iterator<Item = &'a FrameRecord> {
    records
        .into_iter()
        .filter(move |r| frames.contains(&r.frame_index))
}

/// Seconds to whole nanoseconds; negative or non-finite values give 0.
fn secs_to_ns(secs: f64) -> u64 {
    if secs.is_finite() && secs > 0.0 {
        (secs * 1e9).round() as u64
    } else {
        0
    }
}

/// Milliseconds to whole nanoseconds (`ms × 10⁶`, rounded); negative or
/// non-finite values give 0.
fn ms_to_ns(ms: f32) -> u64 {
    let ns = f64::from(ms) * 1e6;
    if ns.is_finite() && ns > 0.0 {
        ns.round() as u64
    } else {
        0
    }
}

/// Nanoseconds to the trace's microseconds: `n / 1000` is the double nearest
/// the exact decimal, which prints with at most three decimals.
fn ns_to_us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

/// The name a frame's slice gets.
fn frame_name(out: &mut String, r: &FrameRecord) {
    out.clear();
    let _ = write!(out, "frame {}", r.frame_index);
    match r.kind {
        FrameKindCode::Frame => {}
        FrameKindCode::Continuation => out.push_str(" (continuation)"),
        FrameKindCode::LoneTick => out.push_str(" (lone tick)"),
    }
}

/// The `kind` column / argument.
fn kind_name(kind: FrameKindCode) -> &'static str {
    match kind {
        FrameKindCode::Frame => "frame",
        FrameKindCode::Continuation => "continuation",
        FrameKindCode::LoneTick => "lone_tick",
    }
}

/// One trace event: the keys the Trace Event Format defines, in its order.
#[derive(Serialize)]
struct Event<'a, A: Serialize> {
    /// Slice, counter or metadata name.
    name: &'a str,
    /// Category (Perfetto and chrome://tracing can filter on it).
    cat: &'static str,
    /// Phase: `X` complete, `C` counter, `M` metadata, `i` instant.
    ph: &'static str,
    /// Start, microseconds.
    ts: f64,
    /// Length, microseconds (complete events only).
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    /// Process.
    pid: u32,
    /// Thread.
    tid: u32,
    /// Instant scope (`t`: the thread).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    /// Event-specific arguments.
    args: A,
}

/// Arguments of a frame slice: the record's clock fields.
#[derive(Serialize)]
struct FrameArgs {
    /// One-based frame index.
    frame_index: u64,
    /// `frame`, `continuation` or `lone_tick`.
    kind: &'static str,
    /// Whether the frame ended suspended.
    suspended: bool,
    /// Ticks completed in the frame.
    ticks: u16,
    /// Ticks completed when the frame ended.
    simulation_tick: u64,
    /// Seconds.
    delta_time: f64,
    /// Seconds.
    frame_time: f64,
    /// Seconds.
    simulation_time: f64,
    /// Seconds.
    fixed_delta_time: f64,
    /// Cumulative, seconds.
    dropped_time: f64,
    /// This frame, seconds.
    dropped_this_frame: f32,
    /// Seconds.
    accumulator_before: f64,
    /// Seconds.
    accumulator_after: f64,
    /// Fraction of a tick.
    interpolation_alpha: f32,
    /// `update_ms + fixed_ms + flow_ms + present_ms`.
    wall_ms: f32,
}

/// Arguments of a phase or work slice.
#[derive(Serialize)]
struct WorkArgs {
    /// The recorded wall time of this work over the whole frame, ms.
    frame_ms: f32,
    /// Ticks the frame's sum is split over (absent for update/present).
    #[serde(skip_serializing_if = "Option::is_none")]
    split_over_ticks: Option<u16>,
    /// The FixedUpdate priority (priority slices only).
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<i32>,
    /// The priority's name, if the value has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    priority_name: Option<String>,
}

/// Arguments of a tick slice.
#[derive(Serialize)]
struct TickArgs {
    /// One-based index of the tick.
    simulation_tick: u64,
    /// Start of the tick on the simulation clock, seconds.
    simulation_time: f64,
}

/// Arguments of the dropped-backlog instant.
#[derive(Serialize)]
struct DroppedArgs {
    /// Backlog the step cap discarded in the frame, seconds.
    dropped_this_frame: f32,
}

/// Arguments of metadata events.
#[derive(Serialize)]
struct NameArgs {
    /// The process or thread name.
    name: &'static str,
}

/// Arguments of sort-index metadata events.
#[derive(Serialize)]
struct SortArgs {
    /// Position among processes / threads.
    sort_index: i32,
}

/// A counter value, written in its own type's shortest form.
#[derive(Clone, Copy)]
enum Num {
    /// An `f64` field.
    F64(f64),
    /// An `f32` field (written as `f32`, not widened).
    F32(f32),
    /// An integer field.
    U64(u64),
}

impl Serialize for Num {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Num::F64(v) => s.serialize_f64(v),
            Num::F32(v) => s.serialize_f32(v),
            Num::U64(v) => s.serialize_u64(v),
        }
    }
}

/// Arguments of a counter: one series.
#[derive(Serialize)]
struct CounterArgs {
    /// The sample.
    value: Num,
}

/// Streams events into the `traceEvents` array, with the commas between them.
struct TraceOut<W: Write> {
    /// The buffered output.
    out: W,
    /// Whether an event has been written (the next one needs a comma).
    any: bool,
}

impl<W: Write> TraceOut<W> {
    fn event<A: Serialize>(&mut self, event: &Event<'_, A>) -> io::Result<()> {
        if self.any {
            self.out.write_all(b",\n")?;
        } else {
            self.out.write_all(b"\n")?;
        }
        self.any = true;
        serde_json::to_writer(&mut self.out, event).map_err(io::Error::from)
    }

    /// A complete event `[start, start + len]` on the frame thread.
    fn slice<A: Serialize>(
        &mut self,
        name: &str,
        cat: &'static str,
        start: u64,
        len: u64,
        args: A,
    ) -> io::Result<()> {
        self.event(&Event {
            name,
            cat,
            ph: "X",
            ts: ns_to_us(start),
            dur: Some(ns_to_us(len)),
            pid: PID,
            tid: TID,
            s: None,
            args,
        })
    }

    fn counter(&mut self, name: &str, at: u64, value: Num) -> io::Result<()> {
        self.event(&Event {
            name,
            cat: "clock",
            ph: "C",
            ts: ns_to_us(at),
            dur: None,
            pid: PID,
            tid: TID,
            s: None,
            args: CounterArgs { value },
        })
    }

    fn metadata<A: Serialize>(&mut self, name: &str, args: A) -> io::Result<()> {
        self.event(&Event {
            name,
            cat: "__metadata",
            ph: "M",
            ts: 0.0,
            dur: None,
            pid: PID,
            tid: TID,
            s: None,
            args,
        })
    }
}

/// Lays children out one after another from `start`, never past `end`.
struct Cursor {
    /// Where the next child starts, ns.
    at: u64,
    /// The parent's end, ns.
    end: u64,
}

impl Cursor {
    fn new(start: u64, end: u64) -> Cursor {
        Cursor { at: start, end }
    }

    /// Takes `len` ns (less if the parent ends first); returns `(start, len)`.
    fn take(&mut self, len: u64) -> (u64, u64) {
        let start = self.at;
        let len = len.min(self.end - start);
        self.at = start + len;
        (start, len)
    }
}

/// `total` split into `parts` nearly equal pieces; piece `i` (the first
/// `total % parts` pieces are 1 ns longer), so the pieces sum to `total`.
fn share(total: u64, parts: u64, i: u64) -> u64 {
    total / parts + u64::from(i < total % parts)
}

/// Writes the Chrome Trace Event Format JSON of `records` (see the module docs
/// for the layout): `{"traceEvents":[...],"displayTimeUnit":"ms",...}`, which
/// Perfetto (ui.perfetto.dev) and `chrome://tracing` open. The output is
/// buffered internally; pass the file or `Vec` directly.
pub fn chrome_trace<'a>(
    records: impl Iterator<Item = &'a FrameRecord>,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut t = TraceOut {
        out: BufWriter::with_capacity(64 * 1024, out),
        any: false,
    };
    t.out.write_all(b"{\"traceEvents\":[")?;
    t.metadata("process_name", NameArgs { name: "stepframe" })?;
    t.metadata("process_sort_index", SortArgs { sort_index: 0 })?;
    t.metadata("thread_name", NameArgs { name: "frame loop" })?;
    t.metadata("thread_sort_index", SortArgs { sort_index: 0 })?;

    let mut name = String::with_capacity(64);
    let mut frame_start = 0u64;
    for r in records {
        let update = ms_to_ns(r.update_ms);
        let fixed = ms_to_ns(r.fixed_ms);
        let flow = ms_to_ns(r.flow_ms);
        let present = ms_to_ns(r.present_ms);
        let wall = update
            .saturating_add(fixed)
            .saturating_add(flow)
            .saturating_add(present);
        let frame_len = secs_to_ns(r.delta_time).max(wall);
        let frame_end = frame_start.saturating_add(frame_len);

        frame_name(&mut name, r);
        t.slice(
            &name,
            "frame",
            frame_start,
            frame_len,
            FrameArgs {
                frame_index: r.frame_index,
                kind: kind_name(r.kind),
                suspended: r.suspended,
                ticks: r.ticks,
                simulation_tick: r.simulation_tick,
                delta_time: r.delta_time,
                frame_time: r.frame_time,
                simulation_time: r.simulation_time,
                fixed_delta_time: r.fixed_delta_time,
                dropped_time: r.dropped_time,
                dropped_this_frame: r.dropped_this_frame,
                accumulator_before: r.accumulator_before,
                accumulator_after: r.accumulator_after,
                interpolation_alpha: r.interpolation_alpha,
                wall_ms: r.total_ms(),
            },
        )?;
        write_counters(&mut t, r, frame_start)?;

        let mut phases = Cursor::new(frame_start, frame_end);
        let (s, l) = phases.take(update);
        t.slice("update", "phase", s, l, phase_args(r.update_ms))?;
        let (fixed_start, fixed_len) = phases.take(fixed);
        t.slice(
            "fixed",
            "phase",
            fixed_start,
            fixed_len,
            phase_args(r.fixed_ms),
        )?;
        if r.dropped_this_frame > 0.0 {
            t.event(&Event {
                name: "backlog dropped",
                cat: "fixed",
                ph: "i",
                ts: ns_to_us(fixed_start),
                dur: None,
                pid: PID,
                tid: TID,
                s: Some("t"),
                args: DroppedArgs {
                    dropped_this_frame: r.dropped_this_frame,
                },
            })?;
        }
        write_fixed_work(&mut t, &mut name, r, fixed_start, fixed_len)?;
        let (s, l) = phases.take(flow);
        t.slice("flow", "phase", s, l, phase_args(r.flow_ms))?;
        let (s, l) = phases.take(present);
        t.slice("present", "phase", s, l, phase_args(r.present_ms))?;

        frame_start = frame_end;
    }

    t.out.write_all(
        b"\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"stepframe\",\
          \"timeline\":\"synthetic: frames back to back, each lasting max(delta_time, wall time); \
          per-tick work is the frame's recorded sum split evenly over its ticks\"}}\n",
    )?;
    t.out.flush()
}

fn phase_args(ms: f32) -> WorkArgs {
    WorkArgs {
        frame_ms: ms,
        split_over_ticks: None,
        priority: None,
        priority_name: None,
    }
}

/// The clock counters of one frame, at its start.
fn write_counters<W: Write>(t: &mut TraceOut<W>, r: &FrameRecord, at: u64) -> io::Result<()> {
    let counters = [
        ("delta_time", Num::F64(r.delta_time)),
        ("frame_time", Num::F64(r.frame_time)),
        ("frame_index", Num::U64(r.frame_index)),
        ("simulation_time", Num::F64(r.simulation_time)),
        ("simulation_tick", Num::U64(r.simulation_tick)),
        ("fixed_delta_time", Num::F64(r.fixed_delta_time)),
        ("interpolation_alpha", Num::F32(r.interpolation_alpha)),
        ("dropped_time", Num::F64(r.dropped_time)),
        ("accumulator_before", Num::F64(r.accumulator_before)),
        ("accumulator_after", Num::F64(r.accumulator_after)),
        ("ticks", Num::U64(u64::from(r.ticks))),
        ("dropped_this_frame", Num::F32(r.dropped_this_frame)),
    ];
    for (name, value) in counters {
        t.counter(name, at, value)?;
    }
    Ok(())
}

/// The tick slices inside `fixed`, and the per-priority and physics work inside
/// each (or directly inside `fixed` when the record has work but no tick).
fn write_fixed_work<W: Write>(
    t: &mut TraceOut<W>,
    name: &mut String,
    r: &FrameRecord,
    fixed_start: u64,
    fixed_len: u64,
) -> io::Result<()> {
    let ticks = u64::from(r.ticks);
    let physics = ms_to_ns(r.physics_ms);
    let has_work = physics > 0 || !r.priorities().is_empty();
    if ticks == 0 {
        if has_work {
            let mut work = Cursor::new(fixed_start, fixed_start.saturating_add(fixed_len));
            write_tick_work(t, name, r, &mut work, 1, 0)?;
        }
        return Ok(());
    }
    let fixed_dt = r.fixed_delta_time;
    let first_tick = r.simulation_tick.saturating_sub(ticks) + 1;
    let mut tick_cursor = Cursor::new(fixed_start, fixed_start.saturating_add(fixed_len));
    for i in 0..ticks {
        let (start, len) = tick_cursor.take(share(fixed_len, ticks, i));
        let tick = first_tick + i;
        name.clear();
        let _ = write!(name, "tick {tick}");
        t.slice(
            name,
            "fixed",
            start,
            len,
            TickArgs {
                simulation_tick: tick,
                simulation_time: (tick - 1) as f64 * fixed_dt,
            },
        )?;
        let mut work = Cursor::new(start, start.saturating_add(len));
        write_tick_work(t, name, r, &mut work, ticks, i)?;
    }
    Ok(())
}

/// Piece `i` of `parts` of each priority's FixedUpdate time, then of physics.
fn write_tick_work<W: Write>(
    t: &mut TraceOut<W>,
    name: &mut String,
    r: &FrameRecord,
    work: &mut Cursor,
    parts: u64,
    i: u64,
) -> io::Result<()> {
    let split = (parts > 1).then_some(parts as u16);
    for &(priority, ms) in r.priorities() {
        let (s, l) = work.take(share(ms_to_ns(ms), parts, i));
        name.clear();
        let _ = write!(name, "FixedUpdate priority {priority}");
        t.slice(
            name,
            "fixed",
            s,
            l,
            WorkArgs {
                frame_ms: ms,
                split_over_ticks: split,
                priority: Some(priority),
                priority_name: Priority(priority).name().map(|n| format!("{n:?}")),
            },
        )?;
    }
    let (s, l) = work.take(share(ms_to_ns(r.physics_ms), parts, i));
    t.slice(
        "physics",
        "fixed",
        s,
        l,
        WorkArgs {
            frame_ms: r.physics_ms,
            split_over_ticks: split,
            priority: None,
            priority_name: None,
        },
    )
}

/// Writes the CSV of `records` (see the module docs): the [`CSV_COLUMNS`]
/// header, then one line per record. The output is buffered internally.
pub fn csv<'a>(
    records: impl Iterator<Item = &'a FrameRecord>,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    let mut line = String::with_capacity(512);
    line.push_str(&CSV_COLUMNS.join(","));
    line.push('\n');
    out.write_all(line.as_bytes())?;
    for r in records {
        line.clear();
        let _ = write!(
            line,
            "{},{},{},{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},",
            r.frame_index,
            kind_name(r.kind),
            r.suspended,
            r.simulation_tick,
            r.ticks,
            r.delta_time,
            r.frame_time,
            r.simulation_time,
            r.fixed_delta_time,
            r.dropped_time,
            r.dropped_this_frame,
            r.accumulator_before,
            r.accumulator_after,
            r.interpolation_alpha,
            r.update_ms,
            r.fixed_ms,
            r.physics_ms,
            r.flow_ms,
            r.present_ms,
        );
        for (k, (priority, ms)) in r.priorities().iter().enumerate() {
            if k > 0 {
                line.push(';');
            }
            let _ = write!(line, "{priority}={ms:?}");
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}
