//! Mid-step hooks: user code inside the physics step, once per contact pair
//! and substep, after collision detection and before the solver.
//!
//! # What it is for
//!
//! FixedUpdate runs before the step and contact callbacks after it, so
//! neither can change what the solver does with a contact it is solving:
//! a one-way platform (jump up through it, land on it), a conveyor belt (a
//! surface that moves), ice or a trampoline for one pair of objects. The
//! mid-step hook ([`Behaviour::mid_step`](crate::Behaviour::mid_step)) can. It is rapier's
//! `modify_solver_contacts`, enabled only on the colliders of objects that
//! have the hook, and given to the behaviour as plain data.
//!
//! # Where it sits
//!
//! Each fixed tick the physics stage runs the step `substeps` times (the
//! scene's `substeps`, 1 by default), each of `fixed_dt / substeps`. Every
//! substep runs three stages in order, as LittlePhysics' substep loop does
//! (`seeds/mid-step-pipeline-substeps.txt`):
//!
//! | order | stage | what is complete before your code runs |
//! |---|---|---|
//! | 1 | rapier's collision detection | the tick's FixedUpdate and its reconciled commands (for substep 1), the previous substep's integration (for the others), the broad and narrow phases of this substep: the pair's contact points, normal and separation |
//! | 2 | **mid-step hooks**, per contact pair of a hooked object | every hook call of the pairs rapier visited before this one in the same substep |
//! | 3 | rapier's solver and integration | nothing of it: what the hooks left is what it solves, and its result is this substep's poses |
//!
//! After the last substep the tick goes on as before: commit, then contact
//! callbacks (see [`crate::rapier_stage`]).
//!
//! # What the hook sees
//!
//! A [`MidStepPair`], from its own object's side (`me`):
//!
//! - the two objects; the contact normal, a unit vector out of my surface
//!   towards the other object; the contact points (world space, midway
//!   between the two surfaces) with their separation (negative: overlapping);
//! - each body's velocity and pose at that moment, which is as the previous
//!   substep left them (for the first substep: after this tick's commands,
//!   so an impulse or a set velocity is in it, a force not yet);
//! - the friction and restitution the pair has so far (the colliders'
//!   combined, or what an earlier hook set);
//! - the clock of the pending tick, as FixedUpdate sees it, except that
//!   `delta_time` is the substep's `fixed_dt / substeps` (not multiplied by
//!   the time scale: the scale changes how many ticks a frame owes, never
//!   their length), plus the substep's one-based index.
//!
//! It can drop the pair or single points (the solver ignores them: the
//! bodies pass through each other there), set the pair's friction and
//! restitution, and set the speed of its own surface along the contact
//! tangent (a conveyor). It cannot touch the world: rapier calls it with
//! every body and collider borrowed, so it gets a copy of what it may read
//! and writes into that copy; the stage applies the copy when the hook
//! returns. Dropping a pair changes what the solver does, not what collision
//! detection found: contact callbacks still report the overlap.
//!
//! # Why `&self`: what a hook may know
//!
//! The hook takes `&self` and returns nothing but its edits of the pair, so
//! each call is a function of the behaviour's state as the step began and
//! of the pair's data. Call order then cannot matter to the behaviour's
//! state, and a rewind or a replay needs to repeat nothing that happened
//! inside the step. (A counter in a `Cell` or an atomic would escape this;
//! such state is the behaviour's own business and outside the determinism
//! promise, like the wall clock.) Rapier wants its hooks object `Sync`,
//! because its parallel build calls it from several threads, and behaviours
//! are only `Send`: the calls go through one mutex held by the dispatcher
//! ([`MidStepCalls`]), locked once per pair and never contended (the stage
//! steps on one thread). The lock is also what lets the dispatcher count
//! breakpoint matches, time the calls and record panics while rapier holds
//! the world.
//!
//! # Order, time, breakpoints, panics
//!
//! For one pair, the two objects' hooks run lower object id first, each
//! object's behaviours in dispatch order (priority, then registration); a
//! later call sees what the earlier ones set. Pairs come in rapier's order,
//! which is the same in every run of the same state (its narrow phase is
//! serial in this build and part of every snapshot).
//!
//! Each call is timed per priority: the frame report's
//! [`PhaseTiming::mid_step_by_priority`](crate::PhaseTiming::mid_step_by_priority),
//! inside its `physics_ms`, and a `MidStep` flame zone per priority inside
//! the tick's physics zone.
//!
//! A breakpoint on [`HookKind::MidStep`](crate::HookKind::MidStep) counts each call and suspends at the
//! end of the tick, like a contact breakpoint: the step, every other hook
//! call of the tick and its contact callbacks complete first. A panic is
//! caught: its edits are discarded (the pair goes on as it was before that
//! call), the behaviour gets no further call, and after the step the error
//! is logged with object, hook and tick and the fault policy applies.
//!
//! Worked numbers: a box resting on a one-way platform at 60 Hz with
//! `substeps: 4` is one pair, so the platform's hook runs 4 times a tick,
//! each with `delta_time` = 1/240 s and `simulation_tick` the pending tick.

