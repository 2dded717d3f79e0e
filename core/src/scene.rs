//! Scenes: the RON files a session is loaded from, and the behaviour registry.
//!
//! A scene is plain data: world settings (gravity, every [`TimeSettings`] field,
//! the random seed), the action map, and a tree of objects. Each object has a
//! stable id, a name, a transform, an optional rigid body ([`BodyDesc`]) and
//! behaviours named by their registered name, with typed parameters and a
//! priority. A short scene:
//!
//! ```ron
//! #![enable(implicit_some)]
//! (
//!     settings: (gravity: (x: 0.0, y: -9.81), time: (fixed_hz: 60), seed: 7),
//!     actions: (actions: [(name: "jump", sources: [Key("Space")])]),
//!     objects: [
//!         (id: 1, name: "Ground", transform: (x: 0.0, y: -1.0),
//!          body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 1.0)])),
//!         (id: 2, name: "Player", transform: (x: 0.0, y: 2.0),
//!          body: (shapes: [Circle(radius: 0.5)]),
//!          behaviours: [(name: "PlayerController", priority: Early, params: (jump_impulse: 4.0))],
//!          children: [(id: 3, name: "Hat", transform: (x: 0.0, y: 0.6))]),
//!     ],
//! )
//! ```
//!
//! # Strict loading, with positions
//!
//! Every struct denies unknown fields: a misspelt field is an error, never
//! silently ignored. Every error names the file, the line and the column (the
//! way compilers do, `scene.ron:12:9: ...`) and what was expected. That includes
//! errors inside a behaviour's parameters, which only the behaviour's factory can
//! type-check: the loader keeps each object, behaviour name and parameter block
//! as a [`RawValue`] borrowed from the file text, so it knows where each one
//! starts, and shifts the position a factory reports (relative to its parameter
//! text) back into the file. Semantic errors (duplicate id, unknown parent, bad
//! shape, invalid settings, unknown behaviour) point at the object, the
//! behaviour name, or the settings they concern.
//!
//! # Saving
//!
//! [`Scene::save`] writes a temporary file in the target's directory, syncs it
//! and renames it over the target, so a crash or a full disk leaves either the
//! old file or the new one, never half of one. Saving is lossless: loading a
//! saved scene gives an equal [`Scene`] (behaviour parameters are kept as the
//! RON text that was authored, so a behaviour's own defaults never leak in).
//!
//! # Sessions
//!
//! [`Pipeline::load_scene`] starts a fresh session from a scene (world, rapier
//! stage with the scene's gravity, time settings, action map, seed);
//! [`Pipeline::reload_scene`] re-reads the file for a running session and keeps
//! its time settings; a broken file changes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ron::extensions::Extensions;
use ron::value::RawValue;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::behaviour::Behaviour;
use crate::body::{BodyDesc, Pose, Vec2};
use crate::ids::{ObjectId, Priority, TimeGroup};
use crate::input::ActionMap;
use crate::pipeline::{Pipeline, TimeSettings};
use crate::rapier_stage::RapierStage;
use crate::spawn::ObjectDesc;
use crate::world::{BehaviourInfo, World};

/// Gravity of a scene that does not say otherwise: Earth's, in m/s², down.
pub const DEFAULT_GRAVITY: Vec2 = Vec2::new(0.0, -9.81);

/// Parameter text of a behaviour written without `params`: the empty struct,
/// which a parameter struct with all-default fields accepts.
pub const EMPTY_PARAMS: &str = "()";

fn default_gravity() -> Vec2 {
    DEFAULT_GRAVITY
}

fn default_true() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn default_params() -> String {
    EMPTY_PARAMS.to_string()
}

fn is_empty_params(p: &str) -> bool {
    p == EMPTY_PARAMS
}

fn is_default_priority(p: &Priority) -> bool {
    *p == Priority::DEFAULT
}

