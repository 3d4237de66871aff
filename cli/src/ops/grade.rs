//! `puzzlebook grade`: the teacher's notebook run once to write the
//! reference answers; each submission checked against it and assembled
//! into the student release ([`crate::course::submission`]), run past its
//! failing cells, in a sandbox of its own ([`sandboxed`]) or trusted
//! ([`jobs`]), handing its answers over as data; each answer judged with
//! the grader's own Z3 ([`puzzlebook::grade::judge`]) and scored
//! ([`crate::course::scoring`]); then, once every run is over, the grades
//! and feedback pages written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use puzzlebook::grade::handed::{self, Reference, HAND_IN_VAR, REFERENCE_VAR};
use puzzlebook::grade::inputs;
use puzzlebook::grade::judge::Judgement;

use super::jobs::{self, Job};
use super::paths::Project;
use super::run::lock;
use super::sandboxed::{HandedOver, Ran};
use super::{judging, sandbox, sandboxed, RunnerError};
use crate::course::gradebook::{self, Graded};
use crate::course::scoring;
use crate::course::sheets;
use crate::course::submission::{self, Source};
use crate::course::{feedback, submission::Assembled};
use crate::engine::{self, BuildDirLock, EngineError};
use crate::notebook::chapter::{self, Chapter};
use crate::notebook::io;
use crate::notebook::ipynb::{CellKind, Notebook};

/// What to grade, and where the grades go.
#[derive(Debug, Clone)]
pub struct Grading {
    /// The teacher's notebook, hidden tests included.
    pub source: PathBuf,
    /// The students' notebooks.
    pub submissions: Vec<PathBuf>,
    /// Where `grades.csv` and `feedback/` go.
    pub out: PathBuf,
    /// Whether each submission runs in a sandbox of its own
    /// ([`super::sandbox`]); without, every submission is trusted.
    pub sandbox: bool,
    /// The seed exercises draw their inputs from
    /// ([`puzzlebook::grade::inputs`]); `None` for one made from the
    /// teacher's notebook and the submissions ([`default_seed`]).
    pub seed: Option<u64>,
}

/// The seed made from the teacher's notebook and the submissions' contents
/// (not their names or order): the first eight bytes of a SHA-1 over them.
/// Students never see the teacher's notebook, so they cannot know the
/// inputs before they are graded; the same submissions graded again draw
/// the same inputs, and another set (late work, another group) draws
/// others, so inputs seen on one feedback page are of little use later.
pub fn default_seed(source: &Notebook, submissions: &[PathBuf]) -> u64 {
    use sha1::{Digest, Sha1};
    // One that cannot be read is reported for its student later.
    let mut each: Vec<[u8; 20]> = submissions
        .iter()
        .map(|f| Sha1::digest(std::fs::read(f).unwrap_or_default()).into())
        .collect();
    each.sort_unstable();
    let mut h = Sha1::new();
    h.update(source.to_json().as_bytes());
    for digest in each {
        h.update(digest);
    }
    let digest = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
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
    /// The seed the exercises' inputs were drawn from.
    pub seed: u64,
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
    let seed = g
        .seed
        .unwrap_or_else(|| default_seed(&source_nb, &g.submissions));
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
                sheets: BTreeMap::new(),
            }),
        }
    }
    let mut warm = source.nb.clone();
    submission::pin_dep_paths(&mut warm, &source_dir);
    let how = if g.sandbox {
        How::Sandboxed {
            warm_up: warm_up(&warm),
            seen: what_is_seen(project, g, &source_dir, &warm),
        }
    } else {
        How::Trusted
    };
    class.extend(run_and_score(project, &source, &warm, &ready, &how, seed)?);
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
        not_graded: class
            .iter()
            .filter(|c| match &c.marks {
                Ok(marks) => marks.iter().any(|m| m.status == scoring::Status::NotGraded),
                Err(_) => true,
            })
            .count(),
        wrote,
        seed,
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

