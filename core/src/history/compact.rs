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
//! The compression runs on a thread of the packer's own: the keyframe is
//! taken (its bytes written, a delta XORed) on the session's thread, and
//! zstd, about half of a keyframe's cost and ~2% of a flat-out replay of
//! the demo, overlaps the next frames. Until it is done a keyframe holds
//! its bytes as they are and counts them at full length: it restores from
//! them, and a history over its budget waits for the packing before it
//! thins, so the budget decides on packed bytes as before.
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

use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

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

/// A keyframe's engine bytes, packed (or still being packed).
#[derive(Debug)]
pub(super) struct Packed {
    /// zstd of the bytes (anchor), or of the bytes with their unchanged-length
    /// parts XORed against the anchor's (delta), once the packer's thread
    /// has made it.
    compressed: OnceLock<Vec<u8>>,
    /// Those bytes uncompressed, until `compressed` is made.
    pending: Mutex<Option<Arc<Vec<u8>>>>,
    /// The length of the bytes before compression.
    raw_len: usize,
    /// The anchor this is a delta against; `None`: this is an anchor.
    anchor: Option<Arc<Packed>>,
}

impl Packed {
    /// Bytes not yet compressed, shared with the packer's thread.
    fn new(bytes: Arc<Vec<u8>>, anchor: Option<Arc<Packed>>) -> Packed {
        Packed {
            compressed: OnceLock::new(),
            raw_len: bytes.len(),
            pending: Mutex::new(Some(bytes)),
            anchor,
        }
    }

    /// Bytes this keyframe holds on its own (not counting its anchor): its
    /// uncompressed length until it is packed.
    pub(super) fn own_bytes(&self) -> usize {
        std::mem::size_of::<Packed>() + self.compressed.get().map_or(self.raw_len, |c| c.capacity())
    }

