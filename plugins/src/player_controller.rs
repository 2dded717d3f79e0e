//! `PlayerController`: run, jump and charged jump, all in fixed code.
//!
//! It reads the *simulation* input snapshot (what [`Ctx::input`] is in
//! FixedUpdate), so:
//!
//! - running pushes with a horizontal force every tick an action is held (the
//!   physics stage scales forces by the tick length, so the push does not depend
//!   on the display rate);
//! - a jump is an impulse on the fixed press edge (`just_pressed`): a press seen
//!   by a frame that runs four ticks jumps once, on the first of them, and a press
//!   in a frame that runs no tick jumps on the next tick;
//! - the charged jump measures its charge in simulation milliseconds
//!   (`held_ms`): each tick the action is held adds that tick's length, and the
//!   release edge jumps with `charge_impulse_per_second × charge`. A debugger
//!   pause runs no tick, so it adds nothing: three ticks held across a long pause
//!   are still 50 ms at 60 Hz.
//!
//! Worked numbers at 60 Hz with the defaults: holding `charge` for 30 ticks is
//! 500 ms; on release the body gets `8 N·s/s × 0.5 s = 4 N·s` upwards, so a 1 kg
//! body leaves at 4 m/s.
//!
//! Grounded means touching something (contact callbacks, pruned of removed
//! objects) while not moving vertically faster than [`GROUND_SPEED`];
//! `require_ground: false` lifts the check (air jumps, tests without a floor).

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, ContactKind, Ctx, Inspect, ObjectId, Vec2};

/// Fastest vertical speed, m/s, at which a touching body still counts as
/// standing: a body resting on a box reads a few cm/s; one in mid-jump reads metres.
pub const GROUND_SPEED: f32 = 1.5;

/// Parameters of [`PlayerController`], all optional in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct PlayerControllerParams {
    /// Action that pushes left.
    pub left: String,
    /// Action that pushes right.
    pub right: String,
    /// Action that jumps on its press edge.
    pub jump: String,
    /// Action whose hold charges a jump released on its release edge.
    pub charge: String,
    /// Horizontal force while a direction is held, N.
    #[inspect(unit = "N")]
    pub move_force: f32,
    /// No push beyond this horizontal speed, m/s.
    #[inspect(unit = "m/s")]
    pub max_speed: f32,
    /// Upward impulse of a jump, N·s.
    #[inspect(unit = "N·s")]
    pub jump_impulse: f32,
    /// Upward impulse per second of charge, N·s/s.
    #[inspect(unit = "N·s/s")]
    pub charge_impulse_per_second: f32,
    /// Charge beyond this counts as this, simulation ms.
    #[inspect(unit = "ms")]
    pub max_charge_ms: f64,
    /// Only jump while grounded.
    pub require_ground: bool,
}

impl Default for PlayerControllerParams {
    fn default() -> Self {
        PlayerControllerParams {
            left: "left".into(),
            right: "right".into(),
            jump: "jump".into(),
            charge: "charge".into(),
            move_force: 30.0,
            max_speed: 6.0,
            jump_impulse: 5.0,
            charge_impulse_per_second: 8.0,
            max_charge_ms: 1000.0,
            require_ground: true,
        }
    }
}

/// Runs, jumps and charge-jumps a dynamic body from fixed input (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct PlayerController {
    #[inspect(params)]
    params: PlayerControllerParams,
    /// Objects in contact, sorted.
    touching: Vec<ObjectId>,
    /// Simulation ms the charge action has been held, as of the last tick.
    #[inspect(unit = "ms")]
    charge_ms: f64,
    /// Jumps made (plain and charged): state that shapes the run, so hashed.
    jumps: u64,
}

impl PlayerController {
    /// Checks the parameters.
    pub fn new(params: PlayerControllerParams) -> Result<PlayerController, InvalidParams> {
        let finite_non_negative = [
            ("move_force", params.move_force),
            ("max_speed", params.max_speed),
            ("jump_impulse", params.jump_impulse),
            (
                "charge_impulse_per_second",
                params.charge_impulse_per_second,
            ),
        ];
        for (name, v) in finite_non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return Err(InvalidParams::new(format!(
                    "{name} must be a number >= 0, got {v}"
                )));
            }
        }
        if !(params.max_charge_ms.is_finite() && params.max_charge_ms >= 0.0) {
            return Err(InvalidParams::new(format!(
                "max_charge_ms must be >= 0, got {}",
                params.max_charge_ms
            )));
        }
        Ok(PlayerController {
            params,
            touching: Vec::new(),
            charge_ms: 0.0,
            jumps: 0,
        })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for PlayerController {
    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        let p = &self.params;
        let me = ctx.me();
        let input = ctx.input();
        let left = input.pressed(&p.left);
        let right = input.pressed(&p.right);
        let jump = input.just_pressed(&p.jump);
        let charge_released = input.just_released(&p.charge);
        let charge_held = input.pressed(&p.charge);
        let held_ms = input.held_ms(&p.charge);

        self.touching.retain(|id| ctx.world().get(*id).is_some());
        let velocity = ctx.velocity(me).map_or(Vec2::ZERO, |v| v.linear);
        let grounded =
            !p.require_ground || (!self.touching.is_empty() && velocity.y.abs() <= GROUND_SPEED);

        let dir = f32::from(i8::from(right) - i8::from(left));
        if dir != 0.0 && velocity.x * dir < p.max_speed {
            ctx.apply_force(me, Vec2::new(dir * p.move_force, 0.0));
        }
        if jump && grounded {
            ctx.apply_impulse(me, Vec2::new(0.0, p.jump_impulse));
            self.jumps += 1;
        }
        // Release first: a release and a new press in one tick end one charge
        // and start the next.
        if charge_released {
            let charge_s = self.charge_ms.min(p.max_charge_ms) / 1000.0;
            if charge_s > 0.0 && grounded {
                let impulse = p.charge_impulse_per_second * charge_s as f32;
                ctx.apply_impulse(me, Vec2::new(0.0, impulse));
                self.jumps += 1;
            }
            self.charge_ms = 0.0;
        }
        if charge_held {
            // Held since the tick that saw the press, this tick included.
            self.charge_ms = held_ms + dt * 1000.0;
        }
    }

    fn on_contact(&mut self, _ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        match (kind, self.touching.binary_search(&other)) {
            (ContactKind::Started, Err(at)) => self.touching.insert(at, other),
            (ContactKind::Stopped, Ok(at)) => {
                self.touching.remove(at);
            }
            _ => {}
        }
    }
}
