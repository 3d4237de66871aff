//! `report` and `check`: load every notebook, plan what each needs, execute
//! (here or in [`super::jobs`]), then write or compare its files in order,
//! the table of contents, and one closing line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::jobs::{self, Job, Ran};
use super::paths::{folder_of, Project};
use super::progress::Took;
use super::run::{lock, run_cells};
use super::{RunnerError, Verdict};
use crate::engine::{self, BuildDirLock};
use crate::notebook::chapter::{Book, Chapter, INDEX};
use crate::notebook::io;
use crate::notebook::ipynb::Notebook;
use crate::render::book;
use crate::runner::durations::{self, Durations};
use crate::runner::execute;
use crate::runner::mode::Mode;
use crate::runner::stages::{self, FileState, Staleness};

/// A notebook as loaded, with its rendered files as they are on disk.
struct Loaded {
    path: PathBuf,
    /// The path as shown.
    label: String,
    nb: Notebook,
    chapter: Chapter,
    /// Its files in the reports folder, by path relative to it.
    on_disk: BTreeMap<String, String>,
}

/// What a mode does with one notebook ([`Session::plan`]).
struct Plan {
    /// Its rendered files as its committed outputs give them.
    committed: BTreeMap<String, String>,
    /// How it is stale.
    stale: Vec<Staleness>,
    /// Whether its cells run.
    run: bool,
}

/// A notebook executed: with its new outputs and hashes, and what that took.
struct Executed {
    nb: Notebook,
    took: Took,
}

/// What `report` and `check` share while they go through the notebooks: the
/// build-folder lock, taken when the first notebook executes.
struct Session<'a> {
    project: &'a Project,
    fingerprint: String,
    book: Book,
    lock: Option<BuildDirLock>,
    /// How long notebooks took, read from the build folder when it is locked;
    /// `timed` says whether this run added any.
    durations: Durations,
    timed: bool,
    /// How many notebooks ran, and how many did not need to, for the summary.
    executed: usize,
    up_to_date: usize,
    /// The Z3 version this run executes on, which executed notebooks record.
    z3: String,
}

/// `puzzlebook report` / `puzzlebook check`, by mode.
pub fn report(project: &Project, given: &[PathBuf], mode: Mode) -> Result<Verdict, RunnerError> {
    let paths = project.notebooks(given)?;
    // Load everything first: a malformed notebook stops the run before any work.
    let loaded = paths
        .iter()
        .map(|p| {
            let label = project.label(p);
            let nb = io::load_notebook(p)?;
            let chapter = Chapter::of(&nb, &label);
            Ok(Loaded {
                path: p.clone(),
                on_disk: io::read_rendered(&project.reports, &chapter)?,
                nb,
                chapter,
                label,
            })
        })
        .collect::<Result<Vec<Loaded>, RunnerError>>()?;
    let book = project.book(|label| loaded.iter().find(|l| l.label == label).map(|l| &l.nb))?;
    let mut session = Session {
        project,
        fingerprint: project.fingerprint()?,
        book,
        lock: None,
        durations: Durations::default(),
        timed: false,
        executed: 0,
        up_to_date: 0,
        z3: puzzlebook::libz3::loaded().version,
    };
    let plans: Vec<Plan> = loaded.iter().map(|l| session.plan(l, mode)).collect();
    let todo: Vec<usize> = (0..loaded.len()).filter(|&i| plans[i].run).collect();
    let mut at_once = session.execute_at_once(&loaded, &todo)?;
    let mut verdict = Verdict::Ok;
    for (i, (l, plan)) in loaded.iter().zip(plans).enumerate() {
        let ran = at_once.remove(&i);
        let v = match mode {
            Mode::Check { .. } => session.check_one(l, plan, ran)?,
            Mode::Update { .. } => session.update_one(l, plan, ran)?,
        };
        if v == Verdict::Differences {
            verdict = v;
        }
    }
    if session.index(mode)? == Verdict::Differences {
        verdict = Verdict::Differences;
    }
    session.save_durations();
    if matches!(mode, Mode::Update { .. }) {
        let reports = project.label(&project.reports);
        eprintln!(
            "{}",
            summary(session.executed, session.up_to_date, &reports)
        );
    }
    Ok(verdict)
}

