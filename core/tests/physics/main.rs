//! The rapier2d physics stage inside the fixed tick, through the public API only:
//! worlds built from `ObjectDesc`/`BodyDesc`, sessions loaded with
//! `Pipeline::load_session(world, Box::new(RapierStage::new(g)), seed)`, driven by
//! `step_frame`. Each test is named after the sentence of the contract it proves.
//!
//! Expected numbers are derived by hand. One rapier fact is used throughout: rapier's
//! solver splits every step into `num_solver_iterations` (4 by default) internal
//! substeps of semi-implicit Euler (`params.dt /= num_solver_iterations` in its
//! staged solver). So a free fall from rest, after `M` internal steps of length `h`,
//! has `v = -g M h` and `y = y0 - g h² M (M + 1) / 2`.

mod cohort_and_removal;
mod contact_poses;
mod contacts;
mod fixed_before_step;
mod force_scaling;
mod hierarchy;
mod mid_step;
mod non_finite;
mod simulation_pose;
mod sleeping_commits;
mod snapshots;
mod substeps;

use contacts::ContactProbe;
use fixed_before_step::Tracer;

use std::sync::{Arc, Mutex};

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, ContactEvent, ContactKind, Ctx, Edit, Interpolation, LogLevel,
    ObjectDesc, ObjectId, Phase, PhysicsStage, Pipeline, Pose, Priority, RapierStage, Shape,
    StableHasher, TickObserver, TickRecord, TimeSettings, Vec2, Velocity, World,
};

/// Rapier's default `num_solver_iterations`: internal substeps per rapier step.
const RAPIER_INTERNAL_SUBSTEPS: u32 = 4;

/// Gravity used by most tests: a round number makes hand computations readable.
const G: f32 = 10.0;

type Log = Arc<Mutex<Vec<String>>>;

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn push(log: &Log, line: String) {
    log.lock().expect("log lock").push(line);
}

fn lines(log: &Log) -> Vec<String> {
    log.lock().expect("log lock").clone()
}

fn settings(fixed_hz: u32, substeps: u32) -> TimeSettings {
    TimeSettings {
        fixed_hz,
        substeps,
        ..TimeSettings::default()
    }
}

fn session(world: World, gravity: Vec2, settings: TimeSettings) -> Pipeline {
    let mut pipeline = Pipeline::new(settings);
    pipeline.load_session(world, Box::new(RapierStage::new(gravity)), 7);
    pipeline
}

/// A fixed ground slab 20 m wide whose top face is at y = 0.
fn ground() -> ObjectDesc {
    ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0)).with_body(BodyDesc::with_kind(
        BodyKind::Fixed,
        Shape::Cuboid { hx: 10.0, hy: 0.5 },
    ))
}

fn ball(name: &str, x: f32, y: f32, radius: f32) -> ObjectDesc {
    ObjectDesc::new(name, Pose::new(x, y, 0.0))
        .with_body(BodyDesc::dynamic(Shape::Circle { radius }))
}

fn pose_of(pipeline: &Pipeline, id: ObjectId) -> Pose {
    pipeline
        .world()
        .physics_simulation_pose(id)
        .expect("object is alive")
}

fn velocity_of(pipeline: &Pipeline, id: ObjectId) -> Velocity {
    pipeline
        .world()
        .get(id)
        .and_then(|o| o.body.as_ref())
        .map(|b| b.velocity)
        .expect("object has a body")
}

fn close(actual: f32, expected: f32, tol: f32) -> bool {
    (actual - expected).abs() <= tol
}

/// Committed pose and velocity of every body after each completed tick.
type TickPoses = Vec<(u64, Vec<(ObjectId, Pose, Velocity)>)>;

#[derive(Clone, Default)]
struct PoseRecorder(Arc<Mutex<TickPoses>>);

impl TickObserver for PoseRecorder {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let bodies = record
            .world
            .objects()
            .filter_map(|o| o.body.as_ref().map(|b| (o.id, b.committed, b.velocity)))
            .collect();
        self.0
            .lock()
            .expect("recorder lock")
            .push((record.clock.simulation_tick, bodies));
    }
}

impl PoseRecorder {
    /// Committed pose and velocity of `id` after tick `tick`.
    fn after(&self, tick: u64, id: ObjectId) -> Option<(Pose, Velocity)> {
        let ticks = self.0.lock().expect("recorder lock");
        let (_, bodies) = ticks.iter().find(|(t, _)| *t == tick)?;
        bodies
            .iter()
            .find(|(o, _, _)| *o == id)
            .map(|(_, p, v)| (*p, *v))
    }
}
