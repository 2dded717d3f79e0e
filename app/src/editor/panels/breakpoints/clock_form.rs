//! The clock half of the breakpoint form: which rule on the shape of a frame
//! or a tick, and its value (see `stepframe_core::clock_breakpoint` for when
//! each rule is checked and where it stops).

use stepframe_core::{ClockRule, ClockRuleError, Priority};

/// The rule chosen in the form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockChoice {
    /// The frame ran at least N ticks.
    #[default]
    TicksAtLeast,
    /// The frame dropped time.
    DroppedTime,
    /// The frame's delta exceeded X ms.
    DeltaAbove,
    /// Interpolation alpha crossed a threshold.
    AlphaCrosses,
    /// FixedUpdate of one priority took more than X ms in a tick.
    FixedPriorityAbove,
    /// Physics took more than X ms in a tick.
    PhysicsAbove,
}

impl ClockChoice {
    /// Every rule, in the menu's order.
    pub const ALL: [ClockChoice; 6] = [
        ClockChoice::TicksAtLeast,
        ClockChoice::DroppedTime,
        ClockChoice::DeltaAbove,
        ClockChoice::AlphaCrosses,
        ClockChoice::FixedPriorityAbove,
        ClockChoice::PhysicsAbove,
    ];

    /// The menu entry.
    pub fn label(self) -> &'static str {
        match self {
            ClockChoice::TicksAtLeast => "frame ran ≥ N ticks",
            ClockChoice::DroppedTime => "frame dropped time",
            ClockChoice::DeltaAbove => "frame delta > X ms",
            ClockChoice::AlphaCrosses => "alpha crosses a threshold",
            ClockChoice::FixedPriorityAbove => "FixedUpdate of a priority > X ms",
            ClockChoice::PhysicsAbove => "physics > X ms in a tick",
        }
    }

    /// What the value field holds, if the rule has one.
    pub fn value_label(self) -> Option<&'static str> {
        match self {
            ClockChoice::TicksAtLeast => Some("Ticks"),
            ClockChoice::DroppedTime => None,
            ClockChoice::AlphaCrosses => Some("Threshold"),
            ClockChoice::DeltaAbove
            | ClockChoice::FixedPriorityAbove
            | ClockChoice::PhysicsAbove => Some("Milliseconds"),
        }
    }

    /// Where the rule stops, for the menu's hover text.
    pub fn hint(self) -> &'static str {
        match self {
            ClockChoice::TicksAtLeast => {
                "Stops at the end of a frame that ran at least N fixed ticks (2: every catch-up frame)"
            }
            ClockChoice::DroppedTime => {
                "Stops at the end of a frame whose backlog passed the step cap (Max steps)"
            }
            ClockChoice::DeltaAbove => {
                "Stops at the end of a frame whose delta_time (clamped, scaled: the dt lane) is above X ms"
            }
            ClockChoice::AlphaCrosses => {
                "Stops at the end of a frame whose interpolation alpha is on the other side of the threshold from the frame before (either way)"
            }
            ClockChoice::FixedPriorityAbove => {
                "Stops at the end of a tick in which FixedUpdate at the Priority field took more than X ms (wall time)"
            }
            ClockChoice::PhysicsAbove => {
                "Stops at the end of a tick whose physics (reconcile, step, commit) took more than X ms (wall time)"
            }
        }
    }

    /// The choice that builds `rule`.
    pub fn of(rule: &ClockRule) -> ClockChoice {
        match rule {
            ClockRule::TicksAtLeast(_) => ClockChoice::TicksAtLeast,
            ClockRule::DroppedTime => ClockChoice::DroppedTime,
            ClockRule::DeltaAbove { .. } => ClockChoice::DeltaAbove,
            ClockRule::AlphaCrosses { .. } => ClockChoice::AlphaCrosses,
            ClockRule::FixedPriorityAbove { .. } => ClockChoice::FixedPriorityAbove,
            ClockRule::PhysicsAbove { .. } => ClockChoice::PhysicsAbove,
        }
    }

    /// Whether the rule reads the form's priority field.
    pub fn needs_priority(self) -> bool {
        self == ClockChoice::FixedPriorityAbove
    }

    /// The rule, from the typed value (and priority), or why not.
    pub fn build(self, value: &str, priority: Option<Priority>) -> Result<ClockRule, FormError> {
        let v = value.trim();
        let number = |field: &'static str| -> Result<f64, FormError> {
            v.parse::<f64>().map_err(|_| FormError::NotNumber {
                field,
                text: v.to_string(),
            })
        };
        let rule = match self {
            ClockChoice::TicksAtLeast => {
                ClockRule::TicksAtLeast(v.parse::<u32>().map_err(|_| FormError::NotWhole {
                    field: "ticks",
                    text: v.to_string(),
                })?)
            }
            ClockChoice::DroppedTime => ClockRule::DroppedTime,
            ClockChoice::DeltaAbove => ClockRule::DeltaAbove {
                ms: number("milliseconds")?,
            },
            ClockChoice::AlphaCrosses => ClockRule::AlphaCrosses {
                threshold: number("threshold")?,
            },
            ClockChoice::FixedPriorityAbove => ClockRule::FixedPriorityAbove {
                priority: priority.ok_or(FormError::NoPriority)?,
                ms: number("milliseconds")?,
            },
            ClockChoice::PhysicsAbove => ClockRule::PhysicsAbove {
                ms: number("milliseconds")?,
            },
        };
        rule.validate()?;
        Ok(rule)
    }
}

