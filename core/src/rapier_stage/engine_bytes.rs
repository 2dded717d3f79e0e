//! The rapier sets as bytes, for compact keyframes
//! ([`crate::PhysicsStage::clone_to_bytes`]).
//!
//! Layout: a `u32` count of parts, a `u32` length for each, then the parts:
//! islands, broad phase, narrow phase, bodies, colliders, impulse joints,
//! multibody joints, soft bodies, each in postcard, the codec of the
//! host's wire too (docs/protocol.md says why, with measurements).
//! Floats are fixed-width there and integers varints; a body set of the
//! same bodies keeps its length from tick to tick unless a counter crosses
//! a varint's 7-bit step, so the history can still XOR one keyframe's part
//! against the same part of another and find mostly zeros (a part whose
//! length changed is packed as it is); separate parts keep a narrow phase
//! that grew by one contact from shifting the bodies after it. A set restored from these bytes continues bit-identically (the
//! rewind tests, `core/tests/physics/`; measurements showed the same for
//! a whole `PhysicsWorld`). Integration parameters, gravity and the CCD
//! solver are copied, not written: they are small.

use rapier2d::prelude::PhysicsWorld;
use serde::Serialize;

use crate::physics::EngineBytesError;

/// How many sets [`write`] writes.
const PARTS: usize = 8;

/// Appends `value` in postcard to `out`; returns the bytes it took.
fn append<T: Serialize>(out: &mut Vec<u8>, value: &T) -> Result<u32, String> {
    let start = out.len();
    let mut buf = crate::binary_form::binary(|| postcard::to_extend(value, std::mem::take(out)))
        .map_err(|e| e.to_string())?;
    std::mem::swap(out, &mut buf);
    u32::try_from(out.len() - start).map_err(|_| "engine bytes: a set over 4 GiB".to_string())
}

/// Appends the sets of `p` to `out` (emptied first) in the layout above.
pub(super) fn write(p: &PhysicsWorld, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let header = 4 + 4 * PARTS;
    out.resize(header, 0);
    out[..4].copy_from_slice(&(PARTS as u32).to_le_bytes());
    let lengths = [
        append(out, &p.islands)?,
        append(out, &p.broad_phase)?,
        append(out, &p.narrow_phase)?,
        append(out, &p.bodies)?,
        append(out, &p.colliders)?,
        append(out, &p.impulse_joints)?,
        append(out, &p.multibody_joints)?,
        append(out, &p.soft_bodies)?,
    ];
    for (i, n) in lengths.iter().enumerate() {
        out[4 + 4 * i..8 + 4 * i].copy_from_slice(&n.to_le_bytes());
    }
    Ok(())
}

/// `p` without the sets [`write`] writes: what a compact keyframe copies.
pub(super) fn emptied(p: &PhysicsWorld) -> PhysicsWorld {
    PhysicsWorld {
        gravity: p.gravity,
        integration_parameters: p.integration_parameters,
        ccd_solver: p.ccd_solver.clone(),
        ..PhysicsWorld::default()
    }
}

/// The parts' names, in the order [`write`] writes them: what an
/// [`EngineBytesError::Part`] calls the part that did not decode.
const PART_NAMES: [&str; PARTS] = [
    "islands",
    "broad phase",
    "narrow phase",
    "bodies",
    "colliders",
    "impulse joints",
    "multibody joints",
    "soft bodies",
];

/// Reads the sets [`write`] wrote back into `p`. On an error `p` may hold
/// some sets read and some not: the caller loads into a copy it drops then
/// ([`crate::Pipeline::restore_detached`]).
pub(super) fn read(p: &mut PhysicsWorld, bytes: &[u8]) -> Result<(), EngineBytesError> {
    let ranges = crate::physics::engine_parts(bytes)
        .ok_or(EngineBytesError::BadHeader { len: bytes.len() })?;
    if ranges.len() != PARTS {
        return Err(EngineBytesError::PartCount {
            found: ranges.len(),
            expected: PARTS,
        });
    }
    /// Set `i` from the whole of its part: bytes left over mean the part
    /// is not what [`write`] wrote.
    fn dec<T: serde::de::DeserializeOwned>(
        bytes: &[u8],
        ranges: &[(usize, usize)],
        i: usize,
    ) -> Result<T, EngineBytesError> {
        let (start, end) = ranges[i];
        let part = |reason: String| EngineBytesError::Part {
            part: PART_NAMES[i],
            reason,
        };
        match postcard::take_from_bytes(&bytes[start..end]) {
            Ok((v, [])) => Ok(v),
            Ok((_, rest)) => Err(part(format!("{} bytes left in the part", rest.len()))),
            Err(e) => Err(part(e.to_string())),
        }
    }
    p.islands = dec(bytes, &ranges, 0)?;
    p.broad_phase = dec(bytes, &ranges, 1)?;
    p.narrow_phase = dec(bytes, &ranges, 2)?;
    p.bodies = dec(bytes, &ranges, 3)?;
    p.colliders = dec(bytes, &ranges, 4)?;
    p.impulse_joints = dec(bytes, &ranges, 5)?;
    p.multibody_joints = dec(bytes, &ranges, 6)?;
    p.soft_bodies = dec(bytes, &ranges, 7)?;
    Ok(())
}
