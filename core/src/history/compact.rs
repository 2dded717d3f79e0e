//! Compact keyframes: the physics engine's state as bytes, delta-encoded
//! against an anchor keyframe where that pays, and compressed with zstd.
//!
//! A keyframe's bulk is the physics engine: of the ~4.1 KB an awake ball in
//! a pile costs as a plain copy, rapier's sets are ~1.5 KB serialised (the
//! rest is the heap overhead of copying them as structs). A history
//! keyframe keeps the rest of the session as a copy
//! ([`Pipeline::snapshot_detached`]) and the engine as bytes
//! ([`crate::PhysicsStage::clone_to_bytes`]), packed one of two ways:
//!
//! - an **anchor**: the bytes compressed on their own, every
//!   [`ANCHOR_EVERY`]th keyframe (the first one of a history too);
//! - a **delta**: the parts of the bytes ([`crate::physics::engine_parts`])
//!   that kept their length since the anchor (the body and collider sets
//!   of the same objects) XORed against the anchor's, the others as they
//!   are, then compressed. What did not change since the anchor (shapes,
//!   masses, handles, a sleeping body's whole state, the high bytes of a
//!   float that moved a little) XORs to zeros, which the compressor folds
//!   away.
//!
//! A delta holds its anchor (an `Arc`), so dropping or thinning keyframes
//! never breaks one: an anchor whose keyframe went stays while a delta
//! needs it, and [`History::memory_bytes`] counts it once. Decoding any
//! keyframe is two decompressions and one XOR, however old it is.
//!
//! Worked numbers (10,000 awake balls settled in a pile; docs/performance.md): the
//! engine bytes are ~15 MB; zstd packs them to ~5.5 MB, of which the narrow
//! phase (every contact's points and warm-start impulses, all changing
//! every tick) is 4 MB; the body set's 2.8 MB pack to 0.7 MB alone and
//! 0.57 MB as a delta. So a keyframe there is ~550 B a ball, against the
//! ~4.1 KB of a plain copy.

use std::sync::Arc;

use super::*;
use crate::physics::{EngineBytesError, engine_parts};

/// Every this many keyframes one is an anchor, packed on its own; the
/// others are deltas against it. Only the body and collider sets gain from
/// the delta (15-25% on the 10,000-ball pile), so the anchor's
/// own cost is small and the choice is not critical; 8 was the one value
/// measured (docs/performance.md). While an anchor is current, the packer
/// keeps its bytes unpacked for the next deltas.
pub const ANCHOR_EVERY: u32 = 8;

/// Why a keyframe's packed engine state did not come back. The bytes
/// never leave the process, so each of these is a bug in the packing; the
/// variant says which step caught it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyframeError {
    /// zstd refused the compressed bytes (its message).
    #[error("zstd: {0}")]
    Decompress(String),
    /// The unpacked bytes of the keyframe (`of: "keyframe"`) or of the
    /// anchor it is a delta against (`of: "anchor"`) do not split into
    /// parts, so the delta cannot be undone.
    #[error("the {of}'s engine bytes do not split into parts")]
    BadParts {
        /// Whose bytes: `"keyframe"` or `"anchor"`.
        of: &'static str,
    },
    /// The bytes came back but the physics stage did not load them.
    #[error(transparent)]
    Engine(#[from] EngineBytesError),
}

/// A keyframe's engine bytes, packed.
#[derive(Debug)]
pub(super) struct Packed {
    /// zstd of the bytes (anchor), or of the bytes with their unchanged-length
    /// parts XORed against the anchor's (delta).
    compressed: Vec<u8>,
    /// The length of the bytes before compression.
    raw_len: usize,
    /// The anchor this is a delta against; `None`: this is an anchor.
    anchor: Option<Arc<Packed>>,
}

impl Packed {
    /// Bytes this keyframe holds on its own (not counting its anchor).
    pub(super) fn own_bytes(&self) -> usize {
        std::mem::size_of::<Packed>() + self.compressed.capacity()
    }

    /// The anchor a delta stands on, if this is one.
    pub(super) fn anchor(&self) -> Option<&Arc<Packed>> {
        self.anchor.as_ref()
    }

    /// The engine bytes back.
    pub(super) fn unpack(&self) -> Result<Vec<u8>, KeyframeError> {
        let mut bytes = decompress(self)?;
        if let Some(anchor) = &self.anchor {
            let base = decompress(anchor)?;
            xor_parts(&mut bytes, &base)?;
        }
        Ok(bytes)
    }
}

/// zstd's level: 1, its fastest standard level. On the 10,000-ball pile
/// it packed a 15 MB keyframe to 5.5 MB in 25-45 ms, where lz4 (`lz4_flex`)
/// gave 7.7 MB in 27-44 ms and zstd at level 3 5.5 MB in 50-110 ms
/// (docs/performance.md).
const ZSTD_LEVEL: i32 = 1;

/// zstd of `bytes` through `compressor` (one context for every keyframe
/// of a history: a fresh one per call left freed blocks that grew the
/// process's resident memory past what the budget counts), shrunk to
/// its length.
fn compress(compressor: &mut Option<zstd::bulk::Compressor<'static>>, bytes: &[u8]) -> Packing {
    if compressor.is_none() {
        *compressor = zstd::bulk::Compressor::new(ZSTD_LEVEL).ok();
    }
    // In memory, level 1: only a bug could make this fail, and then the
    // keyframe decodes to an error at rewind rather than to a wrong state.
    let mut compressed = compressor
        .as_mut()
        .and_then(|c| c.compress(bytes).ok())
        .unwrap_or_default();
    compressed.shrink_to_fit();
    Packing {
        compressed,
        raw_len: bytes.len(),
    }
}

