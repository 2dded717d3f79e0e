//! `codec_compare`: the serializer candidates raced on real engine state
//! (docs/protocol.md, "Choosing the serializer"): bincode 2 (fixed-width
//! integers, as the keyframes wrote it, and its varint standard), postcard
//! 1 and bitcode 0.6 (serde mode), each on rapier's sets of demo.ron and of
//! the 10,000-ball pile: bytes, zstd level 1 of the bytes, a keyframe delta
//! (the sets XORed against a keyframe two seconds earlier where a set kept
//! its length, then zstd, as `core/src/history/compact.rs` packs them),
//! encode and decode times (fastest of several), and a check that each
//! round-trips bit for bit (decoded, then written again with postcard: the
//! same bytes). wincode is not here: it has no serde mode, and rapier's
//! types implement only serde.

use std::hint::black_box;
use std::path::Path;

use rapier2d::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::physics::awake_pipeline;
use super::{Figure, load, time};

/// rapier's eight sets, in the order the engine bytes hold them.
struct Sets {
    islands: IslandManager,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    soft_bodies: SoftBodySet,
}

fn fixint() -> impl bincode::config::Config {
    bincode::config::standard().with_fixed_int_encoding()
}

/// The sets out of a pipeline's engine bytes (postcard, as core writes them).
fn sets_of(p: &stepframe_core::Pipeline) -> anyhow::Result<Sets> {
    let mut bytes = Vec::new();
    p.snapshot_detached(&mut bytes)
        .ok_or_else(|| anyhow::anyhow!("no engine bytes"))?;
    let parts = stepframe_core::physics::engine_parts(&bytes)
        .ok_or_else(|| anyhow::anyhow!("bad engine bytes"))?;
    fn dec<T: DeserializeOwned>(b: &[u8]) -> anyhow::Result<T> {
        Ok(postcard::from_bytes(b)?)
    }
    let at = |i: usize| &bytes[parts[i].0..parts[i].1];
    Ok(Sets {
        islands: dec(at(0))?,
        broad_phase: dec(at(1))?,
        narrow_phase: dec(at(2))?,
        bodies: dec(at(3))?,
        colliders: dec(at(4))?,
        impulse_joints: dec(at(5))?,
        multibody_joints: dec(at(6))?,
        soft_bodies: dec(at(7))?,
    })
}

/// One codec: writes a value, reads one back.
trait Codec {
    const NAME: &'static str;
    fn enc<T: Serialize>(v: &T) -> anyhow::Result<Vec<u8>>;
    fn dec<T: DeserializeOwned>(b: &[u8]) -> anyhow::Result<T>;
}

struct BincodeFix;
impl Codec for BincodeFix {
    const NAME: &'static str = "bincode 2 fixint";
    fn enc<T: Serialize>(v: &T) -> anyhow::Result<Vec<u8>> {
        Ok(bincode::serde::encode_to_vec(v, fixint())?)
    }
    fn dec<T: DeserializeOwned>(b: &[u8]) -> anyhow::Result<T> {
        Ok(bincode::serde::decode_from_slice(b, fixint())?.0)
    }
}

struct BincodeVar;
impl Codec for BincodeVar {
    const NAME: &'static str = "bincode 2 standard";
    fn enc<T: Serialize>(v: &T) -> anyhow::Result<Vec<u8>> {
        Ok(bincode::serde::encode_to_vec(
            v,
            bincode::config::standard(),
        )?)
    }
    fn dec<T: DeserializeOwned>(b: &[u8]) -> anyhow::Result<T> {
        Ok(bincode::serde::decode_from_slice(b, bincode::config::standard())?.0)
    }
}

struct Postcard;
impl Codec for Postcard {
    const NAME: &'static str = "postcard 1";
    fn enc<T: Serialize>(v: &T) -> anyhow::Result<Vec<u8>> {
        Ok(postcard::to_stdvec(v)?)
    }
    fn dec<T: DeserializeOwned>(b: &[u8]) -> anyhow::Result<T> {
        Ok(postcard::from_bytes(b)?)
    }
}

struct Bitcode;
impl Codec for Bitcode {
    const NAME: &'static str = "bitcode 0.6 serde";
    fn enc<T: Serialize>(v: &T) -> anyhow::Result<Vec<u8>> {
        Ok(bitcode::serialize(v)?)
    }
    fn dec<T: DeserializeOwned>(b: &[u8]) -> anyhow::Result<T> {
        Ok(bitcode::deserialize(b)?)
    }
}

/// The sets as eight parts in codec `C`.
fn encode<C: Codec>(s: &Sets) -> anyhow::Result<Vec<Vec<u8>>> {
    Ok(vec![
        C::enc(&s.islands)?,
        C::enc(&s.broad_phase)?,
        C::enc(&s.narrow_phase)?,
        C::enc(&s.bodies)?,
        C::enc(&s.colliders)?,
        C::enc(&s.impulse_joints)?,
        C::enc(&s.multibody_joints)?,
        C::enc(&s.soft_bodies)?,
    ])
}

