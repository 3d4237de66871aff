//! The twenty questions, encoded as the write-up encodes them, one function each.

use super::formula::{abs, all, answer, count_answers, equals_one_of, q, Formula, LETTERS};
use super::test::Test;

/// How question 13 is written: the write-up gives two forms with the same answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Q13Form {
    /// Five `define`s, each fixing which odd question is the only `A`.
    #[default]
    Implications,
    /// Plain assertions: `answer(9,'A') == answer(13,'A')` and so on.
    Iff,
}

/// How question 20 (the barometer analogy, outside knowledge) is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Q20Mode {
    /// `define(20, 'A'..'D', false)` and `define(20, 'E', true)`.
    #[default]
    Define,
    /// The concise form: `assert answer(20, 'E')`.
    Assert,
    /// Left unconstrained, to show how many sheets the rest allows.
    Free,
}

/// The whole test as the write-up solves it.
///
/// ```
/// use puzzlebook::srat::{standard_test, Q13Form, Q20Mode};
/// let t = standard_test(Q13Form::Implications, Q20Mode::Define);
/// assert_eq!(t.solve().unwrap().letters(), "DADBEDDEDABADBADBABE");
/// ```
pub fn standard_test(q13: Q13Form, q20: Q20Mode) -> Test {
    let mut t = Test::new(20);
    for n in 1..=20u8 {
        match (n, q13, q20) {
            (13, Q13Form::Iff, _) => question_13_iff(&mut t),
            (20, _, Q20Mode::Assert) => {
                t.assert(answer(20, 'E'));
            }
            (20, _, Q20Mode::Free) => {}
            _ => define_options(&mut t, n),
        }
    }
    t
}

/// Adds `define(n, letter, option)` for each of question `n`'s five options.
pub fn define_options(t: &mut Test, n: u8) {
    for (letter, body) in LETTERS.iter().zip(options(n)) {
        t.define(n, *letter, body);
    }
}

/// The five option bodies of question `n` (`A` first), as the write-up defines them.
///
/// # Panics
/// When `n` is not in 1..=20.
pub fn options(n: u8) -> [Formula; 5] {
    match n {
        1 => question_1(),
        2 => question_2(),
        3 => count_is(count_answers('E', 1..=20), [0, 1, 2, 3, 4]),
        4 => count_is(count_answers('A', 1..=20), [4, 5, 6, 7, 8]),
        5 => [1, 2, 3, 4, 5].map(|i| q(5).eq(q(i))),
        6 => question_6_17(17),
        7 => {
            let distance_7_8 = abs(q(7) - q(8));
            count_is(distance_7_8, [4, 3, 2, 1, 0])
        }
        8 => {
            let vowels = count_answers('A', 1..=20) + count_answers('E', 1..=20);
            count_is(vowels, [4, 5, 6, 7, 8])
        }
        9 => question_9(),
        10 => ['D', 'A', 'E', 'B', 'C'].map(|l| answer(16, l)),
        11 => count_is(count_answers('B', 1..=10), [0, 1, 2, 3, 4]),
        12 => question_12(),
        13 => [9, 11, 13, 15, 17]
            .map(|only| all((1..=19).step_by(2).map(|i| answer(i, 'A').iff(i == only)))),
        14 => count_is(count_answers('D', 1..=20), [6, 7, 8, 9, 10]),
        15 => LETTERS.map(|l| answer(12, l)),
        16 => ['D', 'C', 'B', 'A', 'E'].map(|l| answer(10, l)),
        17 => question_6_17(6),
        18 => question_18(),
        19 => LETTERS.map(|l| answer(19, l)),
        20 => [false, false, false, false, true].map(Formula::from),
        _ => panic!("the test has questions 1 to 20, not {n}"),
    }
}

/// Options that say "this count is `values[i]`".
fn count_is(term: super::formula::Term, values: [i64; 5]) -> [Formula; 5] {
    values.map(|v| term.clone().eq(v))
}

/// The first question whose answer is B is question 1, 2, 3, 4 or 5.
fn question_1() -> [Formula; 5] {
    [1u8, 2, 3, 4, 5].map(|first| {
        all((1..first)
            .map(|i| !answer(i, 'B'))
            .chain([answer(first, 'B')]))
    })
}

/// The only two consecutive questions with identical answers are 6–7 … 10–11.
fn question_2() -> [Formula; 5] {
    [6u8, 7, 8, 9, 10].map(|only| all((1..20u8).map(|i| q(i).eq(q(i + 1)).iff(i == only))))
}

/// Questions 6 and 17 ask about each other: C, D, E, none (A or B), all (never).
fn question_6_17(other: u8) -> [Formula; 5] {
    [
        answer(other, 'C'),
        answer(other, 'D'),
        answer(other, 'E'),
        answer(other, 'A') | answer(other, 'B'),
        Formula::from(false),
    ]
}

/// The next question with the same answer as question 9 is 10 … 14.
fn question_9() -> [Formula; 5] {
    [10u8, 11, 12, 13, 14]
        .map(|next| all((10..next).map(|i| q(9).ne(q(i))).chain([q(9).eq(q(next))])))
}

/// The number of consonant answers is even, odd, a square, a prime, a multiple of 5.
fn question_12() -> [Formula; 5] {
    let consonants =
        count_answers('B', 1..=20) + count_answers('C', 1..=20) + count_answers('D', 1..=20);
    [
        equals_one_of(consonants.clone(), &[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]),
        equals_one_of(consonants.clone(), &[1, 3, 5, 7, 9, 11, 13, 15, 17, 19]),
        equals_one_of(consonants.clone(), &[0, 1, 4, 9, 16]),
        equals_one_of(consonants.clone(), &[2, 3, 5, 7, 11, 13, 17, 19]),
        equals_one_of(consonants, &[0, 5, 10, 15, 20]),
    ]
}

/// Question 13 in the write-up's second form: plain assertions with `iff`.
pub fn question_13_iff(t: &mut Test) {
    for i in [1, 3, 5, 7] {
        t.assert(!answer(i, 'A'));
    }
    for (i, letter) in [(9, 'A'), (11, 'B'), (13, 'C'), (15, 'D'), (17, 'E')] {
        t.assert(answer(i, 'A').iff(answer(13, letter)));
    }
    t.assert(!answer(19, 'A'));
}

/// The number of A answers equals the number of B, C, D, E answers, or none of them.
fn question_18() -> [Formula; 5] {
    let a = || count_answers('A', 1..=20);
    [
        a().eq(count_answers('B', 1..=20)),
        a().eq(count_answers('C', 1..=20)),
        a().eq(count_answers('D', 1..=20)),
        a().eq(count_answers('E', 1..=20)),
        all(['B', 'C', 'D', 'E'].map(|l| a().ne(count_answers(l, 1..=20)))),
    ]
}
