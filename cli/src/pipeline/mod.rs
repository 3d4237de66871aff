//! The notebook pipeline, in the order a notebook goes through it:
//! [`notebook`] (load) → [`hash`] and [`stages`] (freshness) → [`execute`]
//! (run the cells) → [`report`] with [`markdown`] (render org) → [`stages`]
//! (compare) → [`io`] (atomic writes). [`project`] wires the stages to a
//! checkout's files for `run`, `report` and `check`, by [`mode`].

pub mod execute;
pub mod hash;
pub mod io;
pub mod markdown;
pub mod mode;
pub mod notebook;
pub mod project;
pub mod report;
pub mod stages;
