//! Frame deltas: where a headless run's outer frames get their raw dt.
//!
//! One home for every driver that makes up frames (the player, `check`, the
//! soak, the editor worker's irregular mode): a fixed rate, a fixed-seed
//! irregular sequence, or a file of deltas, with stalls that replace single
//! frames. The irregular sequence is uniform on [4 ms, 40 ms) (a display
//! between 250 Hz and 25 Hz) from [`crate::Rng`]; `irregular:7` gives the
//! same deltas on every machine, so a failing pacing can be run again.
//!
//! A stall replaces a frame's delta but still consumes the base delta, so
//! the frames after it are the same as without it: `50 Hz` with `2:1.0` gives
//! 0.02, 1.0, 0.02 s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::behaviour::Rng;

/// Where frame deltas come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Pacing {
    /// A fixed display rate, Hz.
    Rate(f64),
    /// Pseudo-random deltas between 4 and 40 ms from a seed.
    Irregular(u64),
    /// One delta in seconds per line of a file.
    File(PathBuf),
}

impl FromStr for Pacing {
    type Err = PacingSyntax;
    fn from_str(s: &str) -> Result<Pacing, PacingSyntax> {
        if let Some(seed) = s.strip_prefix("irregular:") {
            return seed
                .parse()
                .map(Pacing::Irregular)
                .map_err(|_| PacingSyntax::Seed(seed.to_string()));
        }
        if let Some(path) = s.strip_prefix("file:") {
            if path.is_empty() {
                return Err(PacingSyntax::NoPath);
            }
            return Ok(Pacing::File(PathBuf::from(path)));
        }
        match s.parse::<f64>() {
            Ok(hz) if hz.is_finite() && hz > 0.0 => Ok(Pacing::Rate(hz)),
            _ => Err(PacingSyntax::Pacing(s.to_string())),
        }
    }
}

/// Why a `--pacing` or `--stall` value (or the editor's pacing field) does
/// not parse: the text as given, and what was expected instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PacingSyntax {
    /// `irregular:` followed by something that is not an integer.
    #[error("`{0}`: expected an integer seed, as in irregular:3")]
    Seed(String),
    /// `file:` with nothing after it.
    #[error("expected a path after file:")]
    NoPath,
    /// Neither a positive rate nor one of the prefixed forms.
    #[error("`{0}`: expected a rate in Hz (60), irregular:<seed> or file:<path>")]
    Pacing(String),
    /// A stall that is not `<frame>:<seconds>`.
    #[error("`{0}`: expected <frame>:<seconds>, as in 30:1.0")]
    Stall(String),
    /// A stall at frame 0, or of a negative or non-finite length.
    #[error("`{0}`: frames count from 1 and the stall must be a non-negative number of seconds")]
    StallValue(String),
}

impl std::fmt::Display for Pacing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pacing::Rate(hz) => write!(f, "{hz} Hz"),
            Pacing::Irregular(seed) => write!(f, "irregular:{seed}"),
            Pacing::File(path) => write!(f, "file:{}", path.display()),
        }
    }
}

/// One frame whose delta is replaced by a hitch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stall {
    /// One-based frame of the run.
    pub frame: u64,
    /// The frame's raw delta, seconds.
    pub seconds: f64,
}

impl FromStr for Stall {
    type Err = PacingSyntax;
    fn from_str(s: &str) -> Result<Stall, PacingSyntax> {
        let bad = || PacingSyntax::Stall(s.to_string());
        let (frame, seconds) = s.split_once(':').ok_or_else(bad)?;
        let frame: u64 = frame.trim().parse().map_err(|_| bad())?;
        let seconds: f64 = seconds.trim().parse().map_err(|_| bad())?;
        if frame == 0 || !seconds.is_finite() || seconds < 0.0 {
            return Err(PacingSyntax::StallValue(s.to_string()));
        }
        Ok(Stall { frame, seconds })
    }
}

/// Shortest frame delta of the irregular pacing, seconds (a 250 Hz display).
const IRREGULAR_MIN_DT: f64 = 0.004;
/// Longest frame delta of the irregular pacing, seconds (a 25 Hz hitchy display).
const IRREGULAR_MAX_DT: f64 = 0.040;

/// Produces the raw delta of every frame of a run, in order.
#[derive(Clone, Debug)]
pub struct FramePacer {
    /// The pacing as the user wrote it (`144 Hz`, `file:dts.txt`), for messages.
    label: String,
    /// The base sequence.
    kind: PacerKind,
    /// Replacement deltas by one-based frame.
    stalls: BTreeMap<u64, f64>,
    /// A stall every so many frames: `(period, seconds)`.
    every: Option<(u64, f64)>,
    /// Frames handed out so far.
    frame: u64,
}

