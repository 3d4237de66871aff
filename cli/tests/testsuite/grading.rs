//! `puzzlebook grade` end to end: the teacher's own `run` of the fixture
//! exercise, which grades its solution right; in one run, a class of generated
//! submissions, one of each kind (wrong, unsolved, panicking, right written
//! otherwise with its locked cell edited, printing without end, a loop that
//! started a process holding its pipes, an allocation past the memory limit,
//! not a notebook, another chapter's), and ten attacks in four submissions,
//! the CSV checked row by row; a teacher's notebook failing its own test,
//! which stops `grade`; Ctrl-C; and in every chapter each typical wrong
//! answer graded 0 with its witness, and each solution full.
//!
//! The expected points come from each submission's own construction, never
//! from the grader.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{assert_nothing_running, files, joined, root_dir, text, unescaped};
use crate::common::{lock, run, Fixture};
use crate::exercises::{
    release_fixture, released_with_answer, right_answers, solution_of, wrong_answers, WrongAnswer,
};

const NOTEBOOK: &str = "exercise.ipynb";

/// The submission whose right answer first makes the attacks looked for
/// outside its verdict.
const OUTSIDE: &str = "a1-a2-a3-a7-a8-a9";

/// The fixture's released exercise t-1 (x and y from 1 to 3, x below y, 2
/// points) answered with `body` in place of its stub.
fn answered(released: &str, body: &str) -> String {
    released_with_answer(released, "t-1", body)
}

/// A kind of submission, and what it must get.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// x <= y: also (1,1), which the reference rules out.
    AtMost,
    /// The release as handed out: the stub.
    Unsolved,
    /// A panic of the student's own.
    Panics,
    /// The reference's constraints, reordered and rewritten: the same three
    /// pairs (1,2), (1,3), (2,3); and the locked test cell rewritten to pass
    /// anything, which changes nothing but a note to the teacher.
    /// (A wrong answer, x < y without bounds, is what four attackers below
    /// hand in.)
    EditsTheTest,
    /// The right answer, printing 8 MB each time it is called.
    Loud,
    /// A loop that never ends, after starting a process that holds the
    /// cell's pipes (a child inherits them): unless the timeout ends it too,
    /// the run waits for the pipes to close until its sandbox's deadline,
    /// six timeouts, and is then not graded at all. It sleeps in its loop:
    /// the timeout is the same for a loop that spins, and the machine's
    /// other runs keep the core.
    Loops,
    /// An allocation of 3 GiB, past the cells' memory limit.
    Hogs,
}

const KINDS: [Kind; 7] = [
    Kind::AtMost,
    Kind::Unsolved,
    Kind::Panics,
    Kind::EditsTheTest,
    Kind::Loud,
    Kind::Loops,
    Kind::Hogs,
];

impl Kind {
    /// The submission's JSON, from the released notebook.
    fn notebook(self, released: &str) -> String {
        match self {
            Kind::AtMost => answered(released, "vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])]"),
            Kind::Unsolved => released.to_string(),
            Kind::Panics => answered(released, "panic!(\"my constraints: {}\", 6 * 7)"),
            Kind::Loud => answered(
                released,
                "for _ in 0..8000 { println!(\"{}\", \"z\".repeat(999)); }\nvec![v[0].ge(1), v[1].le(3), v[0].lt(&v[1])]",
            ),
            Kind::Loops => answered(
                released,
                "let _ = std::process::Command::new(\"sleep\").arg(\"4322\").spawn();\nloop {\n    std::thread::sleep(std::time::Duration::from_secs(1));\n}",
            ),
            Kind::Hogs => answered(
                released,
                "let v = vec![1u8; 3 << 30];\nstd::hint::black_box(&v);\nvec![]",
            ),
            Kind::EditsTheTest => {
                let right = answered(released, "vec![v[1].gt(&v[0]), v[0].gt(0), v[1].lt(4)]");
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
            Kind::AtMost => (
                "0",
                "wrong",
                "your model allows x=1, y=1, which the reference rules out (it breaks x below y)",
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
            // The run's limits: `--cell-timeout 120 --cell-memory 1G`.
            Kind::Loops => (
                "0",
                "wrong",
                "code cell 4, \"test-t-1\" was still running after 120 s, the cell timeout, so it was stopped",
            ),
            Kind::Hogs => (
                "0",
                "wrong",
                "code cell 4, \"test-t-1\" needed more memory than the limit of 1.0 GiB, so it was stopped",
            ),
        }
    }
}

/// The fixture's exercise as released, released in `f` by the first test
/// here that asks, for them all: every fixture holds the same notebook.
/// (The release itself is `exercises`' test.) Its callers hold `lock()`,
/// as a release needs.
fn released(f: &Fixture) -> String {
    static RELEASED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    RELEASED.get_or_init(|| release_fixture(f)).clone()
}

/// A fixture project with the exercise released, and an empty folder for
/// the class's submissions.
fn class_fixture() -> (Fixture, String, std::path::PathBuf) {
    let f = Fixture::new(&[NOTEBOOK]);
    let released = released(&f);
    let class = f.root().join("class");
    std::fs::create_dir_all(&class).unwrap();
    (f, released, class)
}

/// The feedback page `grade --out graded` wrote for `student` in `f`, with
/// the page's escapes undone.
fn feedback_page(f: &Fixture, student: &str) -> String {
    let path = f.root().join(format!("graded/feedback/{student}.html"));
    unescaped(&std::fs::read_to_string(path).unwrap())
}

/// Whether a file named `name` is anywhere under `dir`, by names alone
/// (it is polled every half second while the grader works there).
fn found(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name() == name
                || e.file_type().is_ok_and(|t| t.is_dir()) && found(&e.path(), name)
        })
}