impl Session<'_> {
    /// What `mode` does with one notebook: its files as committed, how stale
    /// they are, and whether its cells run.
    fn plan(&self, l: &Loaded, mode: Mode) -> Plan {
        let committed = book::files(&l.nb, &l.chapter, &self.book);
        let stale = stages::staleness(&l.nb, &committed, &l.on_disk, &self.fingerprint);
        let run = match mode {
            Mode::Check { execute } => execute,
            Mode::Update { force } => {
                force || stale.iter().any(|s| matches!(s, Staleness::Cells(_)))
            }
        };
        Plan {
            committed,
            stale,
            run,
        }
    }

    /// The notebook `l` executed: as [`jobs`] already did (`ran`), or now.
    fn executed(&mut self, l: &Loaded, ran: Option<Ran>) -> Result<Executed, RunnerError> {
        let (outputs, took) = match ran {
            Some(ran) => {
                let (cells, took) = ran?;
                (execute::first_failure(cells)?, took)
            }
            None => {
                let project = self.project;
                let lock = self.locked()?;
                run_cells(project, lock, &l.path, &l.nb, false, false)?
            }
        };
        self.durations.set(&l.label, took.secs);
        self.timed = true;
        let hashes = stages::expected_hashes(&l.nb, &self.fingerprint);
        let mut nb = stages::apply_outputs(&l.nb, outputs, &hashes);
        nb.set_z3(&self.z3);
        Ok(Executed { nb, took })
    }

    /// Checks one notebook: its hashes and rendered files, and when the plan
    /// runs it, its outputs. Ends with one line saying how it stands.
    fn check_one(
        &mut self,
        l: &Loaded,
        plan: Plan,
        ran: Option<Ran>,
    ) -> Result<Verdict, RunnerError> {
        let label = &l.label;
        let Plan { stale, run, .. } = plan;
        let mut verdict = Verdict::Ok;
        if !stale.is_empty() {
            verdict = Verdict::Differences;
            self.describe(label, &stale);
        }
        if !run {
            if stale.is_empty() {
                crate::outln!("{label}: up to date");
            }
            return Ok(verdict);
        }
        let mut executed = self.executed(l, ran)?;
        if let Some(recorded) = l.nb.z3().filter(|z3| *z3 != self.z3) {
            // Results Z3 chooses may differ on another Z3 and still be right;
            // the tests check them by meaning on both (docs/z3-versions.md).
            let (nb, tagged, differed) = stages::across_engines(&l.nb, executed.nb);
            executed.nb = nb;
            crate::outln!(
                "{label}: executed on Z3 {}, its outputs are from Z3 {recorded}: {}; every other output is compared byte for byte",
                self.z3,
                z3_dependent(tagged, &differed)
            );
        }
        let rendered = book::files(&executed.nb, &l.chapter, &self.book);
        let mut diffs = vec![stages::diff(
            &l.nb.to_json(),
            &executed.nb.to_json(),
            label,
            &format!("{label} (executed)"),
        )];
        for (name, _) in stages::file_changes(&rendered, &l.on_disk) {
            let shown = self.project.report_label(&name);
            diffs.push(stages::diff(
                l.on_disk.get(&name).map(String::as_str).unwrap_or_default(),
                rendered.get(&name).map(String::as_str).unwrap_or_default(),
                &shown,
                &format!("{shown} (executed)"),
            ));
        }
        let mut same = true;
        for d in diffs.into_iter().flatten() {
            same = false;
            crate::out!("{d}");
        }
        let took = executed.took;
        if same {
            crate::outln!("{label}: {took}; outputs identical");
        } else {
            verdict = Verdict::Differences;
            crate::outln!("{label}: {took}; outputs differ (diff above)");
        }
        Ok(verdict)
    }

    /// Brings one notebook and its rendered files up to date, writing each
    /// atomically and removing figures it no longer draws. Ends with one line
    /// saying what happened.
    fn update_one(
        &mut self,
        l: &Loaded,
        plan: Plan,
        ran: Option<Ran>,
    ) -> Result<Verdict, RunnerError> {
        if engine::interrupted() {
            return Err(RunnerError::Interrupted);
        }
        let label = &l.label;
        let Plan { committed, run, .. } = plan;
        let (nb, rendered, took) = if run {
            self.executed += 1;
            let executed = self.executed(l, ran)?;
            if let Some(recorded) = l.nb.z3().filter(|z3| *z3 != self.z3) {
                crate::outln!(
                    "{label}: executed on Z3 {}; its outputs were from Z3 {recorded}",
                    self.z3
                );
            }
            let rendered = book::files(&executed.nb, &l.chapter, &self.book);
            (executed.nb, rendered, Some(executed.took))
        } else {
            self.up_to_date += 1;
            (l.nb.clone(), committed, None)
        };
        let new_nb = nb.to_json();
        if engine::interrupted() {
            return Err(RunnerError::Interrupted);
        }
        // Every path is checked before anything is written.
        let changes = stages::file_changes(&rendered, &l.on_disk)
            .into_iter()
            .map(|(name, state)| Ok((io::inside(&self.project.reports, &name)?, name, state)))
            .collect::<Result<Vec<_>, io::IoError>>()?;
        let mut wrote = Vec::new();
        if run && l.nb.to_json() != new_nb {
            io::write_atomic(&l.path, &new_nb)?;
            wrote.push(label.clone());
        }
        let mut figures = 0;
        for (path, name, state) in changes {
            match state {
                FileState::LeftOver => io::remove(&path)?,
                FileState::Missing | FileState::Differs => {
                    io::write_atomic(&path, &rendered[&name])?;
                    if name.starts_with("figures/") {
                        figures += 1;
                    } else {
                        wrote.push(self.project.report_label(&name));
                    }
                }
            }
        }
        if figures > 0 {
            wrote.push(format!(
                "{figures} figure{}",
                if figures == 1 { "" } else { "s" }
            ));
        }
        crate::outln!("{label}: {}", updated(took, &wrote));
        Ok(Verdict::Ok)
    }

    /// Writes (update) or checks (check) the table of contents.
    fn index(&self, mode: Mode) -> Result<Verdict, RunnerError> {
        let path = self.project.reports.join(INDEX);
        let shown = self.project.report_label(INDEX);
        let new = book::index(&self.book);
        if io::read_optional(&path)?.as_deref() == Some(new.as_str()) {
            return Ok(Verdict::Ok);
        }
        match mode {
            Mode::Update { .. } => {
                io::write_atomic(&path, &new)?;
                crate::outln!("wrote {shown}");
                Ok(Verdict::Ok)
            }
            Mode::Check { .. } => {
                crate::outln!("{shown}: out of date with the notebooks; run `puzzlebook report`");
                Ok(Verdict::Differences)
            }
        }
    }

    fn describe(&self, label: &str, stale: &[Staleness]) {
        for s in stale {
            match s {
                Staleness::Cells(cells) => {
                    // Hashes chain, so the stale cells are the first one and all after it.
                    let (pos, name) = &cells[0];
                    crate::outln!(
                        "{label}: stale from cell {pos} ({name}) on, {} code cell{}; run `puzzlebook report`",
                        cells.len(),
                        if cells.len() == 1 { "" } else { "s" }
                    );
                }
                Staleness::Files(files) => {
                    for (name, state) in files {
                        let shown = self.project.report_label(name);
                        let why = match state {
                            FileState::Missing => "missing, rendered from",
                            FileState::Differs => "out of date with",
                            FileState::LeftOver => "left over, no longer rendered from",
                        };
                        crate::outln!("{shown}: {why} {label}; run `puzzlebook report`");
                    }
                }
            }
        }
    }

    /// The build folder's lock, taken on first use, when the notebooks' last
    /// times are read from the folder too.
    fn locked(&mut self) -> Result<&BuildDirLock, RunnerError> {
        if self.lock.is_none() {
            let held = lock(self.project)?;
            // Only a hint for the order of `-j`: unreadable is as good as missing.
            let text = io::read_optional(&held.dir.join(durations::FILE));
            self.durations = Durations::parse(&text.ok().flatten().unwrap_or_default());
            self.lock = Some(held);
        }
        Ok(self.lock.as_ref().expect("locked above"))
    }

    /// Keeps the times of the notebooks this run executed in the build folder,
    /// for the next `-j` run's order. Failing to is not an error of the run.
    fn save_durations(&self) {
        let (Some(lock), true) = (&self.lock, self.timed) else {
            return;
        };
        if let Err(e) = io::write_atomic(&lock.dir.join(durations::FILE), &self.durations.to_tsv())
        {
            eprintln!(
                "warning: {e}; the next run with -j may start its notebooks in a worse order"
            );
        }
    }

    /// Executes the notebooks `todo` (indexes into `loaded`) at once with
    /// [`jobs::execute_at_once`], longest first by their last times
    /// ([`Durations::start_order`]), when that can help: with `-j` above 1,
    /// two notebooks or more, a build folder already built (a cold one is
    /// built by the first notebook; more engines would each build z3 and
    /// polars again at the same time), and the notebooks in one folder (the
    /// engines share the process's working directory). Otherwise it returns
    /// nothing, and the notebooks execute one at a time as they are written.
    fn execute_at_once(
        &mut self,
        loaded: &[Loaded],
        todo: &[usize],
    ) -> Result<BTreeMap<usize, Ran>, RunnerError> {
        let folders: Vec<PathBuf> = todo
            .iter()
            .map(|&i| folder_of(&loaded[i].path))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let (true, 2.., [folder]) = (self.project.jobs > 1, todo.len(), folders.as_slice()) else {
            return Ok(BTreeMap::new());
        };
        let base = self.locked()?.dir.clone();
        if !engine::has_built_crate(&base) {
            return Ok(BTreeMap::new());
        }
        let labelled: Vec<(usize, &str)> = todo
            .iter()
            .map(|&i| (i, loaded[i].label.as_str()))
            .collect();
        let order: Vec<Job<'_>> = self
            .durations
            .start_order(&labelled)
            .into_iter()
            .map(|i| Job {
                index: i,
                label: &loaded[i].label,
                nb: &loaded[i].nb,
                hand_over: None,
            })
            .collect();
        Ok(
            jobs::execute_at_once(self.project, &base, folder, &order, false)?
                .into_iter()
                .collect(),
        )
    }
}