fn decode<C: Codec>(parts: &[Vec<u8>]) -> anyhow::Result<Sets> {
    Ok(Sets {
        islands: C::dec(&parts[0])?,
        broad_phase: C::dec(&parts[1])?,
        narrow_phase: C::dec(&parts[2])?,
        bodies: C::dec(&parts[3])?,
        colliders: C::dec(&parts[4])?,
        impulse_joints: C::dec(&parts[5])?,
        multibody_joints: C::dec(&parts[6])?,
        soft_bodies: C::dec(&parts[7])?,
    })
}

fn zstd1(b: &[u8]) -> usize {
    zstd::bulk::compress(b, 1).map_or(0, |c| c.len())
}

/// The keyframe delta: each part XORed against `anchor`'s where both
/// have the same length, all concatenated, then zstd level 1.
fn delta_packed(parts: &[Vec<u8>], anchor: &[Vec<u8>]) -> usize {
    let mut all = Vec::new();
    for (p, a) in parts.iter().zip(anchor) {
        if p.len() == a.len() {
            all.extend(p.iter().zip(a).map(|(x, y)| x ^ y));
        } else {
            all.extend_from_slice(p);
        }
    }
    zstd1(&all)
}

fn race<C: Codec>(world: &str, anchor: &Sets, now: &Sets, reps: usize) -> anyhow::Result<Figure> {
    let parts = encode::<C>(now)?;
    let anchor_parts = encode::<C>(anchor)?;
    let bytes: usize = parts.iter().map(Vec::len).sum();
    let packed = zstd1(&parts.concat());
    let delta = delta_packed(&parts, &anchor_parts);
    let same_len = parts
        .iter()
        .zip(&anchor_parts)
        .filter(|(p, a)| p.len() == a.len())
        .count();
    let (mut enc, mut dec) = (f64::MAX, f64::MAX);
    for _ in 0..reps {
        enc = enc.min(time(|| {
            black_box(encode::<C>(black_box(now)).ok());
        }));
        dec = dec.min(time(|| {
            black_box(decode::<C>(black_box(&parts)).ok());
        }));
    }
    // Bit for bit: decoded and written again in one reference format, the
    // same bytes as the original.
    let back = decode::<C>(&parts)?;
    let exact = encode::<Postcard>(&back)? == encode::<Postcard>(now)?;
    let name = C::NAME;
    // rapier's u128 fields (`user_data`) with a value that needs all 16 bytes.
    let mut big = RigidBodySet::new();
    big.insert(RigidBodyBuilder::dynamic().user_data(u128::MAX - 7));
    let wide = C::dec::<RigidBodySet>(&C::enc(&big)?)?
        .iter()
        .all(|(_, b)| b.user_data == u128::MAX - 7);
    Ok(Figure::value(
        "codec_compare",
        bytes as f64 / 1024.0,
        "KiB",
        format!(
            "{world} | {name} | {:.0} KiB | zstd1 {:.0} KiB | delta {:.0} KiB ({same_len}/8 parts same length) | encode {:.2} ms | decode {:.2} ms | round-trip {} | u128 {}",
            bytes as f64 / 1024.0,
            packed as f64 / 1024.0,
            delta as f64 / 1024.0,
            enc * 1000.0,
            dec * 1000.0,
            if exact { "exact" } else { "DIFFERS" },
            if wide { "ok" } else { "LOST" }
        ),
    ))
}

pub(super) fn codec_compare(scale: f64, dir: &Path) -> anyhow::Result<Vec<Figure>> {
    let mut out = Vec::new();
    let mut worlds = Vec::new();
    let mut p = load(dir, "demo.ron")?;
    for _ in 0..600 {
        p.step_frame(1.0 / 60.0);
    }
    let anchor = sets_of(&p)?;
    for _ in 0..120 {
        p.step_frame(1.0 / 60.0);
    }
    worlds.push(("demo.ron", anchor, sets_of(&p)?, 20));
    let mut p = awake_pipeline(10_000);
    for _ in 0..((240.0 * scale) as usize).max(30) {
        p.step_frame(1.0 / 60.0);
    }
    let anchor = sets_of(&p)?;
    for _ in 0..120 {
        p.step_frame(1.0 / 60.0);
    }
    worlds.push(("10,000 balls", anchor, sets_of(&p)?, 5));
    for (world, anchor, now, reps) in &worlds {
        out.push(race::<BincodeFix>(world, anchor, now, *reps)?);
        out.push(race::<BincodeVar>(world, anchor, now, *reps)?);
        out.push(race::<Postcard>(world, anchor, now, *reps)?);
        out.push(race::<Bitcode>(world, anchor, now, *reps)?);
    }
    Ok(out)
}
