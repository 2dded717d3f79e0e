//! Finding records in the ring and the cursor that points at one: by
//! sequence number (every record pushed gets the next one, so the oldest kept
//! is `pushed - len`), by the tick a record completed, by outer frame, nearest
//! to an x on the current axis; and moving the cursor one step.
//!
//! Worked numbers: a ring of 3 records after 10 pushes keeps sequence
//! numbers 7, 8 and 9. If they completed ticks 5, 5 and 7 (the second frame
//! ran no tick), `seq_of_tick(6)` is 9, the frame that ran tick 6, and on
//! the tick axis ←/→ from tick 6 reach ticks 5 and 7.

use stepframe_core::FrameRecord;

use super::summary::partition;
use super::{Marker, TimelineState, XAxis};

impl TimelineState {
    /// Sequence number of the oldest record kept.
    pub(super) fn first_seq(&self) -> u64 {
        self.telemetry.pushed() - self.telemetry.len() as u64
    }

    /// The record with sequence number `seq`, if still kept.
    pub fn record(&self, seq: u64) -> Option<&FrameRecord> {
        let i = seq.checked_sub(self.first_seq())?;
        self.telemetry.records().get(usize::try_from(i).ok()?)
    }

    /// The record under the cursor.
    pub fn cursor_record(&self) -> Option<&FrameRecord> {
        self.record(self.cursor_seq?)
    }

    /// Sequence number of the first record whose call completed tick `tick`
    /// or a later one: the frame that ran it.
    pub fn seq_of_tick(&self, tick: u64) -> Option<u64> {
        let records = self.telemetry.records();
        let i = partition(records.len(), |i| records[i].simulation_tick < tick);
        (i < records.len()).then(|| self.first_seq() + i as u64)
    }

    /// The x of tick `tick` on the current axis: the tick itself on the
    /// ticks axis, else the x of the frame that ran it (`None` when that
    /// frame is no longer kept).
    pub(super) fn x_of_tick(&self, tick: u64) -> Option<f64> {
        match self.axis {
            XAxis::Tick => Some(tick as f64),
            axis => self.record(self.seq_of_tick(tick)?).map(|r| axis.of(r)),
        }
    }

    /// Sequence number of the last record of outer frame `frame`.
    pub(in crate::editor) fn seq_of_frame(&self, frame: u64) -> Option<u64> {
        let records = self.telemetry.records();
        let i = partition(records.len(), |i| records[i].frame_index <= frame);
        (i > 0 && records[i - 1].frame_index == frame).then(|| self.first_seq() + i as u64 - 1)
    }

    /// Follows the session's cursor: the record the user chose while it still
    /// completes the cursor's tick, else the frame that ran that tick.
    pub fn sync_cursor(&mut self, tick: Option<u64>) {
        let Some(tick) = tick else {
            self.cursor_seq = None;
            return;
        };
        if self.cursor_record().map(|r| r.simulation_tick) != Some(tick) {
            self.cursor_seq = self.seq_of_tick(tick);
        }
    }

    /// The tick one step from the cursor (`dir` = -1 or 1): one tick on the
    /// tick axis, the previous or next frame's tick on the others. Moves the
    /// cursor's record too. `None` at either end.
    pub fn step_cursor(&mut self, current: u64, dir: i64) -> Option<u64> {
        let records = self.telemetry.records();
        let (first, last) = (records.front()?, records.back()?);
        if self.axis == XAxis::Tick {
            let lo = first.simulation_tick.saturating_sub(u64::from(first.ticks));
            let next = current.checked_add_signed(dir)?;
            if next < lo.max(1) || next > last.simulation_tick {
                return None;
            }
            self.cursor_seq = self.seq_of_tick(next);
            return Some(next);
        }
        let seq = self.cursor_seq.or_else(|| self.seq_of_tick(current))?;
        let next = seq.checked_add_signed(dir)?;
        let tick = self.record(next)?.simulation_tick;
        self.cursor_seq = Some(next);
        Some(tick)
    }

    /// Sequence number of the record nearest to `x` on the current axis.
    pub fn nearest(&self, x: f64) -> Option<u64> {
        let records = self.telemetry.records();
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
        Some(self.first_seq() + best as u64)
    }

    /// The x of marker `m` on the current axis, if its frame's record is kept.
    pub(super) fn marker_x(&self, m: &Marker) -> Option<f64> {
        self.record(self.seq_of_frame(m.frame)?)
            .map(|r| self.axis.of(r))
    }
}
