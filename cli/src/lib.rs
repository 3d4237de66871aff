//! The `puzzlebook` command's library, in layers (ARCHITECTURE.md): the
//! [`notebook`] model; the [`engine`] that evcxr runs in; the [`runner`] that
//! executes notebooks; the [`render`]ers; the [`course`] tools' stages; the
//! [`ops`] that wire them to a project's files; the Jupyter [`kernel`]; and
//! [`bench`]. The binary (`src/main.rs` and `src/cmd/`) parses arguments and
//! calls these.
//!
//! The chapters themselves live in the `puzzlebook` library, which notebooks
//! load with `:dep`; nothing here is compiled into a notebook.

pub mod ansi;
pub mod bench;
pub mod course;
pub mod engine;
pub mod kernel;
#[cfg(test)]
mod layers;
pub mod limits;
pub mod notebook;
pub mod ops;
pub mod out;
pub mod render;
pub mod runner;

// The kernel's files forked from evcxr_jupyter name each other from their
// crate's root (`crate::connection`), as upstream does; these re-exports keep
// those lines as upstream wrote them.
pub(crate) use kernel::jupyter::{connection, control_file, jupyter_message};
