//! What the chapters' text says their cells compute, checked against the
//! cells' results in the reports: a count, a sheet or a sequence the narrative
//! states is read from the result it describes, so text and result cannot drift
//! apart without a test failing.

use serde_json::Value;

use crate::common::root_dir;
use crate::writeups::{colon_text, org_table_as_tsv, report, result, results};

/// The text of the Markdown cell `id` of a notebook.
fn markdown(notebook: &str, id: &str) -> String {
    let path = root_dir().join(format!("notebooks/{notebook}.ipynb"));
    let nb: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cell = nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id && c["cell_type"] == "markdown")
        .unwrap_or_else(|| panic!("{notebook} has no Markdown cell {id}"));
    cell["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect()
}

/// Asserts that the Markdown cell `id` of `notebook` says `phrase`.
#[track_caller]
fn says(notebook: &str, id: &str, phrase: &str) {
    let text = markdown(notebook, id);
    assert!(
        text.contains(phrase),
        "{notebook}, cell {id}: the text should say {phrase:?}, as the result computes; it says:\n{text}"
    );
}

/// The counts the text spells out in words.
fn word(n: usize) -> &'static str {
    match n {
        1 => "one",
        2 => "two",
        3 => "three",
        4 => "four",
        5 => "five",
        6 => "six",
        7 => "seven",
        8 => "eight",
        9 => "nine",
        10 => "ten",
        100 => "a hundred",
        _ => panic!("no word for {n} here; add it"),
    }
}

