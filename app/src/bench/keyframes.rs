//! The big-world rewind figures: 10,000 awake balls under the default
//! history (256 MiB, a keyframe every 120 frames at first): how far back
//! its budget reaches (`rewind_reach_min_10k_bodies`), the worst rewind
//! (`rewind_ms_10k_bodies`), and what taking and packing keyframes costs
//! the worker (`keyframe_cost_share_10k_bodies`).
//!
//! Ten minutes of a 10,000-ball world take ~5 min to simulate here (~9 ms a
//! tick), too long for a bench, so the reach is the history's own
//! projection ([`stepframe_core::RewindReach::projected_seconds`], what the
//! editor's Clock tab shows) after enough frames for two anchor cycles of
//! packed keyframes: the bytes it holds per simulated second, stretched
//! over the widest spacing the budget allows.

use std::time::Instant;

use stepframe_core::history::ANCHOR_EVERY;
use stepframe_core::{History, Session};

use super::physics::awake_pipeline;
use super::{Figure, Scenes};

/// Balls in the big world.
const BALLS: usize = 10_000;

pub(super) fn keyframes_10k(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let mut p = awake_pipeline(BALLS);
    scenes.watch(&mut p, None);
    // Let the balls land first: a pile's contacts are what a long session
    // keeps (the fall's first ticks have none).
    for _ in 0..((240.0 * scale) as usize).max(30) {
        p.step_frame(1.0 / 60.0);
    }
    let plain = p.snapshot().memory_bytes();
    let mut history = Session::new(p, History::default());
    let frames = ((120.0 * f64::from(ANCHOR_EVERY) * 2.0 + 1.0) * scale).max(130.0) as u64;
    let mut plain_frames = Vec::new();
    let mut keyframe_frames = Vec::new();
    let mut keyframe_bytes = Vec::new();
    for _ in 0..frames {
        let (kf, bytes) = (
            history.history().keyframes(),
            history.history().memory_bytes(),
        );
        let t = Instant::now();
        history.step_frame(1.0 / 60.0, &[]);
        let secs = t.elapsed().as_secs_f64();
        if history.history().keyframes() > kf {
            keyframe_frames.push(secs);
            keyframe_bytes.push(history.history().memory_bytes().saturating_sub(bytes));
        } else {
            plain_frames.push(secs);
        }
    }
    plain_frames.sort_by(f64::total_cmp);
    let median = plain_frames
        .get(plain_frames.len() / 2)
        .copied()
        .unwrap_or(0.0);
    let total: f64 = plain_frames.iter().chain(&keyframe_frames).sum();
    let extra: f64 = keyframe_frames.iter().map(|t| (t - median).max(0.0)).sum();
    let share = extra / total.max(f64::MIN_POSITIVE);
    let reach = history.reach();
    let reach_min = reach.projected_seconds().unwrap_or(reach.seconds) / 60.0;
    // Rewinds to the tick before three keyframes (each a whole spacing of
    // replay from the one before), the newest first.
    let ticks: Vec<u64> = history.history().keyframe_ticks().collect();
    let mut worst: f64 = 0.0;
    for &next in ticks.iter().rev().take(3) {
        let target = next.saturating_sub(1).max(ticks[0]);
        let t = Instant::now();
        history
            .rewind_to_tick(target)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        worst = worst.max(t.elapsed().as_secs_f64() * 1000.0);
    }
    let kib = |b: usize| b as f64 / 1024.0;
    let anchor = keyframe_bytes.first().copied().unwrap_or(0);
    let deltas: Vec<usize> = keyframe_bytes.iter().skip(1).copied().collect();
    let delta_avg = deltas.iter().sum::<usize>() / deltas.len().max(1);
    let detail = format!(
        "{BALLS} awake balls, {frames} frames through the default history: {} keyframes {} frames apart; a plain copy {:.0} KiB ({:.0} B a body), packed: first anchor {:.0} KiB, deltas {:.0} KiB on average ({:.0} B a body); {}",
        history.history().keyframes(),
        history.history().keyframe_every(),
        kib(plain),
        plain as f64 / BALLS as f64,
        kib(anchor),
        kib(delta_avg),
        delta_avg as f64 / BALLS as f64,
        reach
    );
    Ok(vec![
        Figure::value("rewind_reach_min_10k_bodies", reach_min, "min", detail).at_least(10.0),
        Figure::value(
            "rewind_ms_10k_bodies",
            worst,
            "ms (worst of 3)",
            format!(
                "{BALLS} awake balls, rewinds to the tick before a keyframe {} frames after the one before (median frame {:.2} ms)",
                history.history().keyframe_every(),
                median * 1000.0
            ),
        )
        .at_most(250.0),
        Figure::value(
            "keyframe_cost_share_10k_bodies",
            share,
            "of worker frame time",
            format!(
                "{BALLS} awake balls: {} keyframe frames took {:.1} ms more than the median frame ({:.2} ms) on average, over {frames} frames",
                keyframe_frames.len(),
                extra * 1000.0 / keyframe_frames.len().max(1) as f64,
                median * 1000.0
            ),
        )
        .at_most(0.05),
    ])
}
