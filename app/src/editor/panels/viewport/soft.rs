//! Soft bodies in the viewport: the deformed outline through the particles
//! (closed for a jelly, open for a rope), each particle as a dot of its
//! radius, pinned particles as squares. A click inside a closed outline, or
//! on a particle, selects the body.

use egui::{Color32, Pos2, Stroke};
use stepframe_core::Vec2;

use crate::editor::geometry::Camera;
use crate::editor::protocol::SoftView;

/// Pinned particles: they do not move, so they get their own colour.
const PINNED: Color32 = Color32::from_rgb(240, 200, 90);

/// Draws `particles` (the presentation's or the committed ones) of `soft`.
pub fn draw_soft(
    painter: &egui::Painter,
    camera: &Camera,
    soft: &SoftView,
    particles: &[Vec2],
    fill: Color32,
    stroke: Stroke,
) {
    let at = |i: u32| particles.get(i as usize).map(|p| to_pos(camera, *p));
    for (outline, closed) in &soft.outlines {
        let mut points: Vec<Pos2> = outline.iter().filter_map(|&i| at(i)).collect();
        if *closed && points.len() >= 3 {
            // A triangle fan from the centroid fills a star-shaped outline
            // (a jelly, however squashed) without a concave-polygon fill.
            let n = points.len() as f32;
            let c = points.iter().fold(Pos2::ZERO, |a, p| a + p.to_vec2() / n);
            if fill != Color32::TRANSPARENT {
                let mut mesh = egui::Mesh::default();
                mesh.colored_vertex(c, fill);
                for p in &points {
                    mesh.colored_vertex(*p, fill);
                }
                let k = points.len() as u32;
                for i in 0..k {
                    mesh.add_triangle(0, 1 + i, 1 + (i + 1) % k);
                }
                painter.add(mesh);
            }
            points.push(points[0]);
        }
        painter.add(egui::Shape::line(points, stroke));
    }
    let r = (soft.radius * camera.zoom).max(1.5);
    for (i, p) in particles.iter().enumerate() {
        let pos = to_pos(camera, *p);
        if soft.pinned.binary_search(&(i as u32)).is_ok() {
            painter.rect_filled(
                egui::Rect::from_center_size(pos, egui::vec2(2.0 * r + 2.0, 2.0 * r + 2.0)),
                0.0,
                PINNED,
            );
        } else {
            painter.circle_filled(pos, r, stroke.color);
        }
    }
}

/// Whether a world point hits the soft body: inside a closed outline, or
/// within a particle's radius (at least 6 screen points, so a thin rope can
/// be clicked).
pub fn soft_contains(camera: &Camera, soft: &SoftView, world: Vec2) -> bool {
    let inside = soft.outlines.iter().any(|(outline, closed)| {
        *closed && {
            let poly: Vec<Vec2> = outline
                .iter()
                .filter_map(|&i| soft.particles.get(i as usize).copied())
                .collect();
            contains(&poly, world)
        }
    });
    let reach = soft.radius.max(6.0 / camera.zoom.max(1e-3));
    inside
        || soft.particles.iter().any(|p| {
            let (dx, dy) = (p.x - world.x, p.y - world.y);
            dx * dx + dy * dy <= reach * reach
        })
}

/// Even-odd point in polygon.
fn contains(poly: &[Vec2], p: Vec2) -> bool {
    let mut inside = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + n - 1) % n]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
    }
    inside
}

fn to_pos(camera: &Camera, p: Vec2) -> Pos2 {
    let (x, y) = camera.to_screen(p);
    Pos2::new(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_concave_outline_contains_its_inside_and_not_its_notch() {
        // A U: the notch between the arms is outside.
        let u = [
            Vec2::new(0.0, 0.0),
            Vec2::new(3.0, 0.0),
            Vec2::new(3.0, 3.0),
            Vec2::new(2.0, 3.0),
            Vec2::new(2.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 3.0),
            Vec2::new(0.0, 3.0),
        ];
        assert!(contains(&u, Vec2::new(0.5, 2.0)));
        assert!(contains(&u, Vec2::new(1.5, 0.5)));
        assert!(!contains(&u, Vec2::new(1.5, 2.0)));
    }
}
