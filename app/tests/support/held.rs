//! A game's own behaviour that holds the worker inside its FixedUpdate of one
//! tick until the test lets it go: the slow tick of the recovery tests and
//! the endless loop of the stuck-hook test are this one piece, told apart by
//! [`Wait`].
//!
//! It shares [`HeldFlags`] with its test: it says when the hold began, holds
//! only once (a restarted session's copy runs on), and returns when the test
//! calls [`HeldFlags::release`] — which [`Release`] does on drop, so a
//! failing test never leaves the harness joining a held thread. A blocked
//! hold wakes on the release itself, not on a clock.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use stepframe_app::Behaviours;
use stepframe_core::{Behaviour, Ctx, Inspect};

/// How the held hook waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Blocks until released, and gives up after a minute, so a UI that
    /// blocked on the worker fails its test instead of hanging it.
    Block,
    /// Spins without end, burning its core, as a hook stuck in a loop does.
    Spin,
}

/// What the held behaviour shares with its test.
#[derive(Debug)]
pub struct HeldFlags {
    /// Hold once: the first call at the tick takes it.
    pub armed: AtomicBool,
    /// Set as the hold begins.
    pub entered: AtomicBool,
    /// Set by [`HeldFlags::release`]: the hook returns.
    released: AtomicBool,
    /// Wakes a blocked hold when `released` is set (the lock guards the
    /// check and the set, so a release is never missed between the two).
    wake: (Mutex<()>, Condvar),
}

impl HeldFlags {
    /// Armed flags, not entered, not released.
    pub fn armed() -> Arc<Self> {
        Arc::new(Self {
            armed: AtomicBool::new(true),
            entered: AtomicBool::new(false),
            released: AtomicBool::new(false),
            wake: (Mutex::new(()), Condvar::new()),
        })
    }

    /// Lets the hold go: the hook returns.
    pub fn release(&self) {
        let (lock, woken) = &self.wake;
        let _guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.released.store(true, Ordering::SeqCst);
        woken.notify_all();
    }

    /// Whether [`HeldFlags::release`] was called.
    pub fn is_released(&self) -> bool {
        self.released.load(Ordering::SeqCst)
    }

    /// Blocks until released, or `most` has passed.
    fn block_until_released(&self, most: Duration) {
        let (lock, woken) = &self.wake;
        let guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = woken
            .wait_timeout_while(guard, most, |_| !self.is_released())
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Lets the held hook go when dropped (declare it after the harness, so it
/// is dropped first, also when an assertion fails).
pub struct Release(pub Arc<HeldFlags>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// The scene's parameters of the held behaviour.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct HeldParams {
    /// The tick whose FixedUpdate holds.
    pub tick: u64,
}

/// The behaviour: its FixedUpdate at `tick` holds as `wait` says. Only
/// its tick is a row in the inspector.
#[derive(Clone, Debug, Inspect)]
struct Held {
    /// The behaviour's name in the scene and in what the editor reports.
    #[inspect(skip)]
    name: &'static str,
    /// The tick whose FixedUpdate holds.
    tick: u64,
    /// How it holds.
    #[inspect(skip)]
    wait: Wait,
    /// Shared with the test.
    #[inspect(skip)]
    flags: Arc<HeldFlags>,
}

#[stepframe_core::behaviour]
impl Behaviour for Held {
    fn name(&self) -> &str {
        self.name
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick != self.tick
            || !self.flags.armed.swap(false, Ordering::SeqCst)
        {
            return;
        }
        self.flags.entered.store(true, Ordering::SeqCst);
        match self.wait {
            Wait::Block => self.flags.block_until_released(Duration::from_secs(60)),
            Wait::Spin => {
                // Intrinsic: the stuck-hook test is of a watchdog on real
                // time, so the hook must really burn it, not wait politely.
                while !self.flags.released.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            }
        }
    }
}

/// The built-in behaviours and the held one as `name`, sharing `flags`.
pub fn behaviours(name: &'static str, wait: Wait, flags: &Arc<HeldFlags>) -> Behaviours {
    let flags = flags.clone();
    Behaviours::built_in().behaviour_named(name, move |p: HeldParams| {
        Ok::<_, std::io::Error>(Held {
            name,
            tick: p.tick,
            wait,
            flags: flags.clone(),
        })
    })
}

/// A small level written to `dir/file`: a ground, a ball to select and
/// object 3, `object`, carrying the behaviour `name` held at `tick`.
pub fn held_scene(dir: &Path, file: &str, object: &str, name: &str, tick: u64) -> PathBuf {
    let path = dir.join(file);
    let held = format!(
        r#"(id: 3, name: "{object}", transform: (x: 3.0, y: 3.0), behaviours: [(name: "{name}", params: (tick: {tick}))])"#
    );
    std::fs::write(&path, super::ball_scene_text(&[&held])).expect("scene written");
    path
}
