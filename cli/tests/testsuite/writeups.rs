//! Every result a write-up prints, checked in our reports against the write-up
//! (`tests/writeups/`, taken from the four published write-ups), not against
//! our own committed outputs. And no result anywhere is a Rust Debug dump.
//!
//! The reports are parsed here with a few lines of our own; the 24 game's
//! expressions are evaluated by an evaluator in this file, not the crate's.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::common::{joined, root_dir};
use serde_json::Value;

pub(crate) fn report(name: &str) -> String {
    let p = root_dir().join("reports").join(format!("{name}.org"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn writeup(rel: &str) -> String {
    let p = root_dir().join("tests/writeups").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The named results of an org report: name → the lines after
/// `#+RESULTS[…]: name`, up to the blank line that ends them.
pub(crate) fn results(org: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut lines = org.lines();
    while let Some(l) = lines.next() {
        if let Some(rest) = l.strip_prefix("#+RESULTS[") {
            let (_, name) = rest.split_once("]: ").expect("a named result");
            let body: Vec<String> = lines
                .by_ref()
                .take_while(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            out.insert(name.to_string(), body);
        }
    }
    out
}

pub(crate) fn result<'a>(results: &'a BTreeMap<String, Vec<String>>, name: &str) -> &'a [String] {
    results
        .get(name)
        .unwrap_or_else(|| panic!("no result named {name}; have {:?}", results.keys()))
}

/// The text of `: ` lines.
pub(crate) fn colon_text(body: &[String]) -> Vec<String> {
    body.iter()
        .map(|l| {
            l.strip_prefix(": ")
                .or_else(|| l.strip_prefix(':'))
                .unwrap_or_else(|| panic!("not a `: ` line: {l:?}"))
                .to_string()
        })
        .collect()
}

/// An org table as tab-separated lines (header first, the rule dropped).
pub(crate) fn org_table_as_tsv(body: &[String]) -> String {
    let mut out = String::new();
    for l in body {
        assert!(
            l.starts_with('|'),
            "not an org table line: {l:?} in {body:?}"
        );
        if l.starts_with("|-") {
            continue;
        }
        let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
        out.push_str(&cells.join("\t"));
        out.push('\n');
    }
    out
}

#[test]
fn the_impossible_puzzle_s_ten_tables_are_the_write_up_s() {
    let r = results(&report("04-impossible-puzzle"));
    let mut names = vec!["start".to_string()];
    names.extend((1..=9).map(|n| format!("step-{n}")));
    for name in &names {
        let ours = org_table_as_tsv(result(&r, name));
        let theirs = writeup(&format!("04-impossible-puzzle/{name}.tsv"));
        assert_eq!(
            ours, theirs,
            "table {name} of report 04 against the write-up's"
        );
    }
    // The conclusion: in step-8 one product is unique, 16, so the pair is (2, 8).
    let step8 = writeup("04-impossible-puzzle/step-8.tsv");
    let rows: Vec<Vec<i64>> = step8
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(|c| c.parse().unwrap()).collect())
        .collect();
    let unique: Vec<&Vec<i64>> = rows
        .iter()
        .filter(|r| rows.iter().filter(|o| o[0] == r[0]).count() == 1)
        .collect();
    assert_eq!(unique, [&vec![16, 10, 2, 8]]);
    let conclusion = colon_text(result(&r, "dialogue")).join("\n");
    assert!(
        conclusion.contains("his product is 16") && conclusion.contains("2 and 8"),
        "{conclusion}"
    );
    assert_eq!(
        colon_text(result(&r, "same-as-the-crate")),
        ["10 of the 10 tables above are the crate's, row for row."]
    );
}

#[test]
fn solve_sum_product_prints_the_write_up_s_ten_tables_and_conclusion() {
    // The command's own dialogue (plain Rust, no polars), table by table
    // against the write-up's, in the write-up's order.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_puzzlebook"))
        .args(["solve", "sum-product", "--format", "tsv"])
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let mut blocks = out.split("\n\n");
    let mut names = vec!["start".to_string()];
    names.extend((1..=9).map(|n| format!("step-{n}")));
    for name in &names {
        let block = blocks
            .next()
            .unwrap_or_else(|| panic!("no table {name}:\n{out}"));
        let (title, table) = block.split_once('\n').unwrap();
        assert_eq!(title, name, "{out}");
        assert_eq!(
            format!("{table}\n"),
            writeup(&format!("04-impossible-puzzle/{name}.tsv")),
            "table {name} of `solve sum-product` against the write-up's"
        );
    }
    let conclusion = blocks.next().unwrap_or_default();
    assert!(
        conclusion.contains("his product is 16") && conclusion.contains("2 and 8"),
        "{conclusion}"
    );
}

#[test]
fn the_srat_answers_are_the_write_up_s_in_both_forms_of_question_13() {
    let r = results(&report("01-self-referential-aptitude-test"));
    let ours = colon_text(result(&r, "answers")).join("\n") + "\n";
    assert_eq!(ours, writeup("01-answers.txt"));
    let letters: String = writeup("01-answers.txt")
        .lines()
        .map(|l| l.chars().last().unwrap())
        .collect();
    let iff = colon_text(result(&r, "q13-iff")).join("\n");
    assert!(iff.contains(&letters), "{iff}");
    assert!(iff.contains("the same sheet as above"), "{iff}");
}

/// `(define-fun NAME () Int` then the value on the next line, from a model
/// as the write-up prints it.
fn define_funs(text: &[String]) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for (i, l) in text.iter().enumerate() {
        if let Some(rest) = l.trim().strip_prefix("(define-fun ") {
            let name = rest.split_whitespace().next().unwrap().to_string();
            let v = text[i + 1].trim().trim_end_matches(')').parse().unwrap();
            out.push((name, v));
        }
    }
    out
}

#[test]
fn both_calculator_models_are_the_write_up_s() {
    let r = results(&report("02-calculator-the-game"));
    for goal in ["-120", "-130"] {
        let text = colon_text(result(&r, &format!("model{goal}")));
        assert!(text.iter().any(|l| l == "sat"), "Z3's own answer: {text:?}");
        let theirs: Vec<(String, i64)> = writeup(&format!("02-model{goal}.txt"))
            .lines()
            .map(|l| {
                let (n, v) = l.split_once(' ').unwrap();
                (n.to_string(), v.parse().unwrap())
            })
            .collect();
        assert_eq!(define_funs(&text), theirs, "goal {goal}");
        let agree = if goal == "-120" {
            colon_text(result(&r, "api-120"))
        } else {
            text
        };
        assert!(
            agree.iter().any(|l| l == "The two models agree."),
            "{agree:?}"
        );
    }
}

/// A notebook's code cell named `name`, its source.
pub(crate) fn cell_source(notebook: &str, name: &str) -> String {
    let nb: Value = serde_json::from_str(
        &std::fs::read_to_string(root_dir().join(format!("notebooks/{notebook}.ipynb"))).unwrap(),
    )
    .unwrap();
    let cell = nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("{notebook} has no cell {name}"));
    joined(&cell["source"])
}

