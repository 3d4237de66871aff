//! The library a notebook loads with `:dep` builds none of the command's
//! dependencies: `cargo tree -p puzzlebook` shows no evcxr, clap or indicatif.
//! Without its `polars` or `polars-dylib` feature it builds no polars either.

use std::process::Command;

/// `cargo tree` of the library's normal dependencies, one crate per line,
/// with `features` and any `extra` arguments.
fn cargo_tree(features: &[&str], extra: &[&str]) -> String {
    let mut c = Command::new(env!("CARGO"));
    c.args([
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
    .args(extra);
    for f in features {
        c.args(["--features", f]);
    }
    let out = c.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The library's normal dependency tree, one crate per line, with `features`.
fn tree(features: &[&str]) -> String {
    cargo_tree(features, &[])
}

fn has(tree: &str, krate: &str) -> bool {
    tree.lines().any(|l| l.starts_with(krate))
}

#[test]
fn the_notebook_dependency_pulls_in_no_evcxr() {
    for features in [&[][..], &["polars"], &["polars-dylib"]] {
        let tree = tree(features);
        assert!(has(&tree, "z3 v0.22"), "{tree}");
        for banned in ["evcxr", "clap ", "indicatif", "pulldown-cmark"] {
            assert!(
                !has(&tree, banned),
                "{banned} is in the notebook's dependency tree with {features:?}"
            );
        }
    }
}

#[test]
fn polars_comes_only_with_its_feature() {
    assert!(!has(&tree(&[]), "polars"), "{}", tree(&[]));
    assert!(has(&tree(&["polars"]), "polars v0.55"));
}

#[test]
fn polars_dylib_brings_polars_through_its_shared_library_only() {
    assert!(has(&tree(&["polars-dylib"]), "puzzlebook-polars-dylib v"));
    // What depends on polars directly: the shared library alone, so no cell
    // links a second, static copy beside it.
    let inverted = cargo_tree(&["polars-dylib"], &["--invert", "polars", "--depth", "1"]);
    let dependents: Vec<&str> = inverted
        .lines()
        .skip(1)
        .map(|l| l.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(dependents, ["puzzlebook-polars-dylib"]);
}
