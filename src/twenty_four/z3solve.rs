//! The write-up's Z3 solvers: `permutation()` as constraints, `solve_24` with
//! Real numbers and an `Implies` per operator code, `solve_24_by_function`, and a
//! complete encoding over every bracketing.

use z3::ast::{Ast, Bool, Int, Real};
use z3::{FuncDecl, Params, Solver, Sort};

use super::expr::{left_to_right, op_code, verify, Expr};
use super::{LeftToRight, TwentyFourError};
use crate::z3util::{self, SolveError};

/// The constraint that `xs` is an ordering of `values`: each x takes one of the
/// values, and each value occurs in `xs` as often as in `values` (so repeated
/// numbers work, unlike `Distinct`).
pub fn permutation(xs: &[Real], values: &[i64]) -> Bool {
    let mut distinct: Vec<i64> = values.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut exprs: Vec<Bool> = xs
        .iter()
        .map(|x| {
            let eqs: Vec<Bool> = distinct.iter().map(|v| x.eq(z3util::real(*v))).collect();
            Bool::or(&eqs)
        })
        .collect();
    for v in &distinct {
        let hits: Vec<Bool> = xs.iter().map(|x| x.eq(z3util::real(*v))).collect();
        let wanted = values.iter().filter(|w| *w == v).count() as i64;
        exprs.push(z3util::count(&hits).eq(wanted));
    }
    Bool::and(&exprs)
}

/// Every ordering of `values` that satisfies [`permutation`], enumerated by Z3 with
/// a blocking clause after each model, sorted.
///
/// ```
/// use puzzlebook::twenty_four::permutations;
/// assert_eq!(permutations(&[1, 5, 5, 5]).unwrap().len(), 4);
/// ```
pub fn permutations(values: &[i64]) -> Result<Vec<Vec<i64>>, SolveError> {
    let xs: Vec<Int> = (0..values.len())
        .map(|i| Int::new_const(format!("x{i}")))
        .collect();
    let reals: Vec<Real> = xs.iter().map(Int::to_real).collect();
    let solver = Solver::new();
    solver.assert(permutation(&reals, values));
    z3util::all_solutions(&solver, &xs, 100_000, "the permutation")
}

/// `res == n1 (o) n2` for operator code `o`, with the write-up's guards against
/// dividing by zero (Z3 leaves x/0 unspecified, so without them any value goes).
fn calc_op(n1: &Real, o: &Int, n2: &Real, res: &Real) -> Bool {
    let zero = z3util::real(0);
    Bool::and(&[
        n2.eq(&zero).implies(o.ne(3)),
        n1.eq(&zero).implies(o.ne(5)),
        o.eq(0).implies(res.eq(n1 + n2)),
        o.eq(1).implies(res.eq(n1 - n2)),
        o.eq(2).implies(res.eq(n1 * n2)),
        o.eq(3).implies(res.eq(n1 / n2)),
        o.eq(4).implies(res.eq(n2 - n1)),
        o.eq(5).implies(res.eq(n2 / n1)),
    ])
}

/// A solver for the 24 game's nonlinear real arithmetic (a product or quotient
/// of two unknowns at every step), set to Z3's legacy arithmetic solver
/// (`arith.solver = 2`).
///
/// With libz3 4.8.12's default arithmetic solver, the permutation method took
/// 10.5 s over every 20th multiset (91), the function method 14.8 s and the
/// complete encoding 17.4 s; with this setting 2.7 s, 2.9 s and 5.0 s, with
/// the same solvable counts (BENCHMARKS.md). Reusing one solver across
/// multisets with push/pop was slower (26.8 s against 10.4 s).
fn solver() -> Solver {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("arith.solver", 2);
    solver.set_params(&params);
    solver
}

/// A built left-to-right model: the solver, the numbers in order, the op codes.
struct Built {
    solver: Solver,
    numbers: Vec<Real>,
    ops: Vec<Int>,
}

/// Asserts the left-to-right chain `s0 = n0 op0 n1`, `s1 = s0 op1 n2`, … and the target.
fn chain(solver: &Solver, n: &[Real], target: i64) -> Vec<Int> {
    let steps = n.len() - 1;
    let ops: Vec<Int> = (0..steps)
        .map(|i| Int::new_const(format!("op{i}")))
        .collect();
    let acc: Vec<Real> = (0..steps)
        .map(|i| Real::new_const(format!("s{i}")))
        .collect();
    for o in &ops {
        solver.assert(o.ge(0));
        solver.assert(o.lt(6));
    }
    let mut prev = n[0].clone();
    for i in 0..steps {
        solver.assert(calc_op(&prev, &ops[i], &n[i + 1], &acc[i]));
        prev = acc[i].clone();
    }
    if steps == 0 {
        solver.assert(n[0].eq(z3util::real(target)));
    } else {
        solver.assert(acc[steps - 1].eq(z3util::real(target)));
    }
    ops
}

