//! The z3 crate, built as one Rust shared library for notebook cells.
//!
//! evcxr compiles each notebook cell into a shared object and links every
//! dependency into it. With the z3 crate linked statically, each cell had a
//! copy of its own, with its own thread-local Z3 context, so a `Solver` made
//! in one cell crashed the process when a later cell used it. Through this
//! crate (the `z3-dylib` feature of `puzzlebook`) every cell, and the
//! library's own code, link one `libpuzzlebook_z3_dylib-<hash>.so`: one z3
//! crate, one context per thread, and Z3 values cross cells.
//!
//! A shared library binds every Z3 function the z3 crate calls when it is
//! loaded, where a static link kept only those a cell used. On a libz3 older
//! than the z3 crate supports (Debian 12's 4.8.12), some are missing; the
//! build script then builds `libpuzzlebook_z3_compat.so` with a stand-in for
//! each function the found libz3 lacks, and links it *after* libz3, so the
//! loader prefers a real function wherever libz3 has one. A stand-in says
//! which function the cell called and which Z3 it needs, and ends the process
//! (README, "Z3 versions").
//!
//! The `puzzlebook` command and the tests link z3 statically, as any Rust
//! program does.

/// The `z3` crate, re-exported whole.
pub use z3;

/// The `z3-sys` crate, re-exported whole.
pub use z3_sys;
