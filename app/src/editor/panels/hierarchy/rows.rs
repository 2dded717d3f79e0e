//! The hierarchy's lines, worked out before anything is drawn: the object
//! tree flattened into the lines a user scrolls through (a folded parent
//! hides its children), or, while a filter is typed, the objects it matches,
//! flat and in id order. No egui here: the panel lays out only the lines a
//! screen shows of this list (`ScrollArea::show_rows`), so 10,000 objects
//! cost one pass over the objects and a screenful of widgets.
//!
//! A filter matches an object's name, its id as the editor writes it (`#20`:
//! "20" and "#20" both find it, and "2" finds #2, #12 and #20 too) or one of
//! its behaviours' registered names, as a case-insensitive substring:
//! "script" finds every object with a `Script` behaviour, "ledge" finds
//! "Ledge A" and "Ledge B".

use std::collections::BTreeMap;
use std::fmt::Write;

use stepframe_core::ObjectId;

use crate::editor::protocol::ObjectView;

/// Parents with at most this many children start unfolded (a pyramid of 36
/// boxes starts folded, so it does not push the player off the panel).
pub(super) const OPEN_UP_TO: usize = 10;

/// Deepest nesting drawn (a chain deeper than this is cut off, never looped).
pub(super) const MAX_DEPTH: usize = 16;

/// One line of the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Line {
    /// Its object's index in the view's `objects`.
    pub index: usize,
    /// Nesting depth: 0 for a root, and for every line of a filtered list.
    pub depth: usize,
    /// Children it folds and unfolds (0: a leaf, a filtered line, or a line
    /// cut off at [`MAX_DEPTH`]).
    pub kids: usize,
    /// Its children follow it.
    pub open: bool,
}

/// Who is whose child, by index into the view's objects (which are in id
/// order, so an id is found by binary search).
pub(super) struct Tree<'a> {
    /// The view's objects, in id order.
    objects: &'a [ObjectView],
    /// Each object's parent, if the view has it (an object whose parent is
    /// gone is a root).
    parent: Vec<Option<usize>>,
    /// Object `i`'s children are `kids[first[i]..first[i + 1]]`, in id order.
    first: Vec<usize>,
    /// Every child, grouped by parent.
    kids: Vec<usize>,
}

impl<'a> Tree<'a> {
    /// The tree of `objects` (in id order, as the worker publishes them).
    pub(super) fn new(objects: &'a [ObjectView]) -> Tree<'a> {
        debug_assert!(objects.is_sorted_by_key(|o| o.id), "objects in id order");
        let find = |id: ObjectId| objects.binary_search_by_key(&id, |o| o.id).ok();
        let parent: Vec<Option<usize>> = objects.iter().map(|o| o.parent.and_then(find)).collect();
        let mut first = vec![0; objects.len() + 1];
        for &p in parent.iter().flatten() {
            first[p + 1] += 1;
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        let mut fill = first.clone();
        let mut kids = vec![0; first[objects.len()]];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                kids[fill[p]] = i;
                fill[p] += 1;
            }
        }
        Tree {
            objects,
            parent,
            first,
            kids,
        }
    }

    /// The ancestors of `id`, nearest first (at most [`MAX_DEPTH`], so a
    /// parent loop ends).
    pub(super) fn ancestors(&self, id: ObjectId) -> Vec<ObjectId> {
        let mut out = Vec::new();
        let mut at = self
            .objects
            .binary_search_by_key(&id, |o| o.id)
            .ok()
            .and_then(|i| self.parent[i]);
        while let Some(p) = at
            && out.len() < MAX_DEPTH
        {
            out.push(self.objects[p].id);
            at = self.parent[p];
        }
        out
    }

    /// The lines of the tree as unfolded: roots in id order, each followed by
    /// its children while it is open. `folds` holds the parents the user
    /// folded or unfolded; every other parent is open when it has at most
    /// [`OPEN_UP_TO`] children.
    pub(super) fn lines(&self, folds: &BTreeMap<ObjectId, bool>) -> Vec<Line> {
        let mut out = Vec::new();
        let mut stack: Vec<(usize, usize)> = (0..self.objects.len())
            .rev()
            .filter(|&i| self.parent[i].is_none())
            .map(|i| (i, 0))
            .collect();
        while let Some((index, depth)) = stack.pop() {
            let children = &self.kids[self.first[index]..self.first[index + 1]];
            let kids = if depth >= MAX_DEPTH {
                0
            } else {
                children.len()
            };
            let open = kids > 0
                && folds
                    .get(&self.objects[index].id)
                    .copied()
                    .unwrap_or(kids <= OPEN_UP_TO);
            out.push(Line {
                index,
                depth,
                kids,
                open,
            });
            if open {
                stack.extend(children.iter().rev().map(|&k| (k, depth + 1)));
            }
        }
        out
    }
}

