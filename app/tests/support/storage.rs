//! eframe storage in a file, as the real editor keeps it between runs, and
//! the editor started on it: what a restart reads back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use stepframe_app::editor::{Editor, EditorConfig};

use super::editor::{DEFAULT_SIZE, DT};

/// The key eframe keeps egui's memory under (`epi_integration`'s
/// `STORAGE_EGUI_MEMORY_KEY`, which it does not export).
const EGUI_MEMORY_KEY: &str = "egui";

/// eframe storage in a JSON file.
#[derive(Debug)]
pub struct FileStorage {
    path: PathBuf,
    values: BTreeMap<String, String>,
}

impl FileStorage {
    /// The storage in `path` (empty if there is none yet).
    pub fn open(path: &Path) -> FileStorage {
        let values = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        FileStorage {
            path: path.to_path_buf(),
            values,
        }
    }
}

impl eframe::Storage for FileStorage {
    fn get_string(&self, key: &str) -> Option<String> {
        self.values.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.values.insert(key.to_string(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.values.remove(key);
    }
    fn flush(&mut self) {
        let text = serde_json::to_string(&self.values).expect("serialisable");
        std::fs::write(&self.path, text).expect("write the storage file");
    }
}

/// The editor on `scene` at the default size, started on the storage in
/// `file` as eframe starts an app: egui's memory (scroll offsets, open
/// popups) restored first, then the app's own settings.
pub fn editor_with_storage(scene: PathBuf, file: &Path) -> Harness<'static, Editor> {
    let storage: &'static FileStorage = Box::leak(Box::new(FileStorage::open(file)));
    let mut h = Harness::builder()
        .with_size(DEFAULT_SIZE)
        .with_step_dt(DT as f32)
        .build_eframe(move |cc| {
            if let Some(memory) = eframe::get_value::<egui::Memory>(storage, EGUI_MEMORY_KEY) {
                cc.egui_ctx.memory_mut(|m| *m = memory);
            }
            cc.storage = Some(storage);
            Editor::new(cc, EditorConfig::driven(scene, DT)).expect("the editor starts")
        });
    h.run_steps(3);
    h
}

/// What eframe writes when the editor closes: the app's settings and egui's
/// memory.
pub fn save(h: &mut Harness<'_, Editor>, file: &Path) {
    let mut storage = FileStorage::open(file);
    eframe::App::save(h.state_mut(), &mut storage);
    let memory = h.ctx.memory(|m| m.clone());
    eframe::set_value(&mut storage, EGUI_MEMORY_KEY, &memory);
    eframe::Storage::flush(&mut storage);
}

/// The app's own settings saved into `file` (what `App::save` writes,
/// without egui's memory), and the storage read back from the file.
pub fn save_settings(h: &mut Harness<'_, Editor>, file: &Path) -> FileStorage {
    let mut storage = FileStorage::open(file);
    eframe::App::save(h.state_mut(), &mut storage);
    eframe::Storage::flush(&mut storage);
    FileStorage::open(file)
}

/// `text` stored under `key` in `file`, as an earlier run or a hand edit
/// left it.
pub fn store(file: &Path, key: &str, text: &str) {
    let mut storage = FileStorage::open(file);
    eframe::Storage::set_string(&mut storage, key, text.to_string());
    eframe::Storage::flush(&mut storage);
}
