//! The Jupyter kernel "Rust (puzzlebook)": its kernelspec ([`spec`]) and the
//! server Jupyter starts ([`serve`]).

pub mod serve;
pub mod spec;
