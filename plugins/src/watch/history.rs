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
/// one keyframe restore twice and at most one span's replay, so a caller
/// can spread a long history over many frames.
pub fn plot_history(
    session: &Session,
    scratch: &mut Pipeline,
    exprs: &[String],
    newest: u64,
) -> Result<Option<PlotSpan>, WatchError> {
    let newest = newest.min(session.pipeline().stepper().completed_ticks());
    let Some(start) = session
        .history()
        .keyframe_ticks()
        .rev()
        .find(|&t| t <= newest)
    else {
        return Ok(None);
    };
    let specs: Vec<WatchSpec> = exprs
        .iter()
        .map(|expr| WatchSpec {
            expr: expr.clone(),
            action: WatchAction::Plot,
            enabled: true,
        })
        .collect();
    let mut set = WatchSet::new(&specs)?;
    let events = set.events();
    scratch.set_tick_watch(None);
    session
        .replay_into(scratch, start)
        .map_err(|e| WatchError::Replay(e.to_string()))?;
    let frame = scratch.clock().frame_index;
    let mut values: Vec<Vec<(u64, u64, f64)>> = (0..exprs.len())
        .map(|i| {
            set.value(i, scratch)
                .ok()
                .map(|v| (start, frame, v))
                .into_iter()
                .collect()
        })
        .collect();
    if newest > start {
        scratch.set_tick_watch(Some(Box::new(set)));
        let replayed = session.replay_into(scratch, newest);
        scratch.set_tick_watch(None);
        replayed.map_err(|e| WatchError::Replay(e.to_string()))?;
        let events = events.lock().unwrap_or_else(PoisonError::into_inner);
        for e in events.iter() {
            if let WatchEvent::Value {
                watch,
                tick,
                frame,
                value,
            } = e
                && *tick > start
                && *tick <= newest
                && let Some(v) = values.get_mut(*watch)
            {
                v.push((*tick, *frame, *value));
            }
        }
    }
    Ok(Some(PlotSpan {
        from: start,
        to: newest,
        values,
    }))
}
