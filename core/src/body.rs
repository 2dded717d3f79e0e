//! Authored descriptions of bodies and the commands hooks send to them.
//!
//! Hooks never touch the physics engine: they queue [`BodyCommand`]s, which the
//! physics stage reconciles before the next step (seed: "authored body commands,
//! kinematic moves, additions and removals are reconciled before that tick's
//! integration"). That keeps FixedUpdate reading one consistent committed state
//! and makes every write a point where non-finite values can be rejected.

use serde::{Deserialize, Serialize};

use crate::geometry::{Pose, Vec2, Velocity};
use crate::ids::ObjectId;
use crate::soft_body::SoftBodyDesc;

/// How rapier moves a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BodyKind {
    /// Moved by forces, gravity and contacts.
    #[default]
    Dynamic,
    /// Moved only by kinematic targets; pushes dynamic bodies.
    Kinematic,
    /// Never moves.
    Fixed,
    /// Deformable: particles joined by elastic constraints (the body's `soft`
    /// field says which; see [`crate::soft_body`]).
    Soft,
}

/// A collision shape, in the body's local frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    /// A disc.
    Circle {
        /// Radius, metres.
        radius: f32,
    },
    /// A box, by half extents.
    Cuboid {
        /// Half width, metres.
        hx: f32,
        /// Half height, metres.
        hy: f32,
    },
    /// A vertical capsule: a segment of half length `half_height` swept by `radius`.
    Capsule {
        /// Half length of the inner segment, metres.
        half_height: f32,
        /// Radius, metres.
        radius: f32,
    },
    /// The convex hull of the given points (at least 3, not collinear).
    ConvexPolygon {
        /// Hull points, metres.
        points: Vec<Vec2>,
    },
}

/// How presentation reads a body's pose between ticks (Unity's Rigidbody modes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Interpolation {
    /// Draw the committed pose: steps visibly at the tick rate.
    None,
    /// Blend previous → committed by `interpolation_alpha`: smooth, one tick late.
    #[default]
    Interpolate,
    /// Project committed forward by velocity × alpha × fixed dt: no lag, but
    /// overshoots at impacts.
    Extrapolate,
}

fn default_density() -> f32 {
    1.0
}
fn default_friction() -> f32 {
    0.5
}
fn default_true() -> bool {
    true
}

/// An authored rigid body: what a scene (or a spawning hook) asks physics to create.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    /// Dynamic, kinematic or fixed.
    #[serde(default)]
    pub kind: BodyKind,
    /// Collision shapes, all attached at the body origin (empty for a soft body).
    #[serde(default)]
    pub shapes: Vec<Shape>,
    /// Mass density, kg/m².
    #[serde(default = "default_density")]
    pub density: f32,
    /// Coulomb friction coefficient.
    #[serde(default = "default_friction")]
    pub friction: f32,
    /// Bounciness, 0 to 1 (more than 1 would add energy at every bounce).
    #[serde(default)]
    pub restitution: f32,
    /// Continuous collision detection, for fast small bodies.
    #[serde(default)]
    pub ccd: bool,
    /// Whether rapier may put the body to sleep when it rests.
    #[serde(default = "default_true")]
    pub can_sleep: bool,
    /// Whether the body's colliders only detect overlaps (triggers) without pushing.
    #[serde(default)]
    pub sensor: bool,
    /// Initial velocity.
    #[serde(default)]
    pub velocity: Velocity,
    /// Gravity multiplier (0 floats).
    #[serde(default = "default_gravity_scale")]
    pub gravity_scale: f32,
    /// Presentation mode.
    #[serde(default)]
    pub interpolation: Interpolation,
    /// The particles and material of a `Soft` body (absent for the others).
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub soft: Option<SoftBodyDesc>,
}

fn default_gravity_scale() -> f32 {
    1.0
}