/// A right answer to t-1 that first does `attack`.
fn attacking(released: &str, attack: &str) -> String {
    answered(
        released,
        &format!("{attack}\nvec![v[0].ge(1), v[1].le(3), v[0].lt(&v[1])]"),
    )
}

/// The fast tier's grade: one class of two, a right answer written
/// otherwise than the teacher's and a wrong one, each run in its sandbox
/// and judged by meaning against the teacher's reference. (The kinds of
/// submission, the runaways and the attackers are the next test's, in the
/// slow tier.)
#[test]
fn a_grade_judges_a_right_and_a_wrong_answer_by_meaning_in_the_sandbox() {
    let _g = lock();
    let (f, released, class) = class_fixture();
    // y > x over 1..3, written in another order and form than x < y: the
    // same three pairs (1,2), (1,3) and (2,3).
    std::fs::write(
        class.join("alice.ipynb"),
        answered(&released, "vec![v[1].gt(&v[0]), v[0].gt(0), v[1].lt(4)]"),
    )
    .unwrap();
    // x <= y also allows (1,1).
    std::fs::write(
        class.join("bob.ipynb"),
        answered(&released, "vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])]"),
    )
    .unwrap();
    let o = run(f
        .cmd(&[
            "grade",
            "class/alice.ipynb",
            "class/bob.ipynb",
            "--source",
            "notebooks/exercise.ipynb",
            "--out",
            "graded",
            "-j",
            "2",
        ])
        .current_dir(f.root()));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        !err.contains("without a sandbox"),
        "graded in the sandbox: {err}"
    );
    let csv = std::fs::read_to_string(f.root().join("graded/grades.csv")).unwrap();
    assert_eq!(
        csv,
        "student_id,notebook,exercise,score,max_score,status\n\
         alice,exercise,t-1,2,2,right\n\
         bob,exercise,t-1,0,2,wrong\n"
    );
    let page = |s: &str| feedback_page(&f, s);
    let alice = page("alice");
    assert!(
        alice.contains("Right: your model has exactly the reference's 3 solutions."),
        "{alice}"
    );
    let bob = page("bob");
    assert!(
        bob.contains(
            "your model allows x=1, y=1, which the reference rules out (it breaks x below y)"
        ),
        "{bob}"
    );
}

