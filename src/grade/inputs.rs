//! The inputs an exercise's answer is handed in for: the examples the
//! notebook shows when a student runs it, and, when `puzzlebook grade` runs
//! it, inputs drawn from the grade's seed, the same in the reference run and
//! in every submission's, so that an answer is worth only what the
//! student's function computes, never a number copied or guessed.
//!
//! The grader writes the seed, a decimal number, to [`SEED_FILE`] in the
//! folder it hands over ([`super::handed::HAND_IN_VAR`],
//! [`super::handed::REFERENCE_VAR`]).

use std::collections::BTreeSet;
use std::fmt::Debug;

use super::handed::{HAND_IN_VAR, REFERENCE_VAR};

/// The file in a hand-over folder that holds the grade's seed.
pub const SEED_FILE: &str = "seed";

/// Numbers drawn for an exercise's inputs: SplitMix64, seeded by the
/// grade's seed and the exercise's name, so each exercise draws its own.
#[derive(Debug, Clone)]
pub struct Draw {
    state: u64,
}

impl Draw {
    /// The draw for exercise `id` from `seed`.
    pub fn new(seed: u64, id: &str) -> Draw {
        // FNV-1a of the name, mixed into the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in id.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Draw { state: seed ^ h }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number from `low` to `high`, both included.
    pub fn between(&mut self, low: i64, high: i64) -> i64 {
        assert!(low <= high, "Draw::between({low}, {high}): an empty range");
        let Some(span) = high.abs_diff(low).checked_add(1) else {
            // Every i64: any 64 bits.
            return self.next() as i64;
        };
        // Rejection keeps every number as likely.
        let zone = u64::MAX - u64::MAX % span;
        loop {
            let n = self.next();
            if n < zone {
                return low.wrapping_add((n % span) as i64);
            }
        }
    }
}

/// Writes `seed` into a run's hand-over folder `dir`, for its exercises.
pub fn write_seed(dir: &std::path::Path, seed: u64) -> std::io::Result<()> {
    std::fs::write(dir.join(SEED_FILE), format!("{seed}\n"))
}

/// The grade's seed, when this process runs for `puzzlebook grade`.
pub fn seed() -> Option<u64> {
    let dir = [HAND_IN_VAR, REFERENCE_VAR]
        .into_iter()
        .find_map(|v| std::env::var_os(v).filter(|d| !d.is_empty()))?;
    let text = std::fs::read_to_string(std::path::Path::new(&dir).join(SEED_FILE)).ok()?;
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("the grade's seed file ({SEED_FILE} in the hand-over folder) holds {text:?}, not a number; `puzzlebook grade` writes it, and without it this run's inputs cannot be drawn")),
    )
}

/// The inputs exercise `id`'s answer is handed in for: `public` when a
/// student runs the notebook, and `count` different ones made by `draw`
/// when `puzzlebook grade` does (inputs that are equal, as `Debug` shows
/// them, are drawn again).
pub fn inputs<T: Debug>(
    id: &str,
    public: Vec<T>,
    count: usize,
    draw: impl Fn(&mut Draw) -> T,
) -> Vec<T> {
    match seed() {
        Some(seed) => drawn(seed, id, count, draw),
        None => public,
    }
}

/// `count` different inputs made by `draw` from `seed`.
pub fn drawn<T: Debug>(seed: u64, id: &str, count: usize, draw: impl Fn(&mut Draw) -> T) -> Vec<T> {
    let mut d = Draw::new(seed, id);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for _ in 0..count.saturating_mul(50) {
        if out.len() == count {
            break;
        }
        let input = draw(&mut d);
        if seen.insert(format!("{input:?}")) {
            out.push(input);
        }
    }
    assert!(
        out.len() == count,
        "exercise {id}: its draw made {} different inputs of the {count} asked for; widen what it draws",
        out.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_is_the_same_for_the_same_seed_and_exercise_and_another_for_another() {
        let lists = |seed, id| {
            drawn(seed, id, 4, |d| {
                (0..5).map(|_| d.between(1, 3)).collect::<Vec<_>>()
            })
        };
        assert_eq!(lists(7, "03-2"), lists(7, "03-2"));
        assert_ne!(lists(7, "03-2"), lists(8, "03-2"));
        assert_ne!(lists(7, "03-2"), lists(7, "03-3"));
        let four = lists(7, "03-2");
        // Four different lists of five numbers from 1 to 3.
        assert_eq!(four.iter().collect::<BTreeSet<_>>().len(), 4);
        assert!(
            four.iter().flatten().all(|n| (1..=3).contains(n)),
            "{four:?}"
        );
    }

    #[test]
    fn between_gives_every_number_of_its_range_and_no_other() {
        let mut d = Draw::new(1, "t");
        let seen: BTreeSet<i64> = (0..1000).map(|_| d.between(-2, 2)).collect();
        assert_eq!(seen, (-2..=2).collect());
        assert_eq!(d.between(i64::MIN, i64::MIN), i64::MIN);
        let wide: BTreeSet<i64> = (0..100).map(|_| d.between(i64::MIN, i64::MAX)).collect();
        assert!(wide.len() > 90);
        assert!(wide.iter().any(|n| *n < 0) && wide.iter().any(|n| *n > 0));
    }

    #[test]
    #[should_panic(expected = "made 3 different inputs of the 4 asked for")]
    fn a_draw_too_narrow_for_its_count_says_so() {
        drawn(1, "t", 4, |d| d.between(1, 3));
    }

    #[test]
    fn without_the_grader_the_public_inputs_are_handed_in() {
        // The tests run without the grade's hand-over variables.
        assert_eq!(seed(), None);
        assert_eq!(
            inputs("t", vec![[2, 2, 3]], 4, |d| [d.between(1, 3); 3]),
            vec![[2, 2, 3]]
        );
    }
}
