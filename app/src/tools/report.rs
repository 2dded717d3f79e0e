//! The text form of a divergence: one report for `trace-diff`, `check` and
//! `play --sync-test`, so a user reads the same thing wherever runs part.
//!
//! ```text
//! first difference at tick 2 (line 2): behaviour state of #2 changed first, and 2 more
//!   changed first: behaviour state of #2 (1b0c6f9d3e2a4b51 vs 8d2e4f6a0c1b3957)
//!   #2: x 0.015915496 vs 0.011494526 (9377526 ulps)
//!   hash: "5a1b..." vs "9c3d..."
//! ```
//!
//! The headline names the one difference a reader should look at first: the
//! subsystem whose hash changed first (in tick order: clock, fixed input
//! memory, behaviour state by object, session RNG, physics), or, without
//! subsystem hashes, the first differing field in trace order. The lines below
//! list every difference of that tick, grouped as the trace writes them.

use std::fmt;

use serde_json::Value;

use super::trace_diff::TraceDiff;
use crate::compare::tick::{FieldDiff, SubsystemDiff, TickDiff};

/// What the two sides of a comparison are called in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sides {
    /// The first side (the reference).
    pub a: &'static str,
    /// The second side.
    pub b: &'static str,
}

impl Sides {
    /// `trace-diff a b`.
    pub const TRACES: Sides = Sides {
        a: "the first trace",
        b: "the second trace",
    };
    /// A `check` run against the matrix's reference.
    pub const CHECK: Sides = Sides {
        a: "the reference",
        b: "this run",
    };
    /// The sync test's first run against its re-simulation.
    pub const SYNC_TEST: Sides = Sides {
        a: "the first run",
        b: "the re-simulation",
    };
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "(absent)".to_string(), Value::to_string)
}

/// `x 0.1 vs 0.2 (3 ulps)`.
fn field_text(d: &FieldDiff) -> String {
    let mut s = format!(
        "{} {} vs {}",
        d.field,
        show(d.a.as_ref()),
        show(d.b.as_ref())
    );
    match d.ulps {
        Some(1) => s.push_str(" (1 ulp)"),
        Some(n) => s.push_str(&format!(" ({n} ulps)")),
        None => {}
    }
    s
}