/// Compressed bytes and the length they decompress to.
struct Packing {
    compressed: Vec<u8>,
    raw_len: usize,
}

fn decompress(packed: &Packed) -> Result<Vec<u8>, KeyframeError> {
    zstd::bulk::decompress(&packed.compressed, packed.raw_len)
        .map_err(|e| KeyframeError::Decompress(e.to_string()))
}

/// XORs each part of `bytes` with the same part of `base` when both have
/// the same length (a body or collider set of the same objects), and leaves
/// the others as they are: a part whose length changed (rapier's narrow
/// phase gains and loses contacts every tick, its islands and broad-phase
/// tree re-form) no longer lines up with the anchor's, and measured on the
/// 10,000-ball pile its XOR packed 1.6x larger than the part alone. The
/// header stays as it is, so the parts can be found again, and decoding
/// applies the same rule to the same lengths.
fn xor_parts(bytes: &mut [u8], base: &[u8]) -> Result<(), KeyframeError> {
    let ours = engine_parts(bytes).ok_or(KeyframeError::BadParts { of: "keyframe" })?;
    let theirs = engine_parts(base).ok_or(KeyframeError::BadParts { of: "anchor" })?;
    for (&(s, e), &(bs, be)) in ours.iter().zip(&theirs) {
        if e - s != be - bs {
            continue;
        }
        for (a, b) in bytes[s..e].iter_mut().zip(&base[bs..be]) {
            *a ^= *b;
        }
    }
    Ok(())
}

/// The packing side of a history: the last anchor, and its bytes unpacked
/// so a delta needs no decompression.
#[derive(Default)]
pub(super) struct Packer {
    /// The zstd context, made at the first keyframe.
    compressor: Option<zstd::bulk::Compressor<'static>>,
    anchor: Option<(Arc<Packed>, Vec<u8>)>,
    /// Keyframes packed since the anchor.
    since_anchor: u32,
    /// Scratch: the engine bytes of the keyframe being taken.
    scratch: Vec<u8>,
}

impl std::fmt::Debug for Packer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Packer")
            .field("since_anchor", &self.since_anchor)
            .field(
                "anchor_bytes",
                &self.anchor.as_ref().map(|(_, raw)| raw.len()),
            )
            .finish_non_exhaustive()
    }
}

impl Packer {
    /// Bytes the packer keeps between keyframes (the anchor's bytes unpacked).
    pub(super) fn memory_bytes(&self) -> usize {
        self.anchor.as_ref().map_or(0, |(_, raw)| raw.capacity()) + self.scratch.capacity()
    }

    /// Starts again with an anchor (a branch cut the keyframes after it).
    pub(super) fn reset(&mut self) {
        self.anchor = None;
        self.since_anchor = 0;
    }

    /// A snapshot of `p` and its engine packed, or a plain snapshot when
    /// the physics stage has no byte form.
    pub(super) fn take(&mut self, p: &Pipeline) -> (Snapshot, Option<Arc<Packed>>) {
        let Some(snapshot) = p.snapshot_detached(&mut self.scratch) else {
            return (p.snapshot(), None);
        };
        let delta_on = match &self.anchor {
            Some((anchor, raw)) if self.since_anchor + 1 < ANCHOR_EVERY => {
                // In place: a delta's own bytes are not needed afterwards.
                xor_parts(&mut self.scratch, raw)
                    .ok()
                    .map(|()| anchor.clone())
            }
            _ => None,
        };
        let packed = match delta_on {
            Some(anchor) => {
                self.since_anchor += 1;
                let Packing {
                    compressed,
                    raw_len,
                } = compress(&mut self.compressor, &self.scratch);
                Arc::new(Packed {
                    compressed,
                    raw_len,
                    anchor: Some(anchor),
                })
            }
            None => {
                let Packing {
                    compressed,
                    raw_len,
                } = compress(&mut self.compressor, &self.scratch);
                let packed = Arc::new(Packed {
                    compressed,
                    raw_len,
                    anchor: None,
                });
                self.since_anchor = 0;
                self.anchor = Some((packed.clone(), std::mem::take(&mut self.scratch)));
                packed
            }
        };
        (snapshot, Some(packed))
    }
}

impl Keyframe {
    /// Restores this keyframe into `p`.
    pub(super) fn restore_into(&self, p: &mut Pipeline) -> Result<(), KeyframeError> {
        match &self.engine {
            Some(packed) => Ok(p.restore_detached(&self.snapshot, &packed.unpack()?)?),
            None => {
                p.restore(&self.snapshot);
                Ok(())
            }
        }
    }
}

/// The bytes `keyframes` hold: each one's own, plus each anchor a delta
/// stands on whose own keyframe is gone, once.
pub(super) fn keyframe_bytes(keyframes: &VecDeque<Keyframe>) -> usize {
    let mut last_anchor: Option<&Arc<Packed>> = None;
    let mut sum = 0;
    for k in keyframes {
        sum += k.bytes;
        let Some(packed) = &k.engine else { continue };
        match packed.anchor() {
            None => last_anchor = Some(packed),
            Some(anchor) => {
                if !last_anchor.is_some_and(|a| Arc::ptr_eq(a, anchor)) {
                    sum += anchor.own_bytes();
                    last_anchor = Some(anchor);
                }
            }
        }
    }
    sum
}
