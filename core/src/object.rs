//! What an object is made of, and how one is described before it exists.
//!
//! [`ObjectDesc`] is what a scene (or a spawning hook) hands to
//! [`World::spawn`](crate::World::spawn); [`Object`] is what the world then
//! holds: name, parent, authored transform, enabled flag, time group, body
//! state (committed and previous pose, velocity) and, for display, the
//! behaviours attached. The world owns the rules (ids, the hierarchy's
//! activity, removal); this module only the data.

use crate::behaviour::{Behaviour, TimeGroup};
use crate::body::{BodyDesc, Pose, Velocity};
use crate::schedule::Priority;
use crate::soft_pose::SoftState;
use crate::world::ObjectId;

/// The physics state of an object with a body, as of the last commit.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyState {
    /// What was authored.
    pub desc: BodyDesc,
    /// World pose at the end of the last completed tick.
    pub committed: Pose,
    /// World pose at the end of the tick before it (interpolation start).
    pub previous: Pose,
    /// Velocity at the end of the last completed tick.
    pub velocity: Velocity,
    /// A soft body's committed particles (`None` for a rigid body); its
    /// `committed` pose is made from them (see [`crate::soft_pose`]).
    pub soft: Option<SoftState>,
}

/// What the inspector shows of a behaviour attached to an object.
#[derive(Clone, Debug, PartialEq)]
pub struct BehaviourInfo {
    /// Registered name (`PlayerController`...).
    pub name: String,
    /// Dispatch priority.
    pub priority: Priority,
    /// Parameters as authored, in RON.
    pub params: String,
}

/// One object of the world.
#[derive(Clone, Debug)]
pub struct Object {
    /// Stable id.
    pub id: ObjectId,
    /// Display name.
    pub name: String,
    /// Parent object, for bodyless children and the hierarchy.
    pub parent: Option<ObjectId>,
    /// Pose relative to the parent (world pose when there is no parent); for a
    /// body, its authored spawn pose.
    pub local: Pose,
    /// Disabled objects get no callback. Read with [`Object::is_enabled`];
    /// write through [`World::set_enabled`] (the dispatch index mirrors it).
    pub(crate) enabled: bool,
    /// Rigid body, if any.
    pub body: Option<BodyState>,
    /// Behaviours attached, for display.
    pub behaviours: Vec<BehaviourInfo>,
    /// The clock this object's timed routines wait on (the frame clock unless
    /// the scene says otherwise), whichever hook started them.
    pub time_group: TimeGroup,
    /// False once removed; the slot goes at the next frame boundary.
    pub(crate) alive: bool,
}

impl Object {
    /// False once the object has been removed (its slot lingers until the frame ends).
    pub fn is_alive(&self) -> bool {
        self.alive
    }

    /// Whether the object is enabled (disabled objects get no callback).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }
}

/// Everything needed to create an object, from a scene or from a hook.
pub struct ObjectDesc {
    /// Stable id; `None` picks the next free one.
    pub id: Option<ObjectId>,
    /// Display name.
    pub name: String,
    /// Parent object.
    pub parent: Option<ObjectId>,
    /// Pose relative to the parent, or world pose.
    pub local: Pose,
    /// Enabled at creation.
    pub enabled: bool,
    /// Rigid body, if any.
    pub body: Option<BodyDesc>,
    /// Behaviours with their dispatch priority and display info.
    pub behaviours: Vec<(Box<dyn Behaviour>, BehaviourInfo)>,
    /// The clock the object's timed routines wait on.
    pub time_group: TimeGroup,
}

impl ObjectDesc {
    /// An enabled object with no body and no behaviour.
    pub fn new(name: impl Into<String>, local: Pose) -> ObjectDesc {
        ObjectDesc {
            id: None,
            name: name.into(),
            parent: None,
            local,
            enabled: true,
            body: None,
            behaviours: Vec::new(),
            time_group: TimeGroup::Frame,
        }
    }

    /// Sets the clock the object's timed routines wait on.
    pub fn with_time_group(mut self, group: TimeGroup) -> ObjectDesc {
        self.time_group = group;
        self
    }

    /// Adds a body.
    pub fn with_body(mut self, body: BodyDesc) -> ObjectDesc {
        self.body = Some(body);
        self
    }

    /// Sets the id.
    pub fn with_id(mut self, id: ObjectId) -> ObjectDesc {
        self.id = Some(id);
        self
    }

    /// Sets the parent.
    pub fn with_parent(mut self, parent: ObjectId) -> ObjectDesc {
        self.parent = Some(parent);
        self
    }

    /// Attaches a behaviour at a priority.
    pub fn with_behaviour(
        mut self,
        behaviour: Box<dyn Behaviour>,
        priority: Priority,
    ) -> ObjectDesc {
        let info = BehaviourInfo {
            name: behaviour.name().to_string(),
            priority,
            params: String::new(),
        };
        self.behaviours.push((behaviour, info));
        self
    }
}
