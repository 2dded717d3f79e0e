//! `plot_fill_span_ms`, `plot_fill_s`: what filling a newly plotted field's
//! lane from the rewind history costs the editor's worker. The worker fills
//! one keyframe span per frame (`editor/worker/watches.rs`), so the worst
//! span is the longest the live run can be held up by a fill, and the whole
//! is how much CPU a lane added after ten minutes of play costs.
//!
//! `plot_fill_ticks_per_s`: the same history (demo.ron after ten minutes of
//! 1/60 s frames, the default budget) in a child host, made by restoring
//! that session's journal (`super::rebuild`), suspended at its end; a plot
//! of obj(20).y is asked for (`WatchCommand::Plot`, the inspector's button)
//! and timed from the command sent to the `WatchHistory` that says the fill
//! is done, every span taken by a front end with no UI: the ticks of
//! history filled over those wall seconds. Suspended, the host fills one
//! span a turn of its loop, flat out; while playing it fills one a frame,
//! in the slack before the next (`stepframe_host`'s `worker/watches.rs`).

use std::time::{Duration, Instant};

use stepframe_core::{History, Pipeline, Session};
use stepframe_host::protocol::{Command, DisplayRate, Event, WatchCommand};
use stepframe_plugins::watch::plot_history;

use super::host::{Host, Place, restore};
use super::rebuild::{demo_journal, headless_play, loadavg};
use super::{Figure, Scenes, time};

pub(super) fn plot_fill(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let frames = ((36_000.0 * scale) as u64).max(600);
    let mut history = Session::new(scenes.load("demo.ron")?, History::default());
    for _ in 0..frames {
        history.step_frame(1.0 / 60.0, &[]);
    }
    let live = history.pipeline().stepper().completed_ticks();
    // What the inspector's "plot y" on the player writes.
    let exprs = vec!["obj(20).y".to_string()];
    let mut scratch = Pipeline::new(*history.pipeline().settings());
    let (mut worst, mut total, mut spans, mut values) = (0.0f64, 0.0, 0usize, 0usize);
    let mut newest = live;
    loop {
        let mut span = None;
        let secs = time(|| {
            span = plot_history(&history, &mut scratch, &exprs, newest)
                .ok()
                .flatten();
        });
        let Some(span) = span else {
            break;
        };
        worst = worst.max(secs * 1000.0);
        total += secs;
        spans += 1;
        values += span.values[0].len();
        if span.from == 0 {
            break;
        }
        newest = span.from - 1;
    }
    anyhow::ensure!(
        values as u64 >= live.min(frames),
        "the fill gave {values} values for {live} ticks"
    );
    let detail = format!(
        "demo.ron after {frames} frames ({:.1} min) under the default history: {spans} spans of {} frames, {values} values of obj(20).y",
        frames as f64 / 3600.0,
        history.history().keyframe_every()
    );
    Ok(vec![
        // A rewind's bound: one span's replay is what a click on the
        // timeline already costs.
        Figure::value(
            "plot_fill_span_ms",
            worst,
            "ms (worst span)",
            detail.clone(),
        )
        .at_most(100.0),
        Figure::value("plot_fill_s", total, "s CPU for the whole history", detail),
    ])
}

