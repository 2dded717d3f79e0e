//! The recorded frames: the ring of frame records the host streams, the
//! live flame zones that came with them, and where frames the ring never
//! got were skipped.
//!
//! Three panels read them: the timeline draws the records as lanes, the
//! Clock tab reads the time cursor's frame and the ticks stepped since the
//! newest outer frame, the Flame tab reads a frame's live zones. When the
//! ring lived in the timeline's state, the Clock and Flame tabs had to be
//! handed the timeline panel to draw; now the ring is part of what the host
//! published ([`Published::frames`](crate::editor::shared::Published)),
//! written only by the app's event intake and read by every panel the same
//! way, through [`Reading::frames`](crate::editor::shared::Reading::frames).
//!
//! Records are found by sequence number: every record pushed gets the next
//! one, so the oldest kept is `pushed - len`. Worked numbers: a ring of 3
//! records after 10 pushes keeps sequence numbers 7, 8 and 9. If they
//! completed ticks 5, 5 and 7 (the second frame ran no tick),
//! `seq_of_tick(6)` is 9, the frame that ran tick 6.
//!
//! A new physics world (Open, Reload) starts a new ring; a rewind to tick
//! `t` (and branch B adopted after forking at `t`) keeps only the records
//! up to `t`: later frames belong to an abandoned branch.

use std::collections::VecDeque;

use stepframe_core::{FrameRecord, Telemetry, ZoneRing};
use stepframe_host::protocol::{BranchEvent, Event, FrameTelemetry};

/// The recorded frames of the current session (module docs).
#[derive(Debug)]
pub struct Frames {
    /// The ring of frame records, oldest first: the only copy of the
    /// telemetry on the UI side.
    telemetry: Telemetry,
    /// The records (by sequence number, oldest first) that come after
    /// frames the ring never got (branch B's, run beside A and adopted; an
    /// abandoned branch's): the timeline breaks its lines there instead of
    /// drawing straight across.
    breaks: VecDeque<u64>,
    /// The live coarse flame zones of the newest frames (the Flame tab and
    /// the Chrome export read them): at most a minute's worth at 60 Hz,
    /// about 1.6 MiB (`stepframe_core::flame::ZoneRing`).
    zones: ZoneRing,
}

impl Default for Frames {
    fn default() -> Frames {
        Frames::with_capacity(stepframe_core::telemetry::DEFAULT_CAPACITY)
    }
}

impl Frames {
    /// A ring keeping at most `capacity` frames.
    pub fn with_capacity(capacity: usize) -> Frames {
        Frames {
            telemetry: Telemetry::with_capacity(capacity),
            breaks: VecDeque::new(),
            zones: ZoneRing::default(),
        }
    }

    /// The ring of records, oldest first.
    pub fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }

    /// The records, oldest first.
    pub fn records(&self) -> &VecDeque<FrameRecord> {
        self.telemetry.records()
    }

    /// The newest record.
    pub fn newest(&self) -> Option<&FrameRecord> {
        self.telemetry.records().back()
    }

    /// The records that come after frames the ring never got, by sequence
    /// number.
    pub fn breaks(&self) -> &VecDeque<u64> {
        &self.breaks
    }

    /// The live flame zones of the newest frames.
    pub fn zones(&self) -> &ZoneRing {
        &self.zones
    }

    /// Most frames the ring keeps.
    pub fn capacity(&self) -> usize {
        self.telemetry.capacity()
    }

    /// Sequence number of the oldest record kept.
    pub fn first_seq(&self) -> u64 {
        self.telemetry.pushed() - self.telemetry.len() as u64
    }

    /// The record with sequence number `seq`, if still kept.
    pub fn record(&self, seq: u64) -> Option<&FrameRecord> {
        let i = seq.checked_sub(self.first_seq())?;
        self.telemetry.records().get(usize::try_from(i).ok()?)
    }

    /// Sequence number of the first record whose call completed tick `tick`
    /// or a later one: the frame that ran it.
    pub fn seq_of_tick(&self, tick: u64) -> Option<u64> {
        let records = self.telemetry.records();
        let i = records.partition_point(|r| r.simulation_tick < tick);
        (i < records.len()).then(|| self.first_seq() + i as u64)
    }

    /// Sequence number of the last record of outer frame `frame`.
    pub fn seq_of_frame(&self, frame: u64) -> Option<u64> {
        let records = self.telemetry.records();
        let i = records.partition_point(|r| r.frame_index <= frame);
        (i > 0 && records[i - 1].frame_index == frame).then(|| self.first_seq() + i as u64 - 1)
    }

    /// Grows the ring to hold the last hour of frames at `pacing`: 518,400
    /// frames at 144 Hz, 864,000 uncapped. It never shrinks, so a switch to
    /// a slower pacing loses nothing. True if it grew.
    pub fn hold_an_hour(&mut self, pacing: stepframe_host::protocol::DisplayRate) -> bool {
        let frames = pacing.hour_of_frames();
        if frames > self.telemetry.capacity() {
            self.telemetry.grow_capacity(frames);
            return true;
        }
        false
    }

    /// Adds one record (after a jump in frame index, noted as a break).
    pub fn push(&mut self, record: FrameRecord) {
        push_noting_breaks(&mut self.telemetry, &mut self.breaks, record);
    }

    /// Takes a host event, in stream order, before any panel sees it:
    /// records and zones into the rings, a new ring for a new physics
    /// world, the abandoned branch's frames dropped after a rewind or an
    /// adoption of B.
    pub fn on_event(&mut self, event: &Event) {
        match event {
            Event::Frames(batch) => {
                for FrameTelemetry {
                    report,
                    clock,
                    zones,
                    ..
                } in batch
                {
                    self.push(FrameRecord::new(report, clock));
                    if let Some(zones) = zones {
                        self.zones.push(zones);
                    }
                }
            }
            Event::Loaded { .. } => {
                self.telemetry = Telemetry::with_capacity(self.telemetry.capacity());
                self.breaks.clear();
                self.zones.clear();
            }
            Event::Rewound(tick)
            | Event::BranchB(BranchEvent::Adopted {
                forked_at: tick, ..
            }) => self.cut_after(*tick),
            _ => {}
        }
    }

    /// Keeps only the records up to tick `tick` (and their zones): later
    /// frames belong to an abandoned branch.
    fn cut_after(&mut self, tick: u64) {
        let mut kept = Telemetry::with_capacity(self.telemetry.capacity());
        let mut breaks = VecDeque::new();
        for r in self.telemetry.records() {
            if r.simulation_tick <= tick {
                push_noting_breaks(&mut kept, &mut breaks, *r);
            }
        }
        let last_frame = kept.records().back().map(|r| r.frame_index);
        self.telemetry = kept;
        self.breaks = breaks;
        self.zones.retain_before(last_frame.map_or(0, |f| f + 1));
    }
}

/// Pushes `record` into `telemetry`: a record that comes after frames the
/// ring never got (its frame index jumps) goes into `breaks` by its
/// sequence number, and breaks that left the ring are forgotten.
fn push_noting_breaks(telemetry: &mut Telemetry, breaks: &mut VecDeque<u64>, record: FrameRecord) {
    if let Some(last) = telemetry.records().back()
        && record.frame_index > last.frame_index + 1
    {
        breaks.push_back(telemetry.pushed());
    }
    telemetry.push(record);
    let first = telemetry.pushed() - telemetry.len() as u64;
    while breaks.front().is_some_and(|b| *b < first) {
        breaks.pop_front();
    }
}
