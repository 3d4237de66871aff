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

/// A field of /proc/meminfo in bytes, such as `MemAvailable`.
fn meminfo(field: &str) -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = m
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// The memory available for new work: `MemAvailable` from /proc/meminfo, or
/// 4 GB where that cannot be read.
pub fn available_memory() -> u64 {
    meminfo("MemAvailable").unwrap_or(4_000_000_000)
}

/// The machine's memory: `MemTotal` from /proc/meminfo, or 8 GB where that
/// cannot be read.
pub fn total_memory() -> u64 {
    meminfo("MemTotal").unwrap_or(8_000_000_000)
}

/// What a notebook's cells may use unless `--cell-memory` says otherwise:
/// half of the machine's memory, so that a runaway cell (a loop that grows a
/// vector, a search with no bound) is stopped with a message before the
/// machine swaps or the kernel's OOM killer picks a process of its own.
pub fn default_cell_memory() -> u64 {
    total_memory() / 2
}

/// The environment variable that sets the cells' memory limit for the
/// command (`--cell-memory`) and the kernel: a size, or `off`.
pub const CELL_MEMORY_ENV: &str = "PUZZLEBOOK_CELL_MEMORY";

/// Reads a memory size as people write it: `512M`, `2G`, `1.5G`, `800K` or
/// bytes (powers of 1024, an optional trailing `B` or `iB`), or `off` for no
/// limit (`None`).
pub fn parse_memory(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let upper = t.to_ascii_uppercase();
    let upper = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (number, unit) = match upper.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&upper[..i], c),
        _ => (upper, ' '),
    };
    let scale: u64 = match unit {
        ' ' => 1,
        'K' => 1 << 10,
        'M' => 1 << 20,
        'G' => 1 << 30,
        'T' => 1 << 40,
        _ => {
            return Err(format!(
                "{text:?} is not a size: use a number with K, M, G or T (such as 2G), or off"
            ))
        }
    };
    let value: f64 = number.trim().parse().map_err(|_| {
        format!("{text:?} is not a size: use a number with K, M, G or T (such as 2G), or off")
    })?;
    let bytes = value * scale as f64;
    if !(bytes >= (16u64 << 20) as f64 && bytes < u64::MAX as f64) {
        return Err(format!(
            "{text:?} is too small for a notebook's cells: give at least 16M, or off"
        ));
    }
    Ok(Some(bytes as u64))
}

/// Bytes as people read a memory limit: `2.0 GiB`, `512 MiB`.
pub fn memory_text(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", bytes >> 20)
    }
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

    #[test]
    fn memory_sizes_read_as_people_write_them() {
        assert_eq!(parse_memory("2G"), Ok(Some(2 << 30)));
        assert_eq!(parse_memory("512M"), Ok(Some(512 << 20)));
        assert_eq!(parse_memory("512MiB"), Ok(Some(512 << 20)));
        assert_eq!(parse_memory("1.5g"), Ok(Some(3 << 29)));
        assert_eq!(parse_memory("off"), Ok(None));
        assert_eq!(parse_memory("100000000"), Ok(Some(100_000_000)));
        assert!(parse_memory("2X").unwrap_err().contains("not a size"));
        assert!(parse_memory("lots").is_err());
        assert!(parse_memory("1K").unwrap_err().contains("at least 16M"));
        assert_eq!(memory_text(2 << 30), "2.0 GiB");
        assert_eq!(memory_text(512 << 20), "512 MiB");
        assert!(default_cell_memory() > 0);
    }
}
