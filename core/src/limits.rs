//! What physics can take: the `f32` limits every body and command stays within.
//!
//! rapier2d computes in `f32`, whose largest finite value is 3.4e38 and whose
//! smallest normal one is 1.2e-38. A number that is finite in a scene can still
//! put an infinity (and then NaN) into the engine through what the engine
//! derives from it, so the checks here are on derived quantities, computed in
//! `f64` where nothing overflows:
//!
//! | quantity | must fit in `f32` | why (worked numbers) |
//! |---|---|---|
//! | area, mass (`density × area`), angular inertia | yes | a circle of radius 1e10 m at density 1 has an area of 3.1e20 m², but an inertia of ½ m r² = 1.6e40: rapier gives it an infinite inertia and the body never moves |
//! | `1 / mass`, `1 / inertia` of a dynamic body | yes | a 5e-39 × 0.3 m box has an inertia of 1.8e-40 and an inverse of 5.5e39: its first contact gives it NaN velocities (found by the fuzzer) |
//! | a contact impulse at rapier's speed cap, `mass × 2 × 400 m/s`, and that times `friction` | yes | rapier caps speeds at 400 m/s, so impulses between bodies are bounded by it |
//! | restitution | within 0..=1 | a restitution of 1e20 multiplies contact impulses by 1e20 (found by the fuzzer in the demo) |
//! | `speed²` of a velocity (initial, or after a command) | yes | rapier takes the length of every velocity each substep to cap it; an infinite square makes the cap zero the velocity, and the body stops dead for good: anything above √3.4e38 ≈ 1.8e19 m/s |
//! | weight `mass × gravity × gravity_scale`, and `(gravity × gravity_scale)²` | yes | a body of 1e38 kg under 9.81 m/s² weighs 9.8e38 N |
//! | a command's result: the tick's force sum, the velocity after the step, its square, the position after it | yes | an impulse of 3e38 N·s into a 0.5 kg ball would make it 6e38 m/s |
//! | a body's smallest feature (a soft body's particle radius, a rigid shape's radius or shorter half side) against the f32 step where it is placed | at least [`RESOLUTION_STEPS`] steps | at y = 1e38 the f32 step is about 1e31 m: every particle of a jelly lands on the same number, its springs have no length and their directions are NaN (found by the fuzzer in soft.ron); two boxes at x = 3e38 touch with NaN angular velocities (found in its sample scene). 5 cm particles keep 64 steps out to 6,500 m from the origin, a 0.5 m ball to 65 km |
//!
//! Inertias are bounded, not computed exactly: from above by `mass × r²`
//! (`r` the farthest point of the shape from the body origin, never less than
//! the inertia about the body's centre of mass), from below by the sum of each
//! shape's inertia about its own centroid (the parallel-axis terms only add).
//! Where each limit is checked: [`BodyDesc::check`] by the scene loader (an
//! error with line and column), by [`crate::World::spawn`] (the object is
//! created without a body and the refusal logged) and by the rapier stage;
//! [`BodyDesc::check_weight`] where the gravity is known (the loader, the
//! stage); a command's result by the rapier stage at the reconcile, which
//! knows the body's mass and velocity (refused and logged with object, hook
//! and tick).

use crate::body::{BodyCommand, BodyDesc, BodyKind, Shape};
use crate::geometry::{Pose, Vec2, convex_hull};
use crate::soft_body::{SoftBodyDesc, SoftBodyError};

mod command;
pub(crate) use command::command_overflow;

