//! Exercises end to end: `exercises release` writes the student notebook
//! beside, never over, the teacher's; a wrong answer is shown its witness;
//! a released notebook fails only at its exercise, naming it. (That the
//! teacher's notebook grades its own reference solution right through the
//! runner is checked by the teacher's `run` in `grading::one_run_grades…`.)

use crate::common::text;
use crate::common::{lock, run, Fixture};

const NOTEBOOK: &str = "exercise.ipynb";

#[test]
fn a_wrong_answer_fails_its_test_with_a_witness() {
    let _g = lock();
    let f = Fixture::new(&[NOTEBOOK]);
    let nb = f.notebook(NOTEBOOK);
    let teacher = std::fs::read_to_string(&nb).unwrap();
    // x <= y also allows x = y; the smallest such pair is (1, 1).
    let wrong = teacher.replace("v[0].lt(&v[1])]", "v[0].le(&v[1])]");
    assert_ne!(wrong, teacher);
    std::fs::write(&nb, wrong).unwrap();
    let o = run(f
        .cmd(&["run", "notebooks/exercise.ipynb"])
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(2));
    let all = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(
        all.contains(
            "your model allows x=1, y=1, which the reference rules out (it breaks x below y)"
        ),
        "{all}"
    );
    assert!(all.contains("\"test-t-1\") failed"), "{all}");
}

#[test]
fn a_release_leaves_the_teacher_s_notebook_and_holds_no_solution() {
    let _g = lock();
    let f = Fixture::new(&[NOTEBOOK]);
    let teacher = std::fs::read(f.notebook(NOTEBOOK)).unwrap();
    release_fixture(&f);
    assert_eq!(
        std::fs::read(f.notebook(NOTEBOOK)).unwrap(),
        teacher,
        "the teacher's notebook is untouched"
    );
    let released = f.root().join("student").join(NOTEBOOK);
    let student = std::fs::read_to_string(&released).unwrap();
    for gone in [
        "BEGIN SOLUTION",
        "v[0].lt(&v[1])",
        "HIDDEN TESTS",
        "grade::rule(",
    ] {
        assert!(!student.contains(gone), "{gone} in the release:\n{student}");
    }
    assert!(student.contains("puzzlebook::unsolved!()"), "{student}");
    // The cell that is no exercise keeps its committed output.
    let json: serde_json::Value = serde_json::from_str(&student).unwrap();
    let shown = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metadata"]["name"] == "shown")
        .unwrap();
    assert_eq!(shown["outputs"][0]["data"]["text/plain"][0], "2");
    // That a release runs until its first exercise's test, and stops there
    // naming it, the student kit's test proves on a chapter.
}

#[test]
fn a_release_over_the_teacher_s_folder_or_of_a_broken_region_writes_nothing() {
    let f = Fixture::new(&[NOTEBOOK]);
    let teacher = std::fs::read(f.notebook(NOTEBOOK)).unwrap();
    let o = run(f
        .cmd(&[
            "exercises",
            "release",
            "notebooks/exercise.ipynb",
            "--out",
            "notebooks",
        ])
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("would overwrite the teacher's notebook; choose another folder"),
        "{err}"
    );
    assert_eq!(std::fs::read(f.notebook(NOTEBOOK)).unwrap(), teacher);

    let broken = String::from_utf8(teacher)
        .unwrap()
        .replace("    // END SOLUTION\\n", "");
    std::fs::write(f.notebook(NOTEBOOK), broken).unwrap();
    let o = run(f
        .cmd(&[
            "exercises",
            "release",
            "notebooks/exercise.ipynb",
            "--out",
            "student",
        ])
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("cell 4 (t-1): a BEGIN SOLUTION with no END SOLUTION"),
        "{err}"
    );
    assert!(!f.root().join("student").join(NOTEBOOK).exists());
}

/// A typical wrong answer from `cli/tests/fixtures/exercises/`: its file is
/// `<notebook stem>.<exercise>.<what>.rs`; `// expect: …` lines are what the
/// feedback must say, a `// right parts: K of N` line says how many of the
/// exercise's parts it gets right (none, when it has no such line), and the
/// rest replaces the exercise's solution region.
pub(crate) struct WrongAnswer {
    pub(crate) stem: String,
    pub(crate) exercise: String,
    pub(crate) body: String,
    pub(crate) expect: Vec<String>,
    /// The parts it gets right, and how many the exercise has.
    pub(crate) right_parts: Option<(u32, u32)>,
}

