//! Reducing the telemetry ring to what a lane can show: one min/max pair per
//! pixel column ([`decimate`], as Rerun does), read from block summaries when
//! zoomed out so an hour of frames never touches the ring itself.
//!
//! Zoomed out, decimation reads min/max summaries of blocks of 16, 32 or 64
//! records ([`LEVELS`]) that carry the x of each extreme, never the ring
//! itself: one read per record of the 36 MiB ring is a cache miss. The
//! reduced series live in buffers reused from one UI frame to the next, lent
//! to egui_plot, not copied, and reduced again only when the records in view
//! change ([`Reduced`], keyed by [`SeriesKey`]).

use std::collections::VecDeque;

use egui_plot::PlotPoint;
use stepframe_core::Telemetry;

use super::XAxis;
use super::blocks::Blocks;
use super::series::{SERIES, SERIES_DROPPED_MARK, SERIES_DT, SERIES_FIRST_PRIORITY, series_values};

/// false along the slice, as for sorted x).
pub(super) fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Reduces the series `(xs[i], ys[i])` (xs non-decreasing) to at most one
/// min/max pair per pixel column of `x_range` split into `columns`, in x order,
/// plus the nearest point on each side of the range so the line runs to the
/// edges. A column's min and max are kept exactly, so no spike disappears when
/// zoomed out.
pub fn decimate(xs: &[f64], ys: &[f64], x_range: (f64, f64), columns: usize) -> Vec<[f64; 2]> {
    decimate_with(
        xs.len().min(ys.len()),
        |i| xs[i],
        |i| ys[i],
        x_range,
        columns,
    )
}

/// [`decimate`] over accessors (no intermediate arrays: the timeline reads its
/// ring directly).
pub fn decimate_with(
    n: usize,
    x: impl Fn(usize) -> f64,
    y: impl Fn(usize) -> f64,
    x_range: (f64, f64),
    columns: usize,
) -> Vec<[f64; 2]> {
    decimate_many(n, &x, &[&y], x_range, columns)
        .pop()
        .unwrap_or_default()
}

/// [`decimate_with`] for several series sharing one x, in a single pass (each
/// record is read once: at an hour of frames the cost is memory traffic, so
/// one pass over the ring instead of one per series).
pub fn decimate_many(
    n: usize,
    x: &dyn Fn(usize) -> f64,
    ys: &[&dyn Fn(usize) -> f64],
    (lo, hi): (f64, f64),
    columns: usize,
) -> Vec<Vec<[f64; 2]>> {
    let columns = columns.max(1);
    let start = partition(n, |i| x(i) < lo);
    let end = partition(n, |i| x(i) <= hi);
    let mut outs: Vec<Vec<[f64; 2]>> = ys
        .iter()
        .map(|_| Vec::with_capacity(2 * columns.min(end - start) + 4))
        .collect();
    if start > 0 {
        for (out, y) in outs.iter_mut().zip(ys) {
            out.push([x(start - 1), y(start - 1)]);
        }
    }
    let width = if hi > lo {
        (hi - lo) / columns as f64
    } else {
        1.0
    };
    // Per series: (min index, min value, max index, max value).
    let mut acc = vec![(0usize, 0f64, 0usize, 0f64); ys.len()];
    let mut column = usize::MAX;
    let flush = |outs: &mut [Vec<[f64; 2]>], acc: &[(usize, f64, usize, f64)]| {
        for (out, &(a, av, b, bv)) in outs.iter_mut().zip(acc) {
            let ((first, fv), (second, sv)) = if a <= b {
                ((a, av), (b, bv))
            } else {
                ((b, bv), (a, av))
            };
            out.push([x(first), fv]);
            if second != first {
                out.push([x(second), sv]);
            }
        }
    };
    for i in start..end {
        let c = (((x(i) - lo) / width) as usize).min(columns - 1);
        if c != column {
            if column != usize::MAX {
                flush(&mut outs, &acc);
            }
            column = c;
            for (a, y) in acc.iter_mut().zip(ys) {
                let v = y(i);
                *a = (i, v, i, v);
            }
        } else {
            for (a, y) in acc.iter_mut().zip(ys) {
                let v = y(i);
                if v < a.1 {
                    a.0 = i;
                    a.1 = v;
                } else if v > a.3 {
                    a.2 = i;
                    a.3 = v;
                }
            }
        }
    }
    if column != usize::MAX {
        flush(&mut outs, &acc);
    }
    if end < n {
        for (out, y) in outs.iter_mut().zip(ys) {
            out.push([x(end), y(end)]);
        }
    }
    outs
}

