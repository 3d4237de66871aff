//! The model, with no evcxr in it: the `.ipynb` format ([`ipynb`]), a
//! notebook as a chapter of the book ([`chapter`]), and reading and writing
//! files ([`io`]), and nbgrader's cell metadata ([`nbgrader`]). Imports
//! nothing else of this crate.

pub mod chapter;
pub mod io;
pub mod ipynb;
pub mod nbgrader;