// One run for the class, the runaways and the attackers: each submission is
// judged on its own, in a sandbox of its own, so what one run proves of a
// submission does not depend on the others in it, and one reference run,
// release and warm-up serve them all.
#[test]
#[ignore = "slow: 11 sandboxed runs and a runaway's 120 s timeout, about 5 minutes"]
fn one_run_grades_every_kind_of_submission_and_attackers_change_nothing_but_their_own_feedback() {
    let _g = lock();
    let (f, released, class) = class_fixture();
    let grades = f.root().join("graded/grades.csv");
    let source = f.notebook(NOTEBOOK);
    // The build folder every run of this machine uses (`EVCXR_TMPDIR`, as
    // .ci/run sets it, or the default under the cache folder), where the
    // planted file would land.
    let build = puzzlebook_cli::engine::evcxr_dir();
    // The build folder's cargo config (puzzlebook writes one): a1 rewrites
    // it with a rustc wrapper that fails every later compile.
    let planted = build.join(".cargo/config.toml");
    let config_before = std::fs::read(&planted).ok();
    // The files evcxr reads its settings and start-up code from when an
    // engine starts: `grade`'s engines read the build folder's `config`
    // (EVCXR_CONFIG_DIR; every sandbox's view is of that one folder);
    // evcxr on its own reads the user's config folder. a8 writes into each
    // what no engine can start with.
    let home_config = std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
        .join(".config/evcxr/evcxr.toml");
    let mut settings = vec![home_config.clone()];
    for file in ["evcxr.toml", "init.evcxr", "prelude.rs"] {
        settings.push(build.join("config").join(file));
    }
    let settings_before: Vec<Option<Vec<u8>>> =
        settings.iter().map(|p| std::fs::read(p).ok()).collect();
    let attacks = [
        // A rustc wrapper planted where evcxr's cargo reads its config:
        // every later compile in the build folder fails.
        // It says whether the write went through, so that the test knows
        // the attack ran: in its sandbox it lands in its own view.
        (
            "a1-plants",
            format!(
                "let d = {build:?};\nlet _ = std::fs::create_dir_all(format!(\"{{d}}/.cargo\"));\nlet planted = std::fs::write(format!(\"{{d}}/.cargo/config.toml\"), \"[build]\\nrustc-wrapper = \\\"/bin/false\\\"\\n\");\nprintln!(\"planted: {{planted:?}}\");",
                build = build.display().to_string()
            ),
        ),
        // A process in a session of its own that waits for the grades and
        // rewrites them once the grader is done (it waits for ever if it
        // cannot see them, and so is found below if it outlives the run),
        // and one that holds the cell's pipes.
        (
            "a2-survives",
            format!(
                "let waits = std::process::Command::new(\"setsid\").args([\"sh\", \"-c\", \"until [ -e {grades} ]; do sleep 1; done; echo forged > {grades}\"]).spawn();\nprintln!(\"waiting to forge: {{}}\", waits.is_ok());\nlet _ = std::process::Command::new(\"sleep\").arg(\"4321\").spawn();",
                grades = grades.display()
            ),
        ),
        // The teacher's notebook, found from the grader's command line or
        // known, and the course checkout's notebooks and reports, which
        // hold every chapter's hidden tests, printed onto the page.
        (
            "a3-reads",
            format!(
                "for e in std::fs::read_dir(\"/proc\").unwrap().flatten() {{\n    let args: Vec<String> = std::fs::read(e.path().join(\"cmdline\")).unwrap_or_default().split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();\n    if let Some(i) = args.iter().position(|a| a == \"--source\") {{\n        let cwd = std::fs::read_link(e.path().join(\"cwd\")).unwrap_or_default();\n        println!(\"{{}}\", std::fs::read_to_string(cwd.join(&args[i + 1])).unwrap_or_default());\n    }}\n}}\nfor p in [{:?}, {:?}, {:?}] {{\n    println!(\"{{p}}: {{}}\", std::fs::read_to_string(p).unwrap_or_default());\n}}",
                source.display().to_string(),
                root_dir().join("notebooks/02-calculator-the-game.ipynb").display().to_string(),
                root_dir().join("reports/02-calculator-the-game.org").display().to_string(),
            ),
        ),
        // Hidden tests compiled in the build folder before (the teacher's
        // `run` below): the cell crate's source and libraries, looked for
        // in every file of the folder by the words of the hidden test's
        // message, and printed onto the page. (The search is std's,
        // compiled with optimizations, where a cell is not: the walk reads
        // gigabytes. Lossy text keeps every ASCII byte, so the words are
        // found wherever they are.)
        (
            "a7-digs",
            format!(
                "fn walk(d: &std::path::Path, needle: &str, out: &mut Vec<String>) {{\n    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {{\n        let p = e.path();\n        let Ok(m) = std::fs::symlink_metadata(&p) else {{ continue }};\n        if m.is_dir() {{\n            walk(&p, needle, out);\n        }} else if m.is_file() && m.len() < (16 << 20) {{\n            let bytes = std::fs::read(&p).unwrap_or_default();\n            let text = String::from_utf8_lossy(&bytes);\n            if text.contains(needle) {{\n                out.push(format!(\"{{}}: {{text}}\", p.display()));\n            }}\n        }}\n    }}\n}}\n// The hidden test's own words, spelt backwards here so that this\n// cell's own code is not found.\nlet needle: String = \"tey thgir ton si 1-t esicrexe\".chars().rev().collect();\nlet mut found = Vec::new();\nwalk(std::path::Path::new({build:?}), &needle, &mut found);\nprintln!(\"dug up {{}} file(s)\", found.len());\nfor f in &found {{\n    println!(\"{{f}}\");\n}}",
                build = build.display().to_string()
            ),
        ),
        // Settings and start-up code evcxr cannot take, written where the
        // engines started after it would read them: its working folder, the
        // one above (which a class once shared), the build folder's config
        // and the user's. It says where each write went.
        (
            "a8-configures",
            format!(
                "let config = std::env::var(\"EVCXR_CONFIG_DIR\").unwrap_or_default();\nlet targets = [\"evcxr.toml\".to_string(), \"../evcxr.toml\".to_string(), format!(\"{{config}}/evcxr.toml\"), format!(\"{{config}}/init.evcxr\"), format!(\"{{config}}/prelude.rs\"), {home:?}.to_string()];\nfor p in &targets {{\n    let p = std::path::Path::new(p);\n    if let Some(d) = p.parent() {{\n        let _ = std::fs::create_dir_all(d);\n    }}\n    println!(\"wrote {{}}: {{:?}}\", p.display(), std::fs::write(p, \"[evcxr\\nnot toml\"));\n}}",
                home = home_config.display().to_string()
            ),
        ),
        // The grader, found by its command line and killed, so that nothing
        // is written for anyone.
        (
            "a9-kills",
            "let mut found = 0;\nfor e in std::fs::read_dir(\"/proc\").unwrap().flatten() {\n    let cmd = std::fs::read(e.path().join(\"cmdline\")).unwrap_or_default();\n    if cmd.split(|b| *b == 0).any(|a| a == b\"grade\" || a == b\"--source\") {\n        found += 1;\n        let pid = e.file_name().to_string_lossy().into_owned();\n        println!(\"killing {pid}: {:?}\", std::process::Command::new(\"kill\").args([\"-9\", &pid]).status());\n    }\n}\nprintln!(\"hunted the grader: {found} found\");".to_string(),
        ),
        // A wrong answer that forges its results: a right run's, written to
        // every descriptor of every other process it sees. Under
        // bubblewrap's own reaper, process 1 held the results' pipe, and
        // the forged text, followed by the true results, was no longer
        // results at all: "not graded".
        (
            "a4-forges",
            "let forged = r#\"{\"cells\":[{\"outputs\":[]},{\"outputs\":[]},{\"outputs\":[]},{\"outputs\":[]}]}\"#;\nlet me = std::process::id().to_string();\nfor e in std::fs::read_dir(\"/proc\").unwrap().flatten() {\n    let pid = e.file_name().to_string_lossy().into_owned();\n    if pid.parse::<u32>().is_err() || pid == me {\n        continue;\n    }\n    for fd in 0..64 {\n        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(format!(\"/proc/{pid}/fd/{fd}\")) {\n            let _ = std::io::Write::write_all(&mut f, forged.as_bytes());\n        }\n    }\n}\nreturn vec![v[0].lt(&v[1])];".to_string(),
        ),
        // A wrong answer over which `assert!` and `assert_eq!` are made to
        // pass anything, for every cell after it: the hidden tests' checks.
        // (The right answer `attacking` adds goes into a function after
        // the shadows, never called.)
        (
            "a5-shadows",
            "return vec![v[0].lt(&v[1])];\n}\nmacro_rules! assert { ($($t:tt)*) => { () }; }\nmacro_rules! assert_eq { ($($t:tt)*) => { () }; }\n#[allow(dead_code)]\nfn after_the_shadows(v: &[Int]) -> Vec<Bool> {".to_string(),
        ),
        // A wrong answer (no bounds) that redefines the notebook's own
        // helper `between`, which the hidden test's rule for the bounds
        // calls, to hold of anything: the reference, had it been built in
        // this process, would then have no bounds either.
        (
            "a10-redefines",
            "return vec![v[0].lt(&v[1])];\n}\nfn between(_: &Int, _: i64, _: i64) -> Bool {\n    Bool::from_bool(true)\n}\n#[allow(dead_code)]\nfn after_the_redefinition(v: &[Int]) -> Vec<Bool> {".to_string(),
        ),
        // A wrong answer that says, in the ways a cell can, that its test
        // passed: a right verdict printed, a value of full points in evcxr's
        // own output protocol, no panic message ever shown, and a block of
        // that protocol opened and never closed, to swallow what its test
        // prints after it.
        (
            "a6-says-right",
            "std::panic::set_hook(Box::new(|_| {}));\nprintln!(\"Right: your model has exactly the reference's 3 solutions.\");\nprintln!(\"EVCXR_BEGIN_CONTENT text/plain\\n2\\nEVCXR_END_CONTENT\");\nprintln!(\"EVCXR_BEGIN_CONTENT text/plain\");\nreturn vec![v[0].lt(&v[1])];".to_string(),
        ),
    ];
    // As a teacher's `report` or `run` would: the source's cells, hidden
    // tests included, compiled in the build folder every sandbox sees. It
    // also warms the folder, so that the runaways' cell timeout only meets
    // their loop. The teacher's notebook grades its own solution right
    // through the runner: x < y over 1..3 has (1,2), (1,3) and (2,3).
    let o = run(f
        .cmd(&["run", "notebooks/exercise.ipynb"])
        .current_dir(f.root()));
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains("Right: your model has exactly the reference's 3 solutions."),
        "{out}"
    );

    // One student of each kind: more of a kind would repeat the same run.
    // Each row: the student, the points of 2 and the status, or none for
    // one that cannot be graded.
    let mut expected: BTreeMap<String, Option<(&str, &str)>> = BTreeMap::new();
    let mut kinds: BTreeMap<String, Kind> = BTreeMap::new();
    for (k, kind) in (1..).zip(KINDS) {
        let student = format!("s{k:02}");
        std::fs::write(
            class.join(format!("{student}.ipynb")),
            kind.notebook(&released),
        )
        .unwrap();
        let (points, status, _) = kind.expected();
        expected.insert(student.clone(), Some((points, status)));
        kinds.insert(student, kind);
    }
    // Two that cannot be graded: not JSON, and another chapter's notebook.
    std::fs::write(class.join("s98.ipynb"), "{\"nbformat\": 4, \"cells\": [").unwrap();
    std::fs::write(
        class.join("s99.ipynb"),
        r#"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "01-1", "solution": true, "grade": false, "locked": false, "schema_version": 3}}, "outputs": [], "source": "fn exercise_01_1() {}"}]}"#,
    )
    .unwrap();
    expected.insert("s98".into(), None);
    expected.insert("s99".into(), None);
    // The attackers, in four submissions. Those whose attacks wrap a right
    // answer get full points; those that wrap x < y without bounds get none.
    // Attacks whose effects are looked for outside the submission's own
    // verdict (a file planted or read, a process left or killed) share one
    // answer, in one cell, each printing that it ran; a5 and a10 share a
    // wrong one, for either alone, had it worked, would make it right.
    // a4's writes to every descriptor, and a6's words, which must be judged
    // by what they print, are each alone.
    let attack = |name: &str| {
        attacks
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, code)| code.as_str())
            .unwrap()
    };
    let joined_attacks = |names: &[&str]| {
        names
            .iter()
            .map(|n| attack(n))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let submissions = [
        (
            OUTSIDE,
            joined_attacks(&[
                "a1-plants",
                "a3-reads",
                "a8-configures",
                "a9-kills",
                "a7-digs",
                "a2-survives",
            ]),
            ("2", "right"),
        ),
        ("a4-forges", joined_attacks(&["a4-forges"]), ("0", "wrong")),
        (
            "a5-shadows-a10-redefines",
            joined_attacks(&["a5-shadows", "a10-redefines"]),
            ("0", "wrong"),
        ),
        (
            "a6-says-right",
            joined_attacks(&["a6-says-right"]),
            ("0", "wrong"),
        ),
    ];
    for (student, code, row) in &submissions {
        std::fs::write(
            class.join(format!("{student}.ipynb")),
            attacking(&released, code),
        )
        .unwrap();
        expected.insert(student.to_string(), Some(*row));
    }
    let before = files(&class);
    let source_before = std::fs::read(&source).unwrap();

    // The limits the runaways meet: time enough for every other cell,
    // a7's walk of the build folder the longest; the loop only holds its
    // job's slot meanwhile, for it sleeps.
    let mut c = f.cmd(&[
        "grade",
        "--source",
        "notebooks/exercise.ipynb",
        "--out",
        "graded",
        "-j",
        "2",
        "--cell-timeout",
        "120",
        "--cell-memory",
        "1G",
    ]);
    // The runaway first (jobs start in the order given), so that the other
    // slot grades the class while it waits out its timeout.
    let looper = class.join(format!(
        "s{:02}.ipynb",
        1 + KINDS.iter().position(|k| matches!(k, Kind::Loops)).unwrap()
    ));
    c.arg(&looper)
        .args(before.keys().map(Path::new).filter(|p| *p != looper))
        .current_dir(f.root());
    let o = run(&mut c);
    // The warm-up built this fixture's copy of the crate, its build scripts
    // too, for the first time, and left its note for the next grade.
    let warm_note = build.join("puzzlebook-warm").is_file();
    let config_after = std::fs::read(&planted).ok();
    let settings_after: Vec<Option<Vec<u8>>> =
        settings.iter().map(|p| std::fs::read(p).ok()).collect();
    // Never leave the machine's build folder or evcxr's settings broken for
    // later tests.
    let paths = std::iter::once(&planted).chain(&settings);
    let befores = std::iter::once(&config_before).chain(&settings_before);
    let afters = std::iter::once(&config_after).chain(&settings_after);
    for ((path, before), after) in paths.zip(befores).zip(afters) {
        if after != before {
            match before {
                Some(bytes) => std::fs::write(path, bytes).unwrap(),
                None => std::fs::remove_file(path).unwrap(),
            }
        }
    }
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    // Some could not be graded: exit code 1, as a check that found
    // something (an attacker that stopped the grader would have made it
    // something else).
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(warm_note, "no warm-up note in {}", build.display());
    assert_eq!(
        config_after,
        config_before,
        "a1 planted {} for every later run",
        planted.display()
    );
    // Each is as it was, but for the build folder's `evcxr.toml`: the runner
    // writes its own there before an engine starts (the optimisation level,
    // 0), so it holds that whether or not an engine had run there before.
    let settings_expected: Vec<Option<Vec<u8>>> = settings
        .iter()
        .zip(&settings_before)
        .map(|(path, before)| {
            if *path == build.join("config/evcxr.toml") {
                Some(b"[evcxr]\nopt_level = \"0\"\n".to_vec())
            } else {
                before.clone()
            }
        })
        .collect();
    assert_eq!(
        settings_after, settings_expected,
        "a8 wrote evcxr's settings for every later engine: {settings:?}"
    );
    // The submissions and the source are as they were; nothing was added
    // beside them.
    assert_eq!(files(&class), before);
    assert_eq!(std::fs::read(&source).unwrap(), source_before);

    // A row for each student, in the order of their names.
    let csv = std::fs::read_to_string(&grades).unwrap();
    let mut want = String::from("student_id,notebook,exercise,score,max_score,status\n");
    for (student, row) in &expected {
        let (score, status) = row.unwrap_or(("", "not graded"));
        want += &format!("{student},exercise,t-1,{score},2,{status}\n");
    }
    assert_eq!(csv, want, "{err}");
    let page = |s: &str| feedback_page(&f, s);

    // Each kind's page says why.
    for (student, kind) in &kinds {
        let html = page(student);
        // The loud answer's 16 MB of output (8 MB at each of its two calls,
        // in one cell) is kept to 1 MiB.
        if matches!(kind, Kind::Loud) {
            assert!(
                html.len() < 2 << 20,
                "{student}: a page of {} bytes",
                html.len()
            );
        }
        let said = kind.expected().2;
        assert!(
            html.contains(said),
            "{student} ({kind:?}): no {said:?} in {html}"
        );
    }
    for student in ["s98", "s99"] {
        assert!(page(student).contains("Not graded"), "{}", page(student));
    }

    // The terminal's summary: a row per student, then why two were not
    // graded and whose test cell changed.
    // Its first column is as wide as the longest name, and its last as
    // "not graded".
    let w = expected.keys().map(|s| s.len()).max().unwrap();
    assert!(
        out.starts_with(&format!("{:<w$}  t-1 /2    total /2\n", "student")),
        "{out}"
    );
    assert!(
        out.contains("not graded: s98 (s98.ipynb): ") && out.contains("not valid JSON"),
        "{out}"
    );
    assert!(
        out.contains("not graded: s99 (s99.ipynb): ")
            && out.contains("it has none of this notebook's exercises (t-1), but 01-1"),
        "{out}"
    );
    for student in expected.keys() {
        let flagged = out.contains(&format!(
            "changed: {student} ({student}.ipynb): the locked cell t-1-test was edited"
        ));
        let edits = kinds
            .get(student)
            .is_some_and(|k| matches!(k, Kind::EditsTheTest));
        assert_eq!(flagged, edits, "{student}: {out}");
    }

    let outside = page(OUTSIDE);
    // a1's write went through, to its own view.
    assert!(outside.contains("planted: Ok(())"), "{outside}");
    // a8's writes to its working folder and to the build folder's config
    // went through, to its own views, which no other run sees; the user's
    // config folder is not in its view at all.
    let a8 = &outside;
    assert!(a8.contains("wrote evcxr.toml: Ok(())"), "{a8}");
    for file in ["evcxr.toml", "init.evcxr", "prelude.rs"] {
        assert!(a8.contains(&format!("/config/{file}: Ok(())")), "{a8}");
    }
    assert!(
        a8.contains(&format!("wrote {}: Err(", home_config.display())),
        "{a8}"
    );
    // a9 ran to its end and found no grader to kill: the grade above was
    // written, and ended with 1 for the two not graded, not by a signal.
    let a9 = &outside;
    assert!(a9.contains("hunted the grader: 0 found"), "{a9}");
    // a3 read to its last file, and the hidden tests' text (their rules)
    // is on no page.
    let last = root_dir().join("reports/02-calculator-the-game.org");
    assert!(
        outside.contains(&format!("{}: ", last.display())),
        "{outside}"
    );
    assert!(!outside.contains("grade::rule("), "{outside}");
    // a4's forged results reached nobody, and a5's shadows, a6's words and
    // a10's helper changed nothing: each answer, x < y unbounded, is judged
    // for what it is, by the grader, against the teacher's reference.
    for student in ["a4-forges", "a5-shadows-a10-redefines", "a6-says-right"] {
        let p = page(student);
        assert!(
            p.contains("which the reference rules out (it breaks the bounds)"),
            "{student}: {p}"
        );
        assert!(!p.contains("Your solution cell failed"), "{student}: {p}");
    }
    // a7 looked through the whole build folder and found no hidden test:
    // what earlier runs compiled there was removed before any run, and the
    // reference run's own cells stayed in its own sandbox.
    let a7 = &outside;
    assert!(a7.contains("dug up 0 file(s)"), "{a7}");
    // Nothing outlives the run (the PID namespace ends with its process 1;
    // this guards that, where the runaway's page above is what shows the
    // timeout ended the child): no `sleep` of a2's or of the runaway's is
    // left, and no shell of a2's that would rewrite the grades.
    let a2 = &outside;
    assert!(a2.contains("waiting to forge: true"), "{a2}");
    assert_nothing_running("sleep 4321");
    assert_nothing_running("sleep 4322");
    assert_nothing_running("echo forged");
}

