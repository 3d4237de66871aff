//! The Jupyter protocol server: a fork of evcxr_jupyter 0.22.0's (`core`,
//! `connection`, `control_file`, `jupyter_message`; Apache-2.0 or MIT, see
//! `LICENSE`), changed where puzzlebook's kernel needs hooks it does not offer.
//!
//! The changes, all in `core.rs` and marked `puzzlebook:`:
//! - the crate is loaded (`:load_config`, which builds z3, polars and
//!   puzzlebook in a cold slot) while the kernel already answers
//!   `kernel_info_request`, so Jupyter's 60-second start-up timeout holds
//!   (a cold build folder is first given a warm one's build, on that thread);
//! - a cell that arrives before the load is done waits with progress as
//!   stream output, and an interrupt stops the wait;
//! - completion and inspection answer empty while the load holds the engine;
//! - after each cell, a variable that holds a Z3 value is named at once, and a
//!   later cell's SIGSEGV repeats it (as the runner does, [`crate::pipeline::execute`]);
//! - cells are numbered from 1 (evcxr_jupyter's first result said 2);
//! - a message's signature is checked before anything in it is parsed, and
//!   no bytes on a socket can panic the kernel ([`crate::kernel::wire`]);
//! - the engine's lock survives a panic in a request that held it, and such a
//!   panic fails that cell alone ([`crate::kernel::locks`]);
//! - a cell whose `?` returned an error gets an error reply, so nbconvert
//!   stops there ([`crate::cell_process`] marks it);
//! - after a cell ends the process that runs cells (a crash, an abort, the
//!   memory limit), the session's earlier cells run again in the new one,
//!   their output muted, and the cell says so ([`crate::kernel::replay`]).

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

mod connection;
mod control_file;
mod core;
mod jupyter_message;

pub use self::core::LOADING_NOTE;

/// Serves the kernel on the connection file `control_file` until Jupyter
/// shuts it down; `before_load` runs on the loading thread, while the kernel
/// already answers, before the crate is loaded; `before_dep` runs before each
/// cell that has a `:dep` command.
pub fn run(
    control_file: &std::path::Path,
    before_load: impl FnOnce() + Send + 'static,
    before_dep: impl Fn() + Send + Sync + 'static,
) -> anyhow::Result<()> {
    let config = control_file::Control::parse_file(&control_file.to_string_lossy())?;
    core::Server::run(
        &config,
        Box::new(before_load),
        std::sync::Arc::new(before_dep),
    )
}