#[test]
fn chapter_02_replays_the_write_up_s_presses_without_solving_again() {
    let r = results(&report("02-calculator-the-game"));
    for goal in [-120i64, -130] {
        // The write-up's model: which button each step's 1 picks.
        let mut display = 0i64;
        let mut expected = vec!["step\tbutton\tfrom\tto".to_string()];
        for (step, chosen) in (1..).zip(writeup_presses(goal)) {
            // The game's buttons, as the level describes them.
            let (label, after) = match chosen {
                "Mul5" => ("x5", display * 5),
                "Sub6" => ("-6", display - 6),
                _ if display < 0 => ("4", display * 10 - 4),
                _ => ("4", display * 10 + 4),
            };
            expected.push(format!("{step}\t{label}\t{display}\t{after}"));
            display = after;
        }
        assert_eq!(display, goal);
        let name = format!("steps{goal}");
        let table = org_table_as_tsv(result(&r, &name));
        assert_eq!(table.lines().collect::<Vec<_>>(), expected, "{name}");
        // The cell replays the notebook's model; it does not solve again.
        let source = cell_source("02-calculator-the-game", &name);
        assert!(source.contains("replay(&model_"), "{source}");
        assert!(
            !source.contains("calculator::solve") && !source.contains("step_models"),
            "{source}"
        );
    }
    // The printed script ends as the write-up's does.
    let script = colon_text(result(&r, "script"));
    assert_eq!(script[script.len() - 2..], ["(check-sat)", "(get-model)"]);
}

