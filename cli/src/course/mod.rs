//! The course tools' stages: a teacher's notebook to its student
//! [`release`]; a student's [`submission`] to the notebook to grade; the
//! executed run to points ([`scoring`]), to `grades.csv` ([`gradebook`]) and
//! to a page per student ([`feedback`]), with an exercise's answer sheets
//! drawn ([`sheets`]).

pub mod feedback;
pub mod gradebook;
pub mod release;
pub mod scoring;
pub mod sheets;
pub mod submission;
