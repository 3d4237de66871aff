//! The groups that time the chapters' solvers in this process, each result
//! checked against the known answer before its time counts.

use puzzlebook::calculator::{self, Button, Level};
use puzzlebook::sum_product::Dialogue;
use puzzlebook::twenty_four::{self, exhaustive::multisets, Method};

use super::{measure, BenchError, Measurement};

fn solver(what: &str) -> impl FnOnce(&dyn std::fmt::Display) -> BenchError + '_ {
    move |e| BenchError::Solver {
        what: what.to_string(),
        message: e.to_string(),
    }
}

pub(super) fn expect(
    what: &str,
    got: impl ToString,
    expected: impl ToString,
) -> Result<(), BenchError> {
    let (got, expected) = (got.to_string(), expected.to_string());
    if got == expected {
        Ok(())
    } else {
        Err(BenchError::Wrong {
            what: what.to_string(),
            got,
            expected,
        })
    }
}

/// The 24 group: each 24 solver over the multisets of four numbers from 1 to 13
/// (all 1820 with `stride` 1, every `stride`-th otherwise), the first solution
/// of each, as the write-up's loop does. Each solver's count of solvable
/// multisets is checked against exact search: every bracketing for the
/// exhaustive, complete and operators-only solvers, the left-to-right shape
/// for the write-up's two.
pub fn twenty_four(stride: usize) -> Result<Vec<Measurement>, BenchError> {
    use twenty_four::exhaustive::{left_to_right_solutions, solvable};
    let all: Vec<Vec<i64>> = multisets(4, 1, 13)
        .into_iter()
        .step_by(stride.max(1))
        .collect();
    let any_shape = all.iter().filter(|m| solvable(m, 24)).count();
    let left_to_right = all
        .iter()
        .filter(|m| !left_to_right_solutions(m, 24).is_empty())
        .count();
    let methods = [
        (
            Method::Exhaustive,
            "exhaustive exact search, every bracketing",
            any_shape,
        ),
        (
            Method::Permutation,
            "Z3 permutation method (solve_24)",
            left_to_right,
        ),
        (
            Method::Function,
            "Z3 function method (solve_24_by_function)",
            left_to_right,
        ),
        (
            Method::Complete,
            "Z3 complete encoding, every bracketing",
            any_shape,
        ),
        (
            Method::Operators,
            "Z3 chooses only the operators, every bracketing (push/pop)",
            any_shape,
        ),
    ];
    let group = format!("24 game, {} multisets", all.len());
    let mut rows = Vec::new();
    for (method, case, known) in methods {
        let (found, total, cpu, med) = measure(&all, |ms| {
            twenty_four::solve(ms, 24, method, false).map_err(|e| solver(case)(&e))
        })?;
        let solved = found.iter().filter(|f| !f.is_empty()).count();
        expect(case, solved, known)?;
        rows.push(Measurement {
            group: group.clone(),
            case: case.into(),
            result: format!("{solved} solvable"),
            items: all.len(),
            total,
            cpu,
            median: med,
        });
    }
    Ok(rows)
}

/// The SRAT group: solving the SRAT, and solving plus proving the answer unique.
pub fn srat(repeat: usize) -> Result<Vec<Measurement>, BenchError> {
    let what = "SRAT solve";
    let (answers, total, cpu, med) = measure(0..repeat, |_| {
        puzzlebook::srat::solve().map_err(|e| solver(what)(&e))
    })?;
    let letters = answers.last().map(|a| a.letters()).unwrap_or_default();
    expect(what, &letters, "DADBEDDEDABADBADBABE")?;
    let mut rows = vec![Measurement {
        group: "Self-Referential Aptitude Test".into(),
        case: "solve".into(),
        result: letters.clone(),
        items: repeat,
        total,
        cpu,
        median: med,
    }];
    let what = "SRAT solve + uniqueness";
    let (counts, total, cpu, med) = measure(0..repeat, |_| {
        let a = puzzlebook::srat::solve().map_err(|e| solver(what)(&e))?;
        let n = puzzlebook::srat::count_solutions(2).map_err(|e| solver(what)(&e))?;
        Ok((a, n))
    })?;
    expect(what, counts.last().map_or(0, |c| c.1), 1)?;
    rows.push(Measurement {
        group: "Self-Referential Aptitude Test".into(),
        case: "solve, then prove it unique (no second model)".into(),
        result: "unique".into(),
        items: repeat,
        total,
        cpu,
        median: med,
    });
    Ok(rows)
}

/// The harder level: 7 moves, 5 buttons, all of them in the Z3 model.
pub fn hard_level() -> Level {
    let buttons = Button::parse_list("+3,x4,-2,5,<<").expect("valid labels");
    // The shortest way takes all 7: 5, x4, x4, 5, -2, x4, -2.
    Level::new(0, 3210, 7, buttons)
}

