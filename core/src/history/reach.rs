//! [`RewindReach`]: how far back a byte-bounded history reaches, as the
//! editor shows it.

/// How far back rewind reaches and what that costs (see [`History::reach`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RewindReach {
    /// Simulated seconds between the oldest keyframe and the live tick.
    pub seconds: f64,
    /// Bytes the history holds (keyframes and call log).
    pub bytes: usize,
    /// The byte budget, if the history has one.
    pub budget: Option<usize>,
    /// Frames between keyframes now (doubles as the budget fills).
    pub keyframe_every: u64,
}

impl std::fmt::Display for RewindReach {
    /// "rewind reaches 9 min 40 s in 256 MiB" (the budget), or "... (12.5 MiB)"
    /// (what it holds) without one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let total = self.seconds.max(0.0).floor() as u64;
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
        f.write_str("rewind reaches ")?;
        if h > 0 {
            write!(f, "{h} h {m} min")?;
        } else if m > 0 {
            write!(f, "{m} min {s} s")?;
        } else {
            write!(f, "{s} s")?;
        }
        let mib = |b: usize| b as f64 / f64::from(1u32 << 20);
        match self.budget {
            Some(b) => write!(f, " in {} MiB", mib(b).round()),
            None => write!(f, " ({:.1} MiB)", mib(self.bytes)),
        }
    }
}
