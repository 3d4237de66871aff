//! Which libz3 the tests run on: the one this build was compiled against, and
//! under `scripts/with-z3-wheel`, the wheel's file, not the system's.

use puzzlebook::libz3::{self, BUILT_AGAINST};

#[test]
fn the_loaded_libz3_is_the_one_the_build_was_compiled_against() {
    let z3 = libz3::loaded();
    eprintln!("running on {z3}, built against Z3 {BUILT_AGAINST}");
    assert_eq!(z3.version, BUILT_AGAINST, "{z3}");
    let file = z3.file.expect("libz3 is loaded as a shared library");
    // scripts/with-z3-wheel names the folder the wheel's libz3 is in.
    if let Some(dir) = std::env::var_os("PUZZLEBOOK_Z3_LIB") {
        let dir = std::fs::canonicalize(dir).unwrap();
        assert!(
            file.starts_with(&dir),
            "loaded {} instead of the libz3 in {}",
            file.display(),
            dir.display()
        );
    }
}
