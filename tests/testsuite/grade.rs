//! `puzzlebook::grade` on an exercise in chapter 01's terms: question 7 with
//! question 7's answer fixed at B. The expected verdicts are worked out here
//! from the question, not taken from the module.

use puzzlebook::grade::{self, rule, Exercise, Partial, Rule, Verdict};
use puzzlebook::srat::LETTERS;
use puzzlebook::z3::ast::{Bool, Int};
use puzzlebook::z3util;

/// Answers as letters, as the chapter shows them.
fn letter(name: &str, v: i64) -> String {
    let l = usize::try_from(v - 1)
        .ok()
        .and_then(|i| LETTERS.get(i))
        .unwrap_or(&'?');
    format!("{name}={l}")
}

fn exercise() -> Exercise {
    Exercise::new("01-q7", ["Q7", "Q8"]).shown_as(letter)
}

fn bounds(q: &[Int]) -> Vec<Bool> {
    q.iter().flat_map(|x| [x.ge(1), x.le(5)]).collect()
}

/// The answer to question 7 is B: Q7 and Q8 are 3 apart. With Q7 = 2 (B),
/// Q8 can only be 5 (E): 2 - 3 = -1 is no answer.
fn reference(q: &[Int]) -> Vec<Rule> {
    vec![
        rule("the bounds", Bool::and(&bounds(q))),
        rule("Q7 is B", q[0].eq(2)),
        rule("question 7", z3util::abs(&(&q[0] - &q[1])).eq(3)),
    ]
}

#[test]
fn both_signs_spelled_out_mean_what_abs_means() {
    let v = grade::compare(
        &exercise(),
        |q| {
            let d = &q[0] - &q[1];
            let mut c = bounds(q);
            c.push(q[0].eq(2));
            c.push(Bool::or(&[d.eq(3), d.eq(-3)]));
            c
        },
        reference,
    );
    assert_eq!(v, Verdict::Same { solutions: Some(1) });
    assert_eq!(v.points(3.0, Partial::None), Some(3.0));
    assert!(v.to_string().starts_with("Right"), "{v}");
}

#[test]
fn one_sign_only_rules_out_the_solution_and_says_which_constraint() {
    let v = grade::compare(
        &exercise(),
        |q| {
            let mut c = bounds(q); // constraints 1 to 4
            c.push(q[0].eq(2)); // 5
            c.push((&q[0] - &q[1]).eq(3)); // 6: Q8 = -1, no answer
            c
        },
        reference,
    );
    let Verdict::Differs {
        allowed: None,
        ruled_out: Some(w),
    } = &v
    else {
        panic!("{v:?}");
    };
    assert_eq!(w.values, [2, 5]);
    assert_eq!(w.shown, "Q7=B, Q8=E");
    assert_eq!(w.breaks, ["your constraint 6"]);
    assert!(
        v.to_string().contains(
            "your model rules out Q7=B, Q8=E, which is a solution (your constraint 6 fails there)"
        ),
        "{v}"
    );
    assert_eq!(v.points(3.0, Partial::PerSide), Some(1.5));
}

#[test]
fn forgetting_the_chosen_answer_allows_sheets_the_reference_rules_out() {
    // Without Q7 = 2 every pair 3 apart is allowed; the first listed is (1, 4).
    let v = grade::compare(
        &exercise(),
        |q| {
            let mut c = bounds(q);
            c.push(z3util::abs(&(&q[0] - &q[1])).eq(3));
            c
        },
        reference,
    );
    let Verdict::Differs {
        allowed: Some(w),
        ruled_out: None,
    } = &v
    else {
        panic!("{v:?}");
    };
    assert_eq!(w.shown, "Q7=A, Q8=D");
    assert_eq!(w.breaks, ["Q7 is B"]);
    assert!(v.to_string().contains(
        "your model allows Q7=A, Q8=D, which the reference rules out (it breaks Q7 is B)"
    ));
    assert_eq!(v.points(3.0, Partial::None), Some(0.0));
}
