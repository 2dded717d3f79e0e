//! [`BodyLink`]: the rapier side of one object with a body, with what the
//! per-tick commit and hash keep from the last commit.

use rapier2d::prelude::{ColliderHandle, RigidBodyHandle};

/// The rapier side of one object with a body.
#[derive(Clone, Debug)]
pub(super) struct BodyLink {
    /// The rigid body.
    pub(super) body: RigidBodyHandle,
    /// Its colliders, in shape order.
    pub(super) colliders: Vec<ColliderHandle>,
    /// The rotation last committed, as the bit patterns of its unit complex
    /// number `(re, im)`, and the angle made from it: a body whose rotation did
    /// not change (resting, fixed, sliding without spin) is committed without
    /// its `atan2`. The angle is a pure function of the bits, so the cache
    /// changes no committed value.
    pub(super) rotation: (u32, u32),
    /// `atan2(im, re)` of `rotation`.
    pub(super) angle: f32,
    /// Whether rapier had the body asleep at the last commit (or creation):
    /// the state hash reads it here rather than from the body, which saves a
    /// visit to every rigid body per hashed tick. Only a step changes it, and
    /// every step is followed by a commit.
    pub(super) sleeping: bool,
}

impl BodyLink {
    pub(super) fn new(
        body: RigidBodyHandle,
        colliders: Vec<ColliderHandle>,
        sleeping: bool,
    ) -> BodyLink {
        // NaN bits: no rotation has them, so the first commit computes.
        BodyLink {
            body,
            colliders,
            rotation: (u32::MAX, u32::MAX),
            angle: 0.0,
            sleeping,
        }
    }

    /// The angle of `rotation`, exactly as
    /// `Rotation::angle` computes it (`atan2(im, re)`), reusing the last one
    /// when the rotation is bit-for-bit unchanged.
    pub(super) fn angle_of(&mut self, rotation: &rapier2d::math::Rotation) -> f32 {
        let bits = (rotation.re.to_bits(), rotation.im.to_bits());
        if bits != self.rotation {
            self.rotation = bits;
            self.angle = rotation.angle();
        }
        self.angle
    }
}
