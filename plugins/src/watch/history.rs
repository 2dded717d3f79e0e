//! Watches asked of the past: the rewind history replayed, one keyframe span
//! at a time, into a scratch pipeline with the watches installed as its tick
//! watch (the live session is not touched). [`find_previous`] searches it
//! backward for the last tick a watch held ("Find previous");
//! [`plot_history`] gives the values of plotted expressions at the ticks the
//! history keeps, so a lane added late still shows the ticks already played.
//!
//! Both go newest span first: a search near the cursor, or the ticks next to
//! the live edge a lane shows first, cost one span's replay (120 to 480
//! frames: the history's keyframe spacing), not the whole history's.

use std::sync::PoisonError;

use stepframe_core::{Pipeline, Session};

use super::{WatchAction, WatchError, WatchEvent, WatchSet, WatchSpec};

/// The last tick before `before` at which `expr` holds, searched backward
/// through `session`'s history (the editor's "Find previous"): one
/// keyframe's span at a time, newest first, each replayed into `scratch`
/// with the watch asked after every tick, so a find near the cursor costs
/// one span's replay, not the whole history's. `Ok(None)` when it holds
/// nowhere in the kept history; an error only for an expression that does
/// not compile or a history that cannot be replayed.
pub fn find_previous(
    session: &Session,
    scratch: &mut Pipeline,
    expr: &str,
    before: u64,
) -> Result<Option<u64>, WatchError> {
    let live_tick = session.pipeline().stepper().completed_ticks();
    let spec = WatchSpec {
        expr: expr.to_string(),
        action: WatchAction::Mark,
        enabled: true,
    };
    let keyframes: Vec<u64> = session
        .history()
        .keyframe_ticks()
        .filter(|&t| t < before)
        .collect();
    let last = before.saturating_sub(1).min(live_tick);
    for (i, &start) in keyframes.iter().enumerate().rev() {
        // This span: the keyframe's own tick, then the ticks replayed after
        // it up to the next keyframe (or `last`).
        let end = keyframes
            .get(i + 1)
            .map_or(last, |&next| next - 1)
            .min(last);
        let mut set = WatchSet::new(std::slice::from_ref(&spec))?;
        let events = set.events();
        scratch.set_tick_watch(None);
        session
            .replay_into(scratch, start)
            .map_err(|e| WatchError::Replay(e.to_string()))?;
        // A tick where the watch fails (its object not yet spawned) is one
        // where it does not hold.
        let at_start = set.holds(0, scratch).unwrap_or(false);
        let mut found = at_start.then_some(start);
        if end > start {
            scratch.set_tick_watch(Some(Box::new(set)));
            let replayed = session.replay_into(scratch, end);
            scratch.set_tick_watch(None);
            replayed.map_err(|e| WatchError::Replay(e.to_string()))?;
            let events = events.lock().unwrap_or_else(PoisonError::into_inner);
            for e in events.iter() {
                match e {
                    WatchEvent::Held { tick, .. } if *tick > start && *tick <= end => {
                        found = Some(found.map_or(*tick, |f: u64| f.max(*tick)));
                    }
                    _ => {}
                }
            }
        }
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// One keyframe span of plotted values, as [`plot_history`] gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpan {
    /// The span's first tick: its keyframe's. The next older span ends at
    /// the tick before it.
    pub from: u64,
    /// Its last tick.
    pub to: u64,
    /// Per expression (in the order given), `(tick, frame, value)` of every
    /// tick of the span where it evaluated, oldest first. A tick where it
    /// fails (its object not alive yet) has no value, as live.
    pub values: Vec<Vec<(u64, u64, f64)>>,
}

/// The values of the plotted expressions `exprs` over one keyframe span of
/// `session`'s history: from the newest keyframe at or before `newest` to
/// `newest` itself (at most the live tick), replayed into `scratch`. Call it
/// again with the tick before the span's `from` for the span before, until
/// it gives `None`: no kept keyframe reaches that far back. Each call costs
/// one keyframe restore and at most one span's replay, so a caller can
/// spread a long history over many frames.
pub fn plot_history(
    session: &Session,
    scratch: &mut Pipeline,
    exprs: &[String],
    newest: u64,
) -> Result<Option<PlotSpan>, WatchError> {
    Ok(
        plot_history_spans(session, std::slice::from_mut(scratch), exprs, newest, 1)?
            .into_iter()
            .next(),
    )
}

/// [`plot_history`] for as many runs of `spans_per_job` consecutive
/// keyframe spans as there are `scratches`, newest first, replayed at once
/// (a thread each, [`Session::replay_into_each`]), each run from its oldest
/// keyframe in one go: on two free cores a suspended session's lane fills
/// about twice as fast, and the values are the very ones one span at a
/// time gives. A run of several spans restores one keyframe instead of
/// several and waits for the other thread once, at its end, not at every
/// span. Each [`PlotSpan`] is one run. Fewer when the kept history ends
/// sooner; none when no kept keyframe reaches `newest`.
pub fn plot_history_spans(
    session: &Session,
    scratches: &mut [Pipeline],
    exprs: &[String],
    newest: u64,
    spans_per_job: usize,
) -> Result<Vec<PlotSpan>, WatchError> {
    let newest = newest.min(session.pipeline().stepper().completed_ticks());
    // Each run: its oldest keyframe's tick and its last tick, newest first.
    let mut spans: Vec<(u64, u64)> = Vec::new();
    let mut end = newest;
    let mut in_run = 0;
    for k in session.history().keyframe_ticks().rev() {
        if k > end {
            continue;
        }
        if in_run == 0 {
            if spans.len() == scratches.len() {
                break;
            }
            spans.push((k, end));
        }
        if let Some(run) = spans.last_mut() {
            run.0 = k;
        }
        in_run = (in_run + 1) % spans_per_job.max(1);
        match k.checked_sub(1) {
            Some(e) => end = e,
            None => break,
        }
    }
    let specs: Vec<WatchSpec> = exprs
        .iter()
        .map(|expr| WatchSpec {
            expr: expr.clone(),
            action: WatchAction::Plot,
            enabled: true,
        })
        .collect();
    let mut sets: Vec<Option<WatchSet>> = Vec::with_capacity(spans.len());
    for _ in &spans {
        sets.push(Some(WatchSet::new(&specs)?));
    }
    let events: Vec<_> = sets.iter().flatten().map(WatchSet::events).collect();
    // The value at each span's keyframe tick, read where the replay begins.
    let mut values: Vec<Vec<Vec<(u64, u64, f64)>>> = vec![Vec::new(); spans.len()];
    let mut jobs: Vec<(&mut Pipeline, u64, u64)> = scratches
        .iter_mut()
        .zip(&spans)
        .map(|(p, &(from, end))| {
            p.set_tick_watch(None);
            (p, from, end)
        })
        .collect();
    let results = session.replay_into_each(&mut jobs, |i, p| {
        let Some(mut set) = sets[i].take() else {
            return;
        };
        let (tick, frame) = (p.clock().simulation_tick, p.clock().frame_index);
        values[i] = (0..exprs.len())
            .map(|e| {
                set.value(e, p)
                    .ok()
                    .map(|v| (tick, frame, v))
                    .into_iter()
                    .collect()
            })
            .collect();
        p.set_tick_watch(Some(Box::new(set)));
    });
    for (p, _, _) in &mut jobs {
        p.set_tick_watch(None);
    }
    let mut out = Vec::with_capacity(spans.len());
    for (i, result) in results.into_iter().enumerate() {
        result.map_err(|e| WatchError::Replay(e.to_string()))?;
        let (from, to) = spans[i];
        let mut span_values = std::mem::take(&mut values[i]);
        span_values.resize(exprs.len(), Vec::new());
        let events = events[i].lock().unwrap_or_else(PoisonError::into_inner);
        for e in events.iter() {
            if let WatchEvent::Value {
                watch,
                tick,
                frame,
                value,
            } = e
                && *tick > from
                && *tick <= to
                && let Some(v) = span_values.get_mut(*watch)
            {
                v.push((*tick, *frame, *value));
            }
        }
        out.push(PlotSpan {
            from,
            to,
            values: span_values,
        });
    }
    Ok(out)
}