/// The operation each step's 1 picks in the write-up's model for `goal`.
fn writeup_presses(goal: i64) -> Vec<&'static str> {
    let model = writeup(&format!("02-model{goal}.txt"));
    (1..=4)
        .map(|step| {
            ["Mul5", "Sub6", "Append4"]
                .into_iter()
                .find(|op| model.lines().any(|l| l == format!("s{step}{op} 1")))
                .unwrap_or_else(|| panic!("step {step} of {model}"))
        })
        .collect()
}

#[test]
fn chapter_02_proves_uniqueness_with_its_own_model_and_a_blocking_clause() {
    let source = cell_source("02-calculator-the-game", "unique");
    // The notebook's own model, the coefficients, assertions and chained
    // steps its earlier cells built, and a clause that forbids each model found.
    assert!(
        source.contains("all_models(&one_button_a_step, &coefficients, &level_38, goal, 100)"),
        "{source}"
    );
    assert!(
        source.contains("level_38_solver(assertions, level, goal)"),
        "{source}"
    );
    assert!(source.contains("Bool::or(&differs)"), "{source}");
    assert!(!source.contains("step_models"), "{source}");
    let r = results(&report("02-calculator-the-game"));
    let lines = colon_text(result(&r, "unique"));
    for goal in [-120i64, -130] {
        let want = format!("goal {goal}: 1 model: {}", writeup_presses(goal).join(", "));
        assert!(lines.contains(&want), "{want:?} in {lines:?}");
    }
}

#[test]
fn chapter_02_s_path_names_its_axes() {
    let svg = std::fs::read_to_string(
        root_dir().join("reports/figures/02-calculator-the-game/path-120.svg"),
    )
    .unwrap();
    // The button labels and the values are told apart by the axes' titles.
    for text in ["button pressed", "display", "x5", "-120"] {
        assert!(svg.contains(&format!(">\n{text}\n<")), "{text}");
    }
}

/// The Z3 term a helper cell printed after `label`, in report 01's
/// `basic-structure` result.
fn printed_term(lines: &[String], label: &str) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label:?} in {lines:?}"))
        .trim()
        .to_string()
}

#[test]
fn chapter_01_writes_the_write_up_s_helpers_over_z3_in_its_cells() {
    let helpers = cell_source("01-self-referential-aptitude-test", "basic-structure");
    for call in [
        "Int::new_const",
        ".implies(",
        ".ite(",
        "Int::add(",
        "q.ge(1)",
        "q.le(5)",
    ] {
        assert!(helpers.contains(call), "{call} in {helpers}");
    }
    // What each helper builds, in SMT-LIB, from the write-up's Ruby:
    // `@q[i] = Z3.Int("Q#{i}")` with A = 1, `answer(q, a).implies(yield)`,
    // `Z3.Add(*statements.map{|b| b.ite(1,0)})`, `(x >= 0).ite(x, -x)`.
    let r = results(&report("01-self-referential-aptitude-test"));
    let lines = colon_text(result(&r, "basic-structure"));
    assert_eq!(
        printed_term(&lines, "bounds of Q1:"),
        "(and (>= Q1 1) (<= Q1 5))"
    );
    assert_eq!(printed_term(&lines, "answer(10, 'A'):"), "(= Q10 1)");
    // `define` is an implication, not an equivalence.
    assert_eq!(
        printed_term(&lines, "define(1, 'B', …):"),
        "(=> (= Q1 2) (= Q2 2))"
    );
    assert_eq!(
        printed_term(&lines, "count_answers(B, 1-3):"),
        "(+ (ite (= Q1 2) 1 0) (ite (= Q2 2) 1 0) (ite (= Q3 2) 1 0))"
    );
    assert_eq!(
        printed_term(&lines, "abs(Q7 - Q8):"),
        "(ite (>= (- Q7 Q8) 0) (- Q7 Q8) (- (- Q7 Q8)))"
    );
    // One solver for the chapter, as the write-up's class holds one: made
    // with the bounds, each question's cell asserting its definitions into
    // it, and the answers read from its model.
    for call in ["Solver::new()", "self.solver.assert(", "let mut test = "] {
        assert!(helpers.contains(call), "{call} in {helpers}");
    }
    let answers = cell_source("01-self-referential-aptitude-test", "answers");
    assert!(answers.contains("check_model(&test.solver,"), "{answers}");
    let nb: Value = serde_json::from_str(
        &std::fs::read_to_string(
            root_dir().join("notebooks/01-self-referential-aptitude-test.ipynb"),
        )
        .unwrap(),
    )
    .unwrap();
    let code: Vec<String> = nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .map(|c| joined(&c["source"]))
        .collect();
    for n in 1..=20 {
        let defines = format!("test.define({n}, ");
        assert!(
            code.iter().any(|c| c.contains(&defines)),
            "question {n}'s cell asserts into the chapter's solver"
        );
    }
    // No recorded layer between the questions and Z3.
    for recorded in ["Formula", "Term::", "formula_in_z3", "Test::new("] {
        assert!(
            code.iter().all(|c| !c.contains(recorded)),
            "{recorded} in a code cell"
        );
    }
    // Uniqueness by blocking the model, in a scope of that same solver.
    let unique = cell_source("01-self-referential-aptitude-test", "unique");
    for call in [
        "solver.push();",
        "Bool::or(&differs)",
        "solver.pop(1);",
        "sheets(&test.solver,",
    ] {
        assert!(unique.contains(call), "{call} in {unique}");
    }
}

