//! The library's integration tests, in one binary: one module per chapter,
//! plus the table goldens and the check that the library's dependency tree
//! stays free of the command's crates. Fixtures sit in `tests/golden/` and
//! `tests/writeups/`.

mod calculator;
mod common;
mod library_deps;
mod srat;
mod sum_product;
mod table_golden;
mod twenty_four;
