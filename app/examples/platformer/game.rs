//! The platformer's own behaviours, each with a timing concern of its own,
//! and the one call that gives the game the editor and every sub-command.
//!
//! | behaviour | on | timing concern |
//! |---|---|---|
//! | [`Jumper`] | the player | coyote time and a jump buffer, counted in simulation milliseconds |
//! | [`Shuttle`] | a hazard | a kinematic path that is a function of simulation time |
//! | [`Collector`] | the player | a pickup counted in the fixed phase, on contact |
//!
//! Built the way docs/embedding.md builds its one-behaviour game
//! (app/examples/guide.rs): the behaviours' name, hooks, state hash and
//! parameter adoption are derived, none written by hand.
//!
//! The level also uses two of stepframe's built-ins that run inside the
//! physics step (mid-step hooks): a `OneWayPlatform` above the start, which
//! the player jumps up through and lands on, and a `Conveyor` set into the
//! floor at the far left, which carries a player who stands still on it
//! (the [`Jumper`] leaves the horizontal speed alone while no direction is
//! held).

use serde::{Deserialize, Serialize};
use stepframe_app::{Behaviours, Game};
use stepframe_core::scene::ParamsError;
use stepframe_core::{Behaviour, ContactKind, Ctx, Inspect, ObjectId, Pose, Vec2, Velocity};

/// The scene `cargo run --example platformer` opens.
pub const SCENE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../assets/scenes/platformer.ron"
);

/// Every behaviour the game's scenes can name: stepframe's built-ins and
/// the three below.
pub fn behaviours() -> Behaviours {
    Behaviours::built_in()
        .behaviour(Jumper::new)
        .behaviour(Shuttle::new)
        .behaviour(Collector::new)
}

/// The game's binary: `run()` it from `main`.
pub fn build() -> Game {
    Game::new("platformer")
        .behaviours(behaviours())
        .scene(SCENE)
}

/// Parameters of [`Jumper`], all optional in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct JumperParams {
    /// Action that runs left.
    pub left: String,
    /// Action that runs right.
    pub right: String,
    /// Action that jumps on its press edge.
    pub jump: String,
    /// Horizontal speed while a direction is held.
    #[inspect(unit = "m/s")]
    pub run_speed: f32,
    /// Upward speed a jump sets.
    #[inspect(unit = "m/s")]
    pub jump_speed: f32,
    /// A jump still works this long after leaving the ground.
    #[inspect(unit = "ms")]
    pub coyote_ms: f64,
    /// A press this long before landing jumps on landing.
    #[inspect(unit = "ms")]
    pub buffer_ms: f64,
}

impl Default for JumperParams {
    fn default() -> Self {
        JumperParams {
            left: "left".into(),
            right: "right".into(),
            jump: "jump".into(),
            run_speed: 4.0,
            jump_speed: 6.5,
            coyote_ms: 100.0,
            buffer_ms: 120.0,
        }
    }
}

/// Runs and jumps, with coyote time and a jump buffer measured in
/// simulation milliseconds: each fixed tick adds its own length, so a
/// debugger pause (no tick) or a slow display (several ticks a frame)
/// changes neither window.
#[derive(Clone, Debug, Inspect)]
pub struct Jumper {
    #[inspect(params)]
    params: JumperParams,
    /// Solid objects in contact, sorted.
    touching: Vec<ObjectId>,
    /// Standing on something below its centre this tick.
    grounded: bool,
    /// Coyote time left since it last stood on something.
    #[inspect(unit = "ms")]
    coyote_left_ms: f64,
    /// Time left for a buffered press to turn into a jump.
    #[inspect(unit = "ms")]
    buffer_left_ms: f64,
    /// Jumps made.
    jumps: u64,
}

impl Jumper {
    /// Checks the parameters.
    pub fn new(params: JumperParams) -> Result<Jumper, ParamsError> {
        for (name, v) in [
            ("run_speed", params.run_speed),
            ("jump_speed", params.jump_speed),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ParamsError::new(format!("{name} must be >= 0, got {v}")));
            }
        }
        for (name, v) in [
            ("coyote_ms", params.coyote_ms),
            ("buffer_ms", params.buffer_ms),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ParamsError::new(format!("{name} must be >= 0 ms, got {v}")));
            }
        }
        Ok(Jumper {
            params,
            touching: Vec::new(),
            grounded: false,
            coyote_left_ms: 0.0,
            buffer_left_ms: 0.0,
            jumps: 0,
        })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Jumper {
    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        let me = ctx.me();
        let Some(pose) = ctx.physics_simulation_pose(me) else {
            return;
        };
        let tick_ms = dt * 1000.0;
        let p = &self.params;
        self.touching.retain(|id| ctx.world().get(*id).is_some());
        // Ground: something touched whose centre is below ours.
        self.grounded = self.touching.iter().any(|&id| {
            ctx.physics_simulation_pose(id)
                .is_some_and(|other| other.y < pose.y)
        });
        self.coyote_left_ms = if self.grounded {
            p.coyote_ms
        } else {
            (self.coyote_left_ms - tick_ms).max(0.0)
        };
        self.buffer_left_ms = if ctx.input().just_pressed(&p.jump) {
            p.buffer_ms
        } else {
            (self.buffer_left_ms - tick_ms).max(0.0)
        };

        let input = ctx.input();
        let dir = f32::from(i8::from(input.pressed(&p.right)) - i8::from(input.pressed(&p.left)));
        let mut velocity = ctx.velocity(me).map_or(Vec2::ZERO, |v| v.linear);
        // Running sets the speed and letting go stops the player dead; while
        // no direction is held the horizontal speed is what the world gives
        // (a conveyor carries a player who stands on it).
        let let_go = input.just_released(&p.left) || input.just_released(&p.right);
        if dir != 0.0 || let_go {
            velocity.x = dir * p.run_speed;
        }
        if self.buffer_left_ms > 0.0 && self.coyote_left_ms > 0.0 {
            velocity.y = p.jump_speed;
            self.buffer_left_ms = 0.0;
            self.coyote_left_ms = 0.0;
            self.jumps += 1;
        }
        ctx.set_velocity(
            me,
            Velocity {
                linear: velocity,
                angular: 0.0,
            },
        );
    }

    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        let solid = ctx
            .world()
            .get(other)
            .and_then(|o| o.body.as_ref())
            .is_some_and(|b| !b.desc.sensor);
        match (kind, self.touching.binary_search(&other)) {
            (ContactKind::Started, Err(at)) if solid => self.touching.insert(at, other),
            (ContactKind::Stopped, Ok(at)) => {
                self.touching.remove(at);
            }
            _ => {}
        }
    }
}