pub(crate) fn wrong_answers() -> Vec<WrongAnswer> {
    answers_in("tests/fixtures/exercises")
}

/// Right answers written otherwise than the teacher's solution (with helper
/// variables, say), from `cli/tests/fixtures/exercises/right/`, named and
/// read as the wrong ones are.
pub(crate) fn right_answers() -> Vec<WrongAnswer> {
    answers_in("tests/fixtures/exercises/right")
}

/// The answers in the folder `dir` of the command's package.
fn answers_in(dir: &str) -> Vec<WrongAnswer> {
    let dir = crate::common::cli_dir().join(dir);
    // Sorted by file name, so that an exercise's answers keep one order.
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    paths.sort();
    let mut out: Vec<WrongAnswer> = paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let mut parts = name.split('.');
            let (stem, exercise) = (parts.next().unwrap(), parts.next().unwrap());
            let text = std::fs::read_to_string(&p).unwrap();
            let (expect, body): (Vec<&str>, Vec<&str>) =
                text.lines().partition(|l| l.starts_with("// expect: "));
            let right_parts = text
                .lines()
                .find_map(|l| l.strip_prefix("// right parts: "))
                .map(|k_of_n| {
                    let (k, n) = k_of_n.split_once(" of ").expect("K of N");
                    let n = n.split_whitespace().next().expect("N");
                    (k.parse().expect("K"), n.parse().expect("N"))
                });
            WrongAnswer {
                stem: stem.to_string(),
                exercise: exercise.to_string(),
                body: body.join("\n"),
                expect: expect
                    .iter()
                    .map(|l| l["// expect: ".len()..].to_string())
                    .collect(),
                right_parts,
            }
        })
        .collect();
    out.sort_by(|a, b| (&a.stem, &a.exercise).cmp(&(&b.stem, &b.exercise)));
    out
}

/// Releases the fixture's exercise notebook into `student/` with
/// `exercises release`; returns the released JSON.
pub(crate) fn release_fixture(f: &Fixture) -> String {
    let o = run(f
        .cmd(&[
            "exercises",
            "release",
            "notebooks/exercise.ipynb",
            "--out",
            "student",
        ])
        .current_dir(f.root()));
    assert!(o.status.success(), "{}", text(&o.stderr));
    std::fs::read_to_string(f.root().join("student").join(NOTEBOOK)).unwrap()
}

/// The notebook's JSON with the solution region of `exercise` (in its
/// solution cell) replaced by `body`, indented as the region was.
pub(crate) fn with_answer(notebook: &str, exercise: &str, body: &str) -> String {
    let mut nb: serde_json::Value = serde_json::from_str(notebook).unwrap();
    let (cell, source) = solution_cell(&mut nb, exercise);
    let begin = source.find("// BEGIN SOLUTION").expect("a solution region");
    let indent: String = source[..begin].rsplit('\n').next().unwrap().to_string();
    let end = source.find("// END SOLUTION").expect("its end");
    let line_start = source[..begin].rfind('\n').map_or(0, |i| i + 1);
    let after = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    let replaced: String = body.lines().map(|l| format!("{indent}{l}\n")).collect();
    let new = format!("{}{replaced}{}", &source[..line_start], &source[after..]);
    cell["source"] = serde_json::Value::String(new);
    serde_json::to_string_pretty(&nb).unwrap()
}

/// Arrays of strings (nbformat's multiline text) joined, recursively, so that
/// two writers' line splits compare equal.
fn joined_lines(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
            *v = Value::String(items.iter().map(|s| s.as_str().unwrap()).collect());
        }
        Value::Array(items) => items.iter_mut().for_each(joined_lines),
        Value::Object(map) => map.values_mut().for_each(joined_lines),
        _ => {}
    }
}

/// The solution cell of `exercise` in a notebook's JSON, and its source.
fn solution_cell<'a>(
    nb: &'a mut serde_json::Value,
    exercise: &str,
) -> (&'a mut serde_json::Value, String) {
    let cell = nb["cells"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| {
            c["metadata"]["nbgrader"]["grade_id"] == exercise
                && c["metadata"]["nbgrader"]["solution"] == true
        })
        .unwrap_or_else(|| panic!("no solution cell for {exercise}"));
    let source = match &cell["source"] {
        serde_json::Value::Array(lines) => lines.iter().map(|l| l.as_str().unwrap()).collect(),
        other => other.as_str().unwrap().to_string(),
    };
    (cell, source)
}

