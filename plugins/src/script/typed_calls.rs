//! The Script behaviour's side of the typed path: the script's state
//! variables as typed code reads and writes them ([`FastState`]), kept in
//! step with the rhai scope, and the call of a hook on typed code.

use std::sync::Arc;

use rhai::Dynamic;
use stepframe_core::{Ctx, HookKind};

use super::ir::{Out, Tag, Val};
use super::typed::{self, Exit, Typed};
use super::{Script, engine, host};

/// The script's state variables as the compiled path holds them.
///
/// While `live`, `tags`/`bits` hold the newest values of the state variables
/// the compiled functions write, and the rhai scope is stale for those names:
/// everything that reads the scope (a rhai call, a reload, `var`,
/// `hash_state`) either syncs it first or reads through these. Keeping the
/// values here, not in the scope, is what makes a compiled call cheap: rhai's
/// scope can only be searched by name.
#[derive(Clone, Debug, Default)]
pub(super) struct FastState {
    /// Program generation `index` was worked out for (0: none yet).
    generation: u64,
    /// Scope position of each name of `program.fast.state`; `None` when one
    /// is missing or a written one is a constant (rhai runs every call).
    index: Option<Box<[usize]>>,
    /// Types and bits of the state variables (kept apart so the typed path
    /// copies the bits in and out in one go).
    tags: Vec<Tag>,
    bits: Vec<u64>,
    live: bool,
    /// The body commands of the typed call running (empty between calls).
    out: Vec<Out>,
    /// Each hook's code specialised for the current state types (`typed/`).
    typed: [Option<Arc<Typed>>; 4],
    /// Specialisations made per hook: after [`MAX_SPECIALISATIONS`] the hook
    /// stays on rhai while its types differ from every one made (they keep
    /// changing).
    specialisations: [u8; 4],
    /// Bumped whenever the types in `tags` may have changed.
    epoch: u64,
    /// The `epoch` at which `tags` were seen to fit each hook's typed code:
    /// the guard is checked once per change of types, not per call.
    fitted: [Option<u64>; 4],
}

impl FastState {
    fn val(&self, s: usize) -> Val {
        Val {
            tag: self.tags[s],
            bits: self.bits[s],
        }
    }
}

/// See [`FastState::specialisations`].
const MAX_SPECIALISATIONS: u8 = 8;

impl Script {
    /// The compiled path's newer value of the variable at scope `position`.
    pub(super) fn live_value(&self, position: usize) -> Option<Dynamic> {
        if !self.fast.live {
            return None;
        }
        let index = self.fast.index.as_ref()?;
        let written = &self.program.fast.written;
        (0..index.len())
            .find(|&s| index[s] == position && written[s])
            .map(|s| self.fast.val(s).to_dynamic())
    }

    /// Writes the compiled path's values back into the scope.
    pub(super) fn sync_scope(&mut self) {
        if !std::mem::take(&mut self.fast.live) {
            return;
        }
        let fast = &self.program.fast;
        for (s, name) in fast.state.iter().enumerate() {
            if fast.written[s]
                && let Some(slot) = self.scope.get_mut(name)
            {
                *slot = self.fast.val(s).to_dynamic();
            }
        }
    }

    /// Makes the state slots ready for a compiled call; false when this call
    /// must go to rhai.
    fn bind_fast(&mut self) -> bool {
        let fast = &self.program.fast;
        if self.fast.generation != self.program.generation {
            self.fast.generation = self.program.generation;
            self.fast.live = false;
            self.fast.typed = Default::default();
            self.fast.specialisations = [0; 4];
            self.fast.fitted = [None; 4];
            let names: Vec<(&str, bool)> = self.scope.iter_raw().map(|(n, c, _)| (n, c)).collect();
            self.fast.index = fast
                .state
                .iter()
                .zip(&fast.written)
                .map(|(name, &written)| {
                    let p = names.iter().rposition(|(n, _)| *n == name.as_str())?;
                    (!(written && names[p].1)).then_some(p)
                })
                .collect();
        }
        let Some(index) = &self.fast.index else {
            return false;
        };
        if self.fast.live {
            return true;
        }
        let values: Vec<&Dynamic> = self.scope.iter_raw().map(|(_, _, v)| v).collect();
        self.fast.epoch += 1;
        self.fast.tags.clear();
        self.fast.bits.clear();
        for &p in index.iter() {
            match Val::from_dynamic(values[p]) {
                Some(v) => {
                    self.fast.tags.push(v.tag);
                    self.fast.bits.push(v.bits);
                }
                None => return false,
            }
        }
        true
    }

    /// Runs the hook on the typed path; false when rhai must run it.
    pub(super) fn call_fast(&mut self, ctx: &mut Ctx, hook: HookKind, args: &[Val]) -> bool {
        let i = match hook {
            HookKind::Start => 0,
            HookKind::Update => 1,
            HookKind::FlowTick => 2,
            HookKind::FixedUpdate => 3,
            _ => return false,
        };
        if self.program.fast.hooks[i].is_none() || !self.bind_fast() {
            return false;
        }
        let fast = &mut self.fast;
        // The typed code, specialised again (once per call) when the state
        // types moved.
        let mut specialised_now = false;
        loop {
            if let Some(t) = &fast.typed[i]
                && (fast.fitted[i] == Some(fast.epoch) || t.fits(&fast.tags))
            {
                fast.fitted[i] = Some(fast.epoch);
                let (tags, bits, out) = (&mut fast.tags, &mut fast.bits, &mut fast.out);
                match typed::run(t, ctx, args, tags, bits, out) {
                    Ok(()) => {
                        fast.live = true;
                        if !t.stable {
                            fast.epoch += 1;
                        }
                        self.host.count(host::Engine::Typed);
                        engine::commit_fast(ctx, &mut fast.out);
                        return true;
                    }
                    Err(Exit::Bail) => {
                        fast.out.clear();
                        return false;
                    }
                    Err(Exit::Miss) => fast.out.clear(),
                }
            }
            if specialised_now || fast.specialisations[i] >= MAX_SPECIALISATIONS {
                return false;
            }
            specialised_now = true;
            fast.specialisations[i] += 1;
            let arg_types: Vec<Tag> = args.iter().map(|a| a.tag).collect();
            fast.typed[i] = self.program.specialised(i, &fast.tags, &arg_types);
        }
    }
}
