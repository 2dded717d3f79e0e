//! `FollowCamera`: a presentation-only behaviour.
//!
//! It implements only [`Behaviour::present`], so it never runs in the update or
//! fixed phase, and a frame whose presentation is skipped (a breakpoint in fixed
//! code, a lone step-tick) does not move the camera. It reads the target's
//! *presentation* pose — interpolated between the two last committed poses by
//! `interpolation_alpha` — through [`Ctx::presentation_pose`] and centres the
//! camera there ([`Ctx::set_camera`]), so the view moves smoothly at any display
//! rate even though bodies only move at the tick rate.

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, Ctx, Inspect, ObjectId, Vec2};

/// Parameters of [`FollowCamera`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct FollowCameraParams {
    /// Object to follow; its own object when left out.
    pub target: Option<u64>,
    /// Added to the target's position, m.
    #[inspect(unit = "m")]
    pub offset: Vec2,
}

/// Centres the camera on an interpolated pose, in presentation (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct FollowCamera {
    #[inspect(params)]
    params: FollowCameraParams,
}

impl FollowCamera {
    /// Checks the parameters.
    pub fn new(params: FollowCameraParams) -> Result<FollowCamera, InvalidParams> {
        if !params.offset.is_finite() {
            return Err(InvalidParams::new("offset must be finite"));
        }
        Ok(FollowCamera { params })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for FollowCamera {
    fn present(&mut self, ctx: &mut Ctx) {
        let target = self.params.target.map_or(ctx.me(), ObjectId);
        if let Some(pose) = ctx.presentation_pose(target) {
            ctx.set_camera(pose.position() + self.params.offset);
        }
    }
}
