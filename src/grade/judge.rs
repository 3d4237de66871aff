//! The grader's end: a handed-in answer judged against the reference, both
//! read as data ([`super::handed`]), with a Z3 of the grader's own: a thread
//! of its own, so a context of its own, for each judgement. The answer is
//! only ever data: its constraints are read by [`crate::smtlib::read`], and
//! nothing in it says how it is graded.

use serde::{Deserialize, Serialize};
use z3::ast::{Bool, Int};

use super::hand_in::show_tuple;
use super::handed::{
    self, Expected, Handed, HandedError, HandedIn, Interface, Reference, RuleText, Scoring,
};
use super::hint::{with_hint, Given};
use super::{compare_built, compare_sets, notes_there, rule, Exercise, Note, Verdict};
use crate::smtlib::{self, SmtlibError};

/// Each part of an exercise, labelled, with its verdict, in the
/// reference's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judgement {
    /// The parts.
    pub parts: Vec<(String, Verdict)>,
    /// How the points are shared among the parts: the reference's.
    #[serde(default)]
    pub scoring: Scoring,
}

impl Judgement {
    /// The judgement made of `parts`, each worth its share of the points.
    pub fn new(parts: Vec<(String, Verdict)>) -> Judgement {
        Judgement {
            parts,
            scoring: Scoring::PerPart,
        }
    }

    /// The judgement of an answer the grader could not judge at all, for
    /// `reason`: one part, not graded, so a teacher looks.
    pub fn not_graded(reason: String) -> Judgement {
        Judgement::new(vec![(String::new(), Verdict::NotGraded { reason })])
    }

    /// Whether every part is right.
    pub fn is_right(&self) -> bool {
        self.parts.iter().all(|(_, v)| v.is_right())
    }

    /// The points out of `max`, or `None` (not graded, a teacher looks)
    /// when a part that decides them could not be judged.
    ///
    /// [`Scoring::PerPart`]: each right part gets `max` over the number of
    /// parts, so a part not graded leaves the points undecided.
    /// [`Scoring::AllOrNothing`]: `max` when every part is right, 0 when one
    /// is judged wrong, whatever the others.
    pub fn points(&self, max: f64) -> Option<f64> {
        if self.is_right() {
            return Some(max);
        }
        let not_graded = |v: &Verdict| matches!(v, Verdict::NotGraded { .. });
        match self.scoring {
            Scoring::PerPart => {
                if self.parts.iter().any(|(_, v)| not_graded(v)) {
                    return None;
                }
                let right = self.parts.iter().filter(|(_, v)| v.is_right()).count();
                Some(max * right as f64 / self.parts.len() as f64)
            }
            Scoring::AllOrNothing => {
                let judged_wrong = self
                    .parts
                    .iter()
                    .any(|(_, v)| !v.is_right() && !not_graded(v));
                judged_wrong.then_some(0.0)
            }
        }
    }

    /// What the student reads: the verdict, or one line per part, with
    /// each hint said once, after the parts.
    pub fn feedback(&self) -> String {
        match self.parts.as_slice() {
            [(label, v)] if label.is_empty() => v.to_string(),
            parts => {
                let mut lines = Vec::new();
                let mut hints: Vec<&str> = Vec::new();
                for (label, v) in parts {
                    let (verdict, hint) = v.without_hint();
                    lines.push(format!("{label}: {verdict}"));
                    if let Some(h) = hint.filter(|h| !hints.contains(h)) {
                        hints.push(h);
                    }
                }
                lines.extend(hints.into_iter().map(|h| format!("Hint: {h}")));
                lines.join("\n")
            }
        }
    }
}

/// Judges the answer in `dir` (a student's hand-in folder) against
/// `reference`.
pub fn judge_folder(reference: &Reference, dir: &std::path::Path) -> Judgement {
    judge(reference, handed::read(dir, &reference.exercise.id))
}

/// Judges `handed` (the answer file as read: none, or why it could not be)
/// against `reference`.
pub fn judge(reference: &Reference, handed: Result<Option<HandedIn>, HandedError>) -> Judgement {
    let everywhere = |why: String| Judgement {
        parts: reference
            .parts
            .iter()
            .map(|p| (p.label.clone(), Verdict::NoAnswer { why: why.clone() }))
            .collect(),
        scoring: reference.scoring,
    };
    let handed = match handed.and_then(|h| h.map(|h| h.checked(&reference.exercise.id)).transpose())
    {
        Ok(Some(h)) => h,
        Ok(None) => return everywhere("no answer was handed in".into()),
        Err(e) => return everywhere(format!("the answer handed in could not be read: {e}")),
    };
    let mut labels: Vec<&str> = handed.parts.iter().map(|p| p.label.as_str()).collect();
    labels.sort_unstable();
    if labels.windows(2).any(|w| w[0] == w[1]) {
        return everywhere("the answer handed in has a part twice".into());
    }
    let reference = reference.clone();
    let on_its_own = std::thread::Builder::new()
        .name("judge".into())
        .stack_size(64 << 20)
        .spawn(move || judge_here(&reference, &handed));
    match on_its_own.map(|t| t.join()) {
        Ok(Ok(judgement)) => judgement,
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "it panicked".into());
            Judgement::not_graded(format!("the grader's Z3 failed ({what})"))
        }
        Err(e) => Judgement::not_graded(format!("the grader could not start a thread ({e})")),
    }
}

