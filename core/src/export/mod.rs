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
//!   each priority, in dispatch order (`FixedUpdate priority Early`, `FixedUpdate priority -50`, ...: a named level by its name, as scenes write it), then
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
//! - **Recorded zones.** [`chrome_trace_with_zones`] takes the flame zones
//!   the pipeline recorded ([`crate::flame`]) for the frames a
//!   [`ZoneRing`](crate::flame::ZoneRing) still holds: those frames' phase,
//!   tick, `FixedUpdate priority P`, `physics` and `contacts` slices start
//!   where and last as long as the pipeline measured (their `args` say
//!   `"zones":"recorded"`), so a slow tick shows as a slow tick. A frame's
//!   slice then lasts at least as long as its zones. Older frames keep the
//!   even split above.
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
//! | `FixedUpdate priority Early`, `physics` | `X` | inside each tick (directly inside `fixed` if a record has work but no tick) |
//! | `contacts` | `X` | inside each tick, after `physics` (recorded zones only) |
//! | `FixedUpdate Pusher #12` | `X` | inside its priority group: one hook call (fine zones of a replayed frame only) |
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
//!
//! `export/chrome.rs` writes the Chrome trace, `export/csv.rs` the CSV; this
//! file selects the records and holds the unit conversions both use.

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::ops::RangeInclusive;

use serde::Serialize;

use crate::ids::Priority;
use crate::telemetry::{FrameKindCode, FrameRecord};

mod chrome;
mod csv;

pub use chrome::{chrome_trace, chrome_trace_with_zones};
pub use csv::{CSV_COLUMNS, csv};

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
pub(super) fn secs_to_ns(secs: f64) -> u64 {
    if secs.is_finite() && secs > 0.0 {
        (secs * 1e9).round() as u64
    } else {
        0
    }
}

/// Milliseconds to whole nanoseconds (`ms × 10⁶`, rounded); negative or
/// non-finite values give 0.
pub(super) fn ms_to_ns(ms: f32) -> u64 {
    let ns = f64::from(ms) * 1e6;
    if ns.is_finite() && ns > 0.0 {
        ns.round() as u64
    } else {
        0
    }
}

/// Nanoseconds to the trace's microseconds: `n / 1000` is the double nearest
/// the exact decimal, which prints with at most three decimals.
pub(super) fn ns_to_us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

/// The name a frame's slice gets.
pub(super) fn frame_name(out: &mut String, r: &FrameRecord) {
    out.clear();
    let _ = write!(out, "frame {}", r.frame_index);
    match r.kind {
        FrameKindCode::Frame => {}
        FrameKindCode::Continuation => out.push_str(" (continuation)"),
        FrameKindCode::LoneTick => out.push_str(" (lone tick)"),
    }
}

/// The `kind` column / argument.
pub(super) fn kind_name(kind: FrameKindCode) -> &'static str {
    match kind {
        FrameKindCode::Frame => "frame",
        FrameKindCode::Continuation => "continuation",
        FrameKindCode::LoneTick => "lone_tick",
    }
}