#[test]
fn chapter_01_runs_question_7_s_other_form_and_z3_finds_them_equal() {
    let source = cell_source("01-self-referential-aptitude-test", "q7-both-signs");
    assert!(source.contains("d.eq(n) | d.eq(-n)"), "{source}");
    let r = results(&report("01-self-referential-aptitude-test"));
    let lines = colon_text(result(&r, "q7-both-signs"));
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (n, line) in (1..=4).zip(&lines) {
        assert!(
            line.starts_with(&format!(
                "|Q7 - Q8| = {n}  and  (Q7 - Q8 = {n} or Q7 - Q8 = -{n}):"
            )),
            "{line}"
        );
        assert!(line.ends_with(": the same on every sheet"), "{line}");
    }
}

/// Chapter 02 builds its Rust model over cells in the script's order: the
/// coefficients, then the steps, then the goal, each cell using the Z3 terms
/// the cells before it made.
#[test]
fn chapter_02_builds_the_rust_model_over_cells_as_the_script_does() {
    let nb = "02-calculator-the-game";
    let coefficients = cell_source(nb, "coefficients-api");
    assert!(
        coefficients.contains("Int::new_const(format!(\"s{n}{op}\"))"),
        "{coefficients}"
    );
    let steps = cell_source(nb, "steps-api");
    assert!(steps.contains("for c in &coefficients"), "{steps}");
    assert!(!steps.contains("Int::new_const"), "{steps}");
    let goal = cell_source(nb, "api-120");
    assert!(
        goal.contains("level_38_solver(&one_button_a_step, &level_38, -120)"),
        "{goal}"
    );
    assert!(!goal.contains("Int::new_const"), "{goal}");
}

/// Chapter 03's orderings of [1, 5, 5, 5] come from a solver an earlier cell
/// made and gave `permutation`'s constraint.
#[test]
fn chapter_03_lists_the_orderings_from_a_solver_made_in_an_earlier_cell() {
    let made = cell_source("03-twenty-four", "permutation-solver");
    assert!(
        made.contains("solver.assert(permutation(&xs, &[1, 5, 5, 5]));"),
        "{made}"
    );
    let listed = cell_source("03-twenty-four", "permutations");
    assert!(listed.contains("solver.check()"), "{listed}");
    assert!(!listed.contains("Solver::new"), "{listed}");
}

#[test]
fn chapter_03_s_ten_questions_are_a_literal_in_a_cell_as_in_the_write_up() {
    let source = cell_source("03-twenty-four", "solve-24");
    let at = source
        .find("const QUESTIONS")
        .unwrap_or_else(|| panic!("{source}"));
    // From the line after `= [` to the line `];`.
    let end = source[at..].find("\n];").map(|e| at + e).unwrap();
    let body = &source[at..end];
    let ours: Vec<String> = body
        .lines()
        .skip(1)
        .map(|l| l.trim().trim_end_matches(',').to_string())
        .filter(|l| !l.is_empty())
        .collect();
    let theirs: Vec<String> = writeup("03-questions.txt")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(ours, theirs);
    let nb = std::fs::read_to_string(root_dir().join("notebooks/03-twenty-four.ipynb")).unwrap();
    assert!(
        !nb.contains("twenty_four::QUESTIONS"),
        "imported, not written"
    );
}