/// The RON options every scene is read with: `Some(..)` may be left out of
/// optional fields (`body: (...)` instead of `body: Some((...))`).
fn scene_options(extra: Extensions) -> ron::Options {
    ron::Options::default().with_default_extension(Extensions::IMPLICIT_SOME | extra)
}

/// A whole scene: what a session is loaded from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Gravity, timing and seed of the session.
    #[serde(default)]
    pub settings: WorldSettings,
    /// Input bindings: action names and the keys and buttons that drive them.
    #[serde(default)]
    pub actions: ActionMap,
    /// The root objects; each may nest children.
    #[serde(default)]
    pub objects: Vec<SceneObject>,
}

/// The world-wide settings of a scene.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSettings {
    /// Gravity, m/s² (default [`DEFAULT_GRAVITY`]).
    #[serde(default = "default_gravity")]
    pub gravity: Vec2,
    /// Fixed rate, step cap, delta clamp, substeps, time scale, strategy.
    #[serde(default)]
    pub time: TimeSettings,
    /// Seed of the session's deterministic random generator.
    #[serde(default)]
    pub seed: u64,
}

impl Default for WorldSettings {
    fn default() -> WorldSettings {
        WorldSettings {
            gravity: DEFAULT_GRAVITY,
            time: TimeSettings::default(),
            seed: 0,
        }
    }
}

/// One object of a scene, with its children nested inside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneObject {
    /// Stable id, kept by the world, traces and recordings (0 and `u64::MAX`
    /// are reserved).
    pub id: u64,
    /// Display name.
    pub name: String,
    /// Pose relative to the parent, or world pose for a root object.
    #[serde(default)]
    pub transform: Pose,
    /// A disabled object gets no callback.
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// The parent's id. Set by the loader for nested children; a root object may
    /// name any other object of the scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u64>,
    /// The rigid body, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<BodyDesc>,
    /// Behaviours, by registered name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub behaviours: Vec<SceneBehaviour>,
    /// Children, nested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<SceneObject>,
    /// The clock the object's timed routines wait on: `Frame` (the default,
    /// the outer frame clock, even for routines started from FixedUpdate) or
    /// `Fixed` (simulation time).
    #[serde(default, skip_serializing_if = "is_frame_group")]
    pub time_group: TimeGroup,
}

fn is_frame_group(g: &TimeGroup) -> bool {
    *g == TimeGroup::Frame
}

impl SceneObject {
    /// An enabled root object with no body, behaviour or child.
    pub fn new(id: u64, name: impl Into<String>, transform: Pose) -> SceneObject {
        SceneObject {
            id,
            name: name.into(),
            transform,
            enabled: true,
            parent: None,
            body: None,
            behaviours: Vec::new(),
            children: Vec::new(),
            time_group: TimeGroup::Frame,
        }
    }

    /// Adds a body.
    pub fn with_body(mut self, body: BodyDesc) -> SceneObject {
        self.body = Some(body);
        self
    }

    /// Adds a behaviour.
    pub fn with_behaviour(mut self, behaviour: SceneBehaviour) -> SceneObject {
        self.behaviours.push(behaviour);
        self
    }

    /// Nests a child (its `parent` is set to this object).
    pub fn with_child(mut self, mut child: SceneObject) -> SceneObject {
        child.parent = Some(self.id);
        self.children.push(child);
        self
    }
}

/// A behaviour attached to a scene object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneBehaviour {
    /// Registered name (see [`Registry::names`]).
    pub name: String,
    /// Dispatch priority: a name (`Early`) or a number (`-50`).
    #[serde(default, skip_serializing_if = "is_default_priority")]
    pub priority: Priority,
    /// The parameters as RON text, exactly as authored (`()` when left out);
    /// written back verbatim, so saving never changes them.
    #[serde(
        default = "default_params",
        skip_serializing_if = "is_empty_params",
        with = "raw_ron"
    )]
    pub params: String,
}

