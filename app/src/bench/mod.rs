//! `stepframe bench`: the performance figures, one JSON object per line.
//!
//! Machines here are shared and noisy, so every target is a ratio against a
//! reference measured in the same run, or a count; absolute times are printed
//! for information. Each timed figure alternates its measured and reference
//! loops several times and keeps the fastest round of each, which cancels most
//! of the noise a neighbour process adds.
//!
//! Run it in release with the `bench` feature, which installs the counting
//! allocator the allocation figures read: `cargo run --release --features
//! bench -- bench` (about 45 s on 2 cores). Without it those figures say so
//! and fail rather than report zero.
//!
//! The figures run in a supervised child, as every headless run does
//! ([`crate::player::supervise`]): their pipelines mark each hook call in the
//! fault marker ([`Scenes`]), so a bundled scene whose hook never returns is
//! stopped and named, and the figures include what the marking costs.
//! `--in-process` measures them without it: the same binary, marker off.
//!
//! | module | what |
//! |---|---|
//! | this one | [`BenchArgs`], [`run`]: the list of figures, the timing helpers they share |
//! | `figure` | one printed figure: its JSON line, its ratio, whether its target holds |
//! | `alloc_count` | the counting allocator behind the allocation figures (the allocation tests include it too) |
//! | `physics` | `pipeline_vs_raw_rapier`, `soft_pipeline_vs_raw_rapier`: the pipeline raced against bare rapier; `pipeline_trace_floor`: the part of that the trace format fixes |
//! | `dispatch` | `dispatch_vs_bare_loop`, `allocations_per_tick`: what calling hooks costs |
//! | `flame` | `flame_overhead`: the live coarse flame zones on against off in the dispatch world |
//! | `mid_step` | `midstep_hook_ns`: what a mid-step hook costs per pair-call; `midstep_idle_overhead`: what the mechanism costs a scene without one |
//! | `script_vs_rust` | `script_vs_rust`: a scripted patrol against the same patrol in Rust |
//! | `scenes` | `headless_realtime_factor` and the `headless_rapier_ceiling` rapier's step alone puts on it, snapshots and restores, a telemetry record, a timeline frame, a hierarchy frame at 10,000 objects |
//! | `rewind` | `rewind_ms`, `history_mib`: the default history's reach, memory and worst rewind |
//! | `keyframes` | `rewind_reach_min_10k_bodies`, `rewind_ms_10k_bodies`, `keyframe_cost_share_10k_bodies`: packed keyframes in a 10,000-ball world |
//! | `plot_fill` | `plot_fill_span_ms`, `plot_fill_s`: a plotted field's lane filled from ten minutes of demo history; `plot_fill_ticks_per_s`: the same fill in a child host, end to end |
//! | `editor_frame` | `editor_frame_ms`: the whole default workspace drawn headless while stress.ron plays |
//! | `host` | `editor_frame_ms_child`, `step_latency_ms`, `host_stream_share`, `host_restart_ms`, `host_rss_ratio`: the session host in a child process against one on a thread |
//! | `rebuild` | `rebuild_replay_ticks_per_s`, `rebuild_replay_s`: fix, rebuild, replay: ten minutes of demo.ron's journal done again in a new child host |
//! | `startup` | `startup_first_frame_ms`: `stepframe edit` from its start to its first drawn frame, in a child with a display |
//! | `fork` | `fork_overhead`: what a what-if branch costs the editor's worker |
//! | `attach` | `listening_overhead`, `attached_overhead`: what letting an editor in costs a game's own loop |
//! | `check_jobs` | `check_parallel_speedup`: `check --jobs 2` against `--jobs 1` |
//! | `scaling` | `--scaling`: how each cost grows with the size of the world |

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;
use stepframe_core::scene::Scene;
use stepframe_core::{HookBeacon, Pipeline, TimeSettings};

mod alloc_count;
mod attach;
mod check_jobs;
mod dispatch;
mod editor_frame;
mod figure;
mod flame;
mod fork;
mod host;
mod keyframes;
mod mid_step;
mod physics;
mod plot_fill;
mod rebuild;
mod rewind;
mod scaling;
mod scenes;
mod script_vs_rust;
mod startup;

use figure::{Figure, round};

/// Arguments of `stepframe bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Directory holding demo.ron, stress.ron and soft.ron.
    #[arg(long, default_value = "assets/scenes")]
    pub scenes: PathBuf,
    /// Fewer iterations (for smoke tests; figures are noisier).
    #[arg(long)]
    pub quick: bool,
    /// Run only the figures whose name contains this (for profiling one).
    #[arg(long)]
    pub only: Option<String>,
    /// Print how the costs grow instead (pipeline against rapier at 100 to
    /// 10,000 bodies, dispatch at 1,000 to 100,000 behaviours, snapshots and
    /// history bytes against object count, the timeline's ring): one JSON
    /// line per size, with whether the row grows linearly.
    #[arg(long)]
    pub scaling: bool,
    /// The supervisor's limits, or none (`--in-process`: the figures are
    /// then measured without the fault marker, which is how its cost is
    /// read: the same binary with the marker on and off).
    #[command(flatten)]
    pub isolation: crate::player::Isolation,
}

/// Where the figures find the bundled scenes, and the hook beacon of a
/// supervised bench (`crate::player::supervise`): every pipeline a figure
/// builds announces its hook calls on it, so a scene whose hook never
/// returns is named and stopped, and the figures measure the runtime as a
/// supervised headless run has it.
#[derive(Clone, Debug, Default)]
pub struct Scenes {
    /// The directory (`--scenes`).
    dir: PathBuf,
    /// The beacon, in a supervised child; `None` with `--in-process`.
    beacon: Option<HookBeacon>,
}

