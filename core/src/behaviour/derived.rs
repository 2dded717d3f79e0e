//! What `#[derive(Inspect)]` and `#[stepframe_core::behaviour]` derive
//! besides the hook set and the field table: the registered name
//! ([`Named`]), the state hash ([`HashState`]) and parameter adoption
//! ([`AdoptParams`]). Each is a fact the struct already states, so writing
//! it by hand is a second copy that drifts:
//!
//! | derived | from | what a hand-written copy got wrong |
//! |---|---|---|
//! | [`Named::NAME`] | the type's name (or the literal its `fn name` returns) | `fn name` said `"Dash"`, registration said `"Dasher"`: a parameter edit then made the wrong behaviour |
//! | [`HashState`] | every field, in declaration order | a field left out of `hash_state` was invisible to `check` and the sync test |
//! | [`AdoptParams`] | the fields marked `#[inspect(params)]` or `#[inspect(param)]` | without it every parameter edit was refused |
//!
//! # What the hash covers
//!
//! Every field, parameters included, except those marked
//! `#[inspect(skip)]` (not state: a handle, a cache, scratch; it has no row
//! either) or `#[inspect(skip_hash = "why")]` (shown, but left out of the
//! hash, with the reason written where the next reader looks). Parameters
//! are hashed because an edit of them is replayed at the same tick in every
//! run (so they never tell runs apart by themselves) while a behaviour that
//! changes its own parameter field would otherwise change unseen.
//!
//! Worked example: a dasher whose FixedUpdate counts its cooldown down by
//! the *frame's* delta instead of the tick's (a frame-rate bug). At 60 Hz
//! the cooldown left after one tick is 300 − 16.67 = 283.33 ms; at 30 Hz,
//! 300 − 33.33 = 266.67 ms. A hand-written hash that feeds only the dash
//! count sees no difference until the two runs dash at different ticks, maybe
//! never in the recording `check` replays; the derived hash differs at the
//! first tick, so `check` names that tick and that object.
//!
//! Values are fed in a fixed, platform-independent form: numbers as their
//! bit patterns widened to 64 bits, text as its length and bytes, lists as
//! their length and items, an enum as its variant's index and fields. A
//! `HashMap` has no impl on purpose: its iteration order changes from run
//! to run.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use crate::body::Shape;
use crate::geometry::{Pose, Vec2, Velocity};
use crate::hash::StableHasher;
use crate::ids::{HookKind, ObjectId, Priority, TimeGroup};

use super::{Behaviour, DebugText, FieldValue, Wait};

/// A behaviour type's registered name: what a scene's `name: "..."` says
/// and what [`Behaviour::name`] returns, stated once. `#[behaviour]`
/// implements it from the type's name (`Dasher` is registered as
/// `"Dasher"`), or from the string literal a hand-written `fn name`
/// returns; registering by type ([`Registry::register_behaviour`]) reads
/// it, so the registered name and `name()` cannot disagree.
///
/// [`Registry::register_behaviour`]: crate::scene::Registry::register_behaviour
pub trait Named {
    /// The registered name.
    const NAME: &'static str;
}

/// A value that can feed itself into the tick hash: what `#[derive(Inspect)]`
/// implements for a struct (every field not marked `skip` or `skip_hash`,
/// in declaration order) or an enum (its variant and that variant's fields),
/// and what `#[behaviour]` calls from [`Behaviour::hash_state`] unless the
/// `impl` block writes its own. See the module docs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be fed to the state hash",
    note = "derive `Inspect` on it, implement `HashState`, or leave the field out with \
            `#[inspect(skip_hash = \"why\")]` (or `#[inspect(skip)]` for a handle or a cache)",
    note = "a `HashMap` iterates in a different order every run: use a `BTreeMap`"
)]
pub trait HashState {
    /// Feeds this value into `hasher`.
    fn hash_into(&self, hasher: &mut StableHasher);
}

