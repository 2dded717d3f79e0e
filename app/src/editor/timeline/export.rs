//! Export: a range of frame records (the Shift+drag selection, else the
//! visible range) written as a Chrome trace for Perfetto or as CSV. Each format
//! has its own path field, named after the scene until the user types in it
//! (typed paths persist), whose extension is the format's; the file is written
//! atomically (a temporary file renamed into place), an existing file is only
//! replaced after a second click, and the full path written goes to the log and
//! to a notice.

use std::path::{Path, PathBuf};

use stepframe_core::{FrameRecord, ZoneRing};

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Chrome trace JSON (Perfetto, chrome://tracing).
    ChromeTrace,
    /// Comma-separated values, one row per frame.
    Csv,
}

impl ExportFormat {
    /// Both formats, in the order the controls show them.
    pub const ALL: [ExportFormat; 2] = [ExportFormat::ChromeTrace, ExportFormat::Csv];

    /// The file extension the format's files must have.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::ChromeTrace => "json",
            ExportFormat::Csv => "csv",
        }
    }

    /// The control's label.
    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::ChromeTrace => "Chrome trace (.json)",
            ExportFormat::Csv => "CSV (.csv)",
        }
    }
}

/// The export controls' state: one path per format, and the file a first
/// click found already there.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportState {
    /// Path fields, in [`ExportFormat::ALL`] order; empty until a default is
    /// proposed for the session's scene.
    pub paths: [String; 2],
    /// The defaults last proposed, in the same order: a field that still
    /// holds its proposal follows the scene (Open, or the first view naming
    /// it), a field the user typed in is left alone.
    pub proposed: [String; 2],
    /// A file that exists and would be replaced by the next click on its
    /// format's button.
    pub confirm_overwrite: Option<PathBuf>,
}

impl ExportState {
    /// The path field of a format.
    pub fn path_mut(&mut self, format: ExportFormat) -> &mut String {
        &mut self.paths[format as usize]
    }

    /// Proposes a default next to the working directory, named after the
    /// scene (`demo-timeline.json`, `demo-timeline.csv`; `stepframe-…` while
    /// no scene is known), in every field that is empty or still holds the
    /// last proposal.
    pub fn propose(&mut self, scene: Option<&Path>) {
        let stem = scene
            .and_then(|s| s.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "stepframe".to_string());
        let dir = std::env::current_dir().unwrap_or_default();
        for format in ExportFormat::ALL {
            let i = format as usize;
            let proposal = dir
                .join(format!("{stem}-timeline.{}", format.extension()))
                .display()
                .to_string();
            let field = &mut self.paths[i];
            if field.trim().is_empty() || *field == self.proposed[i] {
                field.clone_from(&proposal);
            }
            self.proposed[i] = proposal;
        }
    }

    /// The paths the user typed, to keep between runs (a field holding the
    /// proposal is not kept: next run proposes one for its own scene).
    pub fn typed(&self) -> [Option<String>; 2] {
        std::array::from_fn(|i| {
            let field = &self.paths[i];
            (!field.trim().is_empty() && *field != self.proposed[i]).then(|| field.clone())
        })
    }

    /// Puts back the paths a previous run kept.
    pub fn restore(&mut self, typed: &[Option<String>; 2]) {
        for (field, kept) in self.paths.iter_mut().zip(typed) {
            if let Some(path) = kept {
                field.clone_from(path);
            }
        }
    }
}

/// The file a path field names, made absolute, with the format's extension
/// in place of any other (`run.txt` → `run.csv`) or added to a name without.
pub fn export_path(field: &str, format: ExportFormat) -> PathBuf {
    let mut path = std::path::absolute(Path::new(field.trim()))
        .unwrap_or_else(|_| PathBuf::from(field.trim()));
    if path.extension().and_then(|e| e.to_str()) != Some(format.extension()) {
        path.set_extension(format.extension());
    }
    path
}

/// Writes `records` to `path` in `format`, atomically. The Chrome trace
/// lays out each frame whose live flame zones `zones` still holds from
/// those zones (the Flame tab's, at their measured starts and lengths).
/// Returns how many records it wrote.
pub fn write<'a>(
    records: impl Iterator<Item = &'a FrameRecord> + Clone,
    zones: &ZoneRing,
    path: &Path,
    format: ExportFormat,
) -> std::io::Result<usize> {
    let n = records.clone().count();
    stepframe_core::atomic_file::write_with(path, |file| match format {
        ExportFormat::ChromeTrace => {
            stepframe_core::export::chrome_trace_with_zones(records, zones, file)
        }
        ExportFormat::Csv => stepframe_core::export::csv(records, file),
    })?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_gets_its_formats_extension_in_place_of_another() {
        let p = export_path("/tmp/run", ExportFormat::Csv);
        assert_eq!(p, PathBuf::from("/tmp/run.csv"));
        let p = export_path("/tmp/run.csv", ExportFormat::ChromeTrace);
        assert_eq!(p, PathBuf::from("/tmp/run.json"));
        let p = export_path("/tmp/frames.txt", ExportFormat::Csv);
        assert_eq!(p, PathBuf::from("/tmp/frames.csv"));
        let p = export_path("/tmp/run.json", ExportFormat::ChromeTrace);
        assert_eq!(p, PathBuf::from("/tmp/run.json"));
        assert!(export_path("relative.csv", ExportFormat::Csv).is_absolute());
    }
}