impl Scenes {
    /// The bundled scene `name`'s path.
    fn join(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Installs the beacon (if any) in `p`, which runs `scene` (a file) or
    /// a world built in code (`None`).
    fn watch(&self, p: &mut Pipeline, scene: Option<&Path>) {
        crate::player::supervise::watch_session(p, self.beacon.as_ref(), scene);
    }

    /// A pipeline with the bundled scene `name` loaded and watched.
    fn load(&self, name: &str) -> anyhow::Result<Pipeline> {
        let path = self.join(name);
        let registry = crate::player::registry(&path);
        let scene = Scene::load(&path, &registry).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut p = Pipeline::new(TimeSettings::default());
        p.load_scene(&scene, &registry)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        self.watch(&mut p, Some(&path));
        Ok(p)
    }
}

/// The counting allocator the `stepframe` binary installs (see
/// `allocations_per_tick`).
pub use alloc_count::CountingAllocator;

/// Runs every figure; exit 0 when every target is met. In a supervised
/// child of this executable unless `launch` says this is that child, or
/// `--in-process` ([`crate::player::supervise`]).
pub fn run(
    args: BenchArgs,
    behaviours: &crate::Behaviours,
    launch: &crate::player::Launch,
) -> ExitCode {
    let beacon = match launch.resolve(&args.isolation) {
        crate::player::Launch::Supervise(line) => {
            return crate::player::supervise::run_supervised(
                "bench",
                &line,
                &args.isolation,
                behaviours,
            );
        }
        crate::player::Launch::Here(beacon) => beacon,
    };
    let scenes = Scenes {
        dir: args.scenes.clone(),
        beacon,
    };
    let scale = if args.quick { 0.1 } else { 1.0 };
    if args.scaling {
        return scaling::run(scale);
    }
    let mut all_pass = true;
    type FigureFn = fn(f64, &Scenes) -> anyhow::Result<Vec<Figure>>;
    // The dispatch figure runs first, on a heap no figure has used yet: it
    // boxes its behaviours and then the bare loop's closures back to back,
    // and after another figure the first set fills that figure's freed holes
    // while the second gets fresh pages (a full run measured 1.71 where
    // `--only dispatch` measured 1.41-1.48 for the same binary).
    let figures: &[(&str, FigureFn)] = &[
        ("dispatch_vs_bare_loop", dispatch::dispatch_vs_bare_loop),
        ("flame_overhead", flame::flame_overhead),
        (
            "midstep_hook_ns midstep_idle_overhead",
            mid_step::midstep_figures,
        ),
        (
            "pipeline_vs_raw_rapier pipeline_untraced_vs_raw_rapier pipeline_trace_floor pipeline_share_beyond_trace",
            physics::pipeline_vs_raw_rapier,
        ),
        (
            "soft_pipeline_vs_raw_rapier",
            physics::soft_pipeline_vs_raw_rapier,
        ),
        ("allocations_per_tick", dispatch::allocations_per_tick),
        ("telemetry_record_ns", scenes::telemetry_record),
        (
            "headless_realtime_factor headless_rapier_ceiling headless_share",
            scenes::headless_realtime_factor,
        ),
        ("rewind_ms history_mib", rewind::rewind_and_history),
        ("plot_fill_span_ms plot_fill_s", plot_fill::plot_fill),
        ("plot_fill_ticks_per_s", plot_fill::plot_fill_ticks),
        (
            "rewind_reach_min_10k_bodies rewind_ms_10k_bodies keyframe_cost_share_10k_bodies",
            keyframes::keyframes_10k,
        ),
        ("snapshot_us restore_us", scenes::snapshots),
        ("stress_load_ms", scenes::stress_load),
        ("timeline_ui_ms", scenes::timeline_ui),
        (
            "hierarchy_ui_ms hierarchy_filter_ui_ms",
            scenes::hierarchy_ui,
        ),
        ("editor_frame_ms", editor_frame::editor_frame),
        ("editor_frame_ms_child", host::editor_frame_child),
        ("step_latency_ms", host::step_latency),
        ("host_stream_share", host::stream_share),
        ("host_restart_ms", host::restart),
        ("host_rss_ratio", host::rss_ratio),
        (
            "rebuild_replay_ticks_per_s rebuild_replay_s",
            rebuild::rebuild_replay,
        ),
        ("startup_first_frame_ms", startup::first_frame),
        ("script_vs_rust", script_vs_rust::script_vs_rust),
        ("fork_overhead", fork::fork_overhead),
        (
            "listening_overhead attached_overhead",
            attach::attach_overhead,
        ),
        ("check_parallel_speedup", check_jobs::check_parallel_speedup),
    ];
    for &(names, f) in figures {
        if args
            .only
            .as_ref()
            .is_some_and(|o| !names.contains(o.as_str()))
        {
            continue;
        }
        match f(scale, &scenes) {
            Ok(figs) => {
                for fig in figs {
                    all_pass &= fig.print();
                }
            }
            Err(e) => {
                println!("{}", json!({"error": format!("{e:#}")}));
                all_pass = false;
            }
        }
    }
    if all_pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Fastest of `rounds` alternating runs of `a` and `b`, seconds.
fn alternate(rounds: usize, mut a: impl FnMut() -> f64, mut b: impl FnMut() -> f64) -> (f64, f64) {
    let (mut best_a, mut best_b) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        best_a = best_a.min(a());
        best_b = best_b.min(b());
    }
    (best_a, best_b)
}

/// Wall time of `f`, seconds.
fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// Whether this binary counts allocations (the `bench` feature).
fn counting_allocator() -> anyhow::Result<()> {
    if cfg!(feature = "bench") {
        Ok(())
    } else {
        anyhow::bail!(
            "allocation figures need the counting allocator: cargo run --release --features bench -- bench"
        )
    }
}
