//! Which hook a pipeline is inside right now, readable from another thread or
//! from another process.
//!
//! A hook that panics is caught; a hook that never returns (an endless loop
//! in a Rust behaviour), aborts, overflows its stack or exhausts memory
//! cannot be stopped or caught by anything in the process. What a host can
//! do is notice it from outside and name it: the editor watches its
//! worker's beacon from the UI thread, and a headless run's supervisor
//! watches the beacon of the child process that runs the session, in a file
//! both map ([`HookBeacon::in_file`]). When the same hook call has been
//! running for too long, or the child died, the reader names the object, the
//! behaviour, the hook and the tick.
//!
//! # What a write costs
//!
//! The beacon is written by the one thread that runs the pipeline and read by
//! any other. A write is a few plain atomic stores and no clock read: every
//! announced call gets a new *call number* (odd while the call is being
//! written, even once it is readable). The reader times a call itself: the
//! call it saw first at its time `t` is still running at its time `t + 5 s`
//! if the reading has not changed. So the cost on the worker is the same on
//! any machine and the watchdog's time source is the reader's (injectable in
//! tests).
//!
//! FixedUpdate's packed fast loop (10,000 calls a tick in the dispatch
//! figure, ~2.5 ns each) cannot afford six stores a call. It announces the
//! pass once ([`HookBeacon::enter`]: hook, tick, a new call number), then
//! stores only the object and the behaviour of each call: two relaxed stores
//! into a cache line the thread already owns. A reader then sees the same
//! call number for the whole pass, with the object and behaviour moving on;
//! a stuck call is one whose whole [`HookCall`] (object and behaviour
//! included) stays the same, which is how both the editor and
//! `stepframe-host` compare readings. While calls go on, a reading may pair
//! one call's object with the previous call's behaviour; once a call has run
//! long enough to matter, nothing writes and the reading is exact.
//!
//! # The file
//!
//! [`HookBeacon::in_file`] maps [`HookBeacon::FILE_BYTES`] (one 4 KiB page)
//! of a file shared by every process that maps it: a version tag, the call
//! (call number, object, behaviour, hook, tick), the session journal's
//! length and newest frame ([`HookBeacon::note_journal`]) and the *session
//! label*, the
//! scene file the session came from ([`HookBeacon::announce_session`]), so a
//! reader in another process can load the same scene to name the objects.
//! [`crate::Pipeline::load_session`] clears the label: a world built by hand
//! has none.
//!
//! Installed with [`crate::Pipeline::set_hook_beacon`].

use std::fs::File;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ids::{HookKind, ObjectId};

/// `hook` value when no hook runs.
const OUTSIDE: u64 = u64::MAX;

/// The version tag at the start of a beacon file: "stepfrm" and the layout
/// version (2: the journal's length and last frame). A file with another
/// tag is refused.
const MAGIC: u64 = u64::from_le_bytes(*b"stepfrm\x02");

/// Bytes of session label the file holds (the page less the other words).
const SESSION_BYTES: usize = 4016;

/// `frame_dt` when the newest journal entry is not a frame (the bits of a
/// NaN, which no frame's delta is).
const NOT_A_FRAME: u64 = u64::MAX;

/// One beacon's cells: the layout of the shared file, so `repr(C)`.
#[repr(C)]
#[derive(Debug)]
struct Cells {
    /// [`MAGIC`] once the cells are set up.
    magic: AtomicU64,
    /// Call number: odd while a write is under way.
    call: AtomicU64,
    /// The running hook's object id.
    object: AtomicU64,
    /// The running behaviour's registration number (its cohort entry's).
    seq: AtomicU64,
    /// The running hook's kind (index into [`HookKind::ALL`]), or `OUTSIDE`.
    hook: AtomicU64,
    /// The tick the hook runs in (the clock's `simulation_tick`), kept when
    /// the pass of calls ends.
    tick: AtomicU64,
    /// How many journal entries the session's host has made
    /// ([`HookBeacon::note_journal`]).
    journal_len: AtomicU64,
    /// The newest entry's frame delta (`f64` bits), or [`NOT_A_FRAME`].
    frame_dt: AtomicU64,
    /// Length of the session label, bytes.
    session_len: AtomicU64,
    /// The session label, UTF-8, eight bytes a word, little-endian.
    session: [AtomicU64; SESSION_BYTES / 8],
}

impl Cells {
    fn set_up(&self) {
        self.hook.store(OUTSIDE, Ordering::Relaxed);
        self.frame_dt.store(NOT_A_FRAME, Ordering::Relaxed);
        self.magic.store(MAGIC, Ordering::Release);
    }
}