/// Why physics cannot take a body, by the check that refused it; the text
/// names the field and the numbers (`circle radius must be positive, got
/// -1`), and the scene loader places it at the object's line and column.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BodyError {
    /// The description does not hang together: a `Soft` kind without a soft
    /// description (or the other way round), no shape, shapes on a soft body.
    #[error("{0}")]
    Description(String),
    /// A rigid shape physics cannot build: a size that is not positive and
    /// finite, a polygon with too few points, non-finite points or no area.
    #[error("{0}")]
    Shape(String),
    /// A soft body's own description or material (see [`SoftBodyDesc::check`]).
    #[error(transparent)]
    Soft(#[from] SoftBodyError),
    /// Density, friction or restitution out of range.
    #[error("{0}")]
    Material(String),
    /// A starting velocity or gravity scale that is not finite, or too fast.
    #[error("{0}")]
    Motion(String),
    /// A derived quantity (area, mass, inertia, a contact impulse) beyond
    /// `f32`, or an inverse mass that would be.
    #[error("{0}")]
    Size(String),
    /// Placed where `f32` steps are too coarse for its smallest feature.
    #[error("{0}")]
    Placement(String),
    /// Its weight, or the speed gravity adds in a second, beyond `f32`.
    #[error("{0}")]
    Weight(String),
}

/// The largest magnitude an `f32` holds.
pub const F32_LIMIT: f64 = f32::MAX as f64;

/// How many `f32` steps a body's smallest feature must span where the body
/// is placed, so its particles stay apart and its contacts have a direction
/// in the engine's numbers.
pub const RESOLUTION_STEPS: f64 = 64.0;

/// The smallest mass or inertia whose inverse still fits in an `f32`.
const SMALLEST_INVERTIBLE: f64 = 1.0 / F32_LIMIT;

/// The speed rapier2d 0.36 caps every body at, each substep (its
/// `IntegrationParameters::normalized_max_linear_velocity` default, 400 m/s at
/// a length unit of 1 m). Two bodies at the cap meeting head-on close at
/// twice that.
const RAPIER_SPEED_CAP: f64 = 400.0;

/// Whether `x` (computed in `f64`) is finite once it is an `f32`.
pub(crate) fn fits_f32(x: f64) -> bool {
    x.is_finite() && x.abs() <= F32_LIMIT
}

/// Whether a velocity's squared length fits in an `f32` (see the module docs).
pub(crate) fn speed_fits(vx: f64, vy: f64) -> bool {
    fits_f32(vx * vx + vy * vy)
}

fn finite_positive(v: f32) -> bool {
    v.is_finite() && v > 0.0
}

/// A shape's area and inertia bounds at unit density, in `f64`.
struct UnitMass {
    /// Area, m².
    area: f64,
    /// Inertia about the shape's own centroid (a lower bound for the body), kg·m².
    inertia_low: f64,
    /// `area × r²`, `r` the farthest point from the body origin (an upper
    /// bound for the body), kg·m².
    inertia_high: f64,
    /// `r`: the farthest point of the shape from the body origin, m.
    reach: f64,
}

