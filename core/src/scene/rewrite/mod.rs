//! Saving into the file a scene came from, keeping what a person wrote:
//! [`Scene::rewrite_in_place`].
//!
//! Writing the whole scene afresh ([`Scene::to_ron`]) loses every comment
//! and the layout a person chose. Instead, the text is read as spans
//! (`scene/text.rs`) and only what changed is touched:
//!
//! | change | what is written |
//! |---|---|
//! | a transform's `x`, `y` or `angle` | that literal, replaced where it stands; a missing field (or `transform`) is added at the end of its struct |
//! | `enabled` | the literal, or `enabled: false` added |
//! | a behaviour's parameters | its `params` value, replaced whole |
//! | the time settings | each changed field of `time`, in place |
//! | a new object | appended to the top `objects` list in the style of its last item: indentation, one line or one field a line, trailing commas |
//! | a removed object | its text and its comma; its lines when it stood alone on them. Comments stay |
//!
//! Floats are written with Rust's `{:?}`, the shortest text that parses
//! back to the same `f32` (ron reads an `f32` field with `f32::from_str`),
//! so a reload gives the saved value bit for bit: `0.1` stays `0.1`, a drag
//! to 2.3000002 is written `2.3000002`.
//!
//! A change with no place in the text (a body's shape, a name, an action
//! map: nothing the editor's edits make) is named instead
//! ([`InPlace::Unplaced`]) and nothing is rewritten. And the rewritten text
//! is loaded before it is returned: if it would not load as exactly the
//! target scene (every float compared bit for bit), that is an error, so a
//! caller never writes a file that reads back as something else.
//!
//! | module | what |
//! |---|---|
//! | this one | [`Scene::rewrite_in_place`]: the text read as spans, each object matched to its node, the replacements applied and the result checked to load as the target; the text helpers every change writes with |
//! | `literals` | changed values where they stand: the time settings, a transform, `enabled`, parameters |
//! | `append` | a new object, in the style of the list's last item |
//! | `remove` | a removed object, its comments kept |
//! | `param_text` | one value of a behaviour's parameter text, read or set by its path ([`ParamsText`]): what the inspector's typed widgets edit |

use super::text::{self, Kind, Node};
use super::*;

mod append;
mod literals;
mod param_text;
mod remove;

pub use param_text::{ParamsText, ParamsTextError};

/// What [`Scene::rewrite_in_place`] made of the text.
#[derive(Clone, Debug, PartialEq)]
pub enum InPlace {
    /// Every change was placed: the new text, checked to load as the target.
    Placed(String),
    /// These changes have no place in the text (one line each, naming the
    /// object or setting); nothing was rewritten.
    Unplaced(Vec<String>),
}

/// One replacement of `start..end` by `text`.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

/// The text being rewritten and the replacements decided so far.
struct Rewriter<'t> {
    text: &'t str,
    options: ron::Options,
    splices: Vec<Splice>,
    unplaced: Vec<String>,
}