    /// Waits until the packer's thread has compressed the bytes, or packs
    /// them here once `packing` says that thread is gone: a thread that
    /// died with this job queued (a panic inside zstd) would otherwise
    /// leave a history over budget waiting for ever.
    pub(super) fn settle(&self, packing: impl Fn() -> bool) {
        while self.compressed.get().is_none() {
            if !packing() {
                self.pack(&mut Zstd::default());
                return;
            }
            // The packer takes a few milliseconds a keyframe.
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }

    /// Compresses the pending bytes (on the packer's thread) and hands
    /// back their buffer when nobody else holds it, for the next keyframe.
    fn pack(&self, zstd: &mut Zstd) -> Option<Vec<u8>> {
        let bytes = lock(&self.pending).clone()?;
        let _ = self
            .compressed
            .set(compress(&mut zstd.compressor, &mut zstd.out, &bytes));
        let taken = lock(&self.pending).take();
        drop(bytes);
        taken.and_then(|b| Arc::try_unwrap(b).ok())
    }

    /// The bytes as they were before compression (XORed, for a delta).
    fn raw(&self) -> Result<Vec<u8>, KeyframeError> {
        if let Some(c) = self.compressed.get() {
            return decompress(c, self.raw_len);
        }
        let pending = lock(&self.pending).clone();
        match pending {
            Some(bytes) => Ok(bytes.to_vec()),
            // Packed between the two looks.
            None => decompress(self.compressed.wait(), self.raw_len),
        }
    }

    /// The anchor a delta stands on, if this is one.
    pub(super) fn anchor(&self) -> Option<&Arc<Packed>> {
        self.anchor.as_ref()
    }

    /// The engine bytes back.
    pub(super) fn unpack(&self) -> Result<Vec<u8>, KeyframeError> {
        let mut bytes = self.raw()?;
        if let Some(anchor) = &self.anchor {
            let base = anchor.raw()?;
            xor_parts(&mut bytes, &base)?;
        }
        Ok(bytes)
    }
}

/// What compressing needs between keyframes: the zstd context and its
/// output buffer.
#[derive(Default)]
struct Zstd {
    compressor: Option<zstd::bulk::Compressor<'static>>,
    out: Vec<u8>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// zstd's level: 1, its fastest standard level. On the 10,000-ball pile
/// it packed a 15 MB keyframe to 5.5 MB in 25-45 ms, where lz4 (`lz4_flex`)
/// gave 7.7 MB in 27-44 ms and zstd at level 3 5.5 MB in 50-110 ms
/// (docs/performance.md).
const ZSTD_LEVEL: i32 = 1;

/// zstd of `bytes` through `compressor` (one context for every keyframe
/// of a history: a fresh one per call left freed blocks that grew the
/// process's resident memory past what the budget counts), written into
/// `out` (kept between keyframes: zstd's output bound is about the input's
/// size) and copied out at its length, so no keyframe-sized buffer is
/// allocated and shrunk for every keyframe.
fn compress(
    compressor: &mut Option<zstd::bulk::Compressor<'static>>,
    out: &mut Vec<u8>,
    bytes: &[u8],
) -> Vec<u8> {
    if compressor.is_none() {
        *compressor = zstd::bulk::Compressor::new(ZSTD_LEVEL).ok();
    }
    out.clear();
    out.reserve(zstd::zstd_safe::compress_bound(bytes.len()));
    // In memory, level 1: only a bug could make this fail, and then the
    // keyframe decodes to an error at rewind rather than to a wrong state.
    match compressor
        .as_mut()
        .map(|c| c.compress_to_buffer(bytes, out))
    {
        Some(Ok(_)) => out.as_slice().to_vec(),
        _ => Vec::new(),
    }
}

fn decompress(compressed: &[u8], raw_len: usize) -> Result<Vec<u8>, KeyframeError> {
    zstd::bulk::decompress(compressed, raw_len)
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
    anchor: Option<(Arc<Packed>, Arc<Vec<u8>>)>,
    /// Keyframes packed since the anchor.
    since_anchor: u32,
    /// Scratch: the engine bytes of the keyframe being taken.
    scratch: Vec<u8>,
    /// The thread that compresses, started at the first keyframe; `None`
    /// before, or where no thread could be started (then the compression
    /// runs here, as it is taken).
    thread: Option<PackThread>,
}

/// The packer's thread: keyframes to compress go one way, buffers nobody
/// needs any more come back, for the next keyframe's bytes.
struct PackThread {
    jobs: Sender<Arc<Packed>>,
    spare: Receiver<Vec<u8>>,
    /// Finished only if the thread died (its jobs end with the packer).
    handle: std::thread::JoinHandle<()>,
}

impl PackThread {
    /// A thread with one zstd context for every keyframe of the history (a
    /// fresh one per call left freed blocks that grew the process's
    /// resident memory past what the budget counts).
    fn start() -> Option<PackThread> {
        let (jobs, to_pack) = std::sync::mpsc::channel::<Arc<Packed>>();
        let (give_back, spare) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("stepframe-keyframes".into())
            .spawn(move || {
                let mut zstd = Zstd::default();
                for packed in to_pack {
                    if let Some(buffer) = packed.pack(&mut zstd) {
                        let _ = give_back.send(buffer);
                    }
                }
            })
            .ok()?;
        Some(PackThread {
            jobs,
            spare,
            handle,
        })
    }
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

    /// Has `packed`'s bytes compressed: on the packer's thread, or here if
    /// it has none.
    fn send(&mut self, packed: &Arc<Packed>) {
        if self.thread.is_none() {
            self.thread = PackThread::start();
        }
        let sent = self
            .thread
            .as_ref()
            .is_some_and(|t| t.jobs.send(packed.clone()).is_ok());
        if !sent && let Some(buffer) = packed.pack(&mut Zstd::default()) {
            self.scratch = buffer;
        }
    }

    /// Whether the packer's thread is there to pack what was sent to it.
    pub(super) fn packing(&self) -> bool {
        self.thread
            .as_ref()
            .is_some_and(|t| !t.handle.is_finished())
    }

    /// Starts again with an anchor (a branch cut the keyframes after it).
    pub(super) fn reset(&mut self) {
        self.anchor = None;
        self.since_anchor = 0;
    }

