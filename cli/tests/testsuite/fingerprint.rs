//! The fingerprint covers exactly what a notebook's `:dep puzzlebook` compiles:
//! editing the command leaves every notebook fresh, editing the library stales
//! them all.

use std::path::{Path, PathBuf};

use crate::common::root_dir;
use puzzlebook_cli::runner::hash::fingerprint;

/// A copy of the checkout's sources: the workspace manifest and lock, the
/// library, its shared polars and z3 libraries and the command.
fn copy_checkout() -> tempfile::TempDir {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let d = tempfile::tempdir().unwrap();
    for f in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(root_dir().join(f), d.path().join(f)).unwrap();
    }
    copy_dir(&root_dir().join("src"), &d.path().join("src"));
    for package in ["polars-dylib", "z3-dylib"] {
        copy_dir(&root_dir().join(package), &d.path().join(package));
    }
    copy_dir(&root_dir().join("cli/src"), &d.path().join("cli/src"));
    std::fs::copy(
        root_dir().join("cli/Cargo.toml"),
        d.path().join("cli/Cargo.toml"),
    )
    .unwrap();
    d
}

fn edit(path: PathBuf, f: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(&path).unwrap();
    let new = f(text.clone());
    assert_ne!(new, text, "the edit of {} changes it", path.display());
    std::fs::write(&path, new).unwrap();
}

/// Changes the version of `name`'s lock entry.
fn bump_lock(root: &Path, name: &str) {
    edit(root.join("Cargo.lock"), |t| {
        let at = t
            .find(&format!("\nname = \"{name}\"\nversion = \""))
            .unwrap_or_else(|| panic!("{name} is in Cargo.lock"));
        let v = at + format!("\nname = \"{name}\"\nversion = \"").len();
        format!("{}9{}", &t[..v], &t[v..])
    });
}

#[test]
fn editing_the_command_leaves_the_fingerprint_alone() {
    let d = copy_checkout();
    let before = fingerprint(d.path()).unwrap();
    edit(d.path().join("cli/src/main.rs"), |t| t + "\n// an edit\n");
    edit(d.path().join("cli/src/bench/mod.rs"), |t| {
        t + "\n// an edit\n"
    });
    edit(d.path().join("cli/Cargo.toml"), |t| t + "\n# an edit\n");
    // Lock entries only the command uses: the kernel's zeromq, clap, and
    // syntect for the pages.
    bump_lock(d.path(), "zeromq");
    bump_lock(d.path(), "clap");
    bump_lock(d.path(), "syntect");
    assert_eq!(fingerprint(d.path()).unwrap(), before);
}

#[test]
fn editing_the_library_or_its_locked_dependencies_changes_it() {
    let d = copy_checkout();
    let mut last = fingerprint(d.path()).unwrap();
    let mut changed = |what: &str| {
        let now = fingerprint(d.path()).unwrap();
        assert_ne!(now, last, "{what} changes the fingerprint");
        last = now;
    };
    edit(d.path().join("src/lib.rs"), |t| t + "\n// an edit\n");
    changed("src/lib.rs");
    edit(d.path().join("src/sum_product/frame.rs"), |t| {
        t + "\n// an edit\n"
    });
    changed("a nested library file");
    std::fs::write(d.path().join("src/new_module.rs"), "").unwrap();
    changed("a new library file");
    edit(d.path().join("polars-dylib/src/lib.rs"), |t| {
        t + "\n// an edit\n"
    });
    changed("the shared polars library, which notebook 04 compiles");
    edit(d.path().join("z3-dylib/build.rs"), |t| t + "\n// an edit\n");
    changed("the shared z3 library's build script, which every notebook compiles");
    edit(d.path().join("z3-dylib/src/z3-functions.txt"), |t| {
        t + "Z3_an_edit\n"
    });
    changed("the list of Z3 functions its build checks");
    bump_lock(d.path(), "polars-core");
    changed("a transitive dependency's lock entry");
    bump_lock(d.path(), "z3-sys");
    changed("z3-sys's lock entry");
}
