//! [`PoseHistory`]: committed poses of every tick in a ring bounded by bytes,
//! the scrubbing side of the history (showing a past tick costs no
//! re-simulation).

use std::collections::VecDeque;

use crate::geometry::Pose;
use crate::ids::ObjectId;
use crate::trace::{TickObserver, TickRecord};

/// Committed poses of one tick, in id order.
#[derive(Clone, Debug, PartialEq)]
pub struct TickPoses {
    /// The completed tick.
    pub tick: u64,
    /// The frame that ran it.
    pub frame: u64,
    /// `(object, committed pose)` of every live body.
    pub poses: Vec<(ObjectId, Pose)>,
}

/// Committed poses per tick, in a ring bounded by bytes: the scrubbing source.
#[derive(Clone, Debug)]
pub struct PoseHistory {
    ticks: VecDeque<TickPoses>,
    bytes: usize,
    budget: usize,
}

/// Default pose-history budget: 64 MiB.
pub const DEFAULT_POSE_BUDGET: usize = 64 << 20;

impl Default for PoseHistory {
    fn default() -> PoseHistory {
        PoseHistory::with_budget(DEFAULT_POSE_BUDGET)
    }
}

impl PoseHistory {
    /// A ring holding at most about `budget` bytes of poses.
    pub fn with_budget(budget: usize) -> PoseHistory {
        PoseHistory {
            ticks: VecDeque::new(),
            bytes: 0,
            budget,
        }
    }

    /// The poses of a tick, if still kept.
    pub fn at(&self, tick: u64) -> Option<&TickPoses> {
        let first = self.ticks.front()?.tick;
        let i = tick.checked_sub(first)? as usize;
        self.ticks.get(i).filter(|t| t.tick == tick)
    }

    /// Oldest and newest tick kept.
    pub fn range(&self) -> Option<(u64, u64)> {
        Some((self.ticks.front()?.tick, self.ticks.back()?.tick))
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.bytes
    }

    /// Records a completed tick; a tick at or before the newest one (after a
    /// rewind) replaces the ticks from there on.
    pub fn record(&mut self, tick: u64, frame: u64, poses: impl Iterator<Item = (ObjectId, Pose)>) {
        while self.ticks.back().is_some_and(|t| t.tick >= tick) {
            if let Some(t) = self.ticks.pop_back() {
                self.bytes -= cost(&t);
            }
        }
        if self.ticks.back().is_some_and(|t| t.tick + 1 != tick) {
            // A gap (new session): start over so ticks stay contiguous.
            self.ticks.clear();
            self.bytes = 0;
        }
        let entry = TickPoses {
            tick,
            frame,
            poses: poses.collect(),
        };
        self.bytes += cost(&entry);
        self.ticks.push_back(entry);
        while self.bytes > self.budget && self.ticks.len() > 1 {
            if let Some(t) = self.ticks.pop_front() {
                self.bytes -= cost(&t);
            }
        }
    }
}

fn cost(t: &TickPoses) -> usize {
    std::mem::size_of::<TickPoses>() + t.poses.capacity() * std::mem::size_of::<(ObjectId, Pose)>()
}

impl TickObserver for PoseHistory {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let poses = record
            .world
            .objects()
            .filter_map(|o| o.body.as_ref().map(|b| (o.id, b.committed)));
        self.record(
            record.clock.simulation_tick,
            record.clock.frame_index,
            poses,
        );
    }
}
