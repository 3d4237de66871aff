//! The candidate table as a polars DataFrame, and `prune` as a polars query.
//!
//! # Frames that cross notebook cells
//!
//! With the `polars` feature, evcxr links a separate copy of polars into every
//! notebook cell. A frame made in one cell carries state from that cell's copy
//! (a cached schema whose hash map was seeded by the other copy), and a name
//! lookup on it from the next cell's copy can fail with `ColumnNotFound` for a
//! column that is plainly there. So every function here that takes a frame
//! first rebuilds it from its values ([`rebuild`]), reading columns by position
//! and comparing names as strings, never through a hashed lookup on the
//! incoming frame.
//!
//! With the `polars-dylib` feature, as notebook 04 loads the crate, every cell
//! uses the one polars of the shared library, and frames cross cells as they
//! are; the rebuild then costs a copy of a small table and nothing else.

use crate::polars::prelude::*;

use super::rows::{Key, Row, COLUMNS};
use super::SumProductError;
use crate::table::Table;

/// A frame with columns `m s x y` (Int64) holding `rows`.
pub fn frame_of(rows: &[Row]) -> Result<DataFrame, SumProductError> {
    let col = |name: &str, f: fn(&Row) -> i64| -> Column {
        Column::new(name.into(), rows.iter().map(f).collect::<Vec<i64>>())
    };
    Ok(DataFrame::new_infer_height(vec![
        col("m", |r| r.m),
        col("s", |r| r.s),
        col("x", |r| r.x),
        col("y", |r| r.y),
    ])?)
}

/// The rows of a frame with columns `m s x y`, read without hashed lookups
/// (safe on a frame from another notebook cell).
pub fn rows_of(df: &DataFrame) -> Result<Vec<Row>, SumProductError> {
    let mut cols: Vec<Vec<i64>> = Vec::with_capacity(4);
    for name in COLUMNS {
        let c = df
            .columns()
            .iter()
            .find(|c| c.name().as_str() == name)
            .ok_or_else(|| SumProductError::MissingColumn(name.to_string()))?;
        let values: Vec<i64> = c
            .as_materialized_series()
            .cast(&DataType::Int64)?
            .i64()?
            .iter()
            .map(|v| v.ok_or_else(|| SumProductError::Null(name.to_string())))
            .collect::<Result<_, _>>()?;
        cols.push(values);
    }
    Ok((0..df.height())
        .map(|i| Row {
            m: cols[0][i],
            s: cols[1][i],
            x: cols[2][i],
            y: cols[3][i],
        })
        .collect())
}

/// Rebuilds a frame from its values, so this copy of polars owns all its state.
pub fn rebuild(df: &DataFrame) -> Result<DataFrame, SumProductError> {
    frame_of(&rows_of(df)?)
}

/// The write-up's candidate table for numbers 1 to `max`: columns `m s x y`, x
/// ascending, y descending from `max` to x. For max 9 it has 45 rows.
///
/// ```
/// let df = puzzlebook::sum_product::candidates(9).unwrap();
/// assert_eq!(df.height(), 45);
/// ```
pub fn candidates(max: i64) -> Result<DataFrame, SumProductError> {
    if max < 1 {
        return Err(SumProductError::Max(max));
    }
    frame_of(&super::rows::candidate_rows(max))
}

/// Keeps only the rows whose `key` value is shared by at least two rows, in the
/// order the Common Lisp `group-by-repeated` gives: groups in reverse order of
/// their key's first appearance, rows within a group in reverse input order.
///
/// A polars window query: a row index, each key's group length and first index
/// `over` the key, the groups longer than one, sorted by (first index, row
/// index), both descending.
pub fn prune(df: &DataFrame, key: Key) -> Result<DataFrame, SumProductError> {
    query(rebuild(df)?, key)
}

/// A pruner for a run of prunes in one call, such as the dialogue: the first
/// call builds a frame from `rows`; each later one prunes the frame the previous
/// call produced (this copy of polars owns it, so no rebuild is needed) and
/// ignores `rows`, which the caller passes as that frame's rows anyway. Each call
/// returns the kept rows.
///
/// Keeping the frame saves one rows-to-frame build per step. The query itself
/// dominates: at max 1000 the dialogue's median went from 633 ms to 590 ms,
/// within this machine's noise (BENCHMARKS.md).
pub(crate) fn chained_pruner() -> impl FnMut(&[Row], Key) -> Result<Vec<Row>, SumProductError> {
    let mut frame: Option<DataFrame> = None;
    move |rows, key| {
        let df = match frame.take() {
            Some(df) => df,
            None => frame_of(rows)?,
        };
        let out = query(df, key)?;
        let kept = rows_of(&out)?;
        frame = Some(out);
        Ok(kept)
    }
}

/// The window query behind [`prune`], on a frame this copy of polars built.
fn query(df: DataFrame, key: Key) -> Result<DataFrame, SumProductError> {
    let k = key.column();
    let out = df
        .lazy()
        .with_row_index("row", None)
        .with_columns([
            col(k).len().over([col(k)])?.alias("group_len"),
            col("row").min().over([col(k)])?.alias("first"),
        ])
        .filter(col("group_len").gt(lit(1)))
        .sort_by_exprs(
            [col("first"), col("row")],
            SortMultipleOptions::default().with_order_descending_multi([true, true]),
        )
        .select(COLUMNS.map(col))
        .collect()?;
    Ok(out)
}

/// The frame as a [`Table`] with header `m s x y`.
pub fn table(df: &DataFrame) -> Result<Table, SumProductError> {
    let mut t = Table::new(COLUMNS);
    for r in rows_of(df)? {
        t.push_row([r.m, r.s, r.x, r.y]);
    }
    Ok(t)
}
