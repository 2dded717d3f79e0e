//! One printed figure of `stepframe bench` and how it is judged: the JSON
//! line, the ratio against its reference, and whether its target holds.
//!
//! A figure read against a reference ([`Figure::ratio`]) is judged on the
//! ratio: 1.2 ms measured against 1.0 ms of reference with `at_most(1.05)`
//! prints `"ratio": 1.2, "target": "ratio <= 1.05", "pass": false`. A figure
//! read on its own ([`Figure::value`]) is judged on the measured value itself.

use serde_json::json;

/// One printed figure.
pub(super) struct Figure {
    name: &'static str,
    measured: f64,
    unit: &'static str,
    reference: Option<f64>,
    /// `(comparison, bound)`: `("<=", 1.05)`.
    target: Option<(&'static str, f64)>,
    /// What the target applies to: the ratio, or the measured value itself.
    on_ratio: bool,
    note: String,
}

impl Figure {
    /// A figure measured against a reference from the same run (the noise of
    /// a shared machine cancels in the ratio): a target bounds
    /// `measured / reference`.
    pub(super) fn ratio(
        name: &'static str,
        measured: f64,
        unit: &'static str,
        reference: f64,
        note: impl Into<String>,
    ) -> Figure {
        Figure {
            reference: Some(reference),
            on_ratio: true,
            ..Figure::value(name, measured, unit, note)
        }
    }

    /// A figure read on its own (a count, or a time printed for
    /// information): a target bounds the measured value.
    pub(super) fn value(
        name: &'static str,
        measured: f64,
        unit: &'static str,
        note: impl Into<String>,
    ) -> Figure {
        Figure {
            name,
            measured,
            unit,
            reference: None,
            target: None,
            on_ratio: false,
            note: note.into(),
        }
    }

    /// The figure passes when what it is judged on is at most `bound`.
    pub(super) fn at_most(self, bound: f64) -> Figure {
        Figure {
            target: Some(("<=", bound)),
            ..self
        }
    }

    /// The figure passes when what it is judged on is at least `bound`.
    pub(super) fn at_least(self, bound: f64) -> Figure {
        Figure {
            target: Some((">=", bound)),
            ..self
        }
    }

    /// Prints the figure's JSON line; false when its target is missed.
    pub(super) fn print(&self) -> bool {
        let ratio = self
            .reference
            .map(|r| if r > 0.0 { self.measured / r } else { f64::NAN });
        let checked = if self.on_ratio {
            ratio
        } else {
            Some(self.measured)
        };
        let pass = match (self.target, checked) {
            (Some(("<=", b)), Some(v)) => Some(v <= b),
            (Some((">=", b)), Some(v)) => Some(v >= b),
            _ => None,
        };
        let line = json!({
            "figure": self.name,
            "measured": round(self.measured),
            "unit": self.unit,
            "reference": self.reference.map(round),
            "ratio": ratio.map(round),
            "target": self.target.map(|(c, b)| format!("{} {c} {b}", if self.on_ratio { "ratio" } else { "measured" })),
            "pass": pass,
            "note": self.note,
        });
        println!("{line}");
        pass != Some(false)
    }
}

/// Four decimals, so a line reads at a glance; infinities and NaN as they are.
pub(super) fn round(v: f64) -> f64 {
    if v.is_finite() {
        (v * 10_000.0).round() / 10_000.0
    } else {
        v
    }
}
