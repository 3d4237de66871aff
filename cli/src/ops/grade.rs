//! `puzzlebook grade`: each submission checked against the source notebook
//! and assembled ([`crate::course::submission`]), run past its failing
//! cells from a temporary folder ([`jobs`]), scored
//! ([`crate::course::scoring`]); then, once every run is over, the grades
//! and feedback pages written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::jobs::{self, Job};
use super::paths::Project;
use super::run::lock;
use super::RunnerError;
use crate::course::gradebook::{self, Graded};
use crate::course::scoring;
use crate::course::submission::{self, Source};
use crate::course::{feedback, submission::Assembled};
use crate::engine;
use crate::notebook::chapter::{self, Chapter};
use crate::notebook::io;
use crate::notebook::ipynb::Notebook;

/// What to grade, and where the grades go.
#[derive(Debug, Clone)]
pub struct Grading {
    /// The teacher's notebook, hidden tests included.
    pub source: PathBuf,
    /// The students' notebooks.
    pub submissions: Vec<PathBuf>,
    /// Where `grades.csv` and `feedback/` go.
    pub out: PathBuf,
}

/// What grading did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The table for the terminal.
    pub summary: String,
    /// How many submissions could not be graded.
    pub not_graded: usize,
    /// The files written.
    pub wrote: Vec<PathBuf>,
}

/// A submission ready to run.
struct Ready {
    student: String,
    file: String,
    label: String,
    assembled: Assembled,
}

/// Grades every submission against the source. A submission that cannot be
/// read, or belongs to another notebook, is reported for its student, and
/// the others are graded. Nothing is written before every run has ended,
/// and nothing at all after an interrupt; nothing is ever written next to
/// a submission or the source.
pub fn grade(project: &Project, g: &Grading) -> Result<Outcome, RunnerError> {
    let source_nb = io::load_notebook(&g.source)?;
    let title = Chapter::of(&source_nb, &project.label(&g.source)).title;
    let source = Source::new(source_nb).map_err(|e| RunnerError::Exercises {
        path: g.source.clone(),
        source: e,
    })?;
    if source.exercises.is_empty() {
        return Err(RunnerError::NoExercises(g.source.clone()));
    }
    let source_dir = std::fs::canonicalize(super::paths::folder_of(&g.source)).map_err(|e| {
        io::IoError::Read {
            path: g.source.clone(),
            source: e,
        }
    })?;
    let mut class: Vec<Graded> = Vec::new();
    let mut ready: Vec<Ready> = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for path in &g.submissions {
        let file = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let prepared = prepare(&source, &source_dir, path, &g.source);
        let student = match &prepared {
            Ok((student, _)) => student.clone(),
            Err((Some(student), _)) => student.clone(),
            Err((None, _)) => chapter::stem(&file),
        };
        let prepared = match seen.get(&student) {
            Some(first) => Err(format!(
                "another submission, {first}, is from {student} too; grade one of them, or rename one so that each names its student"
            )),
            None => prepared.map_err(|(_, why)| why),
        };
        seen.entry(student.clone())
            .or_insert_with(|| path.display().to_string());
        match prepared {
            Ok((_, assembled)) => ready.push(Ready {
                student,
                file,
                label: path.display().to_string(),
                assembled,
            }),
            Err(why) => class.push(Graded {
                student,
                file,
                marks: Err(why),
                changed: Vec::new(),
                answers: BTreeMap::new(),
            }),
        }
    }
    class.extend(run_and_score(project, &source, &ready)?);
    if engine::interrupted() {
        return Err(RunnerError::Interrupted);
    }
    let exercises: Vec<(String, f64)> = source
        .exercises
        .iter()
        .map(|e| (e.id.clone(), e.max()))
        .collect();
    let notebook = chapter::stem(&project.label(&g.source));
    let csv = gradebook::csv(&notebook, &exercises, &class);
    let pages = g.out.join("feedback");
    std::fs::create_dir_all(&pages).map_err(|e| io::IoError::Write {
        path: pages.clone(),
        source: e,
    })?;
    let mut wrote = Vec::new();
    class.sort_by(|a, b| a.student.cmp(&b.student));
    for graded in &class {
        let page = io::inside(&pages, &format!("{}.html", page_name(&graded.student)))?;
        io::write_atomic(&page, &feedback::page(&title, graded))?;
        wrote.push(page);
    }
    let grades = g.out.join("grades.csv");
    io::write_atomic(&grades, &csv)?;
    wrote.push(grades);
    Ok(Outcome {
        summary: gradebook::summary(&exercises, &class),
        not_graded: class.iter().filter(|c| c.marks.is_err()).count(),
        wrote,
    })
}

