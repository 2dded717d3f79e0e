//! The worker's side of watches: it installs the UI's list as the pipeline's
//! tick watch, passes on what they did at every publish, answers "Find
//! previous" from the history in a scratch pipeline (the live session is not
//! touched), and fills a newly plotted watch's lane from the history.
//!
//! **The fill.** A "show value" watch, whether typed in the Watches tab or
//! added by an inspector plot button, gets its values live from the tick after
//! it was added; the ticks already played come from the rewind history, one
//! keyframe span at a time, newest first ([`plot_history`]), as
//! [`Event::WatchHistory`]. The work is spread over frames: at most one span
//! (120 to 480 frames of replay, the history's keyframe spacing) per worker
//! frame, run only in the slack before the next frame's deadline (a span
//! that never fits runs once a second: `thread::FillPacer`), and, while the
//! session is suspended, one span per turn of the pacing loop between
//! commands. So adding a lane on a long session keeps the live frames' cadence
//! (at worst one late frame a second), and the lane fills from the live edge
//! backward, with its label saying how far it has got. Measured
//! on the demo (release, 2 shared cores): replaying one 120-frame span and
//! evaluating the watch costs about 4 ms; the 10 minutes a 256 MiB history
//! holds of the demo fill in under 300 frames (5 s at 60 Hz) while the live
//! session runs on.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use stepframe_core::Pipeline;
use stepframe_plugins::watch::{find_previous, plot_history};
use stepframe_plugins::{WatchAction, WatchEvent, WatchSet, WatchSpec};

use super::super::protocol::{Event, WatchFill};
use super::Worker;

/// The UI's watches, the installed set's event list, and the fills to do.
#[derive(Debug, Default)]
pub(super) struct Watches {
    /// As the UI last sent them (indices match its list).
    specs: Vec<WatchSpec>,
    /// What the installed set reports.
    events: Option<Arc<Mutex<Vec<WatchEvent>>>>,
    /// Plotted expressions whose past ticks are still to be filled, oldest
    /// request first.
    fills: VecDeque<Fill>,
}

/// Filling newly plotted expressions from the history, newest span first.
#[derive(Debug, Clone, PartialEq)]
struct Fill {
    /// The expressions (all added by one [`Worker::set_watches`]).
    exprs: Vec<String>,
    /// The newest tick still to fill.
    next: u64,
    /// The live tick when they were added: later ticks come live.
    to_tick: u64,
}

/// The expressions of the enabled "show value" watches of a list.
fn plotted(specs: &[WatchSpec]) -> impl Iterator<Item = &String> {
    specs
        .iter()
        .filter(|s| s.enabled && s.action == WatchAction::Plot)
        .map(|s| &s.expr)
}

impl Worker {
    /// Replaces the watches. One that does not compile leaves the installed
    /// ones as they were and reports why. A watch newly plotted gets its
    /// past ticks filled from the history (module docs).
    pub(super) fn set_watches(&mut self, specs: Vec<WatchSpec>) {
        if specs.is_empty() {
            self.session.set_tick_watch(None);
            self.watches = Watches::default();
            return;
        }
        match WatchSet::new(&specs) {
            Ok(set) => {
                let new: Vec<String> = {
                    let before: Vec<&String> = plotted(&self.watches.specs).collect();
                    let mut new: Vec<String> = Vec::new();
                    for e in plotted(&specs) {
                        if !before.contains(&e) && !new.contains(e) {
                            new.push(e.clone());
                        }
                    }
                    new
                };
                self.watches.events = Some(set.events());
                // A fill of a watch no longer plotted stops.
                let now: Vec<&String> = plotted(&specs).collect();
                for fill in &mut self.watches.fills {
                    fill.exprs.retain(|e| now.contains(&e));
                }
                self.watches.fills.retain(|f| !f.exprs.is_empty());
                self.watches.specs = specs;
                self.session.set_tick_watch(Some(Box::new(set)));
                if !new.is_empty() {
                    let tick = self.session.pipeline().clock().simulation_tick;
                    self.watches.fills.push_back(Fill {
                        exprs: new,
                        next: tick,
                        to_tick: tick,
                    });
                }
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
        match find_previous(&self.session, &mut scratch, &expr, before) {
            Ok(tick) => self.send_event(Event::WatchFound {
                watch,
                before,
                tick,
            }),
            Err(e) => self.error(format!("find previous `{expr}`: {e}")),
        }
    }

    /// True while some plotted watch still has past ticks to fill.
    pub fn is_filling(&self) -> bool {
        !self.watches.fills.is_empty()
    }

    /// The history is gone (a new world, an adopted fork): nothing older
    /// than the live tick is left to fill from.
    pub(super) fn stop_fills(&mut self) {
        for fill in std::mem::take(&mut self.watches.fills) {
            for expr in fill.exprs {
                self.send_event(Event::WatchHistory(WatchFill {
                    expr,
                    values: Vec::new(),
                    from_tick: fill.next + 1,
                    to_tick: fill.to_tick,
                    done: true,
                }));
            }
        }
    }

    /// Fills one keyframe span of the oldest fill request (module docs).
    /// Returns whether there is more to fill.
    pub fn fill_step(&mut self) -> bool {
        let live_tick = self.session.pipeline().clock().simulation_tick;
        let Some(fill) = self.watches.fills.front_mut() else {
            return false;
        };
        // A rewind since the request: the ticks after it run again, live.
        fill.next = fill.next.min(live_tick);
        fill.to_tick = fill.to_tick.min(live_tick);
        let fill = fill.clone();
        let mut scratch = Pipeline::new(self.settings());
        let span = plot_history(&self.session, &mut scratch, &fill.exprs, fill.next);
        let (from, done, values) = match span {
            Ok(Some(span)) => (span.from, span.from == 0, span.values),
            Ok(None) => (fill.next + 1, true, vec![Vec::new(); fill.exprs.len()]),
            Err(e) => {
                self.error(format!(
                    "cannot fill the plotted watches from the history: {e}"
                ));
                (fill.next + 1, true, vec![Vec::new(); fill.exprs.len()])
            }
        };
        for (expr, values) in fill.exprs.iter().zip(values) {
            // The last tick of each frame: what a live lane keeps.
            let mut by_frame: Vec<(u64, f64)> = Vec::with_capacity(values.len());
            for (_, frame, value) in values {
                match by_frame.last_mut() {
                    Some(last) if last.0 == frame => last.1 = value,
                    _ => by_frame.push((frame, value)),
                }
            }
            self.send_event(Event::WatchHistory(WatchFill {
                expr: expr.clone(),
                values: by_frame,
                from_tick: from,
                to_tick: fill.to_tick,
                done,
            }));
        }
        if done {
            self.watches.fills.pop_front();
        } else if let Some(f) = self.watches.fills.front_mut() {
            f.next = from - 1;
        }
        if let Some(ctx) = &self.repaint {
            ctx.request_repaint();
        }
        self.is_filling()
    }
}
