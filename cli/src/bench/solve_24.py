# The write-up's solve_24 (002, "用 Z3 求解"), as it is there, timed over the
# multisets given on standard input, one per line ("1 5 5 5"). puzzlebook
# bench runs it with the z3-solver wheel's Python (cli/tests/kernel/setup-venv z3).
#
# Prints one line per multiset: the expression, or None (the write-up's
# solve_24 returns None whenever check() is not sat, unknown included; the
# bench counts the solvable ones against exact search, so an unknown shows).
# Then "libz3 <version> <file>" (the libz3 this process loaded) and
# "time <wall seconds> <CPU seconds>" for the loop alone.
#
# With the argument "arith2", Z3's legacy arithmetic solver is set first
# (smt.arith.solver=2, the Rust solvers' setting); the write-up sets nothing.
import os
import sys
import time

from z3 import *


def permutation(variables, values):
    """返回 variables 是 values 的一个排列这一约束"""
    distinct_values = set(values)
    # 1. 每个元素都是 values 中含有的值之一
    exprs = [Or([x == v for v in distinct_values]) for x in variables]
    # 2. 每个值的出现次数与 values 相同
    exprs += [Sum([x == v for x in variables]) == values.count(v) for v in distinct_values]
    return And(exprs)


# 0:+  1:-  2:*  3:/  4:反向的-  5:反向的/
OP_SYMBOLS = {0: '+', 1: '-', 2: '*', 3: '/', 4: '-', 5: '/'}


def output(numbers, ops):
    """从计算步骤（数的顺序和运算符序列）生成算式字符串"""
    def combine(n1, n2, op):
        if op in (4, 5):
            n1, n2 = n2, n1          # 反向的 - 和 / 交换左右再显示
        if isinstance(n1, str):
            n1 = f'({n1})'
        if isinstance(n2, str):
            n2 = f'({n2})'
        return f'{n1} {OP_SYMBOLS[op]} {n2}'

    expr = numbers[0]
    for n2, op in zip(numbers[1:], ops):
        expr = combine(expr, n2, op)
    return expr


def solve_24(*numbers):
    solver = Solver()
    n = RealVector('n', 4)      # 重排后的 4 个数（实数）
    op = IntVector('op', 3)     # 3 个运算符（0〜5）
    acc = RealVector('s', 3)    # 中途的计算结果

    solver.add(permutation(n, numbers))

    for x in op:
        solver.add(0 <= x, x < 6)

    def calc_op(n1, o, n2, res):
        """res == n1 (o) n2 这个约束"""
        return And(
            Implies(n2 == 0, o != 3),        # 不能除以 0
            Implies(n1 == 0, o != 5),
            Implies(o == 0, res == n1 + n2),
            Implies(o == 1, res == n1 - n2),
            Implies(o == 2, res == n1 * n2),
            Implies(o == 3, res == n1 / n2),
            Implies(o == 4, res == n2 - n1),  # 左右交换的减法
            Implies(o == 5, res == n2 / n1),  # 左右交换的除法
        )

    solver.add(calc_op(n[0], op[0], n[1], acc[0]))    # s0 = n0 op0 n1
    solver.add(calc_op(acc[0], op[1], n[2], acc[1]))  # s1 = s0 op1 n2
    solver.add(calc_op(acc[1], op[2], n[3], acc[2]))  # s2 = s1 op2 n3
    solver.add(acc[2] == 24)

    if solver.check() != sat:
        return None

    m = solver.model()
    numbers_used = [m.eval(x).as_long() for x in n]
    ops_used = [m.eval(x).as_long() for x in op]
    return output(numbers_used, ops_used)


def loaded_libz3():
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            name = os.path.basename(path)
            if name == "libz3.so" or name.startswith("libz3.so."):
                return path
    return "unknown"


if sys.argv[1:] == ["arith2"]:
    set_param("smt.arith.solver", 2)
multisets = [[int(x) for x in line.split()] for line in sys.stdin if line.strip()]
wall, cpu = time.perf_counter(), time.process_time()
answers = [solve_24(*m) for m in multisets]
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
for a in answers:
    print(a)
print("libz3", "%d.%d.%d" % get_version()[:3], loaded_libz3())
print("time", wall, cpu)