impl BodyDesc {
    /// A dynamic body with one shape and default material.
    pub fn dynamic(shape: Shape) -> BodyDesc {
        BodyDesc::with_kind(BodyKind::Dynamic, shape)
    }

    /// A body of the given kind with one shape and default material.
    pub fn with_kind(kind: BodyKind, shape: Shape) -> BodyDesc {
        BodyDesc {
            kind,
            shapes: vec![shape],
            density: default_density(),
            friction: default_friction(),
            restitution: 0.0,
            ccd: false,
            can_sleep: true,
            sensor: false,
            velocity: Velocity::default(),
            gravity_scale: 1.0,
            interpolation: Interpolation::Interpolate,
            soft: None,
        }
    }

    /// A soft body (see [`crate::soft_body`]) with default friction and no
    /// shapes: it collides through its particles' surface.
    pub fn soft(soft: SoftBodyDesc) -> BodyDesc {
        BodyDesc {
            shapes: Vec::new(),
            soft: Some(soft),
            ..BodyDesc::with_kind(BodyKind::Soft, Shape::Circle { radius: 1.0 })
        }
    }
}

/// A write to a body, queued by a hook and reconciled before the next rapier step.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyCommand {
    /// Continuous force for this tick, newtons; the stage scales it by dt.
    Force {
        /// The body's object.
        target: ObjectId,
        /// Force, N.
        force: Vec2,
    },
    /// Instantaneous change of momentum, N·s; not scaled by dt.
    Impulse {
        /// The body's object.
        target: ObjectId,
        /// Impulse, N·s.
        impulse: Vec2,
    },
    /// Where a kinematic body must be at the end of the next step.
    KinematicTarget {
        /// The body's object.
        target: ObjectId,
        /// Target pose.
        pose: Pose,
    },
    /// Teleport.
    SetPose {
        /// The body's object.
        target: ObjectId,
        /// New pose.
        pose: Pose,
    },
    /// Overwrite velocity.
    SetVelocity {
        /// The body's object.
        target: ObjectId,
        /// New velocity.
        velocity: Velocity,
    },
}

impl BodyCommand {
    /// The object the command writes to.
    pub fn target(&self) -> ObjectId {
        match *self {
            BodyCommand::Force { target, .. }
            | BodyCommand::Impulse { target, .. }
            | BodyCommand::KinematicTarget { target, .. }
            | BodyCommand::SetPose { target, .. }
            | BodyCommand::SetVelocity { target, .. } => target,
        }
    }

    /// Every number in the command is finite. Non-finite writes are rejected
    /// before they reach physics, so one NaN cannot poison the solver.
    pub fn is_finite(&self) -> bool {
        match self {
            BodyCommand::Force { force: v, .. } | BodyCommand::Impulse { impulse: v, .. } => {
                v.is_finite()
            }
            BodyCommand::KinematicTarget { pose, .. } | BodyCommand::SetPose { pose, .. } => {
                pose.is_finite()
            }
            BodyCommand::SetVelocity { velocity, .. } => velocity.is_finite(),
        }
    }
}

/// Whether a contact began or ended this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ContactKind {
    /// The pair started touching (or a sensor started overlapping).
    Started,
    /// The pair stopped touching.
    Stopped,
}

impl ContactKind {
    /// Lower-case name used in traces.
    pub fn name(self) -> &'static str {
        match self {
            ContactKind::Started => "started",
            ContactKind::Stopped => "stopped",
        }
    }
}

/// One contact event of a tick, with `a < b` so the order never depends on the
/// engine's internal iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ContactEvent {
    /// The lower object id of the pair.
    pub a: ObjectId,
    /// The higher object id of the pair.
    pub b: ObjectId,
    /// Began or ended.
    pub kind: ContactKind,
}

impl ContactEvent {
    /// Builds an event with its pair in id order.
    pub fn new(x: ObjectId, y: ObjectId, kind: ContactKind) -> ContactEvent {
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        ContactEvent { a, b, kind }
    }
}
