//! Where things are in the scene text: the file is read a second time as
//! borrowed [`RawValue`]s, so each object, behaviour name and parameter
//! block keeps its offset, and a fault's site (or a factory's position in
//! its parameters) becomes `scene.ron:12:9`.

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "Scene")]
pub(super) struct RawScene<'a> {
    #[serde(default, borrow)]
    pub(super) settings: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) actions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) objects: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "WorldSettings")]
pub(super) struct RawSettings<'a> {
    #[serde(default = "default_gravity")]
    pub(super) gravity: Vec2,
    #[serde(default, borrow)]
    pub(super) time: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) seed: u64,
}

/// Mirrors [`SceneObject`] field for field, with children and behaviour parts
/// kept as text so their positions are known.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "SceneObject")]
pub(super) struct RawObject<'a> {
    pub(super) id: u64,
    pub(super) name: String,
    #[serde(default)]
    pub(super) transform: Pose,
    #[serde(default = "default_true")]
    pub(super) enabled: bool,
    #[serde(default)]
    pub(super) parent: Option<u64>,
    #[serde(default)]
    pub(super) body: Option<BodyDesc>,
    #[serde(default, borrow)]
    pub(super) behaviours: Vec<RawBehaviour<'a>>,
    #[serde(default, borrow)]
    pub(super) children: Vec<&'a RawValue>,
    #[serde(default)]
    pub(super) time_group: TimeGroup,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "SceneBehaviour")]
pub(super) struct RawBehaviour<'a> {
    #[serde(borrow)]
    pub(super) name: &'a RawValue,
    #[serde(default)]
    pub(super) priority: Priority,
    #[serde(default, borrow)]
    pub(super) params: Option<&'a RawValue>,
}

/// Where the parts of one object start, as byte offsets into the file.
pub(super) struct ObjectSpans {
    pub(super) start: usize,
    /// (name start, params start) per behaviour.
    pub(super) behaviours: Vec<(usize, Option<usize>)>,
}

pub(super) struct Reader<'t> {
    pub(super) text: &'t str,
    pub(super) origin: &'t Path,
    pub(super) options: ron::Options,
    pub(super) time_at: Option<usize>,
    pub(super) settings_at: Option<usize>,
    pub(super) actions_at: Option<usize>,
    /// Pre-order, like [`flatten`].
    pub(super) objects: Vec<ObjectSpans>,
}

