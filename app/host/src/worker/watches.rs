//! Watches: the host owns the list (the Watches tab and the timeline both
//! read it from the live view, and an inspector's plot button asks for one
//! more), installs it as the pipeline's tick watch, passes on what it did at
//! every publish, answers "Find previous" from the history in a scratch
//! pipeline (the live session is not touched), and fills a newly plotted
//! watch's lane from the history.
//!
//! **The fill.** A "show value" watch gets its values live from the tick
//! after it was added; the ticks already played come from the rewind
//! history, one keyframe span at a time, newest first ([`plot_history`]),
//! as [`Event::WatchHistory`], one value per tick. The work is spread over
//! frames: at most one span (120 to 480 frames of replay, the history's
//! keyframe spacing) per frame, run only in the slack before the next
//! frame's deadline (a span that never fits runs once a second:
//! `thread::FillPacer`), and, while the session is suspended, as many runs
//! of spans per turn of the pacing loop between commands as the machine
//! has cores (two here, at most [`MAX_FILL_SPANS`]), replayed at once, a
//! thread each, each run about [`WIDE_FILL_RUN_TICKS`] ticks replayed from
//! its oldest keyframe in one go (`plot_history_spans`): nothing else wants
//! the cores then, and the fill goes 1.7 times as fast as headless play
//! (docs/performance.md, `plot_fill_ticks_per_s`). So adding a lane on a long
//! session keeps the live frames' cadence, and the lane fills from the live
//! edge backward. Measured on the demo (release, 2 shared cores):
//! replaying one 120-frame span and evaluating the watch costs about 4 ms;
//! the 10 minutes a 256 MiB history holds of the demo fill in under 300
//! frames (5 s at 60 Hz) while the live session runs on.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use stepframe_core::{Pipeline, Session};
use stepframe_plugins::watch::{find_previous, plot_history_spans, plotted_unit};
use stepframe_plugins::{WatchAction, WatchEvent, WatchSet, WatchSpec};

use super::Worker;
use super::outbox::Outbox;
use crate::protocol::{Event, HostError, WatchCommand, WatchFill};

/// Most keyframe spans a suspended session's fill replays at once (a
/// thread each): two on this project's two-core machines, where a third
/// would only queue.
const MAX_FILL_SPANS: usize = 4;

/// Ticks each thread of a suspended session's fill replays in one go
/// before the threads meet and a command may come in: 480, four of the
/// demo's 120-frame keyframe spans, ~75 ms at ~6,500 ticks/s a thread, so
/// a command waits at most that long while a lane fills. A run of four
/// spans restores one keyframe, not four, and the two threads wait for
/// each other once a run, not once a span. With the watch copying only
/// the objects it reads (`stepframe_plugins::watch`), the demo's fill went
/// from 1.28-1.36 to 1.67-1.73 times headless play (8,874 to 11,882
/// ticks/s; a thread's tick costs 0.92-0.93 of play's by CPU).
const WIDE_FILL_RUN_TICKS: u64 = 480;

/// The watch list, the installed set's reports, and the fills to do.
#[derive(Debug, Default)]
pub(super) struct Watches {
    /// The list, in the order the front end shows it.
    specs: Vec<WatchSpec>,
    /// What the installed set reports.
    events: Option<Arc<Mutex<Vec<WatchEvent>>>>,
    /// A live view has carried the list since it last changed: reports
    /// made under it can be read (they wait until then; `publish`).
    shown: bool,
    /// Plotted expressions whose past ticks are still to be filled, oldest
    /// request first.
    fills: VecDeque<Fill>,
    /// The unit of each plotted expression asked so far (`None`: it has
    /// none), for its lane's title ([`plotted_unit`]): a field's unit is
    /// its type's, so it is asked once, not at every publish.
    units: BTreeMap<String, Option<String>>,
}

/// Filling newly plotted expressions from the history, newest span first.
#[derive(Debug, Clone, PartialEq)]
struct Fill {
    /// The expressions (all added by one change of the list).
    exprs: Vec<String>,
    /// The newest tick still to fill.
    next: u64,
    /// The live tick when they were added: later ticks come live.
    to_tick: u64,
}

/// Queues the value of every enabled "show value" watch of `specs` in
/// `pipeline` now (at its completed tick) on `events`, as the installed set
/// reports one after a tick: a watch just added shows its value at once,
/// not after the next tick (a paused session runs none).
fn report_now(
    set: &mut WatchSet,
    specs: &[WatchSpec],
    pipeline: &Pipeline,
    events: &Mutex<Vec<WatchEvent>>,
) {
    let (tick, frame) = (
        pipeline.clock().simulation_tick,
        pipeline.clock().frame_index,
    );
    let mut batch = events.lock().unwrap_or_else(PoisonError::into_inner);
    for (watch, spec) in specs.iter().enumerate() {
        if spec.enabled
            && spec.action == WatchAction::Plot
            && let Ok(value) = set.value(watch, pipeline)
        {
            batch.push(WatchEvent::Value {
                watch,
                tick,
                frame,
                value,
            });
        }
    }
}

