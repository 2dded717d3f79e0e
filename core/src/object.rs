//! What an object is made of.
//!
//! [`Object`] is what the world holds once an object exists (the
//! description it is made from, [`ObjectDesc`](crate::ObjectDesc), lives in
//! [`crate::spawn`], with the behaviours it brings): name, parent, authored transform, enabled flag, time group, body
//! state (committed and previous pose, velocity) and, for display, the
//! behaviours attached. The world owns the rules (ids, the hierarchy's
//! activity, removal); this module only the data.

use crate::body::BodyDesc;
use crate::geometry::{Pose, Velocity};
use crate::ids::{ObjectId, Priority, TimeGroup};
use crate::soft_pose::SoftState;

/// The physics state of an object with a body, as of the last commit.
///
/// What every tick writes (poses, velocity) is inline; what it does not
/// (the authored description, a soft body's particles) is boxed. The commit
/// visits every awake body's object each tick, and with the description
/// inline an object was 576 bytes: the walk missed the cache twice per
/// object (a third of the commit's time, `perf annotate`). Boxed, an object
/// is a few cache lines the prefetcher streams.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyState {
    /// What was authored.
    pub desc: Box<BodyDesc>,
    /// World pose at the end of the last completed tick.
    pub committed: Pose,
    /// World pose at the end of the tick before it (interpolation start).
    pub previous: Pose,
    /// Velocity at the end of the last completed tick.
    pub velocity: Velocity,
    /// A soft body's committed particles (`None` for a rigid body); its
    /// `committed` pose is made from them (see [`crate::soft_pose()`]).
    pub soft: Option<Box<SoftState>>,
}

/// What the inspector shows of a behaviour attached to an object.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
