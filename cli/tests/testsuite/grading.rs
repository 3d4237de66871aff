//! `puzzlebook grade` end to end: a class of generated submissions, one of
//! each kind (right, wrong, unsolved, panicking, a locked cell edited,
//! printing without end, not a notebook, another chapter's), graded and the CSV checked row by row; a
//! `loop {}` stopped and graded 0; and in every chapter each typical wrong
//! answer graded 0 with its witness, and each solution full.
//!
//! The expected points come from each submission's own construction, never
//! from the grader.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{lock, run, Fixture};
use crate::common::{root_dir, text};
use crate::exercises::{
    release_fixture, released_with_answer, right_answers, solution_of, wrong_answers, WrongAnswer,
};

const NOTEBOOK: &str = "exercise.ipynb";

/// The fixture's released exercise t-1 (x and y from 1 to 3, x below y, 2
/// points) answered with `body` in place of its stub.
fn answered(released: &str, body: &str) -> String {
    released_with_answer(released, "t-1", body)
}

/// A kind of submission, and what it must get.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// The reference's constraints, reordered and rewritten: the same three
    /// pairs (1,2), (1,3), (2,3).
    Right,
    /// x <= y: also (1,1), which the reference rules out.
    AtMost,
    /// x < y without bounds: also (0,1), with x out of range.
    Unbounded,
    /// The release as handed out: the stub.
    Unsolved,
    /// A panic of the student's own.
    Panics,
    /// The right answer, and the locked test cell rewritten to pass anything.
    EditsTheTest,
    /// The right answer, printing 8 MB each time it is called.
    Loud,
}

const KINDS: [Kind; 7] = [
    Kind::Right,
    Kind::AtMost,
    Kind::Unbounded,
    Kind::Unsolved,
    Kind::Panics,
    Kind::EditsTheTest,
    Kind::Loud,
];

impl Kind {
    /// The submission's JSON, from the released notebook.
    fn notebook(self, released: &str) -> String {
        match self {
            Kind::Right => answered(released, "vec![v[1].gt(&v[0]), v[0].gt(0), v[1].lt(4)]"),
            Kind::AtMost => answered(released, "vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])]"),
            Kind::Unbounded => answered(released, "vec![v[0].lt(&v[1])]"),
            Kind::Unsolved => released.to_string(),
            Kind::Panics => answered(released, "panic!(\"my constraints: {}\", 6 * 7)"),
            Kind::Loud => answered(
                released,
                "for _ in 0..8000 { println!(\"{}\", \"z\".repeat(999)); }\nvec![v[0].ge(1), v[1].le(3), v[0].lt(&v[1])]",
            ),
            Kind::EditsTheTest => {
                let right = answered(released, "vec![v[0].ge(1), v[1].le(3), v[0].lt(&v[1])]");
                let mut nb: serde_json::Value = serde_json::from_str(&right).unwrap();
                for c in nb["cells"].as_array_mut().unwrap() {
                    if c["metadata"]["nbgrader"]["grade"] == true {
                        c["source"] = "println!(\"all fine\");".into();
                    }
                }
                nb.to_string()
            }
        }
    }

    /// Its points of 2, its status, and what its feedback must say.
    fn expected(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Kind::Right => (
                "2",
                "right",
                "Right: your model has exactly the reference's 3 solutions.",
            ),
            Kind::AtMost => (
                "0",
                "wrong",
                "your model allows x=1, y=1, which the reference rules out (it breaks x below y)",
            ),
            Kind::Unbounded => (
                "0",
                "wrong",
                "which the reference rules out (it breaks the bounds)",
            ),
            Kind::Unsolved => ("0", "wrong", "exercise t-1 is not solved yet"),
            Kind::Panics => ("0", "wrong", "my constraints: 42"),
            Kind::EditsTheTest => (
                "2",
                "right",
                "Right: your model has exactly the reference's 3 solutions.",
            ),
            // The test's verdict comes after 16 MB of its output: cut.
            Kind::Loud => ("2", "right", "(output cut at 1 MiB: the cell printed more)"),
        }
    }
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect()
}