/// A released notebook's JSON answered as a student answers: the stub line
/// of `exercise`'s solution cell replaced by `body`, at its indentation.
pub(crate) fn released_with_answer(released: &str, exercise: &str, body: &str) -> String {
    let mut nb: serde_json::Value = serde_json::from_str(released).unwrap();
    let (cell, source) = solution_cell(&mut nb, exercise);
    let stub = "puzzlebook::unsolved!()";
    let line = source
        .lines()
        .find(|l| l.trim() == stub)
        .unwrap_or_else(|| panic!("no stub line in {source}"));
    let indent = &line[..line.len() - line.trim_start().len()];
    let answer: Vec<String> = body.lines().map(|l| format!("{indent}{l}")).collect();
    cell["source"] = source.replacen(line, &answer.join("\n"), 1).into();
    serde_json::to_string_pretty(&nb).unwrap()
}

/// The teacher's answer to `exercise`: the lines between its BEGIN and END
/// SOLUTION, without the indentation of the BEGIN line.
pub(crate) fn solution_of(teacher: &str, exercise: &str) -> String {
    let mut nb: serde_json::Value = serde_json::from_str(teacher).unwrap();
    let (_, source) = solution_cell(&mut nb, exercise);
    let lines: Vec<&str> = source.lines().collect();
    let begin = lines
        .iter()
        .position(|l| l.contains("BEGIN SOLUTION"))
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.contains("END SOLUTION"))
        .unwrap();
    let indent = lines[begin].len() - lines[begin].trim_start().len();
    lines[begin + 1..end]
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "slow: nbgrader from PyPI"]
fn nbgrader_writes_the_same_student_notebooks_as_release() {
    let course = tempfile::tempdir().unwrap();
    let source = course.path().join("source/chapters");
    std::fs::create_dir_all(&source).unwrap();
    let mut names = Vec::new();
    for e in std::fs::read_dir(crate::common::root_dir().join("notebooks")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, source.join(p.file_name().unwrap())).unwrap();
        names.push(p.file_name().unwrap().to_owned());
    }
    names.sort();
    // nbgrader's defaults, but for the language's stub, and outputs kept
    // (ClearOutput would clear every cell's; release clears only the
    // exercises', compared below).
    std::fs::write(
        course.path().join("nbgrader_config.py"),
        format!(
            "c = get_config()\nc.CourseDirectory.root = {:?}\nc.ClearSolutions.code_stub = {{\"rust\": \"puzzlebook::unsolved!()\"}}\nc.ClearOutput.enabled = False\n",
            course.path().display().to_string()
        ),
    )
    .unwrap();
    let o = crate::common::nbgrader(course.path())
        .args(["generate_assignment", "chapters", "--force"])
        .output()
        .unwrap();
    crate::common::ok(o, "nbgrader generate_assignment");

    let ours = course.path().join("ours");
    let o = crate::common::puzzlebook(&["exercises", "release", "--root"])
        .arg(crate::common::root_dir())
        .arg("--out")
        .arg(&ours)
        .output()
        .unwrap();
    crate::common::ok(o, "puzzlebook exercises release");

    for name in &names {
        let read = |p: std::path::PathBuf| -> serde_json::Value {
            let mut v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            joined_lines(&mut v);
            v
        };
        let mut theirs = read(course.path().join("release/chapters").join(name));
        let ours = read(ours.join(name));
        // The one difference asked for: an exercise cell's outputs, and the
        // hash and count that go with them, are cleared.
        for cell in theirs["cells"].as_array_mut().unwrap() {
            let n = &cell["metadata"]["nbgrader"];
            if n["solution"] == true || n["grade"] == true {
                cell["outputs"] = serde_json::json!([]);
                cell["execution_count"] = serde_json::Value::Null;
                cell["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("puzzlebook");
            }
        }
        assert_eq!(theirs["metadata"], ours["metadata"], "{name:?}");
        let (a, b) = (
            theirs["cells"].as_array().unwrap(),
            ours["cells"].as_array().unwrap(),
        );
        assert_eq!(a.len(), b.len(), "{name:?}");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert_eq!(x, y, "{name:?}, cell {}: nbgrader's, then ours", i + 1);
        }
    }
}