impl Shape {
    /// Why the shape cannot be built, if it cannot: a size that is not a
    /// positive finite number, or a polygon with fewer than 3 points, a
    /// non-finite point or no area.
    fn check_geometry(&self) -> Result<(), BodyError> {
        match self {
            Shape::Circle { radius } if !finite_positive(*radius) => Err(BodyError::Shape(
                format!("circle radius must be positive, got {radius}"),
            )),
            Shape::Cuboid { hx, hy } if !(finite_positive(*hx) && finite_positive(*hy)) => {
                Err(BodyError::Shape(format!(
                    "cuboid half extents must be positive, got hx {hx}, hy {hy}"
                )))
            }
            Shape::Capsule {
                half_height,
                radius,
            } if !(finite_positive(*radius) && half_height.is_finite() && *half_height >= 0.0) => {
                Err(BodyError::Shape(format!(
                    "capsule needs a positive radius and a half height >= 0, got radius {radius}, half_height {half_height}"
                )))
            }
            Shape::ConvexPolygon { points } => {
                if points.len() < 3 {
                    return Err(BodyError::Shape(format!(
                        "convex polygon needs at least 3 points, got {}",
                        points.len()
                    )));
                }
                if points.iter().any(|p| !p.is_finite()) {
                    return Err(BodyError::Shape(
                        "convex polygon points must be finite".into(),
                    ));
                }
                // Not all collinear: some triangle from the first point has an area.
                let p0 = points[0];
                let spans_area = points.windows(2).any(|w| {
                    let (a, b) = (w[0] - p0, w[1] - p0);
                    (a.x * b.y - a.y * b.x).abs() > 1e-6
                });
                if !spans_area {
                    return Err(BodyError::Shape(
                        "convex polygon points are collinear (no area)".into(),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Area and inertia bounds at unit density (see [`UnitMass`]).
    fn unit_mass(&self) -> UnitMass {
        let f = f64::from;
        let pi = std::f64::consts::PI;
        let (area, inertia_low, r) = match self {
            Shape::Circle { radius } => {
                let r = f(*radius);
                let area = pi * r * r;
                (area, area * r * r / 2.0, r)
            }
            Shape::Cuboid { hx, hy } => {
                let (x, y) = (f(*hx), f(*hy));
                let area = 4.0 * x * y;
                (area, area * (x * x + y * y) / 3.0, x.hypot(y))
            }
            Shape::Capsule {
                half_height,
                radius,
            } => {
                // The inner rectangle plus the two half discs moved onto its
                // centre (moving them out only adds inertia).
                let (h, r) = (f(*half_height), f(*radius));
                let (rect, disc) = (4.0 * r * h, pi * r * r);
                let low = rect * (r * r + h * h) / 3.0 + disc * r * r / 2.0;
                (rect + disc, low, h + r)
            }
            Shape::ConvexPolygon { points } => {
                // Area and inertia of the hull, about its centroid, with the
                // points taken relative to the first one (no cancellation far
                // from the origin).
                let hull: Vec<(f64, f64)> = convex_hull(points)
                    .iter()
                    .map(|v| (f64::from(v.x), f64::from(v.y)))
                    .collect();
                let n = hull.len();
                let o = hull.first().copied().unwrap_or((0.0, 0.0));
                let (mut twice, mut cx, mut cy, mut i_o) = (0.0, 0.0, 0.0, 0.0);
                for k in 0..n {
                    let (a, b) = (hull[k], hull[(k + 1) % n]);
                    let (ax, ay, bx, by) = (a.0 - o.0, a.1 - o.1, b.0 - o.0, b.1 - o.1);
                    let c = ax * by - bx * ay;
                    twice += c;
                    cx += (ax + bx) * c;
                    cy += (ay + by) * c;
                    i_o += c * (ax * ax + ax * bx + bx * bx + ay * ay + ay * by + by * by);
                }
                let area = twice / 2.0;
                let (cx, cy) = if area > 0.0 {
                    (cx / (6.0 * area), cy / (6.0 * area))
                } else {
                    (0.0, 0.0)
                };
                let low = (i_o / 12.0 - area * (cx * cx + cy * cy)).max(0.0);
                let r = points
                    .iter()
                    .map(|p| f(p.x).hypot(f(p.y)))
                    .fold(0.0, f64::max);
                (area.max(0.0), low, r)
            }
        };
        UnitMass {
            area,
            inertia_low,
            inertia_high: area * r * r,
            reach: r,
        }
    }

    /// The smallest size the engine must resolve: a circle's or capsule's
    /// radius, a box's shorter half side, a polygon's shorter bounding half
    /// side.
    fn smallest_size(&self) -> f64 {
        match self {
            Shape::Circle { radius } | Shape::Capsule { radius, .. } => f64::from(*radius),
            Shape::Cuboid { hx, hy } => f64::from(hx.min(*hy)),
            Shape::ConvexPolygon { points } => {
                let span = |f: fn(&Vec2) -> f32| {
                    let (lo, hi) = points
                        .iter()
                        .map(f)
                        .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
                    (f64::from(hi) - f64::from(lo)) / 2.0
                };
                span(|p| p.x).min(span(|p| p.y))
            }
        }
    }
}

impl BodyDesc {
    /// Why physics cannot build this body, if it cannot: a bad shape, a
    /// material value that is not finite (or a negative density, or
    /// restitution outside 0..=1), a non-finite initial velocity, or a derived
    /// quantity beyond `f32` (see the module docs for each one, with numbers).
    ///
    /// The scene loader reports this with the object's line and column;
    /// [`crate::World::spawn`] logs it and creates the object without a body.
    pub fn check(&self) -> Result<(), BodyError> {
        match (&self.soft, self.kind) {
            (Some(soft), BodyKind::Soft) => return self.check_soft(soft),
            (None, BodyKind::Soft) => {
                return Err(BodyError::Description(
                    "a Soft body needs a `soft: (shape: ..)` description".into(),
                ));
            }
            (Some(_), kind) => {
                return Err(BodyError::Description(format!(
                    "a `soft` description needs `kind: Soft`, this body is {kind:?}"
                )));
            }
            (None, _) => {}
        }
        if self.shapes.is_empty() {
            return Err(BodyError::Description(
                "a body needs at least one shape".into(),
            ));
        }
        for shape in &self.shapes {
            shape.check_geometry()?;
        }
        let density_ok = self.density.is_finite()
            && (self.density > 0.0 || (self.density == 0.0 && self.kind != BodyKind::Dynamic));
        if !density_ok {
            return Err(BodyError::Material(format!(
                "density must be positive (for a dynamic body), got {}",
                self.density
            )));
        }
        self.check_surface_and_start(" (rapier would stop the body dead)")?;
        let density = f64::from(self.density);
        let (mut mass, mut low, mut high) = (0.0, 0.0, 0.0);
        for shape in &self.shapes {
            let unit = shape.unit_mass();
            let shape_mass = density * unit.area;
            for (what, value) in [
                ("area", unit.area),
                ("mass", shape_mass),
                ("angular inertia", density * unit.inertia_high),
            ] {
                if !fits_f32(value) {
                    return Err(BodyError::Size(format!(
                        "shape {shape:?} is too large for physics: its {what} would be {value:.2e}, beyond f32's 3.4e38"
                    )));
                }
            }
            mass += shape_mass;
            low += density * unit.inertia_low;
            high += density * unit.inertia_high;
        }
        if !fits_f32(mass) || !fits_f32(high) {
            return Err(BodyError::Size(format!(
                "the body is too large for physics: mass {mass:.2e} kg, angular inertia up to {high:.2e} kg·m², beyond f32's 3.4e38"
            )));
        }
        if self.kind == BodyKind::Dynamic
            && (mass < SMALLEST_INVERTIBLE || low < SMALLEST_INVERTIBLE)
        {
            return Err(BodyError::Size(format!(
                "the body is too small for physics: mass {mass:.2e} kg, angular inertia {low:.2e} kg·m²; \
                 physics divides by both, and their inverses would be beyond f32's 3.4e38"
            )));
        }
        let impact = mass * 2.0 * RAPIER_SPEED_CAP;
        let rubbing = impact * f64::from(self.friction);
        if !fits_f32(impact) || !fits_f32(rubbing) {
            return Err(BodyError::Size(format!(
                "the body is too heavy for physics: a head-on contact at rapier's speed cap (2 × 400 m/s) \
                 carries {impact:.2e} N·s, times friction {} = {rubbing:.2e}, beyond f32's 3.4e38",
                self.friction
            )));
        }
        Ok(())
    }

    /// What rigid and soft bodies share: friction, restitution, and a
    /// starting velocity whose square fits in f32 (`speed_note` says what
    /// happens to this kind of body otherwise).
    fn check_surface_and_start(&self, speed_note: &str) -> Result<(), BodyError> {
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(BodyError::Material(format!(
                "friction must be >= 0, got {}",
                self.friction
            )));
        }
        if !(self.restitution.is_finite() && (0.0..=1.0).contains(&self.restitution)) {
            return Err(BodyError::Material(format!(
                "restitution must be within 0..=1, got {}",
                self.restitution
            )));
        }
        if !self.velocity.is_finite() || !self.gravity_scale.is_finite() {
            return Err(BodyError::Motion(
                "body velocity and gravity_scale must be finite".into(),
            ));
        }
        let (vx, vy) = (
            f64::from(self.velocity.linear.x),
            f64::from(self.velocity.linear.y),
        );
        if !speed_fits(vx, vy) {
            return Err(BodyError::Motion(format!(
                "initial speed {:.2e} m/s is too fast for physics: its square is beyond f32's 3.4e38{speed_note}",
                vx.hypot(vy)
            )));
        }
        Ok(())
    }

    /// The soft-body half of [`BodyDesc::check`]: the description's own
    /// checks, no rigid shapes, and a material the surface collider can take.
    fn check_soft(&self, soft: &SoftBodyDesc) -> Result<(), BodyError> {
        if !self.shapes.is_empty() {
            return Err(BodyError::Description(
                "a Soft body collides through its particles: leave `shapes` empty".into(),
            ));
        }
        soft.check()?;
        self.check_surface_and_start("")?;
        let per_particle = f64::from(soft.mass) / soft.particle_count().max(1) as f64;
        if per_particle < SMALLEST_INVERTIBLE {
            return Err(BodyError::Size(format!(
                "the soft body is too light for physics: {per_particle:.2e} kg a particle, whose inverse is beyond f32's 3.4e38"
            )));
        }
        Ok(())
    }

    /// Whether the body can be placed at world pose `pose`: its smallest
    /// feature must span [`RESOLUTION_STEPS`] `f32` steps there (module docs).
    pub fn check_placement(&self, pose: Pose) -> Result<(), BodyError> {
        let (feature, extent, what) = match &self.soft {
            Some(soft) => {
                let extent = soft
                    .world_particles(Pose::IDENTITY)
                    .iter()
                    .map(|p| f64::from(p.x.abs().max(p.y.abs())))
                    .fold(0.0, f64::max);
                (
                    f64::from(soft.particle_radius),
                    extent,
                    "its particles would merge",
                )
            }
            None => {
                let feature = self
                    .shapes
                    .iter()
                    .map(Shape::smallest_size)
                    .fold(f64::INFINITY, f64::min);
                let extent = self
                    .shapes
                    .iter()
                    .map(|s| s.unit_mass().reach)
                    .fold(0.0, f64::max);
                (feature, extent, "its contacts would have no direction")
            }
        };
        if !feature.is_finite() {
            return Ok(());
        }
        let far = f64::from(pose.x.abs().max(pose.y.abs())) + extent;
        let step = f32_step_at(far);
        if far.is_finite() && step * RESOLUTION_STEPS <= feature {
            return Ok(());
        }
        let reach = feature / RESOLUTION_STEPS * f64::from(1u32 << 23);
        Err(BodyError::Placement(format!(
            "a body whose smallest feature is {feature} m cannot be placed {far:.3e} m from the \
             origin: f32 steps there are {step:.3e} m and {what}; keep it within {reach:.0} m"
        )))
    }

    /// Mass of the body, kg, in `f64` (`density × area`, summed over shapes;
    /// a soft body's authored `mass`).
    pub fn mass(&self) -> f64 {
        if let Some(soft) = &self.soft {
            return f64::from(soft.mass);
        }
        let density = f64::from(self.density);
        self.shapes
            .iter()
            .map(|s| density * s.unit_mass().area)
            .sum()
    }

    /// Why this body under `gravity` would not fit in an `f32`, if it would
    /// not: its weight (`mass × gravity × gravity_scale`, the force rapier adds
    /// every step), or the speed gravity adds in a second, whose square must
    /// fit (ticks are at most 1 s long). Checked where the gravity is known:
    /// the scene loader and the physics stage.
    pub fn check_weight(&self, gravity: Vec2) -> Result<(), BodyError> {
        if !matches!(self.kind, BodyKind::Dynamic | BodyKind::Soft) {
            return Ok(());
        }
        let scale = f64::from(self.gravity_scale);
        let (gx, gy) = (f64::from(gravity.x) * scale, f64::from(gravity.y) * scale);
        if !speed_fits(gx, gy) {
            return Err(BodyError::Weight(format!(
                "gravity ({}, {}) × gravity_scale {} adds {:.2e} m/s a second: too fast for physics (its square is beyond f32's 3.4e38)",
                gravity.x,
                gravity.y,
                self.gravity_scale,
                gx.hypot(gy)
            )));
        }
        let mass = self.mass();
        if fits_f32(mass * gx) && fits_f32(mass * gy) {
            Ok(())
        } else {
            Err(BodyError::Weight(format!(
                "the body is too heavy for physics: mass {mass:.2e} kg × gravity ({}, {}) × gravity_scale {} is beyond f32's 3.4e38 N",
                gravity.x, gravity.y, self.gravity_scale
            )))
        }
    }
}

/// The distance between `x` (≥ 0) and the next `f32` above it, in `f64`
/// (infinite beyond `f32`).
fn f32_step_at(x: f64) -> f64 {
    let f = x as f32;
    if !f.is_finite() || f == f32::MAX {
        return f64::INFINITY;
    }
    f64::from(f32::from_bits(f.to_bits() + 1)) - f64::from(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_refused_where_f32_steps_outgrow_its_smallest_feature() {
        use crate::soft_body::{SoftBodyDesc, SoftShape};
        let jelly = BodyDesc::soft(SoftBodyDesc::new(SoftShape::Grid {
            hx: 1.0,
            hy: 0.5,
            nx: 7,
            ny: 4,
        }));
        let r = f64::from(jelly.soft.as_ref().map_or(0.0, |s| s.particle_radius));
        // The limit: r / 64 steps, an f32 step being x / 2^23 at most.
        let reach = r / RESOLUTION_STEPS * f64::from(1u32 << 23);
        assert!(jelly.check_placement(Pose::new(3.0, 1.5, 0.2)).is_ok());
        assert!(
            jelly
                .check_placement(Pose::new(0.0, (reach * 0.9) as f32, 0.0))
                .is_ok()
        );
        // The fuzzer's soft.ron: the slab moved to y = 1e38.
        let far = jelly
            .check_placement(Pose::new(3.0, 1e38, 0.2))
            .expect_err("particles merge at 1e38")
            .to_string();
        assert!(
            far.contains("would merge") && far.contains("1.000e38"),
            "{far}"
        );
        assert!(
            jelly
                .check_placement(Pose::new(0.0, (reach * 2.5) as f32, 0.0))
                .is_err()
        );
        // A rigid ball of radius 0.5 m: 64 steps of at most x / 2^23 each
        // fit in 0.5 m out to 0.5 / 64 × 2^23 = 65,536 m.
        let ball = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        assert!(ball.check_placement(Pose::new(60_000.0, 0.0, 0.0)).is_ok());
        let msg = ball
            .check_placement(Pose::new(3e38, 6.0, 0.0))
            .expect_err("the sample scene's boxes at 3e38")
            .to_string();
        assert!(
            msg.contains("no direction") && msg.contains("65536 m"),
            "{msg}"
        );
    }

    #[test]
    fn polygon_inertia_matches_the_cuboid_formula_anywhere() {
        // A 2 × 1 m rectangle: area 2, inertia about its centre
        // 2 × (2² + 1²) / 12 = 5/6, wherever it sits and however its points
        // are ordered.
        for (dx, dy) in [(0.0, 0.0), (-1.0, -0.5), (1e6, -3e6)] {
            let p = |x: f32, y: f32| Vec2::new(x + dx, y + dy);
            let shape = Shape::ConvexPolygon {
                points: vec![p(2.0, 1.0), p(0.0, 0.0), p(0.0, 1.0), p(2.0, 0.0)],
            };
            let u = shape.unit_mass();
            assert!((u.area - 2.0).abs() < 1e-9, "{dx} {dy}: {}", u.area);
            assert!(
                (u.inertia_low - 5.0 / 6.0).abs() < 1e-6,
                "{dx} {dy}: {}",
                u.inertia_low
            );
            let cuboid = Shape::Cuboid { hx: 1.0, hy: 0.5 }.unit_mass();
            assert!((cuboid.inertia_low - 5.0 / 6.0).abs() < 1e-12);
        }
    }
}