fn build_permutation(numbers: &[i64], target: i64) -> Built {
    let solver = solver();
    let n: Vec<Real> = (0..numbers.len())
        .map(|i| Real::new_const(format!("n{i}")))
        .collect();
    solver.assert(permutation(&n, numbers));
    let ops = chain(&solver, &n, target);
    Built {
        solver,
        numbers: n,
        ops,
    }
}

fn build_function(numbers: &[i64], target: i64) -> Built {
    let number_map = FuncDecl::new("number_map", &[&Sort::int()], &Sort::real());
    let solver = solver();
    for (i, v) in numbers.iter().enumerate() {
        let at = number_map.apply(&[&Int::from_i64(i as i64)]);
        solver.assert(
            at.as_real()
                .expect("number_map returns Real")
                .eq(z3util::real(*v)),
        );
    }
    let indices: Vec<Int> = (0..numbers.len())
        .map(|i| Int::new_const(format!("i{i}")))
        .collect();
    for x in &indices {
        solver.assert(x.ge(0));
        solver.assert(x.lt(numbers.len() as i64));
    }
    solver.assert(Int::distinct(&indices));
    let n: Vec<Real> = indices
        .iter()
        .map(|i| {
            number_map
                .apply(&[i])
                .as_real()
                .expect("number_map returns Real")
        })
        .collect();
    let ops = chain(&solver, &n, target);
    Built {
        solver,
        numbers: n,
        ops,
    }
}

