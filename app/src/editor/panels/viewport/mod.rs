//! The scene viewport: bodies drawn at their presentation poses (interpolated
//! while running, committed while suspended), optional committed outlines and
//! contacts, pan (drag), zoom (scroll), click to select, keyboard input for
//! the game while it has focus, and the time readout in its corner
//! (`readout`).
//!
//! While the live session is suspended (a preview, a pause, a breakpoint), a
//! drag that starts on a body moves it: the body follows the pointer as the
//! panel's own gesture state, and the release sends one pose edit (the
//! committed pose moved by the dragged world distance, angle kept) through
//! the worker's history, like the inspector's Apply pose. Until the next
//! tick reconciles it, the worker publishes the queued pose
//! ([`ObjectView::moved_to`]) and the body is drawn there. A drag on empty
//! space, or while running, pans.
//!
//! A loaded scene is fitted into view once a view of it has something to
//! show (`fit`).

mod fit;
mod keys;
mod readout;
mod soft;

use crate::editor::protocol::{EditCommand, Run, Target};
use crate::editor::shared::Panel;
use std::collections::BTreeSet;

use egui::{Color32, Pos2, Sense, Stroke, StrokeKind};
use stepframe_core::{BodyKind, InputEvent, InputSource, ObjectId, Pose, Shape, Vec2};

use self::fit::fit_if_needed;
use crate::editor::geometry::{self, Camera};
use crate::editor::panels::viewport::soft::{draw_soft, soft_contains};
use crate::editor::protocol::{Command, Event, ObjectView, WorldView};
use crate::editor::shared::B_COLOUR;
use crate::editor::shared::{Commands, Persisted, Reading};

/// What the viewport's tooltip says away from any body.
const VIEWPORT_TIP: &str = "Click a body to select it; any click gives the game the keyboard; drag to pan, scroll to zoom; while paused, drag a body to move it (one edit, Ctrl+S saves it into the scene); Esc or a click elsewhere gives the keyboard back";

/// Viewport camera and keyboard state.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewportState {
    /// World point at the centre of the viewport, metres.
    pub center: egui::Vec2,
    /// Fit the view to the scene at the next frame it can (after a load):
    /// a view with something in it, not [`Self::stale_view`].
    pub needs_fit: bool,
    /// The revision of the live view current when a scene loaded: it shows
    /// the world before the load (at start, an empty one), so the fit waits
    /// for a later view. A fit of that one found nothing, the view stayed
    /// at the default zoom, and whether a new user saw the level whole or
    /// zoomed in depended on which came first.
    pub stale_view: Option<u64>,
    /// Keys the game currently sees held (released when focus goes).
    pub held_keys: BTreeSet<String>,
    /// The viewport had keyboard focus last frame (Space goes to the game).
    pub focused: bool,
    /// The camera of the last frame drawn: where a world point is on screen
    /// (tests click objects through it).
    pub camera: Option<Camera>,
    /// Draw committed poses as outlines over the interpolated ones (persisted).
    pub show_committed: bool,
    /// Draw touching pairs (persisted).
    pub show_contacts: bool,
    /// Centre on the scene's camera (FollowCamera) when it has one (persisted).
    pub follow_camera: bool,
    /// Zoom, pixels per metre (persisted).
    pub zoom: f32,
    /// A body being dragged, while the pointer is down.
    pub dragging: Option<BodyDrag>,
    /// The picture's rectangle on the last frame drawn: where the error and
    /// the notices float, over the game and never over a panel's controls
    /// (an error's Dismiss button once sat on the code pane's Edit button
    /// and took its click).
    pub canvas: Option<egui::Rect>,
}

/// A drag of one body in progress: gesture state of the panel, sent as one
/// pose edit on release (never a copy of the session's state: the worker
/// applies the edit and publishes where the body is).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyDrag {
    /// The body.
    pub object: ObjectId,
    /// Its pose when the drag started (the pose shown, committed or queued).
    pub from: Pose,
    /// The world point under the pointer when the drag started, metres.
    pub grab: Vec2,
    /// The world point under the pointer now, metres.
    pub at: Vec2,
}

