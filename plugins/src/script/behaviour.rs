//! The Script as the pipeline calls it: which hooks it declares, each hook
//! adopting a reloaded program at the frame boundary and then calling its
//! function (typed path or rhai), named routines, the state hash and text, and
//! new scene vars taken mid-run.

use rhai::INT;
use stepframe_core::behaviour::FieldMeta;
use stepframe_core::hash::StableHasher;
use stepframe_core::{Behaviour, ContactKind, Ctx, Fields, HookKind, Hooks, Named, ObjectId, Wait};

use super::ir::Val;
use super::{Script, value};

impl Named for Script {
    const NAME: &'static str = "Script";
}

impl Behaviour for Script {
    /// A Script's parameters are its file and its scene `vars`: the vars of
    /// `fresh` are written into this script's running state (each variable
    /// of that name; the others keep their values), the way the scene would
    /// have set them, and the later top level of a reload uses them too. A
    /// different file is refused: that is another behaviour, not a
    /// parameter.
    fn adopt_params(&mut self, fresh: &dyn Behaviour) -> bool {
        let Some(fresh) = fresh.downcast_ref::<Script>() else {
            return false;
        };
        if fresh.program.source != self.program.source {
            return false;
        }
        // The typed path's registers hold the live values: back to the
        // scope first, and the next call binds them again from it.
        self.sync_scope();
        for (name, value) in fresh.vars.iter() {
            if self.scope.contains(name) && !self.scope.is_constant(name).unwrap_or(false) {
                self.scope.set_value(name.clone(), value.clone());
            }
        }
        self.vars = fresh.vars.clone();
        true
    }

    /// Start and Update always (they adopt a hot-reloaded version), and the
    /// other hooks only when the script defines their function, so a script
    /// without `fixed_update` is never called, timed or hit by a breakpoint in
    /// the fixed phase. A reload that changes the set says so (`hooks_changed`).
    ///
    /// Written by hand, not by `#[stepframe_core::behaviour]`: this block
    /// defines every hook method (any script may need them), and which ones
    /// run is a fact of the script file, which can change while the session
    /// runs.
    fn hooks(&self) -> Hooks {
        let h = &self.program.hooks;
        let mut hooks = Hooks::START.and(Hooks::UPDATE);
        for (defined, bit) in [
            (h.flow_tick, Hooks::FLOW_TICK),
            (h.fixed_update, Hooks::FIXED_UPDATE),
            (h.on_contact, Hooks::CONTACT),
        ] {
            if defined {
                hooks = hooks.and(bit);
            }
        }
        hooks
    }

    fn name(&self) -> &str {
        Self::NAME
    }

    /// A reload edit of this script's file: the new text's program runs from
    /// now on, the variables it shares with the old one keep their values.
    fn reload(&mut self, resource: &str, text: &str) -> stepframe_core::Reload {
        self.reload_edit(resource, text)
    }

    fn start(&mut self, ctx: &mut Ctx) {
        self.refresh(ctx);
        self.call(ctx, HookKind::Start, (), &[]);
    }

    fn update(&mut self, ctx: &mut Ctx, dt: f64) {
        self.refresh(ctx);
        self.call(ctx, HookKind::Update, (dt,), &[Val::float(dt)]);
    }

    fn flow_tick(&mut self, ctx: &mut Ctx, dt: f64) {
        self.call(ctx, HookKind::FlowTick, (dt,), &[Val::float(dt)]);
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        self.call(ctx, HookKind::FixedUpdate, (dt,), &[Val::float(dt)]);
    }

    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        let kind = match kind {
            ContactKind::Started => "started",
            ContactKind::Stopped => "stopped",
        };
        self.call(
            ctx,
            HookKind::Contact,
            (other.0 as INT, kind.to_string()),
            &[],
        );
    }

    fn routine(&mut self, ctx: &mut Ctx, name: &str) -> Wait {
        self.call_routine(ctx, name)
    }

    /// The script's top-level variables with their live values (the compiled
    /// path keeps written ones in registers, not in the rhai scope), one
    /// `name = value` a line, then the run-time error that stopped it, if any.
    fn state_text(&self) -> String {
        let mut out = format!("script {}\n", self.program.source);
        for (position, (name, constant, value)) in self.scope.iter_raw().enumerate() {
            let value = self.live_value(position).unwrap_or_else(|| value.clone());
            let keyword = if constant { "const" } else { "let" };
            out.push_str(&format!("{keyword} {name} = {value:?}\n"));
        }
        if let Some(failed) = &self.failed {
            out.push_str(&format!("stopped: {failed}\n"));
        }
        out
    }

    /// `Script.file` (the `.rhai` path), `Script.error` while a run-time
    /// error stops the hooks, and every top-level variable as
    /// `Script.vars.<name>` with its live value, marked as a parameter when
    /// the scene's `vars` set it. The variables sit under `vars.` so that
    /// one named `file` or `error` keeps a path of its own.
    fn inspect(&self, out: &mut Fields) {
        let file = FieldMeta {
            param: true,
            doc: "the script file, from the scene's directory",
            ..FieldMeta::default()
        };
        out.nested("file", file, self.program.source.as_str());
        if let Some(failed) = &self.failed {
            out.field("error", failed);
        }
        for (position, (name, _, value)) in self.scope.iter_raw().enumerate() {
            let value = self.live_value(position).unwrap_or_else(|| value.clone());
            let meta = FieldMeta {
                param: self.vars.iter().any(|(v, _)| v == name),
                ..FieldMeta::default()
            };
            out.nested(&format!("vars.{name}"), meta, &value::field_value(&value));
        }
    }

    fn hash_state(&self, hasher: &mut StableHasher) {
        hasher.write(&[u8::from(self.failed.is_some())]);
        hasher.write_u64(self.scope.len() as u64);
        for (position, (name, constant, value)) in self.scope.iter_raw().enumerate() {
            hasher.write(name.as_bytes());
            hasher.write(&[0xff, u8::from(constant)]);
            match self.live_value(position) {
                Some(live) => value::hash_dynamic(&live, hasher),
                None => value::hash_dynamic(value, hasher),
            }
        }
    }
}
