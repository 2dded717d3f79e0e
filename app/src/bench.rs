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

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use rapier2d::prelude as rp;
use serde_json::json;
use stepframe_core::alloc_count::{count_allocated_bytes, count_allocations};
use stepframe_core::scene::Scene;
use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Ctx, Hooks, NoPhysics, ObjectDesc, ObjectId, PhysicsStage,
    Pipeline, Pose, Priority, RapierStage, Shape, Telemetry, TickObserver, TickRecord,
    TimeSettings, Vec2, World,
};

mod fork;
mod rewind;
mod scaling;

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
}

/// The counting allocator the `stepframe` binary installs (see
/// `allocations_per_tick`).
pub use stepframe_core::alloc_count::CountingAllocator;

/// One printed figure.
struct Figure {
    name: &'static str,
    measured: f64,
    unit: &'static str,
    reference: Option<f64>,
    /// `(comparison, bound)`: `("<=", 1.05)`.
    target: Option<(&'static str, f64)>,
    /// What the target applies to: the ratio, or the measured value itself.
    on_ratio: bool,
    note: String,
}

impl Figure {
    fn print(&self) -> bool {
        let ratio = self
            .reference
            .map(|r| if r > 0.0 { self.measured / r } else { f64::NAN });
        let checked = if self.on_ratio {
            ratio
        } else {
            Some(self.measured)
        };
        let pass = match (self.target, checked) {
            (Some(("<=", b)), Some(v)) => Some(v <= b),
            (Some((">=", b)), Some(v)) => Some(v >= b),
            _ => None,
        };
        let line = json!({
            "figure": self.name,
            "measured": round(self.measured),
            "unit": self.unit,
            "reference": self.reference.map(round),
            "ratio": ratio.map(round),
            "target": self.target.map(|(c, b)| format!("{} {c} {b}", if self.on_ratio { "ratio" } else { "measured" })),
            "pass": pass,
            "note": self.note,
        });
        println!("{line}");
        pass != Some(false)
    }
}

fn round(v: f64) -> f64 {
    if v.is_finite() {
        (v * 10_000.0).round() / 10_000.0
    } else {
        v
    }
}

/// Runs every figure; exit 0 when every target is met.
pub fn run(args: BenchArgs) -> ExitCode {
    let scale = if args.quick { 0.1 } else { 1.0 };
    if args.scaling {
        return scaling::run(scale);
    }
    let mut all_pass = true;
    type FigureFn = fn(f64, &Path) -> anyhow::Result<Vec<Figure>>;
    let figures: [(&str, FigureFn); 11] = [
        ("pipeline_vs_raw_rapier", pipeline_vs_raw_rapier),
        ("soft_pipeline_vs_raw_rapier", soft_pipeline_vs_raw_rapier),
        ("dispatch_vs_bare_loop", dispatch_vs_bare_loop),
        ("allocations_per_tick", allocations_per_tick),
        ("telemetry_record_ns", telemetry_record),
        ("headless_realtime_factor", headless_realtime_factor),
        ("rewind_ms history_mib", rewind::rewind_and_history),
        ("snapshot_us restore_us", snapshots),
        ("timeline_ui_ms", timeline_ui),
        ("script_vs_rust", script_vs_rust),
        ("fork_overhead", fork::fork_overhead),
    ];
    for (names, f) in figures {
        if args
            .only
            .as_ref()
            .is_some_and(|o| !names.contains(o.as_str()))
        {
            continue;
        }
        match f(scale, &args.scenes) {
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

fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

// ----- pipeline_vs_raw_rapier -------------------------------------------------

const BALLS: usize = 1000;

/// Ball `i`'s start: a 40-wide grid inside a walled box, jittered so it churns.
fn ball_start(i: usize) -> (f32, f32) {
    let x = (i % 40) as f32 * 1.05 - 20.5 + (i % 7) as f32 * 0.01;
    let y = 1.0 + (i / 40) as f32 * 1.05;
    (x, y)
}

/// Walls and floor for `balls` balls: `(x, y, hx, hy)`. The side walls are
/// 42 m tall up to 1,000 balls (the grid's 25 rows fit), taller above.
fn walls(balls: usize) -> [(f32, f32, f32, f32); 3] {
    let hy = (balls.div_ceil(40) as f32 * 1.05 / 2.0 + 1.0).max(21.0);
    [
        (0.0, -0.5, 23.0, 0.5),
        (-22.5, hy - 1.0, 0.5, hy),
        (22.5, hy - 1.0, 0.5, hy),
    ]
}

fn awake_world(balls: usize) -> World {
    let mut w = World::new();
    for (i, (x, y, hx, hy)) in walls(balls).iter().enumerate() {
        w.spawn(
            ObjectDesc::new(format!("wall{i}"), Pose::new(*x, *y, 0.0))
                .with_id(ObjectId(i as u64 + 1))
                .with_body(BodyDesc::with_kind(
                    BodyKind::Fixed,
                    Shape::Cuboid { hx: *hx, hy: *hy },
                )),
        );
    }
    for i in 0..balls {
        let (x, y) = ball_start(i);
        let mut body = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        body.can_sleep = false;
        w.spawn(
            ObjectDesc::new(format!("ball{i}"), Pose::new(x, y, 0.0))
                .with_id(ObjectId(100 + i as u64))
                .with_body(body),
        );
    }
    w
}

/// Hashes every tick (the trace's checksum) and keeps the last one.
struct HashSink(u64);
impl TickObserver for HashSink {
    fn on_tick(&mut self, r: &TickRecord<'_>) {
        self.0 = black_box(r.hash);
    }
}

/// The same world, stepped by a bare rapier loop: no pipeline, no hooks, no
/// events, no commits.
struct RawRapier {
    world: rp::PhysicsWorld,
}

impl RawRapier {
    fn new(balls: usize) -> RawRapier {
        let mut world = rp::PhysicsWorld {
            gravity: rapier2d::math::Vector::new(0.0, -9.81),
            ..Default::default()
        };
        world.integration_parameters.dt = 1.0 / 60.0;
        for (x, y, hx, hy) in walls(balls) {
            let b = world.bodies.insert(
                rp::RigidBodyBuilder::fixed().translation(rapier2d::math::Vector::new(x, y)),
            );
            world.colliders.insert_with_parent(
                rp::ColliderBuilder::cuboid(hx, hy).friction(0.5),
                b,
                &mut world.bodies,
            );
        }
        for i in 0..balls {
            let (x, y) = ball_start(i);
            let b = world.bodies.insert(
                rp::RigidBodyBuilder::dynamic()
                    .translation(rapier2d::math::Vector::new(x, y))
                    .can_sleep(false),
            );
            world.colliders.insert_with_parent(
                rp::ColliderBuilder::ball(0.5).friction(0.5).density(1.0),
                b,
                &mut world.bodies,
            );
        }
        RawRapier { world }
    }

    fn step(&mut self) {
        self.world.step();
    }
}

/// Pipeline and bare-rapier ms per tick on `balls` awake balls, each the
/// fastest of four alternating rounds of `ticks` ticks.
fn pipeline_and_raw_ms(balls: usize, ticks: usize) -> (f64, f64) {
    // Both worlds advance through the same states; each round times the next
    // `ticks` ticks of each, so they compare like with like.
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(
        awake_world(balls),
        Box::new(RapierStage::new(Vec2::new(0.0, -9.81))),
        1,
    );
    p.set_tick_observer(Some(Box::new(HashSink(0))));
    let mut telemetry = Telemetry::default();
    let mut raw = RawRapier::new(balls);
    // Warm up: first contacts, caches.
    for _ in 0..30 {
        let r = p.step_frame(1.0 / 60.0);
        telemetry.record(&r, p.clock());
        raw.step();
    }
    let (ours, theirs) = alternate(
        4,
        || {
            time(|| {
                for _ in 0..ticks {
                    let r = p.step_frame(1.0 / 60.0);
                    telemetry.record(&r, p.clock());
                }
            })
        },
        || {
            time(|| {
                for _ in 0..ticks {
                    raw.step();
                }
            })
        },
    );
    let per = ticks as f64 / 1000.0;
    (ours / per, theirs / per)
}

fn pipeline_vs_raw_rapier(scale: f64, _: &Path) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((300.0 * scale) as usize).max(30);
    let (ours, theirs) = pipeline_and_raw_ms(BALLS, ticks);
    Ok(vec![Figure {
        name: "pipeline_vs_raw_rapier",
        measured: ours,
        unit: "ms/tick",
        reference: Some(theirs),
        target: Some(("<=", 1.05)),
        on_ratio: true,
        note: format!(
            "{BALLS} awake balls, {ticks} ticks per round, telemetry and per-tick hashing on"
        ),
    }])
}

/// The pipeline on `soft.ron` (two jellies, a rope bridge, rigid bodies
/// they hit) against a bare rapier loop stepping a copy of the same rapier
/// world: what the pipeline adds per tick on top of rapier's soft-body solver
/// (reconcile, copying every particle out, the centroid pose and its best-fit
/// rotation, hashing every particle, contact counting).
fn soft_pipeline_vs_raw_rapier(scale: f64, dir: &Path) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((300.0 * scale) as usize).max(30);
    let dt = 1.0 / 60.0;
    // Without the scene's behaviours (the jelly's squash.rhai reads its
    // particles every tick): the figure is what the pipeline adds, not what
    // a script costs.
    let registry = crate::player::registry(&dir.join("soft.ron"));
    let mut scene =
        Scene::load(&dir.join("soft.ron"), &registry).map_err(|e| anyhow::anyhow!("{e}"))?;
    fn strip(objects: &mut [stepframe_core::SceneObject]) {
        for o in objects {
            o.behaviours.clear();
            strip(&mut o.children);
        }
    }
    strip(&mut scene.objects);
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    p.set_tick_observer(Some(Box::new(HashSink(0))));
    // The same world for the bare loop: a stage that has taken in the
    // scene's bodies, its rapier world copied out.
    let mut world = scene
        .instantiate(&registry)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut stage = RapierStage::new(scene.settings.gravity);
    stage.reconcile(&mut world, dt);
    let mut raw = stage.rapier_world();
    raw.integration_parameters.dt = dt as f32;
    let mut telemetry = Telemetry::default();
    for _ in 0..30 {
        let r = p.step_frame(dt);
        telemetry.record(&r, p.clock());
        raw.step();
    }
    let (ours, theirs) = alternate(
        4,
        || {
            time(|| {
                for _ in 0..ticks {
                    let r = p.step_frame(dt);
                    telemetry.record(&r, p.clock());
                }
            })
        },
        || {
            time(|| {
                for _ in 0..ticks {
                    raw.step();
                }
            })
        },
    );
    let particles: usize = p
        .world()
        .objects()
        .filter_map(|o| o.body.as_ref()?.soft.as_ref())
        .map(|s| s.particles.len())
        .sum();
    Ok(vec![Figure {
        name: "soft_pipeline_vs_raw_rapier",
        measured: ours / ticks as f64 * 1000.0,
        unit: "ms/tick",
        reference: Some(theirs / ticks as f64 * 1000.0),
        target: None,
        on_ratio: true,
        note: format!(
            "soft.ron: 3 soft bodies ({particles} particles) and 4 rigid bodies, {ticks} ticks per round, telemetry and per-tick hashing on"
        ),
    }])
}

// ----- dispatch_vs_bare_loop ---------------------------------------------------

const CALLBACKS: usize = 10_000;

/// The work every callback does, identical in both loops: a damped integrator.
#[inline]
fn work(state: &mut [f32; 4], dt: f32) {
    state[1] += (state[2] - state[0]) * dt;
    state[0] += state[1] * dt;
    state[1] *= 0.999;
    state[3] += state[0] * state[0];
}

#[derive(Clone, Debug)]
struct Integrator {
    state: [f32; 4],
}

impl Behaviour for Integrator {
    fn name(&self) -> &str {
        "Integrator"
    }
    fn hooks(&self) -> Hooks {
        Hooks::FIXED_UPDATE
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, dt: f64) {
        work(&mut self.state, dt as f32);
    }
}

fn integrator_world(callbacks: usize) -> World {
    // The behaviours are boxed first, back to back, as the bare loop's closures
    // are: both loops then read their callbacks' state from the same layout.
    let behaviours: Vec<Box<dyn Behaviour>> = (0..callbacks)
        .map(|i| {
            Box::new(Integrator {
                state: [0.0, 0.0, i as f32, 0.0],
            }) as Box<dyn Behaviour>
        })
        .collect();
    let mut w = World::new();
    for (i, behaviour) in behaviours.into_iter().enumerate() {
        w.spawn(
            ObjectDesc::new(format!("i{i}"), Pose::IDENTITY)
                .with_id(ObjectId(i as u64 + 1))
                // Eight priority groups of consecutive objects, so dispatch
                // order is allocation order, as in the bare loop.
                .with_behaviour(behaviour, Priority((i * 8 / callbacks) as i32 * 10 - 40)),
        );
    }
    w
}

/// Pipeline and bare-loop ns per callback with `callbacks` FixedUpdate
/// behaviours, each the fastest of five alternating rounds of `ticks` ticks.
fn dispatch_and_bare_ns(callbacks: usize, ticks: usize) -> (f64, f64) {
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(callbacks), Box::new(NoPhysics), 1);
    p.step_frame(1.0 / 60.0);
    let mut bare: Vec<Box<dyn FnMut(f32)>> = (0..callbacks)
        .map(|i| {
            let mut state = [0.0, 0.0, i as f32, 0.0];
            Box::new(move |dt: f32| work(black_box(&mut state), dt)) as Box<dyn FnMut(f32)>
        })
        .collect();
    let dt = black_box(1.0f32 / 60.0);
    let (ours, theirs) = alternate(
        5,
        || {
            time(|| {
                for _ in 0..ticks {
                    p.step_frame(1.0 / 60.0);
                }
            })
        },
        || {
            time(|| {
                for _ in 0..ticks {
                    for f in bare.iter_mut() {
                        f(dt);
                    }
                }
            })
        },
    );
    let calls = (ticks * callbacks) as f64 / 1e9;
    (ours / calls, theirs / calls)
}

fn dispatch_vs_bare_loop(scale: f64, _: &Path) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((400.0 * scale) as usize).max(40);
    let (ours, theirs) = dispatch_and_bare_ns(CALLBACKS, ticks);
    Ok(vec![Figure {
        name: "dispatch_vs_bare_loop",
        measured: ours,
        unit: "ns/callback",
        reference: Some(theirs),
        target: Some(("<=", 1.5)),
        on_ratio: true,
        note: format!(
            "{CALLBACKS} FixedUpdate callbacks over 8 priorities, whole step_frame per tick (no physics)"
        ),
    }])
}

