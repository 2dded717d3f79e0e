//! A session's time settings (scene, player flags, editor toolbar) and what
//! happens to a behaviour whose hook panicked.

use serde::{Deserialize, Serialize};

use crate::stepper::StepStrategy;

/// The timing settings of a session (scene world settings, player flags, editor
/// toolbar). Changes take effect at the next frame boundary.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimeSettings {
    /// Fixed ticks per second (60). Rates dividing 705,600,000 are exact.
    pub fixed_hz: u32,
    /// Longest frame delta accepted, seconds (0.25, Fiedler's clamp).
    pub max_delta: f64,
    /// Most ticks one frame may run (4); the backlog beyond is dropped.
    pub max_steps: u32,
    /// Multiplies the clamped delta (0 runs no tick and no FixedUpdate).
    pub time_scale: f64,
    /// Physics substeps per tick; each advances `fixed_dt / substeps`.
    pub substeps: u32,
    /// Accumulator or step counting: identical tick sequences.
    pub strategy: StepStrategy,
}

impl Default for TimeSettings {
    fn default() -> TimeSettings {
        TimeSettings {
            fixed_hz: 60,
            max_delta: 0.25,
            max_steps: 4,
            time_scale: 1.0,
            substeps: 1,
            strategy: StepStrategy::Accumulator,
        }
    }
}

impl TimeSettings {
    /// The time scales the toolbar offers.
    pub const TIME_SCALES: [f64; 6] = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0];

    /// Rejects settings that cannot run, naming the field and its value.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if self.fixed_hz == 0 || self.fixed_hz > 10_000 {
            return Err(SettingsError::FixedHz(self.fixed_hz));
        }
        if !(self.max_delta.is_finite() && self.max_delta > 0.0) {
            return Err(SettingsError::MaxDelta(self.max_delta));
        }
        if self.max_steps == 0 {
            return Err(SettingsError::MaxSteps);
        }
        if !(self.time_scale.is_finite() && self.time_scale >= 0.0 && self.time_scale <= 64.0) {
            return Err(SettingsError::TimeScale(self.time_scale));
        }
        if self.substeps == 0 || self.substeps > 64 {
            return Err(SettingsError::Substeps(self.substeps));
        }
        Ok(())
    }
}

/// Why [`TimeSettings`] cannot run: the field, its allowed range and the
/// value given, so the scene loader, the player's flags and the editor's
/// toolbar all say the same thing (`fixed_hz must be 1..=10000, got 0`).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// The tick rate is 0 or above 10,000 Hz.
    #[error("fixed_hz must be 1..=10000, got {0}")]
    FixedHz(u32),
    /// The frame-delta clamp is not a positive number of seconds.
    #[error("max_delta must be a positive number of seconds, got {0}")]
    MaxDelta(f64),
    /// The step cap is 0: no frame could ever run a tick.
    #[error("max_steps must be at least 1")]
    MaxSteps,
    /// The time scale is negative, not finite, or above 64.
    #[error("time_scale must be within 0..=64, got {0}")]
    TimeScale(f64),
    /// The physics substeps are 0 or above 64.
    #[error("substeps must be 1..=64, got {0}")]
    Substeps(u32),
}

/// What happens to a behaviour whose hook panicked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FaultPolicy {
    /// The behaviour gets no further callback; its object stays.
    #[default]
    Disable,
    /// The object is removed.
    Remove,
    /// The behaviour is disabled and the debugger suspends (end of tick in fixed code).
    Break,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pipeline;

    #[test]
    fn settings_that_cannot_run_are_refused_naming_the_field_and_the_value() {
        let zero_hz = TimeSettings {
            fixed_hz: 0,
            ..TimeSettings::default()
        };
        assert_eq!(zero_hz.validate(), Err(SettingsError::FixedHz(0)));
        assert_eq!(
            SettingsError::FixedHz(0).to_string(),
            "fixed_hz must be 1..=10000, got 0"
        );
        let mut pipeline = Pipeline::new(TimeSettings::default());
        let too_fine = TimeSettings {
            substeps: 65,
            ..TimeSettings::default()
        };
        assert_eq!(
            pipeline.set_settings(too_fine),
            Err(SettingsError::Substeps(65))
        );
        assert_eq!(pipeline.settings().substeps, 1, "nothing was applied");
    }
}
