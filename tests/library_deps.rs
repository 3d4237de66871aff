//! The library a notebook loads with `:dep` builds none of the command's
//! dependencies: `cargo tree -p puzzlebook` shows no evcxr, clap or indicatif.

use std::process::Command;

#[test]
fn the_notebook_dependency_pulls_in_no_evcxr() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            "puzzlebook",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--manifest-path",
        ])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(tree.contains("z3 v0.22"), "{tree}");
    assert!(tree.contains("polars v0.55"), "{tree}");
    for banned in ["evcxr", "clap ", "indicatif", "pulldown-cmark"] {
        assert!(
            !tree.lines().any(|l| l.starts_with(banned)),
            "{banned} is in the notebook's dependency tree"
        );
    }
}