/// The lines of `notebooks` inside a solution or hidden-test region, and
/// those outside, which the chapters show; each trimmed.
fn regions(
    notebooks: &[std::path::PathBuf],
) -> (
    std::collections::BTreeSet<String>,
    std::collections::BTreeSet<String>,
) {
    let mut secret = std::collections::BTreeSet::new();
    let mut shown = std::collections::BTreeSet::new();
    for nb in notebooks {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(nb).unwrap()).unwrap();
        for c in json["cells"].as_array().unwrap() {
            let source: String = match &c["source"] {
                serde_json::Value::Array(lines) => {
                    lines.iter().map(|l| l.as_str().unwrap()).collect()
                }
                other => other.as_str().unwrap().to_string(),
            };
            let mut inside = false;
            for line in source.lines().map(str::trim) {
                if line.contains("BEGIN SOLUTION") || line.contains("BEGIN HIDDEN TESTS") {
                    inside = true;
                } else if line.contains("END SOLUTION") || line.contains("END HIDDEN TESTS") {
                    inside = false;
                } else if inside {
                    secret.insert(line.to_string());
                } else {
                    shown.insert(line.to_string());
                }
            }
        }
    }
    (secret, shown)
}

#[test]
fn a_student_kit_holds_the_notebooks_and_the_crate_and_no_line_of_a_solution_or_hidden_test() {
    let _g = lock();
    let root = crate::common::root_dir();
    // A fixed folder, so that evcxr's build of the kit's crate is the same
    // package from one run to the next rather than a new one each time.
    let kit = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("student-kit");
    let _ = std::fs::remove_dir_all(&kit);
    let o = run(
        crate::common::puzzlebook(&["exercises", "release", "--kit", "--pages", "--root"])
            .arg(&root)
            .arg("--out")
            .arg(&kit),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let prefix = format!("{}/", kit.display());
    let files: Vec<(String, Vec<u8>)> = crate::common::files(&kit)
        .into_iter()
        .map(|(path, bytes)| (path.strip_prefix(&prefix).unwrap().to_string(), bytes))
        .collect();
    let names: Vec<String> = files.iter().map(|(name, _)| name.clone()).collect();
    let teacher: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("notebooks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // The released notebooks, the student pages, and the crate.
    for nb in &teacher {
        let name = format!("notebooks/{}", nb.file_name().unwrap().to_str().unwrap());
        assert!(names.contains(&name), "{name} in {names:#?}");
    }
    for f in [
        "notebooks/index.html",
        "README.md",
        "Cargo.toml",
        "Cargo.lock",
        "src/lib.rs",
        "z3-dylib/Cargo.toml",
        "polars-dylib/src/lib.rs",
    ] {
        assert!(names.iter().any(|n| n == f), "{f} in {names:#?}");
    }
    // Nothing of the teacher's: no command, tests, fixtures, reports, docs.
    for n in &names {
        let top = n.split('/').next().unwrap();
        assert!(
            [
                "notebooks",
                "src",
                "z3-dylib",
                "polars-dylib",
                "README.md",
                "Cargo.toml",
                "Cargo.lock",
                "build.rs"
            ]
            .contains(&top),
            "{n} is not the student's"
        );
    }
    let manifest = std::fs::read_to_string(kit.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("\"cli\""), "{manifest}");
    // No line of a solution, a hidden test or a typical wrong answer that
    // the chapters do not show anyway, at least 30 characters long (shorter
    // ones, `}` or `let mut out = Vec::new();`, say nothing).
    let (mut secret, shown) = regions(&teacher);
    let fixtures = crate::common::cli_dir().join("tests/fixtures/exercises");
    for e in std::fs::read_dir(&fixtures).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            secret.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.starts_with("//"))
                    .map(String::from),
            );
        }
    }
    secret.retain(|l| l.len() >= 30 && !shown.contains(l));
    assert!(secret.len() > 50, "{} secret lines", secret.len());
    for (name, bytes) in &files {
        // A notebook's JSON escapes quotes, and a page's HTML more.
        let text = crate::common::unescaped(&String::from_utf8_lossy(bytes).replace("\\\"", "\""));
        for s in &secret {
            assert!(!text.contains(s.as_str()), "{name} holds `{s}`");
        }
    }
    // Each exercise that asks for a prediction first is followed by a cell
    // the student writes it in: Markdown, ungraded, and left editable.
    let mut predictions = Vec::new();
    for nb in &teacher {
        let name = format!("notebooks/{}", nb.file_name().unwrap().to_str().unwrap());
        let released: serde_json::Value =
            serde_json::from_slice(&files.iter().find(|(n, _)| *n == name).unwrap().1).unwrap();
        let cells = released["cells"].as_array().unwrap();
        for (c, next) in cells.iter().zip(cells.iter().skip(1)) {
            let said = c["source"].as_array().map_or(String::new(), |lines| {
                lines.iter().map(|l| l.as_str().unwrap()).collect()
            });
            if c["cell_type"] != "markdown" || !said.contains("Predict it first, in the cell below")
            {
                continue;
            }
            let id = said
                .split("**Exercise ")
                .nth(1)
                .unwrap()
                .split("**")
                .next()
                .unwrap();
            assert_eq!(next["cell_type"], "markdown", "{name}: after exercise {id}");
            assert_eq!(
                next["metadata"],
                serde_json::json!({}),
                "{name}: after {id}"
            );
            assert!(
                next["source"][0]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("*Your prediction for {id}*")),
                "{name}: after {id}: {next}"
            );
            predictions.push(id.to_string());
        }
    }
    predictions.sort();
    assert_eq!(
        predictions,
        ["01-3", "02-3", "03-2", "03-3", "04-2", "04-3"]
    );
    // The kernel takes the kit as its crate, as the kit's README says.
    let prefix = tempfile::tempdir().unwrap();
    let o = run(
        crate::common::puzzlebook(&["kernel", "install", "--no-build", "--root", "."])
            .arg("--prefix")
            .arg(prefix.path())
            .current_dir(&kit),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            prefix
                .path()
                .join("share/jupyter/kernels/puzzlebook/kernel.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        spec["metadata"]["puzzlebook"]["crate"],
        kit.canonicalize().unwrap().to_str().unwrap()
    );
    // The runner works from the kit: the chapter's `:dep` names the kit's
    // crate, and it runs up to the first exercise, which it names.
    let nb = kit.join("notebooks/02-calculator-the-game.ipynb");
    let o = run(crate::common::puzzlebook(&["run", "--root"])
        .arg(&kit)
        .arg(&nb)
        .current_dir(&kit));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("\"test-02-1\") failed"), "{err}");
    assert!(err.contains("exercise 02-1 is not solved yet"), "{err}");
}

