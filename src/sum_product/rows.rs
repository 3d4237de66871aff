//! Candidate rows as plain data, and the plain-Rust prune that serves as the oracle.

use std::collections::HashMap;

/// The four column names, in order.
pub const COLUMNS: [&str; 4] = ["m", "s", "x", "y"];

/// One candidate: product `m`, sum `s`, and the pair `x <= y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Row {
    /// The product, `x * y` (what Pete is told).
    pub m: i64,
    /// The sum, `x + y` (what Susan is told).
    pub s: i64,
    /// The smaller number.
    pub x: i64,
    /// The larger number.
    pub y: i64,
}

/// Which column a person knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// The product, column `m` (Pete).
    Product,
    /// The sum, column `s` (Susan).
    Sum,
}

impl Key {
    /// The column name: `m` or `s`.
    pub fn column(self) -> &'static str {
        match self {
            Key::Product => "m",
            Key::Sum => "s",
        }
    }

    /// This key's value in a row.
    pub fn of(self, r: &Row) -> i64 {
        match self {
            Key::Product => r.m,
            Key::Sum => r.s,
        }
    }
}

/// The write-up's candidates: x ascending from 1 to `max`, y descending from
/// `max` to x.
pub fn candidate_rows(max: i64) -> Vec<Row> {
    let mut out = Vec::new();
    for x in 1..=max {
        for y in (x..=max).rev() {
            out.push(Row {
                m: x * y,
                s: x + y,
                x,
                y,
            });
        }
    }
    out
}

/// The Common Lisp `prune`, step for step: `group-by-repeated` walks the rows
/// once, pushing each row onto the front of its key's group and each new group
/// onto the front of the group list; groups of one are dropped and the rest
/// concatenated. So groups come out in reverse order of first appearance, and
/// rows within a group in reverse input order.
pub fn prune_rows(rows: &[Row], key: Key) -> Vec<Row> {
    let mut index: HashMap<i64, usize> = HashMap::new();
    let mut groups: Vec<Vec<Row>> = Vec::new();
    for r in rows {
        let g = *index.entry(key.of(r)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(*r);
    }
    groups
        .into_iter()
        .rev()
        .filter(|g| g.len() > 1)
        .flat_map(|g| g.into_iter().rev())
        .collect()
}

/// The rows whose key value occurs exactly once.
pub fn unique_rows(rows: &[Row], key: Key) -> Vec<Row> {
    let mut counts: HashMap<i64, usize> = HashMap::new();
    for r in rows {
        *counts.entry(key.of(r)).or_default() += 1;
    }
    rows.iter()
        .filter(|r| counts[&key.of(r)] == 1)
        .copied()
        .collect()
}