impl BodyDrag {
    /// The pose the body is dropped at: moved by the dragged world
    /// distance, its angle kept.
    pub fn pose(&self) -> Pose {
        Pose::new(
            self.from.x + (self.at.x - self.grab.x),
            self.from.y + (self.at.y - self.grab.y),
            self.from.angle,
        )
    }
}

impl Default for ViewportState {
    fn default() -> ViewportState {
        ViewportState {
            center: egui::Vec2::ZERO,
            needs_fit: true,
            stale_view: None,
            held_keys: BTreeSet::new(),
            focused: false,
            camera: None,
            show_committed: false,
            show_contacts: false,
            follow_camera: true,
            zoom: 40.0,
            dragging: None,
            canvas: None,
        }
    }
}

impl ViewportState {
    /// Takes the persisted view options.
    pub fn restore(&mut self, p: &Persisted) {
        self.show_committed = p.show_committed;
        self.show_contacts = p.show_contacts;
        self.follow_camera = p.follow_camera;
        self.zoom = p.zoom;
    }

    /// Writes the view options to be persisted.
    pub fn store(&self, p: &mut Persisted) {
        p.show_committed = self.show_committed;
        p.show_contacts = self.show_contacts;
        p.follow_camera = self.follow_camera;
        p.zoom = self.zoom;
    }
}

/// Zoom limits, pixels per metre.
const ZOOM_RANGE: (f32, f32) = (2.0, 400.0);

impl Panel for ViewportState {
    /// A loaded scene is fitted into view at the first draw of a view of
    /// it with something to show ([`ViewportState::stale_view`]).
    fn on_event(&mut self, event: &Event, reading: &Reading<'_>, _cmd: &mut Commands) {
        if let Event::Loaded { .. } = event {
            self.needs_fit = true;
            self.stale_view = reading.live().map(|l| l.world.revision);
        }
    }

    /// Draws the viewport and routes its input.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        viewport_ui(ui, reading, cmd, self);
    }
}

