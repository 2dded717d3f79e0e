//! `Spawner` and `Projectile`: a timed routine that creates bodies, and the
//! short-lived objects it creates.
//!
//! The spawner starts one routine in Start, on the **fixed** time group, so its
//! waits are simulation seconds and it resumes inside the fixed phase, after
//! FixedUpdate and before physics. Each resume spawns `burst` projectiles with a
//! body and a [`Projectile`] behaviour. That shows the cohort rule: the
//! projectile's body joins rapier at the reconcile of the very tick it was
//! spawned in (it falls during that tick), but its behaviour joins the cohort at
//! the next outer frame boundary, so its first FixedUpdate is the first tick of
//! the next frame, never a later tick of the current one.
//!
//! Bounded by construction: at most `max_alive` projectiles of one spawner live at
//! once (spawning past the cap removes the oldest first), and each projectile
//! removes itself `lifetime` simulation seconds after the tick that spawned it
//! (not after its first FixedUpdate, whose tick depends on where the next frame
//! boundary falls, so on the display pacing: replayed traces must not). A
//! million-tick soak therefore holds at most `max_alive` projectiles per spawner.

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::{
    Behaviour, BodyDesc, Ctx, Inspect, ObjectDesc, ObjectId, Pose, Priority, Routine, Shape,
    TimeGroup, Vec2, Velocity, Wait,
};

/// Parameters of [`Spawner`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct SpawnerParams {
    /// Simulation seconds between two bursts (> 0).
    #[inspect(unit = "s")]
    pub interval: f64,
    /// Projectiles per burst.
    pub burst: u32,
    /// Most projectiles of this spawner alive at once (>= 1).
    pub max_alive: u32,
    /// Simulation seconds a projectile lives (0: until the cap removes it).
    #[inspect(unit = "s")]
    pub lifetime: f64,
    /// Shapes to pick from at random (`ctx.rng()`), one per projectile.
    pub shapes: Vec<Shape>,
    /// Projectiles appear up to this far left or right of the spawner, m.
    #[inspect(unit = "m")]
    pub spread: f32,
    /// Initial velocity, m/s.
    #[inspect(unit = "m/s")]
    pub velocity: Vec2,
    /// Density of the projectiles, kg/m².
    #[inspect(unit = "kg/m²")]
    pub density: f32,
    /// Bounciness of the projectiles.
    pub restitution: f32,
    /// Continuous collision detection for fast projectiles.
    pub ccd: bool,
}

impl Default for SpawnerParams {
    fn default() -> Self {
        SpawnerParams {
            interval: 0.5,
            burst: 1,
            max_alive: 20,
            lifetime: 8.0,
            shapes: vec![Shape::Circle { radius: 0.25 }],
            spread: 1.0,
            velocity: Vec2::ZERO,
            density: 1.0,
            restitution: 0.2,
            ccd: false,
        }
    }
}

/// Spawns projectiles from a fixed-time routine (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct Spawner {
    #[inspect(params)]
    params: SpawnerParams,
}

impl Spawner {
    /// Checks the parameters.
    pub fn new(params: SpawnerParams) -> Result<Spawner, InvalidParams> {
        if !(params.interval.is_finite() && params.interval > 0.0) {
            return Err(InvalidParams::new(format!(
                "interval must be > 0 s, got {}",
                params.interval
            )));
        }
        if params.max_alive == 0 {
            return Err(InvalidParams::new("max_alive must be at least 1"));
        }
        if !(params.lifetime.is_finite() && params.lifetime >= 0.0) {
            return Err(InvalidParams::new(format!(
                "lifetime must be >= 0 s, got {}",
                params.lifetime
            )));
        }
        if params.shapes.is_empty() {
            return Err(InvalidParams::new("shapes must list at least one shape"));
        }
        if params.shapes.iter().any(|s| !shape_ok(s)) {
            return Err(InvalidParams::new("every shape needs positive sizes"));
        }
        if !(params.spread.is_finite() && params.spread >= 0.0 && params.velocity.is_finite()) {
            return Err(InvalidParams::new(
                "spread must be >= 0 and velocity finite",
            ));
        }
        if !(params.density.is_finite() && params.density > 0.0) {
            return Err(InvalidParams::new(format!(
                "density must be > 0, got {}",
                params.density
            )));
        }
        Ok(Spawner { params })
    }
}