/// The objects `filter` matches (module docs), flat and in id order. `filter`
/// is already trimmed and lower-cased, and not empty.
pub(super) fn matching(objects: &[ObjectView], filter: &str) -> Vec<Line> {
    let mut id = String::with_capacity(24);
    objects
        .iter()
        .enumerate()
        .filter(|(_, o)| {
            id.clear();
            let _ = write!(id, "{}", o.id);
            contains_folded(&o.name, filter)
                || contains_folded(&id, filter)
                || o.behaviours.iter().any(|b| contains_folded(b, filter))
        })
        .map(|(index, _)| Line {
            index,
            depth: 0,
            kids: 0,
            open: false,
        })
        .collect()
}

/// Whether `hay` contains `needle` (already lower-case) in any case; ASCII
/// text, nearly every name, is compared in place without a lower-case copy.
fn contains_folded(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if hay.is_ascii() && needle.is_ascii() {
        hay.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    } else {
        hay.to_lowercase().contains(needle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stepframe_core::Pose;

    fn object(id: u64, name: &str, parent: Option<u64>, behaviours: &[&str]) -> ObjectView {
        ObjectView {
            id: ObjectId(id),
            name: name.to_string(),
            parent: parent.map(ObjectId),
            enabled: true,
            presentation: Pose::default(),
            committed: Pose::default(),
            moved_to: None,
            body: None,
            behaviours: behaviours.iter().map(|b| b.to_string()).collect(),
            cohort: Vec::new(),
        }
    }

    #[test]
    fn children_follow_their_parent_in_id_order_and_a_big_family_starts_folded() {
        let mut objects = vec![
            object(1, "Root", None, &[]),
            object(2, "Small", Some(1), &[]),
            object(3, "Big", None, &[]),
            object(4, "Leaf of small", Some(2), &[]),
        ];
        // Eleven children of Big (#3): one more than OPEN_UP_TO.
        objects.extend((10..21).map(|id| object(id, "Box", Some(3), &[])));
        let tree = Tree::new(&objects);
        let ids = |lines: &[Line]| -> Vec<(u64, usize)> {
            lines
                .iter()
                .map(|l| (objects[l.index].id.0, l.depth))
                .collect()
        };
        let lines = tree.lines(&BTreeMap::new());
        assert_eq!(ids(&lines), vec![(1, 0), (2, 1), (4, 2), (3, 0)]);
        assert_eq!(lines[3].kids, 11);
        assert!(!lines[3].open);
        let unfolded = tree.lines(&BTreeMap::from([(ObjectId(3), true), (ObjectId(1), false)]));
        assert_eq!(unfolded.len(), 2 + 11);
        assert_eq!(ids(&unfolded)[..3], [(1, 0), (3, 0), (10, 1)]);
        assert_eq!(tree.ancestors(ObjectId(4)), vec![ObjectId(2), ObjectId(1)]);
    }

    #[test]
    fn a_filter_matches_name_id_or_behaviour_in_any_case() {
        let objects = vec![
            object(2, "Ledge A", None, &[]),
            object(12, "Sliding Platform", None, &["KinematicMover"]),
            object(20, "Player", None, &["PlayerController", "FollowCamera"]),
            object(61, "Coin Ä", None, &["Script"]),
        ];
        let names = |filter: &str| -> Vec<&str> {
            matching(&objects, filter)
                .iter()
                .map(|l| objects[l.index].name.as_str())
                .collect()
        };
        assert_eq!(names("ledge"), vec!["Ledge A"]);
        assert_eq!(names("#20"), vec!["Player"]);
        assert_eq!(names("2"), vec!["Ledge A", "Sliding Platform", "Player"]);
        assert_eq!(names("camera"), vec!["Player"]);
        assert_eq!(names("coin ä"), vec!["Coin Ä"]);
        assert!(names("nothing").is_empty());
    }
}
