//! How an object comes to exist: its description ([`ObjectDesc`]), and
//! [`World::spawn`], which puts its data into the world and its behaviours
//! in line for the scheduler.
//!
//! This module sits above both the world and the behaviour API, because an
//! object description carries behaviours (`Box<dyn Behaviour>`) and a
//! behaviour's context borrows the world: the world itself never names a
//! behaviour. A spawned object exists at once (its body from the next
//! reconcile, so it can receive commands in the current tick); its
//! behaviours wait in the world as `Joining` entries and join the cohort
//! at the next outer frame boundary. Spawning the same description at frame
//! 10 makes its FixedUpdate run first in frame 11's ticks, whichever tick
//! of frame 10 spawned it.

use crate::behaviour::{Behaviour, Ctx};
use crate::body::BodyDesc;
use crate::geometry::Pose;
use crate::ids::{ObjectId, Priority, TimeGroup};
use crate::object::{BehaviourInfo, BodyState, Object};
use crate::world::{Waiting, World};

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

impl Clone for ObjectDesc {
    /// A copy with a copy of every behaviour's state ([`Behaviour::clone_box`]).
    fn clone(&self) -> ObjectDesc {
        ObjectDesc {
            id: self.id,
            name: self.name.clone(),
            parent: self.parent,
            local: self.local,
            enabled: self.enabled,
            body: self.body.clone(),
            behaviours: self
                .behaviours
                .iter()
                .map(|(b, info)| (b.clone_box(), info.clone()))
                .collect(),
            time_group: self.time_group,
        }
    }
}

impl std::fmt::Debug for ObjectDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectDesc")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("parent", &self.parent)
            .field("behaviours", &self.behaviours.len())
            .finish_non_exhaustive()
    }
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

/// A behaviour of a spawned object waiting for the next frame boundary, as
/// the world holds it (see [`Waiting`]).
#[derive(Clone, Debug)]
pub(crate) struct Joining {
    /// The object it belongs to.
    pub(crate) object: ObjectId,
    /// Its dispatch priority.
    pub(crate) priority: Priority,
    /// The behaviour, with its state (it may be hashed and inspected before
    /// it joins).
    pub(crate) behaviour: Box<dyn Behaviour>,
}

impl Waiting for Joining {
    fn clone_waiting(&self) -> Box<dyn Waiting> {
        Box::new(self.clone())
    }
}

impl World {
    /// Creates an object. Its body (if any) exists from the next reconcile, so it
    /// can receive commands in the current tick; its behaviours join the cohort at
    /// the next outer frame boundary.
    ///
    /// A body physics cannot build ([`BodyDesc::check`]: an absurd size, a
    /// non-finite material) or whose world pose (the spawn pose composed with
    /// the parent's) does not fit in `f32` is refused: the error is logged and
    /// the object is created **without a body**, so it is not in the trace's
    /// `poses`, not in the hash's body state and never in the physics engine;
    /// its [`World::physics_simulation_pose`] is its authored transform (on
    /// its parent, if any).
    pub fn spawn(&mut self, desc: ObjectDesc) -> ObjectId {
        let body = desc.body.map(|desc| BodyState {
            velocity: desc.velocity,
            desc: Box::new(desc),
            committed: Pose::IDENTITY,
            previous: Pose::IDENTITY,
            soft: None,
        });
        let object = Object {
            id: ObjectId::default(),
            name: desc.name,
            parent: desc.parent,
            local: desc.local,
            enabled: desc.enabled,
            body,
            behaviours: Vec::with_capacity(desc.behaviours.len()),
            time_group: desc.time_group,
            alive: true,
        };
        let id = self.insert(desc.id, object);
        for (behaviour, info) in desc.behaviours {
            self.hold(Box::new(Joining {
                object: id,
                priority: info.priority,
                behaviour,
            }));
            if let Some(object) = self.get_mut(id) {
                object.behaviours.push(info);
            }
        }
        id
    }

    /// The behaviours waiting for the next frame boundary, in spawn order.
    pub(crate) fn joining(&self) -> impl Iterator<Item = &Joining> {
        self.pending
            .iter()
            .filter_map(|w| (&**w as &dyn std::any::Any).downcast_ref::<Joining>())
    }

    /// The behaviours waiting for the next frame boundary, mutably.
    pub(crate) fn joining_mut(&mut self) -> impl Iterator<Item = &mut Joining> {
        self.pending
            .iter_mut()
            .filter_map(|w| (&mut **w as &mut dyn std::any::Any).downcast_mut::<Joining>())
    }

    /// Takes the behaviours waiting for the frame boundary, in spawn order.
    pub(crate) fn take_joining(&mut self) -> impl Iterator<Item = Joining> + use<> {
        std::mem::take(&mut self.pending)
            .into_iter()
            .filter_map(|w| {
                let any: Box<dyn std::any::Any> = w;
                any.downcast::<Joining>().ok().map(|j| *j)
            })
    }
}

impl Ctx<'_> {
    /// Creates an object now: its body joins at the next reconcile (this tick, in
    /// fixed code), its behaviours at the next outer frame. A body physics
    /// cannot build is refused and logged, and the object has none
    /// ([`World::spawn`]).
    pub fn spawn(&mut self, desc: ObjectDesc) -> ObjectId {
        let before = self.world.log.len();
        let id = self.world.spawn(desc);
        for line in &mut self.world.log[before..] {
            line.hook = Some(self.hook);
        }
        id
    }
}
