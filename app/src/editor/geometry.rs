//! Pure 2D geometry for the viewport: shape outlines in world space, hit tests,
//! and the world ↔ screen mapping. No egui painting here, so it is testable.

use stepframe_core::geometry::convex_hull;
use stepframe_core::{Pose, Shape, Vec2};

/// Points per half circle of a capsule outline (and per circle when polygonised).
const ARC_SEGMENTS: usize = 12;

/// Maps world metres (y up) to screen points (y down) around a centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World point shown at `screen_center`.
    pub center: Vec2,
    /// Screen point of the world centre.
    pub screen_center: (f32, f32),
    /// Pixels per metre.
    pub zoom: f32,
}

impl Camera {
    /// World → screen.
    pub fn to_screen(self, p: Vec2) -> (f32, f32) {
        (
            self.screen_center.0 + (p.x - self.center.x) * self.zoom,
            self.screen_center.1 - (p.y - self.center.y) * self.zoom,
        )
    }

    /// Screen → world.
    pub fn to_world(self, s: (f32, f32)) -> Vec2 {
        Vec2::new(
            self.center.x + (s.0 - self.screen_center.0) / self.zoom,
            self.center.y - (s.1 - self.screen_center.1) / self.zoom,
        )
    }
}

/// A world point from a point in a body's frame.
pub fn local_to_world(pose: Pose, p: Vec2) -> Vec2 {
    pose.compose(Pose::new(p.x, p.y, 0.0)).position()
}

/// A point in a body's frame from a world point (inverse of [`local_to_world`]).
pub fn world_to_local(pose: Pose, p: Vec2) -> Vec2 {
    let (s, c) = pose.angle.sin_cos();
    let d = p - pose.position();
    Vec2::new(c * d.x + s * d.y, -s * d.x + c * d.y)
}

/// The outline of a non-circle shape in its body's frame, counter-clockwise;
/// `None` for a circle (drawn as a circle).
pub fn local_outline(shape: &Shape) -> Option<Vec<Vec2>> {
    match shape {
        Shape::Circle { .. } => None,
        Shape::Cuboid { hx, hy } => Some(vec![
            Vec2::new(-hx, -hy),
            Vec2::new(*hx, -hy),
            Vec2::new(*hx, *hy),
            Vec2::new(-hx, *hy),
        ]),
        Shape::Capsule {
            half_height,
            radius,
        } => {
            let mut points = Vec::with_capacity(2 * (ARC_SEGMENTS + 1));
            // Top cap from 0 to π around (0, h), bottom cap from π to 2π around (0, -h).
            for (cy, start) in [(*half_height, 0.0f32), (-half_height, std::f32::consts::PI)] {
                for k in 0..=ARC_SEGMENTS {
                    let a = start + std::f32::consts::PI * k as f32 / ARC_SEGMENTS as f32;
                    points.push(Vec2::new(radius * a.cos(), cy + radius * a.sin()));
                }
            }
            Some(points)
        }
        Shape::ConvexPolygon { points } => Some(convex_hull(points)),
    }
}

/// Whether a point in the body's frame lies inside the shape.
pub fn contains_local(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Circle { radius } => p.length() <= *radius,
        Shape::Cuboid { hx, hy } => p.x.abs() <= *hx && p.y.abs() <= *hy,
        Shape::Capsule {
            half_height,
            radius,
        } => {
            let y = p.y.clamp(-half_height, *half_height);
            Vec2::new(p.x, p.y - y).length() <= *radius
        }
        Shape::ConvexPolygon { points } => {
            let hull = convex_hull(points);
            hull.len() >= 3
                && (0..hull.len()).all(|i| {
                    let a = hull[i];
                    let b = hull[(i + 1) % hull.len()];
                    (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) >= 0.0
                })
        }
    }
}