/// The expressions of the enabled "show value" watches of a list.
fn plotted(specs: &[WatchSpec]) -> impl Iterator<Item = &String> {
    specs
        .iter()
        .filter(|s| s.enabled && s.action == WatchAction::Plot)
        .map(|s| &s.expr)
}

impl Watches {
    /// The list.
    pub(super) fn specs(&self) -> &[WatchSpec] {
        &self.specs
    }

    /// Replaces the list. One that does not compile leaves the installed
    /// one as it was and reports why. A watch newly plotted gets its past
    /// ticks filled from the history (module docs).
    fn set(&mut self, specs: Vec<WatchSpec>, session: &mut Session, out: &mut Outbox) {
        if specs.is_empty() {
            session.set_tick_watch(None);
            *self = Watches::default();
            return;
        }
        let mut set = match WatchSet::new(&specs) {
            Ok(set) => set,
            Err(e) => {
                out.error(HostError::Watches(e.to_string()));
                return;
            }
        };
        let before: Vec<&String> = plotted(&self.specs).collect();
        let mut new: Vec<String> = Vec::new();
        for e in plotted(&specs) {
            if !before.contains(&e) && !new.contains(e) {
                new.push(e.clone());
            }
        }
        let events = set.events();
        report_now(&mut set, &specs, session.pipeline(), &events);
        self.events = Some(events);
        // A fill of a watch no longer plotted stops.
        let now: Vec<&String> = plotted(&specs).collect();
        for fill in &mut self.fills {
            fill.exprs.retain(|e| now.contains(&e));
        }
        self.fills.retain(|f| !f.exprs.is_empty());
        self.units.retain(|e, _| now.contains(&e));
        self.shown = self.shown && self.specs == specs;
        self.specs = specs;
        session.set_tick_watch(Some(Box::new(set)));
        if !new.is_empty() {
            // The tick it stands at came with `report_now`: the history
            // fills the ticks before it, each tick's value sent once.
            // (Added at tick 0, there is none: the fill only says so.)
            let tick = session.pipeline().clock().simulation_tick;
            self.fills.push_back(Fill {
                exprs: new,
                next: tick.saturating_sub(1),
                to_tick: tick,
            });
        }
    }

    /// A live view carrying the list went to the front end.
    pub(super) fn list_shown(&mut self) {
        self.shown = true;
    }

    /// Sends what the watches did since the last publish, once the front
    /// end has the list they name watches in (a journal done again sends
    /// no view, and holds nothing back). Returns whether it sent any.
    pub(super) fn send_reports(&mut self, out: &mut Outbox) -> bool {
        let Some(events) = &self.events else {
            return false;
        };
        if !self.shown && !out.replaying() {
            return false;
        }
        let batch = std::mem::take(&mut *events.lock().unwrap_or_else(PoisonError::into_inner));
        if batch.is_empty() {
            return false;
        }
        out.report(Event::Watch(batch));
        true
    }

    /// True while some plotted watch still has past ticks to fill.
    pub(super) fn is_filling(&self) -> bool {
        !self.fills.is_empty()
    }

    /// The plotted watches' values in `pipeline` now, reported with the
    /// next publish: a session replaced under them (Adopt B) shows B's
    /// values at once, not A's until the next tick.
    pub(super) fn report_values_now(&mut self, pipeline: &Pipeline) {
        let Some(events) = &self.events else {
            return;
        };
        if let Ok(mut set) = WatchSet::new(&self.specs) {
            report_now(&mut set, &self.specs, pipeline, events);
        }
    }

    /// The unit of each plotted expression that has one (`obj(20).y` → m),
    /// asked of `pipeline` for the expressions not asked yet, or whose
    /// object it did not have when asked.
    pub(super) fn units(&mut self, pipeline: &Pipeline) -> BTreeMap<String, String> {
        for expr in plotted(&self.specs) {
            if !self.units.contains_key(expr)
                && let Some(unit) = plotted_unit(expr, pipeline)
            {
                self.units.insert(expr.clone(), unit);
            }
        }
        self.units
            .iter()
            .filter_map(|(e, u)| Some((e.clone(), u.clone()?)))
            .collect()
    }

    /// The history is gone (a new world, an adopted branch): nothing older
    /// than the live tick is left to fill from.
    pub(super) fn stop_fills(&mut self, out: &mut Outbox) {
        // A new world's ids may name objects of other types.
        self.units.clear();
        for fill in std::mem::take(&mut self.fills) {
            for expr in fill.exprs {
                out.event(Event::WatchHistory(WatchFill {
                    expr,
                    values: Vec::new(),
                    from_tick: fill.next + 1,
                    to_tick: fill.to_tick,
                    done: true,
                }));
            }
        }
    }
}

