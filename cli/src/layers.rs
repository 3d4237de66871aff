//! ARCHITECTURE.md's "What never imports what", checked on the sources: each
//! folder of this crate names only the folders it may import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The leaf utilities, which anything may import and which import nothing.
const LEAVES: [&str; 3] = ["ansi", "out", "limits"];

/// What each folder may import besides itself and the leaves.
fn allowed(folder: &str) -> Option<&'static [&'static str]> {
    Some(match folder {
        "notebook" | "engine" => &[],
        "runner" => &["notebook", "engine"],
        "render" => &["notebook"],
        "course" => &["notebook", "runner", "render"],
        "kernel" => &["engine"],
        "ops" => &["notebook", "engine", "runner", "render", "course"],
        "bench" => &["notebook", "engine", "runner", "ops"],
        _ => return None,
    })
}

/// `text` without its unit tests (`#[cfg(test)]` on a `mod`, to the end of
/// the file, where this crate keeps them) and without comment lines.
fn code(text: &str) -> String {
    let mut end = text.len();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let at = from + at;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if rest.starts_with("mod ") {
            end = at;
            break;
        }
        from = at + 1;
    }
    text[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers at the top of a `use` tree that starts at `rest`: `a` for
/// `a::b`, `a` and `b` for `{a::x, b}`.
fn heads(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    let (mut depth, mut item, mut out) = (0, String::new(), Vec::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(ident(&item));
                item.clear();
                continue;
            }
            _ => {}
        }
        if depth == 0 {
            item.push(c);
        }
    }
    out.push(ident(&item));
    out.retain(|i| !i.is_empty() && i != "self");
    out
}

/// The top-level modules of this crate that the code of `text`, the file
/// `path` (relative to `src/`), names: through `crate::`, and through as
/// many `super::` as reach the crate root. Comments and unit tests aside.
fn named(path: &str, text: &str) -> BTreeSet<String> {
    let code = code(text);
    // The file's module path below the crate root.
    let mut module: Vec<&str> = path.trim_end_matches(".rs").split('/').collect();
    if module.last() == Some(&"mod") || module == ["lib"] || module == ["main"] {
        module.pop();
    }
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with("puzzlebook_") || code[..at].ends_with('$') {
            continue;
        }
        out.extend(heads(&code[at + "crate::".len()..]));
    }
    for (at, _) in code.match_indices("super::") {
        // Only the first of a run of `super::`.
        if code[..at].ends_with("::") {
            continue;
        }
        let mut rest = &code[at..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            up += 1;
        }
        if up >= module.len() {
            out.extend(heads(rest));
        }
    }
    out
}

/// Every `.rs` file under `dir`, by its path relative to `root`.
fn sources(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.insert(rel, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The rules broken in `files` (path relative to `src/` → text).
fn broken(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files {
        let folder = path.split_once('/').map(|(f, _)| f);
        let leaf = path.strip_suffix(".rs").filter(|s| LEAVES.contains(s));
        for module in named(path, text) {
            // The kernel's forked files name each other through the crate
            // root's re-exports, as upstream does.
            let module = match module.as_str() {
                "connection" | "control_file" | "jupyter_message" => "kernel".to_string(),
                // `out!` and `outln!` are `out.rs`'s, exported at the root.
                "outln" => "out".to_string(),
                _ => module,
            };
            let ok = match (folder, leaf) {
                (_, Some(own)) => module == own,
                (Some(f), None) => match allowed(f) {
                    Some(may) => {
                        module == f
                            || LEAVES.contains(&module.as_str())
                            || may.contains(&module.as_str())
                    }
                    // A folder the rules do not name: `cmd/` is the binary's.
                    None => true,
                },
                // lib.rs and main.rs.
                (None, None) => true,
            };
            if !ok {
                out.push(format!("{path} names crate::{module}"));
            }
        }
    }
    out
}

#[test]
fn no_folder_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&src, &src, &mut files);
    // Every folder is named by the rules (or is the binary's `cmd/`).
    for path in files.keys() {
        if let Some((folder, _)) = path.split_once('/') {
            assert!(
                allowed(folder).is_some() || folder == "cmd",
                "{folder}/ is in no rule of ARCHITECTURE.md"
            );
        }
    }
    assert!(files.len() > 50, "{:?}", files.keys());
    assert_eq!(broken(&files), Vec::<String>::new());
}

#[test]
fn a_name_of_a_higher_folder_is_caught_and_comments_and_tests_are_not() {
    let files: BTreeMap<String, String> = [
        ("render/html.rs", "use crate::notebook::ipynb::Notebook;\nuse crate::course::release;\n"),
        ("runner/stages.rs", "/// See [`crate::render::book`].\nuse crate::notebook::ipynb;\n#[cfg(test)]\nmod tests { use crate::render::book; }\n"),
        ("ansi.rs", "use crate::out;\n"),
        ("cmd/run.rs", "use puzzlebook_cli::ops;\n"),
        ("engine/hints.rs", "#[cfg(test)]\nfn helper() {}\nuse crate::{\n    notebook::ipynb,\n    ops::{self, run},\n};\n"),
        ("engine/mod.rs", "use super::kernel::serve;\n"),
        ("kernel/jupyter/core.rs", "use super::super::extension::Hooks;\nuse super::super::super::runner;\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    assert_eq!(
        broken(&files),
        [
            "ansi.rs names crate::out",
            "engine/hints.rs names crate::notebook",
            "engine/hints.rs names crate::ops",
            "engine/mod.rs names crate::kernel",
            "kernel/jupyter/core.rs names crate::runner",
            "render/html.rs names crate::course",
        ]
    );
}
