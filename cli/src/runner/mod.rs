//! Executing notebooks: the result [`hash`] and the pure [`stages`] that
//! decide what is fresh, [`execute`] (the cells in order through evcxr,
//! what they print drained and capped by [`collect`]), the
//! [`durations`] kept between runs, the runner's [`mode`]s, and the
//! results as JSON for a run in another process ([`handover`]). Imports
//! `notebook` and `engine`, never a renderer, the course tools or `ops`.

pub mod collect;
pub mod durations;
pub mod execute;
pub mod handover;
pub mod hash;
pub mod mode;
pub mod stages;