/// [`judge`]'s work, in this thread's Z3 context.
fn judge_here(reference: &Reference, handed: &HandedIn) -> Judgement {
    let exercise = reference.exercise.exercise();
    let vars = exercise.variables_in_z3();
    // The teacher's mistakes; one the grader cannot read gives no hint.
    let mistakes: Vec<(&str, Given, &str)> = reference
        .mistakes
        .iter()
        .filter_map(|m| {
            let given = as_given(&m.value.answer)?;
            Some((m.label.as_str(), given, m.value.hint.as_str()))
        })
        .collect();
    let parts = reference
        .parts
        .iter()
        .map(|part| {
            let theirs = handed
                .parts
                .iter()
                .find(|p| p.label == part.label)
                .map(|p| &p.value);
            let verdict = match (&part.value, theirs) {
                (_, None) => Verdict::NoAnswer {
                    why: match part.label.as_str() {
                        "" => "nothing was handed in".into(),
                        l => format!("nothing was handed in for {l}"),
                    },
                },
                (Expected::Rules { rules }, Some(Handed::Constraints { smtlib })) => {
                    constraints(&reference.exercise, rules, smtlib)
                }
                (Expected::Number { value, why }, Some(Handed::Number { value: yours })) => {
                    Verdict::Predicted {
                        yours: *yours,
                        expected: *value,
                        why: why.clone(),
                    }
                }
                (Expected::Set { elements, reasons }, Some(Handed::Set { elements: yours })) => {
                    compare_sets(yours.clone(), elements.clone(), show_tuple, reasons)
                }
                (expected, Some(other)) => Verdict::NoAnswer {
                    why: format!(
                        "{} was handed in, where {} is asked for",
                        other.what(),
                        match expected {
                            Expected::Rules { .. } => "constraints",
                            Expected::Number { .. } => "a number",
                            Expected::Set { .. } => "a set",
                        }
                    ),
                },
            };
            let for_part = mistakes
                .iter()
                .filter(|(label, _, _)| *label == part.label)
                .map(|(_, given, hint)| (given, *hint));
            let verdict = with_hint(
                verdict,
                &exercise,
                &vars,
                || theirs.and_then(as_given),
                for_part,
            );
            (part.label.clone(), verdict)
        })
        .collect();
    Judgement {
        parts,
        scoring: reference.scoring,
    }
}

/// An answer file's part as the grader's Z3 builds it; `None` when its
/// constraints cannot be read (the verdict then says why).
fn as_given(handed: &Handed) -> Option<Given> {
    Some(match handed {
        Handed::Constraints { smtlib } => Given::Constraints(smtlib::read(smtlib).ok()?),
        Handed::Number { value } => Given::Number(*value),
        Handed::Set { elements } => Given::Set(elements.clone()),
    })
}

/// The student's SMT-LIB text against the reference's rules.
fn constraints(interface: &Interface, rules: &[RuleText], text: &str) -> Verdict {
    let exercise = interface.exercise();
    let vars = exercise.variables_in_z3();
    let mut ours = Vec::new();
    for r in rules {
        match smtlib::read(&r.smtlib) {
            Ok(holds) => ours.push(rule(r.name.clone(), Bool::and(&holds))),
            Err(e) => {
                return Verdict::NotGraded {
                    reason: format!("the reference's rule {:?} could not be read ({e})", r.name),
                }
            }
        }
    }
    match smtlib::read(text) {
        Ok(theirs) => explained(
            compare_built(&exercise, &vars, &theirs, &ours),
            &exercise,
            &vars,
            rules,
        ),
        // What Z3's printer never writes for integer and Boolean
        // constraints: not an answer.
        Err(
            e @ (SmtlibError::TooLong { .. }
            | SmtlibError::Command { .. }
            | SmtlibError::Declaration { .. }
            | SmtlibError::Redeclared { .. }),
        ) => Verdict::NoAnswer {
            why: format!("the constraints handed in could not be read: {e}"),
        },
        // What an honest answer may come to, through a name Z3 prints in a
        // way it does not read back (`x'`, `2nd`, `abs`): for the teacher.
        Err(e) => Verdict::NotGraded {
            reason: format!("the constraints handed in could not be read back ({e}); a variable's name may be the cause"),
        },
    }
}

