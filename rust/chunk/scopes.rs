//! The scopes the walk is inside (the file, namespaces, classes): their names and FQNs, and
//! the context line a chunk's header gives them.

use std::ops::{Index, IndexMut};
use std::path::Path;

use tree_sitter::Node;

use super::spec::Context;

/// Context lines name at most this many scopes, innermost first.
const MAX_CONTEXT_SCOPES: usize = 6;

/// A scope: the file, a namespace, a class.
pub(super) struct Frame {
    pub(super) parent: Option<usize>,
    pub(super) label: String,
    pub(super) name: String,
    pub(super) fqn: String,
    pub(super) class_like: bool,
    pub(super) depth: usize,
    /// The class builder, for class-like frames.
    pub(super) builder: Option<usize>,
}

/// Every scope met so far in one file; frame 0 is the file itself.
pub(super) struct Scopes {
    frames: Vec<Frame>,
    /// The module the file stands for, named when no scope is.
    stem: String,
}

impl Scopes {
    /// The scopes of the file at `path`: only the file's own, so far.
    pub(super) fn new(path: &str) -> Scopes {
        Scopes {
            frames: vec![Frame {
                parent: None,
                label: String::new(),
                name: String::new(),
                fqn: String::new(),
                class_like: false,
                depth: 0,
                builder: None,
            }],
            stem: module_name(path),
        }
    }

    /// What a language table is told about `frame` while it classifies a child of `parent`.
    pub(super) fn context_for<'a>(&'a self, frame: usize, parent: Option<Node<'a>>) -> Context<'a> {
        let frame = &self.frames[frame];
        Context {
            in_class: frame.class_like,
            scope_name: (!frame.name.is_empty()).then_some(frame.name.as_str()),
            parent,
        }
    }

    /// Open a scope inside `parent`; its index.
    pub(super) fn push(
        &mut self,
        parent: usize,
        name: String,
        label: String,
        class_like: bool,
    ) -> usize {
        let parent_frame = &self.frames[parent];
        let fqn = join_fqn(&parent_frame.fqn, &name);
        let depth = parent_frame.depth + 1;
        self.frames.push(Frame {
            parent: Some(parent),
            label,
            name,
            fqn,
            class_like,
            depth,
            builder: None,
        });
        self.frames.len() - 1
    }

    /// The frame for scopes written into a symbol's name, below `frame`: the frame of a
    /// scope this file declares (`class Circle { ... }` above `Circle::area`), or a new one
    /// that serves only for context and FQN.
    pub(super) fn written(&mut self, frame: usize, scopes: &[(&'static str, String)]) -> usize {
        let mut current = frame;
        for (keyword, name) in scopes {
            let declared = self
                .frames
                .iter()
                .rposition(|known| known.parent == Some(current) && known.name == *name);
            current = match declared {
                Some(declared) => declared,
                None => self.push(current, name.clone(), format!("{keyword} {name}"), false),
            };
        }
        current
    }

    /// The context line's scopes: innermost first (outermost first for `outer_first`, then
    /// `own_label`).
    pub(super) fn context(
        &self,
        frame: usize,
        own_label: Option<&str>,
        outer_first: bool,
    ) -> String {
        let mut labels: Vec<&str> = Vec::new();
        let mut current = Some(frame);
        let mut truncated = false;
        while let Some(index) = current {
            let frame = &self.frames[index];
            if !frame.label.is_empty() {
                if labels.len() == MAX_CONTEXT_SCOPES {
                    truncated = true;
                    break;
                }
                labels.push(&frame.label);
            }
            current = frame.parent;
        }
        if outer_first {
            labels.reverse();
            labels.extend(own_label);
        }
        if labels.is_empty() {
            return format!("module {}", self.stem);
        }
        let mut context = labels.join(" > ");
        if truncated {
            context.push_str(" > …");
        }
        context
    }
}

impl Index<usize> for Scopes {
    type Output = Frame;

    fn index(&self, frame: usize) -> &Frame {
        &self.frames[frame]
    }
}

impl IndexMut<usize> for Scopes {
    fn index_mut(&mut self, frame: usize) -> &mut Frame {
        &mut self.frames[frame]
    }
}

/// `scope.name`, or whichever of the two is not empty.
pub(super) fn join_fqn(scope: &str, name: &str) -> String {
    match (scope.is_empty(), name.is_empty()) {
        (_, true) => scope.to_string(),
        (true, false) => name.to_string(),
        (false, false) => format!("{scope}.{name}"),
    }
}

/// The module a file stands for: its stem, or its directory for `__init__`, `mod`, `index`.
pub(super) fn module_name(path: &str) -> String {
    let path = Path::new(path);
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    if matches!(stem.as_str(), "__init__" | "mod" | "index" | "lib") {
        if let Some(directory) = path.parent().and_then(|p| p.file_name()) {
            return directory.to_string_lossy().into_owned();
        }
    }
    stem
}
