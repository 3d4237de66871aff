//! The Jupyter kernel "Rust (puzzlebook)": its kernelspec ([`spec`]) and the
//! server Jupyter starts ([`serve`]).

mod jupyter;

pub use jupyter::LOADING_NOTE;
pub mod serve;
pub mod spec;
