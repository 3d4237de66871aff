//! The notebook pipeline, in the order a notebook goes through it:
//! [`notebook`] (load, and name the code cells) → [`hash`] and [`stages`]
//! (freshness) → [`execute`] (run the cells) → [`chapter`] (the model: a
//! notebook as a chapter, the chapters in order, the names of their files) →
//! the renderers on top of it, [`report`] with [`markdown`] (org) and
//! [`html`] with [`highlight`] (the page) → [`book`] on top of both (every
//! file a chapter renders to, and the table of contents) → [`stages`]
//! (compare) → [`io`] (atomic writes). [`exercise`] sits beside them: a
//! stage from a teacher's notebook to its student release; and grading:
//! [`submission`] (a student's notebook → the notebook to grade) →
//! [`execute`] → [`scoring`] (points by nbgrader's rules) → [`gradebook`]
//! (`grades.csv`, the summary) and [`feedback`] (a page per student). No
//! module imports one after it in these lists. [`project`] wires the stages
//! to a checkout's files for `run`, `report`, `check` (by [`mode`]) and
//! `grade`.

pub mod book;
pub mod chapter;
pub mod durations;
pub mod execute;
pub mod exercise;
pub mod feedback;
pub mod gradebook;
pub mod hash;
pub mod highlight;
pub mod html;
pub mod io;
pub mod markdown;
pub mod mode;
pub mod notebook;
pub mod project;
pub mod report;
pub mod scoring;
pub mod stages;
pub mod submission;