impl SceneBehaviour {
    /// A behaviour with the given parameter text.
    pub fn new(name: impl Into<String>, priority: Priority, params: impl Into<String>) -> Self {
        SceneBehaviour {
            name: name.into(),
            priority,
            params: params.into(),
        }
    }
}

/// Serialises a `String` holding RON as that RON, not as a quoted string.
mod raw_ron {
    use ron::value::RawValue;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
        let raw = RawValue::from_ron(text).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Ok(raw.trim().get_ron().to_string())
    }
}

/// A scene that could not be read, checked, saved or instantiated: the file,
/// the position (1-based; 0 when the error has none, like an I/O error) and
/// what went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SceneError {
    /// The scene file (empty for a scene built in memory).
    pub file: PathBuf,
    /// 1-based line, or 0.
    pub line: usize,
    /// 1-based column in characters, or 0.
    pub column: usize,
    /// What was expected, or what is wrong.
    pub message: String,
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = if self.file.as_os_str().is_empty() {
            std::borrow::Cow::Borrowed("<scene>")
        } else {
            self.file.to_string_lossy()
        };
        if self.line == 0 {
            write!(f, "{file}: {}", self.message)
        } else {
            write!(f, "{file}:{}:{}: {}", self.line, self.column, self.message)
        }
    }
}

impl SceneError {
    fn unplaced(file: &Path, message: impl Into<String>) -> SceneError {
        SceneError {
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}

/// A behaviour's parameters were rejected. The position, if any, is relative to
/// the parameter text (1-based); the scene loader shifts it into the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParamsError {
    /// (line, column) within the parameter text, when the error has one.
    pub position: Option<(usize, usize)>,
    /// What was expected.
    pub message: String,
}

impl ParamsError {
    /// An error about the parameters as a whole (a value out of range...).
    pub fn new(message: impl Into<String>) -> ParamsError {
        ParamsError {
            position: None,
            message: message.into(),
        }
    }
}

impl From<ron::error::SpannedError> for ParamsError {
    fn from(e: ron::error::SpannedError) -> ParamsError {
        ParamsError {
            position: Some((e.span.start.line, e.span.start.col)),
            message: e.code.to_string(),
        }
    }
}

/// Builds a behaviour from its RON parameter text.
pub type BehaviourFactory =
    Arc<dyn Fn(&str) -> Result<Box<dyn Behaviour>, ParamsError> + Send + Sync>;

#[derive(Clone)]
struct RegistryEntry {
    factory: BehaviourFactory,
    default_params: String,
}

/// Behaviour factories by name: how a scene's `name: "Spawner"` becomes code.
/// Cheap to clone (factories are shared), and sorted by name.
#[derive(Clone, Default)]
pub struct Registry {
    entries: BTreeMap<String, RegistryEntry>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("names", &self.names())
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers a factory taking raw RON text; `default_params` is what an
    /// editor proposes when the behaviour is added. Replaces a factory of the
    /// same name.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        default_params: impl Into<String>,
        factory: impl Fn(&str) -> Result<Box<dyn Behaviour>, ParamsError> + Send + Sync + 'static,
    ) {
        self.entries.insert(
            name.into(),
            RegistryEntry {
                factory: Arc::new(factory),
                default_params: default_params.into(),
            },
        );
    }

