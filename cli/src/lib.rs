//! The `puzzlebook` command's library: the notebook [`pipeline`], the evcxr
//! [`engine`] set-up, the Jupyter [`kernel`], and the [`solve`] and [`bench`]
//! commands' work, within the machine's [`limits`]. The binary (`src/main.rs` and `src/cmd/`) parses arguments
//! and calls these.
//!
//! The chapters themselves live in the `puzzlebook` library, which notebooks
//! load with `:dep`; nothing here is compiled into a notebook.

pub mod ansi;
pub mod bench;
pub mod cell_process;
pub mod engine;
pub mod hints;
pub mod kernel;
pub mod limits;
pub mod out;
pub mod parent;
pub mod pipeline;
pub mod solve;
