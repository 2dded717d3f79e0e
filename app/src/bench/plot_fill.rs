//! `plot_fill_span_ms`, `plot_fill_s`: what filling a newly plotted field's
//! lane from the rewind history costs the editor's worker. The worker fills
//! one keyframe span per frame (`editor/worker/watches.rs`), so the worst
//! span is the longest the live run can be held up by a fill, and the whole
//! is how much CPU a lane added after ten minutes of play costs.

use stepframe_core::{History, Pipeline, Session};
use stepframe_plugins::watch::plot_history;

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
