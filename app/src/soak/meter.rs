//! Resident memory, measured: [`resident_kib`] reads it from procfs,
//! [`Meter`] samples it every [`SAMPLE_EVERY`] ticks, takes the baseline when
//! warm-up ends and keeps the largest sample after it, and fills the
//! summary's memory figures. [`ring_walked_after`] and [`telemetry_walked`]
//! say when a ring has been written all the way round, which is when its
//! resident size stops growing (see the soak's module docs, warm-up).

use std::io::Write;
use std::time::Instant;

use stepframe_core::Telemetry;

use super::SoakSummary;

/// Ticks between two resident-memory samples.
pub(super) const SAMPLE_EVERY: u64 = 1_000;

/// Resident memory of this process, KiB: `(VmRSS, VmHWM)` from
/// `/proc/self/status`. `None` where there is no procfs.
pub fn resident_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// KiB as MiB, for printing.
pub(super) fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Pushes after which a ring of at most `len` entries has written every slot
/// it can own: a `VecDeque` doubles as it grows, so it owns fewer than
/// `2 × len` slots (see the module docs, warm-up).
pub(super) fn ring_walked_after(len: u64) -> u64 {
    2 * len
}

/// Whether a telemetry ring is full and has been written all the way round
/// its allocated slots (which a `VecDeque` rounds up past its bound).
pub(super) fn telemetry_walked(telemetry: &Telemetry) -> bool {
    telemetry.len() == telemetry.capacity()
        && telemetry.pushed() >= telemetry.records().capacity() as u64
}

/// Memory bookkeeping shared by both modes.
#[derive(Debug)]
pub(super) struct Meter {
    warmup_tick: u64,
    rss_warmup: u64,
    rss_max_after: u64,
    rss_last: u64,
    peak: u64,
    next_sample: u64,
    next_report: u64,
    report_every: u64,
    started: Instant,
}

impl Meter {
    pub(super) fn new(report_every: u64) -> Meter {
        Meter {
            warmup_tick: 0,
            rss_warmup: 0,
            rss_max_after: 0,
            rss_last: 0,
            peak: 0,
            next_sample: 0,
            next_report: report_every.max(1),
            report_every: report_every.max(1),
            started: Instant::now(),
        }
    }

    /// Samples when due; ends warm-up when `warm` first holds. `describe`
    /// says what the buffers hold, for progress lines.
    pub(super) fn tick(&mut self, tick: u64, warm: bool, describe: impl FnOnce() -> String) {
        let end_warmup = warm && self.warmup_tick == 0;
        let report = tick >= self.next_report;
        if tick < self.next_sample && !end_warmup && !report {
            return;
        }
        self.next_sample = tick + SAMPLE_EVERY;
        let Some((rss, hwm)) = resident_kib() else {
            return;
        };
        self.rss_last = rss;
        self.peak = hwm;
        if end_warmup {
            self.warmup_tick = tick.max(1);
            self.rss_warmup = rss;
            self.rss_max_after = rss;
            println!(
                "warm-up ended at tick {tick}: every buffer full and written round; resident {:.1} MiB",
                mib(rss)
            );
        } else if self.warmup_tick > 0 {
            self.rss_max_after = self.rss_max_after.max(rss);
        }
        if report {
            self.next_report = tick + self.report_every;
            let secs = self.started.elapsed().as_secs_f64();
            println!(
                "tick {tick}: resident {:.1} MiB, {}, {:.0} ticks/s",
                mib(rss),
                describe(),
                tick as f64 / secs.max(1e-9)
            );
            let _ = std::io::stdout().flush();
        }
    }

    pub(super) fn finish(&mut self, summary: &mut SoakSummary, max_growth_mib: f64) {
        if let Some((rss, hwm)) = resident_kib() {
            self.rss_last = rss;
            self.peak = hwm;
            if self.warmup_tick > 0 {
                self.rss_max_after = self.rss_max_after.max(rss);
            }
        }
        let seconds = self.started.elapsed().as_secs_f64();
        summary.seconds = seconds;
        summary.ticks_per_second = summary.ticks as f64 / seconds.max(1e-9);
        summary.warmup_tick = self.warmup_tick;
        summary.rss_warmup_kib = self.rss_warmup;
        summary.rss_end_kib = self.rss_last;
        summary.rss_max_after_warmup_kib = self.rss_max_after;
        summary.growth_kib = self.rss_max_after.saturating_sub(self.rss_warmup);
        summary.bound_kib = (max_growth_mib.max(0.0) * 1024.0) as u64;
        // VmHWM is updated lazily by the kernel; a later VmRSS sample can exceed it.
        summary.rss_peak_kib = self.peak.max(self.rss_max_after);
    }
}
