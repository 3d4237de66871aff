//! polars, built as a Rust shared library for notebook cells.
//!
//! evcxr compiles each notebook cell into a shared object and links every
//! dependency into it. For polars that is about 450 MB of archives for the
//! linker to read per cell, most of a polars cell's compile time. Through this
//! crate (the `polars-dylib` feature of `puzzlebook`) a cell links one
//! `libpuzzlebook_polars_dylib.so` instead, and every cell of a kernel shares
//! that one copy of polars (BENCHMARKS.md, "Cell latency").
//!
//! The `puzzlebook` command and the tests use the library's plain `polars`
//! feature, which links polars statically as any Rust program does.

/// The `polars` crate, re-exported whole.
pub use polars;