/// Draws the viewport and routes its input.
fn viewport_ui(ui: &mut egui::Ui, shown: &Reading<'_>, cmd: &mut Commands, vp: &mut ViewportState) {
    ui.horizontal(|ui| {
        ui.checkbox(&mut vp.show_committed, "Committed poses")
            .on_hover_text(
                "Also outline each body at its committed pose (physics_simulation_pose) of the completed tick",
            );
        ui.checkbox(&mut vp.show_contacts, "Contacts")
            .on_hover_text("Mark where each pair of bodies touches after the completed tick");
        ui.checkbox(&mut vp.follow_camera, "Follow camera")
            .on_hover_text("Centre on the scene's camera (FollowCamera) when it has one; panning turns this off");
        if ui
            .button("Fit")
            .on_hover_text("Zoom and pan to show the whole scene")
            .clicked()
        {
            vp.needs_fit = true;
            vp.stale_view = None;
            vp.follow_camera = false;
        }
    });

    let size = ui.available_size().max(egui::vec2(64.0, 64.0));
    let (response, painter) = ui.allocate_painter(size, Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "Viewport"));
    // Its tooltip (the body under the pointer, or what a click does) is
    // given once the bodies are known, below.
    let rect = response.rect;
    vp.canvas = Some(rect);
    painter.rect_filled(rect, 0.0, Color32::from_rgb(24, 26, 30));

    let selection = shown.selection();
    let Some(view) = shown.shown() else {
        return;
    };

    // Camera: follow, fit, or wherever the user left it.
    fit_if_needed(vp, view, rect);
    if vp.follow_camera
        && let Some(c) = view.camera
    {
        vp.center = egui::vec2(c.x, c.y);
    }
    let zoom = vp.zoom;
    let mut camera = Camera {
        center: Vec2::new(vp.center.x, vp.center.y),
        screen_center: (rect.center().x, rect.center().y),
        zoom,
    };

    // Focus: a click or drag gives the game the keyboard, Esc gives it back.
    if response.clicked() || response.drag_started() {
        response.request_focus();
    }
    let focused = response.has_focus();
    if focused {
        ui.memory_mut(|m| {
            m.set_focus_lock_filter(
                response.id,
                egui::EventFilter {
                    tab: true,
                    horizontal_arrows: true,
                    vertical_arrows: true,
                    escape: false,
                },
            )
        });
        if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
            response.surrender_focus();
        }
    }
    game_keys(ui, cmd, vp, focused);
    vp.focused = focused;

    // Move a body (suspended, live), else pan.
    drag_body(&response, shown, view, &camera, cmd, vp);
    if response.dragged() && vp.dragging.is_none() {
        let d = response.drag_delta();
        vp.center.x -= d.x / zoom;
        vp.center.y += d.y / zoom;
        vp.follow_camera = false;
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0
            && let Some(pointer) = response.hover_pos()
        {
            let before = camera.to_world((pointer.x, pointer.y));
            let new_zoom = (zoom * (scroll * 0.002).exp()).clamp(ZOOM_RANGE.0, ZOOM_RANGE.1);
            // Keep the world point under the pointer where it is.
            vp.zoom = new_zoom;
            vp.center.x = before.x - (pointer.x - rect.center().x) / new_zoom;
            vp.center.y = before.y + (pointer.y - rect.center().y) / new_zoom;
        }
    }
    camera.center = Vec2::new(vp.center.x, vp.center.y);
    camera.zoom = vp.zoom;
    vp.camera = Some(camera);

    // Click to select: the topmost (last drawn) object under the pointer. A
    // click on empty space only gives the game the keyboard; the inspector
    // keeps its object.
    if response.clicked()
        && let Some(pointer) = response.interact_pointer_pos()
        && let Some(hit) = pick(view, &camera, pointer, Pick::Any)
        && Some(hit) != selection
    {
        cmd.select(Some(hit));
    }

    let painter = painter.with_clip_rect(rect);
    draw_grid(&painter, &camera, rect);
    for object in &view.objects {
        draw_object(
            &painter,
            &camera,
            object,
            shown_pose(object, vp.dragging.as_ref()),
            selection == Some(object.id),
            None,
        );
    }
    if vp.show_committed {
        for object in &view.objects {
            draw_object(
                &painter,
                &camera,
                object,
                object.committed,
                false,
                Some(COMMITTED_OUTLINE),
            );
        }
    }
    if let Some(c) = shown.run_b() {
        // Run B's bodies where they are not where A's are (a soft body's
        // record is its centroid pose, not its particles: not drawn).
        let rigid = |o: &&ObjectView| o.body.as_ref().is_some_and(|b| b.soft.is_none());
        for object in view.objects.iter().filter(rigid) {
            let Some(b) = c.b_fields(object.id.0) else {
                continue;
            };
            let p = object.committed;
            if [p.x, p.y, p.angle] != [b[0], b[1], b[2]] {
                let pose = Pose::new(b[0], b[1], b[2]);
                draw_object(&painter, &camera, object, pose, false, Some(B_COLOUR));
            }
        }
    }
    if vp.show_contacts {
        draw_contacts(&painter, &camera, view);
    }
    // Names over bodies: the selection (gold), the body under the pointer,
    // and the player, whom a new user looks for first among ~150 bodies.
    let hovered = response
        .hover_pos()
        .and_then(|p| pick(view, &camera, p, Pick::Any));
    for o in &view.objects {
        let selected = selection == Some(o.id);
        let player = o.body.is_some() && o.name.eq_ignore_ascii_case("player");
        if !(selected || hovered == Some(o.id) || player) {
            continue;
        }
        // Where the body is drawn: under the pointer while dragged, at a
        // move waiting for the next tick (the name once stayed behind).
        let (x, y) = camera.to_screen(shown_pose(o, vp.dragging.as_ref()).position());
        painter.text(
            Pos2::new(x, y - 14.0),
            egui::Align2::CENTER_BOTTOM,
            &o.name,
            egui::FontId::proportional(13.0),
            if selected {
                Color32::from_rgb(255, 220, 90)
            } else {
                Color32::from_rgb(225, 225, 225)
            },
        );
    }
    // The pointer's body by name in the tooltip too (where a reader of the
    // accessibility tree, or a test, finds it).
    let tip = match hovered.and_then(|id| view.objects.iter().find(|o| o.id == id)) {
        Some(o) => format!(
            "{} {}: click to select it; while paused, drag it to move it",
            o.name, o.id
        ),
        None => VIEWPORT_TIP.to_string(),
    };
    response.clone().on_hover_text(tip);
    let actions = shown.live().map_or(&[][..], |l| l.actions.as_slice());
    let keys: Vec<String> = actions
        .iter()
        .map(|(name, bound)| {
            let fires: Vec<&str> = bound
                .iter()
                .map(String::as_str)
                .filter(|k| keys::binding_fires(k))
                .collect();
            (name, fires)
        })
        .filter(|(_, fires)| !fires.is_empty())
        .map(|(name, fires)| format!("{} {name}", fires.join("/")))
        .collect();
    let hint = if focused {
        format!(
            "keyboard to the game: {} (Esc gives it back)",
            keys.join(" · ")
        )
    } else {
        "click to give the game the keyboard; drag to pan, scroll to zoom".to_string()
    };
    painter.text(
        rect.left_bottom() + egui::vec2(8.0, -6.0),
        egui::Align2::LEFT_BOTTOM,
        hint,
        egui::FontId::proportional(12.0),
        if focused {
            Color32::from_rgb(120, 200, 120)
        } else {
            Color32::GRAY
        },
    );
    if focused {
        painter.rect_stroke(
            rect.shrink(1.0),
            0.0,
            Stroke::new(1.5, Color32::from_rgb(90, 150, 90)),
            StrokeKind::Inside,
        );
    }
    readout::readout_ui(ui, rect, shown);
}