/// Taking edited parameters while keeping state: what `#[derive(Inspect)]`
/// implements from the fields marked `#[inspect(params)]` or
/// `#[inspect(param)]` (each is copied from `fresh`, every other field
/// stays), and what `#[behaviour]` calls from [`Behaviour::adopt_params`]
/// unless the `impl` block writes its own. A type with no marked field
/// returns false: it has nothing it could take, so an edit is refused
/// rather than reported as applied while nothing changes.
pub trait AdoptParams {
    /// Copies `fresh`'s parameters into `self`; false when there are none.
    fn adopt_params_from(&mut self, fresh: &Self) -> bool;
}

/// [`Behaviour::adopt_params`] from the derived [`AdoptParams`]: `fresh`
/// must be a `B` (a parameter edit makes it with the same registered name,
/// so it is). What `#[behaviour]` writes, and what a behaviour without the
/// attribute (a hook set that depends on its parameters) calls in one line.
pub fn adopt_derived_params<B: Behaviour + AdoptParams>(
    this: &mut B,
    fresh: &dyn Behaviour,
) -> bool {
    fresh
        .downcast_ref::<B>()
        .is_some_and(|fresh| this.adopt_params_from(fresh))
}

macro_rules! hash_as_u64 {
    ($($t:ty),*) => {$(
        impl HashState for $t {
            fn hash_into(&self, hasher: &mut StableHasher) {
                hasher.write_u64(*self as u64);
            }
        }
    )*};
}

hash_as_u64!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, char);

impl HashState for bool {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_u8(u8::from(*self));
    }
}

impl HashState for f32 {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_f32(*self);
    }
}

impl HashState for f64 {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_f64(*self);
    }
}

impl HashState for () {
    fn hash_into(&self, _hasher: &mut StableHasher) {}
}

impl HashState for str {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_u64(self.len() as u64);
        hasher.write(self.as_bytes());
    }
}

impl HashState for String {
    fn hash_into(&self, hasher: &mut StableHasher) {
        self.as_str().hash_into(hasher);
    }
}

impl<T: HashState + ?Sized> HashState for &T {
    fn hash_into(&self, hasher: &mut StableHasher) {
        (**self).hash_into(hasher);
    }
}

impl<T: HashState + ?Sized> HashState for Box<T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        (**self).hash_into(hasher);
    }
}

impl<T: HashState + ?Sized> HashState for Arc<T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        (**self).hash_into(hasher);
    }
}

impl<T: HashState> HashState for Option<T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        match self {
            None => hasher.write_u8(0),
            Some(v) => {
                hasher.write_u8(1);
                v.hash_into(hasher);
            }
        }
    }
}

/// A list: its length, then its items in order.
fn hash_list<'a, T: HashState + 'a>(
    items: impl ExactSizeIterator<Item = &'a T>,
    hasher: &mut StableHasher,
) {
    hasher.write_u64(items.len() as u64);
    for item in items {
        item.hash_into(hasher);
    }
}

impl<T: HashState> HashState for [T] {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hash_list(self.iter(), hasher);
    }
}

impl<T: HashState> HashState for Vec<T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hash_list(self.iter(), hasher);
    }
}

impl<T: HashState> HashState for VecDeque<T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hash_list(self.iter(), hasher);
    }
}

impl<T: HashState, const N: usize> HashState for [T; N] {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hash_list(self.iter(), hasher);
    }
}

impl<T: HashState> HashState for BTreeSet<T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hash_list(self.iter(), hasher);
    }
}

impl<K: HashState, V: HashState> HashState for BTreeMap<K, V> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_u64(self.len() as u64);
        for (k, v) in self {
            k.hash_into(hasher);
            v.hash_into(hasher);
        }
    }
}

macro_rules! hash_tuple {
    ($($name:ident),+) => {
        impl<$($name: HashState),+> HashState for ($($name,)+) {
            #[allow(non_snake_case)]
            fn hash_into(&self, hasher: &mut StableHasher) {
                let ($($name,)+) = self;
                $($name.hash_into(hasher);)+
            }
        }
    };
}

hash_tuple!(A);
hash_tuple!(A, B);
hash_tuple!(A, B, C);
hash_tuple!(A, B, C, D);

impl HashState for ObjectId {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_u64(self.0);
    }
}

