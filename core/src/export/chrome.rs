//! The Chrome trace (Trace Event Format JSON): frames, phases,
//! per-priority FixedUpdate and physics as slices, clock fields as counters
//! (see the module docs of [`crate::export`] for the layout).

use super::*;
use crate::clock::Flicks;
use crate::flame::{FrameZones, ZoneKind, ZoneRing};
use crate::report::FrameKind;

/// The trace's process id (one process: the session).
const PID: u32 = 1;
/// The thread id the frame slices are on.
const TID: u32 = 1;

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
    /// `recorded` for a slice written from the pipeline's flame zones
    /// (real start and length), absent for one laid out from the sums.
    #[serde(skip_serializing_if = "Option::is_none")]
    zones: Option<&'static str>,
}

/// Arguments of a hook call's slice (fine zones).
#[derive(Serialize)]
struct CallArgs<'a> {
    /// The hook.
    hook: &'static str,
    /// The object's id.
    object: u64,
    /// The behaviour's registered name.
    behaviour: &'a str,
    /// The zone's wall time, ms.
    ms: f64,
    /// Always `recorded`.
    zones: &'static str,
}

/// Arguments of a tick slice.
#[derive(Serialize)]
struct TickArgs {
    /// One-based index of the tick.
    simulation_tick: u64,
    /// Start of the tick on the simulation clock, seconds.
    simulation_time: f64,
    /// `recorded` when written from flame zones (see [`WorkArgs::zones`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    zones: Option<&'static str>,
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
    chrome_trace_with_zones(records, &ZoneRing::with_capacity(1), out)
}

/// [`chrome_trace`], with each frame whose flame zones `zones` keeps
/// written from those zones: every phase, tick, priority group, physics
/// and contacts slice at the start and for the length the pipeline
/// measured (`"zones":"recorded"` in its `args`), instead of the frame's
/// sums split evenly over its ticks. Frames the ring no longer holds are
/// laid out from their sums as before.
pub fn chrome_trace_with_zones<'a>(
    records: impl Iterator<Item = &'a FrameRecord>,
    zones: &ZoneRing,
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
        let recorded = zones
            .get(r.frame_index, frame_kind(r.kind))
            .filter(|z| !z.is_empty());
        let span = recorded.map_or(0, |z| z.span_ns());
        let frame_len = secs_to_ns(r.delta_time).max(wall).max(span);
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
        if let Some(z) = recorded {
            write_zones(&mut t, &mut name, r, z, frame_start, frame_end)?;
            frame_start = frame_end;
            continue;
        }

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
        zones: None,
    }
}

/// The call kind a record stands for.
fn frame_kind(kind: FrameKindCode) -> FrameKind {
    match kind {
        FrameKindCode::Frame => FrameKind::Frame,
        FrameKindCode::Continuation => FrameKind::Continuation,
        FrameKindCode::LoneTick => FrameKind::LoneTick,
    }
}

/// A frame's slices from its recorded zones, each at the frame's start
/// plus the zone's own offset, cut at the frame's end.
fn write_zones<W: Write>(
    t: &mut TraceOut<W>,
    name: &mut String,
    r: &FrameRecord,
    z: &FrameZones,
    frame_start: u64,
    frame_end: u64,
) -> io::Result<()> {
    let ticks = u64::from(r.ticks);
    let fixed_dt = Flicks::from_secs_f64(r.fixed_delta_time);
    let end = Flicks::from_secs_f64(r.simulation_time);
    let mut tick_ordinal = 0u64;
    for zone in z.zones() {
        let start = frame_start.saturating_add(zone.start_ns).min(frame_end);
        let len = zone.len_ns().min(frame_end - start);
        let ms = zone.ms() as f32;
        let recorded = |priority: Option<i32>| WorkArgs {
            frame_ms: ms,
            split_over_ticks: None,
            priority,
            priority_name: priority.and_then(|p| Priority(p).name().map(|n| format!("{n:?}"))),
            zones: Some("recorded"),
        };
        match zone.kind {
            ZoneKind::Update => t.slice("update", "phase", start, len, recorded(None))?,
            ZoneKind::Fixed => {
                t.slice("fixed", "phase", start, len, recorded(None))?;
                if r.dropped_this_frame > 0.0 {
                    t.event(&Event {
                        name: "backlog dropped",
                        cat: "fixed",
                        ph: "i",
                        ts: ns_to_us(start),
                        dur: None,
                        pid: PID,
                        tid: TID,
                        s: Some("t"),
                        args: DroppedArgs {
                            dropped_this_frame: r.dropped_this_frame,
                        },
                    })?;
                }
            }
            ZoneKind::Flow => t.slice("flow", "phase", start, len, recorded(None))?,
            ZoneKind::Present => t.slice("present", "phase", start, len, recorded(None))?,
            ZoneKind::Tick(tick) => {
                name.clear();
                let _ = write!(name, "tick {tick}");
                // Ticks end at the record's simulation time, each fixed dt long.
                let before_end = ticks.saturating_sub(tick_ordinal).max(1);
                tick_ordinal += 1;
                t.slice(
                    name,
                    "fixed",
                    start,
                    len,
                    TickArgs {
                        simulation_tick: tick,
                        simulation_time: (end - fixed_dt * before_end).as_secs_f64(),
                        zones: Some("recorded"),
                    },
                )?;
            }
            ZoneKind::FixedUpdate(p) => {
                name.clear();
                let _ = write!(name, "FixedUpdate priority {p}");
                t.slice(name, "fixed", start, len, recorded(Some(p.0)))?;
            }
            ZoneKind::Physics => t.slice("physics", "fixed", start, len, recorded(None))?,
            ZoneKind::MidStep(p) => {
                name.clear();
                let _ = write!(name, "MidStep priority {p}");
                t.slice(name, "fixed", start, len, recorded(Some(p.0)))?;
            }
            ZoneKind::Contacts => t.slice("contacts", "fixed", start, len, recorded(None))?,
            ZoneKind::Call { hook, object, .. } => {
                let behaviour = z.behaviour(zone).unwrap_or("");
                name.clear();
                let _ = write!(name, "{hook} {behaviour} #{}", object.0);
                t.slice(
                    name,
                    "call",
                    start,
                    len,
                    CallArgs {
                        hook: hook.name(),
                        object: object.0,
                        behaviour,
                        ms: zone.ms(),
                        zones: "recorded",
                    },
                )?;
            }
        }
    }
    Ok(())
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
    // The frame's ticks end at the record's simulation time, each one fixed
    // dt long (a rate change keeps earlier ticks at the length they had, so
    // a start is not `(tick - 1) × dt`).
    let fixed_dt = Flicks::from_secs_f64(r.fixed_delta_time);
    let end = Flicks::from_secs_f64(r.simulation_time);
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
                simulation_time: (end - fixed_dt * (ticks - i)).as_secs_f64(),
                zones: None,
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
        let _ = write!(name, "FixedUpdate priority {}", Priority(priority));
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
                zones: None,
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
            zones: None,
        },
    )
}
