//! The CSV export: one header of [`CSV_COLUMNS`], then one line per
//! record with every field of a [`FrameRecord`].

use super::*;

/// The CSV header's columns, in order: every [`FrameRecord`] field.
pub const CSV_COLUMNS: [&str; 20] = [
    "frame_index",
    "kind",
    "suspended",
    "simulation_tick",
    "ticks",
    "delta_time",
    "frame_time",
    "simulation_time",
    "fixed_delta_time",
    "dropped_time",
    "dropped_this_frame",
    "accumulator_before",
    "accumulator_after",
    "interpolation_alpha",
    "update_ms",
    "fixed_ms",
    "physics_ms",
    "flow_ms",
    "present_ms",
    "fixed_ms_by_priority",
];

/// Writes the CSV of `records` (see the module docs): the [`CSV_COLUMNS`]
/// header, then one line per record. The output is buffered internally.
pub fn csv<'a>(
    records: impl Iterator<Item = &'a FrameRecord>,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    let mut line = String::with_capacity(512);
    line.push_str(&CSV_COLUMNS.join(","));
    line.push('\n');
    out.write_all(line.as_bytes())?;
    for r in records {
        line.clear();
        let _ = write!(
            line,
            "{},{},{},{},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},",
            r.frame_index,
            kind_name(r.kind),
            r.suspended,
            r.simulation_tick,
            r.ticks,
            r.delta_time,
            r.frame_time,
            r.simulation_time,
            r.fixed_delta_time,
            r.dropped_time,
            r.dropped_this_frame,
            r.accumulator_before,
            r.accumulator_after,
            r.interpolation_alpha,
            r.update_ms,
            r.fixed_ms,
            r.physics_ms,
            r.flow_ms,
            r.present_ms,
        );
        for (k, (priority, ms)) in r.priorities().iter().enumerate() {
            if k > 0 {
                line.push(';');
            }
            let _ = write!(line, "{priority}={ms:?}");
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    out.flush()
}
