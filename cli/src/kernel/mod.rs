//! The Jupyter kernel "Rust (puzzlebook)": its kernelspec ([`spec`]) and the
//! server Jupyter starts ([`serve`]).

mod jupyter;

pub use jupyter::LOADING_NOTE;
pub mod cell_memory;
mod locks;
pub mod replay;
pub mod serve;
pub mod spec;
pub mod wire;
