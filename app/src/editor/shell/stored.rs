//! The settings eframe keeps between runs (the toolbar's and viewport's
//! choices, the timeline's, the watches), read so that a stored value that
//! does not read is never silently replaced: the editor starts with the
//! default, says why in a notice, and does not write that key back, so the
//! text stays for the version that wrote it (the layout is treated the same
//! way, in [`crate::editor::workspace`]).

use std::collections::BTreeSet;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The keys whose stored text did not read this run, and why.
#[derive(Debug, Default)]
pub(super) struct Unread {
    keys: BTreeSet<&'static str>,
    /// One line per key that did not read, for the start-up notice.
    pub(super) why: Vec<String>,
}

impl Unread {
    /// Reads `key`: the stored value, or the default when there is none or
    /// when its text does not read (then `key` is kept, with why).
    pub(super) fn read<T: DeserializeOwned + Default>(
        &mut self,
        storage: Option<&dyn eframe::Storage>,
        key: &'static str,
    ) -> T {
        let Some(text) = storage.and_then(|s| s.get_string(key)) else {
            return T::default();
        };
        match ron::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                self.keys.insert(key);
                self.why.push(format!("{key}: {e}"));
                T::default()
            }
        }
    }

    /// Writes `value` under `key`, unless the stored text of `key` was kept.
    pub(super) fn write<T: Serialize>(
        &self,
        storage: &mut dyn eframe::Storage,
        key: &'static str,
        value: &T,
    ) {
        if !self.keys.contains(key) {
            eframe::set_value(storage, key, value);
        }
    }
}
