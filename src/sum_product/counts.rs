//! The dialogue for large maxima: how many candidates each "I don't know"
//! leaves and how it ends, without keeping the tables.
//!
//! A pair takes 8 bytes here (two `u32`), against about 600 for the polars
//! tables, and only the current table is kept: each "I don't know" groups it by
//! the speaker's key (counting sums, sorting products) and keeps the groups of
//! two or more in place. Counting
//! does not care about row order, so the write-up's order is not kept: for the
//! tables themselves use [`Dialogue`](super::Dialogue).

use super::dialogue::{conclusion, speaker, Outcome, Person, DONT_KNOWS};
use super::SumProductError;
use crate::table::Table;

/// How many candidates one table of the dialogue holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepCount {
    /// The write-up's name for the table: `start`, `step-1`, …
    pub name: String,
    /// Who said "I don't know" to produce it, and their how-manieth turn.
    pub after: Option<(Person, usize)>,
    /// The candidates left.
    pub left: u64,
}

/// The dialogue in numbers: the candidates left after each "I don't know",
/// and how it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// The largest number.
    pub max: i64,
    /// `start`, then one count after each "I don't know".
    pub steps: Vec<StepCount>,
    /// How it ends.
    pub outcome: Outcome,
}

/// The largest `max` [`Counts::play`] takes: pairs are two `u32`s.
pub const MAX: i64 = u32::MAX as i64;

type Pair = (u32, u32);

fn key(p: Pair, person: Person) -> u64 {
    match person {
        Person::Pete => u64::from(p.0) * u64::from(p.1),
        Person::Susan => u64::from(p.0) + u64::from(p.1),
    }
}

/// Keeps the pairs whose group of equal keys (for `person`) has a size `keep`
/// accepts, in place: sums are counted in an array, products sorted, so there
/// is no hashing and no second table.
fn keep_groups(pairs: &mut Vec<Pair>, person: Person, keep: impl Fn(usize) -> bool) {
    if person == Person::Susan {
        // Sums are at most 2·max: count them in an array instead of sorting.
        let most = pairs.iter().map(|p| key(*p, person)).max().unwrap_or(0);
        let mut counts = vec![0usize; most as usize + 1];
        for p in pairs.iter() {
            counts[key(*p, person) as usize] += 1;
        }
        pairs.retain(|p| keep(counts[key(*p, person) as usize]));
        return;
    }
    pairs.sort_unstable_by_key(|p| key(*p, person));
    let mut write = 0;
    let mut start = 0;
    while start < pairs.len() {
        let k = key(pairs[start], person);
        let end = start + pairs[start..].partition_point(|p| key(*p, person) == k);
        if keep(end - start) {
            pairs.copy_within(start..end, write);
            write += end - start;
        }
        start = end;
    }
    pairs.truncate(write);
}

impl Counts {
    /// Plays the Riddler's dialogue for numbers 1 to `max`, as
    /// [`Dialogue::play_plain`](super::Dialogue::play_plain) does, keeping only counts.
    ///
    /// ```
    /// use puzzlebook::sum_product::Counts;
    /// let c = Counts::play(9).unwrap();
    /// assert_eq!(c.steps[0].left, 45);
    /// assert_eq!(c.steps[8].left, 9);
    /// ```
    pub fn play(max: i64) -> Result<Counts, SumProductError> {
        Self::play_with(max, |_| {})
    }

    /// [`Counts::play`], calling `progress` with each count as it is known
    /// (the work is in the larger tables, so a caller can show where it is).
    pub fn play_with(
        max: i64,
        mut progress: impl FnMut(&StepCount),
    ) -> Result<Counts, SumProductError> {
        if !(1..=MAX).contains(&max) {
            return Err(SumProductError::Max(max));
        }
        let n = max as u32;
        let mut pairs: Vec<Pair> = (1..=n).flat_map(|x| (x..=n).map(move |y| (x, y))).collect();
        let mut steps = vec![StepCount {
            name: "start".into(),
            after: None,
            left: pairs.len() as u64,
        }];
        progress(&steps[0]);
        for k in 1..=DONT_KNOWS {
            let person = speaker(k);
            keep_groups(&mut pairs, person, |n| n > 1);
            steps.push(StepCount {
                name: format!("step-{k}"),
                after: Some((person, k.div_ceil(2))),
                left: pairs.len() as u64,
            });
            progress(&steps[k]);
        }
        let person = speaker(DONT_KNOWS + 1);
        let outcome = if let Some(empty) = steps.iter().find(|s| s.left == 0) {
            Outcome::RunOut {
                step: empty.name.clone(),
            }
        } else {
            keep_groups(&mut pairs, person, |n| n == 1);
            pairs.sort_unstable();
            match pairs.as_slice() {
                [] => Outcome::NobodyKnows { person },
                [p] => Outcome::Knows {
                    person,
                    nth: (DONT_KNOWS + 1).div_ceil(2),
                    value: key(*p, person) as i64,
                    pair: (i64::from(p.0), i64::from(p.1)),
                },
                many => Outcome::Ambiguous {
                    person,
                    pairs: many
                        .iter()
                        .map(|p| (i64::from(p.0), i64::from(p.1)))
                        .collect(),
                },
            }
        };
        Ok(Counts {
            max,
            steps,
            outcome,
        })
    }

    /// The conclusion in one sentence, as [`Dialogue::conclusion`](super::Dialogue::conclusion).
    pub fn conclusion(&self) -> String {
        conclusion(&self.outcome, self.max)
    }

    /// The counts as a table: `table`, `after`, `candidates`.
    pub fn table(&self) -> Table {
        let mut t = Table::new(["table", "after", "candidates"]);
        for s in &self.steps {
            let after = s
                .after
                .map(|(p, nth)| format!("{p}'s answer {nth}"))
                .unwrap_or_default();
            t.push_row([s.name.clone(), after, s.left.to_string()]);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sum_product::Dialogue;

    /// The outcome with an ambiguous outcome's pairs in order (counting does
    /// not keep the write-up's row order).
    fn sorted(o: Outcome) -> Outcome {
        match o {
            Outcome::Ambiguous { person, mut pairs } => {
                pairs.sort();
                Outcome::Ambiguous { person, pairs }
            }
            other => other,
        }
    }

    #[test]
    fn counts_agree_with_the_tables_for_every_small_max() {
        for max in 1..=60 {
            let d = Dialogue::play_plain(max).unwrap();
            let c = Counts::play(max).unwrap();
            let lefts: Vec<u64> = d.steps.iter().map(|s| s.rows.len() as u64).collect();
            let counted: Vec<u64> = c.steps.iter().map(|s| s.left).collect();
            assert_eq!(counted, lefts, "max {max}");
            assert_eq!(
                sorted(c.outcome.clone()),
                sorted(d.outcome.clone()),
                "max {max}"
            );
            assert_eq!(c.conclusion(), d.conclusion(), "max {max}");
        }
    }

    #[test]
    fn a_max_out_of_range_is_refused() {
        assert!(matches!(Counts::play(0), Err(SumProductError::Max(0))));
        assert!(matches!(
            Counts::play(MAX + 1),
            Err(SumProductError::Max(_))
        ));
    }
}
