//! Calculator: The Game: the simulator, the write-up's model and its SMT-LIB script.

use puzzlebook::calculator::{self, Button, Level, SolvedBy};

fn b(label: &str) -> Button {
    label.parse().unwrap()
}

#[test]
fn every_button_does_what_the_game_does() {
    let cases: &[(&str, i64, Option<i64>)] = &[
        ("+3", 5, Some(8)),
        ("-6", 0, Some(-6)),
        ("x5", -24, Some(-120)),
        ("*5", 2, Some(10)),
        ("/2", 8, Some(4)),
        ("/3", 8, None),
        ("/2", -8, Some(-4)),
        ("4", -12, Some(-124)),
        ("4", 0, Some(4)),
        ("5", 0, Some(5)),
        ("12", 3, Some(312)),
        ("<<", -2, Some(0)),
        ("<<", 123, Some(12)),
        ("<<", -123, Some(-12)),
        ("+/-", 7, Some(-7)),
        ("+/-", -7, Some(7)),
        ("Reverse", 120, Some(21)),
        ("Reverse", -12, Some(-21)),
        ("SUM", -123, Some(-6)),
        ("SUM", 99, Some(18)),
        ("<Shift", 1234, Some(2341)),
        ("Shift>", 1234, Some(4123)),
        ("<Shift", -12, Some(-21)),
        ("Mirror", 12, Some(1221)),
        ("Mirror", -12, Some(-1221)),
        ("1=>2", 151, Some(252)),
        ("12=>3", 1212, Some(33)),
        ("x^2", -3, Some(9)),
        ("x^3", -3, Some(-27)),
        ("Inv10", 1290, Some(9810)),
        ("Inv10", -5, Some(-5)),
        ("x2", i64::MAX, None),
        ("+1", i64::MAX, None),
        ("x^3", 3_000_000, None),
        ("Mirror", 1_000_000_000_000, None),
        ("4", 1_000_000_000_000_000_000, None),
    ];
    for (label, x, want) in cases {
        assert_eq!(b(label).apply(*x), *want, "{label} on {x}");
    }
}

#[test]
fn labels_round_trip() {
    for l in [
        "+3", "-6", "x5", "/2", "4", "<<", "+/-", "Reverse", "SUM", "<Shift", "Shift>", "Mirror",
        "1=>2", "x^2", "x^3", "Inv10",
    ] {
        assert_eq!(b(l).to_string(), l);
    }
}

#[test]
fn a_bad_label_lists_the_accepted_forms() {
    let e = "y7".parse::<Button>().unwrap_err().to_string();
    assert!(e.contains("\"y7\""), "{e}");
    assert!(e.contains("+N, -N, xN"), "{e}");
    assert!("/0".parse::<Button>().is_err());
    assert!("=>2".parse::<Button>().is_err());
}

#[test]
fn level_38_goal_minus_120_is_unique() {
    let level = Level::level_38(-120);
    let models = calculator::step_models(&level, 4, 100).unwrap();
    assert_eq!(models.len(), 1);
    let presses = models[0].presses(&level.buttons);
    let labels: Vec<String> = presses.iter().map(|b| b.to_string()).collect();
    assert_eq!(labels, ["4", "-6", "4", "x5"]);
    assert_eq!(level.replay(&presses).unwrap(), [4, -2, -24, -120]);
}

#[test]
fn level_38_goal_minus_130_is_unique() {
    let level = Level::level_38(-130);
    let (method, sols) = calculator::solve(&level, true).unwrap();
    assert_eq!(method, SolvedBy::Z3);
    assert_eq!(sols.len(), 1);
    assert_eq!(sols[0].labels(), "-6, -6, 4, -6");
    assert_eq!(sols[0].values, [-6, -12, -124, -130]);
}

#[test]
fn the_model_prints_as_the_write_up_shows_it() {
    let level = Level::level_38(-120);
    let m = &calculator::step_models(&level, 4, 1).unwrap()[0];
    let text = m.to_smt2_model();
    assert!(text.starts_with("sat\n(model\n  (define-fun s1Mul5 () Int\n    0)\n  (define-fun s1Sub6 () Int\n    0)\n  (define-fun s1Append4 () Int\n    1)\n"), "{text}");
    assert!(
        text.ends_with("  (define-fun s4Append4 () Int\n    0)\n)\n"),
        "{text}"
    );
}

#[test]
fn the_smt2_script_is_real() {
    for goal in [-120, -130, 44, 7] {
        let level = Level::level_38(goal);
        let script = calculator::smt2_script(&level, 4).unwrap();
        assert!(script.contains(
            "(define-fun Append4 ((x Int)) Int\n    (ite (< x 0) (- (* x 10) 4) (+ (* x 10) 4))\n)"
        ));
        assert!(script.contains("(assert (and (<= 0 s1Mul5) (<= s1Mul5 1)))"));
        assert!(script.contains("(assert (= 1 (+ s1Mul5 s1Sub6 s1Append4)))"));
        assert!(script.contains("(define-fun Step1 ((x Int)) Int\n    (+ (* s1Mul5 (Mul5 x)) (* s1Sub6 (Sub6 x)) (* s1Append4 (Append4 x)))\n)"));
        assert!(script.contains(
            "(define-fun Level38 ((x Int)) Int\n    (Step4 (Step3 (Step2 (Step1 x))))\n)"
        ));
        assert!(script.ends_with(&format!(
            "(assert (= (Level38 0) {goal}))\n\n(check-sat)\n(get-model)\n"
        )));
        let from_api = calculator::step_models(&level, 4, 1000).unwrap();
        let from_script = calculator::step_models_from_smt2(&level, 4, 1000).unwrap();
        assert_eq!(from_api, from_script, "goal {goal}");
    }
}

#[test]
fn z3_and_search_agree_on_expressible_levels() {
    for goal in [-120, -130, 20, 44, -6, 0, 99999] {
        let level = Level::level_38(goal);
        let z3 = calculator::solve_z3(&level, true).unwrap();
        let z3: Vec<_> = z3.into_iter().map(|(_, s)| s).collect();
        let mut z3 = z3;
        z3.sort();
        let search = calculator::search(&level, true);
        if goal == 0 {
            assert_eq!(search.len(), 1);
            assert!(search[0].presses.is_empty());
        } else {
            assert_eq!(z3, search, "goal {goal}");
        }
    }
}

#[test]
fn inexpressible_buttons_go_to_search() {
    let level = Level::new(
        12,
        2112,
        3,
        vec![b("Reverse"), b("Mirror"), b("<Shift"), b("+1"), b("SUM")],
    );
    assert!(!level.z3_expressible());
    assert!(calculator::step_models(&level, 2, 1).is_err());
    let (method, sols) = calculator::solve(&level, true).unwrap();
    assert_eq!(method, SolvedBy::Search);
    let labels: Vec<String> = sols.iter().map(|s| s.labels()).collect();
    assert_eq!(labels, ["<Shift, Mirror", "Reverse, Mirror"]);
}

#[test]
fn an_unreachable_goal_has_no_solution() {
    let level = Level::new(0, 7, 3, vec![b("x2"), b("+2")]);
    let (_, sols) = calculator::solve(&level, true).unwrap();
    assert!(sols.is_empty());
}
