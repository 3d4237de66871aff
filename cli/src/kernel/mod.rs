//! The Jupyter kernel "Rust (puzzlebook)": its kernelspec ([`spec`]) and the
//! server Jupyter starts ([`serve`]).

// evcxr_jupyter's JSON macros (from its `main.rs`), for the forked files and
// for our additions, which build the same messages.
macro_rules! object {
    () => {
        serde_json::json!({})
    };
    ($($key:tt => $value:expr),* $(,)?) => {
        serde_json::json!({$($key: $value),*})
    };
    ($($key:tt : $value:expr),* $(,)?) => {
        serde_json::json!({$($key: $value),*})
    };
}

macro_rules! array {
    ($($value:expr),* $(,)?) => {
        serde_json::json!([$($value),*])
    };
}

pub mod cell_memory;
mod extension;
mod jupyter;
mod loading;
mod locks;
mod output_ends;
pub mod replay;
pub mod serve;
pub mod spec;
pub mod wire;

pub use loading::LOADING_NOTE;
