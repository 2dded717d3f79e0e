//! What a session's edits make of the scene it was loaded from:
//! [`Scene::with_edits`], the scene Save writes.
//!
//! An edit is about the running world ([`Edit`]); a scene is what a world
//! starts from. Folding one into the other follows one rule: **an object
//! the user edited is authored as they left it, every other object keeps
//! the pose it was authored with** (the simulation itself, a box that fell,
//! is not saved).
//!
//! | edit | in the scene |
//! |---|---|
//! | `Pose` | the object's `transform`, so that it spawns at the world pose the edit gave |
//! | `Enabled` | `enabled` |
//! | `Params` | that behaviour's `params`, when the behaviour at that place has that name |
//! | `Spawn` | a new top-level object (naming its parent), after every other |
//! | `Remove` | the object and everything under it gone |
//! | `Settings` | the time settings |
//! | `Velocity` | nothing: a scene holds no velocity at a later tick (listed in [`Folded::left_out`]) |
//! | `Reload` | nothing: a script's text is its own file |
//!
//! # Bit for bit
//!
//! A transform is parent-relative, a pose edit is a world pose, and the
//! world composes the two in `f32` ([`Pose::compose`]) when it spawns the
//! object. So the transform written is searched for, a few ulps around the
//! exact inverse, until composing it with the parent's world pose gives the
//! edit's pose bit for bit: a root object's transform is the pose itself;
//! under a parent at `x: -4.0`, a box moved to `x: 0.1` gets the `4.1…`
//! that lands on `0.1` again. When no nearby transform lands exactly (a
//! parent far from the object), the nearest is kept and the move is listed
//! in [`Folded::inexact`].
//!
//! A body under a moved body stays where it was in the live world (bodies
//! are independent in physics), so its transform is re-solved against its
//! parent's new pose; a bodyless child follows its parent, as it does live.

use std::collections::{BTreeMap, BTreeSet};

use super::Edit;
use crate::geometry::Pose;
use crate::ids::ObjectId;
use crate::scene::{Scene, SceneObject};

/// A scene with a session's edits folded in (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    /// The scene the edits make.
    pub scene: Scene,
    /// Edits that have no place in a scene, one line each (velocity edits,
    /// edits of objects spawned at run time), for the user to read.
    pub left_out: Vec<String>,
    /// Objects whose transform could not be made to land on the pose they
    /// were moved to bit for bit (one line each; off by an ulp or two).
    pub inexact: Vec<String>,
    /// For each edit given, in order: whether the scene holds it (a velocity,
    /// a script reload, an edit of an object spawned at run time do not), so
    /// a save can say beforehand what it writes and what it leaves out.
    pub placed: Vec<bool>,
}

impl Scene {
    /// This scene with `edits` applied in order (see the module docs).
    pub fn with_edits<'e>(&self, edits: impl IntoIterator<Item = &'e Edit>) -> Folded {
        let mut scene = self.clone();
        let mut left_out = Vec::new();
        let mut inexact = Vec::new();
        let mut velocities = 0usize;
        let mut placed = Vec::new();
        let not_in = |what: &str, id: &ObjectId| {
            format!(
                "{what} of object {}: not in the scene (spawned at run time)",
                id.0
            )
        };
        for edit in edits {
            let (before_out, before_velocities) = (left_out.len(), velocities);
            match edit {
                Edit::Pose { object, pose } => {
                    if scene.find(object.0).is_none() {
                        left_out.push(not_in("a move", object));
                    } else if !move_object(&mut scene, object.0, *pose) {
                        let name = scene.find(object.0).map_or("", |o| o.name.as_str());
                        inexact.push(format!(
                            "object {} `{name}`: its transform lands within an ulp of where \
                             it was moved, not exactly",
                            object.0
                        ));
                    }
                }
                Edit::Velocity { .. } => velocities += 1,
                Edit::Enabled { object, enabled } => match find_mut(&mut scene.objects, object.0) {
                    Some(o) => o.enabled = *enabled,
                    None => left_out.push(not_in("enabling", object)),
                },
                Edit::Params {
                    object,
                    index,
                    behaviour,
                    params,
                } => {
                    let slot = find_mut(&mut scene.objects, object.0)
                        .and_then(|o| o.behaviours.get_mut(*index))
                        .filter(|b| b.name == *behaviour);
                    match slot {
                        Some(b) => b.params.clone_from(params),
                        None => left_out.push(not_in("new parameters", object)),
                    }
                }
                Edit::Spawn(o) => {
                    if scene.find(o.id).is_some() {
                        left_out.push(format!(
                            "a new object {}: the scene already has that id",
                            o.id
                        ));
                    } else {
                        let mut o = SceneObject::clone(o);
                        o.children.clear();
                        scene.objects.push(o);
                    }
                }
                Edit::Remove { object } => {
                    if scene.find(object.0).is_none() {
                        left_out.push(not_in("a removal", object));
                    } else {
                        remove_object(&mut scene, object.0);
                    }
                }
                Edit::Settings(settings) => scene.settings.time = *settings,
                Edit::Reload { .. } => {}
            }
            placed.push(
                left_out.len() == before_out
                    && velocities == before_velocities
                    && !matches!(edit, Edit::Reload { .. }),
            );
        }
        if velocities > 0 {
            left_out.push(format!(
                "{velocities} velocity edit{}: a scene holds no velocity at a later tick",
                if velocities == 1 { "" } else { "s" }
            ));
        }
        Folded {
            scene,
            left_out,
            inexact,
            placed,
        }
    }
}