impl Scene {
    /// `text` (a scene file, as [`Scene::parse`] reads it) rewritten so that
    /// it loads as `target`, changing only what differs (see the module
    /// docs). `origin` names the file in errors; `registry` checks the
    /// result as a load would. An error means the text could not be read or
    /// the rewrite would not load as `target`: nothing is lost, the caller
    /// still has its text.
    pub fn rewrite_in_place(
        text: &str,
        origin: &Path,
        target: &Scene,
        registry: &Registry,
    ) -> Result<InPlace, SceneError> {
        let (current, options) = Scene::parse_unchecked(text, origin)?;
        let unreadable = |at: usize, what: &str| {
            let (line, column) = spans::position_at(text, at);
            SceneError {
                kind: SceneErrorKind::Syntax,
                file: origin.to_path_buf(),
                line,
                column,
                message: format!("cannot rewrite the scene in place: {what}"),
            }
        };
        let root = text::parse(text).map_err(|e| unreadable(e.0, "unreadable text here"))?;
        let mut nodes = Vec::new();
        if let Some(objects) = root.field("objects") {
            for o in objects.items() {
                object_nodes(o, &mut nodes);
            }
        }
        let flat = flatten(&current);
        if nodes.len() != flat.len() {
            return Err(unreadable(
                root.start,
                "the objects are not where ron read them",
            ));
        }
        let mut w = Rewriter {
            text,
            options,
            splices: Vec::new(),
            unplaced: Vec::new(),
        };
        w.settings(&root, &current, target);
        let targets: BTreeMap<u64, &SceneObject> = flatten(target)
            .into_iter()
            .map(|(o, _, _)| (o.id, o))
            .collect();
        let currents: BTreeMap<u64, usize> = flat
            .iter()
            .enumerate()
            .map(|(i, (o, _, _))| (o.id, i))
            .collect();
        for ((o, _, _), node) in flat.iter().zip(&nodes) {
            match targets.get(&o.id) {
                Some(t) => w.object(node, o, t),
                None => {
                    // Removed with its parent when the parent went too.
                    let parent_gone = o
                        .parent
                        .is_some_and(|p| currents.contains_key(&p) && !targets.contains_key(&p));
                    if !parent_gone {
                        w.remove(&root, node);
                    }
                }
            }
        }
        let added: Vec<&SceneObject> = flatten(target)
            .into_iter()
            .map(|(o, _, _)| o)
            .filter(|o| !currents.contains_key(&o.id))
            .collect();
        for o in added {
            w.append(&root, &nodes, &flat, o);
        }
        if !w.unplaced.is_empty() {
            return Ok(InPlace::Unplaced(w.unplaced));
        }
        let rewritten = w
            .apply()
            .map_err(|at| unreadable(at, "two changes overlap"))?;
        let reread = Scene::parse(&rewritten, origin, registry).map_err(|e| SceneError {
            message: format!("the rewritten scene would not load: {}", e.message),
            ..e
        })?;
        if let Some(difference) = first_difference(&reread, target) {
            return Err(SceneError::unplaced(
                SceneErrorKind::Io,
                origin,
                format!("the rewritten scene would not load as the edited one: {difference}"),
            ));
        }
        Ok(InPlace::Placed(rewritten))
    }
}

/// An object's node and its children's, pre-order (as [`flatten`]).
fn object_nodes<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
    out.push(node);
    if let Some(children) = node.field("children") {
        for c in children.items() {
            object_nodes(c, out);
        }
    }
}

/// The first way two scenes differ as sessions, or `None`: settings, actions,
/// and each object by id (its fields, not where in the tree it is written),
/// floats compared bit for bit (`{:?}` tells `-0.0` from `0.0`).
pub(super) fn first_difference(a: &Scene, b: &Scene) -> Option<String> {
    if format!("{:?}", a.settings) != format!("{:?}", b.settings) {
        return Some("the settings differ".to_string());
    }
    if a.actions != b.actions {
        return Some("the actions differ".to_string());
    }
    let by_id = |s: &Scene| -> BTreeMap<u64, String> {
        flatten(s)
            .into_iter()
            .map(|(o, _, _)| {
                let mut bare = o.clone();
                bare.children.clear();
                (o.id, format!("{bare:?}"))
            })
            .collect()
    };
    let (a, b) = (by_id(a), by_id(b));
    for (id, text) in &a {
        match b.get(id) {
            None => return Some(format!("object {id} is in one and not the other")),
            Some(other) if other != text => return Some(format!("object {id} differs")),
            Some(_) => {}
        }
    }
    b.keys()
        .find(|id| !a.contains_key(id))
        .map(|id| format!("object {id} is in one and not the other"))
}

/// A float as the file gets it: the shortest text that reads back the same.
fn float(v: f32) -> String {
    format!("{v:?}")
}

/// A transform as a new field's value.
fn pose_text(p: Pose) -> String {
    if p.angle.to_bits() == 0 {
        format!("(x: {}, y: {})", float(p.x), float(p.y))
    } else {
        format!(
            "(x: {}, y: {}, angle: {})",
            float(p.x),
            float(p.y),
            float(p.angle)
        )
    }
}

