//! `Attractor`: a per-tick force field.
//!
//! Every FixedUpdate it walks the world's objects in id order
//! ([`stepframe_core::World::objects`], never a hash order) and pulls each
//! dynamic body within `radius` towards its own committed position with a force
//! of `strength × (1 − d / radius)` newtons: full strength at the centre, none at
//! the rim. It is the fixed-code version of the "trigger" attraction sample in
//! the substeps seed: forces, not velocity writes, so the physics stage scales
//! them by the tick (and substep) length and the field acts the same at any tick
//! rate. Bodies closer than 1 cm are left alone (no direction to pull in).

use crate::InvalidParams;
use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, BodyKind, Ctx, Inspect, ObjectId, Vec2};

/// Parameters of [`Attractor`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct AttractorParams {
    /// Reach of the field, m (> 0).
    #[inspect(unit = "m")]
    pub radius: f32,
    /// Force at the centre, N (negative repels).
    #[inspect(unit = "N")]
    pub strength: f32,
}

impl Default for AttractorParams {
    fn default() -> Self {
        AttractorParams {
            radius: 4.0,
            strength: 20.0,
        }
    }
}

/// Pulls dynamic bodies within a radius towards itself (see module docs).
#[derive(Clone, Debug, Inspect)]
pub struct Attractor {
    #[inspect(params)]
    params: AttractorParams,
    /// Scratch: (object, force) of this tick, reused so a tick does not allocate.
    #[inspect(skip)]
    pulls: Vec<(ObjectId, Vec2)>,
}

impl Attractor {
    /// Checks the parameters.
    pub fn new(params: AttractorParams) -> Result<Attractor, InvalidParams> {
        if !(params.radius.is_finite() && params.radius > 0.0) {
            return Err(InvalidParams::new(format!(
                "radius must be > 0, got {}",
                params.radius
            )));
        }
        if !params.strength.is_finite() {
            return Err(InvalidParams::new("strength must be finite"));
        }
        Ok(Attractor {
            params,
            pulls: Vec::new(),
        })
    }
}

/// Closer than this (m), a body has no direction to be pulled in.
const DEAD_ZONE: f32 = 0.01;

#[stepframe_core::behaviour]
impl Behaviour for Attractor {
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        let Some(centre) = ctx.physics_simulation_pose(me) else {
            return;
        };
        let centre = centre.position();
        let (radius, strength) = (self.params.radius, self.params.strength);
        self.pulls.clear();
        for object in ctx.world().objects() {
            let Some(body) = object.body.as_ref() else {
                continue;
            };
            if object.id == me || body.desc.kind != BodyKind::Dynamic {
                continue;
            }
            let offset = centre - body.committed.position();
            let d = offset.length();
            if d >= radius || d < DEAD_ZONE {
                continue;
            }
            let magnitude = strength * (1.0 - d / radius);
            self.pulls.push((object.id, offset * (magnitude / d)));
        }
        for &(id, force) in &self.pulls {
            ctx.apply_force(id, force);
        }
    }
}
