//! The witnesses of an exercise whose values are letters (chapter 01's
//! answer sheets), drawn for the feedback page as the chapter draws a sheet:
//! a row per question, a column per option, the chosen option filled.

use puzzlebook::figure::{self, Figure, Grid};
use puzzlebook::grade::handed::Interface;
use puzzlebook::grade::judge::Judgement;
use puzzlebook::grade::{Verdict, Witness};

/// The most rows, and columns, a sheet is drawn with: past them a grid's
/// cells are too small to read, and the feedback's text says it all.
const MOST_ROWS: usize = 60;
const MOST_COLUMNS: usize = 26;

/// A figure for each part of `judgement` whose answer differs from the
/// reference, with a panel for each witness, when `interface` shows its
/// values as letters; none otherwise. A cell is in colour 1 where the
/// witness differs from the assignment the witnesses were chosen near, if
/// the interface names one; a value that is none of the letters fills no
/// cell of its row.
pub fn drawn(interface: &Interface, judgement: &Judgement) -> Vec<Figure> {
    let Some(letters) = &interface.letters else {
        return Vec::new();
    };
    let letters: Vec<char> = letters.chars().collect();
    let rows = interface.variables.len();
    if rows == 0 || rows > MOST_ROWS || letters.is_empty() || letters.len() > MOST_COLUMNS {
        return Vec::new();
    }
    let near = interface.near.as_ref().filter(|n| n.values.len() == rows);
    let legend = match near {
        Some(n) => vec![format!("as in {}", n.name), format!("not as in {}", n.name)],
        None => vec!["the answer".to_string()],
    };
    judgement
        .parts
        .iter()
        .filter_map(|(label, verdict)| {
            let Verdict::Differs { allowed, ruled_out } = verdict.without_hint().0 else {
                return None;
            };
            let panels: Vec<Grid> = [
                (allowed, "a sheet your model allows"),
                (ruled_out, "a solution your model rules out"),
            ]
            .into_iter()
            .filter_map(|(w, caption)| {
                let w = w.as_ref().filter(|w| w.values.len() == rows)?;
                Some(sheet(
                    caption,
                    interface,
                    &letters,
                    w,
                    near.map(|n| n.values.as_slice()),
                ))
            })
            .collect();
            if panels.is_empty() {
                return None;
            }
            let title = match label.as_str() {
                "" => "Where your model and the reference differ".to_string(),
                label => format!("{label}: where your model and the reference differ"),
            };
            figure::grids(&title, &panels, &legend).ok()
        })
        .collect()
}

/// The witness `w` as a grid: row `n` for the interface's `n`-th variable,
/// its value's letter filled, in colour 1 where it differs from `near`.
fn sheet(
    caption: &str,
    interface: &Interface,
    letters: &[char],
    w: &Witness,
    near: Option<&[i64]>,
) -> Grid {
    let cells = w
        .values
        .iter()
        .enumerate()
        .map(|(row, &value)| {
            let differs = near.is_some_and(|n| n[row] != value);
            (1..=letters.len())
                .map(|column| (i64::try_from(column) == Ok(value)).then_some(usize::from(differs)))
                .collect()
        })
        .collect();
    Grid {
        caption: caption.to_string(),
        rows: interface.variables.clone(),
        columns: letters.iter().map(char::to_string).collect(),
        cells,
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzlebook::grade::Near;

    fn interface(letters: Option<&str>, near: Option<Vec<i64>>) -> Interface {
        Interface {
            id: "09-1".into(),
            variables: vec!["Q1".into(), "Q2".into(), "Q3".into()],
            letters: letters.map(str::to_string),
            limit: 10,
            timeout_ms: 1000,
            near: near.map(|values| Near {
                name: "the sheet of all A".into(),
                values,
            }),
        }
    }

    fn witness(values: &[i64]) -> Witness {
        Witness {
            values: values.to_vec(),
            shown: String::new(),
            breaks: Vec::new(),
            there: Vec::new(),
            why: None,
        }
    }

    fn differs(allowed: Option<&[i64]>, ruled_out: Option<&[i64]>) -> Verdict {
        Verdict::Differs {
            allowed: allowed.map(witness),
            ruled_out: ruled_out.map(witness),
        }
    }

    #[test]
    fn each_value_fills_its_letter_in_the_colour_of_whether_it_differs_from_the_near_sheet() {
        let i = interface(Some("ABC"), Some(vec![1, 1, 1]));
        // B, A, then 7, which is no letter: its row has no filled cell.
        let grid = sheet(
            "c",
            &i,
            &['A', 'B', 'C'],
            &witness(&[2, 1, 7]),
            Some(&[1, 1, 1][..]),
        );
        assert_eq!(grid.rows, ["Q1", "Q2", "Q3"]);
        assert_eq!(grid.columns, ["A", "B", "C"]);
        assert_eq!(
            grid.cells,
            vec![
                vec![None, Some(1), None],
                vec![Some(0), None, None],
                vec![None, None, None],
            ]
        );
        // With nothing to be near, every filled cell is of the one colour.
        let grid = sheet("c", &i, &['A', 'B', 'C'], &witness(&[3, 1, 2]), None);
        assert_eq!(
            grid.cells,
            vec![
                vec![None, None, Some(0)],
                vec![Some(0), None, None],
                vec![None, Some(0), None],
            ]
        );
    }

    #[test]
    fn a_part_that_differs_gets_a_figure_with_a_panel_per_witness_and_the_rest_none() {
        let i = interface(Some("ABC"), Some(vec![1, 1, 1]));
        let judgement = Judgement::new(vec![
            (
                "option A".into(),
                differs(Some(&[2, 1, 1][..]), Some(&[1, 1, 1][..])),
            ),
            ("option B".into(), Verdict::Same { solutions: None }),
            (
                "option C".into(),
                Verdict::Hinted {
                    verdict: Box::new(differs(None, Some(&[1, 3, 1][..]))),
                    hint: "h".into(),
                },
            ),
        ]);
        let figures = drawn(&i, &judgement);
        let titles: Vec<&str> = figures.iter().map(Figure::title).collect();
        assert_eq!(
            titles,
            [
                "option A: where your model and the reference differ",
                "option C: where your model and the reference differ"
            ]
        );
        let svg = figures[0].svg();
        assert!(svg.contains("a sheet your model allows"), "{svg}");
        assert!(svg.contains("a solution your model rules out"), "{svg}");
        assert!(svg.contains("not as in the sheet of all A"), "{svg}");
        let svg = figures[1].svg();
        assert!(!svg.contains("a sheet your model allows"), "{svg}");
        assert!(svg.contains("a solution your model rules out"), "{svg}");
    }

    #[test]
    fn values_not_shown_as_letters_or_witnesses_of_another_length_draw_nothing() {
        let one = Judgement::new(vec![(String::new(), differs(Some(&[2, 1, 1][..]), None))]);
        assert_eq!(drawn(&interface(Some("ABC"), None), &one).len(), 1);
        assert_eq!(
            drawn(&interface(Some("ABC"), None), &one)[0].title(),
            "Where your model and the reference differ"
        );
        assert!(drawn(&interface(None, None), &one).is_empty());
        let short = Judgement::new(vec![(String::new(), differs(Some(&[2, 1][..]), None))]);
        assert!(drawn(&interface(Some("ABC"), None), &short).is_empty());
        // A near sheet of another length colours nothing, and still draws.
        let figures = drawn(&interface(Some("ABC"), Some(vec![1])), &one);
        assert_eq!(figures.len(), 1);
        assert!(figures[0].svg().contains("the answer"));
    }
}