/// The calculator group: level 38 and [`hard_level`], each by exhaustive search and by Z3,
/// every solution of the fewest moves.
pub fn calculator(repeat: usize) -> Result<Vec<Measurement>, BenchError> {
    let mut rows = Vec::new();
    for (group, level) in [
        (
            "Calculator level 38 (4 moves, 3 buttons)",
            Level::level_38(-120),
        ),
        ("Calculator, 7 moves, 5 buttons", hard_level()),
    ] {
        let what = format!("{group}, search");
        let (s, total, cpu, med) =
            measure(0..repeat, |_| Ok(calculator::search::search(&level, true)))?;
        let by_search: Vec<String> = s.last().unwrap().iter().map(|s| s.labels()).collect();
        if by_search.is_empty() {
            return Err(BenchError::Wrong {
                what,
                got: "no solution".into(),
                expected: "a solution".into(),
            });
        }
        rows.push(Measurement {
            group: group.into(),
            case: "exhaustive search".into(),
            result: format!("{} solution(s)", by_search.len()),
            items: repeat,
            total,
            cpu,
            median: med,
        });
        let what = format!("{group}, Z3");
        let (z, total, cpu, med) = measure(0..repeat, |_| {
            calculator::model::solve_z3(&level, true).map_err(|e| solver(&what)(&e))
        })?;
        let by_z3: Vec<String> = z.last().unwrap().iter().map(|(_, s)| s.labels()).collect();
        expect(&what, by_z3.join("; "), by_search.join("; "))?;
        rows.push(Measurement {
            group: group.into(),
            case: "Z3 step model, every model".into(),
            result: format!("{} solution(s)", by_z3.len()),
            items: repeat,
            total,
            cpu,
            median: med,
        });
    }
    Ok(rows)
}

/// The smt2 group: the write-up's SMT-LIB script for level 38 (four moves),
/// for the goals chapter 02 solves (-120 and -130), loaded as the chapter
/// loads it, and checked once with Z3's default solver and once told the
/// logic `QF_NIA`, as the chapter does. Each must answer sat; the default
/// solver took minutes on Z3 4.8.12 (FACTS), so each runs once.
pub fn smt2_script() -> Result<Vec<Measurement>, BenchError> {
    use z3::{SatResult, Solver};
    let z3 = puzzlebook::libz3::loaded().version;
    let mut rows = Vec::new();
    for goal in [-120, -130] {
        let script = calculator::smt2_constraints(&Level::level_38(goal), 4)
            .map_err(|e| solver("the level-38 script")(&e))?;
        let group =
            format!("Calculator level 38, goal {goal}, the write-up's SMT-LIB script, Z3 {z3}");
        for (case, logic) in [
            ("Z3's default solver", None),
            ("told the logic QF_NIA (as chapter 02)", Some("QF_NIA")),
        ] {
            let (answers, total, cpu, median) = measure([logic], |logic| {
                let s = match logic {
                    Some(l) => Solver::new_for_logic(l).unwrap_or_default(),
                    None => Solver::new(),
                };
                s.from_string(script.as_str());
                Ok(s.check())
            })?;
            expect(
                case,
                format!("{:?}", answers[0]),
                format!("{:?}", SatResult::Sat),
            )?;
            rows.push(Measurement {
                group: group.clone(),
                case: case.into(),
                result: "sat".into(),
                items: 1,
                total,
                cpu,
                median,
            });
        }
    }
    Ok(rows)
}

/// The prunes the sum-product group times: the plain-Rust one, and the polars
/// one when the command is built with its `polars` feature (off by default,
/// since nothing else in the command needs polars).
type Play = fn(i64) -> Result<Dialogue, puzzlebook::sum_product::SumProductError>;
const PRUNES: &[(&str, Play)] = &[
    ("plain-Rust prune", Dialogue::play_plain),
    #[cfg(feature = "polars")]
    ("polars prune", Dialogue::play),
];

/// The sum-product group: the whole dialogue with each of [`PRUNES`], at each
/// max; a group per prune shows growth, and one per max the prunes' ratio.
pub fn sum_product(repeat: usize, maxes: &[i64]) -> Result<Vec<Measurement>, BenchError> {
    let mut by_prune: Vec<Vec<Measurement>> = vec![Vec::new(); PRUNES.len()];
    for &max in maxes {
        let pairs = (max * (max + 1) / 2) as usize;
        for (rows, (case, f)) in by_prune.iter_mut().zip(PRUNES) {
            let what = format!("dialogue, {case}, max {max}");
            let (d, total, cpu, med) =
                measure(0..repeat, |_| f(max).map_err(|e| solver(&what)(&e)))?;
            let d = d.last().expect("repeat > 0");
            rows.push(Measurement {
                group: String::new(),
                case: format!("{case}, max {max} ({pairs} pairs)"),
                // "Pete knows at his fifth turn" / "No product is unique …".
                result: d.conclusion().split(':').next().unwrap_or("").to_string(),
                items: repeat,
                total,
                cpu,
                median: med,
            });
        }
    }
    let (plain, others) = by_prune.split_first().expect("the plain prune");
    for other in others {
        for (a, b) in plain.iter().zip(other) {
            expect("the two prunes", &b.result, &a.result)?;
        }
    }
    let mut rows = Vec::new();
    for ((name, _), group) in PRUNES.iter().zip(&by_prune) {
        for r in group.iter() {
            rows.push(Measurement {
                group: format!("Impossible Puzzle dialogue, {name}, by max"),
                ..r.clone()
            });
        }
    }
    if PRUNES.len() > 1 {
        for (i, p) in plain.iter().enumerate() {
            let group = format!(
                "Impossible Puzzle dialogue, {}",
                p.case.split(", ").nth(1).unwrap_or("")
            );
            for prune in &by_prune {
                rows.push(Measurement {
                    group: group.clone(),
                    ..prune[i].clone()
                });
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hard_level_has_seven_moves_and_five_buttons() {
        let l = hard_level();
        assert!(l.moves >= 7 && l.buttons.len() >= 5 && l.z3_expressible());
        let s = calculator::search::search(&l, false);
        assert_eq!(s[0].presses.len(), 7, "{}", s[0].labels());
    }
}
