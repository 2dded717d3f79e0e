//! Dasher: a player that runs, and dashes with a cooldown counted in
//! simulation milliseconds, with stepframe's editor and tools for its own
//! Rust code.

use serde::{Deserialize, Serialize};
use stepframe_app::{Behaviours, Game};
use stepframe_core::scene::ParamsError;
use stepframe_core::{Behaviour, Ctx, Inspect, Vec2, Velocity};

/// Parameters of [`Dasher`], all optional in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct DasherParams {
    /// Action that runs left.
    pub left: String,
    /// Action that runs right.
    pub right: String,
    /// Action that dashes on its press edge.
    pub dash: String,
    /// Horizontal speed while a direction is held.
    #[inspect(unit = "m/s")]
    pub run_speed: f32,
    /// Horizontal speed of a dash, the way the player faces.
    #[inspect(unit = "m/s")]
    pub dash_speed: f32,
    /// How long a dash lasts.
    #[inspect(unit = "ms")]
    pub dash_ms: f64,
    /// From a dash to the earliest next one.
    #[inspect(unit = "ms")]
    pub cooldown_ms: f64,
}

impl Default for DasherParams {
    fn default() -> Self {
        DasherParams {
            left: "left".into(),
            right: "right".into(),
            dash: "dash".into(),
            run_speed: 4.0,
            dash_speed: 12.0,
            dash_ms: 150.0,
            cooldown_ms: 800.0,
        }
    }
}

/// Runs, and dashes with a cooldown. Both windows count simulation
/// milliseconds: each fixed tick takes its own length off, so a debugger
/// pause (no tick) or a slow display (several ticks a frame) changes
/// neither.
#[derive(Clone, Debug, Inspect)]
pub struct Dasher {
    #[inspect(params)]
    params: DasherParams,
    /// The way it faces: -1 left, 1 right.
    facing: f32,
    /// What is left of the dash under way.
    #[inspect(unit = "ms")]
    dash_left_ms: f64,
    /// Time until it can dash again.
    #[inspect(unit = "ms")]
    cooldown_left_ms: f64,
    /// Dashes made.
    dashes: u64,
}

impl Dasher {
    /// Checks the parameters.
    pub fn new(params: DasherParams) -> Result<Dasher, ParamsError> {
        for (name, v) in [
            ("run_speed", params.run_speed),
            ("dash_speed", params.dash_speed),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ParamsError::new(format!("{name} must be >= 0, got {v}")));
            }
        }
        for (name, v) in [
            ("dash_ms", params.dash_ms),
            ("cooldown_ms", params.cooldown_ms),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ParamsError::new(format!("{name} must be >= 0 ms, got {v}")));
            }
        }
        Ok(Dasher {
            params,
            facing: 1.0,
            dash_left_ms: 0.0,
            cooldown_left_ms: 0.0,
            dashes: 0,
        })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Dasher {
    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        let tick_ms = dt * 1000.0;
        let p = &self.params;
        let input = ctx.input();
        let dir = f32::from(i8::from(input.pressed(&p.right)) - i8::from(input.pressed(&p.left)));
        let dash = input.just_pressed(&p.dash);
        if dir != 0.0 {
            self.facing = dir;
        }
        self.dash_left_ms = (self.dash_left_ms - tick_ms).max(0.0);
        self.cooldown_left_ms = (self.cooldown_left_ms - tick_ms).max(0.0);
        if dash && self.cooldown_left_ms <= 0.0 {
            self.dash_left_ms = p.dash_ms;
            self.cooldown_left_ms = p.cooldown_ms;
            self.dashes += 1;
        }

        let me = ctx.me();
        let mut velocity = ctx.velocity(me).map_or(Vec2::ZERO, |v| v.linear);
        velocity.x = if self.dash_left_ms > 0.0 {
            self.facing * p.dash_speed
        } else {
            dir * p.run_speed
        };
        ctx.set_velocity(
            me,
            Velocity {
                linear: velocity,
                angular: 0.0,
            },
        );
    }
}

/// Every behaviour the game's scenes can name: stepframe's built-ins and
/// the dasher.
pub fn behaviours() -> Behaviours {
    Behaviours::built_in().behaviour(Dasher::new)
}

fn main() -> std::process::ExitCode {
    Game::new("dasher")
        .behaviours(behaviours())
        .scene("assets/scenes/dasher.ron")
        .run()
}