    /// Registers a behaviour with a typed parameter struct `P`: the text is
    /// parsed as RON into `P` (errors keep their position), then `build` checks
    /// values and makes the behaviour. `P::default()` gives the default text.
    /// `build` may capture what every behaviour of the session shares (a
    /// plugin's per-session host, the scene's directory): that is how a
    /// factory learns its session without a global.
    ///
    /// `build`'s error is the plugin's own type (`InvalidParams`,
    /// `ScriptError`): its text becomes the [`ParamsError`] the loader places
    /// at the behaviour's parameters.
    pub fn register_typed<P, E>(
        &mut self,
        name: impl Into<String>,
        build: impl Fn(P) -> Result<Box<dyn Behaviour>, E> + Send + Sync + 'static,
    ) where
        P: DeserializeOwned + Serialize + Default + 'static,
        E: std::error::Error,
    {
        let compact = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .compact_structs(true)
            .compact_arrays(true);
        let default_params = scene_options(Extensions::empty())
            .to_string_pretty(&P::default(), compact)
            .unwrap_or_else(|_| EMPTY_PARAMS.to_string());
        self.register(name, default_params, move |text: &str| {
            let params: P = parse_params(text)?;
            build(params).map_err(|e| ParamsError::new(e.to_string()))
        });
    }

    /// Makes a behaviour from its name and parameter text.
    pub fn create(&self, name: &str, params: &str) -> Result<Box<dyn Behaviour>, CreateError> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| CreateError::UnknownName(self.unknown_message(name)))?;
        (entry.factory)(params).map_err(CreateError::Params)
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }

    /// Whether a name is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The parameter text proposed for a new behaviour of this name.
    pub fn default_params(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| e.default_params.as_str())
    }

    fn unknown_message(&self, name: &str) -> String {
        format!(
            "unknown behaviour `{name}`; registered behaviours: {}",
            if self.entries.is_empty() {
                "(none)".to_string()
            } else {
                self.names().join(", ")
            }
        )
    }
}

/// Parses behaviour parameters the way scenes are parsed (implicit `Some`).
pub fn parse_params<P: DeserializeOwned>(text: &str) -> Result<P, ParamsError> {
    Ok(scene_options(Extensions::empty()).from_str(text)?)
}

/// Why [`Registry::create`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreateError {
    /// No factory of that name; the message lists the registered names.
    #[error("{0}")]
    UnknownName(String),
    /// The factory rejected the parameters.
    #[error("{0}")]
    Params(ParamsError),
}

// ----- checking and building --------------------------------------------------

/// What a scene problem is about: mapped to a file position by the loader.
#[derive(Clone, Copy, Debug)]
enum Site {
    /// The `time` settings.
    Time,
    /// The gravity or another world setting.
    Settings,
    /// The action map.
    Actions,
    /// The object with this pre-order index.
    Object(usize),
    /// The name of behaviour `.1` of object `.0`.
    BehaviourName(usize, usize),
    /// The parameters of behaviour `.1` of object `.0`, with the position the
    /// factory gave inside them.
    Params(usize, usize, Option<(usize, usize)>),
}

#[derive(Debug)]
struct Fault {
    site: Site,
    message: String,
}

fn fault(site: Site, message: impl Into<String>) -> Fault {
    Fault {
        site,
        message: message.into(),
    }
}

/// Objects flattened in pre-order, each with its parent.
fn flatten(scene: &Scene) -> Vec<(&SceneObject, Option<u64>, bool)> {
    fn walk<'s>(
        o: &'s SceneObject,
        container: Option<u64>,
        out: &mut Vec<(&'s SceneObject, Option<u64>, bool)>,
    ) {
        out.push((o, container, container.is_some()));
        for c in &o.children {
            walk(c, Some(o.id), out);
        }
    }
    let mut out = Vec::new();
    for o in &scene.objects {
        walk(o, None, &mut out);
    }
    out
}

fn check_settings(settings: &WorldSettings) -> Result<(), Fault> {
    settings
        .time
        .validate()
        .map_err(|m| fault(Site::Time, m.to_string()))?;
    if !settings.gravity.is_finite() {
        return Err(fault(Site::Settings, "gravity must be finite"));
    }
    Ok(())
}

fn check_actions(actions: &ActionMap) -> Result<(), Fault> {
    let mut seen = BTreeMap::new();
    for a in &actions.actions {
        if a.name.is_empty() {
            return Err(fault(Site::Actions, "an action needs a name"));
        }
        if seen.insert(a.name.as_str(), ()).is_some() {
            return Err(fault(
                Site::Actions,
                format!("action `{}` is defined twice", a.name),
            ));
        }
    }
    Ok(())
}