/// How the submissions run.
enum How {
    /// Each in its own sandbox, over a build folder that the source's
    /// `:dep` cells (`warm_up`) build first, unless the folder's note says
    /// they built it already ([`engine::warm`]).
    Sandboxed {
        warm_up: Option<Notebook>,
        seen: sandboxed::Seen,
    },
    /// In this process's engines, trusted.
    Trusted,
}

/// The source's code cells up to its last with a `:dep` line (their paths
/// absolute): what builds the crates every submission uses.
fn warm_up(source: &Notebook) -> Option<Notebook> {
    let has_dep = |c: &crate::notebook::ipynb::NotebookCell| {
        c.kind == CellKind::Code && crate::engine::has_dep_line(&c.source)
    };
    let last = source.cells.iter().rposition(has_dep)?;
    let mut nb = source.clone();
    nb.cells.truncate(last + 1);
    nb.cells.retain(|c| c.kind == CellKind::Code);
    Some(nb)
}

/// What of `warm_up`'s own decides what it builds, as parts of its key
/// ([`engine::warm::key`] adds the toolchain, the environment and the build
/// folder's): its evcxr commands (the `:dep` lines, paths absolute), the
/// checkout's `Cargo.lock`, which pins their dependencies, and for each crate
/// they name, its fingerprint and each of its files' time (cargo rebuilds by
/// times, a file touched or checked out again too). None, so that the
/// warm-up always runs, when a `:dep` line does not name exactly one crate
/// by absolute path, or a crate is not one whose sources the fingerprint
/// covers (a puzzlebook checkout's layout).
fn warm_up_parts(root: &Path, warm_up: &Notebook) -> Option<Vec<String>> {
    let lock = root.join("Cargo.lock");
    let mut parts = vec![
        crate::runner::hash::CAPTURE_FORMAT.to_string(),
        std::fs::read_to_string(&lock).ok()?,
        engine::warm::stamp(&lock),
    ];
    for cell in warm_up.code_cells() {
        for line in cell.cell.source.lines().map(str::trim) {
            if line.starts_with(":dep") && sandboxed::line_paths(line).len() != 1 {
                return None;
            }
            if line.starts_with(':') {
                parts.push(line.to_string());
            }
        }
    }
    for path in sandboxed::dep_paths(warm_up) {
        parts.push(crate::runner::hash::fingerprint(&path).ok()?);
        for file in crate::runner::hash::library_files(&path).ok()? {
            parts.push(engine::warm::stamp(&path.join(file)));
        }
    }
    Some(parts)
}

/// The folders of a course checkout that hold the teacher's notebooks, the
/// reports made from them, the tests' right and wrong answers, and the
/// history of all three: hidden in a checkout a sandbox is shown, since
/// they hold every hidden test.
const TEACHERS_FOLDERS: [&str; 4] = [".git", "notebooks", "reports", "cli/tests"];

/// What every sandbox sees read-only (the crates the source's `:dep` lines
/// name, the toolchain), and what none sees even there: the source notebook
/// and its folder (a crate inside it is still shown), each
/// submission, the output folder, the teacher's folders of the project and
/// of each crate shown ([`TEACHERS_FOLDERS`]), cargo's credentials, and the
/// system's files that are not for everyone to read.
fn what_is_seen(
    project: &Project,
    g: &Grading,
    source_dir: &Path,
    source: &Notebook,
) -> sandboxed::Seen {
    // The teacher's `:dep` lines only: a submission's solution cell could
    // name any folder in one.
    let crates = sandboxed::dep_paths(source);
    let teachers: Vec<PathBuf> = std::iter::once(&project.root)
        .chain(&crates)
        .flat_map(|root| TEACHERS_FOLDERS.map(|f| root.join(f)))
        .chain(std::iter::once(project.reports.clone()))
        .collect();
    // Never the whole machine, whatever a variable names.
    let read_only: Vec<PathBuf> = crates
        .into_iter()
        .chain(sandboxed::environment_paths())
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p.parent().is_some())
        .collect();
    let cargo = sandboxed::cargo_home();
    let credentials = [cargo.join("credentials.toml"), cargo.join("credentials")];
    let mut hidden: Vec<PathBuf> = std::iter::once(&g.source)
        .chain(&g.submissions)
        .chain(std::iter::once(&g.out))
        .chain(&teachers)
        .chain(&credentials)
        .filter_map(|p| p.canonicalize().ok())
        .chain(sandbox::private_system_files())
        .collect();
    // A crate inside it is still shown, the deeper rule winning; a crate
    // that is the folder itself would be hidden whole, so then only the
    // source is.
    if !read_only.iter().any(|p| p == source_dir) {
        hidden.push(source_dir.to_path_buf());
    }
    hidden.sort();
    hidden.dedup();
    sandboxed::Seen { read_only, hidden }
}

