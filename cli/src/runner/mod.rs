//! Executing notebooks: the result [`hash`] and the pure [`stages`] that
//! decide what is fresh, [`execute`] (the cells in order through evcxr,
//! what they print drained and capped by [`collect`]), the
//! [`durations`] kept between runs, and the runner's [`mode`]s. Imports
//! `notebook` and `engine`, never a renderer, the course tools or `ops`.

pub mod collect;
pub mod durations;
pub mod execute;
pub mod hash;
pub mod mode;
pub mod stages;
