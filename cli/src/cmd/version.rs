//! `puzzlebook --version`: the command's version, and the libz3 it loaded.

use puzzlebook::libz3;

/// `0.1.0`, then `Z3 4.8.12 (/usr/lib/…/libz3.so.4), built against 4.8.12`,
/// then a note when the Z3 is older than the z3 crate supports, untested, or
/// not the one the build was compiled against.
pub fn long_version() -> &'static str {
    let z3 = libz3::loaded();
    let mut text = format!(
        "{}\n{z3}, built against Z3 {}",
        env!("CARGO_PKG_VERSION"),
        libz3::BUILT_AGAINST
    );
    if let Some(note) = z3.support_note() {
        for line in note.lines() {
            text.push_str("\nnote: ");
            text.push_str(line);
        }
    }
    // clap keeps the text for the life of the process, which is this one call.
    Box::leak(text.into_boxed_str())
}