/// The reference run's label.
const REFERENCE_RUN: &str = "the teacher's notebook (the reference run)";

/// Runs the teacher's notebook `reference_nb` once, for the reference
/// answers, and the ready submissions, up to `project.jobs` at once, each
/// past its failing cells, handing its answers over; and judges and scores
/// them.
fn run_and_score(
    project: &Project,
    source: &Source,
    reference_nb: &Notebook,
    ready: &[Ready],
    how: &How,
    seed: u64,
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
    let ids: Vec<String> = source.exercises.iter().map(|e| e.id.clone()).collect();
    let (references, mut ran) = match how {
        How::Trusted => run_trusted(
            project,
            &held,
            folder.path(),
            reference_nb,
            ready,
            &ids,
            seed,
        )?,
        How::Sandboxed { warm_up, seen } => run_sandboxed(
            project,
            &held,
            folder.path(),
            reference_nb,
            ready,
            warm_up.as_ref(),
            seen,
            &ids,
            seed,
        )?,
    };
    let mut class = Vec::new();
    for (i, r) in ready.iter().enumerate() {
        let mut drawn = BTreeMap::new();
        let marks = match ran.remove(&i) {
            Some(Ok(_)) if engine::interrupted() => return Err(RunnerError::Interrupted),
            Some(Ok(run)) => {
                let scratch = folder.path().join("judging").join(i.to_string());
                let judged = judge_all(&references, &run.handed, &scratch);
                let _ = std::fs::remove_dir_all(&scratch);
                for (id, judgement) in &judged {
                    let figures = references
                        .get(id)
                        .map(|r| sheets::drawn(&r.exercise, judgement))
                        .unwrap_or_default();
                    if !figures.is_empty() {
                        drawn.insert(id.clone(), figures);
                    }
                }
                Ok(scoring::score(&source.exercises, &run.cells, &judged))
            }
            Some(Err(why)) => Err(why),
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
            sheets: drawn,
        });
    }
    Ok(class)
}

/// Each exercise's reference, from the reference run, which must have run
/// every cell cleanly (the teacher's own solutions pass the teacher's own
/// tests) and written a reference for every exercise.
fn references(ran: Ran, ids: &[String]) -> Result<BTreeMap<String, Reference>, RunnerError> {
    if let Some(e) = ran.cells.iter().find_map(|c| c.as_ref().err()) {
        return Err(RunnerError::Reference(format!(
            "failed, and grading needs it to pass its own tests: {}",
            scoring::failure(e)
        )));
    }
    let mut out = BTreeMap::new();
    for id in ids {
        let read = match ran.handed.get(id) {
            Some(Ok(Some(bytes))) => handed::from_bytes::<Reference>(bytes).map_err(|e| {
                RunnerError::Reference(format!(
                    "wrote a reference for exercise {id} that cannot be read: {e}"
                ))
            })?,
            Some(Err(why)) => {
                return Err(RunnerError::Reference(format!(
                    "wrote a reference for exercise {id} that cannot be read: {why}"
                )))
            }
            Some(Ok(None)) | None => {
                return Err(RunnerError::Reference(format!(
                    "checked no answer for exercise {id}: its test cell must hand the answer in with `grade::hand_in` (or `hand_in_number`, `hand_in_set`, `Answer`) in its visible part and check it with `answer.check…` in its hidden tests (docs/teaching.md, \"The exercise format\")"
                )))
            }
        };
        if read.parts.is_empty() {
            return Err(RunnerError::Reference(format!(
                "wrote a reference for exercise {id} with nothing to check"
            )));
        }
        if read.exercise.id != *id {
            return Err(RunnerError::Reference(format!(
                "wrote exercise {}'s reference for exercise {id}",
                read.exercise.id
            )));
        }
        out.insert(id.clone(), read);
    }
    Ok(out)
}