fn shape_ok(s: &Shape) -> bool {
    match s {
        Shape::Circle { radius } => *radius > 0.0,
        Shape::Cuboid { hx, hy } => *hx > 0.0 && *hy > 0.0,
        Shape::Capsule {
            half_height,
            radius,
        } => *radius > 0.0 && *half_height >= 0.0,
        Shape::ConvexPolygon { points } => points.len() >= 3,
    }
}

fn projectile_body(p: &SpawnerParams, shape: usize) -> BodyDesc {
    let mut body = BodyDesc::dynamic(p.shapes[shape % p.shapes.len()].clone());
    body.density = p.density;
    body.restitution = p.restitution;
    body.ccd = p.ccd;
    body.velocity = Velocity {
        linear: p.velocity,
        angular: 0.0,
    };
    body
}

#[stepframe_core::behaviour]
impl Behaviour for Spawner {
    fn start(&mut self, ctx: &mut Ctx) {
        ctx.start_routine(
            TimeGroup::Fixed,
            Box::new(SpawnRoutine {
                params: self.params.clone(),
                alive: Vec::new(),
                spawned: 0,
            }),
        );
    }
}

/// The spawner's routine: owns the list of live projectiles, oldest first.
#[derive(Clone, Debug)]
struct SpawnRoutine {
    params: SpawnerParams,
    alive: Vec<ObjectId>,
    spawned: u64,
}

impl Routine for SpawnRoutine {
    fn resume(&mut self, ctx: &mut Ctx) -> Wait {
        let p = &self.params;
        self.alive.retain(|id| ctx.world().get(*id).is_some());
        let Some(origin) = ctx.physics_simulation_pose(ctx.me()) else {
            return Wait::Done;
        };
        let owner = ctx
            .object()
            .map_or_else(|| "Spawner".to_string(), |o| o.name.clone());
        for _ in 0..p.burst {
            while self.alive.len() >= p.max_alive as usize {
                let oldest = self.alive.remove(0);
                ctx.remove(oldest);
            }
            let dx = ctx.rng().range(-p.spread, p.spread);
            let pick = (ctx.rng().next_u64() % p.shapes.len() as u64) as usize;
            self.spawned += 1;
            let desc = ObjectDesc::new(
                format!("{owner} #{}", self.spawned),
                Pose::new(origin.x + dx, origin.y, 0.0),
            )
            .with_body(projectile_body(p, pick))
            .with_behaviour(
                Box::new(Projectile::born_at(p.lifetime, ctx.clock().simulation_time)),
                Priority::DEFAULT,
            );
            let id = ctx.spawn(desc);
            self.alive.push(id);
        }
        Wait::Seconds(p.interval)
    }
}

/// Parameters of [`Projectile`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProjectileParams {
    /// Simulation seconds from its spawn (or, placed in a scene, its first
    /// FixedUpdate) to its removal (0: forever).
    pub lifetime: f64,
}

impl Default for ProjectileParams {
    fn default() -> Self {
        ProjectileParams { lifetime: 8.0 }
    }
}

/// Removes its object `lifetime` simulation seconds after it was spawned (a
/// projectile placed in a scene: after its first FixedUpdate).
#[derive(Clone, Debug, Inspect)]
pub struct Projectile {
    /// Simulation seconds from its spawn to its removal (0: forever).
    #[inspect(param, unit = "s")]
    lifetime: f64,
    /// Simulation time (start of the tick) of the spawn, or of the first FixedUpdate.
    #[inspect(unit = "s")]
    born: Option<f64>,
}

impl Projectile {
    /// Checks the parameters.
    pub fn new(params: ProjectileParams) -> Result<Projectile, InvalidParams> {
        if !(params.lifetime.is_finite() && params.lifetime >= 0.0) {
            return Err(InvalidParams::new(format!(
                "lifetime must be >= 0 s, got {}",
                params.lifetime
            )));
        }
        Ok(Projectile::with_lifetime(params.lifetime))
    }

    /// A projectile whose lifetime counts from `born`, the start of the tick
    /// that spawned it: its removal tick then does not depend on when the next
    /// frame boundary admits it to the cohort (a pacing-dependent moment).
    fn born_at(lifetime: f64, born: f64) -> Projectile {
        Projectile {
            lifetime,
            born: Some(born),
        }
    }

    fn with_lifetime(lifetime: f64) -> Projectile {
        Projectile {
            lifetime,
            born: None,
        }
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Projectile {
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let now = ctx.clock().simulation_time;
        let born = *self.born.get_or_insert(now);
        if self.lifetime > 0.0 && now - born >= self.lifetime {
            ctx.remove(ctx.me());
        }
    }
}
