//! The per-frame telemetry files (`--telemetry`): one row per frame, in
//! JSON Lines or CSV, both written from one column table ([`TELEMETRY_COLUMNS`]
//! names its columns), so the two formats cannot drift apart.

use super::*;

/// Which text form telemetry takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TelemetryFormat {
    /// One JSON object per line.
    JsonLines,
    /// A header line, then comma-separated values.
    Csv,
}

impl TelemetryFormat {
    /// CSV for a `.csv` file, JSON Lines for anything else.
    pub fn for_path(path: &Path) -> TelemetryFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("csv") => TelemetryFormat::Csv,
            _ => TelemetryFormat::JsonLines,
        }
    }
}

/// One telemetry value, as both formats write it.
enum Cell<'a> {
    /// A count.
    Int(u64),
    /// A float, shortest round trip.
    Float(f64),
    /// FixedUpdate time per priority: `{"-10":0.1,"0":0.2}` in JSON Lines,
    /// `-10=0.1;0=0.2` in CSV.
    ByPriority(&'a crate::report::PriorityTimes),
}

/// A telemetry column: its name and how a frame's value is read.
struct Column {
    name: &'static str,
    value: for<'a> fn(&'a FrameReport, &Clock) -> Cell<'a>,
}

const fn col(name: &'static str, value: for<'a> fn(&'a FrameReport, &Clock) -> Cell<'a>) -> Column {
    Column { name, value }
}

/// The telemetry columns, in order: the one table both formats and the CSV
/// header are written from (a new column is one line here).
const COLUMNS: [Column; 15] = [
    col("frame", |r, _| Cell::Int(r.frame_index)),
    col("delta_time", |r, _| Cell::Float(r.delta_time)),
    col("frame_time", |_, c| Cell::Float(c.frame_time)),
    col("ticks", |r, _| Cell::Int(u64::from(r.ticks))),
    col("simulation_tick", |_, c| Cell::Int(c.simulation_tick)),
    col("simulation_time", |_, c| Cell::Float(c.simulation_time)),
    col("accumulator", |r, _| Cell::Float(r.accumulator_after)),
    col("interpolation_alpha", |_, c| {
        Cell::Float(c.interpolation_alpha)
    }),
    col("dropped_time", |_, c| Cell::Float(c.dropped_time)),
    col("fixed_ms_by_priority", |r, _| {
        Cell::ByPriority(&r.timing.fixed_by_priority)
    }),
    col("physics_ms", |r, _| Cell::Float(r.timing.physics_ms)),
    col("update_ms", |r, _| Cell::Float(r.timing.update_ms)),
    col("fixed_ms", |r, _| Cell::Float(r.timing.fixed_ms)),
    col("flow_ms", |r, _| Cell::Float(r.timing.flow_ms)),
    col("present_ms", |r, _| Cell::Float(r.timing.present_ms)),
];

/// The telemetry columns, in order (also the CSV header).
pub const TELEMETRY_COLUMNS: [&str; 15] = {
    let mut names = [""; 15];
    let mut i = 0;
    while i < names.len() {
        names[i] = COLUMNS[i].name;
        i += 1;
    }
    names
};

/// Writes one telemetry record per outer frame (see the module docs).
#[derive(Debug)]
pub struct TelemetryWriter<W: Write> {
    /// Where lines go.
    out: W,
    /// JSON Lines or CSV.
    format: TelemetryFormat,
    /// The reused line buffer.
    line: String,
    /// Whether the CSV header is out.
    header_written: bool,
}

impl<W: Write> TelemetryWriter<W> {
    /// A writer in the given format (give it a buffered output).
    pub fn new(out: W, format: TelemetryFormat) -> TelemetryWriter<W> {
        TelemetryWriter {
            out,
            format,
            line: String::with_capacity(512),
            header_written: false,
        }
    }

    /// Writes the record of one `step_frame` call: its report and the clock
    /// after it.
    pub fn write_frame(&mut self, report: &FrameReport, clock: &Clock) -> io::Result<()> {
        self.line.clear();
        let line = &mut self.line;
        if self.format == TelemetryFormat::Csv && !self.header_written {
            line.push_str(&TELEMETRY_COLUMNS.join(","));
            line.push('\n');
            self.header_written = true;
        }
        let json = self.format == TelemetryFormat::JsonLines;
        line.push_str(if json { "{" } else { "" });
        for (i, column) in COLUMNS.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            if json {
                let _ = write!(line, "\"{}\":", column.name);
            }
            match (column.value)(report, clock) {
                Cell::Int(n) => {
                    let _ = write!(line, "{n}");
                }
                Cell::Float(v) => push_f64(line, v),
                Cell::ByPriority(by) => {
                    line.push_str(if json { "{" } else { "" });
                    for (k, (priority, ms)) in by.iter().enumerate() {
                        if k > 0 {
                            line.push(if json { ',' } else { ';' });
                        }
                        if json {
                            let _ = write!(line, "\"{}\":", priority.0);
                        } else {
                            let _ = write!(line, "{}=", priority.0);
                        }
                        push_f64(line, ms);
                    }
                    line.push_str(if json { "}" } else { "" });
                }
            }
        }
        line.push_str(if json { "}\n" } else { "\n" });
        self.out.write_all(self.line.as_bytes())
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The output (for in-memory telemetry).
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}