#[test]
fn the_24_game_s_permutations_and_outputs_are_the_write_up_s() {
    let r = results(&report("03-twenty-four"));
    let table = org_table_as_tsv(result(&r, "permutations"));
    let ours: BTreeSet<String> = table
        .lines()
        .skip(1)
        .map(|l| format!("[{}]", l.split('\t').collect::<Vec<_>>().join(", ")))
        .collect();
    let theirs: BTreeSet<String> = writeup("03-permutations.txt")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(ours, theirs);
    assert_eq!(
        colon_text(result(&r, "output")).join("\n") + "\n",
        writeup("03-output.txt")
    );
}

#[test]
fn every_expression_in_report_03_is_exactly_its_target() {
    let r = results(&report("03-twenty-four"));
    let mut checked = 0;
    for (name, body) in &r {
        for line in body.iter().filter_map(|l| l.strip_prefix(": ")) {
            // `[1, 5, 5, 5]: EXPR = 24`, `EXPR = 24   (2 models)`, `  EXPR = 24`,
            // `[…]: the write-up has EXPR = 24, we have EXPR = 24`.
            let line = line.split("   (").next().unwrap();
            let line = line.rsplit("]: ").next().unwrap();
            let line = line.strip_prefix("left to right: ").unwrap_or(line);
            let line = line.strip_prefix("the write-up has ").unwrap_or(line);
            for part in line.split(", we have ") {
                let Some((expr, value)) = part.trim().rsplit_once(" = ") else {
                    continue;
                };
                if !expr.starts_with(|c: char| c == '(' || c.is_ascii_digit()) {
                    continue;
                }
                let got = eval(expr).unwrap_or_else(|| panic!("{name}: {expr} has no value"));
                assert_eq!(
                    got,
                    (24, 1),
                    "{name}: {expr} is {got:?}, printed as {value}"
                );
                assert_eq!(value, "24", "{name}: {part}");
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 38,
        "only {checked} expressions found in report 03"
    );
    let solved = colon_text(result(&r, "solve-24"));
    assert_eq!(solved.len(), 10, "{solved:?}");
    let by_function = colon_text(result(&r, "solve-24-by-function"));
    assert_eq!(by_function.len(), 10, "{by_function:?}");
    for l in solved.iter().chain(&by_function) {
        assert!(
            !l.contains("no solution"),
            "the write-up solves every question: {l}"
        );
    }
    let against = colon_text(result(&r, "cells-against-the-crate"));
    let agree = &against[0];
    let (n, rest) = agree
        .strip_prefix("the cells and the crate agree on ")
        .and_then(|s| s.split_once(" of "))
        .unwrap_or_else(|| panic!("{against:?}"));
    assert_eq!(rest, format!("{n} multisets"), "{against:?}");
    let (exact, of) = against[1]
        .split_once(" of ")
        .unwrap_or_else(|| panic!("{against:?}"));
    assert_eq!(
        of,
        format!("{exact} expressions are exactly 24"),
        "{against:?}"
    );
}

/// A fraction in lowest terms with a positive denominator.
fn frac(n: i128, d: i128) -> Option<(i128, i128)> {
    if d == 0 {
        return None;
    }
    fn gcd(a: i128, b: i128) -> i128 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    let g = gcd(n, d).max(1) * d.signum();
    Some((n / g, d / g))
}

/// The exact value of `expr` (numbers, `+ - * /`, brackets; an operator's
/// operands are a number or a bracketed expression, as `output` writes them).
fn eval(expr: &str) -> Option<(i128, i128)> {
    let tokens: Vec<String> = expr
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut at = 0;
    let v = eval_sum(&tokens, &mut at)?;
    (at == tokens.len()).then_some(v)
}

fn eval_sum(t: &[String], at: &mut usize) -> Option<(i128, i128)> {
    let mut acc = eval_atom(t, at)?;
    while let Some(op) = t
        .get(*at)
        .filter(|s| ["+", "-", "*", "/"].contains(&s.as_str()))
    {
        *at += 1;
        let (a, b) = (acc, eval_atom(t, at)?);
        acc = match op.as_str() {
            "+" => frac(a.0 * b.1 + b.0 * a.1, a.1 * b.1)?,
            "-" => frac(a.0 * b.1 - b.0 * a.1, a.1 * b.1)?,
            "*" => frac(a.0 * b.0, a.1 * b.1)?,
            _ => frac(a.0 * b.1, a.1 * b.0)?,
        };
    }
    Some(acc)
}

fn eval_atom(t: &[String], at: &mut usize) -> Option<(i128, i128)> {
    let tok = t.get(*at)?;
    *at += 1;
    if tok == "(" {
        let v = eval_sum(t, at)?;
        (t.get(*at)? == ")").then_some(())?;
        *at += 1;
        Some(v)
    } else {
        frac(tok.parse().ok()?, 1)
    }
}

#[test]
fn the_test_s_evaluator_is_exact() {
    assert_eq!(eval("8 / (3 - (8 / 3))"), Some((24, 1)));
    assert_eq!(eval("(5 - (1 / 5)) * 5"), Some((24, 1)));
    assert_eq!(eval("1 / (2 - 2)"), None);
    assert_eq!(eval("1 / 3"), Some((1, 3)));
}

/// Whether a result line reads like Rust's `Debug` output rather than a table
/// or a sentence: a struct dump, an `Option`, or a tuple of values.
fn looks_like_debug(line: &str) -> bool {
    let l = line.trim();
    let struct_dump = l.split_once(" { ").is_some_and(|(head, _)| {
        !head.is_empty()
            && head.chars().all(|c| c.is_ascii_alphanumeric())
            && head.starts_with(|c: char| c.is_ascii_uppercase())
    });
    let tuple = l.starts_with('(')
        && l.ends_with(')')
        && ["(Some(", "(None", "(true", "(false", "([", "(\""]
            .iter()
            .any(|p| l.starts_with(p))
        || (l.starts_with('(')
            && l[1..].split(", ").count() > 1
            && l[1..]
                .split(", ")
                .all(|p| p.trim_end_matches(')').parse::<i64>().is_ok()));
    struct_dump || tuple || l == "()" || l.starts_with("Some(") || l.starts_with("[\"")
}

#[test]
fn the_debug_detector_finds_what_shipped_before() {
    for dump in [
        "Table { header: [\"m\", \"s\"], rows: [] }",
        "(Some(-124), Some(4), Some(-120))",
        "(1, 1)",
        "(true, 1)",
        "(1820, 1362)",
        "([], [\"(1 + 2) * (1 + 7)\"])",
        "()",
    ] {
        assert!(looks_like_debug(dump), "{dump}");
    }
    for fine in [
        "(5 - (1 / 5)) * 5",
        "(1 + 2) * (1 + 7) = 24",
        "[1, 5, 5, 5]: (5 - (1 / 5)) * 5 = 24",
        "goal -120: 1 model",
        "Q 1: D",
    ] {
        assert!(!looks_like_debug(fine), "{fine}");
    }
}

fn notebooks() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root_dir().join("notebooks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ipynb"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 4);
    v
}

#[test]
fn no_result_in_any_notebook_or_report_is_a_debug_dump() {
    for nb in notebooks() {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&nb).unwrap()).unwrap();
        for cell in v["cells"].as_array().unwrap() {
            let name = cell["metadata"]["name"].as_str().unwrap_or("unnamed");
            for o in cell["outputs"].as_array().into_iter().flatten() {
                if o["output_type"] != "execute_result" {
                    continue;
                }
                let data = &o["data"];
                let plain = joined(&data["text/plain"]);
                assert!(
                    !plain.lines().any(looks_like_debug),
                    "{}, cell {name}: a Debug dump: {plain}",
                    nb.display()
                );
                // A table publishes its org form as well as HTML.
                if data.get("text/html").is_some() {
                    assert!(
                        data.get("text/x-org").is_some(),
                        "{}, cell {name}: a table without text/x-org",
                        nb.display()
                    );
                }
            }
        }
        let stem = nb.file_stem().unwrap().to_str().unwrap();
        for (name, body) in results(&report(stem)) {
            for l in body.iter().filter_map(|l| l.strip_prefix(": ")) {
                assert!(!looks_like_debug(l), "reports/{stem}.org, {name}: {l}");
            }
        }
    }
}
