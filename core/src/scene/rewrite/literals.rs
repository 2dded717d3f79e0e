//! Values that changed, rewritten where they stand: the time settings, and
//! an object's transform, `enabled` flag and behaviour parameters. What has
//! no place in the text (a name, a body, a parent, a list of behaviours
//! changed) is named instead.

use super::*;

impl Rewriter<'_> {
    /// The time settings, field by field; any other setting or the action
    /// map has no place (the editor never changes them).
    pub(super) fn settings(&mut self, root: &Node, current: &Scene, target: &Scene) {
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
    pub(super) fn object(&mut self, node: &Node, current: &SceneObject, target: &SceneObject) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_field_drops_the_field_and_its_comma() {
        let written = "(a: 1, b: (x: 2), c: 3)";
        let node = text::parse(written).expect("readable");
        assert_eq!(without_field(written, &node, "b"), "(a: 1, c: 3)");
        assert_eq!(without_field(written, &node, "c"), "(a: 1, b: (x: 2))");
        assert_eq!(without_field(written, &node, "a"), "(b: (x: 2), c: 3)");
    }
}
