//! A behaviour's state when it writes no fields (a game's own behaviour
//! without `#[derive(Inspect)]`): the inspector has only its `Debug` text
//! ([`stepframe_core::Behaviour::state_text`]'s default, `{:#?}`), shown as
//! a small table of its top-level fields rather than as a block of Rust.
//!
//! `{:#?}` of a struct puts one field a line, four spaces in, and a nested
//! value over the lines up to its closer at the same depth:
//!
//! ```text
//! Tally {                     count   6
//!     count: 6,               step    2
//!     step: 2,           →    last    Some((1.5, 2.0))
//!     last: Some(
//!         (
//!             1.5,
//!             2.0,
//!         ),
//!     ),
//! }
//! ```
//!
//! A tuple struct's fields are numbered from 0; text in no such shape is
//! shown as it is, in the body font.

/// The top-level fields of a `{:#?}` text, each with its value on one line;
/// `None` when the text is not a struct or tuple struct printed that way.
pub(super) fn state_rows(text: &str) -> Option<Vec<(String, String)>> {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let (first, body) = lines.split_first()?;
    let (last, body) = body.split_last()?;
    let named = first.trim_end().ends_with(" {");
    let closer = if named { "}" } else { ")" };
    if !(named || first.trim_end().ends_with('(')) || last.trim() != closer {
        return None;
    }
    // One group of lines a field: a field starts four spaces in.
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for line in body {
        let field_start = line.starts_with("    ")
            && !line[4..].starts_with(' ')
            && !line[4..].starts_with([')', ']', '}']);
        match groups.last_mut() {
            Some(group) if !field_start => group.push(line),
            _ if field_start => groups.push(vec![line]),
            _ => return None,
        }
    }
    groups
        .iter()
        .enumerate()
        .map(|(i, group)| {
            let head = group[0].trim();
            let (name, rest) = if named {
                let (name, rest) = head.split_once(": ")?;
                (name.to_string(), rest)
            } else {
                (i.to_string(), head)
            };
            let mut parts = vec![rest];
            parts.extend(group[1..].iter().map(|l| l.trim()));
            Some((name, one_line(&parts)))
        })
        .collect()
}

/// A value spread over lines by `{:#?}` on one line as `{:?}` prints it:
/// `Some(` `(` `1.5,` `2.0,` `),` `),` → `Some((1.5, 2.0))`.
fn one_line(parts: &[&str]) -> String {
    let mut s = String::new();
    for part in parts {
        let opens = s.ends_with(['(', '[']) || s.is_empty();
        if !opens && !part.starts_with([')', ']']) {
            s.push(' ');
        }
        s.push_str(part);
    }
    let s = s.replace(",)", ")").replace(",]", "]").replace(", }", " }");
    s.trim_end_matches(',').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    #[expect(dead_code, reason = "read through Debug")]
    struct Inner {
        x: f32,
        y: f32,
    }

    #[derive(Debug)]
    struct Sample {
        count: u64,
        last: Option<(f32, f32)>,
        at: Inner,
        seen: Vec<u32>,
        name: &'static str,
    }

    #[derive(Debug)]
    #[expect(dead_code, reason = "read through Debug")]
    struct Pair(u8, Vec<u8>);

    fn rows(text: &str) -> Vec<(String, String)> {
        state_rows(text).unwrap_or_else(|| panic!("not a struct: {text}"))
    }

    #[test]
    fn a_struct_becomes_one_row_a_field_each_value_as_debug_prints_it_on_one_line() {
        let s = Sample {
            count: 6,
            last: Some((1.5, 2.0)),
            at: Inner { x: 1.0, y: -2.5 },
            seen: vec![3, 4],
            name: "a, b",
        };
        let want: Vec<(String, String)> = [
            ("count", format!("{:?}", s.count)),
            ("last", format!("{:?}", s.last)),
            ("at", format!("{:?}", s.at)),
            ("seen", format!("{:?}", s.seen)),
            ("name", format!("{:?}", s.name)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        assert_eq!(rows(&format!("{s:#?}")), want);
    }

    #[test]
    fn a_tuple_struct_numbers_its_fields_and_other_text_is_not_a_table() {
        let p = Pair(7, vec![1, 2]);
        assert_eq!(
            rows(&format!("{p:#?}")),
            vec![
                ("0".to_string(), "7".to_string()),
                ("1".to_string(), "[1, 2]".to_string())
            ]
        );
        assert_eq!(state_rows("script a.rhai\nlet x = 1.0\n"), None);
        assert_eq!(state_rows("Unit"), None);
    }
}