#[test]
fn a_kit_whose_crate_quotes_a_solution_or_that_would_overwrite_a_project_is_refused_and_nothing_written(
) {
    let f = Fixture::new(&[NOTEBOOK]);
    let lib = f.root().join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    // The fixture's solution line, quoted in a comment of the crate.
    std::fs::write(
        &lib,
        format!("{original}// vec![v[0].ge(1), v[1].le(3), v[0].lt(&v[1])]\n"),
    )
    .unwrap();
    let line = original.lines().count() + 1;
    let o = run(f
        .cmd(&["exercises", "release", "--kit", "--out", "kit"])
        .arg("notebooks/exercise.ipynb")
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "src/lib.rs, line {line}, is a line of the solution of exercise cell t-1"
        )),
        "{err}"
    );
    assert!(!f.root().join("kit").exists());
    std::fs::write(&lib, original).unwrap();
    // The checkout itself is a project, not a kit.
    let o = run(f
        .cmd(&["exercises", "release", "--kit", "--out", "."])
        .arg("notebooks/exercise.ipynb")
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("is not a student kit"), "{err}");
    assert!(!f.root().join("README.md").exists());
}

#[test]
fn a_kit_of_any_one_chapter_is_written_with_the_crate_that_serves_them_all() {
    let root = crate::common::root_dir();
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(root.join("notebooks")).unwrap() {
        let nb = e.unwrap().path();
        let stem = nb.file_stem().unwrap().to_str().unwrap().to_string();
        let o = run(
            crate::common::puzzlebook(&["exercises", "release", "--kit", "--root"])
                .arg(&root)
                .arg("--out")
                .arg(dir.path().join(&stem))
                .arg(&nb),
        );
        assert!(o.status.success(), "{stem}: {}", text(&o.stderr));
        let kit = dir.path().join(&stem);
        assert!(kit
            .join("notebooks")
            .join(nb.file_name().unwrap())
            .is_file());
        assert_eq!(std::fs::read_dir(kit.join("notebooks")).unwrap().count(), 1);
        assert!(kit.join("src/lib.rs").is_file());
    }
}
