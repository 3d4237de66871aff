//! The dialogue as an API: who is asked, what they answer, the table after each
//! "I don't know", and who knows when.

use std::fmt;

use super::rows::{unique_rows, Key, Row, COLUMNS};
use super::SumProductError;
use crate::table::Table;

/// The two people Barack asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Person {
    /// Pete, who was told the product.
    Pete,
    /// Susan, who was told the sum.
    Susan,
}

impl Person {
    /// The key this person knows.
    pub fn key(self) -> Key {
        match self {
            Person::Pete => Key::Product,
            Person::Susan => Key::Sum,
        }
    }
}

impl fmt::Display for Person {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Person::Pete => "Pete",
            Person::Susan => "Susan",
        })
    }
}

/// A named table: `start`, `step-1`, …
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The write-up's name for the table.
    pub name: String,
    /// Who said "I don't know" to produce it (`None` for `start`).
    pub after: Option<(Person, usize)>,
    /// Its rows, in the write-up's order.
    pub rows: Vec<Row>,
}

impl Step {
    /// The rows as a [`Table`] with header `m s x y`.
    pub fn table(&self) -> Table {
        let mut t = Table::new(COLUMNS);
        for r in &self.rows {
            t.push_row([r.m, r.s, r.x, r.y]);
        }
        t
    }
}

/// How the dialogue ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Someone knows: exactly one row has a unique key for them.
    Knows {
        /// Who.
        person: Person,
        /// Their how-manieth turn.
        nth: usize,
        /// The key value they were told (Pete's product).
        value: i64,
        /// The pair.
        pair: (i64, i64),
    },
    /// Several rows have a unique key: the dialogue does not single out a pair.
    Ambiguous {
        /// Who.
        person: Person,
        /// The candidate pairs.
        pairs: Vec<(i64, i64)>,
    },
    /// No row has a unique key for the person due to know: nobody ever knows.
    NobodyKnows {
        /// Who was due to know.
        person: Person,
    },
    /// Every candidate was pruned before the last "I don't know".
    RunOut {
        /// The table that came out empty.
        step: String,
    },
}

/// The whole dialogue for numbers 1 to `max`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialogue {
    /// The largest number.
    pub max: i64,
    /// `start`, then one table after each "I don't know".
    pub steps: Vec<Step>,
    /// How it ends.
    pub outcome: Outcome,
    /// The write-up's hypothetical last step: had Pete not known, the table after
    /// his "I don't know", and whether Susan could then know (some sum unique).
    pub hypothetical: Option<(Step, bool)>,
}

/// The number of "I don't know"s in the Riddler's dialogue before Pete knows.
pub const DONT_KNOWS: usize = 8;

impl Dialogue {
    /// Plays the Riddler's dialogue: Pete and Susan alternate, Pete first, saying
    /// "I don't know" [`DONT_KNOWS`] times; then Pete knows. Each "I don't know"
    /// prunes the table by the speaker's key (with the polars
    /// [`prune`](super::frame::prune)).
    #[cfg(any(feature = "polars", feature = "polars-dylib"))]
    pub fn play(max: i64) -> Result<Dialogue, SumProductError> {
        Self::play_with(max, super::frame::chained_pruner())
    }

    /// The same dialogue with the plain-Rust prune ([`prune_rows`](super::rows::prune_rows)):
    /// the oracle for the polars one, and what the `puzzlebook` command prints.
    /// It needs no polars, so it is there without the crate's polars features.
    pub fn play_plain(max: i64) -> Result<Dialogue, SumProductError> {
        Self::play_with(max, |rows, key| Ok(super::rows::prune_rows(rows, key)))
    }

    fn play_with(
        max: i64,
        mut prune: impl FnMut(&[Row], Key) -> Result<Vec<Row>, SumProductError>,
    ) -> Result<Dialogue, SumProductError> {
        if max < 1 {
            return Err(SumProductError::Max(max));
        }
        let mut steps = vec![Step {
            name: "start".into(),
            after: None,
            rows: super::rows::candidate_rows(max),
        }];
        // One more than the dialogue's "I don't know"s: the hypothetical step.
        for k in 1..=DONT_KNOWS + 1 {
            let person = speaker(k);
            let rows = prune(&steps[k - 1].rows, person.key())?;
            steps.push(Step {
                name: format!("step-{k}"),
                after: Some((person, k.div_ceil(2))),
                rows,
            });
        }
        Ok(Self::conclude(max, steps))
    }