/// Each exercise's judgement of what a run handed over, each in a process
/// of its own ([`judging`]) with its files under `scratch`.
fn judge_all(
    references: &BTreeMap<String, Reference>,
    handed: &HandedOver,
    scratch: &Path,
) -> BTreeMap<String, Judgement> {
    references
        .iter()
        .map(|(id, reference)| {
            let answer = handed.get(id).cloned().unwrap_or(Ok(None));
            let judged = judging::judge_apart(reference, &answer, &scratch.join(id));
            (id.clone(), judged)
        })
        .collect()
}

/// Each exercise's reference, and each submission's cells and answers or
/// why it has none, by index.
type Runs = (
    BTreeMap<String, Reference>,
    BTreeMap<usize, Result<Ran, String>>,
);

/// [`Runs`] in this process's engines, trusted: the reference run first,
/// alone (it builds a cold build folder), then the submissions.
fn run_trusted(
    project: &Project,
    held: &BuildDirLock,
    folder: &Path,
    reference_nb: &Notebook,
    ready: &[Ready],
    ids: &[String],
    seed: u64,
) -> Result<Runs, RunnerError> {
    let hand_over = |name: &str| -> Result<PathBuf, RunnerError> {
        let dir = folder.join(name);
        std::fs::create_dir_all(&dir)
            .and_then(|()| inputs::write_seed(&dir, seed))
            .map_err(|e| io::IoError::Write {
                path: dir.clone(),
                source: e,
            })?;
        Ok(dir)
    };
    let mut one = project.clone();
    one.jobs = 1;
    let reference_dir = hand_over("reference")?;
    let job = Job {
        index: 0,
        label: REFERENCE_RUN,
        nb: reference_nb,
        hand_over: Some((REFERENCE_VAR, reference_dir.clone())),
    };
    let mut reference = None;
    for (_, out) in jobs::execute_at_once(&one, &held.dir, folder, &[job], true)? {
        let (cells, _took) = out?;
        reference = Some(Ran {
            cells,
            handed: sandboxed::read_handed(&reference_dir, ids),
        });
    }
    if engine::interrupted() {
        return Err(RunnerError::Interrupted);
    }
    // Read, checked and gone before any submission runs: a trusted run's
    // cells share the working folder this is in.
    let references = references(reference.ok_or(RunnerError::Interrupted)?, ids)?;
    let _ = std::fs::remove_dir_all(&reference_dir);
    let mut dirs = Vec::new();
    for i in 0..ready.len() {
        dirs.push(hand_over(&format!("hand-in-{i}"))?);
    }
    let jobs_list: Vec<Job<'_>> = ready
        .iter()
        .enumerate()
        .map(|(index, r)| Job {
            index,
            label: &r.label,
            nb: &r.assembled.nb,
            hand_over: Some((HAND_IN_VAR, dirs[index].clone())),
        })
        .collect();
    let ran = jobs::execute_at_once(project, &held.dir, folder, &jobs_list, true)?
        .into_iter()
        .map(|(i, ran)| {
            let ran = ran
                .map(|(cells, _took)| Ran {
                    cells,
                    handed: sandboxed::read_handed(&dirs[i], ids),
                })
                .map_err(|e| e.to_string());
            (i, ran)
        })
        .collect();
    Ok((references, ran))
}