#[derive(Clone, Debug)]
enum PacerKind {
    Rate(f64),
    Irregular(Rng),
    File(Vec<f64>),
}

impl FramePacer {
    /// A pacer; `file:` pacings read their file now (errors name line and column).
    pub fn new(pacing: &Pacing, stalls: &[Stall]) -> Result<FramePacer, PacingError> {
        let kind = match pacing {
            Pacing::Rate(hz) => PacerKind::Rate(1.0 / hz),
            Pacing::Irregular(seed) => PacerKind::Irregular(Rng::new(*seed)),
            Pacing::File(path) => PacerKind::File(read_dt_file(path)?),
        };
        Ok(FramePacer {
            label: pacing.to_string(),
            kind,
            stalls: stalls.iter().map(|s| (s.frame, s.seconds)).collect(),
            every: None,
            frame: 0,
        })
    }

    /// The seeded irregular sequence, no stalls (it reads no file, so it
    /// cannot fail).
    pub fn irregular(seed: u64) -> FramePacer {
        FramePacer {
            label: Pacing::Irregular(seed).to_string(),
            kind: PacerKind::Irregular(Rng::new(seed)),
            stalls: BTreeMap::new(),
            every: None,
            frame: 0,
        }
    }

    /// Adds a stall of `seconds` every `period` frames (frames `period`,
    /// `2 × period`...): the editor's irregular pacing hitches every 64
    /// frames, so the step cap and dropped time show on its timeline.
    pub fn with_stall_every(mut self, period: u64, seconds: f64) -> FramePacer {
        self.every = Some((period.max(1), seconds));
        self
    }

    /// The pacing as the user wrote it (`144 Hz`, `file:dts.txt`), for
    /// messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Number of deltas in a `file:` pacing (its natural run length).
    pub fn file_len(&self) -> Option<u64> {
        match &self.kind {
            PacerKind::File(dts) => Some(dts.len() as u64),
            _ => None,
        }
    }

    /// The longest delta of the base sequence (stalls aside), seconds: what
    /// decides whether frames can add time at all.
    pub fn longest_dt(&self) -> f64 {
        match &self.kind {
            PacerKind::Rate(dt) => *dt,
            PacerKind::Irregular(_) => IRREGULAR_MAX_DT,
            PacerKind::File(dts) => dts.iter().copied().fold(0.0, f64::max),
        }
    }

    /// The next frame's raw delta, seconds. A stalled frame still consumes its
    /// base delta, so the frames after a stall are the same as without it.
    pub fn next_dt(&mut self) -> f64 {
        let index = self.frame;
        self.frame += 1;
        let base = match &mut self.kind {
            PacerKind::Rate(dt) => *dt,
            PacerKind::Irregular(rng) => {
                let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                IRREGULAR_MIN_DT + (IRREGULAR_MAX_DT - IRREGULAR_MIN_DT) * unit
            }
            PacerKind::File(dts) => dts[(index % dts.len() as u64) as usize],
        };
        let periodic = self
            .every
            .and_then(|(period, seconds)| self.frame.is_multiple_of(period).then_some(seconds));
        self.stalls
            .get(&self.frame)
            .copied()
            .or(periodic)
            .unwrap_or(base)
    }
}

/// Why a file of frame deltas could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PacingError {
    /// The file could not be read.
    #[error("{}: {message}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// What the OS said.
        message: String,
    },
    /// A line is not a delta.
    #[error(
        "{}:{line}:{column}: expected a frame delta in seconds (like 0.016667), found `{found}`",
        file.display()
    )]
    Parse {
        /// The file.
        file: PathBuf,
        /// One-based line.
        line: usize,
        /// One-based column.
        column: usize,
        /// The text found there.
        found: String,
    },
    /// No delta at all.
    #[error("{}: expected at least one frame delta in seconds", file.display())]
    Empty {
        /// The file.
        file: PathBuf,
    },
}