    /// Reads the outcome from `start` … `step-(DONT_KNOWS+1)`.
    fn conclude(max: i64, mut steps: Vec<Step>) -> Dialogue {
        let hypothetical_step = steps.pop().expect("the hypothetical step");
        let last = steps.last().expect("start");
        let person = speaker(DONT_KNOWS + 1);
        let nth = (DONT_KNOWS + 1).div_ceil(2);
        let outcome = if let Some(empty) = steps.iter().find(|s| s.rows.is_empty()) {
            Outcome::RunOut {
                step: empty.name.clone(),
            }
        } else {
            let unique = unique_rows(&last.rows, person.key());
            match unique.as_slice() {
                [] => Outcome::NobodyKnows { person },
                [r] => Outcome::Knows {
                    person,
                    nth,
                    value: person.key().of(r),
                    pair: (r.x, r.y),
                },
                many => Outcome::Ambiguous {
                    person,
                    pairs: many.iter().map(|r| (r.x, r.y)).collect(),
                },
            }
        };
        let hypothetical = matches!(outcome, Outcome::Knows { .. }).then(|| {
            let next = speaker(DONT_KNOWS + 2);
            let could = !unique_rows(&hypothetical_step.rows, next.key()).is_empty();
            (hypothetical_step, could)
        });
        Dialogue {
            max,
            steps,
            outcome,
            hypothetical,
        }
    }

    /// Every table in order, the hypothetical one last: `start`, `step-1` … `step-9`.
    pub fn tables(&self) -> Vec<&Step> {
        self.steps
            .iter()
            .chain(self.hypothetical.as_ref().map(|(s, _)| s))
            .collect()
    }

    /// The conclusion in one sentence.
    pub fn conclusion(&self) -> String {
        conclusion(&self.outcome, self.max)
    }
}

/// How a dialogue for numbers 1 to `max` ends, in one sentence.
pub(crate) fn conclusion(outcome: &Outcome, max: i64) -> String {
    match outcome {
        Outcome::Knows {
            person,
            nth,
            value,
            pair,
        } => {
            let what = if *person == Person::Pete { "product" } else { "sum" };
            let mut s = format!(
                "{person} knows at his {} turn: his {what} is {value}, the only one left that is unique, so the numbers are {} and {}.",
                ordinal(*nth),
                pair.0,
                pair.1
            );
            if *person == Person::Susan {
                s = s.replace("his", "her");
            }
            s
        }
        Outcome::Ambiguous { person, pairs } => format!(
            "{person} could know with any of {} pairs, so the dialogue does not single out the numbers for max {}.",
            pairs.len(),
            max
        ),
        Outcome::NobodyKnows { person } => format!(
            "No {} is unique when {person} is asked the {} time, so nobody ever knows: the puzzle has no solution for max {}.",
            if *person == Person::Pete { "product" } else { "sum" },
            ordinal((DONT_KNOWS + 1).div_ceil(2)),
            max
        ),
        Outcome::RunOut { step } => format!(
            "The candidates run out at {step}: the puzzle has no solution for max {}.",
            max
        ),
    }
}

impl fmt::Display for Dialogue {
    /// One line per turn, then the conclusion.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.steps {
            if let Some((p, nth)) = s.after {
                writeln!(
                    f,
                    "{p} ({} turn): I don't know. {} candidates left ({}).",
                    ordinal(nth),
                    s.rows.len(),
                    s.name
                )?;
            }
        }
        writeln!(f, "{}", self.conclusion())
    }
}

pub(crate) fn speaker(k: usize) -> Person {
    if k % 2 == 1 {
        Person::Pete
    } else {
        Person::Susan
    }
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        n => format!("{n}th"),
    }
}

impl crate::rich::RichDisplay for Dialogue {
    fn renderings(&self) -> Vec<crate::rich::Rendering> {
        vec![crate::rich::Rendering {
            mime: "text/plain",
            content: self.to_string(),
        }]
    }
}
crate::impl_evcxr_display!(Dialogue);
