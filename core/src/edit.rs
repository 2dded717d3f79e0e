//! Changes made to a running session from outside its hooks (the editor's
//! inspector and hierarchy, a session recording replayed headless), as data.
//!
//! # Why edits are data
//!
//! A debugger that lets the user teleport the player must be able to show
//! that teleport again: in a past view of any later tick, after a rewind to
//! before it and a replay, and in a headless replay of a saved session. So
//! an edit is never a direct write into the world. It is an [`Edit`] value,
//! stamped with the tick it applies before, that the session's
//! [`History`](crate::History) logs like a frame and replays at the same
//! point, and that a session recording
//! ([`Recording::edits`](crate::Recording::edits)) carries to `stepframe
//! play`, which applies it at the start of its tick whatever the display
//! rate.
//!
//! Two edits need the scene's behaviour registry to be built: new
//! parameters (a fresh behaviour made from the text, whose parameters the
//! running one adopts, keeping its state) and a spawn (the object's
//! behaviours). [`Edit::prepare`] builds them once, so a replay never needs
//! the registry again and never fails where the live call succeeded.
//!
//! # What applies when
//!
//! | edit | takes effect |
//! |---|---|
//! | `Pose`, `Velocity` | a body command, reconciled before the next physics step |
//! | `Enabled`, `Remove` | at once: no further callback for a disabled or removed object |
//! | `Params` | at once: the next hook call runs with them |
//! | `Spawn` | the object at once; its body at the next reconcile, its behaviours at the next outer frame boundary (the contract's rule for every spawn) |
//! | `Settings` | at once when applied at a tick boundary ([`Pipeline::apply_edit`]); the editor's own settings changes wait for the frame boundary instead ([`Pipeline::set_settings`]) |
//! | `Reload` | at once: every behaviour running the resource (a script) adopts its new text, keeping the state that carries over |
//!
//! Save folds a session's edits into the scene it was loaded from
//! ([`Scene::with_edits`](crate::Scene::with_edits), `edit/fold.rs`): an
//! edited object is authored as it was left, every other object keeps its
//! authored pose.
//!
//! A spawn's behaviours join at a frame boundary, so a replay at another
//! display rate can run their first FixedUpdate a tick or two later than the
//! editor did. Every other edit replays at exactly its tick at any rate.

use serde::{Deserialize, Serialize};

mod fold;
pub use fold::Folded;

use crate::behaviour::{Behaviour, Reload};
use crate::body::BodyCommand;
use crate::geometry::{Pose, Velocity};
use crate::ids::ObjectId;
use crate::object::BehaviourInfo;
use crate::pipeline::{Pipeline, SettingsError, TimeSettings};
use crate::scene::{ParamsEditError, Registry, SceneObject};
use crate::spawn::ObjectDesc;

/// One change to a running session (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Edit {
    /// Teleports a body.
    Pose {
        /// The object.
        object: ObjectId,
        /// Its new world pose.
        pose: Pose,
    },
    /// Overwrites a body's velocity.
    Velocity {
        /// The object.
        object: ObjectId,
        /// Its new velocity.
        velocity: Velocity,
    },
    /// Enables or disables an object (and so its subtree).
    Enabled {
        /// The object.
        object: ObjectId,
        /// Whether it is enabled.
        enabled: bool,
    },
    /// New parameters for one behaviour, which keeps its state.
    Params {
        /// The object.
        object: ObjectId,
        /// The behaviour's place in [`Pipeline::behaviour_states`]' order.
        index: usize,
        /// Its registered name (what makes the fresh behaviour, and what a
        /// reader of a session recording sees).
        behaviour: String,
        /// The whole parameter text, RON, checked as a scene load checks it.
        params: String,
    },
    /// A new object, as a scene describes one (its id must be free; its
    /// children are not spawned).
    Spawn(Box<SceneObject>),
    /// Removes an object and its children.
    Remove {
        /// The object.
        object: ObjectId,
    },
    /// New time settings.
    Settings(TimeSettings),
    /// New text for a resource behaviours run (a script file, by its key):
    /// each behaviour running it adopts it now ([`Behaviour::reload`]).
    Reload {
        /// The resource's key (a script's resolved path).
        resource: String,
        /// Its new text.
        text: String,
    },
}

