//! The kernel's engine lock, taken so that a panic while one request held it
//! (a bug in evcxr on odd input, say) does not poison it and lock every later
//! cell, completion and inspection out of the session.

use std::sync::{Mutex, MutexGuard, TryLockError};

/// Waits for `m`, and takes it even if a holder panicked.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Takes `m` if it is free now, even if a holder panicked; `None` while
/// another request holds it.
pub fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_holding_the_lock_does_not_lock_out_the_next_request() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = std::sync::Arc::clone(&m);
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("a request panicked");
        })
        .join();
        assert!(m.is_poisoned());
        *lock(&m) += 1;
        assert_eq!(*try_lock(&m).expect("free"), 2);
        let _guard = lock(&m);
        assert!(try_lock(&m).is_none(), "held");
    }
}
