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
//! Saving into a file a person wrote is [`Scene::rewrite_in_place`]: only
//! the values that changed are rewritten where they stand, new objects are
//! appended in the file's own style, and every comment stays (see
//! `scene/rewrite/`). [`Scene::with_edits`] makes the scene to write from
//! a session's edits (`edit/fold.rs`).
//!
//! # Sessions
//!
//! [`Pipeline::load_scene`] starts a fresh session from a scene (world, rapier
//! stage with the scene's gravity, time settings, action map, seed);
//! [`Pipeline::reload_scene`] re-reads the file for a running session and keeps
//! its time settings; a broken file changes nothing.
//!
//! # Where each part lives
//!
//! | file | owns |
//! |---|---|
//! | `scene/mod.rs` | the model: [`Scene`], [`WorldSettings`], [`SceneObject`], [`SceneBehaviour`], [`SceneError`] |
//! | `scene/registry.rs` | [`Registry`]: behaviour names to factories, [`ParamsError`], [`CreateError`] |
//! | `scene/validate.rs` | checking a parsed scene and building its objects, each fault tied to its site |
//! | `scene/spans.rs` | where each object, behaviour and parameter block is in the text: sites to line and column |
//! | `scene/io.rs` | load, parse, save, and loading a scene into a [`Pipeline`] |
//! | `scene/params.rs` | a running behaviour given new parameters ([`Pipeline::set_behaviour_params`]) |
//! | `scene/param_kinds.rs` | what each parameter of a registered type is ([`ParamKind`]: a number, a flag, text, a choice of variants), for typed widgets |
//! | `scene/text.rs` | the text as spans: where each field's value and each list item is |
//! | `scene/rewrite/` | saving into the file in place, comments and layout kept ([`Scene::rewrite_in_place`]): literals in place (`literals.rs`), new objects appended (`append.rs`), removed ones cut (`remove.rs`) |

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ron::extensions::Extensions;
use ron::value::RawValue;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::behaviour::{Behaviour, Named};
use crate::body::BodyDesc;
use crate::geometry::{Pose, Vec2};
use crate::ids::{ObjectId, Priority, TimeGroup};
use crate::input::ActionMap;
use crate::object::BehaviourInfo;
use crate::pipeline::{Pipeline, SettingsError, TimeSettings};
use crate::rapier_stage::RapierStage;
use crate::spawn::ObjectDesc;
use crate::world::World;

mod io;
mod param_kinds;
mod params;
mod registry;
mod rewrite;
mod spans;
mod text;
mod validate;

pub use param_kinds::{ParamKind, ParamKinds, param_kinds};
pub use params::ParamsEditError;
pub use registry::{BehaviourFactory, CreateError, ParamsError, Registry, parse_params};
pub use rewrite::{InPlace, ParamsText, ParamsTextError};
use spans::Reader;
use validate::{Fault, Site, build, flatten};

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
    crate::binary_form::skip_when(*b)
}

fn default_params() -> String {
    EMPTY_PARAMS.to_string()
}

fn is_empty_params(p: &str) -> bool {
    crate::binary_form::skip_when(p == EMPTY_PARAMS)
}

fn is_default_priority(p: &Priority) -> bool {
    crate::binary_form::skip_when(*p == Priority::DEFAULT)
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
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub parent: Option<u64>,
    /// The rigid body, if any.
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub body: Option<BodyDesc>,
    /// Behaviours, by registered name.
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_empty")]
    pub behaviours: Vec<SceneBehaviour>,
    /// Children, nested.
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_empty")]
    pub children: Vec<SceneObject>,
    /// The clock the object's timed routines wait on: `Frame` (the default,
    /// the outer frame clock, even for routines started from FixedUpdate) or
    /// `Fixed` (simulation time).
    #[serde(default, skip_serializing_if = "is_frame_group")]
    pub time_group: TimeGroup,
}

fn is_frame_group(g: &TimeGroup) -> bool {
    crate::binary_form::skip_when(*g == TimeGroup::Frame)
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
/// the position (1-based; 0 when the error has none, like an I/O error), what
/// kind of fault it is (for a caller to act on) and what went wrong (for a
/// person to read).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct SceneError {
    /// What the fault is about, for a caller that treats kinds differently
    /// (the editor keeps a session running on any of them, a tool may retry
    /// an I/O error but not a syntax one).
    pub kind: SceneErrorKind,
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

/// What part of a scene a [`SceneError`] is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SceneErrorKind {
    /// The file could not be read or written, or the scene not serialised.
    Io,
    /// Not RON, or a value of the wrong shape: an unknown field, a wrong type,
    /// a missing value.
    Syntax,
    /// The time settings are out of range (the same check the toolbar and
    /// the player's flags make).
    Time(SettingsError),
    /// Another world setting (the gravity).
    WorldSettings,
    /// The action map: an unnamed or twice-defined action.
    Actions,
    /// An object: a duplicate id, an unknown parent, a body or soft body that
    /// cannot be built.
    Object,
    /// A behaviour name the registry does not know.
    UnknownBehaviour,
    /// A behaviour's parameters, as its factory read them.
    Params,
}

impl SceneError {
    fn unplaced(kind: SceneErrorKind, file: &Path, message: impl Into<String>) -> SceneError {
        SceneError {
            kind,
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}
