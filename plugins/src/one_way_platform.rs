//! `OneWayPlatform`: a platform you jump up through and land on, built from a
//! mid-step hook ([`Behaviour::mid_step`]).
//!
//! Each substep, for every contact pair of its body, the platform keeps the
//! pair only if it is a landing:
//!
//! - the contact normal (out of the platform, towards the other body) leans
//!   at most `tolerance` radians from `normal`, the platform's pass-through
//!   direction (its own frame: it turns with the body); and
//! - the other body is no deeper than `depth` metres into the platform.
//!
//! Anything else is dropped for that substep, so the solver lets the bodies
//! pass through each other. A body jumping up from below first touches the
//! underside (normal down: dropped); by the time the overlap is deep enough
//! for the normal to flip up it is more than `depth` in (dropped), until it
//! is out above. A body falling onto the top arrives with its normal up and
//! a contact found before it overlaps, so it lands. Worked numbers for the
//! defaults: a 0.4 m ball rising through a 0.2 m platform flips the
//! normal once its centre passes the platform's, 0.6 m deep, far past the
//! 0.1 m of `depth`.
//!
//! The hook takes `&self` and keeps no state between calls: whether a pair
//! is a landing is a function of the pair as it is in that substep, so it is
//! the same at any pacing and after any rewind. Contact callbacks still
//! report the overlap while a body passes through (they come from collision
//! detection, not from the solver).

use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, Inspect, MidStepPair, Vec2};

use crate::InvalidParams;

/// Parameters of [`OneWayPlatform`]; all optional: the defaults make a
/// platform that is solid from above.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct OneWayPlatformParams {
    /// The side you land on, in the platform's own frame: up by default.
    pub normal: Vec2,
    /// How far a contact normal may lean from `normal` and still land.
    #[inspect(unit = "rad")]
    pub tolerance: f32,
    /// How deep a body may already be in the platform and still land on it;
    /// deeper, it is passing through.
    #[inspect(unit = "m")]
    pub depth: f32,
}

impl Default for OneWayPlatformParams {
    fn default() -> Self {
        OneWayPlatformParams {
            normal: Vec2::new(0.0, 1.0),
            tolerance: std::f32::consts::FRAC_PI_4,
            depth: 0.1,
        }
    }
}

/// Solid from one side only (see the module docs).
#[derive(Clone, Debug, Inspect)]
pub struct OneWayPlatform {
    #[inspect(params)]
    params: OneWayPlatformParams,
}

impl OneWayPlatform {
    /// Checks the parameters.
    pub fn new(params: OneWayPlatformParams) -> Result<OneWayPlatform, InvalidParams> {
        let n = params.normal;
        let length = n.length();
        if !(n.is_finite() && length > 1e-6) {
            return Err(InvalidParams::new(format!(
                "normal must be a finite, non-zero direction, got ({}, {})",
                n.x, n.y
            )));
        }
        if !(params.tolerance.is_finite()
            && params.tolerance >= 0.0
            && params.tolerance <= std::f32::consts::PI)
        {
            return Err(InvalidParams::new(format!(
                "tolerance must be between 0 and pi radians, got {}",
                params.tolerance
            )));
        }
        if !(params.depth.is_finite() && params.depth >= 0.0) {
            return Err(InvalidParams::new(format!(
                "depth must be >= 0 m, got {}",
                params.depth
            )));
        }
        Ok(OneWayPlatform { params })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for OneWayPlatform {
    fn mid_step(&self, pair: &mut MidStepPair) {
        // The landing side in world space, turned with the body (its length
        // is `normal`'s: the dot product is compared with cos × length).
        let p = &self.params;
        let (s, c) = pair.my_pose().angle.sin_cos();
        let up = Vec2::new(
            c * p.normal.x - s * p.normal.y,
            s * p.normal.x + c * p.normal.y,
        );
        let n = pair.normal();
        let facing = (n.x * up.x + n.y * up.y) >= p.tolerance.cos() * up.length();
        let shallow = pair
            .points()
            .iter()
            .all(|point| point.separation >= -p.depth);
        if !(facing && shallow) {
            pair.drop_pair();
        }
    }
}