#[test]
#[ignore = "slow: grades every chapter, 16 chapter runs, about 6 minutes"]
fn every_chapter_grades_wrong_answers_by_their_right_parts_with_witnesses() {
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
    // Two seeds, each the first that draws what the fixtures need.
    // Chapter 01's draws questions 1 and 2 among 01-3's five pairs: left
    // out, they let 78 sheets through, more than its typical mistake's limit
    // of 10 (the fixture says how that count was found). The other
    // chapters' draws 04-4's two hardest values of `max` (10 to 16), 15 and
    // 16: the more pairs, the harder Z3 finds products of unknowns, and
    // 04-4's right answer by divisibility was "not graded" at both. And 24
    // among 03-3's three targets, where its typical mistake (the count for
    // 24, whatever the target) is right for one part: all or nothing, it
    // still gets 0. The fixtures of 02-3 and 04-3 name levels and ranges
    // that seed draws, so a change to its conditions needs their expected
    // lines redrawn.
    use puzzlebook::grade::inputs::drawn;
    let pairs_01_3 = |s| {
        // 01-3's draw, as its test cell makes it.
        drawn(s, "01-3", 5, |d| {
            let a = d.between(1, 20);
            let b = d.between(1, 19);
            let b = if b >= a { b + 1 } else { b };
            vec![a.min(b), a.max(b)]
        })
    };
    let seed_01 = (0u64..)
        .find(|&s| pairs_01_3(s).contains(&vec![1, 2]))
        .unwrap();
    let seed = (0u64..)
        .find(|&s| {
            let mut max = drawn(s, "04-4", 2, |d| d.between(10, 16));
            max.sort_unstable();
            max == [15, 16] && drawn(s, "03-3", 3, |d| d.between(1, 60)).contains(&24)
        })
        .unwrap();
    // The build folder's note of its last warm-up (`engine::warm`), as
    // (contents, time) after each grade. Chapters 01 to 03 `:dep` the crate
    // alike, so the grades of 02 and 03 find 01's warm-up done and start
    // no engine outside their sandboxes, which would have written the note
    // anew, though a teacher's `run` that builds nothing new came between;
    // 04 also asks for polars, and warms up again.
    let note = puzzlebook_cli::engine::evcxr_dir().join("puzzlebook-warm");
    let read_note = || {
        let modified = std::fs::metadata(&note).and_then(|m| m.modified());
        (std::fs::read(&note).ok(), modified.ok())
    };
    let mut last_note = (None, None);
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
        // Every exercise has a right answer written otherwise.
        for id in &solutions {
            assert!(
                rights
                    .iter()
                    .any(|a| a.stem == stem && &a.exercise == id),
                "{stem}: exercise {id} has no right answer written otherwise in cli/tests/fixtures/exercises/right/"
            );
        }
        // Scoring is per exercise and grade runs past a failing cell, so a
        // few submissions prove what one per wrong answer did: "odd" takes
        // the first wrong answer of the 1st and 3rd exercises, "even" that
        // of the 2nd, "more" the second wrong answer of an exercise that
        // has two, and each answers the other exercises with a right answer
        // written otherwise (the teacher's solution where there is none).
        // Every exercise is graded right at least once and wrong once,
        // beside others graded the other way.
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
        let mut exercises: Vec<&String> = chapter.iter().map(|a| &a.exercise).collect();
        exercises.dedup();
        let mut students: Vec<(String, Vec<&WrongAnswer>)> = Vec::new();
        assert!(
            exercises
                .iter()
                .all(|id| chapter.iter().filter(|a| &a.exercise == *id).count() <= 2),
            "{stem}: at most two wrong answers an exercise, for the three submissions below"
        );
        for name in ["odd", "even", "more"] {
            let wrong: Vec<&WrongAnswer> = exercises
                .iter()
                .enumerate()
                .filter_map(|(k, id)| {
                    let mut theirs = chapter.iter().filter(|a| &a.exercise == *id);
                    match name {
                        "odd" if k % 2 == 0 => theirs.next(),
                        "even" if k % 2 == 1 => theirs.next(),
                        "more" => theirs.nth(1),
                        _ => None,
                    }
                })
                .copied()
                .collect();
            if wrong.is_empty() {
                continue;
            }
            std::fs::write(dir.path().join(format!("{name}.ipynb")), handed_in(&wrong)).unwrap();
            students.push((name.to_string(), wrong));
        }
        let chapter_seed = if stem.starts_with("01-") {
            seed_01
        } else {
            seed
        };
        let mut c = crate::common::puzzlebook(&["grade", "--source"]);
        c.arg(&file)
            .arg("--root")
            .arg(root_dir())
            .args(["--out", "graded", "-j", "2", "--seed"])
            .arg(chapter_seed.to_string())
            .args(students.iter().map(|(name, _)| format!("{name}.ipynb")))
            .current_dir(dir.path());
        let o = run(&mut c);
        assert_eq!(o.status.code(), Some(0), "{stem}: {}", text(&o.stderr));
        let now = read_note();
        assert!(
            now.0.is_some(),
            "{stem}: no warm-up note in {}",
            note.display()
        );
        match &stem[..3] {
            "02-" | "03-" => assert_eq!(now, last_note, "{stem}: its grade warmed up again"),
            "04-" => assert_ne!(now.0, last_note.0, "{stem}: its grade kept 03's warm-up"),
            _ => {}
        }
        last_note = now;
        if stem.starts_with("01-") {
            // A teacher's `run`, in the same build folder, of a notebook
            // whose `:dep` cell is the chapter's: its cells compile there,
            // and nothing else builds.
            let nb: serde_json::Value = serde_json::from_str(&teacher).unwrap();
            let dep = nb["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["cell_type"] == "code")
                .map(|c| joined(&c["source"]))
                .unwrap()
                .replace(
                    "path = \"..\"",
                    &format!("path = {:?}", root_dir().display().to_string()),
                );
            let cells: Vec<serde_json::Value> = [dep.as_str(), "let x = 6 * 7;", "x"]
                .iter()
                .map(|source| {
                    serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [],
                        "execution_count": null, "source": source})
                })
                .collect();
            let aside = dir.path().join("aside.ipynb");
            let notebook = serde_json::json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells});
            std::fs::write(&aside, notebook.to_string()).unwrap();
            let o = run(crate::common::puzzlebook(&["run", "--root"])
                .arg(root_dir())
                .arg(&aside));
            assert!(o.status.success(), "{}", text(&o.stderr));
            // `run` writes nothing; it prints each cell's output.
            assert!(text(&o.stdout).contains("42"), "{}", text(&o.stdout));
            assert_eq!(read_note(), last_note, "the run changed the warm-up note");
        }
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
            exercises,
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
                let want = if let Some(a) = wrong.iter().find(|a| &a.exercise == exercise) {
                    // Each right part gets its share of the points.
                    match a.right_parts {
                        Some((k, n)) if k > 0 => {
                            // Written to two decimals, as a gradebook is.
                            let share = (max * f64::from(k) / f64::from(n) * 100.0).round() / 100.0;
                            format!("{student},{stem},{exercise},{share},{max},partial")
                        }
                        _ => format!("{student},{stem},{exercise},0,{max},wrong"),
                    }
                } else {
                    format!("{student},{stem},{exercise},{max},{max},right")
                };
                // The feedback page says why, when a row is not as wanted.
                assert_eq!(row(student, exercise), want, "{html}");
            }
            let section = |exercise: &str| {
                let start = format!("<section class=\"cell\" id=\"{exercise}\">");
                html.split_once(&start)
                    .and_then(|(_, rest)| rest.split_once("</section>"))
                    .map(|(section, _)| section)
                    .unwrap_or_else(|| panic!("{stem} {exercise}: no section in\n{html}"))
            };
            // A right answer passes the checks before hand-in too (theirs are
            // the inputs the release shows): no "Not yet" in its section.
            for exercise in points.keys() {
                if !wrong.iter().any(|a| &a.exercise == exercise) {
                    let section = section(exercise);
                    assert!(
                        !section.contains("Not yet"),
                        "{stem} {exercise}:\n{section}"
                    );
                    // Nor a sheet: only a witness is drawn.
                    assert!(
                        !section.contains("<figure"),
                        "{stem} {exercise}:\n{section}"
                    );
                }
            }
            // Each witness is in its own exercise's section of the page.
            for a in wrong {
                let section = section(&a.exercise);
                assert!(section.contains("Not yet:"), "{section}");
                for e in &a.expect {
                    assert!(
                        section.contains(e.as_str()),
                        "{stem} {}: {e:?} in\n{section}",
                        a.exercise
                    );
                }
                // The witnesses are drawn as answer sheets where the
                // exercise shows its values as letters, as its test cell
                // says, and nowhere else.
                let test_id = format!("{}-test", a.exercise);
                let letters = nb["cells"].as_array().unwrap().iter().any(|c| {
                    c["metadata"]["nbgrader"]["grade_id"].as_str() == Some(test_id.as_str())
                        && joined(&c["source"]).contains(".shown_as_letters(")
                });
                assert_eq!(
                    section.contains("<figure class=\"figure\""),
                    letters,
                    "{stem} {}: a sheet drawn only for letters, in\n{section}",
                    a.exercise
                );
            }
        }
    }
}