/// `verdict` with what the notes of the rules its allowed witness breaks
/// say there ([`super::Rule::noting`]). The notes are read only then, so a
/// right answer costs no note's reading. Notes only explain: one the grader
/// cannot read is not said (the teacher's run refuses to write one).
fn explained(verdict: Verdict, exercise: &Exercise, vars: &[Int], rules: &[RuleText]) -> Verdict {
    let Verdict::Differs {
        allowed: Some(mut w),
        ruled_out,
    } = verdict
    else {
        return verdict;
    };
    let notes: Vec<Note> = rules
        .iter()
        .filter(|r| w.breaks.contains(&r.name))
        .flat_map(|r| &r.notes)
        .filter_map(|n| {
            let c = smtlib::read(&n.smtlib).ok()?;
            Some(Note {
                text: n.text.clone(),
                holds: Bool::and(&c),
            })
        })
        .collect();
    w.there = notes_there(exercise, vars, &w.values, &notes);
    Verdict::Differs {
        allowed: Some(w),
        ruled_out,
    }
}

#[cfg(test)]
mod tests {
    use z3::ast::Int;

    use super::*;
    use crate::grade::handed::Part;
    use crate::grade::{hand_in_number, rule, Answer, Exercise, Rule};

    /// The question-11 exercise of the unit tests in `grade`: a sheet of
    /// five answers, and "the number of B answers after this question is
    /// (A) 0 … (E) 4" as question 1's definitions.
    fn exercise() -> Exercise {
        Exercise::new("01-1", ["Q1", "Q2", "Q3", "Q4", "Q5"])
            .shown_as_letters("ABCDE")
            .listing_up_to(0)
    }

    fn bounds(qs: &[Int]) -> Vec<Bool> {
        qs.iter().flat_map(|q| [q.ge(1), q.le(5)]).collect()
    }

    fn count_b(qs: &[Int]) -> Int {
        let ones: Vec<Int> = qs[1..]
            .iter()
            .map(|q| q.eq(2).ite(&Int::from_i64(1), &Int::from_i64(0)))
            .collect();
        Int::add(&ones)
    }

    fn reference(qs: &[Int]) -> Vec<Rule> {
        let mut rules = vec![rule("the bounds", Bool::and(&bounds(qs)))];
        for n in 0..5i64 {
            rules.push(rule(
                format!("option {}", ["A", "B", "C", "D", "E"][n as usize]),
                qs[0].eq(n + 1).iff(count_b(qs).eq(n)),
            ));
        }
        rules
    }

    /// A student who counts into a helper variable of their own.
    fn with_helper(qs: &[Int]) -> Vec<Bool> {
        let b = Int::new_const("b_after_1");
        let mut c = bounds(qs);
        c.push(b.eq(count_b(qs)));
        c.extend((0..5i64).map(|n| qs[0].eq(n + 1).iff(b.eq(n))));
        c
    }

    /// A student who counts question 1 itself too.
    fn counts_itself(qs: &[Int]) -> Vec<Bool> {
        let ones: Vec<Int> = qs
            .iter()
            .map(|q| q.eq(2).ite(&Int::from_i64(1), &Int::from_i64(0)))
            .collect();
        let b = Int::add(&ones);
        let mut c = bounds(qs);
        c.extend((0..5i64).map(|n| qs[0].eq(n + 1).iff(b.eq(n))));
        c
    }

    /// The reference and the answer through their files, as `grade` moves
    /// them: the reference written by a check, the answer by a hand-in,
    /// each read back by the grader.
    fn through_files(student: fn(&[Int]) -> Vec<Bool>) -> (Verdict, Judgement) {
        through_files_with(student, &[])
    }

    /// Constraints a student, or a teacher's mistake, builds.
    type Built = fn(&[Int]) -> Vec<Bool>;

    /// [`through_files`], with typical mistakes written down before the
    /// check.
    fn through_files_with(student: Built, mistakes: &[(&str, Built)]) -> (Verdict, Judgement) {
        through_files_against(student, mistakes, reference)
    }