/// Where a beacon's cells live.
#[derive(Debug)]
enum Home {
    /// In this process only.
    Heap(Box<Cells>),
    /// In a file's shared mapping.
    Mapped(memmap2::MmapMut),
}

/// A shared cell saying which hook call runs (see the module docs). Clones
/// share the cell: one goes to the pipeline, one to the watcher.
#[derive(Clone, Debug)]
pub struct HookBeacon {
    home: Arc<Home>,
}

impl Default for HookBeacon {
    fn default() -> HookBeacon {
        HookBeacon::new()
    }
}

/// One hook call as the beacon last said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookCall {
    /// Which announcement: a new number for every call, and for every pass
    /// of FixedUpdate's fast loop (module docs). A reading equal in every
    /// field to an earlier one is the same call, still running.
    pub call: u64,
    /// The object the hook runs for.
    pub object: ObjectId,
    /// The behaviour's registration number in the cohort
    /// ([`crate::Snapshot::behaviour_name`] finds its name).
    pub seq: u64,
    /// The hook.
    pub hook: HookKind,
    /// The tick it runs in: the pending tick in FixedUpdate and contact
    /// hooks, the completed tick count elsewhere (as in the log).
    pub tick: u64,
}

impl HookBeacon {
    /// Bytes of a beacon file ([`HookBeacon::in_file`]).
    pub const FILE_BYTES: u64 = 4096;

    /// A beacon in this process's memory that says no hook runs.
    pub fn new() -> HookBeacon {
        let cells: Box<Cells> = Box::new(Cells {
            magic: AtomicU64::new(0),
            call: AtomicU64::new(0),
            object: AtomicU64::new(0),
            seq: AtomicU64::new(0),
            hook: AtomicU64::new(0),
            tick: AtomicU64::new(0),
            journal_len: AtomicU64::new(0),
            frame_dt: AtomicU64::new(NOT_A_FRAME),
            session_len: AtomicU64::new(0),
            session: std::array::from_fn(|_| AtomicU64::new(0)),
        });
        cells.set_up();
        HookBeacon {
            home: Arc::new(Home::Heap(cells)),
        }
    }

    /// A beacon in `file`, shared with every process that maps the same
    /// file (module docs). An empty file is grown to
    /// [`HookBeacon::FILE_BYTES`] and set up (the supervisor's side, which
    /// creates it); a file that is already a beacon is used as it stands (the
    /// child's side). Anything else is refused (`InvalidData`). The file
    /// must be open for reading and writing, and nobody may shorten it while
    /// it is mapped.
    pub fn in_file(file: &File) -> std::io::Result<HookBeacon> {
        let fresh = file.metadata()?.len() == 0;
        if fresh {
            file.set_len(HookBeacon::FILE_BYTES)?;
        } else if file.metadata()?.len() < HookBeacon::FILE_BYTES {
            return Err(not_a_beacon());
        }
        // SAFETY: the mapping is at least FILE_BYTES long (checked or set
        // above), and every access to it goes through atomics
        // (`HookBeacon::cells`), so another process writing the same page
        // is no data race. A file truncated while mapped would fault on
        // access (SIGBUS): the documented precondition rules it out.
        let map = unsafe {
            memmap2::MmapOptions::new()
                .len(HookBeacon::FILE_BYTES as usize)
                .map_mut(file)?
        };
        let beacon = HookBeacon {
            home: Arc::new(Home::Mapped(map)),
        };
        let cells = beacon.cells();
        if fresh {
            cells.set_up();
        } else if cells.magic.load(Ordering::Acquire) != MAGIC {
            return Err(not_a_beacon());
        }
        Ok(beacon)
    }

    fn cells(&self) -> &Cells {
        match &*self.home {
            Home::Heap(cells) => cells,
            Home::Mapped(map) => {
                const _: () =
                    assert!(std::mem::size_of::<Cells>() <= HookBeacon::FILE_BYTES as usize);
                // SAFETY: the map is FILE_BYTES long (`in_file`), which
                // holds `Cells` (checked at compile time above), and
                // page-aligned, more than `Cells`' 8-byte alignment. Every
                // field is an atomic, so shared references to it may coexist
                // with writes from this and other processes. The map lives
                // as long as `self.home`, which the returned reference
                // borrows.
                unsafe { &*map.as_ptr().cast::<Cells>() }
            }
        }
    }