/// What `report` did with one notebook, after its label: whether it executed
/// (and what that took), and which files it wrote.
fn updated(took: Option<Took>, wrote: &[String]) -> String {
    let wrote = match wrote {
        [] => None,
        files => Some(format!("wrote {}", files.join(", "))),
    };
    match (took, wrote) {
        (Some(took), Some(wrote)) => format!("{took}; {wrote}"),
        (Some(took), None) => format!("{took}; nothing changed"),
        (None, Some(wrote)) => format!("up to date, not executed; {wrote}"),
        (None, None) => "up to date, not executed".to_string(),
    }
}

/// What `report` did and where, for a person: how many notebooks ran, where
/// the reports are, and how to run them all again.
fn summary(executed: usize, up_to_date: usize, reports: &str) -> String {
    let total = executed + up_to_date;
    let plural = |n: usize, s: &str| format!("{n} {s}{}", if n == 1 { "" } else { "s" });
    let what = match (executed, up_to_date) {
        (_, 0) => format!("{} executed", plural(total, "notebook")),
        (0, 1) => "1 notebook, up to date: its hashes matched, so it did not execute".into(),
        (0, _) => format!(
            "{total} notebooks, all up to date: their hashes matched, so none executed"
        ),
        _ => format!(
            "{}: {executed} executed, {up_to_date} up to date (their hashes matched, so they did not execute)",
            plural(total, "notebook")
        ),
    };
    format!(
        "{what}. The reports are in {reports}/.\n\
         To execute every notebook again: puzzlebook report --force"
    )
}