/// The point of the shape (boundary or inside) nearest to `p`, in the body's frame.
pub fn closest_local(shape: &Shape, p: Vec2) -> Vec2 {
    let towards = |centre: Vec2, radius: f32| {
        let d = p - centre;
        let len = d.length();
        if len <= radius || len == 0.0 {
            p
        } else {
            centre + d * (radius / len)
        }
    };
    match shape {
        Shape::Circle { radius } => towards(Vec2::ZERO, *radius),
        Shape::Cuboid { hx, hy } => Vec2::new(p.x.clamp(-hx, *hx), p.y.clamp(-hy, *hy)),
        Shape::Capsule {
            half_height,
            radius,
        } => towards(
            Vec2::new(0.0, p.y.clamp(-half_height, *half_height)),
            *radius,
        ),
        Shape::ConvexPolygon { points } => {
            if contains_local(shape, p) {
                return p;
            }
            let hull = convex_hull(points);
            let mut best = p;
            let mut best_d = f32::INFINITY;
            for i in 0..hull.len() {
                let a = hull[i];
                let b = hull[(i + 1) % hull.len()];
                let ab = b - a;
                let len2 = ab.x * ab.x + ab.y * ab.y;
                let t = if len2 > 0.0 {
                    (((p.x - a.x) * ab.x + (p.y - a.y) * ab.y) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let q = a + ab * t;
                let d = (p - q).length();
                if d < best_d {
                    best_d = d;
                    best = q;
                }
            }
            best
        }
    }
}

/// The point of a body (all its shapes, at `pose`) nearest to world point `p`.
pub fn closest_world(shapes: &[Shape], pose: Pose, p: Vec2) -> Vec2 {
    let local = world_to_local(pose, p);
    shapes
        .iter()
        .map(|s| local_to_world(pose, closest_local(s, local)))
        .min_by(|a, b| (*a - p).length().total_cmp(&(*b - p).length()))
        .unwrap_or(pose.position())
}

/// Where two touching bodies meet, approximately (for drawing, not physics):
/// the point of `a` nearest to `b`'s centre, then the point of `b` nearest to
/// that, and the middle of the two. For a ball resting on a wide floor this is
/// the ball's lowest point, not the floor's distant centre.
pub fn contact_point(a: (&[Shape], Pose), b: (&[Shape], Pose)) -> Vec2 {
    let on_a = closest_world(a.0, a.1, b.1.position());
    let on_b = closest_world(b.0, b.1, on_a);
    Vec2::new((on_a.x + on_b.x) / 2.0, (on_a.y + on_b.y) / 2.0)
}

/// Half extents of an axis-aligned box around the shape in its body's frame
/// (generous: used to fit the view, not for physics).
pub fn local_radius(shape: &Shape) -> f32 {
    match shape {
        Shape::Circle { radius } => *radius,
        Shape::Cuboid { hx, hy } => Vec2::new(*hx, *hy).length(),
        Shape::Capsule {
            half_height,
            radius,
        } => half_height + radius,
        Shape::ConvexPolygon { points } => points.iter().map(|p| p.length()).fold(0.0, f32::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_round_trips_and_flips_y() {
        let cam = Camera {
            center: Vec2::new(1.0, 2.0),
            screen_center: (100.0, 50.0),
            zoom: 10.0,
        };
        // One metre up is ten pixels up the screen (smaller y).
        assert_eq!(cam.to_screen(Vec2::new(1.0, 3.0)), (100.0, 40.0));
        assert_eq!(cam.to_world((110.0, 50.0)), Vec2::new(2.0, 2.0));
    }

    #[test]
    fn rotated_box_hit_test_uses_the_body_frame() {
        // A 2 m × 0.2 m bar rotated 90°: it now spans y in [-1, 1] around (5, 0).
        let pose = Pose::new(5.0, 0.0, std::f32::consts::FRAC_PI_2);
        let bar = Shape::Cuboid { hx: 1.0, hy: 0.1 };
        assert!(contains_local(
            &bar,
            world_to_local(pose, Vec2::new(5.0, 0.9))
        ));
        assert!(!contains_local(
            &bar,
            world_to_local(pose, Vec2::new(5.9, 0.0))
        ));
        let p = local_to_world(pose, Vec2::new(1.0, 0.0));
        assert!((p.x - 5.0).abs() < 1e-6 && (p.y - 1.0).abs() < 1e-6);
    }

    #[test]
    fn capsule_contains_its_caps_but_not_the_corners() {
        let c = Shape::Capsule {
            half_height: 1.0,
            radius: 0.5,
        };
        assert!(contains_local(&c, Vec2::new(0.0, 1.45)));
        // The corner of the bounding box (0.5, 1.5) is 0.5 from the segment end
        // along x and y: √0.5 ≈ 0.71 > 0.5, outside.
        assert!(!contains_local(&c, Vec2::new(0.45, 1.45)));
        let outline = local_outline(&c).unwrap_or_default();
        assert_eq!(outline.len(), 2 * (ARC_SEGMENTS + 1));
    }

    #[test]
    fn contact_of_a_ball_on_a_wide_floor_is_under_the_ball() {
        // Floor: 24 m × 1 m centred at (-8, -0.5), top at y = 0. Ball: r = 0.25
        // resting at (3, 0.25). They meet at (3, 0), 11 m from the floor's centre.
        let floor = [Shape::Cuboid { hx: 12.0, hy: 0.5 }];
        let ball = [Shape::Circle { radius: 0.25 }];
        let c = contact_point(
            (&floor, Pose::new(-8.0, -0.5, 0.0)),
            (&ball, Pose::new(3.0, 0.25, 0.0)),
        );
        assert!((c.x - 3.0).abs() < 1e-5 && c.y.abs() < 1e-5, "{c:?}");
    }

    #[test]
    fn hull_orders_points_counter_clockwise() {
        // A unit square given in a scrambled order, plus an inner point.
        let pts = [
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.5, 0.5),
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 0.0),
        ];
        let hull = convex_hull(&pts);
        assert_eq!(
            hull,
            vec![
                Vec2::new(0.0, 0.0),
                Vec2::new(1.0, 0.0),
                Vec2::new(1.0, 1.0),
                Vec2::new(0.0, 1.0)
            ]
        );
        let tri = Shape::ConvexPolygon {
            points: pts.to_vec(),
        };
        assert!(contains_local(&tri, Vec2::new(0.9, 0.1)));
        assert!(!contains_local(&tri, Vec2::new(1.1, 0.5)));
    }
}