    fn write(&self, object: u64, seq: u64, hook: u64, tick: Option<u64>) {
        let c = self.cells();
        // One writer: a load and plain stores, no read-modify-write.
        let n = c.call.load(Ordering::Relaxed);
        c.call.store(n.wrapping_add(1), Ordering::Relaxed);
        std::sync::atomic::fence(Ordering::Release);
        c.object.store(object, Ordering::Relaxed);
        c.seq.store(seq, Ordering::Relaxed);
        c.hook.store(hook, Ordering::Relaxed);
        if let Some(tick) = tick {
            c.tick.store(tick, Ordering::Relaxed);
        }
        c.call.store(n.wrapping_add(2), Ordering::Release);
    }

    /// The pipeline is about to call `hook` of behaviour `seq` of `object`
    /// in tick `tick`.
    #[inline]
    pub fn enter(&self, object: ObjectId, seq: u64, hook: HookKind, tick: u64) {
        self.write(object.0, seq, hook as u64, Some(tick));
    }

    /// The fast loop's per-call announcement after an [`HookBeacon::enter`]
    /// of its pass: the object and behaviour only (module docs).
    pub(crate) fn calls(&self) -> PassCalls<'_> {
        PassCalls {
            cells: self.cells(),
        }
    }

    /// No hook runs any more (the pass of calls ended). The tick is kept.
    #[inline]
    pub fn leave(&self) {
        if self.cells().hook.load(Ordering::Relaxed) != OUTSIDE {
            self.write(0, 0, OUTSIDE, None);
        }
    }

    /// The session that runs from now on came from `label` (its scene
    /// file), so a reader elsewhere can name its objects. Cut to the file's
    /// 4,032 bytes at a character boundary.
    pub fn announce_session(&self, label: &str) {
        let mut end = label.len().min(SESSION_BYTES);
        while !label.is_char_boundary(end) {
            end -= 1;
        }
        let bytes = &label.as_bytes()[..end];
        let c = self.cells();
        let n = c.call.load(Ordering::Relaxed);
        c.call.store(n.wrapping_add(1), Ordering::Relaxed);
        std::sync::atomic::fence(Ordering::Release);
        for (word, chunk) in c.session.iter().zip(bytes.chunks(8)) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            word.store(u64::from_le_bytes(w), Ordering::Relaxed);
        }
        c.session_len.store(bytes.len() as u64, Ordering::Relaxed);
        c.call.store(n.wrapping_add(2), Ordering::Release);
    }

    /// The label of the session ([`HookBeacon::announce_session`]), if one
    /// was announced since the last [`crate::Pipeline::load_session`];
    /// `None` also while the writer is between two stores.
    pub fn session(&self) -> Option<String> {
        self.read(|c| {
            let len = (c.session_len.load(Ordering::Relaxed) as usize).min(SESSION_BYTES);
            let mut bytes = Vec::with_capacity(len);
            for word in &c.session[..len.div_ceil(8)] {
                bytes.extend_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            bytes.truncate(len);
            bytes
        })
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .filter(|s| !s.is_empty())
    }

    /// The tick of the last announced call (kept after the pass ended):
    /// where the session was when a fault struck outside any hook.
    pub fn last_tick(&self) -> u64 {
        self.cells().tick.load(Ordering::Relaxed)
    }

    /// Says that the session's host has made `len` journal entries, the
    /// newest a frame of delta `frame_dt` (`None`: another entry). A host
    /// journals a frame before it runs it, but sends its entries after: a
    /// process that dies inside a frame takes that frame's entry with it,
    /// and a frame that ran ticks 39 and 40 and died in 40 would leave a
    /// journal that ends at 38. What the beacon keeps lets the front end
    /// add that one entry back ([`HookBeacon::journal_tail`]). Two stores.
    pub fn note_journal(&self, len: u64, frame_dt: Option<f64>) {
        let c = self.cells();
        c.frame_dt.store(
            frame_dt.map_or(NOT_A_FRAME, f64::to_bits),
            Ordering::Relaxed,
        );
        c.journal_len.store(len, Ordering::Release);
    }

    /// What [`HookBeacon::note_journal`] last said: the journal's length
    /// and the newest entry's frame delta, if it is a frame.
    pub fn journal_tail(&self) -> (u64, Option<f64>) {
        let c = self.cells();
        let len = c.journal_len.load(Ordering::Acquire);
        let dt = c.frame_dt.load(Ordering::Relaxed);
        (len, (dt != NOT_A_FRAME).then(|| f64::from_bits(dt)))
    }

    /// `f` of the cells, if no write was under way while it read them.
    fn read<R>(&self, f: impl FnOnce(&Cells) -> R) -> Option<R> {
        let c = self.cells();
        let before = c.call.load(Ordering::Acquire);
        if before % 2 == 1 {
            return None;
        }
        let r = f(c);
        std::sync::atomic::fence(Ordering::Acquire);
        (c.call.load(Ordering::Relaxed) == before).then_some(r)
    }

    /// The hook call running now, if any; `None` also while the writer is
    /// between two stores (the next read will see it).
    pub fn current(&self) -> Option<HookCall> {
        let (call, object, seq, hook, tick) = self.read(|c| {
            (
                c.call.load(Ordering::Relaxed),
                c.object.load(Ordering::Relaxed),
                c.seq.load(Ordering::Relaxed),
                c.hook.load(Ordering::Relaxed),
                c.tick.load(Ordering::Relaxed),
            )
        })?;
        let hook = *HookKind::ALL.get(usize::try_from(hook).ok()?)?;
        Some(HookCall {
            call,
            object: ObjectId(object),
            seq,
            hook,
            tick,
        })
    }
}

