//! A walk measured against what an index already holds: an index sync compares each file's
//! size and modification time with the ones it recorded, here, so that the unchanged files of
//! a large tree (nearly all of them, nearly always) never reach Python.

use std::collections::HashMap;

use super::report::WalkedFile;

/// A file an index recorded: its path (relative, `/`-separated), size and modification time
/// (signed, as SQLite keeps them: a damaged record compares unequal, it does not fail).
pub type KnownFile = (String, i64, i64);

/// The walk's files against the recorded ones.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// New files, and recorded ones whose size or modification time differs, in walk order.
    pub changed: Vec<WalkedFile>,
    /// Recorded files the walk found with the recorded size and modification time.
    pub unchanged: usize,
    /// Recorded paths the walk did not find (deleted, or ignored now), sorted.
    pub missing: Vec<String>,
}

/// Split `files` into changed and unchanged against `known`, and list the known paths no file
/// of the walk has.
pub fn changes(files: Vec<WalkedFile>, known: Vec<KnownFile>) -> Changes {
    let mut recorded: HashMap<String, (i64, i64)> = known
        .into_iter()
        .map(|(path, size, mtime_ns)| (path, (size, mtime_ns)))
        .collect();
    let mut result = Changes::default();
    for file in files {
        match recorded.remove(&file.path) {
            Some(stat) if stat == (recorded_size(file.size), file.mtime_ns) => {
                result.unchanged += 1
            }
            _ => result.changed.push(file),
        }
    }
    result.missing = recorded.into_keys().collect();
    result.missing.sort_unstable();
    result
}

/// A walked size as the records keep it (no real file reaches `i64::MAX` bytes).
fn recorded_size(size: u64) -> i64 {
    i64::try_from(size).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Language, Tier};

    fn file(path: &str, size: u64, mtime_ns: i64) -> WalkedFile {
        WalkedFile {
            path: path.to_string(),
            size,
            mtime_ns,
            language: Language::Python,
            tier: Tier::Ast,
        }
    }

    #[test]
    fn changed_new_unchanged_and_missing() {
        let files = vec![
            file("damaged.py", 5, 5),
            file("a.py", 10, 5),
            file("b.py", 10, 6),
            file("c.py", 11, 5),
            file("new.py", 1, 1),
        ];
        let known = vec![
            ("a.py".to_string(), 10, 5),
            ("b.py".to_string(), 10, 5),
            ("c.py".to_string(), 10, 5),
            ("gone/z.py".to_string(), 3, 3),
            ("gone/y.py".to_string(), 3, 3),
            ("damaged.py".to_string(), -5, 5),
        ];
        let result = changes(files, known);
        let changed: Vec<&str> = result.changed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(changed, ["damaged.py", "b.py", "c.py", "new.py"]);
        assert_eq!(result.unchanged, 1);
        assert_eq!(result.missing, ["gone/y.py", "gone/z.py"]);
    }

    #[test]
    fn nothing_known_means_everything_changed() {
        let result = changes(vec![file("a.py", 1, 1)], Vec::new());
        assert_eq!(result.changed.len(), 1);
        assert_eq!((result.unchanged, result.missing.len()), (0, 0));
    }
}
