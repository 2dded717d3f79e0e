//! A scene's text as a tree of spans, for rewriting it in place
//! ([`Scene::rewrite_in_place`](super::Scene::rewrite_in_place)).
//!
//! ron reads a value and forgets where it was; its [`RawValue`](super::RawValue)
//! keeps a slice but folds the comments around it into that slice. Saving
//! into a hand-written file needs more: where each struct field's value
//! starts and ends (without the comments), where a list's last item ends
//! and whether a comma follows it, and how the lines around are indented.
//! This module reads just that, byte offsets only, and leaves checking the
//! values to ron: it only ever reads text [`Scene::parse`](super::Scene::parse)
//! already accepted.
//!
//! A struct `(key: value, ...)` (named or not) is a [`Kind::Struct`], a
//! `[...]` a [`Kind::List`]; anything else (a number, a string, an enum
//! variant, a tuple, a map) is a [`Kind::Leaf`], replaced whole when it
//! changes.

/// One value of the text: where it starts and ends (byte offsets, end
/// exclusive, comments around it left out) and what it holds.
#[derive(Debug)]
pub(super) struct Node {
    /// First byte of the value (of its name for `Name(...)`).
    pub(super) start: usize,
    /// One past its last byte.
    pub(super) end: usize,
    /// Struct, list or leaf.
    pub(super) kind: Kind,
}

/// What a [`Node`] is.
#[derive(Debug)]
pub(super) enum Kind {
    /// `(key: value, ...)`, fields in the order written.
    Struct(Vec<Field>),
    /// `[a, b, ...]`.
    List(Vec<Node>),
    /// Anything else, replaced whole.
    Leaf,
}

/// A struct's field.
#[derive(Debug)]
pub(super) struct Field {
    /// The field's name.
    pub(super) key: String,
    /// The value.
    pub(super) value: Node,
}

impl Node {
    /// The field `key` of a struct.
    pub(super) fn field(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Struct(fields) => fields.iter().find(|f| f.key == key).map(|f| &f.value),
            _ => None,
        }
    }

    /// A struct's fields (none for anything else).
    pub(super) fn fields(&self) -> &[Field] {
        match &self.kind {
            Kind::Struct(fields) => fields,
            _ => &[],
        }
    }

    /// A list's items (none for anything else).
    pub(super) fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::List(items) => items,
            _ => &[],
        }
    }
}

/// Where the text stops making sense, as a byte offset.
#[derive(Debug)]
pub(super) struct Unreadable(pub(super) usize);

/// The scene's top value (after any `#![enable(...)]` attributes).
pub(super) fn parse(text: &str) -> Result<Node, Unreadable> {
    let b = text.as_bytes();
    let mut i = skip_blanks(b, 0);
    while b.get(i) == Some(&b'#') {
        // `#![enable(...)]`: skip to the bracket that closes it.
        let open = b[i..]
            .iter()
            .position(|&c| c == b'[')
            .ok_or(Unreadable(i))?;
        i = skip_group(b, i + open)?;
        i = skip_blanks(b, i);
    }
    value(b, i)
}

/// Past blanks and comments (`//` to the end of the line, `/* */`, nested).
pub(super) fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0usize;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else {
            return i;
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn is_ident(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

/// One past the identifier at `i`.
fn ident_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    i
}

/// One past the string, raw string or char literal at `i`, or `None` when
/// there is none there. `r"…"`, `r#"…"#`, `b"…"` and `br#"…"#` included.
fn string_end(b: &[u8], i: usize) -> Result<Option<usize>, Unreadable> {
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) == Some(&b'r') && matches!(b.get(j + 1), Some(b'"' | b'#')) {
        j += 1;
        let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
        j += hashes;
        if b.get(j) != Some(&b'"') {
            return Ok(None);
        }
        j += 1;
        loop {
            if j >= b.len() {
                return Err(Unreadable(i));
            }
            if b[j] == b'"'
                && b[j + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&c| c == b'#')
                    .count()
                    == hashes
            {
                return Ok(Some(j + 1 + hashes));
            }
            j += 1;
        }
    }
    let quote = match b.get(j) {
        Some(&q @ (b'"' | b'\'')) => q,
        _ => return Ok(None),
    };
    j += 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            c if c == quote => return Ok(Some(j + 1)),
            _ => j += 1,
        }
    }
    Err(Unreadable(i))
}

/// One past the bracket that closes the one at `open`, over strings and
/// comments.
fn skip_group(b: &[u8], open: usize) -> Result<usize, Unreadable> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            i = skip_blanks(b, i);
            continue;
        }
        if is_ident_start(c) {
            // An identifier may open a raw or byte string (`r#"`, `b"`).
            if let Some(end) = string_end(b, i)? {
                i = end;
            } else {
                i = ident_end(b, i);
            }
            continue;
        }
        if let Some(end) = string_end(b, i)? {
            i = end;
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1).ok_or(Unreadable(i))?;
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(Unreadable(open))
}

