//! One value of a behaviour's parameter text read or set by its path,
//! everything else kept byte for byte: what an inspector's typed widgets
//! edit ([`ParamsText`]).
//!
//! A widget that turns `speed` from 1.0 to 1.5 in
//! `(waypoints: [(x: 0.0, y: 0.0)], speed: 1.0, mode: PingPong)` must send
//! text that differs in those three characters only: written afresh from
//! the parsed struct, the text would lose its comments and layout, and
//! spell out every default the author left out. So the text is read as
//! spans (`scene/text.rs`, the reader saving in place uses) and only the
//! value at the path is replaced:
//!
//! | path | in the text above | after `set(path, "1.5")` |
//! |---|---|---|
//! | `speed` | `1.0` | `… speed: 1.5, mode: PingPong)` |
//! | `waypoints[0].x` | `0.0` | `(waypoints: [(x: 1.5, y: 0.0)], …` |
//! | `relative` | not written | `…, mode: PingPong, relative: 1.5)`: added at the end of its struct, in its layout |
//! | `origin.x` | not written, nor is `origin` | no place (an error): the rest of `origin` is the type's to say |
//!
//! The text is not checked here: the registry checks what is sent, as a
//! scene load does.

use super::*;

/// A behaviour's parameter text as spans: its values found by path
/// (`speed`, `inner.gain`, `waypoints[1].x`), and set one at a time.
#[derive(Debug)]
pub struct ParamsText<'t> {
    /// The text.
    text: &'t str,
    /// Its top value.
    root: Node,
}

/// Why a parameter text could not be read or a value not placed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamsTextError {
    /// The text is not RON a parameter struct is written in.
    #[error("the parameters do not read as RON at line {line}, column {column}")]
    Unreadable {
        /// Line of the place it stops making sense, from 1.
        line: usize,
        /// Its column, from 1.
        column: usize,
    },
    /// Neither the value nor the struct it would be added to is written.
    #[error("`{0}` has no place in the parameters: neither it nor its struct is written")]
    NoPlace(String),
}

/// One step of a path: a struct's field or a list's item.
#[derive(Debug, PartialEq)]
enum Step<'p> {
    Field(&'p str),
    Item(usize),
}