/// Where an object is drawn: under the pointer while dragged, at a queued
/// move while one waits for the next tick, else at its presentation pose.
fn shown_pose(object: &ObjectView, dragging: Option<&BodyDrag>) -> Pose {
    match dragging {
        Some(d) if d.object == object.id => d.pose(),
        _ => object.moved_to.unwrap_or(object.presentation),
    }
}

/// A drag that starts on a body while the live session is suspended moves
/// that body (module docs): its release sends one pose edit.
fn drag_body(
    response: &egui::Response,
    shown: &Reading<'_>,
    view: &WorldView,
    camera: &Camera,
    cmd: &mut Commands,
    vp: &mut ViewportState,
) {
    let pointer = response
        .interact_pointer_pos()
        .map(|p| camera.to_world((p.x, p.y)));
    if response.drag_started() {
        vp.dragging = None;
        let movable = shown.is_suspended() && !shown.viewing_past();
        // Where the press was, not where the pointer is once it counts as
        // a drag (a few points later).
        let press = response
            .ctx
            .input(|i| i.pointer.press_origin())
            .or(response.interact_pointer_pos());
        if movable
            && let Some(press) = press
            && let Some(id) = pick(view, camera, press, Pick::Bodies)
            && let Some(o) = view.objects.iter().find(|o| o.id == id)
        {
            let grab = camera.to_world((press.x, press.y));
            if shown.selection() != Some(id) {
                cmd.select(Some(id));
            }
            vp.dragging = Some(BodyDrag {
                object: id,
                from: o.moved_to.unwrap_or(o.presentation),
                grab,
                at: pointer.unwrap_or(grab),
            });
        }
    }
    if let Some(d) = vp.dragging.as_mut()
        && let Some(at) = pointer
    {
        d.at = at;
    }
    if response.drag_stopped()
        && let Some(d) = vp.dragging.take()
        && d.at != d.grab
    {
        cmd.send(Command::Edit {
            target: Target::Live,
            edit: EditCommand::Pose(d.object, d.pose()),
        });
    }
}

