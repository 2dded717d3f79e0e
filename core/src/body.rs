//! Authored descriptions of bodies and the commands hooks send to them.
//!
//! Hooks never touch the physics engine: they queue [`BodyCommand`]s, which the
//! physics stage reconciles before the next step (seed: "authored body commands,
//! kinematic moves, additions and removals are reconciled before that tick's
//! integration"). That keeps FixedUpdate reading one consistent committed state
//! and makes every write a point where non-finite values can be rejected.

use serde::{Deserialize, Serialize};

use crate::world::ObjectId;

/// A 2D vector in metres (or metres per second, newtons...), `f32` like rapier's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Vec2 {
    /// Horizontal component.
    pub x: f32,
    /// Vertical component, up positive.
    pub y: f32,
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// Builds a vector.
    pub const fn new(x: f32, y: f32) -> Vec2 {
        Vec2 { x, y }
    }

    /// Both components finite: the check every write goes through.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// Euclidean length.
    pub fn length(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

impl std::ops::Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl std::ops::Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl std::ops::Mul<f32> for Vec2 {
    type Output = Vec2;
    fn mul(self, k: f32) -> Vec2 {
        Vec2::new(self.x * k, self.y * k)
    }
}

/// A rigid 2D transform: translation and rotation in radians.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pose {
    /// World (or parent-local) x, metres.
    pub x: f32,
    /// World (or parent-local) y, metres.
    pub y: f32,
    /// Rotation, radians, counter-clockwise.
    #[serde(default)]
    pub angle: f32,
}

impl Pose {
    /// The identity transform.
    pub const IDENTITY: Pose = Pose {
        x: 0.0,
        y: 0.0,
        angle: 0.0,
    };

    /// Builds a pose.
    pub const fn new(x: f32, y: f32, angle: f32) -> Pose {
        Pose { x, y, angle }
    }

    /// The translation part.
    pub fn position(self) -> Vec2 {
        Vec2::new(self.x, self.y)
    }

    /// All components finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.angle.is_finite()
    }

    /// `self ∘ local`: a child's world pose from its parent's world pose.
    pub fn compose(self, local: Pose) -> Pose {
        let (s, c) = self.angle.sin_cos();
        Pose {
            x: self.x + c * local.x - s * local.y,
            y: self.y + s * local.x + c * local.y,
            angle: self.angle + local.angle,
        }
    }

    /// Interpolates towards `to` by `t`; the angle takes the shortest arc, so a
    /// body crossing ±π does not spin the long way round for one frame.
    pub fn lerp(self, to: Pose, t: f32) -> Pose {
        let tau = std::f32::consts::TAU;
        let mut d = (to.angle - self.angle) % tau;
        if d > std::f32::consts::PI {
            d -= tau;
        } else if d < -std::f32::consts::PI {
            d += tau;
        }
        Pose {
            x: self.x + (to.x - self.x) * t,
            y: self.y + (to.y - self.y) * t,
            angle: self.angle + d * t,
        }
    }
}

/// Linear and angular velocity of a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Velocity {
    /// Linear velocity, m/s.
    #[serde(default)]
    pub linear: Vec2,
    /// Angular velocity, rad/s.
    #[serde(default)]
    pub angular: f32,
}

impl Velocity {
    /// All components finite.
    pub fn is_finite(self) -> bool {
        self.linear.is_finite() && self.angular.is_finite()
    }
}

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
    /// Collision shapes, all attached at the body origin.
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
        }
    }
}

/// The largest magnitude an `f32` holds: a derived quantity (area, mass,
/// inertia, a velocity after a command) must stay at or below it, or physics
/// would compute with an infinity.
pub const F32_LIMIT: f64 = f32::MAX as f64;

fn finite_positive(v: f32) -> bool {
    v.is_finite() && v > 0.0
}

/// The speed rapier2d 0.36 caps every body at, each substep (its
/// `IntegrationParameters::normalized_max_linear_velocity` default, 400 m/s at
/// a length unit of 1 m). Two bodies at the cap meeting head-on close at
/// twice that: the contact impulses between them are bounded by
/// `mass × 2 × RAPIER_SPEED_CAP` (and friction impulses by `friction` times
/// that), which must fit in an `f32` too.
const RAPIER_SPEED_CAP: f64 = 400.0;

/// Whether `x` (computed in `f64`) is finite once it is an `f32`.
pub(crate) fn fits_f32(x: f64) -> bool {
    x.is_finite() && x.abs() <= F32_LIMIT
}

