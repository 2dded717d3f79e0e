//! The telemetry recorder: one compact record per outer frame, in a bounded ring.
//!
//! Each record holds every clock field, the accumulator before and after the fixed
//! phase, ticks run and time dropped in the frame, the wall time of each phase
//! (update, fixed, Flow Tick, presentation, in the order they run),
//! FixedUpdate time per priority and the physics step time. The timeline plots
//! these; scrubbing shows a record's clock fields.
//!
//! # Memory
//!
//! A record is [`FrameRecord::SIZE`] bytes (176 on 64-bit targets). The default
//! capacity, [`DEFAULT_CAPACITY`] = 216,000 frames, keeps the last hour at 60
//! frames per second in about 36 MiB; a ring sized for an hour at 144 Hz
//! (518,400 frames) takes about 87 MiB. The ring grows as frames
//! arrive (nothing is reserved up front) and never beyond its capacity: the
//! oldest record goes first.
//!
//! # Cost
//!
//! Recording copies fields into a `VecDeque` slot: well under the 1 µs per frame
//! budget (`stepframe bench` measures it; the `telemetry` bench in `core/benches`
//! too).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::pipeline::{FrameKind, FrameReport};

/// One hour at 60 frames per second.
pub const DEFAULT_CAPACITY: usize = 216_000;

/// Priorities kept per record; further ones are summed into the last slot.
pub const RECORD_PRIORITIES: usize = 8;

/// What one outer frame did, compactly (times in ms are `f32`: microsecond
/// precision over an hour is plenty for wall-clock costs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FrameRecord {
    /// One-based frame index.
    pub frame_index: u64,
    /// Ticks completed when the frame ended.
    pub simulation_tick: u64,
    /// `delta_time`, seconds.
    pub delta_time: f64,
    /// `frame_time` at the end of the frame, seconds.
    pub frame_time: f64,
    /// `simulation_time` at the end of the frame, seconds.
    pub simulation_time: f64,
    /// `fixed_delta_time`, seconds.
    pub fixed_delta_time: f64,
    /// Cumulative dropped time at the end of the frame, seconds.
    pub dropped_time: f64,
    /// Accumulator when the fixed phase began, seconds.
    pub accumulator_before: f64,
    /// Accumulator when the frame ended, seconds.
    pub accumulator_after: f64,
    /// `interpolation_alpha` at the end of the frame.
    pub interpolation_alpha: f32,
    /// Time dropped by the cap in this frame, seconds.
    pub dropped_this_frame: f32,
    /// Update phase wall time, ms.
    pub update_ms: f32,
    /// Fixed phase wall time, ms.
    pub fixed_ms: f32,
    /// Physics wall time (all ticks), ms.
    pub physics_ms: f32,
    /// Flow Tick wall time, ms (after the fixed phase, not part of `update_ms`).
    pub flow_ms: f32,
    /// Presentation wall time, ms.
    pub present_ms: f32,
    /// FixedUpdate ms per priority: `(priority value, ms)`, first `priorities` used.
    pub by_priority: [(i32, f32); RECORD_PRIORITIES],
    /// Slots of `by_priority` in use.
    pub priorities: u8,
    /// Ticks completed in the frame.
    pub ticks: u16,
    /// Full frame, continuation, lone tick.
    pub kind: FrameKindCode,
    /// Whether the frame ended suspended.
    pub suspended: bool,
}

/// [`FrameKind`] in one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum FrameKindCode {
    /// A full frame.
    #[default]
    Frame,
    /// The rest of an interrupted frame.
    Continuation,
    /// A lone step-tick.
    LoneTick,
}

impl FrameRecord {
    /// Bytes per record in the ring.
    pub const SIZE: usize = std::mem::size_of::<FrameRecord>();

    /// Builds the record of a call from its report and the clock after it.
    pub fn new(report: &FrameReport, clock: &Clock) -> FrameRecord {
        let mut by_priority = [(0i32, 0f32); RECORD_PRIORITIES];
        let mut priorities = 0usize;
        for (p, ms) in report.timing.fixed_by_priority.iter() {
            if priorities < RECORD_PRIORITIES {
                by_priority[priorities] = (p.0, ms as f32);
                priorities += 1;
            } else {
                by_priority[RECORD_PRIORITIES - 1].1 += ms as f32;
            }
        }
        FrameRecord {
            frame_index: report.frame_index,
            simulation_tick: clock.simulation_tick,
            delta_time: report.delta_time,
            frame_time: clock.frame_time,
            simulation_time: clock.simulation_time,
            fixed_delta_time: clock.fixed_delta_time,
            dropped_time: clock.dropped_time,
            accumulator_before: report.accumulator_before,
            accumulator_after: report.accumulator_after,
            interpolation_alpha: clock.interpolation_alpha as f32,
            dropped_this_frame: report.dropped_time as f32,
            update_ms: report.timing.update_ms as f32,
            fixed_ms: report.timing.fixed_ms as f32,
            physics_ms: report.timing.physics_ms as f32,
            flow_ms: report.timing.flow_ms as f32,
            present_ms: report.timing.present_ms as f32,
            by_priority,
            priorities: priorities as u8,
            ticks: report.ticks.min(u32::from(u16::MAX)) as u16,
            kind: match report.kind {
                FrameKind::Continuation => FrameKindCode::Continuation,
                FrameKind::LoneTick => FrameKindCode::LoneTick,
                _ => FrameKindCode::Frame,
            },
            suspended: report.suspended.is_some(),
        }
    }

