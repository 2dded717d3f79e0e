//! The plane's numbers: [`Vec2`], [`Pose`] and [`Velocity`], in `f32` like
//! rapier's, with the few operations every layer needs (compose, lerp,
//! finiteness).
//!
//! A leaf of the crate's layering, so that bodies, soft bodies and their
//! committed particles can all speak of poses without depending on each
//! other. Worked example: a lamp at local `(0.5, 0)` on a cart at
//! `Pose::new(1.0, 2.0, FRAC_PI_2)` composes to `(1.0, 2.5)`, the offset
//! turned a quarter turn with the cart.

use serde::{Deserialize, Serialize};

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

    /// The same bits in every component: what the trace tells apart (`-0.0`
    /// from `0.0`, one NaN from another), which `==` does not.
    pub fn bits_eq(&self, other: &Pose) -> bool {
        let bits = |p: &Pose| (p.x.to_bits(), p.y.to_bits(), p.angle.to_bits());
        bits(self) == bits(other)
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

/// The convex hull of `points`, counter-clockwise from the lowest-leftmost
/// point (Andrew's monotone chain), without non-finite or repeated points.
/// The one hull of the project: the mass bounds, the editor's outlines and
/// its hit tests all use it, so a polygon authored in any order weighs,
/// draws and picks like the collider rapier builds. The turn test runs in
/// `f64`, where the products of `f32` differences are exact.
pub fn convex_hull(points: &[Vec2]) -> Vec<Vec2> {
    let mut pts: Vec<Vec2> = points.iter().copied().filter(|p| p.is_finite()).collect();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: Vec2, a: Vec2, b: Vec2| {
        let d = |p: Vec2| {
            (
                f64::from(p.x) - f64::from(o.x),
                f64::from(p.y) - f64::from(o.y),
            )
        };
        let ((ax, ay), (bx, by)) = (d(a), d(b));
        ax * by - ay * bx
    };
    let mut hull: Vec<Vec2> = Vec::with_capacity(pts.len() + 1);
    // Lower hull left to right, then upper hull right to left; the upper pass
    // never pops into the lower one.
    for &p in &pts {
        while hull.len() >= 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    let lower = hull.len() + 1;
    for &p in pts.iter().rev().skip(1) {
        while hull.len() >= lower && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    hull
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hull_is_counter_clockwise_and_drops_inner_points() {
        let square = [
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.5, 0.5),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(f32::NAN, 0.0),
        ];
        assert_eq!(
            convex_hull(&square),
            [
                Vec2::new(0.0, 0.0),
                Vec2::new(1.0, 0.0),
                Vec2::new(1.0, 1.0),
                Vec2::new(0.0, 1.0)
            ]
        );
    }
}