/// The object with this id, anywhere in the tree, to change.
fn find_mut(objects: &mut [SceneObject], id: u64) -> Option<&mut SceneObject> {
    for o in objects {
        if o.id == id {
            return Some(o);
        }
        if let Some(found) = find_mut(&mut o.children, id) {
            return Some(found);
        }
    }
    None
}

/// Each object's parent and transform, by id.
fn placements(scene: &Scene) -> BTreeMap<u64, (Option<u64>, Pose, bool)> {
    scene
        .all_objects()
        .into_iter()
        .map(|o| (o.id, (o.parent, o.transform, o.body.is_some())))
        .collect()
}

/// The world pose an object spawns at, as the world composes it: its
/// transform for a root, its parent's world pose composed with it else.
fn world_pose(at: &BTreeMap<u64, (Option<u64>, Pose, bool)>, id: u64) -> Option<Pose> {
    let &(parent, local, _) = at.get(&id)?;
    Some(match parent.and_then(|p| world_pose(at, p)) {
        Some(p) => p.compose(local),
        None => local,
    })
}

/// Moves `id` so it spawns at `world`; its nearest body descendants keep
/// their world poses. `false` when some transform could not land exactly.
fn move_object(scene: &mut Scene, id: u64, world: Pose) -> bool {
    let before = placements(scene);
    // The bodies under `id` reached through bodyless objects only.
    let mut kept = Vec::new();
    let mut stack = vec![id];
    while let Some(p) = stack.pop() {
        for (&child, &(parent, _, body)) in &before {
            if parent == Some(p) {
                if body {
                    if let Some(w) = world_pose(&before, child) {
                        kept.push((child, w));
                    }
                } else {
                    stack.push(child);
                }
            }
        }
    }
    let mut exact = place(scene, id, world);
    for (child, w) in kept {
        exact &= place(scene, child, w);
    }
    exact
}

/// Sets `id`'s transform so it composes to `world` with its parent's
/// current world pose; `false` when only a near one was found.
fn place(scene: &mut Scene, id: u64, world: Pose) -> bool {
    let at = placements(scene);
    let parent = at
        .get(&id)
        .and_then(|(p, _, _)| *p)
        .and_then(|p| world_pose(&at, p));
    let (local, exact) = match parent {
        Some(p) => solve(p, world),
        None => (world, true),
    };
    if let Some(o) = find_mut(&mut scene.objects, id) {
        o.transform = local;
    }
    exact
}

/// `v` moved by `k` representable steps (ulps), through zero.
fn ulps(v: f32, k: i32) -> f32 {
    // Map floats to integers that order like them, step, map back.
    let bits = v.to_bits() as i32;
    let ordered = if bits < 0 { i32::MIN - bits } else { bits };
    let moved = ordered.saturating_add(k);
    let back = if moved < 0 { i32::MIN - moved } else { moved };
    f32::from_bits(back as u32)
}

