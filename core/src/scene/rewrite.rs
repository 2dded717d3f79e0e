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

use super::text::{self, Kind, Node};
use super::*;

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

    /// The time settings, field by field; any other setting or the action
    /// map has no place (the editor never changes them).
    fn settings(&mut self, root: &Node, current: &Scene, target: &Scene) {
        let (c, t) = (&current.settings, &target.settings);
        if format!("{:?}", c.gravity) != format!("{:?}", t.gravity) {
            self.unplaced.push("the gravity changed".to_string());
        }
        if c.seed != t.seed {
            self.unplaced.push("the seed changed".to_string());
        }
        if current.actions != target.actions {
            self.unplaced.push("the action map changed".to_string());
        }
        if c.time == t.time {
            return;
        }
        let Ok(time) = compact(&t.time) else {
            self.unplaced
                .push("the time settings cannot be written".to_string());
            return;
        };
        match root.field("settings") {
            Some(s) => match s.field("time") {
                Some(node) if matches!(node.kind, Kind::Struct(_)) => {
                    self.patch_struct(node, &t.time);
                }
                Some(node) => self.replace(node, time),
                None if matches!(s.kind, Kind::Struct(_)) => self.insert_field(s, "time", &time),
                None => self.unplaced.push("the time settings changed".to_string()),
            },
            None => self.insert_field(root, "settings", &format!("(time: {time})")),
        }
    }

    /// Rewrites the fields of a struct whose written value is not the
    /// target's: for each field of the target, the text it would have
    /// with the file's value (or without the field, when the file leaves
    /// it out) is read back; only a field that reads differently is
    /// replaced, or added.
    fn patch_struct<T: Serialize + DeserializeOwned + PartialEq>(
        &mut self,
        node: &Node,
        target: &T,
    ) {
        let Some(written) = compact(target).ok() else {
            return;
        };
        let Ok(ours) = text::parse(&written) else {
            return;
        };
        for f in ours.fields() {
            let value = &written[f.value.start..f.value.end];
            let theirs = node.field(&f.key);
            let probe = match theirs {
                Some(v) => format!(
                    "{}{}{}",
                    &written[..f.value.start],
                    self.src(v),
                    &written[f.value.end..]
                ),
                None => without_field(&written, &ours, &f.key),
            };
            if self
                .options
                .from_str::<T>(&probe)
                .is_ok_and(|v| v == *target)
            {
                continue;
            }
            match theirs {
                Some(v) => self.replace(v, value.to_string()),
                None => self.insert_field(node, &f.key, value),
            }
        }
    }

    /// One object present in both scenes: its changed values in place.
    fn object(&mut self, node: &Node, current: &SceneObject, target: &SceneObject) {
        let label = format!("object {} `{}`", current.id, current.name);
        let cannot = |what: &str| format!("{label}: {what} changed");
        if current.name != target.name {
            let m = cannot("its name");
            self.unplaced.push(m);
        }
        if current.parent != target.parent {
            let m = cannot("its parent");
            self.unplaced.push(m);
        }
        if current.body != target.body {
            let m = cannot("its body");
            self.unplaced.push(m);
        }
        if current.time_group != target.time_group {
            let m = cannot("its time group");
            self.unplaced.push(m);
        }
        self.transform(node, current.transform, target.transform);
        if current.enabled != target.enabled {
            let value = if target.enabled { "true" } else { "false" };
            match node.field("enabled") {
                Some(v) => self.replace(v, value.to_string()),
                None => self.insert_field(node, "enabled", value),
            }
        }
        if current.behaviours != target.behaviours {
            self.behaviours(node, &label, &current.behaviours, &target.behaviours);
        }
    }

    fn transform(&mut self, node: &Node, current: Pose, target: Pose) {
        let bits = |p: Pose| [p.x.to_bits(), p.y.to_bits(), p.angle.to_bits()];
        if bits(current) == bits(target) {
            return;
        }
        let Some(t) = node.field("transform") else {
            self.insert_field(node, "transform", &pose_text(target));
            return;
        };
        if !matches!(t.kind, Kind::Struct(_)) {
            self.replace(t, pose_text(target));
            return;
        }
        let parts = [
            ("x", current.x, target.x),
            ("y", current.y, target.y),
            ("angle", current.angle, target.angle),
        ];
        for (key, c, v) in parts {
            if c.to_bits() == v.to_bits() {
                continue;
            }
            match t.field(key) {
                Some(leaf) => self.replace(leaf, float(v)),
                None => self.insert_field(t, key, &float(v)),
            }
        }
    }

    fn behaviours(
        &mut self,
        node: &Node,
        label: &str,
        current: &[SceneBehaviour],
        target: &[SceneBehaviour],
    ) {
        let same_list = current.len() == target.len()
            && current
                .iter()
                .zip(target)
                .all(|(c, t)| c.name == t.name && c.priority == t.priority);
        let written = node.field("behaviours").map(Node::items).unwrap_or(&[]);
        if !same_list || written.len() != current.len() {
            self.unplaced
                .push(format!("{label}: its list of behaviours changed"));
            return;
        }
        for ((c, t), b) in current.iter().zip(target).zip(written) {
            if c.params == t.params {
                continue;
            }
            match b.field("params") {
                Some(p) => self.replace(p, t.params.clone()),
                None if matches!(b.kind, Kind::Struct(_)) => {
                    self.insert_field(b, "params", &t.params);
                }
                None => self
                    .unplaced
                    .push(format!("{label}: the parameters of {} changed", t.name)),
            }
        }
    }

    /// Removes an object's text (see the module docs); comments stay.
    fn remove(&mut self, root: &Node, node: &Node) {
        let text = self.text;
        let Some((list, index)) = containing_list(root, node) else {
            return;
        };
        let line_start = text[..node.start].rfind('\n').map_or(0, |i| i + 1);
        let alone_before = text[line_start..node.start].trim().is_empty();
        let comma = comma_after(text, node.end);
        let after = comma.unwrap_or(node.end);
        let rest = &text[after..];
        let line_end = rest.find('\n').map(|i| after + i + 1);
        let alone_after = line_end.is_some_and(|end| text[after..end].trim().is_empty());
        if alone_before && alone_after {
            self.splice(line_start, line_end.unwrap_or(text.len()), String::new());
            return;
        }
        if let Some(comma) = comma {
            let rest = &text[comma..];
            let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            self.splice(node.start, comma + spaces, String::new());
        } else if index > 0 {
            // The last item, with no comma after it: take the one before.
            let before = &list.items()[index - 1];
            self.splice(before.end, node.end, String::new());
        } else {
            self.splice(node.start, node.end, String::new());
        }
    }

    /// Appends a new object to the top `objects` list, written like the
    /// list's last item.
    fn append(
        &mut self,
        root: &Node,
        nodes: &[&Node],
        flat: &[(&SceneObject, Option<u64>, bool)],
        o: &SceneObject,
    ) {
        let label = format!("new object {} `{}`", o.id, o.name);
        let fields = match self.new_fields(nodes, flat, o) {
            Ok(fields) => fields,
            Err(e) => {
                self.unplaced
                    .push(format!("{label}: cannot be written ({e})"));
                return;
            }
        };
        let Some(list) = root.field("objects") else {
            let line: Vec<String> = fields.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let item = format!("[({})]", line.join(", "));
            if matches!(root.kind, Kind::Struct(_)) {
                self.insert_field(root, "objects", &item);
            } else {
                self.unplaced
                    .push(format!("{label}: the file has no objects list"));
            }
            return;
        };
        let text = self.text;
        let base = indent_at(text, list.start).to_string();
        let Some(last) = list.items().last() else {
            let item = self.object_text(&fields, None, &format!("{base}    "));
            let open = list.start + 1;
            self.splice(open, open, format!("\n{base}    {item},\n{base}"));
            return;
        };
        let indent = indent_at(text, last.start).to_string();
        let item = self.object_text(&fields, Some(last), &indent);
        let multi_line = text[list.start..last.start].contains('\n');
        if !multi_line {
            self.splice(last.end, last.end, format!(", {item}"));
            return;
        }
        match comma_after(text, last.end) {
            Some(comma) => match next_line(text, comma) {
                Some(line) => self.splice(line, line, format!("{indent}{item},\n")),
                None => self.splice(comma, comma, format!("\n{indent}{item},")),
            },
            None => self.splice(last.end, last.end, format!(",\n{indent}{item}")),
        }
    }

    /// The fields of a new object, as `(key, value)` texts. A body or a
    /// list of behaviours equal to one the file already writes on one line
    /// is written the same way (a duplicate reads like its original).
    fn new_fields(
        &self,
        nodes: &[&Node],
        flat: &[(&SceneObject, Option<u64>, bool)],
        o: &SceneObject,
    ) -> Result<Vec<(&'static str, String)>, ron::Error> {
        let written = |pick: &dyn Fn(&SceneObject) -> bool, key: &str| -> Option<String> {
            flat.iter().zip(nodes).find_map(|((c, _, _), node)| {
                let v = node.field(key)?;
                let src = self.src(v);
                (pick(c) && !src.contains('\n')).then(|| src.to_string())
            })
        };
        let mut fields = vec![
            ("id", o.id.to_string()),
            ("name", ron::to_string(&o.name)?),
            ("transform", pose_text(o.transform)),
        ];
        if !o.enabled {
            fields.push(("enabled", "false".to_string()));
        }
        if let Some(p) = o.parent {
            fields.push(("parent", p.to_string()));
        }
        if let Some(body) = &o.body {
            let same = |c: &SceneObject| c.body.as_ref() == Some(body);
            let text = match written(&same, "body") {
                Some(text) => text,
                None => compact(body)?,
            };
            fields.push(("body", text));
        }
        if !o.behaviours.is_empty() {
            let same = |c: &SceneObject| c.behaviours == o.behaviours;
            let text = match written(&same, "behaviours") {
                Some(text) => text,
                None => {
                    let parts: Result<Vec<String>, ron::Error> =
                        o.behaviours.iter().map(behaviour_text).collect();
                    format!("[{}]", parts?.join(", "))
                }
            };
            fields.push(("behaviours", text));
        }
        if o.time_group != TimeGroup::Frame {
            fields.push(("time_group", compact(&o.time_group)?));
        }
        Ok(fields)
    }

    /// A new object's text at `indent`, laid out like `like` (one line, or
    /// a field a line with its indentation and trailing comma).
    fn object_text(&self, fields: &[(&str, String)], like: Option<&Node>, indent: &str) -> String {
        let one_line = || {
            let parts: Vec<String> = fields.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("({})", parts.join(", "))
        };
        let Some(like) = like else {
            return one_line();
        };
        let (Some(first), Some(last)) = (like.fields().first(), like.fields().last()) else {
            return one_line();
        };
        if !self.text[like.start..first.value.start].contains('\n') {
            return one_line();
        }
        let field_indent = indent_at(self.text, first.value.start);
        let close_indent = indent_at(self.text, like.end - 1);
        let close_indent = if self.text[last.value.end..like.end].contains('\n') {
            close_indent
        } else {
            indent
        };
        let trailing = comma_after(self.text, last.value.end).is_some();
        let mut out = String::from("(\n");
        for (i, (k, v)) in fields.iter().enumerate() {
            let comma = if i + 1 < fields.len() || trailing {
                ","
            } else {
                ""
            };
            out.push_str(&format!("{field_indent}{k}: {v}{comma}\n"));
        }
        out.push_str(close_indent);
        out.push(')');
        out
    }
}

