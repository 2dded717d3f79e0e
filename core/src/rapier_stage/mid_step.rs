//! Mid-step hooks in rapier: which colliders have the engine call back
//! (`ActiveHooks::MODIFY_SOLVER_CONTACTS`), and the `PhysicsHooks` object
//! that turns each callback into a [`MidStepContact`] for the behaviours and
//! their edits back into the manifold the solver uses.
//!
//! # Only the hooked objects' colliders
//!
//! Rapier calls `modify_solver_contacts` only for pairs where one collider
//! has the flag, and it recomputes such pairs' contacts every step instead
//! of reusing them while the bodies barely move (contact recycling), so
//! the flag changes rapier's numbers even when the hook does nothing. So
//! the stage sets it on exactly the colliders of the objects that have the
//! hook as the step begins ([`RapierStage::sync_mid_step`], a walk of the
//! two sorted lists that changes only what differs), and a scene without
//! such an object runs as it did before the hook existed: same calls, same
//! bits. The set of flagged objects is stage state, copied by snapshots
//! with the flags themselves (they are collider state in rapier's sets).
//!
//! Soft bodies are not flagged: their contacts are solved by the soft-body
//! solver, not through the rigid manifolds the hook edits.
//!
//! # Turning a manifold into a pair and back
//!
//! Inside the hook rapier gives the manifold's normal (out of collider 1),
//! its solver contacts with world-space anchors on both surfaces and their
//! separation, and the combined friction and restitution. The pair's
//! object 0 is collider 1's owner (the colliders' `user_data` is the
//! object id); a point is the midpoint of its two anchors. After the calls
//! the stage writes back what changed: all solver contacts cleared for a
//! dropped pair, the dropped points removed, friction, restitution, and the
//! surface speed as every solver contact's `tangent_velocity`.
//!
//! Rapier's friction constraint drives the velocity of body 2's surface
//! point relative to body 1's, along the tangent, to `tangent_velocity`:
//! so for object 1 to be carried at `s` along object 0's tangent `t`,
//! `tangent_velocity = s t` (a box on a belt floor whose surface speed is
//! 2 m/s ends up moving at +2 m/s along x whichever collider rapier lists
//! first, `core/tests/physics/mid_step.rs`).

use rapier2d::prelude::{
    ActiveHooks, ContactModificationContext, ModifiableContacts, PhysicsHooks, RigidBodyHandle,
    RigidBodySet,
};

use super::{RapierStage, from_rapier_pose};
use crate::behaviour::mid_step::{MAX_CONTACT_POINTS, MidStepCalls, MidStepContact, MidStepPoint};
use crate::geometry::{Pose, Vec2, Velocity};
use crate::ids::ObjectId;

// The pair holds as many points as a 2D manifold has solver contacts.
const _: () = assert!(rapier2d::math::MAX_MANIFOLD_POINTS == MAX_CONTACT_POINTS);

impl RapierStage {
    /// Flags the colliders of exactly the objects in `wanted` (sorted, each
    /// once), unflagging those no longer in it. An object without a body yet
    /// is flagged at the first step that finds one.
    pub(super) fn sync_mid_step(&mut self, wanted: &[ObjectId]) {
        let stale: Vec<ObjectId> = self
            .mid_step
            .iter()
            .filter(|id| wanted.binary_search(id).is_err())
            .copied()
            .collect();
        for id in stale {
            self.set_mid_step_flag(id, false);
            self.mid_step.remove(&id);
        }
        for &id in wanted {
            if !self.mid_step.contains(&id) && self.set_mid_step_flag(id, true) {
                self.mid_step.insert(id);
            }
        }
    }

    /// Sets or clears the flag on `id`'s colliders; false when it has no
    /// rigid body.
    fn set_mid_step_flag(&mut self, id: ObjectId, on: bool) -> bool {
        let Some(link) = self.links.get(&id) else {
            return false;
        };
        let hooks = if on {
            ActiveHooks::MODIFY_SOLVER_CONTACTS
        } else {
            ActiveHooks::empty()
        };
        for &handle in &link.colliders {
            if let Some(collider) = self.physics.colliders.get_mut(handle) {
                collider.set_active_hooks(hooks);
            }
        }
        true
    }
}

/// Rapier's hooks object for one substep: hands each manifold of a flagged
/// collider to the behaviours and applies their edits.
pub(super) struct Hooked<'a, 'b> {
    /// The tick's dispatcher.
    pub(super) calls: &'a MidStepCalls<'b>,
    /// Which substep, from 1.
    pub(super) substep: u32,
}

/// Velocity and pose of the body behind a collider (none: at rest at the
/// origin, as a collider without a body is).
fn body_state(bodies: &RigidBodySet, handle: Option<RigidBodyHandle>) -> (Velocity, Pose) {
    match handle.and_then(|h| bodies.get(h)) {
        Some(body) => {
            let v = body.linvel();
            let velocity = Velocity {
                linear: Vec2::new(v.x, v.y),
                angular: body.angvel(),
            };
            (velocity, from_rapier_pose(body.position()))
        }
        None => (Velocity::default(), Pose::IDENTITY),
    }
}

impl PhysicsHooks for Hooked<'_, '_> {
    fn modify_solver_contacts(&self, ctx: &mut ContactModificationContext) {
        let owner = |c| ctx.colliders.get(c).map(|co| ObjectId(co.user_data as u64));
        let (Some(a), Some(b)) = (owner(ctx.collider1), owner(ctx.collider2)) else {
            return;
        };
        if !(self.calls.has(a) || self.calls.has(b)) {
            return;
        }
        let (v1, p1) = body_state(ctx.bodies, ctx.rigid_body1);
        let (v2, p2) = body_state(ctx.bodies, ctx.rigid_body2);
        let ModifiableContacts::Rigid(m) = &mut ctx.contacts else {
            return;
        };
        let normal = Vec2::new(m.normal.x, m.normal.y);
        let mut pair = MidStepContact::new(
            [a, b],
            normal,
            [v1, v2],
            [p1, p2],
            *m.friction,
            *m.restitution,
        );
        for sc in m.solver_contacts.iter() {
            let mid = (sc.anchor1 + sc.anchor2) * 0.5;
            pair.push_point(MidStepPoint {
                point: Vec2::new(mid.x, mid.y),
                separation: sc.dist,
            });
        }
        let before = pair;
        self.calls.run(&mut pair, self.substep);
        if pair == before {
            return;
        }
        if pair.is_dropped() {
            m.solver_contacts.clear();
            return;
        }
        let kept = pair.kept_points();
        if kept.len() < m.solver_contacts.len() {
            let mut i = 0u8;
            m.solver_contacts.retain(|_| {
                let keep = kept.contains(&i);
                i += 1;
                keep
            });
        }
        *m.friction = pair.friction();
        *m.restitution = pair.restitution();
        let speed = pair.tangent_speed();
        if speed != 0.0 {
            let t = pair.tangent() * speed;
            let tangent_velocity = rapier2d::math::Vector::new(t.x, t.y);
            for sc in m.solver_contacts.iter_mut() {
                sc.tangent_velocity = tangent_velocity;
            }
        }
    }
}
