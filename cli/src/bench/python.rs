//! The 24 group against the write-up's Python: its `solve_24` on the
//! z3-solver wheel, beside the Rust solvers, on the same multisets, every
//! answer of both replayed by exact evaluation.
//!
//! The ratio measures the language and the encoding only when both sides load
//! the same libz3; run the bench under `scripts/with-z3-wheel` for that. The
//! group's name says which Z3 each side loaded.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use puzzlebook::libz3;
use puzzlebook::twenty_four::{self, exhaustive, verify, Method};

use super::solvers::expect;
use super::{measure, BenchError, Measurement};

/// The write-up's `solve_24`, as it is there, with a loop that times it.
const SCRIPT: &str = include_str!("solve_24.py");

/// What the Python run printed.
struct PythonRun {
    answers: Vec<Option<String>>,
    z3: String,
    libz3: String,
    total: Duration,
    cpu: Duration,
}

fn python_error(step: &str, detail: impl std::fmt::Display) -> BenchError {
    BenchError::Python {
        step: step.to_string(),
        detail: detail.to_string(),
    }
}

/// The wheel's Python, from `cli/tests/kernel/setup-venv z3` in `root`.
fn wheel_python(root: &Path) -> Result<String, BenchError> {
    let setup = root.join("cli/tests/kernel/setup-venv");
    let out = Command::new(&setup)
        .arg("z3")
        .output()
        .map_err(|e| python_error(&format!("starting {}", setup.display()), e))?;
    if !out.status.success() {
        return Err(python_error(
            "setting up the z3-solver environment",
            String::from_utf8_lossy(&out.stderr),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn run_python(python: &str, multisets: &[Vec<i64>], arith2: bool) -> Result<PythonRun, BenchError> {
    let dir = tempfile::tempdir().map_err(|e| python_error("a temporary folder", e))?;
    let script = dir.path().join("solve_24.py");
    std::fs::write(&script, SCRIPT).map_err(|e| python_error("writing the script", e))?;
    let mut child = Command::new(python)
        .arg(&script)
        .args(arith2.then_some("arith2"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| python_error(&format!("starting {python}"), e))?;
    let input: String = multisets
        .iter()
        .map(|m| {
            let words: Vec<String> = m.iter().map(i64::to_string).collect();
            words.join(" ") + "\n"
        })
        .collect();
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .map_err(|e| python_error("writing the multisets", e))?;
    let out = child
        .wait_with_output()
        .map_err(|e| python_error("waiting for it", e))?;
    if !out.status.success() {
        return Err(python_error(
            "solving",
            String::from_utf8_lossy(&out.stderr),
        ));
    }
    parse(&String::from_utf8_lossy(&out.stdout), multisets.len())
}

/// Reads the script's output: one answer per multiset, then the libz3 and
/// time lines.
fn parse(stdout: &str, expected: usize) -> Result<PythonRun, BenchError> {
    let lines: Vec<&str> = stdout.lines().collect();
    let bad = || {
        python_error(
            "reading its output",
            format!("unexpected output:\n{stdout}"),
        )
    };
    if lines.len() != expected + 2 {
        return Err(bad());
    }
    let answers = lines[..expected]
        .iter()
        .map(|l| (*l != "None").then(|| l.to_string()))
        .collect();
    let libz3: Vec<&str> = lines[expected].splitn(3, ' ').collect();
    let time: Vec<f64> = lines[expected + 1]
        .split(' ')
        .skip(1)
        .filter_map(|t| t.parse().ok())
        .collect();
    match (libz3.as_slice(), time.as_slice()) {
        (["libz3", z3, file], [wall, cpu]) => Ok(PythonRun {
            answers,
            z3: z3.to_string(),
            libz3: file.to_string(),
            total: Duration::from_secs_f64(*wall),
            cpu: Duration::from_secs_f64(*cpu),
        }),
        _ => Err(bad()),
    }
}

fn same_file(a: &str, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Replays every answer of a Python run by exact evaluation, and checks its
/// count of solvable multisets; returns that count.
fn replayed(
    case: &str,
    all: &[Vec<i64>],
    run: &PythonRun,
    known: usize,
) -> Result<usize, BenchError> {
    for (m, answer) in all.iter().zip(&run.answers) {
        if let Some(e) = answer {
            if !verify(e, m, 24) {
                return Err(BenchError::Wrong {
                    what: format!("{case} on {m:?}"),
                    got: e.clone(),
                    expected: "an expression equal to 24".into(),
                });
            }
        }
    }
    let solved = run.answers.iter().filter(|a| a.is_some()).count();
    if solved != known {
        return Err(BenchError::Wrong {
            what: case.into(),
            got: format!("{solved} solvable (None counts unknown as unsolvable)"),
            expected: format!("{known} solvable"),
        });
    }
    Ok(solved)
}

/// The group: the write-up's Python `solve_24` (the baseline), the same with
/// the Rust solvers' arithmetic setting, then the Rust `solve_24` (the same
/// encoding) and the method where Z3 chooses only the operators, over every
/// `stride`-th multiset. The Python's and the Rust
/// `solve_24`'s solvable counts must be exact search's left-to-right count,
/// the operators method's the count over every bracketing.
pub fn twenty_four(root: &Path, stride: usize) -> Result<Vec<Measurement>, BenchError> {
    let all: Vec<Vec<i64>> = exhaustive::multisets(4, 1, 13)
        .into_iter()
        .step_by(stride.max(1))
        .collect();
    let left_to_right = all
        .iter()
        .filter(|m| !exhaustive::left_to_right_solutions(m, 24).is_empty())
        .count();
    let any_shape = all.iter().filter(|m| exhaustive::solvable(m, 24)).count();

    let python = wheel_python(root)?;
    let write_up = run_python(&python, &all, false)?;
    let tuned = run_python(&python, &all, true)?;
    let rust = libz3::loaded();
    let engines = match &rust.file {
        Some(file) if same_file(&write_up.libz3, file) => {
            format!("both on Z3 {} ({})", rust.version, file.display())
        }
        _ => format!(
            "different engines: Python on Z3 {} ({}), Rust on {rust}",
            write_up.z3, write_up.libz3
        ),
    };
    let group = format!(
        "24 game against the write-up's Python, {} multisets, {engines}",
        all.len()
    );
    let mut rows = Vec::new();
    for (case, run) in [
        (
            format!(
                "the write-up's Python solve_24 (z3-solver, Z3 {})",
                write_up.z3
            ),
            &write_up,
        ),
        (
            "the same, with smt.arith.solver=2 (the Rust solvers' setting)".to_string(),
            &tuned,
        ),
    ] {
        let solved = replayed(&case, &all, run, left_to_right)?;
        rows.push(Measurement {
            group: group.clone(),
            case,
            result: format!("{solved} solvable"),
            items: all.len(),
            total: run.total,
            cpu: run.cpu,
            // The script times its loop as a whole.
            median: run.total / all.len().max(1) as u32,
        });
    }
    let methods = [
        (
            Method::Permutation,
            "Rust solve_24, the same encoding",
            left_to_right,
        ),
        (
            Method::Operators,
            "Rust, Z3 chooses only the operators (push/pop)",
            any_shape,
        ),
    ];
    for (method, case, known) in methods {
        let (found, total, cpu, median) = measure(&all, |m| {
            twenty_four::solve(m, 24, method, false).map_err(|e| BenchError::Solver {
                what: format!("{case} on {m:?}"),
                message: e.to_string(),
            })
        })?;
        let solved = found.iter().filter(|f| !f.is_empty()).count();
        expect(
            case,
            format!("{solved} solvable"),
            format!("{known} solvable"),
        )?;
        rows.push(Measurement {
            group: group.clone(),
            case: case.into(),
            result: format!("{solved} solvable"),
            items: all.len(),
            total,
            cpu,
            median,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_s_output_is_read_or_refused() {
        let run = parse(
            "(5 - (1 / 5)) * 5\nNone\nlibz3 5.4.1 /x/libz3.so.5.4\ntime 1.5 1.25\n",
            2,
        )
        .ok()
        .unwrap();
        assert_eq!(run.answers, [Some("(5 - (1 / 5)) * 5".into()), None]);
        assert_eq!(
            (run.z3.as_str(), run.libz3.as_str()),
            ("5.4.1", "/x/libz3.so.5.4")
        );
        assert_eq!(run.total, Duration::from_millis(1500));
        assert_eq!(run.cpu, Duration::from_millis(1250));
        assert!(parse("None\nlibz3 5.4.1 /x\ntime 1 1\n", 2).is_err());
        assert!(parse("None\nNone\ntime 1 1\nlibz3 5.4.1 /x\n", 2).is_err());
    }
}