use crate::clock::Clock;
use crate::geometry::{Pose, Vec2, Velocity};
use crate::ids::ObjectId;

mod calls;
pub use calls::MidStepCalls;
pub(crate) use calls::{MidStepEntry, MidStepSetup, MidStepTimes};

/// Most contact points one pair has: rapier's 2D manifolds hold two (a box
/// flat on a floor touches at its two corners).
pub const MAX_CONTACT_POINTS: usize = 2;

/// One contact point of a pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MidStepPoint {
    /// Where the contact is, world space, m: midway between the two surfaces.
    pub point: Vec2,
    /// Gap between the two surfaces along the normal, m; negative while
    /// they overlap.
    pub separation: f32,
}

/// One contact pair inside the step, as the physics stage hands it to the
/// hooks and reads it back: in the frame of its first object, with what the
/// hooks changed. A stage fills it from the engine ([`MidStepContact::new`],
/// then the points) and applies it after [`MidStepCalls::run`]; hooks see it
/// through [`MidStepPair`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MidStepContact {
    /// The two objects; side 0 is the one the normal points out of.
    objects: [ObjectId; 2],
    /// Unit normal out of object 0's surface, towards object 1.
    normal: Vec2,
    /// The live points, in `0..len`.
    points: [MidStepPoint; MAX_CONTACT_POINTS],
    /// Each live point's index among the points the stage gave.
    ids: [u8; MAX_CONTACT_POINTS],
    /// How many points are live.
    len: u8,
    /// Each object's body velocity at that moment.
    velocities: [Velocity; 2],
    /// Each object's body pose at that moment.
    poses: [Pose; 2],
    /// The pair's friction coefficient.
    friction: f32,
    /// The pair's restitution coefficient.
    restitution: f32,
    /// Each object's surface speed along its own tangent, m/s.
    surface_speeds: [f32; 2],
    /// The solver is to ignore the pair.
    dropped: bool,
}

impl MidStepContact {
    /// A pair with no points yet: `normal` points out of `objects[0]`
    /// towards `objects[1]`; velocities, poses, friction and restitution
    /// as the engine has them.
    pub fn new(
        objects: [ObjectId; 2],
        normal: Vec2,
        velocities: [Velocity; 2],
        poses: [Pose; 2],
        friction: f32,
        restitution: f32,
    ) -> MidStepContact {
        MidStepContact {
            objects,
            normal,
            points: [MidStepPoint::default(); MAX_CONTACT_POINTS],
            ids: [0; MAX_CONTACT_POINTS],
            len: 0,
            velocities,
            poses,
            friction,
            restitution,
            surface_speeds: [0.0; 2],
            dropped: false,
        }
    }

    /// Adds the next point the engine has (before any hook ran: its index is
    /// the number pushed before it); false (and nothing added) past
    /// [`MAX_CONTACT_POINTS`].
    pub fn push_point(&mut self, point: MidStepPoint) -> bool {
        let n = usize::from(self.len);
        if n >= MAX_CONTACT_POINTS {
            return false;
        }
        self.points[n] = point;
        self.ids[n] = self.len;
        self.len += 1;
        true
    }

    /// The two objects; the normal points out of the first.
    pub fn objects(&self) -> [ObjectId; 2] {
        self.objects
    }

    /// The hooks dropped the whole pair.
    pub fn is_dropped(&self) -> bool {
        self.dropped
    }

    /// The indices (in push order) of the points still live.
    pub fn kept_points(&self) -> &[u8] {
        &self.ids[..usize::from(self.len)]
    }

    /// The pair's friction coefficient now.
    pub fn friction(&self) -> f32 {
        self.friction
    }

    /// The pair's restitution coefficient now.
    pub fn restitution(&self) -> f32 {
        self.restitution
    }