/// What `check` says of the z3-dependent cells that differed on another Z3.
fn z3_dependent(tagged: usize, differed: &[String]) -> String {
    match differed {
        [] if tagged == 0 => "no cell is tagged z3-dependent".into(),
        [] => "the z3-dependent outputs are the same".into(),
        names => format!(
            "z3-dependent output{} differ{} ({}), not compared",
            if names.len() == 1 { "" } else { "s" },
            if names.len() == 1 { "s" } else { "" },
            names.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_notebook_gets_one_line_that_says_what_happened() {
        let took = Some(Took {
            cells: 17,
            secs: 220.0,
        });
        let files = ["notebooks/a.ipynb".to_string(), "2 figures".to_string()];
        assert_eq!(
            updated(took, &files),
            "executed 17 cells in 220.0s; wrote notebooks/a.ipynb, 2 figures"
        );
        assert_eq!(
            updated(took, &[]),
            "executed 17 cells in 220.0s; nothing changed"
        );
        assert_eq!(updated(None, &[]), "up to date, not executed");
        assert_eq!(
            updated(None, &["reports/a.html".to_string()]),
            "up to date, not executed; wrote reports/a.html"
        );
    }

    #[test]
    fn the_summary_counts_only_what_happened() {
        let end = ". The reports are in reports/.\nTo execute every notebook again: puzzlebook report --force";
        assert_eq!(
            summary(4, 0, "reports"),
            format!("4 notebooks executed{end}")
        );
        assert_eq!(
            summary(0, 1, "reports"),
            format!("1 notebook, up to date: its hashes matched, so it did not execute{end}")
        );
        assert_eq!(
            summary(1, 3, "reports"),
            format!("4 notebooks: 1 executed, 3 up to date (their hashes matched, so they did not execute){end}")
        );
    }
}
