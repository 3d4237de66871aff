//! The Jupyter kernel "Rust (puzzlebook)": its kernelspec ([`spec`]) and the
//! server Jupyter starts ([`serve`]). `jupyter/` holds only the files forked
//! from evcxr_jupyter 0.22.0, with one-line hooks into puzzlebook's
//! additions beside it: [`extension`] (what the hooks call), [`loading`],
//! [`output_ends`], [`locks`], [`replay`], [`cell_memory`], [`shown`],
//! [`wire`], [`gone_clients`] and [`recv_in_place`];
//! the replies upstream does not give ([`requests`], [`is_complete`],
//! [`history`]) and the spec's fields it leaves out ([`outgoing`]).

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

mod busy;
pub mod cell_memory;
mod extension;
mod gone_clients;
mod history;
mod is_complete;
pub(crate) mod jupyter;
mod loading;
mod locks;
mod outgoing;
mod output_ends;
mod recv_in_place;
pub mod replay;
mod requests;
pub mod serve;
mod shown;
pub mod spec;
pub mod wire;

pub use loading::LOADING_NOTE;

/// The engine, as the server and our additions share it.
type Engine = std::sync::Arc<std::sync::Mutex<evcxr::CommandContext>>;
