//! `Conveyor`: a belt surface that carries what rests on it, built from a
//! mid-step hook ([`Behaviour::mid_step`]).
//!
//! Each substep, for every contact pair of its body, the conveyor gives its
//! surface a speed along the contact tangent (the contact normal turned a
//! quarter turn clockwise). On its top face the normal points up and the
//! tangent along +x, so a positive `speed` carries things to the right; on
//! its underside the tangent points along -x, so, like a real belt looping
//! round, the bottom runs the other way. The solver's friction does the
//! carrying: a crate at rest on a 2 m/s belt with the default friction of
//! 0.5 is brought up to speed at 0.5 × 9.81 = 4.9 m/s², so in about 0.4 s.
//!
//! Stateless, like [`crate::OneWayPlatform`]: the speed is a function of the
//! parameters only, so the same at every pacing and after any rewind.

use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, Inspect, MidStepPair};

use crate::InvalidParams;

/// Parameters of [`Conveyor`]; all optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
pub struct ConveyorParams {
    /// Belt speed along the surface: positive carries things on top to the
    /// right (+x of the belt's own frame).
    #[inspect(unit = "m/s")]
    pub speed: f32,
}

impl Default for ConveyorParams {
    fn default() -> Self {
        // Visible at a glance: a body crosses a 4 m belt in two seconds.
        ConveyorParams { speed: 2.0 }
    }
}

/// A moving surface (see the module docs).
#[derive(Clone, Debug, Inspect)]
pub struct Conveyor {
    #[inspect(params)]
    params: ConveyorParams,
}

impl Conveyor {
    /// Checks the parameters.
    pub fn new(params: ConveyorParams) -> Result<Conveyor, InvalidParams> {
        if !params.speed.is_finite() {
            return Err(InvalidParams::new(format!(
                "speed must be finite, got {}",
                params.speed
            )));
        }
        Ok(Conveyor { params })
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Conveyor {
    fn mid_step(&self, pair: &mut MidStepPair) {
        pair.set_surface_speed(self.params.speed);
    }
}