impl Worker {
    /// A watch command.
    pub(super) fn watches_command(&mut self, command: WatchCommand) {
        let session = &mut self.run.session;
        match command {
            WatchCommand::Set(specs) => self.watches.set(specs, session, &mut self.out),
            WatchCommand::Plot(expr) => {
                let mut specs = self.watches.specs.clone();
                if specs
                    .iter()
                    .any(|w| w.action == WatchAction::Plot && w.expr == expr)
                {
                    return;
                }
                specs.push(WatchSpec {
                    expr,
                    action: WatchAction::Plot,
                    enabled: true,
                });
                self.watches.set(specs, session, &mut self.out);
            }
            WatchCommand::Unplot(expr) => {
                let mut specs = self.watches.specs.clone();
                specs.retain(|w| !(w.action == WatchAction::Plot && w.expr == expr));
                self.watches.set(specs, session, &mut self.out);
            }
            WatchCommand::FindPrevious { watch, before } => self.find_previous(watch, before),
        }
    }

    /// The last tick before `before` where watch `watch` holds, searched in
    /// the kept history.
    fn find_previous(&mut self, watch: usize, before: u64) {
        let Some(spec) = self.watches.specs.get(watch) else {
            self.out.error(HostError::NoWatch(watch));
            return;
        };
        let expr = spec.expr.clone();
        let mut scratch = Pipeline::new(self.run.next_settings());
        match find_previous(&self.run.session, &mut scratch, &expr, before) {
            Ok(tick) => self.out.event(Event::WatchFound {
                watch,
                before,
                tick,
            }),
            Err(e) => self.out.error(HostError::FindPrevious {
                expr,
                reason: e.to_string(),
            }),
        }
    }

    /// True while some plotted watch still has past ticks to fill.
    pub fn is_filling(&self) -> bool {
        self.watches.is_filling()
    }

    /// Fills one keyframe span of the oldest fill request (module docs).
    /// Returns whether there is more to fill.
    pub fn fill_step(&mut self) -> bool {
        self.fill_spans(1, 1)
    }

    /// Fills as many keyframe spans of the oldest fill request as the
    /// machine has cores, at most `MAX_FILL_SPANS`, replayed at once: what
    /// a suspended session does, nothing else wanting the cores (module
    /// docs). Returns whether there is more to fill.
    pub fn fill_step_wide(&mut self) -> bool {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let every = self.run.session.history().keyframe_every().max(1);
        let per_job = (WIDE_FILL_RUN_TICKS / every).max(1) as usize;
        self.fill_spans(cores.min(MAX_FILL_SPANS), per_job)
    }

    /// Fills up to `spans` runs of `spans_per_job` keyframe spans of the
    /// oldest fill request, newest first, each run replayed in one go on a
    /// thread of its own and sent as its own [`Event::WatchHistory`].
    fn fill_spans(&mut self, spans: usize, spans_per_job: usize) -> bool {
        let live_tick = self.run.session.pipeline().clock().simulation_tick;
        let Some(fill) = self.watches.fills.front_mut() else {
            return false;
        };
        // A rewind since the request: the ticks after it run again, live.
        fill.next = fill.next.min(live_tick);
        fill.to_tick = fill.to_tick.min(live_tick);
        let fill = fill.clone();
        if fill.to_tick == 0 {
            // Added at tick 0: its one value came live, nothing is older.
            for expr in &fill.exprs {
                self.out.event(Event::WatchHistory(WatchFill {
                    expr: expr.clone(),
                    values: Vec::new(),
                    from_tick: 0,
                    to_tick: 0,
                    done: true,
                }));
            }
            self.watches.fills.pop_front();
            self.out.wake();
            return self.is_filling();
        }
        let mut scratches: Vec<Pipeline> = (0..spans.max(1))
            .map(|_| Pipeline::new(self.run.next_settings()))
            .collect();
        let filled = plot_history_spans(
            &self.run.session,
            &mut scratches,
            &fill.exprs,
            fill.next,
            spans_per_job,
        );
        let (spans, done) = match filled {
            Ok(spans) if spans.is_empty() => (Vec::new(), true),
            Ok(spans) => {
                let done = spans.last().is_some_and(|s| s.from == 0);
                (spans, done)
            }
            Err(e) => {
                self.out.error(HostError::History(e.to_string()));
                (Vec::new(), true)
            }
        };
        let oldest = spans.last().map_or(fill.next + 1, |s| s.from);
        let last = spans.len().saturating_sub(1);
        for (i, span) in spans.into_iter().enumerate() {
            for (expr, values) in fill.exprs.iter().zip(span.values) {
                self.out.event(Event::WatchHistory(WatchFill {
                    expr: expr.clone(),
                    values,
                    from_tick: span.from,
                    to_tick: fill.to_tick,
                    done: done && i == last,
                }));
            }
        }
        if done {
            if oldest == fill.next + 1 {
                // Nothing (more) kept: the lane is as full as it gets.
                for expr in &fill.exprs {
                    self.out.event(Event::WatchHistory(WatchFill {
                        expr: expr.clone(),
                        values: Vec::new(),
                        from_tick: oldest,
                        to_tick: fill.to_tick,
                        done: true,
                    }));
                }
            }
            self.watches.fills.pop_front();
        } else if let Some(f) = self.watches.fills.front_mut() {
            f.next = oldest - 1;
        }
        self.out.wake();
        self.is_filling()
    }
}