/// Worst frames highlighted in the dt lane.
pub(super) const WORST_FRAMES: usize = 10;

/// What the decimated series were computed for (the cache key). They depend
/// on the records in view and their two neighbours only, so a view that
/// stays put while the session runs (new frames land right of it) is not
/// reduced again every frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SeriesKey {
    /// Sequence numbers of the records in view, `first..end`.
    pub(super) span: (u64, u64),
    /// Whether the neighbours left and right of the view are kept.
    pub(super) neighbours: (bool, bool),
    /// The x range, as bits.
    pub(super) range: (u64, u64),
    /// Pixel columns.
    pub(super) columns: usize,
    /// The x axis.
    pub(super) axis: XAxis,
    /// Priority slots drawn.
    pub(super) slots: usize,
}

/// Indices in the ring of the records with x in `lo..=hi`, `start..end`.
pub(super) fn view_span(
    telemetry: &Telemetry,
    axis: XAxis,
    (lo, hi): (f64, f64),
) -> (usize, usize) {
    let records = telemetry.records();
    let x = |i: usize| axis.of(&records[i]);
    let start = partition(records.len(), |i| x(i) < lo);
    let end = partition(records.len(), |i| x(i) <= hi);
    (start, end)
}

/// A series' smallest and largest value in the current pixel column, with
/// the sequence number and x of the record holding each.
#[derive(Clone, Copy, Debug)]
struct Extremes {
    min: (u64, f64, f64),
    max: (u64, f64, f64),
}

/// Every lane's series, decimated to min/max per pixel column, into `outs`
/// (in `SERIES_*` order, as many series as `outs` holds, at most [`SERIES`];
/// their allocations are reused). Record by record where a column spans few
/// records, block summary by block summary where it spans many (see
/// [`LEVELS`]).
fn lane_series(
    telemetry: &Telemetry,
    blocks: &Blocks,
    axis: XAxis,
    (lo, hi): (f64, f64),
    columns: usize,
    outs: &mut [Vec<PlotPoint>],
) {
    let records = telemetry.records();
    let n = records.len();
    let first_seq = telemetry.pushed() - n as u64;
    let x = |i: usize| axis.of(&records[i]);
    let columns = columns.max(1);
    let (start, end) = view_span(telemetry, axis, (lo, hi));
    for out in outs.iter_mut() {
        out.clear();
        out.reserve(2 * columns.min(end - start) + 4);
    }
    let push_record = |outs: &mut [Vec<PlotPoint>], i: usize| {
        let v = series_values(&records[i]);
        for (out, v) in outs.iter_mut().zip(v) {
            out.push(PlotPoint::new(x(i), v));
        }
    };
    if start > 0 {
        push_record(outs, start - 1);
    }
    let width = if hi > lo {
        (hi - lo) / columns as f64
    } else {
        1.0
    };
    // The coarsest level a column holds two blocks of, if any.
    let level = blocks
        .levels
        .iter()
        .rev()
        .find(|l| (end - start) as u64 >= 2 * l.size * columns as u64)
        .filter(|_| axis == blocks.axis);
    let size = level.map_or(1, |l| l.size);
    let mut acc = [Extremes {
        min: (0, 0.0, 0.0),
        max: (0, 0.0, 0.0),
    }; SERIES];
    let acc = &mut acc[..outs.len()];
    let mut column = usize::MAX;
    let flush = |outs: &mut [Vec<PlotPoint>], acc: &[Extremes]| {
        for (out, e) in outs.iter_mut().zip(acc) {
            let (first, second) = if e.min.0 <= e.max.0 {
                (e.min, e.max)
            } else {
                (e.max, e.min)
            };
            out.push(PlotPoint::new(first.1, first.2));
            if second.0 != first.0 {
                out.push(PlotPoint::new(second.1, second.2));
            }
        }
    };
    let mut i = start;
    while i < end {
        let seq = first_seq + i as u64;
        let block = match level {
            Some(l) if seq.is_multiple_of(size) && i + size as usize <= end => l.at(seq),
            _ => None,
        };
        let xi = block.map_or_else(|| x(i), |b| b.x0);
        let c = (((xi - lo) / width) as usize).min(columns - 1);
        let new_column = c != column;
        if new_column && column != usize::MAX {
            flush(outs, acc);
        }
        column = c;
        if let Some(b) = block {
            for ((a, e), at) in acc.iter_mut().zip(&b.ext).zip(&b.at) {
                let min = (seq + u64::from(at[0]), e[0], e[1]);
                let max = (seq + u64::from(at[1]), e[2], e[3]);
                if new_column {
                    *a = Extremes { min, max };
                } else {
                    if min.2 < a.min.2 {
                        a.min = min;
                    }
                    if max.2 > a.max.2 {
                        a.max = max;
                    }
                }
            }
            i += size as usize;
        } else {
            let v = series_values(&records[i]);
            for (a, v) in acc.iter_mut().zip(v) {
                let p = (seq, xi, v);
                if new_column {
                    *a = Extremes { min: p, max: p };
                } else if v < a.min.2 {
                    a.min = p;
                } else if v > a.max.2 {
                    a.max = p;
                }
            }
            i += 1;
        }
    }
    if column != usize::MAX {
        flush(outs, acc);
    }
    if end < n {
        push_record(outs, end);
    }
}