/// HTML text with the escapes the pages use undone.
fn unescaped(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn a_class_with_every_kind_of_submission_is_graded_and_its_csv_checked_row_by_row() {
    let _g = lock();
    let f = Fixture::new(&[NOTEBOOK]);
    let released = release_fixture(&f);

    let class = f.root().join("class");
    std::fs::create_dir_all(&class).unwrap();
    let mut expected = Vec::new();
    // One student of each kind: more of a kind would repeat the same run.
    for (k, kind) in (1..).zip(KINDS) {
        let student = format!("s{k:02}");
        std::fs::write(
            class.join(format!("{student}.ipynb")),
            kind.notebook(&released),
        )
        .unwrap();
        expected.push((student, Some(kind)));
    }
    // Two that cannot be graded: not JSON, and another chapter's notebook.
    std::fs::write(class.join("s08.ipynb"), "{\"nbformat\": 4, \"cells\": [").unwrap();
    std::fs::write(
        class.join("s09.ipynb"),
        r#"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "01-1", "solution": true, "grade": false, "locked": false, "schema_version": 3}}, "outputs": [], "source": "fn exercise_01_1() {}"}]}"#,
    )
    .unwrap();
    expected.push(("s08".into(), None));
    expected.push(("s09".into(), None));
    let before = files(&class);
    let source_before = std::fs::read(f.notebook(NOTEBOOK)).unwrap();

    let mut c = f.cmd(&[
        "grade",
        "--source",
        "notebooks/exercise.ipynb",
        "--out",
        "graded",
        "-j",
        "2",
    ]);
    let mut submissions: Vec<_> = std::fs::read_dir(&class)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    submissions.sort();
    c.args(&submissions).current_dir(f.root());
    let o = run(&mut c);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    // Some could not be graded: exit code 1, as a check that found something.
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");

    // The submissions and the source are as they were; nothing was added
    // beside them.
    assert_eq!(files(&class), before);
    assert_eq!(std::fs::read(f.notebook(NOTEBOOK)).unwrap(), source_before);

    let csv = std::fs::read_to_string(f.root().join("graded/grades.csv")).unwrap();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next(),
        Some("student_id,notebook,exercise,score,max_score,status")
    );
    for (student, kind) in &expected {
        let row = rows
            .next()
            .unwrap_or_else(|| panic!("no row for {student} in\n{csv}"));
        let (score, status) = match kind {
            Some(kind) => {
                let (score, status, _) = kind.expected();
                (score, status)
            }
            None => ("", "not graded"),
        };
        assert_eq!(
            row,
            format!("{student},exercise,t-1,{score},2,{status}"),
            "{kind:?}"
        );
        let page = f.root().join(format!("graded/feedback/{student}.html"));
        let html = unescaped(&std::fs::read_to_string(&page).unwrap());
        // The loud answer's 16 MB of output (8 MB at each of its two calls,
        // in one cell) is kept to 1 MiB.
        if matches!(kind, Some(Kind::Loud)) {
            assert!(
                html.len() < 2 << 20,
                "{student}: a page of {} bytes",
                html.len()
            );
        }
        match kind {
            Some(kind) => {
                let said = kind.expected().2;
                assert!(
                    html.contains(said),
                    "{student} ({kind:?}): no {said:?} in {html}"
                );
            }
            None => assert!(html.contains("Not graded"), "{html}"),
        }
    }
    assert_eq!(rows.next(), None, "{csv}");

    // The terminal's summary: a row per student, then why two were not
    // graded and whose test cell changed.
    assert!(out.starts_with("student  t-1 /2    total /2\n"), "{out}");
    assert!(
        out.contains("not graded: s08 (s08.ipynb): ") && out.contains("not valid JSON"),
        "{out}"
    );
    assert!(
        out.contains("not graded: s09 (s09.ipynb): ")
            && out.contains("it has none of this notebook's exercises (t-1), but 01-1"),
        "{out}"
    );
    for (student, kind) in &expected {
        let flagged = out.contains(&format!(
            "changed: {student} ({student}.ipynb): the locked cell t-1-test was edited"
        ));
        assert_eq!(
            flagged,
            matches!(kind, Some(Kind::EditsTheTest)),
            "{student}: {out}"
        );
    }
}

