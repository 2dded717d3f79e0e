//! [`PhysicsStage::commit`](crate::PhysicsStage::commit) for the rapier
//! stage: rapier's poses and velocities copied into the world, visiting only
//! the bodies for which that can change something.
//!
//! Rapier changes a body's state (pose, velocity, sleep) only while the body
//! is in its awake set, and every change the stage makes goes through
//! reconcile. So a body that was not in the awake set at the last commit, is
//! not in it now, was not touched by reconcile, and whose previous pose
//! already equals its committed one has nothing to commit. When few bodies
//! are left after that (a pile that has gone to sleep: stress.ron keeps
//! 2,164 objects, most asleep after its first minute) the commit visits only
//! the others; otherwise one walk in id order over every object is cheaper
//! than finding each one. Either way it writes exactly what a full walk
//! writes (`core/tests/physics/sleeping_commits.rs`, and the bundled scenes'
//! traces). The awake set is the island manager's, not each body's sleep
//! flag: rapier 0.36 can flag a body asleep while its island still simulates
//! it, and zero its velocity only when the island sleeps (stress.ron did
//! that at tick 414).

use crate::geometry::{Pose, Vec2};
use crate::ids::ObjectId;
use crate::object::BodyState;
use crate::world::World;

use super::RapierStage;
use super::link::BodyLink;

/// The sparse commit runs while fewer than one body in this many can change
/// this tick: below that, finding each one (a sort, then a search in the
/// world and in the links) costs less than walking them all.
const SPARSE_COMMIT_SHARE: usize = 8;

impl RapierStage {
    /// This tick's commit, sparse or a full walk (see the module docs).
    pub(super) fn commit_bodies(&mut self, world: &mut World) {
        let could_change = self.unsettled.len() + self.touched.len();
        if self.sparse_commits
            && !self.awake_unknown
            && self.few_awake()
            && could_change * SPARSE_COMMIT_SHARE < self.links.len()
        {
            self.commit_some(world);
            self.sparse_ticks += 1;
        } else {
            self.commit_all(world);
        }
    }

    /// One body's commit: the committed pose becomes the previous one, and
    /// rapier's pose and velocity the committed ones. Returns whether the
    /// pose changed, so the next commit must visit it to make the previous
    /// pose catch up.
    fn commit_body(
        link: &mut BodyLink,
        body: &rapier2d::prelude::RigidBody,
        state: &mut BodyState,
    ) -> bool {
        state.previous = state.committed;
        let p = body.position();
        state.committed = Pose::new(p.translation.x, p.translation.y, link.angle_of(&p.rotation));
        let v = body.linvel();
        state.velocity.linear = Vec2::new(v.x, v.y);
        state.velocity.angular = body.angvel();
        link.sleeping = body.is_sleeping();
        !state.previous.bits_eq(&state.committed)
    }

    /// The commit of an object with a body but no rigid link: a soft body's
    /// (its particles, and the pose made from them), or nothing but the
    /// previous pose catching up. Returns whether the pose changed.
    fn commit_unlinked(&mut self, id: ObjectId, state: &mut BodyState) -> bool {
        state.previous = state.committed;
        if self.soft_links.contains_key(&id) {
            self.commit_soft(id, state);
        }
        !state.previous.bits_eq(&state.committed)
    }

    /// Appends the objects of rapier's awake set (its active bodies, by the
    /// object id each body carries).
    fn push_awake(&self, out: &mut Vec<ObjectId>) {
        let bodies = &self.physics.bodies;
        out.extend(
            self.physics
                .islands
                .active_bodies()
                .filter_map(|h| bodies.get(h))
                .map(|b| ObjectId(b.user_data as u64)),
        );
    }

    /// Whether rapier's awake set is small enough for the sparse commit.
    fn few_awake(&self) -> bool {
        self.physics.islands.num_active_bodies() * SPARSE_COMMIT_SHARE < self.links.len()
    }

    /// Every object, in id order, in one walk beside the links.
    fn commit_all(&mut self, world: &mut World) {
        // Objects and links are both in id order, so one merge walk pairs
        // them: no map search per body (it was a third of the commit on the
        // 1,000-body bench). The map is taken out for the walk (moving a
        // `BTreeMap` allocates nothing) so soft bodies can commit through `self`.
        self.touched.clear();
        // The bodies to visit next tick are remembered only when the awake
        // set is small: a large one makes the next commit a full walk anyway
        // (`awake_unknown`), which needs no list.
        self.awake_unknown = !(self.sparse_commits && self.few_awake());
        let track = !self.awake_unknown;
        let mut unsettled = std::mem::take(&mut self.unsettled);
        unsettled.clear();
        let mut all_links = std::mem::take(&mut self.links);
        let mut links = all_links.iter_mut().peekable();
        for object in world.objects_mut() {
            let Some(state) = object.body.as_mut() else {
                continue;
            };
            while links.next_if(|(id, _)| **id < object.id).is_some() {}
            let changed = match links.next_if(|(id, _)| **id == object.id) {
                Some((_, link)) => match self.physics.bodies.get(link.body) {
                    Some(body) => Self::commit_body(link, body, state),
                    None => {
                        state.previous = state.committed;
                        false
                    }
                },
                None => self.commit_unlinked(object.id, state),
            };
            if track && changed {
                unsettled.push(object.id);
            }
        }
        self.links = all_links;
        if track {
            self.push_awake(&mut unsettled);
            unsettled.sort_unstable();
            unsettled.dedup();
        }
        self.unsettled = unsettled;
    }

    /// Only the objects whose commit can change something: those not yet
    /// settled, those reconcile touched, the soft bodies, and rapier's awake
    /// set, in id order.
    fn commit_some(&mut self, world: &mut World) {
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        due.append(&mut self.unsettled);
        due.append(&mut self.touched);
        due.extend(self.soft_links.keys().copied());
        self.push_awake(&mut due);
        due.sort_unstable();
        due.dedup();
        let mut unsettled = std::mem::take(&mut self.unsettled);
        for &id in &due {
            let Some(state) = world.get_mut(id).and_then(|o| o.body.as_mut()) else {
                continue;
            };
            let changed = match self.links.get_mut(&id) {
                Some(link) => match self.physics.bodies.get(link.body) {
                    Some(body) => Self::commit_body(link, body, state),
                    None => {
                        state.previous = state.committed;
                        false
                    }
                },
                None => self.commit_unlinked(id, state),
            };
            if changed {
                unsettled.push(id);
            }
        }
        self.push_awake(&mut unsettled);
        unsettled.sort_unstable();
        unsettled.dedup();
        self.awake_unknown = false;
        self.unsettled = unsettled;
        self.due = due;
    }
}
