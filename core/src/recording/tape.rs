//! A recording as a tape: the editor's input panel inserts, moves and
//! deletes edges, then replays the result from the first tick it changed;
//! a session records each tick as it runs and forgets what a rewind undid.

use super::{RecordedEdit, RecordedEvent, Recording};
use crate::edit::Edit;
use crate::input::InputEvent;

/// Editing a recording as a tape: the editor's input panel inserts, moves and
/// deletes edges, then replays the result from the first tick it changed.
/// Every edit keeps the events in tick order (and, within a tick, in delivery
/// order) and `ticks` covering every event, so an edited tape is still a valid
/// recording: it saves and loads like one.
impl Recording {
    /// Adds `event` after the events already stamped with its tick (delivered
    /// last in that tick) and returns its index. Tick 0 does not exist (ticks
    /// are one-based): it is stamped on tick 1.
    pub fn insert(&mut self, mut event: RecordedEvent) -> usize {
        event.tick = event.tick.max(1);
        let at = self.events.partition_point(|e| e.tick <= event.tick);
        self.ticks = self.ticks.max(event.tick);
        self.events.insert(at, event);
        at
    }

    /// Removes the event at `index` (in [`Recording::events`] order).
    pub fn remove(&mut self, index: usize) -> Option<RecordedEvent> {
        (index < self.events.len()).then(|| self.events.remove(index))
    }

    /// Restamps the event at `index` with `tick` (delivered last in its new
    /// tick) and returns its new index.
    pub fn move_to(&mut self, index: usize, tick: u64) -> Option<usize> {
        let mut event = self.remove(index)?;
        event.tick = tick;
        Some(self.insert(event))
    }

    /// Forgets everything after `tick`: a session rewound to the end of
    /// `tick` has received only that much (its edits stamped `tick + 1` or
    /// later were made after that moment). Returns how many edits went.
    pub fn truncate_after(&mut self, tick: u64) -> usize {
        let keep = self.events.partition_point(|e| e.tick <= tick);
        self.events.truncate(keep);
        self.ticks = self.ticks.min(tick);
        let keep = self.edits.partition_point(|e| e.tick <= tick);
        let dropped = self.edits.len() - keep;
        self.edits.truncate(keep);
        dropped
    }

    /// Adds an edit applying before `tick`, after the edits already stamped
    /// with it (the order they were made in).
    pub fn record_edit(&mut self, tick: u64, edit: Edit) {
        let tick = tick.max(1);
        let at = self.edits.partition_point(|e| e.tick <= tick);
        self.edits.insert(at, RecordedEdit { tick, edit });
    }

    /// Takes out the newest edit stamped with `tick` that equals `edit`
    /// (one undone through [`Session::undo`](crate::Session::undo): a saved
    /// session must not replay it either). Returns whether one was there.
    pub fn remove_edit(&mut self, tick: u64, edit: &Edit) -> bool {
        let tick = tick.max(1);
        match self
            .edits
            .iter()
            .rposition(|e| e.tick == tick && e.edit == *edit)
        {
            Some(i) => {
                self.edits.remove(i);
                true
            }
            None => false,
        }
    }

    /// The edits stamped with `tick`, in the order they were made.
    pub fn edits_at(&self, tick: u64) -> &[RecordedEdit] {
        let start = self.edits.partition_point(|e| e.tick < tick);
        let end = self.edits.partition_point(|e| e.tick <= tick);
        &self.edits[start..end]
    }

    /// Records what tick `tick` received. A tick that comes again (after a
    /// rewind) replaces everything recorded from it on.
    pub fn record_tick(&mut self, tick: u64, inputs: &[InputEvent]) {
        if tick <= self.ticks {
            let keep = self.events.partition_point(|e| e.tick < tick);
            self.events.truncate(keep);
        }
        self.ticks = tick;
        self.events.extend(inputs.iter().map(|e| RecordedEvent {
            tick,
            source: e.source.clone(),
            value: e.value,
        }));
    }