// ----- allocations_per_tick ----------------------------------------------------

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

fn allocations_per_tick(scale: f64, _: &Path) -> anyhow::Result<Vec<Figure>> {
    counting_allocator()?;
    let frames = ((2000.0 * scale) as usize).max(200);
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(CALLBACKS), Box::new(NoPhysics), 1);
    let dts = [1.0 / 60.0, 2.0 / 60.0, 0.5 / 60.0];
    for i in 0..100 {
        p.step_frame(dts[i % 3]);
    }
    let (ticks, allocations) = count_allocations(|| {
        (0..frames)
            .map(|i| u64::from(p.step_frame(dts[i % 3]).ticks))
            .sum::<u64>()
    });
    Ok(vec![Figure {
        name: "allocations_per_tick",
        measured: allocations as f64 / ticks.max(1) as f64,
        unit: "allocations/tick",
        reference: None,
        target: Some(("<=", 0.0)),
        on_ratio: false,
        note: format!(
            "{allocations} allocations over {ticks} ticks, {CALLBACKS} behaviours, rapier excluded"
        ),
    }])
}

// ----- telemetry -----------------------------------------------------------------

fn telemetry_record(scale: f64, _: &Path) -> anyhow::Result<Vec<Figure>> {
    let n = ((1_000_000.0 * scale) as usize).max(10_000);
    let mut p = Pipeline::new(TimeSettings::default());
    let report = p.step_frame(1.0 / 60.0);
    let clock = *p.clock();
    let mut t = Telemetry::with_capacity(216_000);
    let secs = time(|| {
        for _ in 0..n {
            t.record(black_box(&report), black_box(&clock));
        }
    });
    Ok(vec![Figure {
        name: "telemetry_record_ns",
        measured: secs / n as f64 * 1e9,
        unit: "ns/frame",
        reference: None,
        target: Some(("<=", 1000.0)),
        on_ratio: false,
        note: format!("{n} records into a 216,000-frame ring"),
    }])
}

