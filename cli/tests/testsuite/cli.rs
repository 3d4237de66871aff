//! The `puzzlebook solve …` commands, run as a user runs them.

use std::process::{Command, Output};

fn puzzlebook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puzzlebook"))
        .args(args)
        .env_remove("CI")
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn solve_srat_prints_the_answers_and_unique() {
    let o = puzzlebook(&["solve", "srat"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = "DADBEDDEDABADBADBABE"
        .chars()
        .enumerate()
        .map(|(i, c)| format!("Q{:2}: {c}", i + 1))
        .chain(["unique: yes".to_string()])
        .collect();
    assert_eq!(stdout(&o), lines.join("\n") + "\n");
}

#[test]
fn solve_srat_q20_free_counts_four() {
    let o = puzzlebook(&["solve", "srat", "--q20-free"]);
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("unique: no, 4 solutions"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn solve_srat_explain_adds_the_table() {
    let o = puzzlebook(&["solve", "srat", "--explain", "--q13-iff"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("| Q  | answer | A   | B   |"), "{out}");
    assert!(
        out.contains("| 20 | E      | no  | no  | no | no  | yes |"),
        "{out}"
    );
}

#[test]
fn solve_calculator_level_38() {
    let o = puzzlebook(&[
        "solve",
        "calculator",
        "--start",
        "0",
        "--goal",
        "-120",
        "--moves",
        "4",
        "--buttons",
        "x5,-6,4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "4, -6, 4, x5\nstep 1: 4 → 4\nstep 2: -6 → -2\nstep 3: 4 → -24\nstep 4: x5 → -120\n"
    );
    let o = puzzlebook(&[
        "solve",
        "calculator",
        "--goal",
        "-130",
        "--moves",
        "4",
        "--buttons",
        "x5,-6,4",
        "--all",
        "--smt2",
    ]);
    let out = stdout(&o);
    assert!(out.starts_with("(define-fun Mul5"), "{out}");
    assert!(out.contains("-6, -6, 4, -6\n"), "{out}");
}

#[test]
fn solve_calculator_errors() {
    let o = puzzlebook(&[
        "solve",
        "calculator",
        "--goal",
        "7",
        "--moves",
        "2",
        "--buttons",
        "x5,y7",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("\"y7\" is not a button"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("+N, -N, xN"), "{}", stderr(&o));
    let o = puzzlebook(&[
        "solve",
        "calculator",
        "--goal",
        "7",
        "--moves",
        "2",
        "--buttons",
        "x2",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "no solution within 2 moves\n");
}

#[test]
fn solve_24_prints_checked_expressions() {
    let o = puzzlebook(&["solve", "24", "1", "5", "5", "5", "--all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    for line in out.lines() {
        let expr = line.strip_suffix(" = 24").expect("EXPR = 24");
        assert!(
            puzzlebook::twenty_four::verify(expr, &[1, 5, 5, 5], 24),
            "{line}"
        );
    }
    let o = puzzlebook(&["solve", "24", "1", "1", "2", "7", "--method", "exhaustive"]);
    assert!(o.status.success());
    let o = puzzlebook(&[
        "solve", "24", "3", "4", "--target", "12", "--method", "function",
    ]);
    // Which of 3 * 4 and 4 * 3 comes first is Z3's choice.
    let out = stdout(&o);
    let expr = out.strip_suffix(" = 12\n").expect("one EXPR = 12 line");
    assert!(puzzlebook::twenty_four::verify(expr, &[3, 4], 12), "{out}");
}

#[test]
fn solve_24_no_solution_and_bad_input() {
    let o = puzzlebook(&["solve", "24", "1", "1", "1", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "no solution\n");
    let o = puzzlebook(&["solve", "24", "1", "x", "5", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("\"x\" is not a whole number"),
        "{}",
        stderr(&o)
    );
    let o = puzzlebook(&["solve", "24", "1", "2", "3", "4", "5", "6", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("1 to 6 numbers, not 7"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn solve_sum_product_prints_tables_and_conclusion() {
    let o = puzzlebook(&["solve", "sum-product"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("start\nm\ts\tx\ty\n9\t10\t1\t9\n"), "{out}");
    assert!(out.contains("\nstep-9\nm\ts\tx\ty\n24\t10\t4\t6\n"));
    assert!(
        out.trim_end().ends_with("so the numbers are 2 and 8."),
        "{out}"
    );
    let o = puzzlebook(&["solve", "sum-product", "--format", "org", "--max", "2"]);
    assert!(
        stdout(&o).contains("no solution for max 2"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        vec!["--help"],
        vec!["solve", "--help"],
        vec!["solve", "srat", "--help"],
        vec!["solve", "calculator", "--help"],
        vec!["solve", "24", "--help"],
        vec!["solve", "sum-product", "--help"],
        vec!["run", "--help"],
        vec!["report", "--help"],
        vec!["check", "--help"],
        vec!["grade", "--help"],
    ] {
        let o = puzzlebook(&args);
        assert!(o.status.success(), "{args:?}");
        assert!(stdout(&o).contains("Usage"), "{args:?}");
    }
}

/// `bench` with `args` and the checkout as its root: its Markdown table's
/// rows (the header first), after asserting that it succeeded.
fn bench_rows(args: &[&str]) -> (String, Vec<String>) {
    let mut all = vec![
        "bench",
        "--root",
        concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
    ];
    all.extend_from_slice(args);
    let o = puzzlebook(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let rows = out
        .lines()
        .filter(|l| l.starts_with("| "))
        .map(str::to_string)
        .collect();
    (out, rows)
}

/// A group's first case is its baseline: its ratio is 1.00×.
fn assert_baseline(rows: &[String], group: &str) {
    let first = rows.iter().find(|r| r.contains(group)).unwrap();
    let ratio = first
        .trim_end_matches([' ', '|'])
        .rsplit('|')
        .next()
        .unwrap();
    assert_eq!(ratio.trim(), "1.00×", "{first}");
}

#[test]
fn bench_prints_a_markdown_table_of_checked_cases_with_ratios() {
    let (out, rows) = bench_rows(&[
        "--only",
        "24",
        "--only",
        "srat",
        "--only",
        "calculator",
        "--repeat",
        "1",
        "--stride",
        "182",
    ]);
    // A header, then 5 + 2 + 4 cases.
    assert_eq!(rows.len(), 12, "{out}");
    assert!(out.contains("|---"), "{out}");
    assert!(out.contains("| 24 game, 10 multisets "), "{out}");
    assert!(out.contains("DADBEDDEDABADBADBABE"), "{out}");
    for group in [
        "24 game,",
        "Self-Referential",
        "Calculator level 38",
        "Calculator, 7 moves",
    ] {
        assert_baseline(&rows, group);
    }
    let bad = puzzlebook(&["bench", "--only", "sudoku"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("sum-product"), "{}", stderr(&bad));
}

#[test]
#[ignore = "slow: the write-up's Python on the z3-solver wheel from PyPI (setup-venv z3)"]
fn bench_sets_the_write_up_s_python_beside_the_rust_solvers() {
    let (out, rows) = bench_rows(&["--only", "24-python", "--repeat", "1", "--stride", "182"]);
    // A header, then 4 cases.
    assert_eq!(rows.len(), 5, "{out}");
    // The write-up's Python, on the wheel's Z3, and the Rust solvers, with
    // the Z3 each loaded named; all solve the same multisets.
    let python: Vec<&String> = rows
        .iter()
        .filter(|r| r.contains("| 24 game against the write-up's Python, 10 multisets, "))
        .collect();
    assert_eq!(python.len(), 4, "{out}");
    assert!(
        python[0].contains("the write-up's Python solve_24 (z3-solver, Z3 5.4.1)"),
        "{out}"
    );
    let z3 = puzzlebook::libz3::loaded();
    let engines = if z3.version == "5.4.1" {
        format!("both on Z3 5.4.1 ({}", z3.file.unwrap().display())
    } else {
        "different engines: Python on Z3 5.4.1 (".to_string()
    };
    assert!(python[0].contains(&engines), "{out}");
    let solvable = |r: &str| r.split('|').nth(3).unwrap().trim().to_string();
    assert!(
        python
            .iter()
            .skip(1)
            .take(2)
            .all(|r| solvable(r) == solvable(python[0])),
        "{out}"
    );
    assert_baseline(&rows, "24 game against");
}

#[test]
fn a_max_too_large_for_the_memory_is_refused_before_any_work() {
    let o = puzzlebook(&["solve", "sum-product", "--max", "100000"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("--max 100000 means 5000050000 candidate pairs"),
        "{err}"
    );
    assert!(err.contains("The largest --max that fits is"), "{err}");
    assert!(err.contains("or pass --format summary"), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn the_summary_counts_what_each_answer_leaves_and_concludes_as_the_tables_do() {
    let o = puzzlebook(&["solve", "sum-product", "--format", "summary"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The write-up's tables hold 45, 18, 15, 14, 13, 12, 11, 10 and 9 rows.
    assert!(
        out.starts_with(
            "table\tafter\tcandidates\nstart\t\t45\nstep-1\tPete's answer 1\t18\n\
             step-2\tSusan's answer 1\t15\n"
        ),
        "{out}"
    );
    assert!(out.contains("step-8\tSusan's answer 4\t9\n"), "{out}");
    assert!(out.ends_with("so the numbers are 2 and 8.\n"), "{out}");
    // Nothing but the result goes into a pipe: no progress, no warnings.
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    // Far past the tables' limit, it is still refused before any work.
    let o = puzzlebook(&[
        "solve",
        "sum-product",
        "--max",
        "10000000",
        "--format",
        "summary",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("counting them needs about"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn fourteen_presses_of_five_buttons_are_searched_through_distinct_states() {
    // 5^14 = 6·10⁹ sequences; the search meets far fewer distinct states.
    let o = puzzlebook(&[
        "solve",
        "calculator",
        "--start",
        "0",
        "--goal",
        "99999",
        "--moves",
        "14",
        "--buttons",
        "+1,x2,-3,4,Reverse",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("→ 99999\n"), "{}", stdout(&o));
}

#[test]
fn more_presses_than_the_limit_are_refused() {
    let o = puzzlebook(&[
        "solve",
        "calculator",
        "--goal",
        "5",
        "--moves",
        "21",
        "--buttons",
        "+1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Pass --moves 20 or fewer"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // As `puzzlebook solve sum-product --max 60 | head -3`: the reader takes
    // three lines and goes; the output (136 KB) is far more than a
    // pipe holds, so the command is still writing when the pipe closes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_puzzlebook"))
        .args(["solve", "sum-product", "--max", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        lines.push(line);
    }
    drop(reader);
    let o = child.wait_with_output().unwrap();
    assert_eq!(lines, ["start\n", "m\ts\tx\ty\n", "60\t61\t1\t60\n"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "no panic, no message");
    // The same with the pipe closed before the command writes anything.
    let mut child = Command::new(env!("CARGO_BIN_EXE_puzzlebook"))
        .args(["solve", "srat"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn kernel_install_without_a_cargo_lock_names_the_file_not_the_server() {
    // A folder that is the crate to `kernel install` (its manifest names
    // puzzlebook), but has no Cargo.lock for the kernel's build folder.
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("crate");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"puzzlebook\"\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_puzzlebook"))
        .args(["kernel", "install", "--prefix"])
        .arg(d.path().join("prefix"))
        .arg("--root")
        .arg(&root)
        .env("XDG_CACHE_HOME", d.path().join("cache"))
        .env_remove("CI")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("preparing the kernel's first build folder (skip it with --no-build)")
            && err.contains(&format!(
                "cannot copy {}",
                root.join("Cargo.lock").display()
            )),
        "{err}"
    );
    assert!(!err.contains("Jupyter server"), "{err}");
    // Said once: the cause is not repeated by the error that wraps it.
    assert_eq!(err.matches("cannot copy").count(), 1, "{err}");
}

#[test]
fn grade_reports_each_bad_submission_for_its_student_and_refuses_a_source_without_exercises() {
    let dir = tempfile::tempdir().unwrap();
    let source = crate::common::cli_dir().join("tests/fixtures/notebooks/exercise.ipynb");
    std::fs::write(dir.path().join("amy.ipynb"), "not json").unwrap();
    std::fs::write(
        dir.path().join("bo.ipynb"),
        r#"{"nbformat": 4, "cells": []}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("c d.ipynb"),
        r#"{"nbformat": 4, "cells": []}"#,
    )
    .unwrap();
    let mut c = crate::common::puzzlebook(&[
        "grade",
        "amy.ipynb",
        "bo.ipynb",
        "c d.ipynb",
        "--out",
        "graded",
        "--source",
    ]);
    let o = c.arg(&source).current_dir(dir.path()).output().unwrap();
    // None could be graded, and no engine was started for them.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "not graded: amy (amy.ipynb): amy.ipynb is not a usable notebook: not valid JSON"
        ),
        "{out}"
    );
    assert!(out.contains("not graded: bo (bo.ipynb): bo.ipynb: it has none of this notebook's exercises (t-1), and no exercise cell at all"), "{out}");
    assert!(
        out.contains("cannot tell the student from the file name: \"c d\" has the character ' '"),
        "{out}"
    );
    let csv = std::fs::read_to_string(dir.path().join("graded/grades.csv")).unwrap();
    assert_eq!(
        csv,
        "student_id,notebook,exercise,score,max_score,status\n\
         amy,exercise,t-1,,2,not graded\nbo,exercise,t-1,,2,not graded\nc d,exercise,t-1,,2,not graded\n"
    );
    // A source with no exercise: an error, and nothing written.
    let plain = dir.path().join("plain.ipynb");
    std::fs::write(&plain, r#"{"nbformat": 4, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "1"}]}"#).unwrap();
    let o = crate::common::puzzlebook(&[
        "grade",
        "amy.ipynb",
        "--out",
        "none",
        "--source",
        "plain.ipynb",
    ])
    .current_dir(dir.path())
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("plain.ipynb has no exercise with a test cell"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("none").exists());
    for page in ["amy", "bo", "c_d"] {
        let html = std::fs::read_to_string(dir.path().join(format!("graded/feedback/{page}.html")))
            .unwrap();
        assert!(html.contains("Not graded"), "{page}: {html}");
    }
}

#[test]
fn version_names_the_libz3_the_command_loaded() {
    use puzzlebook::libz3::{self, BUILT_AGAINST};
    let o = puzzlebook(&["--version"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], concat!("puzzlebook ", env!("CARGO_PKG_VERSION")));
    // This test links the same libz3 as the command it built.
    let here = libz3::loaded();
    assert_eq!(here.version, BUILT_AGAINST);
    assert_eq!(
        lines[1],
        format!("{here}, built against Z3 {BUILT_AGAINST}")
    );
    assert!(lines[1].contains("/libz3.so"), "{out}");
    // scripts/with-z3-wheel names the folder of the wheel's libz3.
    if let Some(dir) = std::env::var_os("PUZZLEBOOK_Z3_LIB") {
        let dir = std::fs::canonicalize(dir).unwrap();
        assert!(lines[1].contains(&*dir.to_string_lossy()), "{out}");
    }
    // Debian's 4.8.12 is older than the z3 crate's minimum, and says so.
    if libz3::older(&here.version, libz3::MIN_SUPPORTED) {
        assert!(
            out.contains(&format!(
                "note: Z3 {} is older than {}",
                here.version,
                libz3::MIN_SUPPORTED
            )),
            "{out}"
        );
    } else {
        assert!(!out.contains("older than"), "{out}");
    }
    // -V stays one line.
    let short = stdout(&puzzlebook(&["-V"]));
    assert_eq!(short.trim_end(), lines[0]);
}

/// The command allocates with jemalloc in its unprefixed build, which
/// defines the C allocator's functions in the executable, so that libz3 and
/// the cells' libraries loaded into its cell process allocate with it too,
/// and a block is always freed by the allocator that gave it. That holds
/// only while the executable exports the whole family: a change of the
/// crate's features, or of how it is linked, would drop them silently.
#[test]
fn the_command_exports_the_c_allocator_for_the_libraries_it_loads() {
    let o = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(env!("CARGO_BIN_EXE_puzzlebook"))
        .output()
        .expect("nm runs (binutils, which linking needs)");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let defined: Vec<&str> = out
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [_, "T" | "W" | "i", name] => Some(name),
            _ => None,
        })
        .collect();
    for name in [
        "malloc",
        "calloc",
        "realloc",
        "free",
        "posix_memalign",
        "aligned_alloc",
        "memalign",
        "malloc_usable_size",
    ] {
        assert!(
            defined.contains(&name),
            "the command does not define {name} for the libraries it loads:\n{out}"
        );
    }
}