/// What an edit could not do (the session is unchanged).
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// No live object has that id.
    #[error("object {0} does not exist")]
    NoSuchObject(ObjectId),
    /// A pose or velocity edit of an object without a body.
    #[error("object {0} has no body to edit")]
    NoBody(ObjectId),
    /// A pose or velocity with a NaN or an infinity.
    #[error("edit of {0} rejected: not a finite value")]
    NotFinite(ObjectId),
    /// The parameter edit was refused.
    #[error(transparent)]
    Params(#[from] ParamsEditError),
    /// A spawn whose id is taken, or whose description does not build.
    #[error("cannot spawn object {id}: {message}")]
    Spawn {
        /// The id asked for.
        id: u64,
        /// Why.
        message: String,
    },
    /// Settings that cannot run.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The new text of a resource does not run (its old version goes on).
    #[error("{resource} not reloaded: {message}")]
    Reload {
        /// The resource.
        resource: String,
        /// Why, as the behaviour said (a script error names its line).
        message: String,
    },
    /// A parameter edit or a spawn that was never prepared with a registry
    /// ([`Edit::prepare`]).
    #[error("{0} needs the scene's behaviour registry: prepare it first")]
    Unprepared(&'static str),
}

/// An [`Edit`] with what its replay needs already built (see the module
/// docs): the fresh behaviour of a parameter edit, the object of a spawn.
#[derive(Debug)]
pub struct PreparedEdit {
    /// The edit as data (what a session recording writes).
    edit: Edit,
    /// What [`Edit::prepare`] built for it.
    made: Made,
}

/// What a prepared edit carries besides its data.
#[derive(Debug)]
enum Made {
    /// Nothing is needed.
    Nothing,
    /// The behaviour made from a parameter edit's text.
    Behaviour(Box<dyn Behaviour>),
    /// The object of a spawn (boxed: it is large and rare).
    Object(Box<ObjectDesc>),
}

impl Clone for PreparedEdit {
    fn clone(&self) -> PreparedEdit {
        PreparedEdit {
            edit: self.edit.clone(),
            made: match &self.made {
                Made::Nothing => Made::Nothing,
                Made::Behaviour(b) => Made::Behaviour(b.clone_box()),
                Made::Object(desc) => Made::Object(desc.clone()),
            },
        }
    }
}

impl PartialEq for PreparedEdit {
    /// Two prepared edits are the same edit when their data is.
    fn eq(&self, other: &PreparedEdit) -> bool {
        self.edit == other.edit
    }
}

impl Edit {
    /// The object the edit is about (none for settings).
    pub fn object(&self) -> Option<ObjectId> {
        match self {
            Edit::Pose { object, .. }
            | Edit::Velocity { object, .. }
            | Edit::Enabled { object, .. }
            | Edit::Params { object, .. }
            | Edit::Remove { object } => Some(*object),
            Edit::Spawn(o) => Some(ObjectId(o.id)),
            Edit::Settings(_) | Edit::Reload { .. } => None,
        }
    }

    /// Builds what the edit's replays need (module docs): the fresh behaviour
    /// of a parameter edit, the object of a spawn. An edit the registry
    /// refuses (a syntax error, an unknown behaviour) is an error here, with
    /// the position the registry gave.
    pub fn prepare(self, registry: &Registry) -> Result<PreparedEdit, EditError> {
        let made = match &self {
            Edit::Params {
                behaviour, params, ..
            } => {
                let fresh = registry.create(behaviour, params).map_err(|source| {
                    ParamsEditError::Create {
                        name: behaviour.clone(),
                        source,
                    }
                })?;
                Made::Behaviour(fresh)
            }
            Edit::Spawn(o) => Made::Object(Box::new(spawn_desc(o, registry)?)),
            _ => Made::Nothing,
        };
        Ok(PreparedEdit { edit: self, made })
    }
}

/// The object a spawn edit describes, its behaviours made by `registry`.
fn spawn_desc(o: &SceneObject, registry: &Registry) -> Result<ObjectDesc, EditError> {
    let refuse = |message: String| EditError::Spawn { id: o.id, message };
    if o.id == 0 || o.id == u64::MAX {
        return Err(refuse(format!("id {} is reserved", o.id)));
    }
    if !o.transform.is_finite() {
        return Err(refuse("its transform is not finite".to_string()));
    }
    if let Some(body) = &o.body {
        body.check().map_err(|e| refuse(e.to_string()))?;
    }
    let mut behaviours = Vec::with_capacity(o.behaviours.len());
    for spec in &o.behaviours {
        let behaviour = registry
            .create(&spec.name, &spec.params)
            .map_err(|e| refuse(format!("behaviour `{}`: {e}", spec.name)))?;
        let info = BehaviourInfo {
            name: spec.name.clone(),
            priority: spec.priority,
            params: spec.params.clone(),
        };
        behaviours.push((behaviour, info));
    }
    Ok(ObjectDesc {
        id: Some(ObjectId(o.id)),
        name: o.name.clone(),
        parent: o.parent.map(ObjectId),
        local: o.transform,
        enabled: o.enabled,
        body: o.body.clone(),
        behaviours,
        time_group: o.time_group,
    })
}

impl PreparedEdit {
    /// The edit as data.
    pub fn edit(&self) -> &Edit {
        &self.edit
    }

    /// A spawn of an object described in code (tests, tools): the object
    /// is `desc` exactly, behaviours included. Its data ([`PreparedEdit::edit`])
    /// names the object only; a session recording of it cannot be replayed
    /// without the same code.
    pub fn spawn(desc: ObjectDesc) -> PreparedEdit {
        let id = desc.id.map_or(0, |id| id.0);
        let mut data = SceneObject::new(id, desc.name.clone(), desc.local);
        data.parent = desc.parent.map(|p| p.0);
        data.enabled = desc.enabled;
        data.body.clone_from(&desc.body);
        PreparedEdit {
            edit: Edit::Spawn(Box::new(data)),
            made: Made::Object(Box::new(desc)),
        }
    }
}

impl From<Edit> for PreparedEdit {
    /// An edit that needs no registry (a pose, a velocity, enabling,
    /// removing, settings). A parameter edit or a spawn converted this way
    /// is refused when applied ([`EditError::Unprepared`]).
    fn from(edit: Edit) -> PreparedEdit {
        PreparedEdit {
            edit,
            made: Made::Nothing,
        }
    }
}

impl Pipeline {
    /// Applies an edit to the session now (see the module docs for when each
    /// kind takes effect). On an error nothing changes. A session that keeps
    /// a rewind history makes its edits through [`Session::edit`](crate::Session::edit),
    /// which logs them so rewinds and past views repeat them.
    pub fn apply_edit(&mut self, edit: &PreparedEdit) -> Result<(), EditError> {
        let clock = *self.clock();
        let body_edit = |p: &mut Pipeline, object: ObjectId, command: BodyCommand| {
            let has_body = p
                .world()
                .get(object)
                .ok_or(EditError::NoSuchObject(object))?
                .body
                .is_some();
            if !has_body {
                return Err(EditError::NoBody(object));
            }
            if !command.is_finite() {
                return Err(EditError::NotFinite(object));
            }
            p.world_mut()
                .command(command, clock.simulation_tick, clock.frame_index);
            Ok(())
        };
        match (&edit.edit, &edit.made) {
            (Edit::Pose { object, pose }, _) => body_edit(
                self,
                *object,
                BodyCommand::SetPose {
                    target: *object,
                    pose: *pose,
                },
            ),
            (Edit::Velocity { object, velocity }, _) => body_edit(
                self,
                *object,
                BodyCommand::SetVelocity {
                    target: *object,
                    velocity: *velocity,
                },
            ),
            (Edit::Enabled { object, enabled }, _) => {
                self.live_object(*object)?;
                self.world_mut().set_enabled(*object, *enabled);
                Ok(())
            }
            (Edit::Remove { object }, _) => {
                self.live_object(*object)?;
                self.world_mut().remove(*object);
                Ok(())
            }
            (
                Edit::Params {
                    object,
                    index,
                    params,
                    ..
                },
                Made::Behaviour(fresh),
            ) => Ok(self.adopt_params(*object, *index, params, fresh.as_ref())?),
            (Edit::Params { .. }, _) => Err(EditError::Unprepared("a parameter edit")),
            (Edit::Spawn(o), Made::Object(desc)) => {
                // Id 0: a spawn from code that let the world pick (tests).
                if o.id != 0 && !self.world().id_is_free(ObjectId(o.id)) {
                    return Err(EditError::Spawn {
                        id: o.id,
                        message: "the id is taken".to_string(),
                    });
                }
                if let Some(parent) = desc.parent {
                    self.live_object(parent)?;
                }
                self.world_mut().spawn(ObjectDesc::clone(desc));
                Ok(())
            }
            (Edit::Spawn(_), _) => Err(EditError::Unprepared("a spawn")),
            (Edit::Settings(settings), _) => {
                settings.validate()?;
                self.apply_settings_now(*settings);
                Ok(())
            }
            (Edit::Reload { resource, text }, _) => {
                let (mut adopted, mut refused, mut hooks) = (0, None, false);
                self.for_each_behaviour_mut(|_, b| match b.reload(resource, text) {
                    Reload::NotMine => {}
                    Reload::Adopted { hooks_changed } => {
                        adopted += 1;
                        hooks |= hooks_changed;
                    }
                    Reload::Refused(message) => refused = Some(message),
                });
                if hooks {
                    self.note_hooks_changed();
                }
                match (adopted, refused) {
                    (0, Some(message)) => Err(EditError::Reload {
                        resource: resource.clone(),
                        message,
                    }),
                    _ => Ok(()),
                }
            }
        }
    }

    /// `Ok` if `object` is alive.
    fn live_object(&self, object: ObjectId) -> Result<(), EditError> {
        self.world()
            .get(object)
            .map(|_| ())
            .ok_or(EditError::NoSuchObject(object))
    }
}
