//! What a plotted expression reads, and in what unit. The inspector's plot
//! buttons write expressions that read one field of one object
//! (`obj(20).y`, `field(20, "PlayerController.charge_ms")`); a timeline lane
//! of such a watch is titled after that object and field and carries the
//! field's unit, as the clock lanes carry theirs ("dt (ms)"):
//! `Player #20 · y (m)`.
//!
//! The units of `obj`'s fields are the language's own (the module table of
//! [`super`]); a behaviour field's is what its code says
//! (`#[inspect(unit = "ms")]`), so it is asked of the object's behaviours,
//! which only a pipeline that has the object can answer.

use stepframe_core::{ObjectId, Pipeline};

/// What an expression reads when it reads one field of one object
/// (`obj(20).y` → `(20, "y")`, `field(20, "Mover.speed")` →
/// `(20, "Mover.speed")`); `None` for any other expression.
pub fn field_of(expr: &str) -> Option<(ObjectId, String)> {
    if let Some(rest) = expr.strip_prefix("obj(") {
        let (id, field) = rest.split_once(").")?;
        let ok = !field.is_empty() && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        return ok.then(|| Some((ObjectId(id.parse().ok()?), field.to_string())))?;
    }
    let rest = expr.strip_prefix("field(")?.strip_suffix("\")")?;
    let (id, path) = rest.split_once(", \"")?;
    (!path.contains('"')).then(|| Some((ObjectId(id.parse().ok()?), path.to_string())))?
}

/// The unit of one of `obj`'s fields (`None`: a count, a flag, or no such
/// field).
fn obj_unit(field: &str) -> Option<&'static str> {
    match field {
        "x" | "y" => Some("m"),
        "angle" => Some("rad"),
        "vx" | "vy" => Some("m/s"),
        "w" => Some("rad/s"),
        _ => None,
    }
}

/// The unit of what `expr` reads when the expression alone says it: `obj`'s
/// fields (`obj(20).y` → `Some(Some("m"))`), and `Some(None)` for an
/// expression that is not one field's read; `None` for a behaviour field,
/// whose unit only its object's pipeline knows ([`plotted_unit`]). A front
/// end titles a lane with it before the host has said.
pub fn known_unit(expr: &str) -> Option<Option<&'static str>> {
    let Some((_, field)) = field_of(expr) else {
        return Some(None);
    };
    expr.starts_with("obj(").then(|| obj_unit(&field))
}

/// The unit of what `expr` reads, asked of `pipeline`:
/// `Some(Some("m"))` for `obj(20).y`; `Some(None)` when it reads a field
/// without a unit, or is not one field's read (an expression of its own
/// has no unit to claim); `None` when the object it reads is not in
/// `pipeline` to ask (a later tick may have it).
pub fn plotted_unit(expr: &str, pipeline: &Pipeline) -> Option<Option<String>> {
    if let Some(known) = known_unit(expr) {
        return Some(known.map(str::to_string));
    }
    let (id, field) = field_of(expr)?;
    let states = pipeline.behaviour_states(id);
    if states.is_empty() {
        return None;
    }
    let row = states
        .iter()
        .flat_map(|s| &s.fields)
        .find(|f| f.path == field)?;
    Some(row.unit.as_deref().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_field_of_one_object_is_named_and_anything_else_is_not() {
        assert_eq!(field_of("obj(20).y"), Some((ObjectId(20), "y".to_string())));
        assert_eq!(
            field_of("field(20, \"PlayerController.charge_ms\")"),
            Some((ObjectId(20), "PlayerController.charge_ms".to_string()))
        );
        for other in [
            "obj(20).y * 2.0",
            "obj(x).y",
            "field(20, \"a\"b\")",
            "tick",
            "obj(3).",
        ] {
            assert_eq!(field_of(other), None, "{other}");
        }
    }

    #[test]
    fn the_units_of_obj_are_the_languages_and_an_expression_of_its_own_has_none() {
        let p = Pipeline::new(stepframe_core::TimeSettings::default());
        assert_eq!(plotted_unit("obj(20).y", &p), Some(Some("m".to_string())));
        assert_eq!(
            plotted_unit("obj(20).w", &p),
            Some(Some("rad/s".to_string()))
        );
        assert_eq!(plotted_unit("obj(20).pieces", &p), Some(None));
        assert_eq!(plotted_unit("obj(20).y + 1.0", &p), Some(None));
        // No object 20 to ask what its behaviour's field is in.
        assert_eq!(plotted_unit("field(20, \"Mover.speed\")", &p), None);
    }
}
