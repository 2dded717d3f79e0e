//! A removed object: its text and its comma, or its lines when it stood
//! alone on them; the comments around it stay.

use super::*;

impl Rewriter<'_> {
    /// Removes an object's text (see the module docs); comments stay.
    pub(super) fn remove(&mut self, root: &Node, node: &Node) {
        let text = self.text;
        let Some((list, index)) = containing_list(root, node) else {
            return;
        };
        let line_start = text[..node.start].rfind('\n').map_or(0, |i| i + 1);
        let alone_before = text[line_start..node.start].trim().is_empty();
        let comma = comma_after(text, node.end);
        let after = comma.unwrap_or(node.end);
        let rest = &text[after..];
        let line_end = rest.find('\n').map(|i| after + i + 1);
        let alone_after = line_end.is_some_and(|end| text[after..end].trim().is_empty());
        if alone_before && alone_after {
            self.splice(line_start, line_end.unwrap_or(text.len()), String::new());
            return;
        }
        if let Some(comma) = comma {
            let rest = &text[comma..];
            let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            self.splice(node.start, comma + spaces, String::new());
        } else if index > 0 {
            // The last item, with no comma after it: take the one before.
            let before = &list.items()[index - 1];
            self.splice(before.end, node.end, String::new());
        } else {
            self.splice(node.start, node.end, String::new());
        }
    }
}

/// The list that holds `node` among the scene's objects, and its index.
fn containing_list<'n>(root: &'n Node, node: &Node) -> Option<(&'n Node, usize)> {
    fn walk<'n>(list: &'n Node, node: &Node) -> Option<(&'n Node, usize)> {
        for (i, item) in list.items().iter().enumerate() {
            if item.start == node.start {
                return Some((list, i));
            }
            if let Some(children) = item.field("children")
                && let Some(found) = walk(children, node)
            {
                return Some(found);
            }
        }
        None
    }
    walk(root.field("objects")?, node)
}