#[test]
#[ignore = "slow: a reference run and a sandboxed one, stopped"]
fn ctrl_c_stops_grading_and_writes_nothing_and_a_submission_runs_in_a_folder_of_its_own() {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let _g = lock();
    let (f, released, class) = class_fixture();
    // The answer writes a file where it runs, and never ends. It runs in a
    // sandbox, which shows it its working folder alone: the file appears
    // there, in the grader's temporary folder, which this test gives.
    let tmp = f.root().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let body = "std::fs::write(\"stray.txt\", \"\").unwrap();\nloop {}";
    std::fs::write(class.join("stuck.ipynb"), answered(&released, body)).unwrap();
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
        .env("TMPDIR", &tmp)
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..1200 {
        if found(&tmp, "stray.txt") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(found(&tmp, "stray.txt"), "the submission never started");
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
    // beside it, the source or where grade was started; and the folder is
    // gone with the run.
    assert_eq!(files(&class), before);
    assert!(!f.root().join("stray.txt").exists());
    assert!(!f.root().join("notebooks/stray.txt").exists());
    assert!(!found(&tmp, "stray.txt"));
}

#[test]
fn without_a_sandbox_grade_says_so_on_every_run() {
    let f = Fixture::new(&[NOTEBOOK]);
    // The source is read first; a source without exercises stops before any
    // run, so no engine is needed to see the warning.
    let o = run(f
        .cmd(&[
            "grade",
            "x.ipynb",
            "--source",
            "notebooks/missing.ipynb",
            "--no-sandbox",
        ])
        .current_dir(f.root()));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("warning: grading without a sandbox (--no-sandbox)"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn without_bubblewrap_grade_refuses_and_names_the_way_out() {
    let f = Fixture::new(&[NOTEBOOK]);
    // A submission with the exercise: the teacher's notebook itself will
    // do, for it is refused before any run.
    std::fs::copy(f.notebook(NOTEBOOK), f.root().join("alice.ipynb")).unwrap();
    // A PATH with every tool the sandbox needs but bubblewrap.
    let bin = f.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["prlimit", "unshare", "sh", "mount"] {
        let found = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("no {tool}"));
        std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
    }
    let o = run(f
        .cmd(&[
            "grade",
            "alice.ipynb",
            "--source",
            "notebooks/exercise.ipynb",
        ])
        .current_dir(f.root())
        .env("PATH", &bin)
        // It takes a build folder before it looks for bubblewrap: one of
        // its own, so that it need not wait for the shared one.
        .env("EVCXR_TMPDIR", f.root().join("evcxr")));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot start a sandbox for the submissions"),
        "{err}"
    );
    assert!(
        err.contains("apt install bubblewrap") && err.contains("--no-sandbox"),
        "{err}"
    );
    assert!(!f.root().join("grades").exists(), "nothing is written");
}

#[test]
#[ignore = "slow: three runs of the fixture, one of them sandboxed"]
fn a_teacher_s_notebook_that_fails_its_own_test_stops_grade_and_writes_nothing() {
    let _g = lock();
    let f = Fixture::new(&[NOTEBOOK]);
    let released = released(&f);
    std::fs::write(f.root().join("alice.ipynb"), answered(&released, "vec![]")).unwrap();
    // The teacher's solution, mistyped: it panics, so the reference run
    // cannot hand a reference over, and no submission can be judged.
    let teacher = std::fs::read_to_string(f.root().join("notebooks").join(NOTEBOOK)).unwrap();
    let solution = "vec![v[0].ge(1), v[1].le(3), v[0].lt(&v[1])]";
    assert!(teacher.contains(solution));
    // In the notebook's JSON, the quotes escaped.
    let broken = teacher.replace(solution, r#"panic!(\"the teacher's typo\")"#);
    std::fs::write(f.root().join("notebooks/broken.ipynb"), broken).unwrap();
    // At -j 2, alice runs beside the reference run; since a submission
    // could have starved it, the teacher's notebook runs once more, alone,
    // before it is blamed. (That no submission starts after a failed
    // reference is the unit test of `sandboxed::schedule`.)
    let o = run(f
        .cmd(&[
            "grade",
            "alice.ipynb",
            "-j",
            "2",
            "--source",
            "notebooks/broken.ipynb",
        ])
        .current_dir(f.root()));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the teacher's notebook failed while submissions ran beside it; running it once more, alone"),
        "{err}"
    );
    assert!(
        err.contains("the teacher's notebook, run for the reference answers, failed, and grading needs it to pass its own tests")
            && err.contains("the teacher's typo"),
        "{err}"
    );
    assert!(!f.root().join("grades").exists(), "nothing is written");
}