/// `#2, #7`.
fn ids(ids: &[u64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Members the trace writes before `inputs`.
fn before_inputs(d: &FieldDiff) -> bool {
    matches!(d.field.as_str(), "tick" | "sim_time")
}

impl SubsystemDiff {
    /// `behaviour state of #2`, `the session RNG`.
    pub fn describe(&self) -> String {
        match (self.subsystem.as_str(), self.object) {
            ("clock", _) => "the clock".to_string(),
            ("input", _) => "fixed input memory".to_string(),
            ("behaviours", Some(id)) => format!("behaviour state of #{id}"),
            ("rng", _) => "the session RNG".to_string(),
            ("physics", _) => "the physics world".to_string(),
            (other, Some(id)) => format!("{other} of #{id}"),
            (other, None) => other.to_string(),
        }
    }

    /// `behaviour state of #2 (1b0c... vs 8d2e...)`.
    fn text(&self) -> String {
        let hash = |h: &Option<String>| h.clone().unwrap_or_else(|| "(absent)".to_string());
        format!(
            "{} ({} vs {})",
            self.describe(),
            hash(&self.a),
            hash(&self.b)
        )
    }
}

impl TickDiff {
    /// The difference to look at first (module docs), and how many more.
    pub fn lead(&self, sides: Sides) -> String {
        let first = if let Some(s) = self.subsystems.first() {
            match self.first_object(sides) {
                // The physics hash is one for the world: the poses say whose.
                Some(object) if s.subsystem == "physics" => {
                    format!("{} changed first: {object}", s.describe())
                }
                _ => format!("{} changed first", s.describe()),
            }
        } else if let Some(f) = self.fields.iter().find(|f| before_inputs(f)) {
            field_text(f)
        } else if self.inputs.is_some() {
            "the inputs differ".to_string()
        } else if self.contacts.is_some() {
            "the contacts differ".to_string()
        } else if let Some(object) = self.first_object(sides) {
            object
        } else if let Some(f) = self.fields.first() {
            field_text(f)
        } else {
            "no difference".to_string()
        };
        match self.items().saturating_sub(1) {
            0 => first,
            more => format!("{first}, and {more} more"),
        }
    }

    /// The first object whose record differs: `#2.x 0.1 vs 0.2 (3 ulps)`, or
    /// `#7 only in the first trace`.
    fn first_object(&self, sides: Sides) -> Option<String> {
        if let Some((o, f)) = self
            .objects
            .first()
            .and_then(|o| o.fields.first().map(|f| (o, f)))
        {
            Some(format!("#{}.{}", o.id, field_text(f)))
        } else if let Some(id) = self.only_in_a.first() {
            Some(format!("#{id} only in {}", sides.a))
        } else {
            self.only_in_b
                .first()
                .map(|id| format!("#{id} only in {}", sides.b))
        }
    }

    /// `first difference at tick 2 (line 2): ...`.
    pub fn headline(&self, sides: Sides) -> String {
        format!(
            "first difference at tick {} (line {}): {}",
            self.tick,
            self.line,
            self.lead(sides)
        )
    }

    /// The headline and one indented line per group of differences.
    pub fn report(&self, sides: Sides) -> String {
        let mut lines = vec![self.headline(sides)];
        if let Some((first, rest)) = self.subsystems.split_first() {
            lines.push(format!("  changed first: {}", first.text()));
            if !rest.is_empty() {
                let rest: Vec<String> = rest.iter().map(SubsystemDiff::text).collect();
                lines.push(format!("  also changed: {}", rest.join("; ")));
            }
        }
        for f in self.fields.iter().filter(|f| before_inputs(f)) {
            lines.push(format!("  {}", field_text(f)));
        }
        if let Some([a, b]) = &self.inputs {
            lines.push(format!("  inputs {a} vs {b}"));
        }
        if let Some(c) = &self.contacts {
            for (side, events) in [(sides.a, &c.only_in_a), (sides.b, &c.only_in_b)] {
                if !events.is_empty() {
                    let events: Vec<String> = events.iter().map(Value::to_string).collect();
                    lines.push(format!("  contacts only in {side}: {}", events.join(", ")));
                }
            }
        }
        for o in &self.objects {
            let fields: Vec<String> = o.fields.iter().map(field_text).collect();
            lines.push(format!("  #{}: {}", o.id, fields.join(", ")));
        }
        for (side, only) in [(sides.a, &self.only_in_a), (sides.b, &self.only_in_b)] {
            if !only.is_empty() {
                lines.push(format!("  only in {side}: {}", ids(only)));
            }
        }
        for f in self.fields.iter().filter(|f| !before_inputs(f)) {
            lines.push(format!("  {}", field_text(f)));
        }
        if !self.has_subsystems {
            lines.push(
                "  (no subsystem hashes on both sides: write the traces with `play --trace-subsystems` to see which state changed first)"
                    .to_string(),
            );
        }
        lines.join("\n")
    }
}

impl fmt::Display for TraceDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceDiff::Identical { ticks } => write!(f, "identical ({ticks} ticks)"),
            TraceDiff::Length {
                common,
                a_ticks,
                b_ticks,
            } => write!(
                f,
                "identical for the first {common} ticks, then the lengths differ: {a_ticks} ticks vs {b_ticks} ticks"
            ),
            TraceDiff::Differs(d) => {
                f.write_str(&d.first.report(Sides::TRACES))?;
                if !d.ranges.is_empty() {
                    let n = d.ranges.len();
                    let ranges = if n == 1 { "range" } else { "ranges" };
                    write!(f, "\ndiverging ticks ({n} {ranges}):")?;
                    for r in &d.ranges {
                        let n = r.last_line - r.first_line + 1;
                        let span = if n == 1 {
                            format!("tick {} (1 tick)", r.first_tick)
                        } else {
                            format!("ticks {}..={} ({n} ticks)", r.first_tick, r.last_tick)
                        };
                        write!(f, "\n  {span}: {}", r.diff.lead(Sides::TRACES))?;
                    }
                }
                if let Some([a, b]) = d.lengths {
                    write!(f, "\nthe lengths differ: {a} ticks vs {b} ticks")?;
                }
                Ok(())
            }
        }
    }
}
