//! The rewind figures: a byte-bounded [`History`] (the editor's default,
//! 256 MiB) on demo.ron, stress.ron and a 10,000-behaviour world, with the
//! resident memory it really grows by set against its own estimate, and the
//! worst rewind on demo.ron and stress.ron.

use stepframe_core::history::DEFAULT_BUDGET_BYTES;
use stepframe_core::{History, NoPhysics, Pipeline, Session, TimeSettings};

use super::dispatch::{CALLBACKS, integrator_world};
use super::{Figure, Scenes, time};

/// Resident memory of this process, bytes (Linux `/proc/self/statm`).
pub(super) fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

const MIB: f64 = 1024.0 * 1024.0;

/// What one run of a session under the default history showed.
struct Run {
    frames: u64,
    /// Resident memory growth over the run, MiB.
    rss_mib: f64,
    /// The history's own count, MiB.
    estimate_mib: f64,
    /// Worst of 8 rewinds spread over the reach, ms.
    worst_rewind_ms: f64,
    reach: String,
    /// How far back the budget lets rewind reach, simulated minutes: what
    /// it holds, or the projection at this rate if that is further.
    reach_min: f64,
    keyframes: usize,
    keyframe_every: u64,
}

/// Plays `frames` 60 Hz frames of `p` through a default (256 MiB) history,
/// then rewinds to 8 points across its reach.
fn run(p: Pipeline, frames: u64) -> Run {
    let before = rss_bytes().unwrap_or(0);
    let mut history = Session::new(p, History::default());
    for _ in 0..frames {
        history.step_frame(1.0 / 60.0, &[]);
    }
    let after = rss_bytes().unwrap_or(0);
    let reach = history.reach();
    // The tick just before each of 8 keyframes spread over the reach (the
    // longest replays: a whole spacing from the keyframe before).
    let ticks: Vec<u64> = history.history().keyframe_ticks().collect();
    let mut worst: f64 = 0.0;
    for k in 1..=8usize {
        let Some(&next) = ticks.get(k * (ticks.len() - 1) / 8) else {
            continue;
        };
        let target = next.saturating_sub(1).max(ticks[0]);
        let secs = time(|| {
            let _ = history.rewind_to_tick(target);
        });
        worst = worst.max(secs * 1000.0);
    }
    Run {
        frames,
        rss_mib: after.saturating_sub(before) as f64 / MIB,
        estimate_mib: history.history().memory_bytes() as f64 / MIB,
        worst_rewind_ms: worst,
        reach: reach.to_string(),
        // How far back the budget reaches at this rate (the editor's
        // projection): a 10-minute play of demo.ron does not fill 256 MiB
        // of packed keyframes, so what it holds is only the play's length.
        reach_min: reach
            .projected_seconds()
            .unwrap_or(reach.seconds)
            .max(reach.seconds)
            / 60.0,
        keyframes: history.history().keyframes(),
        keyframe_every: history.history().keyframe_every(),
    }
}

/// The larger of the resident memory growth and the history's own count:
/// resident memory is the truth for the first run of a process, but a later
/// run reuses what earlier ones freed (it can grow by nothing), while the
/// count is checked against real allocations by `snapshot_heap_vs_estimate`.
fn mib_figure(name: &'static str, scene: &str, r: &Run) -> Figure {
    Figure::value(
        name,
        r.rss_mib.max(r.estimate_mib),
        "MiB",
        format!(
            "{scene}, {:.1} min of frames under the default budget: resident memory grew {:.1} MiB, the history counts {:.1} MiB in {} keyframes {} frames apart ({})",
            r.frames as f64 / 3600.0,
            r.rss_mib,
            r.estimate_mib,
            r.keyframes,
            r.keyframe_every,
            r.reach
        ),
    )
    .at_most(DEFAULT_BUDGET_BYTES as f64 / MIB)
}

/// The worst rewind of a run, against `bound` ms.
fn rewind_figure(name: &'static str, scene: &str, r: &Run, bound: f64) -> Figure {
    Figure::value(
        name,
        r.worst_rewind_ms,
        "ms (worst of 8)",
        format!(
            "{scene} after {} frames ({:.1} min), keyframes {} frames apart",
            r.frames,
            r.frames as f64 / 3600.0,
            r.keyframe_every
        ),
    )
    .at_most(bound)
}

pub(super) fn rewind_and_history(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let mut out = Vec::new();

    let frames = ((36_000.0 * scale) as u64).max(600);
    let demo = run(scenes.load("demo.ron")?, frames);
    out.push(rewind_figure("rewind_ms", "demo.ron", &demo, 100.0));
    out.push(mib_figure("history_mib", "demo.ron", &demo));
    out.push(
        Figure::value(
            "rewind_reach_min",
            demo.reach_min,
            "min",
            format!("demo.ron under the default budget: {}", demo.reach),
        )
        .at_least(60.0),
    );

    let frames = ((18_000.0 * scale) as u64).max(600);
    let stress = run(scenes.load("stress.ron")?, frames);
    out.push(rewind_figure(
        "rewind_ms_stress",
        "stress.ron",
        &stress,
        250.0,
    ));
    out.push(mib_figure("history_mib_stress", "stress.ron", &stress));

    let frames = ((36_000.0 * scale) as u64).max(600);
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(CALLBACKS), Box::new(NoPhysics), 1);
    scenes.watch(&mut p, None);
    let behaviours = run(p, frames);
    out.push(mib_figure(
        "history_mib_10k_behaviours",
        "10,000 FixedUpdate behaviours",
        &behaviours,
    ));
    Ok(out)
}