/// A behaviour as a new object's list item: `(name: "X", priority: Early,
/// params: (...))`, its parameters as authored.
fn behaviour_text(b: &SceneBehaviour) -> Result<String, ron::Error> {
    let mut parts = vec![format!("name: {}", ron::to_string(&b.name)?)];
    if b.priority != Priority::DEFAULT {
        parts.push(format!("priority: {}", compact(&b.priority)?));
    }
    if b.params != EMPTY_PARAMS {
        parts.push(format!("params: {}", b.params));
    }
    Ok(format!("({})", parts.join(", ")))
}

/// `written` (one struct, from [`compact`]) without its field `key`.
fn without_field(written: &str, node: &Node, key: &str) -> String {
    let fields = node.fields();
    let Some(i) = fields.iter().position(|f| f.key == key) else {
        return written.to_string();
    };
    let key_start = |i: usize| {
        let v = &fields[i].value;
        written[..v.start]
            .rfind(fields[i].key.as_str())
            .unwrap_or(v.start)
    };
    let start = key_start(i);
    let end = if i + 1 < fields.len() {
        key_start(i + 1)
    } else {
        fields[i].value.end
    };
    let mut out = format!("{}{}", &written[..start], &written[end..]);
    if i + 1 == fields.len() {
        // `(a: 1, b: 2)` without `b`: drop the comma before it too.
        let cut = out[..start].trim_end().trim_end_matches(',').len();
        out.replace_range(cut..start, "");
    }
    out
}

/// The list that holds `node` among the scene's objects, and its index.
fn containing_list<'n>(root: &'n Node, node: &Node) -> Option<(&'n Node, usize)> {
    fn walk<'n>(list: &'n Node, node: &Node) -> Option<(&'n Node, usize)> {
        for (i, item) in list.items().iter().enumerate() {
            if item.start == node.start {
                return Some((list, i));
            }
            if let Some(children) = item.field("children")
                && let Some(found) = walk(children, node)
            {
                return Some(found);
            }
        }
        None
    }
    walk(root.field("objects")?, node)
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
    fn without_field_drops_the_field_and_its_comma() {
        let written = "(a: 1, b: (x: 2), c: 3)";
        let node = text::parse(written).expect("readable");
        assert_eq!(without_field(written, &node, "b"), "(a: 1, c: 3)");
        assert_eq!(without_field(written, &node, "c"), "(a: 1, b: (x: 2))");
        assert_eq!(without_field(written, &node, "a"), "(b: (x: 2), c: 3)");
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
