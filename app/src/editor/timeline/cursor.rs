//! Finding the recorded frames' records on the timeline's axes, and moving
//! the cursor one step: by the tick a record completed, nearest to an x on
//! the current axis, a marker's frame. The records and their sequence
//! numbers are [`Frames`]'s (`frames`' module docs); what is the
//! timeline's own is the axis.
//!
//! Worked numbers: records that completed ticks 5, 5 and 7 (the second
//! frame ran no tick): on the tick axis ←/→ from tick 6 reach ticks 5 and
//! 7; on the frame axis they move one record.

use super::summary::partition;
use super::{Marker, TimelineState, XAxis};
use crate::editor::frames::Frames;

impl TimelineState {
    /// The x of tick `tick` on the current axis: the tick itself on the
    /// ticks axis, else the x of the frame that ran it (`None` when that
    /// frame is no longer kept).
    pub(super) fn x_of_tick(&self, frames: &Frames, tick: u64) -> Option<f64> {
        match self.axis {
            XAxis::Tick => Some(tick as f64),
            axis => frames.record(frames.seq_of_tick(tick)?).map(|r| axis.of(r)),
        }
    }

    /// The tick and record one step from the cursor (`dir` = -1 or 1),
    /// which stands at tick `current` on record `seq` (if one): one tick
    /// on the tick axis, the previous or next frame's on the others.
    /// `None` at either end.
    pub fn step_cursor(
        &self,
        frames: &Frames,
        current: u64,
        seq: Option<u64>,
        dir: i64,
    ) -> Option<(u64, u64)> {
        let records = frames.records();
        let (first, last) = (records.front()?, records.back()?);
        if self.axis == XAxis::Tick {
            let lo = first.simulation_tick.saturating_sub(u64::from(first.ticks));
            let next = current.checked_add_signed(dir)?;
            if next < lo.max(1) || next > last.simulation_tick {
                return None;
            }
            return Some((next, frames.seq_of_tick(next)?));
        }
        let seq = seq.or_else(|| frames.seq_of_tick(current))?;
        let next = seq.checked_add_signed(dir)?;
        let tick = frames.record(next)?.simulation_tick;
        Some((tick, next))
    }

    /// Sequence number of the record nearest to `x` on the current axis.
    pub fn nearest(&self, frames: &Frames, x: f64) -> Option<u64> {
        let records = frames.records();
        if records.is_empty() {
            return None;
        }
        let axis = self.axis;
        let i = partition(records.len(), |i| axis.of(&records[i]) < x);
        let best = if i == 0 {
            0
        } else if i == records.len() {
            i - 1
        } else if (axis.of(&records[i]) - x).abs() < (x - axis.of(&records[i - 1])).abs() {
            i
        } else {
            i - 1
        };
        Some(frames.first_seq() + best as u64)
    }

    /// The x of marker `m` on the current axis, if its frame's record is kept.
    pub(super) fn marker_x(&self, frames: &Frames, m: &Marker) -> Option<f64> {
        frames
            .record(frames.seq_of_frame(m.frame)?)
            .map(|r| self.axis.of(r))
    }
}