    /// The first tick whose events differ between the two tapes (sources,
    /// values or their order within the tick), if any: where a replay of one
    /// instead of the other starts to matter. `ticks` beyond the last event
    /// do not count.
    pub fn first_difference(&self, other: &Recording) -> Option<u64> {
        let (mut a, mut b) = (self.events.as_slice(), other.events.as_slice());
        loop {
            let tick = match (a.first(), b.first()) {
                (None, None) => return None,
                (Some(x), None) => return Some(x.tick),
                (None, Some(y)) => return Some(y.tick),
                (Some(x), Some(y)) => x.tick.min(y.tick),
            };
            let split = |events: &[RecordedEvent]| events.partition_point(|e| e.tick <= tick);
            let (na, nb) = (split(a), split(b));
            if a[..na] != b[..nb] {
                return Some(tick);
            }
            a = &a[na..];
            b = &b[nb..];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::input::InputSource;

    fn key(name: &str) -> InputSource {
        InputSource::Key(name.into())
    }

    fn ev(tick: u64, name: &str, value: f32) -> RecordedEvent {
        RecordedEvent {
            tick,
            source: key(name),
            value,
        }
    }

    fn tape() -> Recording {
        Recording {
            version: 1,
            fixed_hz: 60,
            ticks: 50,
            events: vec![ev(10, "D", 1.0), ev(20, "Space", 1.0), ev(20, "Space", 0.0)],
            edits: Vec::new(),
        }
    }

    fn stamps(r: &Recording) -> Vec<(u64, f32)> {
        r.events.iter().map(|e| (e.tick, e.value)).collect()
    }

    #[test]
    fn an_inserted_edge_goes_last_in_its_tick_and_extends_the_tape() {
        let mut r = tape();
        assert_eq!(
            r.insert(ev(20, "A", 1.0)),
            3,
            "after both Space edges of tick 20"
        );
        assert_eq!(r.insert(ev(15, "A", 0.0)), 1);
        assert_eq!(r.insert(ev(412, "Space", 1.0)), 5);
        assert_eq!(r.ticks, 412, "ticks covers the new edge");
        assert_eq!(r.insert(ev(0, "A", 1.0)), 0, "tick 0 is stamped on tick 1");
        assert_eq!(r.events[0].tick, 1);
        assert_eq!(
            stamps(&r),
            vec![
                (1, 1.0),
                (10, 1.0),
                (15, 0.0),
                (20, 1.0),
                (20, 0.0),
                (20, 1.0),
                (412, 1.0)
            ]
        );
    }

    #[test]
    fn moving_and_deleting_keep_tick_order() {
        let mut r = tape();
        // The press of tick 10 moved to tick 30: now after tick 20's edges.
        assert_eq!(r.move_to(0, 30), Some(2));
        assert_eq!(stamps(&r), vec![(20, 1.0), (20, 0.0), (30, 1.0)]);
        // The release of tick 20 moved earlier, before the press.
        assert_eq!(r.move_to(1, 5), Some(0));
        assert_eq!(stamps(&r), vec![(5, 0.0), (20, 1.0), (30, 1.0)]);
        assert_eq!(r.remove(1), Some(ev(20, "Space", 1.0)));
        assert_eq!(r.remove(9), None);
        assert_eq!(stamps(&r), vec![(5, 0.0), (30, 1.0)]);
        let text = r.to_ron().expect("serialisable");
        assert_eq!(
            Recording::parse(&text, Path::new("t")).expect("still valid"),
            r
        );
    }

    #[test]
    fn the_first_difference_is_the_first_tick_whose_edges_differ() {
        let base = tape();
        assert_eq!(base.first_difference(&base.clone()), None);
        let mut later = base.clone();
        later.insert(ev(412, "Space", 1.0));
        assert_eq!(base.first_difference(&later), Some(412));
        assert_eq!(later.first_difference(&base), Some(412));
        let mut swapped = base.clone();
        swapped.events.swap(1, 2);
        assert_eq!(
            base.first_difference(&swapped),
            Some(20),
            "order within a tick"
        );
        let mut moved = base.clone();
        moved.move_to(0, 12);
        assert_eq!(base.first_difference(&moved), Some(10), "the tick it left");
        let mut longer = base.clone();
        longer.ticks = 900;
        assert_eq!(
            base.first_difference(&longer),
            None,
            "ticks alone do not count"
        );
    }

    #[test]
    fn truncating_keeps_what_the_ticks_up_to_the_cut_received() {
        let mut r = tape();
        r.truncate_after(19);
        assert_eq!(stamps(&r), vec![(10, 1.0)]);
        assert_eq!(r.ticks, 19);
        r.record_tick(20, &[InputEvent::press(key("A"))]);
        assert_eq!(stamps(&r), vec![(10, 1.0), (20, 1.0)]);
        r.record_tick(10, &[]);
        assert!(r.events.is_empty(), "tick 10 came again without its press");
        assert_eq!(r.ticks, 10);
    }
}