    /// The relative velocity the solver should give object 1's surface
    /// against object 0's along object 0's tangent ([`MidStepPair::tangent`]
    /// from object 0's side), m/s: both objects' surface speeds, each turned
    /// into object 0's frame. A floor (object 0) moving at 2 m/s under a box
    /// (object 1) whose own surface moves at 1 m/s against it gives 3: the
    /// box is carried 3 m/s along the floor's tangent.
    pub fn tangent_speed(&self) -> f32 {
        self.surface_speeds[0] + self.surface_speeds[1]
    }

    /// Object 0's tangent: its normal turned a quarter turn clockwise, so a
    /// floor (normal up) has its tangent along +x.
    pub fn tangent(&self) -> Vec2 {
        Vec2::new(self.normal.y, -self.normal.x)
    }
}

/// One contact pair as a mid-step hook sees it, from its own object's side
/// (see the module docs for what it holds and when it is called).
#[derive(Debug)]
pub struct MidStepPair<'a> {
    /// The pending tick's clock; `delta_time` is the substep's dt.
    clock: &'a Clock,
    /// One-based substep.
    substep: u32,
    /// Substeps of the tick.
    substeps: u32,
    /// The pair, with the edits so far.
    contact: MidStepContact,
    /// Which side of `contact` is this hook's object.
    side: usize,
}

