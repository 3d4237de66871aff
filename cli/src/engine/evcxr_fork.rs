//! The vendored evcxr (`cli/vendor/evcxr`) stays the crate crates.io
//! publishes plus lines that name puzzlebook: the check that keeps it so.

use sha2::{Digest, Sha256};
use std::path::Path;

/// The vendored crate's folder.
fn vendored() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/vendor/evcxr"))
}

/// `text` without its lines that name puzzlebook (our hooks), and how many
/// those were.
fn without_hooks(text: &str) -> (String, usize) {
    let (mut kept, mut hooks) = (String::new(), 0);
    for line in text.split_inclusive('\n') {
        if line.contains("puzzlebook") {
            hooks += 1;
        } else {
            kept.push_str(line);
        }
    }
    (kept, hooks)
}

#[test]
fn vendored_evcxr_is_the_published_crate_plus_marked_lines() {
    let sums = std::fs::read_to_string(vendored().join("PUBLISHED.sha256")).unwrap();
    let mut hooks = Vec::new();
    let mut published = Vec::new();
    for line in sums.lines() {
        let (sum, path) = line.split_once("  ").expect("sha256sum's format");
        let path = path.strip_prefix("./").unwrap_or(path);
        published.push(path.to_string());
        let bytes = std::fs::read(vendored().join(path)).unwrap();
        let bytes = match String::from_utf8(bytes) {
            Ok(text) => {
                let (kept, n) = without_hooks(&text);
                if n > 0 {
                    hooks.push((path.to_string(), n));
                }
                kept.into_bytes()
            }
            Err(e) => e.into_bytes(),
        };
        assert_eq!(
            hex::encode(Sha256::digest(&bytes)),
            sum,
            "{path} differs from evcxr 0.22.0 as published, in lines that do not name puzzlebook"
        );
    }
    // The hooks PUZZLEBOOK.md lists, and no more.
    hooks.sort();
    assert_eq!(
        hooks,
        [
            ("src/eval_context.rs".to_string(), 5),
            ("src/lib.rs".to_string(), 1)
        ]
    );
    // Every file beside the published ones is ours, and says so.
    let mut ours = Vec::new();
    let mut stack = vec![vendored().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(vendored()).unwrap();
            let rel = rel.to_string_lossy().into_owned();
            if !published.contains(&rel) && rel != "PUBLISHED.sha256" {
                ours.push(rel);
            }
        }
    }
    ours.sort();
    assert_eq!(ours, ["PUZZLEBOOK.md", "src/puzzlebook.rs"]);
}

#[test]
fn a_changed_line_that_does_not_name_puzzlebook_is_seen() {
    let base = "fn a() {\n    42\n}\n";
    let hooked = "fn a() {\n    // puzzlebook: a hook\n    42\n}\n";
    assert_eq!(without_hooks(hooked), (base.to_string(), 1));
    let changed = "fn a() {\n    43\n}\n";
    assert_ne!(without_hooks(changed).0, base);
}