/// The value starting at `i` (blanks before it skipped).
fn value(b: &[u8], i: usize) -> Result<Node, Unreadable> {
    let start = skip_blanks(b, i);
    let leaf = |end| Node {
        start,
        end,
        kind: Kind::Leaf,
    };
    let Some(&c) = b.get(start) else {
        return Err(Unreadable(start));
    };
    match c {
        b'(' => paren(b, start, start),
        b'[' => list(b, start),
        b'{' => Ok(leaf(skip_group(b, start)?)),
        _ if is_ident_start(c) => {
            if let Some(end) = string_end(b, start)? {
                return Ok(leaf(end));
            }
            let end = ident_end(b, start);
            let after = skip_blanks(b, end);
            if b.get(after) == Some(&b'(') {
                paren(b, start, after)
            } else {
                Ok(leaf(end))
            }
        }
        b'"' | b'\'' => Ok(leaf(string_end(b, start)?.ok_or(Unreadable(start))?)),
        _ => {
            let mut end = start;
            while end < b.len() && (is_ident(b[end]) || matches!(b[end], b'.' | b'+' | b'-')) {
                end += 1;
            }
            if end == start {
                return Err(Unreadable(start));
            }
            Ok(leaf(end))
        }
    }
}

/// `(` at `open`, the value starting at `start` (its name, if any): a
/// struct when it holds `key:` fields (or nothing), else a leaf.
fn paren(b: &[u8], start: usize, open: usize) -> Result<Node, Unreadable> {
    let first = skip_blanks(b, open + 1);
    let is_struct = match b.get(first) {
        Some(b')') => true,
        Some(&c) if is_ident_start(c) => {
            let after = skip_blanks(b, ident_end(b, first));
            b.get(after) == Some(&b':') && b.get(after + 1) != Some(&b':')
        }
        _ => false,
    };
    if !is_struct {
        return Ok(Node {
            start,
            end: skip_group(b, open)?,
            kind: Kind::Leaf,
        });
    }
    let mut fields = Vec::new();
    let mut i = first;
    loop {
        i = skip_blanks(b, i);
        match b.get(i) {
            Some(b')') => {
                return Ok(Node {
                    start,
                    end: i + 1,
                    kind: Kind::Struct(fields),
                });
            }
            Some(&c) if is_ident_start(c) => {
                let key_end = ident_end(b, i);
                let key = String::from_utf8_lossy(&b[i..key_end]).into_owned();
                let colon = skip_blanks(b, key_end);
                if b.get(colon) != Some(&b':') {
                    return Err(Unreadable(colon));
                }
                let value = value(b, colon + 1)?;
                i = skip_blanks(b, value.end);
                fields.push(Field { key, value });
                match b.get(i) {
                    Some(b',') => i += 1,
                    Some(b')') => {}
                    _ => return Err(Unreadable(i)),
                }
            }
            _ => return Err(Unreadable(i)),
        }
    }
}

/// `[` at `open`.
fn list(b: &[u8], open: usize) -> Result<Node, Unreadable> {
    let mut items = Vec::new();
    let mut i = open + 1;
    loop {
        i = skip_blanks(b, i);
        if b.get(i) == Some(&b']') {
            return Ok(Node {
                start: open,
                end: i + 1,
                kind: Kind::List(items),
            });
        }
        let item = value(b, i)?;
        i = skip_blanks(b, item.end);
        items.push(item);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b']') => {}
            _ => return Err(Unreadable(i)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_items_have_their_exact_spans_without_comments() {
        let text = "#![enable(implicit_some)]\n( // top\n  a: 1.5, /* b */ b: [ (x: \"),\" ) , r#\"]\"#, ],\n  c: Circle(radius: 2.0),\n)";
        let root = parse(text).expect("readable");
        let a = root.field("a").expect("a");
        assert_eq!(&text[a.start..a.end], "1.5");
        let b = root.field("b").expect("b");
        assert_eq!(b.items().len(), 2);
        assert_eq!(&text[b.items()[0].start..b.items()[0].end], "(x: \"),\" )");
        assert_eq!(&text[b.items()[1].start..b.items()[1].end], "r#\"]\"#");
        let c = root.field("c").expect("c");
        assert_eq!(&text[c.start..c.end], "Circle(radius: 2.0)");
        let radius = c.field("radius").expect("radius");
        assert_eq!(&text[radius.start..radius.end], "2.0");
        assert_eq!(text.as_bytes()[root.end - 1], b')');
    }

    #[test]
    fn a_tuple_and_a_map_are_leaves_and_an_empty_paren_is_an_empty_struct() {
        let text = "(t: (1, 2), m: {\"k\": (a: 1)}, e: (), s: Some((x: 1)))";
        let root = parse(text).expect("readable");
        assert!(matches!(root.field("t").map(|n| &n.kind), Some(Kind::Leaf)));
        assert!(matches!(root.field("m").map(|n| &n.kind), Some(Kind::Leaf)));
        assert!(matches!(root.field("e").map(|n| &n.kind), Some(Kind::Struct(f)) if f.is_empty()));
        assert!(matches!(root.field("s").map(|n| &n.kind), Some(Kind::Leaf)));
    }

    #[test]
    fn an_unclosed_struct_is_unreadable() {
        assert!(parse("(a: 1, b: [2, 3]").is_err());
    }
}