/// Key presses and releases go to the game as device events named like egui's
/// keys (`Space`, `ArrowLeft`, `A`) while the viewport has focus; on losing
/// focus every held key is released so nothing stays stuck down.
fn game_keys(ui: &egui::Ui, cmd: &mut Commands, vp: &mut ViewportState, focused: bool) {
    if !focused {
        let held = std::mem::take(&mut vp.held_keys);
        for name in held {
            cmd.send(Command::Run(Run::Input(InputEvent::release(
                InputSource::Key(name),
            ))));
        }
        return;
    }
    let events = ui.input(|i| i.events.clone());
    for event in events {
        let egui::Event::Key {
            key,
            pressed,
            repeat,
            modifiers,
            ..
        } = event
        else {
            continue;
        };
        if !keys::reaches_game(key, repeat, modifiers) {
            continue;
        }
        let name = keys::key_name(key);
        if pressed {
            if vp.held_keys.insert(name.clone()) {
                cmd.send(Command::Run(Run::Input(InputEvent::press(
                    InputSource::Key(name),
                ))));
            }
        } else if vp.held_keys.remove(&name) {
            cmd.send(Command::Run(Run::Input(InputEvent::release(
                InputSource::Key(name),
            ))));
        }
    }
}

/// What a pointer can pick.
#[derive(Clone, Copy, PartialEq)]
enum Pick {
    /// Any object: a body by its shape, a bodyless one near its cross.
    Any,
    /// Bodies only (a drag moves a body; a bodyless child drawn over its
    /// parent, like the player's marker, must not hide it).
    Bodies,
}

/// The topmost (last drawn) object under the pointer.
fn pick(view: &WorldView, camera: &Camera, pointer: Pos2, what: Pick) -> Option<ObjectId> {
    // A body under the pointer wins over a bodiless object's point near it:
    // a marker parented to the player sits over the player at a small zoom,
    // and a click on the player's circle means the player.
    let bodies = pick_in(view, camera, pointer, Pick::Bodies);
    match what {
        Pick::Bodies => bodies,
        Pick::Any => bodies.or_else(|| pick_in(view, camera, pointer, Pick::Any)),
    }
}

/// The topmost (last drawn) object under the pointer: bodies by their
/// shapes, bodiless objects (with `Pick::Any`) within 8 px of their point.
fn pick_in(view: &WorldView, camera: &Camera, pointer: Pos2, what: Pick) -> Option<ObjectId> {
    let world = camera.to_world((pointer.x, pointer.y));
    view.objects.iter().rev().find_map(|o| {
        let hit = match &o.body {
            Some(body) if body.soft.is_some() => body
                .soft
                .as_ref()
                .is_some_and(|soft| soft_contains(camera, soft, world)),
            Some(body) => {
                let local = geometry::world_to_local(o.presentation, world);
                body.shapes
                    .iter()
                    .any(|s| geometry::contains_local(s, local))
            }
            None if what == Pick::Bodies => false,
            None => {
                let (x, y) = camera.to_screen(o.presentation.position());
                Pos2::new(x, y).distance(pointer) <= 8.0
            }
        };
        hit.then_some(o.id)
    })
}

fn to_pos(camera: &Camera, p: Vec2) -> Pos2 {
    let (x, y) = camera.to_screen(p);
    Pos2::new(x, y)
}

fn draw_grid(painter: &egui::Painter, camera: &Camera, rect: egui::Rect) {
    let step = if camera.zoom >= 20.0 { 1.0 } else { 5.0 };
    let lo = camera.to_world((rect.left(), rect.bottom()));
    let hi = camera.to_world((rect.right(), rect.top()));
    let minor = Stroke::new(1.0, Color32::from_rgb(34, 37, 42));
    let axis = Stroke::new(1.0, Color32::from_rgb(60, 64, 72));
    let mut x = (lo.x / step).floor() * step;
    while x <= hi.x {
        let s = if x == 0.0 { axis } else { minor };
        painter.line_segment(
            [
                to_pos(camera, Vec2::new(x, lo.y)),
                to_pos(camera, Vec2::new(x, hi.y)),
            ],
            s,
        );
        x += step;
    }
    let mut y = (lo.y / step).floor() * step;
    while y <= hi.y {
        let s = if y == 0.0 { axis } else { minor };
        painter.line_segment(
            [
                to_pos(camera, Vec2::new(lo.x, y)),
                to_pos(camera, Vec2::new(hi.x, y)),
            ],
            s,
        );
        y += step;
    }
}

