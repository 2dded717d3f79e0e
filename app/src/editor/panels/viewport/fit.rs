//! Fitting the scene into the viewport: after a load (at start too) and on
//! Fit. The fit waits for a view of the loaded world with something in it:
//! the view current when the load was reported shows the world before it.

use super::{ViewportState, ZOOM_RANGE};
use crate::editor::geometry;
use crate::editor::protocol::WorldView;

/// Fits `view` into `rect` if a fit is pending and `view` is one it is for
/// (see [`ViewportState::stale_view`]); a view with nothing to fit leaves it
/// pending.
pub(super) fn fit_if_needed(vp: &mut ViewportState, view: &WorldView, rect: egui::Rect) {
    if vp.needs_fit && vp.stale_view != Some(view.revision) && fit(vp, view, rect) {
        vp.needs_fit = false;
        vp.stale_view = None;
    }
}

/// Zooms and pans so every object of `view` shows in `rect`; false (and
/// nothing changed) when it has none.
fn fit(vp: &mut ViewportState, view: &WorldView, rect: egui::Rect) -> bool {
    let mut lo = (f32::INFINITY, f32::INFINITY);
    let mut hi = (f32::NEG_INFINITY, f32::NEG_INFINITY);
    for o in &view.objects {
        if let Some(soft) = o.body.as_ref().and_then(|b| b.soft.as_ref()) {
            for p in &soft.particles {
                lo = (lo.0.min(p.x - soft.radius), lo.1.min(p.y - soft.radius));
                hi = (hi.0.max(p.x + soft.radius), hi.1.max(p.y + soft.radius));
            }
            continue;
        }
        let r = o
            .body
            .as_ref()
            .map(|b| {
                b.shapes
                    .iter()
                    .map(geometry::local_radius)
                    .fold(0.2, f32::max)
            })
            .unwrap_or(0.2);
        let p = o.presentation;
        lo = (lo.0.min(p.x - r), lo.1.min(p.y - r));
        hi = (hi.0.max(p.x + r), hi.1.max(p.y + r));
    }
    if !(lo.0.is_finite() && hi.0.is_finite()) {
        return false;
    }
    let (w, h) = ((hi.0 - lo.0).max(1.0), (hi.1 - lo.1).max(1.0));
    let zoom = (rect.width() / w).min(rect.height() / h) * 0.9;
    vp.zoom = zoom.clamp(ZOOM_RANGE.0, ZOOM_RANGE.1);
    vp.center = egui::vec2((lo.0 + hi.0) / 2.0, (lo.1 + hi.1) / 2.0);
    true
}

#[cfg(test)]
mod tests {
    use stepframe_core::{BodyKind, ObjectId, Pose, Shape};

    use super::*;
    use crate::editor::protocol::{BodyView, ObjectView};

    /// A view of revision `revision` holding a 1 m ball at each of `at`.
    fn view(revision: u64, at: &[(f32, f32)]) -> WorldView {
        let objects = at
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| {
                let pose = Pose { x, y, angle: 0.0 };
                ObjectView {
                    id: ObjectId(i as u64 + 1),
                    name: format!("ball {i}"),
                    parent: None,
                    enabled: true,
                    presentation: pose,
                    committed: pose,
                    moved_to: None,
                    body: Some(BodyView {
                        kind: BodyKind::Dynamic,
                        shapes: vec![Shape::Circle { radius: 0.5 }],
                        sensor: false,
                        soft: None,
                    }),
                    behaviours: Vec::new(),
                    cohort: Vec::new(),
                }
            })
            .collect();
        WorldView {
            revision,
            at_tick: None,
            clock: Default::default(),
            settings: Default::default(),
            suspension: None,
            objects,
            contacts: Vec::new(),
            camera: None,
            selected: None,
            state_hash: 0,
            b: None,
        }
    }

    fn rect() -> egui::Rect {
        egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 400.0))
    }

    #[test]
    fn a_load_fits_the_first_view_of_the_loaded_world_not_the_one_before_it() {
        let mut vp = ViewportState::default();
        let default_zoom = vp.zoom;
        // The load was reported while view 1 (the world before it, empty at
        // start) was the newest: drawing view 1 fits nothing and keeps the
        // fit pending.
        vp.stale_view = Some(1);
        fit_if_needed(&mut vp, &view(1, &[]), rect());
        assert!(vp.needs_fit);
        assert_eq!(vp.zoom, default_zoom);
        // A stale view with objects in it (the scene before an Open) is not
        // the loaded world either.
        fit_if_needed(&mut vp, &view(1, &[(-100.0, 0.0), (100.0, 0.0)]), rect());
        assert!(vp.needs_fit, "not fitted to the old world");
        // An empty view of the new world: still nothing to fit.
        fit_if_needed(&mut vp, &view(2, &[]), rect());
        assert!(vp.needs_fit);
        // The loaded world, 40 m wide with its balls: fitted, 90 % of 800
        // points over 41 m, centred between them, and done.
        fit_if_needed(&mut vp, &view(3, &[(-20.0, 0.0), (20.0, 2.0)]), rect());
        assert!(!vp.needs_fit);
        assert!((vp.zoom - 0.9 * 800.0 / 41.0).abs() < 1e-3, "{}", vp.zoom);
        assert_eq!(vp.center, egui::vec2(0.0, 1.0));
    }
}