    /// [`through_files_with`], against the rules `reference` builds.
    fn through_files_against(
        student: Built,
        mistakes: &[(&str, Built)],
        reference: fn(&[Int]) -> Vec<Rule>,
    ) -> (Verdict, Judgement) {
        let dirs = tempfile::tempdir().unwrap();
        let (answers, references) = (dirs.path().join("a"), dirs.path().join("r"));
        std::fs::create_dir_all(&answers).unwrap();
        std::fs::create_dir_all(&references).unwrap();
        let mut handed = Answer::writing_to(&exercise(), Some(answers.clone()), None);
        handed.constraints("", student);
        let mut in_process = Answer::writing_to(&exercise(), None, Some(references.clone()));
        in_process.constraints("", student);
        for (hint, wrong) in mistakes {
            in_process.mistake(*hint, wrong);
        }
        let verdict = in_process.check(reference);
        let r: Reference = handed::read(&references, "01-1").unwrap().unwrap();
        (verdict, judge_folder(&r, &answers))
    }

    #[test]
    fn a_right_answer_with_a_helper_variable_gets_full_marks_from_the_grader() {
        let (in_process, judged) = through_files(with_helper);
        assert!(in_process.is_right(), "{in_process}");
        assert!(judged.is_right(), "{}", judged.feedback());
        assert_eq!(judged.points(2.0), Some(2.0));
        assert_eq!(judged.feedback(), in_process.to_string());
    }

    /// What a verdict breaks on each side, without the witnesses' values,
    /// which are Z3's choice and may differ from one context to another.
    fn breaks(v: &Verdict) -> (Vec<String>, Vec<String>) {
        let Verdict::Differs { allowed, ruled_out } = v else {
            panic!("not a difference: {v}");
        };
        let of = |w: &Option<crate::grade::Witness>| {
            w.as_ref().map(|w| w.breaks.clone()).unwrap_or_default()
        };
        (of(allowed), of(ruled_out))
    }

    #[test]
    fn a_rule_s_notes_reach_the_grader_and_are_said_of_its_witness() {
        // The reference's options, each noting how many B answers follow
        // question 1.
        fn noted(qs: &[Int]) -> Vec<Rule> {
            reference(qs)
                .into_iter()
                .map(|r| {
                    let counts = (0..5i64).map(|k| {
                        (
                            format!("{k} B answers follow question 1"),
                            count_b(qs).eq(k),
                        )
                    });
                    r.noting(counts)
                })
                .collect()
        }
        let (verdict, judged) = through_files_against(counts_itself, &[], noted);
        let (_, judged) = &judged.parts[0];
        for v in [&verdict, judged] {
            let Verdict::Differs {
                allowed: Some(w), ..
            } = v
            else {
                panic!("{v}");
            };
            // The one count that is true of the witness, counted here.
            let b = w.values[1..].iter().filter(|&&q| q == 2).count();
            assert_eq!(w.there, [format!("{b} B answers follow question 1")], "{v}");
            assert!(
                v.to_string()
                    .contains(&format!("; there, {b} B answers follow question 1)")),
                "{v}"
            );
        }
    }

    #[test]
    fn the_grader_s_verdict_on_a_wrong_answer_is_the_notebook_s() {
        let (in_process, judged) = through_files(counts_itself);
        assert!(!in_process.is_right());
        assert_eq!(judged.points(2.0), Some(0.0));
        let (_, verdict) = &judged.parts[0];
        assert_eq!(breaks(verdict), breaks(&in_process));
        assert_eq!(
            breaks(verdict),
            (
                vec!["option A".to_string(), "option B".to_string()],
                vec![
                    "your constraint 12".to_string(),
                    "your constraint 13".to_string()
                ]
            )
        );
        // Each witness is a real one: shown in the exercise's letters, and
        // what it is said to break does break there.
        let Verdict::Differs { allowed, ruled_out } = verdict else {
            unreachable!()
        };
        for w in [allowed, ruled_out] {
            let w = w.as_ref().unwrap();
            assert!(
                w.shown
                    .split(", ")
                    .all(|v| v.ends_with(|c: char| c.is_ascii_uppercase())),
                "{}",
                w.shown
            );
        }
        let qs = exercise().variables_in_z3();
        let at = |values: &[i64]| -> Vec<Bool> {
            qs.iter().zip(values).map(|(q, v)| q.eq(*v)).collect()
        };
        let holds = |constraints: Vec<Bool>, values: &[i64]| {
            let solver = z3::Solver::new();
            for c in constraints.iter().chain(&at(values)) {
                solver.assert(c);
            }
            solver.check() == z3::SatResult::Sat
        };
        let a = &allowed.as_ref().unwrap().values;
        assert!(
            holds(counts_itself(&qs), a)
                && !holds(reference(&qs).into_iter().map(|r| r.holds).collect(), a)
        );
        let r = &ruled_out.as_ref().unwrap().values;
        assert!(
            !holds(counts_itself(&qs), r)
                && holds(reference(&qs).into_iter().map(|r| r.holds).collect(), r)
        );
    }