/// Reads one delta (seconds) per line; blank lines and `#` comments are skipped.
fn read_dt_file(path: &Path) -> Result<Vec<f64>, PacingError> {
    let text = std::fs::read_to_string(path).map_err(|e| PacingError::Io {
        file: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut dts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("");
        let trimmed = content.trim();
        if trimmed.is_empty() {
            continue;
        }
        let column = 1 + content.len() - content.trim_start().len();
        match trimmed.parse::<f64>() {
            Ok(dt) if dt.is_finite() && dt >= 0.0 => dts.push(dt),
            _ => {
                return Err(PacingError::Parse {
                    file: path.to_path_buf(),
                    line: i + 1,
                    column,
                    found: trimmed.to_string(),
                });
            }
        }
    }
    if dts.is_empty() {
        return Err(PacingError::Empty {
            file: path.to_path_buf(),
        });
    }
    Ok(dts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_parses_the_three_forms() {
        assert_eq!("144".parse::<Pacing>(), Ok(Pacing::Rate(144.0)));
        assert_eq!("irregular:3".parse::<Pacing>(), Ok(Pacing::Irregular(3)));
        assert_eq!(
            "file:dts.txt".parse::<Pacing>(),
            Ok(Pacing::File(PathBuf::from("dts.txt")))
        );
        assert!("fast".parse::<Pacing>().is_err());
        assert!("0".parse::<Pacing>().is_err());
        assert!("irregular:x".parse::<Pacing>().is_err());
    }

    #[test]
    fn stall_parses_frame_and_seconds() {
        assert_eq!(
            "30:1.5".parse::<Stall>(),
            Ok(Stall {
                frame: 30,
                seconds: 1.5
            })
        );
        assert!("0:1".parse::<Stall>().is_err());
        assert!("30".parse::<Stall>().is_err());
        assert!("30:-1".parse::<Stall>().is_err());
    }

    #[test]
    fn a_stall_replaces_one_frame_and_keeps_the_rest() {
        let stall = Stall {
            frame: 2,
            seconds: 1.0,
        };
        let mut pacer = FramePacer::new(&Pacing::Rate(50.0), &[stall]).expect("pacer");
        let dts: Vec<f64> = (0..3).map(|_| pacer.next_dt()).collect();
        assert_eq!(dts, vec![0.02, 1.0, 0.02]);
    }

    #[test]
    fn a_periodic_stall_hits_every_nth_frame() {
        let mut pacer = FramePacer::new(&Pacing::Rate(50.0), &[])
            .expect("pacer")
            .with_stall_every(3, 0.15);
        let dts: Vec<f64> = (0..7).map(|_| pacer.next_dt()).collect();
        assert_eq!(dts, vec![0.02, 0.02, 0.15, 0.02, 0.02, 0.15, 0.02]);
    }

    #[test]
    fn irregular_pacing_is_deterministic_and_in_range() {
        let mut a = FramePacer::new(&Pacing::Irregular(7), &[]).expect("pacer");
        let mut b = FramePacer::new(&Pacing::Irregular(7), &[]).expect("pacer");
        let mut c = FramePacer::new(&Pacing::Irregular(8), &[]).expect("pacer");
        let xs: Vec<f64> = (0..1000).map(|_| a.next_dt()).collect();
        let ys: Vec<f64> = (0..1000).map(|_| b.next_dt()).collect();
        let zs: Vec<f64> = (0..1000).map(|_| c.next_dt()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        assert!(xs.iter().all(|&dt| (0.004..0.040).contains(&dt)));
        // Uniform on [4, 40) ms: the mean of 1000 draws is 22 ms within a few sigma
        // (sigma of the mean = 36 / sqrt(12 * 1000) ms, about 0.33 ms).
        let mean = xs.iter().sum::<f64>() / 1000.0;
        assert!((mean - 0.022).abs() < 0.0015, "mean {mean}");
    }

    #[test]
    fn dt_files_report_line_and_column() {
        let dir = std::env::temp_dir().join(format!("stepframe-pacing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("dts.txt");
        std::fs::write(&path, "# deltas\n0.016\n\n  oops\n").expect("write");
        let err = read_dt_file(&path).expect_err("bad line").to_string();
        assert!(
            err.ends_with(
                "dts.txt:4:3: expected a frame delta in seconds (like 0.016667), found `oops`"
            ),
            "{err}"
        );
        std::fs::write(&path, "0.01\n0.02 # slow\n").expect("write");
        let mut pacer = FramePacer::new(&Pacing::File(path.clone()), &[]).expect("pacer");
        assert_eq!(pacer.file_len(), Some(2));
        let dts: Vec<f64> = (0..3).map(|_| pacer.next_dt()).collect();
        assert_eq!(dts, vec![0.01, 0.02, 0.01]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
