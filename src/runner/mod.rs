//! The `puzzlebook` command's stages: load notebook → execute → render report →
//! compare, with file I/O at the edges ([`io`]) and the modes in [`mode`].

pub mod bench;
pub mod commands;
pub mod execute;
pub mod hash;
pub mod io;
pub mod kernel;
pub mod kernelspec;
pub mod markdown;
pub mod mode;
pub mod notebook;
pub mod report;
pub mod solve;
pub mod stages;