/// Whether a velocity's squared length fits in an `f32`: rapier takes the
/// length of every body's velocity each substep (to cap speeds at 400 m/s),
/// and an infinite square zeroes the velocity, freezing the body for good.
/// So speeds stay below √(3.4e38) ≈ 1.8e19 m/s.
pub(crate) fn speed_fits(vx: f64, vy: f64) -> bool {
    fits_f32(vx * vx + vy * vy)
}

impl Shape {
    /// Why the shape cannot be built, if it cannot: a size that is not a
    /// positive finite number, or a polygon with fewer than 3 points, a
    /// non-finite point or no area.
    fn check_geometry(&self) -> Result<(), String> {
        match self {
            Shape::Circle { radius } if !finite_positive(*radius) => {
                Err(format!("circle radius must be positive, got {radius}"))
            }
            Shape::Cuboid { hx, hy } if !(finite_positive(*hx) && finite_positive(*hy)) => Err(
                format!("cuboid half extents must be positive, got hx {hx}, hy {hy}"),
            ),
            Shape::Capsule {
                half_height,
                radius,
            } if !(finite_positive(*radius) && half_height.is_finite() && *half_height >= 0.0) => {
                Err(format!(
                    "capsule needs a positive radius and a half height >= 0, got radius {radius}, half_height {half_height}"
                ))
            }
            Shape::ConvexPolygon { points } => {
                if points.len() < 3 {
                    return Err(format!(
                        "convex polygon needs at least 3 points, got {}",
                        points.len()
                    ));
                }
                if points.iter().any(|p| !p.is_finite()) {
                    return Err("convex polygon points must be finite".into());
                }
                // Not all collinear: some triangle from the first point has an area.
                let p0 = points[0];
                let spans_area = points.windows(2).any(|w| {
                    let (a, b) = (w[0] - p0, w[1] - p0);
                    (a.x * b.y - a.y * b.x).abs() > 1e-6
                });
                if !spans_area {
                    return Err("convex polygon points are collinear (no area)".into());
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Area (m²) and the distance of the shape's farthest point from the body
    /// origin (m), in `f64` so that they never overflow while being computed.
    fn extent(&self) -> (f64, f64) {
        let f = f64::from;
        match self {
            Shape::Circle { radius } => (std::f64::consts::PI * f(*radius).powi(2), f(*radius)),
            Shape::Cuboid { hx, hy } => (4.0 * f(*hx) * f(*hy), f(*hx).hypot(f(*hy))),
            Shape::Capsule {
                half_height,
                radius,
            } => {
                let (h, r) = (f(*half_height), f(*radius));
                (std::f64::consts::PI * r * r + 4.0 * r * h, h + r)
            }
            Shape::ConvexPolygon { points } => {
                // The shoelace formula over the points in order (a hull's
                // area when they are given around it, as scenes write them);
                // its magnitude is what matters here.
                let n = points.len();
                let twice: f64 = (0..n)
                    .map(|i| {
                        let (a, b) = (points[i], points[(i + 1) % n]);
                        f(a.x) * f(b.y) - f(b.x) * f(a.y)
                    })
                    .sum();
                let farthest = points
                    .iter()
                    .map(|p| f(p.x).hypot(f(p.y)))
                    .fold(0.0, f64::max);
                (twice.abs() / 2.0, farthest)
            }
        }
    }
}

impl BodyDesc {
    /// Why physics cannot build this body, if it cannot: a bad shape, a
    /// material value that is not finite (or a negative density, or a dynamic
    /// body without mass), a non-finite initial velocity, or a body whose
    /// derived quantities do not fit in an `f32` (rapier's number type).
    ///
    /// The derived quantities are, per shape and for the whole body: the area,
    /// the mass (`density × area`), and the angular inertia, bounded from above
    /// by `mass × r²` with `r` the farthest point from the body origin (at most
    /// 3 times the exact inertia for a centred shape, and never less than it);
    /// for the body, also the impulse of a head-on contact at rapier's speed
    /// cap (`mass × 800 m/s`) and that times `friction`. Restitution is 0 to 1:
    /// a restitution of 1e20 multiplies contact impulses by 1e20 (the fuzzer
    /// found it putting NaN velocities into the demo).
    /// Worked numbers: a circle of radius 1e10 m at density 1 has an area of
    /// 3.1e20 m² and a mass of 3.1e20 kg, which fit, but an inertia of
    /// `½ m r²` = 1.6e40 kg·m², which does not (f32 stops at 3.4e38): rapier
    /// would give it an infinite inertia and the body would never move.
    /// Radius 1e9 gives 3.1e36 kg·m² and is accepted.
    ///
    /// The scene loader reports this with the object's line and column;
    /// [`crate::World::spawn`] logs it and creates the object without a body.
    pub fn check(&self) -> Result<(), String> {
        if self.shapes.is_empty() {
            return Err("a body needs at least one shape".into());
        }
        for shape in &self.shapes {
            shape.check_geometry()?;
        }
        let density_ok = self.density.is_finite()
            && (self.density > 0.0 || (self.density == 0.0 && self.kind != BodyKind::Dynamic));
        if !density_ok {
            return Err(format!(
                "density must be positive (for a dynamic body), got {}",
                self.density
            ));
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(format!("friction must be >= 0, got {}", self.friction));
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return Err(format!(
                "restitution must be within 0..=1, got {}",
                self.restitution
            ));
        }
        if !self.velocity.is_finite() || !self.gravity_scale.is_finite() {
            return Err("body velocity and gravity_scale must be finite".into());
        }
        let (vx, vy) = (
            f64::from(self.velocity.linear.x),
            f64::from(self.velocity.linear.y),
        );
        if !speed_fits(vx, vy) {
            return Err(format!(
                "initial speed {:.2e} m/s is too fast for physics: its square is beyond f32's 3.4e38 (rapier would stop the body dead)",
                vx.hypot(vy)
            ));
        }
        let density = f64::from(self.density);
        let (mut mass, mut inertia) = (0.0, 0.0);
        for shape in &self.shapes {
            let (area, r) = shape.extent();
            let shape_mass = density * area;
            let shape_inertia = shape_mass * r * r;
            for (what, value) in [
                ("area", area),
                ("mass", shape_mass),
                ("angular inertia", shape_inertia),
            ] {
                if !fits_f32(value) {
                    return Err(format!(
                        "shape {shape:?} is too large for physics: its {what} would be {value:.2e}, beyond f32's 3.4e38"
                    ));
                }
            }
            mass += shape_mass;
            inertia += shape_inertia;
        }
        if !fits_f32(mass) || !fits_f32(inertia) {
            return Err(format!(
                "the body is too large for physics: mass {mass:.2e} kg, angular inertia {inertia:.2e} kg·m², beyond f32's 3.4e38"
            ));
        }
        let impact = mass * 2.0 * RAPIER_SPEED_CAP;
        let rubbing = impact * f64::from(self.friction);
        if !fits_f32(impact) || !fits_f32(rubbing) {
            return Err(format!(
                "the body is too heavy for physics: a head-on contact at rapier's speed cap (2 × 400 m/s) \
                 carries {impact:.2e} N·s, times friction {} = {rubbing:.2e}, beyond f32's 3.4e38",
                self.friction
            ));
        }
        if self.kind == BodyKind::Dynamic && (mass as f32) <= 0.0 {
            return Err(format!(
                "a dynamic body needs a mass, got {mass:.2e} kg (density × area rounds to 0 in f32)"
            ));
        }
        Ok(())
    }

    /// Mass of the body, kg, in `f64` (`density × area`, summed over shapes).
    pub fn mass(&self) -> f64 {
        let density = f64::from(self.density);
        self.shapes.iter().map(|s| density * s.extent().0).sum()
    }

    /// Why this body under `gravity` would not fit in an `f32`, if it would
    /// not: its weight (`mass × gravity × gravity_scale`, the force rapier adds
    /// every step), or the speed gravity adds in one tick, whose square rapier
    /// computes (see [`BodyDesc::check`]; bounded for ticks up to 1 s, the
    /// longest `fixed_hz` allows). A body of 1e38 kg under 9.81 m/s² weighs
    /// 9.8e38 N: its velocity would be infinite after its first step. Checked
    /// where the gravity is known: the scene loader and the physics stage.
    pub fn check_weight(&self, gravity: Vec2) -> Result<(), String> {
        if self.kind != BodyKind::Dynamic {
            return Ok(());
        }
        let scale = f64::from(self.gravity_scale);
        let (gx, gy) = (f64::from(gravity.x) * scale, f64::from(gravity.y) * scale);
        if !speed_fits(gx, gy) {
            return Err(format!(
                "gravity ({}, {}) × gravity_scale {} adds {:.2e} m/s a second: too fast for physics (its square is beyond f32's 3.4e38)",
                gravity.x,
                gravity.y,
                self.gravity_scale,
                gx.hypot(gy)
            ));
        }
        let mass = self.mass();
        if fits_f32(mass * gx) && fits_f32(mass * gy) {
            Ok(())
        } else {
            Err(format!(
                "the body is too heavy for physics: mass {mass:.2e} kg × gravity ({}, {}) × gravity_scale {} is beyond f32's 3.4e38 N",
                gravity.x, gravity.y, self.gravity_scale
            ))
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