// ----- scenes ----------------------------------------------------------------------

fn load(dir: &Path, name: &str) -> anyhow::Result<Pipeline> {
    let path = dir.join(name);
    let registry = crate::player::registry(&path);
    let scene = Scene::load(&path, &registry).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(p)
}

fn headless_realtime_factor(scale: f64, dir: &Path) -> anyhow::Result<Vec<Figure>> {
    let mut out = Vec::new();
    for (name, scene, target) in [
        ("headless_realtime_factor", "demo.ron", 150.0),
        ("headless_realtime_factor_stress", "stress.ron", 60.0),
    ] {
        let mut p = load(dir, scene)?;
        let game_seconds = (60.0 * scale).max(6.0);
        let frames = (game_seconds * 60.0) as usize;
        let mut telemetry = Telemetry::default();
        let wall = time(|| {
            for _ in 0..frames {
                let r = p.step_frame(1.0 / 60.0);
                telemetry.record(&r, p.clock());
            }
        });
        out.push(Figure {
            name,
            measured: game_seconds / wall,
            unit: "x real time",
            reference: Some(1.0),
            target: Some((">=", target)),
            on_ratio: true,
            note: format!(
                "{scene}, {game_seconds} s of 60 Hz frames in {wall:.3} s, {} objects",
                p.world().len()
            ),
        });
    }
    Ok(out)
}

