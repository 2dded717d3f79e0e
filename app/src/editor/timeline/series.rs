//! The values the lanes plot, one array per frame record: the bottom of the
//! timeline's modules, which the block summaries, the decimation and the
//! drawing all read.

use stepframe_core::FrameRecord;

/// Indices into a record's series values ([`series_values`]).
pub(super) const SERIES_DT: usize = 0;
pub(super) const SERIES_ACC_BEFORE: usize = 1;
pub(super) const SERIES_ACC_AFTER: usize = 2;
pub(super) const SERIES_ALPHA: usize = 3;
pub(super) const SERIES_TICKS: usize = 4;
pub(super) const SERIES_DROPPED: usize = 5;
/// `ticks` where the cap dropped backlog, -1 elsewhere (markers keep y ≥ 0).
pub(super) const SERIES_DROPPED_MARK: usize = 6;
pub(super) const SERIES_PHYSICS: usize = 7;
pub(super) const SERIES_FIRST_PRIORITY: usize = 8;

/// Series values kept per record: the fixed series plus every priority slot.
pub(super) const SERIES: usize =
    SERIES_FIRST_PRIORITY + stepframe_core::telemetry::RECORD_PRIORITIES;

/// Every series value of a record, in `SERIES_*` order; priority slot `s` is
/// the sum of slots `0..=s` (stacked).
pub(super) fn series_values(r: &FrameRecord) -> [f64; SERIES] {
    let mut v = [0.0; SERIES];
    v[SERIES_DT] = r.delta_time * 1000.0;
    v[SERIES_ACC_BEFORE] = r.accumulator_before * 1000.0;
    v[SERIES_ACC_AFTER] = r.accumulator_after * 1000.0;
    v[SERIES_ALPHA] = f64::from(r.interpolation_alpha);
    v[SERIES_TICKS] = f64::from(r.ticks);
    v[SERIES_DROPPED] = r.dropped_time;
    v[SERIES_DROPPED_MARK] = if r.dropped_this_frame > 0.0 {
        f64::from(r.ticks)
    } else {
        -1.0
    };
    v[SERIES_PHYSICS] = f64::from(r.physics_ms);
    let mut sum = 0.0;
    for (s, p) in r.by_priority.iter().enumerate() {
        if s < usize::from(r.priorities) {
            sum += f64::from(p.1);
        }
        v[SERIES_FIRST_PRIORITY + s] = sum;
    }
    v
}
