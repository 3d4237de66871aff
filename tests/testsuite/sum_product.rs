//! The Impossible Puzzle: the ten tables byte for byte, the polars prune against
//! the plain-Rust oracle, and the dialogue.

use crate::common::assert_writeup;
use puzzlebook::sum_product::{self, Dialogue, Key, Outcome, Person};

const NAMES: [&str; 10] = [
    "start", "step-1", "step-2", "step-3", "step-4", "step-5", "step-6", "step-7", "step-8",
    "step-9",
];

#[test]
fn the_ten_tables_match_the_write_up_byte_for_byte() {
    let d = Dialogue::play(9).unwrap();
    let tables = d.tables();
    assert_eq!(tables.len(), 10);
    for (step, name) in tables.iter().zip(NAMES) {
        assert_eq!(step.name, name);
        assert_writeup(
            &format!("04-impossible-puzzle/{name}.tsv"),
            &step.table().to_tsv(),
        );
    }
}

#[test]
fn row_counts() {
    let d = Dialogue::play(9).unwrap();
    let counts: Vec<usize> = d.tables().iter().map(|s| s.rows.len()).collect();
    assert_eq!(counts, [45, 18, 15, 14, 13, 12, 11, 10, 9, 8]);
}

#[test]
fn pete_knows_at_his_fifth_turn() {
    let d = Dialogue::play(9).unwrap();
    assert_eq!(
        d.outcome,
        Outcome::Knows {
            person: Person::Pete,
            nth: 5,
            value: 16,
            pair: (2, 8)
        }
    );
    let (step9, susan_could_know) = d.hypothetical.clone().unwrap();
    assert_eq!(step9.name, "step-9");
    assert!(!susan_could_know, "no sum is unique in step-9");
    assert!(d.conclusion().contains("16"), "{}", d.conclusion());
    assert!(d.conclusion().contains("2 and 8"), "{}", d.conclusion());
}

#[test]
fn polars_prune_equals_the_plain_oracle_for_every_max_to_30() {
    for max in 2..=30 {
        let a = Dialogue::play(max).unwrap();
        let b = Dialogue::play_plain(max).unwrap();
        assert_eq!(a, b, "max {max}");
    }
}

#[test]
fn a_single_prune_matches_the_oracle_on_both_keys() {
    let df = sum_product::candidates(12).unwrap();
    let rows = sum_product::rows_of(&df).unwrap();
    for key in [Key::Product, Key::Sum] {
        let p = sum_product::prune(&df, key).unwrap();
        assert_eq!(
            sum_product::rows_of(&p).unwrap(),
            sum_product::prune_rows(&rows, key)
        );
    }
}

#[test]
fn the_candidates_come_in_the_write_ups_order() {
    let df = sum_product::candidates(9).unwrap();
    assert_eq!(df.height(), 45);
    assert_writeup(
        "04-impossible-puzzle/start.tsv",
        &sum_product::table(&df).unwrap().to_tsv(),
    );
}

#[test]
fn small_and_large_maxima_say_how_they_end() {
    let d = Dialogue::play(2).unwrap();
    assert!(
        matches!(d.outcome, Outcome::RunOut { .. }),
        "{:?}",
        d.outcome
    );
    assert!(d.conclusion().contains("no solution"));
    for max in [3, 5, 10, 20] {
        let d = Dialogue::play(max).unwrap();
        assert!(!d.conclusion().is_empty());
    }
    assert!(sum_product::candidates(0).is_err());
}

#[test]
fn a_frame_without_the_columns_is_a_clear_error() {
    use puzzlebook::polars::prelude::*;
    let df = df!("a" => [1i64, 2]).unwrap();
    let e = sum_product::prune(&df, Key::Sum).unwrap_err();
    assert!(e.to_string().contains("no column \"m\""), "{e}");
}

#[test]
fn the_dialogue_runs_at_max_1000_and_matches_the_oracle() {
    // 500,500 candidate pairs.
    let a = Dialogue::play(1000).unwrap();
    assert_eq!(a.steps[0].rows.len(), 500_500);
    let b = Dialogue::play_plain(1000).unwrap();
    assert_eq!(a, b);
    assert!(a.conclusion().contains("max 1000"), "{}", a.conclusion());
}
