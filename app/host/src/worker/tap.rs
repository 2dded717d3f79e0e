//! The one tick observer of the editor's sessions ([`TickTap`]), shared by
//! the live session, branch B of a fork and a scan of the history, and the
//! measure of one tick against a run B that it applies while comparing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::Sender;
use stepframe_core::{InputEvent, TickObserver, TickRecord};

use crate::traced::{TickDivergence, TracePoses, TracedTick, compare, traced_tick};

/// What one completed tick tells the worker: its hash and the raw input it
/// received (empty for most ticks, so sending it allocates nothing then).
#[derive(Debug)]
pub(super) struct TickNews {
    pub tick: u64,
    /// The state hash after the tick, if the tap took it.
    pub hash: Option<u64>,
    pub inputs: Vec<InputEvent>,
    /// The tick against run B, while comparing.
    pub divergence: Option<TickDivergence>,
    /// The tick's records, while forked.
    pub traced: Option<TracedTick>,
}

/// The one tick observer of the editor's sessions: passes each completed
/// tick's hash and input (and, on request, its traced poses and its
/// divergence from a run B) to the worker through a channel it drains
/// after the call (same thread, no lock). The live session's tap gives the
/// view its hash and the tape what the ticks received; branch B's gives
/// B's records and B's tape; a scan of the history gives the kept ticks'
/// records.
pub(super) struct TickTap {
    /// Where the news goes.
    pub tx: Sender<TickNews>,
    /// Run B of a comparison, measured against every tick.
    pub compare: Option<Arc<TracePoses>>,
    /// Every tick's traced poses (a fork pairs A's and B's, a scan keeps them).
    pub trace: bool,
    /// Whether each tick's state hash is taken: while the switch is on, for
    /// the live session, whose view shows the hash of its last tick (its
    /// worker turns it off while a journal is done again, when no view is
    /// shown until the end); never for branch B and scans, which read
    /// poses only (`None`).
    pub hashing: Option<Arc<AtomicBool>>,
}

impl TickObserver for TickTap {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        // The receiver lives in the worker that owns this pipeline: a send only
        // fails while the worker is being dropped, when nobody needs the news.
        let _ = self.tx.send(TickNews {
            tick: record.clock.simulation_tick,
            hash: self.wants_hash().then_some(record.hash),
            inputs: record.inputs.to_vec(),
            divergence: self.compare.as_deref().and_then(|b| measure(b, record)),
            traced: self.trace.then(|| {
                traced_tick(
                    record.clock.simulation_tick,
                    record.clock.frame_index,
                    record.world,
                )
            }),
        });
    }

    fn wants_hash(&self) -> bool {
        self.hashing
            .as_ref()
            .is_some_and(|on| on.load(Ordering::Relaxed))
    }
}

/// One live tick against B, if B holds that tick.
pub(super) fn measure(b: &TracePoses, record: &TickRecord<'_>) -> Option<TickDivergence> {
    let tick = record.clock.simulation_tick;
    let theirs = b.at(tick)?;
    Some(compare(
        &traced_tick(tick, record.clock.frame_index, record.world),
        theirs,
    ))
}
