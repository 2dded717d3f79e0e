//! Which form a value is being serialized in: a file a person reads (RON,
//! JSON) or a binary frame (the editor's wire, postcard).
//!
//! Files leave out what is absent (`soft` on a rigid body, a recording's
//! empty `edits`), so a scene or a recording a person opens says only what
//! it sets. A binary codec that does not describe itself (postcard) cannot
//! leave a field out: it reads fields by position, so a skipped field makes
//! the reader take the next field's bytes for it. serde's
//! `skip_serializing_if` cannot ask the serializer which it is, so the
//! binary encoders say so here ([`binary`]) and the skip tests below keep
//! every field while they do. Enum-shaped choices that need a self-describing
//! reader (an untagged "name or number") ask the serializer itself
//! (`is_human_readable`), which serde does provide.

use std::cell::Cell;

thread_local! {
    /// Set while this thread encodes a binary form.
    static BINARY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `encode` with every field written, none skipped: what an encoder
/// of a positional binary format wraps its call in.
pub fn binary<R>(encode: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            BINARY.with(|b| b.set(self.0));
        }
    }
    let _restore = Restore(BINARY.with(|b| b.replace(true)));
    encode()
}

/// Whether this thread is inside [`binary`].
pub fn is_binary() -> bool {
    BINARY.with(Cell::get)
}

/// `skip_serializing_if` for an optional field: skipped when absent, in a
/// file only.
pub fn skip_none<T>(value: &Option<T>) -> bool {
    value.is_none() && !is_binary()
}

/// `skip_serializing_if` for a list: skipped when empty, in a file only.
pub fn skip_empty<T>(value: &[T]) -> bool {
    value.is_empty() && !is_binary()
}

/// `skip_serializing_if` for any field whose default a file leaves out:
/// `at_default` is the field's own test.
pub fn skip_when(at_default: bool) -> bool {
    at_default && !is_binary()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_skipped_in_files_and_kept_inside_binary() {
        let none: Option<u8> = None;
        assert!(skip_none(&none));
        assert!(skip_empty::<u8>(&[]));
        binary(|| {
            assert!(!skip_none(&none));
            assert!(!skip_empty::<u8>(&[]));
            // Nested calls restore the outer state.
            binary(|| assert!(is_binary()));
            assert!(is_binary());
        });
        assert!(!is_binary());
    }
}