/// [`Runs`], each in a sandbox of its own, over the build folder, in which
/// `warm_up` (the teacher's `:dep` cells, trusted) runs first, outside, to
/// build what they need, unless the folder's note says that it did and that
/// nothing can have changed since ([`engine::warm`], [`warm_up_parts`]). The reference run is
/// sandboxed too, so that the cells it compiles, hidden tests and all, stay
/// in its own view of the build folder; it starts first, and the submissions
/// run beside it, though none starts once it has failed.
#[allow(clippy::too_many_arguments)]
fn run_sandboxed(
    project: &Project,
    held: &BuildDirLock,
    folder: &Path,
    reference_nb: &Notebook,
    ready: &[Ready],
    warm_up: Option<&Notebook>,
    seen: &sandboxed::Seen,
    ids: &[String],
    seed: u64,
) -> Result<Runs, RunnerError> {
    sandbox::check_available(&folder.join("trial"))?;
    let needs_crate =
        reference_nb.depends_on_crate() || ready.iter().any(|r| r.assembled.nb.depends_on_crate());
    // Unless the folder's last warm-up had the same key and no dependency
    // was built there since: a folder built for another notebook may lack
    // this one's features, and each sandbox would build them again in its
    // own view.
    let key = |parts: &Vec<String>| engine::warm::key(parts, &held.dir, folder);
    let before = warm_up.and_then(|nb| warm_up_parts(&project.root, nb));
    let has_crate = !held.cold && engine::has_built_crate(&held.dir);
    let built = has_crate
        && before
            .as_ref()
            .and_then(key)
            .is_some_and(|k| engine::warm::is_current(&held.dir, &k));
    let mut warmed = None;
    if let Some(nb) = warm_up.filter(|_| !built) {
        if !has_crate {
            eprintln!(
                "note: building the crates the notebook's :dep cells name in {}, once, before any submission runs",
                held.dir.display()
            );
        }
        let mut one = project.clone();
        one.jobs = 1;
        let job = Job {
            index: 0,
            label: "the source's :dep cells",
            nb,
            hand_over: None,
        };
        for (_, ran) in jobs::execute_at_once(&one, &held.dir, folder, &[job], false)? {
            ran?;
        }
        if engine::interrupted() {
            return Err(RunnerError::Interrupted);
        }
        // Its inputs again: a crate edited while it ran may not be built.
        warmed = before.filter(|p| warm_up_parts(&project.root, nb).as_ref() == Some(p));
    }
    engine::pin_versions(&project.root, &held.dir, needs_crate)?;
    // Every sandbox sees the build folder; the cells a teacher's `report` or
    // a trusted grade compiled there hold hidden tests.
    if let Some(left) = engine::forget_cells(&held.dir).into_iter().next() {
        return Err(EngineError::Io {
            path: left,
            source: std::io::Error::other(
                "cannot remove what earlier runs compiled in the build folder, which may hold hidden tests; remove it, or grade with another build folder (EVCXR_TMPDIR)",
            ),
        }
        .into());
    }
    // Recorded once the folder holds only what the next grade will find,
    // under the key taken now: the warm-up may have run build scripts whose
    // inputs the key covers, for the first time.
    if let Some(k) = warmed.as_ref().and_then(key) {
        if let Err(e) = engine::warm::record(&held.dir, &k) {
            eprintln!(
                "warning: cannot write {} ({e}); the next grade will run the notebook's :dep cells again",
                engine::warm::note_path(&held.dir).display()
            );
        }
    }
    let base = held.dir.canonicalize().map_err(|source| EngineError::Io {
        path: held.dir.clone(),
        source,
    })?;
    // What each run may see: the grade's own folder is hidden too, should
    // TMPDIR be somewhere shown, since the reference's files and the other
    // submissions' are there while they run.
    let seen = sandboxed::Seen {
        read_only: seen.read_only.clone(),
        hidden: seen
            .hidden
            .iter()
            .cloned()
            .chain(folder.canonicalize().ok())
            .collect(),
    };
    // The reference run first, and the submissions beside it: one
    // submission at `-j 2` runs while the reference does.
    let reference_index = ready.len();
    let reference_job = sandboxed::Job {
        index: reference_index,
        label: REFERENCE_RUN,
        nb: reference_nb,
        hand_over: REFERENCE_VAR,
        vital: true,
        seed,
    };
    let submissions: Vec<sandboxed::Job<'_>> = ready
        .iter()
        .enumerate()
        .map(|(index, r)| sandboxed::Job {
            index,
            label: &r.label,
            nb: &r.assembled.nb,
            hand_over: HAND_IN_VAR,
            vital: false,
            seed,
        })
        .collect();
    let all: Vec<sandboxed::Job<'_>> = std::iter::once(reference_job.clone())
        .chain(submissions.iter().cloned())
        .collect();
    let mut ran: BTreeMap<usize, Result<Ran, String>> =
        sandboxed::run_all(project, &base, folder, &all, &seen, ids)
            .into_iter()
            .collect();
    if engine::interrupted() {
        return Err(RunnerError::Interrupted);
    }
    let mut reference = ran.remove(&reference_index);
    // A submission running beside it may have taken what it needed (the
    // user's processes, memory): once more, alone, before the teacher's
    // notebook is blamed; then the submissions its failure kept from
    // starting.
    // Submissions that started: beside it, at `-j 2` and more.
    let beside = project.jobs > 1 && !ran.is_empty();
    if beside && !reference.as_ref().is_some_and(sandboxed::ran_cleanly) {
        eprintln!(
            "note: the teacher's notebook failed while submissions ran beside it; running it once more, alone"
        );
        let mut one = project.clone();
        one.jobs = 1;
        reference = sandboxed::run_all(&one, &base, folder, &[reference_job], &seen, ids)
            .pop()
            .map(|(_, r)| r);
        if engine::interrupted() {
            return Err(RunnerError::Interrupted);
        }
        if reference.as_ref().is_some_and(sandboxed::ran_cleanly) {
            let left: Vec<sandboxed::Job<'_>> = submissions
                .into_iter()
                .filter(|j| !ran.contains_key(&j.index))
                .collect();
            ran.extend(sandboxed::run_all(
                project, &base, folder, &left, &seen, ids,
            ));
            if engine::interrupted() {
                return Err(RunnerError::Interrupted);
            }
        }
    }
    let references = match reference {
        Some(Ok(reference)) => references(reference, ids)?,
        Some(Err(why)) => return Err(RunnerError::Reference(format!("did not run: {why}"))),
        None => return Err(RunnerError::Interrupted),
    };
    Ok((references, ran))
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

    #[test]
    fn the_warm_up_key_follows_the_crate_s_files_and_needs_a_path_for_every_dep() {
        // A copy of this checkout's library: what a `:dep` compiles.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let copy = tempfile::tempdir().unwrap();
        let files = crate::runner::hash::library_files(root).unwrap();
        for rel in files.iter().chain([&PathBuf::from("Cargo.lock")]) {
            let to = copy.path().join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(root.join(rel), &to).unwrap();
        }
        let build = copy.path().join("build");
        let notebook = |dep: &str| {
            let cells = serde_json::json!([{"cell_type": "code", "metadata": {}, "outputs": [],
                "execution_count": null, "source": format!("{dep}\nuse puzzlebook::prelude::*;")}]);
            let text = serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells});
            Notebook::parse(&text.to_string()).unwrap()
        };
        let by_path = notebook(&format!(
            ":dep puzzlebook = {{ path = {:?}, features = [\"z3-dylib\"] }}",
            copy.path().display().to_string()
        ));
        let warm_up_key = |nb: &Notebook| {
            let parts = warm_up_parts(copy.path(), nb)?;
            Some(engine::warm::key(&parts, &build, copy.path()).expect("rustc and cargo on PATH"))
        };
        let key = || warm_up_key(&by_path);
        let first = key().expect("a key for a crate named by absolute path");
        assert_eq!(key().as_ref(), Some(&first));
        // A source file touched, its contents the same: cargo rebuilds it.
        let lib = copy.path().join("src/lib.rs");
        let f = std::fs::File::options().write(true).open(&lib).unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
            .unwrap();
        drop(f);
        assert_ne!(key().as_ref(), Some(&first));
        // A crate from the registry, a relative path, a name with "path" in
        // it: no key, so the warm-up always runs.
        for dep in [
            ":dep rand = \"0.8\"",
            ":dep pathfinding = \"4\"",
            ":dep puzzlebook = { path = \"..\" }",
        ] {
            assert_eq!(warm_up_key(&notebook(dep)), None, "{dep}");
        }
    }
}