/// The data rows of an org table result, cell by cell.
fn rows(body: &[String]) -> Vec<Vec<String>> {
    org_table_as_tsv(body)
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// The first whole number in `line`.
fn first_number(line: &str) -> usize {
    line.split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .unwrap_or_else(|| panic!("no number in {line:?}"))
        .parse()
        .unwrap()
}

#[test]
fn chapter_01_says_what_its_cells_compute() {
    let nb = "01-self-referential-aptitude-test";
    let r = results(&report(nb));

    // The first model: `Sat`, and five letters on which question 1 holds,
    // as the test reads it: if Q1 is the k-th letter, question k is B and
    // no question before it is.
    let first = colon_text(result(&r, "first-model"));
    says(
        nb,
        "srat-first-model-after",
        "`Sat` means the assertions can all hold, and the model is one sheet on which they do",
    );
    assert_eq!(first[0], "Sat", "{first:?}");
    let sheet: Vec<char> = first[1]
        .strip_prefix("Q1 to Q5: ")
        .unwrap_or_else(|| panic!("{first:?}"))
        .chars()
        .collect();
    assert_eq!(sheet.len(), 5, "{sheet:?}");
    let k = usize::from(sheet[0] as u8 - b'A') + 1;
    assert_eq!(
        sheet[k - 1],
        'B',
        "question 1 says question {k} is B: {sheet:?}"
    );
    assert!(
        sheet[..k - 1].iter().all(|c| *c != 'B'),
        "question 1 says no question before {k} is B: {sheet:?}"
    );

    let constraints = first_number(&colon_text(result(&r, "constraints"))[0]);
    says(
        nb,
        "srat-46",
        &format!("make {} of these constraints", word(constraints)),
    );

    let letters: String = colon_text(result(&r, "answers"))
        .iter()
        .map(|l| l.chars().last().unwrap())
        .collect();
    says(nb, "srat-50", &format!("The sheet reads {letters},"));
    let unique = colon_text(result(&r, "unique")).join(" ");
    assert!(unique.starts_with("1 sheet satisfies"), "{unique}");

    // "The other nineteen questions allow several sheets; only one of them ends in E."
    let free = rows(result(&r, "q20-free"));
    says(
        nb,
        "srat-54",
        "allow several sheets; only one of them ends in E",
    );
    assert!(free.len() >= 3, "several: {free:?}");
    let ending_in_e: Vec<&Vec<String>> = free.iter().filter(|s| s[0].ends_with('E')).collect();
    assert_eq!(ending_in_e.len(), 1, "{free:?}");
    assert_eq!(ending_in_e[0][0], letters);

    // The explanation table: Q, answer, A … E.
    let why = rows(result(&r, "explanation"));
    let row = |q: usize| &why[q - 1][2..];
    says(
        nb,
        "srat-46",
        "On the final sheet, exactly one option of each question holds",
    );
    for q in 1..=20 {
        assert_eq!(
            row(q).iter().filter(|c| *c == "yes").count(),
            1,
            "Q{q}: {:?}",
            row(q)
        );
    }
    says(nb, "srat-56", "so exactly its own answer holds");
    let answer_19 = why[18][1].chars().next().unwrap();
    assert_eq!(row(19)[(answer_19 as u8 - b'A') as usize], "yes");
    says(
        nb,
        "srat-56",
        "Options E of questions 6 and 17 (\"all of the above\") never do",
    );
    assert_eq!((row(6)[4].as_str(), row(17)[4].as_str()), ("no", "no"));
}

#[test]
fn chapter_02_says_what_its_cells_compute() {
    let nb = "02-calculator-the-game";
    let r = results(&report(nb));

    let coefficients = rows(result(&r, "coefficients-120"));
    let ones: Vec<String> = coefficients
        .iter()
        .map(|row| {
            let op = ["Mul5", "Sub6", "Append4"][(1..4).find(|&i| row[i] == "1").unwrap() - 1];
            format!("`s{}{op}`", row[0])
        })
        .collect();
    says(nb, "cg-08", &format!("the 1s are {}:", ones.join(", ")));

    for (goal, id) in [(-120, "calc-01"), (-130, "cg-16")] {
        let steps = rows(result(&r, &format!("steps{goal}")));
        let mut displays = vec![steps[0][2].clone()];
        displays.extend(steps.iter().map(|s| s[3].clone()));
        assert_eq!(displays.last().unwrap(), &goal.to_string());
        if goal == -120 {
            says(nb, id, &format!("**{goal} in {} moves**", steps.len()));
            says(
                nb,
                "calc-fig-1",
                &format!("how {} presses get from 0 to {goal}", word(steps.len())),
            );
        } else {
            says(nb, id, &format!("{}.", displays.join(", ")));
        }
    }

    let buttons = rows(result(&r, "buttons"));
    assert!(
        buttons.iter().any(|b| b[..] == ["4", "-12", "-124"]),
        "{buttons:?}"
    );
    says(nb, "calc-01", "-12 becomes -124");
}

#[test]
fn chapter_03_says_what_its_cells_compute() {
    let nb = "03-twenty-four";
    let r = results(&report(nb));

    // [1, 5, 5, 5] has 4!/3! orderings; the table lists them.
    let orderings = rows(result(&r, "permutations")).len();
    assert_eq!(orderings, 24 / 6);
    says(
        nb,
        "tf-05",
        &format!("= {orderings} orderings, so {} rows", word(orderings)),
    );

    let answers = colon_text(result(&r, "solve-24"));
    assert_eq!(answers.len(), 10, "{answers:?}");
    assert!(answers.iter().all(|a| a.ends_with(" = 24")), "{answers:?}");
    says(
        nb,
        "tf-diff",
        "Every question is solved, and every value is exactly 24.",
    );

    let all = colon_text(result(&r, "all-6-9-9-10"));
    let (models, distinct) = (first_number(&all[0]), first_number(&all[0][4..]));
    assert!(distinct < models, "{all:?}");
    says(
        nb,
        "tf-13",
        &format!(
            "For [6, 9, 9, 10] there are {}, but fewer distinct expressions",
            word(models)
        ),
    );

    let complete = colon_text(result(&r, "complete"));
    assert_eq!(complete[0], "left to right: no solution");
    assert!(
        complete
            .iter()
            .any(|l| l.trim() == "(1 + 2) * (1 + 7) = 24"),
        "{complete:?}"
    );
    says(nb, "tf-15", "[1, 1, 2, 7] only works as (1 + 2) * (1 + 7).");
    let expressions = first_number(&complete[1]);
    assert_eq!(complete.len(), 2 + expressions);
    let eight = format!("All {} are one expression", word(expressions));
    says(
        nb,
        "tf-17",
        &eight[..1]
            .to_uppercase()
            .chars()
            .chain(eight[1..].chars())
            .collect::<String>(),
    );

    // C(16, 4): four numbers from 1 to 13, repeats allowed.
    let multisets: usize = (13 * 14 * 15 * 16) / 24;
    let count = colon_text(result(&r, "solvable-count"))[0].clone();
    assert!(
        count.ends_with(&format!(" of the {multisets} multisets can make 24.")),
        "{count}"
    );
    says(
        nb,
        "tf-17",
        &format!("Of the {multisets} multisets of four numbers from 1 to 13"),
    );

    let agree = colon_text(result(&r, "cells-against-the-crate"))[0].clone();
    let every_20th = multisets.div_ceil(20);
    assert_eq!(
        agree,
        format!("the cells and the crate agree on {every_20th} of {every_20th} multisets")
    );
    says(nb, "tf-19", "On every 20th multiset");
}

#[test]
fn chapter_04_says_what_its_cells_compute() {
    let nb = "04-impossible-puzzle";
    let r = results(&report(nb));

    let start = rows(result(&r, "start"));
    says(
        nb,
        "ip-03",
        &format!("There are {} candidate pairs.", start.len()),
    );

    // Step 8's rows are m, s, x, y; the products that appear once.
    let step8 = rows(result(&r, "step-8"));
    let once: Vec<&Vec<String>> = step8
        .iter()
        .filter(|row| step8.iter().filter(|o| o[0] == row[0]).count() == 1)
        .collect();
    assert_eq!(once.len(), 1, "{step8:?}");
    let (product, x, y) = (&once[0][0], &once[0][2], &once[0][3]);
    says(
        nb,
        "ip-21",
        &format!("{product} is the only one that appears once"),
    );
    says(nb, "ip-21", &format!("the numbers are **{x} and {y}**"));
    says(
        nb,
        "sp-fig-1",
        &format!("The pair ringed in black, ({x}, {y})"),
    );

    // For 1 to 20: table, after, pairs left, pairs removed.
    let removed = rows(result(&r, "removed-per-answer-20"));
    let total: usize = removed[0][2].parse().unwrap();
    let gone: Vec<usize> = removed[1..]
        .iter()
        .map(|row| row[3].parse().unwrap())
        .collect();
    says(nb, "sp-fig-3", "Pete's first answer removes most of the pairs; the answers after it remove only a few, and then none");
    assert!(removed[1][1].starts_with("Pete"), "{removed:?}");
    assert!(gone[0] * 2 > total, "most of {total}: {gone:?}");
    assert!(gone[1..].iter().all(|&g| g * 20 < total), "a few: {gone:?}");
    let first_none = gone.iter().position(|&g| g == 0).expect("then none");
    assert!(gone[first_none..].iter().all(|&g| g == 0), "{gone:?}");
    assert_eq!(
        removed.len() - 1,
        8,
        "the eighth answer is the last: {removed:?}"
    );
    says(nb, "sp-fig-3", "what is left after the eighth answer");

    // The legend names only the answers that removed a pair.
    let svg = std::fs::read_to_string(
        root_dir().join("reports/figures/04-impossible-puzzle/removed-when-20.svg"),
    )
    .unwrap();
    for (row, g) in removed[1..].iter().zip(&gone) {
        let person = row[1].split('\'').next().unwrap();
        let entry = format!(">\n{}: {person}\n<", row[0]);
        assert_eq!(
            svg.contains(&entry),
            *g > 0,
            "legend entry {entry:?}, {g} removed"
        );
    }
    says(
        nb,
        "sp-fig-3",
        "The legend names only the answers that removed a pair",
    );
}
