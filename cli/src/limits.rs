//! What this machine can take: the `solve` commands check their input against
//! these limits before they start work, and say which limit and why.

use thiserror::Error;

/// Memory `solve sum-product` needs per candidate pair, in bytes, with every
/// table printed: measured 306 MB at peak for `--max 1000` (500,500 pairs),
/// about 610 bytes a pair; this allows some margin.
pub const SUM_PRODUCT_BYTES_PER_PAIR: u64 = 700;

/// Bytes a candidate pair needs in `solve sum-product --format summary`: the
/// pairs, 8 bytes each, pruned in place; measured 409 MB at peak for
/// `--max 10000` (50,005,000 pairs, 44 s), 8.2 bytes a pair.
pub const SUM_PRODUCT_SUMMARY_BYTES_PER_PAIR: u64 = 12;

/// The most presses `solve calculator` takes. The game's levels use at most a
/// dozen; the search remembers dead states, so 20 presses of five buttons
/// answer in about a second, but each press can multiply the values a level
/// reaches, and so the states to remember.
pub const CALCULATOR_MAX_MOVES: usize = 20;

/// An input over a limit.
#[derive(Debug, Error)]
pub enum LimitError {
    /// Too many candidate pairs for the memory available.
    #[error(
        "--max {max} means {pairs} candidate pairs, and {what} about {need} of memory; \
         this machine has {have} available. The largest --max that fits is {largest}{way_out}."
    )]
    SumProduct {
        /// What needs the memory (with its verb): the printed tables, or counting.
        what: &'static str,
        /// Another way, when there is one.
        way_out: &'static str,
        /// The `--max` asked for.
        max: i64,
        /// max·(max+1)/2.
        pairs: u64,
        /// The memory needed, for people.
        need: String,
        /// The memory available, for people.
        have: String,
        /// The largest `--max` that fits.
        largest: u64,
    },
    /// Too many presses.
    #[error(
        "--moves {moves} is more than {CALCULATOR_MAX_MOVES}, the most `solve calculator` takes: \
         every press can multiply the values the search must remember. Pass --moves {CALCULATOR_MAX_MOVES} or fewer."
    )]
    CalculatorMoves {
        /// The `--moves` asked for.
        moves: usize,
    },
}

/// Bytes as GB with one decimal.
fn gb(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// The memory available for new work: `MemAvailable` from /proc/meminfo, or
/// 4 GB where that cannot be read.
pub fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(4_000_000_000, |kb| kb * 1024)
}

/// Whether `solve sum-product --max max` fits in `available` bytes.
///
/// ```
/// use puzzlebook_cli::limits::check_sum_product;
/// assert!(check_sum_product(9, 1 << 30).is_ok());
/// assert!(check_sum_product(100_000, 24 << 30).is_err());
/// ```
pub fn check_sum_product(max: i64, available: u64) -> Result<(), LimitError> {
    check_pairs(
        max,
        available,
        SUM_PRODUCT_BYTES_PER_PAIR,
        "their ten printed tables need",
        "; or pass --format summary, which prints how many candidates each step leaves \
         and needs 12 bytes a pair instead of 700",
    )
}

/// Whether `solve sum-product --max max --format summary` fits in `available`
/// bytes ([`SUM_PRODUCT_SUMMARY_BYTES_PER_PAIR`]).
pub fn check_sum_product_counts(max: i64, available: u64) -> Result<(), LimitError> {
    check_pairs(
        max,
        available,
        SUM_PRODUCT_SUMMARY_BYTES_PER_PAIR,
        "counting them needs",
        "",
    )
}

fn check_pairs(
    max: i64,
    available: u64,
    per_pair: u64,
    what: &'static str,
    way_out: &'static str,
) -> Result<(), LimitError> {
    let n = max.max(0) as u64;
    let pairs = n.saturating_mul(n.saturating_add(1)) / 2;
    let need = pairs.saturating_mul(per_pair);
    if need <= available {
        return Ok(());
    }
    // The largest n with n(n+1)/2 pairs within the memory.
    let fit = available / per_pair;
    let largest = (((8 * fit + 1) as f64).sqrt() as u64).saturating_sub(1) / 2;
    Err(LimitError::SumProduct {
        what,
        way_out,
        max,
        pairs,
        need: gb(need),
        have: gb(available),
        largest,
    })
}

/// Whether `solve calculator --moves moves` is within [`CALCULATOR_MAX_MOVES`].
pub fn check_calculator(moves: usize) -> Result<(), LimitError> {
    if moves > CALCULATOR_MAX_MOVES {
        return Err(LimitError::CalculatorMoves { moves });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_max_that_fits_does_fit_and_one_more_does_not() {
        let available = 24_000_000_000;
        assert!(check_sum_product_counts(10_000, available).is_ok());
        let Err(LimitError::SumProduct { largest, .. }) = check_sum_product(100_000, available)
        else {
            panic!("100,000 is over the limit");
        };
        assert!(check_sum_product(largest as i64, available).is_ok());
        assert!(check_sum_product(largest as i64 + 1, available).is_err());
    }

    #[test]
    fn the_messages_say_the_limit_and_the_way_out() {
        let e = check_sum_product(100_000, 24_000_000_000)
            .unwrap_err()
            .to_string();
        assert!(e.contains("5000050000 candidate pairs"), "{e}");
        assert!(e.contains("The largest --max that fits is"), "{e}");
        let e = check_calculator(21).unwrap_err().to_string();
        assert!(e.contains("Pass --moves 20 or fewer"), "{e}");
        assert!(check_calculator(20).is_ok());
    }

    #[test]
    fn available_memory_is_read() {
        assert!(available_memory() > 0);
    }
}
