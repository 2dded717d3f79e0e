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

/// Reads the sets [`write`] wrote back into `p`.
pub(super) fn read(p: &mut PhysicsWorld, bytes: &[u8]) -> Result<(), String> {
    let ranges = crate::physics::engine_parts(bytes).ok_or("engine bytes: bad header")?;
    if ranges.len() != PARTS {
        return Err(format!(
            "engine bytes: {} parts, expected {PARTS}",
            ranges.len()
        ));
    }
    fn dec<T: serde::de::DeserializeOwned>(b: &[u8]) -> Result<T, String> {
        bincode::serde::decode_from_slice(b, config())
            .map(|(v, _)| v)
            .map_err(|e| e.to_string())
    }
    let at = |i: usize| &bytes[ranges[i].0..ranges[i].1];
    p.islands = dec(at(0))?;
    p.broad_phase = dec(at(1))?;
    p.narrow_phase = dec(at(2))?;
    p.bodies = dec(at(3))?;
    p.colliders = dec(at(4))?;
    p.impulse_joints = dec(at(5))?;
    p.multibody_joints = dec(at(6))?;
    p.soft_bodies = dec(at(7))?;
    Ok(())
}
