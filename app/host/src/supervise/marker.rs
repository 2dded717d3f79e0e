//! The fault marker: a temporary file holding a [`HookBeacon`]
//! (`stepframe_core::hook_beacon`, one 4 KiB page), created by the
//! supervisor, mapped by both sides, removed when the supervisor drops it.
//!
//! The child finds it through one environment variable,
//! [`MARKER_ENV`]` = <supervisor's pid>:<path>`. The pid is the guard against
//! inheritance: a child that starts processes of its own (`bench` runs
//! `check` to time it) passes its environment on, and a grandchild whose
//! parent is not the named supervisor ignores the variable instead of
//! writing into a marker someone else watches.

use std::fs::OpenOptions;
use std::path::Path;

use stepframe_core::HookBeacon;

use super::SuperviseError;

/// The environment variable naming a supervised child's fault marker.
pub const MARKER_ENV: &str = "STEPFRAME_FAULT_MARKER";

/// The supervisor's side of a fault marker (module docs).
#[derive(Debug)]
pub struct FaultMarker {
    /// The file; deleted on drop.
    file: tempfile::NamedTempFile,
    /// The beacon mapped from it.
    beacon: HookBeacon,
}

impl FaultMarker {
    /// A new marker in the system's temporary directory, saying no hook runs.
    pub fn create() -> Result<FaultMarker, SuperviseError> {
        let file = tempfile::Builder::new()
            .prefix("stepframe-marker-")
            .suffix(".bin")
            .tempfile()
            .map_err(SuperviseError::Marker)?;
        let beacon = HookBeacon::in_file(file.as_file()).map_err(SuperviseError::Marker)?;
        Ok(FaultMarker { file, beacon })
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The beacon, to read: the call that runs (or ran when the child
    /// died), the last tick, the session's scene.
    pub fn beacon(&self) -> &HookBeacon {
        &self.beacon
    }

    /// The value of [`MARKER_ENV`] for a child of this process.
    pub fn env_value(&self) -> std::ffi::OsString {
        let mut value = std::ffi::OsString::from(format!("{}:", std::process::id()));
        value.push(self.path());
        value
    }
}

/// The child's side: the beacon of the marker [`MARKER_ENV`] names, if this
/// process is the supervised child it was meant for (module docs); `None`
/// when there is no marker for this process. A marker named for this
/// process that cannot be mapped is an error: the supervisor would be
/// watching a marker nobody writes.
pub fn child_beacon() -> Result<Option<HookBeacon>, SuperviseError> {
    let Some(value) = std::env::var_os(MARKER_ENV) else {
        return Ok(None);
    };
    use std::os::unix::ffi::OsStrExt;
    let bytes = value.as_bytes();
    let colon = bytes.iter().position(|b| *b == b':');
    let (pid, path) = match colon {
        Some(at) => (&bytes[..at], std::ffi::OsStr::from_bytes(&bytes[at + 1..])),
        None => {
            return Err(SuperviseError::Env(format!(
                "{MARKER_ENV}={}: expected <pid>:<path>",
                value.to_string_lossy()
            )));
        }
    };
    let pid = std::str::from_utf8(pid)
        .ok()
        .and_then(|p| p.parse::<u32>().ok());
    if pid != Some(std::os::unix::process::parent_id()) {
        return Ok(None);
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(SuperviseError::Marker)?;
    HookBeacon::in_file(&file)
        .map(Some)
        .map_err(SuperviseError::Marker)
}
