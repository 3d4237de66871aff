//! The Self-Referential Aptitude Test: answers, uniqueness, both Q13 forms, Q20 free.

use puzzlebook::srat::{self, answer, standard_test, Answers, Q13Form, Q20Mode, Test};

const ANSWER: &str = "DADBEDDEDABADBADBABE";

#[test]
fn the_answer_is_the_write_ups() {
    let a = srat::solve().unwrap();
    assert_eq!(a.letters(), ANSWER);
    let expected: String = ANSWER
        .chars()
        .enumerate()
        .map(|(i, c)| format!("Q{:2}: {c}\n", i + 1))
        .collect();
    assert_eq!(a.to_string(), expected);
    assert!(a.to_string().starts_with("Q 1: D\nQ 2: A\n"));
    assert!(a.to_string().ends_with("Q20: E\n"));
}

#[test]
fn the_answer_is_unique() {
    assert_eq!(srat::count_solutions(10).unwrap(), 1);
}

#[test]
fn blocking_the_answer_is_unsat() {
    let mut t = standard_test(Q13Form::Implications, Q20Mode::Define);
    let a = Answers::from_letters(ANSWER);
    let same = puzzlebook::srat::all((1..=20u8).map(|q| answer(q, a.get(q).unwrap())));
    t.assert(!same);
    assert!(matches!(t.solve(), Err(puzzlebook::SolveError::Unsat(_))));
}

#[test]
fn both_q13_forms_and_both_q20_forms_agree() {
    for q13 in [Q13Form::Implications, Q13Form::Iff] {
        for q20 in [Q20Mode::Define, Q20Mode::Assert] {
            let sols = standard_test(q13, q20).all_solutions(10).unwrap();
            assert_eq!(sols.len(), 1, "{q13:?} {q20:?}");
            assert_eq!(sols[0].letters(), ANSWER, "{q13:?} {q20:?}");
        }
    }
}

#[test]
fn q20_free_leaves_four_sheets() {
    let sols = standard_test(Q13Form::Implications, Q20Mode::Free)
        .all_solutions(100)
        .unwrap();
    assert_eq!(sols.len(), 4);
    assert!(sols.iter().any(|s| s.letters() == ANSWER));
    let mut sorted = sols.clone();
    sorted.sort();
    assert_eq!(sols, sorted, "solutions come out sorted");
}

#[test]
fn the_z3_model_agrees_with_plain_evaluation() {
    let t = standard_test(Q13Form::Implications, Q20Mode::Define);
    let a = srat::solve().unwrap();
    for f in t.constraints() {
        assert!(f.eval(&a.values()), "{f} fails under the answer");
    }
}

#[test]
fn explanation_shows_each_answer_holds_and_6e_17e_never() {
    let a = srat::solve().unwrap();
    let t = srat::explain_standard(&a).unwrap();
    assert_eq!(t.len(), 20);
    for (i, row) in t.rows().iter().enumerate() {
        let letter = a.get(i as u8 + 1).unwrap();
        let col = 2 + (letter as usize - 'A' as usize);
        assert_eq!(row[col].to_string(), "yes", "Q{} answer {letter}", i + 1);
    }
    assert_eq!(t.rows()[5][6].to_string(), "no");
    assert_eq!(t.rows()[16][6].to_string(), "no");
    // Q19's options say "the answer to this question is X": only its own holds,
    // whichever it is, which is why the question constrains nothing.
    let q19: Vec<String> = t.rows()[18][2..].iter().map(|c| c.to_string()).collect();
    assert_eq!(q19, ["no", "yes", "no", "no", "no"]);
}

#[test]
fn an_unsatisfiable_test_is_an_error_not_a_panic() {
    let mut t = Test::new(1);
    t.assert(answer(1, 'A'));
    t.assert(answer(1, 'B'));
    let e = t.solve().unwrap_err();
    assert!(e.to_string().contains("unsatisfiable"), "{e}");
}

#[test]
fn define_is_an_implication_not_an_equivalence() {
    // One question whose options A and B both hold: as implications ("A only
    // if true", "B only if true") they leave every answer possible; as
    // equivalences they would force the answer to be A and B at once.
    let mut t = Test::new(1);
    t.define(1, 'A', true).define(1, 'B', true);
    assert_eq!(t.count_solutions(10).unwrap(), 5);
    // An option whose condition fails is ruled out, and only that one.
    let mut t = Test::new(1);
    t.define(1, 'C', false);
    let letters: Vec<String> = t
        .all_solutions(10)
        .unwrap()
        .iter()
        .map(|a| a.letters())
        .collect();
    assert_eq!(letters.len(), 4);
    assert!(!letters.contains(&"C".to_string()), "{letters:?}");
}