/// The `WORST_FRAMES` highest points of `points` with x in `range`, highest
/// first (ties in x order), one per x: the same as a stable sort by
/// descending y, dropping a point whose predecessor has its x, and
/// truncating, but without sorting every column's pair each frame.
fn worst_frames(points: &[PlotPoint], (lo, hi): (f64, f64), out: &mut Vec<PlotPoint>) {
    let in_range = || points.iter().filter(|p| (lo..=hi).contains(&p.x));
    let dedup_truncate = |out: &mut Vec<PlotPoint>| {
        out.dedup_by(|a, b| a.x == b.x);
        out.truncate(WORST_FRAMES);
    };
    // The top `KEEP` by stable insertion: enough for `WORST_FRAMES` after
    // dropping repeated x, unless many repeat (then sort them all).
    const KEEP: usize = 2 * WORST_FRAMES;
    out.clear();
    for p in in_range() {
        if out.len() == KEEP && out[KEEP - 1].y.total_cmp(&p.y).is_ge() {
            continue;
        }
        let at = out.partition_point(|q| q.y.total_cmp(&p.y).is_ge());
        out.insert(at, *p);
        out.truncate(KEEP);
    }
    let complete = out.len() < KEEP;
    dedup_truncate(out);
    if out.len() < WORST_FRAMES && !complete {
        out.clear();
        out.extend(in_range());
        out.sort_by(|a, b| b.y.total_cmp(&a.y));
        dedup_truncate(out);
    }
}

/// The decimated lanes of the last draw, kept while their key holds (a
/// paused or scrubbed timeline redraws without touching the ring), and
/// refilled in place otherwise (no allocation per UI frame).
#[derive(Debug, Default)]
pub(super) struct Reduced {
    /// What they were computed for.
    pub(super) key: Option<SeriesKey>,
    /// Decimated series in `SERIES_*` order (only the drawn priority slots
    /// are filled).
    pub(super) series: Vec<Vec<PlotPoint>>,
    /// The worst frames in view (top of the decimated dt series).
    pub(super) worst: Vec<PlotPoint>,
    /// Frames where the step cap dropped backlog, at their `ticks`.
    pub(super) dropped_marks: Vec<PlotPoint>,
    /// The x of each record in view that comes after frames the ring never
    /// got, in x order: a line does not join the points either side.
    pub(super) gaps: Vec<f64>,
}

