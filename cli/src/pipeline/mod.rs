//! The notebook pipeline, in the order a notebook goes through it:
//! [`notebook`] (load) → [`hash`] and [`stages`] (freshness) → [`execute`]
//! (run the cells) → [`book`] (the files a chapter renders to: [`report`] with
//! [`markdown`] for org, [`html`] with [`highlight`] for the page, and its
//! figures) → [`stages`] (compare) → [`io`] (atomic writes). [`project`] wires the stages to a
//! checkout's files for `run`, `report` and `check`, by [`mode`].

pub mod book;
pub mod durations;
pub mod execute;
pub mod hash;
pub mod highlight;
pub mod html;
pub mod io;
pub mod markdown;
pub mod mode;
pub mod notebook;
pub mod project;
pub mod report;
pub mod stages;