fn body_colour(kind: BodyKind) -> Color32 {
    match kind {
        BodyKind::Dynamic => Color32::from_rgb(70, 130, 200),
        BodyKind::Kinematic => Color32::from_rgb(80, 170, 110),
        BodyKind::Fixed => Color32::from_rgb(110, 110, 120),
        BodyKind::Soft => Color32::from_rgb(200, 120, 160),
    }
}

/// The committed-pose overlay's colour.
const COMMITTED_OUTLINE: Color32 = Color32::from_rgb(255, 140, 40);

fn draw_object(
    painter: &egui::Painter,
    camera: &Camera,
    object: &ObjectView,
    pose: Pose,
    selected: bool,
    outline: Option<Color32>,
) {
    let outline_only = outline.is_some();
    let Some(body) = &object.body else {
        if outline_only {
            return;
        }
        // A bodyless object: a small cross.
        let c = to_pos(camera, pose.position());
        let colour = if selected {
            Color32::from_rgb(255, 220, 90)
        } else {
            Color32::from_rgb(170, 170, 180)
        };
        painter.line_segment(
            [c - egui::vec2(5.0, 0.0), c + egui::vec2(5.0, 0.0)],
            (1.5, colour),
        );
        painter.line_segment(
            [c - egui::vec2(0.0, 5.0), c + egui::vec2(0.0, 5.0)],
            (1.5, colour),
        );
        return;
    };
    let mut fill = body_colour(body.kind);
    if !object.enabled {
        fill = fill.gamma_multiply(0.35);
    }
    let stroke = if let Some(colour) = outline {
        Stroke::new(1.5, colour)
    } else if selected {
        Stroke::new(2.5, Color32::from_rgb(255, 220, 90))
    } else {
        Stroke::new(1.0, fill.gamma_multiply(1.6))
    };
    let fill = if outline_only || body.sensor {
        Color32::TRANSPARENT
    } else {
        fill
    };
    if let Some(soft) = &body.soft {
        // The overlay draws the committed particles, the body what is shown.
        let particles = if outline_only {
            &soft.committed
        } else {
            &soft.particles
        };
        let fill = if fill == Color32::TRANSPARENT {
            fill
        } else {
            fill.gamma_multiply(0.6)
        };
        draw_soft(painter, camera, soft, particles, fill, stroke);
        return;
    }
    for shape in &body.shapes {
        match shape {
            Shape::Circle { radius } => {
                let c = to_pos(camera, pose.position());
                let r = radius * camera.zoom;
                painter.circle(c, r, fill, stroke);
                // A spoke shows the rotation.
                let tip = geometry::local_to_world(pose, Vec2::new(*radius, 0.0));
                painter.line_segment([c, to_pos(camera, tip)], stroke);
            }
            other => {
                let Some(outline) = geometry::local_outline(other) else {
                    continue;
                };
                let points: Vec<Pos2> = outline
                    .iter()
                    .map(|p| to_pos(camera, geometry::local_to_world(pose, *p)))
                    .collect();
                painter.add(egui::Shape::convex_polygon(points, fill, stroke));
            }
        }
    }
}

fn draw_contacts(painter: &egui::Painter, camera: &Camera, view: &WorldView) {
    let colour = Color32::from_rgb(230, 70, 70);
    let find = |id| {
        view.objects
            .binary_search_by_key(&id, |o| o.id)
            .ok()
            .map(|i| &view.objects[i])
    };
    for (a, b) in &view.contacts {
        let (Some(a), Some(b)) = (find(*a), find(*b)) else {
            continue;
        };
        let (Some(ba), Some(bb)) = (&a.body, &b.body) else {
            continue;
        };
        let p = geometry::contact_point((&ba.shapes, a.committed), (&bb.shapes, b.committed));
        painter.circle_filled(to_pos(camera, p), 3.0, colour);
    }
}