    /// Total wall time of the call, ms: its four phases.
    pub fn total_ms(&self) -> f32 {
        self.update_ms + self.fixed_ms + self.flow_ms + self.present_ms
    }

    /// FixedUpdate ms per priority, in dispatch order.
    pub fn priorities(&self) -> &[(i32, f32)] {
        &self.by_priority[..usize::from(self.priorities)]
    }
}

/// The bounded ring of frame records.
#[derive(Clone, Debug)]
pub struct Telemetry {
    records: VecDeque<FrameRecord>,
    capacity: usize,
    /// Records ever pushed (so readers can tell what they have already seen).
    pushed: u64,
}

impl Default for Telemetry {
    fn default() -> Telemetry {
        Telemetry::with_capacity(DEFAULT_CAPACITY)
    }
}

impl Telemetry {
    /// A ring keeping at most `capacity` records (at least 1).
    pub fn with_capacity(capacity: usize) -> Telemetry {
        Telemetry {
            records: VecDeque::new(),
            capacity: capacity.max(1),
            pushed: 0,
        }
    }

    /// Records one call. Non-runs (suspended `step_frame`) are not recorded.
    pub fn record(&mut self, report: &FrameReport, clock: &Clock) {
        if report.kind == FrameKind::NotRun {
            return;
        }
        self.push(FrameRecord::new(report, clock));
    }

    /// Appends a record, dropping the oldest when full.
    pub fn push(&mut self, record: FrameRecord) {
        if self.records.len() == self.capacity {
            self.records.pop_front();
        }
        self.records.push_back(record);
        self.pushed += 1;
    }

    /// Records kept, oldest first.
    pub fn records(&self) -> &VecDeque<FrameRecord> {
        &self.records
    }

    /// Number of records kept.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Raises the most records kept to `capacity` (never lowers it, so no
    /// record goes): the editor's timeline grows its ring when the pacing
    /// runs more frames a second, so that it still holds an hour.
    pub fn grow_capacity(&mut self, capacity: usize) {
        self.capacity = self.capacity.max(capacity);
    }

    /// Most records kept.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records ever pushed, including dropped ones.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Records pushed after the first `seen` ever pushed (the part a reader has
    /// not read yet, as far as the ring still holds it).
    pub fn since(&self, seen: u64) -> impl Iterator<Item = &FrameRecord> {
        let new = self
            .pushed
            .saturating_sub(seen)
            .min(self.records.len() as u64) as usize;
        self.records.range(self.records.len() - new..)
    }

    /// Bytes held by the records (not counting the deque's spare capacity).
    pub fn memory_bytes(&self) -> usize {
        self.records.len() * FrameRecord::SIZE
    }

    /// Forgets everything (a new session).
    pub fn clear(&mut self) {
        self.records.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pipeline, TimeSettings};

    #[test]
    fn the_ring_keeps_the_newest_records_and_counts_all() {
        let mut p = Pipeline::new(TimeSettings::default());
        let mut t = Telemetry::with_capacity(3);
        for _ in 0..5 {
            let r = p.step_frame(1.0 / 60.0);
            t.record(&r, p.clock());
        }
        let frames: Vec<u64> = t.records().iter().map(|r| r.frame_index).collect();
        assert_eq!(frames, vec![3, 4, 5]);
        assert_eq!(t.pushed(), 5);
        let unseen: Vec<u64> = t.since(4).map(|r| r.frame_index).collect();
        assert_eq!(unseen, vec![5]);
        assert_eq!(t.records()[2].simulation_tick, 5);
        assert_eq!(t.records()[2].ticks, 1);
    }

    #[test]
    fn a_grown_ring_keeps_what_it_has_and_then_holds_more() {
        let mut p = Pipeline::new(TimeSettings::default());
        let mut t = Telemetry::with_capacity(2);
        for _ in 0..3 {
            t.record(&p.step_frame(1.0 / 60.0), p.clock());
        }
        t.grow_capacity(4);
        t.grow_capacity(1);
        assert_eq!(t.capacity(), 4, "growing never shrinks");
        for _ in 0..3 {
            t.record(&p.step_frame(1.0 / 60.0), p.clock());
        }
        let frames: Vec<u64> = t.records().iter().map(|r| r.frame_index).collect();
        assert_eq!(frames, vec![3, 4, 5, 6]);
    }

    /// The README's memory figure depends on it.
    const _: () = assert!(FrameRecord::SIZE <= 176);
}