/// Parameters of [`Shuttle`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct ShuttleParams {
    /// How far either side of its start it travels.
    #[inspect(unit = "m")]
    pub span: f32,
    /// One full swing, there and back.
    #[inspect(unit = "s")]
    pub period: f64,
    /// The player it sends back to `respawn_at` on touch.
    pub player: u64,
    /// Where the player starts over.
    #[inspect(unit = "m")]
    pub respawn_at: Vec2,
}

impl Default for ShuttleParams {
    fn default() -> Self {
        ShuttleParams {
            span: 2.0,
            period: 4.0,
            player: 2,
            respawn_at: Vec2::ZERO,
        }
    }
}

/// A hazard on a kinematic path: its x is `start + span × sin(2π t / period)`
/// with `t` the simulation time the coming step ends at, so the path is
/// the same at any display rate, and a rewind replays it exactly.
#[derive(Clone, Debug, Inspect)]
pub struct Shuttle {
    #[inspect(params)]
    params: ShuttleParams,
    /// Where it started, once it has run a tick.
    #[inspect(unit = "m")]
    start: Option<Vec2>,
    /// Times it sent the player back.
    hits: u64,
}

impl Shuttle {
    /// Checks the parameters.
    pub fn new(params: ShuttleParams) -> Result<Shuttle, ParamsError> {
        if !(params.span.is_finite() && params.period.is_finite() && params.period > 0.0) {
            return Err(ParamsError::new("span must be finite and period > 0 s"));
        }
        if !params.respawn_at.is_finite() {
            return Err(ParamsError::new("respawn_at must be finite"));
        }
        Ok(Shuttle {
            params,
            start: None,
            hits: 0,
        })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Shuttle {
    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        let me = ctx.me();
        let Some(pose) = ctx.physics_simulation_pose(me) else {
            return;
        };
        let start = *self.start.get_or_insert(Vec2::new(pose.x, pose.y));
        let t = ctx.clock().simulation_time + dt;
        let phase = std::f64::consts::TAU * t / self.params.period;
        let x = start.x + self.params.span * phase.sin() as f32;
        ctx.set_kinematic_target(me, Pose::new(x, start.y, 0.0));
    }

    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        if kind != ContactKind::Started || other != ObjectId(self.params.player) {
            return;
        }
        let at = self.params.respawn_at;
        ctx.set_pose(other, Pose::new(at.x, at.y, 0.0));
        ctx.set_velocity(other, Velocity::default());
        self.hits += 1;
        ctx.log(format!("hazard: back to the start ({} so far)", self.hits));
    }
}

/// Parameters of [`Collector`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct CollectorParams {
    /// Sensors whose name starts with this are pickups.
    pub prefix: String,
}

impl Default for CollectorParams {
    fn default() -> Self {
        CollectorParams {
            prefix: "Coin".into(),
        }
    }
}

/// Picks up what it touches: a pickup is counted in the fixed phase of the
/// tick the contact starts in, and removed at once, so it is counted once
/// (a removed object has no further contact) and at the same tick at every
/// display rate.
#[derive(Clone, Debug, Inspect)]
pub struct Collector {
    #[inspect(params)]
    params: CollectorParams,
    /// Pickups so far.
    collected: u64,
}

impl Collector {
    /// Checks the parameters.
    pub fn new(params: CollectorParams) -> Result<Collector, ParamsError> {
        if params.prefix.is_empty() {
            return Err(ParamsError::new("prefix must not be empty"));
        }
        Ok(Collector {
            params,
            collected: 0,
        })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Collector {
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        let Some(object) = ctx.world().get(other) else {
            return;
        };
        let pickup = object.name.starts_with(&self.params.prefix)
            && object.body.as_ref().is_some_and(|b| b.desc.sensor);
        if kind == ContactKind::Started && pickup {
            let name = object.name.clone();
            self.collected += 1;
            ctx.remove(other);
            ctx.log(format!("picked up {name}: {} so far", self.collected));
        }
    }
}