/// Checks a scene and builds the descriptions of its objects, parents first.
/// The one place scene rules live: loading and instantiating both use it.
fn build(scene: &Scene, registry: &Registry) -> Result<Vec<ObjectDesc>, Fault> {
    check_settings(&scene.settings)?;
    check_actions(&scene.actions)?;
    let flat = flatten(scene);

    // Ids: unique, non-zero, and below u64::MAX (the world numbers spawned
    // objects from the largest id + 1, which must exist).
    let mut index_of: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, (o, _, _)) in flat.iter().enumerate() {
        if o.id == 0 || o.id == u64::MAX {
            return Err(fault(
                Site::Object(i),
                format!("object `{}`: id {} is reserved", o.name, o.id),
            ));
        }
        if let Some(first) = index_of.insert(o.id, i) {
            return Err(fault(
                Site::Object(i),
                format!(
                    "duplicate id {}: object `{}` reuses the id of `{}`",
                    o.id, o.name, flat[first].0.name
                ),
            ));
        }
    }

    // Parents: nested children belong to their container; roots may name any object.
    let mut parent_of: Vec<Option<usize>> = Vec::with_capacity(flat.len());
    for (i, (o, container, nested)) in flat.iter().enumerate() {
        let parent = if *nested { *container } else { o.parent };
        if *nested && o.parent.is_some() && o.parent != *container {
            return Err(fault(
                Site::Object(i),
                format!(
                    "object {} is nested in object {} but names parent {}",
                    o.id,
                    container.unwrap_or(0),
                    o.parent.unwrap_or(0)
                ),
            ));
        }
        parent_of.push(match parent {
            None => None,
            Some(p) => match index_of.get(&p) {
                Some(&pi) => Some(pi),
                None => {
                    return Err(fault(
                        Site::Object(i),
                        format!("object {} `{}`: unknown parent {p}", o.id, o.name),
                    ));
                }
            },
        });
    }

    // Depth of each object; a parent chain longer than the scene is a cycle.
    let mut depth = vec![0usize; flat.len()];
    for i in 0..flat.len() {
        let mut d = 0;
        let mut at = parent_of[i];
        while let Some(p) = at {
            d += 1;
            if d > flat.len() {
                return Err(fault(
                    Site::Object(i),
                    format!("object {}: its parent chain is a cycle", flat[i].0.id),
                ));
            }
            at = parent_of[p];
        }
        depth[i] = d;
    }

    let mut descs = Vec::with_capacity(flat.len());
    let mut order: Vec<usize> = (0..flat.len()).collect();
    order.sort_by_key(|&i| (depth[i], i));
    let mut built: Vec<Option<ObjectDesc>> = (0..flat.len()).map(|_| None).collect();
    for (i, (o, _, _)) in flat.iter().enumerate() {
        if !o.transform.is_finite() {
            return Err(fault(
                Site::Object(i),
                format!("object {}: transform must be finite", o.id),
            ));
        }
        if let Some(body) = &o.body {
            body.check()
                .and_then(|()| body.check_weight(scene.settings.gravity))
                .map_err(|m| {
                    fault(
                        Site::Object(i),
                        format!("object {} `{}`: {m}", o.id, o.name),
                    )
                })?;
        }
        let mut behaviours = Vec::with_capacity(o.behaviours.len());
        for (b, spec) in o.behaviours.iter().enumerate() {
            let behaviour = registry
                .create(&spec.name, &spec.params)
                .map_err(|e| match e {
                    CreateError::UnknownName(m) => fault(Site::BehaviourName(i, b), m),
                    CreateError::Params(p) => fault(
                        Site::Params(i, b, p.position),
                        format!("parameters of `{}`: {}", spec.name, p.message),
                    ),
                })?;
            let info = BehaviourInfo {
                name: spec.name.clone(),
                priority: spec.priority,
                params: spec.params.clone(),
            };
            behaviours.push((behaviour, info));
        }
        built[i] = Some(ObjectDesc {
            id: Some(ObjectId(o.id)),
            name: o.name.clone(),
            parent: parent_of[i].map(|p| ObjectId(flat[p].0.id)),
            local: o.transform,
            enabled: o.enabled,
            body: o.body.clone(),
            behaviours,
            time_group: o.time_group,
        });
    }
    // A body's spawn pose is its world pose (the parent chain composed), and
    // that must fit in f32 too: two finite offsets of 3e38 add up to infinity.
    let mut world_pose: Vec<Pose> = flat.iter().map(|(o, _, _)| o.transform).collect();
    for &i in &order {
        if let Some(p) = parent_of[i] {
            world_pose[i] = world_pose[p].compose(flat[i].0.transform);
        }
        let o = flat[i].0;
        if o.body.is_some() && !world_pose[i].is_finite() {
            return Err(fault(
                Site::Object(i),
                format!(
                    "object {} `{}`: its world pose (its transform composed with its parents') is not finite: {:?}",
                    o.id, o.name, world_pose[i]
                ),
            ));
        }
        if let Some(body) = &o.body
            && let Err(m) = body.check_placement(world_pose[i])
        {
            return Err(fault(
                Site::Object(i),
                format!("object {} `{}`: {m}", o.id, o.name),
            ));
        }
    }
    for i in order {
        if let Some(desc) = built[i].take() {
            descs.push(desc);
        }
    }
    Ok(descs)
}

