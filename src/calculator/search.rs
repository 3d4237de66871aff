//! Exhaustive search over the simulator, shortest first, skipping states
//! already known to lead nowhere.

use std::collections::HashSet;

use super::level::{Level, Solution};

/// Every solution of the fewest presses that reach the goal within the level's
/// moves, sorted; empty when there is none. With `all == false`, only the first.
///
/// The search walks the sequences of each length in turn, depth first, and
/// remembers every state (display value, presses left) from which the goal
/// cannot be reached: a sequence that comes back to such a state is not walked
/// again. So the work grows with the number of distinct states, not with
/// buttons^length (14 presses of 5 buttons: 6·10⁹ sequences, but only the
/// values the buttons can actually make).
pub fn search(level: &Level, all: bool) -> Vec<Solution> {
    if level.start == level.goal {
        return vec![Solution {
            start: level.start,
            presses: vec![],
            values: vec![],
        }];
    }
    // "No goal within `left` presses from `value`" does not depend on the
    // length being tried, so the set serves every length.
    let mut dead = HashSet::new();
    for len in 1..=level.moves {
        let mut found = Vec::new();
        let mut presses = Vec::with_capacity(len);
        let mut walk = Walk {
            level,
            presses: &mut presses,
            found: &mut found,
            dead: &mut dead,
            all,
        };
        walk.from(level.start, len);
        if !found.is_empty() {
            found.sort();
            return found;
        }
    }
    Vec::new()
}

/// One depth-first walk over the sequences of one length.
struct Walk<'a> {
    level: &'a Level,
    presses: &'a mut Vec<usize>,
    found: &'a mut Vec<Solution>,
    dead: &'a mut HashSet<(i64, usize)>,
    all: bool,
}

impl Walk<'_> {
    /// Walks on from `value` with `left` presses; whether a solution was found.
    fn from(&mut self, value: i64, left: usize) -> bool {
        if !self.all && !self.found.is_empty() {
            return true;
        }
        if left == 0 {
            if value != self.level.goal {
                return false;
            }
            let seq = self
                .presses
                .iter()
                .map(|i| self.level.buttons[*i].clone())
                .collect();
            return match self.level.verify(seq) {
                Some(s) => {
                    self.found.push(s);
                    true
                }
                None => false,
            };
        }
        if self.dead.contains(&(value, left)) {
            return false;
        }
        let mut any = false;
        for i in 0..self.level.buttons.len() {
            if let Some(next) = self.level.buttons[i].apply(value) {
                self.presses.push(i);
                any |= self.from(next, left - 1);
                self.presses.pop();
            }
        }
        if !any {
            self.dead.insert((value, left));
        }
        any
    }
}