#[test]
fn a_submission_that_loops_is_stopped_at_the_cell_timeout_and_graded_zero() {
    let _g = lock();
    let f = Fixture::new(&[NOTEBOOK]);
    // Warm the build folder first, so the timeout only meets the loop.
    let o = run(f
        .cmd(&["run", "notebooks/exercise.ipynb"])
        .current_dir(f.root()));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let released = release_fixture(&f);
    std::fs::write(
        f.root().join("looper.ipynb"),
        answered(&released, "loop {}"),
    )
    .unwrap();
    let o = run(f
        .cmd(&[
            "grade",
            "looper.ipynb",
            "--source",
            "notebooks/exercise.ipynb",
            "--out",
            "graded",
            "--cell-timeout",
            "60",
        ])
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(f.root().join("graded/grades.csv")).unwrap();
    assert_eq!(
        csv,
        "student_id,notebook,exercise,score,max_score,status\nlooper,exercise,t-1,0,2,wrong\n"
    );
    let html =
        unescaped(&std::fs::read_to_string(f.root().join("graded/feedback/looper.html")).unwrap());
    assert!(
        html.contains("code cell 4, \"test-t-1\" was still running after 60 s, the cell timeout, so it was stopped"),
        "{html}"
    );
}

#[test]
fn every_chapter_grades_each_typical_wrong_answer_zero_with_its_witness_and_each_right_one_full() {
    let _g = lock();
    let answers = wrong_answers();
    let notebooks = root_dir().join("notebooks");
    let mut stems: Vec<String> = answers.iter().map(|a| a.stem.clone()).collect();
    stems.dedup();
    assert_eq!(
        stems.len(),
        4,
        "a wrong answer for every chapter: {stems:?}"
    );
    for stem in stems {
        let file = notebooks.join(format!("{stem}.ipynb"));
        let teacher = std::fs::read_to_string(&file).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let o = run(
            crate::common::puzzlebook(&["exercises", "release", "--out", "student"])
                .arg(&file)
                .current_dir(dir.path()),
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        let released =
            std::fs::read_to_string(dir.path().join("student").join(format!("{stem}.ipynb")))
                .unwrap();
        // The release answered: every exercise with the teacher's solution,
        // or a right answer written otherwise where the fixtures have one,
        // but `wrong` with `body`.
        let rights = right_answers();
        let nb: serde_json::Value = serde_json::from_str(&teacher).unwrap();
        let solutions: Vec<String> = nb["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["metadata"]["nbgrader"]["solution"] == true)
            .map(|c| {
                c["metadata"]["nbgrader"]["grade_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        // Scoring is per exercise and grade runs past a failing cell, so two
        // submissions prove what one per wrong answer did: "odd" answers the
        // 1st and 3rd exercises wrong, "even" the 2nd, and each the others
        // with the teacher's solution. Every exercise is graded right once
        // and wrong once, beside others graded the other way.
        let chapter: Vec<_> = answers.iter().filter(|a| a.stem == stem).collect();
        let handed_in = |wrong: &[&WrongAnswer]| {
            solutions.iter().fold(released.clone(), |nb, id| {
                let right = rights.iter().find(|a| a.stem == stem && &a.exercise == id);
                let answer = match (wrong.iter().find(|a| &a.exercise == id).copied(), right) {
                    (Some(a), _) | (None, Some(a)) => a.body.clone(),
                    (None, None) => solution_of(&teacher, id),
                };
                released_with_answer(&nb, id, &answer)
            })
        };
        let mut students: Vec<(String, Vec<&WrongAnswer>)> = Vec::new();
        for (name, parity) in [("odd", 0), ("even", 1)] {
            let wrong: Vec<&WrongAnswer> = chapter
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 2 == parity)
                .map(|(_, a)| *a)
                .collect();
            std::fs::write(dir.path().join(format!("{name}.ipynb")), handed_in(&wrong)).unwrap();
            students.push((name.to_string(), wrong));
        }
        let mut c = crate::common::puzzlebook(&["grade", "--source"]);
        c.arg(&file)
            .arg("--root")
            .arg(root_dir())
            .args(["--out", "graded", "-j", "2", "odd.ipynb", "even.ipynb"])
            .current_dir(dir.path());
        let o = run(&mut c);
        assert_eq!(o.status.code(), Some(0), "{stem}: {}", text(&o.stderr));
        let csv = std::fs::read_to_string(dir.path().join("graded/grades.csv")).unwrap();
        // Each exercise's points, from the teacher's metadata.
        let nb: serde_json::Value = serde_json::from_str(&teacher).unwrap();
        let points: BTreeMap<String, f64> = nb["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["metadata"]["nbgrader"]["grade"] == true)
            .map(|c| {
                let m = &c["metadata"]["nbgrader"];
                let id = m["grade_id"].as_str().unwrap();
                (
                    id.strip_suffix("-test").unwrap_or(id).to_string(),
                    m["points"].as_f64().unwrap(),
                )
            })
            .collect();
        let row = |student: &str, exercise: &str| {
            let start = format!("{student},{stem},{exercise},");
            csv.lines()
                .find(|l| l.starts_with(&start))
                .unwrap_or_else(|| panic!("no {start} in\n{csv}"))
                .to_string()
        };
        assert_eq!(
            points.keys().collect::<Vec<_>>(),
            chapter.iter().map(|a| &a.exercise).collect::<Vec<_>>(),
            "{stem}: a typical wrong answer for each exercise"
        );
        for (student, wrong) in &students {
            let html = unescaped(
                &std::fs::read_to_string(
                    dir.path().join(format!("graded/feedback/{student}.html")),
                )
                .unwrap(),
            );
            for (exercise, max) in &points {
                let want = if wrong.iter().any(|a| &a.exercise == exercise) {
                    format!("{student},{stem},{exercise},0,{max},wrong")
                } else {
                    format!("{student},{stem},{exercise},{max},{max},right")
                };
                // The feedback page says why, when a row is not as wanted.
                assert_eq!(row(student, exercise), want, "{html}");
            }
            // Each witness is in its own exercise's section of the page.
            for a in wrong {
                let start = format!("<section class=\"cell\" id=\"{}\">", a.exercise);
                let section = html
                    .split_once(&start)
                    .and_then(|(_, rest)| rest.split_once("</section>"))
                    .map(|(section, _)| section)
                    .unwrap_or_else(|| panic!("{stem} {}: no section in\n{html}", a.exercise));
                assert!(section.contains("Not yet:"), "{section}");
                for e in &a.expect {
                    assert!(
                        section.contains(e.as_str()),
                        "{stem} {}: {e:?} in\n{section}",
                        a.exercise
                    );
                }
            }
        }
    }
}

#[test]
fn ctrl_c_stops_grading_and_writes_nothing_and_a_submission_runs_in_a_folder_of_its_own() {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let _g = lock();
    let f = Fixture::new(&[NOTEBOOK]);
    let released = release_fixture(&f);
    let class = f.root().join("class");
    std::fs::create_dir_all(&class).unwrap();
    // The answer writes a file where it runs, says it started, and never ends.
    let started = f.root().join("started");
    let body = format!(
        "std::fs::write(\"stray.txt\", \"\").unwrap();\nstd::fs::write({:?}, \"\").unwrap();\nloop {{}}",
        started.display().to_string()
    );
    std::fs::write(class.join("stuck.ipynb"), answered(&released, &body)).unwrap();
    let before = files(&class);
    let child = f
        .cmd(&[
            "grade",
            "class/stuck.ipynb",
            "--source",
            "notebooks/exercise.ipynb",
            "--out",
            "graded",
        ])
        .current_dir(f.root())
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..1200 {
        if started.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(started.exists(), "the submission never started");
    let sent = std::process::Command::new("kill")
        .args(["-s", "INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("interrupted"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        !f.root().join("graded").exists(),
        "nothing is written after Ctrl-C"
    );
    // The submission's relative write landed in its temporary folder, not
    // beside it, the source or where grade was started.
    assert_eq!(files(&class), before);
    assert!(!f.root().join("stray.txt").exists());
    assert!(!f.root().join("notebooks/stray.txt").exists());
}