/// What a snapshot really puts on the heap (the bytes its allocations
/// request, plus 16 bytes of allocator overhead each), against the estimate
/// the history's byte budget counts (`Snapshot::memory_bytes`).
fn snapshot_bytes(name: &str, p: &Pipeline) -> Figure {
    let (snap, allocations, bytes) = count_allocated_bytes(|| p.snapshot());
    let heap = (bytes + 16 * allocations) as f64;
    let estimate = snap.memory_bytes() as f64;
    Figure {
        name: "snapshot_heap_vs_estimate",
        measured: heap / 1024.0,
        unit: "KiB",
        reference: Some(estimate / 1024.0),
        target: Some(("<=", 1.25)),
        on_ratio: true,
        note: format!(
            "{name}: heap a snapshot allocates ({allocations} allocations) against Snapshot::memory_bytes, the history budget's count; over 1.25 means the budget undercounts"
        ),
    }
}

fn snapshots(scale: f64, dir: &Path) -> anyhow::Result<Vec<Figure>> {
    counting_allocator()?;
    let mut out = Vec::new();
    for (name, fig_s, fig_r) in [
        ("demo.ron", "snapshot_us_demo", "restore_us_demo"),
        ("stress.ron", "snapshot_us_stress", "restore_us_stress"),
        ("soft.ron", "snapshot_us_soft", "restore_us_soft"),
    ] {
        let mut p = load(dir, name)?;
        for _ in 0..((120.0 * scale) as usize).max(10) {
            p.step_frame(1.0 / 60.0);
        }
        let reps = 20;
        let mut snap = p.snapshot();
        let s = time(|| {
            for _ in 0..reps {
                snap = black_box(p.snapshot());
            }
        });
        let r = time(|| {
            for _ in 0..reps {
                p.restore(black_box(&snap));
            }
        });
        out.push(Figure {
            name: fig_s,
            measured: s / reps as f64 * 1e6,
            unit: "µs",
            reference: None,
            target: None,
            on_ratio: false,
            note: format!("{name}, {} objects", p.world().len()),
        });
        out.push(Figure {
            name: fig_r,
            measured: r / reps as f64 * 1e6,
            unit: "µs",
            reference: None,
            target: None,
            on_ratio: false,
            note: name.to_string(),
        });
        out.push(snapshot_bytes(name, &p));
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(CALLBACKS), Box::new(NoPhysics), 1);
    p.step_frame(1.0 / 60.0);
    out.push(snapshot_bytes("10,000 behaviours", &p));
    Ok(out)
}