// ----- parsing with positions -------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "Scene")]
struct RawScene<'a> {
    #[serde(default, borrow)]
    settings: Option<&'a RawValue>,
    #[serde(default, borrow)]
    actions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    objects: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "WorldSettings")]
struct RawSettings<'a> {
    #[serde(default = "default_gravity")]
    gravity: Vec2,
    #[serde(default, borrow)]
    time: Option<&'a RawValue>,
    #[serde(default)]
    seed: u64,
}

/// Mirrors [`SceneObject`] field for field, with children and behaviour parts
/// kept as text so their positions are known.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "SceneObject")]
struct RawObject<'a> {
    id: u64,
    name: String,
    #[serde(default)]
    transform: Pose,
    #[serde(default = "default_true")]
    enabled: bool,
    #[serde(default)]
    parent: Option<u64>,
    #[serde(default)]
    body: Option<BodyDesc>,
    #[serde(default, borrow)]
    behaviours: Vec<RawBehaviour<'a>>,
    #[serde(default, borrow)]
    children: Vec<&'a RawValue>,
    #[serde(default)]
    time_group: TimeGroup,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "SceneBehaviour")]
struct RawBehaviour<'a> {
    #[serde(borrow)]
    name: &'a RawValue,
    #[serde(default)]
    priority: Priority,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// Where the parts of one object start, as byte offsets into the file.
struct ObjectSpans {
    start: usize,
    /// (name start, params start) per behaviour.
    behaviours: Vec<(usize, Option<usize>)>,
}

struct Reader<'t> {
    text: &'t str,
    origin: &'t Path,
    options: ron::Options,
    time_at: Option<usize>,
    settings_at: Option<usize>,
    actions_at: Option<usize>,
    /// Pre-order, like [`flatten`].
    objects: Vec<ObjectSpans>,
}