/// One solution from the solver's next model: the numbers in order, the op
/// codes, and the expression `render` builds from them, checked by the exact
/// evaluator. The model is then blocked. `None` when no model is left.
fn next_solution(
    solver: &Solver,
    n: &[Real],
    ops: &[Int],
    (numbers, target): (&[i64], i64),
    what: &str,
    render: impl Fn(&[i64], &[u8]) -> Expr,
) -> Result<Option<(LeftToRight, String)>, TwentyFourError> {
    let model = match z3util::check_model(solver, what) {
        Ok(model) => model,
        Err(SolveError::Unsat(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut order = Vec::with_capacity(n.len());
    for x in n {
        let (num, den) = z3util::read_rational(&model, x, what)?;
        if den != 1 {
            return Err(TwentyFourError::NotANumber(format!("{num}/{den}")));
        }
        order.push(num);
    }
    let codes: Vec<u8> = z3util::read_ints(&model, ops, what)?
        .into_iter()
        .map(|c| c as u8)
        .collect();
    let text = render(&order, &codes).to_string();
    if !verify(&text, numbers, target) {
        return Err(TwentyFourError::Unverified(text));
    }
    let mut block: Vec<Bool> = n
        .iter()
        .zip(&order)
        .map(|(x, v)| x.ne(z3util::real(*v)))
        .collect();
    block.extend(ops.iter().zip(&codes).map(|(o, c)| o.ne(i64::from(*c))));
    solver.assert(Bool::or(&block));
    Ok(Some(((order, codes), text)))
}

/// Reads the (numbers, codes) of every model, blocking each, up to `limit`; every
/// expression is checked by the exact evaluator before it is kept.
fn solutions(
    m: &Built,
    numbers: &[i64],
    target: i64,
    limit: usize,
) -> Result<Vec<LeftToRight>, TwentyFourError> {
    m.solver.push();
    let mut out = Vec::new();
    let result = (|| -> Result<(), TwentyFourError> {
        while out.len() < limit {
            match next_solution(
                &m.solver,
                &m.numbers,
                &m.ops,
                (numbers, target),
                "the 24 game",
                left_to_right,
            )? {
                Some((solution, _)) => out.push(solution),
                None => break,
            }
        }
        Ok(())
    })();
    m.solver.pop(1);
    result?;
    out.sort();
    Ok(out)
}

/// The write-up's `solve_24`: the first left-to-right expression Z3 finds for
/// `target`, checked by exact evaluation, or `None`.
pub fn solve_permutation(
    numbers: &[i64],
    target: i64,
    limit: usize,
) -> Result<Vec<LeftToRight>, TwentyFourError> {
    solutions(&build_permutation(numbers, target), numbers, target, limit)
}

/// The write-up's `solve_24_by_function`: numbers through a Z3 function from
/// index to number, with `Distinct` indices.
pub fn solve_function(
    numbers: &[i64],
    target: i64,
    limit: usize,
) -> Result<Vec<LeftToRight>, TwentyFourError> {
    solutions(&build_function(numbers, target), numbers, target, limit)
}

/// The number of assertions each method's solver holds for `numbers`:
/// (permutation, function).
pub fn assertion_counts(numbers: &[i64]) -> (usize, usize) {
    (
        build_permutation(numbers, 24).solver.get_assertions().len(),
        build_function(numbers, 24).solver.get_assertions().len(),
    )
}

/// A binary tree shape with `n` leaves: `None` is a leaf.
#[derive(Debug, Clone)]
enum Shape {
    Leaf,
    Node(Box<Shape>, Box<Shape>),
}

fn shapes(n: usize) -> Vec<Shape> {
    if n == 1 {
        return vec![Shape::Leaf];
    }
    let mut out = Vec::new();
    for left in 1..n {
        for l in shapes(left) {
            for r in shapes(n - left) {
                out.push(Shape::Node(Box::new(l.clone()), Box::new(r.clone())));
            }
        }
    }
    out
}

/// Encodes a shape: leaves take `n[k]` in order, each node an op code 0..=3
/// (every shape is tried, so reversed codes are not needed). Returns the root's
/// value and pushes node op variables.
fn encode(
    shape: &Shape,
    solver: &Solver,
    n: &[Real],
    next_leaf: &mut usize,
    ops: &mut Vec<Int>,
) -> Real {
    match shape {
        Shape::Leaf => {
            *next_leaf += 1;
            n[*next_leaf - 1].clone()
        }
        Shape::Node(l, r) => {
            let a = encode(l, solver, n, next_leaf, ops);
            let b = encode(r, solver, n, next_leaf, ops);
            let o = Int::new_const(format!("node{}", ops.len()));
            let res = Real::new_const(format!("v{}", ops.len()));
            solver.assert(o.ge(0));
            solver.assert(o.le(3));
            solver.assert(calc_op(&a, &o, &b, &res));
            ops.push(o);
            res
        }
    }
}

fn rebuild(shape: &Shape, order: &[i64], codes: &[u8], leaf: &mut usize, node: &mut usize) -> Expr {
    match shape {
        Shape::Leaf => {
            *leaf += 1;
            Expr::Num(order[*leaf - 1])
        }
        Shape::Node(l, r) => {
            let a = rebuild(l, order, codes, leaf, node);
            let b = rebuild(r, order, codes, leaf, node);
            let (op, _) = op_code(codes[*node]);
            *node += 1;
            Expr::bin(op, a, b)
        }
    }
}

/// The complete Z3 encoding: every bracketing (one solver per tree shape), the
/// numbers as a [`permutation`]. Returns verified expressions, up to `limit`,
/// sorted and without repeats.
pub fn solve_complete(
    numbers: &[i64],
    target: i64,
    limit: usize,
) -> Result<Vec<String>, TwentyFourError> {
    let what = "the 24 game (every bracketing)";
    let mut found = std::collections::BTreeSet::new();
    for shape in shapes(numbers.len()) {
        if found.len() >= limit {
            break;
        }
        let solver = solver();
        let n: Vec<Real> = (0..numbers.len())
            .map(|i| Real::new_const(format!("n{i}")))
            .collect();
        solver.assert(permutation(&n, numbers));
        let mut ops = Vec::new();
        let root = encode(&shape, &solver, &n, &mut 0, &mut ops);
        solver.assert(root.eq(z3util::real(target)));
        while found.len() < limit {
            let render =
                |order: &[i64], codes: &[u8]| rebuild(&shape, order, codes, &mut 0, &mut 0);
            match next_solution(&solver, &n, &ops, (numbers, target), what, render)? {
                Some((_, text)) => {
                    found.insert(text);
                }
                None => break,
            }
        }
    }
    Ok(found.into_iter().take(limit).collect())
}

/// Z3 chooses only the operators: the numbers are constants, and the
/// orderings (without repeats) and bracketings are enumerated here, one query
/// each in a pushed scope of one solver, stopping once `limit` expressions
/// are found. Returns verified expressions, sorted and without repeats.
pub fn solve_operators(
    numbers: &[i64],
    target: i64,
    limit: usize,
) -> Result<Vec<String>, TwentyFourError> {
    let what = "the 24 game (operators only)";
    let solver = solver();
    let mut found = std::collections::BTreeSet::new();
    for order in super::exhaustive::distinct_permutations(numbers) {
        let leaves: Vec<Real> = order.iter().map(|v| z3util::real(*v)).collect();
        for shape in shapes(numbers.len()) {
            if found.len() >= limit {
                return Ok(found.into_iter().collect());
            }
            solver.push();
            let mut ops = Vec::new();
            let root = encode(&shape, &solver, &leaves, &mut 0, &mut ops);
            solver.assert(root.eq(z3util::real(target)));
            let render =
                |order: &[i64], codes: &[u8]| rebuild(&shape, order, codes, &mut 0, &mut 0);
            let result = (|| {
                while found.len() < limit {
                    match next_solution(&solver, &leaves, &ops, (numbers, target), what, render)? {
                        Some((_, text)) => {
                            found.insert(text);
                        }
                        None => break,
                    }
                }
                Ok::<(), TwentyFourError>(())
            })();
            solver.pop(1);
            result?;
        }
    }
    Ok(found.into_iter().take(limit).collect())
}