impl Reduced {
    /// Recomputes everything for `key`.
    pub(super) fn refill(
        &mut self,
        key: SeriesKey,
        telemetry: &Telemetry,
        blocks: &Blocks,
        breaks: &VecDeque<u64>,
        range: (f64, f64),
    ) {
        let first_seq = telemetry.pushed() - telemetry.len() as u64;
        self.gaps.clear();
        self.gaps.extend(
            breaks
                .iter()
                .filter(|b| (key.span.0..key.span.1).contains(b))
                .filter_map(|b| telemetry.records().get((b - first_seq) as usize))
                .map(|r| key.axis.of(r)),
        );
        self.series.resize_with(SERIES, Vec::new);
        let used = SERIES_FIRST_PRIORITY + key.slots.min(SERIES - SERIES_FIRST_PRIORITY);
        lane_series(
            telemetry,
            blocks,
            key.axis,
            range,
            key.columns,
            &mut self.series[..used],
        );
        for unused in &mut self.series[used..] {
            unused.clear();
        }
        // The worst frames: every frame worse than all others in its pixel
        // column is a column maximum, so the top of the decimated dt series
        // finds them.
        worst_frames(&self.series[SERIES_DT], range, &mut self.worst);
        self.dropped_marks.clear();
        self.dropped_marks.extend(
            self.series[SERIES_DROPPED_MARK]
                .iter()
                .filter(|p| p.y >= 0.0),
        );
        self.key = Some(key);
    }