/// `a.b[2].c` as steps; `None` when it is not such a path.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if name.is_empty() {
            return None;
        }
        out.push(Step::Field(name));
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']')?;
            out.push(Step::Item(inner[..close].parse().ok()?));
            rest = &inner[close + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

impl<'t> ParamsText<'t> {
    /// Reads `text` (a parameter struct's RON, as a scene holds it).
    pub fn parse(text: &'t str) -> Result<ParamsText<'t>, ParamsTextError> {
        let root = text::parse(text).map_err(|e| {
            let (line, column) = spans::position_at(text, e.0);
            ParamsTextError::Unreadable { line, column }
        })?;
        Ok(ParamsText { text, root })
    }

    /// The node at `steps`, or the struct holding the missing last field.
    fn find(&self, steps: &[Step<'_>]) -> Option<(&Node, bool)> {
        let mut node = &self.root;
        for (i, step) in steps.iter().enumerate() {
            let next = match step {
                Step::Field(name) => node.field(name),
                Step::Item(index) => node.items().get(*index),
            };
            match next {
                Some(n) => node = n,
                None => {
                    let last = i + 1 == steps.len();
                    let holds = matches!(node.kind, Kind::Struct(_));
                    return (last && holds && matches!(step, Step::Field(_)))
                        .then_some((node, false));
                }
            }
        }
        Some((node, true))
    }

    /// The value at `path` as written (`1.0`, `PingPong`, `"left"`), or
    /// `None` when the text does not write it.
    pub fn literal(&self, path: &str) -> Option<&'t str> {
        let steps = steps(path)?;
        match self.find(&steps)? {
            (node, true) => Some(&self.text[node.start..node.end]),
            (_, false) => None,
        }
    }

    /// Whether [`ParamsText::set`] can place a value at `path`: it is
    /// written, or it is a field missing from a struct that is.
    pub fn can_set(&self, path: &str) -> bool {
        steps(path).is_some_and(|s| self.find(&s).is_some())
    }

    /// The text with the value at `path` written as `literal`: replaced
    /// where it stands, or added at the end of its struct in the struct's
    /// layout; every other byte as it was.
    pub fn set(&self, path: &str, literal: &str) -> Result<String, ParamsTextError> {
        let no_place = || ParamsTextError::NoPlace(path.to_string());
        let steps = steps(path).ok_or_else(no_place)?;
        let (node, written) = self.find(&steps).ok_or_else(no_place)?;
        let mut w = Rewriter {
            text: self.text,
            options: scene_options(Extensions::empty()),
            splices: Vec::new(),
            unplaced: Vec::new(),
        };
        match (written, steps.last()) {
            (true, _) => w.replace(node, literal.to_string()),
            (false, Some(Step::Field(name))) => w.insert_field(node, name, literal),
            (false, _) => return Err(no_place()),
        }
        w.apply().map_err(|_| no_place())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOVER: &str =
        "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: PingPong)";

    #[test]
    fn a_value_is_found_by_its_path_as_written() {
        let p = ParamsText::parse(MOVER).expect("reads");
        assert_eq!(p.literal("speed"), Some("1.0"));
        assert_eq!(p.literal("mode"), Some("PingPong"));
        assert_eq!(p.literal("waypoints[1].x"), Some("2.0"));
        assert_eq!(p.literal("waypoints[2].x"), None);
        assert_eq!(p.literal("relative"), None);
        assert!(p.can_set("relative"), "a field its struct can take");
        assert!(!p.can_set("origin.x"), "no struct to add it to");
        assert!(!p.can_set("waypoints[2].x"), "no third item");
        assert!(!p.can_set("speed..x"), "not a path");
    }

    #[test]
    fn setting_a_value_changes_those_bytes_only() {
        let p = ParamsText::parse(MOVER).expect("reads");
        assert_eq!(
            p.set("speed", "1.5").expect("placed"),
            "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.5, mode: PingPong)"
        );
        assert_eq!(
            p.set("waypoints[1].y", "-0.25").expect("placed"),
            "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: -0.25)], speed: 1.0, mode: PingPong)"
        );
        assert_eq!(
            p.set("relative", "false").expect("placed"),
            "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: PingPong, relative: false)"
        );
        assert_eq!(
            p.set("origin.x", "1.0"),
            Err(ParamsTextError::NoPlace("origin.x".to_string()))
        );
    }

    #[test]
    fn comments_layout_and_the_struct_name_stay() {
        let text = "#![enable(implicit_some)]\nJumperParams(\n    // how fast\n    run_speed: 4.0, /* m/s */\n    left: \"a\",\n)\n";
        let p = ParamsText::parse(text).expect("reads");
        assert_eq!(
            p.set("run_speed", "4.5").expect("placed"),
            "#![enable(implicit_some)]\nJumperParams(\n    // how fast\n    run_speed: 4.5, /* m/s */\n    left: \"a\",\n)\n"
        );
        assert_eq!(
            p.set("jump_speed", "7.0").expect("placed"),
            "#![enable(implicit_some)]\nJumperParams(\n    // how fast\n    run_speed: 4.0, /* m/s */\n    left: \"a\",\n    jump_speed: 7.0,\n)\n"
        );
        let empty = ParamsText::parse("()").expect("reads");
        assert_eq!(empty.set("speed", "2.0").expect("placed"), "(speed: 2.0)");
    }

    #[test]
    fn unreadable_text_says_where() {
        assert_eq!(
            ParamsText::parse("(speed: 1.0,\n  mode: [)").map(|_| ()),
            Err(ParamsTextError::Unreadable {
                line: 2,
                column: 10
            })
        );
    }
}
