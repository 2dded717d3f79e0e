//! `stepframe run --pacing-report`: how evenly the player's frames came,
//! measured by the player itself and printed when the run ends.
//!
//! Each frame's interval is the real time since the one before (the
//! `raw_dt` the frame hands `step_frame`). The report gives their mean,
//! their 99th percentile (nearest rank: of 1,800 intervals, the 1,782nd
//! shortest) and the frames dropped against the display's period: an
//! interval of about k periods means the display showed the frame before
//! k − 1 more times, so it counts k − 1 dropped frames (rounded to the
//! nearest period: at 60 Hz, 16.7 ms counts 0, 33.3 ms 1, 25.1 ms rounds
//! up to 2 periods and counts 1, 24.9 ms rounds down and counts 0).

/// The intervals of every frame of a run.
#[derive(Debug, Default)]
pub struct FramePacing {
    /// Seconds between consecutive frames, in order.
    intervals: Vec<f64>,
}

/// What [`FramePacing::report`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacingReport {
    /// Intervals measured (frames after the first).
    pub frames: usize,
    /// Their sum, seconds.
    pub seconds: f64,
    /// The display period they are measured against, seconds.
    pub period: f64,
    /// Mean interval, seconds.
    pub mean: f64,
    /// 99th percentile interval (nearest rank), seconds.
    pub p99: f64,
    /// Refreshes that showed no new frame (module docs).
    pub dropped: u64,
}

impl FramePacing {
    /// One frame came `interval` seconds after the one before.
    pub fn record(&mut self, interval: f64) {
        self.intervals.push(interval);
    }

    /// The intervals so far against a display refreshing every `period`
    /// seconds.
    pub fn report(&self, period: f64) -> PacingReport {
        let frames = self.intervals.len();
        let seconds: f64 = self.intervals.iter().sum();
        let mut sorted = self.intervals.clone();
        sorted.sort_by(f64::total_cmp);
        let p99 = match frames {
            0 => 0.0,
            n => sorted[(n * 99).div_ceil(100) - 1],
        };
        let dropped = self
            .intervals
            .iter()
            .map(|dt| ((dt / period).round() as u64).saturating_sub(1))
            .sum();
        PacingReport {
            frames,
            seconds,
            period,
            mean: if frames == 0 {
                0.0
            } else {
                seconds / frames as f64
            },
            p99,
            dropped,
        }
    }
}

impl std::fmt::Display for PacingReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pacing: {} frames in {:.1} s against {:.1} Hz ({:.2} ms): mean {:.2} ms, p99 {:.2} ms, {} dropped",
            self.frames,
            self.seconds,
            1.0 / self.period,
            self.period * 1e3,
            self.mean * 1e3,
            self.p99 * 1e3,
            self.dropped
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ60: f64 = 1.0 / 60.0;

    #[test]
    fn even_frames_at_the_display_rate_drop_nothing() {
        let mut p = FramePacing::default();
        for _ in 0..100 {
            p.record(HZ60);
        }
        let r = p.report(HZ60);
        assert_eq!(r.frames, 100);
        assert!((r.mean - HZ60).abs() < 1e-12);
        assert_eq!(r.p99, HZ60);
        assert_eq!(r.dropped, 0);
    }

    #[test]
    fn a_frame_of_three_periods_drops_two_and_sets_the_p99() {
        let mut p = FramePacing::default();
        for _ in 0..99 {
            p.record(0.016);
        }
        // 50 ms at 60 Hz: three periods, the frame before shown twice more.
        p.record(0.050);
        let r = p.report(HZ60);
        assert_eq!(r.dropped, 2);
        // Nearest rank of 100: the 99th shortest, still a 16 ms one; the
        // 50 ms frame is the 100th.
        assert_eq!(r.p99, 0.016);
        assert!((r.mean - (99.0 * 0.016 + 0.050) / 100.0).abs() < 1e-12);
        assert!((r.seconds - 1.634).abs() < 1e-12);
    }

    #[test]
    fn intervals_round_to_the_nearest_period() {
        let mut p = FramePacing::default();
        for dt in [0.0249, 0.0251, 0.0334, 0.008] {
            p.record(dt);
        }
        // 1.49 periods: 0; 1.51: 1; 2.0: 1; 0.48: 0.
        assert_eq!(p.report(HZ60).dropped, 2);
    }

    #[test]
    fn no_frames_report_zeros() {
        let r = FramePacing::default().report(HZ60);
        assert_eq!((r.frames, r.mean, r.p99, r.dropped), (0, 0.0, 0.0, 0));
    }

    #[test]
    fn the_line_reads_in_milliseconds() {
        let mut p = FramePacing::default();
        p.record(HZ60);
        p.record(2.0 * HZ60);
        assert_eq!(
            p.report(HZ60).to_string(),
            "pacing: 2 frames in 0.1 s against 60.0 Hz (16.67 ms): mean 25.00 ms, p99 33.33 ms, 1 dropped"
        );
    }
}