    /// `points` (one series, in x order) cut at the gaps: the runs a line
    /// may join.
    pub(super) fn runs<'p>(&self, points: &'p [PlotPoint]) -> Vec<&'p [PlotPoint]> {
        let mut runs = Vec::with_capacity(self.gaps.len() + 1);
        let mut from = 0;
        for gap in &self.gaps {
            let at = from + points[from..].partition_point(|p| p.x < *gap);
            if at > from {
                runs.push(&points[from..at]);
            }
            from = at;
        }
        if from < points.len() {
            runs.push(&points[from..]);
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::super::bench::synthetic_record;
    use super::super::blocks::LEVELS;
    use super::*;
    use crate::editor::frames::Frames;
    use crate::editor::protocol::{BranchEvent, Event};

    #[test]
    fn decimate_keeps_each_columns_min_and_max_in_order() {
        // One column over x 0..4: min 1 at x=1, max 9 at x=2, in x order.
        let out = decimate(&[0.0, 1.0, 2.0, 3.0], &[5.0, 1.0, 9.0, 2.0], (0.0, 4.0), 1);
        assert_eq!(out, vec![[1.0, 1.0], [2.0, 9.0]]);
    }

    #[test]
    fn zoomed_out_lanes_use_block_summaries_and_keep_the_extremes() {
        let mut t = Telemetry::with_capacity(100_000);
        for i in 1..=100_000u64 {
            let mut r = synthetic_record(i);
            // One spike and one dip, far from block edges.
            r.delta_time = match i {
                50_001 => 2.0,
                70_033 => 0.0001,
                _ => 0.016,
            };
            t.push(r);
        }
        let mut blocks = Blocks::default();
        blocks.update(&t, XAxis::FrameIndex);
        for (level, size) in blocks.levels.iter().zip(LEVELS) {
            assert_eq!(level.blocks.len() as u64, 100_000 / size);
        }
        // 500 records per column read blocks of 64, 80 blocks of 32, 40
        // blocks of 16, 20 the records.
        for columns in [200, 1250, 2500, 5000] {
            let mut out = vec![Vec::new(); SERIES];
            let range = (1.0, 100_000.0);
            lane_series(&t, &blocks, XAxis::FrameIndex, range, columns, &mut out);
            let dt = &out[SERIES_DT];
            assert!(dt.len() <= 2 * columns, "{} points", dt.len());
            assert!(
                dt.contains(&PlotPoint::new(50_001.0, 2000.0)),
                "the spike is kept"
            );
            assert!(
                dt.contains(&PlotPoint::new(70_033.0, 0.1)),
                "the dip is kept"
            );
            assert!(dt.windows(2).all(|w| w[0].x <= w[1].x));
        }
    }

    /// The dt series of the whole ring, refilled as the lanes do.
    fn reduced(frames: &Frames, axis: XAxis) -> Reduced {
        let t = frames.telemetry();
        let records = t.records();
        let range = (
            axis.of(records.front().unwrap()),
            axis.of(records.back().unwrap()),
        );
        let first = t.pushed() - t.len() as u64;
        let key = SeriesKey {
            span: (first, t.pushed()),
            neighbours: (false, false),
            range: (range.0.to_bits(), range.1.to_bits()),
            columns: 1000,
            axis,
            slots: 1,
        };
        let mut blocks = Blocks::default();
        blocks.update(t, axis);
        let mut reduced = Reduced::default();
        reduced.refill(key, t, &blocks, frames.breaks(), range);
        reduced
    }

    #[test]
    fn the_clock_lanes_break_where_an_adopted_branch_ran_unrecorded() {
        let mut frames = Frames::default();
        // A's frames 1-10, ticks 1-10; then tick 11 stepped in frame 10.
        for i in 1..=10 {
            frames.push(synthetic_record(i));
        }
        let mut stepped = synthetic_record(10);
        stepped.simulation_tick = 11;
        frames.push(stepped);
        let whole = reduced(&frames, XAxis::FrameIndex);
        assert!(whole.gaps.is_empty(), "{:?}", whole.gaps);
        assert_eq!(whole.runs(&whole.series[SERIES_DT]).len(), 1);
        // B, forked at tick 5, ran its ticks beside A and is adopted: its
        // frames come from frame 20 (tick 30) on.
        frames.on_event(&Event::BranchB(BranchEvent::Adopted {
            forked_at: 5,
            at: 11,
        }));
        for i in 20..=25 {
            let mut r = synthetic_record(i);
            r.simulation_tick = i + 10;
            frames.push(r);
        }
        for (axis, gap) in [(XAxis::FrameIndex, 20.0), (XAxis::Tick, 30.0)] {
            let r = reduced(&frames, axis);
            assert_eq!(r.gaps, [gap], "{axis:?}");
            let runs = r.runs(&r.series[SERIES_DT]);
            assert_eq!(runs.len(), 2, "{axis:?}: {runs:?}");
            assert_eq!(
                runs[0].last().unwrap().x,
                5.0,
                "{axis:?}: A's last kept frame"
            );
            assert_eq!(runs[1].first().unwrap().x, gap, "{axis:?}: B's first frame");
        }
        // A rewind before the gap drops it with B's frames.
        frames.on_event(&Event::Rewound(3));
        let r = reduced(&frames, XAxis::FrameIndex);
        assert!(r.gaps.is_empty(), "{:?}", r.gaps);
    }

    #[test]
    fn worst_frames_match_a_stable_sort_with_repeated_x_dropped() {
        // Ties in y, repeated x (the tick axis repeats x across frames with
        // no tick) and points outside the range, against the definition.
        let reference = |points: &[PlotPoint], (lo, hi): (f64, f64)| {
            let mut v: Vec<PlotPoint> = points
                .iter()
                .copied()
                .filter(|p| (lo..=hi).contains(&p.x))
                .collect();
            v.sort_by(|a, b| b.y.total_cmp(&a.y));
            v.dedup_by(|a, b| a.x == b.x);
            v.truncate(WORST_FRAMES);
            v
        };
        let mut out = Vec::new();
        for (n, repeat) in [(5usize, 1u64), (40, 1), (300, 1), (300, 7), (300, 300)] {
            let points: Vec<PlotPoint> = (0..n as u64)
                .map(|i| PlotPoint::new((i / repeat) as f64, ((i * 7919) % 13) as f64))
                .collect();
            for range in [(0.0, 1e9), (3.0, 200.0)] {
                worst_frames(&points, range, &mut out);
                assert_eq!(out, reference(&points, range), "n {n} repeat {repeat}");
            }
        }
    }

    #[test]
    fn decimate_adds_the_neighbours_outside_the_range() {
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0];
        let ys = [7.0, 1.0, 2.0, 3.0, 8.0];
        // Range 1..3 in 2 columns: [1,2) holds x=1, [2,3] holds x=2,3.
        let out = decimate(&xs, &ys, (1.0, 3.0), 2);
        assert_eq!(
            out,
            vec![[0.0, 7.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 8.0]]
        );
    }
}