/// Why the breakpoints form cannot build a breakpoint: which field, and what
/// it should hold. Shown under the form; the form keeps what was typed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FormError {
    /// A field that takes a whole number holds something else.
    #[error("{field}: `{text}` is not a whole number")]
    NotWhole {
        /// The field's name as the form labels it.
        field: &'static str,
        /// What it holds.
        text: String,
    },
    /// A field that takes a number holds something else.
    #[error("{field}: `{text}` is not a number")]
    NotNumber {
        /// The field's name as the form labels it.
        field: &'static str,
        /// What it holds.
        text: String,
    },
    /// The priority field is neither a number nor a named priority.
    #[error("priority: `{0}` is neither a number nor First/Input/Early/Default/Late/Camera/Last")]
    Priority(String),
    /// The rule watches a priority's time and none was given.
    #[error("priority: give the priority whose FixedUpdate time to watch")]
    NoPriority,
    /// "Selected object" with nothing selected.
    #[error("select an object first (viewport or hierarchy), or choose \"any object\"")]
    NoSelection,
    /// From tick is after to tick.
    #[error("tick range {0}..={1} is empty")]
    EmptyRange(u64, u64),
    /// Every 0 ticks.
    #[error("every N ticks: N must be at least 1")]
    EveryZero,
    /// A hit count rule without its n.
    #[error("hit count: give n ≥ 1 for this rule")]
    NoHitCount,
    /// The clock rule could never hold, or always would.
    #[error(transparent)]
    Rule(#[from] ClockRuleError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_choice_builds_its_rule_and_refuses_bad_values() {
        assert_eq!(
            ClockChoice::TicksAtLeast.build(" 3 ", None),
            Ok(ClockRule::TicksAtLeast(3))
        );
        assert_eq!(
            ClockChoice::DroppedTime.build("", None),
            Ok(ClockRule::DroppedTime)
        );
        assert_eq!(
            ClockChoice::FixedPriorityAbove.build("2.5", Some(Priority(-100))),
            Ok(ClockRule::FixedPriorityAbove {
                priority: Priority(-100),
                ms: 2.5
            })
        );
        assert!(ClockChoice::FixedPriorityAbove.build("2.5", None).is_err());
        assert!(ClockChoice::TicksAtLeast.build("1.5", None).is_err());
        assert!(ClockChoice::AlphaCrosses.build("1.2", None).is_err());
        assert!(ClockChoice::PhysicsAbove.build("fast", None).is_err());
    }
}