impl MidStepPair<'_> {
    /// This hook's object.
    pub fn me(&self) -> ObjectId {
        self.contact.objects[self.side]
    }

    /// The object on the other side of the contact.
    pub fn other(&self) -> ObjectId {
        self.contact.objects[1 - self.side]
    }

    /// The clock of the pending tick (as FixedUpdate reads it), with
    /// `delta_time` = this substep's dt.
    pub fn clock(&self) -> &Clock {
        self.clock
    }

    /// This substep's length, s: `fixed_dt / substeps`, not scaled by the
    /// time scale (the clock's `delta_time`).
    pub fn dt(&self) -> f64 {
        self.clock.delta_time
    }

    /// Which substep of the tick runs, from 1.
    pub fn substep(&self) -> u32 {
        self.substep
    }

    /// Substeps of the tick.
    pub fn substeps(&self) -> u32 {
        self.substeps
    }

    /// The contact normal: a unit vector out of my surface, towards the
    /// other object. A box resting on my top has `(0, 1)`.
    pub fn normal(&self) -> Vec2 {
        if self.side == 0 {
            self.contact.normal
        } else {
            self.contact.normal * -1.0
        }
    }

    /// My surface's tangent at the contact: the normal turned a quarter turn
    /// clockwise, so a floor's is `(1, 0)`.
    pub fn tangent(&self) -> Vec2 {
        let n = self.normal();
        Vec2::new(n.y, -n.x)
    }

    /// The contact points still in the pair (a point an earlier call
    /// dropped is gone; indices are into this list).
    pub fn points(&self) -> &[MidStepPoint] {
        &self.contact.points[..usize::from(self.contact.len)]
    }

    /// My body's velocity at this moment.
    pub fn my_velocity(&self) -> Velocity {
        self.contact.velocities[self.side]
    }

    /// The other body's velocity at this moment.
    pub fn other_velocity(&self) -> Velocity {
        self.contact.velocities[1 - self.side]
    }

    /// My body's pose at this moment (not yet committed: the tick's
    /// committed pose comes after the last substep).
    pub fn my_pose(&self) -> Pose {
        self.contact.poses[self.side]
    }

    /// The other body's pose at this moment.
    pub fn other_pose(&self) -> Pose {
        self.contact.poses[1 - self.side]
    }

    /// How fast the other body's centre moves along my normal, relative to
    /// mine, m/s: positive while it moves away from my surface, negative
    /// while it comes at it.
    pub fn approach_speed(&self) -> f32 {
        let (mine, theirs) = (self.my_velocity().linear, self.other_velocity().linear);
        let n = self.normal();
        (theirs.x - mine.x) * n.x + (theirs.y - mine.y) * n.y
    }

    /// The pair's friction coefficient now.
    pub fn friction(&self) -> f32 {
        self.contact.friction
    }

    /// The pair's restitution coefficient now.
    pub fn restitution(&self) -> f32 {
        self.contact.restitution
    }

    /// My surface's speed along [`MidStepPair::tangent`] as set so far, m/s.
    pub fn surface_speed(&self) -> f32 {
        self.contact.surface_speeds[self.side]
    }

    /// The pair is dropped (by this call or an earlier one).
    pub fn is_dropped(&self) -> bool {
        self.contact.dropped
    }

    /// The solver ignores the pair this substep: the bodies pass through
    /// each other here.
    pub fn drop_pair(&mut self) {
        self.contact.dropped = true;
    }

    /// The solver ignores point `i` of [`MidStepPair::points`] this
    /// substep; false when there is no such point.
    pub fn drop_point(&mut self, i: usize) -> bool {
        let n = usize::from(self.contact.len);
        if i >= n {
            return false;
        }
        self.contact.points.copy_within(i + 1..n, i);
        self.contact.ids.copy_within(i + 1..n, i);
        self.contact.len -= 1;
        true
    }

    /// The pair's friction coefficient for this substep (0: ice). Panics on
    /// a negative or non-finite value (the call is then reported as a fault
    /// and the pair keeps what it had).
    pub fn set_friction(&mut self, friction: f32) {
        assert!(
            friction.is_finite() && friction >= 0.0,
            "set_friction: friction must be finite and >= 0, got {friction}"
        );
        self.contact.friction = friction;
    }

    /// The pair's restitution coefficient for this substep (1: a perfect
    /// bounce). Panics on a negative or non-finite value, as
    /// [`MidStepPair::set_friction`] does.
    pub fn set_restitution(&mut self, restitution: f32) {
        assert!(
            restitution.is_finite() && restitution >= 0.0,
            "set_restitution: restitution must be finite and >= 0, got {restitution}"
        );
        self.contact.restitution = restitution;
    }

    /// My surface moves at `speed` m/s along [`MidStepPair::tangent`]: what
    /// rests on it is carried along (a conveyor), as far as friction lets
    /// it. Panics on a non-finite value.
    pub fn set_surface_speed(&mut self, speed: f32) {
        assert!(
            speed.is_finite(),
            "set_surface_speed: speed must be finite, got {speed}"
        );
        self.contact.surface_speeds[self.side] = speed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> MidStepContact {
        let mut c = MidStepContact::new(
            [ObjectId(7), ObjectId(3)],
            Vec2::new(0.0, 1.0),
            [Velocity::default(); 2],
            [Pose::IDENTITY; 2],
            0.5,
            0.0,
        );
        for x in [-1.0, 1.0] {
            c.push_point(MidStepPoint {
                point: Vec2::new(x, 0.0),
                separation: 0.01,
            });
        }
        c
    }

    fn view(contact: MidStepContact, side: usize, clock: &Clock) -> MidStepPair<'_> {
        MidStepPair {
            clock,
            substep: 1,
            substeps: 1,
            contact,
            side,
        }
    }

    #[test]
    fn each_side_sees_the_normal_out_of_its_own_surface() {
        let clock = Clock::default();
        let floor = view(pair(), 0, &clock);
        assert_eq!((floor.me(), floor.other()), (ObjectId(7), ObjectId(3)));
        assert_eq!(floor.normal(), Vec2::new(0.0, 1.0));
        assert_eq!(floor.tangent(), Vec2::new(1.0, 0.0));
        let boxed = view(pair(), 1, &clock);
        assert_eq!(boxed.me(), ObjectId(3));
        assert_eq!(boxed.normal(), Vec2::new(0.0, -1.0));
        assert_eq!(boxed.tangent(), Vec2::new(-1.0, 0.0));
    }

    #[test]
    fn surface_speeds_add_up_in_the_first_objects_frame() {
        // The floor's belt runs at 2 m/s along +x; the box's own surface at
        // 1 m/s along its tangent (-x), which against the floor carries the
        // box +x as well: 3 m/s in all.
        let clock = Clock::default();
        let mut floor = view(pair(), 0, &clock);
        floor.set_surface_speed(2.0);
        let mut boxed = view(floor.contact, 1, &clock);
        boxed.set_surface_speed(1.0);
        assert_eq!(boxed.contact.tangent_speed(), 3.0);
        assert_eq!(boxed.surface_speed(), 1.0);
    }

    #[test]
    fn a_dropped_point_leaves_the_list_and_the_kept_ids_say_which() {
        let clock = Clock::default();
        let mut v = view(pair(), 0, &clock);
        assert!(v.drop_point(0));
        assert_eq!(v.points().len(), 1);
        assert_eq!(v.points()[0].point, Vec2::new(1.0, 0.0));
        assert!(!v.drop_point(1), "only one point is left");
        assert_eq!(v.contact.kept_points(), &[1]);
    }

    #[test]
    fn a_pair_holds_at_most_two_points() {
        let mut c = pair();
        assert!(!c.push_point(MidStepPoint::default()));
        assert_eq!(c.kept_points(), &[0, 1]);
    }
}