    /// An answer to 01-1 of one part: the constraints `smtlib`.
    fn constraints_answer(smtlib: &str) -> HandedIn {
        HandedIn {
            exercise: "01-1".into(),
            parts: vec![Part {
                label: String::new(),
                value: Handed::Constraints {
                    smtlib: smtlib.into(),
                },
            }],
        }
    }

    fn number_reference() -> Reference {
        Reference {
            exercise: Interface::of(&Exercise::new("02-2", Vec::<String>::new())).unwrap(),
            parts: vec![Part {
                label: String::new(),
                value: Expected::Number {
                    value: 2,
                    why: "Two sequences reach -120.".into(),
                },
            }],
            mistakes: Vec::new(),
            scoring: Scoring::PerPart,
        }
    }

    fn judged_bytes(reference: &Reference, bytes: &[u8]) -> Judgement {
        judge(reference, handed::from_bytes(bytes).map(Some))
    }

    #[test]
    fn an_answer_says_nothing_of_its_grade() {
        let r = number_reference();
        let right =
            br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"number","value":2}}]}"#;
        assert_eq!(judged_bytes(&r, right).points(1.0), Some(1.0));
        for forged in [
            &br#"{"exercise":"02-2","parts":[],"verdict":"right"}"#[..],
            br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"number","value":2.0}}]}"#,
            br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"number","value":"2"}}]}"#,
            br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"verdict","right":true}}]}"#,
            br#"{"exercise":"02-1","parts":[{"label":"","value":{"kind":"number","value":2}}]}"#,
            br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"number","value":2}},{"label":"","value":{"kind":"number","value":2}}]}"#,
            br#"not json"#,
        ] {
            let j = judged_bytes(&r, forged);
            assert_eq!(j.points(1.0), Some(0.0), "{}", String::from_utf8_lossy(forged));
            assert!(j.feedback().starts_with("Not answered:"), "{}", j.feedback());
        }
        let none = judge(&r, Ok(None));
        assert_eq!(none.feedback(), "Not answered: no answer was handed in.");
        let wrong_kind = br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"set","elements":[[2]]}}]}"#;
        assert_eq!(
            judged_bytes(&r, wrong_kind).feedback(),
            "Not answered: a set was handed in, where a number is asked for."
        );
    }

    #[test]
    fn constraints_that_are_more_than_constraints_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let refs = dir.path().join("r");
        std::fs::create_dir_all(&refs).unwrap();
        let mut a = Answer::writing_to(&exercise(), None, Some(refs.clone()));
        a.constraints("", with_helper);
        a.check(reference);
        let r: Reference = handed::read(&refs, "01-1").unwrap().unwrap();
        let planted = dir.path().join("planted");
        let text = format!(
            "(set-option :regular-output-channel |{}|)\n(declare-const Q1 Int)\n(assert (= Q1 1))",
            planted.display()
        );
        let j = judge(&r, Ok(Some(constraints_answer(&text))));
        assert_eq!(j.points(2.0), Some(0.0));
        assert!(j.feedback().contains("set-option"), "{}", j.feedback());
        assert!(!planted.exists());
        // A name the reader does not take, which Z3's printer may write for
        // an honest helper (`b'`): for the teacher, not wrong.
        let primed = constraints_answer("(declare-fun b' () Int)\n(assert (= b' 1))");
        let j = judge(&r, Ok(Some(primed)));
        assert_eq!(j.points(2.0), None, "{}", j.feedback());
    }

    #[test]
    fn parts_are_judged_each_and_each_right_part_gets_its_share_unless_all_or_nothing() {
        // Of three parts, the first is right, the second wrong, the third
        // not handed in: a third of the points, or none when the reference
        // asks for all or nothing.
        for (all_or_nothing, points) in [(false, 1.0), (true, 0.0)] {
            let dir = tempfile::tempdir().unwrap();
            let (answers, refs) = (dir.path().join("a"), dir.path().join("r"));
            for d in [&answers, &refs] {
                std::fs::create_dir_all(d).unwrap();
            }
            let e = Exercise::new("03-9", Vec::<String>::new());
            let mut theirs = Answer::writing_to(&e, Some(answers.clone()), None);
            theirs
                .set("1 to 3", [vec![1, 2]])
                .set("1 to 4", [vec![1, 3]]);
            let ours = Answer::writing_to(&e, None, Some(refs.clone()));
            if all_or_nothing {
                ours.all_or_nothing();
            }
            ours.check_set_part("1 to 3", [vec![1, 2]]);
            ours.check_set_part("1 to 4", [vec![1, 2]]);
            ours.check_set_part("1 to 5", [vec![1, 2]]);
            let r: Reference = handed::read(&refs, "03-9").unwrap().unwrap();
            let j = judge_folder(&r, &answers);
            assert_eq!(j.parts.len(), 3);
            assert!(j.parts[0].1.is_right());
            assert_eq!(
                j.points(3.0),
                Some(points),
                "all or nothing: {all_or_nothing}"
            );
            assert_eq!(
                j.feedback().lines().last(),
                Some("1 to 5: Not answered: nothing was handed in for 1 to 5.")
            );
            assert!(
                j.feedback().starts_with("1 to 3: Right"),
                "{}",
                j.feedback()
            );
        }
    }

    #[test]
    fn per_part_points_wait_for_every_part_and_all_or_nothing_only_for_a_wrong_one() {
        let wrong = || Verdict::Predicted {
            yours: 3,
            expected: 4,
            why: "Four.".into(),
        };
        let not_graded = || Verdict::NotGraded {
            reason: "unknown".into(),
        };
        let right = || Verdict::Same { solutions: None };
        let mut j = Judgement::new(vec![
            ("a".into(), right()),
            ("b".into(), right()),
            ("c".into(), wrong()),
            ("d".into(), right()),
        ]);
        assert_eq!(j.points(2.0), Some(1.5));
        j.scoring = Scoring::AllOrNothing;
        assert_eq!(j.points(2.0), Some(0.0));
        // A part not graded could be worth its share: no points are given
        // per part, but one judged wrong decides all or nothing.
        j.parts[0].1 = not_graded();
        assert_eq!(j.points(2.0), Some(0.0));
        j.scoring = Scoring::PerPart;
        assert_eq!(j.points(2.0), None);
    }

    #[test]
    fn a_judgement_keeps_its_scoring_through_json_and_an_older_one_is_per_part() {
        let mut j = Judgement::new(vec![("a".into(), Verdict::Same { solutions: None })]);
        j.scoring = Scoring::AllOrNothing;
        let text = serde_json::to_string(&j).unwrap();
        assert!(text.contains("\"all_or_nothing\""), "{text}");
        assert_eq!(serde_json::from_str::<Judgement>(&text).unwrap(), j);
        // Written before parts had a share: each part gets one.
        let older: Judgement = serde_json::from_str(r#"{"parts":[]}"#).unwrap();
        assert_eq!(older.scoring, Scoring::PerPart);
    }

    #[test]
    #[should_panic(expected = "call it before the checks")]
    fn all_or_nothing_after_a_check_is_refused() {
        let a = hand_in_number("03-9", 120);
        a.check_number(10, "Ten.");
        a.all_or_nothing();
    }

    #[test]
    #[should_panic(
        expected = "the note \"r is over s\" of the rule \"option A\" cannot be handed to the grader"
    )]
    fn a_note_the_grader_could_not_read_fails_the_teacher_s_own_check() {
        // The grader reads integer and Boolean constants only.
        fn unreadable(qs: &[Int]) -> Vec<Rule> {
            let (r, s) = (z3::ast::Real::new_const("r"), z3::ast::Real::new_const("s"));
            let mut rules = reference(qs);
            rules[1] = rules[1].clone().noting([("r is over s", r.gt(&s))]);
            rules
        }
        through_files_against(counts_itself, &[], unreadable);
    }

    #[test]
    #[should_panic(expected = "two rules are named \"option A\"")]
    fn two_rules_of_one_name_fail_the_teacher_s_own_check() {
        fn twice(qs: &[Int]) -> Vec<Rule> {
            let mut rules = reference(qs);
            rules[2].name = rules[1].name.clone();
            rules
        }
        through_files_against(counts_itself, &[], twice);
    }

    #[test]
    fn a_reference_z3_cannot_decide_is_not_graded_and_not_wrong() {
        let not_graded = Judgement::new(vec![
            ("a".into(), Verdict::Same { solutions: None }),
            (
                "b".into(),
                Verdict::NotGraded {
                    reason: "unknown".into(),
                },
            ),
        ]);
        assert_eq!(not_graded.points(2.0), None);
        let unreadable_rule = Reference {
            exercise: Interface::of(&exercise()).unwrap(),
            parts: vec![Part {
                label: String::new(),
                value: Expected::Rules {
                    rules: vec![RuleText {
                        name: "bad".into(),
                        smtlib: "(check-sat)".into(),
                        notes: Vec::new(),
                    }],
                },
            }],
            mistakes: Vec::new(),
            scoring: Scoring::PerPart,
        };
        let answer = constraints_answer("(declare-const Q1 Int)\n(assert (= Q1 1))");
        let j = judge(&unreadable_rule, Ok(Some(answer.clone())));
        assert_eq!(j.points(2.0), None, "{}", j.feedback());
        // A note the grader cannot read is not said, and costs nothing: Q1 = 1
        // breaks "Q1 is 2", whose note is not SMT-LIB the grader reads, and
        // is graded wrong with its witness; Q1 = 2 is right.
        let mut unreadable_note = unreadable_rule;
        unreadable_note.parts[0].value = Expected::Rules {
            rules: vec![RuleText {
                name: "Q1 is 2".into(),
                smtlib: "(declare-const Q1 Int)\n(assert (= Q1 2))".into(),
                notes: vec![crate::grade::handed::NoteText {
                    text: "bad".into(),
                    smtlib: "(check-sat)".into(),
                }],
            }],
        };
        let j = judge(&unreadable_note, Ok(Some(answer)));
        assert_eq!(j.points(2.0), Some(0.0), "{}", j.feedback());
        assert!(
            j.feedback()
                .contains("which the reference rules out (it breaks Q1 is 2);"),
            "{}",
            j.feedback()
        );
        let right = constraints_answer("(declare-const Q1 Int)\n(assert (= Q1 2))");
        let j = judge(&unreadable_note, Ok(Some(right)));
        assert_eq!(j.points(2.0), Some(2.0), "{}", j.feedback());
    }

    /// The mistake [`counts_itself`] makes, written otherwise: the count in
    /// a helper variable, the options as implications both ways.
    fn counts_itself_with_a_helper(qs: &[Int]) -> Vec<Bool> {
        let all_b = Int::new_const("all_b");
        let ones: Vec<Int> = qs
            .iter()
            .rev()
            .map(|q| q.eq(2).ite(&Int::from_i64(1), &Int::from_i64(0)))
            .collect();
        let mut c = vec![all_b.eq(Int::add(&ones))];
        c.extend(bounds(qs));
        for n in 0..5i64 {
            c.push(qs[0].eq(n + 1).implies(all_b.eq(n)));
            c.push(all_b.eq(n).implies(qs[0].eq(n + 1)));
        }
        c
    }

    /// A wrong answer that is not the typical mistake: question 1 left free.
    fn question_1_free(qs: &[Int]) -> Vec<Bool> {
        bounds(qs)
    }

    const COUNTS_ITSELF: &str =
        "The questions after question 1 are 2 to 5: question 1 is not one of them.";

    #[test]
    fn a_wrong_answer_that_means_a_typical_mistake_gets_its_hint_in_process_and_from_the_grader() {
        let not_it: Built = question_1_free;
        let mistakes = [
            ("Another slip.", not_it),
            (COUNTS_ITSELF, counts_itself as Built),
        ];
        let (in_process, judged) = through_files_with(counts_itself_with_a_helper, &mistakes);
        let hint = format!("\nHint: {COUNTS_ITSELF}");
        for said in [in_process.to_string(), judged.feedback()] {
            assert!(said.ends_with(&hint), "{said}");
            assert_eq!(said.matches("Hint:").count(), 1, "{said}");
        }
        assert_eq!(judged.points(2.0), Some(0.0));
        let none = crate::grade::Partial::None;
        assert_eq!(in_process.points(2.0, none), Some(0.0));
        // The witnesses are those of the verdict without mistakes.
        let (_, judged) = &judged.parts[0];
        let unhinted = through_files(counts_itself_with_a_helper).0;
        assert_eq!(breaks(judged.without_hint().0), breaks(&unhinted));
        assert_eq!(breaks(in_process.without_hint().0), breaks(&unhinted));
    }

    #[test]
    fn no_hint_for_a_right_answer_or_a_wrong_one_that_is_not_the_mistake() {
        let mistakes = [(COUNTS_ITSELF, counts_itself as Built)];
        for (student, right) in [(with_helper as Built, true), (question_1_free, false)] {
            let (in_process, judged) = through_files_with(student, &mistakes);
            assert_eq!(in_process.is_right(), right, "{in_process}");
            assert!(in_process.without_hint().1.is_none(), "{in_process}");
            assert!(
                !judged.feedback().contains("Hint:"),
                "{}",
                judged.feedback()
            );
        }
    }

    #[test]
    fn a_number_or_a_set_gets_its_mistake_s_hint_and_a_part_s_hint_is_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let (answers, refs) = (dir.path().join("a"), dir.path().join("r"));
        std::fs::create_dir_all(&answers).unwrap();
        std::fs::create_dir_all(&refs).unwrap();
        let e = Exercise::new("04-9", Vec::<String>::new());
        let mut theirs = Answer::writing_to(&e, Some(answers.clone()), None);
        theirs
            .set("1 to 3", [vec![2, 1], vec![1, 2], vec![1, 2]])
            .set("1 to 4", [vec![1, 3], vec![1, 2]]);
        let ours = Answer::writing_to(&e, None, Some(refs.clone()));
        let by_product = "You kept the pairs whose product is shared.";
        for (label, right, mistaken) in [
            ("1 to 3", vec![vec![1, 2]], vec![vec![1, 2], vec![2, 1]]),
            ("1 to 4", vec![vec![1, 3]], vec![vec![1, 2], vec![1, 3]]),
        ] {
            ours.mistaken_set_in(label, mistaken, by_product);
            ours.check_set_part(label, right);
        }
        let r: Reference = handed::read(&refs, "04-9").unwrap().unwrap();
        let j = judge_folder(&r, &answers);
        assert!(
            j.parts
                .iter()
                .all(|(_, v)| v.without_hint().1 == Some(by_product)),
            "{j:?}"
        );
        let feedback = j.feedback();
        assert_eq!(feedback.matches("Hint:").count(), 1, "{feedback}");
        assert!(
            feedback.ends_with(&format!("\nHint: {by_product}")),
            "{feedback}"
        );
        assert!(feedback.starts_with("1 to 3: Not yet:"), "{feedback}");

        let n = hand_in_number("03-9", 120);
        n.mistaken_number(24, "Not this one.")
            .mistaken_number(120, "5! counts the 2s as if they differed.");
        assert_eq!(
            n.check_number(10, "Ten.").to_string(),
            "Not yet: your answer is 120. Ten.\nHint: 5! counts the 2s as if they differed."
        );
        let right = hand_in_number("03-9", 10);
        right.mistaken_number(10, "A mistake the reference makes too.");
        assert_eq!(
            right.check_number(10, "Ten.").to_string(),
            "Right: 10. Ten."
        );
    }

    #[test]
    fn a_choice_among_candidates_reaches_the_grader_with_its_reasons() {
        let dir = tempfile::tempdir().unwrap();
        let (answers, refs) = (dir.path().join("a"), dir.path().join("r"));
        std::fs::create_dir_all(&answers).unwrap();
        std::fs::create_dir_all(&refs).unwrap();
        let e = Exercise::new("04-9", Vec::<String>::new());
        // One process both hands in and checks, as nbgrader's does, and
        // writes the reference as the teacher's run does.
        let mut theirs = Answer::writing_to(&e, Some(answers.clone()), Some(refs.clone()));
        theirs.set("", [vec![1, 4], vec![3, 3]]);
        // Keep the pairs whose sum another pair shares.
        let candidates = [
            (vec![1, 4], true, "(2, 3) also sums to 5".to_string()),
            (vec![2, 3], true, "(1, 4) also sums to 5".to_string()),
            (vec![3, 3], false, "no other pair sums to 6".to_string()),
        ];
        let in_process = theirs.check_kept_part("", candidates);
        let r: Reference = handed::read(&refs, "04-9").unwrap().unwrap();
        let j = judge_folder(&r, &answers);
        assert_eq!(j.parts[0].1, in_process);
        assert_eq!(
            j.feedback(),
            "Not yet:\n\
             - you keep (3, 3), which the reference removes: no other pair sums to 6;\n\
             - you remove (2, 3), which the reference keeps: (1, 4) also sums to 5;"
        );
    }

    #[test]
    #[should_panic(expected = "write each mistake before its check")]
    fn a_mistake_written_after_its_check_is_refused() {
        let a = hand_in_number("03-9", 120);
        a.check_number(10, "Ten.");
        a.mistaken_number(120, "Too late.");
    }

    #[test]
    fn a_mistake_the_grader_cannot_read_gives_no_hint_and_costs_nothing() {
        let mut r = number_reference();
        r.parts[0].value = Expected::Rules { rules: Vec::new() };
        r.exercise = Interface::of(&exercise()).unwrap();
        r.mistakes.push(Part {
            label: String::new(),
            value: crate::grade::handed::Mistake {
                hint: "unreadable".into(),
                answer: Handed::Constraints {
                    smtlib: "(check-sat)".into(),
                },
            },
        });
        let answer = constraints_answer("(declare-const Q1 Int)\n(assert (= Q1 9))");
        let j = judge(&r, Ok(Some(answer)));
        assert_eq!(j.points(2.0), Some(0.0), "{}", j.feedback());
        assert!(!j.feedback().contains("Hint"), "{}", j.feedback());
    }
}