    /// A snapshot of `p` and its engine packed, or a plain snapshot when
    /// the physics stage has no byte form.
    pub(super) fn take(&mut self, p: &Pipeline) -> (Snapshot, Option<Arc<Packed>>) {
        if let Some(buffer) = self.thread.as_ref().and_then(|t| t.spare.try_iter().last()) {
            self.scratch = buffer;
        }
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
        let bytes = Arc::new(std::mem::take(&mut self.scratch));
        let packed = match delta_on {
            Some(anchor) => {
                self.since_anchor += 1;
                Arc::new(Packed::new(bytes, Some(anchor)))
            }
            None => {
                let packed = Arc::new(Packed::new(bytes.clone(), None));
                self.since_anchor = 0;
                self.anchor = Some((packed.clone(), bytes));
                packed
            }
        };
        self.send(&packed);
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
        sum += packed.own_bytes();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Engine-shaped bytes: a header of two part lengths, then the parts.
    fn engine(a: &[u8], b: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(a.len() as u32).to_le_bytes());
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        out
    }

    #[test]
    fn a_keyframe_restores_from_its_bytes_before_and_after_its_packing() {
        // An anchor and a delta on it (same part lengths: XORed), neither
        // compressed yet, as a keyframe is right after it was taken.
        let first = engine(&[7u8; 4000], &[1, 2, 3]);
        let second = engine(
            &[7u8; 3990]
                .iter()
                .chain(&[9u8; 10])
                .copied()
                .collect::<Vec<_>>(),
            &[4, 5, 6],
        );
        let anchor = Arc::new(Packed::new(Arc::new(first.clone()), None));
        let mut xored = second.clone();
        xor_parts(&mut xored, &first).expect("parts");
        let delta = Packed::new(Arc::new(xored), Some(anchor.clone()));
        // Pending: the bytes come back as they are, counted at full length.
        assert_eq!(delta.unpack().expect("unpacks"), second);
        assert_eq!(anchor.unpack().expect("unpacks"), first);
        assert_eq!(
            delta.own_bytes(),
            std::mem::size_of::<Packed>() + second.len()
        );
        // Packed (what the packer's thread does): the same bytes, fewer held,
        // and a delta's buffer handed back for the next keyframe.
        let mut zstd = Zstd::default();
        assert!(anchor.pack(&mut zstd).is_some_and(|b| b == first));
        let back = delta.pack(&mut zstd).expect("nobody else holds it");
        assert_eq!(back.len(), second.len());
        assert_eq!(delta.unpack().expect("unpacks"), second);
        assert_eq!(anchor.unpack().expect("unpacks"), first);
        assert!(
            delta.own_bytes() < std::mem::size_of::<Packed>() + 200,
            "{}",
            delta.own_bytes()
        );
    }

    #[test]
    fn a_keyframe_whose_packer_thread_died_is_packed_by_the_one_that_settles_it() {
        // A job the packer's thread took and never packed: it died (as a
        // panic inside zstd would end it) with the job in its queue.
        let (jobs, to_pack) = std::sync::mpsc::channel::<Arc<Packed>>();
        let (_give_back, spare) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            let _ = wait.recv();
            drop(to_pack);
        });
        let bytes = engine(&[3u8; 5000], &[1, 2]);
        let packed = Arc::new(Packed::new(Arc::new(bytes.clone()), None));
        jobs.send(packed.clone())
            .expect("queued while the thread lives");
        let packer = Packer {
            thread: Some(PackThread {
                jobs,
                spare,
                handle,
            }),
            ..Packer::default()
        };
        assert!(packer.packing());
        go.send(()).expect("the thread waits");
        // Settling it returns (bounded here: before the fix it waited for
        // ever), packed, with the same bytes.
        let (done, settled) = std::sync::mpsc::channel();
        let waiting = packed.clone();
        std::thread::spawn(move || {
            waiting.settle(|| packer.packing());
            let _ = done.send(());
        });
        settled
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("settled, not waiting for a dead thread");
        assert!(packed.compressed.get().is_some(), "packed");
        assert_eq!(packed.unpack().expect("unpacks"), bytes);
    }
}
