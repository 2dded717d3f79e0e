//! The rapier sets as bytes, for compact keyframes
//! ([`crate::PhysicsStage::clone_to_bytes`]).
//!
//! Layout: a `u32` count of parts, a `u32` length for each, then the parts:
//! islands, broad phase, narrow phase, bodies, colliders, impulse joints,
//! multibody joints, soft bodies, each bincode with fixed-width integers.
//! Fixed widths keep a set's layout still while its values change (a body
//! set of the same bodies has the same length from tick to tick, a field at
//! the same offset), which is what lets the history XOR one keyframe's part
//! against the same part of another and find mostly zeros; separate parts
//! keep a narrow phase that grew by one contact from shifting the bodies
//! after it. A set restored from these bytes continues bit-identically (the
//! rewind tests, `core/tests/physics/`; measurements showed the same for
//! a whole `PhysicsWorld`). Integration parameters, gravity and the CCD
//! solver are copied, not written: they are small.

use bincode::config::{Configuration, Fixint, LittleEndian, NoLimit};
use rapier2d::prelude::PhysicsWorld;

use crate::physics::EngineBytesError;

/// How many sets [`write`] writes.
const PARTS: usize = 8;

fn config() -> Configuration<LittleEndian, Fixint, NoLimit> {
    bincode::config::standard().with_fixed_int_encoding()
}

/// Appends the sets of `p` to `out` (emptied first) in the layout above.
pub(super) fn write(p: &PhysicsWorld, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let header = 4 + 4 * PARTS;
    out.resize(header, 0);
    out[..4].copy_from_slice(&(PARTS as u32).to_le_bytes());
    let mut lengths = [0u32; PARTS];
    let mut part = |i: usize, r: Result<usize, bincode::error::EncodeError>| {
        r.map(|n| lengths[i] = n as u32).map_err(|e| e.to_string())
    };
    let c = config();
    use bincode::serde::encode_into_std_write as enc;
    part(0, enc(&p.islands, out, c))?;
    part(1, enc(&p.broad_phase, out, c))?;
    part(2, enc(&p.narrow_phase, out, c))?;
    part(3, enc(&p.bodies, out, c))?;
    part(4, enc(&p.colliders, out, c))?;
    part(5, enc(&p.impulse_joints, out, c))?;
    part(6, enc(&p.multibody_joints, out, c))?;
    part(7, enc(&p.soft_bodies, out, c))?;
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
    fn dec<T: serde::de::DeserializeOwned>(
        bytes: &[u8],
        ranges: &[(usize, usize)],
        i: usize,
    ) -> Result<T, EngineBytesError> {
        let (start, end) = ranges[i];
        bincode::serde::decode_from_slice(&bytes[start..end], config())
            .map(|(v, _)| v)
            .map_err(|e| EngineBytesError::Part {
                part: PART_NAMES[i],
                reason: e.to_string(),
            })
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
