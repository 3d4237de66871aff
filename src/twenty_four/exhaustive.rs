//! Exhaustive exact solvers: every bracketing, and the write-up's left-to-right shape.

use std::collections::BTreeSet;

use super::expr::{left_to_right, Expr, Op, Rational};

const OPS: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];

/// The distinct orderings of `values` (a multiset), in lexicographic order.
pub fn distinct_permutations(values: &[i64]) -> Vec<Vec<i64>> {
    let mut v = values.to_vec();
    v.sort_unstable();
    let mut out = vec![v.clone()];
    // The classic next-permutation step, which skips repeated orderings.
    loop {
        let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
            return out;
        };
        let j = (i..v.len())
            .rev()
            .find(|&j| v[j] > v[i - 1])
            .expect("exists");
        v.swap(i - 1, j);
        v[i..].reverse();
        out.push(v.clone());
    }
}

/// Whether some bracketing of `numbers` with `+ - * /` makes exactly `target`.
///
/// Works on exact rationals held in a fixed array: no allocation per step.
pub fn solvable(numbers: &[i64], target: i64) -> bool {
    assert!(
        (1..=6).contains(&numbers.len()),
        "1 to 6 numbers, not {}",
        numbers.len()
    );
    let mut vals = [Rational::from_integer(0); 6];
    for (v, n) in vals.iter_mut().zip(numbers) {
        *v = Rational::from_integer(i128::from(*n));
    }
    reach(
        &mut vals,
        numbers.len(),
        Rational::from_integer(i128::from(target)),
    )
}

fn reach(vals: &mut [Rational; 6], n: usize, target: Rational) -> bool {
    if n == 1 {
        return vals[0] == target;
    }
    for i in 0..n {
        for j in (i + 1)..n {
            let (a, b) = (vals[i], vals[j]);
            // Move the last live value into slot j; slot i holds the result.
            vals[j] = vals[n - 1];
            let candidates = [
                Op::Add.apply(a, b),
                Op::Sub.apply(a, b),
                Op::Sub.apply(b, a),
                Op::Mul.apply(a, b),
                Op::Div.apply(a, b),
                Op::Div.apply(b, a),
            ];
            for r in candidates.into_iter().flatten() {
                vals[i] = r;
                if reach(vals, n - 1, target) {
                    vals[i] = a;
                    vals[j] = b;
                    return true;
                }
            }
            vals[i] = a;
            vals[j] = b;
        }
    }
    false
}

/// Distinct expressions (as printed) over `numbers`, any bracketing, that make
/// exactly `target`: up to `limit` of them, sorted. Cost grows quickly past five
/// numbers when `limit` is large.
pub fn all_expressions(numbers: &[i64], target: i64, limit: usize) -> Vec<String> {
    let target = Rational::from_integer(i128::from(target));
    let leaves: Vec<(Expr, Rational)> = numbers
        .iter()
        .map(|n| (Expr::Num(*n), Rational::from_integer(i128::from(*n))))
        .collect();
    let mut found = BTreeSet::new();
    collect(leaves, target, limit, &mut found);
    found.into_iter().collect()
}

fn collect(
    items: Vec<(Expr, Rational)>,
    target: Rational,
    limit: usize,
    found: &mut BTreeSet<String>,
) {
    if found.len() >= limit {
        return;
    }
    if items.len() == 1 {
        if items[0].1 == target {
            found.insert(items[0].0.to_string());
        }
        return;
    }
    for i in 0..items.len() {
        for j in 0..items.len() {
            if i == j {
                continue;
            }
            let rest: Vec<(Expr, Rational)> = items
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != i && *k != j)
                .map(|(_, x)| x.clone())
                .collect();
            for op in OPS {
                // + and * commute: take each unordered pair once for them.
                if matches!(op, Op::Add | Op::Mul) && i > j {
                    continue;
                }
                if let Some(v) = op.apply(items[i].1, items[j].1) {
                    let mut next = rest.clone();
                    next.push((Expr::bin(op, items[i].0.clone(), items[j].0.clone()), v));
                    collect(next, target, limit, found);
                }
            }
        }
    }
}

/// Every left-to-right solution in the write-up's shape: each distinct order of
/// the numbers with each operator-code sequence (0..=5 per step) whose exact
/// value is `target`, sorted by (order, codes).
pub fn left_to_right_solutions(numbers: &[i64], target: i64) -> Vec<(Vec<i64>, Vec<u8>)> {
    let target = Rational::from_integer(i128::from(target));
    let steps = numbers.len().saturating_sub(1);
    let combos = 6usize.pow(steps as u32);
    let mut out = Vec::new();
    for order in distinct_permutations(numbers) {
        for k in 0..combos {
            let mut codes = Vec::with_capacity(steps);
            let mut x = k;
            for _ in 0..steps {
                codes.push((x % 6) as u8);
                x /= 6;
            }
            codes.reverse();
            if left_to_right(&order, &codes).eval() == Some(target) {
                out.push((order.clone(), codes));
            }
        }
    }
    out
}

/// All multisets of `size` numbers from `lo` to `hi`, each sorted ascending.
pub fn multisets(size: usize, lo: i64, hi: i64) -> Vec<Vec<i64>> {
    fn go(size: usize, from: i64, hi: i64, cur: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
        if cur.len() == size {
            out.push(cur.clone());
            return;
        }
        for v in from..=hi {
            cur.push(v);
            go(size, v, hi, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(size, lo, hi, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_of_a_multiset() {
        assert_eq!(distinct_permutations(&[1, 5, 5, 5]).len(), 4);
        assert_eq!(distinct_permutations(&[1, 2, 3, 4]).len(), 24);
        assert_eq!(distinct_permutations(&[7]).len(), 1);
    }

    #[test]
    fn balanced_shapes_are_found() {
        assert!(solvable(&[1, 1, 2, 7], 24));
        assert!(left_to_right_solutions(&[1, 1, 2, 7], 24).is_empty());
        assert!(all_expressions(&[1, 1, 2, 7], 24, usize::MAX)
            .contains(&"(1 + 2) * (1 + 7)".to_string()));
        assert!(!solvable(&[1, 1, 1, 1], 24));
    }

    #[test]
    fn multiset_count() {
        assert_eq!(multisets(4, 1, 13).len(), 1820);
    }
}
