//! The worker's side of watches: it installs the UI's list as the pipeline's
//! tick watch, passes on what they did at every publish, and answers "Find
//! previous" from the history in a scratch pipeline (the live session is not
//! touched).

use std::sync::{Arc, Mutex, PoisonError};

use stepframe_core::Pipeline;
use stepframe_plugins::watch::find_previous;
use stepframe_plugins::{WatchEvent, WatchSet, WatchSpec};

use super::super::protocol::Event;
use super::Worker;

/// The UI's watches and the installed set's event list.
#[derive(Debug, Default)]
pub(super) struct Watches {
    /// As the UI last sent them (indices match its list).
    specs: Vec<WatchSpec>,
    /// What the installed set reports.
    events: Option<Arc<Mutex<Vec<WatchEvent>>>>,
}

impl Worker {
    /// Replaces the watches. One that does not compile leaves the installed
    /// ones as they were and reports why.
    pub(super) fn set_watches(&mut self, specs: Vec<WatchSpec>) {
        if specs.is_empty() {
            self.pipeline.set_tick_watch(None);
            self.watches = Watches::default();
            return;
        }
        match WatchSet::new(&specs) {
            Ok(set) => {
                self.watches.events = Some(set.events());
                self.watches.specs = specs;
                self.pipeline.set_tick_watch(Some(Box::new(set)));
            }
            Err(e) => self.error(format!("watches not changed: {e}")),
        }
    }

    /// Sends what the watches did since the last publish.
    pub(super) fn send_watch_events(&mut self) {
        let Some(events) = &self.watches.events else {
            return;
        };
        let batch = std::mem::take(&mut *events.lock().unwrap_or_else(PoisonError::into_inner));
        if !batch.is_empty() {
            self.send_event(Event::Watch(batch));
        }
    }

    /// The last tick before `before` where watch `watch` holds, searched in
    /// the kept history.
    pub(super) fn find_previous(&mut self, watch: usize, before: u64) {
        let Some(spec) = self.watches.specs.get(watch) else {
            self.error(format!("no watch {}", watch + 1));
            return;
        };
        let expr = spec.expr.clone();
        let mut scratch = Pipeline::new(self.settings());
        let live_tick = self.pipeline.clock().simulation_tick;
        match find_previous(&self.history, &mut scratch, live_tick, &expr, before) {
            Ok(tick) => self.send_event(Event::WatchFound {
                watch,
                before,
                tick,
            }),
            Err(e) => self.error(format!("find previous `{expr}`: {e}")),
        }
    }
}