impl HashState for Vec2 {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_f32(self.x);
        hasher.write_f32(self.y);
    }
}

impl HashState for Pose {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_f32(self.x);
        hasher.write_f32(self.y);
        hasher.write_f32(self.angle);
    }
}

impl HashState for Velocity {
    fn hash_into(&self, hasher: &mut StableHasher) {
        self.linear.hash_into(hasher);
        hasher.write_f32(self.angular);
    }
}

impl HashState for Priority {
    fn hash_into(&self, hasher: &mut StableHasher) {
        self.0.hash_into(hasher);
    }
}

impl HashState for HookKind {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_u64(*self as u64);
    }
}

impl HashState for TimeGroup {
    fn hash_into(&self, hasher: &mut StableHasher) {
        hasher.write_u64(*self as u64);
    }
}

impl HashState for Shape {
    fn hash_into(&self, hasher: &mut StableHasher) {
        match self {
            Shape::Circle { radius } => {
                hasher.write_u64(0);
                radius.hash_into(hasher);
            }
            Shape::Cuboid { hx, hy } => {
                hasher.write_u64(1);
                hx.hash_into(hasher);
                hy.hash_into(hasher);
            }
            Shape::Capsule {
                half_height,
                radius,
            } => {
                hasher.write_u64(2);
                half_height.hash_into(hasher);
                radius.hash_into(hasher);
            }
            Shape::ConvexPolygon { points } => {
                hasher.write_u64(3);
                points.hash_into(hasher);
            }
        }
    }
}

impl HashState for Wait {
    fn hash_into(&self, hasher: &mut StableHasher) {
        match self {
            Wait::Seconds(s) => {
                hasher.write_u64(0);
                s.hash_into(hasher);
            }
            Wait::Done => hasher.write_u64(1),
        }
    }
}

impl HashState for FieldValue {
    fn hash_into(&self, hasher: &mut StableHasher) {
        match self {
            FieldValue::Bool(b) => {
                hasher.write_u64(0);
                b.hash_into(hasher);
            }
            FieldValue::Int(i) => {
                hasher.write_u64(1);
                i.hash_into(hasher);
            }
            FieldValue::UInt(u) => {
                hasher.write_u64(2);
                u.hash_into(hasher);
            }
            FieldValue::F32(x) => {
                hasher.write_u64(3);
                x.hash_into(hasher);
            }
            FieldValue::F64(x) => {
                hasher.write_u64(4);
                x.hash_into(hasher);
            }
            FieldValue::Text(t) => {
                hasher.write_u64(5);
                t.hash_into(hasher);
            }
            FieldValue::None => hasher.write_u64(6),
        }
    }
}

/// A field shown by its `Debug` text (`#[inspect(debug)]`) is hashed by
/// that text: exact for plain data (Rust prints floats so they read back
/// bit for bit), one allocation per tick. A hot field deserves a
/// [`HashState`] impl instead.
impl<T: std::fmt::Debug + ?Sized> HashState for DebugText<'_, T> {
    fn hash_into(&self, hasher: &mut StableHasher) {
        format!("{:?}", self.0).hash_into(hasher);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(v: &impl HashState) -> u64 {
        let mut h = StableHasher::new();
        v.hash_into(&mut h);
        h.finish()
    }

    #[test]
    fn neighbouring_lists_and_texts_do_not_run_together() {
        // ["ab", "c"] and ["a", "bc"] have the same bytes; lengths part them.
        let a = vec!["ab".to_string(), "c".to_string()];
        let b = vec!["a".to_string(), "bc".to_string()];
        assert_ne!(hash(&a), hash(&b));
        assert_ne!(hash(&Some(0u64)), hash(&None::<u64>));
        assert_ne!(
            hash(&(vec![1u64], vec![2u64])),
            hash(&(vec![1u64, 2], Vec::<u64>::new()))
        );
    }

    #[test]
    fn floats_hash_by_their_bits() {
        assert_ne!(hash(&0.0f64), hash(&-0.0f64));
        // The same number as an f32 and as an f64 is two bit patterns.
        assert_ne!(hash(&1.0f32), hash(&1.0f64));
    }
}
