//! `KinematicMover`: a kinematic body following waypoints, in fixed time.
//!
//! Each FixedUpdate advances a point along the path by `speed × fixed_dt` metres
//! (carrying the remainder past a waypoint on to the next leg) and sets that
//! point as the body's kinematic target, so rapier moves the body there during
//! the tick's step and pushes dynamic bodies in the way. The path point is the
//! behaviour's own state (not read back from the body), so it never drifts and a
//! snapshot restores it exactly.
//!
//! Worked numbers: speed 2 m/s at 60 Hz moves 1/30 m per tick; a 4 m leg takes
//! 120 ticks, i.e. 2 s of simulation time at any display rate.

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, Ctx, Inspect, Pose, Vec2};

/// What happens at the last waypoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Inspect)]
pub enum PathMode {
    /// Back to the first waypoint, and round again.
    #[default]
    Loop,
    /// Back along the path, and forth again.
    PingPong,
    /// Stop at the last waypoint.
    Once,
}

/// Parameters of [`KinematicMover`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct KinematicMoverParams {
    /// Waypoints, m; relative to the start position when `relative` is true.
    #[inspect(unit = "m")]
    pub waypoints: Vec<Vec2>,
    /// Speed along the path, m/s (> 0).
    #[inspect(unit = "m/s")]
    pub speed: f32,
    /// Loop, ping-pong or once.
    pub mode: PathMode,
    /// Waypoints are offsets from where the body starts.
    pub relative: bool,
}

impl Default for KinematicMoverParams {
    fn default() -> Self {
        KinematicMoverParams {
            waypoints: vec![Vec2::ZERO, Vec2::new(4.0, 0.0)],
            speed: 2.0,
            mode: PathMode::PingPong,
            relative: true,
        }
    }
}

/// Moves a kinematic body along waypoints (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct KinematicMover {
    #[inspect(params)]
    params: KinematicMoverParams,
    /// Current point on the path (world), once started.
    #[inspect(unit = "m")]
    at: Option<Vec2>,
    /// Where relative waypoints are measured from.
    #[inspect(unit = "m")]
    origin: Vec2,
    /// Body angle, kept as it was at the start.
    #[inspect(unit = "rad")]
    angle: f32,
    /// Index of the waypoint being approached.
    next: usize,
    /// +1 forward, -1 backward (ping-pong).
    forward: bool,
    /// Stopped at the end of a `Once` path.
    done: bool,
}

impl KinematicMover {
    /// Checks the parameters.
    pub fn new(params: KinematicMoverParams) -> Result<KinematicMover, InvalidParams> {
        if params.waypoints.is_empty() {
            return Err(InvalidParams::new("waypoints must list at least one point"));
        }
        if params.waypoints.iter().any(|w| !w.is_finite()) {
            return Err(InvalidParams::new("waypoints must be finite"));
        }
        if !(params.speed.is_finite() && params.speed > 0.0) {
            return Err(InvalidParams::new(format!(
                "speed must be > 0, got {}",
                params.speed
            )));
        }
        Ok(KinematicMover {
            params,
            at: None,
            origin: Vec2::ZERO,
            angle: 0.0,
            next: 0,
            forward: true,
            done: false,
        })
    }

    fn waypoint(&self, i: usize) -> Vec2 {
        let w = self.params.waypoints[i];
        if self.params.relative {
            self.origin + w
        } else {
            w
        }
    }

    /// Moves to the following waypoint index; false when a `Once` path ends.
    fn advance_index(&mut self) -> bool {
        let n = self.params.waypoints.len();
        match self.params.mode {
            PathMode::Loop => self.next = (self.next + 1) % n,
            PathMode::Once => {
                if self.next + 1 >= n {
                    return false;
                }
                self.next += 1;
            }
            PathMode::PingPong => {
                if n == 1 {
                    return true;
                }
                if self.forward && self.next + 1 >= n {
                    self.forward = false;
                } else if !self.forward && self.next == 0 {
                    self.forward = true;
                }
                self.next = if self.forward {
                    self.next + 1
                } else {
                    self.next - 1
                };
            }
        }
        true
    }
}

#[stepframe_core::behaviour]
impl Behaviour for KinematicMover {
    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        let me = ctx.me();
        let mut at = match self.at {
            Some(at) => at,
            None => {
                let Some(pose) = ctx.physics_simulation_pose(me) else {
                    return;
                };
                self.origin = pose.position();
                self.angle = pose.angle;
                pose.position()
            }
        };
        let mut budget = self.params.speed * dt as f32;
        // Each waypoint is passed at most once per tick, plus one partial leg.
        let mut legs = self.params.waypoints.len() + 1;
        while !self.done && budget > 0.0 && legs > 0 {
            legs -= 1;
            let target = self.waypoint(self.next);
            let to = target - at;
            let d = to.length();
            if d <= budget {
                at = target;
                budget -= d;
                if !self.advance_index() {
                    self.done = true;
                }
            } else {
                at = at + to * (budget / d);
                budget = 0.0;
            }
        }
        self.at = Some(at);
        ctx.set_kinematic_target(me, Pose::new(at.x, at.y, self.angle));
    }
}
