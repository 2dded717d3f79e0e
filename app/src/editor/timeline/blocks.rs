//! Min/max summaries of blocks of frame records, kept as records arrive, so
//! that a zoomed-out lane is decimated without reading the ring itself.

use std::collections::VecDeque;

use stepframe_core::Telemetry;

use super::XAxis;
use super::series::{SERIES, series_values};

/// Records per summary block at each level, finest first. Decimation reads
/// the coarsest level whose blocks a pixel column holds at least two of
/// (a block goes to the column its first record is in, so a point moves by
/// less than half a pixel), and records where it holds fewer than two of
/// the finest. An hour of frames (216,000) is ~3,400 blocks of 64 over a
/// 1,565-column plot, ~6,800 blocks of 32 over a 2,560-column one (a
/// maximised editor on a 1440p screen) and ~13,500 blocks of 16 over a
/// 3,840-column one; reading the records instead (36 MiB) cost 12.8 and
/// 16.4 ms per UI frame at those widths. Each level doubles the one below,
/// so a column reads two to four blocks (more past 256 records a column). A
/// block is 552 bytes: 13 MB for a full ring, next to its 36 MiB.
pub(super) const LEVELS: [u64; 3] = [16, 32, 64];

/// Min and max of every series over a block of consecutive records, with
/// the x of the records holding them, so that decimating through blocks
/// never reads the ring: at 216,000 records (36 MiB) each record read is a
/// cache miss, and reading x from the ring (for every block and every
/// column's pair) was ~1 ms of the 4 ms UI frame under perf.
#[derive(Clone, Debug)]
pub(super) struct Block {
    /// x of the block's first record: the pixel column the block goes to.
    pub(super) x0: f64,
    /// Per series: `[x of min, min, x of max, max]`, of the first record
    /// holding each.
    pub(super) ext: [[f64; 4]; SERIES],
    /// Per series: offsets in the block of those records (they order a
    /// column's pair of points as sequence numbers do).
    pub(super) at: [[u8; 2]; SERIES],
}

impl Block {
    /// Folds in `b`, the next block `off` records further: extremes of
    /// equal value keep the earlier record, as a scan in order would.
    fn merge(&mut self, b: &Block, off: u8) {
        for (((e, at), be), bat) in self.ext.iter_mut().zip(&mut self.at).zip(&b.ext).zip(&b.at) {
            if be[1] < e[1] {
                (e[0], e[1], at[0]) = (be[0], be[1], bat[0] + off);
            }
            if be[3] > e[3] {
                (e[2], e[3], at[1]) = (be[2], be[3], bat[1] + off);
            }
        }
    }
}

/// The blocks of one size, built incrementally, oldest first.
#[derive(Clone, Debug, Default)]
pub(super) struct Level {
    /// Records per block.
    pub(super) size: u64,
    /// Block index (sequence number / size) of `blocks[0]`.
    pub(super) first: u64,
    /// The summaries, oldest first.
    pub(super) blocks: VecDeque<Block>,
    /// Sequence number up to which records are summarised.
    pub(super) built: u64,
}

impl Level {
    fn new(size: u64, first_seq: u64) -> Level {
        let first = first_seq.div_ceil(size);
        Level {
            size,
            first,
            blocks: VecDeque::new(),
            built: first * size,
        }
    }

    /// Forgets the blocks the ring (from `first_seq` on) no longer fully holds.
    fn forget_before(&mut self, first_seq: u64) {
        let first = first_seq.div_ceil(self.size);
        while self.first < first && !self.blocks.is_empty() {
            self.blocks.pop_front();
            self.first += 1;
        }
        if self.blocks.is_empty() {
            self.built = self.built.max(first * self.size);
            self.first = self.built / self.size;
        }
    }

    /// The summary of the block starting at sequence number `seq`, if built.
    pub(super) fn at(&self, seq: u64) -> Option<&Block> {
        let b = (seq / self.size).checked_sub(self.first)?;
        self.blocks.get(usize::try_from(b).ok()?)
    }
}

/// Block summaries of the ring at every size of [`LEVELS`], built
/// incrementally as records arrive, for one x axis (rebuilt when the axis
/// changes, about 15 ms for a full hour).
#[derive(Clone, Debug)]
pub(super) struct Blocks {
    /// The axis the x values are on.
    pub(super) axis: XAxis,
    /// One level per size of [`LEVELS`], finest first.
    pub(super) levels: [Level; LEVELS.len()],
}

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks::new(XAxis::FrameIndex, 0)
    }
}

impl Blocks {
    fn new(axis: XAxis, first_seq: u64) -> Blocks {
        Blocks {
            axis,
            levels: LEVELS.map(|size| Level::new(size, first_seq)),
        }
    }

    /// Summarises the complete blocks not yet summarised, and forgets blocks
    /// the ring no longer fully holds. The finest level reads the records,
    /// each coarser one merges blocks of the level below.
    pub(super) fn update(&mut self, telemetry: &Telemetry, axis: XAxis) {
        let pushed = telemetry.pushed();
        let first_seq = pushed - telemetry.len() as u64;
        if self.axis != axis || self.levels.iter().any(|l| l.built > pushed) {
            *self = Blocks::new(axis, first_seq);
        }
        for level in &mut self.levels {
            level.forget_before(first_seq);
        }
        let records = telemetry.records();
        let fine = &mut self.levels[0];
        while fine.built + fine.size <= pushed {
            let base = fine.built;
            let r0 = &records[(base - first_seq) as usize];
            let (x0, v0) = (axis.of(r0), series_values(r0));
            let mut b = Block {
                x0,
                ext: std::array::from_fn(|k| [x0, v0[k], x0, v0[k]]),
                at: [[0; 2]; SERIES],
            };
            for off in 1..fine.size as u8 {
                let r = &records[(base + u64::from(off) - first_seq) as usize];
                let x = axis.of(r);
                let v = series_values(r);
                for ((v, e), at) in v.into_iter().zip(&mut b.ext).zip(&mut b.at) {
                    if v < e[1] {
                        (e[0], e[1], at[0]) = (x, v, off);
                    }
                    if v > e[3] {
                        (e[2], e[3], at[1]) = (x, v, off);
                    }
                }
            }
            fine.blocks.push_back(b);
            fine.built += fine.size;
        }
        // A coarser level starts no earlier than the finer one (both start
        // at the ring's first whole block), so its parts are there.
        for l in 1..self.levels.len() {
            let (finer, coarser) = self.levels.split_at_mut(l);
            let (fine, coarse) = (&finer[l - 1], &mut coarser[0]);
            'blocks: while coarse.built + coarse.size <= fine.built {
                let base = coarse.built;
                let Some(mut b) = fine.at(base).cloned() else {
                    break;
                };
                for off in (fine.size..coarse.size).step_by(fine.size as usize) {
                    let Some(next) = fine.at(base + off) else {
                        break 'blocks;
                    };
                    b.merge(next, off as u8);
                }
                coarse.blocks.push_back(b);
                coarse.built += coarse.size;
            }
        }
    }
}