fn timeline_ui(scale: f64, _: &Path) -> anyhow::Result<Vec<Figure>> {
    use crate::editor::timeline::{bench_timeline_ms, bench_timeline_ms_with};
    let frames = ((216_000.0 * scale) as usize).max(21_600);
    // 53 minutes into the hour: the ring is not full yet and the view grows.
    let filling = frames * 88 / 100;
    Ok(vec![
        Figure {
            name: "timeline_ui_ms",
            measured: bench_timeline_ms(frames),
            unit: "ms CPU per UI frame",
            reference: None,
            target: Some(("<=", 4.0)),
            on_ratio: false,
            note: format!(
                "{frames} frames of telemetry, every lane, drawn and tessellated headless at 1600 px (best of 3 x 10 frames)"
            ),
        },
        Figure {
            name: "timeline_ui_filling_ms",
            measured: bench_timeline_ms_with(filling, frames, 1600.0),
            unit: "ms CPU per UI frame",
            reference: None,
            target: None,
            on_ratio: false,
            note: format!(
                "{filling} frames in a ring of {frames} (still filling), the same view, for context"
            ),
        },
        Figure {
            name: "timeline_ui_wide_ms",
            measured: bench_timeline_ms_with(frames, frames, 2560.0),
            unit: "ms CPU per UI frame",
            reference: None,
            // A maximised editor on a 1440p screen must stay as fast (#13).
            target: Some(("<=", 4.0)),
            on_ratio: false,
            note: format!(
                "{frames} frames at 2560 px (a maximised editor on a 1440p screen: 1.6x the points)"
            ),
        },
    ])
}

fn script_vs_rust(scale: f64, _: &Path) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((600.0 * scale) as u64).max(60);
    let r = stepframe_plugins::script::bench_script_vs_rust(100, ticks)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(vec![
        Figure {
            name: "script_vs_rust",
            measured: r.script_ns,
            unit: "ns/hook call",
            reference: Some(r.rust_ns),
            target: Some(("<=", 3.0)),
            on_ratio: true,
            note: format!(
                "patrol logic, {} objects, {} ticks: the same FixedUpdate as a script (typed path) and in Rust",
                r.objects, r.ticks
            ),
        },
        Figure {
            name: "script_rhai_vs_rust",
            measured: r.rhai_ns,
            unit: "ns/hook call",
            reference: Some(r.rust_ns),
            target: None,
            on_ratio: true,
            note: "the same script on rhai alone (what a breakpointed script runs on), for context"
                .to_string(),
        },
        Figure {
            name: "script_vs_rust_tick",
            measured: r.script_tick_ns,
            unit: "ns/tick",
            reference: Some(r.rust_tick_ns),
            target: None,
            on_ratio: true,
            note: "whole ticks (hooks plus physics), for context".to_string(),
        },
    ])
}