/// Line and column (1-based, columns in characters, as ron counts them) of a
/// byte offset.
fn position_at(text: &str, offset: usize) -> (usize, usize) {
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
fn offset_of(text: &str, line: usize, column: usize) -> usize {
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
    fn offset(&self, part: &str) -> usize {
        (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize)
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> SceneError {
        // ron places some errors (a wrong type) before the blanks that precede
        // the offending value; point at the value itself.
        let offset = offset.min(self.text.len());
        let rest = self.text.get(offset..).unwrap_or("");
        let offset = offset + (rest.len() - rest.trim_start().len());
        let (line, column) = position_at(self.text, offset);
        SceneError {
            file: self.origin.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Parses `part` (a slice of the file) and places its errors in the file.
    fn parse<T: Deserialize<'t>>(&self, part: &'t str) -> Result<T, SceneError> {
        self.options.from_str(part).map_err(|e| {
            let base = self.offset(part);
            let inner = offset_of(part, e.span.start.line, e.span.start.col);
            self.error_at(base + inner, e.code.to_string())
        })
    }

    fn read_object(&mut self, raw: &'t RawValue) -> Result<SceneObject, SceneError> {
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

    fn place(&self, f: Fault) -> SceneError {
        let at = match f.site {
            Site::Time => self.time_at.or(self.settings_at),
            Site::Settings => self.settings_at,
            Site::Actions => self.actions_at,
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
            Some(offset) => self.error_at(offset, f.message),
            None => SceneError::unplaced(self.origin, f.message),
        }
    }
}

impl Scene {
    /// Reads and checks a scene file (see [`Scene::parse`]).
    pub fn load(path: &Path, registry: &Registry) -> Result<Scene, SceneError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SceneError::unplaced(path, format!("cannot read the scene: {e}")))?;
        Scene::parse(&text, path, registry)
    }

    /// Parses scene text and checks it: unknown fields, wrong types, behaviour
    /// names and parameters (through the registry's factories), duplicate ids,
    /// unknown parents, shapes and settings. `origin` names the file in errors.
    pub fn parse(text: &str, origin: &Path, registry: &Registry) -> Result<Scene, SceneError> {
        // Extensions the file enables itself (`#![enable(...)]`) also apply to
        // the parts read separately.
        let header = ron::Deserializer::from_str(text).map_err(|e| {
            let (line, column) = (e.span.start.line, e.span.start.col);
            SceneError {
                file: origin.to_path_buf(),
                line,
                column,
                message: e.code.to_string(),
            }
        })?;
        let mut reader = Reader {
            text,
            origin,
            options: scene_options(header.extensions()),
            time_at: None,
            settings_at: None,
            actions_at: None,
            objects: Vec::new(),
        };
        let raw: RawScene = reader.parse(text)?;
        let mut scene = Scene::default();
        if let Some(s) = raw.settings {
            reader.settings_at = Some(reader.offset(s.get_ron()));
            let rs: RawSettings = reader.parse(s.get_ron())?;
            scene.settings.gravity = rs.gravity;
            scene.settings.seed = rs.seed;
            if let Some(t) = rs.time {
                reader.time_at = Some(reader.offset(t.get_ron()));
                scene.settings.time = reader.parse(t.get_ron())?;
            }
        }
        if let Some(a) = raw.actions {
            reader.actions_at = Some(reader.offset(a.get_ron()));
            scene.actions = reader.parse(a.get_ron())?;
        }
        for o in &raw.objects {
            let object = reader.read_object(o)?;
            scene.objects.push(object);
        }
        build(&scene, registry).map_err(|f| reader.place(f))?;
        Ok(scene)
    }

    /// The scene as pretty RON, the format [`Scene::parse`] reads.
    pub fn to_ron(&self) -> Result<String, SceneError> {
        let config = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .indentor("    ")
            .depth_limit(3)
            .extensions(Extensions::IMPLICIT_SOME);
        let mut text = ron::Options::default()
            .to_string_pretty(self, config)
            .map_err(|e| SceneError::unplaced(Path::new(""), format!("cannot write RON: {e}")))?;
        text.push('\n');
        Ok(text)
    }

    /// Writes the scene atomically: a temporary file in the same directory,
    /// synced, then renamed over `path`. On failure the temporary file is removed
    /// and an existing file at `path` is untouched.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        let text = self.to_ron().map_err(|e| SceneError {
            file: path.to_path_buf(),
            ..e
        })?;
        crate::atomic_file::write(path, text.as_bytes())
            .map_err(|e| SceneError::unplaced(path, format!("cannot save the scene: {e}")))
    }

    /// Builds the world: one object per scene object, ids kept, parents before
    /// their children, behaviours made by the registry. Checks the scene the way
    /// loading does (a scene edited in memory may have become invalid).
    pub fn instantiate(&self, registry: &Registry) -> Result<World, SceneError> {
        let descs = build(self, registry).map_err(|f| self.describe(f))?;
        let mut world = World::new();
        for desc in descs {
            world.spawn(desc);
        }
        Ok(world)
    }

    /// Every object, parents before children (pre-order).
    pub fn all_objects(&self) -> Vec<&SceneObject> {
        flatten(self).into_iter().map(|(o, _, _)| o).collect()
    }

    /// The object with this id, anywhere in the tree.
    pub fn find(&self, id: u64) -> Option<&SceneObject> {
        flatten(self)
            .into_iter()
            .map(|(o, _, _)| o)
            .find(|o| o.id == id)
    }

    /// A fault in an in-memory scene: no file position, so the message names
    /// the object or behaviour instead.
    fn describe(&self, f: Fault) -> SceneError {
        let flat = flatten(self);
        let object = |i: usize| {
            flat.get(i).map_or_else(String::new, |(o, _, _)| {
                format!("object {} `{}`", o.id, o.name)
            })
        };
        let message = match f.site {
            Site::Time | Site::Settings => format!("settings: {}", f.message),
            Site::Actions => format!("actions: {}", f.message),
            Site::Object(_) => f.message,
            Site::BehaviourName(i, _) => format!("{}: {}", object(i), f.message),
            Site::Params(i, _, at) => match at {
                Some((l, c)) => format!(
                    "{}: {} (at {l}:{c} of the parameters)",
                    object(i),
                    f.message
                ),
                None => format!("{}: {}", object(i), f.message),
            },
        };
        SceneError::unplaced(Path::new(""), message)
    }
}