fn not_a_beacon() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "not a hook beacon file of this version",
    )
}

/// The per-call stores of one pass of FixedUpdate's fast loop (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PassCalls<'a> {
    /// The beacon's cells.
    cells: &'a Cells,
}

impl PassCalls<'_> {
    /// The pass calls behaviour `seq` of `object` now.
    #[inline(always)]
    pub(crate) fn call(self, object: ObjectId, seq: u64) {
        self.cells.object.store(object.0, Ordering::Relaxed);
        self.cells.seq.store(seq, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_beacon_names_the_call_until_the_pass_ends() {
        let b = HookBeacon::new();
        assert_eq!(b.current(), None);
        b.enter(ObjectId(3), 7, HookKind::FixedUpdate, 12);
        let first = b.current().expect("inside a call");
        assert_eq!(
            (first.object, first.seq, first.hook, first.tick),
            (ObjectId(3), 7, HookKind::FixedUpdate, 12)
        );
        assert_eq!(b.current(), Some(first), "the same call, read twice");
        b.enter(ObjectId(3), 8, HookKind::Present, 12);
        let second = b.current().expect("inside a call");
        assert_ne!(second.call, first.call, "a new call has a new number");
        assert_eq!(second.hook, HookKind::Present);
        b.leave();
        assert_eq!(b.current(), None);
        assert_eq!(b.last_tick(), 12, "the tick outlives the pass");
    }

    #[test]
    fn a_fast_pass_keeps_its_number_and_moves_its_object_on() {
        let b = HookBeacon::new();
        b.enter(ObjectId(1), 1, HookKind::FixedUpdate, 40);
        let calls = b.calls();
        calls.call(ObjectId(2), 5);
        let a = b.current().expect("inside the pass");
        calls.call(ObjectId(9), 6);
        let c = b.current().expect("inside the pass");
        assert_eq!(a.call, c.call, "one number for the pass");
        assert_ne!(a, c, "but another reading: the call moved on");
        assert_eq!((c.object, c.seq, c.tick), (ObjectId(9), 6, 40));
    }

    #[test]
    fn two_mappings_of_one_file_see_each_others_calls_and_session() {
        let path =
            std::env::temp_dir().join(format!("stepframe-beacon-test-{}.bin", std::process::id()));
        let open = || {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .expect("the file opens")
        };
        let _ = std::fs::remove_file(&path);
        let writer = HookBeacon::in_file(&open()).expect("a fresh file is set up");
        let reader = HookBeacon::in_file(&open()).expect("a set-up file is used");
        assert_eq!(reader.current(), None);
        writer.announce_session("assets/scenes/faults.ron");
        writer.enter(ObjectId(60), 11, HookKind::Update, 7);
        let call = reader.current().expect("the writer's call");
        assert_eq!(
            (call.object, call.seq, call.hook, call.tick),
            (ObjectId(60), 11, HookKind::Update, 7)
        );
        assert_eq!(
            reader.session().as_deref(),
            Some("assets/scenes/faults.ron")
        );
        let long = "é".repeat(3000);
        writer.announce_session(&long);
        let cut = reader.session().expect("a label");
        // SESSION_BYTES: 4,032 in the first layout, less the journal's
        // two words.
        assert_eq!(cut.len(), 4016, "cut at the file's size, on a character");
        assert_eq!(reader.journal_tail(), (0, None), "a fresh file: no entry");
        writer.note_journal(41, Some(1.0 / 30.0));
        assert_eq!(reader.journal_tail(), (41, Some(1.0 / 30.0)));
        writer.note_journal(42, None);
        assert_eq!(reader.journal_tail(), (42, None));
        drop((writer, reader));
        std::fs::write(&path, vec![7u8; 4096]).expect("overwritten");
        let err = HookBeacon::in_file(&open()).expect_err("not a beacon");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        let _ = std::fs::remove_file(&path);
    }
}