/// How many ulps either side of the exact inverse [`solve`] tries.
const SEARCH_ULPS: i32 = 4;

/// A local pose that `parent.compose` turns into `world` bit for bit, and
/// whether one was found (else the nearest by the exact inverse).
fn solve(parent: Pose, world: Pose) -> (Pose, bool) {
    let (s, c) = parent.angle.sin_cos();
    let (dx, dy) = (world.x - parent.x, world.y - parent.y);
    let guess = Pose::new(
        c * dx + s * dy,
        -s * dx + c * dy,
        world.angle - parent.angle,
    );
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits();
    let angle = (-SEARCH_ULPS..=SEARCH_ULPS)
        .map(|k| ulps(guess.angle, k))
        .find(|&a| same(parent.angle + a, world.angle));
    let mut position = None;
    'search: for i in 0..=2 * SEARCH_ULPS {
        // Nearest first: 0, 1, -1, 2, -2, …
        let kx = if i % 2 == 0 { -(i / 2) } else { i / 2 + 1 };
        for j in 0..=2 * SEARCH_ULPS {
            let ky = if j % 2 == 0 { -(j / 2) } else { j / 2 + 1 };
            let local = Pose::new(ulps(guess.x, kx), ulps(guess.y, ky), 0.0);
            let w = parent.compose(local);
            if same(w.x, world.x) && same(w.y, world.y) {
                position = Some((local.x, local.y));
                break 'search;
            }
        }
    }
    let (x, y) = position.unwrap_or((guess.x, guess.y));
    let a = angle.unwrap_or(guess.angle);
    (Pose::new(x, y, a), position.is_some() && angle.is_some())
}

/// Removes `id` and every object under it (nested, or naming it as parent).
fn remove_object(scene: &mut Scene, id: u64) {
    let at = placements(scene);
    let mut gone = BTreeSet::from([id]);
    loop {
        let more: Vec<u64> = at
            .iter()
            .filter(|(k, (p, _, _))| !gone.contains(k) && p.is_some_and(|p| gone.contains(&p)))
            .map(|(k, _)| *k)
            .collect();
        if more.is_empty() {
            break;
        }
        gone.extend(more);
    }
    fn retain(objects: &mut Vec<SceneObject>, gone: &BTreeSet<u64>) {
        objects.retain(|o| !gone.contains(&o.id));
        for o in objects {
            retain(&mut o.children, gone);
        }
    }
    retain(&mut scene.objects, &gone);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_steps_through_zero_in_order() {
        assert_eq!(ulps(1.0, 1), f32::from_bits(1.0f32.to_bits() + 1));
        assert_eq!(ulps(1.0, -1), f32::from_bits(1.0f32.to_bits() - 1));
        assert_eq!(ulps(0.0, -1), -f32::from_bits(1));
        assert_eq!(ulps(-f32::from_bits(1), 1).to_bits(), 0);
    }

    #[test]
    fn solve_lands_on_the_world_pose_under_an_offset_parent() {
        let parent = Pose::new(-4.0, 0.0, 0.0);
        // In [4, 8) and [2, 4) below the parent every f32 is some -4 + l.
        for x in [-6.17f32, -3.87, -4.5, -2.17] {
            let world = Pose::new(x, 0.301, 0.25);
            let (local, exact) = solve(parent, world);
            assert!(exact, "x {x}");
            let back = parent.compose(local);
            assert_eq!(back.x.to_bits(), world.x.to_bits(), "x {x}");
            assert_eq!(back.y.to_bits(), world.y.to_bits(), "x {x}");
            assert_eq!(back.angle.to_bits(), world.angle.to_bits(), "x {x}");
        }
    }

    #[test]
    fn solve_says_when_no_transform_lands_exactly() {
        // -4 + l moves in steps of 2^-21 near l = 4.1; 0.1f32 is finer.
        let parent = Pose::new(-4.0, 0.0, 0.0);
        let (local, exact) = solve(parent, Pose::new(0.1, 0.0, 0.0));
        assert!(!exact);
        let back = parent.compose(local).x;
        assert!((back - 0.1).abs() <= 2.0f32.powi(-21), "{back}");
    }
}