/// `plot_fill_ticks_per_s` (module docs): ten minutes of demo.ron (one
/// with `--quick`); two fills (one with `--quick`), each in a new host, the
/// faster kept.
pub(super) fn plot_fill_ticks(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let frames = ((36_000.0 * scale) as u64).max(600);
    let rounds = if scale < 1.0 { 1 } else { 2 };
    let journal = demo_journal(scenes, frames)?;
    let expr = "obj(20).y".to_string();
    let mut best: Option<Fill> = None;
    let mut all = Vec::new();
    for _ in 0..rounds {
        let host = Host::start(Place::Child, DisplayRate::default())?;
        let (_, _, tick) = restore(&host, journal.clone(), None, false)?;
        let fill = fill(&host, &expr)?;
        all.push(format!("{:.3}", fill.wall.as_secs_f64()));
        anyhow::ensure!(
            fill.to_tick == tick,
            "the fill started below tick {}, the session stood at {tick}",
            fill.to_tick
        );
        if best.as_ref().is_none_or(|b| fill.wall < b.wall) {
            best = Some(fill);
        }
    }
    let fill = best.ok_or_else(|| anyhow::anyhow!("no round ran"))?;
    let secs = fill.wall.as_secs_f64();
    let rate = fill.values as f64 / secs;
    let (play_rate, play_ticks, play_cpu) = headless_play(scenes, frames)?;
    // Ticks a CPU second, the fill's against headless play's: how much
    // more each fill thread does a tick than play, whatever the load.
    let per_cpu = (fill.values as f64 / fill.cpu) / (play_ticks as f64 / play_cpu);
    Ok(vec![
        Figure::value(
            "plot_fill_ticks_per_s",
            rate,
            "ticks/s",
            format!(
                "demo.ron after {frames} frames of 1/60 s under the default history, restored in \
                 a child host and suspended at tick {}: a plot of {expr} filled from the history \
                 in {secs:.3} s from WatchCommand::Plot sent to the last WatchHistory taken ({} \
                 values, ticks {} to {}, {} spans; fastest of {rounds}: {} s; the host's CPU \
                 meanwhile {:.3} s, {:.2} cores; a tick a CPU second {per_cpu:.2} times \
                 headless play's). The fill replays \
                 every tick from its span's keyframe, so stepping bounds it: demo.ron played \
                 headless flat out for the same frames in the same run, {play_rate:.0} ticks/s \
                 (fill at {:.2} of it); load {}",
                fill.to_tick,
                fill.values,
                fill.from_tick,
                fill.to_tick,
                fill.spans,
                all.join(", "),
                fill.cpu,
                fill.cpu / secs,
                rate / play_rate,
                loadavg(),
            ),
        )
        .at_least(10_000.0),
    ])
}

/// What one fill of a plotted watch's lane took.
struct Fill {
    /// From the command sent to the last span taken.
    wall: Duration,
    /// The child host's CPU seconds meanwhile (all its threads; NaN where
    /// unread): over `wall`, how many cores the fill kept busy.
    cpu: f64,
    /// Values (ticks) filled.
    values: usize,
    /// Spans (`WatchHistory` events) they came in.
    spans: usize,
    /// The oldest tick filled.
    from_tick: u64,
    /// The tick the fill started below.
    to_tick: u64,
}

/// Plots `expr` on `host` (suspended) and waits for its lane's fill to end.
fn fill(host: &Host, expr: &str) -> anyhow::Result<Fill> {
    let cpu0 = host.child_cpu_s();
    let sent = Instant::now();
    host.front
        .send(Command::Watches(WatchCommand::Plot(expr.to_string())));
    let mut fill = Fill {
        wall: Duration::ZERO,
        cpu: f64::NAN,
        values: 0,
        spans: 0,
        from_tick: u64::MAX,
        to_tick: 0,
    };
    let mut errors = Vec::new();
    let mut done = false;
    host.take_until("the plotted lane's fill", |taken| {
        for e in taken.events {
            match e {
                Event::WatchHistory(w) if w.expr == expr => {
                    fill.values += w.values.len();
                    fill.spans += 1;
                    fill.from_tick = fill.from_tick.min(w.from_tick);
                    fill.to_tick = w.to_tick;
                    done |= w.done;
                }
                Event::Error(e) => errors.push(format!("{e:?}")),
                _ => {}
            }
        }
        done || !errors.is_empty()
    })?;
    fill.wall = sent.elapsed();
    fill.cpu = host
        .child_cpu_s()
        .zip(cpu0)
        .map_or(f64::NAN, |(a, b)| a - b);
    anyhow::ensure!(errors.is_empty(), "the fill failed: {}", errors.join("; "));
    Ok(fill)
}