/// Line and column (1-based, columns in characters, as ron counts them) of a
/// byte offset.
pub(super) fn position_at(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = 1 + before.bytes().filter(|&b| b == b'\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, 1 + before[line_start..].chars().count())
}

/// Byte offset of a 1-based (line, column) inside `text`.
pub(super) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let rest = &text[start..];
    start
        + rest
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

impl<'t> Reader<'t> {
    /// A reader of `text`, with the extensions the file enables itself
    /// (`#![enable(...)]`), which also apply to the parts read separately.
    pub(super) fn new(text: &'t str, origin: &'t Path) -> Result<Reader<'t>, SceneError> {
        let header = ron::Deserializer::from_str(text).map_err(|e| {
            let (line, column) = (e.span.start.line, e.span.start.col);
            SceneError {
                kind: SceneErrorKind::Syntax,
                file: origin.to_path_buf(),
                line,
                column,
                message: e.code.to_string(),
            }
        })?;
        Ok(Reader {
            text,
            origin,
            options: scene_options(header.extensions()),
            time_at: None,
            settings_at: None,
            actions_at: None,
            objects: Vec::new(),
        })
    }

    /// The whole scene, each part's position kept, nothing checked beyond
    /// the shape of the values.
    pub(super) fn read_scene(&mut self) -> Result<Scene, SceneError> {
        let raw: RawScene = self.parse(self.text)?;
        let mut scene = Scene::default();
        if let Some(s) = raw.settings {
            self.settings_at = Some(self.offset(s.get_ron()));
            let rs: RawSettings = self.parse(s.get_ron())?;
            scene.settings.gravity = rs.gravity;
            scene.settings.seed = rs.seed;
            if let Some(t) = rs.time {
                self.time_at = Some(self.offset(t.get_ron()));
                scene.settings.time = self.parse(t.get_ron())?;
            }
        }
        if let Some(a) = raw.actions {
            self.actions_at = Some(self.offset(a.get_ron()));
            scene.actions = self.parse(a.get_ron())?;
        }
        for o in &raw.objects {
            let object = self.read_object(o)?;
            scene.objects.push(object);
        }
        Ok(scene)
    }

    pub(super) fn offset(&self, part: &str) -> usize {
        (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize)
    }

    pub(super) fn error_at(
        &self,
        kind: SceneErrorKind,
        offset: usize,
        message: impl Into<String>,
    ) -> SceneError {
        // ron places some errors (a wrong type) before the blanks that precede
        // the offending value; point at the value itself.
        let offset = offset.min(self.text.len());
        let rest = self.text.get(offset..).unwrap_or("");
        let offset = offset + (rest.len() - rest.trim_start().len());
        let (line, column) = position_at(self.text, offset);
        SceneError {
            kind,
            file: self.origin.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Parses `part` (a slice of the file) and places its errors in the file.
    pub(super) fn parse<T: Deserialize<'t>>(&self, part: &'t str) -> Result<T, SceneError> {
        self.options.from_str(part).map_err(|e| {
            let base = self.offset(part);
            let inner = offset_of(part, e.span.start.line, e.span.start.col);
            self.error_at(SceneErrorKind::Syntax, base + inner, e.code.to_string())
        })
    }

    pub(super) fn read_object(&mut self, raw: &'t RawValue) -> Result<SceneObject, SceneError> {
        let text = raw.get_ron();
        let o: RawObject<'t> = self.parse(text)?;
        let index = self.objects.len();
        let mut spans = ObjectSpans {
            start: self.offset(text),
            behaviours: Vec::with_capacity(o.behaviours.len()),
        };
        let mut behaviours = Vec::with_capacity(o.behaviours.len());
        for b in &o.behaviours {
            let name: String = self.parse(b.name.get_ron())?;
            spans.behaviours.push((
                self.offset(b.name.get_ron()),
                b.params.map(|p| self.offset(p.get_ron())),
            ));
            behaviours.push(SceneBehaviour {
                name,
                priority: b.priority,
                params: b
                    .params
                    .map_or_else(default_params, |p| p.get_ron().to_string()),
            });
        }
        self.objects.push(spans);
        let mut children = Vec::with_capacity(o.children.len());
        for c in &o.children {
            let mut child = self.read_object(c)?;
            // The loader sets a nested child's parent; a contradicting one is
            // reported by `build`, so keep what was written when it differs.
            if child.parent.is_none() {
                child.parent = Some(o.id);
            }
            children.push(child);
        }
        debug_assert!(index < self.objects.len());
        Ok(SceneObject {
            id: o.id,
            name: o.name,
            transform: o.transform,
            enabled: o.enabled,
            parent: o.parent,
            body: o.body,
            behaviours,
            children,
            time_group: o.time_group,
        })
    }

    /// Where source `s` of action `a` names its key or button: the quote
    /// that opens the name (`Key("Shift")` points at `"Shift"`). Read from
    /// the text's spans, only when a fault needs it.
    fn action_source_at(&self, a: usize, s: usize) -> Option<usize> {
        let root = super::text::parse(self.text).ok()?;
        let source = root
            .field("actions")?
            .field("actions")?
            .items()
            .get(a)?
            .field("sources")?
            .items()
            .get(s)?;
        let written = self.text.get(source.start..source.end)?;
        Some(source.start + written.find('"').unwrap_or(0))
    }

    pub(super) fn place(&self, f: Fault) -> SceneError {
        let at = match f.site {
            Site::Time => self.time_at.or(self.settings_at),
            Site::Settings => self.settings_at,
            Site::Actions => self.actions_at,
            Site::ActionSource(a, s) => self.action_source_at(a, s).or(self.actions_at),
            Site::Object(i) => self.objects.get(i).map(|s| s.start),
            Site::BehaviourName(i, b) => self
                .objects
                .get(i)
                .and_then(|s| s.behaviours.get(b))
                .map(|s| s.0),
            Site::Params(i, b, inner) => {
                let spans = self.objects.get(i).and_then(|s| s.behaviours.get(b));
                match spans {
                    Some((_, Some(start))) => {
                        let params = &self.text[*start..];
                        Some(match inner {
                            Some((line, col)) => start + offset_of(params, line, col),
                            None => *start,
                        })
                    }
                    // Parameters left out: point at the behaviour's name.
                    Some((name, None)) => Some(*name),
                    None => None,
                }
            }
        };
        match at {
            Some(offset) => self.error_at(f.kind, offset, f.message),
            None => SceneError::unplaced(f.kind, self.origin, f.message),
        }
    }
}
