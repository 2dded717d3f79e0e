//! A new object, appended to the top `objects` list in the style of its
//! last item: indentation, one line or a field a line, trailing commas. A
//! body or a list of behaviours the file already writes is written the same
//! way.

use super::*;

impl Rewriter<'_> {
    /// Appends a new object to the top `objects` list, written like the
    /// list's last item.
    pub(super) fn append(
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