impl Pipeline {
    /// Starts a fresh session from a scene: its world, a rapier stage with its
    /// gravity, its time settings (applied at the next frame boundary), its action
    /// map and its seed. Frame time goes on; simulation time restarts.
    pub fn load_scene(&mut self, scene: &Scene, registry: &Registry) -> Result<(), SceneError> {
        let world = scene.instantiate(registry)?;
        self.set_settings(scene.settings.time)
            .map_err(|m| SceneError::unplaced(Path::new(""), format!("settings: {m}")))?;
        self.set_action_map(scene.actions.clone());
        self.load_session(
            world,
            Box::new(RapierStage::new(scene.settings.gravity)),
            scene.settings.seed,
        );
        Ok(())
    }

    /// Re-reads a scene file into this session, keeping the time settings in
    /// force (the toolbar's, not the file's). Simulation time restarts, frame
    /// time does not. A file that does not load returns its error and leaves the
    /// running session exactly as it was.
    pub fn reload_scene(&mut self, path: &Path, registry: &Registry) -> Result<Scene, SceneError> {
        let scene = Scene::load(path, registry)?;
        self.reload_parsed(&scene, registry)?;
        Ok(scene)
    }

    /// [`Pipeline::reload_scene`] with a scene already parsed (the editor
    /// keeps the exact text it parsed, to know what Save would replace).
    pub fn reload_parsed(&mut self, scene: &Scene, registry: &Registry) -> Result<(), SceneError> {
        let world = scene.instantiate(registry)?;
        if self.input().map() != &scene.actions {
            self.set_action_map(scene.actions.clone());
        }
        self.load_session(
            world,
            Box::new(RapierStage::new(scene.settings.gravity)),
            scene.settings.seed,
        );
        Ok(())
    }
}
