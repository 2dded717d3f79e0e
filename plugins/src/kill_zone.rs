//! `KillZone`: a contact callback that removes whatever enters.
//!
//! Put it on a sensor body (a pit below the level). When a dynamic body starts
//! overlapping it, `on_contact(Started)` removes that object with
//! [`Ctx::remove`]. Removal is immediate for callbacks: the removed object gets
//! no further callback, not even the contact callback of the same event that
//! killed it, nor its FixedUpdate in a later tick of the same frame. Its body
//! leaves rapier at the next reconcile.
//!
//! Objects listed in `respawn` are not removed but put back at `respawn_at`
//! with zero velocity (a player falling into the pit).

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::{
    Behaviour, BodyKind, ContactKind, Ctx, Inspect, ObjectId, Pose, Vec2, Velocity,
};

/// Parameters of [`KillZone`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct KillZoneParams {
    /// Ids that are teleported to `respawn_at` instead of removed.
    pub respawn: Vec<u64>,
    /// Where respawned objects reappear (world position).
    #[inspect(unit = "m")]
    pub respawn_at: Vec2,
}

/// Removes dynamic bodies that enter its sensor (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct KillZone {
    #[inspect(params)]
    params: KillZoneParams,
    /// Objects removed so far.
    removed: u64,
}

impl KillZone {
    /// Checks the parameters.
    pub fn new(params: KillZoneParams) -> Result<KillZone, InvalidParams> {
        if !params.respawn_at.is_finite() {
            return Err(InvalidParams::new("respawn_at must be finite"));
        }
        Ok(KillZone { params, removed: 0 })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for KillZone {
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        if kind != ContactKind::Started {
            return;
        }
        let dynamic = ctx
            .world()
            .get(other)
            .and_then(|o| o.body.as_ref())
            .is_some_and(|b| b.desc.kind == BodyKind::Dynamic);
        if !dynamic {
            return;
        }
        if self.params.respawn.contains(&other.0) {
            let at = self.params.respawn_at;
            ctx.set_pose(other, Pose::new(at.x, at.y, 0.0));
            ctx.set_velocity(other, Velocity::default());
            return;
        }
        ctx.remove(other);
        self.removed += 1;
    }
}