/// A value as one line of RON (`(kind: Fixed, shapes: [Circle(radius: 0.5)])`).
fn compact<T: Serialize>(value: &T) -> Result<String, ron::Error> {
    let config = ron::ser::PrettyConfig::new()
        .struct_names(false)
        .compact_structs(true)
        .compact_arrays(true)
        .compact_maps(true)
        .new_line("")
        .indentor("");
    ron::Options::default().to_string_pretty(value, config)
}

/// The blanks that start the line holding byte `at`.
fn indent_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// After byte `at`: the start of the next line when only blanks and a line
/// comment stand before the line break.
fn next_line(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let blanks = rest.len() - rest.trim_start_matches([' ', '\t', '\r']).len();
    let rest = &rest[blanks..];
    if rest.starts_with("//") || rest.starts_with('\n') {
        rest.find('\n').map(|i| at + blanks + i + 1)
    } else {
        None
    }
}

/// The comma right after `at` (over blanks, not over comments): one past it.
fn comma_after(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let blanks = rest.len() - rest.trim_start().len();
    rest[blanks..].starts_with(',').then_some(at + blanks + 1)
}

impl Rewriter<'_> {
    fn splice(&mut self, start: usize, end: usize, text: String) {
        self.splices.push(Splice { start, end, text });
    }

    fn replace(&mut self, node: &Node, text: String) {
        self.splice(node.start, node.end, text);
    }

    fn src(&self, node: &Node) -> &str {
        &self.text[node.start..node.end]
    }

    /// The splices applied, last first; `Err(offset)` if two overlap.
    fn apply(mut self) -> Result<String, usize> {
        self.splices.sort_by_key(|s| (s.start, s.end));
        let mut out = String::with_capacity(self.text.len() + 256);
        let mut at = 0;
        for s in &self.splices {
            if s.start < at {
                return Err(s.start);
            }
            out.push_str(&self.text[at..s.start]);
            out.push_str(&s.text);
            at = s.end;
        }
        out.push_str(&self.text[at..]);
        Ok(out)
    }

    /// Adds `key: value` at the end of a struct, in its layout: on its own
    /// line at the fields' indentation (with the trailing comma the last
    /// field has) when the struct has a field a line, else `, key: value`.
    fn insert_field(&mut self, node: &Node, key: &str, value: &str) {
        let Some(last) = node.fields().last() else {
            // `()`, or `Name()`: the field goes inside the parentheses.
            let open = node.start + self.src(node).find('(').unwrap_or(0);
            self.splice(open + 1, open + 1, format!("{key}: {value}"));
            return;
        };
        let last_end = last.value.end;
        let first = &node.fields()[0].value;
        let multi_line = self.text[node.start..first.start].contains('\n');
        if !multi_line {
            self.splice(last_end, last_end, format!(", {key}: {value}"));
            return;
        }
        let indent = indent_at(self.text, last.value.start).to_string();
        match comma_after(self.text, last_end) {
            Some(comma) => match next_line(self.text, comma) {
                Some(line) => self.splice(line, line, format!("{indent}{key}: {value},\n")),
                None => self.splice(comma, comma, format!("\n{indent}{key}: {value},")),
            },
            None => self.splice(last_end, last_end, format!(",\n{indent}{key}: {value}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_writes_one_line_with_spaces() {
        let body = crate::body::BodyDesc::with_kind(
            crate::body::BodyKind::Fixed,
            crate::body::Shape::Circle { radius: 0.5 },
        );
        let text = compact(&body).expect("writes");
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.starts_with("(kind: Fixed, shapes: [Circle(radius: 0.5)]"),
            "{text}"
        );
    }

    #[test]
    fn a_float_is_written_as_the_shortest_text_that_reads_back_the_same() {
        for v in [0.1f32, -12.0, 2.300_000_2, 1e-7, f32::MAX, -0.0, 0.301] {
            let text = float(v);
            let back: f32 = text.parse().expect("a float");
            assert_eq!(back.to_bits(), v.to_bits(), "{v} written as {text}");
        }
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(-12.0), "-12.0");
    }
}