/// A submission's student and its assembled notebook, or why it cannot be
/// graded (with the student, when known).
fn prepare(
    source: &Source,
    source_dir: &Path,
    path: &Path,
    source_path: &Path,
) -> Result<(String, Assembled), (Option<String>, String)> {
    // The folder of `./03-twenty-four.ipynb` has a name only once resolved;
    // the file's own name stays as given (a link keeps its name).
    let resolved = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            dir.canonicalize()
                .map_or_else(|_| path.to_path_buf(), |d| d.join(name))
        }
        _ => path.to_path_buf(),
    };
    let student =
        submission::student_of(&resolved, source_path).map_err(|e| (None, e.to_string()))?;
    let nb = io::load_notebook(path).map_err(|e| (Some(student.clone()), e.to_string()))?;
    let mut assembled = source
        .assemble(&nb)
        .map_err(|e| (Some(student.clone()), format!("{}: {e}", path.display())))?;
    submission::pin_dep_paths(&mut assembled.nb, source_dir);
    Ok((student, assembled))
}

/// Runs the ready submissions, up to `project.jobs` at once, each past its
/// failing cells, with a temporary folder as the working directory; and
/// scores them.
fn run_and_score(
    project: &Project,
    source: &Source,
    ready: &[Ready],
) -> Result<Vec<Graded>, RunnerError> {
    if ready.is_empty() {
        return Ok(Vec::new());
    }
    let held = lock(project)?;
    let folder = tempfile::Builder::new()
        .prefix("puzzlebook-grade-")
        .tempdir()
        .map_err(|e| io::IoError::Write {
            path: std::env::temp_dir(),
            source: e,
        })?;
    // A cold build folder is built by the first submission alone: more
    // engines would each build z3 and polars at the same time.
    let mut at_once = project.clone();
    if held.cold || !engine::has_built_crate(&held.dir) {
        at_once.jobs = 1;
    }
    let jobs_list: Vec<Job<'_>> = ready
        .iter()
        .enumerate()
        .map(|(index, r)| Job {
            index,
            label: &r.label,
            nb: &r.assembled.nb,
        })
        .collect();
    let mut ran: BTreeMap<usize, _> =
        jobs::execute_at_once(&at_once, &held.dir, folder.path(), &jobs_list, true)?
            .into_iter()
            .collect();
    let mut class = Vec::new();
    for (i, r) in ready.iter().enumerate() {
        let marks = match ran.remove(&i) {
            Some(Ok((cells, _took))) => Ok(scoring::score(&source.exercises, &cells)),
            Some(Err(e)) => Err(e.to_string()),
            None if engine::interrupted() => return Err(RunnerError::Interrupted),
            None => Err("it did not run, because an earlier engine failed".to_string()),
        };
        class.push(Graded {
            student: r.student.clone(),
            file: r.file.clone(),
            marks,
            changed: r
                .assembled
                .changed
                .iter()
                .map(ToString::to_string)
                .chain(r.assembled.missing.iter().map(|id| {
                    format!(
                        "the solution cell {id} is missing; the exercise's stub ran in its place"
                    )
                }))
                .collect(),
            answers: answers(source, &r.assembled.nb),
        });
    }
    Ok(class)
}

/// Each exercise's solution cell in the graded notebook, as the student
/// wrote it.
fn answers(source: &Source, nb: &Notebook) -> BTreeMap<String, String> {
    let code: Vec<&str> = nb.code_cells().map(|c| c.cell.source.as_str()).collect();
    source
        .exercises
        .iter()
        .filter_map(|e| {
            let n = e.solution?;
            Some((e.id.clone(), code.get(n - 1)?.to_string()))
        })
        .collect()
}

/// The file name of a student's feedback page: the student's name, with
/// anything but ASCII letters, digits, `-` and `_` made `_` (a submission
/// whose name could not name its student still gets a page).
fn page_name(student: &str) -> String {
    let name: String = student
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .collect();
    if name.is_empty() {
        "_".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_name_is_the_student_with_unsafe_characters_replaced() {
        assert_eq!(page_name("alice_b-2"), "alice_b-2");
        assert_eq!(page_name("c d"), "c_d");
        assert_eq!(page_name("../x"), "___x");
        assert_eq!(page_name(""), "_");
    }
}
