//! The library's integration tests, in one binary: one module per chapter
//! and one for grading by meaning,
//! plus the table goldens, which libz3 the tests loaded, and the check that the library's dependency tree
//! stays free of the command's crates. Fixtures sit in `tests/golden/` and
//! `tests/writeups/`.

mod calculator;
mod common;
mod grade;
mod library_deps;
mod srat;
mod sum_product;
mod table_golden;
mod twenty_four;
mod z3;
